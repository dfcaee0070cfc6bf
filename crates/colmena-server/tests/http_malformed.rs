//! A corpus of malformed requests, generated from tables and their
//! combinations (the issue "Safe by default": at least 200), over loopback
//! against the REST bus, the canvas REST routes and `/mcp`: wrong types,
//! huge bodies, truncated JSON, bad UTF-8, bad JSON, bad ids, wrong content
//! types, missing and unknown fields, path ids with odd characters, bad
//! query values, wrong methods, broken credentials. Every answer is a 4xx
//! with a JSON error body `{code, message}`, none is a 5xx, the server is
//! alive afterwards, and nothing was stored. An answer given before its
//! request's body was read leaves the connection usable, or says
//! `Connection: close` (CI once saw a pooled connection closed silently).

#![allow(clippy::unwrap_used)]

mod common;

use colmena_core::Ctx;
use colmena_core::caller::Client;
use colmena_core::canvas;
use colmena_core::inbox;
use colmena_server::http::ServerConfig;
use futures_util::StreamExt;
use reqwest::{Method, StatusCode};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

struct Case {
    what: String,
    method: Method,
    path: String,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
}

fn case(what: impl Into<String>, method: Method, path: impl Into<String>) -> Case {
    Case {
        what: what.into(),
        method,
        path: path.into(),
        headers: Vec::new(),
        body: Vec::new(),
    }
}

impl Case {
    fn header(mut self, name: &'static str, value: impl Into<String>) -> Case {
        self.headers.push((name, value.into()));
        self
    }

    fn body(mut self, body: impl Into<Vec<u8>>) -> Case {
        self.body = body.into();
        self
    }

    fn json(self, body: impl Into<Vec<u8>>) -> Case {
        self.header("content-type", "application/json").body(body)
    }
}

/// JSON bodies that are not a message `{body, priority}`.
fn bad_message_bodies() -> Vec<(&'static str, Vec<u8>)> {
    let mut bodies: Vec<(&'static str, Vec<u8>)> = vec![
        // Wrong types.
        ("body is a number", br#"{"body": 1}"#.to_vec()),
        ("body is a float", br#"{"body": 1.5}"#.to_vec()),
        ("body is a boolean", br#"{"body": true}"#.to_vec()),
        ("body is null", br#"{"body": null}"#.to_vec()),
        ("body is an array", br#"{"body": ["a"]}"#.to_vec()),
        ("body is an object", br#"{"body": {"text": "a"}}"#.to_vec()),
        (
            "priority is a number",
            br#"{"body": "x", "priority": 5}"#.to_vec(),
        ),
        (
            "priority is a boolean",
            br#"{"body": "x", "priority": true}"#.to_vec(),
        ),
        (
            "priority is an array",
            br#"{"body": "x", "priority": []}"#.to_vec(),
        ),
        (
            "priority is unknown",
            br#"{"body": "x", "priority": "high"}"#.to_vec(),
        ),
        (
            "priority in capitals",
            br#"{"body": "x", "priority": "URGENT"}"#.to_vec(),
        ),
        (
            "priority is empty",
            br#"{"body": "x", "priority": ""}"#.to_vec(),
        ),
        // Not an object at all.
        ("JSON null", b"null".to_vec()),
        ("JSON array", b"[]".to_vec()),
        ("JSON string", br#""hola""#.to_vec()),
        ("JSON number", b"42".to_vec()),
        ("JSON true", b"true".to_vec()),
        // Missing fields.
        ("empty object", b"{}".to_vec()),
        ("no body field", br#"{"priority": "urgent"}"#.to_vec()),
        ("empty request body", Vec::new()),
        // Unknown fields.
        ("unknown field", br#"{"body": "x", "extra": 1}"#.to_vec()),
        (
            "a recipient field",
            br#"{"body": "x", "to": "nadie"}"#.to_vec(),
        ),
        (
            "a sender field",
            br#"{"body": "x", "from": "otro"}"#.to_vec(),
        ),
        ("field name in capitals", br#"{"Body": "x"}"#.to_vec()),
        // Values core refuses.
        ("body is empty", br#"{"body": ""}"#.to_vec()),
        ("body is blank", br#"{"body": "   "}"#.to_vec()),
        ("body is whitespace", br#"{"body": "\n\t"}"#.to_vec()),
        // Truncated JSON.
        ("truncated string", br#"{"body": "hel"#.to_vec()),
        ("lone brace", b"{".to_vec()),
        ("key only", br#"{"body""#.to_vec()),
        ("key and colon", br#"{"body":"#.to_vec()),
        ("lone bracket", b"[".to_vec()),
        ("trailing comma, cut", br#"{"body": "x","#.to_vec()),
        ("no closing brace", br#"{"body": "x""#.to_vec()),
        // Bad JSON.
        ("unquoted key", br#"{body: "x"}"#.to_vec()),
        ("single quotes", b"{'body': 'x'}".to_vec()),
        ("trailing comma", br#"{"body": "x",}"#.to_vec()),
        ("extra closing brace", br#"{"body": "x"}}"#.to_vec()),
        ("truncated literal", b"nul".to_vec()),
        ("NaN", b"NaN".to_vec()),
        ("trailing garbage", br#"{"body": "x"} y"#.to_vec()),
        ("bad escape", br#"{"body": "\x"}"#.to_vec()),
        ("short unicode escape", br#"{"body": "a\u00"}"#.to_vec()),
        ("lone surrogate escape", br#"{"body": "\ud800"}"#.to_vec()),
        ("raw control character", b"{\"body\": \"a\x01b\"}".to_vec()),
        ("two objects", br#"{"body": "a"}{"body": "b"}"#.to_vec()),
        ("comment", b"{\"body\": \"x\" /* hi */}".to_vec()),
        // Bad UTF-8.
        ("invalid bytes", b"{\"body\": \"\xff\xfe\"}".to_vec()),
        ("overlong slash", b"{\"body\": \"\xc0\xaf\"}".to_vec()),
        (
            "encoded surrogate",
            b"{\"body\": \"\xed\xa0\x80\"}".to_vec(),
        ),
        ("cut multibyte", b"{\"body\": \"\xe2\x82\"}".to_vec()),
        ("latin-1 text", b"{\"body\": \"ma\xf1ana\"}".to_vec()),
        ("byte order mark", b"\xef\xbb\xbf{\"body\": \"x\"}".to_vec()),
        ("NUL bytes", b"\x00\x00\x00\x00".to_vec()),
        ("UTF-16", b"\xff\xfe{\x00}\x00".to_vec()),
    ];
    // Deep nesting, in and out of a field.
    bodies.push(("deep array", "[".repeat(10_000).into_bytes()));
    bodies.push((
        "deep value",
        format!("{{\"body\": {}1{}}}", "[".repeat(5_000), "]".repeat(5_000)).into_bytes(),
    ));
    // Huge: over the message limit, and over the request limit.
    bodies.push((
        "body over 64 KiB",
        format!("{{\"body\": \"{}\"}}", "x".repeat(70 * 1024)).into_bytes(),
    ));
    bodies.push((
        "request over 1 MiB",
        format!("{{\"body\": \"{}\"}}", "x".repeat(2 * 1024 * 1024)).into_bytes(),
    ));
    bodies.push((
        "whitespace over 1 MiB",
        [vec![b' '; 2 * 1024 * 1024], br#"{"body": "x"}"#.to_vec()].concat(),
    ));
    bodies
}

/// Content types a JSON body is not sent with.
const WRONG_CONTENT_TYPES: [&str; 9] = [
    "text/plain",
    "text/html",
    "multipart/form-data; boundary=x",
    "application/xml",
    "application/octet-stream",
    "image/png",
    "garbage",
    "application/jsonx",
    "text/json",
];

/// Path ids nobody has, with characters that break naive code.
const ODD_IDS: [&str; 16] = [
    "%00",
    "%ff",
    "..",
    "..%2F..%2Fetc%2Fpasswd",
    "a%20b",
    "%2e%2e",
    "%E2%80%AE",
    "'%20OR%201=1--",
    "%22",
    "%3Cscript%3E",
    "nadie",
    "ana%0d%0aX-Injected:%20y",
    "%C0%AF",
    "%F0%9F%90%9D",
    "%25",
    "a;b",
];

/// Query strings the inbox refuses (and the sent list, for `limit`/`since`).
const BAD_LISTING_QUERIES: [&str; 10] = [
    "limit=abc",
    "limit=-1",
    "limit=0",
    "limit=1001",
    "limit=99999999999999999999",
    "limit=1.5",
    "since=yesterday",
    "since=2026-13-45T99:00:00Z",
    "limit=1&limit=2",
    "limit=%ff",
];
const BAD_INBOX_QUERIES: [&str; 4] = ["unread_only=maybe", "peek=2", "peek=", "unread_only=yes"];

fn corpus(ana: &str, beto: &str, canvas: &str, token: &str) -> Vec<Case> {
    let send = format!("/author/{ana}/message-to/{beto}");
    let auth = |c: Case| c.header("authorization", format!("Bearer {token}"));
    let mut cases = Vec::new();

    for (what, body) in bad_message_bodies() {
        cases.push(auth(
            case(format!("send: {what}"), Method::POST, &send).json(body),
        ));
    }
    for kind in WRONG_CONTENT_TYPES {
        cases.push(auth(
            case(format!("send as {kind}"), Method::POST, &send)
                .header("content-type", kind)
                .body(br#"{"body": "hola"}"#.to_vec()),
        ));
    }
    let valid = br#"{"body": "hola"}"#.to_vec();
    for id in ODD_IDS {
        cases.push(auth(case(
            format!("inbox of {id}"),
            Method::GET,
            format!("/author/{id}/inbox"),
        )));
        cases.push(auth(case(
            format!("sent of {id}"),
            Method::GET,
            format!("/author/{id}/sent"),
        )));
        cases.push(auth(
            case(
                format!("send to {id}"),
                Method::POST,
                format!("/author/{ana}/message-to/{id}"),
            )
            .json(valid.clone()),
        ));
        cases.push(auth(
            case(
                format!("send as {id}"),
                Method::POST,
                format!("/author/{id}/message-to/{beto}"),
            )
            .json(valid.clone()),
        ));
        cases.push(auth(case(
            format!("delete {id}"),
            Method::DELETE,
            format!("/message/{id}"),
        )));
        cases.push(auth(
            case(
                format!("item on canvas {id}"),
                Method::POST,
                format!("/api/sessions/{id}/items"),
            )
            .json(br#"{"title": "x"}"#.to_vec()),
        ));
        cases.push(auth(case(
            format!("regenerate variant {id}"),
            Method::POST,
            format!("/api/sessions/{canvas}/variants/{id}/regenerate"),
        )));
        cases.push(auth(case(
            format!("refresh source {id}"),
            Method::POST,
            format!("/api/sessions/sources/{id}/refresh"),
        )));
    }
    cases.push(auth(case(
        "a 5,000-character id",
        Method::GET,
        format!("/author/{}/inbox", "x".repeat(5_000)),
    )));
    for query in BAD_LISTING_QUERIES {
        for list in ["inbox", "sent"] {
            cases.push(auth(case(
                format!("{list}?{query}"),
                Method::GET,
                format!("/author/{ana}/{list}?{query}"),
            )));
        }
    }
    for query in BAD_INBOX_QUERIES {
        cases.push(auth(case(
            format!("inbox?{query}"),
            Method::GET,
            format!("/author/{ana}/inbox?{query}"),
        )));
    }
    for query in ["limit=abc", "limit=-1", "limit=0", "limit=101", "limit=%ff"] {
        cases.push(auth(case(
            format!("activity?{query}"),
            Method::GET,
            format!("/api/sessions/activity?{query}"),
        )));
    }
    // Canvas items: wrong types, bad JSON, unknown fields.
    let items = format!("/api/sessions/{canvas}/items");
    for (what, body) in [
        ("title is a number", br#"{"title": 5}"#.to_vec()),
        ("title is an object", br#"{"title": {"a": 1}}"#.to_vec()),
        (
            "metrics is a string",
            br#"{"title": "x", "metrics": "many"}"#.to_vec(),
        ),
        ("body is an array", b"[1, 2]".to_vec()),
        ("body is a string", br#""item""#.to_vec()),
        ("truncated", br#"{"title": "x"#.to_vec()),
        ("bad JSON", b"{title: x}".to_vec()),
        ("bad UTF-8", b"{\"title\": \"\xff\"}".to_vec()),
        (
            "over 1 MiB",
            format!("{{\"title\": \"{}\"}}", "x".repeat(2 << 20)).into_bytes(),
        ),
        (
            "an unknown field",
            br#"{"title": "x", "bogus": 1}"#.to_vec(),
        ),
    ] {
        cases.push(auth(
            case(format!("item: {what}"), Method::POST, &items).json(body),
        ));
    }
    for kind in [
        "text/plain",
        "application/xml",
        "multipart/form-data; boundary=x",
    ] {
        cases.push(auth(
            case(format!("item as {kind}"), Method::POST, &items)
                .header("content-type", kind)
                .body(br#"{"title": "x"}"#.to_vec()),
        ));
    }
    // Wrong methods.
    for (method, path) in [
        (Method::PUT, send.clone()),
        (Method::PATCH, send.clone()),
        (Method::GET, send.clone()),
        (Method::POST, format!("/author/{ana}/inbox")),
        (Method::DELETE, format!("/author/{ana}/sent")),
        (Method::GET, "/message/x".to_owned()),
        (Method::PATCH, "/message/x".to_owned()),
        (Method::POST, "/health".to_owned()),
        (Method::DELETE, "/openapi.json".to_owned()),
        (Method::PUT, items.clone()),
        (Method::PUT, "/mcp".to_owned()),
    ] {
        cases.push(auth(
            case(format!("{method} {path}"), method, path).json(valid.clone()),
        ));
    }
    // Broken credentials, with a valid message.
    for value in [
        "",
        "Bearer",
        "Bearer ",
        "Basic YW5hOmFuYQ==",
        "Bearer colmena_zz",
        "Bearer colmena_0000000000000000000000000000000000000000000000000000000000000000",
        &format!("Bearer {}", "a".repeat(10_000)),
        &format!("Bearer\t{token}"),
        &format!("Token {token}"),
        &format!("Bearer {token}x"),
    ] {
        cases.push(
            case(
                format!("authorization '{:.24}'", value),
                Method::POST,
                &send,
            )
            .header("authorization", value)
            .json(valid.clone()),
        );
    }
    cases.push(case("no authorization", Method::POST, &send).json(valid.clone()));
    cases.extend(mcp_corpus(token));
    cases
}

/// `/mcp` with a valid token: broken framing, JSON and headers.
fn mcp_corpus(token: &str) -> Vec<Case> {
    let mcp = |what: &str| {
        case(format!("mcp: {what}"), Method::POST, "/mcp")
            .header("authorization", format!("Bearer {token}"))
            .header("accept", "application/json, text/event-stream")
    };
    let mut cases = Vec::new();
    for (what, body) in [
        ("empty body", Vec::new()),
        ("truncated", br#"{"jsonrpc": "2.0", "id": 1, "method": "initia"#.to_vec()),
        ("bad JSON", b"{jsonrpc: 2.0}".to_vec()),
        ("bad UTF-8", b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"\xff\"}".to_vec()),
        ("NUL bytes", b"\x00\x00".to_vec()),
        ("a number", b"42".to_vec()),
        ("a string", br#""initialize""#.to_vec()),
        ("null", b"null".to_vec()),
        ("over 1 MiB", format!("{{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"initialize\", \"params\": {{\"p\": \"{}\"}}}}", "x".repeat(2 << 20)).into_bytes()),
        ("deep nesting", "[".repeat(10_000).into_bytes()),
        ("trailing garbage", br#"{"jsonrpc": "2.0", "id": 1, "method": "ping"} x"#.to_vec()),
    ] {
        cases.push(mcp(what).json(body));
    }
    let init = br#"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}}"#;
    for kind in [
        "text/plain",
        "application/xml",
        "application/x-www-form-urlencoded",
    ] {
        cases.push(
            mcp(&format!("as {kind}"))
                .header("content-type", kind)
                .body(init.to_vec()),
        );
    }
    for session in ["nope", "%00", "../../x", &"s".repeat(2_000)] {
        cases.push(
            mcp(&format!("unknown session {:.16}", session))
                .header("mcp-session-id", session)
                .json(br#"{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}"#.to_vec()),
        );
    }
    cases.push(
        case("mcp: no accept header", Method::POST, "/mcp")
            .header("authorization", format!("Bearer {token}"))
            .json(init.to_vec()),
    );
    cases.push(
        case("mcp: GET without a session", Method::GET, "/mcp")
            .header("authorization", format!("Bearer {token}"))
            .header("accept", "text/event-stream"),
    );
    cases.push(
        case("mcp: DELETE an unknown session", Method::DELETE, "/mcp")
            .header("authorization", format!("Bearer {token}"))
            .header("mcp-session-id", "nope"),
    );
    cases.push(
        case("mcp: no token", Method::POST, "/mcp")
            .header("accept", "application/json, text/event-stream")
            .json(init.to_vec()),
    );
    cases
}

async fn stored(ctx: &Ctx) -> Vec<i64> {
    let db = ctx.data_dir().join("colmena.db");
    tokio::task::spawn_blocking(move || {
        let conn = rusqlite::Connection::open(db).unwrap();
        [
            "bus_messages",
            "canvases",
            "canvas_items",
            "sources",
            "canvas_activity",
        ]
        .iter()
        .map(|table| {
            conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
                .unwrap()
        })
        .collect()
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn safe_two_hundred_malformed_requests_are_4xx_json_and_store_nothing() {
    let (_dir, ctx) = common::workspace().await;
    let ana = inbox::authors::rotate_token(&ctx, ctx.owner())
        .await
        .unwrap();
    let (beto, _) = common::author(&ctx, "Beto").await;
    let me = colmena_core::inbox::authors::caller_as(&ctx, ctx.owner(), Client::Http)
        .await
        .unwrap();
    let mine = canvas::create(&ctx, &me, Some("Mío".into())).await.unwrap();

    let (addr, stop) = serve_here(&ctx).await;
    let base = format!("http://{addr}");

    let before = stored(&ctx).await;
    let cases = corpus(ctx.owner(), &beto, &mine.id, &ana.token);
    assert!(cases.len() >= 200, "only {} cases", cases.len());
    // Connections are reused, as clients do; idle ones are let go before the
    // server's 10 s keep-alive ends, as a well-behaved client does (a pooled
    // connection the server is closing at that moment would be a race).
    let http = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(60))
        .pool_idle_timeout(std::time::Duration::from_secs(5))
        .build()
        .unwrap();
    let answers = futures_util::stream::iter(cases)
        .map(|c| {
            let mut request = http.request(c.method.clone(), format!("{base}{}", c.path));
            for (name, value) in &c.headers {
                request = request.header(*name, value.as_str());
            }
            let request = request.body(c.body);
            async move {
                let outcome = match request.send().await {
                    Ok(response) => {
                        let status = response.status();
                        let kind = response
                            .headers()
                            .get("content-type")
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or_default()
                            .to_owned();
                        let body = response.bytes().await.unwrap_or_default();
                        Ok((status, kind, body))
                    }
                    Err(e) => Err(e.to_string()),
                };
                (c.what, outcome)
            }
        })
        .buffer_unordered(8)
        .collect::<Vec<_>>()
        .await;

    let mut wrong = Vec::new();
    for (what, outcome) in &answers {
        let (status, kind, body) = match outcome {
            Ok(answer) => answer,
            Err(e) => {
                wrong.push(format!("{what}: no answer ({e})"));
                continue;
            }
        };
        let json: Option<Value> = serde_json::from_slice(body).ok();
        let shaped = json
            .as_ref()
            .is_some_and(|j| j["code"].is_string() && j["message"].is_string());
        if !status.is_client_error() || !kind.starts_with("application/json") || !shaped {
            wrong.push(format!(
                "{what}: {status} {kind} {}",
                String::from_utf8_lossy(&body[..body.len().min(200)])
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} answers were not a 4xx JSON error:\n{}",
        wrong.len(),
        answers.len(),
        wrong.join("\n")
    );
    let alive = http.get(format!("{base}/health")).send().await.unwrap();
    assert_eq!(alive.status(), StatusCode::OK);
    assert_eq!(stored(&ctx).await, before, "something was stored");
    stop.cancel();
}

/// A server on 127.0.0.1 for `ctx`, stopped when the token is cancelled.
/// Abuse of shape, not of rate: without a rate limit, which would answer
/// first.
async fn serve_here(ctx: &Ctx) -> (std::net::SocketAddr, CancellationToken) {
    let listener = colmena_server::http::bind("127.0.0.1:0".parse().unwrap(), false)
        .await
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let stopped = stop.clone();
    tokio::spawn(colmena_server::http::serve_with(
        ctx.clone(),
        listener,
        ServerConfig::default().unlimited_rate(),
        async move { stopped.cancelled().await },
    ));
    (addr, stop)
}

/// One HTTP/1.1 answer read off `stream`: its head (lower case) and body;
/// `None` when the connection closed first. A hang guard of 60 s.
async fn answer(stream: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    tokio::time::timeout(std::time::Duration::from_secs(60), async {
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        let head_end = loop {
            if let Some(at) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
                break at + 4;
            }
            let n = stream.read(&mut buf).await.ok()?;
            if n == 0 {
                return None;
            }
            seen.extend_from_slice(&buf[..n]);
        };
        let head = String::from_utf8_lossy(&seen[..head_end]).to_lowercase();
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .map_or(0, |v| v.trim().parse().unwrap());
        while seen.len() < head_end + length {
            let n = stream.read(&mut buf).await.ok()?;
            if n == 0 {
                return None;
            }
            seen.extend_from_slice(&buf[..n]);
        }
        Some((head, seen[head_end..head_end + length].to_vec()))
    })
    .await
    .expect("no answer within 60 s")
}

fn says_close(head: &str) -> bool {
    head.lines().any(|l| l.trim() == "connection: close")
}

const HEALTH: &[u8] = b"GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n";

/// Asks again on the same connection: answered 200, or the last answer had
/// said it would close and the connection did close (never a connection
/// closed without a word, which leaves a pooling client with no answer).
async fn usable_or_said_close(stream: &mut TcpStream, head: &str, what: &str) {
    if says_close(head) {
        let mut rest = Vec::new();
        let read = tokio::time::timeout(
            std::time::Duration::from_secs(60),
            stream.read_to_end(&mut rest),
        )
        .await
        .expect("the server said close and kept the connection open");
        assert!(read.is_err() || rest.is_empty(), "{what}: more after close");
        return;
    }
    let closed =
        || panic!("{what}: the connection was closed without Connection: close in {head:?}");
    if stream.write_all(HEALTH).await.is_err() {
        closed();
    }
    let (health, _) = answer(stream).await.unwrap_or_else(closed);
    assert!(health.starts_with("http/1.1 200"), "{what}: {health}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn safe_an_answer_before_the_body_leaves_the_connection_usable_or_says_close() {
    let (_dir, ctx) = common::workspace().await;
    let token = inbox::authors::rotate_token(&ctx, ctx.owner())
        .await
        .unwrap()
        .token;
    let owner = ctx.owner().to_owned();
    let (addr, stop) = serve_here(&ctx).await;
    let body = br#"{"body": "hola"}"#;
    let head = |method: &str, path: &str, length: usize| {
        format!(
            "{method} {path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer {token}\r\n\
             content-type: application/json\r\ncontent-length: {length}\r\n\r\n"
        )
    };
    let wrong_method = format!("/author/{owner}/inbox");

    // A wrong method, head and body together: answered 405, and the same
    // connection answers the next request.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut request = head("POST", &wrong_method, body.len()).into_bytes();
    request.extend_from_slice(body);
    stream.write_all(&request).await.unwrap();
    let (first, _) = answer(&mut stream).await.expect("no answer to the 405");
    assert!(first.starts_with("http/1.1 405"), "{first}");
    usable_or_said_close(&mut stream, &first, "body sent with the head").await;

    // The head alone, its body not sent before the answer is read: what CI
    // saw — the answer comes before the body, and the connection must not
    // then close without a word.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(head("POST", &wrong_method, body.len()).as_bytes())
        .await
        .unwrap();
    let (first, _) = answer(&mut stream)
        .await
        .expect("no answer before the body");
    assert!(first.starts_with("http/1.1 405"), "{first}");
    if !says_close(&first) {
        stream.write_all(body).await.unwrap();
    }
    usable_or_said_close(&mut stream, &first, "body not yet sent").await;

    // A body far over what the server drains: answered at once, with
    // Connection: close.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(head("POST", &wrong_method, 100 << 20).as_bytes())
        .await
        .unwrap();
    stream.write_all(&[b' '; 1024]).await.unwrap();
    let (first, _) = answer(&mut stream).await.expect("no answer to a huge body");
    assert!(says_close(&first), "{first}");

    // A body a little over the limit: 413, and the connection stays usable.
    let stream = TcpStream::connect(addr).await.unwrap();
    let big = format!("{{\"body\": \"{}\"}}", "x".repeat(3 << 19));
    let send = format!("/author/{owner}/message-to/{owner}");
    let mut request = head("POST", &send, big.len()).into_bytes();
    request.extend_from_slice(big.as_bytes());
    let (mut read_half, mut write_half) = stream.into_split();
    let writer = tokio::spawn(async move {
        let _ = write_half.write_all(&request).await;
        write_half
    });
    let mut whole = Vec::new();
    let mut buf = [0u8; 4096];
    let (first, rest) = loop {
        let n = read_half.read(&mut buf).await.unwrap();
        assert!(n > 0, "closed without an answer to an over-limit body");
        whole.extend_from_slice(&buf[..n]);
        if let Some(at) = whole.windows(4).position(|w| w == b"\r\n\r\n") {
            break (
                String::from_utf8_lossy(&whole[..at + 4]).to_lowercase(),
                whole[at + 4..].to_vec(),
            );
        }
    };
    assert!(first.starts_with("http/1.1 413"), "{first}");
    let write_half = writer.await.unwrap();
    let mut stream = read_half.reunite(write_half).unwrap();
    // What was read past the head is the 413's body; read the rest of it.
    let length: usize = first
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map_or(0, |v| v.trim().parse().unwrap());
    let mut left = length.saturating_sub(rest.len());
    while left > 0 {
        let n = stream.read(&mut buf[..left.min(4096)]).await.unwrap();
        assert!(n > 0, "the 413 was cut short");
        left -= n;
    }
    assert!(
        !says_close(&first),
        "an over-limit body within the drain closed the connection: {first}"
    );
    usable_or_said_close(&mut stream, &first, "over-limit body").await;
    stop.cancel();
}
