//! Local stand-ins for the web on 127.0.0.1: a search service that records
//! exactly what it was sent and answers with the JSON it is given, and a
//! page server.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use serde_json::Value;

/// One request as the service received it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub path: String,
    pub query: String,
    pub headers: HeaderMap,
    pub body: String,
}

/// A running search service.
pub struct Service {
    pub base_url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Service {
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

#[derive(Clone)]
struct Answer {
    status: StatusCode,
    body: Value,
    seen: Arc<Mutex<Vec<Seen>>>,
}

async fn answer(State(answer): State<Answer>, request: Request) -> impl IntoResponse {
    let (parts, body) = request.into_parts();
    let body: Bytes = axum::body::to_bytes(body, 1 << 20)
        .await
        .unwrap_or_default();
    answer.seen.lock().unwrap().push(Seen {
        method: parts.method.to_string(),
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().unwrap_or_default().to_owned(),
        headers: parts.headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    (answer.status, axum::Json(answer.body))
}

/// A service on 127.0.0.1 answering every request with `status` and `body`.
pub async fn service(status: u16, body: Value) -> Service {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let state = Answer {
        status: StatusCode::from_u16(status).unwrap(),
        body,
        seen: Arc::clone(&seen),
    };
    let app = Router::new().fallback(answer).with_state(state);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Service {
        base_url: format!("http://{addr}"),
        seen,
    }
}

/// The answer of a SearXNG instance with JSON output on (its real shape,
/// trimmed to the fields that matter plus a few it always sends).
pub fn searxng_answer() -> Value {
    serde_json::json!({
        "query": "bees",
        "number_of_results": 2,
        "results": [
            {
                "url": "https://bees.example/honey",
                "title": "How bees make honey",
                "content": "Nectar is carried back to the hive and stored.",
                "engine": "duckduckgo",
                "parsed_url": ["https", "bees.example", "/honey", "", "", ""],
                "template": "default.html",
                "engines": ["duckduckgo"],
                "positions": [1],
                "score": 1.0,
                "category": "general"
            },
            {
                "url": "https://bees.example/wax",
                "title": "Wax &amp; combs",
                "content": "Workers secrete wax from glands.",
                "engine": "bing",
                "score": 0.5,
                "category": "general"
            }
        ],
        "answers": [],
        "corrections": [],
        "infoboxes": [],
        "suggestions": ["bees honey"],
        "unresponsive_engines": []
    })
}

/// A one-page server: answers every request with `html`.
pub async fn page(html: &'static str) -> String {
    let app = Router::new().fallback(move || async move {
        (
            [(axum::http::header::CONTENT_TYPE, "text/html; charset=utf-8")],
            html,
        )
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}/page")
}
