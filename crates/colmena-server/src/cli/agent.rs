use clap::Subcommand;
use colmena_core::agents::{self, Agent, AgentUpdate, NewAgent};
use colmena_core::ids::{AgentId, ModelId};
use colmena_core::permissions::{self, Risk, Rule};
use colmena_core::{Ctx, Result, prompt};

use colmena_core::runtime::agent::{AgentRunOptions, run_agent};

use super::output::{Output, table, yes_no};
use super::stream::{RunPrinter, outcome, watch};

#[derive(Debug, Subcommand)]
pub enum AgentCommand {
    /// Create an agent; its id is derived from the name ("Diseño" → diseno).
    Add {
        name: String,
        /// The model it uses (PROVIDER/NAME).
        #[arg(long)]
        model: Option<String>,
        #[arg(long, default_value = "")]
        description: String,
        #[arg(long, default_value = "")]
        system_prompt: String,
        /// Tool patterns, comma-separated globs (web_*,fs_read).
        #[arg(long, value_delimiter = ',')]
        tools: Vec<String>,
        /// Skills by name, comma-separated.
        #[arg(long, value_delimiter = ',')]
        skills: Vec<String>,
        /// MCP servers by id, comma-separated.
        #[arg(long, value_delimiter = ',')]
        mcp_servers: Vec<String>,
        /// The agents it may hand work to with delegate_task outside a
        /// swarm, comma-separated ids (none by default).
        #[arg(long, value_delimiter = ',')]
        delegates: Vec<String>,
        /// Create it disabled.
        #[arg(long)]
        disabled: bool,
    },
    /// List agents.
    List,
    /// Show one agent.
    Show {
        id: String,
    },
    /// The system prompt the agent runs with (its prompt, ethics, skills).
    Prompt {
        id: String,
    },
    /// Change an agent's name, description, prompt or whom it hands work to.
    Update {
        id: String,
        #[arg(long)]
        name: Option<String>,
        #[arg(long)]
        description: Option<String>,
        #[arg(long)]
        system_prompt: Option<String>,
        /// The agents it may hand work to outside a swarm, comma-separated
        /// ids; replaces the list ("" for none).
        #[arg(long, value_delimiter = ',', num_args = 0..)]
        delegates: Option<Vec<String>>,
    },
    /// Give an agent exactly these tool patterns.
    AssignTools {
        id: String,
        patterns: Vec<String>,
    },
    /// Give an agent exactly these skills.
    AssignSkills {
        id: String,
        skills: Vec<String>,
    },
    /// Give an agent exactly these MCP servers.
    AssignMcpServers {
        id: String,
        servers: Vec<String>,
    },
    /// Point an agent at another model (or at none with --none).
    SetModel {
        id: String,
        #[arg(required_unless_present = "none")]
        model: Option<String>,
        #[arg(long)]
        none: bool,
    },
    Enable {
        id: String,
    },
    Disable {
        id: String,
    },
    /// Delete an agent (its tools and skills stay).
    Remove {
        id: String,
    },
    /// Show or change what the permission gate does with each class of the
    /// agent's tools (allow, ask, deny).
    Permissions {
        id: String,
        #[arg(long, value_enum)]
        read: Option<RuleArg>,
        #[arg(long, value_enum)]
        write: Option<RuleArg>,
        #[arg(long, value_enum)]
        run: Option<RuleArg>,
        #[arg(long, value_enum)]
        network: Option<RuleArg>,
        #[arg(long, value_enum)]
        send: Option<RuleArg>,
        /// Tools that change other systems (HTTP endpoints that are not
        /// GET, remote MCP tools not marked read-only).
        #[arg(long, value_enum)]
        act: Option<RuleArg>,
        /// Let network tools reach loopback and private addresses.
        #[arg(long)]
        local_network: Option<bool>,
    },
    /// Run an agent once on an input; its steps stream to stdout.
    Run {
        id: String,
        input: String,
        /// Read the API key for this run from this environment variable.
        #[arg(long, value_name = "VAR")]
        api_key_env: Option<String>,
        #[arg(long)]
        user: Option<String>,
    },
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum RuleArg {
    Allow,
    Ask,
    Deny,
}

impl From<RuleArg> for Rule {
    fn from(value: RuleArg) -> Rule {
        match value {
            RuleArg::Allow => Rule::Allow,
            RuleArg::Ask => Rule::Ask,
            RuleArg::Deny => Rule::Deny,
        }
    }
}

pub async fn run(ctx: &Ctx, out: &Output, command: AgentCommand) -> Result<()> {
    match command {
        AgentCommand::Permissions {
            id,
            read,
            write,
            run,
            network,
            send,
            act,
            local_network,
        } => {
            let id = AgentId(id);
            let mut rules = permissions::agent_permissions(ctx, &id).await?;
            let changes = [
                (&mut rules.read, read),
                (&mut rules.write, write),
                (&mut rules.run, run),
                (&mut rules.network, network),
                (&mut rules.send, send),
                (&mut rules.act, act),
            ];
            let mut changed = local_network.is_some();
            for (rule, given) in changes {
                if let Some(given) = given {
                    *rule = given.into();
                    changed = true;
                }
            }
            rules.local_network = local_network.unwrap_or(rules.local_network);
            if changed {
                rules = permissions::set_agent_permissions(ctx, &id, rules).await?;
            }
            out.emit(&rules, |p| {
                for risk in Risk::ALL {
                    println!("{:<8} {}", risk.as_str(), p.rule(risk).as_str());
                }
                println!("local network: {}", yes_no(p.local_network));
            });
        }
        AgentCommand::Run {
            id,
            input,
            api_key_env,
            user,
        } => {
            let options = AgentRunOptions {
                credentials: super::swarm::credentials_from_env(api_key_env.as_deref())?,
                user_id: user,
                client: Some(colmena_core::caller::Client::Cli),
            };
            let printer = RunPrinter::new(out.json);
            let agent = AgentId(id);
            let run = run_agent(ctx, &agent, &input, options, printer.sink());
            outcome(watch(ctx, &printer, run).await?, out.json)?;
        }
        AgentCommand::Add {
            name,
            model,
            description,
            system_prompt,
            tools,
            skills,
            mcp_servers,
            delegates,
            disabled,
        } => {
            let input = NewAgent {
                name,
                description,
                system_prompt,
                model_id: model.map(ModelId),
                tools,
                skills,
                mcp_servers,
                delegates,
                enabled: Some(!disabled),
                ..Default::default()
            };
            let agent = agents::create(ctx, input).await?;
            out.emit(&agent, |a| {
                println!("added agent {} ({} tools)", a.id, a.tools.len())
            });
        }
        AgentCommand::List => {
            let list = agents::list(ctx).await?;
            out.emit(&list, |list| print_table(list));
        }
        AgentCommand::Show { id } => {
            let agent = agents::get(ctx, &AgentId(id)).await?;
            out.emit(&agent, print_agent);
        }
        AgentCommand::Prompt { id } => {
            let text = prompt::compose_system_prompt(ctx, &AgentId(id)).await?;
            out.emit(&serde_json::json!({ "systemPrompt": text }), |_| {
                println!("{text}")
            });
        }
        AgentCommand::Update {
            id,
            name,
            description,
            system_prompt,
            delegates,
        } => {
            let input = AgentUpdate {
                name,
                description,
                system_prompt,
                // Core trims the names and drops empty ones ("" clears it).
                delegates,
                ..Default::default()
            };
            let agent = agents::update(ctx, &AgentId(id), input).await?;
            out.emit(&agent, |a| println!("updated agent {}", a.id));
        }
        AgentCommand::AssignTools { id, patterns } => {
            let agent = agents::assign_tools(ctx, &AgentId(id), patterns).await?;
            out.emit(&agent, |a| {
                println!(
                    "{} now has {} tools: {}",
                    a.id,
                    a.tools.len(),
                    a.tools.join(" ")
                )
            });
        }
        AgentCommand::AssignSkills { id, skills } => {
            let agent = agents::assign_skills(ctx, &AgentId(id), skills).await?;
            out.emit(&agent, |a| {
                println!("{} now has skills: {}", a.id, a.skills.join(" "))
            });
        }
        AgentCommand::AssignMcpServers { id, servers } => {
            let agent = agents::assign_mcp_servers(ctx, &AgentId(id), servers).await?;
            out.emit(&agent, |a| {
                println!("{} now has MCP servers: {}", a.id, a.mcp_servers.join(" "))
            });
        }
        AgentCommand::SetModel { id, model, none } => {
            let model = if none { None } else { model.map(ModelId) };
            let agent = agents::set_model(ctx, &AgentId(id), model).await?;
            out.emit(&agent, |a| {
                println!(
                    "agent {} now uses {}",
                    a.id,
                    a.model_id
                        .as_ref()
                        .map_or("no model".into(), |m| m.to_string())
                )
            });
        }
        AgentCommand::Enable { id } => {
            let agent = agents::set_enabled(ctx, &AgentId(id), true).await?;
            out.emit(&agent, |a| println!("agent {} is enabled", a.id));
        }
        AgentCommand::Disable { id } => {
            let agent = agents::set_enabled(ctx, &AgentId(id), false).await?;
            out.emit(&agent, |a| println!("agent {} is disabled", a.id));
        }
        AgentCommand::Remove { id } => {
            agents::delete(ctx, &AgentId(id.clone())).await?;
            out.done(&format!("removed agent {id}"));
        }
    }
    Ok(())
}

fn print_agent(a: &Agent) {
    println!("{} ({})", a.name, a.id);
    if !a.description.is_empty() {
        println!("  {}", a.description);
    }
    println!("  enabled:   {}", yes_no(a.enabled));
    println!(
        "  model:     {}",
        a.model_id.as_ref().map_or("—".into(), |m| m.to_string())
    );
    println!("  patterns:  {}", a.tool_patterns.join(" "));
    println!("  tools:     {}", a.tools.join(" "));
    println!("  skills:    {}", a.skills.join(" "));
    if !a.mcp_servers.is_empty() {
        println!("  mcp:       {}", a.mcp_servers.join(" "));
    }
    if !a.delegates.is_empty() {
        println!("  hands to:  {}", a.delegates.join(" "));
    }
}

fn print_table(list: &[Agent]) {
    table(
        &["id", "name", "model", "tools", "skills", "enabled"],
        list.iter()
            .map(|a| {
                vec![
                    a.id.to_string(),
                    a.name.clone(),
                    a.model_id
                        .as_ref()
                        .map(ToString::to_string)
                        .unwrap_or_default(),
                    a.tools.len().to_string(),
                    a.skills.join(","),
                    yes_no(a.enabled),
                ]
            })
            .collect(),
    );
}
