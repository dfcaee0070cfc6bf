//! This desktop on a team's bus (issue 17, SPEC X1): the person's inbox
//! lives on another machine's `colmena serve`, and what they write leaves
//! through a local outbox.
//!
//! - [`connect`] checks the URL, the certificate (a team CA may be given),
//!   the token and that the token is the named author's — by reading that
//!   inbox once — and only then keeps the settings; the token is sealed by
//!   the vault, and only its mask ever leaves the backend.
//! - [`outbox`]: a send is written here first, with its message id, and
//!   answered at once; [`delivery`] takes waiting mail to the team bus in
//!   the order it was written, retrying with the same id while the link is
//!   down (the server keeps one message per sender and id), and announces
//!   urgent mail that reaches the person there.
//! - [`inbox`] reads the person's inbox there; every exchange records how
//!   the link last went, which is what the window says about it.
//!
//! What the team bus answers is data: bodies are shown, never acted on.

pub mod delivery;
pub mod outbox;
pub mod remote;

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};

use crate::ctx::{Change, Ctx};
use crate::error::{AppError, ErrorCode, Result};
use crate::inbox::authors::DirectoryEntry;
use crate::inbox::messages::{InboxQuery, Message};
use remote::{RemoteBus, RemoteBusConfig};

pub use outbox::{OutboxEntry, OutboxState};

const TOKEN_CONTEXT: &str = "team_bus_token";

/// What the person gives to join a team's bus.
#[derive(Clone, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct TeamBusConnect {
    /// `https://host:port` of the team's `colmena serve`.
    pub url: String,
    /// Who the person is there (the author id the token belongs to).
    pub author_id: String,
    pub token: String,
    /// The team's CA, PEM, when its certificate is not publicly trusted.
    #[serde(default)]
    pub ca_pem: Option<String>,
}

impl std::fmt::Debug for TeamBusConnect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TeamBusConnect")
            .field("url", &self.url)
            .field("author_id", &self.author_id)
            .field("token", &"…")
            .field("ca_pem", &self.ca_pem.as_ref().map(String::len))
            .finish()
    }
}

/// The team bus this desktop uses, and how its link last went.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct TeamBusLink {
    pub url: String,
    pub author_id: String,
    /// The token, masked (`colm…80fe`).
    pub token_mask: String,
    pub custom_ca: bool,
    pub connected_at: DateTime<Utc>,
    /// Whether the last exchange with the bus went through.
    pub reachable: bool,
    pub last_ok_at: Option<DateTime<Utc>>,
    /// Why the last exchange failed, and when (kept after it came back).
    pub last_error: Option<String>,
    pub last_error_at: Option<DateTime<Utc>>,
    /// Mail written here that the team bus has not acknowledged yet.
    pub waiting: u32,
    /// Mail the team bus refused (a wrong recipient…), kept to be seen.
    pub failed: u32,
}

/// The team bus, if this desktop is on one.
pub async fn status(ctx: &Ctx) -> Result<Option<TeamBusLink>> {
    ctx.store().read(read_link).await
}

/// Joins a team's bus after checking everything the settings say; nothing
/// is kept when the check fails.
pub async fn connect(ctx: &Ctx, input: TeamBusConnect) -> Result<TeamBusLink> {
    let author_id = input.author_id.trim().to_owned();
    if author_id.is_empty() {
        return Err(AppError::invalid_field(
            "authorId",
            "required",
            "say who you are on the team bus: your author id there",
        ));
    }
    let ca_pem = input.ca_pem.filter(|pem| !pem.trim().is_empty());
    let token = input.token.trim().to_owned();
    let bus = RemoteBus::new(RemoteBusConfig {
        url: input.url.clone(),
        token: token.clone(),
        ca_pem: ca_pem.clone().map(String::into_bytes),
    })?;
    let probe = InboxQuery {
        peek: Some(true),
        limit: Some(1),
        ..InboxQuery::default()
    };
    bus.inbox(&author_id, &probe).await?;
    let url = bus.url().as_str().trim_end_matches('/').to_owned();
    let sealed = ctx
        .vault()
        .seal(TOKEN_CONTEXT, token.as_bytes())
        .map_err(|e| {
            AppError::precondition(format!("the token cannot be stored: {}", e.message))
        })?;
    let mask = crate::secrets::mask_secret(&token);
    let now = crate::store::bus::time::now().to_rfc3339();
    let link = ctx
        .store()
        .write(move |tx| {
            let previous: Option<(String, String)> = tx
                .query_row("SELECT url, author_id FROM team_bus WHERE id = 1", [], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
                .optional()?;
            let waiting: u32 = tx.query_row(
                "SELECT count(*) FROM team_outbox WHERE state = 'waiting'",
                [],
                |r| r.get(0),
            )?;
            // Waiting mail leaves as who wrote it, to where it was written
            // for: another bus or another author would send it as someone
            // else (and the bus's once-only rule is per sender).
            let same = previous.as_ref().is_some_and(|(u, a)| *u == url && *a == author_id);
            if waiting > 0 && !same {
                return Err(AppError::new(
                    ErrorCode::Conflict,
                    format!(
                        "{waiting} messages still wait to leave for the current team bus and author: let them leave or discard them first"
                    ),
                )
                .with_details(serde_json::json!({ "reason": "outbox_waiting", "waiting": waiting })));
            }
            tx.execute(
                "INSERT INTO team_bus (id, url, author_id, token_sealed, token_mask, ca_pem, connected_at, last_ok_at)
                 VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?6)
                 ON CONFLICT (id) DO UPDATE SET url = ?1, author_id = ?2, token_sealed = ?3,
                   token_mask = ?4, ca_pem = ?5, connected_at = ?6, last_ok_at = ?6,
                   last_error = NULL, last_error_at = NULL",
                params![url, author_id, sealed, mask, ca_pem, now],
            )?;
            read_link(tx)?.ok_or_else(|| AppError::internal("the team bus was not kept"))
        })
        .await?;
    ctx.changed(Change::TeamBus);
    delivery::ring();
    Ok(link)
}

/// Leaves the team bus; what was waiting in the outbox is discarded (the
/// answer says how many).
pub async fn disconnect(ctx: &Ctx) -> Result<u32> {
    let discarded = ctx
        .store()
        .write(|tx| {
            let waiting: u32 = tx.query_row(
                "SELECT count(*) FROM team_outbox WHERE state = 'waiting'",
                [],
                |r| r.get(0),
            )?;
            tx.execute("DELETE FROM team_outbox", [])?;
            tx.execute("DELETE FROM team_bus", [])?;
            Ok(waiting)
        })
        .await?;
    ctx.changed(Change::TeamBus);
    Ok(discarded)
}

/// The person's inbox on the team bus (marking read unless `peek`).
pub async fn inbox(ctx: &Ctx, query: InboxQuery) -> Result<Vec<Message>> {
    let (bus, me) = open(ctx).await?;
    let read = bus.inbox(&me, &query).await;
    record(ctx, read.as_ref().err()).await;
    read
}

/// Who is on the team bus, by name: the picker of the team panel's "To".
pub async fn authors(ctx: &Ctx) -> Result<Vec<DirectoryEntry>> {
    let (bus, _) = open(ctx).await?;
    let read = bus.authors().await;
    record(ctx, read.as_ref().err()).await;
    read
}

/// The client for the team bus, and who the person is there.
pub(crate) async fn open(ctx: &Ctx) -> Result<(RemoteBus, String)> {
    let row = ctx
        .store()
        .read(|conn| {
            Ok(conn
                .query_row(
                    "SELECT url, author_id, token_sealed, ca_pem FROM team_bus WHERE id = 1",
                    [],
                    |r| {
                        Ok((
                            r.get::<_, String>(0)?,
                            r.get::<_, String>(1)?,
                            r.get::<_, Vec<u8>>(2)?,
                            r.get::<_, Option<String>>(3)?,
                        ))
                    },
                )
                .optional()?)
        })
        .await?;
    let Some((url, author_id, sealed, ca_pem)) = row else {
        return Err(AppError::precondition(
            "this computer is not on a team bus: connect one in Settings → Bus",
        )
        .with_details(serde_json::json!({ "reason": "no_team_bus" })));
    };
    let token = ctx.vault().open_envelope(TOKEN_CONTEXT, &sealed)?;
    let token = String::from_utf8(token.to_vec())
        .map_err(|_| AppError::internal("the stored team token is not text"))?;
    let bus = RemoteBus::new(RemoteBusConfig {
        url,
        token,
        ca_pem: ca_pem.map(String::into_bytes),
    })?;
    Ok((bus, author_id))
}

/// Writes down how an exchange with the team bus went: an error that says
/// the link failed (unreachable, busy), or success. An answer the bus gave
/// on purpose (a refusal) still means the link works.
pub(crate) async fn record(ctx: &Ctx, failure: Option<&AppError>) {
    let now = crate::store::bus::time::now().to_rfc3339();
    let link_failure = failure
        .filter(|e| is_link_failure(e))
        .map(|e| remote::clean_text(&e.message));
    let written = ctx
        .store()
        .write(move |tx| {
            match link_failure {
                Some(error) => tx.execute(
                    "UPDATE team_bus SET last_error = ?1, last_error_at = ?2 WHERE id = 1",
                    params![error, now],
                )?,
                None => tx.execute(
                    "UPDATE team_bus SET last_ok_at = ?1 WHERE id = 1",
                    params![now],
                )?,
            };
            Ok(())
        })
        .await;
    if let Err(e) = written {
        tracing::warn!("could not record the team bus's link: {}", e.message);
    }
    ctx.changed(Change::TeamBus);
}

/// Whether an error says the team bus could not be reached, was busy, or
/// no longer takes the token — nothing the next message would fare better
/// with — rather than refusing one request.
pub(crate) fn is_link_failure(e: &AppError) -> bool {
    e.code.is_retryable()
        || e.code == ErrorCode::Unauthorized
        || (e.code == ErrorCode::Upstream
            && e.details
                .as_ref()
                .and_then(|d| d.get("reason"))
                .and_then(|r| r.as_str())
                .is_none_or(|r| r == "unreachable"))
}

fn read_link(conn: &rusqlite::Connection) -> Result<Option<TeamBusLink>> {
    let row = conn
        .query_row(
            "SELECT url, author_id, token_mask, ca_pem IS NOT NULL, connected_at, last_ok_at,
                    last_error, last_error_at FROM team_bus WHERE id = 1",
            [],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, bool>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, Option<String>>(5)?,
                    r.get::<_, Option<String>>(6)?,
                    r.get::<_, Option<String>>(7)?,
                ))
            },
        )
        .optional()?;
    let Some((url, author_id, token_mask, custom_ca, connected, ok_at, error, error_at)) = row
    else {
        return Ok(None);
    };
    let (waiting, failed): (u32, u32) = conn.query_row(
        "SELECT count(*) FILTER (WHERE state = 'waiting'), count(*) FILTER (WHERE state = 'failed')
         FROM team_outbox",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let last_ok_at = ok_at.as_deref().and_then(parse_time);
    let last_error_at = error_at.as_deref().and_then(parse_time);
    Ok(Some(TeamBusLink {
        url,
        author_id,
        token_mask,
        custom_ca,
        connected_at: parse_time(&connected).unwrap_or_default(),
        reachable: match (last_ok_at, last_error_at) {
            (_, None) => true,
            (Some(ok), Some(failed)) => ok > failed,
            (None, Some(_)) => false,
        },
        last_ok_at,
        last_error: error,
        last_error_at,
        waiting,
        failed,
    }))
}

fn parse_time(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}
