//! The search index: derived, repaired at start, rebuilt on demand.

#![allow(clippy::unwrap_used)]

mod support;

use colmena_core::Caller;
use colmena_core::memory;
use colmena_core::memory::CatalogSearch;
use colmena_core::search::{self, DocKind, INDEX_DIR};
use colmena_core::tools;
use support::{catalog_query, workspace};

#[tokio::test]
async fn deleting_the_index_folder_and_starting_again_restores_search_results() {
    let ws = workspace().await;
    memory::write(
        &ws.ctx,
        &Caller::ui(&ws.ctx),
        "receta",
        "Tortilla de patatas con cebolla caramelizada",
    )
    .await
    .unwrap();
    let before = memory::search_catalog(&ws.ctx, catalog_query("cebolla"))
        .await
        .unwrap();
    assert_eq!(before.len(), 1);

    let dir = ws.dir.path().to_owned();
    drop(ws.ctx);
    std::fs::remove_dir_all(dir.join(INDEX_DIR)).unwrap();

    let ctx = support::open(&dir).await;
    let after = memory::search_catalog(&ctx, catalog_query("cebolla"))
        .await
        .unwrap();
    assert_eq!(after, before);
    let tool_hits = memory::search_catalog(
        &ctx,
        CatalogSearch {
            query: "chart".into(),
            kinds: vec![DocKind::Tool],
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(tool_hits[0].id, "data_chart", "tools are back too");
}

#[tokio::test]
async fn a_corrupt_index_is_rebuilt_at_start() {
    let ws = workspace().await;
    memory::write(
        &ws.ctx,
        &Caller::ui(&ws.ctx),
        "nota",
        "La palabra clave es murciélago",
    )
    .await
    .unwrap();
    let dir = ws.dir.path().to_owned();
    drop(ws.ctx);
    std::fs::write(dir.join(INDEX_DIR).join("meta.json"), b"garbage").unwrap();
    let ctx = support::open(&dir).await;
    assert_eq!(
        memory::search_catalog(&ctx, catalog_query("murcielago"))
            .await
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn an_index_behind_the_store_is_caught_up_at_start() {
    let ws = workspace().await;
    memory::write(&ws.ctx, &Caller::ui(&ws.ctx), "a", "primera nota")
        .await
        .unwrap();
    let dir = ws.dir.path().to_owned();
    // A write that reached the store but never the index (a crash between the two).
    ws.ctx
        .store()
        .write(|tx| {
            tx.execute(
                "INSERT INTO memories (id, user_id, title, content, created_at, updated_at)
                 SELECT user_id || ':b', user_id, 'b', 'segunda nota con ornitorrinco', created_at, updated_at FROM memories",
                [],
            )?;
            search::bump_generation(tx)
        })
        .await
        .unwrap();
    drop(ws.ctx);
    let ctx = support::open(&dir).await;
    assert_eq!(
        memory::search_catalog(&ctx, catalog_query("ornitorrinco"))
            .await
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn search_catalog_finds_skills_tools_and_only_the_callers_memories() {
    let ws = workspace().await;
    memory::write(
        &ws.ctx,
        &Caller::ui(&ws.ctx),
        "mine",
        "fetch the quarterly report",
    )
    .await
    .unwrap();
    memory::write(
        &ws.ctx,
        &Caller::cli(&ws.ctx, Some("someone-else")),
        "theirs",
        "fetch their secret report",
    )
    .await
    .unwrap();
    let hits = memory::search_catalog(&ws.ctx, catalog_query("fetch"))
        .await
        .unwrap();
    let kinds: Vec<(DocKind, String)> = hits.iter().map(|h| (h.kind, h.id.clone())).collect();
    assert!(kinds.contains(&(DocKind::Tool, "web_fetch".into())));
    assert!(
        kinds
            .iter()
            .any(|(k, id)| *k == DocKind::Memory && id.ends_with(":mine"))
    );
    assert!(
        !kinds.iter().any(|(_, id)| id.starts_with("someone-else:")),
        "another user's memory leaked"
    );

    // Active only: an inactive tool is not offered to a model.
    tools::set_active(&ws.ctx, "web_fetch", false)
        .await
        .unwrap();
    let active = memory::search_catalog(
        &ws.ctx,
        CatalogSearch {
            query: "fetch".into(),
            active_only: true,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert!(active.iter().all(|h| h.id != "web_fetch"));
}

#[tokio::test]
async fn reindex_rebuilds_everything_from_the_store() {
    let ws = workspace().await;
    memory::write(&ws.ctx, &Caller::ui(&ws.ctx), "x", "quokka")
        .await
        .unwrap();
    let count = ws.ctx.reindex().await.unwrap();
    assert!(count > 40, "tools + skills + memory: {count}");
    assert_eq!(
        memory::search_catalog(&ws.ctx, catalog_query("quokka"))
            .await
            .unwrap()
            .len(),
        1
    );
}
