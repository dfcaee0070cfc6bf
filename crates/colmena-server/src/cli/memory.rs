use std::io::Read;

use clap::{Args, Subcommand};
use colmena_core::memory::{self, Memory};
use colmena_core::{AppError, Caller, Ctx, Result};

use super::output::{Output, table};

#[derive(Debug, Args)]
pub struct MemoryArgs {
    /// Whose memory (default: the workspace owner).
    #[arg(long, global = true, conflicts_with = "role")]
    user: Option<String>,
    /// A role's own memories instead: what its woken agent saved (issue 15).
    #[arg(long, global = true, value_name = "AUTHOR_ID")]
    role: Option<String>,
    #[command(subcommand)]
    command: MemoryCommand,
}

#[derive(Debug, Subcommand)]
pub enum MemoryCommand {
    /// Save or replace a memory; the content is the argument or stdin.
    Write {
        title: String,
        content: Option<String>,
    },
    Read {
        title: String,
    },
    /// The user's memories, most recent first.
    List {
        #[arg(long, default_value_t = 100)]
        limit: u32,
        #[arg(long, default_value_t = 0)]
        offset: u32,
    },
    /// BM25 search over the user's memories.
    Search {
        query: String,
        #[arg(long, default_value_t = 20)]
        limit: u32,
    },
    Delete {
        title: String,
    },
}

pub async fn run(ctx: &Ctx, out: &Output, args: MemoryArgs) -> Result<()> {
    let me = Caller::cli(ctx, args.user.as_deref());
    let me = match args.role.as_deref() {
        Some(role) => memory::role_caller(ctx, &me, role).await?,
        None => me,
    };
    let user = &me;
    match args.command {
        MemoryCommand::Write { title, content } => {
            let content = match content {
                Some(content) => content,
                None => {
                    let mut text = String::new();
                    std::io::stdin()
                        .read_to_string(&mut text)
                        .map_err(|e| AppError::internal(format!("cannot read stdin: {e}")))?;
                    text
                }
            };
            let memory = memory::write(ctx, user, &title, &content).await?;
            out.emit(&memory, |m| println!("saved {}", m.id));
        }
        MemoryCommand::Read { title } => {
            let memory = memory::read(ctx, user, &title).await?;
            out.emit(&memory, |m| println!("{}", m.content));
        }
        MemoryCommand::List { limit, offset } => {
            let list = memory::list(ctx, user, Some(limit), Some(offset)).await?;
            out.emit(&list, |list| print_table(list));
        }
        MemoryCommand::Search { query, limit } => {
            let hits = memory::search(ctx, user, &query, Some(limit)).await?;
            out.emit(&hits, |hits| {
                if hits.is_empty() {
                    println!("(no match)");
                }
                for hit in hits {
                    let snippet: String = hit
                        .snippet
                        .iter()
                        .map(|p| {
                            if p.highlighted {
                                format!("**{}**", p.text)
                            } else {
                                p.text.clone()
                            }
                        })
                        .collect();
                    println!(
                        "{} ({:.2})\n  {}",
                        hit.memory.title,
                        hit.score,
                        snippet.replace('\n', " ")
                    );
                }
            });
        }
        MemoryCommand::Delete { title } => {
            memory::delete(ctx, user, &title).await?;
            out.done(&format!("deleted memory {title}"));
        }
    }
    Ok(())
}

fn print_table(list: &[Memory]) {
    table(
        &["title", "updated", "content"],
        list.iter()
            .map(|m| {
                let mut content: String = m.content.chars().take(60).collect();
                if m.content.chars().count() > 60 {
                    content.push('…');
                }
                vec![
                    m.title.clone(),
                    m.updated_at.format("%Y-%m-%d %H:%M").to_string(),
                    content.replace('\n', " "),
                ]
            })
            .collect(),
    );
}
