//! Files and folders only this user may read — keys, the store, backups,
//! locks, a run's temporary folder — made through one interface with an
//! implementation per OS, so no service carries its own `cfg` for it.
//!
//! Unix gives a new folder mode 0700 and a new file 0600 as it is made
//! (never a moment readable by others). Windows has no mode bits: a new
//! file or folder inherits the access list of the folder it is made in.
//! The default places (the data dir in `%APPDATA%`, `%TEMP%`) are in the
//! user's profile, whose list grants this user, SYSTEM and the
//! administrators; a data dir put elsewhere (`--data-dir D:\…`) inherits
//! that drive's list, which may let other users read. An explicit
//! owner-only access list on Windows is still to come (issue 36).

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as os;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as os;

use std::fs::{DirBuilder, OpenOptions};

/// A builder of folders only this user may open.
pub fn dir_builder() -> DirBuilder {
    let mut builder = DirBuilder::new();
    os::private_dir(&mut builder);
    builder
}

/// Options that make a file only this user may read; the caller adds
/// what it opens for (`write`, `create_new`, …).
pub fn file_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    os::private_file(&mut options);
    options
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn folders_and_files_are_made_for_this_user_only() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("keys");
        super::dir_builder().create(&folder).unwrap();
        let file = folder.join("key");
        super::file_options()
            .write(true)
            .create_new(true)
            .open(&file)
            .unwrap();
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&folder), 0o700);
        assert_eq!(mode(&file), 0o600);
    }
}
