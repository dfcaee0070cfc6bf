//! The minimal tools working inside a real run (issue 4): an agent lists the
//! hive, searches the catalog, writes, searches and reads its memory,
//! notifies the person and fetches a page from a local web server — and
//! `web_fetch` keeps to its size and time limits.

#![allow(clippy::unwrap_used)]

mod support;

use std::time::Duration;

use colmena_core::Caller;
use colmena_core::runs::{self, RunStatus, RunStep};
use colmena_core::runtime::agent::{AgentRunOptions, run_agent};
use colmena_scripted_llm::{Matcher, Rule};
use support::hive::{hive, trusted_agent};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A one-route web server on 127.0.0.1: answers every request with `body`
/// (as HTML), or never answers when `body` is `None`.
async fn web_server(body: Option<String>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let body = body.clone();
            tokio::spawn(async move {
                let mut request = [0u8; 4096];
                let _ = socket.read(&mut request).await;
                match body {
                    Some(body) => {
                        let head = format!(
                            "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                            body.len()
                        );
                        let _ = socket.write_all(head.as_bytes()).await;
                        let _ = socket.write_all(body.as_bytes()).await;
                    }
                    // Holds the connection open, silent, for good: only
                    // the tool's own time limit can end the fetch.
                    None => std::future::pending::<()>().await,
                }
            });
        }
    });
    format!("http://{addr}/page")
}

/// One tool call per step, in order, then a final answer.
fn calls(system: &str, steps: &[(&str, String)]) -> Vec<Rule> {
    let mut rules: Vec<Rule> = steps
        .iter()
        .enumerate()
        .map(|(i, (tool, args))| {
            Rule::tool_call(tool, args).when(Matcher {
                system_contains: Some(system.into()),
                tool_results: Some(i),
                ..Default::default()
            })
        })
        .collect();
    rules.push(Rule::text("All done.").when(Matcher {
        system_contains: Some(system.into()),
        tool_results: Some(steps.len()),
        ..Default::default()
    }));
    rules
}

fn results(steps: &[RunStep]) -> Vec<(String, bool, String)> {
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

#[tokio::test]
async fn the_minimal_tools_and_web_fetch_work_inside_a_run() {
    let page = web_server(Some(
        "<html><head><style>p{color:red}</style><script>alert(1)</script></head>\
         <body><h1>Bees</h1><p>Bees make honey &amp; wax.</p></body></html>"
            .into(),
    ))
    .await;
    let steps = [
        ("list_agents", "{}".to_owned()),
        ("search_catalog", r#"{"query": "fetch"}"#.to_owned()),
        (
            "memory_write",
            r#"{"title": "Launch", "content": "The launch is on 3 March."}"#.to_owned(),
        ),
        ("memory_search", r#"{"query": "launch"}"#.to_owned()),
        ("memory_read", r#"{"title": "Launch"}"#.to_owned()),
        (
            "notify_user",
            r#"{"title": "Report ready", "body": "See the launch note."}"#.to_owned(),
        ),
        ("web_fetch", format!(r#"{{"url": "{page}"}}"#)),
    ];
    let (ws, _server) = hive(calls("You help.", &steps)).await;
    // `web_fetch` belongs to the specialists' tools: switched on by setup.
    colmena_core::tools::set_active(&ws.ctx, "web_fetch", true)
        .await
        .unwrap();
    let id = trusted_agent(
        &ws.ctx,
        "Helper",
        "You help.",
        &[
            "list_agents",
            "search_catalog",
            "memory_*",
            "notify_user",
            "web_fetch",
        ],
    )
    .await;
    // list_agents lists whom it may hand work to: the agents listed for it.
    let scout = support::hive::agent(&ws.ctx, "Scout", "You scout.", &[]).await;
    support::hive::hands_work_to(&ws.ctx, &id, &[&scout]).await;
    let mut notices = ws.ctx.notices();

    let run = run_agent(
        &ws.ctx,
        &id,
        "go",
        AgentRunOptions::default(),
        support::no_events(),
    )
    .await
    .unwrap();
    assert_eq!(run.status, RunStatus::Completed, "{:?}", run.error);
    let detail = runs::get(&ws.ctx, &run.id).await.unwrap();
    let results = results(&detail.steps);
    assert_eq!(results.len(), steps.len());
    for (name, ok, output) in &results {
        assert!(ok, "{name} failed: {output}");
    }
    assert!(results[0].2.contains("\"scout\""), "{}", results[0].2);
    assert!(results[1].2.contains("web_fetch"), "{}", results[1].2);
    assert!(results[3].2.contains("3 March"), "{}", results[3].2);
    assert!(
        results[4].2.contains("The launch is on 3 March."),
        "{}",
        results[4].2
    );
    let fetched = &results[6].2;
    assert!(fetched.contains("Bees make honey & wax."), "{fetched}");
    assert!(
        !fetched.contains("alert(1)") && !fetched.contains("color:red") && !fetched.contains("<p>"),
        "{fetched}"
    );

    let notice = notices.try_recv().unwrap();
    assert_eq!(notice.title, "Report ready");
    assert_eq!(notice.from.as_deref(), Some("helper"));
    // The memory is the run's user's: the owner here.
    assert_eq!(
        colmena_core::memory::read(&ws.ctx, &Caller::ui(&ws.ctx), "Launch")
            .await
            .unwrap()
            .content,
        "The launch is on 3 March."
    );
}

#[tokio::test]
async fn web_fetch_keeps_to_its_size_and_time_limits() {
    let big = web_server(Some(format!("<p>{}</p>", "abejas ".repeat(2_000)))).await;
    let silent = web_server(None).await;
    let steps = [
        (
            "web_fetch",
            format!(r#"{{"url": "{big}", "max_bytes": 1024}}"#),
        ),
        (
            "web_fetch",
            format!(r#"{{"url": "{silent}", "timeout_seconds": 1}}"#),
        ),
        ("web_fetch", r#"{"url": "file:///etc/passwd"}"#.to_owned()),
    ];
    let (ws, _server) = hive(calls("You fetch.", &steps)).await;
    colmena_core::tools::set_active(&ws.ctx, "web_fetch", true)
        .await
        .unwrap();
    let id = trusted_agent(&ws.ctx, "Fetcher", "You fetch.", &["web_fetch"]).await;
    // A hang guard, not a timing claim: the silent server never answers,
    // so the run ends only if the fetch gives up on it (checked below, by
    // the error it gave).
    let run = tokio::time::timeout(
        Duration::from_secs(120),
        run_agent(
            &ws.ctx,
            &id,
            "go",
            AgentRunOptions::default(),
            support::no_events(),
        ),
    )
    .await
    .expect("the silent server was never given up on")
    .unwrap();
    assert_eq!(run.status, RunStatus::Completed, "{:?}", run.error);
    let results = results(&runs::get(&ws.ctx, &run.id).await.unwrap().steps);

    let (_, ok, output) = &results[0];
    assert!(ok);
    assert!(
        output.contains("only the first 1024 bytes were read"),
        "{output}"
    );
    assert!(output.len() < 1400, "{} bytes came back", output.len());

    let (_, ok, output) = &results[1];
    assert!(!ok);
    assert!(output.contains("did not answer within 1 s"), "{output}");

    let (_, ok, output) = &results[2];
    assert!(!ok);
    assert!(output.contains("only http and https"), "{output}");
}
