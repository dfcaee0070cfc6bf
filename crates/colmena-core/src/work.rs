//! The work this process is doing right now, and how to stop it.
//!
//! An agent run and a canvas variant's generation both run in this
//! process under a cancellation token, found again by what they are: a
//! cancel from any door (the window, the CLI through the store, MCP) stops
//! exactly the work it names. The key is typed, so a run and a variant
//! that happen to share an id never stop each other, and no caller builds
//! the key by hand.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use tokio_util::sync::CancellationToken;

/// What a piece of running work is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Work<'a> {
    /// An agent, chat or swarm run, by its run id.
    Run(&'a str),
    /// A canvas variant being generated, by the variant's id.
    Variant(&'a str),
}

/// [`Work`] as the registry keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Run(String),
    Variant(String),
}

impl Work<'_> {
    fn key(self) -> Key {
        match self {
            Work::Run(id) => Key::Run(id.to_owned()),
            Work::Variant(id) => Key::Variant(id.to_owned()),
        }
    }
}

/// The work of this process, by what it is, with the token that stops it.
#[derive(Default)]
pub(crate) struct Registry {
    active: Mutex<HashMap<Key, CancellationToken>>,
}

impl Registry {
    /// Registers `work`; the token stops it.
    pub(crate) fn register(&self, work: Work<'_>) -> CancellationToken {
        let token = CancellationToken::new();
        self.lock().insert(work.key(), token.clone());
        token
    }

    pub(crate) fn unregister(&self, work: Work<'_>) {
        self.lock().remove(&work.key());
    }

    /// Whether `work` runs in this process.
    pub(crate) fn is_running(&self, work: Work<'_>) -> bool {
        self.lock().contains_key(&work.key())
    }

    /// Stops `work`; false if it does not run in this process.
    pub(crate) fn cancel(&self, work: Work<'_>) -> bool {
        let token = self.lock().get(&work.key()).cloned();
        token.map(|t| t.cancel()).is_some()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, CancellationToken>> {
        // A panic while holding the lock leaves the map as it was: go on.
        self.active.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_and_a_variant_with_the_same_id_are_two_pieces_of_work() {
        let registry = Registry::default();
        let run = registry.register(Work::Run("x"));
        let variant = registry.register(Work::Variant("x"));
        assert!(registry.cancel(Work::Variant("x")));
        assert!(variant.is_cancelled());
        assert!(!run.is_cancelled());
        registry.unregister(Work::Run("x"));
        assert!(!registry.is_running(Work::Run("x")));
        assert!(registry.is_running(Work::Variant("x")));
        assert!(!registry.cancel(Work::Run("x")));
    }
}
