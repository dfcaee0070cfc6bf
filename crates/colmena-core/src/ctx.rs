//! The context every core function takes: the open workspace.
//!
//! One `Ctx` per process and data dir. It owns the store, the vault and the
//! change feed; adapters hold it (Tauri state, the CLI's main, the HTTP
//! server's state) and pass `&Ctx` to core functions.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use crate::data_dir;
use crate::error::{AppError, Result};
use crate::ids::slugify;
use crate::search::{self, DocKind, SearchDoc, SearchHit, SearchIndex, SearchQuery};
use crate::secrets::{BackendChoice, Vault};
use crate::store::{DB_FILE, Store, meta};

const META_OWNER: &str = "owner_user_id";

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
    Tools,
    Skills,
    Ethics,
    Memories,
    Users,
    Conversations,
    Runs,
    Swarms,
    /// Bus authors (roles, people, their schedules).
    Authors,
    /// Bus messages (sent, read, deleted).
    Messages,
    /// Canvases, their items, variants, rounds, presets and sources.
    Canvases,
    /// Tool calls waiting for a person, and their decisions.
    Approvals,
    /// MCP servers: their configuration or their state (starting, failed…).
    McpServers,
    /// Scheduled jobs, their history and trigger requests (SPEC H25).
    CronJobs,
    /// HTTP endpoints declared as tools (SPEC H27); their tools arrive as `Tools`.
    Endpoints,
    /// The team bus this desktop is on: its settings, its link, its outbox.
    TeamBus,
}

impl Change {
    pub const ALL: [Change; 19] = [
        Change::Providers,
        Change::Models,
        Change::Agents,
        Change::Tools,
        Change::Skills,
        Change::Ethics,
        Change::Memories,
        Change::Users,
        Change::Conversations,
        Change::Runs,
        Change::Swarms,
        Change::Authors,
        Change::Messages,
        Change::Canvases,
        Change::Approvals,
        Change::McpServers,
        Change::CronJobs,
        Change::Endpoints,
        Change::TeamBus,
    ];
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
    search: Arc<SearchIndex>,
    owner: String,
    /// `host:pid:instance`: who holds the leases of this process's runs.
    lease_owner: String,
    /// Runs of this process, by id, and how to stop them.
    active_runs: Mutex<HashMap<String, CancellationToken>>,
    changes: broadcast::Sender<Change>,
    notices: broadcast::Sender<Notice>,
    /// Pokes the bus scheduler (urgent mail, a new schedule).
    wakes: Arc<tokio::sync::Notify>,
    /// The MCP servers this process runs.
    mcp: crate::mcp_servers::Hub,
    /// The cron scheduler this process runs, if any.
    cron: crate::cron::Hub,
    /// Where this process serves the bus over HTTP right now (a base URL),
    /// told to an outside role's wake command (`inbox::local_server`).
    serving: Mutex<Option<String>>,
    /// The bus messages' full-text index, opened on the first search.
    bus_search: std::sync::OnceLock<Arc<crate::inbox::search::BusIndex>>,
    /// The bus's PostgreSQL store when it is not this workspace's SQLite
    /// one (`COLMENA_BUS_STORE`, `colmena serve --store`; issue 17).
    bus_pg: Option<Arc<crate::inbox::pg::PgBus>>,
}

/// A [`Ctx`] that does not keep the workspace open (held by what the
/// workspace itself owns, such as an MCP session's event handler).
#[derive(Clone)]
pub(crate) struct WeakCtx(std::sync::Weak<Inner>);

impl WeakCtx {
    pub(crate) fn upgrade(&self) -> Option<Ctx> {
        self.0.upgrade().map(|inner| Ctx { inner })
    }
}

/// Something to tell the person at once (a desktop notification).
///
/// `title` is English. A notice Colmena itself composes also names its
/// [`NoticeTopic`], so the window and the desktop notification word it in
/// the person's language (issue 15); an agent's own notice (`notify_user`)
/// has none and is shown as the agent wrote it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Notice {
    pub title: String,
    pub body: String,
    pub urgent: bool,
    /// The agent or role that asked.
    pub from: Option<String>,
    /// What Colmena tells, for wording it in the person's language.
    #[serde(default)]
    pub topic: Option<NoticeTopic>,
}

/// What a notice Colmena composes is about, with what its title names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum NoticeTopic {
    /// Urgent mail reached the person; `sender` is the sender's name.
    UrgentMail { sender: String },
    /// A scheduled job's run failed.
    JobFailed { job: String },
    /// An agent waits for the person to allow or deny a tool of that risk.
    Approval {
        agent: String,
        tool: String,
        risk: crate::risk::Risk,
    },
    /// An agent's own notice (`notify_user`): the title and body are its
    /// words, shown as a message from an agent — `from` is the role whose
    /// wake-up sent it, else the agent — never as Colmena's.
    AgentMessage { from: String, unattended: bool },
    /// A role reached its wake-up budget; its mail waits until `until`
    /// (RFC 3339) unless a person wakes it.
    #[serde(rename_all = "camelCase")]
    WakeBudget {
        role: String,
        until: String,
        per_hour: u32,
        per_day: u32,
    },
}

/// Another process (the CLI, a server) committed to the store: what it
/// changed is not known here, so every live view refreshes.
fn forward_external_changes(store: &Store, changes: broadcast::Sender<Change>) {
    let mut external = store.external_changes();
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    runtime.spawn(async move {
        while let Ok(()) | Err(broadcast::error::RecvError::Lagged(_)) = external.recv().await {
            for change in Change::ALL {
                let _ = changes.send(change);
            }
        }
    });
}

impl Ctx {
    /// Opens the workspace in `options.data_dir`, creating it if needed:
    /// migrates the store, finds the master key, re-seeds code-owned rows
    /// (SPEC H17) and opens the search index, rebuilding it when it is
    /// missing, unreadable or behind the store.
    pub async fn open(options: OpenOptions) -> Result<Ctx> {
        let bus = crate::inbox::pg::BusStoreChoice::from_env(&options.data_dir)?;
        Ctx::open_with_bus(options, bus).await
    }

    /// Like [`Ctx::open`], with the bus in `bus` (the SQLite store of the
    /// workspace, or a PostgreSQL database shared by replicas).
    pub async fn open_with_bus(
        options: OpenOptions,
        bus: crate::inbox::pg::BusStoreChoice,
    ) -> Result<Ctx> {
        let bus_pg = match bus {
            crate::inbox::pg::BusStoreChoice::Sqlite => None,
            crate::inbox::pg::BusStoreChoice::Postgres { url, schema } => Some(Arc::new(
                crate::inbox::pg::PgBus::open(&url, &schema).await?,
            )),
        };
        let data_dir = data_dir::prepare(&options.data_dir)?;
        let store = Store::open(&data_dir.join(DB_FILE))?;
        let vault = Vault::open(&data_dir, &store, options.secret_backend).await?;
        let owner = store.write(owner_user).await?;
        let lease_owner = crate::runs::lease_owner(&uuid::Uuid::now_v7().simple().to_string());
        let me = lease_owner.clone();
        let (owner_id, swept) = (owner.clone(), store.clone());
        let (interrupted, cut_off) = swept
            .write(move |tx| {
                crate::users::ensure_owner(tx, &owner_id)?;
                crate::inbox::authors::ensure_user_authors(tx)?;
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
        store
            .write(|tx| {
                let (docs, removed) = crate::setup::reconcile(tx)?;
                if !docs.is_empty() || !removed.is_empty() {
                    search::bump_generation(tx)?;
                }
                Ok(())
            })
            .await?;
        let dir = data_dir.clone();
        let (index, rebuilt) = store
            .read(move |conn| search::open_or_repair(&dir, conn))
            .await?;
        if rebuilt {
            tracing::info!("search index rebuilt ({} documents)", index.num_docs());
        }
        let (changes, _) = broadcast::channel(256);
        let (notices, _) = broadcast::channel(64);
        forward_external_changes(&store, changes.clone());
        if let Some(pg) = &bus_pg {
            crate::inbox::authors::ensure_user_authors_on(pg, &store).await?;
        }
        Ok(Ctx {
            inner: Arc::new(Inner {
                data_dir,
                store,
                vault,
                search: Arc::new(index),
                owner,
                lease_owner,
                active_runs: Mutex::new(HashMap::new()),
                changes,
                notices,
                wakes: Arc::new(tokio::sync::Notify::new()),
                mcp: crate::mcp_servers::Hub::default(),
                cron: crate::cron::Hub::default(),
                serving: Mutex::new(None),
                bus_search: std::sync::OnceLock::new(),
                bus_pg,
            }),
        })
    }

    /// The bus's PostgreSQL store, when the bus is not in this workspace.
    pub(crate) fn bus_pg(&self) -> Option<&Arc<crate::inbox::pg::PgBus>> {
        self.inner.bus_pg.as_ref()
    }

    /// Where the bus lives: `sqlite`, or `postgres` and its schema.
    pub fn bus_store_name(&self) -> String {
        match self.bus_pg() {
            None => "sqlite".to_owned(),
            Some(pg) => format!("postgres (schema {})", pg.schema()),
        }
    }

    pub fn data_dir(&self) -> &Path {
        &self.inner.data_dir
    }

    /// Where the bus search index is kept once opened (`inbox::search`).
    pub(crate) fn bus_search_slot(
        &self,
    ) -> &std::sync::OnceLock<Arc<crate::inbox::search::BusIndex>> {
        &self.inner.bus_search
    }

    pub(crate) fn downgrade(&self) -> WeakCtx {
        WeakCtx(Arc::downgrade(&self.inner))
    }

    /// Gives this workspace an MCP client (the process that opened it has
    /// one: the app, `colmena serve`, the CLI). Without it, MCP servers can
    /// be configured but not started.
    pub fn install_mcp_connector(
        &self,
        connector: Arc<dyn crate::mcp_servers::port::McpConnector>,
    ) {
        self.inner.mcp.install(connector);
    }

    pub fn has_mcp_connector(&self) -> bool {
        self.inner.mcp.has_connector()
    }

    pub(crate) fn mcp_hub(&self) -> &crate::mcp_servers::Hub {
        &self.inner.mcp
    }

    /// The base URL this process serves the bus on, if it does.
    pub(crate) fn serving_slot(&self) -> &Mutex<Option<String>> {
        &self.inner.serving
    }

    /// Where this process's cron scheduler is found, when one runs.
    pub(crate) fn cron_hub(&self) -> &crate::cron::Hub {
        &self.inner.cron
    }

    /// Stops what this process started for the workspace (MCP servers);
    /// called when the app or the server exits.
    pub async fn shutdown(&self) {
        self.inner.mcp.stop_all().await;
    }

    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    pub fn vault(&self) -> &Vault {
        &self.inner.vault
    }

    /// The workspace owner's user id: whom "my" memories belong to.
    pub fn owner(&self) -> &str {
        &self.inner.owner
    }

    /// Applies index changes after their store commit. A failure is logged
    /// and repaired by a rebuild; the committed data is never in doubt.
    pub(crate) async fn index(
        &self,
        upserts: Vec<SearchDoc>,
        deletes: Vec<(DocKind, String)>,
        generation: i64,
    ) {
        if upserts.is_empty() && deletes.is_empty() {
            return;
        }
        let index = Arc::clone(&self.inner.search);
        let applied =
            tokio::task::spawn_blocking(move || index.apply(&upserts, &deletes, generation)).await;
        let failure = match applied {
            Ok(Ok(())) => return,
            Ok(Err(e)) => e.message,
            Err(e) => e.to_string(),
        };
        tracing::warn!("search index update failed, rebuilding: {failure}");
        if let Err(e) = self.reindex().await {
            tracing::error!("search index rebuild failed: {}", e.message);
        }
    }

    /// Rebuilds the search index from the store; returns its size.
    pub async fn reindex(&self) -> Result<u64> {
        let index = Arc::clone(&self.inner.search);
        self.store()
            .read(move |conn| {
                let generation = search::store_generation(conn)?;
                index.rebuild(&search::all_docs(conn)?, generation)?;
                Ok(index.num_docs())
            })
            .await
    }

    /// The search index, for work that queries it and the store in one go.
    pub(crate) fn search_index(&self) -> Arc<SearchIndex> {
        Arc::clone(&self.inner.search)
    }

    /// Runs a query on the search index.
    pub(crate) async fn search(&self, query: SearchQuery) -> Result<Vec<SearchHit>> {
        let index = Arc::clone(&self.inner.search);
        tokio::task::spawn_blocking(move || index.search(&query))
            .await
            .map_err(|e| AppError::internal(format!("search failed: {e}")))?
    }

    pub(crate) fn lease_owner(&self) -> &str {
        &self.inner.lease_owner
    }

    /// Registers a run of this process; the token stops it.
    pub(crate) fn register_run(&self, id: &str) -> CancellationToken {
        let token = CancellationToken::new();
        if let Ok(mut runs) = self.inner.active_runs.lock() {
            runs.insert(id.to_owned(), token.clone());
        }
        token
    }

    pub(crate) fn unregister_run(&self, id: &str) {
        if let Ok(mut runs) = self.inner.active_runs.lock() {
            runs.remove(id);
        }
    }

    /// Whether a run is running in this process.
    pub(crate) fn runs_here(&self, id: &str) -> bool {
        self.inner
            .active_runs
            .lock()
            .is_ok_and(|runs| runs.contains_key(id))
    }

    /// Cancels a run of this process; false if it is not running here.
    pub(crate) fn cancel_run(&self, id: &str) -> bool {
        let token = self
            .inner
            .active_runs
            .lock()
            .ok()
            .and_then(|runs| runs.get(id).cloned());
        token.map(|t| t.cancel()).is_some()
    }

    /// Subscribes to notices for the person (desktop notifications).
    pub fn notices(&self) -> broadcast::Receiver<Notice> {
        self.inner.notices.subscribe()
    }

    pub(crate) fn notify(&self, notice: Notice) {
        let _ = self.inner.notices.send(notice);
    }

    /// Tells the bus scheduler to look again now.
    pub(crate) fn wake_scheduler(&self) {
        self.inner.wakes.notify_one();
    }

    pub(crate) fn scheduler_bell(&self) -> Arc<tokio::sync::Notify> {
        Arc::clone(&self.inner.wakes)
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

/// The owner's user id, chosen once from the OS login name.
fn owner_user(tx: &rusqlite::Transaction<'_>) -> Result<String> {
    if let Some(owner) = meta::get(tx, META_OWNER)? {
        return Ok(owner);
    }
    let login = std::env::var("USER")
        .or_else(|_| std::env::var("USERNAME"))
        .unwrap_or_default();
    let owner = slugify(&login).unwrap_or_else(|| "owner".to_owned());
    meta::set(tx, META_OWNER, &owner)?;
    Ok(owner)
}
