//! Agents, tools, skills, the code of ethics and the setup of catalog
//! specialists: one line each over `colmena-core`.

use std::path::PathBuf;

use colmena_core::agents::{self, Agent, AgentUpdate, NewAgent};
use colmena_core::ethics::{self, EthicsDraft, EthicsRule};
use colmena_core::ids::AgentId;
use colmena_core::memory::{self, CatalogSearch};
use colmena_core::search::SearchHit;
use colmena_core::setup::{self, ActivationPlan, SeedPlan, SetupStatus};
use colmena_core::skills::{self, DiskSkill, Skill, SkillDraft, SkillFilter, SkillFolder, folders};
use colmena_core::tools::{self, PatternExpansion, Tool, ToolFilter, ToolMetadata};
use colmena_core::{AppError, Ctx, prompt};
use tauri::State;

#[tauri::command]
#[specta::specta]
pub async fn list_agents(ctx: State<'_, Ctx>) -> Result<Vec<Agent>, AppError> {
    agents::list(&ctx).await
}

#[tauri::command]
#[specta::specta]
pub async fn create_agent(ctx: State<'_, Ctx>, input: NewAgent) -> Result<Agent, AppError> {
    agents::create(&ctx, input).await
}

#[tauri::command]
#[specta::specta]
pub async fn update_agent(
    ctx: State<'_, Ctx>,
    id: AgentId,
    input: AgentUpdate,
) -> Result<Agent, AppError> {
    agents::update(&ctx, &id, input).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_agent_enabled(
    ctx: State<'_, Ctx>,
    id: AgentId,
    enabled: bool,
) -> Result<Agent, AppError> {
    agents::set_enabled(&ctx, &id, enabled).await
}

#[tauri::command]
#[specta::specta]
pub async fn delete_agent(ctx: State<'_, Ctx>, id: AgentId) -> Result<(), AppError> {
    agents::delete(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn agent_system_prompt(ctx: State<'_, Ctx>, id: AgentId) -> Result<String, AppError> {
    prompt::compose_system_prompt(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn list_tools(ctx: State<'_, Ctx>, filter: ToolFilter) -> Result<Vec<Tool>, AppError> {
    tools::list(&ctx, filter).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_tool_active(
    ctx: State<'_, Ctx>,
    id: String,
    active: bool,
) -> Result<Tool, AppError> {
    tools::set_active(&ctx, &id, active).await
}

#[tauri::command]
#[specta::specta]
pub async fn update_tool_metadata(
    ctx: State<'_, Ctx>,
    id: String,
    input: ToolMetadata,
) -> Result<Tool, AppError> {
    tools::update_metadata(&ctx, &id, input).await
}

#[tauri::command]
#[specta::specta]
pub async fn expand_tool_patterns(
    ctx: State<'_, Ctx>,
    patterns: Vec<String>,
) -> Result<PatternExpansion, AppError> {
    tools::expand(&ctx, patterns).await
}

#[tauri::command]
#[specta::specta]
pub async fn list_skills(ctx: State<'_, Ctx>, filter: SkillFilter) -> Result<Vec<Skill>, AppError> {
    skills::list(&ctx, filter).await
}

#[tauri::command]
#[specta::specta]
pub async fn create_skill(ctx: State<'_, Ctx>, input: SkillDraft) -> Result<Skill, AppError> {
    skills::create(&ctx, input).await
}

#[tauri::command]
#[specta::specta]
pub async fn update_skill(
    ctx: State<'_, Ctx>,
    id: String,
    input: SkillDraft,
) -> Result<Skill, AppError> {
    skills::update(&ctx, &id, input).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_skill_active(
    ctx: State<'_, Ctx>,
    id: String,
    active: bool,
) -> Result<Skill, AppError> {
    skills::switch(&ctx, &id, Some(active)).await
}

#[tauri::command]
#[specta::specta]
pub async fn delete_skill(ctx: State<'_, Ctx>, id: String) -> Result<(), AppError> {
    skills::delete(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn import_skill(ctx: State<'_, Ctx>, path: PathBuf) -> Result<Skill, AppError> {
    // Any other folder comes from the native picker (`import_skill_folder`).
    folders::import_listed(&ctx, &path).await
}

#[tauri::command]
#[specta::specta]
pub async fn list_disk_skills(ctx: State<'_, Ctx>) -> Result<Vec<DiskSkill>, AppError> {
    folders::list_disk_skills(&ctx).await
}

#[tauri::command]
#[specta::specta]
pub async fn list_skill_folders(ctx: State<'_, Ctx>) -> Result<Vec<SkillFolder>, AppError> {
    folders::list_folders(&ctx).await
}

#[tauri::command]
#[specta::specta]
pub async fn search_catalog(
    ctx: State<'_, Ctx>,
    input: CatalogSearch,
) -> Result<Vec<SearchHit>, AppError> {
    memory::search_catalog(&ctx, input).await
}

#[tauri::command]
#[specta::specta]
pub async fn setup_status(ctx: State<'_, Ctx>) -> Result<SetupStatus, AppError> {
    setup::status(&ctx).await
}

#[tauri::command]
#[specta::specta]
pub async fn plan_seed(ctx: State<'_, Ctx>, ids: Vec<String>) -> Result<SeedPlan, AppError> {
    setup::plan_seed_for(&ctx, ids).await
}

#[tauri::command]
#[specta::specta]
pub async fn apply_seed(ctx: State<'_, Ctx>, ids: Vec<String>) -> Result<SetupStatus, AppError> {
    setup::apply_seed_plan(&ctx, ids).await
}

#[tauri::command]
#[specta::specta]
pub async fn plan_activation(
    ctx: State<'_, Ctx>,
    ids: Vec<String>,
) -> Result<ActivationPlan, AppError> {
    setup::plan_activation_for(&ctx, ids).await
}

#[tauri::command]
#[specta::specta]
pub async fn enable_catalog_agent(
    ctx: State<'_, Ctx>,
    id: String,
) -> Result<SetupStatus, AppError> {
    setup::enable_catalog_agent(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn disable_catalog_agent(
    ctx: State<'_, Ctx>,
    id: String,
) -> Result<SetupStatus, AppError> {
    setup::disable_catalog_agent(&ctx, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn list_ethics(ctx: State<'_, Ctx>) -> Result<Vec<EthicsRule>, AppError> {
    ethics::list(&ctx).await
}

#[tauri::command]
#[specta::specta]
pub async fn create_ethics(
    ctx: State<'_, Ctx>,
    input: EthicsDraft,
) -> Result<EthicsRule, AppError> {
    ethics::create(&ctx, input).await
}

#[tauri::command]
#[specta::specta]
pub async fn update_ethics(
    ctx: State<'_, Ctx>,
    id: String,
    input: EthicsDraft,
) -> Result<EthicsRule, AppError> {
    ethics::update(&ctx, &id, input).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_ethics_active(
    ctx: State<'_, Ctx>,
    id: String,
    active: bool,
) -> Result<EthicsRule, AppError> {
    ethics::switch(&ctx, &id, Some(active)).await
}

#[tauri::command]
#[specta::specta]
pub async fn delete_ethics(ctx: State<'_, Ctx>, id: String) -> Result<(), AppError> {
    ethics::delete(&ctx, &id).await
}
