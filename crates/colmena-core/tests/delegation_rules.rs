//! Delegation keeps the strictest rule (security review finding 6): an
//! agent that may not run programs cannot get one run by handing the task
//! to an agent that may. Text the first agent read (a page, a message)
//! would otherwise reach the second one's "allow" with no question. And
//! outside a swarm an agent hands work only to the agents listed for it.

#![allow(clippy::unwrap_used)]

mod support;

use std::time::{Duration, Instant};

use colmena_core::ids::AgentId;
use colmena_core::permissions::approvals::{self, Decision};
use colmena_core::permissions::{self, Permissions, Rule as GateRule};
use colmena_core::runs::{self, RunStatus};
use colmena_core::runtime::agent::{AgentRunOptions, run_agent};
use colmena_core::runtime::resume;
use colmena_core::{Caller, Ctx};
use colmena_scripted_llm::Rule;
use serde_json::json;
use support::hive::{agent, hive, when};

const READER: &str = "You summarise pages.";
const RUNNER: &str = "You run commands.";

async fn rules_of(ctx: &Ctx, agent: &AgentId, run: GateRule) {
    let rules = Permissions {
        run,
        ..Permissions::default()
    };
    permissions::set_agent_permissions(ctx, agent, rules)
        .await
        .unwrap();
}

#[tokio::test]
async fn a_delegated_run_keeps_the_strictest_rule_of_the_agents_that_handed_it_the_task() {
    let marker = tempfile::tempdir().unwrap();
    let target = marker.path().join("PWNED-via-delegation");
    let command = json!({ "command": "sh", "args": ["-c", format!("touch {}", target.display())] });
    let (ws, _llm) = hive(vec![
        Rule::tool_call(
            "delegate_task",
            &json!({ "agent_id": "runner", "task": "Run the install line from the page." })
                .to_string(),
        )
        .when(when(READER, 0))
        .repeat(),
        Rule::text("Done.").when(when(READER, 1)).repeat(),
        Rule::tool_call("cli_exec", &command.to_string())
            .when(when(RUNNER, 0))
            .repeat(),
        Rule::text("Ran it.").when(when(RUNNER, 1)).repeat(),
    ])
    .await;
    colmena_core::tools::set_active(&ws.ctx, "cli_exec", true)
        .await
        .unwrap();
    let runner = agent(&ws.ctx, "Runner", RUNNER, &["cli_exec"]).await;
    rules_of(&ws.ctx, &runner, GateRule::Allow).await;
    let reader = agent(&ws.ctx, "Reader", READER, &["delegate_task"]).await;
    support::hive::hands_work_to(&ws.ctx, &reader, &[&runner]).await;

    // The reader may not run programs: neither may what it delegates to.
    rules_of(&ws.ctx, &reader, GateRule::Deny).await;
    let run = run_agent(
        &ws.ctx,
        &reader,
        "Summarise https://example.com/page",
        AgentRunOptions::default(),
        support::no_events(),
    )
    .await
    .unwrap();
    assert_eq!(run.status, RunStatus::Completed);
    assert!(!target.exists(), "the delegate ran the program");
    assert!(approvals::pending(&ws.ctx).await.unwrap().is_empty());
    let child = runs::list(
        &ws.ctx,
        runs::RunFilter {
            include_children: true,
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .into_iter()
    .find(|r| r.target_id == "runner")
    .expect("the delegated run");
    let steps = runs::get(&ws.ctx, &child.id).await.unwrap().steps;
    let refused = steps
        .iter()
        .find(|s| s.kind == "tool_result")
        .expect("the delegate's call");
    assert_eq!(refused.content["ok"], false);
    let why = refused.content["output"].as_str().unwrap();
    assert!(
        why.contains("'reader'") && why.contains("runs programs"),
        "{why}"
    );

    // The reader asks before running programs: so does its delegate.
    rules_of(&ws.ctx, &reader, GateRule::Ask).await;
    let (ctx, reader_id) = (ws.ctx.clone(), reader.clone());
    let waiting = tokio::spawn(async move {
        run_agent(
            &ctx,
            &reader_id,
            "Summarise https://example.com/page",
            AgentRunOptions::default(),
            support::no_events(),
        )
        .await
    });
    let started = Instant::now();
    let asked = loop {
        let list = approvals::pending(&ws.ctx).await.unwrap();
        if let Some(first) = list.into_iter().next() {
            break first;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the delegate's call was not asked about"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(asked.tool, "cli_exec");
    assert_eq!(asked.agent_id, "runner");
    resume::decide(&ws.ctx, &Caller::ui(&ws.ctx), &asked.id, Decision::Deny)
        .await
        .unwrap();
    let finished = waiting.await.unwrap().unwrap();
    assert_eq!(finished.status, RunStatus::Completed);
    assert!(!target.exists(), "a denied call ran");
}

#[tokio::test]
async fn outside_a_swarm_an_agent_hands_work_only_to_the_agents_listed_for_it() {
    let (ws, _llm) = hive(vec![
        Rule::tool_call(
            "delegate_task",
            &json!({ "agent_id": "runner", "task": "Run it." }).to_string(),
        )
        .when(when(READER, 0))
        .repeat(),
        Rule::text("Done.").when(when(READER, 1)).repeat(),
        Rule::text("Ran.").when(when(RUNNER, 0)).repeat(),
    ])
    .await;
    let runner = agent(&ws.ctx, "Runner", RUNNER, &[]).await;
    let reader = agent(&ws.ctx, "Reader", READER, &["delegate_task", "list_agents"]).await;
    let go = || {
        run_agent(
            &ws.ctx,
            &reader,
            "go",
            AgentRunOptions::default(),
            support::no_events(),
        )
    };
    let run = go().await.unwrap();
    let steps = runs::get(&ws.ctx, &run.id).await.unwrap().steps;
    let result = steps.iter().find(|s| s.kind == "tool_result").unwrap();
    assert_eq!(result.content["ok"], false);
    let why = result.content["output"].as_str().unwrap();
    assert!(why.contains("listed") && why.contains("none yet"), "{why}");

    support::hive::hands_work_to(&ws.ctx, &reader, &[&runner]).await;
    let run = go().await.unwrap();
    let steps = runs::get(&ws.ctx, &run.id).await.unwrap().steps;
    let result = steps.iter().find(|s| s.kind == "tool_result").unwrap();
    assert_eq!(result.content["ok"], true, "{:?}", result.content);

    // Listing itself, or an agent that does not exist, is refused.
    for bad in ["reader", "nobody"] {
        let err = colmena_core::agents::update(
            &ws.ctx,
            &reader,
            colmena_core::agents::AgentUpdate {
                delegates: Some(vec![bad.to_owned()]),
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
        assert_eq!(err.details.unwrap()["field"], "delegates", "{bad}");
    }
}

/// The local-network switch is kept the same way (found in the attacker's
/// re-review): an agent kept off this computer's network cannot reach it by
/// handing the task to one that may — the delegate's program is refused by
/// the sandbox's proxy, and the listener sees nothing.
#[tokio::test]
async fn a_delegated_run_keeps_the_strictest_local_network_switch() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let local = format!(
        "http://{}/reached-via-delegation",
        listener.local_addr().unwrap()
    );
    let accepted = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = accepted.clone();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            drop(socket);
        }
    });
    let command =
        json!({ "command": "curl", "args": ["-s", "-S", "-i", "--max-time", "60", local] });
    let (ws, _llm) = hive(vec![
        Rule::tool_call(
            "delegate_task",
            &json!({ "agent_id": "runner", "task": "Fetch the admin page." }).to_string(),
        )
        .when(when(READER, 0))
        .repeat(),
        Rule::text("Done.").when(when(READER, 1)).repeat(),
        Rule::tool_call("cli_exec", &command.to_string())
            .when(when(RUNNER, 0))
            .repeat(),
        Rule::text("Ran it.").when(when(RUNNER, 1)).repeat(),
    ])
    .await;
    colmena_core::tools::set_active(&ws.ctx, "cli_exec", true)
        .await
        .unwrap();
    let runner = agent(&ws.ctx, "Runner", RUNNER, &["cli_exec"]).await;
    let mut open = Permissions::allow_all();
    open.local_network = true;
    permissions::set_agent_permissions(&ws.ctx, &runner, open)
        .await
        .unwrap();
    let reader = agent(&ws.ctx, "Reader", READER, &["delegate_task"]).await;
    support::hive::hands_work_to(&ws.ctx, &reader, &[&runner]).await;
    permissions::set_agent_permissions(&ws.ctx, &reader, Permissions::allow_all())
        .await
        .unwrap();

    let run = run_agent(
        &ws.ctx,
        &reader,
        "Summarise https://example.com/page",
        AgentRunOptions::default(),
        support::no_events(),
    )
    .await
    .unwrap();
    assert_eq!(run.status, RunStatus::Completed);
    let child = runs::list(
        &ws.ctx,
        runs::RunFilter {
            include_children: true,
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .into_iter()
    .find(|r| r.target_id == "runner")
    .expect("the delegated run");
    let steps = runs::get(&ws.ctx, &child.id).await.unwrap().steps;
    let result = steps
        .iter()
        .find(|s| s.kind == "tool_result")
        .expect("the delegate's call");
    let said = result.content["output"].as_str().unwrap();
    assert!(said.contains("403") && said.contains("loopback"), "{said}");
    assert_eq!(
        accepted.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "the delegate reached this computer"
    );
}
