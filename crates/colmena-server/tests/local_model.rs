//! A model inside Colmena (issue 35), on a real GGUF (SmolLM2-135M, put in
//! the tools cache by setup.sh; `COLMENA_TEST_GGUF` names it) and the real
//! engine process (`colmena engine`, this package's binary). The model's
//! judgement is never asserted — a 135M model says what it says — only the
//! wire and the bookkeeping: streaming, token counts, failures and queues.

#![allow(clippy::unwrap_used)]

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use colmena_core::agents::{self, NewAgent};
use colmena_core::ids::AgentId;
use colmena_core::llm::local::engine::{EngineCommand, set_engine_command};
use colmena_core::models::local;
use colmena_core::runs::context::{EventSink, RunEvent};
use colmena_core::runs::{self, RunStatus};
use colmena_core::runtime::agent::{AgentRunOptions, run_agent};
use colmena_core::{Ctx, ErrorCode};
use common::{colmena, ok_json, run};

/// The context the test model gets: room for an agent's prompt and tools,
/// and a bound on how long an answer can be.
const CONTEXT: u32 = 1024;

/// A hang guard, not a timing claim.
const PATIENCE: Duration = Duration::from_secs(120);

fn gguf() -> PathBuf {
    common::test_gguf()
}

/// This package's `colmena engine`, sampling from a fixed seed: what the
/// model says is the same on every run of a test.
fn use_this_packages_engine() {
    set_engine_command(EngineCommand {
        program: PathBuf::from(env!("CARGO_BIN_EXE_colmena")),
        args: vec!["engine".into()],
        env: vec![("COLMENA_ENGINE_SEED".into(), "42".into())],
    });
}

/// A workspace with the test model pulled in and an agent on it.
async fn workspace_with_model() -> (tempfile::TempDir, Ctx, AgentId) {
    use_this_packages_engine();
    let (dir, ctx) = common::workspace().await;
    let model = local::add_file(&ctx, &gguf(), Some("smollm2-135m"))
        .await
        .unwrap();
    assert_eq!(model.id.as_str(), "local/smollm2-135m");
    assert!(!model.accepts_images, "the engine reads no images");
    // A small context bounds how long a 135M model may ramble.
    colmena_core::models::set_context_window(&ctx, &model.id, Some(CONTEXT))
        .await
        .unwrap();
    let agent = agents::create(
        &ctx,
        NewAgent {
            name: "Helper".into(),
            system_prompt: "You are a helpful assistant. Answer briefly.".into(),
            ..NewAgent::default()
        },
    )
    .await
    .unwrap();
    (dir, ctx, agent.id)
}

fn collect_text() -> (EventSink, Arc<Mutex<String>>) {
    let text = Arc::new(Mutex::new(String::new()));
    let into = text.clone();
    let sink: EventSink = Arc::new(move |event| {
        if let RunEvent::TextDelta { text, .. } = event {
            into.lock().unwrap().push_str(&text);
        }
    });
    (sink, text)
}

fn signal(pid: u32, signal: &str) {
    let sent = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success(), "kill {signal} {pid}");
}

#[tokio::test]
async fn a_run_on_the_local_model_streams_and_counts_its_tokens() {
    let (_dir, ctx, agent) = workspace_with_model().await;
    let (sink, streamed) = collect_text();
    let run = run_agent(
        &ctx,
        &agent,
        "Say hello in one short sentence.",
        AgentRunOptions::default(),
        sink,
    )
    .await
    .unwrap();
    assert_eq!(run.status, RunStatus::Completed, "{:?}", run.error);
    let output = run.output.clone().unwrap_or_default();
    assert!(!output.trim().is_empty(), "the model said nothing");
    assert_eq!(
        *streamed.lock().unwrap(),
        output,
        "what streamed is the answer"
    );
    let prompt = run.usage.prompt_tokens.unwrap();
    let completion = run.usage.completion_tokens.unwrap();
    assert!(prompt > 10 && completion > 0, "{:?}", run.usage);
    let listed = local::list(&ctx).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert!(listed[0].loaded, "{listed:?}");
}

#[tokio::test]
async fn the_engine_killed_during_a_run_fails_that_run_and_the_next_one_works() {
    let (_dir, ctx, agent) = workspace_with_model().await;
    let first = run_agent(
        &ctx,
        &agent,
        "Hi",
        AgentRunOptions::default(),
        runs::context::no_events(),
    )
    .await
    .unwrap();
    assert_eq!(first.status, RunStatus::Completed, "{:?}", first.error);
    let engine = local::handle(&ctx).engine().clone();
    let pid = engine.pid().unwrap();
    // Frozen, it cannot answer: the run is certainly under way when the
    // engine dies, whatever the machine's speed.
    let before = engine.chats_sent();
    signal(pid, "-STOP");
    let ctx2 = ctx.clone();
    let agent2 = agent.clone();
    let doomed = tokio::spawn(async move {
        run_agent(
            &ctx2,
            &agent2,
            "Tell me a story.",
            AgentRunOptions::default(),
            runs::context::no_events(),
        )
        .await
    });
    // The frozen engine holds the second chat: its death is that chat's.
    let started = Instant::now();
    while engine.chats_sent() <= before {
        assert!(
            started.elapsed() < PATIENCE,
            "the second chat never reached the engine"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    signal(pid, "-KILL");
    let failed = tokio::time::timeout(PATIENCE, doomed)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(failed.status, RunStatus::Failed);
    let error = failed.error.unwrap();
    assert_eq!(error.code, ErrorCode::Upstream, "{error:?}");
    assert!(
        error.message.contains("engine stopped"),
        "{}",
        error.message
    );
    assert!(error.message.contains("killed"), "{}", error.message);

    let next = run_agent(
        &ctx,
        &agent,
        "Hi again",
        AgentRunOptions::default(),
        runs::context::no_events(),
    )
    .await
    .unwrap();
    assert_eq!(next.status, RunStatus::Completed, "{:?}", next.error);
    assert_ne!(engine.pid(), Some(pid), "a new engine answered");
}

#[tokio::test]
async fn a_run_cancelled_while_the_engine_is_busy_ends_cancelled_and_the_engine_lives_on() {
    let (_dir, ctx, agent) = workspace_with_model().await;
    let warm = run_agent(
        &ctx,
        &agent,
        "Hi",
        AgentRunOptions::default(),
        runs::context::no_events(),
    )
    .await
    .unwrap();
    assert_eq!(warm.status, RunStatus::Completed, "{:?}", warm.error);
    let engine = local::handle(&ctx).engine().clone();
    let pid = engine.pid().unwrap();
    let before = engine.chats_sent();
    signal(pid, "-STOP");
    let ctx2 = ctx.clone();
    let agent2 = agent.clone();
    let (sink, streamed) = collect_text();
    let run = tokio::spawn(async move {
        run_agent(
            &ctx2,
            &agent2,
            "Count to a thousand.",
            AgentRunOptions::default(),
            sink,
        )
        .await
    });
    // The frozen engine holds the chat when the run is cancelled.
    let started = Instant::now();
    while engine.chats_sent() <= before {
        assert!(
            started.elapsed() < PATIENCE,
            "the chat never reached the engine"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let running = runs::list(&ctx, runs::RunFilter::default()).await.unwrap();
    let id = running
        .iter()
        .find(|r| r.status == RunStatus::Running)
        .map(|r| r.id.clone())
        .expect("the run is under way");
    runs::cancel(&ctx, &id).await.unwrap();
    // Both the chat and its cancel wait in the engine's stdin; whatever it
    // wrote before it read the cancel, the run ends cancelled.
    signal(pid, "-CONT");
    let ended = tokio::time::timeout(PATIENCE, run)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(ended.status, RunStatus::Cancelled, "{:?}", ended.error);
    let streamed = streamed.lock().unwrap().len();
    assert!(
        streamed < 4096,
        "it stopped early: {streamed} bytes streamed"
    );
    assert_eq!(engine.pid(), Some(pid), "the engine lives on");
}

/// A machine with 8 GiB of memory of which `free` bytes are free.
fn machine_with_free(free: u64) -> colmena_core::llm::local::memory::MemoryReader {
    Arc::new(move || {
        Some(colmena_core::llm::local::memory::Memory {
            total: 8 << 30,
            available: free,
        })
    })
}

#[tokio::test]
async fn a_model_larger_than_the_free_memory_is_refused_before_it_loads() {
    let (_dir, ctx, agent) = workspace_with_model().await;
    let engine = local::handle(&ctx).engine().clone();
    engine.set_memory_reader(machine_with_free(20 << 20));
    let run = run_agent(
        &ctx,
        &agent,
        "Hi",
        AgentRunOptions::default(),
        runs::context::no_events(),
    )
    .await
    .unwrap();
    assert_eq!(run.status, RunStatus::Failed);
    let error = run.error.unwrap();
    assert_eq!(error.code, ErrorCode::Precondition, "{error:?}");
    assert_eq!(
        error.details.as_ref().unwrap()["reason"],
        "too_large_for_memory",
        "{error:?}"
    );
    assert!(error.message.contains("MB are free"), "{}", error.message);
    assert_eq!(engine.pid(), None, "no engine was started for it");
}

#[tokio::test]
async fn memory_running_short_unloads_the_idle_model_and_the_next_run_loads_it_again() {
    let (_dir, ctx, agent) = workspace_with_model().await;
    let first = run_agent(
        &ctx,
        &agent,
        "Hi",
        AgentRunOptions::default(),
        runs::context::no_events(),
    )
    .await
    .unwrap();
    assert_eq!(first.status, RunStatus::Completed, "{:?}", first.error);
    let engine = local::handle(&ctx).engine().clone();
    assert!(engine.loaded().is_some());
    // 1 % free: the engine's watch unloads the model.
    engine.set_memory_reader(machine_with_free((8 << 30) / 100));
    let started = Instant::now();
    while engine.loaded().is_some() {
        assert!(started.elapsed() < PATIENCE, "the model was never unloaded");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(engine.pid(), None, "the engine stopped with it");
    // Memory back: the next run starts the engine and loads the model.
    engine.set_memory_reader(machine_with_free(4 << 30));
    let next = run_agent(
        &ctx,
        &agent,
        "Hi again",
        AgentRunOptions::default(),
        runs::context::no_events(),
    )
    .await
    .unwrap();
    assert_eq!(next.status, RunStatus::Completed, "{:?}", next.error);
    assert!(engine.loaded().is_some());
}

#[tokio::test]
async fn two_runs_on_one_model_queue_and_both_finish() {
    let (_dir, ctx, agent) = workspace_with_model().await;
    let one = run_agent(
        &ctx,
        &agent,
        "Name a colour.",
        AgentRunOptions::default(),
        runs::context::no_events(),
    );
    let two = run_agent(
        &ctx,
        &agent,
        "Name a fruit.",
        AgentRunOptions::default(),
        runs::context::no_events(),
    );
    let (one, two) = tokio::join!(one, two);
    for run in [one.unwrap(), two.unwrap()] {
        assert_eq!(run.status, RunStatus::Completed, "{:?}", run.error);
        assert!(run.usage.completion_tokens.unwrap() > 0);
    }
}

#[tokio::test]
async fn an_agent_offered_a_tool_runs_on_the_local_model() {
    let (_dir, ctx, _) = workspace_with_model().await;
    let agent = agents::create(
        &ctx,
        NewAgent {
            name: "Reader".into(),
            system_prompt: "You answer questions, using tools when useful.".into(),
            tools: vec!["list_agents".into()],
            ..NewAgent::default()
        },
    )
    .await
    .unwrap();
    let run = run_agent(
        &ctx,
        &agent.id,
        "Which agents are there? Use the tool.",
        AgentRunOptions::default(),
        runs::context::no_events(),
    )
    .await
    .unwrap();
    assert_eq!(run.status, RunStatus::Completed, "{:?}", run.error);
    let detail = runs::get(&ctx, &run.id).await.unwrap();
    // Whatever the model chose, each step it took was recorded whole: a
    // tool call has its result, and the run's tokens are the steps' sum.
    // Tool calls are recorded inside the message step that made them.
    let calls: usize = detail
        .steps
        .iter()
        .filter(|s| s.kind == "message")
        .map(|s| s.content["toolCalls"].as_array().map_or(0, Vec::len))
        .sum();
    let results = detail
        .steps
        .iter()
        .filter(|s| s.kind == "tool_result")
        .count();
    assert_eq!(calls, results, "{:?}", detail.steps);
    assert!(
        run.usage.prompt_tokens.unwrap() > 100,
        "the tools were in the prompt: {:?}",
        run.usage
    );
}

#[test]
fn a_pulled_model_becomes_the_default_and_the_cli_runs_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let pulled = ok_json(
        colmena(dir.path())
            .args(["model", "pull"])
            .arg(gguf())
            .args(["--name", "smollm2-135m"]),
    );
    assert_eq!(pulled["id"], "local/smollm2-135m");
    let default = ok_json(colmena(dir.path()).args(["model", "default"]));
    assert_eq!(default["defaultModel"], "local/smollm2-135m");
    ok_json(colmena(dir.path()).args([
        "model",
        "window",
        "local/smollm2-135m",
        &CONTEXT.to_string(),
    ]));
    let listed = ok_json(colmena(dir.path()).args(["model", "list", "--local"]));
    assert_eq!(listed[0]["name"], "smollm2-135m");
    assert_eq!(listed[0]["downloading"], false);
    ok_json(colmena(dir.path()).args([
        "agent",
        "add",
        "Helper",
        "--system-prompt",
        "Answer briefly.",
    ]));
    let out = run(colmena(dir.path())
        .args(["agent", "run", "helper", "Say hi."])
        .env("COLMENA_ENGINE_SEED", "42"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stdout).trim().is_empty());

    // Removing it frees the disk; agents on the default have none again.
    ok_json(colmena(dir.path()).args(["model", "rm", "smollm2-135m"]));
    assert!(!dir.path().join("models/smollm2-135m.gguf").exists());
    let listed = ok_json(colmena(dir.path()).args(["model", "list", "--local"]));
    assert_eq!(listed, serde_json::json!([]));
    let default = ok_json(colmena(dir.path()).args(["model", "default"]));
    assert_eq!(default["defaultModel"], serde_json::Value::Null);
}

#[test]
fn the_models_on_this_computer_have_one_provider_found_by_its_kind() {
    let dir = tempfile::tempdir().unwrap();
    let refused = |args: &[&str], reason: &str| {
        let out = run(colmena(dir.path()).args(args).arg("--json"));
        assert!(!out.status.success(), "{args:?} was accepted");
        let error: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
        assert_eq!(error["error"]["code"], "conflict", "{error}");
        assert_eq!(error["error"]["details"]["reason"], reason, "{error}");
    };
    // A server called "Local" keeps its name; the models on this computer
    // get a provider of their own, found by its kind, not by its id.
    let server =
        ok_json(colmena(dir.path()).args(["provider", "add", "Local", "--kind", "ollama"]));
    assert_eq!(server["id"], "local", "{server}");
    ok_json(colmena(dir.path()).args(["model", "add", "local", "llama3"]));
    // `model rm` is about the files on this computer: the server's model
    // of the same name is not touched.
    let out = run(colmena(dir.path()).args(["model", "rm", "llama3", "--json"]));
    assert!(!out.status.success(), "a server's model was removed");
    let models = ok_json(colmena(dir.path()).args(["model", "list"]));
    assert!(
        models
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["id"] == "local/llama3"),
        "{models}"
    );
    let pulled = ok_json(
        colmena(dir.path())
            .args(["model", "pull"])
            .arg(gguf())
            .args(["--name", "smollm2-135m"]),
    );
    assert_eq!(pulled["id"], "local_2/smollm2-135m", "{pulled}");
    let listed = ok_json(colmena(dir.path()).args(["model", "list", "--local"]));
    assert_eq!(listed[0]["id"], "local_2/smollm2-135m", "{listed}");
    refused(
        &["provider", "add", "Second", "--kind", "local"],
        "one_local_provider",
    );
    // Its models are its files: none is added or renamed by name alone.
    for args in [
        &["model", "add", "local_2", "no-such-file"][..],
        &["model", "rename", "local_2/smollm2-135m", "other"][..],
    ] {
        let out = run(colmena(dir.path()).args(args).arg("--json"));
        assert!(!out.status.success(), "{args:?} was accepted");
        let error: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
        assert_eq!(error["error"]["code"], "validation", "{error}");
        assert_eq!(
            error["error"]["details"]["reason"], "local_model_is_a_file",
            "{error}"
        );
    }
    let providers = ok_json(colmena(dir.path()).args(["provider", "list"]));
    assert_eq!(providers.as_array().unwrap().len(), 2, "{providers}");
    // The local model answers (the server's model came first: the default).
    ok_json(colmena(dir.path()).args(["model", "default", "local_2/smollm2-135m"]));
    ok_json(colmena(dir.path()).args([
        "agent",
        "add",
        "Helper",
        "--system-prompt",
        "Answer briefly.",
    ]));
    let out = run(colmena(dir.path())
        .args(["agent", "run", "helper", "Say hi."])
        .env("COLMENA_ENGINE_SEED", "42"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn files_that_are_not_whole_models_are_refused_with_their_reasons() {
    let dir = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let text = scratch.path().join("notes.gguf");
    std::fs::write(&text, "not a model at all\n").unwrap();
    let cut = scratch.path().join("cut.gguf");
    let bytes = std::fs::read(gguf()).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    for (file, reason) in [(&text, "not_gguf"), (&cut, "truncated")] {
        let out = run(colmena(dir.path())
            .args(["--json", "model", "pull"])
            .arg(file));
        assert!(!out.status.success());
        let error: serde_json::Value = serde_json::from_slice(&out.stderr)
            .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
        assert_eq!(error["error"]["code"], "validation", "{error}");
        assert_eq!(error["error"]["details"]["reason"], reason, "{error}");
    }
    let listed = ok_json(colmena(dir.path()).args(["model", "list", "--local"]));
    assert_eq!(listed, serde_json::json!([]), "nothing was copied in");
}

#[tokio::test]
async fn a_canvas_variant_generates_on_the_local_model_and_records_its_round() {
    let (_dir, ctx, _) = workspace_with_model().await;
    let ui = colmena_core::inbox::Caller::ui(&ctx);
    let sample = colmena_core::setup::sample::open_sample_canvas(&ctx, &ui, "en")
        .await
        .unwrap();
    let variant = &sample.variants[0];
    let round = colmena_core::canvas::generate::generate_variant(
        &ctx,
        &ui,
        &variant.id,
        colmena_core::canvas::generate::no_events(),
    )
    .await
    .unwrap();
    assert!(!round.output.trim().is_empty(), "{round:?}");
    assert_eq!(round.provider, "local");
    assert_eq!(round.model, "smollm2-135m");
    assert!(round.prompt_tokens.unwrap() > 10, "{round:?}");
    assert!(round.completion_tokens.unwrap() > 0, "{round:?}");
}

#[tokio::test]
async fn other_programs_use_the_local_model_through_an_openai_compatible_api() {
    let (_dir, ctx, _) = workspace_with_model().await;
    let listener = colmena_server::http::bind("127.0.0.1:0".parse().unwrap(), false)
        .await
        .unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(colmena_server::http::serve(
        ctx.clone(),
        listener,
        std::future::pending(),
    ));
    let (_, token) = common::author(&ctx, "Editor tool").await;
    let http = reqwest::Client::new();

    let refused = http.get(format!("{base}/v1/models")).send().await.unwrap();
    assert_eq!(refused.status(), 401, "the same token as every route");

    let models: serde_json::Value = http
        .get(format!("{base}/v1/models"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(models["data"][0]["id"], "smollm2-135m", "{models}");

    let body = serde_json::json!({
        "model": "smollm2-135m",
        "messages": [
            { "role": "system", "content": "Answer briefly." },
            { "role": "user", "content": [{ "type": "text", "text": "Say hello." }] }
        ],
        "max_tokens": 24,
        "stop": ["\n\n\n"]
    });
    let answer: serde_json::Value = http
        .post(format!("{base}/v1/chat/completions"))
        .bearer_auth(&token)
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["object"], "chat.completion", "{answer}");
    assert!(
        !answer["choices"][0]["message"]["content"]
            .as_str()
            .unwrap()
            .is_empty()
    );
    let usage = &answer["usage"];
    assert!(
        usage["completion_tokens"].as_u64().unwrap() <= 24,
        "{usage}"
    );
    assert_eq!(
        usage["total_tokens"].as_u64().unwrap(),
        usage["prompt_tokens"].as_u64().unwrap() + usage["completion_tokens"].as_u64().unwrap()
    );

    let mut streamed = body.clone();
    streamed["stream"] = serde_json::json!(true);
    let sse = http
        .post(format!("{base}/v1/chat/completions"))
        .bearer_auth(&token)
        .json(&streamed)
        .send()
        .await
        .unwrap();
    assert_eq!(sse.headers()["content-type"], "text/event-stream");
    let text = sse.text().await.unwrap();
    let data: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .collect();
    assert_eq!(data.last(), Some(&"[DONE]"), "{text}");
    let chunks: Vec<serde_json::Value> = data[..data.len() - 1]
        .iter()
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    assert!(
        chunks
            .iter()
            .all(|c| c["object"] == "chat.completion.chunk")
    );
    let last = chunks.last().unwrap();
    assert!(last["choices"][0]["finish_reason"].is_string(), "{last}");
    assert!(last["usage"]["completion_tokens"].as_u64().unwrap() > 0);

    // A hosted model, or one that is not here, is not served.
    let mut unknown = body.clone();
    unknown["model"] = serde_json::json!("gpt-4o");
    let missing = http
        .post(format!("{base}/v1/chat/completions"))
        .bearer_auth(&token)
        .json(&unknown)
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    let error: serde_json::Value = missing.json().await.unwrap();
    assert_eq!(error["details"]["reason"], "unknown_model", "{error}");
}

#[tokio::test]
async fn an_architecture_the_engine_does_not_know_and_a_prompt_past_the_context_get_clear_errors() {
    let (dir, ctx, agent) = workspace_with_model().await;
    // The same model, its architecture renamed in the header: whole and
    // well formed, but nothing llama.cpp knows.
    let mut bytes = std::fs::read(gguf()).unwrap();
    let key = b"general.architecture";
    let at = bytes.windows(key.len()).position(|w| w == key).unwrap() + key.len();
    // The value: type (u32 = 8, a string), length (u64), then the text.
    let len = u64::from_le_bytes(bytes[at + 4..at + 12].try_into().unwrap()) as usize;
    for b in &mut bytes[at + 12..at + 12 + len] {
        *b = b'x';
    }
    let odd = dir.path().join("odd.gguf");
    std::fs::write(&odd, &bytes).unwrap();
    local::add_file(&ctx, &odd, Some("odd")).await.unwrap();
    colmena_core::models::set_default_model(&ctx, Some("local/odd".into()))
        .await
        .unwrap();
    let run = run_agent(
        &ctx,
        &agent,
        "Hi",
        AgentRunOptions::default(),
        runs::context::no_events(),
    )
    .await
    .unwrap();
    assert_eq!(run.status, RunStatus::Failed);
    let error = run.error.unwrap();
    assert_eq!(error.code, ErrorCode::Validation, "{error:?}");
    assert!(
        error.message.contains("xxxx"),
        "the engine's reason is shown: {}",
        error.message
    );

    // Back on the real model, with a context too small for the prompt: said
    // before anything is decoded.
    colmena_core::models::set_default_model(&ctx, Some("local/smollm2-135m".into()))
        .await
        .unwrap();
    colmena_core::models::set_context_window(&ctx, &"local/smollm2-135m".into(), Some(256))
        .await
        .unwrap();
    let long = "Tell me about bees. ".repeat(200);
    let run = run_agent(
        &ctx,
        &agent,
        &long,
        AgentRunOptions::default(),
        runs::context::no_events(),
    )
    .await
    .unwrap();
    assert_eq!(run.status, RunStatus::Failed);
    let error = run.error.unwrap();
    assert_eq!(error.code, ErrorCode::Precondition, "{error:?}");
    assert!(
        error.message.contains("context holds 256"),
        "{}",
        error.message
    );
}
