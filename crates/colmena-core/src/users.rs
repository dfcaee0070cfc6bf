//! People (SPEC 0.1, H44): the workspace owner, who the desktop app acts
//! as, and users who reach the hive through channels. A channel identity (a
//! Telegram id, an email address) is linked to a user. With one user an
//! unknown identity is linked to them; with more, it waits for the owner's
//! approval of a pairing request — the first stranger to write must not
//! land in somebody's account.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::caller::ROLE_OWN_SCOPE;
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, ErrorCode, Result};
use crate::ids::{slug_for, slugify};
use crate::store::meta;
use crate::validate;

/// The longest user id.
const MAX_USER: usize = 64;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct User {
    pub id: String,
    pub name: String,
    pub is_owner: bool,
    pub created_at: DateTime<Utc>,
}

/// Who wrote, as a channel knows them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ChannelIdentity {
    pub channel: String,
    pub channel_user_id: String,
    /// The bot or account that received the message (empty if one).
    #[serde(default)]
    pub account_id: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum PairingStatus {
    Pending,
    Approved,
    Rejected,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct PairingRequest {
    pub id: String,
    pub identity: ChannelIdentity,
    /// A short code the person can quote to the owner.
    pub code: String,
    pub status: PairingStatus,
    pub user_id: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// Makes sure the owner exists as a user (at every start).
pub(crate) fn ensure_owner(tx: &Transaction<'_>, owner: &str) -> Result<()> {
    tx.execute(
        "INSERT INTO users (id, name, is_owner, created_at) VALUES (?1, ?1, 1, ?2)
         ON CONFLICT (id) DO UPDATE SET is_owner = 1",
        params![owner, Utc::now()],
    )?;
    Ok(())
}

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<User> {
    Ok(User {
        id: r.get(0)?,
        name: r.get(1)?,
        is_owner: r.get(2)?,
        created_at: r.get(3)?,
    })
}

pub async fn list(ctx: &Ctx) -> Result<Vec<User>> {
    ctx.store()
        .read(|conn| {
            let mut stmt = conn.prepare(
                "SELECT id, name, is_owner, created_at FROM users ORDER BY is_owner DESC, id",
            )?;
            let rows = stmt.query_map([], from_row)?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
}

/// Adds a person; the id is the slug of the name.
pub async fn create(ctx: &Ctx, name: &str) -> Result<User> {
    let name = validate::name("name", name, 80)?;
    let id = check_user(&slug_for("name", &name)?)?;
    let user = ctx
        .store()
        .write(move |tx| {
            if find(tx, &id)?.is_some() {
                return Err(AppError::conflicting_field(
                    "name",
                    "duplicate_id",
                    format!("a user '{id}' already exists"),
                ));
            }
            tx.execute(
                "INSERT INTO users (id, name, is_owner, created_at) VALUES (?1, ?2, 0, ?3)",
                params![id, name, Utc::now()],
            )?;
            find(tx, &id)?.ok_or_else(|| AppError::internal("the new user vanished"))
        })
        .await?;
    // The person's author, wherever the bus lives (a step of its own:
    // every start makes sure of it again).
    crate::inbox::authors::ensure_people_have_authors(ctx.store(), ctx.bus()).await?;
    ctx.changed(Change::Users);
    ctx.changed(Change::Authors);
    Ok(user)
}

pub(crate) fn find(conn: &Connection, id: &str) -> Result<Option<User>> {
    Ok(conn
        .query_row(
            "SELECT id, name, is_owner, created_at FROM users WHERE id = ?1",
            [id],
            from_row,
        )
        .optional()?)
}

pub(crate) fn count(conn: &Connection) -> Result<u32> {
    Ok(conn.query_row("SELECT count(*) FROM users", [], |r| r.get(0))?)
}

/// The user an identity is linked to.
pub(crate) fn linked_user(conn: &Connection, identity: &ChannelIdentity) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT user_id FROM user_identities WHERE channel = ?1 AND channel_user_id = ?2 AND account_id = ?3",
            params![identity.channel, identity.channel_user_id, identity.account_id],
            |r| r.get(0),
        )
        .optional()?)
}

pub(crate) fn link(tx: &Transaction<'_>, identity: &ChannelIdentity, user: &str) -> Result<()> {
    tx.execute(
        "INSERT INTO user_identities (channel, channel_user_id, account_id, user_id, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            identity.channel,
            identity.channel_user_id,
            identity.account_id,
            user,
            Utc::now()
        ],
    )?;
    Ok(())
}

fn pairing_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<PairingRequest> {
    let status: String = r.get(5)?;
    Ok(PairingRequest {
        id: r.get(0)?,
        identity: ChannelIdentity {
            channel: r.get(1)?,
            channel_user_id: r.get(2)?,
            account_id: r.get(3)?,
        },
        code: r.get(4)?,
        status: match status.as_str() {
            "approved" => PairingStatus::Approved,
            "rejected" => PairingStatus::Rejected,
            _ => PairingStatus::Pending,
        },
        user_id: r.get(6)?,
        created_at: r.get(7)?,
    })
}

const PAIRING_SELECT: &str = "SELECT id, channel, channel_user_id, account_id, code, status, user_id, created_at FROM pairing_requests";

/// The pending request of an identity, created if there is none.
pub(crate) fn request_pairing(
    tx: &Transaction<'_>,
    identity: &ChannelIdentity,
) -> Result<PairingRequest> {
    let existing = tx
        .query_row(
            &format!("{PAIRING_SELECT} WHERE channel = ?1 AND channel_user_id = ?2 AND account_id = ?3 AND status = 'pending'"),
            params![identity.channel, identity.channel_user_id, identity.account_id],
            pairing_from_row,
        )
        .optional()?;
    if let Some(request) = existing {
        return Ok(request);
    }
    let id = uuid::Uuid::now_v7().to_string();
    let mut bytes = [0u8; 4];
    getrandom::fill(&mut bytes)
        .map_err(|e| AppError::internal(format!("the OS random source failed: {e}")))?;
    let code = format!("{:06}", u32::from_le_bytes(bytes) % 1_000_000);
    tx.execute(
        "INSERT INTO pairing_requests (id, channel, channel_user_id, account_id, code, status, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?6)",
        params![id, identity.channel, identity.channel_user_id, identity.account_id, code, Utc::now()],
    )?;
    tx.query_row(
        &format!("{PAIRING_SELECT} WHERE id = ?1"),
        [&id],
        pairing_from_row,
    )
    .map_err(Into::into)
}

pub async fn pending_pairings(ctx: &Ctx) -> Result<Vec<PairingRequest>> {
    ctx.store()
        .read(|conn| {
            let mut stmt = conn.prepare(&format!(
                "{PAIRING_SELECT} WHERE status = 'pending' ORDER BY created_at"
            ))?;
            let rows = stmt.query_map([], pairing_from_row)?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
}

/// Links the identity of a pending request to `user`.
pub async fn approve_pairing(ctx: &Ctx, id: &str, user: &str) -> Result<PairingRequest> {
    decide(ctx, id, Some(user.to_owned())).await
}

pub async fn reject_pairing(ctx: &Ctx, id: &str) -> Result<PairingRequest> {
    decide(ctx, id, None).await
}

async fn decide(ctx: &Ctx, id: &str, user: Option<String>) -> Result<PairingRequest> {
    let id = id.to_owned();
    let request = ctx
        .store()
        .write(move |tx| {
            let request = tx
                .query_row(&format!("{PAIRING_SELECT} WHERE id = ?1"), [&id], pairing_from_row)
                .optional()?
                .ok_or_else(|| AppError::not_found("pairing request", &id))?;
            if request.status != PairingStatus::Pending {
                return Err(AppError::new(ErrorCode::Conflict, format!("pairing request {id} was already decided"))
                    .with_details(json!({ "reason": "already_decided" })));
            }
            let status = match &user {
                Some(user) => {
                    find(tx, user)?.ok_or_else(|| AppError::not_found("user", user))?;
                    link(tx, &request.identity, user)?;
                    "approved"
                }
                None => "rejected",
            };
            tx.execute(
                "UPDATE pairing_requests SET status = ?2, user_id = ?3, decided_at = ?4 WHERE id = ?1",
                params![id, status, user, Utc::now()],
            )?;
            Ok(tx.query_row(&format!("{PAIRING_SELECT} WHERE id = ?1"), [&id], pairing_from_row)?)
        })
        .await?;
    ctx.changed(Change::Users);
    Ok(request)
}

/// Where the owner's user id is kept (`store::meta`).
const META_OWNER: &str = "owner_user_id";

/// The owner's user id, chosen once from the OS login name.
pub(crate) fn owner_user(tx: &Transaction<'_>) -> Result<String> {
    if let Some(owner) = meta::get(tx, META_OWNER)? {
        return Ok(owner);
    }
    let login = std::env::var("USER")
        .or_else(|_| std::env::var("USERNAME"))
        .unwrap_or_default();
    let owner = slugify(&login).unwrap_or_else(|| "owner".to_owned());
    meta::set(tx, META_OWNER, &owner)?;
    Ok(owner)
}

/// A person's user id: what is left of `:` in a memory id, so it cannot
/// hold one, and never `@…` — that is a role's own scope, which only a
/// woken role's caller carries
/// ([`Caller::memory_owner`](crate::caller::Caller::memory_owner)), so no
/// token, model argument or request can name it. (The local doors — the
/// window and the CLI, on the workspace's own machine — may browse a
/// role's memories, through [`crate::memory::role_caller`].)
pub fn check_user(user: &str) -> Result<String> {
    let user = check_owner(user)?;
    if user.starts_with(ROLE_OWN_SCOPE) {
        return Err(AppError::invalid_field(
            "userId",
            "role_scope",
            format!(
                "'{user}' is a role's own scope, not a person: a role's memories are read as that role"
            ),
        ));
    }
    Ok(user)
}

/// A person's user id or a role's own scope (`@<author id>`): who may own
/// memories and conversations (a role's thread). For what the caller
/// resolved, never for what a request names.
pub(crate) fn check_owner(user: &str) -> Result<String> {
    let user = user.trim();
    let bare = user.strip_prefix(ROLE_OWN_SCOPE).unwrap_or(user);
    if bare.is_empty() || user.chars().count() > MAX_USER {
        return Err(AppError::invalid_field(
            "userId",
            "invalid_user",
            format!("a user id must have 1 to {MAX_USER} characters"),
        ));
    }
    if bare
        .chars()
        .any(|c| c == ':' || c == '/' || c == '@' || c.is_whitespace() || c.is_control())
    {
        return Err(AppError::invalid_field(
            "userId",
            "invalid_user",
            format!("'{user}' is not a user id: no ':', '/', '@', spaces or control characters"),
        ));
    }
    Ok(user.to_owned())
}
