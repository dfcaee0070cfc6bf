//! The first run's "connect a model" (issue 12): detecting a local server on
//! its port, connecting it (or a pasted key), "Test connection" streaming a
//! real answer with stable errors, the first working model becoming the
//! default, and the sample canvas that generates with it. Every server here
//! is the scripted provider on an ephemeral port (the ports are injected).

#![allow(clippy::unwrap_used)]

mod support;

use std::sync::{Arc, Mutex};

use colmena_core::canvas::generate;
use colmena_core::canvas::{self, Caller};
use colmena_core::ids::ModelId;
use colmena_core::models::{self, NewModel};
use colmena_core::providers::check::{self, CheckEvent, CheckSink};
use colmena_core::providers::connect::{self, ConnectModel};
use colmena_core::providers::detect::{self, LocalServerKind, Probe};
use colmena_core::providers::{self, NewProvider, ProviderKind};
use colmena_core::setup::sample;
use colmena_core::{Ctx, ErrorCode};
use colmena_scripted_llm::{Matcher, Rule, Script, ScriptedLlm};
use support::workspace;

async fn scripted(rules: Vec<Rule>, models: &[&str]) -> ScriptedLlm {
    let models: Vec<String> = models.iter().map(|m| (*m).to_owned()).collect();
    ScriptedLlm::start_listing("127.0.0.1:0".parse().unwrap(), Script { rules }, &models)
        .await
        .unwrap()
}

/// A port nobody listens on.
async fn closed_port() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap().port()
}

/// Something on a port that answers HTTP but is no model server.
async fn other_web_app() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        while let Ok((mut socket, _)) = listener.accept().await {
            let mut buf = [0u8; 1024];
            let _ = socket.read(&mut buf).await;
            let _ = socket
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 5\r\nconnection: close\r\n\r\nhello")
                .await;
        }
    });
    port
}

fn collecting() -> (CheckSink, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let into = Arc::clone(&seen);
    let sink: CheckSink = Arc::new(move |event| {
        let CheckEvent::Delta { text } = event;
        into.lock().unwrap().push(text);
        true
    });
    (sink, seen)
}

async fn connect_scripted(ctx: &Ctx, server: &ScriptedLlm, models: &[&str]) -> connect::Connected {
    connect::connect(
        ctx,
        ConnectModel {
            name: "LM Studio".into(),
            kind: "openai_compatible".into(),
            base_url: Some(format!("http://{}/v1", server.addr())),
            api_key: None,
            models: models.iter().map(|m| (*m).to_owned()).collect(),
        },
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn detection_reports_what_answers_on_each_port_with_its_models() {
    let ws = workspace().await;
    let lm = scripted(vec![], &["qwen2.5-7b-instruct", "llama-3.2-3b"]).await;
    let ollama = scripted(vec![], &["llama3.1:8b"]).await;
    let (closed, web) = (closed_port().await, other_web_app().await);
    let probes = [
        Probe {
            kind: LocalServerKind::Ollama,
            port: ollama.addr().port(),
        },
        Probe {
            kind: LocalServerKind::LmStudio,
            port: lm.addr().port(),
        },
        Probe {
            kind: LocalServerKind::LlamaCpp,
            port: closed,
        },
        Probe {
            kind: LocalServerKind::LlamaCpp,
            port: web,
        },
    ];
    let found = detect::detect_on(&ws.ctx, &probes).await.unwrap();
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].kind, LocalServerKind::Ollama);
    assert_eq!(found[0].provider_kind, ProviderKind::Ollama);
    assert_eq!(
        found[0].base_url,
        format!("http://127.0.0.1:{}", ollama.addr().port())
    );
    assert_eq!(found[0].models, ["llama3.1:8b"]);
    assert_eq!(found[1].kind, LocalServerKind::LmStudio);
    assert_eq!(found[1].name, "LM Studio");
    assert_eq!(found[1].provider_kind, ProviderKind::OpenaiCompatible);
    assert_eq!(
        found[1].base_url,
        format!("http://127.0.0.1:{}/v1", lm.addr().port())
    );
    assert_eq!(found[1].models, ["qwen2.5-7b-instruct", "llama-3.2-3b"]);
    assert!(found.iter().all(|s| s.provider_id.is_none()));
}

#[tokio::test]
async fn a_script_without_models_lists_the_models_its_rules_name_or_a_default() {
    let ws = workspace().await;
    let named = Rule::text("hi").when(Matcher {
        model: Some("tiny-1".into()),
        ..Matcher::default()
    });
    let by_rules = scripted(vec![named], &[]).await;
    let bare = scripted(vec![Rule::text("hi")], &[]).await;
    let probes = [
        Probe {
            kind: LocalServerKind::LmStudio,
            port: by_rules.addr().port(),
        },
        Probe {
            kind: LocalServerKind::Ollama,
            port: bare.addr().port(),
        },
    ];
    let found = detect::detect_on(&ws.ctx, &probes).await.unwrap();
    assert_eq!(found[0].models, ["tiny-1"]);
    assert_eq!(found[1].models, [colmena_scripted_llm::DEFAULT_MODEL]);
}

#[tokio::test]
async fn connecting_a_detected_server_makes_its_provider_once_and_marks_it_connected() {
    let ws = workspace().await;
    let lm = scripted(vec![], &["qwen", "llama"]).await;
    let probes = [Probe {
        kind: LocalServerKind::LmStudio,
        port: lm.addr().port(),
    }];
    let server = detect::detect_on(&ws.ctx, &probes).await.unwrap().remove(0);
    let input = ConnectModel {
        name: server.name.clone(),
        kind: server.provider_kind.as_str().into(),
        base_url: Some(server.base_url.clone()),
        api_key: None,
        models: server.models.clone(),
    };
    let first = connect::connect(&ws.ctx, input.clone()).await.unwrap();
    assert_eq!(first.provider.name, "LM Studio");
    assert_eq!(first.provider.model_count, 2);
    let ids: Vec<_> = first.models.iter().map(|m| m.id.to_string()).collect();
    assert_eq!(ids, ["lm_studio/qwen", "lm_studio/llama"]);
    assert!(first.models.iter().all(|m| m.enabled));

    let again = connect::connect(&ws.ctx, input).await.unwrap();
    assert_eq!(
        again.provider.id, first.provider.id,
        "the same server is not connected twice"
    );
    assert_eq!(providers::list(&ws.ctx).await.unwrap().len(), 1);
    let marked = detect::detect_on(&ws.ctx, &probes).await.unwrap();
    assert_eq!(marked[0].provider_id.as_ref(), Some(&first.provider.id));
}

#[tokio::test]
async fn a_pasted_key_is_sealed_and_a_taken_name_is_numbered() {
    let ws = workspace().await;
    providers::create(
        &ws.ctx,
        NewProvider {
            name: "OpenAI".into(),
            kind: "ollama".into(),
            ..NewProvider::default()
        },
    )
    .await
    .unwrap();
    let key = "sk-onboarding-clear-key-4242";
    let made = connect::connect(
        &ws.ctx,
        ConnectModel {
            name: "OpenAI".into(),
            kind: "openai_compatible".into(),
            base_url: None,
            api_key: Some(key.into()),
            models: vec!["gpt-4o-mini".into()],
        },
    )
    .await
    .unwrap();
    assert_eq!(made.provider.name, "OpenAI 2");
    assert_eq!(made.provider.base_url, "https://api.openai.com/v1");
    assert!(made.provider.has_api_key);
    assert_ne!(made.provider.api_key_masked.as_deref(), Some(key));
    assert!(!support::any_file_contains(ws.dir.path(), key.as_bytes()));
}

#[tokio::test]
async fn a_connect_without_models_or_with_a_bad_one_leaves_nothing() {
    let ws = workspace().await;
    let none = connect::connect(
        &ws.ctx,
        ConnectModel {
            name: "Local".into(),
            kind: "ollama".into(),
            ..ConnectModel::default()
        },
    )
    .await
    .unwrap_err();
    assert_eq!(none.code, ErrorCode::Validation);
    assert_eq!(none.details.unwrap()["field"], "models");

    let bad = connect::connect(
        &ws.ctx,
        ConnectModel {
            name: "Local".into(),
            kind: "ollama".into(),
            models: vec!["fine".into(), "not\u{7}ok".into()],
            ..ConnectModel::default()
        },
    )
    .await
    .unwrap_err();
    assert_eq!(bad.code, ErrorCode::Validation);
    assert!(
        providers::list(&ws.ctx).await.unwrap().is_empty(),
        "the half-made provider is gone"
    );
    assert_eq!(models::default_model(&ws.ctx).await.unwrap(), None);
}

#[tokio::test]
async fn the_first_model_becomes_the_default_and_later_ones_do_not_replace_it() {
    let ws = workspace().await;
    assert_eq!(models::default_model(&ws.ctx).await.unwrap(), None);
    let lm = scripted(vec![], &[]).await;
    let made = connect_scripted(&ws.ctx, &lm, &["first", "second"]).await;
    assert_eq!(
        models::default_model(&ws.ctx).await.unwrap(),
        Some(made.models[0].id.clone())
    );
    let third = models::create(
        &ws.ctx,
        NewModel {
            provider_id: made.provider.id.clone(),
            name: "third".into(),
            label: None,
        },
    )
    .await
    .unwrap();
    assert_eq!(
        models::default_model(&ws.ctx).await.unwrap(),
        Some(made.models[0].id.clone())
    );

    // A model of a disabled provider is not working: it is not adopted.
    models::set_default_model(&ws.ctx, None).await.unwrap();
    providers::set_enabled(&ws.ctx, &made.provider.id, false)
        .await
        .unwrap();
    models::create(
        &ws.ctx,
        NewModel {
            provider_id: made.provider.id.clone(),
            name: "fourth".into(),
            label: None,
        },
    )
    .await
    .unwrap();
    assert_eq!(models::default_model(&ws.ctx).await.unwrap(), None);
    assert_ne!(third.id, made.models[0].id);
}

#[tokio::test]
async fn test_connection_streams_the_answer_and_makes_a_working_model_the_default() {
    let ws = workspace().await;
    let rule = Rule::text("Hello! I am the scripted model, ready to help.").text_in_pieces(5);
    let lm = scripted(vec![rule.repeat()], &[]).await;
    let made = connect_scripted(&ws.ctx, &lm, &["one", "two"]).await;
    models::set_default_model(&ws.ctx, None).await.unwrap();

    let (sink, seen) = collecting();
    let second = made.models[1].id.clone();
    let outcome = check::test_connection(&ws.ctx, &second, sink)
        .await
        .unwrap();
    let pieces = seen.lock().unwrap().clone();
    assert!(
        pieces.len() > 3,
        "the answer streamed in pieces: {pieces:?}"
    );
    assert_eq!(
        pieces.concat(),
        "Hello! I am the scripted model, ready to help."
    );
    assert_eq!(outcome.text, pieces.concat());
    assert!(outcome.became_default);
    assert_eq!(
        models::default_model(&ws.ctx).await.unwrap(),
        Some(second.clone())
    );

    let body = lm.requests().last().unwrap().body.clone();
    assert_eq!(body["model"], "two");
    let max = body["max_tokens"]
        .as_u64()
        .or(body["max_completion_tokens"].as_u64())
        .unwrap();
    assert!(
        max <= u64::from(check::MAX_TOKENS),
        "a test is a tiny call: {max}"
    );

    // With a default set, another good test leaves it alone.
    let (sink, _) = collecting();
    let first = check::test_connection(&ws.ctx, &made.models[0].id, sink)
        .await
        .unwrap();
    assert!(!first.became_default);
    assert_eq!(models::default_model(&ws.ctx).await.unwrap(), Some(second));
}

#[tokio::test]
async fn test_connection_errors_have_stable_codes_and_reasons() {
    let ws = workspace().await;
    let lm = scripted(
        vec![Rule::error(401, "invalid api key"), Rule::text("")],
        &[],
    )
    .await;
    let made = connect_scripted(&ws.ctx, &lm, &["m"]).await;
    let id = made.models[0].id.clone();
    models::set_default_model(&ws.ctx, None).await.unwrap();
    let reason = |e: &colmena_core::AppError| e.details.as_ref().unwrap()["reason"].clone();

    let refused = check::test_connection(&ws.ctx, &id, collecting().0)
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::Upstream);
    assert_eq!(reason(&refused), "auth_refused");
    // The refusal names its provider and model: the window's remedy opens
    // that provider's key.
    let details = refused.details.as_ref().unwrap();
    assert_eq!(
        details["providerId"],
        id.as_str().split('/').next().unwrap()
    );
    assert_eq!(details["modelId"], id.as_str());

    let empty = check::test_connection(&ws.ctx, &id, collecting().0)
        .await
        .unwrap_err();
    assert_eq!(empty.code, ErrorCode::Upstream);
    assert_eq!(reason(&empty), "empty_answer");
    assert_eq!(
        models::default_model(&ws.ctx).await.unwrap(),
        None,
        "a failed test adopts nothing"
    );

    models::set_enabled(&ws.ctx, &id, false).await.unwrap();
    let off = check::test_connection(&ws.ctx, &id, collecting().0)
        .await
        .unwrap_err();
    assert_eq!(off.code, ErrorCode::Precondition);
    assert_eq!(reason(&off), "model_disabled");

    let missing = check::test_connection(&ws.ctx, &ModelId::from("nope/none"), collecting().0)
        .await
        .unwrap_err();
    assert_eq!(missing.code, ErrorCode::Precondition);
    assert_eq!(reason(&missing), "no_model");

    let gone = connect::connect(
        &ws.ctx,
        ConnectModel {
            name: "Gone".into(),
            kind: "ollama".into(),
            base_url: Some(format!("http://127.0.0.1:{}", closed_port().await)),
            models: vec!["x".into()],
            ..ConnectModel::default()
        },
    )
    .await
    .unwrap();
    let unreachable = check::test_connection(&ws.ctx, &gone.models[0].id, collecting().0)
        .await
        .unwrap_err();
    assert_eq!(unreachable.code, ErrorCode::Upstream);
    assert_eq!(reason(&unreachable), "unreachable");
}

#[tokio::test]
async fn the_sample_canvas_has_an_item_and_two_variants_that_generate_with_the_default() {
    let ws = workspace().await;
    let lm = scripted(vec![Rule::text("A draft about the library.").repeat()], &[]).await;
    connect_scripted(&ws.ctx, &lm, &["writer"]).await;
    let me = Caller::ui(&ws.ctx);

    let english = sample::open_sample_canvas(&ws.ctx, &me, "en")
        .await
        .unwrap();
    assert_eq!(english.items.len(), 1);
    assert_eq!(english.variants.len(), 2);
    assert!(
        english
            .variants
            .iter()
            .all(|v| v.model_id.is_none() && v.round_count == 0)
    );
    let presets: Vec<_> = english
        .variants
        .iter()
        .map(|v| v.preset_id.as_str())
        .collect();
    assert_eq!(presets, ["tldr-brief", "x-thread"]);

    let outcome = generate::generate_all(&ws.ctx, &me, &english.canvas.id, generate::no_events())
        .await
        .unwrap();
    assert_eq!(outcome.done.len(), 2, "{:?}", outcome.failed);
    assert!(
        outcome
            .done
            .iter()
            .all(|r| r.output == "A draft about the library.")
    );
    let sent = lm.requests().last().unwrap().body.clone();
    assert!(
        sent.to_string().contains("midnight"),
        "the sample item is the source"
    );

    let spanish = sample::open_sample_canvas(&ws.ctx, &me, "es-ES")
        .await
        .unwrap();
    assert!(spanish.items[0].title.contains("biblioteca"));
    assert_eq!(canvas::list(&ws.ctx, &me).await.unwrap().len(), 2);
}

#[tokio::test]
async fn deleting_the_provider_of_the_default_model_clears_the_default() {
    let ws = workspace().await;
    let lm = scripted(vec![], &[]).await;
    let made = connect_scripted(&ws.ctx, &lm, &["only"]).await;
    assert!(models::default_model(&ws.ctx).await.unwrap().is_some());
    providers::delete(&ws.ctx, &made.provider.id).await.unwrap();
    assert_eq!(models::default_model(&ws.ctx).await.unwrap(), None);
}
