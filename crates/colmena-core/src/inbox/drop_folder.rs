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
//! their machine). A note is moved to `inbox/ingested/` only after its
//! message is committed; its content digest is committed with the message,
//! so a note caught between the two by a crash is moved, not sent twice.
//! A note that cannot become a message goes to `inbox/failed/` with a
//! `.error.txt` next to it saying why. Files still being written (changed
//! in the last second) wait for the next look.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use rusqlite::{OptionalExtension, params};
use sha2::{Digest, Sha256};

use super::authors::{self, AuthorKind};
use super::messages::{self, Message, Priority};
use super::time::{self, stored};
use crate::ctx::Ctx;
use crate::error::{AppError, Result};

const SETTLE: Duration = Duration::from_secs(1);

/// Where notes for `author` are dropped.
pub fn folder(ctx: &Ctx, author: &str) -> PathBuf {
    ctx.data_dir().join("roles").join(author).join("inbox")
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
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(Vec::new());
    };
    let mut notes: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "md"))
        .filter(|p| settled(p))
        .collect();
    notes.sort();
    let mut sent = Vec::new();
    for note in notes {
        match ingest_note(ctx, author, &note).await {
            Ok(Some(message)) => {
                move_into(&note, &dir.join("ingested"))?;
                messages::after_send(ctx, &message);
                sent.push(message);
            }
            Ok(None) => {
                move_into(&note, &dir.join("ingested"))?;
            }
            Err(e) if e.code == crate::error::ErrorCode::Internal => return Err(e),
            Err(e) => {
                let moved = move_into(&note, &dir.join("failed"))?;
                let mut why = moved.into_os_string();
                why.push(".error.txt");
                std::fs::write(&why, format!("{}\n", e.message)).map_err(|io| {
                    AppError::internal(format!(
                        "could not write {}: {io}",
                        Path::new(&why).display()
                    ))
                })?;
            }
        }
    }
    Ok(sent)
}

fn settled(path: &Path) -> bool {
    let modified = std::fs::metadata(path).and_then(|m| m.modified());
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
    let bytes = std::fs::read(note)
        .map_err(|e| AppError::internal(format!("could not read {}: {e}", note.display())))?;
    let name = note
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
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
    messages::check_body(&body)?;
    let (author, owner) = (author.to_owned(), ctx.owner().to_owned());
    ctx.store()
        .write(move |tx| {
            let seen: Option<String> = tx
                .query_row(
                    "SELECT message_id FROM dropped_notes WHERE digest = ?1",
                    [&digest],
                    |r| r.get(0),
                )
                .optional()?;
            if seen.is_some() {
                return Ok(None);
            }
            let sender = match from {
                Some(from) => authors::find_by_id_or_name(tx, &from)?.ok_or_else(|| {
                    AppError::invalid_field(
                        "from",
                        "unknown_author",
                        format!("no author is called '{from}'"),
                    )
                })?,
                None => authors::require(tx, &owner)?,
            };
            authors::require(tx, &author)?;
            let message = messages::insert(tx, &sender.id, &author, &body, priority)?;
            tx.execute(
                "INSERT INTO dropped_notes (digest, message_id, ingested_at) VALUES (?1, ?2, ?3)",
                params![digest, message.id, stored(time::now())],
            )?;
            Ok(Some(message))
        })
        .await
}

/// Moves `file` into `dir` (created if needed), never over another file.
fn move_into(file: &Path, dir: &Path) -> Result<PathBuf> {
    let failed =
        |e: std::io::Error| AppError::internal(format!("could not move {}: {e}", file.display()));
    std::fs::create_dir_all(dir).map_err(failed)?;
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut target = dir.join(&name);
    let mut n = 1;
    while target.exists() {
        target = dir.join(format!("{n}-{name}"));
        n += 1;
    }
    std::fs::rename(file, &target).map_err(failed)?;
    Ok(target)
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
