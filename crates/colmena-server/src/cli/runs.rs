use clap::{Subcommand, ValueEnum};
use colmena_core::runs::{self, Run, RunDetail, RunFilter, RunKind, RunStatus};
use colmena_core::runtime::resume;
use colmena_core::{Ctx, Result};

use super::output::{Output, table};
use super::stream::{RunPrinter, outcome, watch};

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum StatusArg {
    Running,
    Completed,
    Failed,
    Cancelled,
    Interrupted,
}

impl From<StatusArg> for RunStatus {
    fn from(value: StatusArg) -> RunStatus {
        match value {
            StatusArg::Running => RunStatus::Running,
            StatusArg::Completed => RunStatus::Completed,
            StatusArg::Failed => RunStatus::Failed,
            StatusArg::Cancelled => RunStatus::Cancelled,
            StatusArg::Interrupted => RunStatus::Interrupted,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum RunsCommand {
    /// Runs, most recent first.
    List {
        #[arg(long, value_enum)]
        status: Option<StatusArg>,
        /// Only runs of this agent or swarm.
        #[arg(long)]
        target: Option<String>,
        /// Also runs started by other runs (delegations).
        #[arg(long)]
        all: bool,
        #[arg(long, default_value_t = 20)]
        limit: u32,
    },
    /// One run: its steps and the runs it started.
    Show { id: String },
    /// Interrupted runs that can go on from their checkpoint.
    Resumable,
    /// Go on with an interrupted run from its checkpoint.
    Resume { id: String },
    /// Stop a running run (also one running in the app).
    Cancel { id: String },
    /// Give up an interrupted run.
    Discard { id: String },
}

pub async fn run(ctx: &Ctx, out: &Output, command: RunsCommand) -> Result<()> {
    match command {
        RunsCommand::List {
            status,
            target,
            all,
            limit,
        } => {
            let filter = RunFilter {
                status: status.map(Into::into),
                target_id: target,
                include_children: all,
                limit: Some(limit),
                ..Default::default()
            };
            let list = runs::list(ctx, filter).await?;
            out.emit(&list, |list| print_runs(list));
        }
        RunsCommand::Show { id } => {
            let detail = runs::get(ctx, &id).await?;
            out.emit(&detail, print_detail);
        }
        RunsCommand::Resumable => {
            let list = runs::resumable(ctx).await?;
            out.emit(&list, |list| print_runs(list));
        }
        RunsCommand::Resume { id } => {
            let printer = RunPrinter::new(out.json);
            let run = watch(ctx, &printer, resume::resume_run(ctx, &id, printer.sink())).await?;
            outcome(run, out.json)?;
        }
        RunsCommand::Cancel { id } => {
            runs::cancel(ctx, &id).await?;
            out.done(&format!("asked run {id} to stop"));
        }
        RunsCommand::Discard { id } => {
            let run = runs::discard(ctx, &id).await?;
            out.emit(&run, |r| println!("run {} discarded", r.id));
        }
    }
    Ok(())
}

fn kind(run: &Run) -> &'static str {
    match run.kind {
        RunKind::Agent => "agent",
        RunKind::Swarm => "swarm",
    }
}

pub fn print_runs(list: &[Run]) {
    table(
        &["id", "kind", "target", "status", "started", "input"],
        list.iter()
            .map(|r| {
                vec![
                    r.id.clone(),
                    kind(r).to_owned(),
                    r.target_id.clone(),
                    r.status.as_str().to_owned(),
                    r.started_at.format("%Y-%m-%d %H:%M:%S").to_string(),
                    r.input.replace('\n', " ").chars().take(40).collect(),
                ]
            })
            .collect(),
    );
}

fn print_detail(detail: &RunDetail) {
    let run = &detail.run;
    println!(
        "run {} — {} {} — {}",
        run.id,
        kind(run),
        run.target_id,
        run.status.as_str()
    );
    println!("input: {}", run.input);
    for step in &detail.steps {
        let who = step.agent_id.as_deref().unwrap_or("-");
        let body = match step.kind.as_str() {
            "message" => step.content["text"].as_str().unwrap_or_default().to_owned(),
            "tool_result" => format!(
                "{} → {}",
                step.content["name"].as_str().unwrap_or_default(),
                step.content["output"].as_str().unwrap_or_default()
            ),
            _ => step.content.to_string(),
        };
        let body: String = body.replace('\n', " ").chars().take(120).collect();
        println!("  {:>3} {:<13} [{who}] {body}", step.seq, step.kind);
    }
    for child in &detail.children {
        println!(
            "  ↳ run {} ({} {}, {})",
            child.id,
            kind(child),
            child.target_id,
            child.status.as_str()
        );
    }
    if let Some(output) = &run.output {
        println!("output: {output}");
    }
    if let Some(error) = &run.error {
        println!("error ({}): {}", error.code.as_str(), error.message);
    }
}
