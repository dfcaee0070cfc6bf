//! The embedded store: one SQLite file per data dir.
//!
//! Why this shape: SQLite allows one writer at a time, so every write goes
//! through one dedicated writer thread that owns one connection and runs each
//! job inside an `IMMEDIATE` transaction (the pattern of Zed's
//! `thread_safe_connection`). A multi-step change is one job, so it is one
//! transaction: it commits whole or not at all. Reads run on a small pool of
//! read-only connections through `spawn_blocking`; with WAL they never wait
//! for the writer and never run on the caller's (UI) thread.
//!
//! Small independent writes that arrive together (bus messages from many
//! senders) can share one commit: [`Store::write_grouped`] runs each in its
//! own savepoint of one transaction, so one failing job rolls back alone,
//! and the whole group pays one fsync instead of one each. Every caller is
//! answered only after the group has committed.
//!
//! Another process (the CLI next to the running app) may write the same file;
//! `busy_timeout` makes the two take turns instead of failing. The writer
//! thread notices such commits (SQLite's `data_version` moves only for other
//! connections' commits) and announces them, so open views can refresh.
//!
//! Opening an existing store whose schema is behind first writes a backup
//! next to it ([`backup`]), then migrates under the write lock (see
//! [`migrations`]), so two processes starting together both come up. Every
//! open store holds a shared lock that `colmena restore` checks ([`holders`]).

pub mod backup;
pub mod bus;
pub mod holders;
pub mod meta;
mod migrations;

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};

use crate::error::{AppError, Result};

pub use migrations::{latest_version, migrations, schema_version};

/// Name of the SQLite file inside the data dir.
pub const DB_FILE: &str = "colmena.db";

pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// How often the writer looks for commits made by other processes.
const EXTERNAL_CHECK: Duration = Duration::from_millis(750);
const MAX_IDLE_READERS: usize = 4;

/// Most jobs one group commit takes in.
const MAX_GROUP: usize = 512;

type WriteJob = Box<dyn FnOnce(&mut Connection) + Send>;
/// Runs inside a savepoint (or is told the group could not begin); returns
/// what to do once the group's commit is known (`Ok` = durable).
type GroupJob = Box<dyn FnOnce(std::result::Result<&Connection, AppError>) -> Completion + Send>;
type Completion = Box<dyn FnOnce(std::result::Result<(), AppError>) + Send>;

enum Job {
    Alone(WriteJob),
    Grouped(GroupJob),
}

/// Handle to the store. Cheap to clone; the writer thread stops when the last
/// handle is dropped.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

struct Inner {
    path: PathBuf,
    /// Says "this store is open" to `colmena restore` until the last handle goes.
    _holder: std::fs::File,
    writer: Mutex<mpsc::Sender<Job>>,
    idle_readers: Mutex<Vec<Connection>>,
    external: tokio::sync::broadcast::Sender<()>,
}

impl Store {
    /// Opens (creating if needed) the store file at `path`, applies pending
    /// migrations (backing up an existing store first) and starts the writer
    /// thread.
    pub fn open(path: &Path) -> Result<Store> {
        let holder = holders::shared(path)?;
        create_private_file(path)?;
        let mut conn = Connection::open(path)?;
        configure(&conn)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        migrations::apply_pending(&mut conn, |from| {
            backup::before_migration(path, from).map(|_| ())
        })?;

        let (sender, receiver) = mpsc::channel::<Job>();
        let (external, _) = tokio::sync::broadcast::channel(16);
        let announce = external.clone();
        std::thread::Builder::new()
            .name("colmena-store-writer".into())
            .spawn(move || writer_loop(conn, &receiver, &announce))
            .map_err(|e| AppError::internal(format!("could not start the store writer: {e}")))?;

        Ok(Store {
            inner: Arc::new(Inner {
                path: path.to_owned(),
                _holder: holder,
                writer: Mutex::new(sender),
                idle_readers: Mutex::new(Vec::new()),
                external,
            }),
        })
    }

    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// A signal each time another process has committed to the file.
    pub fn external_changes(&self) -> tokio::sync::broadcast::Receiver<()> {
        self.inner.external.subscribe()
    }

    /// Runs `f` inside one write transaction on the writer thread. The
    /// transaction commits when `f` returns `Ok` and rolls back on `Err` or a
    /// panic (which becomes an `internal` error instead of killing the writer).
    pub async fn write<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction<'_>) -> Result<T> + Send + 'static,
    {
        let (reply, answer) = tokio::sync::oneshot::channel();
        let job: WriteJob = Box::new(move |conn: &mut Connection| {
            let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
                let txn = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let value = f(&txn)?;
                txn.commit()?;
                Ok(value)
            }))
            .unwrap_or_else(|panic| Err(AppError::internal(panic_message(&*panic))));
            // The caller may have gone away (a cancelled request); the write
            // has still committed or rolled back as a whole.
            let _ = reply.send(outcome);
        });
        self.send(Job::Alone(job))?;
        answer
            .await
            .map_err(|_| AppError::internal("the store writer stopped during a write"))?
    }

    /// Like [`Store::write`], for a small independent change that may share
    /// its commit with others queued at the same moment. `f` runs in its own
    /// savepoint: an `Err` (or panic) undoes only its own statements. The
    /// answer comes after the shared commit, so `Ok` means durable.
    pub async fn write_grouped<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T> + Send + 'static,
    {
        let (reply, answer) = tokio::sync::oneshot::channel();
        let job: GroupJob = Box::new(move |conn| -> Completion {
            let outcome = conn.and_then(|conn| run_in_savepoint(conn, f));
            Box::new(move |committed| {
                let _ = reply.send(committed.and(outcome));
            })
        });
        self.send(Job::Grouped(job))?;
        answer
            .await
            .map_err(|_| AppError::internal("the store writer stopped during a write"))?
    }

    fn send(&self, job: Job) -> Result<()> {
        self.inner
            .writer
            .lock()
            .map_err(|_| AppError::internal("the store writer lock is poisoned"))?
            .send(job)
            .map_err(|_| AppError::internal("the store writer has stopped"))
    }

    /// Runs `f` on a read-only connection off the async threads.
    pub async fn read<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T> + Send + 'static,
    {
        let inner = Arc::clone(&self.inner);
        tokio::task::spawn_blocking(move || {
            let conn = inner.take_reader()?;
            let outcome = f(&conn);
            inner.return_reader(conn);
            outcome
        })
        .await
        .map_err(|e| AppError::internal(format!("a store read failed: {e}")))?
    }
}

/// Runs write jobs until every handle is gone; between them, at most every
/// [`EXTERNAL_CHECK`], looks whether another process committed.
fn writer_loop(
    mut conn: Connection,
    jobs: &mpsc::Receiver<Job>,
    external: &tokio::sync::broadcast::Sender<()>,
) {
    let data_version = |conn: &Connection| -> Option<i64> {
        conn.query_row("PRAGMA data_version", [], |r| r.get(0)).ok()
    };
    let mut seen = data_version(&conn);
    let mut next_check = std::time::Instant::now() + EXTERNAL_CHECK;
    // A job taken off the queue while gathering a group, run next.
    let mut held: Option<Job> = None;
    loop {
        let wait = next_check.saturating_duration_since(std::time::Instant::now());
        let job = match held.take() {
            Some(job) => Ok(job),
            None => jobs.recv_timeout(wait),
        };
        match job {
            Ok(Job::Alone(job)) => job(&mut conn),
            Ok(Job::Grouped(first)) => {
                let mut group = vec![first];
                while group.len() < MAX_GROUP {
                    match jobs.try_recv() {
                        Ok(Job::Grouped(job)) => group.push(job),
                        Ok(other) => {
                            held = Some(other);
                            break;
                        }
                        Err(_) => break,
                    }
                }
                commit_group(&conn, group);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        }
        if std::time::Instant::now() >= next_check {
            let now = data_version(&conn);
            if now != seen {
                seen = now;
                // Nobody listening is fine: nothing is open to refresh.
                let _ = external.send(());
            }
            next_check = std::time::Instant::now() + EXTERNAL_CHECK;
        }
    }
}

/// Runs `f` in a savepoint of the open transaction; its failure or panic
/// undoes its own statements only.
fn run_in_savepoint<T, F>(conn: &Connection, f: F) -> Result<T>
where
    F: FnOnce(&Connection) -> Result<T>,
{
    conn.execute_batch("SAVEPOINT grouped_job")?;
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| f(conn)))
        .unwrap_or_else(|panic| Err(AppError::internal(panic_message(&*panic))));
    let close = if outcome.is_ok() {
        "RELEASE grouped_job"
    } else {
        "ROLLBACK TO grouped_job; RELEASE grouped_job"
    };
    conn.execute_batch(close)?;
    outcome
}

/// One transaction for the whole group, one commit, then every answer.
fn commit_group(conn: &Connection, group: Vec<GroupJob>) {
    if let Err(e) = conn.execute_batch("BEGIN IMMEDIATE") {
        let e = AppError::from(e);
        for job in group {
            job(Err(e.clone()))(Err(e.clone()));
        }
        return;
    }
    let completions: Vec<Completion> = group.into_iter().map(|job| job(Ok(conn))).collect();
    let committed = conn.execute_batch("COMMIT").map_err(AppError::from);
    if committed.is_err() {
        let _ = conn.execute_batch("ROLLBACK");
    }
    for done in completions {
        done(committed.clone());
    }
}

impl Inner {
    fn take_reader(&self) -> Result<Connection> {
        let idle = self
            .idle_readers
            .lock()
            .ok()
            .and_then(|mut pool| pool.pop());
        match idle {
            Some(conn) => Ok(conn),
            None => {
                let conn = Connection::open_with_flags(
                    &self.path,
                    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )?;
                configure(&conn)?;
                Ok(conn)
            }
        }
    }

    fn return_reader(&self, conn: Connection) {
        if let Ok(mut pool) = self.idle_readers.lock()
            && pool.len() < MAX_IDLE_READERS
        {
            pool.push(conn);
        }
    }
}

fn configure(conn: &Connection) -> Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    // FULL: a change the caller saw succeed survives a power cut, not just a crash.
    conn.pragma_update(None, "synchronous", "FULL")?;
    Ok(())
}

/// Creates the database file readable by its owner only, before SQLite does
/// (SQLite would create it with the process umask).
fn create_private_file(path: &Path) -> Result<()> {
    if path.exists() {
        return Ok(());
    }
    match crate::private_files::file_options()
        .write(true)
        .create_new(true)
        .open(path)
    {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(AppError::internal(format!(
            "could not create the store file {}: {e}",
            path.display()
        ))),
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let text = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned());
    format!("a store write panicked and was rolled back: {text}")
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn temp_store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join(DB_FILE)).unwrap();
        (dir, store)
    }

    #[tokio::test]
    async fn the_store_runs_in_wal_mode_with_foreign_keys_on() {
        let (_dir, store) = temp_store().await;
        let (mode, fk) = store
            .read(|c| {
                let mode: String = c.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
                let fk: i64 = c.query_row("PRAGMA foreign_keys", [], |r| r.get(0))?;
                Ok((mode, fk))
            })
            .await
            .unwrap();
        assert_eq!(mode, "wal");
        assert_eq!(fk, 1);
    }

    #[tokio::test]
    async fn a_failed_write_rolls_back_every_step() {
        let (_dir, store) = temp_store().await;
        let err = store
            .write(|tx| {
                tx.execute("INSERT INTO meta (key, value) VALUES ('a', '1')", [])?;
                Err::<(), _>(AppError::internal("injected"))
            })
            .await
            .unwrap_err();
        assert_eq!(err.message, "injected");
        let count: i64 = store
            .read(|c| {
                Ok(
                    c.query_row("SELECT count(*) FROM meta WHERE key = 'a'", [], |r| {
                        r.get(0)
                    })?,
                )
            })
            .await
            .unwrap();
        assert_eq!(count, 0);
    }

    #[tokio::test]
    async fn a_panicking_write_is_an_error_and_the_writer_survives() {
        let (_dir, store) = temp_store().await;
        let err = store
            .write(|tx| -> Result<()> {
                tx.execute("INSERT INTO meta (key, value) VALUES ('p', '1')", [])?;
                panic!("boom");
            })
            .await
            .unwrap_err();
        assert!(err.message.contains("boom"), "{}", err.message);
        store
            .write(|tx| Ok(tx.execute("INSERT INTO meta (key, value) VALUES ('q', '1')", [])?))
            .await
            .unwrap();
        let keys: Vec<String> = store
            .read(|c| {
                let mut stmt = c.prepare("SELECT key FROM meta ORDER BY key")?;
                let rows = stmt.query_map([], |r| r.get(0))?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            })
            .await
            .unwrap();
        assert_eq!(keys, vec!["q".to_owned()]);
    }

    #[tokio::test]
    async fn grouped_writes_fail_alone_and_the_rest_commit() {
        let (_dir, store) = temp_store().await;
        let mut tasks = Vec::new();
        for i in 0..64 {
            let s = store.clone();
            tasks.push(tokio::spawn(async move {
                s.write_grouped(move |c| {
                    c.execute(
                        "INSERT INTO meta (key, value) VALUES (?1, 'x')",
                        [format!("g{i}")],
                    )?;
                    if i % 8 == 0 {
                        return Err(AppError::internal(format!("job {i} refuses")));
                    }
                    if i == 13 {
                        panic!("job 13 panics");
                    }
                    Ok(i)
                })
                .await
            }));
        }
        let mut failed = 0;
        for t in tasks {
            if t.await.unwrap().is_err() {
                failed += 1;
            }
        }
        assert_eq!(failed, 9);
        let keys: i64 = store
            .read(|c| {
                Ok(
                    c.query_row("SELECT count(*) FROM meta WHERE key LIKE 'g%'", [], |r| {
                        r.get(0)
                    })?,
                )
            })
            .await
            .unwrap();
        assert_eq!(keys, 55, "exactly the jobs that succeeded left rows");
        // A plain write after a group still works.
        store
            .write(|tx| Ok(tx.execute("INSERT INTO meta (key, value) VALUES ('after', '1')", [])?))
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn readers_are_read_only() {
        let (_dir, store) = temp_store().await;
        let err = store
            .read(|c| Ok(c.execute("INSERT INTO meta (key, value) VALUES ('r', '1')", [])?))
            .await
            .unwrap_err();
        assert_eq!(err.code, crate::error::ErrorCode::Internal);
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn the_store_file_is_private_to_its_owner() {
        use std::os::unix::fs::PermissionsExt;
        let (dir, _store) = temp_store().await;
        let mode = std::fs::metadata(dir.path().join(DB_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "mode {mode:o}");
    }

    #[tokio::test]
    async fn two_handles_on_one_file_take_turns_writing() {
        let (dir, store) = temp_store().await;
        let other = Store::open(&dir.path().join(DB_FILE)).unwrap();
        let mut tasks = Vec::new();
        for i in 0..20 {
            let s = if i % 2 == 0 {
                store.clone()
            } else {
                other.clone()
            };
            tasks.push(tokio::spawn(async move {
                s.write(move |tx| {
                    Ok(tx.execute(
                        "INSERT INTO meta (key, value) VALUES (?1, 'x')",
                        [format!("k{i}")],
                    )?)
                })
                .await
            }));
        }
        for t in tasks {
            t.await.unwrap().unwrap();
        }
        let count: i64 = store
            .read(|c| Ok(c.query_row("SELECT count(*) FROM meta", [], |r| r.get(0))?))
            .await
            .unwrap();
        assert_eq!(count, 20);
    }
}
