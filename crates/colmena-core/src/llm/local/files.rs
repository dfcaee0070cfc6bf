//! Where local models live: `<data dir>/models/<name>.gguf`, written there
//! whole (a download grows as `<name>.gguf.part` and is renamed once its
//! checksum matches). A model's name is its file's stem, so the name in
//! `local/<name>` can never point outside the folder.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::error::{AppError, ErrorCode, Result};

pub const EXTENSION: &str = "gguf";
pub const PART: &str = "gguf.part";

pub fn models_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("models")
}

/// Checks a local model's name: letters, digits, `.`, `_`, `-`; not
/// starting with a dot; at most 120 characters.
pub fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 120
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(AppError::invalid_field(
            "name",
            "invalid_name",
            format!(
                "'{name}' is not a local model name (letters, digits, '.', '_' and '-', not starting with '.')"
            ),
        ))
    }
}

/// The file of model `name`.
pub fn path_of(dir: &Path, name: &str) -> Result<PathBuf> {
    check_name(name)?;
    Ok(dir.join(format!("{name}.{EXTENSION}")))
}

/// The unfinished download of model `name`.
pub fn part_of(dir: &Path, name: &str) -> Result<PathBuf> {
    check_name(name)?;
    Ok(dir.join(format!("{name}.{PART}")))
}

/// The file of model `name`, if it is there whole; else why not (still
/// downloading, or not on this computer).
pub fn usable(dir: &Path, name: &str) -> Result<PathBuf> {
    let path = path_of(dir, name)?;
    if path.is_file() {
        return Ok(path);
    }
    if part_of(dir, name)?.is_file() {
        return Err(AppError::precondition(format!(
            "the local model '{name}' is still downloading: it can be used once the download ends"
        ))
        .with_details(json!({ "reason": "model_downloading", "model": name })));
    }
    Err(AppError::new(
        ErrorCode::NotFound,
        format!("the local model '{name}' is not on this computer: download it again (colmena model pull {name}) or remove it"),
    )
    .with_details(json!({ "reason": "model_missing", "model": name })))
}

/// A model file in the folder.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalFile {
    pub name: String,
    pub bytes: u64,
    /// A download not finished yet (`<name>.gguf.part`).
    pub partial: bool,
}

/// The models in the folder (whole ones and downloads under way), by name.
pub fn list(dir: &Path) -> Result<Vec<LocalFile>> {
    let mut out = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e.into()),
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let (name, partial) = if let Some(stem) = file_name.strip_suffix(&format!(".{PART}")) {
            (stem.to_owned(), true)
        } else if let Some(stem) = file_name.strip_suffix(&format!(".{EXTENSION}")) {
            (stem.to_owned(), false)
        } else {
            continue;
        };
        if check_name(&name).is_err() {
            continue;
        }
        let bytes = entry.metadata().map(|m| m.len()).unwrap_or(0);
        out.push(LocalFile {
            name,
            bytes,
            partial,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name).then(a.partial.cmp(&b.partial)));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_never_leaves_the_folder() {
        for bad in ["../x", "a/b", ".hidden", "", "a\\b", "x y"] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
        for good in ["smollm2-135m", "Qwen2.5-0.5B-Instruct.Q4_K_M"] {
            check_name(good).unwrap();
        }
    }
}
