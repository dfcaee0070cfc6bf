//! A workspace wired to the scripted provider, and small helpers for runs.

use std::sync::{Arc, Mutex};

use colmena_core::Ctx;
use colmena_core::agents::{self, NewAgent};
use colmena_core::ids::AgentId;
use colmena_core::models::{self, NewModel};
use colmena_core::providers::{self, NewProvider};
use colmena_core::runs::context::{EventSink, RunEvent};
use colmena_scripted_llm::{Matcher, Protocol, Rule, Script, ScriptedLlm};

use super::workspace;

/// A workspace whose default model is served by the scripted server.
pub async fn hive(rules: Vec<Rule>) -> (super::Workspace, ScriptedLlm) {
    let ws = workspace().await;
    let server = ScriptedLlm::start(Script { rules }).await.unwrap();
    providers::create(
        &ws.ctx,
        NewProvider {
            name: "Scripted".into(),
            kind: "openai".into(),
            base_url: Some(server.base_url(Protocol::OpenAi)),
            api_key: Some("sk-stored-key-0123456789".into()),
        },
    )
    .await
    .unwrap();
    let model = models::create(
        &ws.ctx,
        NewModel {
            provider_id: "scripted".into(),
            name: "gpt-test".into(),
            label: None,
        },
    )
    .await
    .unwrap();
    models::set_default_model(&ws.ctx, Some(model.id))
        .await
        .unwrap();
    (ws, server)
}

pub async fn agent(ctx: &Ctx, name: &str, prompt: &str, tools: &[&str]) -> AgentId {
    agents::create(
        ctx,
        NewAgent {
            name: name.into(),
            system_prompt: prompt.into(),
            tools: tools.iter().map(|t| (*t).to_owned()).collect(),
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .id
}

/// An agent whose every tool class is allowed, local network included: for
/// tests of what the tools do, not of the permission gate.
pub async fn trusted_agent(ctx: &Ctx, name: &str, prompt: &str, tools: &[&str]) -> AgentId {
    let id = agent(ctx, name, prompt, tools).await;
    let everything = colmena_core::permissions::Permissions {
        local_network: true,
        ..colmena_core::permissions::Permissions::allow_all()
    };
    colmena_core::permissions::set_agent_permissions(ctx, &id, everything)
        .await
        .unwrap();
    id
}

/// Lets `agent` hand work to `delegates` with `delegate_task` outside a
/// swarm (a person lists them in the agent's settings).
pub async fn hands_work_to(ctx: &Ctx, agent: &AgentId, delegates: &[&AgentId]) {
    agents::update(
        ctx,
        agent,
        agents::AgentUpdate {
            delegates: Some(delegates.iter().map(ToString::to_string).collect()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
}

pub fn when_system(text: &str) -> Matcher {
    Matcher {
        system_contains: Some(text.into()),
        ..Default::default()
    }
}

pub fn when(text: &str, tool_results: usize) -> Matcher {
    Matcher {
        system_contains: Some(text.into()),
        tool_results: Some(tool_results),
        ..Default::default()
    }
}

/// A sink that keeps every event.
pub fn collect() -> (EventSink, Arc<Mutex<Vec<RunEvent>>>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let keep = Arc::clone(&events);
    (Arc::new(move |e| keep.lock().unwrap().push(e)), events)
}
