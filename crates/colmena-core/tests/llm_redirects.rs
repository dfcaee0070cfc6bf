//! Provider clients and redirects (issue 11, item 3): a redirect within the
//! base URL's origin is followed; one to another origin is an `upstream`
//! error and the API key never reaches the other server.

#![allow(clippy::unwrap_used)]

use axum::Router;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::post;
use colmena_core::ErrorCode;
use colmena_core::llm::{self, CallOptions, ChatRequest, Endpoint, Message};
use colmena_core::providers::ProviderKind;
use colmena_scripted_llm::{Protocol, Rule, Script, ScriptedLlm, router_for};
use zeroize::Zeroizing;

const KEY: &str = "sk-redirect-test-0123456789";

const KINDS: [(ProviderKind, Protocol, &str); 3] = [
    (
        ProviderKind::OpenaiCompatible,
        Protocol::OpenAi,
        "/v1/chat/completions",
    ),
    (ProviderKind::Anthropic, Protocol::Anthropic, "/v1/messages"),
    (ProviderKind::Ollama, Protocol::Ollama, "/api/chat"),
];

fn request() -> ChatRequest {
    ChatRequest {
        model: "scripted-1".into(),
        system: None,
        messages: vec![Message::user("hello")],
        tools: Vec::new(),
        max_tokens: 64,
        temperature: None,
    }
}

/// Serves `app` on an ephemeral port of 127.0.0.1.
async fn serve(app: Router) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    addr
}

/// Answers every POST to `path` with a 307 to `to`.
fn redirecting(path: &str, to: String) -> Router {
    Router::new().route(
        path,
        post(move |_: HeaderMap| {
            let to = to.clone();
            async move { (StatusCode::TEMPORARY_REDIRECT, [(header::LOCATION, to)]).into_response() }
        }),
    )
}

#[tokio::test]
async fn llm_redirect_to_another_host_is_refused_and_the_key_stays_home() {
    for (kind, protocol, path) in KINDS {
        let other = ScriptedLlm::start(Script {
            rules: vec![Rule::text("you should not see this").repeat()],
        })
        .await
        .unwrap();
        let to = format!("http://{}{path}", other.addr());
        let home = serve(redirecting(path, to)).await;
        let base_url = match protocol {
            Protocol::OpenAi => format!("http://{home}/v1"),
            _ => format!("http://{home}"),
        };
        let endpoint = Endpoint {
            kind,
            base_url,
            api_key: Some(Zeroizing::new(KEY.to_owned())),
            local: None,
        };
        let err = llm::chat(&endpoint, &request(), &CallOptions::default(), &mut |_| {})
            .await
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Upstream, "{kind:?}: {err:?}");
        let details = err.details.clone().unwrap();
        assert_eq!(details["reason"], "redirect_refused", "{kind:?}");
        assert_eq!(details["status"], 307);
        assert!(
            err.message.contains(&format!("http://{}", other.addr())),
            "{}",
            err.message
        );
        assert!(!err.message.contains(KEY));
        assert!(
            other.requests().is_empty(),
            "{kind:?}: the other host was sent {:?}",
            other.requests()[0].headers
        );
    }
}

#[tokio::test]
async fn llm_same_origin_redirect_is_followed() {
    let script = Script {
        rules: vec![Rule::text("moved but fine").repeat()],
    };
    let app = router_for(script).merge(redirecting(
        "/old/v1/chat/completions",
        "/v1/chat/completions".to_owned(),
    ));
    let home = serve(app).await;
    let endpoint = Endpoint {
        kind: ProviderKind::OpenaiCompatible,
        base_url: format!("http://{home}/old/v1"),
        api_key: Some(Zeroizing::new(KEY.to_owned())),
        local: None,
    };
    let response = llm::chat(&endpoint, &request(), &CallOptions::default(), &mut |_| {})
        .await
        .unwrap();
    assert_eq!(response.text, "moved but fine");
}
