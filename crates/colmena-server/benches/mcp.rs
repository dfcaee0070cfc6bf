//! MCP benchmark (issue "Colmena as an MCP server", BENCHMARKS.md): the bus
//! tool `send_message` over MCP streamable HTTP from 8 concurrent sessions
//! (rmcp's own client, one call at a time per session), next to the same
//! sends over the REST route, in one run on one fresh workspace each:
//! messages/s and p50/p99 per call. The peer figure (mcp_agent_mail's
//! `send_message`, 159 ms a call on this machine) is in BENCHMARKS.md.
//!
//! `cargo bench -p colmena-server --bench mcp` (release). Optional:
//! `--calls-per-session N` (default 2000).

#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use colmena_core::OpenOptions;
use colmena_core::inbox::{self, NewAuthor};
use colmena_core::secrets::BackendChoice;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

const SESSIONS: usize = 8;

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

struct Bench {
    _dir: tempfile::TempDir,
    base: String,
    reader: String,
    senders: Vec<(String, String)>,
}

async fn bench() -> Bench {
    let dir = tempfile::tempdir().unwrap();
    let ctx = colmena_core::workspace::open(OpenOptions {
        data_dir: dir.path().to_owned(),
        secret_backend: BackendChoice::File,
    })
    .await
    .unwrap();
    let listener = colmena_server::http::bind("127.0.0.1:0".parse().unwrap(), false)
        .await
        .unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    // Load, not abuse: no per-token rate limit, room for every message.
    colmena_core::inbox::messages::set_max_unread(&ctx, 10_000_000)
        .await
        .unwrap();
    tokio::spawn(colmena_server::http::serve_with(
        ctx.clone(),
        listener,
        colmena_server::http::ServerConfig::default().unlimited_rate(),
        std::future::pending(),
    ));
    let new = |name: String| {
        let ctx = ctx.clone();
        async move {
            let made = inbox::authors::create(
                &ctx,
                NewAuthor {
                    name,
                    ..Default::default()
                },
            )
            .await
            .unwrap();
            (made.author.id, made.token)
        }
    };
    let reader = new("Reader".into()).await.0;
    let mut senders = Vec::new();
    for s in 0..SESSIONS {
        senders.push(new(format!("Sender {s}")).await);
    }
    Bench {
        _dir: dir,
        base,
        reader,
        senders,
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn report(label: &str, elapsed: Duration, mut samples: Vec<Duration>) -> f64 {
    samples.sort();
    let rate = samples.len() as f64 / elapsed.as_secs_f64();
    println!(
        "{label}: {} calls from {SESSIONS} sessions in {:.2} s = {rate:.0} msg/s; per call p50={:.2} ms p99={:.2} ms",
        samples.len(),
        elapsed.as_secs_f64(),
        percentile(&samples, 0.5).as_secs_f64() * 1e3,
        percentile(&samples, 0.99).as_secs_f64() * 1e3,
    );
    rate
}

async fn over_mcp(calls: usize) -> f64 {
    let b = bench().await;
    let mut clients = Vec::new();
    for (_, token) in &b.senders {
        let config = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", b.base))
            .auth_header(token.clone());
        let client = ().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap();
        clients.push(client);
    }
    let started = Instant::now();
    let mut tasks = Vec::new();
    for client in clients {
        let to = b.reader.clone();
        tasks.push(tokio::spawn(async move {
            let mut samples = Vec::with_capacity(calls);
            for n in 0..calls {
                let arguments =
                    serde_json::json!({ "to_author_name": to, "body": format!("message {n}") });
                let params = CallToolRequestParams::new("send_message")
                    .with_arguments(arguments.as_object().unwrap().clone());
                let t = Instant::now();
                let result = client.call_tool(params).await.unwrap();
                samples.push(t.elapsed());
                assert_ne!(result.is_error, Some(true), "{result:?}");
            }
            let _ = client.cancel().await;
            samples
        }));
    }
    let mut samples = Vec::new();
    for t in tasks {
        samples.extend(t.await.unwrap());
    }
    report(
        "send_message over MCP streamable HTTP",
        started.elapsed(),
        samples,
    )
}

async fn over_rest(calls: usize) -> f64 {
    let b = bench().await;
    let started = Instant::now();
    let mut tasks = Vec::new();
    for (id, token) in b.senders.clone() {
        let (base, to) = (b.base.clone(), b.reader.clone());
        tasks.push(tokio::spawn(async move {
            let http = reqwest::Client::new();
            let mut samples = Vec::with_capacity(calls);
            for n in 0..calls {
                let t = Instant::now();
                let response = http
                    .post(format!("{base}/author/{id}/message-to/{to}"))
                    .bearer_auth(&token)
                    .json(&serde_json::json!({ "body": format!("message {n}") }))
                    .send()
                    .await
                    .unwrap();
                samples.push(t.elapsed());
                assert_eq!(response.status(), 201);
            }
            samples
        }));
    }
    let mut samples = Vec::new();
    for t in tasks {
        samples.extend(t.await.unwrap());
    }
    report(
        "POST /author/{id}/message-to/{to} (REST)",
        started.elapsed(),
        samples,
    )
}

fn main() {
    let calls = arg("--calls-per-session", 2000);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mcp = over_mcp(calls).await;
        let rest = over_rest(calls).await;
        // mcp_agent_mail: 159 ms per send_message, one session (BENCHMARKS.md).
        let peer = 1.0 / 0.159;
        println!(
            "MCP / peer (mcp_agent_mail, {peer:.1} msg/s) = {:.0}x; MCP / REST = {:.2}",
            mcp / peer,
            mcp / rest
        );
    });
}
