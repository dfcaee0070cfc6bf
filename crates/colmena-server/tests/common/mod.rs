//! Running the `colmena` binary as a user would, on temporary data dirs.

#![allow(dead_code, clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output};

use serde_json::Value;

pub mod mcp_partner;
pub mod postgres;

pub const KEY: &str = "sk-test-1234567890abcdef";

/// The `colmena` binary built with these tests, as a path the running
/// system reads. Cross-built for Windows and run under Wine, Cargo's path
/// is the Linux one (`/root/…`), which a Windows program reads on its own
/// drive; the binary one folder above the test's (`deps/`) is the same file.
pub fn colmena_bin() -> std::path::PathBuf {
    let built = std::path::PathBuf::from(env!("CARGO_BIN_EXE_colmena"));
    if cfg!(windows) && built.to_string_lossy().starts_with('/') {
        let beside = std::env::current_exe()
            .ok()
            .and_then(|test| Some(test.parent()?.parent()?.join("colmena.exe")));
        if let Some(beside) = beside.filter(|b| b.is_file()) {
            return beside;
        }
    }
    built
}

/// A `colmena` command on `data_dir`, with the key in a key file and no
/// inherited settings from the developer's environment.
pub fn colmena(data_dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_colmena"));
    cmd.arg("--data-dir")
        .arg(data_dir)
        .env("COLMENA_SECRET_BACKEND", "file")
        .env_remove("COLMENA_DATA_DIR");
    cmd
}

/// Where a `colmena --json serve` child listens: the URL of the first line
/// it prints (its stdout piped), once it is up.
pub fn listening(child: &mut Child) -> String {
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let listening: Value = serde_json::from_str(&line)
        .unwrap_or_else(|e| panic!("serve printed {line:?}, not where it listens: {e}"));
    listening["listening"].as_str().unwrap().to_owned()
}

pub fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("run colmena")
}

pub fn ok_json(cmd: &mut Command) -> Value {
    let out = run(cmd.arg("--json"));
    assert!(
        out.status.success(),
        "colmena failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json on stdout")
}

/// A fresh workspace in a temporary data dir, opened in this process
/// (the in-process server tests).
pub async fn workspace() -> (tempfile::TempDir, colmena_core::Ctx) {
    let dir = tempfile::tempdir().unwrap();
    let ctx = colmena_core::workspace::open(colmena_core::OpenOptions {
        data_dir: dir.path().to_owned(),
        secret_backend: colmena_core::secrets::BackendChoice::File,
    })
    .await
    .unwrap();
    (dir, ctx)
}

/// A new bus author called `name`: its id and its token.
pub async fn author(ctx: &colmena_core::Ctx, name: &str) -> (String, String) {
    let made = colmena_core::inbox::authors::create(
        ctx,
        colmena_core::inbox::NewAuthor {
            name: name.into(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    (made.author.id, made.token)
}

/// The `initialize` request an MCP client opens a session with.
pub fn mcp_initialize() -> Value {
    serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": { "name": "colmena-test", "version": "1" }
        }
    })
}

/// A POST to the MCP endpoint of the server at `base`, with `token`, as a
/// streamable-HTTP client sends it.
pub fn mcp_post(http: &reqwest::Client, base: &str, token: &str) -> reqwest::RequestBuilder {
    http.post(format!("{base}/mcp"))
        .bearer_auth(token)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
}

/// Opens an MCP session for `token` on the server at `base` (initialize,
/// then the `initialized` notification); returns its id.
pub async fn mcp_session(http: &reqwest::Client, base: &str, token: &str) -> String {
    let opened = mcp_post(http, base, token)
        .json(&mcp_initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(opened.status(), reqwest::StatusCode::OK);
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let _ = opened.text().await;
    let done = mcp_post(http, base, token)
        .header("mcp-session-id", &session)
        .json(&serde_json::json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
        .send()
        .await
        .unwrap();
    assert!(done.status().is_success(), "{}", done.status());
    let _ = done.bytes().await;
    session
}

/// Calls the tool `tool` in MCP session `session`; returns the JSON-RPC
/// `result` (null for a JSON-RPC error).
pub async fn call(
    http: &reqwest::Client,
    base: &str,
    token: &str,
    session: &str,
    tool: &str,
    args: Value,
) -> Value {
    let answer = mcp_post(http, base, token)
        .header("mcp-session-id", session)
        .json(&serde_json::json!({
            "jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": { "name": tool, "arguments": args }
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), reqwest::StatusCode::OK, "{tool}");
    let text = answer.text().await.unwrap();
    // A JSON body, or server-sent events whose data lines hold it.
    let reply: Value = serde_json::from_str(&text).unwrap_or_else(|_| {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .find(|v| v.get("id") == Some(&serde_json::json!(2)))
            .unwrap_or_else(|| panic!("no reply in {text}"))
    });
    reply["result"].clone()
}

/// The real small GGUF the local-engine tests run on (SmolLM2-135M, put in
/// the tools cache by setup.sh; `COLMENA_TEST_GGUF` names it).
pub fn test_gguf() -> std::path::PathBuf {
    let path = std::env::var_os("COLMENA_TEST_GGUF").map_or_else(
        || {
            Path::new(&std::env::var("HOME").unwrap())
                .join(".cache/colmena/tools/models/SmolLM2-135M-Instruct.Q4_1.gguf")
        },
        std::path::PathBuf::from,
    );
    assert!(
        path.is_file(),
        "the test model {} is missing: scripts/setup.sh puts it there",
        path.display()
    );
    path
}

/// The Python with the official MCP SDK (scripts/setup.sh makes its venv;
/// `COLMENA_MCP_PYTHON` names it).
pub fn mcp_python() -> std::path::PathBuf {
    if let Ok(path) = std::env::var("COLMENA_MCP_PYTHON") {
        return std::path::PathBuf::from(path);
    }
    let path =
        Path::new(&std::env::var("HOME").unwrap()).join(".cache/colmena/tools/mcp-venv/bin/python");
    assert!(
        path.exists(),
        "{} is missing: run scripts/setup.sh (it installs the Python MCP SDK)",
        path.display()
    );
    path
}
