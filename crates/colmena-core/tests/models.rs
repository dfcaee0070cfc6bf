//! Models (SPEC H20, H21) against a real store, agents included.

#![allow(clippy::unwrap_used)]

mod support;

use colmena_core::agents::{self, NewAgent};
use colmena_core::ids::{ModelId, ProviderId};
use colmena_core::models::{self, NewModel};
use colmena_core::providers::{self, NewProvider};
use colmena_core::{Ctx, ErrorCode};
use support::workspace;

async fn provider(ctx: &Ctx, name: &str) -> ProviderId {
    providers::create(
        ctx,
        NewProvider {
            name: name.into(),
            kind: "openai".into(),
            base_url: None,
            api_key: None,
        },
    )
    .await
    .unwrap()
    .id
}

async fn model(ctx: &Ctx, provider: &ProviderId, name: &str) -> ModelId {
    models::create(
        ctx,
        NewModel {
            provider_id: provider.clone(),
            name: name.into(),
            label: None,
        },
    )
    .await
    .unwrap()
    .id
}

async fn agent(ctx: &Ctx, name: &str, model: &ModelId) {
    agents::create(
        ctx,
        NewAgent {
            name: name.into(),
            model_id: Some(model.clone()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
}

async fn models_of_agents(ctx: &Ctx) -> Vec<(String, Option<String>)> {
    agents::list(ctx)
        .await
        .unwrap()
        .into_iter()
        .filter(|a| a.persona.is_none())
        .map(|a| (a.id.0, a.model_id.map(|m| m.0)))
        .collect()
}

#[tokio::test]
async fn h20_a_model_used_by_agents_cannot_be_deleted_and_the_error_names_them() {
    let ws = workspace().await;
    let p = provider(&ws.ctx, "OpenAI").await;
    let m = model(&ws.ctx, &p, "gpt-4o").await;
    agent(&ws.ctx, "Redactor", &m).await;
    agent(&ws.ctx, "Revisor", &m).await;

    let users = models::agents_using_model(&ws.ctx, &m).await.unwrap();
    let ids: Vec<&str> = users.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(ids, ["redactor", "revisor"]);

    let err = models::delete(&ws.ctx, &m).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
    assert!(
        err.message.contains("redactor") && err.message.contains("revisor"),
        "{}",
        err.message
    );
    assert_eq!(
        err.details.unwrap()["agents"],
        serde_json::json!(["redactor", "revisor"])
    );
    assert!(
        models::get(&ws.ctx, &m).await.is_ok(),
        "the model is still there"
    );

    // Neither can the provider go, since that would delete the model.
    let err = providers::delete(&ws.ctx, &p).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
    assert!(err.message.contains("redactor"));

    // Once no agent uses it, it can be deleted.
    for a in ["redactor", "revisor"] {
        agents::set_model(&ws.ctx, &a.into(), None).await.unwrap();
    }
    models::delete(&ws.ctx, &m).await.unwrap();
    assert_eq!(
        models::get(&ws.ctx, &m).await.unwrap_err().code,
        ErrorCode::NotFound
    );
}

#[tokio::test]
async fn h21_rename_re_points_every_agent_to_the_new_id() {
    let ws = workspace().await;
    let p = provider(&ws.ctx, "OpenAI").await;
    let old = model(&ws.ctx, &p, "gpt-viejo").await;
    let other = model(&ws.ctx, &p, "gpt-otro").await;
    agent(&ws.ctx, "Uno", &old).await;
    agent(&ws.ctx, "Dos", &old).await;
    agent(&ws.ctx, "Tres", &other).await;

    let renamed = models::rename(&ws.ctx, &old, "gpt-nuevo").await.unwrap();
    assert_eq!(renamed.id.as_str(), "openai/gpt-nuevo");
    assert_eq!(renamed.name, "gpt-nuevo");
    assert_eq!(
        models_of_agents(&ws.ctx).await,
        [
            ("dos".to_owned(), Some("openai/gpt-nuevo".to_owned())),
            ("tres".to_owned(), Some("openai/gpt-otro".to_owned())),
            ("uno".to_owned(), Some("openai/gpt-nuevo".to_owned())),
        ]
    );
    assert_eq!(
        models::get(&ws.ctx, &old).await.unwrap_err().code,
        ErrorCode::NotFound
    );
}

#[tokio::test]
async fn h21_a_failure_half_way_through_a_rename_leaves_everything_as_it_was() {
    let ws = workspace().await;
    let p = provider(&ws.ctx, "OpenAI").await;
    let old = model(&ws.ctx, &p, "gpt-viejo").await;
    agent(&ws.ctx, "Uno", &old).await;
    agent(&ws.ctx, "Dos", &old).await;
    let before = models_of_agents(&ws.ctx).await;

    // Fail in the middle of re-pointing agents ('uno' after 'dos'), then at the
    // last step (deleting the old row): each time the whole rename is undone.
    for trigger in [
        "CREATE TRIGGER inject BEFORE UPDATE OF model_id ON agents WHEN NEW.id = 'uno'
         BEGIN SELECT RAISE(ABORT, 'injected failure'); END",
        "CREATE TRIGGER inject BEFORE DELETE ON models
         BEGIN SELECT RAISE(ABORT, 'injected failure'); END",
    ] {
        ws.ctx
            .store()
            .write(move |tx| Ok(tx.execute_batch(trigger)?))
            .await
            .unwrap();

        let err = models::rename(&ws.ctx, &old, "gpt-nuevo")
            .await
            .unwrap_err();
        assert!(err.message.contains("injected failure"), "{}", err.message);

        assert_eq!(models_of_agents(&ws.ctx).await, before);
        assert!(models::get(&ws.ctx, &old).await.is_ok(), "old model kept");
        let new_id = ModelId::from("openai/gpt-nuevo");
        assert_eq!(
            models::get(&ws.ctx, &new_id).await.unwrap_err().code,
            ErrorCode::NotFound,
            "no half-made new model"
        );

        ws.ctx
            .store()
            .write(|tx| Ok(tx.execute_batch("DROP TRIGGER inject")?))
            .await
            .unwrap();
    }

    // Without the fault the same rename succeeds.
    models::rename(&ws.ctx, &old, "gpt-nuevo").await.unwrap();
}

#[tokio::test]
async fn rename_refuses_an_existing_name_and_bad_names() {
    let ws = workspace().await;
    let p = provider(&ws.ctx, "OpenAI").await;
    let a = model(&ws.ctx, &p, "a").await;
    model(&ws.ctx, &p, "b").await;
    let err = models::rename(&ws.ctx, &a, "b").await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
    let err = models::rename(&ws.ctx, &a, "has space").await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    assert_eq!(err.field(), Some("newName"));
    // Renaming to its own name changes nothing.
    assert_eq!(models::rename(&ws.ctx, &a, "a").await.unwrap().id, a);
}

#[tokio::test]
async fn model_names_may_hold_slashes_and_colons() {
    let ws = workspace().await;
    let p = provider(&ws.ctx, "OpenRouter").await;
    let m = model(&ws.ctx, &p, "anthropic/claude-3.5-sonnet").await;
    assert_eq!(m.as_str(), "openrouter/anthropic/claude-3.5-sonnet");
    let o = provider(&ws.ctx, "Ollama local").await;
    let m = model(&ws.ctx, &o, "llama3.1:8b").await;
    assert_eq!(m.as_str(), "ollama_local/llama3.1:8b");
    let err = models::create(
        &ws.ctx,
        NewModel {
            provider_id: o.clone(),
            name: "llama3.1:8b".into(),
            label: None,
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
}

#[tokio::test]
async fn an_agent_cannot_point_at_a_model_that_does_not_exist() {
    let ws = workspace().await;
    let err = agents::create(
        &ws.ctx,
        NewAgent {
            name: "Diseño".into(),
            model_id: Some("nope/nothing".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert_eq!(err.field(), Some("modelId"));
    let a = agents::create(
        &ws.ctx,
        NewAgent {
            name: "Diseño".into(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(a.id.as_str(), "diseno");
}
