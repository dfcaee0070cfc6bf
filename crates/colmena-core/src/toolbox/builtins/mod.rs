//! The code behind the built-in tools: every tool of the catalog runs here
//! for real — the minimal tools (delegate, list agents, search, skills,
//! memory, notify) and the file, data, document, shell, git, web, bus,
//! image and scheduling tools. A tool that needs something the person sets up first
//! (`web_search`'s service) says exactly how, and nothing else.

mod data;
mod docs;
mod files;
mod shell;

use serde_json::{Value, json};

use crate::agents::{self, Agent};
use crate::contracts::{self, hive};
use crate::ctx::{Notice, NoticeTopic};
use crate::error::{AppError, ErrorCode, Result};
use crate::ids::AgentId;
use crate::runs::context::RunContext;
use crate::skills;

/// Deepest chain of delegations (an agent delegating to one that delegates…).
pub const MAX_DEPTH: u32 = 3;

fn text(args: &Value, key: &str) -> String {
    args[key].as_str().unwrap_or_default().to_owned()
}

pub(crate) async fn call(
    rc: &RunContext,
    agent: &Agent,
    name: &str,
    args: &Value,
) -> Result<String> {
    let ctx = &rc.ctx;
    let me = rc.caller();
    match name {
        "delegate_task" => delegate(rc, agent, args).await,
        "list_agents" => list_agents(rc, agent).await,
        "search_catalog" => json_of(hive::search_catalog(ctx, &me, parse(args)?).await?),
        "load_skill" => {
            let skill = skills::get(ctx, &text(args, "name")).await?;
            if !skill.active {
                return Err(AppError::precondition(format!(
                    "skill '{}' is switched off",
                    skill.id
                )));
            }
            Ok(format!(
                "# {}\n\n{}\n\n{}",
                skill.id, skill.description, skill.body
            ))
        }
        "memory_search" => json_of(hive::memory_search(ctx, &me, parse(args)?).await?),
        "memory_read" => Ok(hive::memory_read(ctx, &me, parse(args)?).await?.content),
        "memory_write" => {
            let saved = hive::memory_write(ctx, &me, parse(args)?).await?;
            Ok(format!("saved memory '{}'", saved.title))
        }
        "notify_user" => {
            // The text is the agent's — perhaps an outsider's words it read
            // in its mail — so the notice says whose it is, and a run nobody
            // watches never raises an urgent one.
            let from = rc.wake_role.clone().unwrap_or_else(|| agent.id.to_string());
            let urgent = rc.attended && args["urgent"].as_bool().unwrap_or(false);
            ctx.notify(Notice {
                title: text(args, "title"),
                body: text(args, "body"),
                urgent,
                from: Some(agent.id.to_string()),
                topic: Some(NoticeTopic::AgentMessage {
                    from,
                    unattended: !rc.attended,
                }),
            });
            Ok(if urgent || !args["urgent"].as_bool().unwrap_or(false) {
                "the user was notified".to_owned()
            } else {
                "the user was notified (not as urgent: nobody watches this run)".to_owned()
            })
        }
        "send_message" | "read_inbox" | "list_sent" => bus(rc, name, args).await,
        "web_fetch" => {
            let (max_bytes, timeout) =
                (args["max_bytes"].as_u64(), args["timeout_seconds"].as_u64());
            crate::net_guard::fetch::fetch(
                &text(args, "url"),
                max_bytes,
                timeout,
                // The agent's grant, read fresh: a change applies to the next call.
                crate::permissions::local_network_allowed(ctx, &agent.id, &rc.delegators).await?,
                &rc.cancel,
            )
            .await
        }
        "fs_list" | "fs_read" | "fs_write" | "fs_search" | "fs_move" | "fs_delete" => {
            files::call(&files::workspace(ctx, &agent.id)?, name, args)
        }
        "doc_outline" => Ok(docs::outline(&text(args, "markdown"))),
        "doc_stats" => Ok(docs::stats(&text(args, "text"))),
        "cli_exec" => {
            shell::exec(
                &files::workspace(ctx, &agent.id)?,
                args,
                // Read fresh, as for web_fetch.
                crate::permissions::local_network_allowed(ctx, &agent.id, &rc.delegators).await?,
                &rc.cancel,
            )
            .await
        }
        "git_status" | "git_diff" | "git_log" | "git_commit" => {
            shell::git(&files::workspace(ctx, &agent.id)?, name, args, &rc.cancel).await
        }
        "web_search" => {
            crate::web_search::run_tool(
                ctx,
                &text(args, "query"),
                args["limit"].as_u64(),
                &rc.cancel,
            )
            .await
        }
        "data_query_csv" | "data_describe" | "data_chart" => {
            data::call(files::workspace(ctx, &agent.id)?, name, args, &rc.cancel).await
        }
        "image_metadata" => {
            let artifact =
                crate::images::metadata(ctx, &rc.user_id, &text(args, "artifact_id")).await?;
            Ok(serde_json::to_string_pretty(&artifact)?)
        }
        "image_transform" => {
            let spec = crate::images::Transform {
                crop: serde_json::from_value(args["crop"].clone()).ok(),
                width: args["width"].as_u64().map(|w| w as u32),
                height: args["height"].as_u64().map(|h| h as u32),
                format: args["format"].as_str().map(str::to_owned),
            };
            let artifact =
                crate::images::transform(ctx, &rc.user_id, &text(args, "artifact_id"), spec)
                    .await?;
            Ok(serde_json::to_string_pretty(&artifact)?)
        }
        n if n.starts_with("cron_") => scheduling(ctx, n, args).await,
        other => Err(AppError::new(
            ErrorCode::NotFound,
            format!("no code runs the tool '{other}'"),
        )),
    }
}

async fn delegate(rc: &RunContext, agent: &Agent, args: &Value) -> Result<String> {
    let target = AgentId::from(text(args, "agent_id").as_str());
    if target == agent.id {
        return Err(AppError::invalid_field(
            "agent_id",
            "self_delegation",
            "an agent cannot delegate to itself",
        ));
    }
    match &rc.delegates {
        Some(members) if !members.iter().any(|m| m == target.as_str()) => {
            return Err(AppError::invalid_field(
                "agent_id",
                "not_a_member",
                format!(
                    "'{target}' is not a member of this swarm; members: {}",
                    members.join(", ")
                ),
            ));
        }
        Some(_) => {}
        // Outside a swarm: only the agents a person listed for this one —
        // a page or a message it read cannot pick any agent of the
        // workspace, with that agent's tools and rules.
        None if !agent.delegates.iter().any(|d| d == target.as_str()) => {
            let listed = if agent.delegates.is_empty() {
                "none yet".to_owned()
            } else {
                agent.delegates.join(", ")
            };
            return Err(AppError::invalid_field(
                "agent_id",
                "not_listed",
                format!(
                    "'{}' may hand work only to the agents listed in its settings ({listed}); \
                     '{target}' is not one of them. A person can list it under the agent's \
                     \"Hands work to\".",
                    agent.id
                ),
            ));
        }
        None => {}
    }
    if rc.depth >= MAX_DEPTH {
        return Err(AppError::precondition(format!(
            "delegation is limited to {MAX_DEPTH} levels"
        )));
    }
    crate::runtime::agent::delegate(rc, &agent.id, &target, &text(args, "task")).await
}

/// The agents this run may hand work to: the swarm's members, else the
/// ones listed for the agent.
async fn list_agents(rc: &RunContext, agent: &Agent) -> Result<String> {
    let all = agents::list(&rc.ctx).await?;
    let reachable = rc.delegates.as_ref().unwrap_or(&agent.delegates);
    let listed: Vec<Value> = all
        .iter()
        .filter(|a| a.enabled)
        .filter(|a| reachable.iter().any(|id| id == a.id.as_str()))
        .map(|a| json!({ "id": a.id, "name": a.name, "description": a.description }))
        .collect();
    Ok(serde_json::to_string_pretty(&listed)?)
}

/// The bus tools: the run speaks as the woken role, never as someone the
/// model names.
async fn bus(rc: &RunContext, name: &str, args: &Value) -> Result<String> {
    if rc.author.is_none() {
        return Err(AppError::precondition(format!(
            "{name} works only when a role is woken: this run has no bus identity"
        )));
    }
    let (ctx, me) = (&rc.ctx, rc.caller());
    match name {
        "send_message" => {
            let sent = contracts::bus::send_message(ctx, &me, parse(args)?).await?;
            Ok(format!("sent message {} to {}", sent.id, sent.to))
        }
        "read_inbox" => json_of(contracts::bus::read_inbox(ctx, &me, parse(args)?).await?),
        _ => json_of(contracts::bus::list_sent(ctx, &me, parse(args)?).await?),
    }
}

/// The scheduling tools: the jobs of the workspace (SPEC H25).
async fn scheduling(ctx: &crate::ctx::Ctx, name: &str, args: &Value) -> Result<String> {
    use contracts::cron;
    match name {
        "cron_create" => json_of(cron::create(ctx, parse(args)?).await?),
        "cron_list" => json_of(cron::list(ctx).await?),
        "cron_update" => json_of(cron::update(ctx, parse(args)?).await?),
        "cron_pause" => json_of(cron::pause(ctx, parse(args)?).await?),
        "cron_resume" => json_of(cron::resume(ctx, parse(args)?).await?),
        "cron_trigger" => json_of(cron::trigger(ctx, parse(args)?).await?),
        "cron_history" => json_of(cron::history(ctx, parse(args)?).await?),
        "cron_delete" => cron::delete(ctx, parse(args)?).await,
        other => Err(AppError::new(
            ErrorCode::NotFound,
            format!("no code runs the tool '{other}'"),
        )),
    }
}

/// A tool's arguments as its operation's contract.
fn parse<T: serde::de::DeserializeOwned>(args: &Value) -> Result<T> {
    contracts::parse(args.clone())
}

fn json_of<T: serde::Serialize>(value: T) -> Result<String> {
    Ok(serde_json::to_string_pretty(&value)?)
}
