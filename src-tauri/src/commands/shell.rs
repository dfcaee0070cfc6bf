//! The desktop shell's own settings and places (issue 16): keep running in
//! the tray, start at login, the place in the window to come back to, and
//! the place a `colmena://` launch asked for.

use std::sync::{Arc, Mutex};

use colmena_core::{AppError, Ctx};
use serde::{Deserialize, Serialize};
use tauri::State;

use crate::tray::TrayState;
use crate::ui_prefs;

/// The shell's settings as Settings → Desktop shows them.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct DesktopSettings {
    /// Closing the window keeps Colmena in the tray.
    pub keep_in_tray: bool,
    /// A tray icon could be made on this desktop (else closing quits).
    pub tray_available: bool,
    /// Colmena starts, in the tray, when the person logs in.
    pub start_at_login: bool,
}

/// Turning "start at login" on and off, through the autostart plugin; held
/// in the state as closures so the commands need not name the runtime.
#[derive(Clone)]
pub struct StartAtLogin {
    pub is_on: Arc<dyn Fn() -> bool + Send + Sync>,
    pub set: Arc<dyn Fn(bool) -> Result<(), String> + Send + Sync>,
}

/// The route a `colmena://` link on the command line asked for, given once
/// to the UI when it starts.
#[derive(Default)]
pub struct LaunchRoute(pub Mutex<Option<String>>);

fn settings(ctx: &Ctx, tray: &TrayState, login: &StartAtLogin) -> DesktopSettings {
    DesktopSettings {
        keep_in_tray: ui_prefs::keep_in_tray(ctx.data_dir()),
        tray_available: tray.available(),
        start_at_login: (login.is_on)(),
    }
}

#[tauri::command]
#[specta::specta]
pub async fn read_desktop_settings(
    ctx: State<'_, Ctx>,
    tray: State<'_, TrayState>,
    login: State<'_, StartAtLogin>,
) -> Result<DesktopSettings, AppError> {
    Ok(settings(&ctx, &tray, &login))
}

#[tauri::command]
#[specta::specta]
pub async fn set_keep_in_tray(
    ctx: State<'_, Ctx>,
    tray: State<'_, TrayState>,
    login: State<'_, StartAtLogin>,
    on: bool,
) -> Result<DesktopSettings, AppError> {
    ui_prefs::set_flag(ctx.data_dir(), ui_prefs::KEEP_IN_TRAY, on)?;
    Ok(settings(&ctx, &tray, &login))
}

#[tauri::command]
#[specta::specta]
pub async fn set_start_at_login(
    ctx: State<'_, Ctx>,
    tray: State<'_, TrayState>,
    login: State<'_, StartAtLogin>,
    on: bool,
) -> Result<DesktopSettings, AppError> {
    (login.set)(on).map_err(|e| {
        AppError::new(
            colmena_core::ErrorCode::Precondition,
            format!("start at login could not be changed: {e}"),
        )
    })?;
    Ok(settings(&ctx, &tray, &login))
}

#[tauri::command]
#[specta::specta]
pub async fn remember_route(ctx: State<'_, Ctx>, route: String) -> Result<(), AppError> {
    ui_prefs::remember_route(ctx.data_dir(), &route)
}

/// Where the window opens: the link it was launched with, else where the
/// person was last.
#[tauri::command]
#[specta::specta]
pub async fn initial_route(
    ctx: State<'_, Ctx>,
    launch: State<'_, LaunchRoute>,
) -> Result<Option<String>, AppError> {
    let asked = launch
        .0
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take();
    Ok(asked.or_else(|| ui_prefs::last_route(ctx.data_dir())))
}

/// A view of the window has painted (`view`: its id): one line `<view>
/// <wall-clock ms>` appended to the file named by `COLMENA_FIRST_PAINT_FILE`
/// when the benchmark (`scripts/bench-app.sh`) sets it — the first line is
/// the start's first paint; nothing happens otherwise.
#[tauri::command]
#[specta::specta]
pub async fn report_paint(view: String) -> Result<(), AppError> {
    use std::io::Write;
    let Some(file) = std::env::var_os("COLMENA_FIRST_PAINT_FILE") else {
        return Ok(());
    };
    if view.is_empty() || view.len() > 20 || !view.chars().all(|c| c.is_ascii_lowercase()) {
        return Err(AppError::invalid_field(
            "view",
            "unknown_view",
            "not a view",
        ));
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    let line = format!("{view} {now}\n");
    let _ = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    Ok(())
}
