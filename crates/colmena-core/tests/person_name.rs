//! What the person is called (issue 37: the first run asks "What should we
//! call you?"): their name on the bus and as a user; another author's name
//! is refused, as is an empty one; the author's id does not change, so mail
//! and tokens keep working.

#![allow(clippy::unwrap_used)]

mod support;

use colmena_core::ErrorCode;
use colmena_core::inbox::{self, NewAuthor};

#[tokio::test]
async fn the_person_names_themselves_and_keeps_their_id() {
    let ws = support::workspace().await;
    let ctx = &ws.ctx;
    let me = ctx.owner().to_owned();
    inbox::authors::create(
        ctx,
        NewAuthor {
            name: "Ambrosio".into(),
            ..Default::default()
        },
    )
    .await
    .unwrap();

    let named = inbox::authors::set_person_name(ctx, &me, "  Ana  ")
        .await
        .unwrap();
    assert_eq!(named.name, "Ana");
    assert_eq!(named.id, me, "the id stays: mail and tokens keep working");
    let listed = inbox::authors::directory(ctx).await.unwrap();
    assert!(listed.iter().any(|a| a.id == me && a.name == "Ana"));
    let users = colmena_core::users::list(ctx).await.unwrap();
    assert!(users.iter().any(|u| u.id == me && u.name == "Ana"));

    let taken = inbox::authors::set_person_name(ctx, &me, "ambrosio")
        .await
        .unwrap_err();
    assert_eq!(taken.code, ErrorCode::Conflict);
    let empty = inbox::authors::set_person_name(ctx, &me, "   ")
        .await
        .unwrap_err();
    assert_eq!(empty.code, ErrorCode::Validation);
    // Its own name again, in other letters, is not someone else's.
    inbox::authors::set_person_name(ctx, &me, "ANA")
        .await
        .unwrap();
}
