//! Request bodies nobody read, and the connection they leave behind.
//!
//! Many answers come before the body is read: a wrong method (405), a
//! missing token (401), a refused `Host`, a body over the limit (413). hyper
//! then finds bytes of that body still unread on the connection; when they
//! have not all arrived yet, it closes the connection after the response —
//! without a `Connection: close` in it. A client that put the connection
//! back in its pool sends its next request into a closed socket and gets no
//! answer at all ("error sending request", seen in CI on a loaded machine:
//! `POST /author/owner/inbox: no answer`).
//!
//! So every request body is watched. After the handler, what it left unread
//! is read and thrown away (at most [`DRAIN_BYTES`], within [`DRAIN_TIME`]),
//! and the connection stays usable; when that is more than it is worth, or
//! the client is waiting for `100 Continue` before sending it, the response
//! says `Connection: close` (RFC 9112 §9.6), so the client knows not to
//! reuse it.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use http_body::{Frame, SizeHint};
use tokio::sync::oneshot;

/// The most unread body bytes thrown away to keep a connection open: a few
/// times the largest body read at all, so a client whose body was a little
/// over the limit still gets its 413 on a connection it may reuse.
pub(crate) const DRAIN_BYTES: u64 = 4 * super::MAX_REQUEST_BYTES as u64;
/// How long throwing them away may hold the answer back.
pub(crate) const DRAIN_TIME: Duration = Duration::from_secs(2);

/// The middleware: watches the body, drains what the handler left.
pub(crate) async fn drain(request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    // A client that waits for `100 Continue` has not sent its body: asking
    // for it only to throw it away would defeat the point.
    let waits_to_send = parts.headers.contains_key(header::EXPECT);
    let (back, mut left) = oneshot::channel();
    let watched = Watched {
        inner: Some(body),
        back: Some(back),
    };
    let mut response = next
        .run(Request::from_parts(parts, Body::new(watched)))
        .await;
    // A body still held elsewhere (an answer streaming from it) is that
    // code's to finish: only a body dropped unread comes back here.
    if let Ok(unread) = left.try_recv()
        && (waits_to_send || !throw_away(unread).await)
    {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// Reads `body` to its end and discards it; false when it is longer than
/// [`DRAIN_BYTES`], slower than [`DRAIN_TIME`] or broken.
async fn throw_away(mut body: Body) -> bool {
    if body.size_hint().lower() > DRAIN_BYTES {
        return false;
    }
    let read = async {
        let mut seen = 0u64;
        while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await
        {
            let Ok(frame) = frame else { return false };
            if let Some(data) = frame.data_ref() {
                seen += data.len() as u64;
                if seen > DRAIN_BYTES {
                    return false;
                }
            }
        }
        true
    };
    tokio::time::timeout(DRAIN_TIME, read)
        .await
        .unwrap_or(false)
}

/// A request body that, dropped before its end, hands itself back.
struct Watched {
    inner: Option<Body>,
    back: Option<oneshot::Sender<Body>>,
}

impl HttpBody for Watched {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        match self.get_mut().inner.as_mut() {
            Some(body) => Pin::new(body).poll_frame(cx),
            None => Poll::Ready(None),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.as_ref().is_none_or(HttpBody::is_end_stream)
    }

    fn size_hint(&self) -> SizeHint {
        self.inner
            .as_ref()
            .map_or_else(|| SizeHint::with_exact(0), HttpBody::size_hint)
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        if let (Some(body), Some(back)) = (self.inner.take(), self.back.take())
            && !body.is_end_stream()
        {
            // The middleware may be gone (the request was cancelled): then
            // hyper closes the connection, as it would have.
            let _ = back.send(body);
        }
    }
}
