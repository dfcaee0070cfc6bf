//! Opening a workspace: everything that must hold before the first core
//! function runs, in the order it must happen.
//!
//! 1. the bus store is chosen (this workspace's SQLite, or a PostgreSQL
//!    database shared by replicas) and, for PostgreSQL, connected;
//! 2. the data dir is made private, the store opened and migrated, the
//!    master key found;
//! 3. the owner is made sure of, and so are the people's bus authors;
//!    runs and canvas variants cut off when their process stopped are
//!    swept;
//! 4. code-owned rows are re-seeded (SPEC H17, [`super::seed`]), and the
//!    search index is opened, rebuilt when it is missing, unreadable or
//!    behind the store;
//! 5. the tool box is installed as the runs' tool runner.
//!
//! Only here may every floor of the core be named: [`Ctx`] itself is a
//! plain container of what this puts in it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::ctx::{Ctx, Parts};
use crate::data_dir;
use crate::error::Result;
use crate::runs::context::install_tool_runner;
use crate::search;
use crate::secrets::{BackendChoice, Vault};
use crate::store::bus::Bus;
use crate::store::bus::postgres::{BusStoreChoice, PgBus, PgStore};
use crate::store::bus::sqlite::SqliteBus;
use crate::store::{DB_FILE, Store};
use crate::toolbox::dispatch::Toolbox;

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

/// Opens the workspace in `options.data_dir`, creating it if needed, with
/// the bus where `COLMENA_BUS_STORE` says (default: this workspace).
pub async fn open(options: OpenOptions) -> Result<Ctx> {
    let bus = BusStoreChoice::from_env(&options.data_dir)?;
    open_with_bus(options, bus).await
}

/// Like [`open`], with the bus in `bus` (the SQLite store of the
/// workspace, or a PostgreSQL database shared by replicas).
pub async fn open_with_bus(options: OpenOptions, bus: BusStoreChoice) -> Result<Ctx> {
    let shared = match bus {
        BusStoreChoice::Sqlite => None,
        BusStoreChoice::Postgres { url, schema } => {
            Some(Arc::new(PgBus::open(&url, &schema).await?))
        }
    };
    let data_dir = data_dir::prepare(&options.data_dir)?;
    let store = Store::open(&data_dir.join(DB_FILE))?;
    let vault = Vault::open(&data_dir, &store, options.secret_backend).await?;
    let owner = store.write(crate::users::owner_user).await?;
    let lease_owner = crate::runs::lease_owner(&uuid::Uuid::now_v7().simple().to_string());
    sweep(&store, &owner, &lease_owner).await?;
    super::seed::reseed(&store).await?;
    let dir = data_dir.clone();
    let (index, rebuilt) = store
        .read(move |conn| search::open_or_repair(&dir, conn))
        .await?;
    if rebuilt {
        tracing::info!("search index rebuilt ({} documents)", index.num_docs());
    }
    let bus: Bus = match shared {
        None => Arc::new(SqliteBus::new(store.clone(), data_dir.clone())),
        Some(pg) => Arc::new(PgStore::new(pg, &owner)),
    };
    crate::inbox::authors::ensure_people_have_authors(&store, &*bus).await?;
    let ctx = Ctx::from_parts(Parts {
        data_dir,
        store,
        vault,
        search: index,
        owner,
        lease_owner,
        bus,
    });
    // Runs call their tools through this port; the runtime names no tool.
    install_tool_runner(&ctx, Arc::new(Toolbox));
    Ok(ctx)
}

/// The owner and the people's bus authors made sure of; what the last
/// process left running marked as cut off.
async fn sweep(store: &Store, owner: &str, lease_owner: &str) -> Result<()> {
    let (owner, me) = (owner.to_owned(), lease_owner.to_owned());
    let (interrupted, cut_off) = store
        .write(move |tx| {
            crate::users::ensure_owner(tx, &owner)?;
            Ok((
                crate::runs::sweep(tx, &me)?,
                crate::canvas::leases::sweep(tx, &me)?,
            ))
        })
        .await?;
    if interrupted > 0 {
        tracing::info!("{interrupted} runs were interrupted when their process stopped");
    }
    if cut_off > 0 {
        tracing::info!("{cut_off} canvas variants were cut off when their process stopped");
    }
    Ok(())
}

/// Stops what this process started for the workspace (MCP servers);
/// called when the app or the server exits.
pub async fn shutdown(ctx: &Ctx) {
    crate::mcp_servers::Hub::of(ctx).stop_all().await;
}
