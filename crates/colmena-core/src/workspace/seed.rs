//! Re-seeding at every open (SPEC H17): the rows the code owns — the
//! built-in tools (from the tool box's catalog), the personas and
//! specialists, the seeded skills and presets — are put back as this build
//! knows them, and the search index is told its documents changed when
//! they did. A person's own rows are never touched.

use crate::error::Result;
use crate::search;
use crate::store::Store;

/// Brings the code-owned rows of `store` to this build's.
pub(super) async fn reseed(store: &Store) -> Result<()> {
    store
        .write(|tx| {
            let (docs, removed) =
                crate::setup::reconcile(tx, crate::toolbox::catalog::BUILTIN_TOOLS)?;
            if !docs.is_empty() || !removed.is_empty() {
                search::bump_generation(tx)?;
            }
            Ok(())
        })
        .await
}
