use clap::Subcommand;
use colmena_core::inbox::{self, Caller, InboxQuery, Message, SendMessage, SentQuery};
use colmena_core::{Ctx, Result};

use super::output::{Output, table};
pub use super::remote_bus::RemoteArgs;

/// The CLI runs on the workspace's machine: it may act as any author, and
/// acts as the owner unless told `--as`.
#[derive(Debug, Subcommand)]
pub enum MessageCommand {
    /// Send a message.
    Send {
        /// The recipient's author id (or, in this machine's workspace, its name).
        to: String,
        body: String,
        #[arg(long, default_value = "normal", value_parser = ["normal", "urgent"])]
        priority: String,
        /// Send as this author (default: you).
        #[arg(long = "as", value_name = "AUTHOR")]
        as_author: Option<String>,
        /// The id of the message this one answers.
        #[arg(long, value_name = "MESSAGE_ID")]
        reply_to: Option<String>,
        /// Your own id for this message (a UUID, say): sending again with
        /// the same one, after a failure, never delivers it twice.
        #[arg(long, value_name = "ID")]
        message_id: Option<String>,
        /// With --server: how long to keep trying while the bus cannot be
        /// reached (the same message id each time; it lands once).
        #[arg(
            long,
            value_name = "SECONDS",
            default_value_t = 60,
            value_parser = clap::value_parser!(u64).range(0..=604_800),
            requires = "server"
        )]
        wait: u64,
        #[command(flatten)]
        remote: RemoteArgs,
    },
    /// Read an inbox, oldest first (marks read unless --peek).
    Inbox {
        #[arg(long = "as", value_name = "AUTHOR")]
        as_author: Option<String>,
        #[arg(long)]
        since: Option<String>,
        /// Read messages too.
        #[arg(long)]
        all: bool,
        #[arg(long)]
        peek: bool,
        #[arg(long)]
        limit: Option<u32>,
        #[command(flatten)]
        remote: RemoteArgs,
    },
    /// What an author sent.
    Sent {
        #[arg(long = "as", value_name = "AUTHOR")]
        as_author: Option<String>,
        #[arg(long)]
        since: Option<String>,
        #[arg(long)]
        limit: Option<u32>,
    },
    /// Full-text search over the mail an author sent or received.
    Search {
        /// Words to find (all of them); "…" for a phrase.
        text: String,
        #[arg(long = "as", value_name = "AUTHOR")]
        as_author: Option<String>,
        /// At most this many (1 to 100, default 20).
        #[arg(long)]
        limit: Option<u32>,
    },
    /// Delete a message you sent.
    Delete {
        id: String,
        #[arg(long = "as", value_name = "AUTHOR")]
        as_author: Option<String>,
    },
}

/// What `message inbox` asks for, here or on a team's bus.
pub(super) fn inbox_query(
    since: Option<String>,
    all: bool,
    peek: bool,
    limit: Option<u32>,
) -> InboxQuery {
    InboxQuery {
        since,
        unread_only: Some(!all),
        peek: Some(peek),
        limit,
    }
}

pub(super) fn print_table(list: &[Message]) {
    table(
        &["id", "from", "to", "priority", "created", "read", "body"],
        list.iter()
            .map(|m| {
                vec![
                    m.id.clone(),
                    m.from.clone(),
                    m.to.clone(),
                    m.priority.as_str().to_owned(),
                    m.created_at.format("%Y-%m-%d %H:%M:%S").to_string(),
                    if m.read_at.is_some() {
                        "yes".into()
                    } else {
                        "no".into()
                    },
                    // Mail is someone else's text: no control characters (a
                    // terminal's escape sequences) reach the screen.
                    colmena_core::team_bus::remote::clean_text(&m.body)
                        .chars()
                        .take(60)
                        .collect(),
                ]
            })
            .collect(),
    );
}

pub async fn run(ctx: &Ctx, out: &Output, command: MessageCommand) -> Result<()> {
    let me = |as_author: Option<String>| as_author.unwrap_or_else(|| ctx.owner().to_owned());
    match command {
        MessageCommand::Send {
            to,
            body,
            priority,
            as_author,
            reply_to,
            message_id,
            wait: _,
            remote: _,
        } => {
            let message = SendMessage {
                body,
                priority: Some(priority),
                reply_to,
                message_id,
            };
            let sent = inbox::messages::send_to_name(
                ctx,
                &Caller::cli(ctx, None),
                &me(as_author),
                &to,
                message,
            )
            .await?;
            out.emit(&sent, |m| println!("sent {} to {}", m.id, m.to));
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
            let list =
                inbox::messages::inbox(ctx, &Caller::cli(ctx, None), &me(as_author), query).await?;
            out.emit(&list, |list| print_table(list));
        }
        MessageCommand::Search {
            text,
            as_author,
            limit,
        } => {
            let list =
                inbox::search::search(ctx, &Caller::cli(ctx, None), &me(as_author), &text, limit)
                    .await?;
            out.emit(&list, |list| print_table(list));
        }
        MessageCommand::Sent {
            as_author,
            since,
            limit,
        } => {
            let list = inbox::messages::sent(
                ctx,
                &Caller::cli(ctx, None),
                &me(as_author),
                SentQuery { since, limit },
            )
            .await?;
            out.emit(&list, |list| print_table(list));
        }
        MessageCommand::Delete { id, as_author } => {
            inbox::messages::delete(ctx, &Caller::cli(ctx, None), &me(as_author), &id).await?;
            out.done(&format!("deleted message {id}"));
        }
    }
    Ok(())
}
