//! Colmena's MCP server driven by a real client from another project: the
//! official Python MCP SDK (`mcp` on PyPI, in the venv `scripts/setup.sh`
//! makes), over stdio (`colmena mcp`, as Claude Code starts it) and over
//! streamable HTTP (`/mcp` of `colmena serve` with a bearer token). The
//! client's side is `tests/mcp/client_check.py`; here the workspace is
//! prepared and the store is checked afterwards: the activity log names the
//! client that called (C8), the message is from the token's author and
//! nobody else (B4), and the run the client cancelled ended `cancelled`.
//! The client also checks what must be refused: a role's token on the
//! people's canvases, memories and runs; and an agent whose tool acts asks
//! the person first — the test denies it with `colmena approval deny`, as a
//! person at the command line would, and nothing runs.

#![allow(clippy::unwrap_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use colmena_scripted_llm::{Matcher, Protocol, Rule, Script, ScriptedLlm};
use common::{colmena, ok_json};
use serde_json::{Value, json};

/// The venv's Python: `COLMENA_MCP_PYTHON`, else where setup.sh puts it.
fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp/client_check.py")
}

struct Hive {
    _llm: ScriptedLlm,
    _runtime: tokio::runtime::Runtime,
    dir: tempfile::TempDir,
    ana: Value,
    beto: Value,
}

fn hive() -> Hive {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let when = |text: &str| Matcher {
        last_user_contains: Some(text.into()),
        ..Default::default()
    };
    let long: String = (1..=400).map(|i| format!("palabra{i} ")).collect();
    let llm = runtime
        .block_on(ScriptedLlm::start(Script {
            rules: vec![
                Rule::text(&long)
                    .when(when("Escribe largo"))
                    .text_in_pieces(8)
                    .slow(50)
                    .repeat(),
                Rule::tool_call("cli_exec", r#"{"command": "touch", "args": ["ran.txt"]}"#)
                    .when(Matcher {
                        tool_results: Some(0),
                        ..when("Crea el fichero")
                    })
                    .repeat(),
                Rule::text("No me dejaron.")
                    .when(Matcher {
                        tool_results: Some(1),
                        ..when("Crea el fichero")
                    })
                    .repeat(),
                Rule::text("1/ Las abejas polinizan el 75 % de los cultivos.").repeat(),
            ],
        }))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let base = llm.base_url(Protocol::OpenAi);
    ok_json(colmena(d).args([
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
    ok_json(colmena(d).args(["model", "add", "scripted", "gpt-test"]));
    ok_json(colmena(d).args(["model", "default", "scripted/gpt-test"]));
    ok_json(colmena(d).args([
        "agent",
        "add",
        "Escritor",
        "--model",
        "scripted/gpt-test",
        "--description",
        "Writes at length",
    ]));
    ok_json(colmena(d).args(["tool", "toggle", "cli_exec", "--on"]));
    ok_json(colmena(d).args([
        "agent",
        "add",
        "Ingeniero",
        "--model",
        "scripted/gpt-test",
        "--tools",
        "cli_exec",
    ]));
    // A: the workspace owner (a person) with a token of its own; B: a role.
    let owner = ok_json(colmena(d).args(["author", "list"]))
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["isOwner"] == true)
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let ana = ok_json(colmena(d).args(["author", "rotate-token", &owner]));
    let beto = ok_json(colmena(d).args(["author", "create", "Beto"]));
    Hive {
        _llm: llm,
        _runtime: runtime,
        dir,
        ana,
        beto,
    }
}

fn config(hive: &Hive, transport: &str, client_name: &str, url: Option<&str>) -> Value {
    json!({
        "transport": transport,
        "colmena": env!("CARGO_BIN_EXE_colmena"),
        "data_dir": hive.dir.path(),
        "url": url,
        "token": hive.ana["token"],
        "token_b": hive.beto["token"],
        "author_a": hive.ana["name"],
        "author_a_id": hive.ana["id"],
        "author_b": hive.beto["name"],
        "client_name": client_name,
        "agent": "escritor",
        "acting_agent": "ingeniero",
    })
}

/// Denies, as a person at the command line, every tool call that waits in
/// `dir`, until dropped.
struct Person {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    worker: Option<std::thread::JoinHandle<usize>>,
}

impl Person {
    fn denying(dir: &Path) -> Person {
        use std::sync::atomic::Ordering;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (flag, dir) = (stop.clone(), dir.to_owned());
        let worker = std::thread::spawn(move || {
            let mut denied = 0;
            while !flag.load(Ordering::Relaxed) {
                let waiting = ok_json(colmena(&dir).args(["approval", "list"]));
                for approval in waiting.as_array().unwrap() {
                    let id = approval["id"].as_str().unwrap();
                    ok_json(colmena(&dir).args(["approval", "deny", id]));
                    denied += 1;
                }
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
            denied
        });
        Person {
            stop,
            worker: Some(worker),
        }
    }

    /// Stops watching; how many calls were denied.
    fn done(mut self) -> usize {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.worker.take().map_or(0, |w| w.join().unwrap())
    }
}

fn run_client(config: &Value) -> Value {
    let person = Person::denying(Path::new(config["data_dir"].as_str().unwrap()));
    let out = Command::new(common::mcp_python())
        .arg(script())
        .arg(config.to_string())
        .env("COLMENA_SECRET_BACKEND", "file")
        .output()
        .unwrap();
    let denied = person.done();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the Python MCP client failed:\n{stderr}\n{stdout}"
    );
    assert_eq!(denied, 1, "the acting agent asked once");
    serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("no findings ({e}):\n{stdout}\n{stderr}"))
}

/// What the store says after the client: its activity, the message, the
/// cancelled run.
fn check_the_store(hive: &Hive, client: &str, findings: &Value) {
    let d = hive.dir.path();
    let activity = ok_json(colmena(d).args(["canvas", "activity", "--limit", "100"]));
    // The workspace has no other canvas (its lines lose their canvas id
    // when it is deleted).
    let of_canvas = activity.as_array().unwrap();
    for tool in [
        "session.create",
        "session.add_item",
        "session.add_variant",
        "session.generate_all",
        "session.select_round",
        "session.export_variant",
        "session.delete",
    ] {
        let line = of_canvas
            .iter()
            .find(|a| a["tool"] == tool)
            .unwrap_or_else(|| panic!("{tool} is not in the activity log: {activity}"));
        assert_eq!(line["client"], client, "{tool}: {line}");
    }
    // A round the client wrote is recorded as the client's, not by hand.
    assert_eq!(findings["write_round_client"], client, "{findings}");
    assert_eq!(findings["write_round_by_hand"], false, "{findings}");
    let sent = ok_json(colmena(d).args([
        "message",
        "inbox",
        "--as",
        hive.beto["id"].as_str().unwrap(),
        "--all",
        "--peek",
    ]));
    let ours: Vec<&Value> = sent
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["id"] == findings["sent"])
        .collect();
    assert_eq!(ours.len(), 1, "{sent}");
    assert_eq!(ours[0]["from"], hive.ana["id"]);
    let once = sent
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["body"] == findings["once"])
        .count();
    assert_eq!(
        once, 1,
        "a message sent twice with its message_id is there once: {sent}"
    );
    assert!(
        !sent
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["body"] == "soy Beto"),
        "no message went out under a name the arguments gave: {sent}"
    );
    assert_eq!(findings["acting_denied"], true);
    assert!(
        !d.join("workspaces/ingeniero/ran.txt").exists(),
        "the denied command did not run"
    );
    let runs = ok_json(colmena(d).args(["runs", "list", "--target", "escritor"]));
    let statuses: Vec<&str> = runs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert!(
        statuses.contains(&"cancelled"),
        "the run the client cancelled: {statuses:?}"
    );
    assert!(
        !statuses.contains(&"running"),
        "no run is left running: {statuses:?}"
    );
}

#[test]
fn x2_the_python_sdk_drives_colmena_over_stdio() {
    let hive = hive();
    let findings = run_client(&config(&hive, "stdio", "claude-code", None));
    assert!(findings["tools"].as_u64().unwrap() >= 29, "{findings}");
    assert_eq!(findings["role_refused"], true);
    check_the_store(&hive, "claude-code", &findings);
}

/// `colmena serve` on a free loopback port, until dropped.
struct Served {
    child: Child,
    url: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(dir: &Path) -> Served {
    let mut child = colmena(dir)
        .args(["--json", "serve", "--bind", "127.0.0.1:0", "--no-scheduler"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let url = common::listening(&mut child);
    Served { child, url }
}

#[test]
fn x2_the_python_sdk_drives_colmena_over_streamable_http() {
    let hive = hive();
    let served = serve(hive.dir.path());
    let url = format!("{}/mcp", served.url);
    let findings = run_client(&config(&hive, "http", "claude-desktop", Some(&url)));
    check_the_store(&hive, "claude-desktop", &findings);

    // The REST route of seed 001 regenerates over the same operation.
    let d = hive.dir.path();
    let canvas = ok_json(colmena(d).args(["canvas", "create", "Por REST"]));
    let id = canvas["id"].as_str().unwrap();
    let variant = ok_json(colmena(d).args(["canvas", "add-variant", id, "--preset", "tldr-brief"]));
    let vid = variant["id"].as_str().unwrap();
    let route = format!("{}/api/sessions/{id}/variants/{vid}/regenerate", served.url);
    let token = hive.ana["token"].as_str().unwrap().to_owned();
    let (status, round) = hive._runtime.block_on(async {
        let answer = reqwest::Client::new()
            .post(&route)
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        (answer.status(), answer.json::<Value>().await.unwrap())
    });
    assert_eq!(status, reqwest::StatusCode::OK, "{round}");
    assert_eq!(round["index"], 0);
    assert_eq!(round["client"], "http");
    assert!(
        round["output"].as_str().unwrap().contains("abejas"),
        "{round}"
    );
}
