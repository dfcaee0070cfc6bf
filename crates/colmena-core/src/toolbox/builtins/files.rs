//! `fs_*`: files inside the agent's own workspace folder,
//! `<data dir>/workspaces/<agent id>`. Paths are relative to it; absolute
//! paths and `..` are refused, and symbolic links are never followed — not
//! on the way, not at the end (see [`beneath`]). Sizes are checked before
//! anything is read. Nothing under a `.git` folder is ever written, moved
//! or deleted: a repository's config and hooks decide which programs git
//! runs.

#[cfg(unix)]
mod beneath;
#[cfg(windows)]
#[path = "files/beneath_windows.rs"]
mod beneath;
#[cfg(any(unix, windows))]
mod names;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::ctx::Ctx;
use crate::error::{AppError, Result};
use crate::ids::AgentId;

// The limits and helpers below serve the Unix and Windows implementations
// (the file tools refuse on any other system, saying why).
/// Most bytes `fs_read` returns (and `fs_search` looks into per file).
#[cfg(any(unix, windows))]
const MAX_READ: u64 = 256 * 1024;
/// Largest file the file tools open for reading at all.
#[cfg(any(unix, windows))]
const MAX_FILE: u64 = 16 * 1024 * 1024;
#[cfg(any(unix, windows))]
const MAX_LISTED: usize = 500;

pub fn workspace(ctx: &Ctx, agent: &AgentId) -> Result<PathBuf> {
    let dir = ctx.data_dir().join("workspaces").join(agent.as_str());
    std::fs::create_dir_all(&dir)?;
    Ok(dir.canonicalize()?)
}

#[cfg(any(unix, windows))]
fn text(args: &Value, key: &str) -> String {
    args[key].as_str().unwrap_or_default().to_owned()
}

#[cfg(not(any(unix, windows)))]
pub fn call(_root: &Path, name: &str, _args: &Value) -> Result<String> {
    Err(AppError::precondition(format!(
        "{name} cannot run here: the file tools need Unix or Windows to open paths without following links"
    )))
}

#[cfg(any(unix, windows))]
pub fn call(root: &Path, name: &str, args: &Value) -> Result<String> {
    use beneath::{Kind, Root, parts};

    let ws = Root::open(root)?;
    match name {
        "fs_list" => {
            let path = args["path"].as_str().unwrap_or(".");
            let recursive = args["recursive"].as_bool().unwrap_or(false);
            let found = ws.list(path, &parts(path, true)?, recursive, MAX_LISTED * 4)?;
            let mut lines: Vec<String> = found
                .iter()
                .take(MAX_LISTED)
                .map(|e| match e.kind {
                    Kind::Dir => format!("{}/", e.path),
                    Kind::Link => format!("{} (link, not followed)", e.path),
                    _ => e.path.clone(),
                })
                .collect();
            if found.len() > MAX_LISTED {
                lines.push(format!("… and {} more", found.len() - MAX_LISTED));
            }
            Ok(if lines.is_empty() {
                "(empty)".to_owned()
            } else {
                lines.join("\n")
            })
        }
        "fs_read" => {
            let path = text(args, "path");
            let limit = args["max_bytes"].as_u64().unwrap_or(MAX_READ).min(MAX_READ);
            let (bytes, size) = ws.read(&path, &parts(&path, true)?, limit, MAX_FILE)?;
            let mut content = String::from_utf8_lossy(&bytes).into_owned();
            if size > bytes.len() as u64 {
                content.push_str(&format!(
                    "\n[only the first {} of {size} bytes]",
                    bytes.len()
                ));
            }
            Ok(content)
        }
        "fs_write" => {
            let path = text(args, "path");
            let content = text(args, "content");
            ws.write(&path, &parts(&path, false)?, content.as_bytes())?;
            Ok(format!("wrote {} ({} bytes)", shown(&path), content.len()))
        }
        "fs_search" => {
            let path = args["path"].as_str().unwrap_or(".");
            let needle = text(args, "query").to_lowercase();
            let files = ws.list(path, &parts(path, true)?, true, MAX_LISTED * 4)?;
            let mut hits = Vec::new();
            for file in files.iter().filter(|f| f.kind == Kind::File) {
                let name_hit = file.path.to_lowercase().contains(&needle);
                let lines: Vec<String> = ws
                    .read_listed(file, MAX_READ)
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .map(|t| {
                        t.lines()
                            .enumerate()
                            .filter(|(_, l)| l.to_lowercase().contains(&needle))
                            .take(5)
                            .map(|(n, l)| format!("  {}: {}", n + 1, l.trim()))
                            .collect()
                    })
                    .unwrap_or_default();
                if name_hit || !lines.is_empty() {
                    hits.push(format!("{}\n{}", file.path, lines.join("\n")));
                }
            }
            Ok(if hits.is_empty() {
                "(no match)".to_owned()
            } else {
                hits.join("\n")
            })
        }
        "fs_move" => {
            let (from, to) = (text(args, "from"), text(args, "to"));
            let (from_parts, to_parts) = (parts(&from, false)?, parts(&to, false)?);
            ws.rename((&from, &from_parts), (&to, &to_parts))?;
            Ok(format!("moved {} to {}", shown(&from), shown(&to)))
        }
        "fs_delete" => {
            let path = text(args, "path");
            ws.remove(&path, &parts(&path, false)?)?;
            Ok(format!("deleted {}", shown(&path)))
        }
        other => Err(AppError::internal(format!("{other} is not a file tool"))),
    }
}

/// A workspace file's bytes for another tool (the data tools), under the
/// same rules as `fs_read`; refused, before reading, when larger than `cap`.
#[cfg(any(unix, windows))]
pub(crate) fn read_bytes(root: &Path, path: &str, cap: u64) -> Result<Vec<u8>> {
    let ws = beneath::Root::open(root)?;
    let (bytes, _) = ws.read(path, &beneath::parts(path, true)?, cap, cap)?;
    Ok(bytes)
}

/// Creates or replaces a workspace file for another tool (`data_chart`),
/// under the same rules as `fs_write`.
#[cfg(any(unix, windows))]
pub(crate) fn write_bytes(root: &Path, path: &str, content: &[u8]) -> Result<()> {
    let ws = beneath::Root::open(root)?;
    ws.write(path, &beneath::parts(path, false)?, content)
}

#[cfg(not(any(unix, windows)))]
pub(crate) fn read_bytes(_root: &Path, path: &str, _cap: u64) -> Result<Vec<u8>> {
    Err(AppError::precondition(format!(
        "'{path}' cannot be opened: the workspace tools need Unix or Windows to open paths without following links"
    )))
}

#[cfg(not(any(unix, windows)))]
pub(crate) fn write_bytes(_root: &Path, path: &str, _content: &[u8]) -> Result<()> {
    Err(AppError::precondition(format!(
        "'{path}' cannot be written: the workspace tools need Unix or Windows to open paths without following links"
    )))
}

/// A path as the model wrote it, tidied for answers.
#[cfg(any(unix, windows))]
fn shown(path: &str) -> String {
    path.trim().trim_start_matches("./").to_owned()
}

#[cfg(test)]
mod tests;
#[cfg(all(test, windows))]
#[path = "files/windows_tests.rs"]
mod windows_tests;
