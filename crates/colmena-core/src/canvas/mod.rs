//! The canvas (SPEC C1–C10, seed 001): a scratch pad for drafting. The
//! person selects upstream items (immutable snapshots), attaches generation
//! variants — each with its preset, prompt, style and optionally its own
//! model and key — and iterates in rounds until something is worth
//! exporting.
//!
//! The 18 operations of C9 are functions here with the seed's names:
//! lifecycle [`create`], [`list`], [`get`], [`update`], [`delete`];
//! selection [`items::add_item`], [`items::remove_item`],
//! [`items::clear_selection`]; variants [`variants::add_variant`],
//! [`variants::update_variant`], [`variants::remove_variant`],
//! [`variants::select_round`], [`generate::generate_variant`],
//! [`generate::generate_all`], [`variants::variant_rounds`];
//! [`exports::export_variant`], [`presets::save_preset`];
//! [`sources::list_sources`]. The IPC, CLI and MCP doors wrap them.
//!
//! Every canvas is one user's (C1): each function takes the acting user
//! (the desktop and the CLI act as the owner) and a canvas of someone else
//! is `not_found` — it is never visible, not even as "forbidden". Each
//! operation appends to the activity log (C8) with the client that asked.

pub mod activity;
pub mod exports;
pub mod files;
pub mod generate;
pub mod items;
pub mod leases;
pub mod presets;
pub mod sources;
pub mod variants;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

pub use crate::caller::Caller;
pub use items::CanvasItem;
pub use variants::{Round, Variant, VariantStatus};

use crate::ctx::{Change, Ctx};
use crate::error::{AppError, Result};
use crate::validate;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Canvas {
    pub id: String,
    pub name: Option<String>,
    pub item_count: u32,
    pub variant_count: u32,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub last_active_at: DateTime<Utc>,
}

/// A canvas with everything on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct CanvasDetail {
    #[serde(flatten)]
    pub canvas: Canvas,
    pub items: Vec<CanvasItem>,
    pub variants: Vec<Variant>,
}

const COLUMNS: &str = "c.id, c.name, c.created_at, c.updated_at, c.last_active_at,
     (SELECT count(*) FROM canvas_items i WHERE i.canvas_id = c.id),
     (SELECT count(*) FROM canvas_variants v WHERE v.canvas_id = c.id)";

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Canvas> {
    Ok(Canvas {
        id: r.get(0)?,
        name: r.get(1)?,
        created_at: r.get(2)?,
        updated_at: r.get(3)?,
        last_active_at: r.get(4)?,
        item_count: r.get(5)?,
        variant_count: r.get(6)?,
    })
}

/// The canvas if it is `user`'s; someone else's is as good as absent.
pub(crate) fn require(conn: &Connection, user: &str, id: &str) -> Result<Canvas> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM canvases c WHERE c.id = ?1 AND c.user_id = ?2"),
        params![id, user],
        from_row,
    )
    .optional()?
    .ok_or_else(|| AppError::not_found("canvas", id))
}

/// Marks the canvas active now (it sorts first) — after any change on it.
pub(crate) fn touch(conn: &Connection, id: &str) -> Result<()> {
    let now = Utc::now();
    conn.execute(
        "UPDATE canvases SET last_active_at = ?2, updated_at = ?2 WHERE id = ?1",
        params![id, now],
    )?;
    Ok(())
}

fn check_name(name: Option<String>) -> Result<Option<String>> {
    name.filter(|n| !n.trim().is_empty())
        .map(|n| validate::name("name", &n, 120))
        .transpose()
}

/// `create({ name? })`: an empty canvas.
pub async fn create(ctx: &Ctx, actor: &Caller, name: Option<String>) -> Result<Canvas> {
    let name = check_name(name)?;
    let actor2 = actor.clone();
    let canvas = ctx
        .store()
        .write(move |tx| {
            crate::users::check_user(actor2.person()?)?;
            let id = uuid::Uuid::now_v7().to_string();
            let now = Utc::now();
            tx.execute(
                "INSERT INTO canvases (id, user_id, name, created_at, updated_at, last_active_at)
                 VALUES (?1, ?2, ?3, ?4, ?4, ?4)",
                params![id, actor2.person()?, name, now],
            )?;
            activity::record(
                tx,
                &actor2,
                Some(&id),
                "session.create",
                name.as_deref().unwrap_or("untitled"),
            )?;
            require(tx, actor2.person()?, &id)
        })
        .await?;
    ctx.changed(Change::Canvases);
    Ok(canvas)
}

/// `list()`: the user's canvases, most recently active first.
pub async fn list(ctx: &Ctx, actor: &Caller) -> Result<Vec<Canvas>> {
    let user = actor.person()?.to_owned();
    ctx.store()
        .read(move |conn| {
            let mut stmt = conn.prepare(&format!(
                "SELECT {COLUMNS} FROM canvases c WHERE c.user_id = ?1 ORDER BY c.last_active_at DESC, c.id DESC"
            ))?;
            let rows = stmt.query_map([user], from_row)?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
}

pub(crate) fn detail_in(conn: &Connection, user: &str, id: &str) -> Result<CanvasDetail> {
    Ok(CanvasDetail {
        canvas: require(conn, user, id)?,
        items: items::list_in(conn, id)?,
        variants: variants::list_in(conn, id)?,
    })
}

/// `get(id)`: the canvas with its items and variants.
pub async fn get(ctx: &Ctx, actor: &Caller, id: &str) -> Result<CanvasDetail> {
    let (user, id) = (actor.person()?.to_owned(), id.to_owned());
    ctx.store()
        .read(move |conn| detail_in(conn, &user, &id))
        .await
}

/// `update(id, { name })`: renames (an empty name clears it).
pub async fn update(ctx: &Ctx, actor: &Caller, id: &str, name: Option<String>) -> Result<Canvas> {
    let name = check_name(name)?;
    let (actor2, id) = (actor.clone(), id.to_owned());
    let canvas = ctx
        .store()
        .write(move |tx| {
            require(tx, actor2.person()?, &id)?;
            tx.execute(
                "UPDATE canvases SET name = ?2 WHERE id = ?1",
                params![id, name],
            )?;
            touch(tx, &id)?;
            activity::record(
                tx,
                &actor2,
                Some(&id),
                "session.update",
                name.as_deref().unwrap_or("(no name)"),
            )?;
            require(tx, actor2.person()?, &id)
        })
        .await?;
    ctx.changed(Change::Canvases);
    Ok(canvas)
}

/// `delete(id)`: the canvas with its items, variants, rounds and exports.
/// Irreversible.
pub async fn delete(ctx: &Ctx, actor: &Caller, id: &str) -> Result<()> {
    let (actor2, id) = (actor.clone(), id.to_owned());
    ctx.store()
        .write(move |tx| {
            let canvas = require(tx, actor2.person()?, &id)?;
            activity::record(
                tx,
                &actor2,
                Some(&id),
                "session.delete",
                canvas.name.as_deref().unwrap_or("untitled"),
            )?;
            tx.execute("DELETE FROM canvases WHERE id = ?1", [&id])?;
            Ok(())
        })
        .await?;
    ctx.changed(Change::Canvases);
    Ok(())
}
