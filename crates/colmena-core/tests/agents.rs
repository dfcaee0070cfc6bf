//! Agents (SPEC H1–H5) against a real store.

#![allow(clippy::unwrap_used)]

mod support;

use colmena_core::ErrorCode;
use colmena_core::agents::{self, AgentUpdate, NewAgent};
use colmena_core::ids::AgentId;
use colmena_core::skills::{self, SkillDraft, SkillFilter};
use colmena_core::tools::{self, ToolFilter};
use support::workspace;

fn agent(name: &str) -> NewAgent {
    NewAgent {
        name: name.into(),
        ..Default::default()
    }
}

#[tokio::test]
async fn h1_agents_can_be_created_read_listed_updated_disabled_and_deleted() {
    let ws = workspace().await;
    let created = agents::create(
        &ws.ctx,
        NewAgent {
            system_prompt: "You research.".into(),
            tools: vec!["web_*".into()],
            skills: vec!["web-research".into()],
            ..agent("Investigador")
        },
    )
    .await
    .unwrap();
    assert_eq!(created.id.as_str(), "investigador");
    assert!(created.enabled);
    assert_eq!(created.tools, ["web_fetch", "web_search"]);

    let got = agents::get(&ws.ctx, &created.id).await.unwrap();
    assert_eq!(got, created);
    assert!(
        agents::list(&ws.ctx)
            .await
            .unwrap()
            .iter()
            .any(|a| a.id == created.id)
    );

    let updated = agents::update(
        &ws.ctx,
        &created.id,
        AgentUpdate {
            name: Some("Investigadora".into()),
            description: Some("Busca en la web".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(updated.id, created.id, "renaming keeps the id");
    assert_eq!(updated.name, "Investigadora");
    assert_eq!(updated.tools, created.tools);

    assert!(
        !agents::set_enabled(&ws.ctx, &created.id, false)
            .await
            .unwrap()
            .enabled
    );
    assert!(
        agents::set_enabled(&ws.ctx, &created.id, true)
            .await
            .unwrap()
            .enabled
    );
    agents::delete(&ws.ctx, &created.id).await.unwrap();
    assert_eq!(
        agents::get(&ws.ctx, &created.id).await.unwrap_err().code,
        ErrorCode::NotFound
    );
}

#[tokio::test]
async fn h1_assign_tools_skills_and_mcp_servers_replace_what_the_agent_had() {
    let ws = workspace().await;
    let a = agents::create(&ws.ctx, agent("Analista")).await.unwrap();
    let a = agents::assign_tools(&ws.ctx, &a.id, vec!["data_*".into(), "fs_read".into()])
        .await
        .unwrap();
    assert_eq!(a.tool_patterns, ["data_*", "fs_read"]);
    assert_eq!(
        a.tools,
        ["data_chart", "data_describe", "data_query_csv", "fs_read"]
    );
    let a = agents::assign_skills(&ws.ctx, &a.id, vec!["data-analysis".into()])
        .await
        .unwrap();
    assert_eq!(a.skills, ["data-analysis"]);
    let a = agents::assign_tools(&ws.ctx, &a.id, vec!["fs_read".into()])
        .await
        .unwrap();
    assert_eq!(a.tools, ["fs_read"]);
    let err = agents::assign_mcp_servers(&ws.ctx, &a.id, vec!["github".into()])
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    assert_eq!(err.message, "unknown MCP servers: github");
}

#[tokio::test]
async fn h2_the_id_is_the_name_with_accents_folded() {
    let ws = workspace().await;
    let a = agents::create(&ws.ctx, agent("Diseño")).await.unwrap();
    assert_eq!(a.id.as_str(), "diseno");
    let err = agents::create(&ws.ctx, agent("diseno")).await.unwrap_err();
    assert_eq!(
        err.code,
        ErrorCode::Conflict,
        "a taken id is a conflict, not a silent suffix"
    );
}

#[tokio::test]
async fn h3_an_unknown_skill_fails_the_write_naming_it() {
    let ws = workspace().await;
    let err = agents::create(
        &ws.ctx,
        NewAgent {
            skills: vec!["no-existe".into()],
            ..agent("X")
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    assert_eq!(err.message, "unknown skills: no-existe");
    assert_eq!(err.field(), Some("skills"));
    assert_eq!(
        agents::get(&ws.ctx, &AgentId::from("x"))
            .await
            .unwrap_err()
            .code,
        ErrorCode::NotFound
    );
}

#[tokio::test]
async fn h3_unmatched_glob_is_an_error() {
    let ws = workspace().await;
    let err = agents::create(
        &ws.ctx,
        NewAgent {
            tools: vec!["web_*".into(), "zzz_*".into()],
            ..agent("X")
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    assert!(err.message.contains("zzz_*"), "{}", err.message);
    assert_eq!(
        err.details.unwrap()["unknownTools"],
        serde_json::json!(["zzz_*"])
    );
}

#[tokio::test]
async fn h3_every_bad_reference_is_named_in_one_error() {
    let ws = workspace().await;
    let err = agents::create(
        &ws.ctx,
        NewAgent {
            tools: vec!["nope_*".into()],
            skills: vec!["ghost".into()],
            mcp_servers: vec!["phantom".into()],
            ..agent("X")
        },
    )
    .await
    .unwrap_err();
    for name in ["nope_*", "ghost", "phantom"] {
        assert!(err.message.contains(name), "{}", err.message);
    }
    let fields: Vec<String> = err.details.unwrap()["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(fields, ["tools", "skills", "mcpServers"]);
}

#[tokio::test]
async fn h3_a_malformed_pattern_is_an_error_not_a_non_match() {
    let ws = workspace().await;
    let err = agents::create(
        &ws.ctx,
        NewAgent {
            tools: vec!["web-*".into()],
            ..agent("X")
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    assert_eq!(err.details.unwrap()["reason"], "invalid_pattern");
}

#[tokio::test]
async fn h4_deleting_or_disabling_an_agent_keeps_its_tools_and_skills() {
    let ws = workspace().await;
    let a = agents::create(
        &ws.ctx,
        NewAgent {
            tools: vec!["fs_*".into()],
            skills: vec!["file-organization".into()],
            ..agent("Ordenador")
        },
    )
    .await
    .unwrap();
    let tools_before = tools::list(&ws.ctx, ToolFilter::default()).await.unwrap();
    let skills_before = skills::list(&ws.ctx, SkillFilter::default()).await.unwrap();

    agents::set_enabled(&ws.ctx, &a.id, false).await.unwrap();
    agents::delete(&ws.ctx, &a.id).await.unwrap();

    let tools_after = tools::list(&ws.ctx, ToolFilter::default()).await.unwrap();
    let skills_after: Vec<_> = skills::list(&ws.ctx, SkillFilter::default())
        .await
        .unwrap()
        .into_iter()
        .map(|s| (s.id, s.active))
        .collect();
    assert_eq!(tools_after, tools_before);
    let skills_before: Vec<_> = skills_before
        .into_iter()
        .map(|s| (s.id, s.active))
        .collect();
    assert_eq!(skills_after, skills_before);
}

#[tokio::test]
async fn h5_declared_skills_become_indexed_rows_idempotently() {
    let ws = workspace().await;
    let draft = |body: &str| SkillDraft {
        name: "tono-de-marca".into(),
        description: "Escribir con el tono de la marca".into(),
        body: body.into(),
        ..Default::default()
    };
    let a = agents::create(
        &ws.ctx,
        NewAgent {
            declared_skills: vec![draft("Cercano y claro. Palabra clave: zumbido.")],
            ..agent("Redactor")
        },
    )
    .await
    .unwrap();
    assert_eq!(a.skills, ["tono-de-marca"]);
    let skill = skills::get(&ws.ctx, "tono-de-marca").await.unwrap();
    assert_eq!(skill.used_by, ["redactor"]);

    let hits = colmena_core::memory::search_catalog(&ws.ctx, support::catalog_query("zumbido"))
        .await
        .unwrap();
    assert_eq!(
        hits.first().map(|h| h.id.as_str()),
        Some("tono-de-marca"),
        "the declared skill is indexed"
    );

    // Declaring it again (with another agent) updates the row instead of duplicating it.
    agents::create(
        &ws.ctx,
        NewAgent {
            declared_skills: vec![draft("Cercano y claro. Palabra clave: panal.")],
            ..agent("Revisor")
        },
    )
    .await
    .unwrap();
    let all = skills::list(&ws.ctx, SkillFilter::default()).await.unwrap();
    assert_eq!(all.iter().filter(|s| s.id == "tono-de-marca").count(), 1);
    let skill = skills::get(&ws.ctx, "tono-de-marca").await.unwrap();
    assert!(skill.body.contains("panal"));
    assert_eq!(skill.used_by, ["redactor", "revisor"]);
    let stale = colmena_core::memory::search_catalog(&ws.ctx, support::catalog_query("zumbido"))
        .await
        .unwrap();
    assert!(
        stale.iter().all(|h| h.id != "tono-de-marca"),
        "the index follows the update"
    );
}

#[tokio::test]
async fn catalog_specialists_are_disabled_not_deleted() {
    let ws = workspace().await;
    let err = agents::delete(&ws.ctx, &AgentId::from("web_researcher"))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Precondition);
}
