use clap::Subcommand;
use colmena_core::conversations::{self, Conversation, ListOptions};
use colmena_core::{Ctx, Result};

use super::output::{Output, table};

#[derive(Debug, Subcommand)]
pub enum ConversationCommand {
    /// Conversations, most recent first.
    List {
        #[arg(long)]
        channel: Option<String>,
        /// Also closed ones.
        #[arg(long)]
        all: bool,
        /// With each conversation's latest run.
        #[arg(long)]
        with_runs: bool,
        #[arg(long)]
        user: Option<String>,
    },
    /// Every message of a conversation.
    Show {
        id: String,
    },
    Rename {
        id: String,
        title: String,
    },
    /// Close a conversation: out of the list, history kept.
    Close {
        id: String,
    },
    Reopen {
        id: String,
    },
    /// Delete a conversation and its messages.
    Remove {
        id: String,
    },
}

pub async fn run(ctx: &Ctx, out: &Output, command: ConversationCommand) -> Result<()> {
    match command {
        ConversationCommand::List {
            channel,
            all,
            with_runs,
            user,
        } => {
            let options = ListOptions {
                channel,
                include_archived: all,
                with_runs,
            };
            let list = conversations::list(ctx, user.as_deref(), options).await?;
            out.emit(&list, |list| print_list(list));
        }
        ConversationCommand::Show { id } => {
            let history = conversations::history(ctx, &id).await?;
            out.emit(&history, |history| {
                for message in history {
                    let who = message.agent_id.as_deref().unwrap_or(match message.role {
                        conversations::MessageRole::User => "you",
                        _ => "assistant",
                    });
                    println!("{who}: {}", message.content);
                }
            });
        }
        ConversationCommand::Rename { id, title } => {
            let c = conversations::rename(ctx, &id, &title).await?;
            out.emit(&c, |c| println!("renamed {}", c.id));
        }
        ConversationCommand::Close { id } => {
            let c = conversations::close(ctx, &id).await?;
            out.emit(&c, |c| println!("closed {}", c.id));
        }
        ConversationCommand::Reopen { id } => {
            let c = conversations::reopen(ctx, &id).await?;
            out.emit(&c, |c| println!("reopened {}", c.id));
        }
        ConversationCommand::Remove { id } => {
            conversations::delete(ctx, &id).await?;
            out.done(&format!("removed conversation {id}"));
        }
    }
    Ok(())
}

fn print_list(list: &[Conversation]) {
    table(
        &["id", "title", "agent", "messages", "last run"],
        list.iter()
            .map(|c| {
                vec![
                    c.id.clone(),
                    c.title.clone().unwrap_or_default(),
                    c.agent_id.clone().unwrap_or_default(),
                    c.message_count.to_string(),
                    c.last_run
                        .as_ref()
                        .map(|r| r.status.as_str().to_owned())
                        .unwrap_or_default(),
                ]
            })
            .collect(),
    );
}
