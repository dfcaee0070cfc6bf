//! Agent runs and swarms against the scripted provider (SPEC H6–H10, H42).

#![allow(clippy::unwrap_used)]

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use colmena_core::Caller;
use colmena_core::agents;
use colmena_core::ids::{AgentId, ModelId};
use colmena_core::models;
use colmena_core::models::resolve::RunCredentials;
use colmena_core::runs::context::{EventSink, RunEvent};
use colmena_core::runs::{self, RunStatus};
use colmena_core::runtime::agent::{AgentRunOptions, run_agent};
use colmena_core::swarms::run::{SwarmRunOptions, run as run_swarm};
use colmena_core::swarms::{self, MemberInput, MemberRole, NewSwarm, Strategy, SwarmUpdate};
use colmena_core::{ErrorCode, memory, setup, tools};
use colmena_scripted_llm::Rule;
use support::hive::{agent, collect, hive, when, when_system};
use support::workspace;

#[tokio::test]
async fn an_agent_uses_a_tool_and_every_step_streams_and_is_recorded() {
    let (ws, server) = hive(vec![
        Rule::tool_call("memory_write", r#"{"title":"color","content":"azul"}"#)
            .when(when("I remember", 0))
            .arguments_in_pieces(4),
        Rule::text("Saved: your colour is blue.").when(when("I remember", 1)),
    ])
    .await;
    let id = agent(&ws.ctx, "Rememberer", "I remember things.", &["memory_*"]).await;
    let (sink, events) = collect();
    let run = run_agent(
        &ws.ctx,
        &id,
        "Remember my colour is azul",
        AgentRunOptions::default(),
        sink,
    )
    .await
    .unwrap();

    assert_eq!(run.status, RunStatus::Completed, "{:?}", run.error);
    assert_eq!(run.output.as_deref(), Some("Saved: your colour is blue."));
    assert_eq!(
        memory::read(&ws.ctx, &Caller::ui(&ws.ctx), "color")
            .await
            .unwrap()
            .content,
        "azul",
        "the tool really ran"
    );
    assert!(run.usage.prompt_tokens.is_some_and(|n| n > 0));

    let events = events.lock().unwrap().clone();
    assert!(matches!(events.first(), Some(RunEvent::Started { .. })));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, RunEvent::ToolCall { name, .. } if name == "memory_write"))
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, RunEvent::ToolResult { ok: true, .. }))
    );
    assert!(
        events
            .iter()
            .filter(|e| matches!(e, RunEvent::TextDelta { .. }))
            .count()
            > 2
    );
    assert!(matches!(
        events.last(),
        Some(RunEvent::Finished {
            status: RunStatus::Completed,
            ..
        })
    ));

    let detail = runs::get(&ws.ctx, &run.id).await.unwrap();
    let kinds: Vec<&str> = detail.steps.iter().map(|s| s.kind.as_str()).collect();
    assert_eq!(kinds, ["message", "tool_result", "message"]);
    // The tool result went back to the model.
    let second = &server.requests()[1].body;
    assert_eq!(
        second["messages"].as_array().unwrap().last().unwrap()["role"],
        "tool"
    );
    // The agent's composed system prompt was sent.
    assert!(
        server.requests()[0].body["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("I remember things.")
    );
}

#[tokio::test]
async fn tool_arguments_that_break_the_schema_are_an_error_result_and_the_run_goes_on() {
    let (ws, _server) = hive(vec![
        Rule::tool_call("memory_write", r#"{"title": 42}"#).when(when("Sloppy", 0)),
        Rule::text("Sorry, I could not save it.").when(when("Sloppy", 1)),
    ])
    .await;
    let id = agent(&ws.ctx, "Sloppy", "Sloppy agent.", &["memory_*"]).await;
    let run = run_agent(
        &ws.ctx,
        &id,
        "save",
        AgentRunOptions::default(),
        support::no_events(),
    )
    .await
    .unwrap();
    assert_eq!(run.status, RunStatus::Completed);
    let detail = runs::get(&ws.ctx, &run.id).await.unwrap();
    let result = detail
        .steps
        .iter()
        .find(|s| s.kind == "tool_result")
        .unwrap();
    assert_eq!(result.content["ok"], false);
    let output = result.content["output"].as_str().unwrap();
    assert!(output.contains("break its schema"), "{output}");
    assert!(
        output.contains("/title") && output.contains("content"),
        "{output}"
    );
}

#[tokio::test]
async fn a_provider_that_refuses_the_key_fails_the_run_with_a_clear_recorded_error() {
    let (ws, _server) = hive(vec![
        Rule::error(401, "Incorrect API key provided").repeat(),
    ])
    .await;
    let id = agent(&ws.ctx, "Lonely", "x", &[]).await;
    let (sink, events) = collect();
    let run = run_agent(&ws.ctx, &id, "hi", AgentRunOptions::default(), sink)
        .await
        .unwrap();
    assert_eq!(run.status, RunStatus::Failed);
    let error = run.error.unwrap();
    assert_eq!(error.code, ErrorCode::Upstream);
    assert!(
        error.message.contains("refused the API key"),
        "{}",
        error.message
    );
    let detail = runs::get(&ws.ctx, &run.id).await.unwrap();
    assert_eq!(detail.steps.last().unwrap().kind, "error");
    assert!(
        events
            .lock()
            .unwrap()
            .iter()
            .any(|e| matches!(e, RunEvent::Error { .. }))
    );
}

#[tokio::test]
async fn h9_per_run_credentials_override_the_stored_key() {
    let (ws, server) = hive(vec![Rule::text("ok").repeat()]).await;
    let id = agent(&ws.ctx, "Tenant", "x", &[]).await;
    run_agent(
        &ws.ctx,
        &id,
        "hi",
        AgentRunOptions::default(),
        support::no_events(),
    )
    .await
    .unwrap();
    let options = AgentRunOptions {
        credentials: Some(RunCredentials {
            api_key: Some("sk-tenant-key-999".into()),
            base_url: None,
        }),
        ..AgentRunOptions::default()
    };
    run_agent(&ws.ctx, &id, "hi", options, support::no_events())
        .await
        .unwrap();
    let seen: Vec<String> = server
        .requests()
        .iter()
        .map(|r| r.headers["authorization"].to_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        seen,
        [
            "Bearer sk-stored-key-0123456789",
            "Bearer sk-tenant-key-999"
        ]
    );
}

#[tokio::test]
async fn an_agent_without_a_model_fails_clearly() {
    let ws = workspace().await;
    let id = agent(&ws.ctx, "Nomodel", "x", &[]).await;
    let run = run_agent(
        &ws.ctx,
        &id,
        "hi",
        AgentRunOptions::default(),
        support::no_events(),
    )
    .await
    .unwrap();
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(run.error.unwrap().details.unwrap()["reason"], "no_default");
}

fn members(ids: &[(&AgentId, MemberRole)]) -> Vec<MemberInput> {
    ids.iter()
        .map(|(id, role)| MemberInput {
            agent_id: (*id).clone(),
            order_index: None,
            role: Some(*role),
        })
        .collect()
}

#[tokio::test]
async fn h7_validation_happens_on_save() {
    let (ws, _server) = hive(vec![]).await;
    let a = agent(&ws.ctx, "Uno", "x", &[]).await;
    let b = agent(&ws.ctx, "Dos", "x", &[]).await;
    let err = swarms::create(
        &ws.ctx,
        NewSwarm {
            name: "Sin jefe".into(),
            strategy: Some(Strategy::Hierarchical),
            members: members(&[(&a, MemberRole::Member), (&b, MemberRole::Member)]),
            ..Default::default()
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    assert_eq!(err.details.as_ref().unwrap()["reason"], "no_orchestrator");

    let ghost = AgentId::from("fantasma");
    let err = swarms::create(
        &ws.ctx,
        NewSwarm {
            name: "Con fantasma".into(),
            strategy: Some(Strategy::Sequential),
            members: members(&[(&a, MemberRole::Member), (&ghost, MemberRole::Member)]),
            ..Default::default()
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    assert_eq!(err.message, "unknown agents: fantasma");
    assert!(
        swarms::list(&ws.ctx).await.unwrap().is_empty(),
        "nothing was saved"
    );
}

#[tokio::test]
async fn h8_a_disabled_swarm_does_not_run() {
    let (ws, server) = hive(vec![Rule::text("ok").repeat()]).await;
    let a = agent(&ws.ctx, "Uno", "x", &[]).await;
    let saved = swarms::create(
        &ws.ctx,
        NewSwarm {
            name: "S".into(),
            strategy: Some(Strategy::Sequential),
            members: members(&[(&a, MemberRole::Member)]),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    swarms::switch(&ws.ctx, &saved.swarm.id, Some(false))
        .await
        .unwrap();
    let err = run_swarm(
        &ws.ctx,
        &saved.swarm.id,
        "go",
        SwarmRunOptions::default(),
        support::no_events(),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Precondition);
    assert!(err.message.contains("disabled"));
    assert!(server.requests().is_empty(), "no model was called");
    assert!(
        runs::list(&ws.ctx, Default::default())
            .await
            .unwrap()
            .is_empty(),
        "no run was recorded"
    );
}

#[tokio::test]
async fn h10_saving_reports_what_is_pending_and_activating_is_a_union() {
    let (ws, _server) = hive(vec![]).await;
    setup::ensure_db(
        &ws.ctx,
        setup::Specialists::Only(vec!["browser_operator".into()]),
    )
    .await
    .unwrap();
    let researcher = AgentId::from("web_researcher");
    let engineer = AgentId::from("software_engineer");
    let saved = swarms::create(
        &ws.ctx,
        NewSwarm {
            name: "Equipo mixto".into(),
            strategy: Some(Strategy::Sequential),
            members: members(&[
                (&researcher, MemberRole::Member),
                (&engineer, MemberRole::Member),
            ]),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(
        saved.pending_activation.agents,
        ["software_engineer", "web_researcher"]
    );
    assert!(
        saved
            .pending_activation
            .tools
            .contains(&"cli_exec".to_owned())
    );
    assert!(
        !saved
            .pending_activation
            .tools
            .contains(&"web_fetch".to_owned()),
        "already active for browser_operator"
    );
    assert!(
        !tools::get(&ws.ctx, "cli_exec").await.unwrap().active,
        "saving switched nothing on"
    );

    // update_swarm goes the same way; with activate_members the union is switched on.
    let saved = swarms::update(
        &ws.ctx,
        &saved.swarm.id,
        SwarmUpdate {
            activate_members: true,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert!(
        saved.pending_activation.is_empty(),
        "{:?}",
        saved.pending_activation
    );
    assert!(tools::get(&ws.ctx, "cli_exec").await.unwrap().active);
    let enabled = setup::list_enabled_catalog_agents(&ws.ctx).await.unwrap();
    assert!(
        enabled.contains(&"browser_operator".to_owned()),
        "another swarm's specialist stays on"
    );
    assert!(tools::get(&ws.ctx, "web_fetch").await.unwrap().active);
}

#[tokio::test]
async fn a_sequential_swarm_feeds_each_output_to_the_next_member() {
    let (ws, server) = hive(vec![
        Rule::text("Draft: bees are great.").when(when_system("You draft.")),
        Rule::text("Final: bees are truly great.").when(when_system("You edit.")),
    ])
    .await;
    let a = agent(&ws.ctx, "Redactor", "You draft.", &[]).await;
    let b = agent(&ws.ctx, "Editor", "You edit.", &[]).await;
    let saved = swarms::create(
        &ws.ctx,
        NewSwarm {
            name: "Cadena".into(),
            strategy: Some(Strategy::Sequential),
            members: members(&[(&a, MemberRole::Member), (&b, MemberRole::Member)]),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let run = run_swarm(
        &ws.ctx,
        &saved.swarm.id,
        "Write about bees",
        SwarmRunOptions::default(),
        support::no_events(),
    )
    .await
    .unwrap();
    assert_eq!(run.status, RunStatus::Completed, "{:?}", run.error);
    assert_eq!(run.output.as_deref(), Some("Final: bees are truly great."));
    let second_input = server.requests()[1].body["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        second_input.contains("Draft: bees are great."),
        "{second_input}"
    );
    let history = runs::list(
        &ws.ctx,
        runs::RunFilter {
            target_id: Some(saved.swarm.id.clone()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(history.len(), 1);
}

#[tokio::test]
async fn a_parallel_swarm_runs_members_at_once_and_joins_them_each_failing_alone() {
    let (ws, _server) = hive(vec![
        Rule::text("Pros: fast.")
            .when(when_system("You argue for."))
            .slow(100),
        Rule::error(500, "model crashed")
            .when(when_system("You argue against."))
            .repeat(),
    ])
    .await;
    let a = agent(&ws.ctx, "Pro", "You argue for.", &[]).await;
    let b = agent(&ws.ctx, "Contra", "You argue against.", &[]).await;
    let saved = swarms::create(
        &ws.ctx,
        NewSwarm {
            name: "Debate".into(),
            strategy: Some(Strategy::Parallel),
            members: members(&[(&a, MemberRole::Member), (&b, MemberRole::Member)]),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let run = run_swarm(
        &ws.ctx,
        &saved.swarm.id,
        "Trains?",
        SwarmRunOptions::default(),
        support::no_events(),
    )
    .await
    .unwrap();
    assert_eq!(run.status, RunStatus::Completed, "{:?}", run.error);
    let output = run.output.unwrap();
    assert!(
        output.contains("## pro") && output.contains("Pros: fast."),
        "{output}"
    );
    assert!(
        output.contains("## contra") && output.contains("failed"),
        "{output}"
    );
}

#[tokio::test]
async fn a_hierarchical_swarm_whose_orchestrator_delegates_to_two_members_runs_end_to_end() {
    let (ws, server) = hive(vec![
        Rule::tool_call(
            "delegate_task",
            r#"{"agent_id":"investigadora","task":"Find three facts about bees"}"#,
        )
        .when(when("You lead.", 0)),
        Rule::tool_call(
            "delegate_task",
            r#"{"agent_id":"redactora","task":"Write a tweet from the facts"}"#,
        )
        .when(when("You lead.", 1)),
        Rule::text("Here is the tweet: Bees dance to talk. 🐝").when(when("You lead.", 2)),
        Rule::text("1. Bees dance. 2. Bees see UV. 3. Bees make honey.")
            .when(when_system("You research.")),
        Rule::text("Bees dance to talk. 🐝").when(when_system("You write.")),
    ])
    .await;
    let lead = agent(&ws.ctx, "Jefa", "You lead.", &[]).await;
    let a = agent(&ws.ctx, "Investigadora", "You research.", &[]).await;
    let b = agent(&ws.ctx, "Redactora", "You write.", &[]).await;
    let saved = swarms::create(
        &ws.ctx,
        NewSwarm {
            name: "Colmena de prensa".into(),
            strategy: Some(Strategy::Hierarchical),
            members: members(&[
                (&lead, MemberRole::Orchestrator),
                (&a, MemberRole::Member),
                (&b, MemberRole::Member),
            ]),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let (sink, events) = collect();
    let run = run_swarm(
        &ws.ctx,
        &saved.swarm.id,
        "Make a tweet about bees",
        SwarmRunOptions::default(),
        sink,
    )
    .await
    .unwrap();
    assert_eq!(run.status, RunStatus::Completed, "{:?}", run.error);
    assert_eq!(
        run.output.as_deref(),
        Some("Here is the tweet: Bees dance to talk. 🐝")
    );

    let detail = runs::get(&ws.ctx, &run.id).await.unwrap();
    let children: Vec<&str> = detail
        .children
        .iter()
        .map(|c| c.target_id.as_str())
        .collect();
    assert_eq!(children, ["investigadora", "redactora"]);
    assert!(
        detail
            .children
            .iter()
            .all(|c| c.status == RunStatus::Completed)
    );
    let results: Vec<&serde_json::Value> = detail
        .steps
        .iter()
        .filter(|s| s.kind == "tool_result")
        .map(|s| &s.content)
        .collect();
    assert_eq!(results.len(), 2);
    assert!(
        results[0]["output"]
            .as_str()
            .unwrap()
            .contains("Bees make honey")
    );
    // Each member's steps streamed to the caller, tagged with the member.
    let agents_streaming: std::collections::BTreeSet<String> = events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| {
            if let RunEvent::TextDelta { agent_id, .. } = e {
                Some(agent_id.clone())
            } else {
                None
            }
        })
        .collect();
    assert_eq!(
        agents_streaming.into_iter().collect::<Vec<_>>(),
        ["investigadora", "jefa", "redactora"]
    );
    // The orchestrator was offered the delegate tool and told who its members are.
    let first = &server.requests()[0].body;
    assert!(
        first["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["function"]["name"] == "delegate_task")
    );
    assert!(
        first["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("`investigadora`")
    );
}

#[tokio::test]
async fn an_orchestrator_cannot_delegate_outside_its_swarm() {
    let (ws, _server) = hive(vec![
        Rule::tool_call("delegate_task", r#"{"agent_id":"extrana","task":"x"}"#)
            .when(when("You lead.", 0)),
        Rule::text("ok, I will do it myself").when(when("You lead.", 1)),
    ])
    .await;
    let lead = agent(&ws.ctx, "Jefa", "You lead.", &[]).await;
    let a = agent(&ws.ctx, "Miembro", "x", &[]).await;
    agent(&ws.ctx, "Extrana", "x", &[]).await;
    let saved = swarms::create(
        &ws.ctx,
        NewSwarm {
            name: "H".into(),
            strategy: Some(Strategy::Hierarchical),
            members: members(&[(&lead, MemberRole::Orchestrator), (&a, MemberRole::Member)]),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let run = run_swarm(
        &ws.ctx,
        &saved.swarm.id,
        "go",
        SwarmRunOptions::default(),
        support::no_events(),
    )
    .await
    .unwrap();
    let detail = runs::get(&ws.ctx, &run.id).await.unwrap();
    let result = detail
        .steps
        .iter()
        .find(|s| s.kind == "tool_result")
        .unwrap();
    assert_eq!(result.content["ok"], false);
    assert!(
        result.content["output"]
            .as_str()
            .unwrap()
            .contains("not a member")
    );
    assert!(detail.children.is_empty());
}

#[tokio::test]
async fn a_swarm_referring_to_a_deleted_agent_fails_with_a_clear_recorded_error() {
    let (ws, _server) = hive(vec![Rule::text("ok").repeat()]).await;
    let a = agent(&ws.ctx, "Uno", "x", &[]).await;
    let b = agent(&ws.ctx, "Borrado", "x", &[]).await;
    let saved = swarms::create(
        &ws.ctx,
        NewSwarm {
            name: "S".into(),
            strategy: Some(Strategy::Sequential),
            members: members(&[(&a, MemberRole::Member), (&b, MemberRole::Member)]),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    agents::delete(&ws.ctx, &b).await.unwrap();
    let run = run_swarm(
        &ws.ctx,
        &saved.swarm.id,
        "go",
        SwarmRunOptions::default(),
        support::no_events(),
    )
    .await
    .unwrap();
    assert_eq!(run.status, RunStatus::Failed);
    let error = run.error.unwrap();
    assert!(
        error.message.contains("'borrado' no longer exists"),
        "{}",
        error.message
    );
    assert_eq!(
        swarms::get(&ws.ctx, &saved.swarm.id)
            .await
            .unwrap()
            .members
            .len(),
        2,
        "the swarm itself is untouched"
    );
}

#[tokio::test]
async fn cancelling_a_run_stops_it_and_its_stream() {
    // A stream of at least 25 s (100 words, 250 ms apart): cancelled well
    // before its end on any machine.
    let words: Vec<String> = (1..=100).map(|n| format!("w{n}")).collect();
    let (ws, server) = hive(vec![Rule::text(&words.join(" ")).slow(250)]).await;
    let id = agent(&ws.ctx, "Slow", "x", &[]).await;
    let ctx = ws.ctx.clone();
    let started = Arc::new(tokio::sync::Notify::new());
    let signal = Arc::clone(&started);
    let sink: EventSink = Arc::new(move |e| {
        if matches!(e, RunEvent::TextDelta { .. }) {
            signal.notify_one();
        }
    });
    let handle = tokio::spawn(async move {
        run_agent(&ctx, &id, "talk", AgentRunOptions::default(), sink).await
    });
    // Hang guards, not timing claims.
    tokio::time::timeout(Duration::from_secs(60), started.notified())
        .await
        .expect("the run never streamed");
    let running = runs::list(
        &ws.ctx,
        runs::RunFilter {
            status: Some(RunStatus::Running),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    runs::cancel(&ws.ctx, &running[0].id).await.unwrap();
    let run = tokio::time::timeout(Duration::from_secs(60), handle)
        .await
        .expect("the cancelled run never ended")
        .unwrap()
        .unwrap();
    assert_eq!(run.status, RunStatus::Cancelled);
    // The server notices the dropped stream at its next write.
    let deadline = Instant::now() + Duration::from_secs(60);
    while server.disconnects() == 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(server.disconnects(), 1);
    assert_eq!(server.completed(), 0, "the stream was read to its end");
    assert_eq!(
        runs::cancel(&ws.ctx, &run.id).await.unwrap_err().code,
        ErrorCode::Precondition
    );
}

#[tokio::test]
async fn a_model_that_never_stops_calling_tools_is_stopped_at_the_step_limit() {
    let (ws, _server) = hive(vec![
        Rule::tool_call("memory_search", r#"{"query":"x"}"#).repeat(),
    ])
    .await;
    let id = agent(&ws.ctx, "Loopy", "x", &["memory_search"]).await;
    let run = run_agent(
        &ws.ctx,
        &id,
        "go",
        AgentRunOptions::default(),
        support::no_events(),
    )
    .await
    .unwrap();
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(run.error.unwrap().details.unwrap()["reason"], "step_limit");
}

#[tokio::test]
async fn the_default_model_follows_a_rename_and_goes_with_a_delete() {
    let (ws, _server) = hive(vec![]).await;
    let old = ModelId::from("scripted/gpt-test");
    let renamed = models::rename(&ws.ctx, &old, "gpt-next").await.unwrap();
    assert_eq!(
        models::default_model(&ws.ctx).await.unwrap(),
        Some(renamed.id.clone())
    );
    models::delete(&ws.ctx, &renamed.id).await.unwrap();
    assert_eq!(models::default_model(&ws.ctx).await.unwrap(), None);
}
