//! Paths opened *beneath* the workspace, one component at a time, never
//! following a symbolic link (the cap-std way, with `openat` and
//! `O_NOFOLLOW` through rustix's safe wrappers).
//!
//! Checking a path and then using it by name (`canonicalize`, then `open`)
//! leaves a window in which a link can be swapped in, and never catches a
//! dangling link whose target does not exist yet — writing through it
//! creates a file outside. Here every step holds a descriptor of the folder
//! it is in, a component is only ever a plain name (no `..`, no absolute
//! path), and a link anywhere on the way fails with `ELOOP`/`ENOTDIR`.

use std::io::{Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;

use rustix::fs::{AtFlags, FileType, Mode, OFlags, openat, statat};
use rustix::io::Errno;

use super::names::refused;
pub(super) use super::names::{Entry, Kind, parts};
use crate::error::{AppError, Result};

/// An open workspace folder.
pub(super) struct Root {
    fd: OwnedFd,
}

/// What an `openat` error means for the person who named `path`.
fn explain(path: &str, e: Errno) -> AppError {
    match e {
        Errno::LOOP | Errno::NOTDIR | Errno::MLINK => refused(
            path,
            "is or passes through a symbolic link (or a file where a folder was expected); links are not followed",
        ),
        Errno::NOENT => {
            AppError::invalid_field("path", "not_found", format!("'{path}' does not exist"))
        }
        other => AppError::invalid_field(
            "path",
            "unreadable",
            format!("cannot use '{path}': {other}"),
        ),
    }
}

/// What `fd` (opened for `path`) is, if it is a regular file.
fn regular_file(path: &str, fd: &OwnedFd) -> Result<rustix::fs::Stat> {
    let stat = rustix::fs::fstat(fd).map_err(|e| explain(path, e))?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
        return Err(AppError::invalid_field(
            "path",
            "not_a_file",
            format!("'{path}' is not a regular file"),
        ));
    }
    Ok(stat)
}

const DIR: OFlags = OFlags::DIRECTORY
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC)
    .union(OFlags::RDONLY);

impl Root {
    pub(super) fn open(dir: &Path) -> Result<Root> {
        let fd = openat(rustix::fs::CWD, dir, DIR, Mode::empty()).map_err(|e| {
            AppError::precondition(format!("cannot open the workspace {}: {e}", dir.display()))
        })?;
        Ok(Root { fd })
    }

    /// The folder `parts` names (the workspace for none); with `create`,
    /// missing folders are made on the way.
    pub(super) fn dir(&self, path: &str, parts: &[String], create: bool) -> Result<OwnedFd> {
        let mut fd = self
            .fd
            .try_clone()
            .map_err(|e| AppError::internal(e.to_string()))?;
        for name in parts {
            let next = match openat(&fd, name.as_str(), DIR, Mode::empty()) {
                Err(Errno::NOENT) if create => {
                    match rustix::fs::mkdirat(&fd, name.as_str(), Mode::from_raw_mode(0o755)) {
                        Ok(()) | Err(Errno::EXIST) => {}
                        Err(e) => return Err(explain(path, e)),
                    }
                    openat(&fd, name.as_str(), DIR, Mode::empty())
                }
                other => other,
            }
            .map_err(|e| explain(path, e))?;
            fd = next;
        }
        Ok(fd)
    }

    /// The folder holding the last part, and the last part's name.
    fn parent<'a>(
        &self,
        path: &str,
        parts: &'a [String],
        create: bool,
    ) -> Result<(OwnedFd, &'a str)> {
        let (name, folders) = parts
            .split_last()
            .ok_or_else(|| refused(path, "is the workspace itself"))?;
        Ok((self.dir(path, folders, create)?, name.as_str()))
    }

    /// A regular file's size and first `limit` bytes; refused when it is
    /// larger than `cap` (checked before anything is read).
    pub(super) fn read(
        &self,
        path: &str,
        parts: &[String],
        limit: u64,
        cap: u64,
    ) -> Result<(Vec<u8>, u64)> {
        let (dir, name) = self.parent(path, parts, false)?;
        let fd = openat(
            &dir,
            name,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK,
            Mode::empty(),
        )
        .map_err(|e| explain(path, e))?;
        let stat = regular_file(path, &fd)?;
        let size = u64::try_from(stat.st_size).unwrap_or(0);
        if size > cap {
            return Err(AppError::invalid_field(
                "path",
                "too_large",
                format!("'{path}' is {size} bytes; the file tools read files of up to {cap} bytes"),
            ));
        }
        let mut bytes = Vec::new();
        std::fs::File::from(fd)
            .take(limit)
            .read_to_end(&mut bytes)
            .map_err(|e| {
                AppError::invalid_field("path", "unreadable", format!("cannot read '{path}': {e}"))
            })?;
        Ok((bytes, size))
    }

    /// Creates or replaces a regular file (never through a link, and never
    /// one with another name elsewhere: a hard link planted in the workspace
    /// would carry the write to a file outside it). The file is emptied only
    /// once it is known to be one of ours.
    pub(super) fn write(&self, path: &str, parts: &[String], content: &[u8]) -> Result<()> {
        let (dir, name) = self.parent(path, parts, true)?;
        let fd = openat(
            &dir,
            name,
            OFlags::WRONLY | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK,
            Mode::from_raw_mode(0o644),
        )
        .map_err(|e| explain(path, e))?;
        let stat = regular_file(path, &fd)?;
        if stat.st_nlink > 1 {
            return Err(refused(
                path,
                "has other names (hard links); it is not written, so nothing outside the workspace changes",
            ));
        }
        rustix::fs::ftruncate(&fd, 0).map_err(|e| explain(path, e))?;
        let mut file = std::fs::File::from(fd);
        file.write_all(content)?;
        Ok(())
    }

    pub(super) fn rename(&self, from: (&str, &[String]), to: (&str, &[String])) -> Result<()> {
        let (from_dir, from_name) = self.parent(from.0, from.1, false)?;
        let (to_dir, to_name) = self.parent(to.0, to.1, true)?;
        rustix::fs::renameat(&from_dir, from_name, &to_dir, to_name).map_err(|e| explain(from.0, e))
    }

    /// Deletes a file, a link (not what it points to) or an empty folder.
    pub(super) fn remove(&self, path: &str, parts: &[String]) -> Result<()> {
        let (dir, name) = self.parent(path, parts, false)?;
        let stat = statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW).map_err(|e| explain(path, e))?;
        let flags = if FileType::from_raw_mode(stat.st_mode) == FileType::Directory {
            AtFlags::REMOVEDIR
        } else {
            AtFlags::empty()
        };
        rustix::fs::unlinkat(&dir, name, flags).map_err(|e| match e {
            Errno::NOTEMPTY | Errno::EXIST => AppError::invalid_field(
                "path",
                "not_empty",
                format!("cannot delete '{path}': the folder is not empty"),
            ),
            other => explain(path, other),
        })
    }

    /// Entries under the folder `parts`, as paths relative to the workspace
    /// (`prefix`), sorted; links are listed, never followed.
    pub(super) fn list(
        &self,
        path: &str,
        parts: &[String],
        recursive: bool,
        max: usize,
    ) -> Result<Vec<Entry>> {
        let dir = self.dir(path, parts, false)?;
        let mut out = Vec::new();
        walk(&dir, &parts.join("/"), recursive, max, &mut out)?;
        Ok(out)
    }

    /// Reads a file found by [`Root::list`] (a path of plain names).
    pub(super) fn read_listed(&self, entry: &Entry, limit: u64) -> Option<Vec<u8>> {
        let parts: Vec<String> = entry.path.split('/').map(str::to_owned).collect();
        self.read(&entry.path, &parts, limit, limit)
            .ok()
            .map(|(b, _)| b)
    }
}

fn walk(
    dir: &OwnedFd,
    prefix: &str,
    recursive: bool,
    max: usize,
    out: &mut Vec<Entry>,
) -> Result<()> {
    let mut names: Vec<String> = rustix::fs::Dir::read_from(dir.as_fd())
        .map_err(|e| explain(prefix, e))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "." && n != "..")
        .collect();
    names.sort();
    for name in names {
        if out.len() >= max {
            break;
        }
        let kind = match statat(dir, name.as_str(), AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => match FileType::from_raw_mode(stat.st_mode) {
                FileType::RegularFile => Kind::File,
                FileType::Directory => Kind::Dir,
                FileType::Symlink => Kind::Link,
                _ => Kind::Other,
            },
            Err(_) => continue,
        };
        let path = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        out.push(Entry {
            path: path.clone(),
            kind,
        });
        if recursive
            && kind == Kind::Dir
            && let Ok(child) = openat(dir, name.as_str(), DIR, Mode::empty())
        {
            walk(&child, &path, true, max, out)?;
        }
    }
    Ok(())
}
