//! The desktop shell's own settings and places (issue 16): keep running in
//! the tray, start at login, the place in the window to come back to, the
//! place a `colmena://` launch asked for, and the files a launch handed over.

use std::sync::{Arc, Mutex};

use colmena_core::canvas::Caller;
use colmena_core::canvas::items::CanvasItem;
use colmena_core::{AppError, Ctx};
use serde::{Deserialize, Serialize};
use tauri::State;

use crate::after_first_paint::{FirstPaint, Started};
use crate::handed_files::HandedFiles;
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
    pub set: Arc<dyn Fn(bool) -> Result<(), AppError> + Send + Sync>,
}

/// The route a `colmena://` link on the command line asked for, given once
/// to the UI when it starts.
#[derive(Default)]
pub struct LaunchRoute(pub Mutex<Option<String>>);

/// The desktop settings, once the tray has been tried (it is made after the
/// first frame: `after_first_paint`).
async fn settings(
    ctx: &Ctx,
    tray: &TrayState,
    login: &StartAtLogin,
    started: &Started,
) -> DesktopSettings {
    started.wait().await;
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
    started: State<'_, Started>,
) -> Result<DesktopSettings, AppError> {
    Ok(settings(&ctx, &tray, &login, &started).await)
}

#[tauri::command]
#[specta::specta]
pub async fn set_keep_in_tray(
    ctx: State<'_, Ctx>,
    tray: State<'_, TrayState>,
    login: State<'_, StartAtLogin>,
    started: State<'_, Started>,
    on: bool,
) -> Result<DesktopSettings, AppError> {
    ui_prefs::set_flag(ctx.data_dir(), ui_prefs::KEEP_IN_TRAY, on)?;
    Ok(settings(&ctx, &tray, &login, &started).await)
}

#[tauri::command]
#[specta::specta]
pub async fn set_start_at_login(
    ctx: State<'_, Ctx>,
    tray: State<'_, TrayState>,
    login: State<'_, StartAtLogin>,
    started: State<'_, Started>,
    on: bool,
) -> Result<DesktopSettings, AppError> {
    (login.set)(on)?;
    Ok(settings(&ctx, &tray, &login, &started).await)
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

/// A view of the window has painted (`view`: its id). The first time, the
/// start-up work that waited for it begins (`after_first_paint`). With
/// `COLMENA_FIRST_PAINT_FILE` set (the benchmark, `scripts/bench-app.sh`),
/// one line `<view> <wall-clock ms>` is appended to that file — the first
/// line is the start's first paint.
#[tauri::command]
#[specta::specta]
pub async fn report_paint(
    first_paint: State<'_, FirstPaint>,
    view: String,
) -> Result<(), AppError> {
    use std::io::Write;
    first_paint.painted();
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

/// The files handed to the app (its command line, a second launch) that
/// wait for a canvas.
#[tauri::command]
#[specta::specta]
pub async fn handed_files(files: State<'_, HandedFiles>) -> Result<Vec<String>, AppError> {
    Ok(files.list())
}

/// Puts a handed-over file on `canvas`, once; any other path is refused.
#[tauri::command]
#[specta::specta]
pub async fn add_handed_file(
    ctx: State<'_, Ctx>,
    files: State<'_, HandedFiles>,
    canvas: String,
    path: String,
) -> Result<CanvasItem, AppError> {
    let file = files
        .take(&path)
        .ok_or_else(|| AppError::not_found("handed file", &path))?;
    colmena_core::canvas::files::add_file(&ctx, &Caller::ui(&ctx), &canvas, &file).await
}
