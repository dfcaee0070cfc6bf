//! Providers (SPEC H18, H19, H22) against a real store.

#![allow(clippy::unwrap_used)]

mod support;

use colmena_core::ErrorCode;
use colmena_core::ids::ProviderId;
use colmena_core::models::{self, ModelFilter, NewModel};
use colmena_core::providers::{self, NewProvider, ProviderKind, ProviderUpdate};
use support::{any_file_contains, workspace};

const KEY: &str = "sk-test-1234567890abcdef";

fn openai(name: &str, key: Option<&str>) -> NewProvider {
    NewProvider {
        name: name.into(),
        kind: "openai_compatible".into(),
        base_url: None,
        api_key: key.map(Into::into),
    }
}

#[tokio::test]
async fn h18_the_key_is_encrypted_at_rest_and_no_read_path_returns_it() {
    let ws = workspace().await;
    let created = providers::create(&ws.ctx, openai("OpenAI", Some(KEY)))
        .await
        .unwrap();
    assert!(created.has_api_key);
    assert_eq!(created.api_key_masked.as_deref(), Some("sk-…cdef"));

    let listed = providers::list(&ws.ctx).await.unwrap();
    let got = providers::get(&ws.ctx, &created.id).await.unwrap();
    for outward in [
        serde_json::to_string(&created).unwrap(),
        serde_json::to_string(&listed).unwrap(),
        serde_json::to_string(&got).unwrap(),
    ] {
        assert!(
            !outward.contains(KEY),
            "a read path returned the key: {outward}"
        );
        assert!(outward.contains("\"hasApiKey\":true"), "{outward}");
    }

    assert!(
        !any_file_contains(ws.dir.path(), KEY.as_bytes()),
        "the clear key is somewhere in the data dir"
    );

    // The key was sealed, not dropped: the stored envelope opens to it.
    let id = created.id.clone();
    let cipher: Vec<u8> = ws
        .ctx
        .store()
        .read(move |c| {
            Ok(c.query_row(
                "SELECT api_key_cipher FROM providers WHERE id = ?1",
                [&id],
                |r| r.get(0),
            )?)
        })
        .await
        .unwrap();
    let clear = ws
        .ctx
        .vault()
        .open_envelope(&format!("provider:{}:api_key", created.id), &cipher)
        .unwrap();
    assert_eq!(clear.as_slice(), KEY.as_bytes());
}

#[tokio::test]
async fn h18_the_key_survives_a_restart_and_can_be_replaced_or_removed() {
    let ws = workspace().await;
    let p = providers::create(&ws.ctx, openai("Groq", Some(KEY)))
        .await
        .unwrap();
    let dir = ws.dir.path().to_owned();
    drop(ws.ctx);

    let ctx = support::open(&dir).await;
    let again = providers::get(&ctx, &p.id).await.unwrap();
    assert_eq!(again.api_key_masked.as_deref(), Some("sk-…cdef"));

    let replaced = providers::update(
        &ctx,
        &p.id,
        ProviderUpdate {
            api_key: Some("gsk_abcdefghijklmnop9876".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(replaced.api_key_masked.as_deref(), Some("gsk…9876"));

    let removed = providers::update(
        &ctx,
        &p.id,
        ProviderUpdate {
            remove_api_key: true,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert!(!removed.has_api_key);
    assert_eq!(removed.api_key_masked, None);
}

#[tokio::test]
async fn h19_disabling_a_provider_disables_its_models_and_enabling_restores_them() {
    let ws = workspace().await;
    let p = providers::create(&ws.ctx, openai("OpenAI", None))
        .await
        .unwrap();
    let on = models::create(&ws.ctx, new_model(&p.id, "gpt-4o"))
        .await
        .unwrap();
    let off = models::create(&ws.ctx, new_model(&p.id, "gpt-3.5"))
        .await
        .unwrap();
    models::set_enabled(&ws.ctx, &off.id, false).await.unwrap();

    providers::set_enabled(&ws.ctx, &p.id, false).await.unwrap();
    for m in models::list(&ws.ctx, ModelFilter::default()).await.unwrap() {
        assert!(!m.enabled, "{} is still enabled", m.id);
        assert!(!m.provider_enabled);
    }
    let selectable = models::list(
        &ws.ctx,
        ModelFilter {
            enabled_only: true,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert!(
        selectable.is_empty(),
        "a model of a disabled provider is selectable"
    );

    let err = models::set_enabled(&ws.ctx, &on.id, true)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Precondition);

    // A model added while the provider is off starts off.
    let late = models::create(&ws.ctx, new_model(&p.id, "o1"))
        .await
        .unwrap();
    assert!(!late.enabled);

    providers::set_enabled(&ws.ctx, &p.id, true).await.unwrap();
    assert!(
        models::get(&ws.ctx, &on.id).await.unwrap().enabled,
        "restored"
    );
    assert!(
        !models::get(&ws.ctx, &off.id).await.unwrap().enabled,
        "the user's own choice is kept"
    );
    assert!(models::get(&ws.ctx, &late.id).await.unwrap().enabled);
}

#[tokio::test]
async fn h22_every_kind_can_be_added_with_its_default_base_url() {
    let ws = workspace().await;
    for (kind, name) in [
        ("openai", "OpenRouter"),
        ("anthropic", "Anthropic"),
        ("ollama", "Ollama"),
    ] {
        let p = providers::create(
            &ws.ctx,
            NewProvider {
                name: name.into(),
                kind: kind.into(),
                base_url: Some("   ".into()),
                api_key: None,
            },
        )
        .await
        .unwrap();
        assert_eq!(p.base_url, p.kind.default_base_url());
        assert!(!p.has_api_key);
    }
    let kinds: Vec<ProviderKind> = providers::list(&ws.ctx)
        .await
        .unwrap()
        .iter()
        .map(|p| p.kind)
        .collect();
    assert_eq!(kinds.len(), 3);
    for k in ProviderKind::ALL {
        assert!(kinds.contains(&k));
    }
}

#[tokio::test]
async fn bad_input_gets_a_validation_error_on_the_field() {
    let ws = workspace().await;
    let cases = [
        (openai("   ", None), "name", "required"),
        (
            NewProvider {
                kind: "gemini".into(),
                ..openai("X", None)
            },
            "kind",
            "unknown_kind",
        ),
        (
            NewProvider {
                base_url: Some("not a url".into()),
                ..openai("X", None)
            },
            "baseUrl",
            "invalid_url",
        ),
        (
            NewProvider {
                base_url: Some("ftp://example.com".into()),
                ..openai("X", None)
            },
            "baseUrl",
            "invalid_url",
        ),
        (openai("X", Some("sk with spaces")), "apiKey", "invalid_key"),
        (openai("¡¡!!", None), "name", "no_letters"),
    ];
    for (input, field, reason) in cases {
        let err = providers::create(&ws.ctx, input).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::Validation, "{err:?}");
        assert_eq!(err.field(), Some(field), "{err:?}");
        assert_eq!(err.details.as_ref().unwrap()["reason"], reason);
    }
    assert!(
        providers::list(&ws.ctx).await.unwrap().is_empty(),
        "nothing was written"
    );
}

#[tokio::test]
async fn several_bad_fields_are_reported_together() {
    let ws = workspace().await;
    let err = providers::create(
        &ws.ctx,
        NewProvider {
            name: "".into(),
            kind: "nope".into(),
            base_url: None,
            api_key: None,
        },
    )
    .await
    .unwrap_err();
    let fields: Vec<String> = err.details.unwrap()["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(fields, ["name", "kind"]);
}

#[tokio::test]
async fn a_duplicate_name_is_a_conflict_whatever_its_case() {
    let ws = workspace().await;
    providers::create(&ws.ctx, openai("OpenAI", None))
        .await
        .unwrap();
    let err = providers::create(&ws.ctx, openai("openai", None))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
    assert_eq!(err.field(), Some("name"));

    // Different names, same slug: the id collides.
    providers::create(&ws.ctx, openai("LM Studio", None))
        .await
        .unwrap();
    let err = providers::create(&ws.ctx, openai("lm-studio", None))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
    assert_eq!(err.details.unwrap()["reason"], "duplicate_id");
}

#[tokio::test]
async fn base_urls_are_canonicalised() {
    let ws = workspace().await;
    let p = providers::create(
        &ws.ctx,
        NewProvider {
            base_url: Some(" http://localhost:1234/v1/ ".into()),
            ..openai("LM Studio", None)
        },
    )
    .await
    .unwrap();
    assert_eq!(p.base_url, "http://localhost:1234/v1");
}

#[tokio::test]
async fn renaming_a_provider_keeps_its_id_and_checks_duplicates() {
    let ws = workspace().await;
    let a = providers::create(&ws.ctx, openai("Alpha", None))
        .await
        .unwrap();
    providers::create(&ws.ctx, openai("Beta", None))
        .await
        .unwrap();
    let renamed = providers::update(
        &ws.ctx,
        &a.id,
        ProviderUpdate {
            name: Some("Alpha Prime".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(renamed.id, a.id);
    assert_eq!(renamed.name, "Alpha Prime");
    let err = providers::update(
        &ws.ctx,
        &a.id,
        ProviderUpdate {
            name: Some("beta".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
}

#[tokio::test]
async fn unknown_providers_are_not_found() {
    let ws = workspace().await;
    let ghost = ProviderId::from("ghost");
    assert_eq!(
        providers::get(&ws.ctx, &ghost).await.unwrap_err().code,
        ErrorCode::NotFound
    );
    assert_eq!(
        providers::set_enabled(&ws.ctx, &ghost, false)
            .await
            .unwrap_err()
            .code,
        ErrorCode::NotFound
    );
    assert_eq!(
        providers::delete(&ws.ctx, &ghost).await.unwrap_err().code,
        ErrorCode::NotFound
    );
    let err = models::create(&ws.ctx, new_model(&ghost, "m"))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert_eq!(err.field(), Some("providerId"));
}

#[tokio::test]
async fn deleting_a_provider_deletes_its_unused_models() {
    let ws = workspace().await;
    let p = providers::create(&ws.ctx, openai("OpenAI", Some(KEY)))
        .await
        .unwrap();
    models::create(&ws.ctx, new_model(&p.id, "gpt-4o"))
        .await
        .unwrap();
    assert_eq!(providers::get(&ws.ctx, &p.id).await.unwrap().model_count, 1);
    providers::delete(&ws.ctx, &p.id).await.unwrap();
    assert!(
        models::list(&ws.ctx, ModelFilter::default())
            .await
            .unwrap()
            .is_empty()
    );
}

fn new_model(provider: &ProviderId, name: &str) -> NewModel {
    NewModel {
        provider_id: provider.clone(),
        name: name.into(),
        label: None,
    }
}
