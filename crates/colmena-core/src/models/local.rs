//! Local models as a service (issue 35): the GGUF files in the data dir's
//! `models/` and their rows under the workspace's one `local` provider, so
//! agents pick them like any other model. Adding a file checks it first
//! (`llm::local::gguf`) and copies it in whole (written as `.part`, then
//! renamed); removing one deletes its row (refused while agents use it, as
//! for any model) and frees its disk.

use std::path::{Path, PathBuf};

use rusqlite::OptionalExtension;
use serde::{Deserialize, Serialize};

use crate::ctx::{Change, Ctx};
use crate::error::{AppError, ErrorCode, Result};
use crate::ids::{ModelId, ProviderId};
use crate::llm::ProviderKind;
use crate::llm::local::{files, gguf};
use crate::models::download::{self, DownloadProgress};
use crate::models::{self, Model, library};
use crate::providers::connect::{ConnectModel, connect};

/// The name Colmena gives the provider of the models on this computer
/// (its id is that name's slug, `local`, unless a server took it first:
/// the provider is always found by its kind, never by its id).
const PROVIDER_NAME: &str = "Local";

/// The id of the local provider, once one was made (there is one per
/// workspace; another provider may be called "Local" and hold `local`).
pub(crate) fn provider_id_in(conn: &rusqlite::Connection) -> Result<Option<ProviderId>> {
    let found: Option<String> = conn
        .query_row(
            "SELECT id FROM providers WHERE kind = ?1 ORDER BY created_at, id LIMIT 1",
            [ProviderKind::Local.as_str()],
            |r| r.get(0),
        )
        .optional()?;
    Ok(found.map(ProviderId))
}

/// The id of local model `name` (`<local provider>/name`), once the local
/// provider exists.
pub async fn model_id(ctx: &Ctx, name: &str) -> Result<Option<ModelId>> {
    let name = name.to_owned();
    ctx.store()
        .read(move |conn| Ok(provider_id_in(conn)?.map(|p| ModelId::new(&p, &name))))
        .await
}

/// A local model as the Models list shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct LocalModel {
    /// `local/<name>`.
    pub id: ModelId,
    pub name: String,
    /// Bytes on disk (so far, while downloading).
    pub bytes: u64,
    /// Still downloading: not usable yet.
    pub downloading: bool,
    /// Loaded in the engine now.
    pub loaded: bool,
}

/// The workspace's local models and their engine (its state: what is
/// loaded, the engine's process).
pub fn handle(ctx: &Ctx) -> crate::llm::local::LocalModels {
    super::resolve::local_models(ctx)
}

/// Loads a local model into the engine now (the Models list's Load), after
/// the runs already waiting for it, so its first answer starts at once.
pub async fn load(ctx: &Ctx, name: &str) -> Result<()> {
    files::check_name(name)?;
    let name_ = name.to_owned();
    let context = ctx
        .store()
        .read(move |conn| {
            let Some(provider) = provider_id_in(conn)? else {
                return Ok(None);
            };
            let id = ModelId::new(&provider, &name_);
            let window: Option<Option<u32>> = conn
                .query_row(
                    "SELECT context_window FROM models WHERE id = ?1",
                    [&id],
                    |r| r.get(0),
                )
                .optional()?;
            Ok(window.flatten())
        })
        .await?;
    handle(ctx).with_context(context).load(name).await?;
    ctx.changed(Change::Models);
    Ok(())
}

/// Unloads the model the engine holds, freeing its memory, once the runs
/// already on it have ended; returns at once (the Models list hears of it
/// as a change).
pub fn unload(ctx: &Ctx) {
    let ctx = ctx.clone();
    tokio::spawn(async move {
        handle(&ctx).engine().unload().await;
        ctx.changed(Change::Models);
    });
}

/// The workspace's local models: the files, whole and downloading.
pub async fn list(ctx: &Ctx) -> Result<Vec<LocalModel>> {
    let local = super::resolve::local_models(ctx);
    let loaded = local.engine().loaded();
    let dir = local.dir().to_path_buf();
    let found = tokio::task::spawn_blocking(move || files::list(&dir))
        .await
        .map_err(|e| AppError::internal(format!("listing the models failed: {e}")))??;
    // Files put there by hand before any local provider: the id they get
    // when one is made (`Local` -> `local`).
    let provider = ctx
        .store()
        .read(provider_id_in)
        .await?
        .unwrap_or_else(|| ProviderId("local".to_owned()));
    Ok(found
        .into_iter()
        .map(|f| {
            let path = files::path_of(local.dir(), &f.name).ok();
            LocalModel {
                id: ModelId::new(&provider, &f.name),
                loaded: !f.partial && loaded.is_some() && loaded == path,
                name: f.name,
                bytes: f.bytes,
                downloading: f.partial,
            }
        })
        .collect())
}

/// Makes `name` (a file already in `models/`) a model of the `local`
/// provider, made if needed; it becomes the default if none is set.
pub async fn register(ctx: &Ctx, name: &str) -> Result<Model> {
    files::check_name(name)?;
    let connected = connect(
        ctx,
        ConnectModel {
            name: PROVIDER_NAME.to_owned(),
            kind: ProviderKind::Local.as_str().to_owned(),
            base_url: None,
            api_key: None,
            models: vec![name.to_owned()],
        },
    )
    .await?;
    connected
        .models
        .into_iter()
        .next()
        .ok_or_else(|| AppError::internal("the local model was not added"))
}

/// The name a download of `what` (a library model or a URL) gets, and
/// where it comes from; `None` when `what` is neither.
fn remote(what: &str) -> Result<Option<(String, download::Source)>> {
    if let Some(entry) = library::find(what) {
        let source = download::Source {
            url: library::url_of(entry, download::mirror().as_ref())?,
            sha256: Some(entry.sha256.to_owned()),
            size: Some(entry.bytes),
        };
        return Ok(Some((entry.id.to_owned(), source)));
    }
    if !(what.starts_with("https://") || what.starts_with("http://")) {
        return Ok(None);
    }
    let url = url::Url::parse(what).map_err(|e| {
        AppError::invalid_field(
            "source",
            "invalid_url",
            format!("'{what}' is not a URL: {e}"),
        )
    })?;
    let name = name_for_file(Path::new(
        url.path_segments()
            .and_then(|mut s| s.next_back())
            .unwrap_or_default(),
    ))?;
    let source = download::Source {
        url,
        sha256: None,
        size: None,
    };
    Ok(Some((name, source)))
}

/// The name the model downloaded from `what` (a library model or a URL)
/// gets: the key to cancel its download with.
pub fn download_name(what: &str) -> Result<String> {
    remote(what.trim())?
        .map(|(name, _)| name)
        .ok_or_else(|| not_downloadable(what))
}

/// Cancels the download of `what`: a model's name, or the library id or
/// link it was asked for by (before its first progress says its name);
/// false when none was under way.
pub fn cancel_download(ctx: &Ctx, what: &str) -> bool {
    let name = download_name(what).unwrap_or_else(|_| what.trim().to_owned());
    download::cancel(ctx, &name)
}

fn not_downloadable(what: &str) -> AppError {
    AppError::invalid_field(
        "source",
        "not_downloadable",
        format!(
            "'{}' is not a model of the library or an https:// URL",
            what.trim()
        ),
    )
}

/// What the window's Download may name: a model of the library or an
/// `https://` URL — never a path, since the page names no file (files are
/// chosen in the backend's own dialogs).
pub async fn pull_download(
    ctx: &Ctx,
    what: &str,
    progress: &(dyn Fn(&DownloadProgress) + Send + Sync),
) -> Result<Model> {
    download_name(what)?;
    pull(ctx, what, None, progress).await
}

/// What `colmena model pull` may name: a model
/// of the library, an `https://` URL of a GGUF file, or a file on disk.
pub async fn pull(
    ctx: &Ctx,
    what: &str,
    name: Option<&str>,
    progress: &(dyn Fn(&DownloadProgress) + Send + Sync),
) -> Result<Model> {
    let what = what.trim();
    if let Some((name_of_source, source)) = remote(what)? {
        let name = name.map_or(name_of_source, str::to_owned);
        return fetch_and_register(ctx, &name, &source, progress).await;
    }
    let path = Path::new(what);
    if path.is_file() {
        return add_file(ctx, path, name).await;
    }
    Err(AppError::new(
        ErrorCode::NotFound,
        format!(
            "'{what}' is not a model of the library ({}), an https:// URL or a file",
            library::ENTRIES
                .iter()
                .map(|e| e.id)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
    .with_details(serde_json::json!({ "reason": "unknown_source" })))
}

async fn fetch_and_register(
    ctx: &Ctx,
    name: &str,
    source: &download::Source,
    progress: &(dyn Fn(&DownloadProgress) + Send + Sync),
) -> Result<Model> {
    files::check_name(name)?;
    let dir = super::resolve::local_models(ctx).dir().to_path_buf();
    if files::path_of(&dir, name)?.exists() {
        return Err(AppError::conflicting_field(
            "name",
            "duplicate",
            format!("a local model named '{name}' is already on this computer"),
        ));
    }
    // The model is listed while it downloads: a run on it says so, and
    // the first one becomes the default at once.
    let existed = match model_id(ctx, name).await? {
        Some(id) => models::get(ctx, &id).await.is_ok(),
        None => false,
    };
    let model = register(ctx, name).await?;
    let id = model.id.clone();
    let fetched = match download::fetch(ctx, &dir, name, source, progress).await {
        // A file that is not a whole model is not kept.
        Ok(path) => gguf::check(&path).inspect_err(|_| {
            let _gone = std::fs::remove_file(&path);
        }),
        Err(e) => Err(e),
    };
    match fetched {
        Ok(_) => Ok(model),
        Err(e) => {
            // Nothing is left to resume after a cancel or a wrong file: the
            // entry goes too. A broken connection keeps both, to resume.
            let resumable = files::part_of(&dir, name)?.exists();
            if !resumable && !existed {
                let _entry_gone = models::delete(ctx, &id).await;
            }
            Err(e)
        }
    }
}

/// Checks the GGUF at `source` and copies it into `models/` as `name`
/// (default: its file name), then registers it.
pub async fn add_file(ctx: &Ctx, source: &Path, name: Option<&str>) -> Result<Model> {
    let name = match name {
        Some(name) => name.to_owned(),
        None => name_for_file(source)?,
    };
    files::check_name(&name)?;
    let dir = super::resolve::local_models(ctx).dir().to_path_buf();
    let target = files::path_of(&dir, &name)?;
    if target.exists() {
        return Err(AppError::conflicting_field(
            "name",
            "duplicate",
            format!("a local model named '{name}' is already on this computer"),
        ));
    }
    let source = source.to_path_buf();
    let part = files::part_of(&dir, &name)?;
    tokio::task::spawn_blocking(move || copy_in(&source, &part, &target))
        .await
        .map_err(|e| AppError::internal(format!("copying the model failed: {e}")))??;
    register(ctx, &name).await
}

fn copy_in(source: &Path, part: &Path, target: &Path) -> Result<()> {
    gguf::check(source)?;
    if let Some(dir) = part.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let copied = std::fs::copy(source, part).and_then(|_| std::fs::rename(part, target));
    if let Err(e) = copied {
        let _partial_gone = std::fs::remove_file(part);
        return Err(AppError::internal(format!(
            "the model could not be copied into {}: {e}",
            part.display()
        )));
    }
    Ok(())
}

/// A model name from a file name: its stem, with anything else than
/// letters, digits, `.`, `_` and `-` made a `-`.
pub fn name_for_file(path: &Path) -> Result<String> {
    let stem = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = stem
        .strip_suffix(".gguf")
        .or_else(|| stem.strip_suffix(".GGUF"))
        .unwrap_or(&stem);
    let name: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    let name = name.trim_start_matches('.').to_owned();
    files::check_name(&name)?;
    Ok(name)
}

/// Removes local model `name`: its row (refused while agents use it) and
/// its file (or its unfinished download).
pub async fn remove(ctx: &Ctx, name: &str) -> Result<()> {
    files::check_name(name)?;
    let local = super::resolve::local_models(ctx);
    let id = model_id(ctx, name).await?;
    let path = files::path_of(local.dir(), name)?;
    let part = files::part_of(local.dir(), name)?;
    // A download under way here stops first (it removes its part).
    download::cancel(ctx, name);
    let deleted = match &id {
        Some(id) => models::delete(ctx, id).await,
        None => Err(AppError::new(
            ErrorCode::NotFound,
            format!("no local model is named '{name}'"),
        )),
    };
    match deleted {
        Ok(()) => {}
        // A file with no row (copied in by hand) is removed all the same.
        Err(e) if e.code == ErrorCode::NotFound && (path.exists() || part.exists()) => {}
        Err(e) => return Err(e),
    }
    local.engine().unload_if(&path).await;
    for file in [path, part] {
        remove_file(&file)?;
    }
    ctx.changed(Change::Models);
    Ok(())
}

fn remove_file(file: &PathBuf) -> Result<()> {
    match std::fs::remove_file(file) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(AppError::internal(format!(
            "{} could not be removed: {e}",
            file.display()
        ))),
    }
}
