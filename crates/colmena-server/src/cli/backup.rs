//! `colmena backup` and `colmena restore`: copies of the store. They run
//! before the workspace is opened — a restore must not hold the store it
//! replaces, and a backup needs nothing but the file.

use std::path::PathBuf;

use clap::Args;
use colmena_core::store::{DB_FILE, backup};
use colmena_core::{Ctx, OpenOptions, Result, data_dir};

use super::output::Output;

#[derive(Debug, Args)]
pub struct BackupArgs {
    /// Write the copy here (a new file) instead of the workspace's backups folder.
    #[arg(long, value_name = "FILE")]
    pub to: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// A backup made by `colmena backup` (or one of the workspace's backups).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

pub fn backup(options: &OpenOptions, out: &Output, args: BackupArgs) -> Result<()> {
    let report = backup::backup(&options.data_dir.join(DB_FILE), args.to.as_deref())?;
    out.emit(&report, |r| {
        println!(
            "backed up (schema {}, {} bytes) to {}",
            r.schema_version,
            r.bytes,
            r.path.display()
        );
    });
    Ok(())
}

/// Restores, then opens the workspace once: that migrates an older backup
/// and rebuilds the search index from the restored rows.
pub async fn restore(options: OpenOptions, out: &Output, args: RestoreArgs) -> Result<()> {
    let dir = data_dir::prepare(&options.data_dir)?;
    let report = backup::restore(&dir.join(DB_FILE), &args.file)?;
    drop(Ctx::open(options).await?);
    out.emit(&report, |r| {
        println!(
            "restored {} (schema {})",
            args.file.display(),
            r.schema_version
        );
        if let Some(previous) = &r.previous {
            println!("the store it replaced is kept at {}", previous.display());
        }
    });
    Ok(())
}
