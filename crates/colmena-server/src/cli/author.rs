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
    },
    /// Every author: people and roles, unread mail, next wake-up.
    List,
    /// Show one author.
    Show { id: String },
    /// Set a role's agent and wake interval.
    Update {
        id: String,
        #[arg(long, value_name = "AGENT_ID")]
        agent: Option<String>,
        #[arg(long, value_name = "MINUTES")]
        wake_every: Option<u32>,
        /// What its wake-ups may do with nobody watching where the agent
        /// asks: write, run, network, send (comma-separated; "" for none).
        #[arg(long, value_delimiter = ',', num_args = 0..)]
        unattended: Option<Vec<String>>,
    },
    /// A new token (printed once); the old one stops working.
    RotateToken { id: String },
    /// Remove a role and its inbox.
    Remove { id: String },
    /// Wake a role now and wait for it to finish.
    Wake { id: String },
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
                    format!("'{r}' is not a class: use write, run, network or send"),
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
                    a.agent_id.clone().unwrap_or_else(|| "-".into()),
                    a.wake_interval_minutes
                        .map_or("-".into(), |m| format!("{m} min")),
                    a.unread.to_string(),
                    when(a.next_wake_at),
                    a.last_wake_error.clone().unwrap_or_default(),
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
        } => {
            let input = NewAuthor {
                name,
                agent_id: agent,
                wake_interval_minutes: wake_every,
                unattended: None,
            };
            let created = inbox::authors::create(ctx, input).await?;
            out.emit(&created, |c| {
                println!("added author {} ({})", c.author.id, c.author.name);
                println!("token (shown only now): {}", c.token);
                println!(
                    "drop folder: {}",
                    inbox::drop_folder::folder(ctx, &c.author.id).display()
                );
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
            unattended,
        } => {
            let input = AuthorUpdate {
                agent_id: agent,
                wake_interval_minutes: wake_every,
                unattended: unattended.map(|list| risks(&list)).transpose()?,
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
            let author = inbox::wakes::wake_now(ctx, &id).await?;
            out.emit(&author, |a| print_table(std::slice::from_ref(a)));
        }
    }
    Ok(())
}
