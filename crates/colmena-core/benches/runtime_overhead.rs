//! The runtime's own cost (BENCHMARKS.md), against the scripted provider on
//! 127.0.0.1 with zero latency: what a streamed token and an agent step cost
//! on top of reading the same bytes off the socket.
//!
//! - *per token*: one answer of N text deltas through `run_agent` (SSE
//!   parsing, accumulation, one `TextDelta` event per delta to the sink),
//!   minus the same stream read raw with `reqwest`;
//! - *per step*: an agent that calls a tool K times before answering; each
//!   step is a model call, the tool, two step records and a checkpoint (three
//!   durable commits), minus the raw HTTP exchange of the same reply.
//!
//! Run: `cargo bench -p colmena-core --bench runtime_overhead`

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use colmena_core::agents::{self, NewAgent};
use colmena_core::ids::AgentId;
use colmena_core::models::{self, NewModel};
use colmena_core::providers::{self, NewProvider};
use colmena_core::runs::RunStatus;
use colmena_core::runs::context::RunEvent;
use colmena_core::runtime::agent::{AgentRunOptions, run_agent};
use colmena_core::secrets::BackendChoice;
use colmena_core::{Ctx, OpenOptions};
use colmena_scripted_llm::{Matcher, Protocol, Rule, Script, ScriptedLlm};

const TOKENS: usize = 4_000;
const STEPS: usize = 15;
const REPEAT: usize = 25;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        tokens().await;
        steps().await;
    });
}

struct Hive {
    _dir: tempfile::TempDir,
    ctx: Ctx,
    server: ScriptedLlm,
}

async fn hive(rules: Vec<Rule>) -> Hive {
    let dir = tempfile::tempdir().unwrap();
    let ctx = colmena_core::workspace::open(OpenOptions {
        data_dir: dir.path().to_owned(),
        secret_backend: BackendChoice::File,
    })
    .await
    .unwrap();
    let server = ScriptedLlm::start(Script { rules }).await.unwrap();
    providers::create(
        &ctx,
        NewProvider {
            name: "Bench".into(),
            kind: "openai".into(),
            base_url: Some(server.base_url(Protocol::OpenAi)),
            api_key: Some("sk-bench-0123456789".into()),
        },
    )
    .await
    .unwrap();
    let model = models::create(
        &ctx,
        NewModel {
            provider_id: "bench".into(),
            name: "m".into(),
            label: None,
        },
    )
    .await
    .unwrap();
    models::set_default_model(&ctx, Some(model.id))
        .await
        .unwrap();
    Hive {
        _dir: dir,
        ctx,
        server,
    }
}

async fn agent(ctx: &Ctx, name: &str, tools: &[&str]) -> AgentId {
    agents::create(
        ctx,
        NewAgent {
            name: name.into(),
            system_prompt: format!("You are {name}."),
            tools: tools.iter().map(|t| (*t).to_owned()).collect(),
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .id
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Times `run_agent` end to end; `events` counts what reached the sink.
async fn timed_run(ctx: &Ctx, agent: &AgentId) -> (Duration, usize) {
    let events = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&events);
    let sink = Arc::new(move |e: RunEvent| {
        if matches!(e, RunEvent::TextDelta { .. }) {
            counter.fetch_add(1, Ordering::Relaxed);
        }
    });
    let started = Instant::now();
    let run = run_agent(ctx, agent, "go", AgentRunOptions::default(), sink)
        .await
        .unwrap();
    let took = started.elapsed();
    assert_eq!(run.status, RunStatus::Completed, "{:?}", run.error);
    (took, events.load(Ordering::Relaxed))
}

/// The same request `run_agent` makes, read raw off the socket.
async fn raw_exchange(server: &ScriptedLlm, system: &str, messages: serde_json::Value) -> Duration {
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    let client = CLIENT.get_or_init(reqwest::Client::new);
    let mut all = vec![serde_json::json!({ "role": "system", "content": system })];
    all.extend(messages.as_array().unwrap().iter().cloned());
    let body = serde_json::json!({ "model": "m", "stream": true, "messages": all });
    let started = Instant::now();
    let response = client
        .post(format!(
            "{}/chat/completions",
            server.base_url(Protocol::OpenAi)
        ))
        .bearer_auth("sk-bench-0123456789")
        .json(&body)
        .send()
        .await
        .unwrap();
    let mut stream = response.bytes_stream();
    let mut read = 0;
    while let Some(chunk) = futures_util::StreamExt::next(&mut stream).await {
        read += chunk.unwrap().len();
    }
    assert!(read > 0);
    started.elapsed()
}

async fn tokens() {
    let text = "ab".repeat(TOKENS);
    let hive = hive(vec![Rule::text(&text).text_in_pieces(2).repeat()]).await;
    let id = agent(&hive.ctx, "Talker", &[]).await;
    for _ in 0..3 {
        timed_run(&hive.ctx, &id).await;
    }
    let mut runs = Vec::new();
    let mut raws = Vec::new();
    for _ in 0..REPEAT {
        let (took, deltas) = timed_run(&hive.ctx, &id).await;
        assert_eq!(deltas, TOKENS, "every delta reached the sink");
        runs.push(took);
        raws.push(
            raw_exchange(
                &hive.server,
                "You are Talker.",
                serde_json::json!([{ "role": "user", "content": "go" }]),
            )
            .await,
        );
    }
    let (run, raw) = (median(runs), median(raws));
    let per_token = (run.saturating_sub(raw)).as_secs_f64() * 1e6 / TOKENS as f64;
    println!("== streamed tokens: one answer of {TOKENS} deltas, median of {REPEAT} ==");
    println!(
        "run_agent end to end           {:>9.2} ms",
        run.as_secs_f64() * 1e3
    );
    println!(
        "same stream read raw (reqwest) {:>9.2} ms",
        raw.as_secs_f64() * 1e3
    );
    println!("runtime overhead per token     {per_token:>9.2} µs");
}

async fn steps() {
    let mut rules: Vec<Rule> = (0..STEPS)
        .map(|i| {
            Rule::tool_call("list_agents", "{}")
                .when(Matcher {
                    tool_results: Some(i),
                    ..Default::default()
                })
                .repeat()
        })
        .collect();
    rules.push(
        Rule::text("done")
            .when(Matcher {
                tool_results: Some(STEPS),
                ..Default::default()
            })
            .repeat(),
    );
    let hive = hive(rules).await;
    let id = agent(&hive.ctx, "Stepper", &["list_agents"]).await;
    for _ in 0..3 {
        timed_run(&hive.ctx, &id).await;
    }
    let mut runs = Vec::new();
    let mut raws = Vec::new();
    for _ in 0..REPEAT {
        runs.push(timed_run(&hive.ctx, &id).await.0);
        raws.push(
            raw_exchange(
                &hive.server,
                "You are Stepper.",
                serde_json::json!([{ "role": "user", "content": "go" }]),
            )
            .await,
        );
    }
    let (run, raw) = (median(runs), median(raws));
    let calls = STEPS + 1;
    let per_step = (run.saturating_sub(raw * calls as u32)).as_secs_f64() * 1e3 / calls as f64;
    println!(
        "\n== agent steps: {STEPS} tool calls then an answer ({calls} model calls), median of {REPEAT} =="
    );
    println!(
        "run_agent end to end           {:>9.2} ms",
        run.as_secs_f64() * 1e3
    );
    println!(
        "one raw model exchange         {:>9.2} ms",
        raw.as_secs_f64() * 1e3
    );
    println!(
        "runtime overhead per step      {per_step:>9.2} ms (tool, step records, checkpoint, lease)"
    );
}
