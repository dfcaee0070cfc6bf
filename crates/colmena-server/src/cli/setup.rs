use clap::Subcommand;
use colmena_core::setup::{self, SetupStatus, Specialists};
use colmena_core::{Ctx, Result};

use super::output::{Output, table, yes_no};

#[derive(Debug, Subcommand)]
pub enum SetupCommand {
    /// The catalog specialists and whether each is installed.
    Status,
    /// What installing specialists would activate (nothing changes).
    Plan {
        /// all, none, or comma-separated ids.
        #[arg(long, default_value = "all")]
        specialists: String,
    },
    /// Install specialists and activate what they need (never deactivates).
    Apply {
        /// all, none, or comma-separated ids.
        #[arg(long, default_value = "all")]
        specialists: String,
    },
    /// What is still missing for these agents to work.
    ActivationPlan { agents: Vec<String> },
    /// Enable catalog specialists (and what they need).
    Enable { ids: Vec<String> },
    /// Disable a catalog specialist (what only it needed is deactivated).
    Disable { id: String },
}

fn ids(text: &str) -> Vec<String> {
    match Specialists::parse(text) {
        Specialists::All => setup::personas::ids(),
        Specialists::None => Vec::new(),
        Specialists::Only(ids) => ids,
    }
}

pub async fn run(ctx: &Ctx, out: &Output, command: SetupCommand) -> Result<()> {
    match command {
        SetupCommand::Status => {
            let status = setup::status(ctx).await?;
            out.emit(&status, print_status);
        }
        SetupCommand::Plan { specialists } => {
            let plan = setup::plan_seed_for(ctx, ids(&specialists)).await?;
            out.emit(&plan, |p| {
                println!("agents: {}", p.agents.join(" "));
                println!("tools:  {}", p.tools.join(" "));
                println!("skills: {}", p.skills.join(" "));
            });
        }
        SetupCommand::Apply { specialists } => {
            let status = setup::apply_seed_plan(ctx, ids(&specialists)).await?;
            out.emit(&status, print_status);
        }
        SetupCommand::ActivationPlan { agents } => {
            let plan = setup::plan_activation_for(ctx, agents).await?;
            out.emit(&plan, |p| {
                println!("agents to enable:  {}", p.agents.join(" "));
                println!("tools to activate: {}", p.tools.join(" "));
                println!("skills to activate: {}", p.skills.join(" "));
                if !p.non_catalog.is_empty() {
                    println!("not from the catalog: {}", p.non_catalog.join(" "));
                }
            });
        }
        SetupCommand::Enable { ids } => {
            let status = setup::enable_catalog_agents(ctx, ids).await?;
            out.emit(&status, print_status);
        }
        SetupCommand::Disable { id } => {
            let status = setup::disable_catalog_agent(ctx, &id).await?;
            out.emit(&status, print_status);
        }
    }
    Ok(())
}

fn print_status(s: &SetupStatus) {
    table(
        &["specialist", "name", "installed", "tools", "skills"],
        s.personas
            .iter()
            .map(|p| {
                vec![
                    p.id.clone(),
                    p.name.clone(),
                    yes_no(p.enabled),
                    p.tool_patterns.join(","),
                    p.skills.join(","),
                ]
            })
            .collect(),
    );
    println!(
        "\n{} tools and {} skills active; first run {}",
        s.active_tools,
        s.active_skills,
        if s.completed { "done" } else { "not done" }
    );
}
