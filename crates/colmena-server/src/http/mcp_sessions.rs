//! Who opened each MCP session, and how many sessions and event streams
//! each author holds open: what the per-author caps of `/mcp` count.
//!
//! A session ends in many ways — its client's DELETE, the idle time, a
//! handshake that never came, the server stopping — and rmcp ends every
//! one of them through [`SessionManager::close_session`]. So sessions are
//! counted there, in [`TrackedSessions`], a wrapper around rmcp's own
//! [`LocalSessionManager`]: a session rmcp dropped stops counting against
//! its author at once, and its id is unknown (404) from then on. Counting
//! response headers instead would keep every session a client forgot
//! about, and its author would reach the cap for good.
//!
//! rmcp creates a session inline, while it handles the `initialize` POST in
//! the request's own task. The token check reserves a place for it
//! ([`Opening`]) and lends the reservation to rmcp through the task-local
//! [`OPENING`], so the session is its opener's before its worker can end it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use futures_util::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::WorkerTransport;
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, LocalSessionWorker,
};
use rmcp::transport::streamable_http_server::session::{EventStore, ServerSseMessage, SessionId};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::config::{MAX_SESSIONS_PER_AUTHOR, MAX_STREAMS_PER_AUTHOR};

/// The bookkeeping, shared by the token check and the session manager.
pub(crate) type SharedOwners = Arc<Mutex<Owners>>;

/// Locks the bookkeeping. A panic while it was held left plain counts
/// behind, still worth using.
pub(crate) fn lock(owners: &Mutex<Owners>) -> MutexGuard<'_, Owners> {
    owners.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Every open session's author, and each author's counts.
#[derive(Debug, Default)]
pub(crate) struct Owners {
    /// Session id → the author who opened it.
    by_session: HashMap<String, String>,
    /// Author → its sessions open, and being opened.
    sessions: HashMap<String, usize>,
    /// Author → its event streams open.
    streams: HashMap<String, usize>,
}

impl Owners {
    /// The author who opened session `id`, while it is open.
    pub(crate) fn owner(&self, id: &str) -> Option<&str> {
        self.by_session.get(id).map(String::as_str)
    }

    /// Session `id` ended: it no longer counts against its opener. Closing
    /// it twice (a DELETE, then its worker ending) counts once.
    fn forget(&mut self, id: &str) {
        if let Some(author) = self.by_session.remove(id) {
            give_back(&mut self.sessions, &author);
        }
    }
}

/// One more for `author`, unless it holds `max` already.
fn take(counts: &mut HashMap<String, usize>, author: &str, max: usize) -> bool {
    let count = counts.entry(author.to_owned()).or_default();
    if *count >= max {
        return false;
    }
    *count += 1;
    true
}

fn give_back(counts: &mut HashMap<String, usize>, author: &str) {
    if let Some(count) = counts.get_mut(author) {
        *count = count.saturating_sub(1);
        if *count == 0 {
            counts.remove(author);
        }
    }
}

tokio::task_local! {
    /// The place reserved for the session the current request may open.
    pub(crate) static OPENING: Opening;
}

/// A place among its author's sessions, reserved by the token check for an
/// `initialize`: the session's own once rmcp creates it, given back when
/// none was created (the request failed, or opened nothing).
pub(crate) struct Opening {
    author: String,
    owners: SharedOwners,
    /// Whether a session took the place.
    taken: AtomicBool,
}

impl Opening {
    /// The place, or `None` when `author` holds its most sessions.
    pub(crate) fn reserve(owners: &SharedOwners, author: &str) -> Option<Opening> {
        let reserved = take(&mut lock(owners).sessions, author, MAX_SESSIONS_PER_AUTHOR);
        reserved.then(|| Opening {
            author: author.to_owned(),
            owners: Arc::clone(owners),
            taken: AtomicBool::new(false),
        })
    }

    /// rmcp created session `id` for this request: it is the author's.
    fn opened(&self, id: &str) {
        let mut owners = lock(&self.owners);
        // A second session for one place (rmcp never makes one) counts too.
        if self.taken.swap(true, Ordering::Relaxed) {
            *owners.sessions.entry(self.author.clone()).or_default() += 1;
        }
        owners.by_session.insert(id.to_owned(), self.author.clone());
    }
}

impl Drop for Opening {
    fn drop(&mut self) {
        if !*self.taken.get_mut() {
            give_back(&mut lock(&self.owners).sessions, &self.author);
        }
    }
}

/// Why an event stream was refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum StreamRefused {
    /// Its author holds [`MAX_STREAMS_PER_AUTHOR`] streams already.
    TooMany,
    /// Every stream slot of the server is taken.
    SlotsFull,
}

/// One open event stream: a stream slot and a place among its author's
/// streams, both given back when it is dropped (with the response body).
pub(crate) struct StreamHold {
    author: String,
    owners: SharedOwners,
    _slot: OwnedSemaphorePermit,
}

impl StreamHold {
    /// A stream for `author`, within its cap and the server's `slots`.
    pub(crate) fn take(
        owners: &SharedOwners,
        slots: &Arc<Semaphore>,
        author: &str,
    ) -> Result<StreamHold, StreamRefused> {
        let mut counts = lock(owners);
        if !take(&mut counts.streams, author, MAX_STREAMS_PER_AUTHOR) {
            return Err(StreamRefused::TooMany);
        }
        match Arc::clone(slots).try_acquire_owned() {
            Ok(slot) => Ok(StreamHold {
                author: author.to_owned(),
                owners: Arc::clone(owners),
                _slot: slot,
            }),
            Err(_) => {
                give_back(&mut counts.streams, author);
                Err(StreamRefused::SlotsFull)
            }
        }
    }
}

impl Drop for StreamHold {
    fn drop(&mut self) {
        give_back(&mut lock(&self.owners).streams, &self.author);
    }
}

/// rmcp's in-memory sessions, each recorded as its opener's and forgotten
/// when rmcp closes it.
pub(crate) struct TrackedSessions {
    inner: LocalSessionManager,
    owners: SharedOwners,
}

impl TrackedSessions {
    /// Sessions closed after `idle` without a request or a message to send.
    pub(crate) fn new(owners: SharedOwners, idle: Duration) -> TrackedSessions {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(idle);
        TrackedSessions { inner, owners }
    }
}

impl SessionManager for TrackedSessions {
    type Error = LocalSessionManagerError;
    type Transport = WorkerTransport<LocalSessionWorker>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, transport) = self.inner.create_session().await?;
        if OPENING.try_with(|opening| opening.opened(&id)).is_err() {
            // Only a request past the token check reaches rmcp; a session
            // with no opener answers 404 to everyone.
            tracing::warn!("an MCP session was opened outside the token check");
        }
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner.has_session(id).await
    }

    /// Where every session ends (DELETE, idle, failed handshake, shutdown).
    /// Forgotten first: a close cut short still ends the session for rmcp,
    /// whose worker then closes it again.
    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        lock(&self.owners).forget(id);
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_stream(id, message).await
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.resume(id, last_event_id).await
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.inner.event_store()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared() -> SharedOwners {
        Arc::new(Mutex::new(Owners::default()))
    }

    #[test]
    fn a_place_no_session_took_is_given_back() {
        let owners = shared();
        let places: Vec<Opening> = (0..MAX_SESSIONS_PER_AUTHOR)
            .map(|_| Opening::reserve(&owners, "ana").expect("below the cap"))
            .collect();
        assert!(Opening::reserve(&owners, "ana").is_none(), "over the cap");
        assert!(
            Opening::reserve(&owners, "beto").is_some(),
            "each author has a cap of its own"
        );
        drop(places);
        assert!(Opening::reserve(&owners, "ana").is_some());
        let left = lock(&owners);
        assert!(left.sessions.is_empty(), "{left:?}");
    }

    #[test]
    fn a_session_counts_against_its_opener_until_it_is_closed() {
        let owners = shared();
        let opening = Opening::reserve(&owners, "ana").expect("a place");
        opening.opened("s1");
        drop(opening);
        assert_eq!(lock(&owners).owner("s1"), Some("ana"));
        assert_eq!(lock(&owners).sessions.get("ana"), Some(&1));
        // A DELETE, then the session's worker ending: closed twice.
        lock(&owners).forget("s1");
        lock(&owners).forget("s1");
        assert_eq!(lock(&owners).owner("s1"), None);
        let left = lock(&owners);
        assert!(left.sessions.is_empty(), "{left:?}");
    }

    #[test]
    fn streams_are_capped_per_author_and_by_the_slots() {
        let owners = shared();
        let slots = Arc::new(Semaphore::new(MAX_STREAMS_PER_AUTHOR + 1));
        let held: Vec<StreamHold> = (0..MAX_STREAMS_PER_AUTHOR)
            .map(|_| StreamHold::take(&owners, &slots, "ana").expect("below the cap"))
            .collect();
        assert_eq!(
            StreamHold::take(&owners, &slots, "ana").err(),
            Some(StreamRefused::TooMany)
        );
        let beto = StreamHold::take(&owners, &slots, "beto").expect("a count of its own");
        assert_eq!(
            StreamHold::take(&owners, &slots, "cora").err(),
            Some(StreamRefused::SlotsFull)
        );
        drop(beto);
        assert!(StreamHold::take(&owners, &slots, "cora").is_ok());
        drop(held);
        let left = lock(&owners);
        assert!(left.streams.is_empty(), "{left:?}");
        assert_eq!(slots.available_permits(), MAX_STREAMS_PER_AUTHOR + 1);
    }
}
