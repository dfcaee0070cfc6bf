//! Skills (SPEC H11–H15): instructions an agent is given — metadata plus a
//! markdown body, no code, so people may write them in the UI.
//!
//! Two origins that do not compete (H12): folders holding `SKILL.md` (the
//! bundled ones, the user's, extra folders and the workspace's) and the
//! store, which the runtime reads and the UI edits. `import_skill_from_disk`
//! bridges them, idempotent by name (H13). Every change re-indexes the skill
//! (H14): a skill that is not indexed is one the model cannot find.
//!
//! Bundled skills are re-seeded from the binary at every start while they
//! are untouched; once a person edits one it becomes theirs (`origin = ui`)
//! and is no longer overwritten.

mod bundled;
pub mod folders;
pub mod skill_md;

use std::collections::BTreeMap;
use std::path::Path;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Row, Transaction, params};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::ctx::{Change, Ctx};
use crate::error::{AppError, ErrorCode, Result};
use crate::search::{self, DocKind, SearchDoc};
use crate::validate::FieldErrors;

pub use bundled::BUNDLED_SKILLS;
pub use folders::{DiskSkill, SkillFolder, SkillFolderKind};
pub use skill_md::SkillFile;

/// Where a skill row came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum SkillOrigin {
    /// Shipped with Colmena, untouched.
    Bundled,
    /// Imported from a folder.
    Disk,
    /// Written or edited in Colmena.
    Ui,
    /// Declared with an agent (SPEC H5).
    Agent,
}

impl SkillOrigin {
    fn as_str(self) -> &'static str {
        match self {
            SkillOrigin::Bundled => "bundled",
            SkillOrigin::Disk => "disk",
            SkillOrigin::Ui => "ui",
            SkillOrigin::Agent => "agent",
        }
    }

    fn parse(text: &str) -> SkillOrigin {
        match text {
            "bundled" => SkillOrigin::Bundled,
            "disk" => SkillOrigin::Disk,
            "agent" => SkillOrigin::Agent,
            _ => SkillOrigin::Ui,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Skill {
    /// The skill's `name`.
    pub id: String,
    pub description: String,
    pub body: String,
    pub license: Option<String>,
    pub compatibility: Option<String>,
    pub metadata: BTreeMap<String, String>,
    pub allowed_tools: Option<String>,
    /// Front-matter fields Colmena does not use, kept for round trips.
    pub extra: serde_json::Value,
    pub origin: SkillOrigin,
    pub source_path: Option<String>,
    pub active: bool,
    /// Agents that are given this skill.
    pub used_by: Vec<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A skill as written by a person or declared with an agent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SkillDraft {
    pub name: String,
    pub description: String,
    #[serde(default)]
    pub body: String,
    #[serde(default)]
    pub license: Option<String>,
    #[serde(default)]
    pub compatibility: Option<String>,
    #[serde(default)]
    pub metadata: BTreeMap<String, String>,
    #[serde(default)]
    pub allowed_tools: Option<String>,
}

impl SkillDraft {
    /// Checks every field with the `SKILL.md` rules, reporting them all.
    fn validate(&self) -> Result<SkillFile> {
        let mut errors = FieldErrors::new();
        errors.check(skill_md::validate_name(&self.name));
        errors.check(skill_md::validate_description(&self.description));
        let compatibility = self
            .compatibility
            .as_deref()
            .map(str::trim)
            .filter(|c| !c.is_empty());
        errors.check(skill_md::validate_compatibility(compatibility));
        errors.finish()?;
        Ok(SkillFile {
            name: self.name.clone(),
            description: self.description.trim().to_owned(),
            license: self
                .license
                .as_deref()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(Into::into),
            compatibility: compatibility.map(Into::into),
            metadata: self.metadata.clone(),
            allowed_tools: self
                .allowed_tools
                .as_deref()
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(Into::into),
            extra: Default::default(),
            body: self.body.trim_end().to_owned(),
        })
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SkillFilter {
    #[serde(default)]
    pub active_only: bool,
}

const SELECT: &str = "SELECT s.id, s.description, s.body, s.license, s.compatibility, s.metadata,
        s.allowed_tools, s.extra, s.origin, s.source_path, s.active, s.created_at, s.updated_at,
        (SELECT group_concat(agent_id, ' ') FROM (SELECT agent_id FROM agent_skills a
          WHERE a.skill_id = s.id ORDER BY agent_id)) AS used_by
    FROM skills s";

fn from_row(row: &Row<'_>) -> rusqlite::Result<Skill> {
    let metadata: String = row.get("metadata")?;
    let extra: String = row.get("extra")?;
    let origin: String = row.get("origin")?;
    let used_by: Option<String> = row.get("used_by")?;
    Ok(Skill {
        id: row.get("id")?,
        description: row.get("description")?,
        body: row.get("body")?,
        license: row.get("license")?,
        compatibility: row.get("compatibility")?,
        metadata: serde_json::from_str(&metadata).unwrap_or_default(),
        allowed_tools: row.get("allowed_tools")?,
        extra: serde_json::from_str(&extra).unwrap_or_else(|_| json!({})),
        origin: SkillOrigin::parse(&origin),
        source_path: row.get("source_path")?,
        active: row.get("active")?,
        used_by: used_by
            .map(|u| u.split(' ').map(str::to_owned).collect())
            .unwrap_or_default(),
        created_at: row.get("created_at")?,
        updated_at: row.get("updated_at")?,
    })
}

pub(crate) fn find(conn: &Connection, id: &str) -> Result<Option<Skill>> {
    Ok(conn
        .query_row(&format!("{SELECT} WHERE s.id = ?1"), [id], from_row)
        .optional()?)
}

fn require(conn: &Connection, id: &str) -> Result<Skill> {
    find(conn, id)?.ok_or_else(|| AppError::not_found("skill", id))
}

pub(crate) fn doc(skill: &Skill) -> SearchDoc {
    search::skill_doc(&skill.id, &skill.description, &skill.body, skill.active)
}

/// Inserts or updates a skill row from a parsed file. `keep_active` keeps
/// an existing row's switch; new rows take `active_if_new`. Returns the row.
pub(crate) fn upsert(
    tx: &Transaction<'_>,
    file: &SkillFile,
    origin: SkillOrigin,
    source_path: Option<&str>,
    active_if_new: bool,
) -> Result<Skill> {
    let now = Utc::now();
    let metadata = serde_json::to_string(&file.metadata)?;
    let extra = serde_json::to_string(&file.extra)?;
    tx.execute(
        "INSERT INTO skills (id, description, body, license, compatibility, metadata, allowed_tools,
                             extra, origin, source_path, active, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12)
         ON CONFLICT (id) DO UPDATE SET
             description = excluded.description, body = excluded.body, license = excluded.license,
             compatibility = excluded.compatibility, metadata = excluded.metadata,
             allowed_tools = excluded.allowed_tools, extra = excluded.extra, origin = excluded.origin,
             source_path = excluded.source_path, updated_at = excluded.updated_at",
        params![
            file.name,
            file.description,
            file.body,
            file.license,
            file.compatibility,
            metadata,
            file.allowed_tools,
            extra,
            origin.as_str(),
            source_path,
            active_if_new,
            now
        ],
    )?;
    require(tx, &file.name)
}

pub async fn list(ctx: &Ctx, filter: SkillFilter) -> Result<Vec<Skill>> {
    ctx.store()
        .read(move |conn| {
            let mut stmt = conn.prepare(&format!(
                "{SELECT} WHERE (?1 = 0 OR s.active = 1) ORDER BY s.id"
            ))?;
            let rows = stmt.query_map([filter.active_only], from_row)?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
}

pub async fn get(ctx: &Ctx, id: &str) -> Result<Skill> {
    let id = id.to_owned();
    ctx.store().read(move |conn| require(conn, &id)).await
}

/// Creates a skill written in Colmena. Its name must be free.
pub async fn create(ctx: &Ctx, draft: SkillDraft) -> Result<Skill> {
    let file = draft.validate()?;
    let (skill, generation) = ctx
        .store()
        .write(move |tx| {
            if find(tx, &file.name)?.is_some() {
                return Err(AppError::conflicting_field(
                    "name",
                    "duplicate",
                    format!("a skill named '{}' already exists", file.name),
                ));
            }
            let skill = upsert(tx, &file, SkillOrigin::Ui, None, true)?;
            Ok((skill, search::bump_generation(tx)?))
        })
        .await?;
    ctx.index(vec![doc(&skill)], vec![], generation).await;
    ctx.changed(Change::Skills);
    Ok(skill)
}

/// Replaces a skill's description, body and optional fields (not its name).
/// The skill becomes the user's: re-seeding no longer touches it.
pub async fn update(ctx: &Ctx, id: &str, draft: SkillDraft) -> Result<Skill> {
    let draft = SkillDraft {
        name: id.to_owned(),
        ..draft
    };
    let mut file = draft.validate()?;
    let (skill, generation) = ctx
        .store()
        .write(move |tx| {
            let current = require(tx, &file.name)?;
            if let serde_json::Value::Object(extra) = current.extra {
                file.extra = extra;
            }
            let skill = upsert(
                tx,
                &file,
                SkillOrigin::Ui,
                current.source_path.as_deref(),
                current.active,
            )?;
            Ok((skill, search::bump_generation(tx)?))
        })
        .await?;
    ctx.index(vec![doc(&skill)], vec![], generation).await;
    ctx.changed(Change::Skills);
    Ok(skill)
}

/// Switches a skill on or off; `None` flips it.
pub async fn switch(ctx: &Ctx, id: &str, target: Option<bool>) -> Result<Skill> {
    let id = id.to_owned();
    let (skill, generation) = ctx
        .store()
        .write(move |tx| {
            let current = require(tx, &id)?;
            tx.execute(
                "UPDATE skills SET active = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, target.unwrap_or(!current.active), Utc::now()],
            )?;
            Ok((require(tx, &id)?, search::bump_generation(tx)?))
        })
        .await?;
    ctx.index(vec![doc(&skill)], vec![], generation).await;
    ctx.changed(Change::Skills);
    Ok(skill)
}

/// Deletes a skill no agent is given (the error names the agents).
pub async fn delete(ctx: &Ctx, id: &str) -> Result<()> {
    let id = id.to_owned();
    let (id, generation) = ctx
        .store()
        .write(move |tx| {
            let skill = require(tx, &id)?;
            if !skill.used_by.is_empty() {
                return Err(AppError::new(
                    ErrorCode::Conflict,
                    format!(
                        "skill '{id}' cannot be deleted: it is given to agents: {}",
                        skill.used_by.join(", ")
                    ),
                )
                .with_details(json!({ "agents": skill.used_by })));
            }
            tx.execute("DELETE FROM skills WHERE id = ?1", [&id])?;
            Ok((id, search::bump_generation(tx)?))
        })
        .await?;
    ctx.index(vec![], vec![(DocKind::Skill, id)], generation)
        .await;
    ctx.changed(Change::Skills);
    Ok(())
}

/// Materialises a `SKILL.md` folder as an editable row (SPEC H13):
/// re-importing the same folder updates the row instead of duplicating it.
pub async fn import_from_disk(ctx: &Ctx, folder: &Path) -> Result<Skill> {
    let (file, path) = folders::read_folder(folder)?;
    let (skill, generation) = ctx
        .store()
        .write(move |tx| {
            let active = find(tx, &file.name)?.is_none_or(|s| s.active);
            let skill = upsert(tx, &file, SkillOrigin::Disk, Some(&path), active)?;
            Ok((skill, search::bump_generation(tx)?))
        })
        .await?;
    ctx.index(vec![doc(&skill)], vec![], generation).await;
    ctx.changed(Change::Skills);
    Ok(skill)
}

/// Writes a new skill folder `dir/NAME/SKILL.md` to start from (SPEC H15).
pub fn scaffold(dir: &Path, name: &str) -> Result<std::path::PathBuf> {
    skill_md::validate_name(name)?;
    let folder = dir.join(name);
    if folder.join("SKILL.md").exists() {
        return Err(AppError::conflicting_field(
            "name",
            "duplicate",
            format!("{} already exists", folder.join("SKILL.md").display()),
        ));
    }
    std::fs::create_dir_all(&folder)?;
    let title: String = name
        .split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ");
    let file = SkillFile {
        name: name.to_owned(),
        description: format!("What {title} does, and when an agent should use it."),
        body: format!(
            "# {title}\n\n## When to use\n\nThe situations where this skill applies.\n\n## Steps\n\n1. The first thing to do.\n2. How to check it worked.\n"
        ),
        ..Default::default()
    };
    std::fs::write(folder.join("SKILL.md"), skill_md::render(&file)?)?;
    Ok(folder)
}

/// Re-seeds the bundled skills that no one has edited (SPEC H17); `active`
/// stays; new rows start inactive (the setup activates what is chosen).
pub(crate) fn reseed(tx: &Transaction<'_>) -> Result<Vec<SearchDoc>> {
    let mut changed = Vec::new();
    for (folder, text) in BUNDLED_SKILLS {
        let file = skill_md::parse(text).map_err(|e| {
            AppError::internal(format!("bundled skill {folder} is invalid: {}", e.message))
        })?;
        let current = find(tx, &file.name)?;
        let unchanged = current.as_ref().is_some_and(|s| {
            s.origin != SkillOrigin::Bundled
                || (s.description == file.description
                    && s.body == file.body
                    && s.license == file.license
                    && s.allowed_tools == file.allowed_tools
                    && s.metadata == file.metadata)
        });
        if unchanged {
            continue;
        }
        let skill = upsert(tx, &file, SkillOrigin::Bundled, None, false)?;
        changed.push(doc(&skill));
    }
    Ok(changed)
}

/// The skills among `ids` that do not exist.
pub(crate) fn missing(conn: &Connection, ids: &[String]) -> Result<Vec<String>> {
    let mut missing = Vec::new();
    for id in ids {
        if find(conn, id)?.is_none() {
            missing.push(id.clone());
        }
    }
    Ok(missing)
}

/// Upserts skills declared with an agent (SPEC H5), inside its transaction.
pub(crate) fn materialize(tx: &Transaction<'_>, drafts: &[SkillDraft]) -> Result<Vec<Skill>> {
    let mut out = Vec::new();
    for draft in drafts {
        let file = draft.validate()?;
        let active = find(tx, &file.name)?.is_none_or(|s| s.active);
        out.push(upsert(tx, &file, SkillOrigin::Agent, None, active)?);
    }
    Ok(out)
}
