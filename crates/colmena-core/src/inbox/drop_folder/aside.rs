//! Putting a handled note aside (`ingested/`, `failed/`) without following a
//! link anything else on the machine planted: the drop folder is writable by
//! every program of the user, and a `failed` that is a link to `~/.bashrc.d`,
//! or a `note.md.error.txt` that is a link to `~/.bashrc`, must not turn a
//! refused note into a write outside the folder.
//!
//! On Unix the inbox and its subfolder are opened with `O_NOFOLLOW`, the
//! note is renamed between the two open folders (a rename moves a link, it
//! never follows one), and the error file is created with `O_EXCL`, so an
//! entry already there — a link included — is replaced, not written through.

use std::path::Path;

use crate::error::{AppError, Result};

fn trouble(what: &str, path: &Path, e: impl std::fmt::Display) -> AppError {
    AppError::internal(format!("could not {what} {}: {e}", path.display()))
}

#[cfg(unix)]
mod unix {
    use std::io::Write;
    use std::os::fd::OwnedFd;
    use std::path::Path;

    use rustix::fs::{AtFlags, Mode, OFlags, openat, statat};
    use rustix::io::Errno;

    use super::trouble;
    use crate::error::{AppError, Result};

    const DIR: OFlags = OFlags::DIRECTORY
        .union(OFlags::NOFOLLOW)
        .union(OFlags::CLOEXEC)
        .union(OFlags::RDONLY);

    /// The inbox and its subfolder `sub` (made if missing), both opened
    /// without following a link.
    pub(super) fn folders(inbox: &Path, sub: &str) -> Result<(OwnedFd, OwnedFd)> {
        let inbox_fd = openat(rustix::fs::CWD, inbox, DIR, Mode::empty())
            .map_err(|e| refused_link(inbox, e))?;
        match rustix::fs::mkdirat(&inbox_fd, sub, Mode::from_raw_mode(0o700)) {
            Ok(()) | Err(Errno::EXIST) => {}
            Err(e) => return Err(trouble("create", &inbox.join(sub), e)),
        }
        let sub_fd = openat(&inbox_fd, sub, DIR, Mode::empty())
            .map_err(|e| refused_link(&inbox.join(sub), e))?;
        Ok((inbox_fd, sub_fd))
    }

    fn refused_link(path: &Path, e: Errno) -> AppError {
        if matches!(e, Errno::LOOP | Errno::NOTDIR) {
            AppError::precondition(format!(
                "{} is a symbolic link or not a folder; notes are not moved there",
                path.display()
            ))
        } else {
            trouble("open", path, e)
        }
    }

    /// Moves the entry `name` of the inbox into `sub`, under a name not
    /// taken there; returns that name.
    pub(super) fn move_into(inbox: &Path, name: &str, sub: &str) -> Result<String> {
        let (from, to) = folders(inbox, sub)?;
        let mut target = name.to_owned();
        let mut n = 1;
        while statat(&to, target.as_str(), AtFlags::SYMLINK_NOFOLLOW).is_ok() {
            target = format!("{n}-{name}");
            n += 1;
        }
        rustix::fs::renameat(&from, name, &to, target.as_str())
            .map_err(|e| trouble("move", &inbox.join(name), e))?;
        Ok(target)
    }

    /// Creates `name` in `sub` holding `text`; whatever was there under that
    /// name (a planted link) is removed first, never written through.
    pub(super) fn write_new(inbox: &Path, sub: &str, name: &str, text: &str) -> Result<()> {
        let (_, dir) = folders(inbox, sub)?;
        let path = inbox.join(sub).join(name);
        let create = || {
            openat(
                &dir,
                name,
                OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::from_raw_mode(0o600),
            )
        };
        let fd = match create() {
            Err(Errno::EXIST) => {
                rustix::fs::unlinkat(&dir, name, AtFlags::empty())
                    .map_err(|e| trouble("replace", &path, e))?;
                create()
            }
            other => other,
        }
        .map_err(|e| trouble("write", &path, e))?;
        std::fs::File::from(fd)
            .write_all(format!("{text}\n").as_bytes())
            .map_err(|e| trouble("write", &path, e))
    }
}

/// Moves the note at `note` (inside `inbox`) into `inbox/<sub>/`, never over
/// another file; returns the name it has there.
pub(super) fn move_into(inbox: &Path, note: &Path, sub: &str) -> Result<String> {
    let name = note
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| trouble("move", note, "no file name"))?;
    #[cfg(unix)]
    {
        unix::move_into(inbox, &name, sub)
    }
    #[cfg(not(unix))]
    {
        let dir = inbox.join(sub);
        std::fs::create_dir_all(&dir).map_err(|e| trouble("create", &dir, e))?;
        let mut target = name.clone();
        let mut n = 1;
        while dir.join(&target).exists() {
            target = format!("{n}-{name}");
            n += 1;
        }
        std::fs::rename(note, dir.join(&target)).map_err(|e| trouble("move", note, e))?;
        Ok(target)
    }
}

/// Writes a new file `name` holding `text` in `inbox/<sub>/`.
pub(super) fn write_new(inbox: &Path, sub: &str, name: &str, text: &str) -> Result<()> {
    #[cfg(unix)]
    {
        unix::write_new(inbox, sub, name, text)
    }
    #[cfg(not(unix))]
    {
        let path = inbox.join(sub).join(name);
        std::fs::write(&path, format!("{text}\n")).map_err(|e| trouble("write", &path, e))
    }
}
