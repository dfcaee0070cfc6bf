//! Where `SKILL.md` folders are looked for (SPEC H12): the workspace's own
//! `skills/` folder in the data dir, the user's `~/.config/colmena/skills`,
//! and extra folders the user adds. (Bundled skills live in the binary.)
//! Listing a folder never fails for one bad skill: each entry carries its
//! own parse error so the UI can show it next to the skill.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::skill_md::{self, SkillFile};
use crate::ctx::Ctx;
use crate::error::{AppError, Result};
use crate::store::meta;

const META_EXTRA_FOLDERS: &str = "skill_folders_extra";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum SkillFolderKind {
    Workspace,
    User,
    Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SkillFolder {
    pub path: String,
    pub kind: SkillFolderKind,
    pub exists: bool,
}

/// A skill folder found on disk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct DiskSkill {
    /// The folder's name (which must equal the skill's name).
    pub folder_name: String,
    pub path: String,
    pub kind: SkillFolderKind,
    pub description: Option<String>,
    /// Why it cannot be imported, if it cannot.
    pub error: Option<String>,
    /// A skill with this name is already in the store.
    pub imported: bool,
}

/// The workspace's skills folder: `<data dir>/skills`.
pub fn workspace_folder(data_dir: &Path) -> PathBuf {
    data_dir.join("skills")
}

/// The user's skills folder, shared by all their workspaces.
pub fn user_folder() -> Option<PathBuf> {
    dirs::config_dir().map(|d| d.join("colmena").join("skills"))
}

fn extra_folders(conn: &rusqlite::Connection) -> Result<Vec<String>> {
    Ok(meta::get(conn, META_EXTRA_FOLDERS)?
        .and_then(|json| serde_json::from_str(&json).ok())
        .unwrap_or_default())
}

/// Every folder skills are looked for in, in order.
pub async fn list_folders(ctx: &Ctx) -> Result<Vec<SkillFolder>> {
    let extra = ctx.store().read(extra_folders).await?;
    let mut folders = vec![(workspace_folder(ctx.data_dir()), SkillFolderKind::Workspace)];
    if let Some(user) = user_folder() {
        folders.push((user, SkillFolderKind::User));
    }
    folders.extend(
        extra
            .into_iter()
            .map(|p| (PathBuf::from(p), SkillFolderKind::Extra)),
    );
    Ok(folders
        .into_iter()
        .map(|(path, kind)| SkillFolder {
            exists: path.is_dir(),
            path: path.display().to_string(),
            kind,
        })
        .collect())
}

/// Adds a folder to look for skills in. It must exist.
pub async fn add_folder(ctx: &Ctx, path: &Path) -> Result<Vec<SkillFolder>> {
    let path = path.canonicalize().map_err(|e| {
        AppError::invalid_field(
            "path",
            "not_a_folder",
            format!("{} cannot be used: {e}", path.display()),
        )
    })?;
    if !path.is_dir() {
        return Err(AppError::invalid_field(
            "path",
            "not_a_folder",
            format!("{} is not a folder", path.display()),
        ));
    }
    let text = path.display().to_string();
    ctx.store()
        .write(move |tx| {
            let mut extra = extra_folders(tx)?;
            if !extra.contains(&text) {
                extra.push(text);
            }
            meta::set(tx, META_EXTRA_FOLDERS, &serde_json::to_string(&extra)?)
        })
        .await?;
    list_folders(ctx).await
}

pub async fn remove_folder(ctx: &Ctx, path: &str) -> Result<Vec<SkillFolder>> {
    let path = path.to_owned();
    ctx.store()
        .write(move |tx| {
            let mut extra = extra_folders(tx)?;
            let before = extra.len();
            extra.retain(|p| p != &path);
            if extra.len() == before {
                return Err(AppError::not_found("skill folder", &path));
            }
            meta::set(tx, META_EXTRA_FOLDERS, &serde_json::to_string(&extra)?)
        })
        .await?;
    list_folders(ctx).await
}

/// Reads `folder/SKILL.md` and checks the name equals the folder's.
pub fn read_folder(folder: &Path) -> Result<(SkillFile, String)> {
    let file = folder.join("SKILL.md");
    let text = std::fs::read_to_string(&file).map_err(|e| {
        AppError::invalid_field(
            "path",
            "no_skill_md",
            format!("cannot read {}: {e}", file.display()),
        )
    })?;
    let skill = skill_md::parse(&text)?;
    let folder_name = folder
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    if skill.name != folder_name {
        return Err(AppError::invalid_field(
            "name",
            "name_differs_from_folder",
            format!(
                "the skill is named '{}' but its folder is '{folder_name}'; they must be equal",
                skill.name
            ),
        ));
    }
    let path = folder.canonicalize().unwrap_or_else(|_| folder.to_owned());
    Ok((skill, path.display().to_string()))
}

/// Imports the skill in `path`, which must be one of the folders
/// [`list_disk_skills`] lists: a door that cannot vouch for a path (the
/// window, whose page could be made to name any folder) imports only what
/// the workspace itself found; other folders come from a native picker.
pub async fn import_listed(ctx: &Ctx, path: &Path) -> Result<super::Skill> {
    let listed = list_disk_skills(ctx).await?;
    if !listed.iter().any(|d| Path::new(&d.path) == path) {
        return Err(AppError::invalid_field(
            "path",
            "not_listed",
            "choose the folder in the import dialog",
        ));
    }
    super::import_from_disk(ctx, path).await
}

/// Every skill folder in every skills folder, with what is wrong with it.
pub async fn list_disk_skills(ctx: &Ctx) -> Result<Vec<DiskSkill>> {
    let folders = list_folders(ctx).await?;
    let found = tokio::task::spawn_blocking(move || {
        let mut found = Vec::new();
        for folder in folders.iter().filter(|f| f.exists) {
            let Ok(entries) = std::fs::read_dir(&folder.path) else {
                continue;
            };
            let mut dirs: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.join("SKILL.md").is_file())
                .collect();
            dirs.sort();
            for dir in dirs {
                let (description, error) = match read_folder(&dir) {
                    Ok((skill, _)) => (Some(skill.description), None),
                    Err(e) => (None, Some(e.message)),
                };
                found.push(DiskSkill {
                    folder_name: dir
                        .file_name()
                        .and_then(|n| n.to_str())
                        .unwrap_or_default()
                        .to_owned(),
                    path: dir.display().to_string(),
                    kind: folder.kind,
                    description,
                    error,
                    imported: false,
                });
            }
        }
        found
    })
    .await
    .map_err(|e| AppError::internal(format!("listing skill folders failed: {e}")))?;
    let names: Vec<String> = found.iter().map(|d| d.folder_name.clone()).collect();
    let known = ctx
        .store()
        .read(move |conn| {
            let mut known = Vec::new();
            for name in names {
                known.push(super::find(conn, &name)?.is_some());
            }
            Ok(known)
        })
        .await?;
    Ok(found
        .into_iter()
        .zip(known)
        .map(|(d, imported)| DiskSkill { imported, ..d })
        .collect())
}
