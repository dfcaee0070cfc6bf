//! Updates (issue 16): the updater plugin reads the signed manifest the
//! release workflow publishes (`latest.json`, every bundle signed with the
//! project's minisign key; the public half is in `tauri.conf.json`), and a
//! bundle whose signature does not verify is refused by the plugin.
//!
//! Why only when asked: checking reaches the network, so Colmena never does
//! it on its own — the person presses "Check for updates" in Settings →
//! Desktop. Installing backs the store up first (`before_new_version` does
//! it again on the first start of the new version, which is the copy that
//! counts when an update is installed some other way).

use std::sync::{Arc, Mutex};

use colmena_core::{AppError, Ctx, ErrorCode};
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Runtime, State};
use tauri_plugin_updater::{Update, UpdaterExt};

/// A newer version the manifest offers.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct UpdateOffer {
    pub version: String,
    pub current_version: String,
    /// The release notes, as the manifest has them.
    pub notes: Option<String>,
}

type Checker = Arc<dyn Fn() -> Result<tauri_plugin_updater::Updater, AppError> + Send + Sync>;

/// The updater, held in the state as a closure so the commands need not name
/// the runtime; the update found by the last check waits here for install.
#[derive(Clone)]
pub struct Updates {
    updater: Checker,
    restart: Arc<dyn Fn() + Send + Sync>,
    found: Arc<Mutex<Option<Update>>>,
}

impl Updates {
    pub fn new<R: Runtime>(app: &AppHandle<R>) -> Updates {
        let (checker, restarter) = (app.clone(), app.clone());
        Updates {
            updater: Arc::new(move || checker.updater().map_err(unreachable)),
            restart: Arc::new(move || restarter.restart()),
            found: Arc::default(),
        }
    }
}

fn unreachable(e: impl std::fmt::Display) -> AppError {
    AppError::new(
        ErrorCode::Upstream,
        format!("the update server could not be asked: {e}"),
    )
}

/// Asks the manifest whether a newer version exists.
#[tauri::command]
#[specta::specta]
pub async fn check_for_update(
    updates: State<'_, Updates>,
) -> Result<Option<UpdateOffer>, AppError> {
    let updater = (updates.updater)()?;
    let found = updater.check().await.map_err(unreachable)?;
    let offer = found.as_ref().map(|u| UpdateOffer {
        version: u.version.clone(),
        current_version: u.current_version.clone(),
        notes: u.body.clone(),
    });
    *updates
        .found
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = found;
    Ok(offer)
}

/// Backs the store up, downloads and installs the update the last check
/// found (its signature verified by the plugin) and restarts.
#[tauri::command]
#[specta::specta]
pub async fn install_update(
    ctx: State<'_, Ctx>,
    updates: State<'_, Updates>,
) -> Result<(), AppError> {
    let update = updates
        .found
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take()
        .ok_or_else(|| AppError::precondition("check for updates first: no update is waiting"))?;
    let db = ctx.data_dir().join(colmena_core::store::DB_FILE);
    colmena_core::store::backup::backup(&db, None)?;
    update
        .download_and_install(|_, _| {}, || {})
        .await
        .map_err(unreachable)?;
    (updates.restart)();
    Ok(())
}
