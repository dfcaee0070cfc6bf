//! `colmena backup` and `colmena restore`: copies of the store. They run
//! before the workspace is opened — a restore must not hold the store it
//! replaces, and a backup needs nothing but the file.
//!
//! The master key can go with a copy, sealed with a passphrase the person
//! chooses, and come back with a restore (issue 33). The passphrase is read
//! from standard input — never the command line, where shell history and
//! `ps` keep it (see [`super::passphrase`]).

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use colmena_core::store::DB_FILE;
use colmena_core::store::backup::{self, BackupKey, KeyToRestore, RestoredKey};
use colmena_core::{OpenOptions, Result, data_dir};

use super::output::Output;
use super::passphrase;

#[derive(Debug, Args)]
pub struct BackupArgs {
    /// Write the copy here (a new file) instead of the workspace's backups folder.
    #[arg(long, value_name = "FILE")]
    pub to: Option<PathBuf>,
    /// Seal the master key beside the copy (<copy>.colmena-key) with a
    /// passphrase read from standard input (asked without echo on a
    /// terminal, else its first line).
    #[arg(long)]
    pub key_passphrase_stdin: bool,
    /// `on`: seal the key (passphrase from standard input) for every copy
    /// made without one — before migrations, upgrades and updates; `off`:
    /// stop. Makes no copy.
    #[arg(long, value_name = "ON_OFF", conflicts_with_all = ["to", "key_passphrase_stdin"])]
    pub automatic_key: Option<Switch>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Switch {
    On,
    Off,
}

#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// A backup made by `colmena backup` (or one of the workspace's backups).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Restore the master key kept with the backup too, opened with a
    /// passphrase read from standard input.
    #[arg(long)]
    pub key_passphrase_stdin: bool,
    /// The key bundle, when it is not beside the backup (<FILE>.colmena-key).
    #[arg(long, value_name = "BUNDLE", requires = "key_passphrase_stdin")]
    pub key_bundle: Option<PathBuf>,
    /// Wait (up to two minutes) for Colmena to close the store first: how
    /// Settings → Backups restores — the app starts this and closes.
    #[arg(long)]
    pub after_close: bool,
    /// Once done, restored or not: record how it ended for the app (Settings
    /// shows it) and start PROGRAM — the app — again on this data dir.
    #[arg(long, value_name = "PROGRAM", requires = "after_close")]
    pub then_open: Option<PathBuf>,
}

/// How long `--after-close` waits for the app to close the store.
const AFTER_CLOSE_PATIENCE: std::time::Duration = std::time::Duration::from_secs(120);

pub fn backup(options: &OpenOptions, out: &Output, args: BackupArgs) -> Result<()> {
    let db = options.data_dir.join(DB_FILE);
    if let Some(switch) = args.automatic_key {
        return automatic_key(&db, out, switch);
    }
    let report = if args.key_passphrase_stdin {
        let phrase = passphrase::read("passphrase to seal the master key", true)?;
        backup::backup_with_key(&db, args.to.as_deref(), &phrase)?
    } else {
        backup::backup(&db, args.to.as_deref())?
    };
    out.emit(&report, |r| {
        println!(
            "backed up (schema {}, {} bytes) to {}",
            r.schema_version,
            r.bytes,
            r.path.display()
        );
        match &r.key {
            BackupKey::Sealed { bundle } => println!(
                "the master key is sealed with your passphrase in {} (keep it with the copy; without the passphrase it opens nothing)",
                bundle.display()
            ),
            BackupKey::NotIncluded => println!(
                "the master key is NOT in this backup: its sealed secrets (provider keys, tokens) open only with this workspace's current key. Add --key-passphrase-stdin to keep the key with it."
            ),
            BackupKey::NoKey => println!("this workspace has sealed no secret yet: no key is needed"),
        }
    });
    Ok(())
}

fn automatic_key(db: &Path, out: &Output, switch: Switch) -> Result<()> {
    match switch {
        Switch::On => {
            let phrase = passphrase::read(
                "passphrase to seal the master key for automatic copies",
                true,
            )?;
            let path = backup::keep_for_automatic_copies(db, &phrase)?;
            out.emit(&serde_json::json!({ "automaticKey": path }), |_| {
                println!(
                    "the master key is sealed with your passphrase in {}: every copy made without a passphrase (before migrations, upgrades and updates) carries it",
                    path.display()
                );
            });
        }
        Switch::Off => {
            let was = backup::forget_for_automatic_copies(db)?;
            out.emit(&serde_json::json!({ "automaticKey": null, "removed": was }), |_| {
                if was {
                    println!("automatic copies no longer carry the master key (copies made before keep theirs)");
                } else {
                    println!("automatic copies did not carry the master key");
                }
            });
        }
    }
    Ok(())
}

/// Restores, then opens the workspace once: that migrates an older backup
/// and rebuilds the search index from the restored rows.
pub async fn restore(options: OpenOptions, out: &Output, args: RestoreArgs) -> Result<()> {
    let dir = data_dir::prepare(&options.data_dir)?;
    let phrase = if args.key_passphrase_stdin {
        Some(passphrase::read(
            "passphrase of the backup's master key",
            false,
        )?)
    } else {
        None
    };
    let wanted = KeyToRestore {
        passphrase: phrase.as_deref().map(String::as_str),
        bundle: args.key_bundle.as_deref(),
    };
    let db = dir.join(DB_FILE);
    let result = restore_now(&db, &args, wanted, options).await;
    if let Some(app) = &args.then_open {
        let recorded = backup::record_outcome(&db, &args.file, &result);
        open_again(app, &dir);
        recorded?;
    }
    let report = result?;
    out.emit(&report, |r| {
        println!(
            "restored {} (schema {})",
            args.file.display(),
            r.schema_version
        );
        if let Some(previous) = &r.previous {
            println!("the store it replaced is kept at {}", previous.display());
        }
        match &r.key {
            RestoredKey::Restored { location } => {
                println!("the master key was restored too: {location}")
            }
            RestoredKey::AlreadyThere { location } => {
                println!("the master key was already in place: {location}")
            }
            RestoredKey::NotOpened {
                bundle,
                current_key_opens,
            } => println!(
                "the backup's master key ({}) was not restored: add --key-passphrase-stdin. {}",
                bundle.display(),
                opens_now(*current_key_opens)
            ),
            RestoredKey::NotIncluded { current_key_opens } => println!(
                "this backup carries no master key: its sealed secrets need the key of the workspace it came from. {}",
                opens_now(*current_key_opens)
            ),
            RestoredKey::NoKey => {}
        }
        if let Some(kept) = &r.replaced_key {
            println!(
                "the key this workspace had is kept, sealed with the same passphrase, in {}",
                kept.display()
            );
        }
    });
    Ok(())
}

/// The restore itself (after the app closed, with `--after-close`), then the
/// workspace opened once.
async fn restore_now(
    db: &Path,
    args: &RestoreArgs,
    wanted: KeyToRestore<'_>,
    options: OpenOptions,
) -> Result<backup::RestoreReport> {
    if args.after_close && backup::wait_until_closed(db, std::time::Duration::ZERO).is_err() {
        eprintln!("waiting for Colmena to close the store…");
        backup::wait_until_closed(db, AFTER_CLOSE_PATIENCE)?;
    }
    let report = backup::restore_with_key(db, &args.file, wanted)?;
    drop(colmena_core::workspace::open(options).await?);
    Ok(report)
}

/// Starts the app again on `dir` (it outlives this command, in the same
/// process group as the app that asked: what ends that app's session ends
/// this one's too).
fn open_again(app: &Path, dir: &Path) {
    let mut command = std::process::Command::new(app);
    command
        .arg("--data-dir")
        .arg(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    if let Err(e) = command.spawn() {
        eprintln!("colmena: could not open {} again: {e}", app.display());
    }
}

fn opens_now(opens: bool) -> &'static str {
    if opens {
        "The key this workspace has opens them."
    } else {
        "The key this workspace has does not open them: they stay locked until that key is back."
    }
}
