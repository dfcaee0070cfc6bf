//! Moving a provider to another origin asks for its key again (issue 11,
//! item 3): the stored key is never silently re-pointed at a new server.

#![allow(clippy::unwrap_used)]

mod support;

use colmena_core::ErrorCode;
use colmena_core::providers::{self, NewProvider, ProviderUpdate, origin_changes};
use support::workspace;

const KEY: &str = "sk-origin-test-1234567890";

fn provider(name: &str, key: Option<&str>) -> NewProvider {
    NewProvider {
        name: name.into(),
        kind: "openai_compatible".into(),
        base_url: Some("https://api.example.com/v1".into()),
        api_key: key.map(Into::into),
    }
}

fn base(url: &str) -> ProviderUpdate {
    ProviderUpdate {
        base_url: Some(url.into()),
        ..Default::default()
    }
}

#[tokio::test]
async fn provider_new_origin_without_the_key_is_refused() {
    let ws = workspace().await;
    let p = providers::create(&ws.ctx, provider("Upstream", Some(KEY)))
        .await
        .unwrap();
    for url in [
        "https://evil.example.net/v1",
        "http://api.example.com/v1",
        "https://api.example.com:8443/v1",
    ] {
        let err = providers::update(&ws.ctx, &p.id, base(url))
            .await
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Validation, "{url}");
        assert_eq!(err.field(), Some("apiKey"), "{url}");
        assert_eq!(
            err.details.as_ref().unwrap()["reason"],
            "key_required_for_new_origin",
            "{url}"
        );
    }
    let unchanged = providers::get(&ws.ctx, &p.id).await.unwrap();
    assert_eq!(unchanged.base_url, "https://api.example.com/v1");
    assert!(unchanged.has_api_key);
}

#[tokio::test]
async fn provider_same_origin_path_change_keeps_the_key() {
    let ws = workspace().await;
    let p = providers::create(&ws.ctx, provider("Same", Some(KEY)))
        .await
        .unwrap();
    let moved = providers::update(&ws.ctx, &p.id, base("https://API.example.com:443/v2/"))
        .await
        .unwrap();
    assert_eq!(moved.base_url, "https://api.example.com/v2");
    assert!(moved.has_api_key);
    assert_eq!(moved.api_key_masked, p.api_key_masked);
}

#[tokio::test]
async fn provider_new_origin_with_a_new_key_or_without_any_key_is_accepted() {
    let ws = workspace().await;
    let p = providers::create(&ws.ctx, provider("Rekeyed", Some(KEY)))
        .await
        .unwrap();
    let moved = providers::update(
        &ws.ctx,
        &p.id,
        ProviderUpdate {
            api_key: Some("sk-another-key-987654321".into()),
            ..base("https://other.example.org/v1")
        },
    )
    .await
    .unwrap();
    assert_eq!(moved.base_url, "https://other.example.org/v1");
    assert_eq!(moved.api_key_masked.as_deref(), Some("sk-…4321"));

    // Moving and removing the key in the same update is fine too.
    let dropped = providers::update(
        &ws.ctx,
        &p.id,
        ProviderUpdate {
            remove_api_key: true,
            ..base("http://127.0.0.1:1234/v1")
        },
    )
    .await
    .unwrap();
    assert!(!dropped.has_api_key);

    // A provider without a key moves freely.
    let keyless = providers::create(&ws.ctx, provider("Keyless", None))
        .await
        .unwrap();
    let moved = providers::update(&ws.ctx, &keyless.id, base("http://10.0.0.5:8000/v1"))
        .await
        .unwrap();
    assert_eq!(moved.base_url, "http://10.0.0.5:8000/v1");
}

#[test]
fn provider_origins_compare_scheme_host_and_port() {
    assert!(!origin_changes(
        "https://api.openai.com/v1",
        "https://api.openai.com:443/other"
    ));
    assert!(origin_changes(
        "https://api.openai.com/v1",
        "http://api.openai.com/v1"
    ));
    assert!(origin_changes(
        "http://127.0.0.1:11434",
        "http://127.0.0.1:11435"
    ));
    assert!(origin_changes("https://a.example", "https://b.example"));
    assert!(origin_changes("not a url", "https://b.example"));
}
