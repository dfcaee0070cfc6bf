//! The app's side of a sandboxed program's network (`cli_exec`): the same
//! address policy `web_fetch` has.
//!
//! The program runs in a network namespace of its own with nothing but its
//! own loopback (`launcher/forward.rs` says why); every connection it makes
//! to 127.0.0.1:3128 in there (where `http_proxy` points) arrives here as a
//! file descriptor over a per-run Unix socket in a folder only the app can
//! enter. For each one the proxy:
//!
//! 1. reads the request head ([`request`]): `CONNECT host:port`, or a plain
//!    HTTP request with a full `http://` URL;
//! 2. resolves the name and checks every address it resolves to with the
//!    agent's policy ([`NetGuard::check`]): metadata names and addresses
//!    never; loopback, private and link-local ranges only when the agent
//!    may reach the local network;
//! 3. connects to exactly the addresses it checked (a DNS answer that
//!    changes afterwards cannot slip in), and passes bytes both ways — or
//!    answers `403` with the reason, `400` for a request it cannot read,
//!    `502` when the connection fails.
//!
//! Resolver and dialer are injectable: tests prove refusals happen before
//! any connection attempt, with traffic on loopback only.

// Used on macOS; compiled everywhere so its tests run on Linux.
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
mod loopback;
mod request;

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use url::Url;

use crate::net_guard::NetGuard;
use request::Request;

/// Connections one run may have open through its proxy at once; more are
/// closed as they arrive. Each holds two of the app's descriptors: without
/// a cap one program could open tens of thousands and leave the app (and
/// the local server in it) none (found in the attacker's re-review).
pub(crate) const MAX_CONNECTIONS: usize = 64;

/// How long connecting to a checked address may take.
const DIAL_TIMEOUT: Duration = Duration::from_secs(15);

/// Opens a TCP connection to one of `addrs` (already checked).
pub(crate) trait Dialer: Send + Sync {
    fn dial<'a>(&'a self, addrs: &'a [SocketAddr]) -> BoxFuture<'a, std::io::Result<TcpStream>>;
}

/// The system's `connect`, each address in turn.
struct SystemDialer;

impl Dialer for SystemDialer {
    fn dial<'a>(&'a self, addrs: &'a [SocketAddr]) -> BoxFuture<'a, std::io::Result<TcpStream>> {
        Box::pin(async move {
            tokio::time::timeout(DIAL_TIMEOUT, TcpStream::connect(addrs))
                .await
                .map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, "timed out"))?
        })
    }
}

/// Where a sandboxed program may connect: the agent's address policy.
#[derive(Clone)]
pub(crate) struct Egress {
    guard: NetGuard,
    dialer: Arc<dyn Dialer>,
    allow_local_network: bool,
}

impl fmt::Debug for Egress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Egress")
            .field("allow_local_network", &self.allow_local_network)
            .finish_non_exhaustive()
    }
}

impl Egress {
    /// Public addresses, plus the local network when the agent may reach
    /// it; the system's resolver and `connect`.
    pub(crate) fn new(allow_local_network: bool) -> Egress {
        Egress {
            guard: NetGuard::system(allow_local_network),
            dialer: Arc::new(SystemDialer),
            allow_local_network,
        }
    }

    #[cfg(all(test, target_os = "linux"))]
    pub(crate) fn with_resolver(mut self, resolver: Arc<dyn crate::net_guard::Resolver>) -> Egress {
        self.guard = self.guard.with_resolver(resolver);
        self
    }

    #[cfg(test)]
    pub(crate) fn with_dialer(mut self, dialer: Arc<dyn Dialer>) -> Egress {
        self.dialer = dialer;
        self
    }

    /// The first request head of a connection to the loopback door, once
    /// it carries the run's key as its `Proxy-Authorization` (other
    /// programs on this computer can reach that door too); without it the
    /// client gets `407` and nothing is resolved or dialled.
    pub(crate) async fn proven_head(
        &self,
        client: &mut TcpStream,
        key: &loopback::Key,
    ) -> Option<(Vec<u8>, Vec<u8>)> {
        let (head, early) = read_head(client).await?;
        if !key.opens(request::proxy_authorization(&head)) {
            answer_407(client).await;
            return None;
        }
        Some((head, early))
    }

    /// Answers the request in `head` (and passes what followed it).
    pub(crate) async fn pass(&self, mut client: TcpStream, head: Vec<u8>, early: Vec<u8>) {
        let (url, opening) = match request::parse(&head) {
            Ok(Request::Tunnel { url }) => (url, None),
            Ok(Request::Forward { url, head }) => (url, Some(head)),
            Err(why) => return answer(&mut client, "400 Bad Request", why).await,
        };
        let mut upstream = match self.connect(&url).await {
            Ok(upstream) => upstream,
            Err((status, why)) => return answer(&mut client, status, &why).await,
        };
        let sent = match opening {
            // The request as the server must see it, then what followed it.
            Some(head) => upstream.write_all(&head).await,
            None => {
                client
                    .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    .await
            }
        };
        if sent.is_err() || upstream.write_all(&early).await.is_err() {
            return;
        }
        let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
    }

    /// Checks `url`'s addresses and connects to them; else the status and
    /// the reason for the program.
    async fn connect(&self, url: &Url) -> Result<TcpStream, (&'static str, String)> {
        let addrs = self.guard.check(url).await.map_err(|e| {
            let status = if e.code == crate::error::ErrorCode::Forbidden {
                "403 Forbidden"
            } else {
                "502 Bad Gateway"
            };
            (status, format!("Colmena's sandbox refused: {}", e.message))
        })?;
        self.dialer.dial(&addrs).await.map_err(|e| {
            (
                "502 Bad Gateway",
                format!(
                    "cannot connect to {}: {e}",
                    url.host_str().unwrap_or_default()
                ),
            )
        })
    }
}

/// The head of the first request, and whatever the program sent after it;
/// `None` when it closed or sent more than [`request::MAX_HEAD`] without
/// ending one.
async fn read_head(client: &mut TcpStream) -> Option<(Vec<u8>, Vec<u8>)> {
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = client.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        bytes.extend_from_slice(&chunk[..n]);
        if let Some(end) = request::head_end(&bytes) {
            let early = bytes.split_off(end);
            return Some((bytes, early));
        }
        if bytes.len() > request::MAX_HEAD {
            let _ = answer(
                client,
                "431 Request Header Fields Too Large",
                "the head is too long",
            )
            .await;
            return None;
        }
    }
}

/// A short answer from the proxy itself, and the connection closed.
async fn answer(client: &mut TcpStream, status: &str, text: &str) {
    answer_with(client, status, "", text).await;
}

/// `407`: the loopback door's key is missing or wrong.
async fn answer_407(client: &mut TcpStream) {
    answer_with(
        client,
        "407 Proxy Authentication Required",
        "Proxy-Authenticate: Basic realm=\"colmena\"\r\n",
        "this proxy serves one program of Colmena's, which knows its key",
    )
    .await;
}

async fn answer_with(client: &mut TcpStream, status: &str, fields: &str, text: &str) {
    let body = format!("{text}\n");
    let reply = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\n{fields}\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = client.write_all(reply.as_bytes()).await;
    let _ = client.shutdown().await;
}

// Only Linux's launcher forwards connections (from its network namespace);
// macOS's programs reach the loopback door, which Seatbelt lets them.
#[cfg(target_os = "macos")]
pub(crate) use loopback::LoopbackDoor;
#[cfg(target_os = "linux")]
mod door;
#[cfg(target_os = "linux")]
pub(crate) use door::Door;
