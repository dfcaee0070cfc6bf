//! Full-text search over bus messages (issue 15, item 4): per author, up to
//! date without work in the send path, and never returning deleted mail or
//! mail of another author.

#![allow(clippy::unwrap_used)]

mod support;

use colmena_core::caller::Client;
use colmena_core::inbox::{self, Caller, search};
use colmena_core::{Ctx, ErrorCode};
use support::bus::send;

async fn ids(ctx: &Ctx, caller: &Caller, author: &str, query: &str) -> Vec<String> {
    search::search(ctx, caller, author, query, None)
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.id)
        .collect()
}

#[tokio::test]
async fn finds_by_word_only_in_the_searchers_own_mail() {
    let ws = support::workspace().await;
    let ctx = &ws.ctx;
    for name in ["Ana", "Beto", "Cora"] {
        support::bus::author(ctx, name, None).await;
    }
    let to_beto = send(
        ctx,
        "ana",
        "beto",
        "The quarterly budget is ready",
        "normal",
    )
    .await;
    let from_cora = send(
        ctx,
        "cora",
        "ana",
        "Diseño del presupuesto: budget v2",
        "normal",
    )
    .await;
    let between_others = send(
        ctx,
        "beto",
        "cora",
        "Secret budget for Ana's party",
        "normal",
    )
    .await;
    send(ctx, "ana", "cora", "Lunch on friday?", "normal").await;

    let ui = Caller::ui(ctx);
    let found = ids(ctx, &ui, "ana", "budget").await;
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found.contains(&to_beto.id) && found.contains(&from_cora.id));
    assert!(!found.contains(&between_others.id));
    // Accents folded, case ignored, all words required.
    assert_eq!(
        ids(ctx, &ui, "ana", "DISENO").await,
        vec![from_cora.id.clone()]
    );
    assert_eq!(
        ids(ctx, &ui, "ana", "budget quarterly").await,
        vec![to_beto.id.clone()]
    );
    assert!(ids(ctx, &ui, "ana", "budget lunch").await.is_empty());
    // Beto sees his side of it.
    let beto = ids(ctx, &ui, "beto", "budget").await;
    assert_eq!(beto.len(), 2);
    assert!(beto.contains(&to_beto.id) && beto.contains(&between_others.id));
    // The whole message comes back.
    let full = search::search(ctx, &ui, "ana", "quarterly", Some(1))
        .await
        .unwrap();
    assert_eq!(full[0].body, "The quarterly budget is ready");
    assert_eq!(
        (full[0].from.as_str(), full[0].to.as_str()),
        ("ana", "beto")
    );
}

#[tokio::test]
async fn mail_sent_after_a_first_search_is_found_and_deleted_mail_is_not() {
    let ws = support::workspace().await;
    let ctx = &ws.ctx;
    support::bus::author(ctx, "Ana", None).await;
    support::bus::author(ctx, "Beto", None).await;
    let ui = Caller::ui(ctx);
    let first = send(ctx, "ana", "beto", "first harvest report", "normal").await;
    assert_eq!(
        ids(ctx, &ui, "beto", "harvest").await,
        vec![first.id.clone()]
    );

    let second = send(ctx, "ana", "beto", "second harvest report", "normal").await;
    let found = ids(ctx, &ui, "beto", "harvest").await;
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found.contains(&second.id));

    // Deleting the newest message frees its seq for the next one (a rowid
    // without AUTOINCREMENT): the replacement must still be indexed.
    inbox::messages::delete(ctx, &ui, "ana", &second.id)
        .await
        .unwrap();
    let third = send(ctx, "ana", "beto", "third apple report", "normal").await;
    assert_eq!(
        ids(ctx, &ui, "beto", "harvest").await,
        vec![first.id.clone()]
    );
    assert_eq!(ids(ctx, &ui, "beto", "apple").await, vec![third.id.clone()]);
    assert!(!ids(ctx, &ui, "beto", "second").await.contains(&second.id));

    // Deleted without a search in between: the stale hit is never returned.
    inbox::messages::delete(ctx, &ui, "ana", &first.id)
        .await
        .unwrap();
    assert!(ids(ctx, &ui, "beto", "harvest").await.is_empty());
    assert_eq!(
        ids(ctx, &ui, "beto", "report").await,
        vec![third.id.clone()]
    );
}

#[tokio::test]
async fn the_index_survives_a_reopen_and_catches_up_from_its_watermark() {
    let ws = support::workspace().await;
    let ctx = &ws.ctx;
    support::bus::author(ctx, "Ana", None).await;
    support::bus::author(ctx, "Beto", None).await;
    for i in 0..5 {
        send(
            ctx,
            "ana",
            "beto",
            &format!("note {i} about bees"),
            "normal",
        )
        .await;
    }
    assert_eq!(search::catch_up(ctx).await.unwrap(), 5);
    assert_eq!(search::catch_up(ctx).await.unwrap(), 0);
    send(ctx, "beto", "ana", "more bees", "normal").await;
    assert_eq!(search::catch_up(ctx).await.unwrap(), 1);
    let found = search::search(ctx, &Caller::ui(ctx), "ana", "bees", Some(100))
        .await
        .unwrap();
    assert_eq!(found.len(), 6);
}

#[tokio::test]
async fn a_token_cannot_search_as_another_author_and_bad_input_is_a_clear_error() {
    let ws = support::workspace().await;
    let ctx = &ws.ctx;
    let ana = support::bus::author(ctx, "Ana", None).await;
    support::bus::author(ctx, "Beto", None).await;
    send(ctx, "beto", "ana", "hello there", "normal").await;
    let caller = colmena_core::inbox::authors::caller_from_token(ctx, &ana.token, Client::Http)
        .await
        .unwrap();
    let err = search::search(ctx, &caller, "beto", "hello", None)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Forbidden);
    assert_eq!(ids(ctx, &caller, "ana", "hello").await.len(), 1);

    for empty in ["", "   "] {
        let err = search::search(ctx, &caller, "ana", empty, None)
            .await
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Validation);
        assert_eq!(err.field(), Some("query"));
    }
    for limit in [0, 101] {
        let err = search::search(ctx, &caller, "ana", "hello", Some(limit))
            .await
            .unwrap_err();
        assert_eq!(err.field(), Some("limit"));
    }
    // An author that does not exist answers a token as another's does: no
    // token can list who is on the bus by trying names.
    let err = search::search(ctx, &caller, "nadie", "hello", None)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Forbidden);
}

#[tokio::test]
async fn odd_query_syntax_never_fails_or_reaches_other_fields() {
    let ws = support::workspace().await;
    let ctx = &ws.ctx;
    support::bus::author(ctx, "Ana", None).await;
    support::bus::author(ctx, "Beto", None).await;
    support::bus::author(ctx, "Cora", None).await;
    send(ctx, "ana", "beto", "hello \"quoted\" world", "normal").await;
    send(ctx, "beto", "cora", "hello from beto to cora", "normal").await;
    let ui = Caller::ui(ctx);
    for odd in [
        "\"unclosed",
        "AND OR",
        ":::",
        "owner:cora",
        "owner:beto hello",
        "id:*",
        "seq:[0 TO 99]",
        "((((",
        "*",
        "-hello",
        "body:hello",
        "héllo~2^3",
        "\\",
    ] {
        let found = search::search(ctx, &ui, "ana", odd, None).await;
        let found = found.unwrap_or_else(|e| panic!("{odd}: {e:?}"));
        assert!(
            found.iter().all(|m| m.from == "ana" || m.to == "ana"),
            "{odd}: {found:?}"
        );
    }
    assert_eq!(ids(ctx, &ui, "ana", "\"hello quoted\"").await.len(), 1);
}
