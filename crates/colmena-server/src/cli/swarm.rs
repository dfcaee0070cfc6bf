use clap::{Subcommand, ValueEnum};
use colmena_core::ids::AgentId;
use colmena_core::models::resolve::RunCredentials;
use colmena_core::runs::{self, RunFilter, RunKind};
use colmena_core::setup::ActivationPlan;
use colmena_core::swarms::run::{self as swarm_run, SwarmRunOptions};
use colmena_core::swarms::{
    self, MemberInput, MemberRole, NewSwarm, Strategy, Swarm, SwarmSaved, SwarmUpdate,
};
use colmena_core::{Ctx, Result};

use super::output::{Output, SwitchArgs, table, yes_no};
use super::runs::print_runs;
use super::stream::{RunPrinter, outcome, watch};

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum StrategyArg {
    Sequential,
    Parallel,
    Hierarchical,
}

impl From<StrategyArg> for Strategy {
    fn from(value: StrategyArg) -> Strategy {
        match value {
            StrategyArg::Sequential => Strategy::Sequential,
            StrategyArg::Parallel => Strategy::Parallel,
            StrategyArg::Hierarchical => Strategy::Hierarchical,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum SwarmCommand {
    /// List swarms.
    List,
    /// Show a swarm and its members in order.
    Show { id: String },
    /// Create a swarm; its id is derived from the name.
    Create {
        name: String,
        #[arg(long, value_enum)]
        strategy: StrategyArg,
        /// Member agents in order, comma-separated.
        #[arg(long, value_delimiter = ',', required = true)]
        members: Vec<String>,
        /// The member that delegates to the others (hierarchical).
        #[arg(long)]
        orchestrator: Option<String>,
        #[arg(long, default_value = "")]
        description: String,
        /// Switch on the specialists, tools and skills the members need.
        #[arg(long)]
        activate: bool,
    },
    /// Change a swarm; members given replace the old ones.
    Update {
        id: String,
        #[arg(long)]
        name: Option<String>,
        #[arg(long, value_enum)]
        strategy: Option<StrategyArg>,
        #[arg(long, value_delimiter = ',')]
        members: Option<Vec<String>>,
        #[arg(long, requires = "members")]
        orchestrator: Option<String>,
        #[arg(long)]
        description: Option<String>,
        #[arg(long)]
        activate: bool,
    },
    /// Switch a swarm on or off (flips it without --on/--off).
    Toggle {
        id: String,
        #[command(flatten)]
        switch: SwitchArgs,
    },
    /// Delete a swarm (its run history stays).
    Remove { id: String },
    /// Run a swarm on an input; its steps stream to stdout.
    Run {
        id: String,
        input: String,
        /// Read the API key for this run from this environment variable.
        #[arg(long, value_name = "VAR")]
        api_key_env: Option<String>,
        /// Act for this user (memories, notices).
        #[arg(long)]
        user: Option<String>,
    },
    /// Past runs of a swarm, most recent first.
    History {
        id: String,
        #[arg(long, default_value_t = 20)]
        limit: u32,
    },
}

fn member_inputs(members: Vec<String>, orchestrator: Option<&str>) -> Vec<MemberInput> {
    members
        .into_iter()
        .map(|agent| MemberInput {
            role: Some(if orchestrator == Some(agent.as_str()) {
                MemberRole::Orchestrator
            } else {
                MemberRole::Member
            }),
            agent_id: AgentId(agent),
            order_index: None,
        })
        .collect()
}

pub async fn run(ctx: &Ctx, out: &Output, command: SwarmCommand) -> Result<()> {
    match command {
        SwarmCommand::List => {
            let list = swarms::list(ctx).await?;
            out.emit(&list, |list| {
                table(
                    &["id", "name", "strategy", "members", "enabled"],
                    list.iter()
                        .map(|s| {
                            vec![
                                s.id.clone(),
                                s.name.clone(),
                                s.strategy.as_str().to_owned(),
                                s.members.len().to_string(),
                                yes_no(s.enabled),
                            ]
                        })
                        .collect(),
                )
            });
        }
        SwarmCommand::Show { id } => {
            let swarm = swarms::get(ctx, &id).await?;
            out.emit(&swarm, print_swarm);
        }
        SwarmCommand::Create {
            name,
            strategy,
            mut members,
            orchestrator,
            description,
            activate,
        } => {
            if let Some(o) = &orchestrator
                && !members.contains(o)
            {
                members.insert(0, o.clone());
            }
            let input = NewSwarm {
                members: member_inputs(members, orchestrator.as_deref()),
                name,
                description,
                strategy: Some(strategy.into()),
                layout: None,
                activate_members: activate,
            };
            let saved = swarms::create(ctx, input).await?;
            out.emit(&saved, |s| print_saved("created", s));
        }
        SwarmCommand::Update {
            id,
            name,
            strategy,
            members,
            orchestrator,
            description,
            activate,
        } => {
            let input = SwarmUpdate {
                name,
                description,
                strategy: strategy.map(Into::into),
                members: members.map(|m| member_inputs(m, orchestrator.as_deref())),
                layout: None,
                activate_members: activate,
            };
            let saved = swarms::update(ctx, &id, input).await?;
            out.emit(&saved, |s| print_saved("updated", s));
        }
        SwarmCommand::Toggle { id, switch } => {
            let swarm = swarms::switch(ctx, &id, switch.target()).await?;
            out.emit(&swarm, |s| {
                let state = if s.enabled { "enabled" } else { "disabled" };
                println!("swarm {} is {state}", s.id);
            });
        }
        SwarmCommand::Remove { id } => {
            swarms::delete(ctx, &id).await?;
            out.done(&format!("removed swarm {id}"));
        }
        SwarmCommand::Run {
            id,
            input,
            api_key_env,
            user,
        } => {
            let options = SwarmRunOptions {
                credentials: credentials_from_env(api_key_env.as_deref())?,
                user_id: user,
                client: Some(colmena_core::caller::Client::Cli),
            };
            let printer = RunPrinter::new(out.json);
            let run = watch(
                ctx,
                &printer,
                swarm_run::run(ctx, &id, &input, options, printer.sink()),
            )
            .await?;
            outcome(run, out.json)?;
        }
        SwarmCommand::History { id, limit } => {
            swarms::get(ctx, &id).await?;
            let filter = RunFilter {
                kind: Some(RunKind::Swarm),
                target_id: Some(id),
                limit: Some(limit),
                ..Default::default()
            };
            let list = runs::list(ctx, filter).await?;
            out.emit(&list, |list| print_runs(list));
        }
    }
    Ok(())
}

/// Per-run credentials from an environment variable, so the key is never
/// on the command line (where `ps` shows it).
pub fn credentials_from_env(var: Option<&str>) -> Result<Option<RunCredentials>> {
    let Some(var) = var else {
        return Ok(None);
    };
    let key = std::env::var(var).map_err(|_| {
        colmena_core::AppError::invalid_field(
            "apiKeyEnv",
            "unset",
            format!("the environment variable {var} is not set"),
        )
    })?;
    Ok(Some(RunCredentials {
        api_key: Some(key),
        base_url: None,
    }))
}

fn print_swarm(swarm: &Swarm) {
    let state = if swarm.enabled { "enabled" } else { "disabled" };
    println!(
        "{} — {} ({}, {state})",
        swarm.id,
        swarm.name,
        swarm.strategy.as_str()
    );
    if !swarm.description.is_empty() {
        println!("{}", swarm.description);
    }
    for member in &swarm.members {
        let role = match member.role {
            MemberRole::Orchestrator => " (orchestrator)",
            MemberRole::Member => "",
        };
        println!("  {}. {}{role}", member.order_index + 1, member.agent_id);
    }
}

fn print_saved(verb: &str, saved: &SwarmSaved) {
    println!("{verb} swarm {}", saved.swarm.id);
    print_pending(&saved.pending_activation);
}

fn print_pending(plan: &ActivationPlan) {
    if plan.is_empty() {
        return;
    }
    println!("its members still need, switched off now:");
    for (what, items) in [
        ("specialists", &plan.agents),
        ("tools", &plan.tools),
        ("skills", &plan.skills),
    ] {
        if !items.is_empty() {
            println!("  {what}: {}", items.join(", "));
        }
    }
    println!("switch them on with --activate");
}
