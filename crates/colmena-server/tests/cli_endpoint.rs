//! `colmena endpoint`, run as a user would run it (SPEC H27–H29): create
//! with a secret header read from standard input, list and show (the
//! secret named, never shown), test against a server on 127.0.0.1, a dry
//! run, update keeping the secret, switch, delete.

#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Request, State};
use serde_json::{Value, json};

mod common;

use common::{colmena, ok_json, run};

const SECRET: &str = "tok-cli-SECRET-9a8b7c6d5e";

/// What the server saw: each request's path and query, and its
/// Authorization header.
type Seen = Arc<Mutex<Vec<(String, String)>>>;

/// A server on 127.0.0.1, in its own thread, that records each request's
/// path and query and Authorization header, and echoes the header back.
fn server() -> (String, Seen) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let keep = Arc::clone(&seen);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let app = Router::new()
                .fallback(|State(seen): State<Seen>, request: Request| async move {
                    let auth = request
                        .headers()
                        .get("authorization")
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or_default()
                        .to_owned();
                    seen.lock()
                        .unwrap()
                        .push((request.uri().to_string(), auth.clone()));
                    axum::Json(json!({ "echo": auth, "ok": true }))
                })
                .with_state(keep);
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            let _ = axum::serve(listener, app).await;
        });
    });
    (format!("http://{}", rx.recv().unwrap()), seen)
}

fn with_stdin(dir: &Path, args: &[&str], input: &str) -> (Option<i32>, String, String) {
    let mut child = colmena(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn h27_h29_endpoints_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let (base, seen) = server();
    let url = format!("{base}/items/{{{{id}}}}");
    let (code, stdout, stderr) = with_stdin(
        dir.path(),
        &[
            "--json",
            "endpoint",
            "create",
            "Items API",
            "--description",
            "Look an item up by id",
            "--url",
            &url,
            "--query",
            "fields={{fields}}",
            "--secret-header",
            "Authorization",
            "--param",
            "id:string:required",
            "--param",
            "fields",
        ],
        &format!("Bearer {SECRET}\n"),
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stdout.contains(SECRET), "{stdout}");
    let created: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(created["id"], "items_api");
    assert_eq!(created["tool"], "endpoint_items_api");
    assert_eq!(created["secretHeaderNames"], json!(["Authorization"]));

    for args in [
        &["endpoint", "list"][..],
        &["endpoint", "show", "items_api"],
    ] {
        let human = run(colmena(dir.path()).args(args));
        let text = String::from_utf8_lossy(&human.stdout);
        assert!(human.status.success());
        assert!(text.contains("Authorization"), "{text}");
        assert!(!text.contains(SECRET), "{text}");
    }

    let tested = ok_json(colmena(dir.path()).args([
        "endpoint",
        "test",
        "items_api",
        "--params",
        r#"{"id": "a/b", "fields": "name,price"}"#,
    ]));
    assert_eq!(tested["status"], 200);
    assert!(!tested.to_string().contains(SECRET), "{tested}");
    let (uri, auth) = seen.lock().unwrap().pop().unwrap();
    assert_eq!(uri, "/items/a%2Fb?fields=name%2Cprice");
    assert_eq!(auth, format!("Bearer {SECRET}"));

    let preview = ok_json(colmena(dir.path()).args([
        "endpoint",
        "test",
        "items_api",
        "--dry-run",
        "--params",
        r#"{"id": "7"}"#,
    ]));
    assert_eq!(preview["url"], format!("{base}/items/7"));
    assert!(!preview.to_string().contains(SECRET));
    assert_eq!(seen.lock().unwrap().len(), 0, "a dry run sends nothing");

    // An update that does not mention the secret keeps it.
    let updated = ok_json(colmena(dir.path()).args([
        "endpoint",
        "update",
        "items_api",
        "--description",
        "Items, by id",
        "--timeout",
        "5",
    ]));
    assert_eq!(updated["timeoutSeconds"], 5);
    ok_json(colmena(dir.path()).args([
        "endpoint",
        "test",
        "items_api",
        "--params",
        r#"{"id": "1"}"#,
    ]));
    assert_eq!(
        seen.lock().unwrap().pop().unwrap().1,
        format!("Bearer {SECRET}")
    );

    // A missing required parameter is a validation error (exit 4).
    let out = run(colmena(dir.path()).args(["endpoint", "test", "items_api"]));
    assert_eq!(
        out.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let off = ok_json(colmena(dir.path()).args(["endpoint", "disable", "items_api"]));
    assert_eq!(off["enabled"], false);
    let tool = ok_json(colmena(dir.path()).args(["tool", "list"]));
    let tool = tool
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "endpoint_items_api")
        .unwrap()
        .clone();
    assert_eq!(tool["active"], false);
    ok_json(colmena(dir.path()).args(["endpoint", "delete", "items_api"]));
    let out = run(colmena(dir.path()).args(["endpoint", "show", "items_api"]));
    assert_eq!(out.status.code(), Some(3));
}
