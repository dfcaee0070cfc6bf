//! The code of ethics and the composed system prompt (SPEC H30).

#![allow(clippy::unwrap_used)]

mod support;

use colmena_core::ErrorCode;
use colmena_core::agents::{self, NewAgent};
use colmena_core::ethics::{self, EthicsDraft};
use colmena_core::prompt::compose_system_prompt;
use colmena_core::skills::{self, SkillDraft};
use support::workspace;

fn rule(title: &str, text: &str) -> EthicsDraft {
    EthicsDraft {
        title: title.into(),
        rule: text.into(),
    }
}

#[tokio::test]
async fn h30_rules_can_be_created_listed_updated_toggled_and_deleted() {
    let ws = workspace().await;
    let honesty = ethics::create(&ws.ctx, rule("Honestidad", "Nunca inventes datos."))
        .await
        .unwrap();
    assert_eq!(honesty.id, "honestidad");
    let privacy = ethics::create(&ws.ctx, rule("Privacy", "Never share personal data."))
        .await
        .unwrap();
    assert!(privacy.position > honesty.position);
    let list = ethics::list(&ws.ctx).await.unwrap();
    assert_eq!(
        list.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        ["honestidad", "privacy"]
    );

    let updated = ethics::update(
        &ws.ctx,
        "privacy",
        rule("Privacy", "Never share personal data with anyone."),
    )
    .await
    .unwrap();
    assert!(updated.rule.ends_with("anyone."));
    assert!(
        !ethics::switch(&ws.ctx, "privacy", None)
            .await
            .unwrap()
            .active
    );
    ethics::delete(&ws.ctx, "honestidad").await.unwrap();
    assert_eq!(
        ethics::get(&ws.ctx, "honestidad").await.unwrap_err().code,
        ErrorCode::NotFound
    );
    let err = ethics::create(&ws.ctx, rule("", "")).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
}

#[tokio::test]
async fn h30_the_system_prompt_is_the_agent_prompt_then_active_ethics_then_active_skills() {
    let ws = workspace().await;
    ethics::create(&ws.ctx, rule("Honesty", "Never invent facts."))
        .await
        .unwrap();
    ethics::create(&ws.ctx, rule("Dormant", "This rule is off."))
        .await
        .unwrap();
    ethics::switch(&ws.ctx, "dormant", Some(false))
        .await
        .unwrap();
    skills::create(
        &ws.ctx,
        SkillDraft {
            name: "tone".into(),
            description: "House tone".into(),
            body: "Be warm and brief.".into(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    skills::create(
        &ws.ctx,
        SkillDraft {
            name: "off-skill".into(),
            description: "Inactive".into(),
            body: "Should not appear.".into(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    skills::switch(&ws.ctx, "off-skill", Some(false))
        .await
        .unwrap();
    let agent = agents::create(
        &ws.ctx,
        NewAgent {
            name: "Writer".into(),
            system_prompt: "You write newsletters.".into(),
            skills: vec!["tone".into(), "off-skill".into()],
            ..Default::default()
        },
    )
    .await
    .unwrap();

    let prompt = compose_system_prompt(&ws.ctx, &agent.id).await.unwrap();
    let own = prompt.find("You write newsletters.").unwrap();
    let ethics_at = prompt.find("Never invent facts.").unwrap();
    let skill_at = prompt.find("Be warm and brief.").unwrap();
    assert!(own < ethics_at && ethics_at < skill_at, "{prompt}");
    assert!(!prompt.contains("This rule is off."));
    assert!(!prompt.contains("Should not appear."));
}
