//! No tool pretends (issue 13, item 6): every tool of the built-in catalog
//! is called once, with valid arguments, inside a real agent run against the
//! scripted provider — and what the model receives is the tool's work, not
//! an excuse.
//!
//! The calls are driven by [`catalog::BUILTIN_TOOLS`] itself: a tool added
//! to the catalog without a row in [`cases`] fails here, and so does one
//! whose code answers that it cannot run. The fixtures are real: a git
//! repository with a CSV in the agent's workspace, an image artifact, a
//! page and a SearXNG-format search service on 127.0.0.1, a helper agent to
//! delegate to. The bus tools run where they are honest, in a woken role's
//! run (they speak as the role), not in an ordinary run.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use colmena_core::Caller;
use colmena_core::agents::{self, NewAgent};
use colmena_core::ids::AgentId;
use colmena_core::inbox::{self, NewAuthor};
use colmena_core::runs::{self, RunFilter, RunStatus, RunStep};
use colmena_core::runtime::agent::{AgentRunOptions, run_agent};
use colmena_core::toolbox::catalog;
use colmena_core::tools;
use colmena_core::web_search::{self, WebSearchSettings};
use colmena_core::{Ctx, cron, images, memory, skills};
use colmena_scripted_llm::{Reply, Rule, ScriptedCall, ScriptedLlm};
use serde_json::{Value, json};
use support::hive::{hive, trusted_agent, when, when_system};

/// What a tool that only pretends says.
const PRETENDING: [&str; 5] = [
    "not implemented",
    "not available",
    "cannot run here",
    "not part of this build",
    "no scheduler",
];

const TESTER: &str = "You test every tool.";
const BUS_TESTER: &str = "You test the bus tools.";
const HELPER: &str = "You are the helper.";

const SALES: &str = "region,total\nnorth,10.5\nsouth,4\nnorth,7.25\n";

/// Where a tool is called.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Where {
    /// An ordinary run of the tester.
    Run,
    /// A woken role's run: the bus tools speak as the role.
    Bus,
}

/// One tool's call: its arguments, and text its real answer contains.
struct Case {
    tool: &'static str,
    at: Where,
    args: Value,
    proof: String,
}

fn case(tool: &'static str, args: Value, proof: &str) -> Case {
    Case {
        tool,
        at: Where::Run,
        args,
        proof: proof.to_owned(),
    }
}

fn bus(tool: &'static str, args: Value, proof: &str) -> Case {
    Case {
        at: Where::Bus,
        ..case(tool, args, proof)
    }
}

struct Fixture {
    page: String,
    image: String,
    helper: AgentId,
    /// A scheduler of this process (cron_trigger needs one), on a clock of
    /// its own, that ran the fixture job once.
    _scheduler: Arc<cron::scheduler::Scheduler>,
}

/// Every built-in tool's call. Add a row when you add a tool — with code
/// that really does what its description says.
fn cases(f: &Fixture) -> Vec<Case> {
    vec![
        case(
            "delegate_task",
            json!({ "agent_id": f.helper, "task": "Say hello." }),
            "Hello from the helper.",
        ),
        case("list_agents", json!({}), "\"helper\""),
        case(
            "search_catalog",
            json!({ "query": "csv" }),
            "data_query_csv",
        ),
        case(
            "load_skill",
            json!({ "name": "data-analysis" }),
            "# data-analysis",
        ),
        case("memory_search", json!({ "query": "launch" }), "3 March"),
        case(
            "memory_read",
            json!({ "title": "Launch" }),
            "The launch is on 3 March.",
        ),
        case(
            "memory_write",
            json!({ "title": "Harvest", "content": "Honey in June." }),
            "saved memory 'Harvest'",
        ),
        case(
            "notify_user",
            json!({ "title": "Report ready" }),
            "the user was notified",
        ),
        bus(
            "send_message",
            json!({ "to_author_name": "Ana", "body": "Hecho.", "priority": "normal" }),
            "to ana",
        ),
        bus("read_inbox", json!({}), "¿Listo?"),
        bus("list_sent", json!({}), "Hecho."),
        case(
            "web_search",
            json!({ "query": "bees" }),
            "https://bees.example/honey",
        ),
        case(
            "web_fetch",
            json!({ "url": f.page }),
            "Bees make honey & wax.",
        ),
        case("fs_list", json!({}), "sales.csv"),
        case("fs_read", json!({ "path": "sales.csv" }), "north,10.5"),
        case(
            "fs_write",
            json!({ "path": "notes/todo.txt", "content": "buy honey" }),
            "wrote notes/todo.txt",
        ),
        case("fs_search", json!({ "query": "honey" }), "notes/todo.txt"),
        case(
            "fs_move",
            json!({ "from": "notes/todo.txt", "to": "notes/done.txt" }),
            "moved notes/todo.txt to notes/done.txt",
        ),
        case(
            "fs_delete",
            json!({ "path": "notes/done.txt" }),
            "deleted notes/done.txt",
        ),
        case(
            "cli_exec",
            json!({ "command": "cat", "args": ["sales.csv"] }),
            "south,4",
        ),
        case("git_status", json!({}), "CHANGES.md"),
        case("git_diff", json!({ "path": "sales.csv" }), "+south,4"),
        case("git_log", json!({ "limit": 5 }), "first"),
        case(
            "git_commit",
            json!({ "message": "Add changes", "paths": ["CHANGES.md"] }),
            "exit status: 0",
        ),
        case(
            "data_query_csv",
            json!({ "files": ["sales.csv"], "sql": "SELECT region, sum(total) FROM sales GROUP BY region ORDER BY region" }),
            "[\"north\",17.75]",
        ),
        case("data_describe", json!({ "file": "sales.csv" }), "\"mean\""),
        case(
            "data_chart",
            json!({ "file": "sales.csv", "kind": "bar", "x": "region", "y": ["total"] }),
            "charts/sales.svg",
        ),
        case(
            "doc_outline",
            json!({ "markdown": "# Plan\n\n## Bees\n" }),
            "Bees",
        ),
        case(
            "doc_stats",
            json!({ "text": "Bees make honey. They also make wax." }),
            "words",
        ),
        case(
            "image_metadata",
            json!({ "artifact_id": f.image }),
            "\"width\": 64",
        ),
        case(
            "image_transform",
            json!({ "artifact_id": f.image, "width": 32, "format": "png" }),
            "\"format\": \"png\"",
        ),
        case(
            "cron_create",
            json!({
                "name": "Morning brief",
                "schedule": { "kind": "cron", "expression": "0 8 * * 1-5" },
                "timeZone": "Europe/Madrid",
                "target": { "kind": "agent", "id": f.helper },
                "prompt": "Summarise the news."
            }),
            "\"id\": \"morning_brief\"",
        ),
        case("cron_list", json!({}), "Nightly digest"),
        case(
            "cron_update",
            json!({ "id": "morning_brief", "changes": { "schedule": { "kind": "cron", "expression": "30 7 * * 1-5" } } }),
            "30 7 * * 1-5",
        ),
        case(
            "cron_pause",
            json!({ "id": "morning_brief" }),
            "\"paused\": true",
        ),
        case(
            "cron_resume",
            json!({ "id": "morning_brief" }),
            "\"paused\": false",
        ),
        case(
            "cron_trigger",
            json!({ "id": "nightly_digest" }),
            "\"jobId\": \"nightly_digest\"",
        ),
        case(
            "cron_history",
            json!({ "id": "nightly_digest" }),
            "\"status\": \"succeeded\"",
        ),
        case(
            "cron_delete",
            json!({ "id": "morning_brief" }),
            "deleted scheduled job 'morning_brief'",
        ),
    ]
}

/// Calls per model turn: a run has at most `MAX_STEPS` turns, and calls of
/// one turn run one after the other, in order.
const CALLS_PER_TURN: usize = 4;

/// The calls in order, a few per turn, then a final answer.
fn script(system: &str, calls: &[&Case]) -> Vec<Rule> {
    let mut rules: Vec<Rule> = calls
        .chunks(CALLS_PER_TURN)
        .enumerate()
        .map(|(turn, chunk)| {
            Rule::new(Reply::ToolCalls {
                text: String::new(),
                calls: chunk
                    .iter()
                    .map(|c| ScriptedCall {
                        name: c.tool.to_owned(),
                        arguments: c.args.to_string(),
                    })
                    .collect(),
            })
            .when(when(system, turn * CALLS_PER_TURN))
        })
        .collect();
    rules.push(Rule::text("All done.").when(when(system, calls.len())));
    rules
}

/// A git repository with one commit holding the CSV, then a change to it
/// and an untracked file.
fn repository(ws: &Path) {
    std::fs::create_dir_all(ws).unwrap();
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(ws)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    std::fs::write(ws.join("sales.csv"), "region,total\nnorth,10.5\n").unwrap();
    git(&["add", "sales.csv"]);
    git(&["commit", "-q", "-m", "first"]);
    std::fs::write(ws.join("sales.csv"), SALES).unwrap();
    std::fs::write(ws.join("CHANGES.md"), "# Changes\n").unwrap();
}

async fn fixture(ctx: &Ctx, llm: &ScriptedLlm, tester: &AgentId) -> Fixture {
    repository(&ctx.data_dir().join("workspaces").join(tester.as_str()));
    memory::write(ctx, &Caller::ui(ctx), "Launch", "The launch is on 3 March.")
        .await
        .unwrap();
    skills::switch(ctx, "data-analysis", Some(true))
        .await
        .unwrap();
    let image = images::upload(
        ctx,
        ctx.owner(),
        "bees.jpg",
        images::sample_photo_jpeg(64, 48, 80),
    )
    .await
    .unwrap();
    let helper = agents::create(
        ctx,
        NewAgent {
            name: "Helper".into(),
            system_prompt: HELPER.into(),
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .id;
    let searxng = support::web::service(200, support::web::searxng_answer()).await;
    web_search::set(
        ctx,
        WebSearchSettings {
            backend: "searxng".into(),
            base_url: Some(searxng.base_url.clone()),
            api_key: None,
        },
    )
    .await
    .unwrap();
    let page = support::web::page(
        "<html><head><title>Bees</title></head><body><p>Bees make honey &amp; wax.</p></body></html>",
    )
    .await;
    // A scheduled job with a run in its history, and the scheduler that ran it.
    llm.push(Rule::text("The digest.").when(when_system(HELPER)));
    cron::create(
        ctx,
        cron::NewCronJob {
            name: "Nightly digest".into(),
            schedule: cron::Schedule::Interval { seconds: 86_400 },
            time_zone: Some("UTC".into()),
            target: cron::Target::Agent {
                id: helper.to_string(),
            },
            prompt: Some("Write the digest.".into()),
            missed: None,
            paused: None,
            unattended: None,
        },
    )
    .await
    .unwrap();
    let clock = Arc::new(cron::ManualClock::new(chrono::Utc::now()));
    let scheduler = cron::scheduler::Scheduler::start(ctx, clock).await.unwrap();
    cron::trigger(ctx, "nightly_digest").await.unwrap();
    scheduler.tick().await.unwrap().finished().await;
    Fixture {
        page,
        image: image.id,
        helper,
        _scheduler: scheduler,
    }
}

fn tool_results(steps: &[RunStep]) -> Vec<(String, bool, String)> {
    steps
        .iter()
        .filter(|s| s.kind == "tool_result")
        .map(|s| {
            (
                s.content["name"].as_str().unwrap().to_owned(),
                s.content["ok"].as_bool().unwrap(),
                s.content["output"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// What the model was handed as tool results, by the last request whose
/// system prompt is `system` (it holds the whole conversation).
fn received(llm: &ScriptedLlm, system: &str) -> Vec<String> {
    let last = llm
        .requests()
        .into_iter()
        .rfind(|r| r.body.to_string().contains(system))
        .expect("the model was asked");
    last.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| match &m["content"] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        })
        .collect()
}

/// Each call ran, answered with its proof, and pretended nothing.
fn check(calls: &[&Case], results: &[(String, bool, String)], given: &[String]) {
    assert_eq!(results.len(), calls.len(), "{results:#?}");
    assert_eq!(given.len(), calls.len(), "the model received every result");
    for ((case, (name, ok, output)), to_model) in calls.iter().zip(results).zip(given) {
        assert_eq!(name, case.tool);
        assert!(*ok, "{} failed: {output}", case.tool);
        assert!(
            output.contains(&case.proof),
            "{}: expected '{}' in: {output}",
            case.tool,
            case.proof
        );
        let lower = to_model.to_lowercase();
        for phrase in PRETENDING {
            assert!(
                !lower.contains(phrase),
                "{} pretends ('{phrase}'): {to_model}",
                case.tool
            );
        }
        assert!(
            to_model.contains(&case.proof),
            "{}: the model did not receive the result: {to_model}",
            case.tool
        );
    }
}

#[tokio::test]
async fn every_builtin_tool_really_runs() {
    // Rules are added once the fixture (ids, URLs) is known.
    let (ws, llm) = hive(vec![]).await;
    let ctx = ws.ctx.clone();
    for tool in catalog::BUILTIN_TOOLS {
        if tool.name != "web_search" {
            tools::set_active(&ctx, tool.name, true).await.unwrap();
        }
    }
    let own: Vec<&str> = catalog::BUILTIN_TOOLS
        .iter()
        .map(|t| t.name)
        .filter(|n| !matches!(*n, "send_message" | "read_inbox" | "list_sent"))
        .collect();
    let tester = trusted_agent(&ctx, "Tester", TESTER, &own).await;
    let f = fixture(&ctx, &llm, &tester).await;
    support::hive::hands_work_to(&ctx, &tester, &[&f.helper]).await;
    assert!(
        tools::get(&ctx, "web_search").await.unwrap().active,
        "configuring the service switched web_search on"
    );

    // The table covers the catalog exactly.
    let table = cases(&f);
    for row in &table {
        assert!(
            catalog::find(row.tool).is_some(),
            "{} is in the table but not in the catalog",
            row.tool
        );
    }
    let calls: Vec<&Case> = catalog::BUILTIN_TOOLS
        .iter()
        .map(|tool| {
            table.iter().find(|c| c.tool == tool.name).unwrap_or_else(|| {
                panic!(
                    "'{}' is in the catalog but not in this test: add a row to `cases` — and code that really runs it",
                    tool.name
                )
            })
        })
        .collect();
    let (in_run, on_bus): (Vec<&Case>, Vec<&Case>) =
        calls.into_iter().partition(|c| c.at == Where::Run);

    for rule in script(TESTER, &in_run) {
        llm.push(rule);
    }
    llm.push(Rule::text("Hello from the helper.").when(when_system(HELPER)));
    let mut notices = ctx.notices();
    let run = run_agent(
        &ctx,
        &tester,
        "Try every tool.",
        AgentRunOptions::default(),
        support::no_events(),
    )
    .await
    .unwrap();
    assert_eq!(run.status, RunStatus::Completed, "{:?}", run.error);
    let results = tool_results(&runs::get(&ctx, &run.id).await.unwrap().steps);
    check(&in_run, &results, &received(&llm, TESTER));
    assert_eq!(notices.try_recv().unwrap().title, "Report ready");
    let workspace = ctx.data_dir().join("workspaces").join(tester.as_str());
    assert!(workspace.join("charts/sales.svg").is_file());
    assert!(!workspace.join("notes/done.txt").exists());

    // The bus tools, in a woken role's run.
    for rule in script(BUS_TESTER, &on_bus) {
        llm.push(rule);
    }
    let bus_tester = trusted_agent(&ctx, "Bus tester", BUS_TESTER, &[]).await;
    let role = inbox::authors::create(
        &ctx,
        NewAuthor {
            name: "Colmenero".into(),
            agent_id: Some(bus_tester.to_string()),
            wake_interval_minutes: Some(60),
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .author;
    let ana = support::bus::author(&ctx, "Ana", None).await.author;
    support::bus::send(&ctx, &ana.id, &role.id, "¿Listo?", "normal").await;
    let woken = colmena_core::roles::wakes::wake_now(&ctx, &role.id)
        .await
        .unwrap();
    assert!(
        woken.last_wake_error.is_none(),
        "{:?}",
        woken.last_wake_error
    );
    let wake = runs::list(
        &ctx,
        RunFilter {
            target_id: Some(bus_tester.to_string()),
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .remove(0);
    assert_eq!(wake.status, RunStatus::Completed, "{:?}", wake.error);
    let results = tool_results(&runs::get(&ctx, &wake.id).await.unwrap().steps);
    check(&on_bus, &results, &received(&llm, BUS_TESTER));
}
