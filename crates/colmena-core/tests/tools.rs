//! Tools (SPEC H16, H17) against a real store.

#![allow(clippy::unwrap_used)]

mod support;

use colmena_core::ErrorCode;
use colmena_core::toolbox::catalog;
use colmena_core::tools::{self, ToolFilter, ToolMetadata};
use support::workspace;

#[tokio::test]
async fn h16_tools_are_listed_with_their_schema_and_can_be_fetched() {
    let ws = workspace().await;
    let all = tools::list(&ws.ctx, ToolFilter::default()).await.unwrap();
    assert_eq!(all.len(), catalog::BUILTIN_TOOLS.len());
    let fetch = tools::get(&ws.ctx, "web_fetch").await.unwrap();
    assert_eq!(fetch.category, "web");
    assert_eq!(fetch.parameters["required"], serde_json::json!(["url"]));
    let web = tools::list(
        &ws.ctx,
        ToolFilter {
            category: Some("web".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(web.len(), 2, "web_search and web_fetch");
    assert_eq!(
        tools::get(&ws.ctx, "nope").await.unwrap_err().code,
        ErrorCode::NotFound
    );
}

#[tokio::test]
async fn h16_metadata_can_be_changed_and_restored() {
    let ws = workspace().await;
    let changed = tools::update_metadata(
        &ws.ctx,
        "web_fetch",
        ToolMetadata {
            display_name: Some("Leer página".into()),
            description: Some("Descarga una página.".into()),
        },
    )
    .await
    .unwrap();
    assert_eq!(changed.display_name, "Leer página");
    assert_eq!(changed.description, "Descarga una página.");
    assert!(changed.customized);
    let restored = tools::update_metadata(
        &ws.ctx,
        "web_fetch",
        ToolMetadata {
            display_name: Some(String::new()),
            description: Some(String::new()),
        },
    )
    .await
    .unwrap();
    assert_eq!(restored.display_name, "web_fetch");
    assert_eq!(
        restored.description,
        catalog::find("web_fetch").unwrap().description
    );
    assert!(!restored.customized);
}

#[tokio::test]
async fn h17_a_restart_after_the_user_turned_tools_off_leaves_them_off() {
    let ws = workspace().await;
    tools::set_active(&ws.ctx, "notify_user", false)
        .await
        .unwrap();
    tools::set_active(&ws.ctx, "web_fetch", true).await.unwrap();
    tools::update_metadata(
        &ws.ctx,
        "web_fetch",
        ToolMetadata {
            display_name: Some("Fetch".into()),
            description: None,
        },
    )
    .await
    .unwrap();
    let dir = ws.dir.path().to_owned();

    // A stale row from an older version: the re-seed restores the code's text.
    ws.ctx
        .store()
        .write(|tx| {
            Ok(tx.execute("UPDATE tools SET description = 'old text', category = 'old' WHERE id = 'web_fetch'", [])?)
        })
        .await
        .unwrap();
    drop(ws.ctx);

    let ctx = support::open(&dir).await;
    assert!(
        !tools::get(&ctx, "notify_user").await.unwrap().active,
        "the user's off stays off"
    );
    let fetch = tools::get(&ctx, "web_fetch").await.unwrap();
    assert!(fetch.active, "the user's on stays on");
    assert_eq!(fetch.display_name, "Fetch", "the user's name stays");
    assert_eq!(fetch.category, "web", "the category is the code's");
    assert_eq!(
        fetch.description,
        catalog::find("web_fetch").unwrap().description
    );
}

#[tokio::test]
async fn h3_expanding_patterns_reports_matches_and_misses() {
    let ws = workspace().await;
    let expansion = tools::expand(
        &ws.ctx,
        vec![
            "git_*".into(),
            "zzz_*".into(),
            "bad-pattern".into(),
            "fs_read".into(),
        ],
    )
    .await
    .unwrap();
    assert_eq!(
        expansion.tools,
        ["fs_read", "git_commit", "git_diff", "git_log", "git_status"]
    );
    assert_eq!(expansion.unmatched, ["zzz_*"]);
    assert_eq!(expansion.invalid.len(), 1);
    assert_eq!(expansion.patterns[0].tools.len(), 4);
}
