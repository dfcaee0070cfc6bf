//! Files handed to the app by path: `colmena-desktop notes.md` (a terminal,
//! a script, a file manager's "open with a command"), at launch or by a
//! second launch on the running app. They go onto the canvas the window shows, as a drop would (issue 16;
//! `colmena_core::canvas::files`). The window may only add a file from this
//! list, once: the UI cannot make the backend read any other path.

use std::path::Path;
use std::sync::Mutex;

use colmena_core::canvas::files::HandedFile;

/// At most this many files from one launch, and waiting at once.
const MAX_FILES: usize = 20;
const MAX_WAITING: usize = 50;

/// The files handed over and not yet put on a canvas, oldest first.
#[derive(Default)]
pub struct HandedFiles(Mutex<Vec<HandedFile>>);

impl HandedFiles {
    /// Adds the files among `args` (relative paths from `cwd`, the folder the
    /// launch ran in); true when there was one. Past [`MAX_WAITING`], the
    /// oldest are forgotten.
    pub fn offer(&self, args: &[String], cwd: &Path) -> bool {
        let found = files_in_args(args, cwd);
        let mut waiting = self.lock();
        for file in &found {
            if !waiting.contains(file) {
                waiting.push(file.clone());
            }
        }
        let over = waiting.len().saturating_sub(MAX_WAITING);
        waiting.drain(..over);
        !found.is_empty()
    }

    pub fn list(&self) -> Vec<String> {
        self.lock()
            .iter()
            .filter_map(|f| f.path().to_str().map(str::to_owned))
            .collect()
    }

    /// Takes `path` off the list; None when it was not handed over.
    pub fn take(&self, path: &str) -> Option<HandedFile> {
        let mut waiting = self.lock();
        let at = waiting
            .iter()
            .position(|f| f.path().to_str() == Some(path))?;
        Some(waiting.remove(at))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<HandedFile>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Whether `arg` starts like a URL (`colmena://…`, `file:///…`, `https:`):
/// never a file path here.
fn looks_like_url(arg: &str) -> bool {
    let Some((scheme, _)) = arg.split_once(':') else {
        return false;
    };
    // Two letters at least: `C:\notes.md` is a path.
    let mut chars = scheme.chars();
    scheme.len() >= 2
        && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// The regular files a command line names: its arguments that are not
/// options, option values or URLs, resolved from `cwd` (relative ones only
/// when `cwd` is absolute). Paths that are not UTF-8 are skipped: the window
/// could not name them back exactly.
pub fn files_in_args(args: &[String], cwd: &Path) -> Vec<HandedFile> {
    let mut files: Vec<HandedFile> = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if arg == "--data-dir" {
            args.next();
            continue;
        }
        if arg.starts_with('-') || looks_like_url(arg) || arg.contains('\u{FFFD}') {
            continue;
        }
        let path = Path::new(arg);
        if path.is_relative() && !cwd.is_absolute() {
            continue;
        }
        if let Some(file) = HandedFile::at(&cwd.join(path))
            && file.path().to_str().is_some()
            && !files.contains(&file)
        {
            files.push(file);
        }
        if files.len() == MAX_FILES {
            break;
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn only_existing_files_that_are_not_options_links_or_the_data_dir() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.md"), "x").unwrap();
        std::fs::write(dir.path().join("--hidden"), "x").unwrap();
        std::fs::create_dir(dir.path().join("work")).unwrap();
        let found = files_in_args(
            &args(&[
                "--data-dir",
                "notes.md",
                "--hidden",
                "colmena://canvas",
                "work",
                "missing.md",
            ]),
            dir.path(),
        );
        assert!(found.is_empty(), "{found:?}");
        let found = files_in_args(&args(&["notes.md", "./notes.md"]), dir.path());
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].path(),
            dir.path().join("notes.md").canonicalize().unwrap()
        );
        // A relative path from a launch whose folder is unknown: not guessed.
        assert!(files_in_args(&args(&["notes.md"]), Path::new("")).is_empty());
        let urls = args(&["file:///etc/passwd", "COLMENA://canvas"]);
        assert!(files_in_args(&urls, dir.path()).is_empty());
    }

    #[test]
    fn a_file_is_taken_once_and_only_if_handed_over() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "x").unwrap();
        let handed = HandedFiles::default();
        assert!(!handed.offer(&args(&["--hidden"]), dir.path()));
        assert!(handed.offer(&args(&["a.txt"]), dir.path()));
        assert!(
            handed.offer(&args(&["a.txt"]), dir.path()),
            "again: still one entry"
        );
        let listed = handed.list();
        assert_eq!(listed.len(), 1);
        assert_eq!(handed.take("/etc/passwd"), None);
        assert!(handed.take(&listed[0]).is_some());
        assert_eq!(handed.take(&listed[0]), None, "once");
    }
}
