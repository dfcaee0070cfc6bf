//! `colmena mcp config` (SPEC X2): the exact configuration of each client,
//! a token only when one is needed and only minted on request — and a
//! minted token is the author's one valid token.

#![allow(clippy::unwrap_used)]

mod common;

use common::{colmena, ok_json, run};

#[test]
fn x2_mcp_config_writes_each_clients_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cli = env!("CARGO_BIN_EXE_colmena");
    let data = d.display().to_string();

    // Claude Code over stdio as the owner: no token, this workspace.
    let code = ok_json(colmena(d).args(["mcp", "config", "--client", "claude-code"]));
    assert_eq!(
        code["text"],
        format!("claude mcp add colmena --scope user -- {cli} mcp --data-dir {data}")
    );
    assert_eq!(code["needsToken"], false);

    // Claude Desktop as a role: its token goes in the env, minted on request.
    let ana = ok_json(colmena(d).args(["author", "create", "Ana"]));
    let placeholder =
        ok_json(colmena(d).args(["mcp", "config", "--client", "claude-desktop", "--as", "ana"]));
    assert_eq!(placeholder["needsToken"], true);
    let config: serde_json::Value =
        serde_json::from_str(placeholder["text"].as_str().unwrap()).unwrap();
    let server = &config["mcpServers"]["colmena"];
    assert_eq!(server["command"], cli);
    assert_eq!(
        server["args"],
        serde_json::json!(["mcp", "--data-dir", data])
    );
    assert_eq!(server["env"]["COLMENA_TOKEN"], "<the token of Ana>");
    // Asking without minting left Ana's token as it was.
    let inbox = run(colmena(d).args(["message", "inbox", "--as", "ana"]));
    assert!(inbox.status.success());
    let minted = ok_json(colmena(d).args([
        "mcp",
        "config",
        "--client",
        "claude-desktop",
        "--as",
        "ana",
        "--mint-token",
    ]));
    assert_eq!(minted["tokenMinted"], true);
    let config: serde_json::Value = serde_json::from_str(minted["text"].as_str().unwrap()).unwrap();
    let token = config["mcpServers"]["colmena"]["env"]["COLMENA_TOKEN"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(token.starts_with("colmena_"), "{token}");
    assert_ne!(token, ana["token"].as_str().unwrap(), "a new token");

    // Cursor over HTTP: the local server's /mcp with a bearer header.
    let cursor =
        ok_json(colmena(d).args(["mcp", "config", "--client", "cursor", "--transport", "http"]));
    let config: serde_json::Value = serde_json::from_str(cursor["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        config["mcpServers"]["colmena"]["url"],
        "http://127.0.0.1:7878/mcp"
    );
    assert_eq!(cursor["needsToken"], true);

    // What cannot be: Claude Desktop over HTTP, an unknown client.
    let refused = run(colmena(d).args([
        "mcp",
        "config",
        "--client",
        "claude-desktop",
        "--transport",
        "http",
    ]));
    assert_eq!(refused.status.code(), Some(4), "validation");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("stdio"));
    let unknown = run(colmena(d).args(["mcp", "config", "--client", "vim"]));
    assert_eq!(unknown.status.code(), Some(4));
}

#[test]
fn x2_colmena_mcp_refuses_a_token_that_is_not_valid() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(colmena(dir.path())
        .args(["mcp"])
        .env("COLMENA_TOKEN", "colmena_not-a-token"));
    assert_eq!(out.status.code(), Some(6), "unauthorized: {out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("token"));
}
