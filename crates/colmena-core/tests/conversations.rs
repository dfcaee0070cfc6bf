//! Conversations over the real store (SPEC H39–H44): the composite view,
//! its lifecycle, eventual consistency of the catalog, resuming a run whose
//! process died, and routing channel identities to users.

#![allow(clippy::unwrap_used)]

mod support;

use std::time::Duration;

use colmena_core::ErrorCode;
use colmena_core::conversations::{self, ListOptions, MessageRole};
use colmena_core::runs::{self, RunStatus};
use colmena_core::runtime::{chat, resume};
use colmena_core::users::{self, ChannelIdentity, PairingStatus};
use colmena_scripted_llm::Rule;
use support::hive::{agent, hive, when};
use support::workspace;

/// Waits until `check` holds, polling; panics after a minute (a hang
/// guard, not a timing claim).
async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while std::time::Instant::now() < deadline {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("never happened: {what}");
}

#[tokio::test]
async fn h39_create_list_filter_and_with_runs_off_by_default() {
    let (ws, _server) = hive(vec![Rule::text("Hola.").repeat()]).await;
    let helper = agent(&ws.ctx, "Helper", "You help.", &[]).await;
    let web = conversations::create_web_conversation(&ws.ctx, None, Some(helper.as_str()))
        .await
        .unwrap();
    let telegram = conversations::create(&ws.ctx, None, "telegram", "12345", None)
        .await
        .unwrap();
    assert_eq!(telegram.id, format!("{}/telegram/12345", ws.ctx.owner()));
    assert_eq!(web.channel, "web");
    // Creating the same thread again is the same conversation.
    let again = conversations::create(&ws.ctx, None, "telegram", "12345", None)
        .await
        .unwrap();
    assert_eq!(again.id, telegram.id);

    let all = conversations::list(&ws.ctx, None, ListOptions::default())
        .await
        .unwrap();
    assert_eq!(all.len(), 2);
    let only_web = conversations::list(
        &ws.ctx,
        None,
        ListOptions {
            channel: Some("web".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(
        only_web.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
        [web.id.as_str()]
    );

    chat::send(&ws.ctx, &web.id, None, "Hi", None, support::no_events())
        .await
        .unwrap();
    let plain = conversations::list(&ws.ctx, None, ListOptions::default())
        .await
        .unwrap();
    assert!(
        plain.iter().all(|c| c.last_run.is_none()),
        "runs are left out unless asked for"
    );
    let with_runs = conversations::list(
        &ws.ctx,
        None,
        ListOptions {
            with_runs: true,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let web_row = with_runs.iter().find(|c| c.id == web.id).unwrap();
    assert_eq!(
        web_row.last_run.as_ref().unwrap().status,
        RunStatus::Completed
    );
    assert!(
        with_runs
            .iter()
            .find(|c| c.id == telegram.id)
            .unwrap()
            .last_run
            .is_none()
    );
}

#[tokio::test]
async fn h41_history_is_consistent_at_once_and_the_catalog_catches_up() {
    let ws = workspace().await;
    let c = conversations::create(&ws.ctx, None, "web", "one", None)
        .await
        .unwrap();
    conversations::append_message(
        &ws.ctx,
        &c.id,
        MessageRole::User,
        "Plan the launch of the spring newsletter\nwith all the details",
        None,
        None,
    )
    .await
    .unwrap();
    conversations::append_message(
        &ws.ctx,
        &c.id,
        MessageRole::Assistant,
        "Here is a plan.",
        None,
        None,
    )
    .await
    .unwrap();
    // History: immediately, in order.
    let history = conversations::history(&ws.ctx, &c.id).await.unwrap();
    assert_eq!(
        history.iter().map(|m| m.role).collect::<Vec<_>>(),
        [MessageRole::User, MessageRole::Assistant]
    );
    // The catalog row: eventually.
    let ctx = ws.ctx.clone();
    let id = c.id.clone();
    eventually("the catalog counts two messages and has a title", || {
        let (ctx, id) = (ctx.clone(), id.clone());
        async move {
            let row = conversations::get(&ctx, &id).await.unwrap();
            row.message_count == 2
                && row.title.as_deref() == Some("Plan the launch of the spring newsletter")
                && row.last_message_at.is_some()
        }
    })
    .await;

    // A title set by hand stays, whatever is written next.
    conversations::rename(&ws.ctx, &c.id, "Newsletter")
        .await
        .unwrap();
    conversations::append_message(&ws.ctx, &c.id, MessageRole::User, "More", None, None)
        .await
        .unwrap();
    eventually("the third message is counted", || {
        let (ctx, id) = (ctx.clone(), id.clone());
        async move { conversations::get(&ctx, &id).await.unwrap().message_count == 3 }
    })
    .await;
    assert_eq!(
        conversations::get(&ws.ctx, &c.id)
            .await
            .unwrap()
            .title
            .as_deref(),
        Some("Newsletter")
    );
    let err = conversations::rename(&ws.ctx, &c.id, "  ")
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    let err =
        conversations::append_message(&ws.ctx, "nobody/web/x", MessageRole::User, "hi", None, None)
            .await
            .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
}

#[tokio::test]
async fn h43_close_reopen_and_delete() {
    let ws = workspace().await;
    let c = conversations::create(&ws.ctx, None, "web", "one", None)
        .await
        .unwrap();
    conversations::append_message(&ws.ctx, &c.id, MessageRole::User, "keep me", None, None)
        .await
        .unwrap();
    conversations::close(&ws.ctx, &c.id).await.unwrap();
    assert!(
        conversations::list(&ws.ctx, None, ListOptions::default())
            .await
            .unwrap()
            .is_empty(),
        "a closed conversation leaves the list"
    );
    let archived = conversations::list(
        &ws.ctx,
        None,
        ListOptions {
            include_archived: true,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert!(archived[0].archived);
    assert_eq!(
        conversations::history(&ws.ctx, &c.id).await.unwrap().len(),
        1,
        "its history is kept"
    );
    conversations::reopen(&ws.ctx, &c.id).await.unwrap();
    assert_eq!(
        conversations::list(&ws.ctx, None, ListOptions::default())
            .await
            .unwrap()
            .len(),
        1
    );
    conversations::delete(&ws.ctx, &c.id).await.unwrap();
    let err = conversations::history(&ws.ctx, &c.id).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    let err = conversations::delete(&ws.ctx, &c.id).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
}

#[tokio::test]
async fn chatting_stores_both_sides_and_feeds_the_history_back() {
    let (ws, server) = hive(vec![
        Rule::text("Nice to meet you, Ana.").when(when("You help.", 0)),
        Rule::text("Your name is Ana.").when(when("You help.", 0)),
    ])
    .await;
    let helper = agent(&ws.ctx, "Helper", "You help.", &[]).await;
    let c = conversations::create_web_conversation(&ws.ctx, None, Some(helper.as_str()))
        .await
        .unwrap();
    let first = chat::send(&ws.ctx, &c.id, None, "I am Ana", None, support::no_events())
        .await
        .unwrap();
    assert_eq!(first.thread_id.as_deref(), Some(c.id.as_str()));
    chat::send(
        &ws.ctx,
        &c.id,
        None,
        "What is my name?",
        None,
        support::no_events(),
    )
    .await
    .unwrap();
    let history = conversations::history(&ws.ctx, &c.id).await.unwrap();
    assert_eq!(
        history
            .iter()
            .map(|m| (m.role, m.content.as_str()))
            .collect::<Vec<_>>(),
        [
            (MessageRole::User, "I am Ana"),
            (MessageRole::Assistant, "Nice to meet you, Ana."),
            (MessageRole::User, "What is my name?"),
            (MessageRole::Assistant, "Your name is Ana."),
        ]
    );
    assert_eq!(history[1].run_id.as_deref(), Some(first.id.as_str()));
    let second_request = &server.requests()[1].body["messages"];
    assert_eq!(
        second_request.as_array().unwrap().len(),
        4,
        "system + the earlier turn + the new message: {second_request}"
    );

    // A conversation without an agent asks for one.
    let bare = conversations::create_web_conversation(&ws.ctx, None, None)
        .await
        .unwrap();
    let err = chat::send(&ws.ctx, &bare.id, None, "hi", None, support::no_events())
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    assert!(
        conversations::history(&ws.ctx, &bare.id)
            .await
            .unwrap()
            .is_empty(),
        "nothing half-stored"
    );
}

#[tokio::test]
async fn h42_resume_is_none_normally_and_continues_an_interrupted_run_from_its_checkpoint() {
    let (ws, server) = hive(vec![
        Rule::tool_call(
            "memory_write",
            r#"{"title": "Launch date", "content": "The launch is on 3 March."}"#,
        )
        .when(when("You plan.", 0)),
        // The first answer after the tool never arrives: the process dies.
        Rule::text("This answer is never finished.")
            .slow(60_000)
            .when(when("You plan.", 1)),
        Rule::text("Saved: the launch is on 3 March.").when(when("You plan.", 1)),
    ])
    .await;
    let planner = agent(&ws.ctx, "Planner", "You plan.", &["memory_*"]).await;
    let c = conversations::create_web_conversation(&ws.ctx, None, Some(planner.as_str()))
        .await
        .unwrap();
    assert!(
        conversations::resume(&ws.ctx, &c.id)
            .await
            .unwrap()
            .is_none(),
        "nothing to resume in a new conversation"
    );

    let ctx = ws.ctx.clone();
    let thread = c.id.clone();
    let running = tokio::spawn(async move {
        chat::send(
            &ctx,
            &thread,
            None,
            "Remember the launch date",
            None,
            support::no_events(),
        )
        .await
    });
    // The model was asked again with the tool's result: the checkpoint
    // holding that result was saved just before (calls are checkpointed
    // before they run, results after).
    eventually("the run saved its checkpoint after the tool", || {
        let requests = server.requests();
        async move {
            requests.iter().any(|r| {
                r.body["messages"]
                    .as_array()
                    .is_some_and(|m| m.iter().any(|m| m["role"] == "tool"))
            })
        }
    })
    .await;
    assert!(
        conversations::resume(&ws.ctx, &c.id)
            .await
            .unwrap()
            .is_none(),
        "a run that is alive is not offered for resume"
    );

    // The process dies in the middle of the model's answer.
    running.abort();
    let _ = running.await;
    support::kill_lease_holders(ws.dir.path());

    // The next start notices and offers the run, with how far it got.
    let restarted = support::open(ws.dir.path()).await;
    let offer = conversations::resume(&restarted, &c.id)
        .await
        .unwrap()
        .expect("the interrupted run is offered");
    assert_eq!(offer.run.status, RunStatus::Interrupted);
    assert_eq!(offer.checkpoint_messages, 3, "user, tool call, tool result");
    assert_eq!(
        runs::resumable(&restarted)
            .await
            .unwrap()
            .iter()
            .map(|r| r.id.as_str())
            .collect::<Vec<_>>(),
        [offer.run.id.as_str()]
    );

    let done = resume::resume_run(&restarted, &offer.run.id, support::no_events())
        .await
        .unwrap();
    assert_eq!(done.status, RunStatus::Completed, "{:?}", done.error);
    assert_eq!(
        done.output.as_deref(),
        Some("Saved: the launch is on 3 March.")
    );
    // The tool ran once, before the crash; the resumed run went on from there.
    let writes = server
        .requests()
        .iter()
        .filter(|r| r.body["messages"].as_array().unwrap().len() == 2)
        .count();
    assert_eq!(writes, 1, "the first step was not repeated");
    let history = conversations::history(&restarted, &c.id).await.unwrap();
    assert_eq!(
        history.last().map(|m| (m.role, m.content.as_str())),
        Some((MessageRole::Assistant, "Saved: the launch is on 3 March."))
    );
    assert!(
        conversations::resume(&restarted, &c.id)
            .await
            .unwrap()
            .is_none()
    );
    let err = resume::resume_run(&restarted, &offer.run.id, support::no_events())
        .await
        .unwrap_err();
    assert_eq!(
        err.code,
        ErrorCode::Precondition,
        "a finished run is not resumed twice"
    );
}

#[tokio::test]
async fn h42_a_run_that_died_before_any_checkpoint_is_not_resumable() {
    let (ws, _server) = hive(vec![Rule::text("never").slow(60_000)]).await;
    let planner = agent(&ws.ctx, "Planner", "You plan.", &[]).await;
    let c = conversations::create_web_conversation(&ws.ctx, None, Some(planner.as_str()))
        .await
        .unwrap();
    let ctx = ws.ctx.clone();
    let thread = c.id.clone();
    let running = tokio::spawn(async move {
        chat::send(&ctx, &thread, None, "hello", None, support::no_events()).await
    });
    let ctx = ws.ctx.clone();
    eventually("the run started", || {
        let ctx = ctx.clone();
        async move {
            runs::list(&ctx, Default::default())
                .await
                .unwrap()
                .iter()
                .any(|r| r.status == RunStatus::Running)
        }
    })
    .await;
    running.abort();
    let _ = running.await;
    support::kill_lease_holders(ws.dir.path());

    let restarted = support::open(ws.dir.path()).await;
    assert!(
        conversations::resume(&restarted, &c.id)
            .await
            .unwrap()
            .is_none(),
        "no state was saved, so there is nothing to resume from"
    );
    let run = &runs::list(&restarted, Default::default()).await.unwrap()[0];
    assert_eq!(
        run.status,
        RunStatus::Interrupted,
        "but the crash is on record"
    );
    let err = resume::resume_run(&restarted, &run.id, support::no_events())
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Precondition);
    assert_eq!(err.details.unwrap()["reason"], "no_checkpoint");
}

#[tokio::test]
async fn h44_one_user_takes_new_identities_and_more_users_need_pairing() {
    let ws = workspace().await;
    let telegram = |id: &str| ChannelIdentity {
        channel: "telegram".into(),
        channel_user_id: id.into(),
        account_id: String::new(),
    };
    let first = conversations::resolve_context(&ws.ctx, telegram("111"))
        .await
        .unwrap();
    assert_eq!(first.user_id, ws.ctx.owner());
    assert!(first.is_new_user);
    assert_eq!(first.thread_id, format!("{}/telegram/111", ws.ctx.owner()));
    let again = conversations::resolve_context(&ws.ctx, telegram("111"))
        .await
        .unwrap();
    assert!(!again.is_new_user);
    assert_eq!(again.thread_id, first.thread_id);

    let maria = users::create(&ws.ctx, "María").await.unwrap();
    let err = conversations::resolve_context(&ws.ctx, telegram("222"))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Precondition);
    let details = err.details.clone().unwrap();
    assert_eq!(details["reason"], "pairing_required");
    let code = details["code"].as_str().unwrap().to_owned();
    assert!(err.message.contains(&code), "{}", err.message);
    // Writing again does not pile up requests.
    conversations::resolve_context(&ws.ctx, telegram("222"))
        .await
        .unwrap_err();
    let pending = users::pending_pairings(&ws.ctx).await.unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].code, code);
    // The known identity still goes straight through.
    conversations::resolve_context(&ws.ctx, telegram("111"))
        .await
        .unwrap();

    let approved = users::approve_pairing(&ws.ctx, &pending[0].id, &maria.id)
        .await
        .unwrap();
    assert_eq!(approved.status, PairingStatus::Approved);
    let routed = conversations::resolve_context(&ws.ctx, telegram("222"))
        .await
        .unwrap();
    assert_eq!(routed.user_id, maria.id);
    assert_eq!(routed.thread_id, format!("{}/telegram/222", maria.id));
    let err = users::approve_pairing(&ws.ctx, &pending[0].id, &maria.id)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);

    // A rejected stranger stays out, with a fresh code when they write again.
    conversations::resolve_context(&ws.ctx, telegram("333"))
        .await
        .unwrap_err();
    let request = users::pending_pairings(&ws.ctx).await.unwrap().remove(0);
    users::reject_pairing(&ws.ctx, &request.id).await.unwrap();
    let err = conversations::resolve_context(&ws.ctx, telegram("333"))
        .await
        .unwrap_err();
    assert_eq!(err.details.unwrap()["reason"], "pairing_required");

    let err = conversations::resolve_context(&ws.ctx, telegram(""))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
}
