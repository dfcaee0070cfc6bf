//! What the MCP client tests share: a workspace with Colmena's MCP client
//! whose default model is scripted, and npm's `server-everything`, a real
//! MCP server from another project (installed by `scripts/setup.sh` under
//! tests/mcp), served over streamable HTTP on 127.0.0.1.

use std::path::Path;
use std::time::{Duration, Instant};

use colmena_core::Ctx;
use colmena_core::models::{self, NewModel};
use colmena_core::providers::{self, NewProvider};
use colmena_scripted_llm::{Protocol, Rule, Script, ScriptedLlm};

/// A workspace with Colmena's MCP client, whose default model is scripted.
pub async fn hive(rules: Vec<Rule>) -> (tempfile::TempDir, Ctx, ScriptedLlm) {
    let (dir, ctx) = super::workspace().await;
    colmena_server::mcp_client::install(&ctx);
    let llm = ScriptedLlm::start(Script { rules }).await.unwrap();
    providers::create(
        &ctx,
        NewProvider {
            name: "Scripted".into(),
            kind: "openai".into(),
            base_url: Some(llm.base_url(Protocol::OpenAi)),
            api_key: Some("sk-stored-key-0123456789".into()),
        },
    )
    .await
    .unwrap();
    let model = models::create(
        &ctx,
        NewModel {
            provider_id: "scripted".into(),
            name: "gpt-test".into(),
            label: None,
        },
    )
    .await
    .unwrap();
    models::set_default_model(&ctx, Some(model.id))
        .await
        .unwrap();
    (dir, ctx, llm)
}

/// The tool results of run `run_id`: (tool, ok, output).
pub async fn tool_results(ctx: &Ctx, run_id: &str) -> Vec<(String, bool, String)> {
    colmena_core::runs::get(ctx, run_id)
        .await
        .unwrap()
        .steps
        .iter()
        .filter(|s| s.kind == "tool_result")
        .map(|s| {
            (
                s.content["name"].as_str().unwrap().to_owned(),
                s.content["ok"].as_bool().unwrap(),
                s.content["output"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// A program of tests/mcp's npm packages.
pub fn node_bin(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/mcp/node_modules/.bin")
        .join(name);
    assert!(
        path.exists(),
        "{} is missing: run scripts/setup.sh",
        path.display()
    );
    path.display().to_string()
}

/// `server-everything` listening on 127.0.0.1; killed when dropped.
pub struct Everything {
    pub port: u16,
    _served: tokio::process::Child,
}

impl Everything {
    /// Its MCP endpoint.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}

/// Starts `server-everything streamableHttp` and waits until it listens.
pub async fn streamable_http() -> Everything {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let served = tokio::process::Command::new(node_bin("mcp-server-everything"))
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // A hang guard, not a timing claim: node may be slow to start.
    let deadline = Instant::now() + Duration::from_secs(60);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(
            Instant::now() < deadline,
            "mcp-server-everything never listened on {port}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Everything {
        port,
        _served: served,
    }
}
