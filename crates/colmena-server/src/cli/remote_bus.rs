//! `colmena message send|inbox --server URL`: the same verbs against a
//! team's bus on another machine, through `colmena_core::team_bus::remote`. No
//! workspace is opened: this machine only holds the token.
//!
//! The token is read from `$COLMENA_TOKEN` or a file (`--token-file`), never
//! from the command line, where every user of the machine could read it in
//! the process list.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use colmena_core::inbox::SendMessage;
use colmena_core::team_bus::remote::{RemoteBus, RemoteBusConfig};
use colmena_core::{AppError, Result};

use super::message::{MessageCommand, inbox_query, print_table};
use super::output::Output;

/// Where the team's bus is (absent: this machine's workspace).
#[derive(Debug, Clone, Args)]
pub struct RemoteArgs {
    /// A team's bus (`https://host:port` of its `colmena serve`) instead of
    /// this machine's workspace; needs --as and your token in
    /// $COLMENA_TOKEN or --token-file.
    #[arg(long, value_name = "URL", env = "COLMENA_SERVER")]
    pub server: Option<String>,
    /// A file holding your token on the team's bus.
    #[arg(long, value_name = "FILE", requires = "server")]
    pub token_file: Option<PathBuf>,
    /// A PEM file of your team's CA, trusted besides the system's.
    #[arg(long, value_name = "PEM", env = "COLMENA_CA", requires = "server")]
    pub ca: Option<PathBuf>,
}

impl MessageCommand {
    /// The team bus this command goes to, if any.
    pub fn remote(&self) -> Option<&RemoteArgs> {
        match self {
            MessageCommand::Send { remote, .. } | MessageCommand::Inbox { remote, .. }
                if remote.server.is_some() =>
            {
                Some(remote)
            }
            _ => None,
        }
    }
}

/// Runs a `message` verb against the team's bus.
pub async fn run(out: &Output, remote: RemoteArgs, command: MessageCommand) -> Result<()> {
    let bus = connect(&remote)?;
    match command {
        MessageCommand::Send {
            to,
            body,
            priority,
            as_author,
            reply_to,
            message_id,
            wait,
            remote: _,
        } => {
            let from = author(as_author)?;
            let message = SendMessage {
                body,
                priority: Some(priority),
                reply_to,
                message_id,
            };
            let receipt = bus
                .send(&from, &to, message, Duration::from_secs(wait))
                .await?;
            out.emit(&receipt, |r| {
                println!("sent {} to {to} on {}", r.id, bus.url())
            });
        }
        MessageCommand::Inbox {
            as_author,
            since,
            all,
            peek,
            limit,
            remote: _,
        } => {
            let query = inbox_query(since, all, peek, limit);
            let list = bus.inbox(&author(as_author)?, &query).await?;
            out.emit(&list, |list| print_table(list));
        }
        _ => {
            return Err(AppError::invalid_field(
                "server",
                "unsupported",
                "only `message send` and `message inbox` go to a team's bus",
            ));
        }
    }
    Ok(())
}

fn connect(remote: &RemoteArgs) -> Result<RemoteBus> {
    let token = match (&remote.token_file, std::env::var("COLMENA_TOKEN")) {
        (Some(file), _) => read(file, "token_file")?.trim().to_owned(),
        (None, Ok(token)) => token.trim().to_owned(),
        (None, Err(_)) => String::new(),
    };
    let ca_pem = match &remote.ca {
        Some(file) => Some(read(file, "ca")?.into_bytes()),
        None => None,
    };
    RemoteBus::new(RemoteBusConfig {
        url: remote.server.clone().unwrap_or_default(),
        token,
        ca_pem,
    })
}

fn author(as_author: Option<String>) -> Result<String> {
    as_author.ok_or_else(|| {
        AppError::invalid_field(
            "as",
            "required",
            "on a team's bus, say who you are: --as YOUR_AUTHOR_ID (the author of your token)",
        )
    })
}

fn read(file: &PathBuf, field: &str) -> Result<String> {
    std::fs::read_to_string(file).map_err(|e| {
        AppError::invalid_field(
            field,
            "unreadable",
            format!("could not read {}: {e}", file.display()),
        )
    })
}
