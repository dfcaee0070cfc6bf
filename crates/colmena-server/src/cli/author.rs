use clap::Subcommand;
use colmena_core::inbox::{self, Author, AuthorKind, AuthorUpdate, NewAuthor};
use colmena_core::permissions::Risk;
use colmena_core::{AppError, Ctx, Result};

use super::output::{Output, table};

#[derive(Debug, Subcommand)]
pub enum AuthorCommand {
    /// Register a role on the bus; prints its token once.
    Create {
        name: String,
        /// The agent Colmena runs when it wakes the role (none: the role is a
        /// session outside Colmena that reads its inbox itself).
        #[arg(long, value_name = "AGENT_ID")]
        agent: Option<String>,
        /// Minutes between wake-ups (default 30 with --agent).
        #[arg(long, value_name = "MINUTES")]
        wake_every: Option<u32>,
        #[command(flatten)]
        wake: WakeCommandArgs,
        #[command(flatten)]
        scope: RoleScopeArgs,
    },
    /// Every author: people and roles, unread mail, next wake-up.
    List,
    /// Show one author.
    Show { id: String },
    /// Set how a role is woken (its agent or its wake command) and how often.
    Update {
        id: String,
        #[arg(long, value_name = "AGENT_ID")]
        agent: Option<String>,
        #[arg(long, value_name = "MINUTES")]
        wake_every: Option<u32>,
        #[command(flatten)]
        wake: WakeCommandArgs,
        /// What its wake-ups may do with nobody watching where the agent
        /// asks: reply (answer who wrote; the default), send (to anyone),
        /// write, run, network, act (change other systems: endpoints that
        /// are not GET, remote MCP tools not marked read-only) —
        /// comma-separated; "" for none.
        #[arg(long, value_delimiter = ',', num_args = 0..)]
        unattended: Option<Vec<String>>,
        #[command(flatten)]
        scope: RoleScopeArgs,
    },
    /// A new token (printed once); the old one stops working.
    RotateToken { id: String },
    /// Remove a role and its inbox.
    Remove { id: String },
    /// Wake a role now and wait for it to finish.
    Wake { id: String },
    /// A role's wake-ups, newest first: when, which messages, what it sent,
    /// and a wake command's exit code and output.
    History {
        id: String,
        #[arg(long, value_name = "N", default_value_t = 20)]
        limit: u32,
    },
    /// How many wake-ups with mail each role may have an hour and a day
    /// (past it, mail waits; "wake now" still works). Prints the budget;
    /// with a flag, sets it first.
    Budget {
        #[arg(long, value_name = "N")]
        per_hour: Option<u32>,
        #[arg(long, value_name = "N")]
        per_day: Option<u32>,
    },
}

/// A role's own scope (issue 15): what it is told at every wake-up and the
/// skills it has on top of its agent's.
#[derive(Debug, clap::Args)]
pub struct RoleScopeArgs {
    /// Standing instructions, added to its agent's prompt at every wake-up
    /// ("" clears them on update).
    #[arg(long, value_name = "TEXT")]
    instructions: Option<String>,
    /// The role's own skills, on top of its agent's (comma-separated ids,
    /// or repeat --skill; "" for none). On update, replaces them.
    #[arg(long, visible_alias = "skill", value_delimiter = ',', num_args = 0..)]
    skills: Option<Vec<String>>,
}

impl RoleScopeArgs {
    fn skills(&self) -> Option<Vec<String>> {
        self.skills.as_ref().map(|list| {
            list.iter()
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect()
        })
    }
}

/// A role that lives outside Colmena: the program that wakes it.
#[derive(Debug, clap::Args)]
pub struct WakeCommandArgs {
    /// Wake the role by running PROG instead of an agent (a role outside
    /// Colmena, e.g. `claude`). It runs in the role's folder, without a
    /// shell, with COLMENA_TOKEN, COLMENA_MCP_URL, COLMENA_API_URL,
    /// COLMENA_AUTHOR_ID and COLMENA_UNREAD in its environment, and reads its
    /// inbox itself; no message ever reaches its command line. Like --agent,
    /// `update` replaces how the role is woken: give it again to keep it.
    #[arg(long, value_name = "PROG", conflicts_with = "agent")]
    wake_command: Option<String>,
    /// One argument of the wake command, as is (repeat, in order:
    /// --wake-arg -p --wake-arg "Read your inbox").
    #[arg(
        long,
        value_name = "ARG",
        requires = "wake_command",
        allow_hyphen_values = true
    )]
    wake_arg: Vec<String>,
    /// The wake command's time limit in seconds (default 600); past it, the
    /// command and everything it started are stopped.
    #[arg(long, value_name = "SECONDS", requires = "wake_command")]
    wake_timeout: Option<u32>,
}

impl WakeCommandArgs {
    fn command(&self) -> Option<Vec<String>> {
        self.wake_command.as_ref().map(|prog| {
            std::iter::once(prog.clone())
                .chain(self.wake_arg.clone())
                .collect()
        })
    }
}

/// `--allow write,network`: risk classes named on the command line.
pub(super) fn risks(list: &[String]) -> Result<Vec<Risk>> {
    list.iter()
        .map(|r| r.trim())
        .filter(|r| !r.is_empty())
        .map(|r| {
            Risk::parse(r).ok_or_else(|| {
                AppError::invalid_field(
                    "unattended",
                    "unknown_risk",
                    format!("'{r}' is not a class: use reply, send, write, run, network or act"),
                )
            })
        })
        .collect()
}

fn when(at: Option<chrono::DateTime<chrono::Utc>>) -> String {
    at.map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
        .unwrap_or_else(|| "-".into())
}

fn print_table(list: &[Author]) {
    table(
        &[
            "id",
            "name",
            "kind",
            "agent",
            "every",
            "unread",
            "next wake",
            "unattended",
            "last error",
        ],
        list.iter()
            .map(|a| {
                vec![
                    a.id.clone(),
                    a.name.clone(),
                    match a.kind {
                        AuthorKind::User if a.is_owner => "person (you)".into(),
                        AuthorKind::User => "person".into(),
                        AuthorKind::Role => "role".into(),
                    },
                    a.agent_id
                        .clone()
                        .or_else(|| {
                            a.wake_command.as_ref().map(|c| {
                                format!("command {}", serde_json::to_string(c).unwrap_or_default())
                            })
                        })
                        .unwrap_or_else(|| "-".into()),
                    a.wake_interval_minutes
                        .map_or("-".into(), |m| format!("{m} min")),
                    a.unread.to_string(),
                    when(a.next_wake_at),
                    unattended_text(a),
                    a.last_wake_error.clone().unwrap_or_default(),
                ]
            })
            .collect(),
    );
}

/// What a role's wake-ups may do with nobody watching.
fn unattended_text(a: &Author) -> String {
    if a.kind != AuthorKind::Role {
        return "-".into();
    }
    grant_text(&a.unattended)
}

/// What an unattended grant allows (a role's, a job's), as a person reads
/// it; changing other systems is named apart, in capitals, so it is never
/// read past.
pub(super) fn grant_text(grant: &[Risk]) -> String {
    let mut words: Vec<&str> = grant
        .iter()
        .filter(|r| **r != Risk::Act)
        .map(|r| r.as_str())
        .collect();
    if grant.contains(&Risk::Act) {
        words.push("ACT (changes other systems)");
    }
    if words.is_empty() {
        "nothing beyond reading".into()
    } else {
        words.join(", ")
    }
}

fn print_history(list: &[colmena_core::roles::wake_history::WakeRecord]) {
    table(
        &["started", "kind", "messages", "sent", "exit", "error"],
        list.iter()
            .map(|w| {
                vec![
                    when(Some(w.started_at)),
                    format!("{:?}", w.kind).to_lowercase(),
                    w.message_ids.len().to_string(),
                    w.sent_ids.len().to_string(),
                    match (w.exit_code, w.timed_out, w.finished_at) {
                        (_, true, _) => "timed out".into(),
                        (Some(code), _, _) => code.to_string(),
                        (None, _, None) => "running".into(),
                        (None, _, Some(_)) => "-".into(),
                    },
                    w.error.clone().unwrap_or_default(),
                ]
            })
            .collect(),
    );
}

pub async fn run(ctx: &Ctx, out: &Output, command: AuthorCommand) -> Result<()> {
    match command {
        AuthorCommand::Create {
            name,
            agent,
            wake_every,
            wake,
            scope,
        } => {
            let input = NewAuthor {
                name,
                agent_id: agent,
                wake_interval_minutes: wake_every,
                wake_command: wake.command(),
                wake_timeout_seconds: wake.wake_timeout,
                unattended: None,
                instructions: scope.instructions.clone(),
                skills: scope.skills(),
            };
            let created = inbox::authors::create(ctx, input).await?;
            out.emit(&created, |c| {
                println!("added author {} ({})", c.author.id, c.author.name);
                println!("token (shown only now): {}", c.token);
                if inbox::drop_folder::enabled(ctx) {
                    println!(
                        "drop folder: {}",
                        inbox::drop_folder::folder(ctx, &c.author.id).display()
                    );
                }
            });
        }
        AuthorCommand::List => {
            let list = inbox::authors::list(ctx).await?;
            out.emit(&list, |list| print_table(list));
        }
        AuthorCommand::Show { id } => {
            let author = inbox::authors::get(ctx, &id).await?;
            out.emit(&author, |a| print_table(std::slice::from_ref(a)));
        }
        AuthorCommand::Update {
            id,
            agent,
            wake_every,
            wake,
            unattended,
            scope,
        } => {
            let input = AuthorUpdate {
                agent_id: agent,
                wake_interval_minutes: wake_every,
                wake_command: wake.command(),
                wake_timeout_seconds: wake.wake_timeout,
                unattended: unattended.map(|list| risks(&list)).transpose()?,
                instructions: scope.instructions.clone(),
                skills: scope.skills(),
            };
            let author = inbox::authors::update(ctx, &id, input).await?;
            out.emit(&author, |a| print_table(std::slice::from_ref(a)));
        }
        AuthorCommand::RotateToken { id } => {
            let rotated = inbox::authors::rotate_token(ctx, &id).await?;
            out.emit(&rotated, |r| {
                println!(
                    "new token for {} (shown only now): {}",
                    r.author.id, r.token
                )
            });
        }
        AuthorCommand::Remove { id } => {
            inbox::authors::remove(ctx, &id).await?;
            out.done(&format!("removed author {id}"));
        }
        AuthorCommand::Wake { id } => {
            let author = colmena_core::roles::wakes::wake_now(ctx, &id).await?;
            out.emit(&author, |a| print_table(std::slice::from_ref(a)));
        }
        AuthorCommand::Budget { per_hour, per_day } => {
            let mut budget = colmena_core::roles::wake_budget::wake_budget(ctx).await?;
            if per_hour.is_some() || per_day.is_some() {
                budget.per_hour = per_hour.unwrap_or(budget.per_hour);
                budget.per_day = per_day.unwrap_or(budget.per_day);
                budget = colmena_core::roles::wake_budget::set_wake_budget(ctx, budget).await?;
            }
            out.emit(&budget, |b| {
                println!(
                    "each role: at most {} wake-ups an hour, {} a day",
                    b.per_hour, b.per_day
                )
            });
        }
        AuthorCommand::History { id, limit } => {
            let caller = inbox::Caller::cli(ctx, None);
            let list =
                colmena_core::roles::wake_history::list(ctx, &caller, &id, None, Some(limit))
                    .await?;
            out.emit(&list, |list| print_history(list));
        }
    }
    Ok(())
}
