//! Presets (SPEC C3, C7): the built-in ones are code — stable slugs with
//! the instructions a model gets — and a user's own are rows, unique by
//! name per user.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::{Caller, activity};
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, Result};
use crate::validate;

/// The preset id of a variant made from a user's saved preset.
pub const USER_SAVED: &str = "user-saved";

/// A built-in preset: what the model is asked to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct BuiltinPreset {
    pub id: &'static str,
    pub name: &'static str,
    pub type_tag: &'static str,
    /// The instructions given to the model (before the variant's prompt).
    pub instructions: &'static str,
}

pub const BUILTIN: [BuiltinPreset; 6] = [
    BuiltinPreset {
        id: "x-thread",
        name: "X thread",
        type_tag: "thread",
        instructions: "Write a thread for X: 4 to 8 posts, each under 280 characters, numbered 1/, 2/, …; the first post hooks the reader, the last one closes with a takeaway.",
    },
    BuiltinPreset {
        id: "blog-with-images",
        name: "Blog post with images",
        type_tag: "blog",
        instructions: "Write a blog post in markdown: a title, an introduction, sections with headings, and a conclusion. Where an image would help, put a line `![alt text](image: what it should show)`.",
    },
    BuiltinPreset {
        id: "linkedin-long",
        name: "LinkedIn long post",
        type_tag: "linkedin",
        instructions: "Write a long LinkedIn post (1,200 to 2,000 characters): a first line that earns the click on \"see more\", short paragraphs, a concrete lesson, and a question to close.",
    },
    BuiltinPreset {
        id: "newsletter-section",
        name: "Newsletter section",
        type_tag: "newsletter",
        instructions: "Write one newsletter section in markdown: a heading, two or three short paragraphs that tell the reader why this matters, and links to the sources.",
    },
    BuiltinPreset {
        id: "tldr-brief",
        name: "TL;DR brief",
        type_tag: "brief",
        instructions: "Write a TL;DR brief: one sentence that says what happened, then three to five bullets with the facts that matter and where they come from.",
    },
    BuiltinPreset {
        id: "custom",
        name: "Custom",
        type_tag: "custom",
        instructions: "Follow the prompt below.",
    },
];

pub fn builtin(id: &str) -> Option<&'static BuiltinPreset> {
    BUILTIN.iter().find(|p| p.id == id)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct UserPreset {
    pub id: String,
    pub name: String,
    pub description: String,
    pub prompt: String,
    pub style: String,
    pub type_tag: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct PresetDraft {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub prompt: String,
    #[serde(default)]
    pub style: String,
    #[serde(default)]
    pub type_tag: String,
}

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<UserPreset> {
    Ok(UserPreset {
        id: r.get(0)?,
        name: r.get(1)?,
        description: r.get(2)?,
        prompt: r.get(3)?,
        style: r.get(4)?,
        type_tag: r.get(5)?,
        created_at: r.get(6)?,
        updated_at: r.get(7)?,
    })
}

const COLUMNS: &str = "id, name, description, prompt, style, type_tag, created_at, updated_at";

pub(crate) fn find(conn: &Connection, user: &str, id: &str) -> Result<Option<UserPreset>> {
    Ok(conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM user_presets WHERE id = ?1 AND user_id = ?2"),
            params![id, user],
            from_row,
        )
        .optional()?)
}

/// The user's saved presets, by name.
pub async fn list(ctx: &Ctx, actor: &Caller) -> Result<Vec<UserPreset>> {
    let user = actor.person()?.to_owned();
    ctx.store()
        .read(move |conn| {
            let mut stmt = conn.prepare(&format!(
                "SELECT {COLUMNS} FROM user_presets WHERE user_id = ?1 ORDER BY name COLLATE NOCASE"
            ))?;
            let rows = stmt.query_map([user], from_row)?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
}

/// `save_preset({ name, description, prompt, style, typeTag })`: a saved
/// preset; saving under a name the user already has replaces it.
pub async fn save_preset(ctx: &Ctx, actor: &Caller, draft: PresetDraft) -> Result<UserPreset> {
    let name = validate::name("name", &draft.name, 80)?;
    if draft.prompt.trim().is_empty() {
        return Err(AppError::invalid_field(
            "prompt",
            "required",
            "a preset needs a prompt",
        ));
    }
    let actor2 = actor.clone();
    let saved = ctx
        .store()
        .write(move |tx| {
            let now = Utc::now();
            let existing: Option<String> = tx
                .query_row(
                    "SELECT id FROM user_presets WHERE user_id = ?1 AND name_key = ?2",
                    params![actor2.person()?, name.to_lowercase()],
                    |r| r.get(0),
                )
                .optional()?;
            let id = match existing {
                Some(id) => {
                    tx.execute(
                        "UPDATE user_presets SET name = ?2, description = ?3, prompt = ?4, style = ?5, type_tag = ?6,
                         updated_at = ?7 WHERE id = ?1",
                        params![id, name, draft.description, draft.prompt, draft.style, draft.type_tag, now],
                    )?;
                    id
                }
                None => {
                    let id = uuid::Uuid::now_v7().to_string();
                    tx.execute(
                        "INSERT INTO user_presets (id, user_id, name, name_key, description, prompt, style, type_tag,
                         created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)",
                        params![id, actor2.person()?, name, name.to_lowercase(), draft.description, draft.prompt, draft.style, draft.type_tag, now],
                    )?;
                    id
                }
            };
            activity::record(tx, &actor2, None, "session.save_preset", &name)?;
            find(tx, actor2.person()?, &id)?.ok_or_else(|| AppError::internal("the saved preset vanished"))
        })
        .await?;
    ctx.changed(Change::Canvases);
    Ok(saved)
}

/// Removes a saved preset; variants made from it keep their prompt.
pub async fn delete_preset(ctx: &Ctx, actor: &Caller, id: &str) -> Result<()> {
    let (user, id) = (actor.person()?.to_owned(), id.to_owned());
    ctx.store()
        .write(move |tx| {
            if tx.execute(
                "DELETE FROM user_presets WHERE id = ?1 AND user_id = ?2",
                params![id, user],
            )? == 0
            {
                return Err(AppError::not_found("preset", &id));
            }
            Ok(())
        })
        .await?;
    ctx.changed(Change::Canvases);
    Ok(())
}
