//! Copies of the store: automatic ones before a migration, `colmena backup`
//! on demand, and `colmena restore` to put one back.
//!
//! Why `VACUUM INTO`: it writes a consistent snapshot of the committed state
//! through an ordinary read transaction, so it runs while the app or a server
//! keeps writing (WAL readers never block the writer), and the copy is one
//! self-contained, compacted file with no `-wal` beside it.
//!
//! Restore replaces the file, so it refuses while any process has the store
//! open (see [`super::holders`]), keeps a copy of what it replaces, and
//! deletes the search index: the index is derived data whose recorded
//! generation may match the restored store by accident, so it is rebuilt from
//! the restored rows when the workspace next opens.
//!
//! A copy may carry the master key, sealed with a passphrase, in a file
//! beside it; a restore given the passphrase puts the key back too (`backup/key.rs`).

mod key;
mod listing;
mod outcome;

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};
use serde::{Deserialize, Serialize};

pub use key::{
    AUTOMATIC_BUNDLE, BUNDLE_SUFFIX, BackupKey, KeyToRestore, RestoredKey, bundle_path,
    forget_for_automatic_copies, keep_for_automatic_copies, kept_for_automatic_copies,
};
pub use listing::{BackupFile, BackupsOverview, listed_copy, overview};
pub use outcome::{RestoreOutcome, dismiss_outcome, last_outcome, record_outcome};

use super::holders;
use super::migrations::{latest_version, migrations, schema_version};
use crate::error::{AppError, Result};

/// Folder, next to the store file, that holds the backups.
pub const BACKUPS_DIR: &str = "backups";

/// How many automatic copies of each kind are kept (the newest).
pub const KEEP: usize = 3;

/// Taken before migrations run: `pre-migration-<time>-v<from>.db`.
const PRE_MIGRATION: &str = "pre-migration-";
/// Taken by a restore of what it replaces: `pre-restore-<time>.db`.
const PRE_RESTORE: &str = "pre-restore-";
/// `colmena backup` without `--to`: `colmena-<time>.db`, never pruned.
const ON_DEMAND: &str = "colmena-";
const PRE_UPGRADE: &str = "pre-upgrade-";
/// Beside the store: the version of the app that last started on it.
pub const VERSION_FILE: &str = "app-version";

/// A backup written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct BackupReport {
    pub path: PathBuf,
    pub schema_version: i64,
    pub bytes: u64,
    /// Whether the master key went with it, sealed with a passphrase.
    pub key: BackupKey,
}

/// A restore done.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RestoreReport {
    /// The schema version of the restored file (migrated when next opened).
    pub schema_version: i64,
    /// Where the store that was replaced was saved, if there was one.
    pub previous: Option<PathBuf>,
    /// What became of the master key.
    pub key: RestoredKey,
    /// Where a different key the keeper held was sealed (with the same
    /// passphrase, beside `previous`) before the backup's key replaced it.
    pub replaced_key: Option<PathBuf>,
}

/// The backups folder of the store at `db_path`.
pub fn backups_dir(db_path: &Path) -> PathBuf {
    db_path
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join(BACKUPS_DIR)
}

/// Writes a consistent copy of the store at `db_path`, online, to `to` (which
/// must not exist) or to a new file in the backups folder. The key goes with
/// it only when the person sealed one for such copies
/// ([`keep_for_automatic_copies`]); the report says which.
pub fn backup(db_path: &Path, to: Option<&Path>) -> Result<BackupReport> {
    let mut report = copy_store(db_path, to)?;
    report.key = key::automatic_beside(db_path, &report.path);
    Ok(report)
}

/// [`backup`], with the master key sealed with `passphrase` beside the copy
/// (`<copy>.colmena-key`). When the key cannot be sealed the copy is
/// removed: a person who asked for the key never holds a copy without it
/// unknowingly.
pub fn backup_with_key(
    db_path: &Path,
    to: Option<&Path>,
    passphrase: &str,
) -> Result<BackupReport> {
    crate::secrets::key_bundle::check_new_passphrase(passphrase)?;
    let mut report = copy_store(db_path, to)?;
    match key::seal_beside(db_path, &report.path, passphrase) {
        Ok(sealed) => report.key = sealed,
        Err(e) => {
            let _ = std::fs::remove_file(&report.path);
            return Err(e);
        }
    }
    Ok(report)
}

fn copy_store(db_path: &Path, to: Option<&Path>) -> Result<BackupReport> {
    if !db_path.is_file() {
        return Err(AppError::precondition(format!(
            "there is no store at {}",
            db_path.display()
        )));
    }
    let conn = open_read_only(db_path)?;
    let schema_version = schema_version(&conn)?;
    let target = match to {
        Some(path) => path.to_owned(),
        None => new_backup_path(db_path, ON_DEMAND, "")?,
    };
    vacuum_into(&conn, &target)?;
    Ok(BackupReport {
        bytes: std::fs::metadata(&target).map(|m| m.len()).unwrap_or(0),
        path: target,
        schema_version,
        key: BackupKey::NotIncluded,
    })
}

/// The copy taken before migrating from schema `from`; keeps the last [`KEEP`].
/// The first start of a new version of the app (an update, a newer
/// installer): the store is copied to `backups/pre-upgrade-<time>-<old>.db`
/// before anything opens it (the last three kept), and `version` is written
/// beside it. A first start on no store, or the same version again, copies
/// nothing. Returns the copy made.
pub fn before_new_version(db_path: &Path, version: &str) -> Result<Option<PathBuf>> {
    let marker = db_path.with_file_name(VERSION_FILE);
    let last = std::fs::read_to_string(&marker).ok();
    let last = last.as_deref().map(str::trim);
    if last == Some(version) {
        return Ok(None);
    }
    let mut made = None;
    if db_path.is_file() {
        let old = last.unwrap_or("unknown");
        let safe: String = old
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .take(40)
            .collect();
        let target = new_backup_path(db_path, PRE_UPGRADE, &format!("-{safe}"))?;
        vacuum_into(&open_read_only(db_path)?, &target).map_err(|e| {
            AppError::new(
                e.code,
                format!(
                    "could not back up the store before the first start of {version} (nothing was changed): {}",
                    e.message
                ),
            )
        })?;
        let carried = key::automatic_beside(db_path, &target);
        prune(&backups_dir(db_path), PRE_UPGRADE, KEEP);
        tracing::info!(
            "store backed up to {} before the first start of {version} ({})",
            target.display(),
            key_note(&carried)
        );
        made = Some(target);
    }
    std::fs::write(&marker, version)
        .map_err(|e| AppError::internal(format!("cannot write {}: {e}", marker.display())))?;
    Ok(made)
}

pub(crate) fn before_migration(db_path: &Path, from: i64) -> Result<PathBuf> {
    let target = new_backup_path(db_path, PRE_MIGRATION, &format!("-v{from}"))?;
    vacuum_into(&open_read_only(db_path)?, &target).map_err(|e| {
        AppError::new(
            e.code,
            format!(
                "could not back up the store before upgrading it (nothing was changed): {}",
                e.message
            ),
        )
    })?;
    let carried = key::automatic_beside(db_path, &target);
    prune(&backups_dir(db_path), PRE_MIGRATION, KEEP);
    tracing::info!(
        "store at schema {from} backed up to {} before migrating ({})",
        target.display(),
        key_note(&carried)
    );
    Ok(target)
}

/// What an automatic copy's log line says about the key.
fn key_note(carried: &BackupKey) -> &'static str {
    match carried {
        BackupKey::Sealed { .. } => "with the master key, sealed with the person's passphrase",
        BackupKey::NotIncluded => {
            "without the master key: its sealed secrets need this workspace's current key"
        }
        BackupKey::NoKey => "no secrets sealed yet",
    }
}

/// Checks that `file` is a sound Colmena store this build can open: SQLite's
/// quick check passes, its schema version is known (1 to the current one) and
/// its tables and indexes are exactly those of that version. Returns the version.
pub fn validate(file: &Path) -> Result<i64> {
    let not_a_store = |why: String| AppError::invalid_field("file", "not_a_store", why);
    if !file.is_file() {
        return Err(not_a_store(format!("{} is not a file", file.display())));
    }
    let conn = open_read_only(file).map_err(|e| {
        not_a_store(format!(
            "{} cannot be opened: {}",
            file.display(),
            e.message
        ))
    })?;
    let check: String = conn
        .query_row("PRAGMA quick_check", [], |r| r.get(0))
        .map_err(|e| not_a_store(format!("{} is not a SQLite database: {e}", file.display())))?;
    if check != "ok" {
        return Err(not_a_store(format!(
            "{} is damaged: {check}",
            file.display()
        )));
    }
    let version = schema_version(&conn)?;
    let latest = latest_version();
    if version < 1 || version > latest {
        return Err(not_a_store(format!(
            "{} has schema version {version}; this Colmena knows 1 to {latest}",
            file.display()
        )));
    }
    let mut reference = Connection::open_in_memory()?;
    migrations()
        .to_version(&mut reference, usize::try_from(version).unwrap_or(0))
        .map_err(|e| AppError::internal(format!("the reference schema failed: {e}")))?;
    if schema_names(&conn)? != schema_names(&reference)? {
        return Err(not_a_store(format!(
            "{} does not have the tables of a Colmena store at schema {version}",
            file.display()
        )));
    }
    Ok(version)
}

/// Replaces the store at `db_path` with the backup `file`, after validating
/// it; refuses while the store is open anywhere. The replaced store is saved
/// in the backups folder first, and the search index is deleted so that it is
/// rebuilt from the restored rows. The master key is left as it is: the
/// report says whether the restored secrets open with it.
pub fn restore(db_path: &Path, file: &Path) -> Result<RestoreReport> {
    restore_with_key(db_path, file, KeyToRestore::default())
}

/// [`restore`], and with a passphrase the key kept with the backup too: the
/// bundle is opened and checked against the backup before anything changes
/// (a wrong passphrase changes nothing), then the store is put back and the
/// key into the keeper the restored store names.
pub fn restore_with_key(
    db_path: &Path,
    file: &Path,
    wanted: KeyToRestore<'_>,
) -> Result<RestoreReport> {
    not_the_store_itself(db_path, file)?;
    let schema_version = validate(file)?;
    let opened = key::open_for(file, &wanted)?;
    let previous = replace_store(db_path, file)?;
    let (key, replaced_key) = key::settle(
        db_path,
        file,
        opened,
        wanted.passphrase,
        previous.as_deref(),
    )?;
    Ok(RestoreReport {
        schema_version,
        previous,
        key,
        replaced_key,
    })
}

/// Everything [`restore_with_key`] checks before it changes anything — the
/// file is a Colmena store, and the passphrase opens the key kept with it,
/// which opens the copy's secrets — without changing anything: Settings
/// checks this while the store is still open, before the app closes for
/// the restore. Returns the copy's schema version.
pub fn check_restore(db_path: &Path, file: &Path, wanted: KeyToRestore<'_>) -> Result<i64> {
    not_the_store_itself(db_path, file)?;
    let schema_version = validate(file)?;
    key::open_for(file, &wanted)?;
    Ok(schema_version)
}

/// Waits until no process has the store at `db_path` open (the app that
/// asked for a restore is closing), at most `patience`; a `conflict` error
/// when it is still open then.
pub fn wait_until_closed(db_path: &Path, patience: std::time::Duration) -> Result<()> {
    let deadline = std::time::Instant::now() + patience;
    loop {
        match holders::exclusive(db_path) {
            Ok(_released_here) => return Ok(()),
            Err(e) if std::time::Instant::now() < deadline => {
                tracing::debug!("waiting for the store to close: {}", e.message);
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            Err(e) => return Err(e),
        }
    }
}

fn not_the_store_itself(db_path: &Path, file: &Path) -> Result<()> {
    if same_file(db_path, file) {
        return Err(AppError::invalid_field(
            "file",
            "same_file",
            "that file is the store itself",
        ));
    }
    Ok(())
}

/// Puts the validated backup `file` in place of the store at `db_path`;
/// returns where the replaced store was kept.
fn replace_store(db_path: &Path, file: &Path) -> Result<Option<PathBuf>> {
    let _exclusive = holders::exclusive(db_path)?;
    let data_dir = db_path.parent().unwrap_or_else(|| Path::new("."));

    let previous = if has_content(db_path) {
        let target = new_backup_path(db_path, PRE_RESTORE, "")?;
        let conn = Connection::open(db_path)?;
        vacuum_into(&conn, &target)?;
        // Nobody has the store open: fold its WAL in so no stale `-wal`
        // outlives the file it belonged to.
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        drop(conn);
        prune(&backups_dir(db_path), PRE_RESTORE, KEEP);
        Some(target)
    } else {
        None
    };

    let staging = data_dir.join(".colmena.db.restoring");
    remove_if_present(&staging)?;
    vacuum_into(&open_read_only(file)?, &staging)?;
    for suffix in ["-wal", "-shm", "-journal"] {
        let mut name = db_path.as_os_str().to_owned();
        name.push(suffix);
        remove_if_present(Path::new(&name))?;
    }
    std::fs::rename(&staging, db_path).map_err(|e| {
        AppError::internal(format!("could not put the restored store in place: {e}"))
    })?;
    let index = data_dir.join(crate::search::INDEX_DIR);
    if index.exists() {
        std::fs::remove_dir_all(&index).map_err(|e| {
            AppError::internal(format!(
                "the store was restored but the old search index could not be removed ({e}); \
                 run `colmena reindex`"
            ))
        })?;
    }
    Ok(previous)
}

/// `VACUUM INTO` a new file created owner-only first (SQLite accepts an
/// empty target). A failure leaves no partial file behind.
fn vacuum_into(conn: &Connection, target: &Path) -> Result<()> {
    let Some(text) = target.to_str() else {
        return Err(AppError::invalid_field(
            "to",
            "invalid_path",
            format!("{} is not a UTF-8 path", target.display()),
        ));
    };
    match crate::private_files::file_options()
        .write(true)
        .create_new(true)
        .open(target)
    {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(AppError::conflicting_field(
                "to",
                "exists",
                format!("{} already exists", target.display()),
            ));
        }
        Err(e) => {
            return Err(AppError::invalid_field(
                "to",
                "unwritable",
                format!("cannot create {}: {e}", target.display()),
            ));
        }
    }
    conn.execute("VACUUM INTO ?1", [text]).map_err(|e| {
        let _ = std::fs::remove_file(target);
        AppError::from(e)
    })?;
    Ok(())
}

fn open_read_only(path: &Path) -> Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(super::BUSY_TIMEOUT)?;
    Ok(conn)
}

/// A fresh path in the backups folder (created owner-only):
/// `<prefix><UTC time><suffix>.db`, which sorts by time within a prefix.
fn new_backup_path(db_path: &Path, prefix: &str, suffix: &str) -> Result<PathBuf> {
    let dir = backups_dir(db_path);
    crate::private_files::create_dir_all(&dir)
        .map_err(|e| AppError::internal(format!("cannot create {}: {e}", dir.display())))?;
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.6fZ");
    Ok(dir.join(format!("{prefix}{stamp}{suffix}.db")))
}

/// Deletes all but the newest `keep` files named `<prefix>….db` in `dir`.
/// Best effort: a copy that cannot be deleted is only logged.
fn prune(dir: &Path, prefix: &str, keep: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with(prefix) && n.ends_with(".db"))
        .collect();
    names.sort();
    let excess = names.len().saturating_sub(keep);
    for name in names.into_iter().take(excess) {
        if let Err(e) = std::fs::remove_file(dir.join(&name)) {
            tracing::warn!("could not delete the old backup {name}: {e}");
        }
        // Its key goes with it.
        let bundle = bundle_path(&dir.join(&name));
        if let Err(e) = std::fs::remove_file(&bundle)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!("could not delete {}: {e}", bundle.display());
        }
    }
}

fn schema_names(conn: &Connection) -> Result<Vec<(String, String)>> {
    let mut stmt = conn.prepare(
        "SELECT type, name FROM sqlite_schema
         WHERE type IN ('table', 'index', 'view', 'trigger') AND name NOT LIKE 'sqlite_%'
         ORDER BY type, name",
    )?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn has_content(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.len() > 0)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

fn remove_if_present(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(AppError::internal(format!(
            "could not remove {}: {e}",
            path.display()
        ))),
    }
}
