//! The activity log read back with what a sentence needs (issue 12, item 4):
//! each canvas operation runs for real and its line names the canvas, the
//! variant's preset, the round, the model and the counts — so the Console
//! can say "Claude Code generated round 2 of «X thread» in «Morning brief»"
//! instead of showing `session.generate_variant` and a raw detail.

#![allow(clippy::unwrap_used)]

mod support;

use colmena_core::caller::Client;
use colmena_core::canvas::activity::{self, Activity};
use colmena_core::canvas::generate::{self, no_events};
use colmena_core::canvas::items::{NewItem, SourceKind};
use colmena_core::canvas::variants::NewVariant;
use colmena_core::canvas::{self, Caller, items, variants};
use colmena_scripted_llm::Rule;
use support::hive::hive;

fn line<'a>(log: &'a [Activity], tool: &str) -> &'a Activity {
    log.iter()
        .find(|a| a.tool == tool)
        .unwrap_or_else(|| panic!("no {tool} in the log"))
}

#[tokio::test]
async fn each_line_carries_the_canvas_name_preset_round_model_and_counts() {
    let (ws, _llm) = hive(vec![Rule::text("Hecho.").repeat()]).await;
    let ctx = &ws.ctx;
    let me = Caller::ui(ctx);
    let claude = Caller {
        actor: colmena_core::caller::Actor::Person {
            user: ctx.owner().into(),
            author: None,
        },
        client: Client::from_mcp_name("claude-code"),
    };
    let c = canvas::create(ctx, &me, Some("Morning brief".into()))
        .await
        .unwrap();
    items::add_item(
        ctx,
        &me,
        &c.id,
        NewItem {
            source_kind: Some(SourceKind::Custom),
            title: Some("Bees".into()),
            snippet: Some("Bees make honey.".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let v = variants::add_variant(
        ctx,
        &me,
        &c.id,
        NewVariant {
            preset_id: "x-thread".into(),
            prompt: Some("About bees".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    generate::generate_variant(ctx, &claude, &v.id, no_events())
        .await
        .unwrap();
    generate::generate_variant(ctx, &claude, &v.id, no_events())
        .await
        .unwrap();
    variants::write_round(ctx, &me, &v.id, "Written by me.")
        .await
        .unwrap();
    variants::select_round(ctx, &me, &v.id, 0).await.unwrap();
    generate::generate_all(ctx, &me, &c.id, std::sync::Arc::new(|_| {}))
        .await
        .unwrap();
    items::clear_selection(ctx, &me, &c.id).await.unwrap();

    let log = activity::recent(ctx, &me, Some(c.id.clone()), Some(100))
        .await
        .unwrap();
    assert!(
        log.iter()
            .all(|a| a.canvas_name.as_deref() == Some("Morning brief"))
    );

    type Generated<'a> = (Client, Option<&'a str>, Option<u32>, Option<&'a str>);
    let generated: Vec<Generated> = log
        .iter()
        .filter(|a| a.tool == "session.generate_variant")
        .map(|a| {
            (
                a.client,
                a.preset_id.as_deref(),
                a.round,
                a.model.as_deref(),
            )
        })
        .collect();
    let x = Some("x-thread");
    let model = Some("gpt-test");
    assert_eq!(
        generated,
        [
            (Client::Ui, x, Some(4), model),
            (Client::ClaudeCode, x, Some(2), model),
            (Client::ClaudeCode, x, Some(1), model),
        ],
        "newest first: generate_all made round 4"
    );

    assert_eq!(
        line(&log, "session.add_variant").preset_id.as_deref(),
        Some("x-thread")
    );
    assert_eq!(line(&log, "session.select_round").round, Some(1));
    assert_eq!(line(&log, "session.generate_all").count, Some(1));
    assert_eq!(line(&log, "session.clear_selection").count, Some(1));
    let added = line(&log, "session.add_item");
    assert_eq!(
        (added.detail.as_str(), added.count, added.round),
        ("Bees", None, None)
    );
}

#[tokio::test]
async fn a_deleted_canvas_keeps_its_name_on_the_line_that_deleted_it() {
    let ws = support::workspace().await;
    let ctx = &ws.ctx;
    let me = Caller::ui(ctx);
    let c = canvas::create(ctx, &me, Some("Old notes".into()))
        .await
        .unwrap();
    canvas::update(ctx, &me, &c.id, Some("Older notes".into()))
        .await
        .unwrap();
    let other = canvas::create(ctx, &me, None).await.unwrap();
    canvas::delete(ctx, &me, &other.id).await.unwrap();
    canvas::delete(ctx, &me, &c.id).await.unwrap();
    let log = activity::recent(ctx, &me, None, Some(10)).await.unwrap();
    let deleted = line(&log, "session.delete");
    assert_eq!(deleted.canvas_id, None);
    assert_eq!(deleted.canvas_name.as_deref(), Some("Older notes"));
    assert_eq!(
        line(&log, "session.update").canvas_name.as_deref(),
        Some("Older notes")
    );
    let created: Vec<Option<&str>> = log
        .iter()
        .filter(|a| a.tool == "session.create")
        .map(|a| a.canvas_name.as_deref())
        .collect();
    assert_eq!(
        created,
        [None, Some("Old notes")],
        "the unnamed one has no name to give"
    );
}
