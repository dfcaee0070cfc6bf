//! Where a run came from, as the store keeps it: a role's wake-up (its
//! `role_wakes` row: the role it speaks as, the messages it was handed and
//! who wrote them) or a scheduled job (its history links the run).
//!
//! A run's origin is looked up once, where it starts or resumes, and handed
//! down in its `RunBase`: the runtime that drives the run never reads the
//! role runner's or the cron scheduler's tables, and the permission gate
//! reads here whom a woken role may answer.

use rusqlite::{Connection, OptionalExtension, params};

use crate::ctx::Ctx;
use crate::error::Result;

/// A wake-up run being started: who it speaks as, what it was handed and
/// who wrote it.
pub(crate) struct WakeOf {
    pub author: String,
    pub message_ids: Vec<String>,
    /// The senders of those messages: whom a "reply" grant lets it answer.
    pub senders: Vec<String>,
}

/// Records that `run` is `wake`'s run (in the transaction that knows both).
pub(crate) fn record_wake(conn: &Connection, run: &str, wake: &WakeOf) -> Result<()> {
    conn.execute(
        "INSERT INTO role_wakes (run_id, author_id, message_ids, senders) VALUES (?1, ?2, ?3, ?4)",
        params![
            run,
            wake.author,
            serde_json::to_string(&wake.message_ids)?,
            serde_json::to_string(&wake.senders)?
        ],
    )?;
    Ok(())
}

/// The authors whose mail the wake-up run `run` was handed (none for a run
/// that is not a wake-up's).
pub(crate) fn senders_of(conn: &Connection, run: &str) -> Result<Vec<String>> {
    let senders: Option<String> = conn
        .query_row(
            "SELECT senders FROM role_wakes WHERE run_id = ?1",
            [run],
            |r| r.get(0),
        )
        .optional()?;
    Ok(match senders {
        Some(json) => serde_json::from_str(&json)?,
        None => Vec::new(),
    })
}

/// The author a run speaks as on the bus, if it is a wake-up run.
pub(crate) fn author_of(conn: &Connection, run: &str) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT author_id FROM role_wakes WHERE run_id = ?1",
            [run],
            |r| r.get(0),
        )
        .optional()?)
}

/// Where a stored run came from: what a resumed run is handed down.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RunOrigin {
    /// The role a wake-up run speaks as: it goes on speaking as it.
    pub author: Option<String>,
    /// The scheduled job that started the run: it stays unattended, within
    /// the job's grant.
    pub job: Option<String>,
}

impl RunOrigin {
    /// Nobody watches a run a role's wake-up or a job started.
    pub(crate) fn attended(&self) -> bool {
        self.author.is_none() && self.job.is_none()
    }
}

/// Where the stored run `run_id` came from.
pub(crate) async fn origin_of(ctx: &Ctx, run_id: &str) -> Result<RunOrigin> {
    let id = run_id.to_owned();
    ctx.store()
        .read(move |conn| {
            Ok(RunOrigin {
                author: author_of(conn, &id)?,
                job: crate::cron::job_of_run(conn, &id)?,
            })
        })
        .await
}
