//! Output read as it streams: the first bytes are kept, the rest is counted
//! and dropped (so memory stays flat whatever the program writes), and a
//! shared budget says when the program has written too much in all.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// What one stream wrote: its first bytes, and how many there were.
#[derive(Debug, Default, Clone)]
pub(crate) struct Captured {
    pub kept: Vec<u8>,
    pub total: u64,
}

impl Captured {
    /// The kept bytes as text, with a note when some were dropped.
    pub(crate) fn text(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.kept).into_owned();
        if self.total > self.kept.len() as u64 {
            text.push_str(&format!(
                "\n[cut: the first {} of {} bytes]",
                self.kept.len(),
                self.total
            ));
        }
        text
    }
}

/// Bytes written by all streams of one program, against a limit.
pub(crate) struct Budget {
    seen: AtomicU64,
    limit: u64,
    over: Notify,
}

impl Budget {
    pub(crate) fn new(limit: u64) -> Budget {
        Budget {
            seen: AtomicU64::new(0),
            limit,
            over: Notify::new(),
        }
    }

    fn spend(&self, n: u64) {
        let before = self.seen.fetch_add(n, Ordering::Relaxed);
        if before <= self.limit && before + n > self.limit {
            // A stored permit: the waiter may not be waiting yet.
            self.over.notify_one();
        }
    }

    /// Resolves once the limit is passed.
    pub(crate) async fn flooded(&self) {
        self.over.notified().await;
    }
}

/// Reads `pipe` to its end (or until `stop`), keeping the first `cap` bytes.
pub(crate) async fn read<R: AsyncRead + Unpin>(
    mut pipe: R,
    cap: usize,
    budget: Arc<Budget>,
    stop: CancellationToken,
) -> Captured {
    let mut out = Captured::default();
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = tokio::select! {
            read = pipe.read(&mut buf) => match read {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            },
            _ = stop.cancelled() => break,
        };
        let room = cap.saturating_sub(out.kept.len());
        out.kept.extend_from_slice(&buf[..n.min(room)]);
        out.total += n as u64;
        budget.spend(n as u64);
    }
    out
}
