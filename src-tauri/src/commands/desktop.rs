//! Commands that need the desktop itself: native dialogs, the system
//! browser, the UI preferences file.
//!
//! Why here: paths for exports and skill imports come from the native dialog
//! opened on this side, never from a string the web view sends, so a
//! compromised page cannot name a file to write or a folder to read. The
//! web view only asks ("export this variant", "import a folder") and gets
//! `null` back when the person cancels.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use colmena_core::canvas::exports::{self, ExportRequest, ExportTarget, Exported};
use colmena_core::document::MarkdownDocument;
use colmena_core::runtime::follow_up;
use colmena_core::skills::{self, Skill};
use colmena_core::{AppError, Ctx};
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Runtime, State};
use tauri_plugin_dialog::{DialogExt, FilePath};
use tokio::sync::oneshot;

use super::canvas::me;
use crate::{ui_prefs, window};

/// Which variant to export; the file is chosen in the save dialog.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ExportToFile {
    pub canvas_id: String,
    pub variant_id: String,
    #[serde(default)]
    pub round_id: Option<String>,
    /// The dialog's title (translated by the UI).
    pub title: String,
    /// The name offered in the dialog; only its last component is used.
    pub file_name: String,
}

/// Where a dialog sends the person's choice (`None`: cancelled).
type Answer = oneshot::Sender<Option<FilePath>>;

/// The native dialogs, held in the app's state so that commands need not
/// name the runtime (tauri-specta exports only non-generic commands).
#[derive(Clone)]
pub struct Dialogs {
    save_markdown: Arc<dyn Fn(String, String, Answer) + Send + Sync>,
    pick_folder: Arc<dyn Fn(String, Answer) + Send + Sync>,
    pick_json: Arc<dyn Fn(String, Answer) + Send + Sync>,
    pick_gguf: Arc<dyn Fn(String, Answer) + Send + Sync>,
    pick_images: Arc<dyn Fn(String, Answers) + Send + Sync>,
}

/// Where a multi-file dialog sends the person's choice (`None`: cancelled).
type Answers = oneshot::Sender<Option<Vec<FilePath>>>;

/// An open dialog for one file of a kind (`name`, its extensions).
fn pick_one<R: Runtime>(
    app: &AppHandle<R>,
    name: &'static str,
    extensions: &'static [&'static str],
) -> Arc<dyn Fn(String, Answer) + Send + Sync> {
    let picker = app.clone();
    Arc::new(move |title, answer| {
        picker
            .dialog()
            .file()
            .set_title(title)
            .add_filter(name, extensions)
            .pick_file(move |path| {
                let _ = answer.send(path);
            });
    })
}

impl Dialogs {
    pub fn new<R: Runtime>(app: AppHandle<R>) -> Dialogs {
        let saver = app.clone();
        Dialogs {
            save_markdown: Arc::new(move |title, file_name, answer| {
                saver
                    .dialog()
                    .file()
                    .set_title(title)
                    .set_file_name(file_name)
                    .add_filter("Markdown", &["md"])
                    .save_file(move |path| {
                        let _ = answer.send(path);
                    });
            }),
            pick_json: pick_one(&app, "JSON", &["json", "jsonc"]),
            pick_gguf: pick_one(&app, "GGUF", &["gguf"]),
            pick_images: {
                let picker = app.clone();
                Arc::new(move |title, answer| {
                    picker
                        .dialog()
                        .file()
                        .set_title(title)
                        .add_filter("Images", &["jpg", "jpeg", "png", "webp", "gif"])
                        .pick_files(move |paths| {
                            let _ = answer.send(paths);
                        });
                })
            },
            pick_folder: Arc::new(move |title, answer| {
                app.dialog()
                    .file()
                    .set_title(title)
                    .pick_folder(move |path| {
                        let _ = answer.send(path);
                    });
            }),
        }
    }

    async fn save_markdown(&self, title: String, file_name: String) -> Option<PathBuf> {
        let (answer, receiver) = oneshot::channel();
        (self.save_markdown)(title, file_name, answer);
        chosen(receiver).await
    }

    /// Offers `document` in the save dialog and writes it where the person
    /// chose; `false` when they cancelled.
    pub(crate) async fn save_document(
        &self,
        title: String,
        document: &MarkdownDocument,
    ) -> Result<bool, AppError> {
        match self.save_markdown(title, document.file_name.clone()).await {
            Some(path) => document.write_to(&path).map(|()| true),
            None => Ok(false),
        }
    }

    async fn pick_folder(&self, title: String) -> Option<PathBuf> {
        let (answer, receiver) = oneshot::channel();
        (self.pick_folder)(title, answer);
        chosen(receiver).await
    }

    /// The open dialog for image files (to attach in chat); empty when
    /// the person cancelled.
    pub(crate) async fn pick_images(&self, title: String) -> Vec<PathBuf> {
        let (answer, receiver) = oneshot::channel();
        (self.pick_images)(title, answer);
        receiver
            .await
            .ok()
            .flatten()
            .unwrap_or_default()
            .into_iter()
            .filter_map(|p| p.into_path().ok())
            .collect()
    }

    /// The open dialog for a GGUF model file (a local model to add).
    pub(crate) async fn pick_gguf(&self, title: String) -> Option<PathBuf> {
        let (answer, receiver) = oneshot::channel();
        (self.pick_gguf)(title, answer);
        chosen(receiver).await
    }

    /// The open dialog for a JSON file (an MCP configuration to import).
    pub(crate) async fn pick_json(&self, title: String) -> Option<PathBuf> {
        let (answer, receiver) = oneshot::channel();
        (self.pick_json)(title, answer);
        chosen(receiver).await
    }
}

/// Waits for a dialog answered on the UI thread; `None` when cancelled.
async fn chosen(receiver: oneshot::Receiver<Option<FilePath>>) -> Option<PathBuf> {
    receiver
        .await
        .ok()
        .flatten()
        .and_then(|p| p.into_path().ok())
}

/// Opens the save dialog, then writes the variant's markdown where the
/// person chose; `None` when they cancelled.
#[tauri::command]
#[specta::specta]
pub async fn export_variant_to_file(
    dialogs: State<'_, Dialogs>,
    ctx: State<'_, Ctx>,
    request: ExportToFile,
) -> Result<Option<Exported>, AppError> {
    let name = Path::new(&request.file_name).file_name().map_or_else(
        || "export.md".to_owned(),
        |n| n.to_string_lossy().into_owned(),
    );
    let Some(path) = dialogs.save_markdown(request.title, name).await else {
        return Ok(None);
    };
    let export = ExportRequest {
        canvas_id: request.canvas_id,
        variant_id: request.variant_id,
        round_id: request.round_id,
        format: None,
        target: ExportTarget::File,
        path: Some(path),
    };
    exports::export_variant(&ctx, &me(&ctx), export)
        .await
        .map(Some)
}

/// Opens the save dialog, then writes a finished run's result as markdown
/// where the person chose; `false` when they cancelled.
#[tauri::command]
#[specta::specta]
pub async fn export_run_to_file(
    dialogs: State<'_, Dialogs>,
    ctx: State<'_, Ctx>,
    run_id: String,
    title: String,
) -> Result<bool, AppError> {
    let document = follow_up::as_markdown(&ctx, &me(&ctx), &run_id).await?;
    dialogs.save_document(title, &document).await
}

/// Opens the folder picker, then imports the skill in the chosen folder;
/// `None` when the person cancelled.
#[tauri::command]
#[specta::specta]
pub async fn import_skill_folder(
    dialogs: State<'_, Dialogs>,
    ctx: State<'_, Ctx>,
    title: String,
) -> Result<Option<Skill>, AppError> {
    match dialogs.pick_folder(title).await {
        Some(folder) => skills::import_from_disk(&ctx, &folder).await.map(Some),
        None => Ok(None),
    }
}

/// Opens an `http`/`https` link in the system browser.
#[tauri::command]
#[specta::specta]
pub async fn open_link(url: String) -> Result<(), AppError> {
    window::open_in_browser(&window::external_link(&url)?)
}

#[tauri::command]
#[specta::specta]
pub async fn read_ui_prefs(ctx: State<'_, Ctx>) -> Result<ui_prefs::UiPrefs, AppError> {
    Ok(ui_prefs::read(ctx.data_dir()))
}

#[tauri::command]
#[specta::specta]
pub async fn write_ui_prefs(ctx: State<'_, Ctx>, prefs: ui_prefs::UiPrefs) -> Result<(), AppError> {
    ui_prefs::write(ctx.data_dir(), &prefs)
}
