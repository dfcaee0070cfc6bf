//! The bus on PostgreSQL (issue 17, COMPASS scale-out step 2): the same
//! authors, messages, message ids and wake-ups as the workspace's SQLite
//! store, in one database that any number of `colmena serve` replicas
//! share. A replica keeps no bus state of its own, so a load balancer may
//! send any request to any of them, and one may die (`kill -9`) without
//! losing an acknowledged message: a send is acknowledged only after its
//! transaction committed, and a retry with the same message id finds it.
//!
//! What differs from SQLite, and why:
//! - a wake-up is claimed with `SELECT … FOR UPDATE SKIP LOCKED` on the
//!   role's row, then moved forward in the same transaction: two replicas
//!   looking at one due role at once never both run it;
//! - urgent mail rings every replica's scheduler through `LISTEN/NOTIFY`
//!   (sent in the send's transaction, so delivered only if it commits); a
//!   replica that missed one still looks every [`FALLBACK_TICK`];
//! - migrations run under a transaction-level advisory lock, so replicas
//!   starting together migrate once;
//! - search is PostgreSQL's full text (`tsvector`, the `simple`
//!   configuration) instead of tantivy, whose index is one process's.
//!
//! The bus's schema is chosen per deployment (`COLMENA_BUS_SCHEMA`,
//! default `colmena_bus`): one PostgreSQL server can hold several teams'
//! buses. The connection is TLS-verified (`sslmode=require`) whenever the
//! server is not on this machine.

pub(crate) mod authors;
pub(crate) mod messages;
mod store;
mod tls;
pub(crate) mod wakes;
pub use store::PgStore;

use std::sync::{Arc, Weak};
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use futures_util::StreamExt;
use postgres_native_tls::MakeTlsConnector;
use sha2::{Digest, Sha256};
use tls::check_url;
use tokio::sync::Notify;
use tokio_postgres::error::SqlState;

use crate::error::{AppError, ErrorCode, Result};

/// The bus's schema when none is named.
pub const DEFAULT_SCHEMA: &str = "colmena_bus";
/// `COLMENA_BUS_SCHEMA=@workspace`: a schema of this workspace's own (one
/// PostgreSQL server for several single-machine workspaces; the contract
/// test suites run this way, each test its own bus).
pub const WORKSPACE_SCHEMA: &str = "@workspace";
/// How often a PostgreSQL scheduler looks at the roles when no
/// notification rang it: urgent mail rings at once, schedules are minutes.
pub const FALLBACK_TICK: Duration = Duration::from_secs(30);
/// Connections one replica keeps to the database at most.
const POOL_SIZE: usize = 16;

/// The PostgreSQL migrations, in order (version N: the first N applied).
/// Append new ones; never edit one released.
const MIGRATIONS: &[&str] = &[
    include_str!("../../migrations/postgres/0001_bus.sql"),
    include_str!("../../migrations/postgres/0002_act_and_reply.sql"),
];

/// Where a workspace's bus lives.
#[derive(Clone, PartialEq, Eq)]
pub enum BusStoreChoice {
    /// The workspace's own SQLite store (one machine).
    Sqlite,
    /// A PostgreSQL database shared by replicas, in `schema`.
    Postgres { url: String, schema: String },
}

impl std::fmt::Debug for BusStoreChoice {
    /// Never the URL: it may hold a password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BusStoreChoice::Sqlite => f.write_str("Sqlite"),
            BusStoreChoice::Postgres { schema, .. } => {
                write!(f, "Postgres {{ schema: {schema:?}, .. }}")
            }
        }
    }
}

impl BusStoreChoice {
    /// From `COLMENA_BUS_STORE` (a `postgres://` URL; unset or `sqlite`: the
    /// workspace's store) and `COLMENA_BUS_SCHEMA`.
    pub fn from_env(data_dir: &std::path::Path) -> Result<BusStoreChoice> {
        let store = std::env::var("COLMENA_BUS_STORE").unwrap_or_default();
        let schema = std::env::var("COLMENA_BUS_SCHEMA").ok();
        BusStoreChoice::parse(&store, schema.as_deref(), data_dir)
    }

    /// `store`: empty or `sqlite`, or a `postgres://` / `postgresql://` URL.
    pub fn parse(
        store: &str,
        schema: Option<&str>,
        data_dir: &std::path::Path,
    ) -> Result<BusStoreChoice> {
        let store = store.trim();
        if store.is_empty() || store.eq_ignore_ascii_case("sqlite") {
            return Ok(BusStoreChoice::Sqlite);
        }
        if !(store.starts_with("postgres://") || store.starts_with("postgresql://")) {
            return Err(AppError::invalid_field(
                "store",
                "unknown_store",
                "the bus store is 'sqlite' or a postgres:// URL",
            ));
        }
        let schema = match schema.map(str::trim).filter(|s| !s.is_empty()) {
            None => DEFAULT_SCHEMA.to_owned(),
            Some(WORKSPACE_SCHEMA) => {
                let dir = std::fs::canonicalize(data_dir).unwrap_or_else(|_| data_dir.to_owned());
                let digest = Sha256::digest(dir.to_string_lossy().as_bytes());
                format!("ws_{}", &crate::secrets::encode_hex(&digest)[..16])
            }
            Some(name) => check_schema(name)?,
        };
        // Refused here, before anything is opened: a bad URL or CA file.
        check_url(store)?;
        Ok(BusStoreChoice::Postgres {
            url: store.to_owned(),
            schema,
        })
    }
}

/// A schema name that is safe to quote as an identifier (it goes into
/// `search_path`) and to append to a notification channel's name.
fn check_schema(name: &str) -> Result<String> {
    let ok = (1..=40).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if ok {
        return Ok(name.to_owned());
    }
    Err(AppError::invalid_field(
        "schema",
        "invalid_schema",
        "the bus's schema is 1 to 40 lowercase letters, digits or '_', not starting with a digit",
    ))
}

/// Error text from the driver without anything that looks like a password.
fn redact(text: &str) -> String {
    text.split_whitespace()
        .map(|w| {
            if w.contains("password") || w.contains('@') {
                "…"
            } else {
                w
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// An error and what caused it, redacted: "error performing TLS handshake"
/// says nothing until its cause says "certificate verify failed".
fn with_causes(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut cause = err.source();
    while let Some(next) = cause {
        let said = next.to_string();
        if !text.contains(&said) {
            text = format!("{text}: {said}");
        }
        cause = next.source();
    }
    redact(&text)
}

/// An open PostgreSQL bus: a pool of connections in the bus's schema.
pub struct PgBus {
    pool: Pool,
    config: tokio_postgres::Config,
    tls: MakeTlsConnector,
    schema: String,
}

impl std::fmt::Debug for PgBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PgBus {{ schema: {:?} }}", self.schema)
    }
}

impl PgBus {
    /// Connects, creates the schema if needed and migrates it (once, however
    /// many replicas start together).
    pub async fn open(url: &str, schema: &str) -> Result<PgBus> {
        let checked = check_url(url)?;
        let mut config = checked.config;
        let schema = check_schema(schema)?;
        // Quoted: a name such as `user` or `select` is a keyword otherwise.
        config.options(format!("-c search_path=\"{schema}\""));
        if config.get_application_name().is_none() {
            config.application_name("colmena");
        }
        let tls = tls::connector(&checked.roots)?;
        let manager = Manager::from_config(
            config.clone(),
            tls.clone(),
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .wait_timeout(Some(Duration::from_secs(30)))
            .create_timeout(Some(Duration::from_secs(10)))
            .build()
            .map_err(|e| AppError::internal(format!("no PostgreSQL pool: {e}")))?;
        let bus = PgBus {
            pool,
            config,
            tls,
            schema,
        };
        bus.migrate().await?;
        Ok(bus)
    }

    pub fn schema(&self) -> &str {
        &self.schema
    }

    /// The notification channel urgent mail rings, per schema.
    pub(crate) fn channel(&self) -> String {
        format!("colmena_wake_{}", self.schema)
    }

    pub(crate) async fn client(&self) -> Result<deadpool_postgres::Object> {
        self.pool.get().await.map_err(|e| {
            AppError::busy(format!(
                "the bus's database cannot be reached: {}",
                with_causes(&e)
            ))
        })
    }

    async fn migrate(&self) -> Result<()> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        // One key for every Colmena bus: migrations are rare and short.
        tx.execute("SELECT pg_advisory_xact_lock(7302146573926571)", &[])
            .await?;
        tx.batch_execute(&format!(
            "CREATE SCHEMA IF NOT EXISTS \"{0}\";
             CREATE TABLE IF NOT EXISTS \"{0}\".colmena_migrations (
                 version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());",
            self.schema
        ))
        .await?;
        let applied: i32 = tx
            .query_one(
                "SELECT coalesce(max(version), 0) FROM colmena_migrations",
                &[],
            )
            .await?
            .get(0);
        let known = i32::try_from(MIGRATIONS.len()).unwrap_or(i32::MAX);
        if applied > known {
            return Err(AppError::precondition(format!(
                "the bus's database was migrated by a newer Colmena (version {applied}, \
                 this one knows {known}): upgrade this replica"
            )));
        }
        for (version, script) in (1..).zip(MIGRATIONS).skip(applied as usize) {
            tx.batch_execute(script).await?;
            tx.execute(
                "INSERT INTO colmena_migrations (version) VALUES ($1)",
                &[&version],
            )
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// A bus setting (`settings`), parsed, or `default`.
    pub(crate) async fn setting(&self, key: &str, default: u32) -> Result<u32> {
        let client = self.client().await?;
        let row = client
            .query_opt("SELECT value FROM settings WHERE key = $1", &[&key])
            .await?;
        Ok(row
            .and_then(|r| r.get::<_, String>(0).parse().ok())
            .unwrap_or(default))
    }

    pub(crate) async fn set_setting(&self, key: &str, value: u32) -> Result<()> {
        let client = self.client().await?;
        client
            .execute(
                "INSERT INTO settings (key, value) VALUES ($1, $2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                &[&key, &value.to_string()],
            )
            .await?;
        Ok(())
    }

    /// Listens for urgent mail on this bus and rings `bell` for each
    /// notification, reconnecting while the database is away (and ringing
    /// once on every reconnect: what came meanwhile was not heard). Ends
    /// when the bell's owner is gone or `stop` is cancelled.
    pub(crate) fn listen(
        self: &Arc<Self>,
        bell: Weak<Notify>,
        stop: tokio_util::sync::CancellationToken,
    ) {
        let bus = Arc::clone(self);
        tokio::spawn(async move {
            let mut pause = Duration::from_millis(500);
            loop {
                match bus.listen_once(&bell, &stop).await {
                    Ok(()) => return,
                    Err(e) => {
                        tracing::warn!(
                            "bus notifications interrupted ({}); reconnecting",
                            e.message
                        );
                    }
                }
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = tokio::time::sleep(pause) => {}
                }
                pause = (pause * 2).min(Duration::from_secs(10));
                match bell.upgrade() {
                    Some(bell) => bell.notify_one(),
                    None => return,
                }
            }
        });
    }

    async fn listen_once(
        &self,
        bell: &Weak<Notify>,
        stop: &tokio_util::sync::CancellationToken,
    ) -> Result<()> {
        let (client, mut connection) = self.config.connect(self.tls.clone()).await?;
        let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
        let listen = format!("LISTEN {}", self.channel());
        let listened = client.batch_execute(&listen);
        // The connection makes progress only while its messages are polled.
        tokio::pin!(listened);
        loop {
            tokio::select! {
                done = &mut listened => { done?; break; }
                message = messages.next() => match message {
                    Some(Ok(_)) => {}
                    Some(Err(e)) => return Err(e.into()),
                    None => return Err(AppError::busy("the bus's database closed the connection")),
                },
            }
        }
        loop {
            tokio::select! {
                () = stop.cancelled() => return Ok(()),
                () = tokio::time::sleep(Duration::from_secs(5)) => {
                    if bell.upgrade().is_none() {
                        return Ok(());
                    }
                }
                message = messages.next() => match message {
                    Some(Ok(tokio_postgres::AsyncMessage::Notification(_))) => match bell.upgrade() {
                        Some(bell) => bell.notify_one(),
                        None => return Ok(()),
                    },
                    Some(Ok(_)) => {}
                    Some(Err(e)) => return Err(e.into()),
                    None => return Err(AppError::busy("the bus's database closed the connection")),
                },
            }
        }
    }
}

impl From<tokio_postgres::Error> for AppError {
    fn from(err: tokio_postgres::Error) -> AppError {
        match err.code() {
            // PostgreSQL's text holds no NUL character (SQLite's does).
            Some(code)
                if *code == SqlState::CHARACTER_NOT_IN_REPERTOIRE
                    || *code == SqlState::UNTRANSLATABLE_CHARACTER =>
            {
                AppError::new(
                    ErrorCode::Validation,
                    "text with a NUL character cannot be stored on this bus",
                )
            }
            // An author removed between the check and the write.
            Some(code) if *code == SqlState::FOREIGN_KEY_VIOLATION => AppError::new(
                ErrorCode::NotFound,
                "that author was removed from the bus meanwhile",
            ),
            Some(code) if *code == SqlState::DATETIME_FIELD_OVERFLOW => AppError::new(
                ErrorCode::Validation,
                "that time is out of the range the bus can store",
            ),
            Some(code) if *code == SqlState::UNIQUE_VIOLATION => AppError::new(
                ErrorCode::Conflict,
                "that already exists in the bus's database",
            ),
            Some(code)
                if *code == SqlState::T_R_SERIALIZATION_FAILURE
                    || *code == SqlState::T_R_DEADLOCK_DETECTED
                    || *code == SqlState::ADMIN_SHUTDOWN
                    || *code == SqlState::CANNOT_CONNECT_NOW =>
            {
                AppError::busy(format!(
                    "the bus's database asked to try again: {}",
                    redact(&err.to_string())
                ))
            }
            Some(code) => AppError::internal(format!(
                "bus store error {}: {}",
                code.code(),
                err.as_db_error()
                    .map_or_else(|| redact(&err.to_string()), |d| d.message().to_owned())
            )),
            None => AppError::busy(format!(
                "the bus's database cannot be reached: {}",
                with_causes(&err)
            )),
        }
    }
}

/// `u32` settings and limits as PostgreSQL `integer`.
pub(crate) fn int(value: u32) -> i32 {
    i32::try_from(value).unwrap_or(i32::MAX)
}

/// An `integer` column back as `u32` (never negative here).
pub(crate) fn uint(value: i32) -> u32 {
    u32::try_from(value).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_store_choice_reads_sqlite_or_a_postgres_url_and_a_safe_schema() {
        let dir = std::path::Path::new("/tmp/w");
        assert_eq!(
            BusStoreChoice::parse("", None, dir).unwrap(),
            BusStoreChoice::Sqlite
        );
        assert_eq!(
            BusStoreChoice::parse("sqlite", None, dir).unwrap(),
            BusStoreChoice::Sqlite
        );
        let pg = BusStoreChoice::parse("postgres://u@127.0.0.1:5432/db", None, dir).unwrap();
        assert!(
            matches!(pg, BusStoreChoice::Postgres { ref schema, .. } if schema == DEFAULT_SCHEMA)
        );
        let mine =
            BusStoreChoice::parse("postgres://u@localhost/db", Some("@workspace"), dir).unwrap();
        let other = BusStoreChoice::parse(
            "postgres://u@localhost/db",
            Some("@workspace"),
            std::path::Path::new("/tmp/v"),
        )
        .unwrap();
        assert_ne!(mine, other, "each workspace its own schema");
        for bad in ["mysql://x", "postgres:/x"] {
            let err = BusStoreChoice::parse(bad, None, dir).unwrap_err();
            assert_eq!(err.code, ErrorCode::Validation, "{bad}");
        }
        for schema in ["Bus", "1bus", "bus;drop", "a b", ""] {
            if schema.is_empty() {
                continue;
            }
            let err =
                BusStoreChoice::parse("postgres://u@localhost/db", Some(schema), dir).unwrap_err();
            assert_eq!(err.code, ErrorCode::Validation, "{schema}");
        }
    }
}
