//! `web_fetch`'s address guard under attack (issue 11, item 3): loopback,
//! private, link-local and metadata addresses — literal, behind a name, or
//! behind a redirect — are refused before any connection is attempted.
//!
//! No packet leaves loopback here: names are answered by a fake resolver,
//! every hop goes through a connector that records it and refuses to send
//! anything to a non-loopback address, and the servers that would be hit
//! are local listeners that record every accepted connection.

#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use colmena_core::ErrorCode;
use colmena_core::net_guard::{
    AddressClass, AddressPolicy, Connector, DefaultPolicy, Hop, NetGuard, ReqwestConnector,
    Resolver,
};
use futures_util::future::BoxFuture;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use url::Url;

/// A hang guard, not a timing claim: no test here waits for it to run out.
const TIMEOUT: Duration = Duration::from_secs(60);

/// A server on 127.0.0.1 that counts the connections it accepted and
/// answers each with `answer` (a whole HTTP response head and body).
struct Server {
    addr: SocketAddr,
    accepted: Arc<AtomicUsize>,
}

impl Server {
    async fn start(answer: impl Fn(SocketAddr) -> String + Send + Sync + 'static) -> Server {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let accepted = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&accepted);
        let answer = Arc::new(answer);
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                count.fetch_add(1, Ordering::SeqCst);
                let text = answer(addr);
                tokio::spawn(async move {
                    let mut request = [0u8; 4096];
                    let _ = socket.read(&mut request).await;
                    let _ = socket.write_all(text.as_bytes()).await;
                });
            }
        });
        Server { addr, accepted }
    }

    async fn page(body: &'static str) -> Server {
        Server::start(move |_| {
            format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            )
        })
        .await
    }

    async fn redirect(location: String) -> Server {
        Server::start(move |_| {
            format!(
                "HTTP/1.1 302 Found\r\nlocation: {location}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            )
        })
        .await
    }

    fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }

    fn url(&self) -> Url {
        Url::parse(&format!("http://{}/page", self.addr)).unwrap()
    }
}

/// Names → addresses from a table; never asks the real DNS.
#[derive(Default)]
struct FakeResolver {
    table: HashMap<String, Vec<IpAddr>>,
    asked: Mutex<Vec<String>>,
}

impl FakeResolver {
    fn with(entries: &[(&str, &[&str])]) -> Arc<FakeResolver> {
        Arc::new(FakeResolver {
            table: entries
                .iter()
                .map(|(name, ips)| {
                    (
                        (*name).to_owned(),
                        ips.iter().map(|ip| ip.parse().unwrap()).collect(),
                    )
                })
                .collect(),
            asked: Mutex::new(Vec::new()),
        })
    }

    fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

impl Resolver for FakeResolver {
    fn resolve<'a>(
        &'a self,
        host: &'a str,
        port: u16,
    ) -> BoxFuture<'a, std::io::Result<Vec<SocketAddr>>> {
        self.asked.lock().unwrap().push(host.to_owned());
        let found = self.table.get(host).map(|ips| {
            ips.iter()
                .map(|ip| SocketAddr::new(*ip, port))
                .collect::<Vec<_>>()
        });
        Box::pin(async move {
            found.ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "unknown"))
        })
    }
}

/// Records every hop it is asked to connect; connects (for real) only to
/// loopback, so even a broken guard could not send a packet elsewhere.
#[derive(Default)]
struct Recorder {
    hops: Mutex<Vec<(String, Vec<SocketAddr>)>>,
}

impl Recorder {
    fn hops(&self) -> Vec<(String, Vec<SocketAddr>)> {
        self.hops.lock().unwrap().clone()
    }
}

impl Connector for Recorder {
    fn get<'a>(&'a self, hop: Hop<'a>) -> BoxFuture<'a, colmena_core::Result<reqwest::Response>> {
        self.hops
            .lock()
            .unwrap()
            .push((hop.url.to_string(), hop.addrs.to_vec()));
        Box::pin(async move {
            if hop.addrs.iter().all(|a| a.ip().is_loopback()) {
                ReqwestConnector.get(hop).await
            } else {
                Err(colmena_core::AppError::internal(
                    "the test connector never leaves loopback",
                ))
            }
        })
    }
}

fn guard(allow_local: bool) -> (NetGuard, Arc<Recorder>) {
    let recorder = Arc::new(Recorder::default());
    let guard = NetGuard::system(allow_local).with_connector(recorder.clone());
    (guard, recorder)
}

fn reason(err: &colmena_core::AppError) -> String {
    err.details.as_ref().unwrap()["reason"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn ssrf_loopback_literal_is_refused_before_connecting() {
    let server = Server::page("secret").await;
    let (guard, recorder) = guard(false);
    for url in [
        server.url(),
        Url::parse(&format!(
            "http://[::ffff:127.0.0.1]:{}/",
            server.addr.port()
        ))
        .unwrap(),
        Url::parse(&format!("http://localhost:{}/", server.addr.port())).unwrap(),
    ] {
        let guard = guard
            .clone()
            .with_resolver(FakeResolver::with(&[("localhost", &["127.0.0.1", "::1"])]));
        let err = guard.get(&url, TIMEOUT).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden, "{url}: {err:?}");
        assert_eq!(reason(&err), "loopback_address", "{url}");
        assert!(err.message.contains("loopback"), "{}", err.message);
        assert!(!err.message.contains("127.0.0.1:"), "{}", err.message);
    }
    assert!(recorder.hops().is_empty(), "{:?}", recorder.hops());
    assert_eq!(server.accepted(), 0, "the local server was reached");
}

#[tokio::test]
async fn ssrf_public_looking_name_resolving_to_loopback_is_refused() {
    let server = Server::page("secret").await;
    let resolver = FakeResolver::with(&[("news.example.com", &["127.0.0.1"])]);
    let (guard, recorder) = guard(false);
    let guard = guard.with_resolver(resolver.clone());
    let url = Url::parse(&format!("http://news.example.com:{}/", server.addr.port())).unwrap();
    let err = guard.get(&url, TIMEOUT).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Forbidden);
    assert_eq!(reason(&err), "loopback_address");
    assert!(err.message.contains("news.example.com"), "{}", err.message);
    assert_eq!(resolver.asked(), ["news.example.com"]);
    assert!(recorder.hops().is_empty());
    assert_eq!(server.accepted(), 0);
}

#[tokio::test]
async fn ssrf_private_link_local_and_metadata_are_refused_without_any_connect() {
    let resolver = FakeResolver::with(&[
        ("intranet.example.com", &["10.1.2.3"]),
        ("cloud.example.com", &["169.254.169.254"]),
        ("mixed.example.com", &["93.184.216.34", "192.168.1.1"]),
        ("v6.example.com", &["fd00:ec2::254"]),
        ("metadata.google.internal", &["93.184.216.34"]),
    ]);
    let (guard, recorder) = guard(false);
    let guard = guard.with_resolver(resolver.clone());
    for (url, expected) in [
        ("http://10.0.0.1/", "private_address"),
        ("http://172.16.5.4:8080/", "private_address"),
        ("http://192.168.0.1/", "private_address"),
        ("http://100.64.0.1/", "private_address"),
        ("http://[fd12::1]/", "private_address"),
        ("http://[::ffff:10.0.0.1]/", "private_address"),
        (
            "http://169.254.169.254/latest/meta-data/",
            "metadata_address",
        ),
        ("http://[fd00:ec2::254]/", "metadata_address"),
        ("http://[::ffff:169.254.169.254]/", "metadata_address"),
        ("http://169.254.1.1/", "link_local_address"),
        ("http://[fe80::1]/", "link_local_address"),
        ("http://0.0.0.0/", "unspecified_address"),
        ("http://224.0.0.1/", "multicast_address"),
        ("http://255.255.255.255/", "broadcast_address"),
        ("http://192.0.2.1/", "documentation_address"),
        ("http://intranet.example.com/", "private_address"),
        ("https://cloud.example.com/", "metadata_address"),
        ("http://mixed.example.com/", "private_address"),
        ("http://v6.example.com/", "metadata_address"),
        (
            "http://metadata.google.internal/computeMetadata/v1/",
            "metadata_address",
        ),
        ("http://METADATA.google.internal./", "metadata_address"),
    ] {
        let err = guard
            .get(&Url::parse(url).unwrap(), TIMEOUT)
            .await
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden, "{url}: {err:?}");
        assert_eq!(reason(&err), expected, "{url}: {}", err.message);
        assert_eq!(err.details.as_ref().unwrap()["redirect"], false, "{url}");
    }
    assert!(recorder.hops().is_empty(), "{:?}", recorder.hops());
    assert!(
        !resolver.asked().iter().any(|n| n.contains("metadata")),
        "metadata names are refused without being resolved"
    );
}

#[tokio::test]
async fn ssrf_redirect_to_loopback_is_refused_on_the_hop() {
    let target = Server::page("secret").await;
    let entry = Server::redirect(format!("http://127.0.0.1:{}/admin", target.addr.port())).await;
    // The entry server plays a public site; every other address is judged
    // as usual (the target is loopback).
    let public = entry.addr;
    let policy = move |addr: SocketAddr| {
        if addr == public {
            Ok(())
        } else {
            DefaultPolicy {
                allow_local_network: false,
            }
            .check(addr)
        }
    };
    let (guard, recorder) = guard(false);
    let guard = guard.with_policy(Arc::new(policy));
    let err = guard.get(&entry.url(), TIMEOUT).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Forbidden, "{err:?}");
    assert_eq!(reason(&err), "loopback_address");
    assert_eq!(err.details.as_ref().unwrap()["redirect"], true);
    assert!(err.message.contains("redirected"), "{}", err.message);
    assert_eq!(entry.accepted(), 1);
    assert_eq!(target.accepted(), 0, "the redirect target was reached");
    assert_eq!(recorder.hops().len(), 1, "{:?}", recorder.hops());
}

#[tokio::test]
async fn ssrf_redirect_to_a_name_of_a_private_address_is_refused() {
    let entry = Server::redirect("http://printer.example.com/config".to_owned()).await;
    let public = entry.addr;
    let resolver = FakeResolver::with(&[("printer.example.com", &["10.0.0.7"])]);
    let policy = move |addr: SocketAddr| {
        if addr == public {
            Ok(())
        } else {
            DefaultPolicy {
                allow_local_network: false,
            }
            .check(addr)
        }
    };
    let (guard, recorder) = guard(false);
    let guard = guard
        .with_policy(Arc::new(policy))
        .with_resolver(resolver.clone());
    let err = guard.get(&entry.url(), TIMEOUT).await.unwrap_err();
    assert_eq!(reason(&err), "private_address", "{err:?}");
    assert!(
        err.message.contains("printer.example.com"),
        "{}",
        err.message
    );
    assert_eq!(resolver.asked(), ["printer.example.com"]);
    assert_eq!(recorder.hops().len(), 1, "only the entry hop was sent");
}

#[tokio::test]
async fn ssrf_redirect_to_another_scheme_is_refused() {
    let entry = Server::redirect("file:///etc/passwd".to_owned()).await;
    let (guard, _) = guard(true);
    let err = guard.get(&entry.url(), TIMEOUT).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Forbidden);
    assert_eq!(reason(&err), "scheme_not_allowed");
}

#[tokio::test]
async fn ssrf_endless_redirects_stop() {
    let entry = Server::start(|addr| {
        format!(
            "HTTP/1.1 302 Found\r\nlocation: http://{addr}/again\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
        )
    })
    .await;
    let (guard, recorder) = guard(true);
    let err = guard.get(&entry.url(), TIMEOUT).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Upstream);
    assert_eq!(reason(&err), "too_many_redirects");
    assert_eq!(
        recorder.hops().len(),
        6,
        "the first request and 5 redirects"
    );
}

#[tokio::test]
async fn ssrf_local_network_access_lets_loopback_through_but_not_metadata() {
    let server = Server::page("hello from here").await;
    let (guard, recorder) = guard(true);
    let response = guard.get(&server.url(), TIMEOUT).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), "hello from here");
    assert_eq!(server.accepted(), 1);
    assert_eq!(recorder.hops().len(), 1);

    let err = guard
        .get(&Url::parse("http://169.254.169.254/").unwrap(), TIMEOUT)
        .await
        .unwrap_err();
    assert_eq!(reason(&err), "metadata_address");
    assert_eq!(recorder.hops().len(), 1, "metadata was not attempted");
}

#[tokio::test]
async fn ssrf_the_connection_goes_only_to_the_checked_addresses() {
    // A name whose answer changes after the check (DNS rebinding): the
    // first answer is the "public" server, later ones are private.
    struct Rebinding {
        first: SocketAddr,
        calls: AtomicUsize,
    }
    impl Resolver for Rebinding {
        fn resolve<'a>(
            &'a self,
            _host: &'a str,
            port: u16,
        ) -> BoxFuture<'a, std::io::Result<Vec<SocketAddr>>> {
            let n = self.calls.fetch_add(1, Ordering::SeqCst);
            let addr = if n == 0 {
                self.first
            } else {
                SocketAddr::new("10.0.0.1".parse().unwrap(), port)
            };
            Box::pin(async move { Ok(vec![addr]) })
        }
    }
    let server = Server::page("the checked server").await;
    let public = server.addr;
    let resolver = Arc::new(Rebinding {
        first: public,
        calls: AtomicUsize::new(0),
    });
    let policy = move |addr: SocketAddr| {
        if addr == public {
            Ok(())
        } else {
            Err(AddressClass::Private)
        }
    };
    let (guard, recorder) = guard(false);
    let guard = guard
        .with_policy(Arc::new(policy))
        .with_resolver(resolver.clone());
    let url = Url::parse(&format!("http://rebind.example.com:{}/", public.port())).unwrap();
    let response = guard.get(&url, TIMEOUT).await.unwrap();
    assert_eq!(response.text().await.unwrap(), "the checked server");
    assert_eq!(
        resolver.calls.load(Ordering::SeqCst),
        1,
        "the name was resolved once, by the guard"
    );
    assert_eq!(recorder.hops()[0].1, vec![public]);
}

#[tokio::test]
async fn ssrf_unresolvable_names_are_an_upstream_error() {
    let (guard, recorder) = guard(false);
    let guard = guard.with_resolver(FakeResolver::with(&[]));
    let err = guard
        .get(&Url::parse("http://nowhere.example.com/").unwrap(), TIMEOUT)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Upstream);
    assert_eq!(reason(&err), "dns_failed");
    assert!(recorder.hops().is_empty());
}
