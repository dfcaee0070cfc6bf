//! The accept loop, in place of `axum::serve`, because the server must
//! hold under abuse and `axum::serve` has no knobs for it:
//!
//! - HTTP/1.1 only, through hyper, with a header-read timeout (slowloris:
//!   a connection that does not finish its request head in time, or sits
//!   idle between requests that long, is closed), a cap on the head's size
//!   (431) and on the number of headers;
//! - at most `max_connections` connections at once: past that, new ones
//!   wait in the kernel's backlog instead of costing a task and a buffer;
//! - TLS (rustls) when configured, its handshake under the same timeout;
//! - accept errors (out of file descriptors, a reset before accept) pause
//!   the loop briefly instead of ending it;
//! - on shutdown, requests in flight get [`SHUTDOWN_GRACE`] to finish.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use super::config::{MAX_HEAD_BYTES, MAX_HEADERS, SHUTDOWN_GRACE, ServerConfig};

/// Serves `app` on `listener` until `shutdown` completes.
pub(crate) async fn run(
    listener: TcpListener,
    app: Router,
    config: &ServerConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(config.header_timeout)
        .max_buf_size(MAX_HEAD_BYTES)
        .max_headers(MAX_HEADERS)
        .keep_alive(true);
    let slots = Arc::new(Semaphore::new(config.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    let tls = config.tls.clone().map(|t| t.acceptor);
    let handshake = config.header_timeout;
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = Arc::clone(&slots).acquire_owned() => permit,
            () = &mut shutdown => break,
        };
        let Ok(permit) = permit else { break };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => stream,
                Err(e) => {
                    pause_after(&e).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        let watcher = graceful.watcher();
        let http = http.clone();
        let tls = tls.clone();
        tokio::spawn(async move {
            let _permit = permit;
            match tls {
                None => {
                    let conn = http.serve_connection(TokioIo::new(stream), service);
                    let _ = watcher.watch(conn).await;
                }
                Some(tls) => {
                    let Ok(Ok(stream)) = tokio::time::timeout(handshake, tls.accept(stream)).await
                    else {
                        return;
                    };
                    let conn = http.serve_connection(TokioIo::new(stream), service);
                    let _ = watcher.watch(conn).await;
                }
            }
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(SHUTDOWN_GRACE) => {
            tracing::warn!("the HTTP server stopped with requests still open");
        }
    }
}

/// After a failed accept: nothing for a connection reset before accept,
/// a short pause otherwise (out of file descriptors, say) so the loop does
/// not spin.
async fn pause_after(error: &std::io::Error) {
    use std::io::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset | ErrorKind::Interrupted
    ) {
        return;
    }
    tracing::warn!("accepting a connection failed: {error}");
    tokio::time::sleep(Duration::from_millis(100)).await;
}
