use clap::Subcommand;
use colmena_core::ethics::{self, EthicsDraft, EthicsRule};
use colmena_core::{Ctx, Result};

use super::output::{Output, SwitchArgs, table, yes_no};

#[derive(Debug, Subcommand)]
pub enum EthicsCommand {
    List,
    /// Add a rule at the end.
    Add {
        title: String,
        rule: String,
    },
    Update {
        id: String,
        title: String,
        rule: String,
    },
    /// Switch a rule on or off (flips it without --on/--off).
    Toggle {
        id: String,
        #[command(flatten)]
        switch: SwitchArgs,
    },
    Remove {
        id: String,
    },
}

pub async fn run(ctx: &Ctx, out: &Output, command: EthicsCommand) -> Result<()> {
    match command {
        EthicsCommand::List => {
            let list = ethics::list(ctx).await?;
            out.emit(&list, |l| print_table(l));
        }
        EthicsCommand::Add { title, rule } => {
            let created = ethics::create(ctx, EthicsDraft { title, rule }).await?;
            out.emit(&created, |r| println!("added rule {}", r.id));
        }
        EthicsCommand::Update { id, title, rule } => {
            let updated = ethics::update(ctx, &id, EthicsDraft { title, rule }).await?;
            out.emit(&updated, |r| println!("updated rule {}", r.id));
        }
        EthicsCommand::Toggle { id, switch } => {
            let rule = ethics::switch(ctx, &id, switch.target()).await?;
            out.emit(&rule, |r| {
                println!(
                    "rule {} is {}",
                    r.id,
                    if r.active { "active" } else { "inactive" }
                )
            });
        }
        EthicsCommand::Remove { id } => {
            ethics::delete(ctx, &id).await?;
            out.done(&format!("removed rule {id}"));
        }
    }
    Ok(())
}

fn print_table(list: &[EthicsRule]) {
    table(
        &["id", "title", "active", "rule"],
        list.iter()
            .map(|r| {
                vec![
                    r.id.clone(),
                    r.title.clone(),
                    yes_no(r.active),
                    r.rule.clone(),
                ]
            })
            .collect(),
    );
}
