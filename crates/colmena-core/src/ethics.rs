//! The code of ethics (SPEC H30): short rules every agent is told to follow.
//! Active rules are injected into every agent's system prompt by
//! [`crate::prompt::compose_system_prompt`], in their order.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};

use crate::ctx::{Change, Ctx};
use crate::error::{AppError, Result};
use crate::ids::slug_for;
use crate::validate::{self, FieldErrors};

const MAX_TITLE: usize = 120;
const MAX_RULE: usize = 4000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct EthicsRule {
    pub id: String,
    pub title: String,
    pub rule: String,
    pub position: u32,
    pub active: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct EthicsDraft {
    pub title: String,
    pub rule: String,
}

const SELECT: &str = "SELECT id, title, rule, position, active, created_at, updated_at FROM ethics";

fn from_row(row: &Row<'_>) -> rusqlite::Result<EthicsRule> {
    Ok(EthicsRule {
        id: row.get("id")?,
        title: row.get("title")?,
        rule: row.get("rule")?,
        position: row.get("position")?,
        active: row.get("active")?,
        created_at: row.get("created_at")?,
        updated_at: row.get("updated_at")?,
    })
}

fn require(conn: &Connection, id: &str) -> Result<EthicsRule> {
    conn.query_row(&format!("{SELECT} WHERE id = ?1"), [id], from_row)
        .optional()?
        .ok_or_else(|| AppError::not_found("ethics rule", id))
}

fn check(draft: &EthicsDraft) -> Result<(String, String)> {
    let mut errors = FieldErrors::new();
    let title = errors.check(validate::name("title", &draft.title, MAX_TITLE));
    let rule = draft.rule.trim().to_owned();
    if rule.is_empty() {
        errors.add("rule", "required", "the rule must not be empty");
    } else if rule.chars().count() > MAX_RULE {
        errors.add(
            "rule",
            "too_long",
            format!("a rule must be at most {MAX_RULE} characters"),
        );
    }
    errors.finish()?;
    Ok((title.unwrap_or_default(), rule))
}

pub(crate) fn active_in(conn: &Connection) -> Result<Vec<EthicsRule>> {
    let mut stmt = conn.prepare(&format!("{SELECT} WHERE active = 1 ORDER BY position, id"))?;
    let rows = stmt.query_map([], from_row)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

pub async fn list(ctx: &Ctx) -> Result<Vec<EthicsRule>> {
    ctx.store()
        .read(|conn| {
            let mut stmt = conn.prepare(&format!("{SELECT} ORDER BY position, id"))?;
            let rows = stmt.query_map([], from_row)?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
}

pub async fn get(ctx: &Ctx, id: &str) -> Result<EthicsRule> {
    let id = id.to_owned();
    ctx.store().read(move |conn| require(conn, &id)).await
}

/// Adds a rule at the end; its id is the slug of its title.
pub async fn create(ctx: &Ctx, draft: EthicsDraft) -> Result<EthicsRule> {
    let (title, rule) = check(&draft)?;
    let id = slug_for("title", &title)?;
    let created = ctx
        .store()
        .write(move |tx| {
            if tx
                .query_row("SELECT 1 FROM ethics WHERE id = ?1", [&id], |_| Ok(()))
                .optional()?
                .is_some()
            {
                return Err(AppError::conflicting_field(
                    "title",
                    "duplicate",
                    format!("a rule with the id '{id}' already exists"),
                ));
            }
            let position: u32 = tx.query_row(
                "SELECT COALESCE(MAX(position) + 1, 0) FROM ethics",
                [],
                |r| r.get(0),
            )?;
            let now = Utc::now();
            tx.execute(
                "INSERT INTO ethics (id, title, rule, position, active, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, 1, ?5, ?5)",
                params![id, title, rule, position, now],
            )?;
            require(tx, &id)
        })
        .await?;
    ctx.changed(Change::Ethics);
    Ok(created)
}

pub async fn update(ctx: &Ctx, id: &str, draft: EthicsDraft) -> Result<EthicsRule> {
    let (title, rule) = check(&draft)?;
    let id = id.to_owned();
    let updated = ctx
        .store()
        .write(move |tx| {
            require(tx, &id)?;
            tx.execute(
                "UPDATE ethics SET title = ?2, rule = ?3, updated_at = ?4 WHERE id = ?1",
                params![id, title, rule, Utc::now()],
            )?;
            require(tx, &id)
        })
        .await?;
    ctx.changed(Change::Ethics);
    Ok(updated)
}

/// Switches a rule on or off; `None` flips it.
pub async fn switch(ctx: &Ctx, id: &str, target: Option<bool>) -> Result<EthicsRule> {
    let id = id.to_owned();
    let updated = ctx
        .store()
        .write(move |tx| {
            let current = require(tx, &id)?;
            tx.execute(
                "UPDATE ethics SET active = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, target.unwrap_or(!current.active), Utc::now()],
            )?;
            require(tx, &id)
        })
        .await?;
    ctx.changed(Change::Ethics);
    Ok(updated)
}

pub async fn delete(ctx: &Ctx, id: &str) -> Result<()> {
    let id = id.to_owned();
    ctx.store()
        .write(move |tx| {
            require(tx, &id)?;
            tx.execute("DELETE FROM ethics WHERE id = ?1", [&id])?;
            Ok(())
        })
        .await?;
    ctx.changed(Change::Ethics);
    Ok(())
}
