//! The first run's "connect a model" under stress (issue 12 review): the
//! default adopted only for a model still usable after the test's network
//! call; one transaction per connect (a double connect makes one provider,
//! a failure keeps the old key and adds nothing); local probes that follow
//! no redirect and read no unbounded reply; a connection test with a time
//! limit, a text cap and a stop when nobody listens; provider error bodies
//! that never carry the key back; a sample canvas that is whole or absent.
//! Every server is local, on an ephemeral port; failures are forced with a
//! trigger in the workspace's own store.

#![allow(clippy::unwrap_used)]

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use colmena_core::canvas::{self, Caller};
use colmena_core::models;
use colmena_core::providers::check::{self, CheckEvent, CheckSink};
use colmena_core::providers::connect::{self, ConnectModel, Connected};
use colmena_core::providers::detect::{self, LocalServerKind, Probe};
use colmena_core::providers::{self, ProviderUpdate};
use colmena_core::secrets::mask_secret;
use colmena_core::setup::sample;
use colmena_core::{Ctx, ErrorCode};
use colmena_scripted_llm::{Rule, Script, ScriptedLlm};
use support::workspace;
use tokio::sync::{Notify, mpsc};

async fn serve(app: Router) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    addr
}

async fn scripted(rules: Vec<Rule>) -> ScriptedLlm {
    ScriptedLlm::start_listing("127.0.0.1:0".parse().unwrap(), Script { rules }, &[])
        .await
        .unwrap()
}

fn quiet() -> CheckSink {
    Arc::new(|_| true)
}

fn input(base_url: String, key: Option<&str>, models: &[&str]) -> ConnectModel {
    ConnectModel {
        name: "LM Studio".into(),
        kind: "openai_compatible".into(),
        base_url: Some(base_url),
        api_key: key.map(str::to_owned),
        models: models.iter().map(|m| (*m).to_owned()).collect(),
    }
}

async fn connect_to(ctx: &Ctx, base_url: String, models: &[&str]) -> Connected {
    connect::connect(ctx, input(base_url, None, models))
        .await
        .unwrap()
}

/// Makes every insert into `table` that matches `when` fail.
async fn fail_inserts(ctx: &Ctx, table: &str, when: &str) {
    let sql = format!(
        "CREATE TRIGGER forced_failure BEFORE INSERT ON {table} WHEN {when}
         BEGIN SELECT RAISE(ABORT, 'forced failure'); END"
    );
    ctx.store()
        .write(move |tx| Ok(tx.execute_batch(&sql)?))
        .await
        .unwrap();
}

/// An OpenAI-compatible server whose chat answer waits: each request
/// reports its arrival on the channel, then waits for `release`.
async fn held_server() -> (
    std::net::SocketAddr,
    mpsc::UnboundedReceiver<()>,
    Arc<Notify>,
) {
    let (arrived, arrivals) = mpsc::unbounded_channel();
    let release = Arc::new(Notify::new());
    let gate = Arc::clone(&release);
    let app = Router::new().route(
        "/v1/chat/completions",
        post(move || {
            let (arrived, gate) = (arrived.clone(), Arc::clone(&gate));
            async move {
                let _ = arrived.send(());
                gate.notified().await;
                let body = concat!(
                    "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello there.\"},\"finish_reason\":null}]}\n\n",
                    "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
                    "data: [DONE]\n\n"
                );
                ([(header::CONTENT_TYPE, "text/event-stream")], body).into_response()
            }
        }),
    );
    (serve(app).await, arrivals, release)
}

#[tokio::test]
async fn a_model_switched_off_or_deleted_during_its_test_is_not_adopted() {
    let ws = workspace().await;
    let (addr, mut arrivals, release) = held_server().await;
    let made = connect_to(&ws.ctx, format!("http://{addr}/v1"), &["off", "gone"]).await;
    for (i, model) in made.models.iter().enumerate() {
        models::set_default_model(&ws.ctx, None).await.unwrap();
        let (ctx, id) = (ws.ctx.clone(), model.id.clone());
        let test = tokio::spawn(async move { check::test_connection(&ctx, &id, quiet()).await });
        arrivals.recv().await.unwrap();
        if i == 0 {
            models::set_enabled(&ws.ctx, &model.id, false)
                .await
                .unwrap();
        } else {
            models::delete(&ws.ctx, &model.id).await.unwrap();
        }
        release.notify_one();
        let outcome = test.await.unwrap().unwrap();
        assert_eq!(outcome.text, "Hello there.");
        assert!(!outcome.became_default, "{} was adopted", model.id);
        assert_eq!(models::default_model(&ws.ctx).await.unwrap(), None);
    }
}

#[tokio::test]
async fn two_connects_to_the_same_server_at_once_make_one_provider() {
    let ws = workspace().await;
    let lm = scripted(vec![]).await;
    let url = format!("http://{}/v1", lm.addr());
    let (a, b) = tokio::join!(
        connect::connect(&ws.ctx, input(url.clone(), None, &["one"])),
        connect::connect(&ws.ctx, input(url, None, &["one", "two"])),
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(a.provider.id, b.provider.id);
    let all = providers::list(&ws.ctx).await.unwrap();
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0].name, "LM Studio");
    assert_eq!(all[0].model_count, 2);
}

#[tokio::test]
async fn a_connect_that_fails_keeps_the_old_key_and_adds_no_model() {
    let ws = workspace().await;
    let lm = scripted(vec![]).await;
    let url = format!("http://{}/v1", lm.addr());
    let old_key = "sk-the-old-key-0000000001";
    let first = connect::connect(&ws.ctx, input(url.clone(), Some(old_key), &["kept"]))
        .await
        .unwrap();
    fail_inserts(&ws.ctx, "models", "NEW.name = 'breaks'").await;

    let new_key = "sk-the-new-key-9999999999";
    let err = connect::connect(&ws.ctx, input(url, Some(new_key), &["fresh", "breaks"]))
        .await
        .unwrap_err();
    assert!(err.message.contains("forced failure"), "{err:?}");
    let after = providers::get(&ws.ctx, &first.provider.id).await.unwrap();
    assert_eq!(
        after.api_key_masked.as_deref(),
        Some(mask_secret(old_key).as_str())
    );
    let names: Vec<String> = models::list(&ws.ctx, Default::default())
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.name)
        .collect();
    assert_eq!(names, ["kept"]);
    assert_eq!(providers::list(&ws.ctx).await.unwrap().len(), 1);

    // A new provider whose model fails is not left behind either.
    let other = scripted(vec![]).await;
    connect::connect(
        &ws.ctx,
        input(format!("http://{}/v1", other.addr()), None, &["breaks"]),
    )
    .await
    .unwrap_err();
    assert_eq!(providers::list(&ws.ctx).await.unwrap().len(), 1);
}

#[tokio::test]
async fn the_probe_follows_no_redirect() {
    let ws = workspace().await;
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&hits);
    let target = serve(Router::new().route(
        "/v1/models",
        get(move || {
            counted.fetch_add(1, Ordering::SeqCst);
            async { axum::Json(serde_json::json!({ "data": [{ "id": "elsewhere" }] })) }
        }),
    ))
    .await;
    let to = format!("http://{target}/v1/models");
    let redirecting = serve(Router::new().route(
        "/v1/models",
        get(move || {
            let to = to.clone();
            async move { (StatusCode::FOUND, [(header::LOCATION, to)]).into_response() }
        }),
    ))
    .await;
    let probes = [Probe {
        kind: LocalServerKind::LmStudio,
        port: redirecting.port(),
    }];
    let found = detect::detect_on(&ws.ctx, &probes).await.unwrap();
    assert!(found.is_empty(), "{found:?}");
    assert_eq!(hits.load(Ordering::SeqCst), 0, "the redirect was followed");
}

/// A well-formed listing just over the reply cap.
fn huge_listing() -> Vec<u8> {
    let mut body = b"{\"data\":[".to_vec();
    let mut i = 0;
    while body.len() <= detect::MAX_REPLY_BYTES {
        body.extend_from_slice(format!("{{\"id\":\"model-{i}\"}},").as_bytes());
        i += 1;
    }
    body.extend_from_slice(b"{\"id\":\"last\"}]}");
    body
}

#[tokio::test]
async fn a_reply_over_the_cap_is_refused_whether_declared_or_streamed() {
    let ws = workspace().await;
    let declared = serve(Router::new().route(
        "/v1/models",
        get(|| async { Response::new(Body::from(huge_listing())) }),
    ))
    .await;
    let streamed = serve(Router::new().route(
        "/v1/models",
        get(|| async {
            let pieces: Vec<Result<Vec<u8>, std::io::Error>> = huge_listing()
                .chunks(64 * 1024)
                .map(|c| Ok(c.to_vec()))
                .collect();
            Response::new(Body::from_stream(futures_util::stream::iter(pieces)))
        }),
    ))
    .await;
    let probe = |port| Probe {
        kind: LocalServerKind::LmStudio,
        port,
    };
    let found = detect::detect_on(&ws.ctx, &[probe(declared.port()), probe(streamed.port())])
        .await
        .unwrap();
    assert!(found.is_empty(), "{found:?}");
}

#[tokio::test]
async fn a_test_that_never_finishes_ends_at_its_time_limit() {
    let ws = workspace().await;
    let never = serve(Router::new().route(
        "/v1/chat/completions",
        post(std::future::pending::<Response>),
    ))
    .await;
    let made = connect_to(&ws.ctx, format!("http://{never}/v1"), &["slow"]).await;
    models::set_default_model(&ws.ctx, None).await.unwrap();
    let err = check::test_connection_within(
        &ws.ctx,
        &made.models[0].id,
        quiet(),
        Duration::from_millis(300),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Upstream);
    assert_eq!(err.details.as_ref().unwrap()["reason"], "timeout");
    assert_eq!(models::default_model(&ws.ctx).await.unwrap(), None);
}

#[tokio::test]
async fn a_chatty_model_is_cut_at_the_text_cap_and_a_deaf_window_stops_the_test() {
    let ws = workspace().await;
    let long = "a".repeat(check::MAX_TEXT_CHARS * 3);
    let lm = scripted(vec![Rule::text(&long).text_in_pieces(500).repeat()]).await;
    let made = connect_to(&ws.ctx, format!("http://{}/v1", lm.addr()), &["chatty"]).await;
    let id = made.models[0].id.clone();

    let streamed = Arc::new(Mutex::new(0usize));
    let into = Arc::clone(&streamed);
    let counting: CheckSink = Arc::new(move |event| {
        let CheckEvent::Delta { text } = event;
        *into.lock().unwrap() += text.chars().count();
        true
    });
    let outcome = check::test_connection(&ws.ctx, &id, counting)
        .await
        .unwrap();
    assert_eq!(outcome.text.chars().count(), check::MAX_TEXT_CHARS);
    assert_eq!(*streamed.lock().unwrap(), check::MAX_TEXT_CHARS);

    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    let deaf: CheckSink = Arc::new(move |_| {
        counted.fetch_add(1, Ordering::SeqCst);
        false
    });
    let err = check::test_connection(&ws.ctx, &id, deaf)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Cancelled);
    assert_eq!(
        calls.load(Ordering::SeqCst),
        1,
        "nothing sent after the failed send"
    );
}

#[tokio::test]
async fn a_provider_error_that_echoes_the_key_is_shown_masked() {
    let ws = workspace().await;
    let key = "sk-echoed-back-key-1234567890";
    let echo = serve(Router::new().route(
        "/v1/chat/completions",
        post(|headers: HeaderMap| async move {
            let sent = headers
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .trim_start_matches("Bearer ")
                .to_owned();
            let body = serde_json::json!({
                "error": { "message": format!("Incorrect API key provided: {sent}") }
            });
            (StatusCode::UNAUTHORIZED, axum::Json(body)).into_response()
        }),
    ))
    .await;
    let made = connect::connect(
        &ws.ctx,
        input(format!("http://{echo}/v1"), Some(key), &["m"]),
    )
    .await
    .unwrap();
    let err = check::test_connection(&ws.ctx, &made.models[0].id, quiet())
        .await
        .unwrap_err();
    assert_eq!(err.details.as_ref().unwrap()["reason"], "auth_refused");
    let shown = serde_json::to_string(&err).unwrap();
    assert!(!shown.contains(key), "{shown}");
    assert!(err.message.contains(&mask_secret(key)), "{}", err.message);

    // Replacing the key through an update is masked the same way.
    let newer = "sk-echoed-newer-key-0987654321";
    let update = ProviderUpdate {
        api_key: Some(newer.into()),
        ..ProviderUpdate::default()
    };
    providers::update(&ws.ctx, &made.provider.id, update)
        .await
        .unwrap();
    let err = check::test_connection(&ws.ctx, &made.models[0].id, quiet())
        .await
        .unwrap_err();
    assert!(!err.message.contains(newer), "{}", err.message);
}

#[tokio::test]
async fn a_sample_canvas_that_cannot_be_completed_is_removed() {
    let ws = workspace().await;
    let me = Caller::ui(&ws.ctx);
    fail_inserts(&ws.ctx, "canvas_variants", "NEW.preset_id = 'x-thread'").await;
    let err = sample::open_sample_canvas(&ws.ctx, &me, "en")
        .await
        .unwrap_err();
    assert!(err.message.contains("forced failure"), "{err:?}");
    assert!(canvas::list(&ws.ctx, &me).await.unwrap().is_empty());
}
