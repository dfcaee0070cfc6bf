//! The canvas (SPEC C1–C10) through the core API, against a real store and
//! the scripted provider: scoping, snapshots, variants and their rounds,
//! generation alone and all at once, exports, presets, the activity log and
//! sources.

#![allow(clippy::unwrap_used)]

mod support;

use std::time::{Duration, Instant};

use colmena_core::caller::Client;
use colmena_core::canvas::exports::{ExportRequest, ExportTarget};
use colmena_core::canvas::generate::{self, no_events};
use colmena_core::canvas::items::{NewItem, SourceKind};
use colmena_core::canvas::presets::PresetDraft;
use colmena_core::canvas::sources::{NewSource, SourceType};
use colmena_core::canvas::variants::{NewVariant, VariantUpdate};
use colmena_core::canvas::{
    self, Caller, VariantStatus, activity, exports, items, presets, sources, variants,
};
use colmena_core::{Ctx, ErrorCode};
use colmena_scripted_llm::{Matcher, Rule};
use support::hive::hive;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn me(ctx: &Ctx) -> Caller {
    Caller::ui(ctx)
}

fn item(title: &str) -> NewItem {
    NewItem {
        source_kind: Some(SourceKind::Webpage),
        title: Some(title.into()),
        snippet: Some(format!("{title}: the snippet")),
        metrics: Some(serde_json::json!({"likes": 3})),
        ..Default::default()
    }
}

fn variant(preset: &str, prompt: &str) -> NewVariant {
    NewVariant {
        preset_id: preset.into(),
        prompt: Some(prompt.into()),
        ..Default::default()
    }
}

async fn count(ctx: &Ctx, table: &'static str) -> i64 {
    ctx.store()
        .read(move |c| Ok(c.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))?))
        .await
        .unwrap()
}

#[tokio::test]
async fn c1_a_canvas_is_its_users_sorted_by_activity_and_delete_cascades() {
    let (ws, _llm) = hive(vec![Rule::text("Un borrador.").repeat()]).await;
    let ctx = &ws.ctx;
    colmena_core::users::create(ctx, "Beto").await.unwrap();
    let beto = Caller {
        actor: colmena_core::caller::Actor::Person {
            user: "beto".into(),
            author: None,
        },
        client: Client::Ui,
    };
    let first = canvas::create(ctx, &me(ctx), Some("Primero".into()))
        .await
        .unwrap();
    let second = canvas::create(ctx, &me(ctx), Some("Segundo".into()))
        .await
        .unwrap();
    let theirs = canvas::create(ctx, &beto, Some("De Beto".into()))
        .await
        .unwrap();

    // Another user never sees it: not in the list, and not found by id.
    let mine: Vec<String> = canvas::list(ctx, &me(ctx))
        .await
        .unwrap()
        .into_iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(
        mine,
        [second.id.clone(), first.id.clone()],
        "most recent first"
    );
    let err = canvas::get(ctx, &me(ctx), &theirs.id).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    let err = items::add_item(ctx, &me(ctx), &theirs.id, item("x"))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert_eq!(canvas::list(ctx, &beto).await.unwrap().len(), 1);

    // Activity moves a canvas to the top.
    items::add_item(ctx, &me(ctx), &first.id, item("Abejas"))
        .await
        .unwrap();
    let order: Vec<String> = canvas::list(ctx, &me(ctx))
        .await
        .unwrap()
        .into_iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(order[0], first.id);

    // Delete cascades to items, variants, rounds and exports.
    let v = variants::add_variant(ctx, &me(ctx), &first.id, variant("tldr-brief", ""))
        .await
        .unwrap();
    generate::generate_variant(ctx, &me(ctx), &v.id, no_events())
        .await
        .unwrap();
    exports::export_variant(
        ctx,
        &me(ctx),
        ExportRequest {
            canvas_id: first.id.clone(),
            variant_id: v.id.clone(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    for table in [
        "canvas_items",
        "canvas_variants",
        "variant_rounds",
        "canvas_exports",
    ] {
        assert_eq!(count(ctx, table).await, 1, "{table}");
    }
    canvas::delete(ctx, &me(ctx), &first.id).await.unwrap();
    for table in [
        "canvas_items",
        "canvas_variants",
        "variant_rounds",
        "canvas_exports",
    ] {
        assert_eq!(count(ctx, table).await, 0, "{table} after delete");
    }
    // The log still says what happened to it.
    let log = activity::recent(ctx, &me(ctx), None, Some(100))
        .await
        .unwrap();
    assert_eq!(log[0].tool, "session.delete");
    assert_eq!(log[0].canvas_id, None);
}

#[tokio::test]
async fn c2_items_are_immutable_snapshots() {
    let ws = support::workspace().await;
    let ctx = &ws.ctx;
    let c = canvas::create(ctx, &me(ctx), None).await.unwrap();
    let added = items::add_item(ctx, &me(ctx), &c.id, item("Original"))
        .await
        .unwrap();
    assert_eq!(added.metrics["likes"], 3);
    // The store itself refuses to change a snapshot.
    let id = added.id.clone();
    let err = ctx
        .store()
        .write(move |tx| {
            Ok(tx.execute(
                "UPDATE canvas_items SET title = 'Changed' WHERE id = ?1",
                [&id],
            )?)
        })
        .await
        .unwrap_err();
    assert!(err.message.contains("immutable"), "{}", err.message);
    let detail = canvas::get(ctx, &me(ctx), &c.id).await.unwrap();
    assert_eq!(detail.items[0].title, "Original");
    // Bad snapshots are refused with the field named.
    let err = items::add_item(ctx, &me(ctx), &c.id, NewItem::default())
        .await
        .unwrap_err();
    assert_eq!(err.field(), Some("title"));
    let bad = NewItem {
        metrics: Some(serde_json::json!([1])),
        ..item("x")
    };
    assert_eq!(
        items::add_item(ctx, &me(ctx), &c.id, bad)
            .await
            .unwrap_err()
            .field(),
        Some("metrics")
    );
    // Remove one, clear the rest.
    items::add_item(ctx, &me(ctx), &c.id, item("Otro"))
        .await
        .unwrap();
    items::remove_item(ctx, &me(ctx), &c.id, &added.id)
        .await
        .unwrap();
    assert_eq!(
        items::clear_selection(ctx, &me(ctx), &c.id).await.unwrap(),
        1
    );
}

#[tokio::test]
async fn c3_variants_start_idle_with_no_round_and_keep_their_key_secret() {
    let ws = support::workspace().await;
    let ctx = &ws.ctx;
    let c = canvas::create(ctx, &me(ctx), None).await.unwrap();
    let v = variants::add_variant(ctx, &me(ctx), &c.id, variant("x-thread", "Sobre abejas"))
        .await
        .unwrap();
    assert_eq!(v.status, VariantStatus::Idle);
    assert_eq!(v.active_round, -1);
    assert_eq!(v.type_tag, "thread", "from the preset");
    let err = variants::add_variant(ctx, &me(ctx), &c.id, variant("tiktok", "x"))
        .await
        .unwrap_err();
    assert_eq!(err.field(), Some("presetId"));
    let err = variants::add_variant(ctx, &me(ctx), &c.id, variant("custom", " "))
        .await
        .unwrap_err();
    assert_eq!(err.field(), Some("prompt"));

    let key = "sk-variant-own-key-123456";
    let with_key = NewVariant {
        api_key: Some(key.into()),
        ..variant("tldr-brief", "")
    };
    let v = variants::add_variant(ctx, &me(ctx), &c.id, with_key)
        .await
        .unwrap();
    assert!(v.has_api_key);
    assert_eq!(v.api_key_masked.as_deref(), Some("sk-…3456"));
    let listed = serde_json::to_string(&canvas::get(ctx, &me(ctx), &c.id).await.unwrap()).unwrap();
    assert!(!listed.contains(key));
    assert!(!support::any_file_contains(ws.dir.path(), key.as_bytes()));
    // An empty key clears it.
    let cleared = variants::update_variant(
        ctx,
        &me(ctx),
        &v.id,
        VariantUpdate {
            api_key: Some(String::new()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert!(!cleared.has_api_key);
}

#[tokio::test]
async fn c4_rounds_are_append_only_and_selecting_one_only_moves_the_index() {
    let rules = vec![
        Rule::text("Primera versión.").when(Matcher {
            last_user_contains: Some("tono serio".into()),
            ..Default::default()
        }),
        Rule::text("Segunda versión.").when(Matcher {
            last_user_contains: Some("tono alegre".into()),
            ..Default::default()
        }),
    ];
    let (ws, _llm) = hive(rules).await;
    let ctx = &ws.ctx;
    let c = canvas::create(ctx, &me(ctx), Some("Abejas".into()))
        .await
        .unwrap();
    items::add_item(ctx, &me(ctx), &c.id, item("Miel"))
        .await
        .unwrap();
    let v = variants::add_variant(
        ctx,
        &me(ctx),
        &c.id,
        variant("custom", "Escribe con tono serio"),
    )
    .await
    .unwrap();
    let cli = Caller::cli(ctx, None);
    let first = generate::generate_variant(ctx, &cli, &v.id, no_events())
        .await
        .unwrap();
    assert_eq!(
        (first.index, first.output.as_str()),
        (0, "Primera versión.")
    );
    assert_eq!(first.prompt_snapshot, "Escribe con tono serio");
    assert_eq!(
        (first.provider.as_str(), first.model.as_str()),
        ("scripted", "gpt-test")
    );
    assert_eq!(first.client, "cli");
    assert!(first.completion_tokens.is_some_and(|n| n > 0));

    variants::update_variant(
        ctx,
        &me(ctx),
        &v.id,
        VariantUpdate {
            prompt: Some("Escribe con tono alegre".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let second = generate::generate_variant(ctx, &me(ctx), &v.id, no_events())
        .await
        .unwrap();
    assert_eq!(second.index, 1);
    assert_eq!(second.client, "ui");
    let rounds = variants::variant_rounds(ctx, &me(ctx), &v.id)
        .await
        .unwrap();
    assert_eq!(
        rounds[0].prompt_snapshot, "Escribe con tono serio",
        "older rounds keep their snapshot"
    );
    assert_eq!(rounds[1].prompt_snapshot, "Escribe con tono alegre");

    let now = canvas::get(ctx, &me(ctx), &c.id)
        .await
        .unwrap()
        .variants
        .remove(0);
    assert_eq!((now.active_round, now.status), (1, VariantStatus::Done));
    let selected = variants::select_round(ctx, &me(ctx), &v.id, 0)
        .await
        .unwrap();
    assert_eq!(selected.active_round, 0);
    assert_eq!(selected.active_output.as_deref(), Some("Primera versión."));
    assert_eq!(
        variants::variant_rounds(ctx, &me(ctx), &v.id)
            .await
            .unwrap()
            .len(),
        2,
        "nothing removed"
    );
    let err = variants::select_round(ctx, &me(ctx), &v.id, 2)
        .await
        .unwrap_err();
    assert_eq!(err.field(), Some("roundIndex"));
    // The store refuses to rewrite a round.
    let err = ctx
        .store()
        .write(|tx| Ok(tx.execute("UPDATE variant_rounds SET output = 'x'", [])?))
        .await
        .unwrap_err();
    assert!(err.message.contains("append-only"), "{}", err.message);
}

#[tokio::test]
async fn c5_generate_all_runs_concurrently_and_a_failure_stays_alone() {
    let rules = vec![
        Rule::error(400, "the provider fell over")
            .when(Matcher {
                last_user_contains: Some("variant 7".into()),
                ..Default::default()
            })
            .repeat(),
        // Two words streamed in ~5 pieces, 125 ms apart: ~500 ms a call.
        Rule::text("Listo ya.").text_in_pieces(3).slow(125).repeat(),
    ];
    let (ws, _llm) = hive(rules).await;
    let ctx = &ws.ctx;
    let c = canvas::create(ctx, &me(ctx), None).await.unwrap();
    for n in 0..20 {
        variants::add_variant(
            ctx,
            &me(ctx),
            &c.id,
            variant("custom", &format!("variant {n}")),
        )
        .await
        .unwrap();
    }
    let deltas = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = std::sync::Arc::clone(&deltas);
    let sink: generate::CanvasSink = std::sync::Arc::new(move |e| {
        if let generate::CanvasEvent::Delta { .. } = e {
            seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    });
    let started = Instant::now();
    let outcome = generate::generate_all(ctx, &me(ctx), &c.id, sink)
        .await
        .unwrap();
    // Measured, not asserted: see BENCHMARKS.md.
    eprintln!("generate_all over 20 variants: {:?}", started.elapsed());
    assert_eq!(outcome.done.len(), 19);
    assert_eq!(outcome.failed.len(), 1);
    assert!(
        deltas.load(std::sync::atomic::Ordering::Relaxed) >= 19 * 2,
        "the text streamed"
    );
    let detail = canvas::get(ctx, &me(ctx), &c.id).await.unwrap();
    let failed: Vec<_> = detail
        .variants
        .iter()
        .filter(|v| v.status == VariantStatus::Error)
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].prompt, "variant 7");
    assert!(
        failed[0]
            .error_message
            .as_deref()
            .unwrap()
            .contains("fell over")
    );
    assert!(
        detail
            .variants
            .iter()
            .filter(|v| v.status == VariantStatus::Done)
            .all(|v| v.active_round == 0)
    );
}

/// The status and lease owner of a variant, straight from the file.
fn lease_of(dir: &std::path::Path, variant: &str) -> (String, Option<String>) {
    support::db(dir)
        .query_row(
            "SELECT status, lease_owner FROM canvas_variants WHERE id = ?1",
            [variant],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap()
}

fn set_lease(
    dir: &std::path::Path,
    variant: &str,
    status: &str,
    owner: &str,
    expires_in_secs: i64,
) {
    let expires = chrono::Utc::now() + chrono::Duration::seconds(expires_in_secs);
    support::db(dir)
        .execute(
            "UPDATE canvas_variants SET status = ?2, lease_owner = ?3, lease_expires_at = ?4 WHERE id = ?1",
            rusqlite::params![variant, status, owner, expires],
        )
        .unwrap();
}

/// A workspace whose model answers prompts containing `slow` after a
/// minute, and everything else at once with `fast`.
async fn slow_hive(
    slow: &str,
    fast: &str,
) -> (support::Workspace, colmena_scripted_llm::ScriptedLlm) {
    hive(vec![
        Rule::text("Too late.")
            .slow(60_000)
            .when(Matcher {
                last_user_contains: Some(slow.into()),
                ..Default::default()
            })
            .repeat(),
        Rule::text(fast).repeat(),
    ])
    .await
}

/// Starts generating `variant` in the background and returns once it streams.
async fn start_generating(
    ctx: &Ctx,
    dir: &std::path::Path,
    variant: &str,
) -> tokio::task::JoinHandle<colmena_core::Result<colmena_core::canvas::Round>> {
    let (ctx, id) = (ctx.clone(), variant.to_owned());
    let generating = tokio::spawn(async move {
        generate::generate_variant(&ctx, &Caller::ui(&ctx), &id, no_events()).await
    });
    // A hang guard, not a timing claim.
    let deadline = Instant::now() + Duration::from_secs(60);
    while lease_of(dir, variant).0 != "streaming" {
        assert!(
            Instant::now() < deadline,
            "the variant never started streaming"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    generating
}

#[tokio::test]
async fn c4_a_variant_left_generating_by_a_dead_process_is_an_error_at_the_next_start() {
    // The answer to "cortada" never arrives: the process dies while it streams.
    let (ws, _llm) = slow_hive("cortada", "Esta vez sí.").await;
    let ctx = &ws.ctx;
    let c = canvas::create(ctx, &me(ctx), None).await.unwrap();
    let cut = variants::add_variant(ctx, &me(ctx), &c.id, variant("custom", "cortada"))
        .await
        .unwrap();
    let elsewhere =
        variants::add_variant(ctx, &me(ctx), &c.id, variant("custom", "en otro proceso"))
            .await
            .unwrap();

    let generating = start_generating(ctx, ws.dir.path(), &cut.id).await;
    let owner = lease_of(ws.dir.path(), &cut.id).1;
    assert!(owner.is_some(), "a streaming variant names its process");

    // The process dies mid-stream.
    generating.abort();
    let _ = generating.await;
    let owner = owner.unwrap();
    set_lease(
        ws.dir.path(),
        &cut.id,
        "streaming",
        &support::killed(&owner),
        60,
    );
    // Another process that is alive (this pid, another instance) is
    // generating the second one, with a lease that still holds.
    let host = owner.split(':').next().unwrap();
    let alive = format!("{host}:{}:another-instance", std::process::id());
    set_lease(ws.dir.path(), &elsewhere.id, "streaming", &alive, 60);

    let restarted = support::open(ws.dir.path()).await;
    let detail = canvas::get(&restarted, &me(&restarted), &c.id)
        .await
        .unwrap();
    let by_id = |id: &str| detail.variants.iter().find(|v| v.id == id).unwrap().clone();
    let swept = by_id(&cut.id);
    assert_eq!(swept.status, VariantStatus::Error);
    assert_eq!(
        swept.error_message.as_deref(),
        Some(colmena_core::canvas::leases::INTERRUPTED)
    );
    assert_eq!(
        lease_of(ws.dir.path(), &cut.id).1,
        None,
        "the dead lease is gone"
    );
    assert_eq!(
        by_id(&elsewhere.id).status,
        VariantStatus::Streaming,
        "a live process's generation is left alone"
    );

    // A lease that ran out without renewal is dead too.
    set_lease(ws.dir.path(), &elsewhere.id, "queued", &alive, -1);
    let again = support::open(ws.dir.path()).await;
    let detail = canvas::get(&again, &me(&again), &c.id).await.unwrap();
    let expired = detail
        .variants
        .iter()
        .find(|v| v.id == elsewhere.id)
        .unwrap();
    assert_eq!(expired.status, VariantStatus::Error);

    // The cut-off variant is generated again, and its lease is let go.
    variants::update_variant(
        &again,
        &me(&again),
        &cut.id,
        VariantUpdate {
            prompt: Some("de nuevo".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let round = generate::generate_variant(&again, &me(&again), &cut.id, no_events())
        .await
        .unwrap();
    assert_eq!(round.output, "Esta vez sí.");
    assert_eq!(lease_of(ws.dir.path(), &cut.id), ("done".to_owned(), None));
}

#[tokio::test]
async fn c4_a_stopped_generation_leaves_the_variant_as_it_was() {
    let (ws, _llm) = slow_hive("lenta", "Primera ronda.").await;
    let ctx = &ws.ctx;
    let c = canvas::create(ctx, &me(ctx), None).await.unwrap();
    let fresh = variants::add_variant(ctx, &me(ctx), &c.id, variant("custom", "lenta"))
        .await
        .unwrap();
    let with_round = variants::add_variant(ctx, &me(ctx), &c.id, variant("custom", "rápida"))
        .await
        .unwrap();
    generate::generate_variant(ctx, &me(ctx), &with_round.id, no_events())
        .await
        .unwrap();
    variants::update_variant(
        ctx,
        &me(ctx),
        &with_round.id,
        VariantUpdate {
            prompt: Some("ahora lenta".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();

    for (id, status, round) in [
        (&fresh.id, VariantStatus::Idle, -1),
        (&with_round.id, VariantStatus::Done, 0),
    ] {
        let generating = start_generating(ctx, ws.dir.path(), id).await;
        assert!(generate::cancel(ctx, id), "the generation runs here");
        let err = generating.await.unwrap().unwrap_err();
        assert_eq!(err.code, ErrorCode::Cancelled);
        let detail = canvas::get(ctx, &me(ctx), &c.id).await.unwrap();
        let v = detail.variants.iter().find(|v| &v.id == id).unwrap();
        assert_eq!(v.status, status, "back to what it showed");
        assert_eq!(v.active_round, round);
        assert_eq!(v.error_message, None, "stopping is not a failure");
        assert_eq!(lease_of(ws.dir.path(), id).1, None);
    }
}

#[tokio::test]
async fn c6_an_export_writes_markdown_and_counts_in_the_last_seven_days() {
    let (ws, _llm) = hive(vec![Rule::text("El borrador final.").repeat()]).await;
    let ctx = &ws.ctx;
    let c = canvas::create(ctx, &me(ctx), Some("Boletín".into()))
        .await
        .unwrap();
    items::add_item(
        ctx,
        &me(ctx),
        &c.id,
        NewItem {
            raw: Some(serde_json::json!({"url": "https://a.test/1"})),
            ..item("Fuente")
        },
    )
    .await
    .unwrap();
    let v = variants::add_variant(ctx, &me(ctx), &c.id, variant("newsletter-section", ""))
        .await
        .unwrap();
    let request = ExportRequest {
        canvas_id: c.id.clone(),
        variant_id: v.id.clone(),
        ..Default::default()
    };
    let err = exports::export_variant(ctx, &me(ctx), request.clone())
        .await
        .unwrap_err();
    assert_eq!(
        err.code,
        ErrorCode::Precondition,
        "nothing to export before a round"
    );
    generate::generate_variant(ctx, &me(ctx), &v.id, no_events())
        .await
        .unwrap();

    let path = ws.dir.path().join("boletin.md");
    let to_file = ExportRequest {
        target: ExportTarget::File,
        path: Some(path.clone()),
        ..request.clone()
    };
    let done = exports::export_variant(ctx, &me(ctx), to_file)
        .await
        .unwrap();
    let written = std::fs::read_to_string(&path).unwrap();
    assert_eq!(written, done.markdown);
    assert!(
        written.starts_with("# Boletín\n\nEl borrador final.\n"),
        "{written}"
    );
    assert!(
        written.contains("- [Fuente](https://a.test/1)"),
        "{written}"
    );
    exports::export_variant(
        ctx,
        &me(ctx),
        ExportRequest {
            target: ExportTarget::Clipboard,
            ..request.clone()
        },
    )
    .await
    .unwrap();
    assert_eq!(
        exports::exports_last_7_days(ctx, &me(ctx)).await.unwrap(),
        2
    );
    let err = exports::export_variant(
        ctx,
        &me(ctx),
        ExportRequest {
            format: Some("pdf".into()),
            ..request
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.field(), Some("format"));
}

#[tokio::test]
async fn c7_user_presets_are_unique_by_name_per_user() {
    let ws = support::workspace().await;
    let ctx = &ws.ctx;
    colmena_core::users::create(ctx, "Beto").await.unwrap();
    let beto = Caller {
        actor: colmena_core::caller::Actor::Person {
            user: "beto".into(),
            author: None,
        },
        client: Client::Ui,
    };
    let draft = |prompt: &str| PresetDraft {
        name: "Hilo técnico".into(),
        prompt: prompt.into(),
        type_tag: "thread".into(),
        ..Default::default()
    };
    let first = presets::save_preset(ctx, &me(ctx), draft("uno"))
        .await
        .unwrap();
    let again = presets::save_preset(
        ctx,
        &me(ctx),
        PresetDraft {
            name: "HILO TÉCNICO".into(),
            ..draft("dos")
        },
    )
    .await
    .unwrap();
    assert_eq!(first.id, again.id, "the same name replaces");
    assert_eq!(presets::list(ctx, &me(ctx)).await.unwrap().len(), 1);
    presets::save_preset(ctx, &beto, draft("suyo"))
        .await
        .unwrap();
    assert_eq!(presets::list(ctx, &beto).await.unwrap()[0].prompt, "suyo");
    // A variant from a saved preset takes its prompt.
    let c = canvas::create(ctx, &me(ctx), None).await.unwrap();
    let v = variants::add_variant(
        ctx,
        &me(ctx),
        &c.id,
        NewVariant {
            preset_id: "user-saved".into(),
            user_preset_id: Some(first.id.clone()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!((v.prompt.as_str(), v.type_tag.as_str()), ("dos", "thread"));
    let err = variants::add_variant(
        ctx,
        &me(ctx),
        &c.id,
        NewVariant {
            preset_id: "user-saved".into(),
            ..Default::default()
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.field(), Some("userPresetId"));
}

#[tokio::test]
async fn c8_the_activity_log_names_the_client_and_the_dotted_operation() {
    let ws = support::workspace().await;
    let ctx = &ws.ctx;
    let c = canvas::create(ctx, &me(ctx), Some("Log".into()))
        .await
        .unwrap();
    items::add_item(ctx, &Caller::cli(ctx, None), &c.id, item("Desde la CLI"))
        .await
        .unwrap();
    let mcp = Caller {
        actor: colmena_core::caller::Actor::Person {
            user: ctx.owner().into(),
            author: None,
        },
        client: Client::from_mcp_name("claude-code"),
    };
    variants::add_variant(ctx, &mcp, &c.id, variant("x-thread", ""))
        .await
        .unwrap();
    let log = activity::recent(ctx, &me(ctx), Some(c.id.clone()), None)
        .await
        .unwrap();
    let lines: Vec<(Client, &str)> = log.iter().map(|a| (a.client, a.tool.as_str())).collect();
    assert_eq!(
        lines,
        [
            (Client::ClaudeCode, "session.add_variant"),
            (Client::Cli, "session.add_item"),
            (Client::Ui, "session.create")
        ]
    );
    assert_eq!(log[1].detail, "Desde la CLI");
    assert_eq!(
        activity::recent(ctx, &me(ctx), None, Some(0))
            .await
            .unwrap_err()
            .field(),
        Some("limit")
    );
}

/// A one-route server answering `body` as RSS.
async fn feed_server(body: std::sync::Arc<std::sync::Mutex<String>>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let body = body.lock().unwrap().clone();
            tokio::spawn(async move {
                let mut request = [0u8; 4096];
                let _ = socket.read(&mut request).await;
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/rss+xml\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(body.as_bytes()).await;
            });
        }
    });
    format!("http://{addr}/feed.xml")
}

fn rss(title: &str) -> String {
    format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Abejas</title>\
         <item><guid>n-1</guid><title>{title}</title><link>https://a.test/n-1</link>\
         <description>La noticia.</description></item></channel></rss>"
    )
}

#[tokio::test]
async fn c10_a_feed_is_refreshed_and_its_items_selected_as_snapshots() {
    let ws = support::workspace().await;
    let ctx = &ws.ctx;
    let body = std::sync::Arc::new(std::sync::Mutex::new(rss("Titular original")));
    let url = feed_server(std::sync::Arc::clone(&body)).await;
    let source = sources::register_source(
        ctx,
        &me(ctx),
        NewSource {
            kind: Some(SourceType::Rss),
            name: "Abejas".into(),
            url: Some(url),
        },
    )
    .await
    .unwrap();
    assert_eq!(source.status, "idle");
    // In the background, as the app does it; then wait for `ok`.
    sources::refresh_source(ctx, &me(ctx), &source.id)
        .await
        .unwrap();
    let started = Instant::now();
    loop {
        let listed = sources::list_sources(ctx, &me(ctx)).await.unwrap();
        if listed[0].status == "ok" {
            assert_eq!(listed[0].item_count, 1);
            break;
        }
        // A hang guard, not a timing claim.
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{:?}",
            listed[0]
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let fetched = sources::source_items(ctx, &me(ctx), &source.id)
        .await
        .unwrap();
    let c = canvas::create(ctx, &me(ctx), None).await.unwrap();
    let added = items::add_item(
        ctx,
        &me(ctx),
        &c.id,
        NewItem {
            upstream_item_id: Some(fetched[0].id.clone()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(
        (added.title.as_str(), added.source_kind),
        ("Titular original", SourceKind::Rss)
    );
    assert_eq!(added.external_id.as_deref(), Some("n-1"));
    // Upstream changes; the canvas keeps what it captured (C2).
    *body.lock().unwrap() = rss("Titular corregido");
    sources::refresh_now(ctx, &me(ctx), &source.id)
        .await
        .unwrap();
    assert_eq!(
        sources::source_items(ctx, &me(ctx), &source.id)
            .await
            .unwrap()[0]
            .title,
        "Titular corregido"
    );
    assert_eq!(
        canvas::get(ctx, &me(ctx), &c.id).await.unwrap().items[0].title,
        "Titular original"
    );
    // A page that is not a feed: the source says why.
    *body.lock().unwrap() = "<html><body>no feed</body></html>".into();
    let err = sources::refresh_now(ctx, &me(ctx), &source.id)
        .await
        .unwrap_err();
    assert!(
        err.message.contains("not an RSS or Atom feed"),
        "{}",
        err.message
    );
    let listed = sources::list_sources(ctx, &me(ctx)).await.unwrap();
    assert_eq!(listed[0].status, "error");
    assert!(listed[0].error.as_deref().unwrap().contains("not an RSS"));
}

fn reason(err: &colmena_core::AppError) -> Option<&str> {
    err.details.as_ref()?.get("reason")?.as_str()
}

#[tokio::test]
async fn a_round_written_by_hand_is_appended_marked_and_shown() {
    let (ws, _llm) = hive(vec![Rule::text("Primera versión.").repeat()]).await;
    let ctx = &ws.ctx;
    let c = canvas::create(ctx, &me(ctx), Some("A mano".into()))
        .await
        .unwrap();
    let v = variants::add_variant(ctx, &me(ctx), &c.id, variant("custom", "Un hilo"))
        .await
        .unwrap();
    let generated = generate::generate_variant(ctx, &me(ctx), &v.id, no_events())
        .await
        .unwrap();
    assert!(!generated.by_hand, "a model's round is not by hand");
    let mut changes = ctx.subscribe();

    let mine = variants::write_round(ctx, &me(ctx), &v.id, "Mi **versión**, corregida.")
        .await
        .unwrap();
    assert!(mine.by_hand);
    assert_eq!(
        (mine.index, mine.output.as_str()),
        (1, "Mi **versión**, corregida.")
    );
    assert_eq!((mine.provider.as_str(), mine.model.as_str()), ("", ""));
    assert_eq!(mine.prompt_snapshot, "Un hilo");
    assert_eq!(mine.client, "ui");
    assert!(
        std::iter::from_fn(|| changes.try_recv().ok()).any(|c| c == colmena_core::Change::Canvases),
        "the write was announced"
    );

    // Appended: the generated round is still there, unchanged; the new one is shown.
    let rounds = variants::variant_rounds(ctx, &me(ctx), &v.id)
        .await
        .unwrap();
    assert_eq!(rounds.len(), 2);
    assert_eq!(rounds[0], generated);
    assert_eq!(
        rounds.iter().map(|r| r.by_hand).collect::<Vec<_>>(),
        [false, true]
    );
    let now = canvas::get(ctx, &me(ctx), &c.id)
        .await
        .unwrap()
        .variants
        .remove(0);
    assert_eq!((now.active_round, now.status), (1, VariantStatus::Done));
    assert_eq!(
        now.active_output.as_deref(),
        Some("Mi **versión**, corregida.")
    );
    let log = activity::recent(ctx, &me(ctx), Some(c.id.clone()), None)
        .await
        .unwrap();
    assert_eq!(log[0].tool, "session.write_round", "{log:?}");

    // Selecting the older round back does not lose the hand-written one.
    variants::select_round(ctx, &me(ctx), &v.id, 0)
        .await
        .unwrap();
    assert_eq!(
        variants::variant_rounds(ctx, &me(ctx), &v.id)
            .await
            .unwrap()
            .len(),
        2
    );
}

#[tokio::test]
async fn a_round_by_hand_is_refused_empty_too_long_unchanged_or_not_yours() {
    let (ws, _llm) = hive(vec![Rule::text("Hola.").repeat()]).await;
    let ctx = &ws.ctx;
    let c = canvas::create(ctx, &me(ctx), None).await.unwrap();
    let v = variants::add_variant(ctx, &me(ctx), &c.id, variant("custom", "Saluda"))
        .await
        .unwrap();
    generate::generate_variant(ctx, &me(ctx), &v.id, no_events())
        .await
        .unwrap();

    let empty = variants::write_round(ctx, &me(ctx), &v.id, "  \n ")
        .await
        .unwrap_err();
    assert_eq!(
        (empty.code, empty.field(), reason(&empty)),
        (ErrorCode::Validation, Some("text"), Some("required"))
    );
    let long = "x".repeat(variants::MAX_ROUND_TEXT + 1);
    let too_long = variants::write_round(ctx, &me(ctx), &v.id, &long)
        .await
        .unwrap_err();
    assert_eq!(reason(&too_long), Some("too_long"));
    let same = variants::write_round(ctx, &me(ctx), &v.id, "Hola.")
        .await
        .unwrap_err();
    assert_eq!(
        (same.field(), reason(&same)),
        (Some("text"), Some("unchanged"))
    );

    colmena_core::users::create(ctx, "Beto").await.unwrap();
    let beto = Caller {
        actor: colmena_core::caller::Actor::Person {
            user: "beto".into(),
            author: None,
        },
        client: Client::Ui,
    };
    let theirs = variants::write_round(ctx, &beto, &v.id, "Lo escribo yo")
        .await
        .unwrap_err();
    assert_eq!(theirs.code, ErrorCode::NotFound);
    let missing = variants::write_round(ctx, &me(ctx), "no-such-variant", "Texto")
        .await
        .unwrap_err();
    assert_eq!(missing.code, ErrorCode::NotFound);
    assert_eq!(
        variants::variant_rounds(ctx, &me(ctx), &v.id)
            .await
            .unwrap()
            .len(),
        1,
        "nothing refused was written"
    );
}

#[tokio::test]
async fn only_the_persons_own_doors_write_by_hand_and_another_client_is_named() {
    let (ws, _llm) = hive(vec![Rule::text("Hola.").repeat()]).await;
    let ctx = &ws.ctx;
    let c = canvas::create(ctx, &me(ctx), None).await.unwrap();
    let v = variants::add_variant(ctx, &me(ctx), &c.id, variant("custom", "Saluda"))
        .await
        .unwrap();
    let ai = Caller {
        client: Client::from_mcp_name("claude-code"),
        ..me(ctx)
    };
    let theirs = variants::write_round(ctx, &ai, &v.id, "Escrito por una IA.")
        .await
        .unwrap();
    assert!(
        !theirs.by_hand,
        "an AI client's round is not the person's hand"
    );
    assert_eq!(theirs.client, "claude-code");
    let shown = canvas::get(ctx, &me(ctx), &c.id).await.unwrap().variants[0].clone();
    assert!(!shown.active_by_hand);

    let cli = variants::write_round(ctx, &Caller::cli(ctx, None), &v.id, "Desde la CLI.")
        .await
        .unwrap();
    assert!(cli.by_hand);
    assert_eq!(cli.client, "cli");
    let mine = variants::write_round(ctx, &me(ctx), &v.id, "Desde la ventana.")
        .await
        .unwrap();
    assert!(mine.by_hand);
    assert_eq!((mine.client.as_str(), mine.index), ("ui", 2));
    let rounds = variants::variant_rounds(ctx, &me(ctx), &v.id)
        .await
        .unwrap();
    assert_eq!(rounds[2], mine, "the round returned is the one stored");
    assert_eq!(
        rounds.iter().map(|r| r.by_hand).collect::<Vec<_>>(),
        [false, true, true]
    );
}

#[tokio::test]
async fn a_written_round_is_limited_in_characters_as_its_schema_says() {
    let (ws, _llm) = hive(vec![Rule::text("Hola.").repeat()]).await;
    let ctx = &ws.ctx;
    let c = canvas::create(ctx, &me(ctx), None).await.unwrap();
    let v = variants::add_variant(ctx, &me(ctx), &c.id, variant("custom", "Saluda"))
        .await
        .unwrap();
    // Two bytes a character: within the limit in characters, over it in bytes.
    let full = "ñ".repeat(variants::MAX_ROUND_TEXT);
    let round = variants::write_round(ctx, &me(ctx), &v.id, &full)
        .await
        .unwrap();
    assert_eq!(round.output.chars().count(), variants::MAX_ROUND_TEXT);
    let over = format!("{full}ñ");
    let refused = variants::write_round(ctx, &me(ctx), &v.id, &over)
        .await
        .unwrap_err();
    assert_eq!(reason(&refused), Some("too_long"));
    assert!(
        refused
            .message
            .contains(&format!("at most {} characters", variants::MAX_ROUND_TEXT)),
        "{}",
        refused.message
    );
    let schema = serde_json::to_value(schemars::schema_for!(
        colmena_core::contracts::canvas::SessionWriteRound
    ))
    .unwrap();
    assert_eq!(
        schema["properties"]["text"]["maxLength"],
        serde_json::json!(variants::MAX_ROUND_TEXT)
    );
}
