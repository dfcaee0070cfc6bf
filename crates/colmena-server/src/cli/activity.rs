//! `colmena activity`: the timeline of everything that ran for you, as the
//! Activity view shows it (one core query, `contracts::activity`).

use chrono::{DateTime, Local, Utc};
use clap::Args;
use colmena_core::activity::{ActivityEntry, ActivityFilter, ActivityKind, ActivityPage, Starter};
use colmena_core::caller::Caller;
use colmena_core::contracts::activity;
use colmena_core::{AppError, Ctx, Result};

use super::output::{Output, table};

#[derive(Debug, Args)]
pub struct ActivityArgs {
    /// Only these kinds: generation, chat, agent, swarm, job, wake_up, approval.
    #[arg(long = "kind", value_name = "KIND")]
    kinds: Vec<String>,
    /// Only what waits for you: approvals, and cut-off runs to resume.
    #[arg(long)]
    needs_you: bool,
    /// Entries before this time (RFC 3339), to page back.
    #[arg(long)]
    before: Option<DateTime<Utc>>,
    #[arg(long, default_value_t = 20)]
    limit: u32,
    /// Whose timeline (default: the owner).
    #[arg(long)]
    user: Option<String>,
}

pub async fn run(ctx: &Ctx, out: &Output, args: ActivityArgs) -> Result<()> {
    let kinds = args
        .kinds
        .iter()
        .map(|k| {
            ActivityKind::parse(k).ok_or_else(|| {
                AppError::invalid_field(
                    "kind",
                    "unknown_kind",
                    format!("no kind of activity is called '{k}'"),
                )
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let filter = ActivityFilter {
        kinds,
        needs_you: args.needs_you,
        before: args.before,
        limit: Some(args.limit),
    };
    let page = activity::timeline(ctx, &Caller::cli(ctx, args.user.as_deref()), filter).await?;
    out.emit(&page, print_page);
    Ok(())
}

fn print_page(page: &ActivityPage) {
    println!(
        "today: {} runs, {} failed, {} tokens · 7 days: {} runs, {} failed, {} tokens · waiting for you: {}",
        page.today.runs,
        page.today.failures,
        page.today.tokens,
        page.week.runs,
        page.week.failures,
        page.week.tokens,
        page.waiting
    );
    table(
        &["when", "kind", "what", "status", "started by", "result"],
        page.entries.iter().map(row).collect(),
    );
    if let Some(last) = page.entries.last().filter(|_| page.more) {
        println!("more: --before {}", last.at.to_rfc3339());
    }
}

fn row(e: &ActivityEntry) -> Vec<String> {
    let by = match &e.started_by {
        Starter::Person { name, client, .. } => match client {
            Some(client) => format!("{name} ({})", client.as_str()),
            None => name.clone(),
        },
        Starter::Job { name, .. } => format!("job {name}"),
        Starter::Role { name, .. } => format!("role {name}"),
    };
    let what = e.title.clone().unwrap_or_else(|| "(untitled)".into());
    let result = e
        .tool
        .clone()
        .or_else(|| e.preview.clone())
        .unwrap_or_default()
        .replace('\n', " ")
        .chars()
        .take(50)
        .collect();
    vec![
        e.at.with_timezone(&Local)
            .format("%Y-%m-%d %H:%M")
            .to_string(),
        e.kind.as_str().to_owned(),
        what,
        e.status.as_str().to_owned(),
        by,
        result,
    ]
}
