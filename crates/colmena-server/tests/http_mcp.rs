//! `/mcp` and the canvas REST routes attacked over loopback with a real HTTP
//! client (SPEC X1, X2): no token or a wrong one is 401 before the body is
//! read, a foreign browser `Origin` or a rebound `Host` is refused, a
//! loopback page is let through, the server stops with a session open, a
//! role's token reaches the bus tools and no other, and the four REST
//! routes of seed 001 answer as the OpenAPI document says.

#![allow(clippy::unwrap_used)]

mod common;

use colmena_core::caller::BUS_OPERATIONS;
use colmena_core::caller::Client;
use colmena_core::canvas::{self, Caller, items::NewItem};
use colmena_core::inbox::{self, NewAuthor};
use colmena_core::secrets::BackendChoice;
use colmena_core::{Ctx, OpenOptions};
use colmena_server::mcp::ColmenaMcp;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::sync::oneshot;

struct Server {
    _dir: tempfile::TempDir,
    ctx: Ctx,
    base: String,
    http: reqwest::Client,
    stop: Option<oneshot::Sender<()>>,
    served: tokio::task::JoinHandle<colmena_core::Result<()>>,
}

async fn server() -> Server {
    let dir = tempfile::tempdir().unwrap();
    let ctx = colmena_core::workspace::open(OpenOptions {
        data_dir: dir.path().to_owned(),
        secret_backend: BackendChoice::File,
    })
    .await
    .unwrap();
    let listener = colmena_server::http::bind("127.0.0.1:0".parse().unwrap(), false)
        .await
        .unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    let served = tokio::spawn(colmena_server::http::serve(
        ctx.clone(),
        listener,
        async move {
            let _ = stopped.await;
        },
    ));
    Server {
        _dir: dir,
        ctx,
        base,
        http: reqwest::Client::new(),
        stop: Some(stop),
        served,
    }
}

fn initialize() -> Value {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": { "name": "attack-test", "version": "1" }
        }
    })
}

impl Server {
    /// The workspace owner's author (a person) with a fresh token.
    async fn owner_token(&self) -> String {
        inbox::authors::rotate_token(&self.ctx, self.ctx.owner())
            .await
            .unwrap()
            .token
    }

    async fn token(&self, name: &str) -> (String, String) {
        let created = inbox::authors::create(
            &self.ctx,
            NewAuthor {
                name: name.into(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        (created.author.id, created.token)
    }

    fn mcp(&self) -> reqwest::RequestBuilder {
        self.http
            .post(format!("{}/mcp", self.base))
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
    }
}

#[tokio::test]
async fn x2_mcp_without_a_valid_token_is_401_before_the_body_is_read() {
    let s = server().await;
    let none = s.mcp().json(&initialize()).send().await.unwrap();
    assert_eq!(none.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(none.headers()["www-authenticate"], "Bearer");
    let wrong = s
        .mcp()
        .bearer_auth("colmena_0000000000000000000000000000000000000000000000000000000000000000")
        .json(&initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    let body: Value = wrong.json().await.unwrap();
    assert_eq!(body["code"], "unauthorized");
    // A body far over every limit is not read without a token: 401, not 413.
    let huge = vec![b' '; 8 * 1024 * 1024];
    let big = s.mcp().body(huge).send().await.unwrap();
    assert_eq!(big.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn x2_mcp_refuses_a_foreign_origin_and_a_rebound_host() {
    let s = server().await;
    let (_, token) = s.token("Ana").await;
    let foreign = s
        .mcp()
        .bearer_auth(&token)
        .header("origin", "http://attacker.example")
        .json(&initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), StatusCode::FORBIDDEN, "a foreign Origin");
    let rebound = s
        .mcp()
        .bearer_auth(&token)
        .header("host", "attacker.example")
        .json(&initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(rebound.status(), StatusCode::FORBIDDEN, "a rebound Host");
    // A page served from this machine, token in hand, gets through.
    let port = s.base.rsplit(':').next().unwrap();
    let local = s
        .mcp()
        .bearer_auth(&token)
        .header("origin", format!("http://127.0.0.1:{port}"))
        .json(&initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(local.status(), StatusCode::OK);
    assert!(local.headers().contains_key("mcp-session-id"));
}

#[tokio::test]
async fn x2_an_mcp_session_belongs_to_the_author_who_opened_it() {
    let s = server().await;
    let (_, ana) = s.token("Ana").await;
    let (_, beto) = s.token("Beto").await;
    let opened = s
        .mcp()
        .bearer_auth(&ana)
        .json(&initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(opened.status(), StatusCode::OK);
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let _ = opened.text().await;
    let list = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" });
    let hijack = s
        .mcp()
        .bearer_auth(&beto)
        .header("mcp-session-id", &session)
        .json(&list)
        .send()
        .await
        .unwrap();
    assert_eq!(
        hijack.status(),
        StatusCode::FORBIDDEN,
        "another author's session"
    );
    let close = s
        .http
        .delete(format!("{}/mcp", s.base))
        .bearer_auth(&beto)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(
        close.status(),
        StatusCode::FORBIDDEN,
        "closing another author's session"
    );
    // Its own author still uses it.
    let notified = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    let own = s
        .mcp()
        .bearer_auth(&ana)
        .header("mcp-session-id", &session)
        .json(&notified)
        .send()
        .await
        .unwrap();
    assert!(own.status().is_success(), "{}", own.status());
}

#[tokio::test]
async fn x2_an_mcp_body_over_the_limit_is_refused() {
    let s = server().await;
    let (_, token) = s.token("Ana").await;
    let mut call = initialize();
    call["params"]["padding"] = json!("x".repeat(2 * 1024 * 1024));
    let refused = s
        .mcp()
        .bearer_auth(&token)
        .json(&call)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::PAYLOAD_TOO_LARGE);
}

#[tokio::test]
async fn x2_the_server_stops_with_an_mcp_session_open() {
    let mut s = server().await;
    // A person's token: a role's gets no event stream.
    let token = s.owner_token().await;
    let opened = s
        .mcp()
        .bearer_auth(&token)
        .json(&initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(opened.status(), StatusCode::OK);
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let _ = opened.text().await;
    // The session's event stream stays open while the server runs.
    let stream = s
        .http
        .get(format!("{}/mcp", s.base))
        .bearer_auth(&token)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    s.stop.take().unwrap().send(()).unwrap();
    // A hang guard, not a timing claim: shutdown must not wait for the
    // client to close its stream.
    let stopped = tokio::time::timeout(std::time::Duration::from_secs(60), &mut s.served).await;
    assert!(
        matches!(stopped, Ok(Ok(Ok(())))),
        "the server did not stop: {stopped:?}"
    );
    drop(stream);
}

/// One check for every tool there is: a role's token calls the bus tools,
/// and every other tool answers it `forbidden` (`role_has_no_user`), before
/// its arguments are even read.
#[tokio::test]
async fn x2_a_roles_token_reaches_only_the_bus_tools() {
    let s = server().await;
    let (_, role) = s.token("Clonador").await;
    let session = common::mcp_session(&s.http, &s.base, &role).await;
    let names = ColmenaMcp::tool_names();
    for bus_tool in BUS_OPERATIONS {
        assert!(names.iter().any(|n| n == bus_tool), "{bus_tool} is no tool");
    }
    assert!(names.len() > BUS_OPERATIONS.len(), "{names:?}");
    for name in &names {
        let result = common::call(&s.http, &s.base, &role, &session, name, json!({})).await;
        let error = &result["structuredContent"];
        if BUS_OPERATIONS.contains(&name.as_str()) {
            // `{}` may be wrong arguments for it, never a refusal of the role.
            assert_ne!(error["code"], "forbidden", "{name}: {result}");
        } else {
            assert_eq!(result["isError"], json!(true), "{name}: {result}");
            assert_eq!(error["code"], "forbidden", "{name}: {result}");
            assert_eq!(
                error["details"]["reason"], "role_has_no_user",
                "{name}: {result}"
            );
        }
    }
}

#[tokio::test]
async fn c9_the_canvas_rest_routes_act_for_the_token_and_check_their_input() {
    let s = server().await;
    let token = s.owner_token().await;
    let me = colmena_core::inbox::authors::caller_as(&s.ctx, s.ctx.owner(), Client::Http)
        .await
        .unwrap();
    let mine = canvas::create(&s.ctx, &me, Some("Mío".into()))
        .await
        .unwrap();

    // Another person's canvas is out of reach (404, never 403).
    colmena_core::users::create(&s.ctx, "Beto").await.unwrap();
    let beto = Caller::cli(&s.ctx, Some("beto"));
    let theirs = canvas::create(&s.ctx, &beto, Some("Suyo".into()))
        .await
        .unwrap();
    canvas::items::add_item(
        &s.ctx,
        &beto,
        &theirs.id,
        NewItem {
            title: Some("privado".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();

    let url = |path: &str| format!("{}{path}", s.base);
    let no_token = s
        .http
        .post(url(&format!("/api/sessions/{}/items", mine.id)))
        .json(&json!({ "title": "x" }))
        .send()
        .await
        .unwrap();
    assert_eq!(no_token.status(), StatusCode::UNAUTHORIZED);

    let added = s
        .http
        .post(url(&format!("/api/sessions/{}/items", mine.id)))
        .bearer_auth(&token)
        .json(&json!({ "title": "Informe FAO", "snippet": "75 %", "metrics": { "shares": 3 } }))
        .send()
        .await
        .unwrap();
    assert_eq!(added.status(), StatusCode::CREATED);
    let item: Value = added.json().await.unwrap();
    assert_eq!(item["title"], "Informe FAO");

    let foreign = s
        .http
        .post(url(&format!("/api/sessions/{}/items", theirs.id)))
        .bearer_auth(&token)
        .json(&json!({ "title": "intruso" }))
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), StatusCode::NOT_FOUND);
    let detail = canvas::get(&s.ctx, &beto, &theirs.id).await.unwrap();
    assert_eq!(detail.items.len(), 1, "nothing was added to Beto's canvas");

    let bad = s
        .http
        .post(url(&format!("/api/sessions/{}/items", mine.id)))
        .bearer_auth(&token)
        .json(&json!({ "title": 5 }))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let malformed = s
        .http
        .post(url(&format!("/api/sessions/{}/items", mine.id)))
        .bearer_auth(&token)
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(malformed.status(), StatusCode::BAD_REQUEST);

    // The activity of the token's user only, limit 1–100.
    let activity = s
        .http
        .get(url("/api/sessions/activity?limit=5"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(activity.status(), StatusCode::OK);
    let lines: Vec<Value> = activity.json().await.unwrap();
    assert!(
        lines
            .iter()
            .any(|l| l["tool"] == "session.add_item" && l["client"] == "http"),
        "{lines:?}"
    );
    assert!(
        !lines.iter().any(|l| l["detail"] == "privado"),
        "Beto's activity is not Ana's"
    );
    for limit in ["0", "101", "many"] {
        let refused = s
            .http
            .get(url(&format!("/api/sessions/activity?limit={limit}")))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST, "limit={limit}");
    }

    // Regenerating a variant that is not there, refreshing what cannot be.
    let missing = s
        .http
        .post(url(&format!(
            "/api/sessions/{}/variants/nope/regenerate",
            mine.id
        )))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    let unknown = s
        .http
        .post(url("/api/sessions/sources/nope/refresh"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);

    // A role's token reaches the bus only: the people's canvases are 403.
    let (_, role) = s.token("Clonador").await;
    for (method, path) in [
        ("POST", format!("/api/sessions/{}/items", mine.id)),
        ("GET", "/api/sessions/activity".to_owned()),
    ] {
        let refused = s
            .http
            .request(method.parse().unwrap(), url(&path))
            .bearer_auth(&role)
            .json(&json!({ "title": "de un rol" }))
            .send()
            .await
            .unwrap();
        assert_eq!(refused.status(), StatusCode::FORBIDDEN, "{method} {path}");
        let body: Value = refused.json().await.unwrap();
        assert_eq!(body["details"]["reason"], "role_has_no_user");
    }
    assert_eq!(
        canvas::get(&s.ctx, &me, &mine.id)
            .await
            .unwrap()
            .items
            .len(),
        1,
        "nothing was added by the role"
    );

    // All four are in the API document.
    let doc: Value = s
        .http
        .get(url("/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    for path in [
        "/api/sessions/activity",
        "/api/sessions/{id}/items",
        "/api/sessions/{id}/variants/{vid}/regenerate",
        "/api/sessions/sources/{id}/refresh",
        "/mcp",
    ] {
        assert!(doc["paths"][path].is_object(), "{path} is not described");
    }
}
