//! Per-user memory with BM25 search (SPEC H26).

#![allow(clippy::unwrap_used)]

mod support;

use colmena_core::Caller;
use colmena_core::ErrorCode;
use colmena_core::memory;
use support::workspace;

#[tokio::test]
async fn h26_ana_and_beto_each_hold_a_presupuesto_and_neither_reads_the_other() {
    let ws = workspace().await;
    let ana = memory::write(
        &ws.ctx,
        &Caller::cli(&ws.ctx, Some("ana")),
        "presupuesto",
        "5000",
    )
    .await
    .unwrap();
    let beto = memory::write(
        &ws.ctx,
        &Caller::cli(&ws.ctx, Some("beto")),
        "presupuesto",
        "900",
    )
    .await
    .unwrap();
    assert_eq!(ana.id, "ana:presupuesto");
    assert_eq!(beto.id, "beto:presupuesto");
    assert_eq!(
        memory::read(&ws.ctx, &Caller::cli(&ws.ctx, Some("ana")), "presupuesto")
            .await
            .unwrap()
            .content,
        "5000"
    );
    assert_eq!(
        memory::read(&ws.ctx, &Caller::cli(&ws.ctx, Some("beto")), "presupuesto")
            .await
            .unwrap()
            .content,
        "900"
    );

    // Neither list nor search crosses users.
    let ana_list = memory::list(&ws.ctx, &Caller::cli(&ws.ctx, Some("ana")), None, None)
        .await
        .unwrap();
    assert_eq!(ana_list.len(), 1);
    assert_eq!(ana_list[0].content, "5000");
    let hits = memory::search(
        &ws.ctx,
        &Caller::cli(&ws.ctx, Some("beto")),
        "presupuesto",
        None,
    )
    .await
    .unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].memory.content, "900");
    assert!(
        memory::search(
            &ws.ctx,
            &Caller::cli(&ws.ctx, Some("carla")),
            "presupuesto",
            None
        )
        .await
        .unwrap()
        .is_empty()
    );
    assert_eq!(
        memory::read(&ws.ctx, &Caller::cli(&ws.ctx, Some("carla")), "presupuesto")
            .await
            .unwrap_err()
            .code,
        ErrorCode::NotFound
    );

    // Deleting one leaves the other.
    memory::delete(&ws.ctx, &Caller::cli(&ws.ctx, Some("ana")), "presupuesto")
        .await
        .unwrap();
    assert!(
        memory::read(&ws.ctx, &Caller::cli(&ws.ctx, Some("ana")), "presupuesto")
            .await
            .is_err()
    );
    assert_eq!(
        memory::read(&ws.ctx, &Caller::cli(&ws.ctx, Some("beto")), "presupuesto")
            .await
            .unwrap()
            .content,
        "900"
    );
}

#[tokio::test]
async fn h26_writing_the_same_title_replaces_the_content() {
    let ws = workspace().await;
    memory::write(&ws.ctx, &Caller::ui(&ws.ctx), "colour", "blue")
        .await
        .unwrap();
    let again = memory::write(&ws.ctx, &Caller::ui(&ws.ctx), "colour", "green")
        .await
        .unwrap();
    assert_eq!(again.content, "green");
    assert_eq!(
        memory::list(&ws.ctx, &Caller::ui(&ws.ctx), None, None)
            .await
            .unwrap()
            .len(),
        1
    );
    assert!(
        memory::search(&ws.ctx, &Caller::ui(&ws.ctx), "blue", None)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        memory::search(&ws.ctx, &Caller::ui(&ws.ctx), "green", None)
            .await
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn h26_without_a_user_the_workspace_owner_is_meant() {
    let ws = workspace().await;
    let mine = memory::write(&ws.ctx, &Caller::ui(&ws.ctx), "idea", "a hive of agents")
        .await
        .unwrap();
    assert_eq!(mine.user_id, ws.ctx.owner());
    assert_eq!(
        memory::read(&ws.ctx, &Caller::cli(&ws.ctx, Some(ws.ctx.owner())), "idea")
            .await
            .unwrap()
            .id,
        mine.id
    );
}

#[tokio::test]
async fn h26_search_ranks_by_bm25_and_returns_highlighted_snippets() {
    let ws = workspace().await;
    memory::write(
        &ws.ctx,
        &Caller::cli(&ws.ctx, Some("ana")),
        "viaje",
        "Viaje a Lisboa en mayo; presupuesto de hotel 120 por noche.",
    )
    .await
    .unwrap();
    memory::write(
        &ws.ctx,
        &Caller::cli(&ws.ctx, Some("ana")),
        "hotel",
        "Hotel favorito: uno con vistas al río. El hotel tiene desayuno.",
    )
    .await
    .unwrap();
    memory::write(
        &ws.ctx,
        &Caller::cli(&ws.ctx, Some("ana")),
        "perro",
        "El perro se llama Tula.",
    )
    .await
    .unwrap();
    let hits = memory::search(&ws.ctx, &Caller::cli(&ws.ctx, Some("ana")), "hotel", None)
        .await
        .unwrap();
    assert_eq!(hits.len(), 2);
    assert_eq!(
        hits[0].memory.title, "hotel",
        "title and frequency rank it first"
    );
    assert!(
        hits[0]
            .snippet
            .iter()
            .any(|p| p.highlighted && p.text.eq_ignore_ascii_case("hotel"))
    );
    // Accents and case are folded; the last word also matches as a prefix.
    assert_eq!(
        memory::search(&ws.ctx, &Caller::cli(&ws.ctx, Some("ana")), "LISBOA", None)
            .await
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        memory::search(&ws.ctx, &Caller::cli(&ws.ctx, Some("ana")), "rio", None)
            .await
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        memory::search(&ws.ctx, &Caller::cli(&ws.ctx, Some("ana")), "tu", None)
            .await
            .unwrap()[0]
            .memory
            .title,
        "perro"
    );
}

#[tokio::test]
async fn h26_bad_users_and_titles_are_refused() {
    let ws = workspace().await;
    let err = memory::write(&ws.ctx, &Caller::cli(&ws.ctx, Some("ana:admin")), "x", "y")
        .await
        .unwrap_err();
    assert_eq!(err.field(), Some("userId"));
    let err = memory::write(&ws.ctx, &Caller::cli(&ws.ctx, Some("ana")), "  ", "y")
        .await
        .unwrap_err();
    assert_eq!(err.field(), Some("title"));
}
