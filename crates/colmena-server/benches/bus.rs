//! Bus benchmarks (issue "The bus", BENCHMARKS.md):
//!
//! 1. send throughput: 8 senders POSTing over loopback HTTP to the real
//!    server (keep-alive connections, each sender one request at a time);
//! 2. inbox read latency with 1,000,000 stored messages: p50/p99 of
//!    `GET /author/{id}/inbox` (peek and marking read), and of the core call.
//!
//! `cargo bench -p colmena-server --bench bus` (release). Optional args:
//! `--messages-per-sender N` (default 5000), `--stored N` (default 1000000).

#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use colmena_core::inbox::{self, Caller, InboxQuery, NewAuthor};
use colmena_core::secrets::BackendChoice;
use colmena_core::{Ctx, OpenOptions};
use rusqlite_free::insert_messages;

const SENDERS: usize = 8;

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

struct Who {
    id: String,
    token: String,
}

async fn author(ctx: &Ctx, name: &str) -> Who {
    let created = inbox::authors::create(
        ctx,
        NewAuthor {
            name: name.into(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    Who {
        id: created.author.id,
        token: created.token,
    }
}

async fn server(ctx: &Ctx) -> String {
    let listener = colmena_server::http::bind("127.0.0.1:0".parse().unwrap(), false)
        .await
        .unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    // Load, not abuse: no per-token rate limit, room for every message.
    colmena_core::inbox::messages::set_max_unread(ctx, 10_000_000)
        .await
        .unwrap();
    tokio::spawn(colmena_server::http::serve_with(
        ctx.clone(),
        listener,
        colmena_server::http::ServerConfig::default().unlimited_rate(),
        std::future::pending(),
    ));
    base
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn report(label: &str, mut samples: Vec<Duration>) {
    samples.sort();
    println!(
        "{label}: n={} p50={:.2} ms p99={:.2} ms max={:.2} ms",
        samples.len(),
        percentile(&samples, 0.5).as_secs_f64() * 1e3,
        percentile(&samples, 0.99).as_secs_f64() * 1e3,
        samples.last().unwrap().as_secs_f64() * 1e3,
    );
}

async fn throughput(per_sender: usize) {
    let dir = tempfile::tempdir().unwrap();
    let ctx = open(dir.path()).await;
    let base = server(&ctx).await;
    let reader = author(&ctx, "Reader").await;
    let mut senders = Vec::new();
    for s in 0..SENDERS {
        senders.push(Arc::new(author(&ctx, &format!("Sender {s}")).await));
    }
    let started = Instant::now();
    let mut tasks = Vec::new();
    for from in senders {
        let (base, to) = (base.clone(), reader.id.clone());
        tasks.push(tokio::spawn(async move {
            let http = reqwest::Client::new();
            for n in 0..per_sender {
                let response = http
                    .post(format!("{base}/author/{}/message-to/{to}", from.id))
                    .bearer_auth(&from.token)
                    .json(&serde_json::json!({ "body": format!("message {n} from {}", from.id) }))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(response.status(), 201);
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let elapsed = started.elapsed();
    let total = SENDERS * per_sender;
    println!(
        "send throughput: {total} messages from {SENDERS} senders over loopback HTTP in {:.2} s = {:.0} msg/s",
        elapsed.as_secs_f64(),
        total as f64 / elapsed.as_secs_f64()
    );
}

async fn inbox_reads(stored: usize) {
    let dir = tempfile::tempdir().unwrap();
    let ctx = open(dir.path()).await;
    let base = server(&ctx).await;
    // 100 authors, 10,000 messages each at 1M; a tenth of them unread.
    let mut authors = Vec::new();
    for a in 0..100 {
        authors.push(author(&ctx, &format!("Author {a}")).await);
    }
    let ids: Vec<String> = authors.iter().map(|a| a.id.clone()).collect();
    let started = Instant::now();
    insert_messages(&ctx, &ids, stored).await;
    println!(
        "stored {stored} messages for {} authors in {:.1} s",
        ids.len(),
        started.elapsed().as_secs_f64()
    );

    let http = reqwest::Client::new();
    for (label, query) in [
        ("HTTP inbox read, peek, 100 unread", "?peek=true&limit=100"),
        (
            "HTTP inbox read, read and unread, 100 oldest",
            "?peek=true&unread_only=false&limit=100",
        ),
        ("HTTP inbox read marking read, 20 per call", "?limit=20"),
    ] {
        let mut samples = Vec::new();
        for i in 0..1000 {
            let who = &authors[i % authors.len()];
            let t = Instant::now();
            let response = http
                .get(format!("{base}/author/{}/inbox{query}", who.id))
                .bearer_auth(&who.token)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 200);
            let _: serde_json::Value = response.json().await.unwrap();
            samples.push(t.elapsed());
        }
        report(label, samples);
    }
    let mut samples = Vec::new();
    for i in 0..1000 {
        let who = &authors[i % authors.len()];
        let t = Instant::now();
        let query = InboxQuery {
            peek: Some(true),
            limit: Some(100),
            ..Default::default()
        };
        inbox::messages::inbox(
            &ctx,
            &Caller {
                actor: colmena_core::caller::Actor::Person {
                    user: who.id.clone(),
                    author: Some(who.id.clone()),
                },
                client: colmena_core::caller::Client::Http,
            },
            &who.id,
            query,
        )
        .await
        .unwrap();
        samples.push(t.elapsed());
    }
    report("core inbox read, peek, 100 unread", samples);
}

async fn open(dir: &std::path::Path) -> Ctx {
    colmena_core::workspace::open(OpenOptions {
        data_dir: dir.to_owned(),
        secret_backend: BackendChoice::File,
    })
    .await
    .unwrap()
}

/// Bulk loading for the benchmark only: one transaction of plain inserts,
/// the shape `inbox::messages::send` writes.
mod rusqlite_free {
    use colmena_core::Ctx;

    pub async fn insert_messages(ctx: &Ctx, authors: &[String], count: usize) {
        let authors = authors.to_vec();
        ctx.store()
            .write(move |tx| {
                let mut insert = tx.prepare(
                    "INSERT INTO bus_messages (id, from_author, to_author, body, priority, created_at, read_at)
                     VALUES (?1, ?2, ?3, ?4, 'normal', ?5, ?6)",
                )?;
                let start = chrono::Utc::now() - chrono::Duration::days(30);
                for n in 0..count {
                    let to = &authors[n % authors.len()];
                    let from = &authors[(n + 1) % authors.len()];
                    let at = (start + chrono::Duration::milliseconds(n as i64 * 2))
                        .to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
                    // The newest tenth of each inbox is unread.
                    let read = (n < count * 9 / 10).then(|| at.clone());
                    insert.execute((
                        uuid::Uuid::now_v7().to_string(),
                        from,
                        to,
                        format!("message {n}: a line of text of ordinary length for a note between roles"),
                        at,
                        read,
                    ))?;
                }
                Ok(())
            })
            .await
            .unwrap();
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        throughput(arg("--messages-per-sender", 5000)).await;
        inbox_reads(arg("--stored", 1_000_000)).await;
    });
}
