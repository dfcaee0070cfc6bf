//! Models on this computer as an outside session needs them: the library
//! (marked for this computer's memory) and a download with progress that
//! the client's cancel stops. A download names a library model or an
//! `https://` URL on the allowed hosts — never a file: a client cannot make
//! Colmena read a path.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::{Progress, ProgressSink};
use crate::caller::Caller;
use crate::ctx::Ctx;
use crate::error::Result;
use crate::models::library::{self, LibraryModel};
use crate::models::{Model, download, local};

/// `model_pull`: download a model to run on this computer.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelPullArgs {
    /// A model of the library (its id, see `model_library`) or the
    /// https:// URL of a GGUF file on Hugging Face.
    #[schemars(length(min = 1))]
    pub source: String,
}

/// The library, each model marked for whether it fits this computer.
pub fn model_library(caller: &Caller, _: super::canvas::NoArguments) -> Result<Vec<LibraryModel>> {
    caller.person()?;
    Ok(library::for_this_computer())
}

/// Downloads a model, checks it and makes it usable (the default when
/// there is none); progress counts its bytes; `cancel` stops it and
/// leaves nothing behind.
pub async fn model_pull(
    ctx: &Ctx,
    caller: &Caller,
    input: ModelPullArgs,
    progress: ProgressSink,
    cancel: &CancellationToken,
) -> Result<Model> {
    caller.person()?;
    let name = local::download_name(&input.source)?;
    // Each report counts more bytes than the last (MCP progress grows).
    let last = Arc::new(AtomicU64::new(0));
    let report = move |p: &download::DownloadProgress| {
        if p.downloaded > last.fetch_max(p.downloaded, Ordering::Relaxed) {
            progress(Progress {
                step: p.downloaded,
                message: format!("{}: {}", p.name, p.summary()),
                total: p.total,
            });
        }
    };
    let work = local::pull_download(ctx, &input.source, &report);
    tokio::pin!(work);
    tokio::select! {
        done = &mut work => done,
        () = cancel.cancelled() => loop {
            // Until the download has begun, there is nothing to cancel yet.
            local::cancel_download(ctx, &name);
            tokio::select! {
                done = &mut work => break done,
                () = tokio::time::sleep(CANCEL_AGAIN) => {}
            }
        },
    }
}

/// How soon a cancel is said again to a download that had not begun.
const CANCEL_AGAIN: std::time::Duration = std::time::Duration::from_millis(200);
