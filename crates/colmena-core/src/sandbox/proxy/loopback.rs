//! macOS's way out for a program an agent runs: the app's proxy, listening
//! on this computer's loopback for one run, behind a key.
//!
//! Why: macOS has no network namespaces, so a program cannot be handed a
//! private loopback whose only exit is the app (Linux, `door.rs`). Seatbelt
//! can instead allow outgoing TCP to exactly one port of the loopback
//! (`seatbelt.rs`): the port this door listens on. Every other program on
//! the computer can reach that port too, so the door asks for the run's key
//! — 32 random bytes, handed to the program alone in its `http_proxy`
//! (`http://colmena:KEY@127.0.0.1:PORT`, which curl, git, pip and npm send
//! as `Proxy-Authorization: Basic …`). A request without it gets `407`
//! before any name is resolved or address dialled. What passes is checked
//! with the agent's address policy like every proxied request ([`Egress`]).
//!
//! Compiled on every system so its tests run on Linux; used on macOS.

use std::net::Ipv4Addr;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use subtle::ConstantTimeEq;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::{CancellationToken, DropGuard};

use super::{Egress, MAX_CONNECTIONS};
use crate::error::{AppError, Result};

/// The user name in the proxy URL (any would do; the key is the secret).
const USER: &str = "colmena";
/// Connections that have not shown the key yet, at once: the rest of
/// [`MAX_CONNECTIONS`] stays the program's whatever another process opens.
const UNPROVEN: usize = 8;
/// How long a connection has to show the key: a program sends its request
/// head at once.
const KEY_TIMEOUT: Duration = Duration::from_secs(5);
/// A pause after a failed `accept` (out of descriptors), never a busy loop.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// A run's key: what the program's requests must carry.
pub(crate) struct Key {
    /// Hex of 32 random bytes.
    secret: String,
}

impl Key {
    fn random() -> Result<Key> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes)
            .map_err(|e| AppError::internal(format!("no random bytes for the proxy's key: {e}")))?;
        Ok(Key {
            secret: crate::secrets::encode_hex(&bytes),
        })
    }

    /// The `Proxy-Authorization` value a client sends for
    /// `http://colmena:KEY@…`.
    fn authorization(&self) -> String {
        let pair = format!("{USER}:{}", self.secret);
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(pair)
        )
    }

    /// Whether a request's `Proxy-Authorization` is this key's (compared
    /// in constant time; the scheme's name in any case).
    pub(crate) fn opens(&self, sent: Option<&[u8]>) -> bool {
        let Some(sent) = sent else {
            return false;
        };
        let expected = self.authorization();
        let (scheme, credentials) = expected.split_at("Basic ".len());
        sent.len() == expected.len()
            && sent[..scheme.len()].eq_ignore_ascii_case(scheme.as_bytes())
            && bool::from(sent[scheme.len()..].ct_eq(credentials.as_bytes()))
    }
}

/// The listener for one run, before the program starts.
pub(crate) struct LoopbackDoor {
    listener: TcpListener,
    port: u16,
    key: Key,
}

impl LoopbackDoor {
    /// Listens on 127.0.0.1 at a port the system picks (inside the app's
    /// runtime).
    pub(crate) fn open() -> Result<LoopbackDoor> {
        let refused = |e: std::io::Error| {
            AppError::precondition(format!("cannot open the program's proxy: {e}"))
        };
        let listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(refused)?;
        listener.set_nonblocking(true).map_err(refused)?;
        let port = listener.local_addr().map_err(refused)?.port();
        Ok(LoopbackDoor {
            listener: TcpListener::from_std(listener).map_err(refused)?,
            port,
            key: Key::random()?,
        })
    }

    /// The one port Seatbelt lets the program reach.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    /// The program's `http_proxy`, key included.
    pub(crate) fn url(&self) -> String {
        format!("http://{USER}:{}@127.0.0.1:{}", self.key.secret, self.port)
    }

    /// Serves connections with `egress` until the returned guard is
    /// dropped (the run ended): at most [`MAX_CONNECTIONS`] at a time, of
    /// which at most [`UNPROVEN`] still owe the key (for [`KEY_TIMEOUT`]).
    pub(crate) fn serve(self, egress: Egress) -> DropGuard {
        let stop = CancellationToken::new();
        let guard = stop.clone().drop_guard();
        let (listener, key) = (self.listener, Arc::new(self.key));
        let unproven = Arc::new(Semaphore::new(UNPROVEN));
        tokio::spawn(async move {
            let mut connections = tokio::task::JoinSet::new();
            loop {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    accepted = listener.accept() => {
                        let Ok((mut client, _)) = accepted else {
                            tokio::time::sleep(ACCEPT_BACKOFF).await;
                            continue;
                        };
                        while connections.try_join_next().is_some() {}
                        let Ok(owing) = unproven.clone().try_acquire_owned() else { continue };
                        if connections.len() >= MAX_CONNECTIONS {
                            continue;
                        }
                        let (egress, key) = (egress.clone(), key.clone());
                        connections.spawn(async move {
                            let proven =
                                tokio::time::timeout(KEY_TIMEOUT, egress.proven_head(&mut client, &key))
                                    .await;
                            drop(owing);
                            if let Ok(Some((head, early))) = proven {
                                egress.pass(client, head, early).await;
                            }
                        });
                    }
                    Some(_) = connections.join_next(), if !connections.is_empty() => {}
                }
            }
        });
        guard
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::net::SocketAddr;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use futures_util::future::BoxFuture;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;

    use super::*;
    use crate::sandbox::proxy::Dialer;

    /// Counts what it is asked to dial; connects to loopback only.
    #[derive(Default)]
    struct Counting(AtomicUsize);

    impl Dialer for Counting {
        fn dial<'a>(
            &'a self,
            addrs: &'a [SocketAddr],
        ) -> BoxFuture<'a, std::io::Result<TcpStream>> {
            self.0.fetch_add(1, Ordering::SeqCst);
            assert!(addrs.iter().all(|a| a.ip().is_loopback()), "{addrs:?}");
            Box::pin(TcpStream::connect(addrs[0]))
        }
    }

    /// A loopback server that answers every connection with one line.
    async fn remote() -> u16 {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let _ = stream.write_all(b"hello through the door\n").await;
            }
        });
        port
    }

    /// Sends `head` to the door; what comes back until it closes or has
    /// said `until`.
    async fn ask(port: u16, head: String, until: &str) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        stream.write_all(head.as_bytes()).await.unwrap();
        let mut got = Vec::new();
        let mut chunk = [0u8; 1024];
        tokio::time::timeout(Duration::from_secs(60), async {
            while !String::from_utf8_lossy(&got).contains(until) {
                match stream.read(&mut chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => got.extend_from_slice(&chunk[..n]),
                }
            }
        })
        .await
        .unwrap();
        String::from_utf8_lossy(&got).into_owned()
    }

    fn connect_to(port: u16, authorization: Option<&str>) -> String {
        let field = authorization
            .map(|value| format!("Proxy-Authorization: {value}\r\n"))
            .unwrap_or_default();
        format!("CONNECT 127.0.0.1:{port} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{field}\r\n")
    }

    #[tokio::test]
    async fn only_a_request_with_the_runs_key_is_resolved_dialled_and_passed() {
        let target = remote().await;
        let dialer = Arc::new(Counting::default());
        let door = LoopbackDoor::open().unwrap();
        let (port, right) = (door.port(), door.key.authorization());
        let other = LoopbackDoor::open().unwrap().key.authorization();
        let _serving = door.serve(Egress::new(true).with_dialer(dialer.clone()));

        let lower_scheme = right.replacen("Basic", "basic", 1);
        let short = &right[..right.len() - 1];
        for refused in [None, Some(other.as_str()), Some(short), Some("Basic ")] {
            let answer = ask(port, connect_to(target, refused), "\r\n\r\n").await;
            assert!(
                answer.starts_with("HTTP/1.1 407 Proxy Authentication Required\r\n")
                    && answer.contains("Proxy-Authenticate: Basic realm=\"colmena\""),
                "{refused:?}: {answer}"
            );
        }
        assert_eq!(
            dialer.0.load(Ordering::SeqCst),
            0,
            "nothing dialled without the key"
        );

        for key in [right.as_str(), lower_scheme.as_str()] {
            let answer = ask(port, connect_to(target, Some(key)), "through the door").await;
            assert!(
                answer.starts_with("HTTP/1.1 200 Connection established\r\n\r\n")
                    && answer.ends_with("hello through the door\n"),
                "{answer}"
            );
        }
        assert_eq!(dialer.0.load(Ordering::SeqCst), 2);
    }

    /// The key rides in the URL the program gets, as `user:password`, the
    /// form curl, git and pip turn into `Proxy-Authorization: Basic`.
    #[tokio::test]
    async fn the_url_holds_the_key_and_points_at_the_loopback_port() {
        let door = LoopbackDoor::open().unwrap();
        let url = url::Url::parse(&door.url()).unwrap();
        assert_eq!(url.host_str(), Some("127.0.0.1"));
        assert_eq!(url.port(), Some(door.port()));
        assert_eq!(url.username(), USER);
        let secret = url.password().unwrap();
        assert_eq!(secret.len(), 64);
        let sent = format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{USER}:{secret}"))
        );
        assert!(door.key.opens(Some(sent.as_bytes())));
        assert!(door.listener.local_addr().unwrap().ip().is_loopback());
        assert_ne!(
            LoopbackDoor::open().unwrap().url(),
            door.url(),
            "a key per run"
        );
    }
}
