//! Mail written on this desktop for the team bus, in the order it was
//! written, until the bus acknowledges it (issue 17).
//!
//! Why an outbox rather than sending from the button: the link to a team's
//! bus comes and goes (a laptop's Wi-Fi, a VPN, the server restarting), and
//! a person who wrote a message expects it to leave, once, without keeping
//! the window open on a spinner. Each entry gets its message id when it is
//! written; [`deliver`] sends waiting entries oldest first and stops at the
//! first one the link fails on, so mail leaves in order. What the bus
//! refuses on purpose (no such recipient, a body too long) is marked
//! failed with the bus's reason and does not hold up the rest.

use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::params;
use serde::{Deserialize, Serialize};

use super::{is_link_failure, open, record};
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, Result};
use crate::inbox::messages::{Priority, SendMessage, check_body};

/// How many delivered entries the outbox keeps showing.
const SENT_SHOWN: u32 = 50;

/// Where an entry stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum OutboxState {
    /// Not acknowledged by the team bus yet.
    Waiting,
    /// The team bus has it (`sentId`).
    Sent,
    /// The team bus refused it (`error` says why); it will not be sent.
    Failed,
}

/// One message written here for the team bus.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct OutboxEntry {
    pub seq: i64,
    /// The id the team bus keeps it once by.
    pub message_id: String,
    pub to: String,
    pub body: String,
    pub priority: Priority,
    pub reply_to: Option<String>,
    pub state: OutboxState,
    pub created_at: DateTime<Utc>,
    pub attempts: u32,
    /// The message's id on the team bus, once there.
    pub sent_id: Option<String>,
    pub sent_at: Option<DateTime<Utc>>,
    pub error: Option<String>,
}

/// What one delivery pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeliveryPass {
    pub delivered: u32,
    pub failed: u32,
    /// Entries still waiting (the link failed on the first of them).
    pub waiting: u32,
}

/// Writes a message to the outbox; it leaves with the next delivery pass.
pub async fn send(ctx: &Ctx, to: &str, message: SendMessage) -> Result<OutboxEntry> {
    let to = to.trim().to_owned();
    if to.is_empty() {
        return Err(AppError::invalid_field(
            "to",
            "required",
            "whom to: an author id on the team bus",
        ));
    }
    check_body(&message.body)?;
    let priority = Priority::parse(message.priority.as_deref().unwrap_or("normal"))?;
    let message_id = match message.message_id {
        Some(id) => {
            crate::inbox::client_ids::check(&id)?;
            id
        }
        None => uuid::Uuid::new_v4().to_string(),
    };
    let now = crate::store::bus::time::now().to_rfc3339();
    let body = message.body;
    let reply_to = message.reply_to;
    let entry = ctx
        .store()
        .write(move |tx| {
            if tx.query_row("SELECT count(*) FROM team_bus", [], |r| r.get::<_, i64>(0))? == 0 {
                return Err(AppError::precondition(
                    "this computer is not on a team bus: connect one in Settings → Bus",
                )
                .with_details(serde_json::json!({ "reason": "no_team_bus" })));
            }
            let existing = tx
                .query_row(
                    "SELECT seq FROM team_outbox WHERE message_id = ?1",
                    [&message_id],
                    |r| r.get::<_, i64>(0),
                )
                .ok();
            let seq = match existing {
                // Written already (a second click, a retried call): once.
                Some(seq) => seq,
                None => {
                    tx.execute(
                        "INSERT INTO team_outbox (message_id, to_author, body, priority, reply_to, state, created_at)
                         VALUES (?1, ?2, ?3, ?4, ?5, 'waiting', ?6)",
                        params![message_id, to, body, priority.as_str(), reply_to, now],
                    )?;
                    tx.last_insert_rowid()
                }
            };
            entry(tx, seq)
        })
        .await?;
    ctx.changed(Change::TeamBus);
    super::delivery::ring();
    Ok(entry)
}

/// Everything waiting or refused, oldest first, then the latest delivered.
pub async fn list(ctx: &Ctx) -> Result<Vec<OutboxEntry>> {
    ctx.store()
        .read(|conn| {
            let mut stmt = conn.prepare(
                "SELECT seq FROM team_outbox WHERE state != 'sent'
                 UNION ALL
                 SELECT seq FROM (SELECT seq FROM team_outbox WHERE state = 'sent'
                                  ORDER BY seq DESC LIMIT ?1)
                 ORDER BY seq",
            )?;
            let seqs = stmt
                .query_map([SENT_SHOWN], |r| r.get::<_, i64>(0))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            seqs.into_iter().map(|seq| entry(conn, seq)).collect()
        })
        .await
}

/// Drops an entry that has not left (waiting or refused).
pub async fn discard(ctx: &Ctx, seq: i64) -> Result<()> {
    ctx.store()
        .write(move |tx| {
            let gone = tx.execute(
                "DELETE FROM team_outbox WHERE seq = ?1 AND state != 'sent'",
                [seq],
            )?;
            if gone == 0 {
                return Err(AppError::not_found("unsent message", &seq.to_string()));
            }
            Ok(())
        })
        .await?;
    ctx.changed(Change::TeamBus);
    Ok(())
}

/// Sends what waits, oldest first, one attempt each; stops at the first
/// entry the link fails on so that mail leaves in order.
pub async fn deliver(ctx: &Ctx) -> Result<DeliveryPass> {
    // One pass at a time in this process: two would race for the order.
    static ONE_PASS: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    let _pass = ONE_PASS.lock().await;
    let mut pass = DeliveryPass::default();
    let waiting = waiting(ctx).await?;
    if waiting.is_empty() {
        return Ok(pass);
    }
    let (bus, me) = open(ctx).await?;
    for (index, entry) in waiting.iter().enumerate() {
        let message = SendMessage {
            body: entry.body.clone(),
            priority: Some(entry.priority.as_str().to_owned()),
            reply_to: entry.reply_to.clone(),
            message_id: Some(entry.message_id.clone()),
        };
        let sent = bus.send(&me, &entry.to, message, Duration::ZERO).await;
        let link_failed = sent.as_ref().err().is_some_and(is_link_failure);
        settle(ctx, entry.seq, &sent, link_failed).await?;
        match sent {
            Ok(_) => pass.delivered += 1,
            Err(e) if link_failed => {
                record(ctx, Some(&e)).await;
                pass.waiting = u32::try_from(waiting.len() - index).unwrap_or(u32::MAX);
                return Ok(pass);
            }
            Err(_) => pass.failed += 1,
        }
    }
    record(ctx, None).await;
    Ok(pass)
}

async fn waiting(ctx: &Ctx) -> Result<Vec<OutboxEntry>> {
    ctx.store()
        .read(|conn| {
            let mut stmt =
                conn.prepare("SELECT seq FROM team_outbox WHERE state = 'waiting' ORDER BY seq")?;
            let seqs = stmt
                .query_map([], |r| r.get::<_, i64>(0))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            seqs.into_iter().map(|seq| entry(conn, seq)).collect()
        })
        .await
}

/// Writes down one attempt's outcome.
async fn settle(
    ctx: &Ctx,
    seq: i64,
    sent: &Result<crate::inbox::MessageReceipt>,
    link_failed: bool,
) -> Result<()> {
    let now = crate::store::bus::time::now().to_rfc3339();
    let outcome = match sent {
        Ok(receipt) => Ok(receipt.id.clone()),
        Err(e) => Err(super::remote::clean_text(&e.message)),
    };
    ctx.store()
        .write(move |tx| {
            match outcome {
                Ok(sent_id) => tx.execute(
                    "UPDATE team_outbox SET state = 'sent', attempts = attempts + 1, sent_id = ?2,
                       sent_at = ?3, error = NULL WHERE seq = ?1",
                    params![seq, sent_id, now],
                )?,
                Err(error) if link_failed => tx.execute(
                    "UPDATE team_outbox SET attempts = attempts + 1, error = ?2 WHERE seq = ?1",
                    params![seq, error],
                )?,
                Err(error) => tx.execute(
                    "UPDATE team_outbox SET state = 'failed', attempts = attempts + 1, error = ?2
                     WHERE seq = ?1",
                    params![seq, error],
                )?,
            };
            Ok(())
        })
        .await?;
    ctx.changed(Change::TeamBus);
    Ok(())
}

fn entry(conn: &rusqlite::Connection, seq: i64) -> Result<OutboxEntry> {
    let row = conn.query_row(
        "SELECT message_id, to_author, body, priority, reply_to, state, created_at, attempts,
                sent_id, sent_at, error FROM team_outbox WHERE seq = ?1",
        [seq],
        |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, Option<String>>(4)?,
                r.get::<_, String>(5)?,
                r.get::<_, String>(6)?,
                r.get::<_, u32>(7)?,
                r.get::<_, Option<String>>(8)?,
                r.get::<_, Option<String>>(9)?,
                r.get::<_, Option<String>>(10)?,
            ))
        },
    )?;
    let (
        message_id,
        to,
        body,
        priority,
        reply_to,
        state,
        created,
        attempts,
        sent_id,
        sent_at,
        error,
    ) = row;
    Ok(OutboxEntry {
        seq,
        message_id,
        to,
        body,
        priority: Priority::parse(&priority)?,
        reply_to,
        state: match state.as_str() {
            "sent" => OutboxState::Sent,
            "failed" => OutboxState::Failed,
            _ => OutboxState::Waiting,
        },
        created_at: super::parse_time(&created).unwrap_or_default(),
        attempts,
        sent_id,
        sent_at: sent_at.as_deref().and_then(super::parse_time),
        error,
    })
}
