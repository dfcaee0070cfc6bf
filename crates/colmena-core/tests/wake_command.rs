//! Roles that live outside Colmena (issue 15): the scheduler wakes them by
//! running their wake command — real processes here, small `/bin/sh`
//! scripts written into a temp dir (they are the configured command, not
//! interpolated content). What is checked is what keeps this safe: mail
//! never reaches a shell or the command line, the argv is exactly the
//! configured one, the token in the environment is the role's own and only
//! while it is awake, a time limit ends the whole process tree, and no
//! token door can configure the command at all.

#![cfg(unix)]
#![allow(clippy::unwrap_used)]

mod support;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use colmena_core::caller::Client;
use colmena_core::inbox::{self, Author, Caller, InboxQuery, NewAuthor, local_server};
use colmena_core::roles::wake_command::{self, ENV_MCP_URL, ENV_TOKEN};
use colmena_core::roles::wake_history::{self, WakeKind, WakeRecord};
use colmena_core::{Ctx, ErrorCode};
use support::bus::send;
use tokio_util::sync::CancellationToken;

/// A liveness bound, not a timing assertion: how long a test waits for
/// something that must happen before it gives up.
const PATIENCE: Duration = Duration::from_secs(60);

async fn eventually<F, Fut>(what: &str, mut done: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let start = Instant::now();
    while !done().await {
        assert!(start.elapsed() < PATIENCE, "never happened: {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// An executable `/bin/sh` script at `dir/name`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The role `name`, woken by `command`, every hour.
async fn command_role(ctx: &Ctx, name: &str, command: Vec<String>, timeout: Option<u32>) -> Author {
    inbox::authors::create(
        ctx,
        NewAuthor {
            name: name.into(),
            wake_command: Some(command),
            wake_timeout_seconds: timeout,
            wake_interval_minutes: Some(60),
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .author
}

async fn person(ctx: &Ctx, name: &str) -> Author {
    support::bus::author(ctx, name, None).await.author
}

async fn history(ctx: &Ctx, author: &str) -> Vec<WakeRecord> {
    wake_history::list(ctx, &Caller::ui(ctx), author, None, None)
        .await
        .unwrap()
}

/// `NAME=value` lines (as `env` prints them) as a map.
fn env_file(path: &Path) -> HashMap<String, String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// Alive and not a zombie.
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next().map(str::to_owned))
        })
        .is_some_and(|state| state != "Z" && state != "X")
}

/// Urgent mail with shell syntax in it wakes the role through the
/// scheduler; the command gets exactly its configured argv, the role's
/// folder, its identity in the environment — and nothing of the message:
/// no marker file is ever created, and the mail stays unread for the
/// program to read itself.
#[tokio::test]
async fn urgent_mail_wakes_a_command_role_and_its_text_is_never_run() {
    let ws = support::workspace().await;
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let waker = script(
        tmp.path(),
        "waker.sh",
        r#"out="$1"; shift
env > "$out/env"
pwd > "$out/pwd"
: > "$out/argv"
for a in "$@"; do printf '%s\n' "$a" >> "$out/argv"; done
read line || echo "stdin is empty" > "$out/stdin"
echo "handled by the outside session"
touch "$out/done""#,
    );
    let args = vec![
        waker.display().to_string(),
        out.display().to_string(),
        "-p".to_owned(),
        "Read your inbox; $(not a substitution) `nor this`".to_owned(),
        "two words".to_owned(),
    ];
    let role = command_role(&ws.ctx, "Fuera", args.clone(), None).await;
    let ana = person(&ws.ctx, "Ana").await;
    let marker = |n: u32| tmp.path().join(format!("pwned{n}"));
    let body = format!(
        "Hola $(touch {}) `touch {}` ; touch {} | touch {} && touch {}",
        marker(1).display(),
        marker(2).display(),
        marker(3).display(),
        marker(4).display(),
        marker(5).display(),
    );
    let sent = send(&ws.ctx, &ana.id, &role.id, &body, "urgent").await;

    let stop = CancellationToken::new();
    tokio::spawn(colmena_core::roles::wakes::run_scheduler(
        ws.ctx.clone(),
        stop.clone(),
    ));
    eventually("the role's wake-up finished", || async {
        history(&ws.ctx, &role.id)
            .await
            .first()
            .is_some_and(|h| h.finished_at.is_some())
    })
    .await;
    stop.cancel();

    assert!(out.join("done").exists());
    for n in 1..=5 {
        assert!(!marker(n).exists(), "the message's text was run ({n})");
    }
    let argv = std::fs::read_to_string(out.join("argv")).unwrap();
    assert_eq!(argv.lines().collect::<Vec<_>>(), args[2..].to_vec());
    assert_eq!(
        std::fs::read_to_string(out.join("stdin")).unwrap().trim(),
        "stdin is empty"
    );
    let folder = wake_command::folder(&ws.ctx, &role.id);
    assert_eq!(folder, ws.dir.path().join("roles").join(&role.id));
    assert_eq!(
        Path::new(std::fs::read_to_string(out.join("pwd")).unwrap().trim())
            .canonicalize()
            .unwrap(),
        folder.canonicalize().unwrap()
    );
    let env = env_file(&out.join("env"));
    assert_eq!(env["COLMENA_AUTHOR_ID"], role.id);
    assert_eq!(env["COLMENA_AUTHOR_NAME"], "Fuera");
    assert_eq!(env["COLMENA_UNREAD"], "1");
    assert!(env[ENV_TOKEN].starts_with("colmena_"));
    // No server runs in this process: no URLs, and the history says why.
    assert!(!env.contains_key(ENV_MCP_URL) && !env.contains_key("COLMENA_API_URL"));
    let all_env = std::fs::read_to_string(out.join("env")).unwrap();
    assert!(!all_env.contains("Hola") && !argv.contains("Hola"));

    let entry = &history(&ws.ctx, &role.id).await[0];
    assert_eq!(entry.kind, WakeKind::Command);
    assert_eq!(entry.message_ids, vec![sent.id.clone()]);
    assert_eq!(entry.exit_code, Some(0));
    assert!(!entry.timed_out);
    assert_eq!(entry.error, None);
    let output = entry.output.as_deref().unwrap();
    assert!(
        output.contains("handled by the outside session"),
        "{output}"
    );
    assert!(output.contains("no local bus server"), "{output}");
    // Colmena does not mark the mail read: the program reads it itself.
    let after = inbox::authors::get(&ws.ctx, &role.id).await.unwrap();
    assert_eq!(after.unread, 1);
    assert_eq!(after.last_wake_error, None);
    assert!(
        after.next_wake_at > after.last_wake_at,
        "the schedule moved on"
    );
}

/// The token in the environment authenticates as the role while the
/// command runs — its own inbox, not another author's — and is refused
/// once the wake-up ends.
#[tokio::test]
async fn the_wake_token_is_the_roles_own_and_only_while_it_is_awake() {
    let ws = support::workspace().await;
    local_server::set_serving(&ws.ctx, Some("http://0.0.0.0:7979/".into()));
    let tmp = tempfile::tempdir().unwrap();
    let (env_out, release) = (tmp.path().join("env"), tmp.path().join("release"));
    let waker = script(
        tmp.path(),
        "waker.sh",
        r#"env > "$1.tmp" && mv "$1.tmp" "$1"
while [ ! -e "$2" ]; do sleep 0.05; done"#,
    );
    let role = command_role(
        &ws.ctx,
        "Fuera",
        vec![
            waker.display().to_string(),
            env_out.display().to_string(),
            release.display().to_string(),
        ],
        None,
    )
    .await;
    let ana = person(&ws.ctx, "Ana").await;
    send(&ws.ctx, &ana.id, &role.id, "¿Estás?", "normal").await;
    send(&ws.ctx, &role.id, &ana.id, "Ana's own mail", "normal").await;

    let waking = tokio::spawn({
        let (ctx, id) = (ws.ctx.clone(), role.id.clone());
        async move { colmena_core::roles::wakes::wake_now(&ctx, &id).await }
    });
    eventually("the command wrote its environment", || async {
        env_out.exists()
    })
    .await;
    let env = env_file(&env_out);
    assert_eq!(env[ENV_MCP_URL], "http://127.0.0.1:7979/mcp");
    assert_eq!(env["COLMENA_API_URL"], "http://127.0.0.1:7979");
    let token = env[ENV_TOKEN].clone();
    assert_eq!(
        inbox::authors::authenticate(&ws.ctx, &token).await.unwrap(),
        role.id
    );
    // What the HTTP and MCP doors build from a bearer token.
    let caller = colmena_core::inbox::authors::caller_from_token(&ws.ctx, &token, Client::Http)
        .await
        .unwrap();
    assert_eq!(caller.token_author(), Some(role.id.as_str()));
    let peek = InboxQuery {
        peek: Some(true),
        ..Default::default()
    };
    let own = inbox::messages::inbox(&ws.ctx, &caller, &role.id, peek.clone())
        .await
        .unwrap();
    assert_eq!(own.len(), 1);
    let err = inbox::messages::inbox(&ws.ctx, &caller, &ana.id, peek)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Forbidden);
    // Nor is it the role's own long-lived token.
    let rotated = inbox::authors::rotate_token(&ws.ctx, &role.id)
        .await
        .unwrap();
    assert_ne!(rotated.token, token);

    std::fs::write(&release, "").unwrap();
    let after = waking.await.unwrap().unwrap();
    assert_eq!(after.last_wake_error, None);
    let err = inbox::authors::authenticate(&ws.ctx, &token)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Unauthorized);
    let rows: i64 = support::db(ws.dir.path())
        .query_row("SELECT count(*) FROM author_wake_tokens", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 0, "the wake token was removed");
}

/// Past its time limit the command is killed with everything it started
/// (a `sleep 1000` it left in the background is gone), and the wake-up is
/// recorded as timed out.
#[tokio::test]
async fn a_command_past_its_time_limit_is_killed_with_its_children() {
    let ws = support::workspace().await;
    let tmp = tempfile::tempdir().unwrap();
    let pids = tmp.path().join("pids");
    let waker = script(
        tmp.path(),
        "waker.sh",
        r#"sleep 1000 &
echo $! > "$1.tmp" && mv "$1.tmp" "$1"
echo "waiting forever"
wait"#,
    );
    let role = command_role(
        &ws.ctx,
        "Lento",
        vec![waker.display().to_string(), pids.display().to_string()],
        // Long enough for the script to start its child and say so, first,
        // however loaded the machine.
        Some(10),
    )
    .await;
    let ana = person(&ws.ctx, "Ana").await;
    send(&ws.ctx, &ana.id, &role.id, "Tarea", "normal").await;
    let after = colmena_core::roles::wakes::wake_now(&ws.ctx, &role.id)
        .await
        .unwrap();
    let child: u32 = std::fs::read_to_string(&pids)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    eventually("the command's child is gone", || async { !alive(child) }).await;
    let error = after.last_wake_error.unwrap();
    assert!(error.contains("time limit of 10 s"), "{error}");
    let entry = &history(&ws.ctx, &role.id).await[0];
    assert!(entry.timed_out);
    assert_eq!(entry.exit_code, None);
    assert_eq!(entry.error.as_deref(), Some(error.as_str()));
    assert!(entry.output.as_deref().unwrap().contains("waiting forever"));
}

/// The scheduler stopping (the app exiting) stops a running command and
/// everything it started.
#[tokio::test]
async fn stopping_the_scheduler_stops_the_command() {
    let ws = support::workspace().await;
    let tmp = tempfile::tempdir().unwrap();
    let pids = tmp.path().join("pids");
    let waker = script(
        tmp.path(),
        "waker.sh",
        r#"sleep 1000 &
echo "$$ $!" > "$1.tmp" && mv "$1.tmp" "$1"
wait"#,
    );
    let role = command_role(
        &ws.ctx,
        "Lento",
        vec![waker.display().to_string(), pids.display().to_string()],
        None,
    )
    .await;
    let ana = person(&ws.ctx, "Ana").await;
    send(&ws.ctx, &ana.id, &role.id, "Ya", "urgent").await;
    let stop = CancellationToken::new();
    tokio::spawn(colmena_core::roles::wakes::run_scheduler(
        ws.ctx.clone(),
        stop.clone(),
    ));
    eventually("the command started", || async { pids.exists() }).await;
    let started: Vec<u32> = std::fs::read_to_string(&pids)
        .unwrap()
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert!(started.iter().all(|&p| alive(p)));
    stop.cancel();
    eventually("the command and its child are gone", || async {
        started.iter().all(|&p| !alive(p))
    })
    .await;
    eventually("the wake-up was recorded", || async {
        history(&ws.ctx, &role.id)
            .await
            .first()
            .is_some_and(|h| h.finished_at.is_some())
    })
    .await;
    let entry = &history(&ws.ctx, &role.id).await[0];
    assert!(
        entry
            .error
            .as_deref()
            .unwrap()
            .contains("scheduler stopped")
    );
}

/// A failing command — a non-zero exit, a program that is not there — is
/// recorded with a clear message; an empty inbox runs nothing at all.
#[tokio::test]
async fn failures_are_recorded_and_an_empty_inbox_runs_nothing() {
    let ws = support::workspace().await;
    let tmp = tempfile::tempdir().unwrap();
    let ran = tmp.path().join("ran");
    let waker = script(
        tmp.path(),
        "waker.sh",
        r#"touch "$1"
echo "boom" >&2
exit 3"#,
    );
    let role = command_role(
        &ws.ctx,
        "Roto",
        vec![waker.display().to_string(), ran.display().to_string()],
        None,
    )
    .await;
    let after = colmena_core::roles::wakes::wake_now(&ws.ctx, &role.id)
        .await
        .unwrap();
    assert!(!ran.exists(), "an empty inbox ran the command");
    assert!(history(&ws.ctx, &role.id).await.is_empty());
    assert_eq!(after.last_wake_error, None);

    let ana = person(&ws.ctx, "Ana").await;
    send(&ws.ctx, &ana.id, &role.id, "Hola", "normal").await;
    let after = colmena_core::roles::wakes::wake_now(&ws.ctx, &role.id)
        .await
        .unwrap();
    assert!(ran.exists());
    let error = after.last_wake_error.unwrap();
    assert!(error.contains("exited with code 3"), "{error}");
    let entry = &history(&ws.ctx, &role.id).await[0];
    assert_eq!(entry.exit_code, Some(3));
    assert!(entry.output.as_deref().unwrap().contains("boom"));

    let missing = command_role(
        &ws.ctx,
        "Ausente",
        vec!["no-such-wake-program-here".into(), "--flag".into()],
        None,
    )
    .await;
    send(&ws.ctx, &ana.id, &missing.id, "Hola", "normal").await;
    let after = colmena_core::roles::wakes::wake_now(&ws.ctx, &missing.id)
        .await
        .unwrap();
    let error = after.last_wake_error.unwrap();
    assert!(error.contains("no-such-wake-program-here"), "{error}");
    assert!(error.contains("PATH"), "{error}");
    assert_eq!(history(&ws.ctx, &missing.id).await[0].error, Some(error));
    let rows: i64 = support::db(ws.dir.path())
        .query_row("SELECT count(*) FROM author_wake_tokens", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 0, "a failed wake-up left its token behind");
}

/// A role is woken by an agent or a command, not both, and a role woken by
/// nothing cannot be woken now.
#[tokio::test]
async fn a_role_has_an_agent_or_a_command() {
    let ws = support::workspace().await;
    let poller = person(&ws.ctx, "Sondeo").await;
    let err = colmena_core::roles::wakes::wake_now(&ws.ctx, &poller.id)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Precondition);
    let err = inbox::authors::create(
        &ws.ctx,
        NewAuthor {
            name: "Sin límite".into(),
            wake_command: Some(vec!["true".into()]),
            wake_timeout_seconds: Some(0),
            ..Default::default()
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
}

/// Only the local doors configure roles: no HTTP route or MCP tool reaches
/// `authors::create` or `authors::update`, so no token holder can choose a
/// program that runs on this machine. (The server crate's HTTP and MCP
/// sources are read here; a new door that configures authors fails this.)
#[test]
fn no_token_door_configures_a_roles_command() {
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("../colmena-server/src");
    let mut files = Vec::new();
    for door in ["http", "mcp"] {
        let mut stack = vec![server.join(door)];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    files.push(path);
                }
            }
        }
    }
    assert!(
        files.len() > 5,
        "the doors' sources were not found: {files:?}"
    );
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for door in [
            "authors::create",
            "authors::update",
            "NewAuthor",
            "AuthorUpdate",
            "wake_command",
        ] {
            assert!(
                !text.contains(door),
                "{} reaches {door}: roles must be configured only locally",
                file.display()
            );
        }
    }
}
