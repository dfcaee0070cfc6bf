use clap::Subcommand;
use colmena_core::agents::{self, NewAgent};
use colmena_core::ids::{AgentId, ModelId};
use colmena_core::{Ctx, Result};

use super::output::{Output, table, yes_no};

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
    },
    /// List agents.
    List,
    /// Point an agent at another model (or at none with --none).
    SetModel {
        id: String,
        #[arg(required_unless_present = "none")]
        model: Option<String>,
        #[arg(long)]
        none: bool,
    },
    /// Delete an agent (its tools and skills stay).
    Remove { id: String },
}

pub async fn run(ctx: &Ctx, out: &Output, command: AgentCommand) -> Result<()> {
    match command {
        AgentCommand::Add {
            name,
            model,
            description,
            system_prompt,
        } => {
            let input = NewAgent {
                name,
                description,
                system_prompt,
                model_id: model.map(ModelId),
            };
            let agent = agents::create(ctx, input).await?;
            out.emit(&agent, |a| println!("added agent {}", a.id));
        }
        AgentCommand::List => {
            let list = agents::list(ctx).await?;
            out.emit(&list, |list| {
                table(
                    &["id", "name", "model", "enabled"],
                    list.iter()
                        .map(|a| {
                            vec![
                                a.id.to_string(),
                                a.name.clone(),
                                a.model_id
                                    .as_ref()
                                    .map(ToString::to_string)
                                    .unwrap_or_default(),
                                yes_no(a.enabled),
                            ]
                        })
                        .collect(),
                )
            });
        }
        AgentCommand::SetModel { id, model, none } => {
            let model = if none { None } else { model.map(ModelId) };
            let agent = agents::set_model(ctx, &AgentId(id), model).await?;
            out.emit(&agent, |a| {
                println!("agent {} now uses {:?}", a.id, a.model_id)
            });
        }
        AgentCommand::Remove { id } => {
            agents::delete(ctx, &AgentId(id.clone())).await?;
            out.done(&format!("removed agent {id}"));
        }
    }
    Ok(())
}
