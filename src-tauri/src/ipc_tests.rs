//! The IPC surface driven through Tauri's mock runtime with the app's real
//! configuration and capabilities: what the UI receives, and what it never
//! receives.

use serde_json::{Value, json};
use tauri::test::{INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder};
use tauri::webview::InvokeRequest;
use tauri::{App, WebviewWindow, WebviewWindowBuilder};

use crate::{COMMANDS, app_builder, bindings};

const KEY: &str = "sk-test-1234567890abcdef";

struct Harness {
    _dir: tempfile::TempDir,
    _app: App<MockRuntime>,
    window: WebviewWindow<MockRuntime>,
}

fn harness() -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let ctx =
        tauri::async_runtime::block_on(colmena_core::workspace::open(colmena_core::OpenOptions {
            data_dir: dir.path().to_owned(),
            secret_backend: colmena_core::secrets::BackendChoice::File,
        }))
        .unwrap();
    let app = app_builder(mock_builder(), bindings::builder(), ctx)
        .build(tauri::generate_context!())
        .unwrap();
    let window = WebviewWindowBuilder::new(&app, "main", Default::default())
        .build()
        .unwrap();
    Harness {
        _dir: dir,
        _app: app,
        window,
    }
}

fn invoke(window: &WebviewWindow<MockRuntime>, cmd: &str, args: Value) -> Result<Value, Value> {
    get_ipc_response(
        window,
        InvokeRequest {
            cmd: cmd.into(),
            callback: tauri::ipc::CallbackFn(0),
            error: tauri::ipc::CallbackFn(1),
            url: "tauri://localhost".parse().unwrap(),
            body: tauri::ipc::InvokeBody::Json(args),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        },
    )
    .map(|body| body.deserialize::<Value>().unwrap())
}

#[test]
fn h18_no_ipc_response_carries_the_api_key() {
    let h = harness();
    let created = invoke(
        &h.window,
        "create_provider",
        json!({ "input": { "name": "OpenAI", "kind": "openai_compatible", "apiKey": KEY } }),
    )
    .unwrap();
    assert_eq!(created["hasApiKey"], true);
    assert_eq!(created["apiKeyMasked"], "sk-…cdef");

    let listed = invoke(&h.window, "list_providers", json!({})).unwrap();
    assert_eq!(listed[0]["hasApiKey"], true);
    assert_eq!(listed[0]["apiKeyMasked"], "sk-…cdef");
    for response in [&created, &listed] {
        assert!(!response.to_string().contains(KEY), "{response}");
    }
}

#[test]
fn ipc_rejects_with_the_boundary_error() {
    let h = harness();
    let err = invoke(
        &h.window,
        "create_provider",
        json!({ "input": { "name": "", "kind": "openai", "baseUrl": "nope" } }),
    )
    .unwrap_err();
    assert_eq!(err["code"], "validation");
    assert_eq!(err["details"]["field"], "name");
    let fields: Vec<&str> = err["details"]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["name", "baseUrl"]);
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("name must not be empty")
    );
}

#[test]
fn h21_model_commands_rename_and_refuse_deleting_a_model_in_use() {
    let h = harness();
    invoke(
        &h.window,
        "create_provider",
        json!({ "input": { "name": "OpenAI", "kind": "openai" } }),
    )
    .unwrap();
    let model = invoke(
        &h.window,
        "create_model",
        json!({ "input": { "providerId": "openai", "name": "gpt-viejo" } }),
    )
    .unwrap();
    assert_eq!(model["id"], "openai/gpt-viejo");
    let renamed = invoke(
        &h.window,
        "rename_model",
        json!({ "id": "openai/gpt-viejo", "newName": "gpt-nuevo" }),
    )
    .unwrap();
    assert_eq!(renamed["id"], "openai/gpt-nuevo");
    let models = invoke(&h.window, "list_models", json!({ "filter": {} })).unwrap();
    assert_eq!(models.as_array().unwrap().len(), 1);
}

#[test]
fn the_workspace_info_names_the_secret_backend() {
    let h = harness();
    let info = invoke(&h.window, "workspace_info", json!({})).unwrap();
    assert_eq!(info["secrets"]["backend"], "file");
    assert_eq!(info["secrets"]["ready"], true);
    assert_eq!(info["schemaVersion"], colmena_core::store::latest_version());
}

#[test]
fn a_command_outside_the_capability_is_refused() {
    let h = harness();
    let err = invoke(
        &h.window,
        "plugin:fs|read_file",
        json!({ "path": "/etc/passwd" }),
    )
    .unwrap_err();
    assert!(err.to_string().to_lowercase().contains("not"), "{err}");
}

#[test]
fn every_command_is_granted_exported_and_registered() {
    let capability: Value =
        serde_json::from_str(include_str!("../capabilities/main.json")).unwrap();
    let granted: Vec<&str> = capability["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p.as_str()?.strip_prefix("allow-"))
        .collect();
    let bindings = std::fs::read_to_string(bindings::BINDINGS_PATH).unwrap();
    for command in COMMANDS {
        assert!(
            granted.contains(&command.replace('_', "-").as_str()),
            "capabilities/main.json does not allow {command}"
        );
        assert!(
            bindings.contains(&format!(">(\"{command}\"")),
            "ui/src/bindings.ts has no {command}"
        );
    }
    assert_eq!(
        granted.len(),
        COMMANDS.len(),
        "the capability grants a command that does not exist"
    );
}

#[test]
fn bindings_are_up_to_date() {
    let path = std::path::Path::new(bindings::BINDINGS_PATH);
    let builder = bindings::builder::<MockRuntime>();
    if std::env::var_os("UPDATE_BINDINGS").is_some() {
        bindings::export(&builder, path).unwrap();
        return;
    }
    let fresh = tempfile::NamedTempFile::new().unwrap();
    bindings::export(&builder, fresh.path()).unwrap();
    let generated = std::fs::read_to_string(fresh.path()).unwrap();
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        generated == committed,
        "ui/src/bindings.ts is stale: run `UPDATE_BINDINGS=1 cargo test -p colmena-desktop bindings`"
    );
}

#[test]
fn h3_create_agent_rejects_an_unknown_skill_naming_it() {
    let h = harness();
    let err = invoke(
        &h.window,
        "create_agent",
        json!({ "input": { "name": "X", "skills": ["no-existe"], "tools": ["web_*"] } }),
    )
    .unwrap_err();
    assert_eq!(err["code"], "validation");
    assert_eq!(err["message"], "unknown skills: no-existe");
    assert_eq!(err["details"]["field"], "skills");

    let agent = invoke(
        &h.window,
        "create_agent",
        json!({ "input": { "name": "Diseño", "tools": ["image_*"] } }),
    )
    .unwrap();
    assert_eq!(agent["id"], "diseno");
    assert_eq!(agent["tools"], json!(["image_metadata", "image_transform"]));
}

#[test]
fn the_glob_preview_expands_patterns_and_names_misses() {
    let h = harness();
    let expansion = invoke(
        &h.window,
        "expand_tool_patterns",
        json!({ "patterns": ["fs_*", "zzz_*"] }),
    )
    .unwrap();
    assert_eq!(expansion["unmatched"], json!(["zzz_*"]));
    assert_eq!(
        expansion["patterns"][0]["tools"].as_array().unwrap().len(),
        6
    );
}

#[test]
fn h26_memories_through_ipc_belong_to_the_desktop_owner() {
    let h = harness();
    invoke(
        &h.window,
        "write_memory",
        json!({ "title": "presupuesto", "content": "5000 para el viaje" }),
    )
    .unwrap();
    let hits = invoke(
        &h.window,
        "search_memories",
        json!({ "query": "viaje", "limit": null }),
    )
    .unwrap();
    assert_eq!(hits[0]["memory"]["title"], "presupuesto");
    assert!(
        hits[0]["snippet"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["highlighted"] == true)
    );
}

#[test]
fn h32_first_run_setup_installs_the_chosen_specialists() {
    let h = harness();
    let status = invoke(&h.window, "setup_status", json!({})).unwrap();
    assert_eq!(status["completed"], false);
    let status = invoke(
        &h.window,
        "apply_seed",
        json!({ "ids": ["web_researcher"] }),
    )
    .unwrap();
    assert_eq!(status["completed"], true);
    let enabled: Vec<&str> = status["personas"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["enabled"] == true)
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(enabled, ["web_researcher"]);
}

#[test]
fn h7_h8_swarms_through_ipc_validate_on_save_and_a_disabled_one_does_not_run() {
    let h = harness();
    for name in ["Uno", "Dos"] {
        invoke(
            &h.window,
            "create_agent",
            json!({ "input": { "name": name } }),
        )
        .unwrap();
    }
    let err = invoke(
        &h.window,
        "create_swarm",
        json!({ "input": { "name": "S", "strategy": "hierarchical",
            "members": [{ "agentId": "uno" }, { "agentId": "dos" }] } }),
    )
    .unwrap_err();
    assert_eq!(err["code"], "validation");
    assert_eq!(err["details"]["reason"], "no_orchestrator");

    let saved = invoke(
        &h.window,
        "create_swarm",
        json!({ "input": { "name": "S", "strategy": "sequential",
            "members": [{ "agentId": "uno" }, { "agentId": "dos" }] } }),
    )
    .unwrap();
    assert_eq!(saved["swarm"]["id"], "s");
    assert_eq!(saved["pendingActivation"]["agents"], json!([]));
    invoke(
        &h.window,
        "set_swarm_enabled",
        json!({ "id": "s", "enabled": false }),
    )
    .unwrap();
    let err = invoke(
        &h.window,
        "run_swarm",
        json!({ "id": "s", "input": "go", "options": {}, "onEvent": "__CHANNEL__:7" }),
    )
    .unwrap_err();
    assert_eq!(err["code"], "precondition");
    assert_eq!(err["details"]["reason"], "swarm_disabled");
    let runs = invoke(&h.window, "list_runs", json!({ "filter": {} })).unwrap();
    assert_eq!(runs, json!([]));
}

/// A provider on loopback that refuses every call with a 401 whose body
/// quotes the bearer key it was sent (as some servers do).
fn key_echoing_server() -> std::net::SocketAddr {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let (mut sent, mut length) = (String::new(), 0usize);
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if let Some(value) = lower.strip_prefix("authorization: bearer ") {
                    sent = line[line.len() - value.len()..].trim().to_owned();
                }
                if let Some(value) = lower.strip_prefix("content-length: ") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0u8; length];
            let _ = reader.read_exact(&mut body);
            let answer =
                json!({ "error": { "message": format!("Incorrect API key: {sent}") } }).to_string();
            let _ = write!(
                stream,
                "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
                answer.len()
            );
        }
    });
    addr
}

#[test]
fn h18_connecting_and_testing_a_model_never_answer_with_the_key() {
    let h = harness();
    let server = key_echoing_server();
    let base_url = format!("http://{server}/v1");
    let refused = invoke(
        &h.window,
        "connect_model",
        json!({ "input": { "name": "Echo", "kind": "openai_compatible", "baseUrl": base_url,
                           "apiKey": KEY, "models": ["fine", "not ok"] } }),
    )
    .unwrap_err();
    assert_eq!(refused["code"], "validation");
    let connected = invoke(
        &h.window,
        "connect_model",
        json!({ "input": { "name": "Echo", "kind": "openai_compatible", "baseUrl": base_url,
                           "apiKey": KEY, "models": ["m"] } }),
    )
    .unwrap();
    assert_eq!(connected["provider"]["apiKeyMasked"], "sk-…cdef");
    let model = connected["models"][0]["id"].as_str().unwrap().to_owned();
    let failed = invoke(
        &h.window,
        "test_connection",
        json!({ "id": model, "onEvent": "__CHANNEL__:7" }),
    )
    .unwrap_err();
    assert_eq!(failed["code"], "upstream");
    assert_eq!(failed["details"]["reason"], "auth_refused");
    assert!(
        failed["message"].as_str().unwrap().contains("sk-…cdef"),
        "the server's words are kept, the key masked: {failed}"
    );
    for response in [&refused, &connected, &failed] {
        assert!(!response.to_string().contains(KEY), "{response}");
    }
}

#[test]
fn h28_no_ipc_response_carries_an_endpoint_secret_header() {
    let h = harness();
    let secret = "Bearer ipc-endpoint-SECRET-77aa";
    let input = json!({
        "name": "Items",
        "description": "Items by id",
        "method": "GET",
        "url": "http://127.0.0.1:9/items/{{id}}",
        "secretHeaders": [{ "name": "Authorization", "value": secret }],
        "paramSchema": { "type": "object", "properties": { "id": { "type": "string" } }, "required": ["id"] }
    });
    let created = invoke(&h.window, "create_endpoint", json!({ "input": input })).unwrap();
    assert_eq!(created["tool"], "endpoint_items");
    assert_eq!(created["secretHeaderNames"], json!(["Authorization"]));
    let listed = invoke(&h.window, "list_endpoints", json!({})).unwrap();
    let got = invoke(&h.window, "get_endpoint", json!({ "id": "items" })).unwrap();
    let preview = invoke(
        &h.window,
        "preview_endpoint",
        json!({ "input": input, "params": { "id": "7" } }),
    )
    .unwrap();
    assert_eq!(preview["url"], "http://127.0.0.1:9/items/7");
    for response in [&created, &listed, &got, &preview] {
        assert!(!response.to_string().contains("77aa"), "{response}");
    }
}
