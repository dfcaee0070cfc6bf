//! The drop folder (SPEC B8): the pre-bus way keeps working. A markdown
//! note written into `<data dir>/roles/<role>/inbox/` becomes a message to
//! that role. An optional front matter names the sender and the priority:
//!
//! ```text
//! ---
//! from: clonador
//! priority: urgent
//! ---
//! The new voice is ready.
//! ```
//!
//! Without `from`, the note is from the workspace owner (it was written on
//! their machine). A note is sent as any message is (`messages::send`, the
//! bus's rules and store) and moved to `inbox/ingested/` only after its
//! message is committed; its content digest is the message's own id
//! (`message_id`), so a note caught between the two by a crash is answered
//! by the message the bus holds and moved, not sent twice.
//! A note that cannot become a message goes to `inbox/failed/` with a
//! `.error.txt` next to it saying why. Files still being written (changed
//! in the last second) wait for the next look.
//!
//! The folder is writable by anything on the machine that runs as the user
//! (an agent's tool, a sync client), so a note is checked before a byte of
//! it is read: a symbolic link is refused (it could point at `master.key` or
//! any file the app can read, which would then be mailed to a role), and so
//! is anything that is not a regular file or is larger than a message can be
//! ([`MAX_NOTE_BYTES`]). The checks use `lstat`, the open refuses links
//! (`O_NOFOLLOW`) and the read stops at the cap, so swapping the file between
//! the check and the read gains nothing. The same goes for where notes go
//! afterwards: `roles/<role>`, `inbox`, `ingested/` and `failed/` are opened
//! without following links, notes are moved between those open folders,
//! and an `.error.txt` is created new (never through a link planted there).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use rusqlite::{OptionalExtension, params};
use sha2::{Digest, Sha256};

use super::authors::{self, AuthorKind};
use super::messages::{self, Message, Priority, SendMessage};
use crate::caller::Caller;
use crate::ctx::Ctx;
use crate::error::{AppError, Result};
use crate::store::bus::time::{self, stored};

mod aside;

const SETTLE: Duration = Duration::from_secs(1);

/// Largest note read: a message body at its longest plus room for the
/// front matter.
pub const MAX_NOTE_BYTES: u64 = messages::MAX_BODY_BYTES as u64 + 4096;

/// Where notes for `author` are dropped.
pub fn folder(ctx: &Ctx, author: &str) -> PathBuf {
    ctx.data_dir().join("roles").join(author).join("inbox")
}

/// Whether this workspace reads drop folders: a bus on this machine does;
/// replicas of a shared bus (PostgreSQL) read none, having no one folder.
pub fn enabled(ctx: &Ctx) -> bool {
    !ctx.bus().is_shared()
}

/// Creates a role's drop folder, so people see where notes go.
pub(crate) fn prepare(ctx: &Ctx, author: &str) {
    if let Err(e) = std::fs::create_dir_all(folder(ctx, author)) {
        tracing::warn!("could not create the drop folder of '{author}': {e}");
    }
}

/// Ingests the notes waiting in every role's drop folder.
pub async fn ingest_all(ctx: &Ctx) {
    let roles = match authors::list(ctx).await {
        Ok(all) => all.into_iter().filter(|a| a.kind == AuthorKind::Role),
        Err(e) => {
            tracing::warn!("drop folders: could not list the roles: {}", e.message);
            return;
        }
    };
    for role in roles {
        if let Err(e) = ingest(ctx, &role.id).await {
            tracing::warn!("drop folder of '{}': {}", role.id, e.message);
        }
    }
}

/// Ingests the notes waiting for `author`; returns the new messages.
pub async fn ingest(ctx: &Ctx, author: &str) -> Result<Vec<Message>> {
    let dir = folder(ctx, author);
    let roles = ctx.data_dir().join("roles");
    for step in [roles.clone(), roles.join(author), dir.clone()] {
        if std::fs::symlink_metadata(&step).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(AppError::precondition(format!(
                "the drop folder {} is or passes through a symbolic link; it is not read",
                dir.display()
            )));
        }
    }
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(Vec::new());
    };
    // `DirEntry::file_type` does not follow links: a link named `*.md` is
    // kept (to be refused below), a folder is not.
    let mut notes: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| !t.is_dir()))
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .filter(|p| settled(p))
        .collect();
    notes.sort();
    let mut sent = Vec::new();
    for note in notes {
        match ingest_note(ctx, author, &note).await {
            Ok(Some(message)) => {
                aside::move_into(&dir, &note, "ingested")?;
                sent.push(message);
            }
            Ok(None) => {
                aside::move_into(&dir, &note, "ingested")?;
            }
            Err(e) if e.code == crate::error::ErrorCode::Internal => return Err(e),
            Err(e) => {
                let moved = aside::move_into(&dir, &note, "failed")?;
                aside::write_new(&dir, "failed", &format!("{moved}.error.txt"), &e.message)?;
            }
        }
    }
    Ok(sent)
}

/// Unchanged for [`SETTLE`]. A link is refused at once: it never settles into a note.
fn settled(path: &Path) -> bool {
    let meta = std::fs::symlink_metadata(path);
    if meta.as_ref().is_ok_and(|m| m.file_type().is_symlink()) {
        return true;
    }
    let modified = meta.and_then(|m| m.modified());
    modified.is_ok_and(|at| SystemTime::now().duration_since(at).unwrap_or_default() >= SETTLE)
}

/// The note's front matter (`from`, `priority`) and body.
fn parse(text: &str) -> (Option<String>, Option<String>, String) {
    let text = text.trim_start_matches('\u{feff}');
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (None, None, text.trim().to_owned());
    };
    let Some(end) = rest.find("\n---") else {
        return (None, None, text.trim().to_owned());
    };
    let (head, body) = (&rest[..end], &rest[end + 4..]);
    let mut from = None;
    let mut priority = None;
    for line in head.lines() {
        if let Some((key, value)) = line.split_once(':') {
            let value = value.trim().trim_matches('"').to_owned();
            match key.trim() {
                "from" => from = Some(value),
                "priority" => priority = Some(value),
                _ => {}
            }
        }
    }
    (from, priority, body.trim().to_owned())
}

/// One note; `None` when it was already ingested (before a crash).
async fn ingest_note(ctx: &Ctx, author: &str, note: &Path) -> Result<Option<Message>> {
    let name = note
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let bytes = read_note(note, &name)?;
    let digest = crate::secrets::encode_hex(
        &Sha256::new()
            .chain_update(author.as_bytes())
            .chain_update([0])
            .chain_update(name.as_bytes())
            .chain_update([0])
            .chain_update(&bytes)
            .finalize(),
    );
    let text = String::from_utf8(bytes).map_err(|_| {
        AppError::invalid_field("body", "not_utf8", format!("{name} is not UTF-8 text"))
    })?;
    let (from, priority, body) = parse(&text);
    let priority = Priority::parse(priority.as_deref().unwrap_or("normal"))?;
    let seen_digest = digest.clone();
    let seen: Option<String> = ctx
        .store()
        .read(move |conn| {
            Ok(conn
                .query_row(
                    "SELECT message_id FROM dropped_notes WHERE digest = ?1",
                    [&seen_digest],
                    |r| r.get(0),
                )
                .optional()?)
        })
        .await?;
    if seen.is_some() {
        return Ok(None);
    }
    let sender = match from {
        Some(from) => authors::lookup(ctx, &from).await?.ok_or_else(|| {
            AppError::invalid_field(
                "from",
                "unknown_author",
                format!("no author is called '{from}'"),
            )
        })?,
        None => authors::owner(ctx).await?,
    };
    // The digest is the message's own id: a note sent just before a crash
    // is answered by the message the bus already holds, not sent twice.
    let message = messages::send(
        ctx,
        &Caller::system(ctx),
        &sender.id,
        author,
        SendMessage {
            body,
            priority: Some(priority.as_str().to_owned()),
            reply_to: None,
            message_id: Some(format!("drop:{digest}")),
        },
    )
    .await?;
    let id = message.id.clone();
    ctx.store()
        .write(move |tx| {
            tx.execute(
                "INSERT OR IGNORE INTO dropped_notes (digest, message_id, ingested_at)
                 VALUES (?1, ?2, ?3)",
                params![digest, id, stored(time::now())],
            )?;
            Ok(())
        })
        .await?;
    Ok(Some(message))
}

/// Reads a note that is a regular file of at most [`MAX_NOTE_BYTES`],
/// without following a link. A refusal is a validation error (the note goes
/// to `failed/`); an I/O failure is internal.
fn read_note(note: &Path, name: &str) -> Result<Vec<u8>> {
    let refuse = |reason: &str, why: String| AppError::invalid_field("file", reason, why);
    let check = |meta: &std::fs::Metadata| -> Result<()> {
        if meta.file_type().is_symlink() {
            return Err(refuse(
                "symlink",
                format!("{name} is a symbolic link; drop the note itself"),
            ));
        }
        if !meta.is_file() {
            return Err(refuse(
                "not_a_file",
                format!("{name} is not a regular file"),
            ));
        }
        if meta.len() > MAX_NOTE_BYTES {
            return Err(refuse(
                "too_long",
                format!(
                    "{name} is {} bytes; a note is at most {MAX_NOTE_BYTES}",
                    meta.len()
                ),
            ));
        }
        Ok(())
    };
    let io =
        |e: std::io::Error| AppError::internal(format!("could not read {}: {e}", note.display()));
    check(&std::fs::symlink_metadata(note).map_err(io)?)?;
    let file = open_no_follow(note).map_err(|e| {
        if e.raw_os_error() == Some(rustix_eloop()) {
            refuse(
                "symlink",
                format!("{name} is a symbolic link; drop the note itself"),
            )
        } else {
            io(e)
        }
    })?;
    check(&file.metadata().map_err(io)?)?;
    let mut bytes = Vec::new();
    file.take(MAX_NOTE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > MAX_NOTE_BYTES {
        return Err(refuse(
            "too_long",
            format!("{name} grew past {MAX_NOTE_BYTES} bytes while it was read"),
        ));
    }
    Ok(bytes)
}

/// Opens for reading without following a final symbolic link, and without
/// waiting on a FIFO swapped in after the check.
#[cfg(unix)]
fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    Ok(std::fs::File::from(fd))
}

#[cfg(unix)]
fn rustix_eloop() -> i32 {
    rustix::io::Errno::LOOP.raw_os_error()
}

#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

#[cfg(not(unix))]
fn rustix_eloop() -> i32 {
    -1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b8_front_matter_names_the_sender_and_priority() {
        let (from, priority, body) =
            parse("---\nfrom: Clonador\npriority: urgent\n---\n\nThe voice is ready.\n");
        assert_eq!(from.as_deref(), Some("Clonador"));
        assert_eq!(priority.as_deref(), Some("urgent"));
        assert_eq!(body, "The voice is ready.");
        let (from, priority, body) = parse("Just a note.\n");
        assert_eq!((from, priority), (None, None));
        assert_eq!(body, "Just a note.");
    }
}
