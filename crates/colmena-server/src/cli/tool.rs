use clap::Subcommand;
use colmena_core::tools::{self, Tool, ToolFilter, ToolMetadata};
use colmena_core::{Ctx, Result};

use super::output::{Output, SwitchArgs, table, yes_no};

#[derive(Debug, Subcommand)]
pub enum ToolCommand {
    /// List tools.
    List {
        #[arg(long)]
        category: Option<String>,
        #[arg(long)]
        active: bool,
    },
    /// Show one tool with its argument schema.
    Show { id: String },
    /// Switch a tool on or off (flips it without --on/--off).
    Toggle {
        id: String,
        #[command(flatten)]
        switch: SwitchArgs,
    },
    /// Change the shown name or description ("" restores the original).
    Update {
        id: String,
        #[arg(long)]
        display_name: Option<String>,
        #[arg(long)]
        description: Option<String>,
    },
    /// What tool patterns expand to.
    Expand { patterns: Vec<String> },
}

pub async fn run(ctx: &Ctx, out: &Output, command: ToolCommand) -> Result<()> {
    match command {
        ToolCommand::List { category, active } => {
            let list = tools::list(
                ctx,
                ToolFilter {
                    category,
                    active_only: active,
                },
            )
            .await?;
            out.emit(&list, |list| print_table(list));
        }
        ToolCommand::Show { id } => {
            let tool = tools::get(ctx, &id).await?;
            out.emit(&tool, |t| {
                println!(
                    "{} ({}) — {}",
                    t.id,
                    t.category,
                    if t.active { "active" } else { "inactive" }
                );
                println!("{}\n", t.description);
                println!(
                    "{}",
                    serde_json::to_string_pretty(&t.parameters).unwrap_or_default()
                );
            });
        }
        ToolCommand::Toggle { id, switch } => {
            let tool = tools::switch(ctx, &id, switch.target()).await?;
            out.emit(&tool, |t| {
                println!(
                    "tool {} is {}",
                    t.id,
                    if t.active { "active" } else { "inactive" }
                )
            });
        }
        ToolCommand::Update {
            id,
            display_name,
            description,
        } => {
            let tool = tools::update_metadata(
                ctx,
                &id,
                ToolMetadata {
                    display_name,
                    description,
                },
            )
            .await?;
            out.emit(&tool, |t| println!("updated tool {}", t.id));
        }
        ToolCommand::Expand { patterns } => {
            let expansion = tools::expand(ctx, patterns).await?;
            out.emit(&expansion, |e| {
                for m in &e.patterns {
                    println!(
                        "{:<14} {}",
                        m.pattern,
                        if m.tools.is_empty() {
                            "(matches nothing)".into()
                        } else {
                            m.tools.join(" ")
                        }
                    );
                }
                for invalid in &e.invalid {
                    println!("invalid: {invalid}");
                }
            });
        }
    }
    Ok(())
}

fn print_table(list: &[Tool]) {
    table(
        &["id", "category", "active", "minimal", "description"],
        list.iter()
            .map(|t| {
                let mut description: String = t.description.chars().take(70).collect();
                if t.description.chars().count() > 70 {
                    description.push('…');
                }
                vec![
                    t.id.clone(),
                    t.category.clone(),
                    yes_no(t.active),
                    yes_no(t.minimal),
                    description,
                ]
            })
            .collect(),
    );
}
