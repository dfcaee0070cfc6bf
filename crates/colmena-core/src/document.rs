//! A markdown document the window offers to save (a run's result, a whole
//! conversation): its text and the file name to suggest. Written where the
//! person chose in the save dialog, so only the path they picked is touched.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{AppError, Result};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct MarkdownDocument {
    /// A file name to offer (`newsroom.md`).
    pub file_name: String,
    pub markdown: String,
}

impl MarkdownDocument {
    /// `name` as a file name (`Plan the launch` → `plan-the-launch.md`), or
    /// `fallback.md` when nothing of it is left.
    pub fn named(name: &str, fallback: &str, markdown: String) -> MarkdownDocument {
        MarkdownDocument {
            file_name: format!(
                "{}.md",
                crate::ids::slugify(name).unwrap_or_else(|| fallback.to_owned())
            ),
            markdown,
        }
    }

    /// Writes it where the person chose (the save dialog).
    pub fn write_to(&self, path: &Path) -> Result<()> {
        std::fs::write(path, &self.markdown).map_err(|e| {
            AppError::invalid_field(
                "path",
                "not_writable",
                format!("cannot write {}: {e}", path.display()),
            )
        })
    }
}
