//! What both implementations of `beneath` share: a path as the model wrote
//! it, split into plain names (no `..`, no absolute path, nothing in
//! `.git` unless reading), and what a listing holds.

use std::path::Path;

use crate::error::{AppError, Result};

/// A relative path split into plain names.
pub(super) type Parts = Vec<String>;

pub(super) fn refused(path: &str, why: &str) -> AppError {
    AppError::invalid_field("path", "outside_workspace", format!("'{path}' {why}"))
}

/// Splits `path` into plain names, refusing `..`, absolute paths and
/// (unless `git_ok`) any component named `.git`.
pub(super) fn parts(path: &str, git_ok: bool) -> Result<Parts> {
    use std::path::Component;
    let mut out = Vec::new();
    for part in Path::new(path.trim()).components() {
        match part {
            Component::Normal(p) => {
                let name = p.to_string_lossy().into_owned();
                if !git_ok && name.eq_ignore_ascii_case(".git") {
                    return Err(AppError::invalid_field(
                        "path",
                        "git_metadata",
                        format!(
                            "'{path}' is inside .git: the file tools never change a repository's metadata; use the git tools"
                        ),
                    ));
                }
                if cfg!(windows) {
                    windows_name(path, &name)?;
                }
                out.push(name);
            }
            Component::CurDir => {}
            Component::ParentDir => return Err(refused(path, "leaves the workspace (..)")),
            Component::RootDir | Component::Prefix(_) => {
                return Err(refused(
                    path,
                    "is absolute; paths are relative to the agent's workspace",
                ));
            }
        }
    }
    Ok(out)
}

/// Windows: names that are not plain files there — a device (`NUL`,
/// `CON`, `COM1`…, with any extension), a second stream of a file
/// (`notes.txt:hidden`), a name the system would silently trim (a
/// trailing dot or space).
fn windows_name(path: &str, name: &str) -> Result<()> {
    const DEVICES: [&str; 4] = ["CON", "PRN", "AUX", "NUL"];
    let stem = name
        .split('.')
        .next()
        .unwrap_or_default()
        .trim_end()
        .to_ascii_uppercase();
    let numbered = |prefix: &str| {
        stem.strip_prefix(prefix)
            .is_some_and(|n| n.len() == 1 && n.chars().all(|c| c.is_ascii_digit() && c != '0'))
    };
    if DEVICES.contains(&stem.as_str()) || numbered("COM") || numbered("LPT") {
        return Err(AppError::invalid_field(
            "path",
            "reserved_name",
            format!("'{path}' names a Windows device ({name}), not a file"),
        ));
    }
    if name.contains(':') || name.ends_with('.') || name.ends_with(' ') {
        return Err(AppError::invalid_field(
            "path",
            "reserved_name",
            format!(
                "'{path}': '{name}' is not a plain file name on Windows (a ':' names a hidden \
                 stream; a trailing dot or space is dropped)"
            ),
        ));
    }
    Ok(())
}

/// One listed entry.
pub(super) struct Entry {
    /// Relative to the workspace, `/`-separated.
    pub path: String,
    pub kind: Kind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    File,
    Dir,
    Link,
    Other,
}
