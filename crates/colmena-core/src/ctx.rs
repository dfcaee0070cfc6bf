//! The context every core function takes: the open workspace.
//!
//! One `Ctx` per process and data dir. It owns the store, the vault and the
//! change feed; adapters hold it (Tauri state, the CLI's main, the HTTP
//! server's state) and pass `&Ctx` to core functions.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use crate::data_dir;
use crate::error::Result;
use crate::secrets::{BackendChoice, Vault};
use crate::store::{DB_FILE, Store};

/// How to open a workspace.
#[derive(Debug, Clone)]
pub struct OpenOptions {
    pub data_dir: PathBuf,
    pub secret_backend: BackendChoice,
}

impl OpenOptions {
    /// Options resolved the way every Colmena program does it: `explicit`
    /// data dir, else `COLMENA_DATA_DIR`, else the OS folder; the secret
    /// backend from `COLMENA_SECRET_BACKEND`.
    pub fn from_env(explicit_data_dir: Option<&Path>) -> Result<OpenOptions> {
        Ok(OpenOptions {
            data_dir: data_dir::resolve(explicit_data_dir)?,
            secret_backend: BackendChoice::from_env()?,
        })
    }
}

/// What changed, for live views. Sent after the change is committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Providers,
    Models,
    Agents,
}

/// An open workspace.
#[derive(Clone)]
pub struct Ctx {
    inner: Arc<Inner>,
}

struct Inner {
    data_dir: PathBuf,
    store: Store,
    vault: Vault,
    changes: broadcast::Sender<Change>,
}

impl Ctx {
    /// Opens the workspace in `options.data_dir`, creating it if needed.
    pub async fn open(options: OpenOptions) -> Result<Ctx> {
        let data_dir = data_dir::prepare(&options.data_dir)?;
        let store = Store::open(&data_dir.join(DB_FILE))?;
        let vault = Vault::open(&data_dir, &store, options.secret_backend).await?;
        let (changes, _) = broadcast::channel(256);
        Ok(Ctx {
            inner: Arc::new(Inner {
                data_dir,
                store,
                vault,
                changes,
            }),
        })
    }

    pub fn data_dir(&self) -> &Path {
        &self.inner.data_dir
    }

    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    pub fn vault(&self) -> &Vault {
        &self.inner.vault
    }

    /// Subscribes to committed changes.
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.inner.changes.subscribe()
    }

    pub(crate) fn changed(&self, change: Change) {
        // No subscriber is fine: nobody is watching.
        let _ = self.inner.changes.send(change);
    }
}
