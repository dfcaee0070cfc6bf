//! An outside role's wake command (issue 15) over the real doors: the
//! token and the URL in its environment reach this very server over HTTP
//! while it runs — its own inbox only — and stop working when it ends; and
//! `colmena author create --wake-command … --wake-arg …` stores the argv
//! exactly as typed.

#![cfg(unix)]
#![allow(clippy::unwrap_used)]

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use colmena_core::inbox::{self, Caller, NewAuthor, SendMessage, local_server};
use common::{colmena, ok_json};
use reqwest::StatusCode;

/// A hang guard, not a timing claim.
const PATIENCE: Duration = Duration::from_secs(60);

fn script(dir: &Path, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("waker.sh");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[tokio::test]
async fn the_wake_token_reaches_the_bus_over_http_only_while_awake() {
    let (_dir, ctx) = common::workspace().await;
    let listener = colmena_server::http::bind("127.0.0.1:0".parse().unwrap(), false)
        .await
        .unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(colmena_server::http::serve(
        ctx.clone(),
        listener,
        std::future::pending(),
    ));
    local_server::set_serving(&ctx, Some(base.clone()));

    let tmp = tempfile::tempdir().unwrap();
    let (env_out, release) = (tmp.path().join("env"), tmp.path().join("release"));
    let waker = script(
        tmp.path(),
        r#"env > "$1.tmp" && mv "$1.tmp" "$1"
while [ ! -e "$2" ]; do sleep 0.05; done"#,
    );
    let role = inbox::authors::create(
        &ctx,
        NewAuthor {
            name: "Fuera".into(),
            wake_command: Some(vec![
                waker.display().to_string(),
                env_out.display().to_string(),
                release.display().to_string(),
            ]),
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .author;
    let (ana, _) = common::author(&ctx, "Ana").await;
    inbox::messages::send(
        &ctx,
        &Caller::ui(&ctx),
        &ana,
        &role.id,
        SendMessage {
            body: "¿Estás? $(touch /tmp/never)".into(),
            priority: None,
            reply_to: None,
            message_id: None,
        },
    )
    .await
    .unwrap();

    let waking = tokio::spawn({
        let (ctx, id) = (ctx.clone(), role.id.clone());
        async move { colmena_core::roles::wakes::wake_now(&ctx, &id).await }
    });
    let started = Instant::now();
    while !env_out.exists() {
        assert!(started.elapsed() < PATIENCE, "the command never started");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let env: HashMap<String, String> = std::fs::read_to_string(&env_out)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    assert_eq!(env["COLMENA_API_URL"], base);
    assert_eq!(env["COLMENA_MCP_URL"], format!("{base}/mcp"));
    let (api, token) = (env["COLMENA_API_URL"].clone(), env["COLMENA_TOKEN"].clone());
    // A fresh connection for every ask: the last one comes after the
    // wake-up ended, and a pooled connection the server has just closed as
    // idle (its keep-alive is 10 s) would fail the request, not the token.
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let get = |path: String| {
        let request = http.get(format!("{api}{path}")).bearer_auth(&token);
        async move { request.send().await.unwrap() }
    };
    let own = get(format!("/author/{}/inbox?peek=true", role.id)).await;
    assert_eq!(own.status(), StatusCode::OK);
    let body: serde_json::Value = own.json().await.unwrap();
    assert_eq!(body.as_array().map(Vec::len), Some(1), "{body}");
    let other = get(format!("/author/{ana}/inbox?peek=true")).await;
    assert_eq!(other.status(), StatusCode::FORBIDDEN);

    std::fs::write(&release, "").unwrap();
    let after = waking.await.unwrap().unwrap();
    assert_eq!(after.last_wake_error, None);
    let refused = get(format!("/author/{}/inbox?peek=true", role.id)).await;
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
}

#[test]
fn the_cli_stores_the_wake_command_as_typed() {
    let dir = tempfile::tempdir().unwrap();
    let created = ok_json(colmena(dir.path()).args([
        "author",
        "create",
        "Fuera",
        "--wake-command",
        "claude",
        "--wake-arg",
        "-p",
        "--wake-arg",
        "Read your inbox; $(not run) `nor this`",
        "--wake-arg",
        "--resume",
        "--wake-arg",
        "abc-123",
        "--wake-timeout",
        "120",
    ]));
    assert_eq!(
        created["wakeCommand"],
        serde_json::json!([
            "claude",
            "-p",
            "Read your inbox; $(not run) `nor this`",
            "--resume",
            "abc-123"
        ])
    );
    assert_eq!(created["wakeTimeoutSeconds"], 120);
    assert_eq!(created["wakeIntervalMinutes"], 30);
    // An agent and a command at once is refused before anything is stored.
    let both = colmena(dir.path())
        .args([
            "author",
            "create",
            "Ambos",
            "--agent",
            "x",
            "--wake-command",
            "true",
        ])
        .output()
        .unwrap();
    assert!(!both.status.success());
    // Woken from the CLI, its run shows in `author history`.
    ok_json(colmena(dir.path()).args([
        "author",
        "create",
        "Eco",
        "--wake-command",
        "sh",
        "--wake-arg",
        "-c",
        "--wake-arg",
        "echo \"$COLMENA_AUTHOR_ID woke with $COLMENA_UNREAD unread\"",
    ]));
    ok_json(colmena(dir.path()).args(["message", "send", "eco", "hola $(echo no)"]));
    ok_json(colmena(dir.path()).args(["author", "wake", "eco"]));
    let history = ok_json(colmena(dir.path()).args(["author", "history", "eco"]));
    assert_eq!(history[0]["kind"], "command");
    assert_eq!(history[0]["exitCode"], 0);
    let output = history[0]["output"].as_str().unwrap();
    assert!(output.contains("eco woke with 1 unread"), "{output}");
    // `update` replaces how the role is woken: here, back to polling.
    let polled = ok_json(colmena(dir.path()).args(["author", "update", "fuera"]));
    assert_eq!(polled["wakeCommand"], serde_json::Value::Null);
}
