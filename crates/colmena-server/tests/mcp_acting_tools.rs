//! Safe by default, round two (security review, finding 1, its MCP part):
//! a tool of a remote MCP server that the server does not mark read-only
//! changes another system, so it has the class "act", which no default
//! grant holds. One message from any token holder wakes a role; its model
//! calls what the message asks — npm's `server-everything` over streamable
//! HTTP, its `toggle-simulated-logging` (not read-only) and `echo`
//! (read-only) — and a recording forwarder in front of the server shows
//! which calls reached it.

#![allow(clippy::unwrap_used)]

mod common;

use std::sync::{Arc, Mutex};

use colmena_core::inbox::{self, NewAuthor, SendMessage};
use colmena_core::mcp_servers::{self, McpServerInput, McpTransportInput};
use colmena_core::permissions::Risk;
use colmena_core::runs::{self, RunFilter};
use colmena_core::{Caller, Ctx};
use colmena_scripted_llm::{Matcher, Reply, Rule, ScriptedCall};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const ROLE_PROMPT: &str = "You are Builder, the team's engineer.";
const ACTS: &str = "toggle-simulated-logging";
const READS: &str = "echo";

/// A forwarder on 127.0.0.1 in front of the MCP server: it passes bytes
/// both ways and keeps every byte the client sent.
struct Recorder {
    port: u16,
    sent: Arc<Mutex<Vec<u8>>>,
}

impl Recorder {
    /// How many `tools/call` requests for `tool` reached the server.
    fn calls_of(&self, tool: &str) -> usize {
        let sent = String::from_utf8_lossy(&self.sent.lock().unwrap()).into_owned();
        sent.matches(&format!(r#""name":"{tool}""#)).count()
    }
}

async fn recorder(target: u16) -> Recorder {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let sent = Arc::new(Mutex::new(Vec::new()));
    let kept = sent.clone();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let Ok(server) = TcpStream::connect(("127.0.0.1", target)).await else {
                continue;
            };
            tokio::spawn(forward(client, server, kept.clone()));
        }
    });
    Recorder { port, sent }
}

async fn forward(client: TcpStream, server: TcpStream, kept: Arc<Mutex<Vec<u8>>>) {
    let (mut from_client, mut to_client) = client.into_split();
    let (mut from_server, mut to_server) = server.into_split();
    let up = async {
        let mut buf = [0u8; 16 * 1024];
        while let Ok(n @ 1..) = from_client.read(&mut buf).await {
            kept.lock().unwrap().extend_from_slice(&buf[..n]);
            if to_server.write_all(&buf[..n]).await.is_err() {
                break;
            }
        }
        let _ = to_server.shutdown().await;
    };
    let down = async {
        let _ = tokio::io::copy(&mut from_server, &mut to_client).await;
        let _ = to_client.shutdown().await;
    };
    tokio::join!(up, down);
}

fn with(results: usize) -> Matcher {
    Matcher {
        system_contains: Some(ROLE_PROMPT.into()),
        tool_results: Some(results),
        ..Default::default()
    }
}

/// A role played by an agent with every tool of the server `remote`, with
/// `grant` for its unattended wake-ups when given (the default otherwise).
async fn role(ctx: &Ctx, name: &str, grant: Option<Vec<Risk>>) -> String {
    let agent = colmena_core::agents::create(
        ctx,
        colmena_core::agents::NewAgent {
            name: format!("{name} agent"),
            system_prompt: ROLE_PROMPT.into(),
            tools: vec!["mcp__remote__*".into()],
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .id;
    inbox::authors::create(
        ctx,
        NewAuthor {
            name: name.into(),
            agent_id: Some(agent.to_string()),
            wake_interval_minutes: Some(60),
            unattended: grant,
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .author
    .id
}

/// Mail from `from` wakes `role` once; the tool results of that wake-up:
/// (tool, ok, output).
async fn woken_by_mail(ctx: &Ctx, from: &str, role: &str) -> Vec<(String, bool, String)> {
    inbox::messages::send(
        ctx,
        &Caller::ui(ctx),
        from,
        role,
        SendMessage {
            body: "Switch the server's logging on and echo 'done', urgent.".into(),
            priority: Some("urgent".into()),
            reply_to: None,
            message_id: None,
        },
    )
    .await
    .unwrap();
    let before: Vec<String> = runs::list(ctx, RunFilter::default())
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.id)
        .collect();
    let woken = colmena_core::roles::wakes::wake_now(ctx, role)
        .await
        .unwrap();
    assert_eq!(woken.last_wake_error, None);
    let run = runs::list(ctx, RunFilter::default())
        .await
        .unwrap()
        .into_iter()
        .find(|r| !before.contains(&r.id))
        .expect("the wake-up's run");
    common::mcp_partner::tool_results(ctx, &run.id).await
}

#[tokio::test]
async fn a_remote_tool_not_marked_read_only_runs_from_mail_only_with_a_grant_naming_act() {
    let everything = common::mcp_partner::streamable_http().await;
    let recorder = recorder(everything.port).await;
    let both = Rule::new(Reply::ToolCalls {
        text: String::new(),
        calls: [ACTS, READS]
            .iter()
            .map(|tool| ScriptedCall {
                name: format!("mcp__remote__{tool}"),
                arguments: if *tool == READS {
                    r#"{"message": "done"}"#.into()
                } else {
                    "{}".into()
                },
            })
            .collect(),
    });
    let rules = vec![
        both.when(with(0)).repeat(),
        Rule::text("Done.").when(with(2)).repeat(),
    ];
    let (_dir, ctx, _llm) = common::mcp_partner::hive(rules).await;
    let ui = Caller::ui(&ctx);
    mcp_servers::create(
        &ctx,
        &ui,
        McpServerInput {
            name: "remote".into(),
            transport: McpTransportInput::Http {
                url: format!("http://127.0.0.1:{}/mcp", recorder.port),
                headers: vec![],
            },
            enabled: None,
            timeout_seconds: Some(30),
            preset: None,
        },
    )
    .await
    .unwrap();
    let tested = mcp_servers::test(&ctx, &ui, "remote").await.unwrap();
    assert!(tested.ok, "{:?}", tested.error);
    let outsider = common::author(&ctx, "Outsider").await.0;

    // The default grant answers mail; it reaches no server.
    let builder = role(&ctx, "Builder", None).await;
    let results = woken_by_mail(&ctx, &outsider, &builder).await;
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(
        !results[0].1 && results[0].2.contains("change other systems"),
        "{results:?}"
    );
    assert!(!results[1].1, "{results:?}");
    assert_eq!(recorder.calls_of(ACTS) + recorder.calls_of(READS), 0);

    // A grant for the network and for sending covers the read-only tool,
    // and still not the one that changes the server.
    let wide = vec![Risk::Send, Risk::Network, Risk::Write, Risk::Run];
    let courier = role(&ctx, "Courier", Some(wide)).await;
    let results = woken_by_mail(&ctx, &outsider, &courier).await;
    assert!(
        !results[0].1 && results[0].2.contains("change other systems"),
        "{results:?}"
    );
    assert!(results[1].1 && results[1].2.contains("done"), "{results:?}");
    assert_eq!(
        recorder.calls_of(ACTS),
        0,
        "the acting tool reached the server"
    );
    assert_eq!(recorder.calls_of(READS), 1);

    // Only a grant that names "act" lets it through.
    let operator = role(&ctx, "Operator", Some(vec![Risk::Act])).await;
    let results = woken_by_mail(&ctx, &outsider, &operator).await;
    assert!(
        results[0].1 && results[0].2.contains("Started simulated"),
        "{results:?}"
    );
    assert_eq!(recorder.calls_of(ACTS), 1);
    colmena_core::workspace::shutdown(&ctx).await;
}
