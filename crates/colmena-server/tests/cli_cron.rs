//! `colmena cron`, run as a user would run it on temporary data dirs (SPEC
//! H25): create, list, show, update, pause, resume, trigger, history, delete
//! — without a scheduler (written to the store; `trigger` refuses), and with
//! `colmena serve` running one in another process (it runs the trigger,
//! against the scripted provider).

#![allow(clippy::unwrap_used)]

use std::path::Path;
// For the test with `colmena serve`, stopped by SIGTERM (a Unix signal).
#[cfg(unix)]
use std::process::{Child, Command, Stdio};
#[cfg(unix)]
use std::time::{Duration, Instant};

#[cfg(unix)]
use colmena_scripted_llm::{Matcher, Protocol, Rule, Script, ScriptedLlm};
use serde_json::Value;

mod common;

use common::{colmena, ok_json, run};

fn error_of(dir: &Path, args: &[&str]) -> Value {
    let out = run(colmena(dir).arg("--json").args(args));
    assert!(!out.status.success(), "{args:?} succeeded");
    let err: Value = serde_json::from_slice(&out.stderr).unwrap_or_else(|_| {
        panic!(
            "no JSON error for {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    err["error"].clone()
}

fn agent(dir: &Path) {
    ok_json(colmena(dir).args([
        "agent",
        "add",
        "Worker",
        "--system-prompt",
        "You are the scheduled worker.",
    ]));
}

#[test]
fn h25_cron_verbs_work_without_a_scheduler_and_trigger_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    agent(dir);
    let job = ok_json(colmena(dir).args([
        "cron",
        "create",
        "Morning news",
        "--cron",
        "0 9 * * 1-5",
        "--tz",
        "Europe/Madrid",
        "--agent",
        "worker",
        "--prompt",
        "Summarise the news.",
    ]));
    assert_eq!(job["id"], "morning_news");
    assert_eq!(job["schedule"]["kind"], "cron");
    assert_eq!(job["timeZone"], "Europe/Madrid");
    assert_eq!(job["missed"], "skip");
    assert!(job["nextRunAt"].is_string(), "{job}");
    // People see the next run in the job's zone.
    let shown = run(colmena(dir).args(["cron", "show", "morning_news"]));
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.status.success());
    assert!(text.contains("09:00 CE"), "{text}");

    let list = ok_json(colmena(dir).args(["cron", "list"]));
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["targetName"], "Worker");

    let every = ok_json(colmena(dir).args([
        "cron",
        "update",
        "morning_news",
        "--every",
        "15m",
        "--missed",
        "run-once",
    ]));
    assert_eq!(every["schedule"]["seconds"], 900);
    assert_eq!(every["missed"], "run_once");
    let paused = ok_json(colmena(dir).args(["cron", "pause", "morning_news"]));
    assert_eq!(paused["paused"], true);
    assert!(paused["nextRunAt"].is_null());
    let resumed = ok_json(colmena(dir).args(["cron", "resume", "morning_news"]));
    assert!(resumed["nextRunAt"].is_string());

    // Nothing would run it: a clear error, never a fake success.
    let err = error_of(dir, &["cron", "trigger", "morning_news"]);
    assert_eq!(err["code"], "precondition");
    assert_eq!(err["details"]["reason"], "no_scheduler");
    let history = ok_json(colmena(dir).args(["cron", "history", "morning_news"]));
    assert_eq!(history, Value::Array(vec![]));

    let err = error_of(
        dir,
        &[
            "cron",
            "create",
            "Bad",
            "--cron",
            "every day",
            "--agent",
            "worker",
            "--prompt",
            "x",
        ],
    );
    assert_eq!(err["code"], "validation");
    assert_eq!(err["details"]["field"], "schedule");
    let err = error_of(
        dir,
        &[
            "cron",
            "create",
            "Bad",
            "--every",
            "1m",
            "--tz",
            "Mars/Base",
            "--agent",
            "worker",
            "--prompt",
            "x",
        ],
    );
    assert_eq!(err["details"]["reason"], "unknown_time_zone");
    let err = error_of(
        dir,
        &[
            "cron", "create", "Bad", "--every", "1m", "--agent", "nobody", "--prompt", "x",
        ],
    );
    assert_eq!(err["details"]["reason"], "unknown_target");
    assert_eq!(
        error_of(dir, &["cron", "show", "nope"])["code"],
        "not_found"
    );

    ok_json(colmena(dir).args(["cron", "delete", "morning_news"]));
    let list = ok_json(colmena(dir).args(["cron", "list"]));
    assert_eq!(list, Value::Array(vec![]));
}

/// Changing other systems is named apart, in capitals, wherever the CLI
/// shows what a job or a role may do with nobody watching (security review,
/// finding 1): it is never read past in a list of grants.
#[test]
fn a_grant_to_change_other_systems_is_shown_apart_for_jobs_and_roles() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    agent(dir);
    let job = ok_json(colmena(dir).args([
        "cron", "create", "Purge", "--every", "1h", "--agent", "worker", "--prompt", "Purge.",
        "--allow", "act,send",
    ]));
    let granted = job["unattended"].as_array().unwrap();
    assert!(
        granted.len() == 2 && granted.contains(&"act".into()) && granted.contains(&"send".into()),
        "{job}"
    );
    let shown = run(colmena(dir).args(["cron", "show", "purge"]));
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(
        text.contains("with nobody watching, may also: send, ACT (changes other systems)"),
        "{text}"
    );
    let plain = ok_json(colmena(dir).args(["cron", "update", "purge", "--allow", "send"]));
    assert_eq!(plain["unattended"], serde_json::json!(["send"]));
    let shown = run(colmena(dir).args(["cron", "show", "purge"]));
    assert!(!String::from_utf8_lossy(&shown.stdout).contains("ACT ("));

    ok_json(colmena(dir).args(["author", "create", "Builder", "--agent", "worker"]));
    let listed = run(colmena(dir).args(["author", "list"]));
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(text.contains("reply") && !text.contains("ACT ("), "{text}");
    ok_json(colmena(dir).args(["author", "update", "builder", "--unattended", "reply,act"]));
    let listed = run(colmena(dir).args(["author", "list"]));
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(
        text.contains("reply, ACT (changes other systems)"),
        "{text}"
    );
}

/// `colmena serve` on the data dir, up once it prints where it listens.
#[cfg(unix)]
fn serve(dir: &Path) -> Child {
    let mut child = colmena(dir)
        .args(["--json", "serve", "--bind", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    common::listening(&mut child);
    child
}

#[cfg(unix)]
#[test]
fn h25_a_trigger_from_the_cli_is_run_by_the_scheduler_of_colmena_serve() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let llm = runtime
        .block_on(ScriptedLlm::start(Script {
            rules: vec![
                Rule::text("Headlines summarised.")
                    .when(Matcher {
                        system_contains: Some("scheduled worker".into()),
                        ..Default::default()
                    })
                    .repeat(),
            ],
        }))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    ok_json(colmena(dir).args([
        "provider",
        "add",
        "Scripted",
        "--kind",
        "openai",
        "--base-url",
        &llm.base_url(Protocol::OpenAi),
        "--api-key",
        common::KEY,
    ]));
    ok_json(colmena(dir).args(["model", "add", "scripted", "gpt-test"]));
    ok_json(colmena(dir).args(["model", "default", "scripted/gpt-test"]));
    agent(dir);
    ok_json(colmena(dir).args([
        "cron",
        "create",
        "Hourly",
        "--every",
        "1h",
        "--agent",
        "worker",
        "--prompt",
        "Summarise.",
    ]));

    let mut server = serve(dir);
    let receipt = ok_json(colmena(dir).args(["cron", "trigger", "hourly"]));
    assert_eq!(receipt["jobId"], "hourly");
    assert_eq!(receipt["here"], false, "the scheduler is the server's");
    // The server's scheduler picks it up (bounded wait for the run).
    let started = Instant::now();
    let entry = loop {
        let history = ok_json(colmena(dir).args(["cron", "history", "hourly"]));
        if let Some(entry) = history.as_array().unwrap().first()
            && entry["status"] != "running"
        {
            break entry.clone();
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the trigger was not run"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(entry["status"], "succeeded", "{entry}");
    assert_eq!(entry["trigger"], "manual");
    let run_id = entry["runId"].as_str().unwrap();
    let shown = ok_json(colmena(dir).args(["runs", "show", run_id]));
    assert_eq!(shown["run"]["output"], "Headlines summarised.", "{shown}");
    let text = run(colmena(dir).args(["cron", "history", "hourly"]));
    assert!(String::from_utf8_lossy(&text.stdout).contains("succeeded"));

    Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .unwrap();
    assert!(server.wait().unwrap().success());
    // Stopped, nobody runs jobs any more.
    let err = error_of(dir, &["cron", "trigger", "hourly"]);
    assert_eq!(err["details"]["reason"], "no_scheduler");
}
