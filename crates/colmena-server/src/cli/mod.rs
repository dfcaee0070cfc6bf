//! The command tree. Each verb opens the workspace, calls one core function
//! and prints its result; no rule lives here.
//!
//! Every line the commands print passes one cleaner: `print!`, `println!`,
//! `eprint!` and `eprintln!` are shadowed here, before the verbs' modules,
//! so a model's text, a tool's output or another author's message cannot
//! send a terminal escape sequence, a bidi override or a zero-width
//! character to the person's terminal (`colmena_core::terminal_text`).
//! JSON output is printed as is (`std::println!`): it is data for scripts,
//! with control characters already escaped by the encoder.

macro_rules! print {
    ($($arg:tt)*) => {
        std::print!("{}", colmena_core::terminal_text::clean(&format!($($arg)*)))
    };
}

macro_rules! println {
    () => {
        std::println!()
    };
    ($($arg:tt)*) => {
        std::println!("{}", colmena_core::terminal_text::clean(&format!($($arg)*)))
    };
}

macro_rules! eprint {
    ($($arg:tt)*) => {
        std::eprint!("{}", colmena_core::terminal_text::clean(&format!($($arg)*)))
    };
}

macro_rules! eprintln {
    () => {
        std::eprintln!()
    };
    ($($arg:tt)*) => {
        std::eprintln!("{}", colmena_core::terminal_text::clean(&format!($($arg)*)))
    };
}

mod activity;
mod agent;
mod approval;
mod author;
mod backup;
mod canvas;
mod chat;
mod conversation;
mod cron;
mod doctor;
mod endpoint;
mod entry;
mod ethics;
mod image;
mod mcp;
mod mcp_server;
mod memory;
mod message;
mod model;
pub mod output;
mod passphrase;
mod provider;
mod remote_bus;
mod runs;
mod serve;
mod setup;
mod skill;
mod stream;
mod swarm;
mod tool;
mod web_search;

use std::path::PathBuf;

pub use entry::main;

use clap::{Parser, Subcommand};
use colmena_core::memory::{CatalogSearch, search_catalog};
use colmena_core::{Ctx, OpenOptions, Result, skills};

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
    /// Agents: prompt, model, tools, skills, MCP servers.
    #[command(subcommand)]
    Agent(agent::AgentCommand),
    /// Skills: SKILL.md instructions given to agents.
    #[command(subcommand)]
    Skill(skill::SkillCommand),
    /// Write a new skill folder to start from: DIR/NAME/SKILL.md.
    AddSkill {
        name: String,
        /// Where (default: the workspace's skills folder).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Tools from the catalog: list, switch, rename, expand patterns.
    #[command(subcommand)]
    Tool(tool::ToolCommand),
    /// The search service web_search asks (SearXNG, Brave, Tavily): show, set, clear, test.
    #[command(subcommand)]
    WebSearch(web_search::WebSearchCommand),
    /// Per-user long-term memory.
    Memory(memory::MemoryArgs),
    /// Which catalog specialists are installed.
    #[command(subcommand)]
    Setup(setup::SetupCommand),
    /// The code of ethics every agent follows.
    #[command(subcommand)]
    Ethics(ethics::EthicsCommand),
    /// Search skills, tools and your memories.
    Search {
        query: String,
        /// Only active skills and tools.
        #[arg(long)]
        active: bool,
        #[arg(long)]
        user: Option<String>,
        #[arg(long, default_value_t = 20)]
        limit: u32,
    },
    /// Rebuild the search index from the store.
    Reindex,
    /// Swarms: teams of agents run together.
    #[command(subcommand)]
    Swarm(swarm::SwarmCommand),
    /// Talk with an agent; its answers stream as they are written.
    Chat(chat::ChatArgs),
    /// Conversations with agents.
    #[command(subcommand)]
    Conversation(conversation::ConversationCommand),
    /// Runs of agents and swarms: history, resume, cancel.
    #[command(subcommand)]
    Runs(runs::RunsCommand),
    /// Everything that ran for you, newest first, with today's figures.
    Activity(activity::ActivityArgs),
    /// Tool calls waiting for a person: list, allow, deny.
    #[command(subcommand)]
    Approval(approval::ApprovalCommand),
    /// Bus authors: roles and people, their tokens and wake-ups.
    #[command(subcommand)]
    Author(author::AuthorCommand),
    /// Bus messages: send, read an inbox, sent, delete.
    #[command(subcommand)]
    Message(message::MessageCommand),
    /// Write a consistent copy of the store, while it is in use.
    Backup(backup::BackupArgs),
    /// Replace the store with a backup (Colmena and `colmena serve` closed);
    /// the replaced store is kept in the backups folder.
    Restore(backup::RestoreArgs),
    /// Serve the bus over HTTP headless, waking roles, until SIGTERM.
    Serve(serve::ServeArgs),
    /// Canvases: items, variants, rounds, exports, presets, sources.
    Canvas(canvas::CanvasArgs),
    /// Stored images: upload, normalise for models, transform, retention.
    #[command(subcommand)]
    Image(image::ImageCommand),
    /// Serve MCP over stdio for AI clients (Claude Code, Cursor, Claude
    /// Desktop); `mcp config` prints how to connect one.
    Mcp(mcp::McpArgs),
    /// MCP servers Colmena uses as a client: programs and HTTP endpoints
    /// whose tools agents call; `import` reads other clients' configurations.
    #[command(subcommand)]
    McpServer(mcp_server::McpServerCommand),
    /// HTTP endpoints declared as tools (endpoint_<id>): create, test, switch.
    #[command(subcommand)]
    Endpoint(endpoint::EndpointCommand),
    /// Scheduled jobs: an agent, a swarm or a role's wake-up on a cron
    /// expression or an interval, in a time zone; pause, trigger, history.
    #[command(subcommand)]
    Cron(cron::CronCommand),
}

pub async fn run(cli: Cli) -> Result<()> {
    let options = OpenOptions::from_env(cli.data_dir.as_deref())?;
    let out = output::Output { json: cli.json };
    // These work on the store file, without opening the workspace.
    let command = match cli.command {
        Command::Backup(args) => return backup::backup(&options, &out, args),
        Command::Restore(args) => return backup::restore(options, &out, args).await,
        // A team's bus on another machine: nothing here is opened.
        Command::Message(command) => match command.remote().cloned() {
            Some(remote) => return remote_bus::run(&out, remote, command).await,
            None => Command::Message(command),
        },
        command => command,
    };
    // `serve --store` names the bus's store; otherwise $COLMENA_BUS_STORE.
    let bus = match &command {
        Command::Serve(args) => colmena_core::store::bus::postgres::BusStoreChoice::parse(
            args.store.as_ref().map_or("", |url| url.0.as_str()),
            args.store_schema.as_deref(),
            &options.data_dir,
        )?,
        _ => colmena_core::store::bus::postgres::BusStoreChoice::from_env(&options.data_dir)?,
    };
    let ctx = colmena_core::workspace::open_with_bus(options, bus).await?;
    // Agents run here (chat, swarms, `serve`) and `mcp-server test` starts
    // servers: this process is an MCP client. What it starts stops with it.
    crate::mcp_client::install(&ctx);
    let outcome = dispatch(&ctx, &out, command).await;
    colmena_core::workspace::shutdown(&ctx).await;
    outcome
}

async fn dispatch(ctx: &Ctx, out: &output::Output, command: Command) -> Result<()> {
    let (ctx, out) = (ctx.clone(), output::Output { json: out.json });
    match command {
        Command::Backup(_) | Command::Restore(_) => Ok(()),
        Command::Doctor => doctor::run(&ctx, &out).await,
        Command::Provider(command) => provider::run(&ctx, &out, command).await,
        Command::Model(command) => model::run(&ctx, &out, command).await,
        Command::Agent(command) => agent::run(&ctx, &out, command).await,
        Command::Skill(command) => skill::run(&ctx, &out, command).await,
        Command::AddSkill { name, dir } => {
            let dir = dir.unwrap_or_else(|| skills::folders::workspace_folder(ctx.data_dir()));
            let folder = skills::scaffold(&dir, &name)?;
            out.emit(&serde_json::json!({ "path": folder }), |_| {
                println!("created {}", folder.join("SKILL.md").display());
                println!("edit it, then: colmena skill import {}", folder.display());
            });
            Ok(())
        }
        Command::Tool(command) => tool::run(&ctx, &out, command).await,
        Command::WebSearch(command) => web_search::run(&ctx, &out, command).await,
        Command::Memory(args) => memory::run(&ctx, &out, args).await,
        Command::Setup(command) => setup::run(&ctx, &out, command).await,
        Command::Ethics(command) => ethics::run(&ctx, &out, command).await,
        Command::Search {
            query,
            active,
            user,
            limit,
        } => {
            let input = CatalogSearch {
                query,
                kinds: Vec::new(),
                user_id: user,
                active_only: active,
                limit: Some(limit),
            };
            let hits = search_catalog(&ctx, input).await?;
            out.emit(&hits, |hits| {
                output::table(
                    &["kind", "id", "score", "snippet"],
                    hits.iter()
                        .map(|h| {
                            let snippet: String =
                                h.snippet.iter().map(|p| p.text.as_str()).collect();
                            vec![
                                h.kind.as_str().to_owned(),
                                h.id.clone(),
                                format!("{:.2}", h.score),
                                snippet.replace('\n', " ").chars().take(70).collect(),
                            ]
                        })
                        .collect(),
                )
            });
            Ok(())
        }
        Command::Swarm(command) => swarm::run(&ctx, &out, command).await,
        Command::Chat(args) => chat::run(&ctx, &out, args).await,
        Command::Conversation(command) => conversation::run(&ctx, &out, command).await,
        Command::Runs(command) => runs::run(&ctx, &out, command).await,
        Command::Activity(args) => activity::run(&ctx, &out, args).await,
        Command::Approval(command) => approval::run(&ctx, &out, command).await,
        Command::Author(command) => author::run(&ctx, &out, command).await,
        Command::Message(command) => message::run(&ctx, &out, command).await,
        Command::Serve(args) => serve::run(&ctx, &out, args).await,
        Command::Canvas(args) => canvas::run(&ctx, &out, args).await,
        Command::Image(command) => image::run(&ctx, &out, command).await,
        Command::Mcp(args) => mcp::run(&ctx, &out, args).await,
        Command::McpServer(command) => mcp_server::run(&ctx, &out, command).await,
        Command::Endpoint(command) => endpoint::run(&ctx, &out, command).await,
        Command::Cron(command) => cron::run(&ctx, &out, command).await,
        Command::Reindex => {
            let count = ctx.reindex().await?;
            out.emit(&serde_json::json!({ "documents": count }), |_| {
                println!("search index rebuilt: {count} documents")
            });
            Ok(())
        }
    }
}
