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
use rusqlite::{Connection, params};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::role_config;
use super::token;
use crate::caller::{Caller, Client};
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, ErrorCode, Result};
use crate::ids::{AgentId, slug_for};
use crate::risk::Risk;
use crate::store::bus::command_column;
use crate::store::bus::port::{BusStore, Person, RoleRow, RoleUpdateRow};
use crate::store::bus::time::{self, stored};
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

pub async fn list(ctx: &Ctx) -> Result<Vec<Author>> {
    ctx.bus().authors().await
}

/// One author in the bus's directory: what a sender needs, nothing more
/// (no token, no agent, no wake-up settings).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, specta::Type)]
pub struct DirectoryEntry {
    pub id: String,
    pub name: String,
    /// `user` (a person) or `role`.
    pub kind: String,
}

/// Every author, by name (case aside): the directory to address mail.
pub async fn directory(ctx: &Ctx) -> Result<Vec<DirectoryEntry>> {
    let mut entries: Vec<DirectoryEntry> = list(ctx)
        .await?
        .into_iter()
        .map(|a| DirectoryEntry {
            kind: match a.kind {
                AuthorKind::User => "user",
                AuthorKind::Role => "role",
            }
            .to_owned(),
            id: a.id,
            name: a.name,
        })
        .collect();
    entries.sort_by_key(|e| e.name.to_lowercase());
    Ok(entries)
}

pub async fn get(ctx: &Ctx, id: &str) -> Result<Author> {
    ctx.bus()
        .author(id)
        .await?
        .ok_or_else(|| AppError::not_found("author", id))
}

/// The owner's own author: who the desktop app sends as.
pub async fn owner(ctx: &Ctx) -> Result<Author> {
    get(ctx, ctx.owner()).await
}

/// Gives every user of this workspace without an author one (at every
/// start, and with each new user). The token is thrown away: a person who
/// wants to use the bus from elsewhere rotates it to see one.
pub(crate) async fn ensure_people_have_authors(
    store: &crate::store::Store,
    bus: &dyn BusStore,
) -> Result<()> {
    let users: Vec<(String, String)> = store
        .read(|conn| {
            let mut stmt = conn.prepare("SELECT id, name FROM users")?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
        .await?;
    let people = users
        .into_iter()
        .map(|(user, name)| {
            let (_, hash) = token::generate()?;
            Ok(Person { user, name, hash })
        })
        .collect::<Result<Vec<_>>>()?;
    bus.ensure_people(people).await
}

/// The author `id` by id or name (the MCP tools and the CLI name
/// recipients as people write them), wherever the bus lives.
pub(crate) async fn lookup(ctx: &Ctx, key: &str) -> Result<Option<Author>> {
    ctx.bus().author_by_id_or_name(key).await
}

/// `not_found` unless the author exists, wherever the bus lives.
pub(crate) async fn must_exist(ctx: &Ctx, id: &str) -> Result<()> {
    if ctx.bus().author_exists(id).await? {
        return Ok(());
    }
    Err(AppError::not_found("author", id))
}

/// A role of a shared bus (PostgreSQL), mirrored in this workspace's store
/// as a bare row (no token anyone knows, no schedule) with its name and
/// its agent when this workspace has that agent: what this replica keeps
/// of its wake-ups (history, cut-off runs, the role's thread) and its
/// scheduled jobs point at it. A bus in this workspace holds the row
/// itself.
pub(crate) async fn mirror_locally(ctx: &Ctx, role: &Author) -> Result<()> {
    if !ctx.bus().is_shared() || role.kind != AuthorKind::Role {
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

fn next_wake_at(minutes: Option<u32>, from: DateTime<Utc>) -> Option<DateTime<Utc>> {
    minutes.map(|m| from + Duration::minutes(i64::from(m)))
}

/// How a role is to be woken and told, as given.
struct RoleSettings {
    agent: Option<String>,
    command: Option<Vec<String>>,
    timeout: Option<u32>,
    interval: Option<u32>,
    instructions: Option<String>,
    skills: Option<Vec<String>>,
}

/// The [`RoleSettings`] a [`NewAuthor`] or an [`AuthorUpdate`] gives (the
/// two share these fields' names).
macro_rules! settings_of {
    ($input:expr) => {
        RoleSettings {
            agent: $input.agent_id.clone(),
            command: $input.wake_command.clone(),
            timeout: $input.wake_timeout_seconds,
            interval: $input.wake_interval_minutes,
            instructions: $input.instructions.clone(),
            skills: $input.skills.clone(),
        }
    };
}

/// Checks a role's settings against this workspace (its agents and skills
/// are this workspace's, on a shared bus this replica's): how it wakes, and
/// the instructions and skills that were given.
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
    let mut given = settings_of!(input);
    // A new role's instructions and skills are checked even when empty.
    given.instructions.get_or_insert_default();
    given.skills.get_or_insert_default();
    let (waking, instructions, skills) = check_role_settings(ctx, given).await?;
    let (token, hash) = token::generate()?;
    let author = ctx
        .bus()
        .create_role(RoleRow {
            id,
            name,
            agent: waking.agent,
            hash,
            interval: waking.interval,
            next_wake_at: next_wake_at(waking.interval, time::now()),
            instructions: instructions.unwrap_or_default(),
            command: command_column(waking.command.as_ref()),
            timeout: waking.timeout,
            unattended: input.unattended.unwrap_or(DEFAULT_UNATTENDED.to_vec()),
            skills: skills.unwrap_or_default(),
        })
        .await?;
    // A shared bus's replicas read no drop folder.
    if !ctx.bus().is_shared() {
        super::drop_folder::prepare(ctx, &author.id);
    }
    ctx.changed(Change::Authors);
    Ok(AuthorWithToken { author, token })
}

/// Sets how a role is woken (agent or command, interval) and, when given,
/// its grants, instructions and skills. The next wake-up is counted from
/// now with the new interval.
pub async fn update(ctx: &Ctx, id: &str, input: AuthorUpdate) -> Result<Author> {
    if get(ctx, id).await?.kind == AuthorKind::User {
        return Err(AppError::new(
            ErrorCode::Validation,
            format!("'{id}' is a person: only roles have an agent and a schedule"),
        ));
    }
    let (waking, instructions, skills) = check_role_settings(ctx, settings_of!(input)).await?;
    let author = ctx
        .bus()
        .update_role(
            id,
            RoleUpdateRow {
                agent: waking.agent,
                interval: waking.interval,
                next_wake_at: next_wake_at(waking.interval, time::now()),
                command: command_column(waking.command.as_ref()),
                timeout: waking.timeout,
                instructions,
                skills,
                unattended: input.unattended,
            },
        )
        .await?;
    ctx.changed(Change::Authors);
    ctx.wake_scheduler();
    Ok(author)
}

/// What a person is called (issue 37: the first run asks, "What should we
/// call you?"): their user's name and their author's on the bus, which is
/// how others see them there. Another author with the name is a conflict.
pub async fn set_person_name(ctx: &Ctx, user: &str, name: &str) -> Result<Author> {
    let name = validate::name("name", name, 60)?;
    let author = ctx.bus().rename_person(user, &name).await?;
    let (user, stored_name) = (user.to_owned(), name.clone());
    ctx.store()
        .write(move |tx| {
            tx.execute(
                "UPDATE users SET name = ?2 WHERE id = ?1",
                params![user, stored_name],
            )?;
            Ok(())
        })
        .await?;
    ctx.changed(Change::Authors);
    ctx.changed(Change::Users);
    Ok(author)
}

/// A new token; the old one stops working at once.
pub async fn rotate_token(ctx: &Ctx, id: &str) -> Result<AuthorWithToken> {
    let (token, hash) = token::generate()?;
    let author = ctx.bus().rotate_token(id, &hash).await?;
    ctx.changed(Change::Authors);
    Ok(AuthorWithToken { author, token })
}

/// Removes a role and its inbox. Mail it sent stays with its readers. A
/// person's author goes only with the person.
pub async fn remove(ctx: &Ctx, id: &str) -> Result<()> {
    if get(ctx, id).await?.kind == AuthorKind::User {
        return Err(AppError::new(
            ErrorCode::Validation,
            format!("'{id}' is a person's author: it goes only with the person"),
        ));
    }
    ctx.bus().remove_role(id).await?;
    if ctx.bus().is_shared() {
        // What this replica kept of the role's wake-ups goes with it.
        let id = id.to_owned();
        ctx.store()
            .write(move |tx| {
                tx.execute("DELETE FROM authors WHERE id = ?1 AND kind = 'role'", [&id])?;
                Ok(())
            })
            .await?;
    }
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
    let found = ctx.bus().token_owner(&hash).await?;
    match found {
        Some((id, stored_hash)) if token::matches(&bearer, &stored_hash) => Ok(id),
        _ => Err(refused()),
    }
}
