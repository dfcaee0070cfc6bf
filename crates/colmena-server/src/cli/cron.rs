//! `colmena cron`: scheduled jobs (SPEC H25). Without a running scheduler
//! (the app or `colmena serve`), changes are written to the store and the
//! next one to start picks them up; `trigger` needs one running.

use chrono::{DateTime, Utc};
use clap::{ArgGroup, Args, Subcommand, ValueEnum};
use colmena_core::cron::{
    self, CronJob, CronJobUpdate, CronRun, MissedPolicy, NewCronJob, Schedule, Target,
};
use colmena_core::permissions::Risk;
use colmena_core::{AppError, Ctx, Result};

use super::output::{Output, table, yes_no};

#[derive(Debug, Subcommand)]
pub enum CronCommand {
    /// Schedule a job: an agent or a swarm with a prompt, or a role's wake-up.
    Create {
        name: String,
        #[command(flatten)]
        when: When,
        #[command(flatten)]
        target: TargetArgs,
        /// What the agent or swarm is asked each time (for a role: a message
        /// it finds in its inbox).
        #[arg(long)]
        prompt: Option<String>,
        /// What runs missed while no scheduler ran become (default skip).
        #[arg(long, value_enum)]
        missed: Option<Missed>,
        /// Create it paused.
        #[arg(long)]
        paused: bool,
        /// What its runs may also do with nobody watching where the agent
        /// asks: write, run, network, send, act (change other systems:
        /// endpoints that are not GET, remote MCP tools not marked
        /// read-only) — comma-separated. Default none.
        #[arg(long, value_delimiter = ',', num_args = 0.., value_name = "CLASSES")]
        allow: Option<Vec<String>>,
    },
    /// Every job: schedule, target, next run, the latest run.
    List,
    /// One job and its next runs, in its time zone and in local time.
    Show { id: String },
    /// Change a job: only what is given changes.
    Update {
        id: String,
        #[arg(long)]
        name: Option<String>,
        #[command(flatten)]
        when: WhenUpdate,
        #[command(flatten)]
        target: TargetUpdate,
        #[arg(long)]
        prompt: Option<String>,
        #[arg(long, value_enum)]
        missed: Option<Missed>,
        /// Replaces what its runs may do with nobody watching: write, run,
        /// network, send, act (change other systems) — comma-separated; ""
        /// for none.
        #[arg(long, value_delimiter = ',', num_args = 0.., value_name = "CLASSES")]
        allow: Option<Vec<String>>,
    },
    /// Delete a job and its history.
    Delete { id: String },
    /// Stop a job until it is resumed.
    Pause { id: String },
    /// Resume a paused job; its next run counts from now.
    Resume { id: String },
    /// Run a job now, through the running scheduler (the app or `colmena serve`).
    Trigger { id: String },
    /// A job's runs, newest first.
    History {
        id: String,
        #[arg(long, default_value_t = 20)]
        limit: u32,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Missed {
    Skip,
    RunOnce,
}

impl From<Missed> for MissedPolicy {
    fn from(m: Missed) -> MissedPolicy {
        match m {
            Missed::Skip => MissedPolicy::Skip,
            Missed::RunOnce => MissedPolicy::RunOnce,
        }
    }
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("when").required(true).args(["cron", "every"])))]
pub struct When {
    /// A cron expression of five fields, read in --tz ("0 9 * * 1-5").
    #[arg(long, value_name = "EXPR")]
    cron: Option<String>,
    /// An interval: 90s, 15m, 2h, 1d (or seconds).
    #[arg(long, value_name = "INTERVAL")]
    every: Option<String>,
    /// IANA time zone (default: this computer's).
    #[arg(long, value_name = "ZONE")]
    tz: Option<String>,
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("when_update").args(["cron", "every"])))]
pub struct WhenUpdate {
    #[arg(long, value_name = "EXPR")]
    cron: Option<String>,
    #[arg(long, value_name = "INTERVAL")]
    every: Option<String>,
    #[arg(long, value_name = "ZONE")]
    tz: Option<String>,
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("target").required(true).args(["agent", "swarm", "role"])))]
pub struct TargetArgs {
    /// Run this agent with the prompt.
    #[arg(long, value_name = "AGENT_ID")]
    agent: Option<String>,
    /// Run this swarm with the prompt.
    #[arg(long, value_name = "SWARM_ID")]
    swarm: Option<String>,
    /// Wake this bus role.
    #[arg(long, value_name = "ROLE_ID")]
    role: Option<String>,
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("target_update").args(["agent", "swarm", "role"])))]
pub struct TargetUpdate {
    #[arg(long, value_name = "AGENT_ID")]
    agent: Option<String>,
    #[arg(long, value_name = "SWARM_ID")]
    swarm: Option<String>,
    #[arg(long, value_name = "ROLE_ID")]
    role: Option<String>,
}

fn target(agent: Option<String>, swarm: Option<String>, role: Option<String>) -> Option<Target> {
    agent
        .map(|id| Target::Agent { id })
        .or_else(|| swarm.map(|id| Target::Swarm { id }))
        .or_else(|| role.map(|id| Target::Role { id }))
}

/// "90s", "15m", "2h", "1d" or a number of seconds.
fn every(text: &str) -> Result<u32> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let factor = match unit.trim() {
        "s" | "sec" | "seconds" => 1,
        "m" | "min" | "minutes" => 60,
        "h" | "hours" => 3600,
        "d" | "days" => 86_400,
        _ => 0,
    };
    number
        .parse::<u32>()
        .ok()
        .and_then(|n| n.checked_mul(factor))
        .filter(|n| *n > 0)
        .ok_or_else(|| {
            AppError::invalid_field(
                "schedule",
                "invalid_interval",
                format!("'{text}' is not an interval such as 90s, 15m, 2h or 1d"),
            )
        })
}

fn schedule(cron: Option<String>, every_text: Option<String>) -> Result<Option<Schedule>> {
    if let Some(expression) = cron {
        return Ok(Some(Schedule::Cron { expression }));
    }
    every_text
        .map(|t| every(&t).map(|seconds| Schedule::Interval { seconds }))
        .transpose()
}

fn described(schedule: &Schedule) -> String {
    match schedule {
        Schedule::Cron { expression } => expression.clone(),
        Schedule::Interval { seconds } if seconds % 86_400 == 0 => {
            format!("every {}d", seconds / 86_400)
        }
        Schedule::Interval { seconds } if seconds % 3600 == 0 => {
            format!("every {}h", seconds / 3600)
        }
        Schedule::Interval { seconds } if seconds % 60 == 0 => {
            format!("every {}m", seconds / 60)
        }
        Schedule::Interval { seconds } => format!("every {seconds}s"),
    }
}

/// A time in the job's zone, and in local time when that differs.
fn when_in(at: Option<DateTime<Utc>>, zone: &str) -> String {
    let Some(at) = at else {
        return "-".into();
    };
    let there = match zone.parse::<chrono_tz::Tz>() {
        Ok(tz) => at
            .with_timezone(&tz)
            .format("%Y-%m-%d %H:%M %Z")
            .to_string(),
        Err(_) => at.format("%Y-%m-%d %H:%M UTC").to_string(),
    };
    let local = at
        .with_timezone(&chrono::Local)
        .format("%Y-%m-%d %H:%M %:z")
        .to_string();
    let local_zone = cron::local_time_zone();
    if local_zone == zone {
        there
    } else {
        format!("{there} (local {local})")
    }
}

fn target_text(job: &CronJob) -> String {
    let name = job.target_name.as_deref().unwrap_or("missing!");
    format!("{} {} ({name})", job.target.kind(), job.target.id())
}

/// `--allow network,write`: the classes a person allows the job's runs
/// (reading needs no grant, so naming it is refused).
fn allowed(list: &[String]) -> Result<Vec<Risk>> {
    let risks = super::author::risks(list)?;
    if risks.contains(&Risk::Read) {
        return Err(AppError::invalid_field(
            "unattended",
            "unknown_risk",
            "'read' is not a class: use write, run, network, send or act",
        ));
    }
    Ok(risks)
}

fn allowed_text(job: &CronJob) -> String {
    super::author::grant_text(&job.unattended)
}

fn print_jobs(list: &[CronJob]) {
    table(
        &[
            "id", "name", "schedule", "zone", "target", "paused", "next run", "last",
        ],
        list.iter()
            .map(|j| {
                vec![
                    j.id.clone(),
                    j.name.clone(),
                    described(&j.schedule),
                    j.time_zone.clone(),
                    target_text(j),
                    yes_no(j.paused),
                    when_in(j.next_run_at, &j.time_zone),
                    j.last
                        .as_ref()
                        .map_or("-".into(), |l| l.status.as_str().to_owned()),
                ]
            })
            .collect(),
    );
}

fn print_history(list: &[CronRun], zone: &str) {
    table(
        &[
            "#",
            "trigger",
            "started",
            "status",
            "duration",
            "run",
            "error / note",
        ],
        list.iter()
            .map(|h| {
                vec![
                    h.id.to_string(),
                    h.trigger.as_str().to_owned(),
                    when_in(Some(h.started_at), zone),
                    h.status.as_str().to_owned(),
                    h.duration_ms
                        .map_or("-".into(), |ms| format!("{:.1}s", ms as f64 / 1000.0)),
                    h.run_id.clone().unwrap_or_else(|| "-".into()),
                    h.error
                        .clone()
                        .or_else(|| h.note.clone())
                        .unwrap_or_default()
                        .chars()
                        .take(100)
                        .collect(),
                ]
            })
            .collect(),
    );
}

/// The scheduler hint after a change, for people (JSON stays the job).
async fn where_it_runs(ctx: &Ctx) -> Result<&'static str> {
    Ok(if cron::has_scheduler(ctx).await?.running {
        "a running scheduler has it"
    } else {
        "no scheduler runs now: the app or `colmena serve` picks it up when it starts"
    })
}

pub async fn run(ctx: &Ctx, out: &Output, command: CronCommand) -> Result<()> {
    match command {
        CronCommand::Create {
            name,
            when,
            target: t,
            prompt,
            missed,
            paused,
            allow,
        } => {
            let Some(schedule) = schedule(when.cron, when.every)? else {
                return Err(AppError::invalid_field(
                    "schedule",
                    "required",
                    "give --cron or --every",
                ));
            };
            let Some(target) = target(t.agent, t.swarm, t.role) else {
                return Err(AppError::invalid_field(
                    "target",
                    "required",
                    "give --agent, --swarm or --role",
                ));
            };
            let job = cron::create(
                ctx,
                NewCronJob {
                    name,
                    schedule,
                    time_zone: when.tz,
                    target,
                    prompt,
                    missed: missed.map(Into::into),
                    paused: Some(paused),
                    unattended: allow.as_deref().map(allowed).transpose()?,
                },
            )
            .await?;
            let hint = where_it_runs(ctx).await?;
            out.emit(&job, |j| {
                println!(
                    "scheduled {} ({}): {}",
                    j.id,
                    j.name,
                    described(&j.schedule)
                );
                println!("next run: {}", when_in(j.next_run_at, &j.time_zone));
                println!("{hint}");
            });
        }
        CronCommand::List => {
            let list = cron::list(ctx).await?;
            out.emit(&list, |list| print_jobs(list));
        }
        CronCommand::Show { id } => {
            let job = cron::get(ctx, &id).await?;
            let next = if job.paused {
                Vec::new()
            } else {
                cron::preview(ctx, job.schedule.clone(), job.time_zone.clone(), 3).await?
            };
            out.emit(&job, |j| {
                print_jobs(std::slice::from_ref(j));
                println!(
                    "prompt: {}",
                    if j.prompt.is_empty() { "-" } else { &j.prompt }
                );
                println!("missed runs: {}", j.missed.as_str());
                println!("with nobody watching, may also: {}", allowed_text(j));
                for at in &next {
                    println!("  then {}", when_in(Some(*at), &j.time_zone));
                }
            });
        }
        CronCommand::Update {
            id,
            name,
            when,
            target: t,
            prompt,
            missed,
            allow,
        } => {
            let changes = CronJobUpdate {
                name,
                schedule: schedule(when.cron, when.every)?,
                time_zone: when.tz,
                target: target(t.agent, t.swarm, t.role),
                prompt,
                missed: missed.map(Into::into),
                unattended: allow.as_deref().map(allowed).transpose()?,
            };
            let job = cron::update(ctx, &id, changes).await?;
            out.emit(&job, |j| print_jobs(std::slice::from_ref(j)));
        }
        CronCommand::Delete { id } => {
            cron::delete(ctx, &id).await?;
            out.done(&format!("deleted scheduled job {id}"));
        }
        CronCommand::Pause { id } => {
            let job = cron::pause(ctx, &id).await?;
            out.emit(&job, |j| println!("paused {}", j.id));
        }
        CronCommand::Resume { id } => {
            let job = cron::resume(ctx, &id).await?;
            out.emit(&job, |j| {
                println!(
                    "resumed {}: next run {}",
                    j.id,
                    when_in(j.next_run_at, &j.time_zone)
                )
            });
        }
        CronCommand::Trigger { id } => {
            let receipt = cron::trigger(ctx, &id).await?;
            out.emit(&receipt, |r| {
                println!(
                    "asked the scheduler {} to run {} now; see `colmena cron history {}`",
                    if r.here {
                        "of this process"
                    } else {
                        "that is running"
                    },
                    r.job_id,
                    r.job_id
                )
            });
        }
        CronCommand::History { id, limit } => {
            let job = cron::get(ctx, &id).await?;
            let list = cron::history(ctx, &id, Some(limit)).await?;
            out.emit(&list, |list| print_history(list, &job.time_zone));
        }
    }
    Ok(())
}
