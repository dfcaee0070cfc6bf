//! The HTTP server attacked as the issue "Safe by default" (item 4) says,
//! over loopback only: half-open requests (slowloris) are closed by the
//! header timeout while `/health` keeps answering; a foreign `Host` or
//! `Origin` is refused on every route; a flood of urgent mail from one
//! token is rate-limited and wakes the receiving role at most once per
//! minimum interval; a full inbox refuses mail with 429 until it is read;
//! a busy store is 503 with `Retry-After` and nothing internal in the body;
//! `--tls-cert/--tls-key` serve HTTPS; MCP event streams never take the
//! last connection slots, one token's sessions and streams are capped, and
//! a role's token gets no event stream.

#![allow(clippy::unwrap_used)]

mod common;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use chrono::Timelike;
use colmena_core::Ctx;
use colmena_core::agents::{self, NewAgent};
use colmena_core::inbox::{self, NewAuthor};
use colmena_core::models::{self, NewModel};
use colmena_core::providers::{self, NewProvider};
use colmena_core::runs::{self, RunFilter};
use colmena_scripted_llm::{Matcher, Protocol, Rule, Script, ScriptedLlm};
use colmena_server::http::{ServerConfig, Tls};
use futures_util::StreamExt;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

struct Server {
    dir: tempfile::TempDir,
    ctx: Ctx,
    addr: SocketAddr,
    base: String,
    http: reqwest::Client,
    stop: CancellationToken,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn serve(dir: tempfile::TempDir, ctx: Ctx, config: ServerConfig) -> Server {
    let listener = colmena_server::http::bind("127.0.0.1:0".parse().unwrap(), false)
        .await
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let scheme = if config.tls.is_some() {
        "https"
    } else {
        "http"
    };
    let stop = CancellationToken::new();
    let stopped = stop.clone();
    tokio::spawn(colmena_server::http::serve_with(
        ctx.clone(),
        listener,
        config,
        async move { stopped.cancelled().await },
    ));
    Server {
        dir,
        ctx,
        addr,
        base: format!("{scheme}://{addr}"),
        http: reqwest::Client::new(),
        stop,
    }
}

async fn server(config: ServerConfig) -> Server {
    let (dir, ctx) = common::workspace().await;
    serve(dir, ctx, config).await
}

impl Server {
    async fn author(&self, name: &str) -> (String, String) {
        common::author(&self.ctx, name).await
    }

    fn send(&self, token: &str, from: &str, to: &str, body: Value) -> reqwest::RequestBuilder {
        self.http
            .post(format!("{}/author/{from}/message-to/{to}", self.base))
            .bearer_auth(token)
            .json(&body)
    }
}

async fn error_of(response: reqwest::Response) -> Value {
    let kind = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(kind.starts_with("application/json"), "not JSON: {kind}");
    response.json().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn safe_two_thousand_half_open_requests_leave_health_answering_and_are_closed() {
    const HALF_OPEN: usize = 2_000;
    const BATCH: usize = 250;
    // Client and server ends of every connection live in this process.
    let _ = rlimit::increase_nofile_limit(16_384);
    let s = server(ServerConfig {
        header_timeout: Duration::from_secs(1),
        ..ServerConfig::default()
    })
    .await;
    // A fresh connection for every ask: the server closes idle keep-alive
    // connections while the flood holds it, and a pooled one it has just
    // closed would fail the request (IncompleteMessage), not the server.
    let health = reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let mut stalled = Vec::with_capacity(HALF_OPEN);
    for _ in 0..HALF_OPEN / BATCH {
        let mut batch = Vec::with_capacity(BATCH);
        for _ in 0..BATCH {
            let addr = s.addr;
            batch.push(tokio::spawn(async move {
                let mut stream = TcpStream::connect(addr).await.unwrap();
                // A request head that never ends.
                stream
                    .write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                    .await
                    .unwrap();
                stream
            }));
        }
        for opened in batch {
            stalled.push(opened.await.unwrap());
        }
        // The server still answers someone who asks properly.
        let answer = health
            .get(format!("{}/health", s.base))
            .send()
            .await
            .expect("/health answers during the flood");
        assert_eq!(answer.status(), StatusCode::OK);
    }
    // Every stalled connection is closed by the server (EOF or reset), not
    // left open: a generous hang guard, not a timing claim.
    let closed = futures_util::stream::iter(stalled)
        .map(|mut stream| async move {
            let mut buf = [0u8; 512];
            tokio::time::timeout(Duration::from_secs(90), async {
                loop {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {}
                    }
                }
            })
            .await
            .is_ok()
        })
        .buffer_unordered(HALF_OPEN)
        .collect::<Vec<bool>>()
        .await;
    let open = closed.iter().filter(|c| !**c).count();
    assert_eq!(open, 0, "{open} half-open connections were never closed");
    let answer = health
        .get(format!("{}/health", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::OK);
}

#[tokio::test]
async fn safe_a_foreign_host_or_origin_is_refused_on_every_route() {
    let s = server(ServerConfig::default()).await;
    let (ana, token) = s.author("Ana").await;
    let (beto, _) = s.author("Beto").await;
    let routes: Vec<(&str, String)> = vec![
        ("GET", "/health".into()),
        ("GET", "/openapi.json".into()),
        ("POST", format!("/author/{ana}/message-to/{beto}")),
        ("GET", format!("/author/{ana}/inbox")),
        ("GET", format!("/author/{ana}/sent")),
        ("DELETE", "/message/m1".into()),
        ("GET", "/api/sessions/activity".into()),
        ("POST", "/api/sessions/c1/items".into()),
        ("POST", "/mcp".into()),
        ("GET", "/no/such/route".into()),
    ];
    let port = s.addr.port();
    for (method, path) in &routes {
        let request = |host: Option<&str>, origin: Option<&str>| {
            let mut r = s
                .http
                .request(method.parse().unwrap(), format!("{}{path}", s.base))
                .bearer_auth(&token)
                .header("accept", "application/json, text/event-stream")
                .header("content-type", "application/json")
                .body(r#"{"body":"hola"}"#);
            if let Some(host) = host {
                r = r.header("host", host);
            }
            if let Some(origin) = origin {
                r = r.header("origin", origin);
            }
            r
        };
        for host in [
            "evil.test",
            "evil.test:80",
            "127.0.0.1.evil.test",
            "0.0.0.0",
        ] {
            let refused = request(Some(host), None).send().await.unwrap();
            assert_eq!(
                refused.status(),
                StatusCode::FORBIDDEN,
                "{method} {path} {host}"
            );
            let body = error_of(refused).await;
            assert_eq!(body["code"], "forbidden");
            assert_eq!(body["details"]["reason"], "host_not_allowed", "{body}");
        }
        for origin in ["http://evil.test", "null", "https://localhost.evil.test"] {
            let refused = request(None, Some(origin)).send().await.unwrap();
            assert_eq!(
                refused.status(),
                StatusCode::FORBIDDEN,
                "{method} {path} {origin}"
            );
            let body = error_of(refused).await;
            assert_eq!(body["details"]["reason"], "origin_not_allowed", "{body}");
        }
        // The loopback names, with or without a port, and loopback pages.
        for host in [
            format!("localhost:{port}"),
            "[::1]".into(),
            "127.0.0.1".into(),
        ] {
            let let_in = request(Some(&host), Some(&format!("http://localhost:{port}")))
                .send()
                .await
                .unwrap();
            let status = let_in.status();
            let body: Value = let_in.json().await.unwrap_or_default();
            let reason = body["details"]["reason"].as_str().unwrap_or_default();
            assert!(
                !reason.ends_with("_not_allowed"),
                "{method} {path} {host}: {status} {body}"
            );
        }
    }
    // A name given with --allowed-host is accepted too.
    let named = server(ServerConfig {
        allowed_hosts: vec!["bus.example".into()],
        ..ServerConfig::default()
    })
    .await;
    let ok = named
        .http
        .get(format!("{}/health", named.base))
        .header("host", "BUS.example:443")
        .header("origin", "https://bus.example")
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), StatusCode::OK);
}

/// A workspace whose default model is the scripted provider.
async fn scripted(ctx: &Ctx, rules: Vec<Rule>) -> ScriptedLlm {
    let llm = ScriptedLlm::start(Script { rules }).await.unwrap();
    providers::create(
        ctx,
        NewProvider {
            name: "Scripted".into(),
            kind: "openai".into(),
            base_url: Some(llm.base_url(Protocol::OpenAi)),
            api_key: Some("sk-stored-key-0123456789".into()),
        },
    )
    .await
    .unwrap();
    let model = models::create(
        ctx,
        NewModel {
            provider_id: "scripted".into(),
            name: "gpt-test".into(),
            label: None,
        },
    )
    .await
    .unwrap();
    models::set_default_model(ctx, Some(model.id))
        .await
        .unwrap();
    llm
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn safe_five_thousand_urgent_messages_are_rate_limited_and_wake_the_role_once_per_interval() {
    const URGENT: usize = 5_000;
    const INTERVAL: u64 = 3;
    /// A hang guard, not a timing claim.
    const PATIENCE: Duration = Duration::from_secs(120);
    let (dir, ctx) = common::workspace().await;
    let llm = scripted(
        &ctx,
        vec![
            Rule::text("Read them.")
                .when(Matcher {
                    system_contains: Some("You are Ambrosio".into()),
                    ..Default::default()
                })
                .repeat(),
        ],
    )
    .await;
    inbox::wake_timing::set_min_wake_interval(&ctx, INTERVAL as u32)
        .await
        .unwrap();
    let agent = agents::create(
        &ctx,
        NewAgent {
            name: "Ambrosio".into(),
            system_prompt: "You are Ambrosio, the coordinator.".into(),
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .id;
    let role = inbox::authors::create(
        &ctx,
        NewAuthor {
            name: "Ambrosio".into(),
            agent_id: Some(agent.to_string()),
            wake_interval_minutes: Some(60),
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .author;
    let s = serve(dir, ctx, ServerConfig::default()).await;
    let scheduler = CancellationToken::new();
    tokio::spawn(colmena_core::roles::wakes::run_scheduler(
        s.ctx.clone(),
        scheduler.clone(),
    ));
    let (ana, token) = s.author("Ana").await;
    let urgent = |body: String| inbox::SendMessage {
        body,
        priority: Some("urgent".into()),
        reply_to: None,
        message_id: None,
    };

    // No wake-up can have been claimed before this: the role's first is an
    // hour away and no mail has come yet. Whole seconds, rounded down: the
    // store keeps microseconds.
    let flood_began = chrono::Utc::now().with_nanosecond(0).unwrap();
    let statuses = futures_util::stream::iter(0..URGENT)
        .map(|n| {
            let request = s.send(
                &token,
                &ana,
                &role.id,
                json!({ "body": format!("Urgente {n}"), "priority": "urgent" }),
            );
            async move {
                let response = request.send().await.unwrap();
                let retry = response.headers().contains_key("retry-after");
                (response.status(), retry)
            }
        })
        .buffer_unordered(32)
        .collect::<Vec<_>>()
        .await;
    let mut counts: HashMap<u16, usize> = HashMap::new();
    for (status, retry) in &statuses {
        *counts.entry(status.as_u16()).or_default() += 1;
        if *status == StatusCode::TOO_MANY_REQUESTS {
            assert!(retry, "a 429 without Retry-After");
        }
    }
    let limited = counts.get(&429).copied().unwrap_or(0);
    let created = counts.get(&201).copied().unwrap_or(0);
    assert_eq!(limited + created, URGENT, "{counts:?}");
    assert!(limited >= URGENT / 2, "not rate-limited: {counts:?}");
    assert!(created >= 1, "{counts:?}");

    // The same rule at another door, without any rate limit: urgent mail
    // sent through core directly (the app, agents' tools, the drop folder).
    for n in 0..2_000 {
        inbox::messages::send(
            &s.ctx,
            &colmena_core::Caller::ui(&s.ctx),
            &ana,
            &role.id,
            urgent(format!("Urgente directo {n}")),
        )
        .await
        .unwrap();
    }

    // What is checked is what the product recorded, not how long anything
    // took: each wake-up's claim (`last_wake_at`, the time the rule is
    // kept against) and each run's start. Deadlines are hang guards only.
    let (ctx, target, role_id) = (&s.ctx, &agent.to_string(), &role.id);
    let runs_of_agent = || async move {
        let mut runs = runs::list(
            ctx,
            RunFilter {
                target_id: Some(target.clone()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        runs.sort_by_key(|r| r.started_at);
        runs
    };
    let last_wake = || async move {
        inbox::authors::get(ctx, role_id)
            .await
            .unwrap()
            .last_wake_at
    };
    // The flood made the role due at once: it is woken.
    let deadline = Instant::now() + PATIENCE;
    while runs_of_agent().await.is_empty() {
        assert!(Instant::now() < deadline, "the role was never woken");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let earlier = last_wake().await.expect("a run was started by a claim");
    // One more urgent message, sent after that claim: it makes the role
    // due again, but no sooner than the interval allows.
    inbox::messages::send(
        &s.ctx,
        &colmena_core::Caller::ui(&s.ctx),
        &ana,
        &role.id,
        urgent("Urgente tardío".into()),
    )
    .await
    .unwrap();
    let later = loop {
        if let Some(at) = last_wake().await.filter(|at| *at > earlier) {
            break at;
        }
        assert!(
            Instant::now() < deadline,
            "the role was not woken again for the mail left unread"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let runs = runs_of_agent().await;
    scheduler.cancel();
    let interval = chrono::Duration::seconds(INTERVAL as i64);
    assert!(
        later - earlier >= interval,
        "two wake-ups claimed {} ms apart with a {INTERVAL} s minimum interval",
        (later - earlier).num_milliseconds()
    );
    // Every wake-up's claim is at least one interval after the one before,
    // the first after the flood began, and a run starts after its claim:
    // the k-th run cannot start sooner than k intervals into the flood.
    for (k, run) in runs.iter().enumerate() {
        let earliest = flood_began + interval * i32::try_from(k).unwrap();
        assert!(
            run.started_at >= earliest,
            "wake-up run {k} started at {}, before {earliest} ({} runs: more than one per {INTERVAL} s)",
            run.started_at,
            runs.len()
        );
    }
    // Measured, not asserted beyond the rule itself.
    eprintln!(
        "{counts:?}; {} wake-ups ({} model calls), claims {} ms apart",
        runs.len(),
        llm.requests().len(),
        (later - earlier).num_milliseconds()
    );
}

#[tokio::test]
async fn safe_a_full_inbox_refuses_mail_with_429_until_it_is_read() {
    let s = server(ServerConfig::default()).await;
    inbox::messages::set_max_unread(&s.ctx, 3).await.unwrap();
    let (ana, ana_token) = s.author("Ana").await;
    let (beto, beto_token) = s.author("Beto").await;
    for n in 0..3 {
        let sent = s
            .send(&ana_token, &ana, &beto, json!({ "body": format!("m{n}") }))
            .send()
            .await
            .unwrap();
        assert_eq!(sent.status(), StatusCode::CREATED);
    }
    let full = s
        .send(&ana_token, &ana, &beto, json!({ "body": "one more" }))
        .send()
        .await
        .unwrap();
    assert_eq!(full.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(full.headers().contains_key("retry-after"));
    let body = error_of(full).await;
    assert_eq!(body["code"], "rate_limited");
    assert_eq!(body["details"]["reason"], "inbox_full");
    assert_eq!(body["details"]["field"], "to");
    // Reading makes room.
    let read = s
        .http
        .get(format!("{}/author/{beto}/inbox", s.base))
        .bearer_auth(&beto_token)
        .send()
        .await
        .unwrap();
    assert_eq!(read.status(), StatusCode::OK);
    let again = s
        .send(&ana_token, &ana, &beto, json!({ "body": "now" }))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::CREATED);
}

/// End to end: another connection holds the store's write lock longer than
/// the store waits for it (10 s), so the send fails busy.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn safe_a_busy_store_is_503_with_retry_after_and_no_internal_detail() {
    let s = server(ServerConfig::default()).await;
    let (ana, token) = s.author("Ana").await;
    let (beto, _) = s.author("Beto").await;
    let db = s.dir.path().join("colmena.db");
    let (locked, release) = (
        tokio::sync::oneshot::channel::<()>(),
        tokio::sync::oneshot::channel::<()>(),
    );
    let (locked_tx, locked_rx) = locked;
    let (release_tx, release_rx) = release;
    let holder = std::thread::spawn(move || {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch("BEGIN EXCLUSIVE").unwrap();
        let _ = locked_tx.send(());
        let _ = release_rx.blocking_recv();
        conn.execute_batch("ROLLBACK").unwrap();
    });
    locked_rx.await.unwrap();
    let busy = s
        .send(&token, &ana, &beto, json!({ "body": "hola" }))
        .send()
        .await
        .unwrap();
    let _ = release_tx.send(());
    holder.join().unwrap();
    assert_eq!(busy.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(busy.headers()["retry-after"], "1");
    assert!(busy.headers().contains_key("x-request-id"));
    let body = error_of(busy).await;
    assert_eq!(body["code"], "busy");
    let text = body.to_string();
    assert!(
        !text.contains("SQLITE") && !text.contains("locked") && !text.contains(".db"),
        "{text}"
    );
    assert!(body["details"]["requestId"].is_string(), "{body}");
    // Once the lock is gone the same request succeeds.
    let sent = s
        .send(&token, &ana, &beto, json!({ "body": "hola" }))
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn safe_tls_serves_https_with_the_given_certificate() {
    let certified =
        rcgen::generate_simple_self_signed(vec!["localhost".into(), "127.0.0.1".into()]).unwrap();
    let files = tempfile::tempdir().unwrap();
    let (cert, key) = (files.path().join("cert.pem"), files.path().join("key.pem"));
    std::fs::write(&cert, certified.cert.pem()).unwrap();
    std::fs::write(&key, certified.signing_key.serialize_pem()).unwrap();
    let s = server(ServerConfig {
        tls: Some(Tls::load(&cert, &key).unwrap()),
        ..ServerConfig::default()
    })
    .await;
    let trusting = reqwest::Client::builder()
        .add_root_certificate(
            reqwest::Certificate::from_pem(certified.cert.pem().as_bytes()).unwrap(),
        )
        .build()
        .unwrap();
    let base = format!("https://localhost:{}", s.addr.port());
    let health = trusting.get(format!("{base}/health")).send().await.unwrap();
    assert_eq!(health.status(), StatusCode::OK);
    let (ana, token) = s.author("Ana").await;
    let inbox = trusting
        .get(format!("{base}/author/{ana}/inbox"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(inbox.status(), StatusCode::OK);
    // Plain HTTP on the TLS port gets nowhere.
    let plain = reqwest::Client::new()
        .get(format!("http://127.0.0.1:{}/health", s.addr.port()))
        .timeout(Duration::from_secs(30))
        .send()
        .await;
    assert!(plain.is_err() || !plain.unwrap().status().is_success());
    // A key that does not go with the certificate is refused up front.
    let other = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    std::fs::write(&key, other.signing_key.serialize_pem()).unwrap();
    let err = Tls::load(&cert, &key).err().unwrap();
    assert_eq!(err.code, colmena_core::ErrorCode::Validation);
}

/// How many MCP sessions and event streams one token may hold open.
const SESSIONS_PER_AUTHOR: usize = 8;
const STREAMS_PER_AUTHOR: usize = 4;
/// A hang guard for the MCP tests, not a timing claim.
const MCP_PATIENCE: Duration = Duration::from_secs(60);

/// `work`, or a failure naming `what` if it hangs.
async fn within<T>(what: &str, work: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(MCP_PATIENCE, work)
        .await
        .unwrap_or_else(|_| panic!("{what}: no answer within {MCP_PATIENCE:?}"))
}

/// Asks for the event stream of MCP session `session`; the response, its
/// body left open.
async fn event_stream(
    http: &reqwest::Client,
    base: &str,
    token: &str,
    session: &str,
) -> reqwest::Response {
    let asked = http
        .get(format!("{base}/mcp"))
        .bearer_auth(token)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", session)
        .send();
    within("GET /mcp", asked).await.unwrap()
}

/// An `initialize` that is not followed up: the session it opens (if any)
/// sits idle from then on.
async fn initialize(s: &Server, token: &str) -> reqwest::Response {
    let asked = common::mcp_post(&s.http, &s.base, token)
        .json(&common::mcp_initialize())
        .send();
    within("initialize", asked).await.unwrap()
}

async fn close_session(s: &Server, token: &str, session: &str) {
    let closed = s
        .http
        .delete(format!("{}/mcp", s.base))
        .bearer_auth(token)
        .header("mcp-session-id", session)
        .send();
    let closed = within("DELETE /mcp", closed).await.unwrap();
    assert!(closed.status().is_success(), "{}", closed.status());
}

/// The finding this answers: with `--max-connections 4`, four event
/// streams held every connection and `/health` went unanswered. Streams
/// now hold three of the four slots at most, and the fourth is refused
/// with `Connection: close` rather than kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn safe_four_event_streams_leave_health_answering() {
    let s = server(ServerConfig {
        max_connections: 4,
        ..ServerConfig::default()
    })
    .await;
    let person = inbox::authors::rotate_token(&s.ctx, s.ctx.owner())
        .await
        .unwrap()
        .token;
    // A connection for every request, closed after it: with four slots, a
    // connection idle in a client's pool would hold one of them.
    let fresh = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let mut sessions = Vec::new();
    for _ in 0..4 {
        let opened = within("initialize", common::mcp_session(&fresh, &s.base, &person)).await;
        sessions.push(opened);
    }
    let asked = sessions
        .iter()
        .map(|session| event_stream(&fresh, &s.base, &person, session));
    let answers = futures_util::future::join_all(asked).await;
    let statuses: Vec<StatusCode> = answers.iter().map(reqwest::Response::status).collect();
    let (open, mut refused): (Vec<_>, Vec<_>) = answers
        .into_iter()
        .partition(|answer| answer.status() == StatusCode::OK);
    assert_eq!(
        open.len(),
        3,
        "streams with 4 connection slots: {statuses:?}"
    );
    assert_eq!(refused.len(), 1, "{statuses:?}");
    let busy = refused.pop().unwrap();
    assert_eq!(busy.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(busy.headers()["connection"], "close");
    assert!(busy.headers().contains_key("retry-after"));
    let body = error_of(busy).await;
    assert_eq!(body["code"], "busy");
    assert_eq!(body["details"]["reason"], "stream_slots_full", "{body}");

    // The three streams are still open: the reserved slot answers.
    let health = within("/health", fresh.get(format!("{}/health", s.base)).send())
        .await
        .expect("/health answers with every stream slot taken");
    assert_eq!(health.status(), StatusCode::OK);

    // A role's token: no event stream at all, and no tool but the bus's.
    let (_, role) = s.author("Outsider").await;
    let role_session = within("initialize", common::mcp_session(&fresh, &s.base, &role)).await;
    let refused = event_stream(&fresh, &s.base, &role, &role_session).await;
    assert_eq!(refused.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(refused.headers()["allow"], "POST, DELETE");
    assert_eq!(refused.headers()["connection"], "close");
    let body = error_of(refused).await;
    assert_eq!(body["code"], "forbidden");
    assert_eq!(body["details"]["reason"], "role_no_event_stream", "{body}");
    let listed = common::call(
        &fresh,
        &s.base,
        &role,
        &role_session,
        "list_agents",
        json!({}),
    );
    let listed = within("tools/call", listed).await;
    assert_eq!(listed["isError"], json!(true), "{listed}");
    assert_eq!(listed["structuredContent"]["code"], "forbidden", "{listed}");
    drop(open);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn safe_one_token_is_capped_in_sessions_and_streams() {
    let s = server(ServerConfig::default()).await;
    let person = inbox::authors::rotate_token(&s.ctx, s.ctx.owner())
        .await
        .unwrap()
        .token;
    let mut sessions = Vec::new();
    for _ in 0..SESSIONS_PER_AUTHOR {
        let opened = within("initialize", common::mcp_session(&s.http, &s.base, &person)).await;
        sessions.push(opened);
    }
    let refused = initialize(&s, &person).await;
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(refused.headers().contains_key("retry-after"));
    let body = error_of(refused).await;
    assert_eq!(body["code"], "rate_limited");
    assert_eq!(body["details"]["reason"], "too_many_sessions", "{body}");
    // Another token has sessions of its own.
    let (_, other) = s.author("Beto").await;
    within("initialize", common::mcp_session(&s.http, &s.base, &other)).await;

    // A session closed (DELETE) stops counting at once, and its id is
    // unknown from then on.
    let last = sessions.pop().unwrap();
    close_session(&s, &person, &last).await;
    let gone = common::mcp_post(&s.http, &s.base, &person)
        .header("mcp-session-id", &last)
        .json(&json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/list" }))
        .send();
    let gone = within("tools/list", gone).await.unwrap();
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
    let opened = within("initialize", common::mcp_session(&s.http, &s.base, &person)).await;
    sessions.push(opened);

    // Streams: four across the token's sessions, not a fifth.
    let mut streams = Vec::new();
    for session in &sessions[..STREAMS_PER_AUTHOR] {
        let stream = event_stream(&s.http, &s.base, &person, session).await;
        assert_eq!(stream.status(), StatusCode::OK);
        streams.push(stream);
    }
    let fifth = &sessions[STREAMS_PER_AUTHOR];
    let refused = event_stream(&s.http, &s.base, &person, fifth).await;
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(refused.headers()["connection"], "close");
    let body = error_of(refused).await;
    assert_eq!(body["code"], "rate_limited");
    assert_eq!(body["details"]["reason"], "too_many_streams", "{body}");
    // A stream ends with its session and gives its place back (once the
    // server has sent its end: waited for, not assumed).
    close_session(&s, &person, &sessions[0]).await;
    let deadline = Instant::now() + MCP_PATIENCE;
    let fifth_stream = loop {
        let stream = event_stream(&s.http, &s.base, &person, fifth).await;
        if stream.status() == StatusCode::OK {
            break stream;
        }
        assert_eq!(stream.status(), StatusCode::TOO_MANY_REQUESTS);
        assert!(
            Instant::now() < deadline,
            "the stream of a closed session still counts"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    drop((streams, fifth_stream));

    // Sessions left idle are closed by the server and stop counting: with
    // a one-second idle time, a token opens three times its cap of sessions
    // and never closes one. Each is waited for, however slow the machine.
    let idle = server(ServerConfig {
        mcp_session_idle: Duration::from_secs(1),
        ..ServerConfig::default()
    })
    .await;
    let token = inbox::authors::rotate_token(&idle.ctx, idle.ctx.owner())
        .await
        .unwrap()
        .token;
    for n in 0..3 * SESSIONS_PER_AUTHOR {
        let deadline = Instant::now() + MCP_PATIENCE;
        loop {
            let answer = initialize(&idle, &token).await;
            let status = answer.status();
            let _ = answer.bytes().await;
            if status == StatusCode::OK {
                break;
            }
            assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "session {n}");
            assert!(
                Instant::now() < deadline,
                "session {n}: idle sessions are never closed"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}
