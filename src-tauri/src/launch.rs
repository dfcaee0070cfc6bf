//! Start-up chores: logging, the data dir from `--data-dir DIR` (or
//! `--data-dir=DIR`), and failing with a readable message.

use std::ffi::OsString;
use std::path::PathBuf;

use colmena_core::{AppError, OpenOptions};

/// Given by "start at login": the app starts in the tray, its window hidden.
pub const HIDDEN_FLAG: &str = "--hidden";

pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("COLMENA_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

/// Resolves the workspace options from the command line and environment.
/// Unknown arguments are left alone (WebKit and the OS may add their own).
pub fn open_options(args: impl Iterator<Item = OsString>) -> Result<OpenOptions, AppError> {
    let data_dir = data_dir_arg(args)?;
    OpenOptions::from_env(data_dir.as_deref())
}

fn data_dir_arg(mut args: impl Iterator<Item = OsString>) -> Result<Option<PathBuf>, AppError> {
    while let Some(arg) = args.next() {
        if arg == "--data-dir" {
            return match args.next() {
                Some(dir) => Ok(Some(PathBuf::from(dir))),
                None => Err(AppError::invalid_field(
                    "--data-dir",
                    "required",
                    "--data-dir needs a folder",
                )),
            };
        }
        if let Some(dir) = arg.to_str().and_then(|a| a.strip_prefix("--data-dir=")) {
            return Ok(Some(PathBuf::from(dir)));
        }
    }
    Ok(None)
}

pub fn fail(err: &AppError) -> ! {
    eprintln!(
        "colmena: cannot open the workspace ({}): {}",
        err.code.as_str(),
        err.message
    );
    std::process::exit(2);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> impl Iterator<Item = OsString> {
        list.iter()
            .map(OsString::from)
            .collect::<Vec<_>>()
            .into_iter()
    }

    #[test]
    fn the_data_dir_flag_is_read_in_both_spellings() {
        assert_eq!(
            data_dir_arg(args(&["--data-dir", "/a"])).unwrap(),
            Some("/a".into())
        );
        assert_eq!(
            data_dir_arg(args(&["-x", "--data-dir=/b"])).unwrap(),
            Some("/b".into())
        );
        assert_eq!(data_dir_arg(args(&["--other"])).unwrap(), None);
        assert!(data_dir_arg(args(&["--data-dir"])).is_err());
    }
}
