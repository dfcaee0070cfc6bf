//! HTTP endpoints as tools (SPEC H27–H29), against a server on 127.0.0.1
//! that records exactly what it received: templated requests arrive with
//! the right method, path, query, body and headers; values the model
//! chooses cannot escape their place; the secret header never leaves the
//! vault (not in the data dir, a run step, a read, a result); the tools
//! come back after a restart.

#![allow(clippy::unwrap_used)]

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use colmena_core::caller::Client;
use colmena_core::endpoints::{
    self, EndpointInput, EndpointPair, HttpMethod, MASK, SecretHeaderInput,
};
use colmena_core::permissions::{self, Permissions, Rule as GateRule};
use colmena_core::runs;
use colmena_core::runtime::agent::{AgentRunOptions, run_agent};
use colmena_core::{Caller, Ctx, ErrorCode};
use colmena_scripted_llm::Rule;
use serde_json::{Value, json};
use support::hive::{agent, hive, trusted_agent, when};

const SECRET: &str = "sk-endpoint-SECRET-4f8a2c9d1e";

/// One request as the server received it.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    query: String,
    headers: HeaderMap,
    body: String,
}

struct Server {
    base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Server {
    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

#[derive(Clone)]
struct Shared {
    seen: Arc<Mutex<Vec<Seen>>>,
    elsewhere: String,
}

/// `/redirect-away` → another origin; `/redirect-home` → `/landing` here;
/// `/forever` streams without end; `/hang` never answers; `/missing` is a
/// 404; anything else answers JSON that echoes the Authorization header.
async fn handle(State(shared): State<Shared>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body: Bytes = axum::body::to_bytes(body, 1 << 20)
        .await
        .unwrap_or_default();
    shared.seen.lock().unwrap().push(Seen {
        method: parts.method.to_string(),
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().unwrap_or_default().to_owned(),
        headers: parts.headers.clone(),
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    let auth = parts
        .headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    match parts.uri.path() {
        "/redirect-away" => (
            StatusCode::FOUND,
            [("location", format!("{}/stolen", shared.elsewhere))],
        )
            .into_response(),
        "/redirect-home" => {
            (StatusCode::FOUND, [("location", "/landing".to_owned())]).into_response()
        }
        "/forever" => {
            let chunk = Bytes::from(vec![b'x'; 64 * 1024]);
            let stream =
                futures_util::stream::repeat_with(move || Ok::<_, std::io::Error>(chunk.clone()));
            Response::builder()
                .header("content-type", "text/plain")
                .body(Body::from_stream(stream))
                .unwrap()
        }
        "/hang" => {
            std::future::pending::<()>().await;
            StatusCode::OK.into_response()
        }
        "/missing" => (StatusCode::NOT_FOUND, "no such city").into_response(),
        _ => (
            [("x-echo", auth.clone())],
            axum::Json(json!({ "ok": true, "path": parts.uri.path(), "you_sent": auth })),
        )
            .into_response(),
    }
}

async fn serve(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}")
}

/// The recording server, and a second origin that counts what reaches it.
async fn servers() -> (Server, Arc<AtomicUsize>) {
    let stolen = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&stolen);
    let elsewhere = serve(Router::new().fallback(move || {
        let count = Arc::clone(&count);
        async move {
            count.fetch_add(1, Ordering::SeqCst);
            "stolen"
        }
    }))
    .await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let base = serve(Router::new().fallback(handle).with_state(Shared {
        seen: Arc::clone(&seen),
        elsewhere,
    }))
    .await;
    (Server { base, seen }, stolen)
}

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "city": { "type": "string", "description": "City name" },
            "days": { "type": "integer", "minimum": 1 },
            "note": { "type": "string" },
            "tags": { "type": "array", "items": { "type": "string" } }
        },
        "required": ["city"]
    })
}

fn weather(base: &str) -> EndpointInput {
    EndpointInput {
        name: "Weather".into(),
        slug: None,
        description: "Weather forecast for a city".into(),
        method: HttpMethod::Post,
        url: format!("{base}/v1/cities/{{{{city}}}}/forecast?units=metric"),
        query: vec![
            EndpointPair {
                name: "q".into(),
                value: "{{city}}".into(),
            },
            EndpointPair {
                name: "tag".into(),
                value: "{{tags}}".into(),
            },
        ],
        body: Some(json!({ "days": "{{days}}", "note": "for {{city}}: {{note}}", "fixed": true })),
        headers: vec![EndpointPair {
            name: "X-City".into(),
            value: "city={{city}}".into(),
        }],
        secret_headers: vec![SecretHeaderInput {
            name: "Authorization".into(),
            value: Some(format!("Bearer {SECRET}")),
        }],
        param_schema: Some(schema()),
        enabled: None,
        timeout_seconds: None,
    }
}

fn get_input(base: &str, name: &str, path: &str) -> EndpointInput {
    EndpointInput {
        name: name.into(),
        slug: None,
        description: format!("GET {path}"),
        method: HttpMethod::Get,
        url: format!("{base}{path}"),
        query: vec![],
        body: None,
        headers: vec![],
        secret_headers: vec![SecretHeaderInput {
            name: "Authorization".into(),
            value: Some(format!("Bearer {SECRET}")),
        }],
        param_schema: None,
        enabled: None,
        timeout_seconds: Some(1),
    }
}

fn ui(ctx: &Ctx) -> Caller {
    Caller::ui(ctx)
}

#[tokio::test]
async fn h27_a_templated_request_arrives_with_the_right_method_path_query_body_and_headers() {
    let ws = support::workspace().await;
    let (server, _) = servers().await;
    let created = endpoints::create(&ws.ctx, &ui(&ws.ctx), weather(&server.base))
        .await
        .unwrap();
    assert_eq!(created.id, "weather");
    assert_eq!(created.tool, "endpoint_weather");
    let result = endpoints::test(
        &ws.ctx,
        &ui(&ws.ctx),
        &created.id,
        &json!({ "city": "San José", "days": 3, "note": "a \"quoted\" note", "tags": ["a b", "c"] }),
    )
    .await
    .unwrap();
    assert!(result.ok, "{result:?}");
    assert_eq!(result.status, 200);
    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    let got = &seen[0];
    assert_eq!(got.method, "POST");
    assert_eq!(got.path, "/v1/cities/San%20Jos%C3%A9/forecast");
    assert_eq!(got.query, "units=metric&q=San+Jos%C3%A9&tag=a+b&tag=c");
    let body: Value = serde_json::from_str(&got.body).unwrap();
    assert_eq!(
        body,
        json!({ "days": 3, "note": "for San José: a \"quoted\" note", "fixed": true })
    );
    assert_eq!(got.headers["content-type"], "application/json");
    // Non-ASCII header text goes as its UTF-8 bytes.
    assert_eq!(got.headers["x-city"].as_bytes(), "city=San José".as_bytes());
    assert_eq!(
        got.headers["authorization"].to_str().unwrap(),
        format!("Bearer {SECRET}"),
        "the secret header is sent to the declared origin"
    );
    // The server echoed the secret in its body and a header: masked.
    let shown = serde_json::to_string(&result).unwrap();
    assert!(!shown.contains(SECRET), "{shown}");
    assert!(result.body.contains("[secret]"), "{}", result.body);
    assert!(
        result
            .request
            .headers
            .iter()
            .any(|h| h.name == "Authorization" && h.secret && h.value == MASK)
    );

    // Optional parameters left out drop what needs them.
    endpoints::test(&ws.ctx, &ui(&ws.ctx), "weather", &json!({ "city": "Oslo" }))
        .await
        .unwrap();
    let got = server.seen().pop().unwrap();
    assert_eq!(got.query, "units=metric&q=Oslo");
    let body: Value = serde_json::from_str(&got.body).unwrap();
    assert_eq!(body, json!({ "fixed": true }));
}

#[tokio::test]
async fn h27_values_cannot_escape_their_place() {
    let ws = support::workspace().await;
    let (server, _) = servers().await;
    let mut input = weather(&server.base);
    input.body = Some(json!({ "days": "{{days}}", "text": "{{note}}" }));
    endpoints::create(&ws.ctx, &ui(&ws.ctx), input)
        .await
        .unwrap();
    let caller = ui(&ws.ctx);

    // Path traversal and a ?/# in a path parameter: one encoded segment.
    endpoints::test(
        &ws.ctx,
        &caller,
        "weather",
        &json!({ "city": "../../admin?x=1#frag" }),
    )
    .await
    .unwrap();
    let got = server.seen().pop().unwrap();
    assert_eq!(
        got.path,
        "/v1/cities/..%2F..%2Fadmin%3Fx%3D1%23frag/forecast"
    );
    assert!(
        got.query
            .starts_with("units=metric&q=..%2F..%2Fadmin%3Fx%3D1%23frag"),
        "{}",
        got.query
    );
    for dots in ["..", "."] {
        let err = endpoints::test(&ws.ctx, &caller, "weather", &json!({ "city": dots }))
            .await
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Validation, "{dots}: {err:?}");
    }
    let sent = server.seen().len();

    // CRLF in a header parameter: refused, nothing sent.
    let err = endpoints::test(
        &ws.ctx,
        &caller,
        "weather",
        &json!({ "city": "x\r\nX-Injected: 1" }),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    assert!(err.message.contains("X-City"), "{}", err.message);
    assert_eq!(server.seen().len(), sent, "nothing was sent");

    // JSON injection in the body: the value stays a string.
    let injection = "\", \"admin\": true, \"x\": \"";
    endpoints::test(
        &ws.ctx,
        &caller,
        "weather",
        &json!({ "city": "Oslo", "note": injection }),
    )
    .await
    .unwrap();
    let body: Value = serde_json::from_str(&server.seen().pop().unwrap().body).unwrap();
    assert_eq!(body, json!({ "text": injection }));

    // Schema violations and unknown parameters are clear errors.
    let err = endpoints::test(&ws.ctx, &caller, "weather", &json!({ "days": 2 }))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    assert!(err.message.contains("city"), "{}", err.message);
    let err = endpoints::test(
        &ws.ctx,
        &caller,
        "weather",
        &json!({ "city": "a", "days": "many" }),
    )
    .await
    .unwrap_err();
    assert!(err.message.contains("days"), "{}", err.message);
    let mut unknown = weather(&server.base);
    unknown.name = "Other".into();
    unknown.headers.push(EndpointPair {
        name: "X-Who".into(),
        value: "{{who}}".into(),
    });
    let err = endpoints::create(&ws.ctx, &caller, unknown)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    assert!(err.message.contains("who"), "{}", err.message);
    let mut host = weather(&server.base);
    host.name = "Hosted".into();
    host.url = "http://{{city}}/x".into();
    let err = endpoints::create(&ws.ctx, &caller, host).await.unwrap_err();
    assert_eq!(err.details.unwrap()["reason"], "placeholder_in_origin");
}

#[tokio::test]
async fn h27_redirects_never_leave_the_declared_origin() {
    let ws = support::workspace().await;
    let (server, stolen) = servers().await;
    let caller = ui(&ws.ctx);
    endpoints::create(
        &ws.ctx,
        &caller,
        get_input(&server.base, "Away", "/redirect-away"),
    )
    .await
    .unwrap();
    let result = endpoints::test(&ws.ctx, &caller, "away", &json!({}))
        .await
        .unwrap();
    assert_eq!(result.status, 302);
    assert!(
        result
            .note
            .as_deref()
            .unwrap_or_default()
            .contains("not followed"),
        "{result:?}"
    );
    assert_eq!(
        stolen.load(Ordering::SeqCst),
        0,
        "nothing reached the other origin"
    );

    endpoints::create(
        &ws.ctx,
        &caller,
        get_input(&server.base, "Home", "/redirect-home"),
    )
    .await
    .unwrap();
    let result = endpoints::test(&ws.ctx, &caller, "home", &json!({}))
        .await
        .unwrap();
    assert_eq!(result.status, 200, "{result:?}");
    assert_eq!(server.seen().pop().unwrap().path, "/landing");
}

#[tokio::test]
async fn h27_answers_are_size_and_time_limited() {
    let ws = support::workspace().await;
    let (server, _) = servers().await;
    let caller = ui(&ws.ctx);
    endpoints::create(
        &ws.ctx,
        &caller,
        get_input(&server.base, "Forever", "/forever"),
    )
    .await
    .unwrap();
    let result = endpoints::test(&ws.ctx, &caller, "forever", &json!({}))
        .await
        .unwrap();
    assert!(result.truncated);
    assert_eq!(result.body.len(), endpoints::MAX_RESPONSE_BYTES);

    endpoints::create(&ws.ctx, &caller, get_input(&server.base, "Hang", "/hang"))
        .await
        .unwrap();
    let err = endpoints::test(&ws.ctx, &caller, "hang", &json!({}))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Upstream);
    assert_eq!(err.details.unwrap()["reason"], "timeout");

    let mut too_long = get_input(&server.base, "Slow", "/x");
    too_long.timeout_seconds = Some(121);
    let err = endpoints::create(&ws.ctx, &caller, too_long)
        .await
        .unwrap_err();
    assert_eq!(err.field(), Some("timeoutSeconds"));
}

#[tokio::test]
async fn h28_reads_name_secret_headers_only_and_only_a_person_declares_endpoints() {
    let ws = support::workspace().await;
    let (server, _) = servers().await;
    let caller = ui(&ws.ctx);
    endpoints::create(&ws.ctx, &caller, weather(&server.base))
        .await
        .unwrap();
    let got = endpoints::get(&ws.ctx, "endpoint_weather").await.unwrap();
    assert_eq!(got.secret_header_names, vec!["Authorization"]);
    let everything =
        serde_json::to_string(&(got, endpoints::list(&ws.ctx).await.unwrap())).unwrap();
    assert!(!everything.contains(SECRET), "{everything}");
    assert!(!everything.contains("4f8a"), "not even a masked tail");

    // An edit that does not retype the secret keeps it; a new value replaces it.
    let mut keep = weather(&server.base);
    keep.secret_headers[0].value = None;
    keep.description = "Forecast, edited".into();
    endpoints::update(&ws.ctx, &caller, "weather", keep)
        .await
        .unwrap();
    endpoints::test(&ws.ctx, &caller, "weather", &json!({ "city": "Oslo" }))
        .await
        .unwrap();
    let auth = server.seen().pop().unwrap().headers["authorization"].clone();
    assert_eq!(auth.to_str().unwrap(), format!("Bearer {SECRET}"));
    let mut fresh = weather(&server.base);
    fresh.secret_headers.push(SecretHeaderInput {
        name: "X-Api-Key".into(),
        value: None,
    });
    let err = endpoints::update(&ws.ctx, &caller, "weather", fresh)
        .await
        .unwrap_err();
    assert_eq!(err.details.unwrap()["reason"], "secret_required");

    // An agent or a remote client may not declare, change or test one.
    for client in [Client::Agent, Client::Http] {
        let outsider = ui(&ws.ctx).through(client);
        let err = endpoints::create(&ws.ctx, &outsider, get_input(&server.base, "X", "/x"))
            .await
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden);
        let err = endpoints::test(&ws.ctx, &outsider, "weather", &json!({ "city": "a" }))
            .await
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden);
    }

    // The preview masks the secret and shows the final request.
    let preview =
        endpoints::preview(weather(&server.base), &json!({ "city": "Oslo", "days": 2 })).unwrap();
    assert_eq!(preview.method, HttpMethod::Post);
    assert_eq!(
        preview.url,
        format!(
            "{}/v1/cities/Oslo/forecast?units=metric&q=Oslo",
            server.base
        )
    );
    assert!(preview.headers.iter().any(|h| h.secret && h.value == MASK));
    assert!(!serde_json::to_string(&preview).unwrap().contains(SECRET));
    assert!(preview.body.unwrap().contains("\"days\": 2"));
}

const CALLER: &str = "You call the weather endpoint.";

#[tokio::test]
async fn h28_an_agent_calls_the_endpoint_and_the_secret_is_nowhere_in_the_data_dir_or_the_run() {
    let (server, _) = servers().await;
    let arguments = json!({ "city": "Lima", "days": 2 }).to_string();
    let (ws, llm) = hive(vec![
        Rule::tool_call("endpoint_weather", &arguments)
            .when(when(CALLER, 0))
            .repeat(),
        Rule::text("It will be sunny.")
            .when(when(CALLER, 1))
            .repeat(),
    ])
    .await;
    endpoints::create(&ws.ctx, &ui(&ws.ctx), weather(&server.base))
        .await
        .unwrap();
    let id = trusted_agent(&ws.ctx, "Forecaster", CALLER, &["endpoint_weather"]).await;
    let run = run_agent(
        &ws.ctx,
        &id,
        "go",
        AgentRunOptions::default(),
        support::no_events(),
    )
    .await
    .unwrap();
    let detail = runs::get(&ws.ctx, &run.id).await.unwrap();
    let result = detail
        .steps
        .iter()
        .find(|s| s.kind == "tool_result")
        .expect("a tool result");
    assert_eq!(result.content["ok"], true, "{:?}", result.content);
    let output = result.content["output"].as_str().unwrap();
    assert!(output.contains("Status: 200"), "{output}");
    assert!(
        output.contains("[secret]"),
        "the echo is redacted: {output}"
    );
    let got = server.seen().pop().unwrap();
    assert_eq!(got.path, "/v1/cities/Lima/forecast");
    assert_eq!(
        got.headers["authorization"].to_str().unwrap(),
        format!("Bearer {SECRET}")
    );
    let steps = serde_json::to_string(&detail).unwrap();
    assert!(!steps.contains(SECRET), "no run step holds the secret");
    let token = SECRET;
    for request in llm.requests() {
        assert!(
            !request.body.to_string().contains(token),
            "the model never sees the secret"
        );
    }
    assert!(
        !support::any_file_contains(ws.dir.path(), SECRET.as_bytes()),
        "the secret is in no file of the data dir"
    );
}

#[tokio::test]
async fn h28_a_get_endpoint_reaches_the_network_and_a_post_one_changes_other_systems() {
    let (server, _) = servers().await;
    let get_args = json!({}).to_string();
    let (ws, _llm) = hive(vec![
        Rule::tool_call("endpoint_reader", &get_args)
            .when(when("You read.", 0))
            .repeat(),
        Rule::tool_call("endpoint_weather", &json!({ "city": "Quito" }).to_string())
            .when(when("You post.", 0))
            .repeat(),
        Rule::text("Done.").when(when("You read.", 1)).repeat(),
        Rule::text("Done.").when(when("You post.", 1)).repeat(),
    ])
    .await;
    let caller = ui(&ws.ctx);
    endpoints::create(&ws.ctx, &caller, weather(&server.base))
        .await
        .unwrap();
    endpoints::create(&ws.ctx, &caller, get_input(&server.base, "Reader", "/read"))
        .await
        .unwrap();
    // Sending messages allowed, changing other systems not: a POST
    // endpoint is the second.
    let rules = Permissions {
        network: GateRule::Allow,
        send: GateRule::Allow,
        act: GateRule::Deny,
        ..Permissions::default()
    };
    let reader = agent(&ws.ctx, "Reader agent", "You read.", &["endpoint_reader"]).await;
    permissions::set_agent_permissions(&ws.ctx, &reader, rules)
        .await
        .unwrap();
    let poster = agent(&ws.ctx, "Poster agent", "You post.", &["endpoint_weather"]).await;
    permissions::set_agent_permissions(&ws.ctx, &poster, rules)
        .await
        .unwrap();
    for (agent, ran) in [(&reader, true), (&poster, false)] {
        let run = run_agent(
            &ws.ctx,
            agent,
            "go",
            AgentRunOptions::default(),
            support::no_events(),
        )
        .await
        .unwrap();
        let detail = runs::get(&ws.ctx, &run.id).await.unwrap();
        let result = detail
            .steps
            .iter()
            .find(|s| s.kind == "tool_result")
            .unwrap();
        assert_eq!(result.content["ok"], ran, "{:?}", result.content);
        if !ran {
            let why = result.content["output"].as_str().unwrap();
            assert!(why.contains("change other systems"), "{why}");
        }
    }
    assert!(server.seen().iter().all(|s| s.path == "/read"));

    // No id begins with the tool prefix, so one tool name can never be
    // judged as one endpoint and run as another.
    let mut prefixed = get_input(&server.base, "Shadow", "/read");
    prefixed.slug = Some("endpoint_reader".into());
    let refused = endpoints::create(&ws.ctx, &caller, prefixed)
        .await
        .unwrap_err();
    assert_eq!(
        refused.details.unwrap()["field"],
        "slug",
        "{}",
        refused.message
    );
    let named = endpoints::create(
        &ws.ctx,
        &caller,
        get_input(&server.base, "Endpoint Notes", "/read"),
    )
    .await
    .unwrap();
    assert_eq!(named.tool, "endpoint_notes");
}

#[tokio::test]
async fn h29_endpoint_tools_are_re_armed_after_a_restart() {
    let (server, _) = servers().await;
    let dir = tempfile::tempdir().unwrap();
    {
        let ctx = support::open(dir.path()).await;
        endpoints::create(&ctx, &Caller::ui(&ctx), weather(&server.base))
            .await
            .unwrap();
        let tool = colmena_core::tools::get(&ctx, "endpoint_weather")
            .await
            .unwrap();
        assert_eq!(tool.source, colmena_core::tools::ToolSource::Endpoint);
        assert!(tool.active);
        assert_eq!(tool.parameters, schema());
        endpoints::create(
            &ctx,
            &Caller::ui(&ctx),
            get_input(&server.base, "Reader", "/read"),
        )
        .await
        .unwrap();
        endpoints::set_enabled(&ctx, &Caller::ui(&ctx), "reader", Some(false))
            .await
            .unwrap();
        colmena_core::workspace::shutdown(&ctx).await;
    }
    // A store whose tool row was lost (an older build, a broken write).
    support::db(dir.path())
        .execute("DELETE FROM tools WHERE id = 'endpoint_weather'", [])
        .unwrap();
    let ctx = support::open(dir.path()).await;
    let tool = colmena_core::tools::get(&ctx, "endpoint_weather")
        .await
        .unwrap();
    assert!(tool.active);
    assert_eq!(tool.description, "Weather forecast for a city");
    assert!(
        !colmena_core::tools::get(&ctx, "endpoint_reader")
            .await
            .unwrap()
            .active
    );
    let hits = colmena_core::memory::search_catalog(&ctx, support::catalog_query("forecast"))
        .await
        .unwrap();
    assert!(
        serde_json::to_string(&hits)
            .unwrap()
            .contains("endpoint_weather"),
        "the re-armed tool is found by search"
    );
    // The secret still opens after the restart: the test call sends it.
    let result = endpoints::test(
        &ctx,
        &Caller::ui(&ctx),
        "weather",
        &json!({ "city": "Rome" }),
    )
    .await
    .unwrap();
    assert!(result.ok);
    assert_eq!(
        server.seen().pop().unwrap().headers["authorization"]
            .to_str()
            .unwrap(),
        format!("Bearer {SECRET}")
    );

    // Deleting takes the tool away too.
    endpoints::delete(&ctx, &Caller::ui(&ctx), "weather")
        .await
        .unwrap();
    assert_eq!(
        colmena_core::tools::get(&ctx, "endpoint_weather")
            .await
            .unwrap_err()
            .code,
        ErrorCode::NotFound
    );
    assert_eq!(
        endpoints::get(&ctx, "weather").await.unwrap_err().code,
        ErrorCode::NotFound
    );
}

#[tokio::test]
async fn h29_test_endpoint_reports_failures_as_answers() {
    let ws = support::workspace().await;
    let (server, _) = servers().await;
    let caller = ui(&ws.ctx);
    endpoints::create(
        &ws.ctx,
        &caller,
        get_input(&server.base, "Missing", "/missing"),
    )
    .await
    .unwrap();
    endpoints::set_enabled(&ws.ctx, &caller, "missing", Some(false))
        .await
        .unwrap();
    let result = endpoints::test(&ws.ctx, &caller, "missing", &json!({}))
        .await
        .unwrap();
    assert!(!result.ok);
    assert_eq!(result.status, 404);
    assert_eq!(result.body, "no such city");
    assert_eq!(
        endpoints::test(&ws.ctx, &caller, "nope", &json!({}))
            .await
            .unwrap_err()
            .code,
        ErrorCode::NotFound
    );
}
