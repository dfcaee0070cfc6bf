//! Progress and cancellation for long operations (a generation, a run),
//! the same for every door: the MCP server turns [`Progress`] into
//! progress notifications and the client's cancel notification into the
//! token given to [`until_cancelled`].

use std::future::Future;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

/// One step of a long operation.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Grows with every report.
    pub step: u64,
    /// What happened, readable.
    pub message: String,
    /// What `step` counts up to, when known (a download's bytes).
    pub total: Option<u64>,
}

/// Where progress goes.
pub type ProgressSink = Arc<dyn Fn(Progress) + Send + Sync>;

/// Runs `work`; when `cancel` fires first, calls `stop` (which asks the
/// work to end) and still waits for `work`, so that what it recorded is
/// settled before the answer.
pub async fn until_cancelled<T>(
    work: impl Future<Output = T>,
    cancel: &CancellationToken,
    stop: impl FnOnce(),
) -> T {
    tokio::pin!(work);
    tokio::select! {
        done = &mut work => done,
        () = cancel.cancelled() => {
            stop();
            work.await
        }
    }
}
