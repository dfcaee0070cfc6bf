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
    /// Conversations whose title or messages hold the words, newest first.
    Search {
        query: String,
        #[arg(long)]
        user: Option<String>,
    },
    /// The conversation as Markdown, on standard output or into a file.
    Export {
        id: String,
        /// Write it here instead of printing it.
        #[arg(long)]
        to: Option<std::path::PathBuf>,
    },
    /// A new conversation with the messages before MESSAGE (one you wrote):
    /// what editing or asking again does; the original is kept.
    Fork {
        id: String,
        message: i64,
    },
    /// The model the conversation answers with; without one, the agent's own.
    Model {
        id: String,
        model: Option<String>,
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
        ConversationCommand::Search { query, user } => {
            let hits = conversations::search::search(ctx, user.as_deref(), &query).await?;
            out.emit(&hits, |hits| {
                table(
                    &["id", "title", "matched"],
                    hits.iter()
                        .map(|h| {
                            vec![
                                h.conversation.id.clone(),
                                h.conversation.title.clone().unwrap_or_default(),
                                h.snippet.clone().unwrap_or_else(|| "(title)".into()),
                            ]
                        })
                        .collect(),
                )
            });
        }
        ConversationCommand::Export { id, to } => {
            let document = conversations::markdown::to_markdown(ctx, &id).await?;
            match to {
                Some(path) => {
                    document.write_to(&path)?;
                    out.emit(&document, |_| println!("wrote {}", path.display()));
                }
                None => out.emit(&document, |d| print!("{}", d.markdown)),
            }
        }
        ConversationCommand::Fork { id, message } => {
            let c = conversations::branches::fork(ctx, &id, message).await?;
            out.emit(&c, |c| println!("forked into {}", c.id));
        }
        ConversationCommand::Model { id, model } => {
            let c = conversations::branches::set_model(ctx, &id, model.as_deref()).await?;
            out.emit(&c, |c| match &c.model_id {
                Some(model) => println!("{} answers with {model}", c.id),
                None => println!("{} answers with its agent's model", c.id),
            });
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
