//! Authors (SPEC B1): every person and every role is an author with an id,
//! a name and a bearer token. The token is shown once — at creation or
//! rotation — and only its hash is kept.
//!
//! A person's author is made with their user (the owner's at the first
//! start), under the user's id. A role is an author of its own; with an
//! agent, Colmena wakes it every `wake_interval_minutes` (B6); without one
//! it is a session outside Colmena that reads its inbox over HTTP or MCP.
//! Adding a role is registering an author and a schedule — nothing else
//! (B7).

use chrono::{DateTime, Duration, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::role_config;
use super::token;
use crate::caller::{Caller, Client};
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, ErrorCode, Result};
use crate::ids::{AgentId, slug_for};
use crate::permissions;
use crate::risk::Risk;
use crate::store::bus::postgres as pg;
use crate::store::bus::time::{self, parse_stored, stored};
use crate::store::bus::{command_column, command_from_column};
use crate::validate;

pub use crate::store::bus::{Author, AuthorKind};

/// Minutes between wake-ups when a role's agent is set without a schedule.
pub const DEFAULT_WAKE_MINUTES: u32 = 30;
/// A week: the longest interval.
pub const MAX_WAKE_MINUTES: u32 = 10_080;

/// An author with its bearer token: returned once, at creation or rotation.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AuthorWithToken {
    #[serde(flatten)]
    pub author: Author,
    pub token: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct NewAuthor {
    pub name: String,
    /// The agent this role runs when woken; none for an outside session.
    #[serde(default)]
    pub agent_id: Option<String>,
    /// Minutes between wake-ups (default 30 when an agent is set).
    #[serde(default)]
    pub wake_interval_minutes: Option<u32>,
    /// What unattended wake-ups may do where the agent asks (default: reply).
    #[serde(default)]
    pub unattended: Option<Vec<Risk>>,
    /// Standing instructions (default none).
    #[serde(default)]
    pub instructions: Option<String>,
    /// Skills enabled for the role on top of its agent's.
    #[serde(default)]
    pub skills: Option<Vec<String>>,
    /// An outside role: the program and arguments that wake it (instead of
    /// an agent).
    #[serde(default)]
    pub wake_command: Option<Vec<String>>,
    #[serde(default)]
    pub wake_timeout_seconds: Option<u32>,
}

/// How a role is woken — its agent or its wake command, its schedule —
/// replaced as a whole; its grants, instructions and skills replaced when
/// given.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AuthorUpdate {
    #[serde(default)]
    pub agent_id: Option<String>,
    #[serde(default)]
    pub wake_interval_minutes: Option<u32>,
    /// Replaces what unattended wake-ups may do; absent: unchanged.
    #[serde(default)]
    pub unattended: Option<Vec<Risk>>,
    /// Replaces the standing instructions; absent: unchanged.
    #[serde(default)]
    pub instructions: Option<String>,
    /// Replaces the role's own skills; absent: unchanged.
    #[serde(default)]
    pub skills: Option<Vec<String>>,
    #[serde(default)]
    pub wake_command: Option<Vec<String>>,
    #[serde(default)]
    pub wake_timeout_seconds: Option<u32>,
}

/// What a new role's wake-ups may do unattended: answer the mail they are
/// handed (`send_message` back to its senders), nothing more. Sending to
/// anyone else, changing other systems, writing, running or reaching the
/// network is a person's grant in the Inbox.
pub const DEFAULT_UNATTENDED: [Risk; 1] = [Risk::Reply];

const COLUMNS: &str = "a.id, a.name, a.kind, a.user_id, a.agent_id, a.wake_interval_minutes,
     a.next_wake_at, a.last_wake_at, a.last_wake_error, a.created_at,
     coalesce((SELECT n FROM bus_unread b WHERE b.author_id = a.id), 0),
     coalesce(u.is_owner, 0),
     (SELECT group_concat(risk, ',') FROM (SELECT risk FROM role_unattended r WHERE r.author_id = a.id ORDER BY risk)),
     a.instructions, a.wake_command, a.wake_timeout_seconds,
     (SELECT group_concat(skill_id, ',') FROM (SELECT skill_id FROM role_skills s WHERE s.author_id = a.id ORDER BY skill_id))";

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Author> {
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

pub(crate) fn find(conn: &Connection, id: &str) -> Result<Option<Author>> {
    // Every token request reads its author: prepared once per connection.
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM authors a LEFT JOIN users u ON u.id = a.user_id WHERE a.id = ?1"
        ))?
        .query_row([id], from_row)
        .optional()?)
}

/// The author, or `not_found`.
pub(crate) fn require(conn: &Connection, id: &str) -> Result<Author> {
    find(conn, id)?.ok_or_else(|| AppError::not_found("author", id))
}

/// `not_found` unless the author exists (the cheap check of hot paths).
pub(crate) fn require_exists(conn: &Connection, id: &str) -> Result<()> {
    let found = conn
        .prepare_cached("SELECT 1 FROM authors WHERE id = ?1")?
        .query_row([id], |_| Ok(()))
        .optional()?;
    found.ok_or_else(|| AppError::not_found("author", id))
}

/// An author by id or, case-insensitively, by name (the MCP tools and the
/// drop folder name recipients as people write them).
pub(crate) fn find_by_id_or_name(conn: &Connection, key: &str) -> Result<Option<Author>> {
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

pub(crate) fn list_in(conn: &Connection) -> Result<Vec<Author>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM authors a LEFT JOIN users u ON u.id = a.user_id
         ORDER BY coalesce(u.is_owner, 0) DESC, a.kind DESC, a.name COLLATE NOCASE"
    ))?;
    let rows = stmt.query_map([], from_row)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

pub async fn list(ctx: &Ctx) -> Result<Vec<Author>> {
    if let Some(pg) = ctx.bus_pg() {
        return pg::authors::list(pg, ctx.owner()).await;
    }
    ctx.store().read(list_in).await
}

pub async fn get(ctx: &Ctx, id: &str) -> Result<Author> {
    if let Some(pg) = ctx.bus_pg() {
        return pg::authors::require(pg, ctx.owner(), id).await;
    }
    let id = id.to_owned();
    ctx.store().read(move |conn| require(conn, &id)).await
}

/// The owner's own author: who the desktop app sends as.
pub async fn owner(ctx: &Ctx) -> Result<Author> {
    get(ctx, ctx.owner()).await
}

/// Gives every user without an author one (at every start, and with each
/// new user). The token is thrown away: a person who wants to use the bus
/// from elsewhere rotates it to see one.
pub(crate) fn ensure_user_authors(conn: &Connection) -> Result<()> {
    let mut stmt = conn.prepare(
        "SELECT u.id, u.name FROM users u
         WHERE NOT EXISTS (SELECT 1 FROM authors a WHERE a.user_id = u.id)",
    )?;
    let missing: Vec<(String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (user, name) in missing {
        let taken = |conn: &Connection, name: &str| -> Result<bool> {
            Ok(conn
                .query_row(
                    "SELECT 1 FROM authors WHERE id = ?1 OR name = ?2 COLLATE NOCASE",
                    [&user, name],
                    |_| Ok(()),
                )
                .optional()?
                .is_some())
        };
        if taken(conn, &name)? {
            tracing::warn!(
                "user '{user}' has no bus author: the id or name '{name}' is taken by a role"
            );
            continue;
        }
        let (_, hash) = token::generate()?;
        conn.execute(
            "INSERT INTO authors (id, name, kind, user_id, token_hash, created_at)
             VALUES (?1, ?2, 'user', ?1, ?3, ?4)",
            params![user, name, hash, stored(time::now())],
        )?;
    }
    Ok(())
}

/// [`ensure_user_authors`] for a bus on PostgreSQL: every user of this
/// workspace gets an author there unless they have one.
pub(crate) async fn ensure_user_authors_on(
    pg: &pg::PgBus,
    store: &crate::store::Store,
) -> Result<()> {
    let users: Vec<(String, String)> = store
        .read(|conn| {
            let mut stmt = conn.prepare("SELECT id, name FROM users")?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
        .await?;
    for (user, name) in users {
        let (_, hash) = token::generate()?;
        pg::authors::ensure_user(pg, &user, &name, &hash).await?;
    }
    Ok(())
}

/// The author `id` by id or name (the MCP tools and the CLI name
/// recipients as people write them), wherever the bus lives.
pub(crate) async fn lookup(ctx: &Ctx, key: &str) -> Result<Option<Author>> {
    if let Some(pg) = ctx.bus_pg() {
        return pg::authors::find_by_id_or_name(pg, ctx.owner(), key).await;
    }
    let key = key.to_owned();
    ctx.store()
        .read(move |conn| find_by_id_or_name(conn, &key))
        .await
}

/// `not_found` unless the author exists, wherever the bus lives.
pub(crate) async fn must_exist(ctx: &Ctx, id: &str) -> Result<()> {
    if let Some(pg) = ctx.bus_pg() {
        return pg::authors::require_exists(pg, id).await;
    }
    let id = id.to_owned();
    ctx.store()
        .read(move |conn| require_exists(conn, &id))
        .await
}

/// A role of a bus on PostgreSQL, mirrored in this workspace's store as a
/// bare row (no token anyone knows, no schedule) with its name and its
/// agent when this workspace has that agent: what this replica keeps of
/// its wake-ups (history, cut-off runs, the role's thread) and its
/// scheduled jobs point at it.
pub(crate) async fn mirror_locally(ctx: &Ctx, role: &Author) -> Result<()> {
    if ctx.bus_pg().is_none() || role.kind != AuthorKind::Role {
        return Ok(());
    }
    let (id, name, agent) = (role.id.clone(), role.name.clone(), role.agent_id.clone());
    let (_, hash) = token::generate()?;
    ctx.store()
        .write(move |tx| {
            tx.execute(
                "INSERT INTO authors (id, name, kind, token_hash, created_at, agent_id)
                 VALUES (?1, ?2, 'role', ?3, ?4, (SELECT id FROM agents WHERE id = ?5))
                 ON CONFLICT (id) DO UPDATE SET name = excluded.name, agent_id = excluded.agent_id",
                params![id, name, hash, stored(time::now()), agent],
            )?;
            Ok(())
        })
        .await
}

/// The wake interval of a role that can be woken (it has an agent or a
/// wake command): default 30 minutes; none for a role that polls.
fn check_interval(minutes: Option<u32>, wakeable: bool) -> Result<Option<u32>> {
    match (minutes, wakeable) {
        (Some(m), _) if !(1..=MAX_WAKE_MINUTES).contains(&m) => Err(AppError::invalid_field(
            "wakeIntervalMinutes",
            "out_of_range",
            format!("the wake interval must be 1 to {MAX_WAKE_MINUTES} minutes, not {m}"),
        )),
        (Some(_), false) => Err(AppError::invalid_field(
            "wakeIntervalMinutes",
            "needs_agent",
            "only a role with an agent or a wake command can be woken: set one of them too",
        )),
        (None, true) => Ok(Some(DEFAULT_WAKE_MINUTES)),
        (m, _) => Ok(m),
    }
}

fn check_agent(conn: &Connection, agent: Option<&str>) -> Result<Option<String>> {
    let Some(agent) = agent.map(str::trim).filter(|a| !a.is_empty()) else {
        return Ok(None);
    };
    if crate::agents::find(conn, &AgentId::from(agent))?.is_none() {
        return Err(AppError::invalid_field(
            "agentId",
            "unknown_agent",
            format!("unknown agent: {agent}"),
        ));
    }
    Ok(Some(agent.to_owned()))
}

/// How a role is woken, checked: its agent or its command (not both), the
/// command's time limit, the schedule.
struct Waking {
    agent: Option<String>,
    command: Option<Vec<String>>,
    timeout: Option<u32>,
    interval: Option<u32>,
}

fn check_waking(
    conn: &Connection,
    agent: Option<&str>,
    command: Option<&[String]>,
    timeout: Option<u32>,
    minutes: Option<u32>,
) -> Result<Waking> {
    let agent = check_agent(conn, agent)?;
    let command = role_config::check_command(command)?;
    if agent.is_some() && command.is_some() {
        return Err(AppError::invalid_field(
            "wakeCommand",
            "agent_and_command",
            "a role is woken by its agent or by a command, not both: clear one of them",
        ));
    }
    let timeout = role_config::check_timeout(timeout)?;
    if timeout.is_some() && command.is_none() {
        return Err(AppError::invalid_field(
            "wakeTimeoutSeconds",
            "needs_command",
            "only a wake command has a time limit: set the command too",
        ));
    }
    let interval = check_interval(minutes, agent.is_some() || command.is_some())?;
    Ok(Waking {
        agent,
        command,
        timeout,
        interval,
    })
}

fn next_wake(minutes: Option<u32>, from: DateTime<Utc>) -> Option<String> {
    next_wake_at(minutes, from).map(stored)
}

fn next_wake_at(minutes: Option<u32>, from: DateTime<Utc>) -> Option<DateTime<Utc>> {
    minutes.map(|m| from + Duration::minutes(i64::from(m)))
}

/// How a role of a bus on PostgreSQL is to be woken and told, as given.
struct RoleSettings {
    agent: Option<String>,
    command: Option<Vec<String>>,
    timeout: Option<u32>,
    interval: Option<u32>,
    instructions: Option<String>,
    skills: Option<Vec<String>>,
}

/// Checks a PostgreSQL role's settings against this workspace (its agents
/// and skills are this replica's): how it wakes, and the instructions and
/// skills that were given.
async fn check_role_settings(
    ctx: &Ctx,
    given: RoleSettings,
) -> Result<(Waking, Option<String>, Option<Vec<String>>)> {
    ctx.store()
        .read(move |conn| {
            let waking = check_waking(
                conn,
                given.agent.as_deref(),
                given.command.as_deref(),
                given.timeout,
                given.interval,
            )?;
            let instructions = given
                .instructions
                .as_deref()
                .map(role_config::check_instructions)
                .transpose()?;
            let skills = given
                .skills
                .as_deref()
                .map(|s| role_config::check_skills(conn, s))
                .transpose()?;
            Ok((waking, instructions, skills))
        })
        .await
}

/// Registers a role; the answer carries its token, the only time it is shown.
pub async fn create(ctx: &Ctx, input: NewAuthor) -> Result<AuthorWithToken> {
    let name = validate::name("name", &input.name, 80)?;
    let id = slug_for("name", &name)?;
    if let Some(pg) = ctx.bus_pg() {
        let pg = std::sync::Arc::clone(pg);
        let (waking, instructions, skills) = check_role_settings(
            ctx,
            RoleSettings {
                agent: input.agent_id.clone(),
                command: input.wake_command.clone(),
                timeout: input.wake_timeout_seconds,
                interval: input.wake_interval_minutes,
                instructions: Some(input.instructions.clone().unwrap_or_default()),
                skills: Some(input.skills.clone().unwrap_or_default()),
            },
        )
        .await?;
        let (instructions, skills) = (instructions.unwrap_or_default(), skills.unwrap_or_default());
        let (token, hash) = token::generate()?;
        let unattended = input.unattended.unwrap_or(DEFAULT_UNATTENDED.to_vec());
        let author = pg::authors::create(
            &pg,
            ctx.owner(),
            pg::authors::NewRole {
                id: &id,
                name: &name,
                agent: waking.agent.as_deref(),
                hash: &hash,
                interval: waking.interval,
                next_wake_at: next_wake_at(waking.interval, time::now()),
                instructions: &instructions,
                command: command_column(waking.command.as_ref()),
                timeout: waking.timeout,
                unattended: &unattended,
                skills: &skills,
            },
        )
        .await?;
        // No drop folder: a shared bus's replicas read none.
        ctx.changed(Change::Authors);
        return Ok(AuthorWithToken { author, token });
    }
    let created = ctx
        .store()
        .write(move |tx| {
            let taken: Option<String> = tx
                .query_row(
                    "SELECT id FROM authors WHERE id = ?1 OR name = ?2 COLLATE NOCASE",
                    [&id, &name],
                    |r| r.get(0),
                )
                .optional()?;
            if let Some(taken) = taken {
                return Err(AppError::conflicting_field(
                    "name",
                    "duplicate_name",
                    format!("an author '{taken}' already exists"),
                ));
            }
            let waking = check_waking(
                tx,
                input.agent_id.as_deref(),
                input.wake_command.as_deref(),
                input.wake_timeout_seconds,
                input.wake_interval_minutes,
            )?;
            let instructions =
                role_config::check_instructions(input.instructions.as_deref().unwrap_or(""))?;
            let skills = role_config::check_skills(tx, input.skills.as_deref().unwrap_or(&[]))?;
            let (token, hash) = token::generate()?;
            let now = time::now();
            tx.execute(
                "INSERT INTO authors (id, name, kind, agent_id, token_hash, wake_interval_minutes,
                                          next_wake_at, created_at, instructions, wake_command,
                                          wake_timeout_seconds)
                     VALUES (?1, ?2, 'role', ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![
                    id,
                    name,
                    waking.agent,
                    hash,
                    waking.interval,
                    next_wake(waking.interval, now),
                    stored(now),
                    instructions,
                    command_column(waking.command.as_ref()),
                    waking.timeout
                ],
            )?;
            role_config::write_skills(tx, &id, &skills)?;
            let unattended = input
                .unattended
                .clone()
                .unwrap_or(DEFAULT_UNATTENDED.to_vec());
            permissions::write_unattended(tx, &id, &unattended)?;
            Ok(AuthorWithToken {
                author: require(tx, &id)?,
                token,
            })
        })
        .await?;
    super::drop_folder::prepare(ctx, &created.author.id);
    ctx.changed(Change::Authors);
    Ok(created)
}

/// Sets how a role is woken (agent or command, interval) and, when given,
/// its grants, instructions and skills. The next wake-up is counted from
/// now with the new interval.
pub async fn update(ctx: &Ctx, id: &str, input: AuthorUpdate) -> Result<Author> {
    if let Some(pg) = ctx.bus_pg() {
        let pg = std::sync::Arc::clone(pg);
        pg::authors::require(&pg, ctx.owner(), id).await?;
        let (waking, instructions, skills) = check_role_settings(
            ctx,
            RoleSettings {
                agent: input.agent_id.clone(),
                command: input.wake_command.clone(),
                timeout: input.wake_timeout_seconds,
                interval: input.wake_interval_minutes,
                instructions: input.instructions.clone(),
                skills: input.skills.clone(),
            },
        )
        .await?;
        let author = pg::authors::update(
            &pg,
            ctx.owner(),
            id,
            pg::authors::RoleUpdate {
                agent: waking.agent.as_deref(),
                interval: waking.interval,
                next_wake_at: next_wake_at(waking.interval, time::now()),
                command: command_column(waking.command.as_ref()),
                timeout: waking.timeout,
                instructions: instructions.as_deref(),
                skills: skills.as_deref(),
                unattended: input.unattended.as_deref(),
            },
        )
        .await?;
        ctx.changed(Change::Authors);
        ctx.wake_scheduler();
        return Ok(author);
    }
    let id = id.to_owned();
    let author = ctx
        .store()
        .write(move |tx| {
            let author = require(tx, &id)?;
            if author.kind == AuthorKind::User {
                return Err(AppError::new(
                    ErrorCode::Validation,
                    format!("'{id}' is a person: only roles have an agent and a schedule"),
                ));
            }
            let waking = check_waking(
                tx,
                input.agent_id.as_deref(),
                input.wake_command.as_deref(),
                input.wake_timeout_seconds,
                input.wake_interval_minutes,
            )?;
            tx.execute(
                "UPDATE authors SET agent_id = ?2, wake_interval_minutes = ?3, next_wake_at = ?4,
                                    wake_command = ?5, wake_timeout_seconds = ?6
                 WHERE id = ?1",
                params![
                    id,
                    waking.agent,
                    waking.interval,
                    next_wake(waking.interval, time::now()),
                    command_column(waking.command.as_ref()),
                    waking.timeout
                ],
            )?;
            if let Some(instructions) = &input.instructions {
                let instructions = role_config::check_instructions(instructions)?;
                tx.execute(
                    "UPDATE authors SET instructions = ?2 WHERE id = ?1",
                    params![id, instructions],
                )?;
            }
            if let Some(skills) = &input.skills {
                let skills = role_config::check_skills(tx, skills)?;
                role_config::write_skills(tx, &id, &skills)?;
            }
            if let Some(unattended) = &input.unattended {
                permissions::write_unattended(tx, &id, unattended)?;
            }
            require(tx, &id)
        })
        .await?;
    ctx.changed(Change::Authors);
    ctx.wake_scheduler();
    Ok(author)
}

/// A new token; the old one stops working at once.
pub async fn rotate_token(ctx: &Ctx, id: &str) -> Result<AuthorWithToken> {
    if let Some(pg) = ctx.bus_pg() {
        let (token, hash) = token::generate()?;
        let author = pg::authors::rotate_token(pg, ctx.owner(), id, &hash).await?;
        ctx.changed(Change::Authors);
        return Ok(AuthorWithToken { author, token });
    }
    let id = id.to_owned();
    let rotated = ctx
        .store()
        .write(move |tx| {
            require(tx, &id)?;
            let (token, hash) = token::generate()?;
            tx.execute(
                "UPDATE authors SET token_hash = ?2 WHERE id = ?1",
                params![id, hash],
            )?;
            Ok(AuthorWithToken {
                author: require(tx, &id)?,
                token,
            })
        })
        .await?;
    ctx.changed(Change::Authors);
    Ok(rotated)
}

/// Removes a role and its inbox. Mail it sent stays with its readers. A
/// person's author goes only with the person.
pub async fn remove(ctx: &Ctx, id: &str) -> Result<()> {
    if let Some(pg) = ctx.bus_pg() {
        pg::authors::remove(pg, ctx.owner(), id).await?;
        // What this replica kept of the role's wake-ups goes with it.
        let id = id.to_owned();
        ctx.store()
            .write(move |tx| {
                tx.execute("DELETE FROM authors WHERE id = ?1 AND kind = 'role'", [&id])?;
                Ok(())
            })
            .await?;
        ctx.changed(Change::Authors);
        ctx.changed(Change::Messages);
        return Ok(());
    }
    let id = id.to_owned();
    ctx.store()
        .write(move |tx| {
            let author = require(tx, &id)?;
            if author.kind == AuthorKind::User {
                return Err(AppError::new(
                    ErrorCode::Validation,
                    format!("'{id}' is a person's author: it goes only with the person"),
                ));
            }
            tx.execute("DELETE FROM authors WHERE id = ?1", [&id])?;
            // Its own message ids go with it: a later author of the same
            // name must not find its sends answered by the old one's.
            tx.execute("DELETE FROM bus_client_ids WHERE from_author = ?1", [&id])?;
            Ok(())
        })
        .await?;
    ctx.changed(Change::Authors);
    ctx.changed(Change::Messages);
    Ok(())
}

/// The caller a bearer token stands for (its author), or `unauthorized`.
pub async fn caller_from_token(ctx: &Ctx, token: &str, client: Client) -> Result<Caller> {
    let author = authenticate(ctx, token).await?;
    caller_as(ctx, &author, client).await
}

/// A caller acting as `author` (an existing author), through `client`.
pub async fn caller_as(ctx: &Ctx, author: &str, client: Client) -> Result<Caller> {
    let found = get(ctx, author).await?;
    Ok(Caller::for_author(found.id, found.user_id, client))
}

/// The author a bearer token belongs to, or `unauthorized`.
pub async fn authenticate(ctx: &Ctx, bearer: &str) -> Result<String> {
    let refused = || {
        AppError::new(
            ErrorCode::Unauthorized,
            "the bearer token is missing or not valid",
        )
    };
    let bearer = bearer.trim().to_owned();
    if !token::well_formed(&bearer) {
        return Err(refused());
    }
    let hash = token::hash(&bearer);
    if let Some(pg) = ctx.bus_pg() {
        return match pg::authors::by_token_hash(pg, &hash).await? {
            Some((id, stored_hash)) if token::matches(&bearer, &stored_hash) => Ok(id),
            _ => Err(refused()),
        };
    }
    let found: Option<(String, Vec<u8>)> = ctx
        .store()
        .read(move |conn| {
            let own = conn
                .prepare_cached("SELECT id, token_hash FROM authors WHERE token_hash = ?1")?
                .query_row([&hash], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            if own.is_some() {
                return Ok(own);
            }
            // A wake command's short-lived token, until it expires (the
            // wake-up removes it when it ends).
            Ok(conn
                .prepare_cached(
                    "SELECT author_id, token_hash FROM author_wake_tokens
                     WHERE token_hash = ?1 AND expires_at > ?2",
                )?
                .query_row(params![hash, stored(time::now())], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
                .optional()?)
        })
        .await?;
    match found {
        Some((id, stored_hash)) if token::matches(&bearer, &stored_hash) => Ok(id),
        _ => Err(refused()),
    }
}
