//! Results lead somewhere (issue 37, item 3): a finished run goes on in a
//! conversation with the agent that wrote it (a swarm's, with its
//! orchestrator or first member), or out as markdown; only its person may,
//! and only once it has an answer. Real runs against the scripted provider.

#![allow(clippy::unwrap_used)]

mod support;

use colmena_core::caller::{Actor, Caller, Client};
use colmena_core::conversations::{self, MessageRole};
use colmena_core::runtime::agent::{AgentRunOptions, run_agent};
use colmena_core::runtime::follow_up;
use colmena_core::swarms::run::{SwarmRunOptions, run as run_swarm};
use colmena_core::swarms::{self, MemberInput, MemberRole, NewSwarm, Strategy};
use colmena_core::{ErrorCode, users};
use colmena_scripted_llm::Rule;
use support::hive::{agent, hive, when_system};

const WRITER: &str = "You write the news.";

#[tokio::test]
async fn a_result_goes_on_in_a_chat_and_out_as_markdown_for_its_person_only() {
    let (ws, _llm) = hive(vec![
        Rule::text("Bees make honey.")
            .when(when_system(WRITER))
            .repeat(),
    ])
    .await;
    let ctx = &ws.ctx;
    let me = Caller::ui(ctx);
    let writer = agent(ctx, "Redactora", WRITER, &[]).await;
    let run = run_agent(
        ctx,
        &writer,
        "Write about bees",
        AgentRunOptions::default(),
        support::no_events(),
    )
    .await
    .unwrap();

    let talk = follow_up::continue_in_chat(ctx, &me, &run.id)
        .await
        .unwrap();
    assert_eq!(talk.agent_id.as_deref(), Some(writer.as_str()));
    let history = conversations::history(ctx, &talk.id).await.unwrap();
    let said: Vec<(MessageRole, &str)> = history
        .iter()
        .map(|m| (m.role, m.content.as_str()))
        .collect();
    assert_eq!(
        said,
        [
            (MessageRole::User, "Write about bees"),
            (MessageRole::Assistant, "Bees make honey.")
        ]
    );

    let document = follow_up::as_markdown(ctx, &me, &run.id).await.unwrap();
    assert_eq!(document.file_name, "redactora.md");
    assert_eq!(
        document.markdown,
        "# Redactora\n\n> Write about bees\n\nBees make honey.\n"
    );
    let file = ws.dir.path().join("out.md");
    document.write_to(&file).unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), document.markdown);

    // A swarm's result goes on with its first member (no orchestrator).
    swarms::create(
        ctx,
        NewSwarm {
            name: "Prensa".into(),
            strategy: Some(Strategy::Sequential),
            members: vec![MemberInput {
                agent_id: writer.clone(),
                order_index: None,
                role: Some(MemberRole::Member),
            }],
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let team = run_swarm(
        ctx,
        "prensa",
        "Cover the fair",
        SwarmRunOptions::default(),
        support::no_events(),
    )
    .await
    .unwrap();
    let with_team = follow_up::continue_in_chat(ctx, &me, &team.id)
        .await
        .unwrap();
    assert_eq!(with_team.agent_id.as_deref(), Some(writer.as_str()));

    // Another person's run is not found for them.
    users::create(ctx, "Ana").await.unwrap();
    let ana = Caller {
        actor: Actor::Person {
            user: "ana".into(),
            author: None,
        },
        client: Client::Cli,
    };
    let err = follow_up::continue_in_chat(ctx, &ana, &run.id)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
}

#[tokio::test]
async fn a_run_without_an_answer_has_nothing_to_follow_up() {
    let ws = support::workspace().await;
    let ctx = &ws.ctx;
    // No model anywhere: the run fails at once.
    let lone = agent(ctx, "Sola", "x", &[]).await;
    let run = run_agent(
        ctx,
        &lone,
        "hi",
        AgentRunOptions::default(),
        support::no_events(),
    )
    .await
    .unwrap();
    let err = follow_up::continue_in_chat(ctx, &Caller::ui(ctx), &run.id)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Precondition);
    assert_eq!(err.details.unwrap()["reason"], "no_result");
}
