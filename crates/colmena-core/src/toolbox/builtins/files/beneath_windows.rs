//! Windows: paths beneath the workspace, one component at a time, never
//! through a link. Windows has no `openat`, so each folder on the way is
//! checked by name (`symlink_metadata`: a symbolic link, a junction or any
//! other reparse point is refused, so is a file where a folder was
//! expected), and the last one is opened without following a reparse
//! point (`FILE_FLAG_OPEN_REPARSE_POINT`) and checked again through its
//! handle before a byte moves.
//!
//! What this does not close, as `openat` does on Unix: a folder swapped
//! for a junction between its check and the open. Only a program running
//! in the workspace could do that, and on Windows every program an agent
//! runs is approved by a person first (`toolbox/gate.rs`). A hard link
//! made by such a program is not detected either (the link count needs an
//! API std keeps unstable).

use std::fs::{File, Metadata, OpenOptions};
use std::io::{Read, Write};
use std::os::windows::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::names::refused;
pub(super) use super::names::{Entry, Kind, parts};
use crate::error::{AppError, Result};

/// `FILE_FLAG_OPEN_REPARSE_POINT`: open a link itself, never its target.
const OPEN_REPARSE_POINT: u32 = 0x0020_0000;
/// `FILE_ATTRIBUTE_REPARSE_POINT`: a symbolic link, a junction, a mount.
const REPARSE_POINT: u32 = 0x0400;
/// `FILE_ATTRIBUTE_DIRECTORY`: a folder, or a link or junction to one.
const DIRECTORY: u32 = 0x0010;

/// An open workspace folder (its path: Windows has no folder handles in
/// std to open beneath).
pub(super) struct Root {
    dir: PathBuf,
}

fn is_link(meta: &Metadata) -> bool {
    meta.file_type().is_symlink() || meta.file_attributes() & REPARSE_POINT != 0
}

fn through_link(path: &str) -> AppError {
    refused(
        path,
        "is or passes through a symbolic link or junction (or a file where a folder was expected); links are not followed",
    )
}

/// What an I/O error means for the person who named `path`.
fn explain(path: &str, e: &std::io::Error) -> AppError {
    match e.kind() {
        std::io::ErrorKind::NotFound => {
            AppError::invalid_field("path", "not_found", format!("'{path}' does not exist"))
        }
        _ => AppError::invalid_field("path", "unreadable", format!("cannot use '{path}': {e}")),
    }
}

/// A regular file's metadata, read through its open handle.
fn regular_file(path: &str, file: &File) -> Result<Metadata> {
    let meta = file.metadata().map_err(|e| explain(path, &e))?;
    if is_link(&meta) {
        return Err(through_link(path));
    }
    if !meta.is_file() {
        return Err(AppError::invalid_field(
            "path",
            "not_a_file",
            format!("'{path}' is not a regular file"),
        ));
    }
    Ok(meta)
}

impl Root {
    pub(super) fn open(dir: &Path) -> Result<Root> {
        let meta = std::fs::symlink_metadata(dir).map_err(|e| {
            AppError::precondition(format!("cannot open the workspace {}: {e}", dir.display()))
        })?;
        if is_link(&meta) || !meta.is_dir() {
            return Err(AppError::precondition(format!(
                "the workspace {} is not a folder of its own",
                dir.display()
            )));
        }
        Ok(Root {
            dir: dir.to_owned(),
        })
    }

    /// The folder `parts` names (the workspace for none), each step checked;
    /// with `create`, missing folders are made on the way.
    pub(super) fn dir(&self, path: &str, parts: &[String], create: bool) -> Result<PathBuf> {
        let mut at = self.dir.clone();
        for name in parts {
            at.push(name);
            let meta = match std::fs::symlink_metadata(&at) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && create => {
                    match std::fs::create_dir(&at) {
                        Ok(()) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                        Err(e) => return Err(explain(path, &e)),
                    }
                    std::fs::symlink_metadata(&at)
                }
                other => other,
            }
            .map_err(|e| explain(path, &e))?;
            if is_link(&meta) || !meta.is_dir() {
                return Err(through_link(path));
            }
        }
        Ok(at)
    }

    /// The folder holding the last part, and the last part's path.
    fn parent(&self, path: &str, parts: &[String], create: bool) -> Result<PathBuf> {
        let (name, folders) = parts
            .split_last()
            .ok_or_else(|| refused(path, "is the workspace itself"))?;
        Ok(self.dir(path, folders, create)?.join(name))
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
        let at = self.parent(path, parts, false)?;
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(OPEN_REPARSE_POINT)
            .open(&at)
            .map_err(|e| explain(path, &e))?;
        let size = regular_file(path, &file)?.len();
        if size > cap {
            return Err(AppError::invalid_field(
                "path",
                "too_large",
                format!("'{path}' is {size} bytes; the file tools read files of up to {cap} bytes"),
            ));
        }
        let mut bytes = Vec::new();
        file.take(limit).read_to_end(&mut bytes).map_err(|e| {
            AppError::invalid_field("path", "unreadable", format!("cannot read '{path}': {e}"))
        })?;
        Ok((bytes, size))
    }

    /// Creates or replaces a regular file, never through a link; it is
    /// emptied only once it is known to be a plain file.
    pub(super) fn write(&self, path: &str, parts: &[String], content: &[u8]) -> Result<()> {
        let at = self.parent(path, parts, true)?;
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .custom_flags(OPEN_REPARSE_POINT)
            .open(&at)
            .map_err(|e| explain(path, &e))?;
        regular_file(path, &file)?;
        file.set_len(0).map_err(|e| explain(path, &e))?;
        file.write_all(content)?;
        Ok(())
    }

    /// Moves a file, a folder or a link itself (never what it points to).
    pub(super) fn rename(&self, from: (&str, &[String]), to: (&str, &[String])) -> Result<()> {
        let source = self.parent(from.0, from.1, false)?;
        std::fs::symlink_metadata(&source).map_err(|e| explain(from.0, &e))?;
        let target = self.parent(to.0, to.1, true)?;
        if std::fs::symlink_metadata(&target).is_ok_and(|m| is_link(&m)) {
            return Err(through_link(to.0));
        }
        std::fs::rename(&source, &target).map_err(|e| explain(from.0, &e))
    }

    /// Deletes a file, a link (not what it points to) or an empty folder.
    pub(super) fn remove(&self, path: &str, parts: &[String]) -> Result<()> {
        let at = self.parent(path, parts, false)?;
        let meta = std::fs::symlink_metadata(&at).map_err(|e| explain(path, &e))?;
        // A link to a folder (or a junction) is removed as a folder, which
        // removes the link alone.
        let removed = if meta.file_attributes() & DIRECTORY != 0 {
            std::fs::remove_dir(&at)
        } else {
            std::fs::remove_file(&at)
        };
        removed.map_err(|e| match e.kind() {
            std::io::ErrorKind::DirectoryNotEmpty => AppError::invalid_field(
                "path",
                "not_empty",
                format!("cannot delete '{path}': the folder is not empty"),
            ),
            _ => explain(path, &e),
        })
    }

    /// Entries under the folder `parts`, as paths relative to the workspace,
    /// sorted; links are listed, never followed.
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

fn walk(dir: &Path, prefix: &str, recursive: bool, max: usize, out: &mut Vec<Entry>) -> Result<()> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| explain(prefix, &e))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        if out.len() >= max {
            break;
        }
        let Ok(meta) = std::fs::symlink_metadata(dir.join(&name)) else {
            continue;
        };
        let kind = if is_link(&meta) {
            Kind::Link
        } else if meta.is_dir() {
            Kind::Dir
        } else if meta.is_file() {
            Kind::File
        } else {
            Kind::Other
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
        if recursive && kind == Kind::Dir {
            walk(&dir.join(&name), &path, true, max, out)?;
        }
    }
    Ok(())
}
