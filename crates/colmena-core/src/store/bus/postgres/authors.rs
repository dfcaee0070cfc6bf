//! Authors on PostgreSQL: what `inbox::authors` keeps in SQLite's
//! `authors`, `role_unattended` and `role_skills`, as one row each. What is
//! checked against the workspace (the agent, the skills) is checked by
//! `inbox::authors` before these run; here is only the shared state.

use tokio_postgres::Row;

use super::{PgBus, int, uint};
use crate::error::{AppError, ErrorCode, Result};
use crate::risk::Risk;
use crate::store::bus::port::{RoleRow, RoleUpdateRow};
use crate::store::bus::{Author, AuthorKind};

const COLUMNS: &str = "a.id, a.name, a.kind, a.user_id, a.agent_id, a.wake_interval_minutes,
     a.next_wake_at, a.last_wake_at, a.last_wake_error, a.created_at,
     coalesce(u.n, 0), a.unattended, a.instructions, a.wake_command, a.wake_timeout_seconds,
     a.skills";
const FROM: &str = "authors a LEFT JOIN unread u ON u.author_id = a.id";

fn from_row(r: &Row, owner: &str) -> Author {
    let kind: String = r.get(2);
    let user_id: Option<String> = r.get(3);
    let mut unattended: Vec<Risk> = r
        .get::<_, Vec<String>>(11)
        .iter()
        .filter_map(|s| Risk::parse(s))
        .collect();
    unattended.sort_by_key(|r| r.as_str());
    let mut skills: Vec<String> = r.get(15);
    skills.sort();
    Author {
        id: r.get(0),
        name: r.get(1),
        kind: if kind == "user" {
            AuthorKind::User
        } else {
            AuthorKind::Role
        },
        is_owner: user_id.as_deref() == Some(owner),
        user_id,
        agent_id: r.get(4),
        wake_interval_minutes: r.get::<_, Option<i32>>(5).map(uint),
        next_wake_at: r.get(6),
        last_wake_at: r.get(7),
        last_wake_error: r.get(8),
        created_at: r.get(9),
        unread: uint(r.get(10)),
        unattended,
        instructions: r.get(12),
        wake_command: crate::store::bus::command_from_column(r.get(13)),
        wake_timeout_seconds: r.get::<_, Option<i32>>(14).map(uint),
        skills,
    }
}

/// The author with `id`, if any. `owner`: the workspace's owner (whose
/// author is this desktop's "me").
pub(crate) async fn find(bus: &PgBus, owner: &str, id: &str) -> Result<Option<Author>> {
    // No id holds a NUL (PostgreSQL's text cannot): nobody has it.
    if id.contains('\0') {
        return Ok(None);
    }
    let client = bus.client().await?;
    let stmt = client
        .prepare_cached(&format!("SELECT {COLUMNS} FROM {FROM} WHERE a.id = $1"))
        .await?;
    Ok(client
        .query_opt(&stmt, &[&id])
        .await?
        .map(|r| from_row(&r, owner)))
}

pub(crate) async fn require(bus: &PgBus, owner: &str, id: &str) -> Result<Author> {
    find(bus, owner, id)
        .await?
        .ok_or_else(|| AppError::not_found("author", id))
}

/// Whether an author has this id.
pub(crate) async fn exists(bus: &PgBus, id: &str) -> Result<bool> {
    if id.contains('\0') {
        return Ok(false);
    }
    let client = bus.client().await?;
    let stmt = client
        .prepare_cached("SELECT 1 FROM authors WHERE id = $1")
        .await?;
    Ok(client.query_opt(&stmt, &[&id]).await?.is_some())
}

/// By id or, case-insensitively, by name.
pub(crate) async fn find_by_id_or_name(
    bus: &PgBus,
    owner: &str,
    key: &str,
) -> Result<Option<Author>> {
    if let Some(author) = find(bus, owner, key).await? {
        return Ok(Some(author));
    }
    if key.contains('\0') {
        return Ok(None);
    }
    let client = bus.client().await?;
    let row = client
        .query_opt(
            &format!("SELECT {COLUMNS} FROM {FROM} WHERE lower(a.name) = lower($1)"),
            &[&key.trim()],
        )
        .await?;
    Ok(row.map(|r| from_row(&r, owner)))
}

/// Every author: the owner first, then people, then roles, by name.
pub(crate) async fn list(bus: &PgBus, owner: &str) -> Result<Vec<Author>> {
    let client = bus.client().await?;
    let rows = client
        .query(&format!("SELECT {COLUMNS} FROM {FROM}"), &[])
        .await?;
    let mut authors: Vec<Author> = rows.iter().map(|r| from_row(r, owner)).collect();
    authors.sort_by(|a, b| {
        (
            !a.is_owner,
            a.kind == AuthorKind::Role,
            a.name.to_lowercase(),
        )
            .cmp(&(
                !b.is_owner,
                b.kind == AuthorKind::Role,
                b.name.to_lowercase(),
            ))
    });
    Ok(authors)
}

/// Gives the person `user` (named `name`) an author unless they have one
/// or the id or name is a role's. The token hash is of a token nobody saw.
pub(crate) async fn ensure_user(bus: &PgBus, user: &str, name: &str, hash: &[u8]) -> Result<()> {
    let client = bus.client().await?;
    let taken = client
        .query_opt(
            "SELECT user_id FROM authors WHERE id = $1 OR lower(name) = lower($2)",
            &[&user, &name],
        )
        .await?;
    match taken {
        Some(row) if row.get::<_, Option<String>>(0).as_deref() == Some(user) => Ok(()),
        Some(_) => {
            tracing::warn!(
                "user '{user}' has no bus author: the id or name '{name}' is taken on the team's bus"
            );
            Ok(())
        }
        None => {
            client
                .execute(
                    "INSERT INTO authors (id, name, kind, user_id, token_hash, created_at)
                     VALUES ($1, $2, 'user', $1, $3, $4) ON CONFLICT DO NOTHING",
                    &[&user, &name, &hash, &crate::store::bus::time::now()],
                )
                .await?;
            Ok(())
        }
    }
}

fn risks(list: &[Risk]) -> Vec<String> {
    let mut names: Vec<String> = list.iter().map(|r| r.as_str().to_owned()).collect();
    names.sort();
    names.dedup();
    names
}

pub(crate) async fn create(bus: &PgBus, owner: &str, role: &RoleRow) -> Result<Author> {
    let client = bus.client().await?;
    let taken = client
        .query_opt(
            "SELECT id FROM authors WHERE id = $1 OR lower(name) = lower($2)",
            &[&role.id, &role.name],
        )
        .await?;
    let duplicate = |taken: &str| {
        AppError::conflicting_field(
            "name",
            "duplicate_name",
            format!("an author '{taken}' already exists"),
        )
    };
    if let Some(row) = taken {
        return Err(duplicate(&row.get::<_, String>(0)));
    }
    let inserted = client
        .execute(
            "INSERT INTO authors (id, name, kind, agent_id, token_hash, wake_interval_minutes,
                                  next_wake_at, created_at, instructions, wake_command,
                                  wake_timeout_seconds, unattended, skills)
             VALUES ($1, $2, 'role', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            &[
                &role.id,
                &role.name,
                &role.agent,
                &role.hash,
                &role.interval.map(int),
                &role.next_wake_at,
                &crate::store::bus::time::now(),
                &role.instructions,
                &role.command,
                &role.timeout.map(int),
                &risks(&role.unattended),
                &role.skills,
            ],
        )
        .await;
    match inserted {
        // Another replica registered the same name meanwhile.
        Err(e) if e.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION) => {
            return Err(duplicate(&role.name));
        }
        other => other?,
    };
    drop(client);
    require(bus, owner, &role.id).await
}

/// Changes a role; a person's author is refused.
pub(crate) async fn update(
    bus: &PgBus,
    owner: &str,
    id: &str,
    change: &RoleUpdateRow,
) -> Result<Author> {
    let author = require(bus, owner, id).await?;
    if author.kind == AuthorKind::User {
        return Err(AppError::new(
            ErrorCode::Validation,
            format!("'{id}' is a person: only roles have an agent and a schedule"),
        ));
    }
    let client = bus.client().await?;
    client
        .execute(
            "UPDATE authors SET agent_id = $2, wake_interval_minutes = $3, next_wake_at = $4,
                                wake_command = $5, wake_timeout_seconds = $6,
                                instructions = coalesce($7, instructions),
                                skills = coalesce($8, skills),
                                unattended = coalesce($9, unattended)
             WHERE id = $1",
            &[
                &id,
                &change.agent,
                &change.interval.map(int),
                &change.next_wake_at,
                &change.command,
                &change.timeout.map(int),
                &change.instructions,
                &change.skills,
                &change.unattended.as_deref().map(risks),
            ],
        )
        .await?;
    drop(client);
    require(bus, owner, id).await
}

pub(crate) async fn set_unattended(bus: &PgBus, id: &str, list: &[Risk]) -> Result<()> {
    let client = bus.client().await?;
    let changed = client
        .execute(
            "UPDATE authors SET unattended = $2 WHERE id = $1",
            &[&id, &risks(list)],
        )
        .await?;
    if changed == 0 {
        return Err(AppError::not_found("author", id));
    }
    Ok(())
}

pub(crate) async fn rotate_token(
    bus: &PgBus,
    owner: &str,
    id: &str,
    hash: &[u8],
) -> Result<Author> {
    let client = bus.client().await?;
    let changed = client
        .execute(
            "UPDATE authors SET token_hash = $2 WHERE id = $1",
            &[&id, &hash],
        )
        .await?;
    if changed == 0 {
        return Err(AppError::not_found("author", id));
    }
    drop(client);
    require(bus, owner, id).await
}

/// Renames a person's author; another author with the name is a conflict.
pub(crate) async fn rename_person(
    bus: &PgBus,
    owner: &str,
    user: &str,
    name: &str,
) -> Result<Author> {
    let client = bus.client().await?;
    let id: String = client
        .query_opt(
            "SELECT id FROM authors WHERE user_id = $1 AND kind = 'user'",
            &[&user],
        )
        .await?
        .map(|row| row.get(0))
        .ok_or_else(|| AppError::not_found("author", user))?;
    let taken = client
        .query_opt(
            "SELECT id FROM authors WHERE id <> $1 AND (id = $2 OR lower(name) = lower($2))",
            &[&id, &name],
        )
        .await?;
    if let Some(row) = taken {
        return Err(AppError::conflicting_field(
            "name",
            "duplicate_name",
            format!(
                "an author '{}' already has that name",
                row.get::<_, String>(0)
            ),
        ));
    }
    client
        .execute("UPDATE authors SET name = $2 WHERE id = $1", &[&id, &name])
        .await?;
    drop(client);
    require(bus, owner, &id).await
}

/// Removes a role, its inbox and its message ids; a person's author stays.
pub(crate) async fn remove(bus: &PgBus, owner: &str, id: &str) -> Result<()> {
    let author = require(bus, owner, id).await?;
    if author.kind == AuthorKind::User {
        return Err(AppError::new(
            ErrorCode::Validation,
            format!("'{id}' is a person's author: it goes only with the person"),
        ));
    }
    let mut client = bus.client().await?;
    let tx = client.transaction().await?;
    tx.execute("DELETE FROM authors WHERE id = $1", &[&id])
        .await?;
    tx.execute("DELETE FROM client_ids WHERE from_author = $1", &[&id])
        .await?;
    tx.commit().await?;
    Ok(())
}

/// The author whose token or live wake token hashes to `hash`, with the
/// stored hash (compared in constant time by the caller).
pub(crate) async fn by_token_hash(bus: &PgBus, hash: &[u8]) -> Result<Option<(String, Vec<u8>)>> {
    let client = bus.client().await?;
    let stmt = client
        .prepare_cached(
            "SELECT id, token_hash FROM authors WHERE token_hash = $1
             UNION ALL
             SELECT author_id, token_hash FROM wake_tokens WHERE token_hash = $1 AND expires_at > now()
             LIMIT 1",
        )
        .await?;
    Ok(client
        .query_opt(&stmt, &[&hash])
        .await?
        .map(|r| (r.get(0), r.get(1))))
}
