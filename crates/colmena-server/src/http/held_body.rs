//! A response body that keeps something alive for as long as hyper holds
//! the body.
//!
//! A middleware's own state ends when the response head leaves it, but an
//! event stream goes on long after: what the stream holds (a stream slot,
//! its author's count of open streams) must last as long as the body and
//! be given back the moment hyper drops it — the stream ended, the client
//! went away, or the server stopped.

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use http_body::{Frame, SizeHint};

/// `inner`, holding `_held` until the body is dropped.
pub(crate) struct Holding<H> {
    inner: Body,
    _held: H,
}

impl<H> Holding<H> {
    pub(crate) fn new(inner: Body, held: H) -> Holding<H> {
        Holding { inner, _held: held }
    }
}

impl<H: Unpin> HttpBody for Holding<H> {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.get_mut().inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;

    struct Flag(Arc<AtomicBool>);

    impl Drop for Flag {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    #[tokio::test]
    async fn what_it_holds_lives_until_the_body_is_dropped() {
        let dropped = Arc::new(AtomicBool::new(false));
        let body = Body::new(Holding::new(
            Body::from("data: x\n\n"),
            Flag(Arc::clone(&dropped)),
        ));
        assert!(!dropped.load(Ordering::SeqCst));
        let read = axum::body::to_bytes(body, 1024).await.unwrap_or_default();
        assert_eq!(read, "data: x\n\n");
        assert!(dropped.load(Ordering::SeqCst), "read whole and dropped");
    }
}
