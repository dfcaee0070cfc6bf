//! Files and folders only this user may read — keys, the store, backups,
//! locks, a run's temporary folder — made through one interface with an
//! implementation per OS, so no service carries its own `cfg` for it.
//!
//! Unix gives a new folder mode 0700 and a new file 0600 as it is made
//! (never a moment readable by others). Windows has no mode bits: a new
//! folder is created with an access list for this user alone, protected
//! from its parent's and inherited by everything made in it
//! (`colmena_win32::create_private_dir`), so the files made in it (this
//! module's [`file_options`]) are this user's alone from their first byte.
//! A folder that already exists is taken as it is, on every OS.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as os;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as os;

use std::fs::OpenOptions;
use std::io;
use std::path::Path;

/// Makes the folder `path` (its parent must exist) for this user only.
pub fn create_dir(path: &Path) -> io::Result<()> {
    os::create_dir(path, false)
}

/// Makes the folder `path` and its missing parents for this user only
/// (a folder that already exists is left as it is).
pub fn create_dir_all(path: &Path) -> io::Result<()> {
    if path.is_dir() {
        return Ok(());
    }
    os::create_dir(path, true)
}

/// Options that make a file only this user may read; the caller adds
/// what it opens for (`write`, `create_new`, …). On Windows the file takes
/// its folder's access list: make it in a folder from [`create_dir`].
pub fn file_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    os::private_file(&mut options);
    options
}

/// On Windows not run under Wine, which keeps no access lists on files
/// (the release workflow's Windows runner runs it).
#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn folders_and_files_are_made_for_this_user_only() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("keys");
        super::create_dir(&folder).unwrap();
        let file = folder.join("key");
        super::file_options()
            .write(true)
            .create_new(true)
            .open(&file)
            .unwrap();
        this_user_only(&folder, &file);
    }

    #[cfg(unix)]
    fn this_user_only(folder: &Path, file: &Path) {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(folder), 0o700);
        assert_eq!(mode(file), 0o600);
    }

    /// The folder's list is protected and names this user alone; the
    /// file inherits it (`ID`).
    #[cfg(windows)]
    fn this_user_only(folder: &Path, file: &Path) {
        use colmena_win32::sddl::{entries, is_protected};
        let me = colmena_win32::user_sid().unwrap();
        let folder_list = colmena_win32::dacl_of(folder).unwrap();
        assert!(is_protected(&folder_list), "{folder_list}");
        let only_me = |flags: &str| vec![format!("A;{flags};FA;;;{}", me.as_str())];
        assert_eq!(entries(&folder_list), only_me("OICI"), "{folder_list}");
        let file_list = colmena_win32::dacl_of(file).unwrap();
        assert_eq!(entries(&file_list), only_me("ID"), "{file_list}");
    }
}
