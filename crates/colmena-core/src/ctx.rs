//! The context every core function takes: the open workspace, as a plain
//! container of handles.
//!
//! One `Ctx` per process and data dir. It holds the store, the vault, the
//! search index, the change and notice feeds, the bells that wake the
//! schedulers (the bus's and the cron jobs'), the work running here, and
//! typed slots for what floors above keep per workspace ([`Ctx::slot`]:
//! the MCP servers' hub, the cron scheduler's, the runs' tool runner). It
//! opens nothing and starts nothing: [`crate::workspace`] does, then hands
//! it over. Adapters hold it (Tauri state, the CLI's main, the HTTP
//! server's state) and pass `&Ctx` to core functions.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use crate::error::{AppError, Result};
use crate::search::{self, DocKind, SearchDoc, SearchHit, SearchIndex, SearchQuery};
use crate::secrets::Vault;
use crate::store::Store;
use crate::store::bus::{Bus, BusStore};
use crate::work;

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
    /// The work running in this process, and how to stop it.
    work: work::Registry,
    changes: broadcast::Sender<Change>,
    notices: broadcast::Sender<Notice>,
    /// Pokes the bus scheduler (urgent mail, a new schedule).
    wakes: Arc<tokio::sync::Notify>,
    /// Pokes this process's cron scheduler (a job changed here).
    cron_wakes: Arc<tokio::sync::Notify>,
    /// What floors above keep per open workspace, by type ([`Ctx::slot`]).
    slots: Mutex<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
    /// Where this process serves the bus over HTTP right now (a base URL),
    /// told to an outside role's wake command (`inbox::local_server`).
    serving: Mutex<Option<String>>,
    /// Where the bus's rows live: this workspace's SQLite file, or a
    /// PostgreSQL database replicas share (`COLMENA_BUS_STORE`, `colmena
    /// serve --store`; issue 17).
    bus: Bus,
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
    /// A scheduled job's run failed; `job_id` opens it (absent in notices
    /// from before it was carried).
    #[serde(rename_all = "camelCase")]
    JobFailed {
        job: String,
        #[serde(default)]
        job_id: Option<String>,
    },
    /// A scheduled job's run finished with a result (a quiet notice that
    /// opens the job, its result on top of its history).
    #[serde(rename_all = "camelCase")]
    JobDone { job: String, job_id: String },
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

/// What [`crate::workspace::open`] puts in a [`Ctx`].
pub(crate) struct Parts {
    pub data_dir: PathBuf,
    pub store: Store,
    pub vault: Vault,
    pub search: SearchIndex,
    pub owner: String,
    pub lease_owner: String,
    pub bus: Bus,
}

impl Ctx {
    /// The container over an opened workspace's parts (opening is
    /// [`crate::workspace::open`]'s).
    pub(crate) fn from_parts(parts: Parts) -> Ctx {
        let (changes, _) = broadcast::channel(256);
        let (notices, _) = broadcast::channel(64);
        forward_external_changes(&parts.store, changes.clone());
        Ctx {
            inner: Arc::new(Inner {
                data_dir: parts.data_dir,
                store: parts.store,
                vault: parts.vault,
                search: Arc::new(parts.search),
                owner: parts.owner,
                lease_owner: parts.lease_owner,
                work: work::Registry::default(),
                changes,
                notices,
                wakes: Arc::new(tokio::sync::Notify::new()),
                cron_wakes: Arc::new(tokio::sync::Notify::new()),
                slots: Mutex::new(HashMap::new()),
                serving: Mutex::new(None),
                bus: parts.bus,
            }),
        }
    }

    /// The bus store: every bus operation goes through it.
    pub(crate) fn bus(&self) -> &dyn BusStore {
        &*self.inner.bus
    }

    /// Where the bus lives: `sqlite`, or `postgres` and its schema.
    pub fn bus_store_name(&self) -> String {
        self.inner.bus.name()
    }

    pub fn data_dir(&self) -> &Path {
        &self.inner.data_dir
    }

    pub(crate) fn downgrade(&self) -> WeakCtx {
        WeakCtx(Arc::downgrade(&self.inner))
    }

    /// This workspace's state of type `T`, made on first use: what a
    /// floor above keeps per open workspace (the MCP servers' hub, the cron
    /// scheduler's handle) without this file naming it —
    /// as Tauri's `State<T>` and axum's `Extension<T>` do.
    pub(crate) fn slot<T: Any + Default + Send + Sync>(&self) -> Arc<T> {
        let mut slots = self
            .inner
            .slots
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let held = slots
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Arc::new(T::default()));
        match Arc::clone(held).downcast::<T>() {
            Ok(slot) => slot,
            // Keyed by its own type: another type is never found here.
            Err(_) => unreachable!("a slot holds the type it is keyed by"),
        }
    }

    /// The base URL this process serves the bus on, if it does.
    pub(crate) fn serving_slot(&self) -> &Mutex<Option<String>> {
        &self.inner.serving
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

    /// The work running in this process, and how to stop it.
    pub(crate) fn work(&self) -> &work::Registry {
        &self.inner.work
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

    /// Tells this process's cron scheduler to look again now (a job
    /// changed): the job operations ring, the scheduler listens, and
    /// neither names the other.
    pub(crate) fn wake_cron_scheduler(&self) {
        self.inner.cron_wakes.notify_one();
    }

    pub(crate) fn cron_scheduler_bell(&self) -> Arc<tokio::sync::Notify> {
        Arc::clone(&self.inner.cron_wakes)
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
