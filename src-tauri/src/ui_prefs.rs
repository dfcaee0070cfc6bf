//! The UI preferences (theme, language) in `<data dir>/ui-prefs.json`.
//!
//! Why two commands instead of the store plugin: tauri-plugin-store 2.4.5
//! has no path scope, so granting it to the window lets the web view read and
//! write any JSON file the app can reach. These commands touch this one file
//! and these two keys. The file keeps the store plugin's format (one JSON
//! object), so preferences saved by earlier versions are read as they are.

use std::path::{Path, PathBuf};

use colmena_core::{AppError, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub const FILE: &str = "ui-prefs.json";

/// What the UI remembers. Unknown or missing values are `None`; the UI
/// falls back to its defaults.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct UiPrefs {
    /// `system`, `light` or `dark`.
    pub theme: Option<String>,
    /// `en` or `es`.
    pub language: Option<String>,
}

fn path(data_dir: &Path) -> PathBuf {
    data_dir.join(FILE)
}

fn read_object(data_dir: &Path) -> Map<String, Value> {
    std::fs::read(path(data_dir))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .and_then(|value| match value {
            Value::Object(map) => Some(map),
            _ => None,
        })
        .unwrap_or_default()
}

pub fn read(data_dir: &Path) -> UiPrefs {
    let object = read_object(data_dir);
    let text = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_owned);
    UiPrefs {
        theme: text("theme").filter(|t| matches!(t.as_str(), "system" | "light" | "dark")),
        language: text("language").filter(|l| matches!(l.as_str(), "en" | "es")),
    }
}

pub fn write(data_dir: &Path, prefs: &UiPrefs) -> Result<()> {
    let _one_writer = WRITING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut object = read_object(data_dir);
    if let Some(theme) = &prefs.theme {
        if !matches!(theme.as_str(), "system" | "light" | "dark") {
            return Err(AppError::invalid_field(
                "theme",
                "unknown_theme",
                "unknown theme",
            ));
        }
        object.insert("theme".into(), Value::String(theme.clone()));
    }
    if let Some(language) = &prefs.language {
        if !matches!(language.as_str(), "en" | "es") {
            return Err(AppError::invalid_field(
                "language",
                "unknown_language",
                "unknown language",
            ));
        }
        object.insert("language".into(), Value::String(language.clone()));
    }
    save(data_dir, object)
}

/// Keys the desktop shell keeps in the same file (issue 16).
pub const KEEP_IN_TRAY: &str = "keepInTray";
pub const TRAY_HINT_SHOWN: &str = "trayHintShown";
pub const LAST_ROUTE: &str = "lastRoute";

/// A yes/no the shell keeps; `false` when missing.
pub fn flag(data_dir: &Path, key: &str) -> bool {
    read_object(data_dir)
        .get(key)
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

pub fn set_flag(data_dir: &Path, key: &str, on: bool) -> Result<()> {
    set(data_dir, key, Value::Bool(on))
}

/// Whether closing the window keeps Colmena in the tray: on unless turned off.
pub fn keep_in_tray(data_dir: &Path) -> bool {
    read_object(data_dir)
        .get(KEEP_IN_TRAY)
        .and_then(Value::as_bool)
        .unwrap_or(true)
}

/// The place in the window the person was last (a route `links` accepts).
pub fn last_route(data_dir: &Path) -> Option<String> {
    read_object(data_dir)
        .get(LAST_ROUTE)
        .and_then(Value::as_str)
        .filter(|route| crate::links::is_route(route))
        .map(str::to_owned)
}

pub fn remember_route(data_dir: &Path, route: &str) -> Result<()> {
    if !crate::links::is_route(route) {
        return Err(AppError::invalid_field(
            "route",
            "unknown_route",
            "not a place in the window",
        ));
    }
    if last_route(data_dir).as_deref() == Some(route) {
        return Ok(());
    }
    set(data_dir, LAST_ROUTE, Value::String(route.to_owned()))
}

/// One read-change-write of the file at a time (the window, the tray and the
/// route all write it), so no change overwrites another.
static WRITING: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn set(data_dir: &Path, key: &str, value: Value) -> Result<()> {
    let _one_writer = WRITING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut object = read_object(data_dir);
    object.insert(key.to_owned(), value);
    save(data_dir, object)
}

fn save(data_dir: &Path, object: Map<String, Value>) -> Result<()> {
    let text = serde_json::to_vec_pretty(&Value::Object(object))
        .map_err(|e| AppError::internal(format!("cannot write the preferences: {e}")))?;
    let target = path(data_dir);
    let partial = data_dir.join(format!("{FILE}.partial"));
    std::fs::write(&partial, text)
        .and_then(|()| std::fs::rename(&partial, &target))
        .map_err(|e| AppError::internal(format!("cannot write {}: {e}", target.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefs_saved_by_the_store_plugin_are_read_and_other_keys_kept() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(FILE),
            r#"{"theme":"dark","language":"es","other":1}"#,
        )
        .unwrap();
        assert_eq!(
            read(dir.path()),
            UiPrefs {
                theme: Some("dark".into()),
                language: Some("es".into())
            }
        );
        write(
            dir.path(),
            &UiPrefs {
                theme: Some("light".into()),
                language: None,
            },
        )
        .unwrap();
        let saved: Value =
            serde_json::from_slice(&std::fs::read(dir.path().join(FILE)).unwrap()).unwrap();
        assert_eq!(saved["theme"], "light");
        assert_eq!(saved["language"], "es");
        assert_eq!(saved["other"], 1);
        let bad = UiPrefs {
            theme: Some("../../etc".into()),
            language: None,
        };
        assert!(write(dir.path(), &bad).is_err());
    }

    #[test]
    fn the_shells_keys_live_beside_the_uis_and_routes_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        assert!(keep_in_tray(dir.path()), "on by default");
        assert!(!flag(dir.path(), TRAY_HINT_SHOWN));
        set_flag(dir.path(), KEEP_IN_TRAY, false).unwrap();
        set_flag(dir.path(), TRAY_HINT_SHOWN, true).unwrap();
        remember_route(dir.path(), "#/canvas/c-1").unwrap();
        assert!(remember_route(dir.path(), "javascript:alert(1)").is_err());
        write(
            dir.path(),
            &UiPrefs {
                theme: Some("dark".into()),
                language: None,
            },
        )
        .unwrap();
        assert!(!keep_in_tray(dir.path()));
        assert!(flag(dir.path(), TRAY_HINT_SHOWN));
        assert_eq!(last_route(dir.path()).as_deref(), Some("#/canvas/c-1"));
        assert_eq!(read(dir.path()).theme.as_deref(), Some("dark"));
        // A route edited into the file by hand is not trusted.
        set(dir.path(), LAST_ROUTE, Value::String("#/x/<b>".into())).unwrap();
        assert_eq!(last_route(dir.path()), None);
    }

    #[test]
    fn a_missing_or_broken_file_reads_as_defaults() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path()), UiPrefs::default());
        std::fs::write(dir.path().join(FILE), "{ nope").unwrap();
        assert_eq!(read(dir.path()), UiPrefs::default());
    }
}
