//! The command tree. Each verb opens the workspace, calls one core function
//! and prints its result; no rule lives here.

mod agent;
mod doctor;
mod model;
pub mod output;
mod provider;

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use colmena_core::{Ctx, OpenOptions, Result};

/// Colmena: a local-first workbench for teams of AI agents.
#[derive(Debug, Parser)]
#[command(name = "colmena", version, about, propagate_version = true)]
pub struct Cli {
    /// The workspace folder (default: $COLMENA_DATA_DIR, else the OS app-data folder).
    #[arg(long, global = true, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// Print machine-readable JSON instead of tables.
    #[arg(long, global = true)]
    pub json: bool,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check the workspace: store, schema, and where the master key is kept.
    Doctor,
    /// LLM providers and their API keys.
    #[command(subcommand)]
    Provider(provider::ProviderCommand),
    /// Models served by providers.
    #[command(subcommand)]
    Model(model::ModelCommand),
    /// Agents (a minimal set of verbs for now).
    #[command(subcommand)]
    Agent(agent::AgentCommand),
}

pub async fn run(cli: Cli) -> Result<()> {
    let ctx = Ctx::open(OpenOptions::from_env(cli.data_dir.as_deref())?).await?;
    let out = output::Output { json: cli.json };
    match cli.command {
        Command::Doctor => doctor::run(&ctx, &out).await,
        Command::Provider(command) => provider::run(&ctx, &out, command).await,
        Command::Model(command) => model::run(&ctx, &out, command).await,
        Command::Agent(command) => agent::run(&ctx, &out, command).await,
    }
}
