//! Activity (issue 37): one timeline of everything that ran — a canvas
//! generation, a chat, an agent run, a swarm run, a job's fire, a role's
//! wake-up and an approval waiting — each once, by name, with who started
//! it; its filters, pages and figures; "since you last looked"; and a
//! role's token, which has no timeline. Everything runs for real against
//! the scripted provider.

#![allow(clippy::unwrap_used)]

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use colmena_core::activity::{
    self, ActivityFilter, ActivityKind, ActivityPage, ActivityStatus, Starter,
};
use colmena_core::caller::{Actor, Caller, Client};
use colmena_core::canvas::generate::{self, no_events};
use colmena_core::canvas::variants::{self, NewVariant};
use colmena_core::canvas::{self};
use colmena_core::cron::scheduler::Scheduler;
use colmena_core::cron::{self, ManualClock, NewCronJob, Schedule, Target};
use colmena_core::inbox::{self, NewAuthor};
use colmena_core::permissions::approvals;
use colmena_core::runtime::agent::{AgentRunOptions, run_agent};
use colmena_core::runtime::chat;
use colmena_core::swarms::run::{SwarmRunOptions, run as run_swarm};
use colmena_core::swarms::{self, MemberInput, MemberRole, NewSwarm, Strategy};
use colmena_core::{Ctx, ErrorCode, conversations};
use colmena_scripted_llm::Rule;
use support::hive::{agent, hive, when, when_system};

const WORKER: &str = "You are the worker.";
const WRITER: &str = "You write notes.";

async fn page(ctx: &Ctx, filter: ActivityFilter) -> ActivityPage {
    activity::timeline(ctx, &Caller::ui(ctx), filter)
        .await
        .unwrap()
}

/// Waits (a hang guard, not a timing claim) until an approval is pending.
async fn an_approval_waits(ctx: &Ctx) {
    let started = Instant::now();
    while approvals::pending(ctx).await.unwrap().is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no approval was asked for"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn one_timeline_holds_every_kind_once_by_name_with_who_started_it() {
    let (ws, _llm) = hive(vec![
        Rule::tool_call("fs_write", r#"{"path": "a.txt", "content": "x"}"#)
            .when(when(WRITER, 0))
            .repeat(),
        Rule::text("Done: the news in three lines.")
            .when(when_system(WORKER))
            .repeat(),
        Rule::text("Bees make honey.").repeat(),
    ])
    .await;
    let ctx = &ws.ctx;
    let me = Caller::ui(ctx);
    let worker = agent(ctx, "Worker", WORKER, &[]).await;
    let page0 = page(ctx, ActivityFilter::default()).await;
    assert!(page0.entries.is_empty());
    assert!(page0.since_seen.is_none(), "never looked yet");

    // A canvas generation.
    let c = canvas::create(ctx, &me, Some("Morning brief".into()))
        .await
        .unwrap();
    let v = variants::add_variant(
        ctx,
        &me,
        &c.id,
        NewVariant {
            preset_id: "x-thread".into(),
            prompt: Some("About bees".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    generate::generate_variant(ctx, &me, &v.id, no_events())
        .await
        .unwrap();
    // An agent run from the command line.
    let agent_run = run_agent(
        ctx,
        &worker,
        "Summarise the news",
        AgentRunOptions::default().through(Client::Cli),
        support::no_events(),
    )
    .await
    .unwrap();
    // A chat.
    let talk = conversations::create_web_conversation(ctx, None, Some(worker.as_str()))
        .await
        .unwrap();
    let chat_run = chat::send(
        ctx,
        &talk.id,
        None,
        "Hello there",
        None,
        support::no_events(),
    )
    .await
    .unwrap();
    // A swarm run.
    swarms::create(
        ctx,
        NewSwarm {
            name: "Newsroom".into(),
            strategy: Some(Strategy::Sequential),
            members: vec![MemberInput {
                agent_id: worker.clone(),
                order_index: None,
                role: Some(MemberRole::Member),
            }],
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let swarm_run = run_swarm(
        ctx,
        "newsroom",
        "Cover the fair",
        SwarmRunOptions::default().through(Client::Ui),
        support::no_events(),
    )
    .await
    .unwrap();
    // A job's fire, asked with "Run now".
    cron::create(
        ctx,
        NewCronJob {
            name: "Digest".into(),
            schedule: Schedule::Interval { seconds: 3600 },
            time_zone: Some("UTC".into()),
            target: Target::Agent {
                id: worker.to_string(),
            },
            prompt: Some("Write the digest.".into()),
            missed: None,
            paused: None,
            unattended: None,
        },
    )
    .await
    .unwrap();
    let scheduler = Scheduler::start(ctx, Arc::new(ManualClock::new(Utc::now())))
        .await
        .unwrap();
    cron::trigger(ctx, "digest").await.unwrap();
    scheduler.tick().await.unwrap().finished().await;
    let fired = cron::history(ctx, "digest", None).await.unwrap();
    let job_run = fired[0].run_id.clone().unwrap();
    // A role's wake-up.
    let ambrosio = inbox::authors::create(
        ctx,
        NewAuthor {
            name: "Ambrosio".into(),
            agent_id: Some(worker.to_string()),
            wake_interval_minutes: Some(60),
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .author;
    let ana = support::bus::author(ctx, "Ana", None).await.author;
    support::bus::send(ctx, &ana.id, &ambrosio.id, "What is new?", "normal").await;
    colmena_core::roles::wakes::wake_now(ctx, &ambrosio.id)
        .await
        .unwrap();
    // An approval waiting.
    colmena_core::tools::set_active(ctx, "fs_write", true)
        .await
        .unwrap();
    let writer = agent(ctx, "Writer", WRITER, &["fs_write"]).await;
    let waiting = {
        let (ctx, writer) = (ctx.clone(), writer.clone());
        tokio::spawn(async move {
            run_agent(
                &ctx,
                &writer,
                "Take a note",
                AgentRunOptions::default().through(Client::Ui),
                support::no_events(),
            )
            .await
        })
    };
    an_approval_waits(ctx).await;

    let all = page(ctx, ActivityFilter::default()).await;
    let kinds: Vec<ActivityKind> = all.entries.iter().map(|e| e.kind).collect();
    for kind in ActivityKind::ALL {
        assert!(kinds.contains(&kind), "{kind:?} is missing from {kinds:?}");
    }
    // Newest first.
    assert!(all.entries.windows(2).all(|w| w[0].at >= w[1].at));
    // A run a job or a wake-up started is that entry, not a second one.
    let of_run = |id: &str| {
        all.entries
            .iter()
            .filter(|e| e.link.run_id.as_deref() == Some(id))
            .map(|e| e.kind)
            .collect::<Vec<_>>()
    };
    assert_eq!(of_run(&job_run), vec![ActivityKind::Job]);
    assert_eq!(
        all.entries
            .iter()
            .filter(|e| e.kind == ActivityKind::Agent)
            .count(),
        2,
        "the command line's run and the writer's: {kinds:?}"
    );
    let wake = all
        .entries
        .iter()
        .find(|e| e.kind == ActivityKind::WakeUp)
        .unwrap();
    assert_eq!(
        of_run(wake.link.run_id.as_deref().unwrap()),
        vec![ActivityKind::WakeUp]
    );
    assert_eq!(wake.title.as_deref(), Some("Ambrosio"));
    assert!(
        matches!(&wake.started_by, Starter::Role { name, .. } if name == "Ambrosio"),
        "{:?}",
        wake.started_by
    );

    // Names and who started it.
    let run = all
        .entries
        .iter()
        .find(|e| e.link.run_id.as_deref() == Some(agent_run.id.as_str()))
        .unwrap();
    assert_eq!(run.title.as_deref(), Some("Worker"));
    assert_eq!(run.detail.as_deref(), Some("Summarise the news"));
    assert_eq!(run.status, ActivityStatus::Completed);
    assert_eq!(
        run.preview.as_deref(),
        Some("Done: the news in three lines.")
    );
    assert!(run.usage.prompt_tokens.is_some());
    assert!(run.duration_ms.is_some());
    assert!(
        matches!(
            &run.started_by,
            Starter::Person {
                client: Some(Client::Cli),
                ..
            }
        ),
        "{:?}",
        run.started_by
    );
    let chat = all
        .entries
        .iter()
        .find(|e| e.kind == ActivityKind::Chat)
        .unwrap();
    assert_eq!(chat.link.run_id.as_deref(), Some(chat_run.id.as_str()));
    assert_eq!(chat.link.thread_id.as_deref(), Some(talk.id.as_str()));
    let swarm = all
        .entries
        .iter()
        .find(|e| e.kind == ActivityKind::Swarm)
        .unwrap();
    assert_eq!(swarm.title.as_deref(), Some("Newsroom"));
    assert_eq!(swarm.link.run_id.as_deref(), Some(swarm_run.id.as_str()));
    let job = all
        .entries
        .iter()
        .find(|e| e.kind == ActivityKind::Job)
        .unwrap();
    assert_eq!(job.title.as_deref(), Some("Digest"));
    assert_eq!(
        job.preview.as_deref(),
        Some("Done: the news in three lines.")
    );
    assert!(matches!(&job.started_by, Starter::Job { name, .. } if name == "Digest"));
    let round = all
        .entries
        .iter()
        .find(|e| e.kind == ActivityKind::Generation)
        .unwrap();
    assert_eq!(round.title.as_deref(), Some("Morning brief"));
    assert_eq!(round.preset.as_deref(), Some("x-thread"));
    assert_eq!(round.round, Some(1));
    assert_eq!(round.link.canvas_id.as_deref(), Some(c.id.as_str()));
    assert_eq!(round.preview.as_deref(), Some("Bees make honey."));
    let asked = all
        .entries
        .iter()
        .find(|e| e.kind == ActivityKind::Approval)
        .unwrap();
    assert_eq!(asked.title.as_deref(), Some("Writer"));
    assert_eq!(asked.tool.as_deref(), Some("fs_write"));
    assert_eq!(asked.status, ActivityStatus::Waiting);
    assert!(asked.needs_you);

    // The figures.
    assert_eq!(all.waiting, 1);
    assert!(all.today.runs >= 7, "{:?}", all.today);
    assert!(all.week.runs >= all.today.runs);
    assert_eq!(all.today.failures, 0);
    assert!(all.today.tokens > 0);

    // Filters.
    let needs_you = page(
        ctx,
        ActivityFilter {
            needs_you: true,
            ..Default::default()
        },
    )
    .await;
    assert_eq!(
        needs_you.entries.iter().map(|e| e.kind).collect::<Vec<_>>(),
        vec![ActivityKind::Approval]
    );
    let jobs = page(
        ctx,
        ActivityFilter {
            kinds: vec![ActivityKind::Job, ActivityKind::WakeUp],
            ..Default::default()
        },
    )
    .await;
    assert_eq!(jobs.entries.len(), 2);

    // Pages: two at a time, none twice, none lost.
    let mut seen = Vec::new();
    let mut before = None;
    loop {
        let next = page(
            ctx,
            ActivityFilter {
                before,
                limit: Some(2),
                ..Default::default()
            },
        )
        .await;
        seen.extend(next.entries.iter().map(|e| e.key.clone()));
        if !next.more {
            break;
        }
        before = next.entries.last().map(|e| e.at);
    }
    let keys: Vec<String> = all.entries.iter().map(|e| e.key.clone()).collect();
    assert_eq!(seen, keys);

    // Since you last looked.
    activity::mark_seen(ctx, &me).await.unwrap();
    let after = page(ctx, ActivityFilter::default()).await;
    let since = after.since_seen.unwrap();
    assert_eq!(since.figures.runs, 0, "nothing ran since: {since:?}");

    // The approval decided, the run ends and nothing waits any more.
    let pending = approvals::pending(ctx).await.unwrap().remove(0);
    colmena_core::runtime::resume::decide(ctx, &me, &pending.id, approvals::Decision::Deny)
        .await
        .unwrap();
    waiting.await.unwrap().unwrap();
    let later = page(ctx, ActivityFilter::default()).await;
    assert_eq!(later.waiting, 0);
    assert!(
        later
            .entries
            .iter()
            .all(|e| e.kind != ActivityKind::Approval)
    );
    assert_eq!(
        later.since_seen.unwrap().figures.runs,
        0,
        "the writer started before"
    );
}

#[tokio::test]
async fn a_role_token_has_no_timeline_and_bad_limits_are_refused() {
    let ws = support::workspace().await;
    let ctx = &ws.ctx;
    let role = Caller {
        actor: Actor::Role {
            role: "clonador".into(),
            user: None,
        },
        client: Client::Http,
    };
    let err = activity::timeline(ctx, &role, ActivityFilter::default())
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Forbidden);
    let err = activity::timeline(
        ctx,
        &Caller::ui(ctx),
        ActivityFilter {
            limit: Some(5000),
            ..Default::default()
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    assert_eq!(err.details.unwrap()["reason"], "too_large");
}
