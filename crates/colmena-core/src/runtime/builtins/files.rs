//! `fs_*`: files inside the agent's own workspace folder,
//! `<data dir>/workspaces/<agent id>`. Paths are relative to it; absolute
//! paths, `..` and symbolic links that lead outside are refused.

use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use crate::ctx::Ctx;
use crate::error::{AppError, Result};
use crate::ids::AgentId;

const MAX_READ: u64 = 256 * 1024;
const MAX_LISTED: usize = 500;

pub fn workspace(ctx: &Ctx, agent: &AgentId) -> Result<PathBuf> {
    let dir = ctx.data_dir().join("workspaces").join(agent.as_str());
    std::fs::create_dir_all(&dir)?;
    Ok(dir.canonicalize()?)
}

fn refuse(path: &str, why: &str) -> AppError {
    AppError::invalid_field("path", "outside_workspace", format!("'{path}' {why}"))
}

/// A path inside `root`, or an error; it need not exist.
pub fn resolve(root: &Path, path: &str) -> Result<PathBuf> {
    let relative = Path::new(path.trim());
    let mut out = root.to_path_buf();
    for part in relative.components() {
        match part {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            Component::ParentDir => return Err(refuse(path, "leaves the workspace (..)")),
            Component::RootDir | Component::Prefix(_) => {
                return Err(refuse(
                    path,
                    "is absolute; paths are relative to the agent's workspace",
                ));
            }
        }
    }
    // A link inside the workspace must not lead out of it.
    let mut existing = out.clone();
    while !existing.exists() {
        if !existing.pop() {
            break;
        }
    }
    if existing
        .canonicalize()
        .is_ok_and(|real| !real.starts_with(root))
    {
        return Err(refuse(path, "leads outside the workspace"));
    }
    Ok(out)
}

fn shown(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

fn text(args: &Value, key: &str) -> String {
    args[key].as_str().unwrap_or_default().to_owned()
}

pub fn call(root: &Path, name: &str, args: &Value) -> Result<String> {
    match name {
        "fs_list" => {
            let dir = resolve(root, args["path"].as_str().unwrap_or("."))?;
            let recursive = args["recursive"].as_bool().unwrap_or(false);
            let mut found = Vec::new();
            walk(&dir, recursive, &mut found)?;
            let mut lines: Vec<String> = found
                .iter()
                .take(MAX_LISTED)
                .map(|p| format!("{}{}", shown(root, p), if p.is_dir() { "/" } else { "" }))
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
            let file = resolve(root, &text(args, "path"))?;
            let limit = args["max_bytes"].as_u64().unwrap_or(MAX_READ).min(MAX_READ) as usize;
            let bytes = std::fs::read(&file).map_err(|e| {
                AppError::invalid_field(
                    "path",
                    "unreadable",
                    format!("cannot read {}: {e}", shown(root, &file)),
                )
            })?;
            let mut content =
                String::from_utf8_lossy(&bytes[..bytes.len().min(limit)]).into_owned();
            if bytes.len() > limit {
                content.push_str(&format!(
                    "\n[only the first {limit} of {} bytes]",
                    bytes.len()
                ));
            }
            Ok(content)
        }
        "fs_write" => {
            let file = resolve(root, &text(args, "path"))?;
            if let Some(parent) = file.parent() {
                std::fs::create_dir_all(parent)?;
            }
            let content = text(args, "content");
            std::fs::write(&file, &content)?;
            Ok(format!(
                "wrote {} ({} bytes)",
                shown(root, &file),
                content.len()
            ))
        }
        "fs_search" => {
            let dir = resolve(root, args["path"].as_str().unwrap_or("."))?;
            let needle = text(args, "query").to_lowercase();
            let mut files = Vec::new();
            walk(&dir, true, &mut files)?;
            let mut hits = Vec::new();
            for file in files.iter().filter(|f| f.is_file()) {
                let name_hit = shown(root, file).to_lowercase().contains(&needle);
                let content = std::fs::read(file)
                    .ok()
                    .filter(|b| b.len() as u64 <= MAX_READ);
                let lines: Vec<String> = content
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
                    hits.push(format!("{}\n{}", shown(root, file), lines.join("\n")));
                }
            }
            Ok(if hits.is_empty() {
                "(no match)".to_owned()
            } else {
                hits.join("\n")
            })
        }
        "fs_move" => {
            let (from, to) = (
                resolve(root, &text(args, "from"))?,
                resolve(root, &text(args, "to"))?,
            );
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::rename(&from, &to)?;
            Ok(format!(
                "moved {} to {}",
                shown(root, &from),
                shown(root, &to)
            ))
        }
        "fs_delete" => {
            let target = resolve(root, &text(args, "path"))?;
            if target == root {
                return Err(refuse(&text(args, "path"), "is the workspace itself"));
            }
            if target.is_dir() {
                std::fs::remove_dir(&target).map_err(|e| {
                    AppError::invalid_field(
                        "path",
                        "not_empty",
                        format!("cannot delete {}: {e}", shown(root, &target)),
                    )
                })?;
            } else {
                std::fs::remove_file(&target)?;
            }
            Ok(format!("deleted {}", shown(root, &target)))
        }
        other => Err(AppError::internal(format!("{other} is not a file tool"))),
    }
}

fn walk(dir: &Path, recursive: bool, out: &mut Vec<PathBuf>) -> Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| {
            AppError::invalid_field(
                "path",
                "unreadable",
                format!("cannot list {}: {e}", dir.display()),
            )
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for entry in entries {
        let is_dir = entry.is_dir() && !entry.is_symlink();
        out.push(entry.clone());
        if recursive && is_dir && out.len() < MAX_LISTED * 4 {
            walk(&entry, true, out)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn files_stay_inside_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        assert!(resolve(&root, "../escape").is_err());
        assert!(resolve(&root, "/etc/passwd").is_err());
        assert!(resolve(&root, "a/../../b").is_err());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc", root.join("etc")).unwrap();
            assert!(
                resolve(&root, "etc/passwd").is_err(),
                "a link out is refused"
            );
        }
        call(
            &root,
            "fs_write",
            &json!({ "path": "notes/a.txt", "content": "hola colmena" }),
        )
        .unwrap();
        assert_eq!(
            call(&root, "fs_read", &json!({ "path": "notes/a.txt" })).unwrap(),
            "hola colmena"
        );
        assert!(
            call(&root, "fs_search", &json!({ "query": "COLMENA" }))
                .unwrap()
                .contains("notes/a.txt")
        );
        call(
            &root,
            "fs_move",
            &json!({ "from": "notes/a.txt", "to": "b.txt" }),
        )
        .unwrap();
        assert!(
            call(&root, "fs_list", &json!({ "recursive": true }))
                .unwrap()
                .contains("b.txt")
        );
        call(&root, "fs_delete", &json!({ "path": "b.txt" })).unwrap();
        assert!(call(&root, "fs_delete", &json!({ "path": "." })).is_err());
    }
}
