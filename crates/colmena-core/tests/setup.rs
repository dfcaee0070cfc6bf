//! Selective seeding (SPEC H31–H35) against a real store.

#![allow(clippy::unwrap_used)]

mod support;

use colmena_core::ErrorCode;
use colmena_core::agents::{self, NewAgent};
use colmena_core::ids::AgentId;
use colmena_core::setup::{self, Specialists};
use colmena_core::skills::{self, SkillFilter};
use colmena_core::toolbox::catalog;
use colmena_core::tools::builtin::MINIMAL_TOOLS;
use colmena_core::tools::{self, ToolFilter};
use support::workspace;

async fn active_tools(ws: &support::Workspace) -> Vec<String> {
    tools::list(
        &ws.ctx,
        ToolFilter {
            active_only: true,
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .into_iter()
    .map(|t| t.id)
    .collect()
}

async fn active_skills(ws: &support::Workspace) -> Vec<String> {
    skills::list(&ws.ctx, SkillFilter { active_only: true })
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect()
}

#[tokio::test]
async fn h31_the_catalog_has_eight_personas_and_eight_minimal_tools() {
    let ws = workspace().await;
    let personas = setup::list_catalog_personas(&ws.ctx).await.unwrap();
    assert_eq!(personas.len(), 8);
    for persona in &personas {
        assert!(!persona.tools.is_empty(), "{} has no tools", persona.id);
        assert!(!persona.skills.is_empty(), "{} has no skills", persona.id);
    }
    assert_eq!(MINIMAL_TOOLS.len(), 8);
}

#[tokio::test]
async fn h32_ensure_db_none_gives_no_specialists_exactly_the_minimal_tools_and_no_skills() {
    let ws = workspace().await;
    let status = setup::ensure_db(&ws.ctx, Specialists::None).await.unwrap();
    assert!(status.completed);
    assert!(status.personas.iter().all(|p| !p.enabled), "0 specialists");
    let mut active = active_tools(&ws).await;
    active.sort();
    let mut minimal: Vec<String> = MINIMAL_TOOLS.iter().map(|t| (*t).to_owned()).collect();
    minimal.sort();
    assert_eq!(active, minimal, "exactly the 8 minimal tools");
    assert!(active_skills(&ws).await.is_empty(), "0 active skills");

    // Every tool and skill row is present, inactive.
    let all_tools = tools::list(&ws.ctx, ToolFilter::default()).await.unwrap();
    assert_eq!(all_tools.len(), catalog::BUILTIN_TOOLS.len());
    let all_skills = skills::list(&ws.ctx, SkillFilter::default()).await.unwrap();
    assert_eq!(all_skills.len(), colmena_core::skills::BUNDLED_SKILLS.len());
    // And the 8 catalog agents exist, disabled.
    let catalog_agents: Vec<_> = agents::list(&ws.ctx)
        .await
        .unwrap()
        .into_iter()
        .filter(|a| a.persona.is_some())
        .collect();
    assert_eq!(catalog_agents.len(), 8);
}

#[tokio::test]
async fn h32_ensure_db_all_installs_the_eight_and_the_union_of_their_needs() {
    let ws = workspace().await;
    let status = setup::ensure_db(&ws.ctx, Specialists::All).await.unwrap();
    assert_eq!(status.personas.iter().filter(|p| p.enabled).count(), 8);
    let active = active_tools(&ws).await;
    for needed in [
        "web_fetch",
        "cli_exec",
        "fs_delete",
        "git_commit",
        "image_transform",
        "data_chart",
        "cron_create",
        "delegate_task",
    ] {
        assert!(
            active.contains(&needed.to_owned()),
            "{needed} is not active"
        );
    }
    let mut named: Vec<String> = setup::PERSONAS
        .iter()
        .flat_map(|p| p.skills.iter().map(|s| (*s).to_owned()))
        .collect();
    named.sort();
    named.dedup();
    assert_eq!(
        active_skills(&ws).await,
        named,
        "every skill a specialist follows"
    );
}

#[tokio::test]
async fn h32_ensure_db_with_a_list_installs_just_those() {
    let ws = workspace().await;
    setup::ensure_db(&ws.ctx, Specialists::Only(vec!["web_researcher".into()]))
        .await
        .unwrap();
    assert_eq!(
        setup::list_enabled_catalog_agents(&ws.ctx).await.unwrap(),
        ["web_researcher"]
    );
    let active = active_tools(&ws).await;
    assert!(active.contains(&"web_fetch".to_owned()));
    assert!(
        !active.contains(&"web_search".to_owned()),
        "no search service is configured: web_search stays off"
    );
    assert!(!active.contains(&"fs_read".to_owned()));
    assert_eq!(
        active_skills(&ws).await,
        ["source-citation", "web-research"]
    );
    let err = setup::ensure_db(&ws.ctx, Specialists::Only(vec!["astronaut".into()])).await;
    assert!(
        err.is_ok(),
        "after the first run the choice changes nothing, even a bad one"
    );
}

#[tokio::test]
async fn h33_choosing_none_on_a_hive_with_the_eight_deletes_none() {
    let ws = workspace().await;
    setup::ensure_db(&ws.ctx, Specialists::All).await.unwrap();
    let dir = ws.dir.path().to_owned();
    drop(ws.ctx);
    let ctx = support::open(&dir).await;
    let status = setup::ensure_db(&ctx, Specialists::None).await.unwrap();
    assert_eq!(status.personas.iter().filter(|p| p.enabled).count(), 8);
    assert_eq!(
        agents::list(&ctx)
            .await
            .unwrap()
            .iter()
            .filter(|a| a.persona.is_some())
            .count(),
        8
    );
}

#[tokio::test]
async fn the_browser_operator_keeps_the_playwright_pattern_before_the_server_exists() {
    let ws = workspace().await;
    let operator = agents::get(&ws.ctx, &AgentId::from("browser_operator"))
        .await
        .unwrap();
    assert_eq!(operator.tool_patterns, ["mcp__playwright__*", "web_fetch"]);
    assert_eq!(
        operator.tools,
        ["web_fetch"],
        "the MCP tools join once the server is added"
    );
    let personas = setup::list_catalog_personas(&ws.ctx).await.unwrap();
    let scheduler = personas.iter().find(|p| p.id == "scheduler").unwrap();
    assert_eq!(
        scheduler.tools,
        [
            "cron_create",
            "cron_delete",
            "cron_history",
            "cron_list",
            "cron_pause",
            "cron_resume",
            "cron_trigger",
            "cron_update"
        ],
        "the scheduler's tools are real again"
    );
    let analyst = personas.iter().find(|p| p.id == "data_analyst").unwrap();
    assert_eq!(
        analyst.tools,
        ["data_chart", "data_describe", "data_query_csv", "fs_read"]
    );
    // What the browser operator still needs is said, so the first run does
    // not offer it checked; every other specialist has all it names.
    let browser = personas
        .iter()
        .find(|p| p.id == "browser_operator")
        .unwrap();
    assert_eq!(browser.missing, ["mcp__playwright__*"]);
    for persona in personas.iter().filter(|p| p.id != "browser_operator") {
        assert!(
            persona.missing.is_empty(),
            "{}: {:?}",
            persona.id,
            persona.missing
        );
    }
}

/// A store written when the catalog had `browser_*` tools, then by the build
/// that made the scheduler an ordinary agent (no scheduled jobs yet), and
/// with a specialist this catalog does not know: each is brought up to date
/// and no agent is lost.
#[tokio::test]
async fn a_store_from_before_loses_no_agent_and_names_only_real_tools() {
    let ws = workspace().await;
    let dir = ws.dir.path().to_owned();
    drop(ws.ctx);
    {
        let db = support::db(&dir);
        db.execute_batch(
            "UPDATE agent_tool_patterns SET pattern = 'browser_*'
               WHERE agent_id = 'browser_operator' AND pattern = 'mcp__playwright__*';
             UPDATE agents SET persona = NULL WHERE id = 'scheduler';
             INSERT INTO agents (id, name, description, system_prompt, enabled, persona, created_at, updated_at)
               VALUES ('forecaster', 'Forecaster', 'Forecasts', 'You forecast.', 0, 'forecaster',
                       '2025-01-01T00:00:00+00:00', '2025-01-01T00:00:00+00:00');
             INSERT INTO agent_tool_patterns (agent_id, position, pattern) VALUES ('forecaster', 0, 'weather_*');",
        )
        .unwrap();
    }
    let ctx = support::open(&dir).await;
    let operator = agents::get(&ctx, &AgentId::from("browser_operator"))
        .await
        .unwrap();
    assert_eq!(operator.tool_patterns, ["mcp__playwright__*", "web_fetch"]);
    let scheduler = agents::get(&ctx, &AgentId::from("scheduler"))
        .await
        .unwrap();
    assert_eq!(
        scheduler.persona.as_deref(),
        Some("scheduler"),
        "the catalog's again"
    );
    assert_eq!(scheduler.tool_patterns, ["cron_*"]);
    assert_eq!(scheduler.tools.len(), 8, "{:?}", scheduler.tools);
    let forecaster = agents::get(&ctx, &AgentId::from("forecaster"))
        .await
        .unwrap();
    assert_eq!(forecaster.persona, None, "an ordinary agent now");
    assert_eq!(
        forecaster.tool_patterns,
        ["weather_*"],
        "kept as the person had it"
    );
    assert!(
        forecaster.tools.is_empty(),
        "a pattern that matches nothing is no error"
    );
    agents::delete(&ctx, &AgentId::from("forecaster"))
        .await
        .unwrap();
}

#[tokio::test]
async fn h34_disabling_web_researcher_leaves_web_fetch_active_while_browser_operator_uses_it() {
    let ws = workspace().await;
    setup::ensure_db(
        &ws.ctx,
        Specialists::Only(vec!["web_researcher".into(), "browser_operator".into()]),
    )
    .await
    .unwrap();
    setup::disable_catalog_agent(&ws.ctx, "web_researcher")
        .await
        .unwrap();
    let active = active_tools(&ws).await;
    assert!(
        active.contains(&"web_fetch".to_owned()),
        "browser_operator still needs web_fetch"
    );
    assert!(
        !active.contains(&"web_search".to_owned()),
        "only web_researcher needed web_search"
    );
    assert!(
        active.contains(&"delegate_task".to_owned()),
        "minimal tools stay"
    );
    let skills = active_skills(&ws).await;
    assert!(!skills.contains(&"web-research".to_owned()));
    assert!(skills.contains(&"browser-automation".to_owned()));
    assert_eq!(
        setup::list_enabled_catalog_agents(&ws.ctx).await.unwrap(),
        ["browser_operator"]
    );
}

#[tokio::test]
async fn h34_a_custom_agent_keeps_what_it_uses_active_too() {
    let ws = workspace().await;
    setup::ensure_db(&ws.ctx, Specialists::Only(vec!["file_operator".into()]))
        .await
        .unwrap();
    agents::create(
        &ws.ctx,
        NewAgent {
            name: "Archivista".into(),
            tools: vec!["fs_read".into()],
            ..Default::default()
        },
    )
    .await
    .unwrap();
    setup::disable_catalog_agent(&ws.ctx, "file_operator")
        .await
        .unwrap();
    let active = active_tools(&ws).await;
    assert!(
        active.contains(&"fs_read".to_owned()),
        "the custom agent still uses fs_read"
    );
    assert!(!active.contains(&"fs_delete".to_owned()));
}

#[tokio::test]
async fn h34_enabling_activates_the_union_and_never_deactivates() {
    let ws = workspace().await;
    setup::ensure_db(&ws.ctx, Specialists::None).await.unwrap();
    tools::set_active(&ws.ctx, "data_chart", true)
        .await
        .unwrap();
    setup::enable_catalog_agents(
        &ws.ctx,
        vec!["file_operator".into(), "software_engineer".into()],
    )
    .await
    .unwrap();
    let active = active_tools(&ws).await;
    for tool in ["fs_read", "fs_write", "cli_exec", "git_diff", "data_chart"] {
        assert!(active.contains(&tool.to_owned()), "{tool}");
    }
}

#[tokio::test]
async fn h35_plan_seed_for_is_a_dry_run() {
    let ws = workspace().await;
    setup::ensure_db(&ws.ctx, Specialists::None).await.unwrap();
    let plan = setup::plan_seed_for(&ws.ctx, vec!["web_researcher".into()])
        .await
        .unwrap();
    assert_eq!(plan.agents, ["web_researcher"]);
    assert!(plan.tools.contains(&"web_fetch".to_owned()));
    assert!(
        plan.tools.contains(&"delegate_task".to_owned()),
        "the minimal tools are part of a seed"
    );
    assert_eq!(plan.skills, ["source-citation", "web-research"]);
    assert!(
        setup::list_enabled_catalog_agents(&ws.ctx)
            .await
            .unwrap()
            .is_empty(),
        "nothing changed"
    );
    assert!(!active_tools(&ws).await.contains(&"web_fetch".to_owned()));

    setup::apply_seed_plan(&ws.ctx, vec!["web_researcher".into()])
        .await
        .unwrap();
    assert!(active_tools(&ws).await.contains(&"web_fetch".to_owned()));
}

#[tokio::test]
async fn h35_plan_activation_for_lists_only_what_is_missing_and_non_catalog_apart() {
    let ws = workspace().await;
    setup::ensure_db(&ws.ctx, Specialists::Only(vec!["web_researcher".into()]))
        .await
        .unwrap();
    agents::create(
        &ws.ctx,
        NewAgent {
            name: "Mío".into(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let plan = setup::plan_activation_for(
        &ws.ctx,
        vec![
            "web_researcher".into(),
            "software_engineer".into(),
            "mio".into(),
        ],
    )
    .await
    .unwrap();
    assert_eq!(
        plan.agents,
        ["software_engineer"],
        "web_researcher is already active"
    );
    assert!(plan.tools.contains(&"cli_exec".to_owned()));
    assert!(
        !plan.tools.contains(&"web_fetch".to_owned()),
        "already active: not promised"
    );
    assert!(!plan.tools.contains(&"delegate_task".to_owned()));
    assert_eq!(plan.skills, ["code-review", "software-engineering"]);
    assert_eq!(plan.non_catalog, ["mio"]);

    let err = setup::plan_activation_for(&ws.ctx, vec!["ghost".into()])
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    assert!(err.message.contains("ghost"));
}

#[tokio::test]
async fn h35_unknown_specialists_are_named() {
    let ws = workspace().await;
    let err = setup::apply_seed_plan(&ws.ctx, vec!["astronaut".into()])
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    assert!(err.message.contains("astronaut"));
}
