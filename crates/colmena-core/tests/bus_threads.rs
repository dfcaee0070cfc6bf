//! Conversations on the bus (issue 15, item 4): a message may answer
//! another between the same two authors, a thread reads back whole, a
//! person marks mail unread again, and clients that never send `reply_to`
//! see the bus as before. A third author can neither answer into nor read a
//! pair's thread, and learns nothing by trying.

#![allow(clippy::unwrap_used)]

mod support;

use colmena_core::caller::Client;
use colmena_core::inbox::messages::ConversationQuery;
use colmena_core::inbox::{self, Caller, InboxQuery, Message, SendMessage};
use colmena_core::{Ctx, ErrorCode};
use support::bus::send;

async fn reply(
    ctx: &Ctx,
    caller: &Caller,
    from: &str,
    to: &str,
    body: &str,
    to_id: &str,
) -> colmena_core::Result<Message> {
    inbox::messages::send(
        ctx,
        caller,
        from,
        to,
        SendMessage {
            body: body.into(),
            priority: None,
            reply_to: Some(to_id.into()),
            message_id: None,
        },
    )
    .await
}

async fn unread_of(ctx: &Ctx, author: &str) -> u32 {
    inbox::authors::list(ctx)
        .await
        .unwrap()
        .into_iter()
        .find(|a| a.id == author)
        .unwrap()
        .unread
}

fn ids(list: &[Message]) -> Vec<&str> {
    list.iter().map(|m| m.id.as_str()).collect()
}

#[tokio::test]
async fn a_thread_stays_between_its_two_authors() {
    let ws = support::workspace().await;
    let ctx = &ws.ctx;
    for name in ["Ana", "Beto", "Cora"] {
        support::bus::author(ctx, name, None).await;
    }
    let ui = Caller::ui(ctx);
    let first = send(ctx, "ana", "beto", "¿Revisas el plan?", "normal").await;
    assert_eq!(first.thread_root, None, "no thread until someone answers");
    let answer = reply(ctx, &ui, "beto", "ana", "Sí, mañana", &first.id)
        .await
        .unwrap();
    assert_eq!(answer.reply_to.as_deref(), Some(first.id.as_str()));
    assert_eq!(answer.thread_root.as_deref(), Some(first.id.as_str()));
    let again = reply(ctx, &ui, "ana", "beto", "Gracias", &answer.id)
        .await
        .unwrap();
    assert_eq!(again.thread_root.as_deref(), Some(first.id.as_str()));

    // Both ends read the whole thread, oldest first, from any message.
    for (who, from) in [
        ("ana", &again.id),
        ("beto", &first.id),
        ("beto", &answer.id),
    ] {
        let thread = inbox::messages::thread(ctx, &ui, who, from).await.unwrap();
        assert_eq!(
            ids(&thread),
            vec![first.id.as_str(), answer.id.as_str(), again.id.as_str()]
        );
    }
    // An answer to the wrong recipient is refused: it goes to the other end.
    let astray = reply(ctx, &ui, "beto", "cora", "¿Y tú?", &first.id)
        .await
        .unwrap_err();
    assert_eq!(astray.code, ErrorCode::Validation, "{astray:?}");

    // Cora, with her own token: not part of it. Answering into it and
    // reading it both fail exactly like a message that does not exist.
    let cora = colmena_core::inbox::authors::caller_as(ctx, "cora", Client::Http)
        .await
        .unwrap();
    let intruding = reply(ctx, &cora, "cora", "ana", "Yo también", &answer.id)
        .await
        .unwrap_err();
    let missing = reply(ctx, &cora, "cora", "ana", "Yo también", "msg_nonexistent")
        .await
        .unwrap_err();
    // To an author that does not exist, a made-up answer says the same as
    // to one that does: nothing tells the two apart.
    let nobody = reply(
        ctx,
        &cora,
        "cora",
        "no-such-author",
        "Hola",
        "msg_nonexistent",
    )
    .await
    .unwrap_err();
    assert_eq!(nobody.code, missing.code, "{nobody:?}");
    assert_eq!(nobody.message, missing.message);
    assert_eq!(nobody.details, missing.details);
    // Nor a real message of the sender's, used as `reply_to` towards an
    // author who is not in its conversation: existing or not, the same.
    let own = inbox::messages::send(
        ctx,
        &cora,
        "cora",
        "ana",
        SendMessage {
            body: "Una pregunta".into(),
            priority: None,
            reply_to: None,
            message_id: None,
        },
    )
    .await
    .unwrap();
    let to_beto = reply(ctx, &cora, "cora", "beto", "Hola", &own.id)
        .await
        .unwrap_err();
    let to_nobody = reply(ctx, &cora, "cora", "no-such-author", "Hola", &own.id)
        .await
        .unwrap_err();
    assert_eq!(to_beto.code, to_nobody.code, "{to_beto:?} {to_nobody:?}");
    assert_eq!(to_beto.message, to_nobody.message);
    assert_eq!(to_beto.details, to_nobody.details);
    // By name (as MCP clients write), a made-up answer to a name nobody
    // has says the same as to one that exists.
    let by_name = inbox::messages::send_to_name(
        ctx,
        &cora,
        "cora",
        "Nadie Nunca",
        SendMessage {
            body: "Hola".into(),
            priority: None,
            reply_to: Some("msg_nonexistent".into()),
            message_id: None,
        },
    )
    .await
    .unwrap_err();
    assert_eq!(by_name.code, missing.code, "{by_name:?}");
    assert_eq!(by_name.message, missing.message);
    assert_eq!(intruding.code, ErrorCode::NotFound, "{intruding:?}");
    assert_eq!(intruding.code, missing.code);
    assert_eq!(intruding.details.as_ref().unwrap()["field"], "reply_to");
    assert!(
        !intruding.message.contains("beto") && !intruding.message.contains("Ana"),
        "{intruding:?}"
    );
    let peeking = inbox::messages::thread(ctx, &cora, "cora", &first.id)
        .await
        .unwrap_err();
    assert_eq!(peeking.code, ErrorCode::NotFound, "{peeking:?}");
    // Nor as Ana with Cora's token.
    let posing = inbox::messages::thread(ctx, &cora, "ana", &first.id)
        .await
        .unwrap_err();
    assert_eq!(posing.code, ErrorCode::Forbidden, "{posing:?}");
    // Nothing of Cora's attempts reached the thread.
    let thread = inbox::messages::thread(ctx, &ui, "ana", &first.id)
        .await
        .unwrap();
    assert_eq!(thread.len(), 3);

    // The conversation between the pair: newest first, a page at a time.
    let page = inbox::messages::conversation(
        ctx,
        &ui,
        "ana",
        "beto",
        ConversationQuery {
            before: None,
            limit: Some(2),
        },
    )
    .await
    .unwrap();
    assert_eq!(ids(&page), vec![again.id.as_str(), answer.id.as_str()]);
    let rest = inbox::messages::conversation(
        ctx,
        &ui,
        "ana",
        "beto",
        ConversationQuery {
            before: Some(answer.id.clone()),
            limit: Some(2),
        },
    )
    .await
    .unwrap();
    assert_eq!(ids(&rest), vec![first.id.as_str()]);

    // Deleting a message keeps the rest of the thread together.
    inbox::messages::delete(ctx, &ui, "beto", &answer.id)
        .await
        .unwrap();
    let thread = inbox::messages::thread(ctx, &ui, "beto", &again.id)
        .await
        .unwrap();
    assert_eq!(ids(&thread), vec![first.id.as_str(), again.id.as_str()]);
}

#[tokio::test]
async fn mark_unread_restores_the_count_and_only_for_the_recipient() {
    let ws = support::workspace().await;
    let ctx = &ws.ctx;
    for name in ["Ana", "Beto", "Cora"] {
        support::bus::author(ctx, name, None).await;
    }
    let ui = Caller::ui(ctx);
    let one = send(ctx, "ana", "beto", "uno", "normal").await;
    let two = send(ctx, "ana", "beto", "dos", "normal").await;
    assert_eq!(unread_of(ctx, "beto").await, 2);
    let read = InboxQuery {
        peek: Some(false),
        ..Default::default()
    };
    assert_eq!(
        inbox::messages::inbox(ctx, &ui, "beto", read.clone())
            .await
            .unwrap()
            .len(),
        2
    );
    assert_eq!(unread_of(ctx, "beto").await, 0);

    // The sender cannot mark the recipient's mail: ignored, not an error
    // that tells it the message exists. Another author's token is refused.
    assert_eq!(
        inbox::messages::mark_unread(ctx, &ui, "ana", vec![one.id.clone()])
            .await
            .unwrap(),
        0
    );
    let cora = colmena_core::inbox::authors::caller_as(ctx, "cora", Client::Cursor)
        .await
        .unwrap();
    let refused = inbox::messages::mark_unread(ctx, &cora, "beto", vec![one.id.clone()])
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::Forbidden);
    assert_eq!(unread_of(ctx, "beto").await, 0);

    // The recipient marks one unread: it counts again and is read again.
    let marked = inbox::messages::mark_unread(
        ctx,
        &ui,
        "beto",
        vec![one.id.clone(), "msg_nonexistent".into()],
    )
    .await
    .unwrap();
    assert_eq!(marked, 1);
    assert_eq!(unread_of(ctx, "beto").await, 1);
    let again = inbox::messages::inbox(ctx, &ui, "beto", read)
        .await
        .unwrap();
    assert_eq!(ids(&again), vec![one.id.as_str()]);
    // Marking what is unread already changes nothing.
    inbox::messages::mark_unread(ctx, &ui, "beto", vec![two.id.clone()])
        .await
        .unwrap();
    assert_eq!(
        inbox::messages::mark_unread(ctx, &ui, "beto", vec![two.id.clone()])
            .await
            .unwrap(),
        0
    );
    assert_eq!(unread_of(ctx, "beto").await, 1);
    // One request marks at most 1,000: more is a clear error, not a stall.
    let many: Vec<String> = (0..1001).map(|n| format!("msg_{n}")).collect();
    let too_many = inbox::messages::mark_unread(ctx, &ui, "beto", many.clone())
        .await
        .unwrap_err();
    assert_eq!(too_many.code, ErrorCode::Validation);
    assert_eq!(too_many.details.as_ref().unwrap()["field"], "ids");
    let too_many = inbox::messages::mark_read(ctx, &ui, "beto", many)
        .await
        .unwrap_err();
    assert_eq!(too_many.code, ErrorCode::Validation);
}

#[tokio::test]
async fn clients_that_never_answer_see_the_bus_as_before() {
    let ws = support::workspace().await;
    let ctx = &ws.ctx;
    for name in ["Ana", "Beto"] {
        support::bus::author(ctx, name, None).await;
    }
    let ui = Caller::ui(ctx);
    let sent = send(ctx, "ana", "beto", "hola", "urgent").await;
    assert_eq!(
        (sent.reply_to.as_deref(), sent.thread_root.as_deref()),
        (None, None)
    );
    // A message in no thread is a thread of one.
    let alone = inbox::messages::thread(ctx, &ui, "beto", &sent.id)
        .await
        .unwrap();
    assert_eq!(ids(&alone), vec![sent.id.as_str()]);
    // An old client's JSON (no reply_to) still parses and sends.
    let old: SendMessage =
        serde_json::from_str(r#"{"body": "sin hilo", "priority": "normal"}"#).unwrap();
    let plain = inbox::messages::send(ctx, &ui, "beto", "ana", old)
        .await
        .unwrap();
    assert_eq!(plain.reply_to, None);
    let inbox = inbox::messages::inbox(ctx, &ui, "beto", InboxQuery::default())
        .await
        .unwrap();
    assert_eq!(ids(&inbox), vec![sent.id.as_str()]);
    assert!(inbox[0].read_at.is_some(), "reading marks read, as before");
}
