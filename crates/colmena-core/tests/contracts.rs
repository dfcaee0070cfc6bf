//! The operation contracts as the MCP and HTTP doors call them (SPEC X2,
//! C5): a generation reports progress and the door's cancel stops it with
//! the variant left as it was; what a caller may reach (a role's token
//! reaches no person's canvas, an outside client runs no agent whose tools
//! act); and one generated schema shared by the built-in agent tools.

#![allow(clippy::unwrap_used)]

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use colmena_core::canvas::{self, Client, VariantStatus};
use colmena_core::contracts::{self, Progress, ProgressSink, bus, canvas as ops, hive};
use colmena_core::inbox::{self, NewAuthor};
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
    let (ws, _llm) = scripted_hive(vec![
        Rule::text("una palabra tras otra sin prisa alguna")
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
    let me = Caller::as_author(ctx, ctx.owner(), Client::ClaudeCode)
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
    let clonador = Caller::from_token(ctx, &role.token, Client::Cursor)
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
        },
    )
    .await
    .unwrap();
    assert_eq!(sent.from, role.author.id);
}

#[tokio::test]
async fn x2_an_outside_client_runs_no_agent_whose_tools_act() {
    let (ws, _llm) = scripted_hive(vec![Rule::text("hecho").repeat()]).await;
    let ctx = &ws.ctx;
    agent(ctx, "Shell", "Runs commands.", &["cli_exec"]).await;
    agent(ctx, "Lector", "Reads.", &["doc_stats"]).await;
    let me = Caller::as_author(ctx, ctx.owner(), Client::ClaudeCode)
        .await
        .unwrap();
    let silent: ProgressSink = Arc::new(|_| {});
    let run = |id: &str| hive::RunAgentArgs {
        agent_id: id.into(),
        prompt: "ls /".into(),
    };
    let err = hive::run_agent(
        ctx,
        &me,
        run("shell"),
        silent.clone(),
        &CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Forbidden);
    assert!(err.message.contains("cli_exec"), "{}", err.message);
    let reads = hive::run_agent(
        ctx,
        &me,
        run("lector"),
        silent.clone(),
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(reads.output.as_deref(), Some("hecho"));
    // The workspace's own command line may still run it.
    let cli = Caller::cli(ctx, None);
    let local = hive::run_agent(ctx, &cli, run("shell"), silent, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(local.output.as_deref(), Some("hecho"));
}

#[test]
fn x2_the_agent_tools_and_the_mcp_tools_share_one_generated_schema() {
    let generated = contracts::input_schema_text::<bus::SendMessageArgs>();
    let catalog = colmena_core::tools::catalog::find("send_message")
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
