//! The operation contracts as the MCP and HTTP doors call them (SPEC X2,
//! C5): a generation reports progress and the door's cancel stops it with
//! the variant left as it was; what a caller may reach (a role's token
//! reaches no person's canvas, an outside client's run asks the person
//! before a tool acts); and one generated schema shared by the built-in
//! agent tools.

#![allow(clippy::unwrap_used)]

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use colmena_core::caller::Client;
use colmena_core::canvas::{self, VariantStatus};
use colmena_core::contracts::{self, Progress, ProgressSink, bus, canvas as ops, hive};
use colmena_core::inbox::{self, NewAuthor};
use colmena_core::permissions::approvals::{self, Decision};
use colmena_core::runtime::resume;
use colmena_core::{Caller, ErrorCode};
use colmena_scripted_llm::{Matcher, Rule};
use support::hive::{agent, hive as scripted_hive};
use tokio_util::sync::CancellationToken;

fn recorder() -> (ProgressSink, Arc<Mutex<Vec<Progress>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    (Arc::new(move |p| sink.lock().unwrap().push(p)), seen)
}

#[tokio::test]
async fn c5_a_generation_reports_progress_and_the_doors_cancel_stops_it() {
    // About a minute of text (200 pieces, 300 ms apart): the cancel below
    // comes long before its end on any machine.
    let (ws, _llm) = scripted_hive(vec![
        Rule::text(&"una palabra tras otra sin prisa alguna ".repeat(20))
            .text_in_pieces(4)
            .slow(300)
            .when(Matcher {
                last_user_contains: Some("despacio".into()),
                ..Default::default()
            })
            .repeat(),
    ])
    .await;
    let ctx = &ws.ctx;
    let me = colmena_core::inbox::authors::caller_as(ctx, ctx.owner(), Client::ClaudeCode)
        .await
        .unwrap();
    let c = ops::create(ctx, &me, ops::SessionCreate { name: None })
        .await
        .unwrap();
    let v = ops::add_variant(
        ctx,
        &me,
        ops::SessionAddVariant {
            session_id: c.id.clone(),
            preset_id: "custom".into(),
            prompt: Some("despacio".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let (progress, seen) = recorder();
    let cancel = CancellationToken::new();
    let stop = cancel.clone();
    let watched = Arc::clone(&seen);
    tokio::spawn(async move {
        // Cancel once the text streams, as a client's cancel would.
        while !watched
            .lock()
            .unwrap()
            .iter()
            .any(|p| p.message.contains("writing"))
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        tokio::time::sleep(Duration::from_millis(400)).await;
        stop.cancel();
    });
    let input = ops::VariantRef {
        session_id: c.id.clone(),
        variant_id: v.id.clone(),
    };
    let err = ops::generate_variant(ctx, &me, input, progress, &cancel)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Cancelled, "{}", err.message);
    let steps = seen.lock().unwrap().clone();
    assert!(
        steps.iter().any(|p| p.message.ends_with(": queued")),
        "{steps:?}"
    );
    assert!(
        steps.windows(2).all(|w| w[0].step < w[1].step),
        "progress grows: {steps:?}"
    );
    let detail = canvas::get(ctx, &me, &c.id).await.unwrap();
    let after = &detail.variants[0];
    assert_eq!(after.status, VariantStatus::Idle, "as it was before");
    assert_eq!(after.round_count, 0);
    assert_eq!(after.error_message, None);
}

#[tokio::test]
async fn x2_a_roles_token_reaches_no_persons_canvas_memory_or_run() {
    let ws = support::workspace().await;
    let ctx = &ws.ctx;
    let role = inbox::authors::create(
        ctx,
        NewAuthor {
            name: "Clonador".into(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let clonador =
        colmena_core::inbox::authors::caller_from_token(ctx, &role.token, Client::Cursor)
            .await
            .unwrap();
    let owner = Caller::ui(ctx);
    let mine = canvas::create(ctx, &owner, Some("Mío".into()))
        .await
        .unwrap();

    let refused = [
        ops::list(ctx, &clonador, ops::NoArguments {})
            .await
            .map(|_| ()),
        ops::get(
            ctx,
            &clonador,
            ops::SessionRef {
                session_id: mine.id.clone(),
            },
        )
        .await
        .map(|_| ()),
        hive::memory_write(
            ctx,
            &clonador,
            hive::MemoryWriteArgs {
                title: "nota".into(),
                content: "plantada".into(),
            },
        )
        .await
        .map(|_| ()),
        hive::search_catalog(
            ctx,
            &clonador,
            hive::SearchArgs {
                query: "nota".into(),
                limit: None,
            },
        )
        .await
        .map(|_| ()),
    ];
    for outcome in refused {
        let err = outcome.unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden, "{}", err.message);
        assert!(err.message.contains("role"), "{}", err.message);
    }
    assert!(
        colmena_core::memory::list(ctx, &owner, None, None)
            .await
            .unwrap()
            .is_empty(),
        "nothing was planted in the owner's memory"
    );
    // The bus is what a role's token is for: it sends as itself.
    let sent = bus::send_message(
        ctx,
        &clonador,
        bus::SendMessageArgs {
            to_author_name: ctx.owner().into(),
            body: "hecho".into(),
            priority: None,
            reply_to: None,
            message_id: None,
        },
    )
    .await
    .unwrap();
    assert_eq!(sent.from, role.author.id);
}

#[tokio::test]
async fn x2_an_outside_clients_run_asks_the_person_before_a_tool_acts() {
    const SHELL: &str = "Runs commands.";
    let (ws, _llm) = scripted_hive(vec![
        Rule::tool_call("cli_exec", r#"{"command": "touch", "args": ["ran.txt"]}"#)
            .when(support::hive::when(SHELL, 0)),
        Rule::text("I was not allowed to run it.").when(support::hive::when(SHELL, 1)),
    ])
    .await;
    let ctx = &ws.ctx;
    colmena_core::tools::set_active(ctx, "cli_exec", true)
        .await
        .unwrap();
    let shell = agent(ctx, "Shell", SHELL, &["cli_exec"]).await;
    let me = colmena_core::inbox::authors::caller_as(ctx, ctx.owner(), Client::ClaudeCode)
        .await
        .unwrap();
    let (progress, seen) = recorder();
    let run = {
        let (ctx, me) = (ctx.clone(), me.clone());
        tokio::spawn(async move {
            hive::run_agent(
                &ctx,
                &me,
                hive::RunAgentArgs {
                    agent_id: "shell".into(),
                    prompt: "touch ran.txt".into(),
                },
                progress,
                &CancellationToken::new(),
            )
            .await
        })
    };
    let asked = loop {
        let pending = approvals::pending(ctx).await.unwrap();
        if let Some(first) = pending.into_iter().next() {
            break first;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(asked.tool, "cli_exec");
    // The client that started the run cannot answer for the person.
    let err = resume::decide(ctx, &me, &asked.id, Decision::AllowOnce)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Forbidden);
    resume::decide(ctx, &Caller::ui(ctx), &asked.id, Decision::Deny)
        .await
        .unwrap();
    let done = run.await.unwrap().unwrap();
    assert_eq!(done.output.as_deref(), Some("I was not allowed to run it."));
    let workspace = ws.dir.path().join("workspaces").join(shell.as_str());
    assert!(!workspace.join("ran.txt").exists(), "nothing was run");
    let told = seen
        .lock()
        .unwrap()
        .iter()
        .map(|p| p.message.clone())
        .collect::<Vec<_>>();
    assert!(
        told.iter().any(|m| m.contains("waits for a person")),
        "the client was told the run waits: {told:?}"
    );
    assert!(
        told.iter().any(|m| m.contains("cli_exec denied")),
        "{told:?}"
    );
}

#[test]
fn x2_the_agent_tools_and_the_mcp_tools_share_one_generated_schema() {
    let generated = contracts::input_schema_text::<bus::SendMessageArgs>();
    let catalog = colmena_core::toolbox::catalog::find("send_message")
        .unwrap()
        .parameters();
    assert_eq!(catalog, generated);
    let schema: serde_json::Value = serde_json::from_str(&catalog).unwrap();
    assert_eq!(schema["additionalProperties"], false);
    // Absent or null means normal.
    assert_eq!(
        schema["properties"]["priority"]["enum"],
        serde_json::json!(["normal", "urgent", null])
    );
    assert!(
        schema["properties"]["body"].get("maxLength").is_none(),
        "one limit, in bytes, in core"
    );
}
