//! Chat on a par (issue 37, item 5), for real against the scripted
//! provider: a reopened conversation still has each answer's tools and
//! tokens; editing a message forks the conversation (the original kept,
//! images and earlier answers copied); a conversation answers with the
//! model chosen for it, on the wire; search finds a conversation by its
//! words (wildcards literal) with the line that matched; a conversation
//! exports as Markdown.

#![allow(clippy::unwrap_used)]

mod support;

use colmena_core::ErrorCode;
use colmena_core::conversations::{self, MessageRole, branches, markdown, search};
use colmena_core::models::{self, NewModel};
use colmena_core::runtime::chat;
use colmena_scripted_llm::{Matcher, Rule};
use support::hive::{agent, hive, when, when_system};

const HELPER: &str = "You keep notes on bees.";

fn on_model(model: &str) -> Matcher {
    Matcher {
        system_contains: Some(HELPER.into()),
        model: Some(model.into()),
        ..Default::default()
    }
}

#[tokio::test]
async fn a_conversation_keeps_its_tools_forks_on_edit_switches_model_and_is_found() {
    let (ws, llm) = hive(vec![
        Rule::tool_call("memory_search", r#"{"query":"bees"}"#).when(when(HELPER, 0)),
        Rule::text("Nothing about bees yet.").when(when(HELPER, 1)),
        Rule::text("Answered by the big model.")
            .when(on_model("gpt-big"))
            .repeat(),
        Rule::text("Plain answer.")
            .when(when_system(HELPER))
            .repeat(),
    ])
    .await;
    let ctx = &ws.ctx;
    let helper = agent(ctx, "Apicultora", HELPER, &["memory_search"]).await;
    let talk = conversations::create_web_conversation(ctx, None, Some(helper.as_str()))
        .await
        .unwrap();
    chat::send(
        ctx,
        &talk.id,
        None,
        "What do we know about bees?",
        None,
        support::no_events(),
    )
    .await
    .unwrap();

    // Reopened: the answer still lists the tool it called, and its tokens.
    let history = conversations::history(ctx, &talk.id).await.unwrap();
    let answer = history
        .iter()
        .find(|m| m.role == MessageRole::Assistant)
        .unwrap();
    assert_eq!(answer.content, "Nothing about bees yet.");
    assert_eq!(answer.tools.len(), 1);
    assert_eq!(answer.tools[0].name, "memory_search");
    assert_eq!(answer.tools[0].arguments, r#"{"query":"bees"}"#);
    assert!(answer.tools[0].ok);
    assert!(answer.usage.is_some_and(|u| u.prompt_tokens.is_some()));
    let question = history
        .iter()
        .find(|m| m.role == MessageRole::User)
        .unwrap();
    assert!(question.tools.is_empty() && question.usage.is_none());

    chat::send(
        ctx,
        &talk.id,
        None,
        "And about 100% of wasps?",
        None,
        support::no_events(),
    )
    .await
    .unwrap();
    let history = conversations::history(ctx, &talk.id).await.unwrap();
    assert_eq!(history.len(), 4);

    // Editing the second question forks before it; the original is kept.
    let second = &history[2];
    let fork = branches::fork(ctx, &talk.id, second.id).await.unwrap();
    assert_ne!(fork.id, talk.id);
    assert_eq!(fork.forked_from.as_deref(), Some(talk.id.as_str()));
    assert_eq!(fork.agent_id, talk.agent_id);
    let copied = conversations::history(ctx, &fork.id).await.unwrap();
    let said: Vec<&str> = copied.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        said,
        ["What do we know about bees?", "Nothing about bees yet."]
    );
    assert_eq!(
        copied[1].tools.len(),
        1,
        "the copied answer keeps its tools"
    );
    assert_eq!(
        conversations::history(ctx, &talk.id).await.unwrap().len(),
        4
    );
    assert_eq!(
        conversations::get(ctx, &fork.id)
            .await
            .unwrap()
            .title
            .as_deref(),
        Some("What do we know about bees?")
    );

    // Only a question can be edited, and only one of this conversation.
    let refused = branches::fork(ctx, &talk.id, history[1].id)
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::Validation);
    let refused = branches::fork(ctx, &fork.id, history[2].id)
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::NotFound);

    // The fork answers with the model chosen for it, on the wire.
    let big = models::create(
        ctx,
        NewModel {
            provider_id: "scripted".into(),
            name: "gpt-big".into(),
            label: None,
        },
    )
    .await
    .unwrap();
    let switched = branches::set_model(ctx, &fork.id, Some(big.id.as_str()))
        .await
        .unwrap();
    assert_eq!(switched.model_id.as_deref(), Some(big.id.as_str()));
    let run = chat::send(
        ctx,
        &fork.id,
        None,
        "And about wasps?",
        None,
        support::no_events(),
    )
    .await
    .unwrap();
    assert_eq!(run.output.as_deref(), Some("Answered by the big model."));
    assert_eq!(llm.requests().last().unwrap().body["model"], "gpt-big");
    let unknown = branches::set_model(ctx, &fork.id, Some("scripted/nope"))
        .await
        .unwrap_err();
    assert_eq!(unknown.code, ErrorCode::NotFound);
    // Back to the agent's own (the default).
    branches::set_model(ctx, &fork.id, None).await.unwrap();
    chat::send(ctx, &fork.id, None, "Once more", None, support::no_events())
        .await
        .unwrap();
    assert_eq!(llm.requests().last().unwrap().body["model"], "gpt-test");

    // Search: by words in a message, case aside; `%` is literal.
    let hits = search::search(ctx, None, "WASPS").await.unwrap();
    assert_eq!(hits.len(), 2, "both conversations speak of wasps");
    assert_eq!(hits[0].conversation.id, fork.id, "newest first");
    assert!(hits.iter().all(|h| {
        h.snippet
            .as_deref()
            .is_some_and(|s| s.to_lowercase().contains("wasps"))
    }));
    let percent = search::search(ctx, None, "100%").await.unwrap();
    assert_eq!(percent.len(), 1);
    assert_eq!(percent[0].conversation.id, talk.id);
    assert!(search::search(ctx, None, "1%0").await.unwrap().is_empty());
    assert_eq!(
        search::search(ctx, None, "  ").await.unwrap_err().code,
        ErrorCode::Validation
    );

    // Export: the whole conversation as Markdown, who said what.
    let document = markdown::to_markdown(ctx, &talk.id).await.unwrap();
    assert_eq!(document.file_name, "what_do_we_know_about_bees.md");
    let text = &document.markdown;
    assert!(text.starts_with("# What do we know about bees?\n"));
    assert!(text.contains("## You · "));
    assert!(text.contains("## Apicultora · "));
    assert!(text.contains("_Used `memory_search`_\n\nNothing about bees yet."));
    assert!(text.contains("And about 100% of wasps?"));

    // Deleting the original leaves the fork, no longer pointing at it.
    conversations::delete(ctx, &talk.id).await.unwrap();
    let kept = conversations::get(ctx, &fork.id).await.unwrap();
    assert_eq!(kept.forked_from, None);
    assert_eq!(
        conversations::history(ctx, &fork.id).await.unwrap().len(),
        6
    );
}
