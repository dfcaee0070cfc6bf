//! A file from the computer onto a canvas by its path (issue 16: a launch
//! such as `colmena-desktop notes.md`, or a second launch handing its file
//! over to the running app), the same as dropping it on the items column: a
//! text file becomes a custom item holding its text, a picture an image
//! item. Only the desktop calls it, and only with a [`HandedFile`] a launch
//! named (the shell keeps that list); the file is read, never run.
//!
//! Between the launch and the read, the path may change under us (a folder
//! another user can write to): the file is remembered by identity (device,
//! inode and change time) when handed over, opened without following a link and without
//! blocking, and read only if the opened file is that same regular file.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::items::{self, CanvasItem, NewItem, SourceKind};
use crate::caller::Caller;
use crate::ctx::Ctx;
use crate::error::{AppError, Result};

/// Text files are read whole into the item, up to this size.
const MAX_TEXT_FILE: u64 = 100_000;

const TEXT: &[&str] = &["md", "markdown", "txt", "text"];
const IMAGES: &[&str] = &["png", "jpg", "jpeg", "webp", "gif"];

/// What a file of this name becomes on a canvas, if anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Text,
    Image,
}

pub fn kind_of(path: &Path) -> Option<FileKind> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    if TEXT.contains(&ext.as_str()) {
        Some(FileKind::Text)
    } else if IMAGES.contains(&ext.as_str()) {
        Some(FileKind::Image)
    } else {
        None
    }
}

/// A regular file a launch named: its resolved path and which file it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandedFile {
    path: PathBuf,
    identity: Identity,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    device: u64,
    inode: u64,
    /// Inode numbers are reused at once: the change time tells a new file
    /// under a freed number (and any write since) apart.
    changed: (i64, i64),
}

#[cfg(unix)]
fn identity(meta: &std::fs::Metadata) -> Identity {
    use std::os::unix::fs::MetadataExt;
    Identity {
        device: meta.dev(),
        inode: meta.ino(),
        changed: (meta.ctime(), meta.ctime_nsec()),
    }
}

#[cfg(not(unix))]
fn identity(_meta: &std::fs::Metadata) -> Identity {
    Identity {
        device: 0,
        inode: 0,
        changed: (0, 0),
    }
}

impl HandedFile {
    /// The regular file at `path` now (links and `..` resolved), if it is one.
    pub fn at(path: &Path) -> Option<HandedFile> {
        let path = path.canonicalize().ok()?;
        let meta = std::fs::metadata(&path).ok()?;
        meta.is_file().then(|| HandedFile {
            identity: identity(&meta),
            path,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn name(&self) -> String {
        self.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.path.display().to_string())
    }
}

/// Adds `file` to `canvas` as the person's item.
pub async fn add_file(
    ctx: &Ctx,
    actor: &Caller,
    canvas: &str,
    file: &HandedFile,
) -> Result<CanvasItem> {
    let name = file.name();
    let kind = kind_of(&file.path).ok_or_else(|| {
        AppError::invalid_field(
            "file",
            "unsupported_file",
            format!(
                "{name}: only text (.md, .txt) and pictures (.png, .jpg, .webp, .gif) go on a canvas"
            ),
        )
    })?;
    // The canvas first: nothing is read for a canvas that is not there.
    super::get(ctx, actor, canvas).await?;
    let limit = match kind {
        FileKind::Text => MAX_TEXT_FILE,
        FileKind::Image => crate::images::MAX_UPLOAD_BYTES as u64,
    };
    let handed = file.clone();
    let bytes = tokio::task::spawn_blocking(move || read_handed(&handed, limit))
        .await
        .map_err(|e| AppError::internal(format!("reading {name} stopped: {e}")))??;
    match kind {
        FileKind::Image => items::add_image(ctx, actor, canvas, &name, bytes).await,
        FileKind::Text => {
            let text = String::from_utf8(bytes).map_err(|_| {
                AppError::invalid_field("file", "not_text", format!("{name} is not UTF-8 text"))
            })?;
            let item = NewItem {
                source_kind: Some(SourceKind::Custom),
                title: Some(name),
                snippet: Some(text),
                ..NewItem::default()
            };
            items::add_item(ctx, actor, canvas, item).await
        }
    }
}

/// The bytes of `file` if it is still the regular file handed over and at
/// most `limit` bytes long.
fn read_handed(file: &HandedFile, limit: u64) -> Result<Vec<u8>> {
    let name = file.name();
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // No link followed; a FIFO put in its place does not block the open.
        let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
        options.custom_flags(flags.bits() as i32);
    }
    let opened = options.open(&file.path).map_err(|e| unreadable(&name, e))?;
    let meta = opened.metadata().map_err(|e| unreadable(&name, e))?;
    if !meta.is_file() || identity(&meta) != file.identity {
        return Err(AppError::invalid_field(
            "file",
            "file_changed",
            format!("{name} is no longer the file that was opened with Colmena"),
        ));
    }
    if meta.len() > limit {
        return Err(too_large(&name, meta.len(), limit));
    }
    // At most one byte past the limit: a file grown since is refused, not read whole.
    let mut bytes = Vec::new();
    opened
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| unreadable(&name, e))?;
    if bytes.len() as u64 > limit {
        return Err(too_large(&name, bytes.len() as u64, limit));
    }
    Ok(bytes)
}

fn too_large(name: &str, size: u64, limit: u64) -> AppError {
    AppError::invalid_field(
        "file",
        "file_too_large",
        format!(
            "{name} is {} KB; at most {} KB go on a canvas",
            size.div_ceil(1024),
            limit / 1024
        ),
    )
}

fn unreadable(name: &str, e: std::io::Error) -> AppError {
    AppError::invalid_field(
        "file",
        "unreadable_file",
        format!("{name} could not be read: {e}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_extension() {
        assert_eq!(kind_of(Path::new("/a/notes.MD")), Some(FileKind::Text));
        assert_eq!(kind_of(Path::new("photo.jpeg")), Some(FileKind::Image));
        assert_eq!(kind_of(Path::new("run.sh")), None);
        assert_eq!(kind_of(Path::new("README")), None);
    }
}
