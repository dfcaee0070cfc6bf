//! `web_search` against each search service's wire format (issue 13, item
//! 6): a local server on 127.0.0.1 checks the exact request — path, query,
//! headers, body — and answers with the service's real JSON shape. The API
//! key is sealed: never in clear in the data dir nor on any read path.

#![allow(clippy::unwrap_used)]

mod support;

use colmena_core::runs::{self, RunStatus};
use colmena_core::runtime::agent::{AgentRunOptions, run_agent};
use colmena_core::web_search::{self, WebSearchBackend, WebSearchSettings};
use colmena_core::{ErrorCode, tools};
use colmena_scripted_llm::Rule;
use serde_json::json;
use support::hive::{hive, trusted_agent, when};
use support::web::{searxng_answer, service};

const BRAVE_KEY: &str = "BSA-test-key-7f3a9c21d4e8b6";
const TAVILY_KEY: &str = "tvly-dev-test-key-51c8e0a2b7";

fn settings(backend: &str, base_url: &str, key: Option<&str>) -> WebSearchSettings {
    WebSearchSettings {
        backend: backend.into(),
        base_url: Some(base_url.into()),
        api_key: key.map(str::to_owned),
    }
}

#[tokio::test]
async fn searxng_is_asked_with_its_json_api_and_switches_the_tool_on() {
    let ws = support::workspace().await;
    assert!(!tools::get(&ws.ctx, "web_search").await.unwrap().active);
    let searxng = service(200, searxng_answer()).await;
    let config = web_search::set(&ws.ctx, settings("searxng", &searxng.base_url, None))
        .await
        .unwrap();
    assert_eq!(config.backend, Some(WebSearchBackend::Searxng));
    assert!(config.tool_active && !config.has_api_key);
    assert!(tools::get(&ws.ctx, "web_search").await.unwrap().active);

    let found = web_search::test(&ws.ctx, Some("bees & honey".into()))
        .await
        .unwrap();
    assert_eq!(found.results.len(), 2);
    assert_eq!(found.results[0].title, "How bees make honey");
    assert_eq!(found.results[0].url, "https://bees.example/honey");
    assert_eq!(
        found.results[0].snippet,
        "Nectar is carried back to the hive and stored."
    );
    assert_eq!(found.results[1].title, "Wax & combs");
    let seen = searxng.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].method, "GET");
    assert_eq!(seen[0].path, "/search");
    assert_eq!(seen[0].query, "q=bees+%26+honey&format=json");
    assert_eq!(seen[0].headers["accept"], "application/json");
    assert!(seen[0].headers.get("authorization").is_none());

    // Cleared: off again, and a call says how to set it up.
    let cleared = web_search::clear(&ws.ctx).await.unwrap();
    assert_eq!(cleared.backend, None);
    assert!(!cleared.tool_active);
    let err = web_search::test(&ws.ctx, None).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Precondition);
    assert!(
        err.message.contains("Settings → Web search"),
        "{}",
        err.message
    );
    assert!(
        err.message.contains("colmena web-search set"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn brave_gets_the_count_and_the_subscription_token_header() {
    let ws = support::workspace().await;
    let brave = service(
        200,
        json!({
            "type": "search",
            "query": { "original": "rust async", "more_results_available": true },
            "web": {
                "type": "search",
                "results": [
                    {
                        "title": "Async Rust",
                        "url": "https://rust.example/async",
                        "description": "Learn <strong>async</strong> Rust.",
                        "extra_snippets": ["Futures are lazy."]
                    }
                ]
            }
        }),
    )
    .await;
    let err = web_search::set(&ws.ctx, settings("brave", &brave.base_url, None))
        .await
        .unwrap_err();
    assert_eq!(err.field(), Some("apiKey"), "Brave needs a key");

    let config = web_search::set(&ws.ctx, settings("brave", &brave.base_url, Some(BRAVE_KEY)))
        .await
        .unwrap();
    assert_eq!(config.api_key_masked.as_deref(), Some("BSA…e8b6"));
    let found = web_search::test(&ws.ctx, Some("rust async".into()))
        .await
        .unwrap();
    assert_eq!(found.results[0].snippet, "Learn async Rust.");
    let seen = &brave.seen()[0];
    assert_eq!(seen.method, "GET");
    assert_eq!(seen.path, "/res/v1/web/search");
    assert_eq!(seen.query, "q=rust+async&count=5");
    assert_eq!(seen.headers["x-subscription-token"], BRAVE_KEY);
    assert_eq!(seen.headers["accept"], "application/json");

    // The same origin keeps the key; another origin needs it again.
    web_search::set(
        &ws.ctx,
        settings("brave", &format!("{}/", brave.base_url), None),
    )
    .await
    .unwrap();
    let err = web_search::set(
        &ws.ctx,
        settings("brave", "https://brave-proxy.example", None),
    )
    .await
    .unwrap_err();
    assert_eq!(
        err.details.unwrap()["reason"],
        "key_required_for_new_origin"
    );
    assert!(web_search::get(&ws.ctx).await.unwrap().has_api_key);
}

#[tokio::test]
async fn tavily_gets_a_json_post_with_a_bearer_key() {
    let ws = support::workspace().await;
    let tavily = service(
        200,
        json!({
            "query": "honey bees",
            "answer": null,
            "images": [],
            "results": [
                {
                    "title": "Honey bee",
                    "url": "https://en.example/Honey_bee",
                    "content": "A eusocial flying insect.",
                    "score": 0.98,
                    "raw_content": null
                },
                {
                    "title": "Beekeeping",
                    "url": "https://en.example/Beekeeping",
                    "content": "The maintenance of bee colonies.",
                    "score": 0.91,
                    "raw_content": null
                }
            ],
            "response_time": 1.2
        }),
    )
    .await;
    web_search::set(
        &ws.ctx,
        settings("tavily", &tavily.base_url, Some(TAVILY_KEY)),
    )
    .await
    .unwrap();
    let found = web_search::test(&ws.ctx, Some("honey bees".into()))
        .await
        .unwrap();
    assert_eq!(found.backend, WebSearchBackend::Tavily);
    assert_eq!(found.results[1].title, "Beekeeping");
    let seen = &tavily.seen()[0];
    assert_eq!(seen.method, "POST");
    assert_eq!(seen.path, "/search");
    assert_eq!(seen.query, "");
    assert_eq!(
        seen.headers["authorization"],
        format!("Bearer {TAVILY_KEY}")
    );
    assert_eq!(seen.headers["content-type"], "application/json");
    let body: serde_json::Value = serde_json::from_str(&seen.body).unwrap();
    assert_eq!(body, json!({ "query": "honey bees", "max_results": 5 }));

    // Switching backend drops the key: Tavily's is no use to Brave.
    let err = web_search::set(&ws.ctx, settings("brave", &tavily.base_url, None))
        .await
        .unwrap_err();
    assert_eq!(err.field(), Some("apiKey"));
}

#[tokio::test]
async fn refusals_are_explained_and_never_echo_the_key() {
    let ws = support::workspace().await;
    let searxng = service(403, json!({ "error": "forbidden" })).await;
    web_search::set(&ws.ctx, settings("searxng", &searxng.base_url, None))
        .await
        .unwrap();
    let err = web_search::test(&ws.ctx, None).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Upstream);
    assert!(err.message.contains("search.formats"), "{}", err.message);

    let echo = service(500, json!({ "error": format!("bad token {TAVILY_KEY}") })).await;
    web_search::set(
        &ws.ctx,
        settings("tavily", &echo.base_url, Some(TAVILY_KEY)),
    )
    .await
    .unwrap();
    let err = web_search::test(&ws.ctx, None).await.unwrap_err();
    assert!(err.message.contains("answered 500"), "{}", err.message);
    assert!(!err.message.contains(TAVILY_KEY), "{}", err.message);

    let denied = service(401, json!({ "detail": { "error": "Unauthorized" } })).await;
    web_search::set(
        &ws.ctx,
        settings("tavily", &denied.base_url, Some(TAVILY_KEY)),
    )
    .await
    .unwrap();
    let err = web_search::test(&ws.ctx, None).await.unwrap_err();
    assert_eq!(err.details.unwrap()["reason"], "auth_failed");

    let err = web_search::set(
        &ws.ctx,
        settings("tavily", "http://search.example.com", Some(TAVILY_KEY)),
    )
    .await
    .unwrap_err();
    assert_eq!(
        err.field(),
        Some("baseUrl"),
        "a key never goes out unencrypted"
    );
    let err = web_search::set(&ws.ctx, settings("google", "", None))
        .await
        .unwrap_err();
    assert_eq!(err.field(), Some("backend"));
}

#[tokio::test]
async fn the_key_is_never_in_clear_on_disk_nor_on_a_read_path() {
    let (ws, llm) = hive(vec![
        Rule::tool_call("web_search", r#"{"query": "bees", "limit": 1}"#)
            .when(when("You search.", 0)),
        Rule::text("Found it.").when(when("You search.", 1)),
    ])
    .await;
    let brave = service(
        200,
        json!({ "type": "search", "web": { "results": [
            { "title": "Bees", "url": "https://bees.example/", "description": "Bees fly." },
            { "title": "More bees", "url": "https://bees.example/2", "description": "Still bees." }
        ]}}),
    )
    .await;
    let config = web_search::set(&ws.ctx, settings("brave", &brave.base_url, Some(BRAVE_KEY)))
        .await
        .unwrap();
    let id = trusted_agent(&ws.ctx, "Buscadora", "You search.", &["web_search"]).await;
    let run = run_agent(
        &ws.ctx,
        &id,
        "bees?",
        AgentRunOptions::default(),
        support::no_events(),
    )
    .await
    .unwrap();
    assert_eq!(run.status, RunStatus::Completed, "{:?}", run.error);
    let detail = runs::get(&ws.ctx, &run.id).await.unwrap();
    let result = detail
        .steps
        .iter()
        .find(|s| s.kind == "tool_result")
        .unwrap();
    assert_eq!(result.content["ok"], true, "{}", result.content);
    let output = result.content["output"].as_str().unwrap();
    assert!(
        output.contains("1. Bees\n   https://bees.example/"),
        "{output}"
    );
    assert!(!output.contains("More bees"), "the limit is kept: {output}");
    assert_eq!(brave.seen()[0].query, "q=bees&count=1");

    // Every read path: the config, the tool list, the run; then the files.
    let shown = [
        serde_json::to_string(&config).unwrap(),
        serde_json::to_string(&web_search::get(&ws.ctx).await.unwrap()).unwrap(),
        serde_json::to_string(&tools::list(&ws.ctx, Default::default()).await.unwrap()).unwrap(),
        serde_json::to_string(&detail).unwrap(),
    ];
    for text in shown {
        assert!(!text.contains(BRAVE_KEY), "{text}");
    }
    for request in llm.requests() {
        assert!(
            !request.body.to_string().contains(BRAVE_KEY),
            "the model never sees it"
        );
    }
    assert!(!support::any_file_contains(
        ws.dir.path(),
        BRAVE_KEY.as_bytes()
    ));
}

#[tokio::test]
async fn the_stored_key_is_sealed_in_the_data_dir() {
    let ws = support::workspace().await;
    let tavily = service(200, json!({ "results": [] })).await;
    web_search::set(
        &ws.ctx,
        settings("tavily", &tavily.base_url, Some(TAVILY_KEY)),
    )
    .await
    .unwrap();
    web_search::test(&ws.ctx, None).await.unwrap();
    assert!(!support::any_file_contains(
        ws.dir.path(),
        TAVILY_KEY.as_bytes()
    ));
    let dir = ws.dir.path().to_owned();
    drop(ws.ctx);
    assert!(!support::any_file_contains(&dir, TAVILY_KEY.as_bytes()));
    // Reopened, the sealed key still works.
    let ctx = support::open(&dir).await;
    assert!(web_search::test(&ctx, None).await.is_ok());
    assert!(!support::any_file_contains(&dir, TAVILY_KEY.as_bytes()));
}

#[tokio::test]
async fn without_a_service_the_tool_is_off_at_start_and_setup_leaves_it_off() {
    let ws = support::workspace().await;
    let dir = ws.dir.path().to_owned();
    drop(ws.ctx);
    // A store from before the tool was real had it switched on.
    support::db(&dir)
        .execute("UPDATE tools SET active = 1 WHERE id = 'web_search'", [])
        .unwrap();
    let ctx = support::open(&dir).await;
    assert!(!tools::get(&ctx, "web_search").await.unwrap().active);
    colmena_core::setup::enable_catalog_agent(&ctx, "web_researcher")
        .await
        .unwrap();
    assert!(!tools::get(&ctx, "web_search").await.unwrap().active);
    assert!(tools::get(&ctx, "web_fetch").await.unwrap().active);
    let plan = colmena_core::setup::plan_activation_for(&ctx, vec!["web_researcher".into()])
        .await
        .unwrap();
    assert!(plan.is_empty(), "nothing is pending: {plan:?}");

    // Switched on by hand anyway, a call tells the model how to set it up.
    tools::set_active(&ctx, "web_search", true).await.unwrap();
    let err = web_search::test(&ctx, None).await.unwrap_err();
    assert_eq!(err.details.unwrap()["reason"], "web_search_not_configured");

    // Configured, it survives a restart switched on.
    let searxng = service(200, searxng_answer()).await;
    web_search::set(&ctx, settings("searxng", &searxng.base_url, None))
        .await
        .unwrap();
    drop(ctx);
    let ctx = support::open(&dir).await;
    assert!(tools::get(&ctx, "web_search").await.unwrap().active);
}
