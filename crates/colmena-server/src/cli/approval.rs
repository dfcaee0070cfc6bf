//! `colmena approval`: the permission gate's questions, answered from a
//! terminal (a run started with `colmena agent run` waits here too).

use clap::Subcommand;
use colmena_core::permissions::approvals::{self, Approval, Decision};
use colmena_core::runtime::resume;
use colmena_core::{Caller, Ctx, Result};

use super::output::{Output, table};

#[derive(Debug, Subcommand)]
pub enum ApprovalCommand {
    /// Tool calls waiting for a person.
    List,
    /// One call in full: the tool, its class and every argument.
    Show { id: String },
    /// Let this call run.
    Allow {
        id: String,
        /// Also every later call of the same tool in the same run.
        #[arg(long)]
        for_run: bool,
    },
    /// Refuse this call; the agent is told it was denied.
    Deny { id: String },
}

pub async fn run(ctx: &Ctx, out: &Output, command: ApprovalCommand) -> Result<()> {
    let me = Caller::cli(ctx, None);
    let (id, decision) = match command {
        ApprovalCommand::List => {
            let list = approvals::pending(ctx).await?;
            out.emit(&list, |list| print(list));
            return Ok(());
        }
        ApprovalCommand::Show { id } => {
            let approval = approvals::get(ctx, &id).await?;
            out.emit(&approval, |a| {
                println!(
                    "{} asks to use {} ({}) in run {}: {}",
                    a.agent_id,
                    a.tool,
                    a.risk.described(),
                    a.run_id,
                    a.status.as_str()
                );
                let pretty = serde_json::from_str::<serde_json::Value>(&a.arguments)
                    .and_then(|v| serde_json::to_string_pretty(&v))
                    .unwrap_or_else(|_| a.arguments.clone());
                println!("{pretty}");
            });
            return Ok(());
        }
        ApprovalCommand::Allow { id, for_run: true } => (id, Decision::AllowRun),
        ApprovalCommand::Allow { id, for_run: false } => (id, Decision::AllowOnce),
        ApprovalCommand::Deny { id } => (id, Decision::Deny),
    };
    let decided = resume::decide(ctx, &me, &id, decision).await?;
    // A run whose process had stopped goes on here: this process waits for
    // it rather than cut it off again by exiting.
    let resumed = match decided.resumed {
        Some(handle) => handle.await.ok().and_then(Result::ok),
        None => None,
    };
    out.emit(&decided.approval, |a| {
        println!(
            "{} {} in run {}: {}",
            a.agent_id,
            a.tool,
            a.run_id,
            a.status.as_str()
        );
        if let Some(run) = &resumed {
            println!(
                "the run had stopped; it went on here and ended {}{}",
                run.status.as_str(),
                run.output
                    .as_deref()
                    .map(|o| format!(": {o}"))
                    .unwrap_or_default()
            );
        }
    });
    Ok(())
}

fn print(list: &[Approval]) {
    table(
        &["id", "run", "agent", "tool", "class", "arguments"],
        list.iter()
            .map(|a| {
                vec![
                    a.id.clone(),
                    a.run_id.clone(),
                    a.agent_id.clone(),
                    a.tool.clone(),
                    a.risk.as_str().to_owned(),
                    a.arguments.replace('\n', " ").chars().take(60).collect(),
                ]
            })
            .collect(),
    );
}
