//! Long-term memory (SPEC H26), isolated per user: a memory's id is
//! `{user_id}:{title}` and every read filters by owner, so two users can hold
//! a memory with the same title and neither sees the other's. The user is
//! optional: without one, the workspace owner is meant (the desktop user),
//! which keeps model tools working without naming anyone.
//!
//! A role keeps memories of its own (issue 15): the owner `@<author id>`,
//! which only a woken role's caller resolves to, so one role never reads
//! another's, nor its owner's, and the owner reads them as that role.
//!
//! Search is BM25 over the index, restricted to the owner's memories.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::caller::Caller;
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, Result};
use crate::search::{self, DocKind, SearchHit, SearchQuery};
use crate::users::{check_owner, check_user};
use crate::validate;

const MAX_TITLE: usize = 200;
const MAX_CONTENT: usize = 200_000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Memory {
    /// `{userId}:{title}`.
    pub id: String,
    pub user_id: String,
    pub title: String,
    pub content: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// One search result: the memory and the passage that matched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct MemoryHit {
    pub memory: Memory,
    pub snippet: Vec<search::SnippetPart>,
    pub score: f32,
}

/// Whose memories: the caller's (H26: "resolved from the calling
/// context") — a woken role's own scope for its runs — checked.
/// Whose memories `caller` reaches: a role's scope only when the caller was
/// built as that role (a woken role, or [`role_caller`]); a user named any
/// other way — `--user @x` — is a person's id, and `@…` is refused.
fn resolve_user(caller: &Caller) -> Result<String> {
    let owner = caller.memory_owner()?;
    if owner == caller.person()? {
        check_user(&owner)
    } else {
        check_owner(&owner)
    }
}

/// The caller a person uses to read and tidy a role's memories (the Memory
/// view filtered by role, a role's page, `colmena memory --role`): only the
/// local doors may, and only for a role.
pub async fn role_caller(ctx: &Ctx, caller: &Caller, role: &str) -> Result<Caller> {
    if !caller.is_local_person() {
        return Err(AppError::new(
            crate::error::ErrorCode::Forbidden,
            "only the workspace's own window and command line read a role's memories",
        ));
    }
    let found = crate::inbox::authors::get(ctx, role).await?;
    if found.kind == crate::inbox::AuthorKind::User {
        return Err(AppError::invalid_field(
            "role",
            "not_a_role",
            format!(
                "'{}' is a person, not a role: their memories are their own user's",
                found.id
            ),
        ));
    }
    // The role, for the person: whose memories follow from the caller.
    Ok(Caller::role_run(&found.id, caller.person()?))
}

pub fn memory_id(user: &str, title: &str) -> String {
    format!("{user}:{title}")
}

const SELECT: &str = "SELECT id, user_id, title, content, created_at, updated_at FROM memories";

fn from_row(row: &Row<'_>) -> rusqlite::Result<Memory> {
    Ok(Memory {
        id: row.get("id")?,
        user_id: row.get("user_id")?,
        title: row.get("title")?,
        content: row.get("content")?,
        created_at: row.get("created_at")?,
        updated_at: row.get("updated_at")?,
    })
}

/// A memory of `user` by title; another user's memory is never returned.
fn find(conn: &Connection, user: &str, title: &str) -> Result<Option<Memory>> {
    Ok(conn
        .query_row(
            &format!("{SELECT} WHERE user_id = ?1 AND title = ?2"),
            params![user, title],
            from_row,
        )
        .optional()?)
}

fn not_found(user: &str, title: &str) -> AppError {
    AppError::not_found("memory", title).with_details(json!({ "userId": user, "title": title }))
}

/// Saves a memory, replacing the user's memory of the same title.
pub async fn write(ctx: &Ctx, caller: &Caller, title: &str, content: &str) -> Result<Memory> {
    let user = resolve_user(caller)?;
    let title = validate::name("title", title, MAX_TITLE)?;
    if content.chars().count() > MAX_CONTENT {
        return Err(AppError::invalid_field(
            "content",
            "too_long",
            format!("a memory must be at most {MAX_CONTENT} characters"),
        ));
    }
    let content = content.to_owned();
    let (memory, generation) = ctx
        .store()
        .write(move |tx| {
            let id = memory_id(&user, &title);
            let now = Utc::now();
            tx.execute(
                "INSERT INTO memories (id, user_id, title, content, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5)
                 ON CONFLICT (id) DO UPDATE SET content = excluded.content, updated_at = excluded.updated_at",
                params![id, user, title, content, now],
            )?;
            let memory = find(tx, &user, &title)?.ok_or_else(|| not_found(&user, &title))?;
            Ok((memory, search::bump_generation(tx)?))
        })
        .await?;
    ctx.index(vec![doc(&memory)], vec![], generation).await;
    ctx.changed(Change::Memories);
    Ok(memory)
}

fn doc(memory: &Memory) -> search::SearchDoc {
    search::memory_doc(&memory.id, &memory.user_id, &memory.title, &memory.content)
}

pub async fn read(ctx: &Ctx, caller: &Caller, title: &str) -> Result<Memory> {
    let user = resolve_user(caller)?;
    let title = title.trim().to_owned();
    ctx.store()
        .read(move |conn| find(conn, &user, &title)?.ok_or_else(|| not_found(&user, &title)))
        .await
}

/// The user's memories, most recently changed first.
pub async fn list(
    ctx: &Ctx,
    caller: &Caller,
    limit: Option<u32>,
    offset: Option<u32>,
) -> Result<Vec<Memory>> {
    let user = resolve_user(caller)?;
    let limit = limit.unwrap_or(100).clamp(1, 1000);
    let offset = offset.unwrap_or(0);
    ctx.store()
        .read(move |conn| {
            let mut stmt = conn.prepare(&format!(
                "{SELECT} WHERE user_id = ?1 ORDER BY updated_at DESC, title LIMIT ?2 OFFSET ?3"
            ))?;
            let rows = stmt.query_map(params![user, limit, offset], from_row)?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
}

/// BM25 search over the user's memories, with snippets. The index query and
/// the store lookup of the hits run together on one blocking thread.
pub async fn search(
    ctx: &Ctx,
    caller: &Caller,
    query: &str,
    limit: Option<u32>,
) -> Result<Vec<MemoryHit>> {
    let user = resolve_user(caller)?;
    let query = SearchQuery {
        text: query.to_owned(),
        kinds: vec![DocKind::Memory],
        owner: Some(user.clone()),
        active_only: false,
        limit: limit.unwrap_or(20) as usize,
    };
    let index = ctx.search_index();
    ctx.store()
        .read(move |conn| {
            let hits = index.search(&query)?;
            if hits.is_empty() {
                return Ok(Vec::new());
            }
            let placeholders = vec!["?"; hits.len()].join(", ");
            // By primary key; the owner is checked on each row (an index on
            // the owner would make SQLite scan all of the user's memories).
            let mut stmt =
                conn.prepare_cached(&format!("{SELECT} WHERE id IN ({placeholders})"))?;
            let ids = hits.iter().map(|h| &h.id);
            let mut found: std::collections::HashMap<String, Memory> = stmt
                .query_map(rusqlite::params_from_iter(ids), from_row)?
                .filter(|row| row.as_ref().map_or(true, |m| m.user_id == user))
                .map(|row| row.map(|m| (m.id.clone(), m)))
                .collect::<rusqlite::Result<_>>()?;
            // Best first, as ranked; the store has the last word, so a stale
            // index entry is skipped.
            Ok(hits
                .into_iter()
                .filter_map(|hit: SearchHit| {
                    found.remove(&hit.id).map(|memory| MemoryHit {
                        memory,
                        snippet: hit.snippet,
                        score: hit.score,
                    })
                })
                .collect())
        })
        .await
}

pub async fn delete(ctx: &Ctx, caller: &Caller, title: &str) -> Result<()> {
    let user = resolve_user(caller)?;
    let title = title.trim().to_owned();
    let (id, generation) = ctx
        .store()
        .write(move |tx| {
            let memory = find(tx, &user, &title)?.ok_or_else(|| not_found(&user, &title))?;
            tx.execute("DELETE FROM memories WHERE id = ?1", [&memory.id])?;
            Ok((memory.id, search::bump_generation(tx)?))
        })
        .await?;
    ctx.index(vec![], vec![(DocKind::Memory, id)], generation)
        .await;
    ctx.changed(Change::Memories);
    Ok(())
}

/// A search over the catalog, as the model and the UI ask it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct CatalogSearch {
    pub query: String,
    /// Kinds to include; empty means skills, tools and memories.
    #[serde(default)]
    pub kinds: Vec<DocKind>,
    /// Whose memories to include (default: the workspace owner).
    #[serde(default)]
    pub user_id: Option<String>,
    /// Only active skills and tools: what a model may use.
    #[serde(default)]
    pub active_only: bool,
    #[serde(default)]
    pub limit: Option<u32>,
}

/// One search for skills, tools and the user's memories (BM25), serving
/// the `search_catalog` tool and the UI alike.
pub async fn search_catalog(ctx: &Ctx, input: CatalogSearch) -> Result<Vec<SearchHit>> {
    // A woken role's search_catalog finds its own memories (`@<role>`).
    let owner = check_owner(input.user_id.as_deref().unwrap_or(ctx.owner()))?;
    ctx.search(SearchQuery {
        text: input.query,
        kinds: input.kinds,
        owner: Some(owner),
        active_only: input.active_only,
        limit: input.limit.unwrap_or(20) as usize,
    })
    .await
}
