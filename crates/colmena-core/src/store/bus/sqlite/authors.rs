//! Authors on the SQLite bus: `authors`, with a role's grants in
//! `role_unattended` and its skills in `role_skills`, in the workspace's
//! own file (so a role's agent and skills keep their foreign keys).
//! What is checked against the workspace (the agent, the skills, the
//! command) is checked by `inbox::authors` before these run.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};

use crate::error::{AppError, Result};
use crate::risk::Risk;
use crate::store::bus::port::{Person, RoleRow, RoleUpdateRow};
use crate::store::bus::time::{self, parse_stored, stored};
use crate::store::bus::{Author, AuthorKind, command_from_column};

pub(super) const COLUMNS: &str = "a.id, a.name, a.kind, a.user_id, a.agent_id, a.wake_interval_minutes,
     a.next_wake_at, a.last_wake_at, a.last_wake_error, a.created_at,
     coalesce((SELECT n FROM bus_unread b WHERE b.author_id = a.id), 0),
     coalesce(u.is_owner, 0),
     (SELECT group_concat(risk, ',') FROM (SELECT risk FROM role_unattended r WHERE r.author_id = a.id ORDER BY risk)),
     a.instructions, a.wake_command, a.wake_timeout_seconds,
     (SELECT group_concat(skill_id, ',') FROM (SELECT skill_id FROM role_skills s WHERE s.author_id = a.id ORDER BY skill_id))";

pub(super) fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Author> {
    let kind: String = r.get(2)?;
    let optional_time = |i: usize| -> rusqlite::Result<Option<DateTime<Utc>>> {
        r.get::<_, Option<String>>(i)?
            .map(|t| parse_stored(&t))
            .transpose()
    };
    Ok(Author {
        id: r.get(0)?,
        name: r.get(1)?,
        kind: if kind == "user" {
            AuthorKind::User
        } else {
            AuthorKind::Role
        },
        user_id: r.get(3)?,
        agent_id: r.get(4)?,
        wake_interval_minutes: r.get(5)?,
        next_wake_at: optional_time(6)?,
        last_wake_at: optional_time(7)?,
        last_wake_error: r.get(8)?,
        created_at: parse_stored(&r.get::<_, String>(9)?)?,
        unread: r.get(10)?,
        is_owner: r.get(11)?,
        unattended: r
            .get::<_, Option<String>>(12)?
            .unwrap_or_default()
            .split(',')
            .filter_map(Risk::parse)
            .collect(),
        instructions: r.get(13)?,
        wake_command: command_from_column(r.get(14)?),
        wake_timeout_seconds: r.get(15)?,
        skills: r
            .get::<_, Option<String>>(16)?
            .unwrap_or_default()
            .split(',')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
    })
}

pub(super) fn find(conn: &Connection, id: &str) -> Result<Option<Author>> {
    // Every token request reads its author: prepared once per connection.
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM authors a LEFT JOIN users u ON u.id = a.user_id WHERE a.id = ?1"
        ))?
        .query_row([id], from_row)
        .optional()?)
}

fn require(conn: &Connection, id: &str) -> Result<Author> {
    find(conn, id)?.ok_or_else(|| AppError::not_found("author", id))
}

pub(super) fn exists(conn: &Connection, id: &str) -> Result<bool> {
    Ok(conn
        .prepare_cached("SELECT 1 FROM authors WHERE id = ?1")?
        .query_row([id], |_| Ok(()))
        .optional()?
        .is_some())
}

pub(super) fn find_by_id_or_name(conn: &Connection, key: &str) -> Result<Option<Author>> {
    if let Some(author) = find(conn, key)? {
        return Ok(Some(author));
    }
    let id: Option<String> = conn
        .query_row(
            "SELECT id FROM authors WHERE name = ?1 COLLATE NOCASE",
            [key.trim()],
            |r| r.get(0),
        )
        .optional()?;
    match id {
        Some(id) => find(conn, &id),
        None => Ok(None),
    }
}

pub(super) fn list(conn: &Connection) -> Result<Vec<Author>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM authors a LEFT JOIN users u ON u.id = a.user_id
         ORDER BY coalesce(u.is_owner, 0) DESC, a.kind DESC, a.name COLLATE NOCASE"
    ))?;
    let rows = stmt.query_map([], from_row)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Gives each person without an author one (see `BusStore::ensure_people`).
pub(super) fn ensure_people(conn: &Connection, people: &[Person]) -> Result<()> {
    for Person { user, name, hash } in people {
        let has_one = conn
            .query_row("SELECT 1 FROM authors WHERE user_id = ?1", [user], |_| {
                Ok(())
            })
            .optional()?
            .is_some();
        if has_one {
            continue;
        }
        let taken = conn
            .query_row(
                "SELECT 1 FROM authors WHERE id = ?1 OR name = ?2 COLLATE NOCASE",
                [user, name],
                |_| Ok(()),
            )
            .optional()?
            .is_some();
        if taken {
            tracing::warn!(
                "user '{user}' has no bus author: the id or name '{name}' is taken by a role"
            );
            continue;
        }
        conn.execute(
            "INSERT INTO authors (id, name, kind, user_id, token_hash, created_at)
             VALUES (?1, ?2, 'user', ?1, ?3, ?4)",
            params![user, name, hash, stored(time::now())],
        )?;
    }
    Ok(())
}

fn write_unattended(conn: &Connection, author: &str, risks: &[Risk]) -> Result<()> {
    conn.execute("DELETE FROM role_unattended WHERE author_id = ?1", [author])?;
    for risk in risks {
        conn.execute(
            "INSERT OR IGNORE INTO role_unattended (author_id, risk) VALUES (?1, ?2)",
            params![author, risk.as_str()],
        )?;
    }
    Ok(())
}

fn write_skills(conn: &Connection, author: &str, skills: &[String]) -> Result<()> {
    conn.execute("DELETE FROM role_skills WHERE author_id = ?1", [author])?;
    let mut insert =
        conn.prepare_cached("INSERT INTO role_skills (author_id, skill_id) VALUES (?1, ?2)")?;
    for skill in skills {
        insert.execute(params![author, skill])?;
    }
    Ok(())
}

/// `conflict` (`duplicate_name`) when an author other than `except` has the
/// id `id` or, case aside, the name `name`.
fn check_free(conn: &Connection, id: &str, name: &str, except: Option<&str>) -> Result<()> {
    let taken: Option<String> = conn
        .query_row(
            "SELECT id FROM authors WHERE (id = ?1 OR name = ?2 COLLATE NOCASE)
               AND (?3 IS NULL OR id <> ?3)",
            params![id, name, except],
            |r| r.get(0),
        )
        .optional()?;
    match taken {
        Some(taken) => Err(AppError::conflicting_field(
            "name",
            "duplicate_name",
            format!("an author '{taken}' already exists"),
        )),
        None => Ok(()),
    }
}

pub(super) fn create_role(conn: &Connection, role: &RoleRow) -> Result<Author> {
    check_free(conn, &role.id, &role.name, None)?;
    conn.execute(
        "INSERT INTO authors (id, name, kind, agent_id, token_hash, wake_interval_minutes,
                              next_wake_at, created_at, instructions, wake_command,
                              wake_timeout_seconds)
         VALUES (?1, ?2, 'role', ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            role.id,
            role.name,
            role.agent,
            role.hash,
            role.interval,
            role.next_wake_at.map(stored),
            stored(time::now()),
            role.instructions,
            role.command,
            role.timeout
        ],
    )?;
    write_skills(conn, &role.id, &role.skills)?;
    write_unattended(conn, &role.id, &role.unattended)?;
    require(conn, &role.id)
}

pub(super) fn update_role(conn: &Connection, id: &str, change: &RoleUpdateRow) -> Result<Author> {
    require(conn, id)?;
    conn.execute(
        "UPDATE authors SET agent_id = ?2, wake_interval_minutes = ?3, next_wake_at = ?4,
                            wake_command = ?5, wake_timeout_seconds = ?6
         WHERE id = ?1",
        params![
            id,
            change.agent,
            change.interval,
            change.next_wake_at.map(stored),
            change.command,
            change.timeout
        ],
    )?;
    if let Some(instructions) = &change.instructions {
        conn.execute(
            "UPDATE authors SET instructions = ?2 WHERE id = ?1",
            params![id, instructions],
        )?;
    }
    if let Some(skills) = &change.skills {
        write_skills(conn, id, skills)?;
    }
    if let Some(unattended) = &change.unattended {
        write_unattended(conn, id, unattended)?;
    }
    require(conn, id)
}

pub(super) fn set_unattended(conn: &Connection, id: &str, risks: &[Risk]) -> Result<()> {
    require(conn, id)?;
    write_unattended(conn, id, risks)
}

pub(super) fn rotate_token(conn: &Connection, id: &str, hash: &[u8]) -> Result<Author> {
    require(conn, id)?;
    conn.execute(
        "UPDATE authors SET token_hash = ?2 WHERE id = ?1",
        params![id, hash],
    )?;
    require(conn, id)
}

pub(super) fn rename_person(conn: &Connection, user: &str, name: &str) -> Result<Author> {
    let id: String = conn
        .query_row(
            "SELECT id FROM authors WHERE user_id = ?1 AND kind = 'user'",
            [user],
            |r| r.get(0),
        )
        .optional()?
        .ok_or_else(|| AppError::not_found("author", user))?;
    check_free(conn, name, name, Some(&id))?;
    conn.execute(
        "UPDATE authors SET name = ?2 WHERE id = ?1",
        params![id, name],
    )?;
    require(conn, &id)
}

pub(super) fn remove_role(conn: &Connection, id: &str) -> Result<()> {
    if require(conn, id)?.kind == AuthorKind::User {
        return Err(AppError::new(
            crate::error::ErrorCode::Validation,
            format!("'{id}' is a person's author: it goes only with the person"),
        ));
    }
    conn.execute("DELETE FROM authors WHERE id = ?1", [id])?;
    // Its own message ids go with it: a later author of the same name must
    // not find its sends answered by the old one's.
    conn.execute("DELETE FROM bus_client_ids WHERE from_author = ?1", [id])?;
    Ok(())
}

pub(super) fn token_owner(conn: &Connection, hash: &[u8]) -> Result<Option<(String, Vec<u8>)>> {
    let own = conn
        .prepare_cached("SELECT id, token_hash FROM authors WHERE token_hash = ?1")?
        .query_row([hash], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    if own.is_some() {
        return Ok(own);
    }
    // A wake command's short-lived token, until it expires (the wake-up
    // removes it when it ends).
    Ok(conn
        .prepare_cached(
            "SELECT author_id, token_hash FROM author_wake_tokens
             WHERE token_hash = ?1 AND expires_at > ?2",
        )?
        .query_row(params![hash, stored(time::now())], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?)
}
