//! `cli_exec`'s address policy (security review finding 5: a sandboxed
//! program reached loopback, the local network and 169.254.169.254, which
//! `web_fetch` refuses), tried for real under every mechanism with Python
//! as the program.
//!
//! Traffic stays on this machine: "remote" servers are listeners on the
//! host's loopback; addresses elsewhere are either tried from inside the
//! sandbox's own network namespace (no route leaves it) or handed to the
//! proxy with a dialer that records what it was asked and connects to
//! loopback instead, or refuses.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

use super::{Place, mechanisms, place};
use crate::net_guard::Resolver;
use crate::sandbox::proxy::Dialer;
use crate::sandbox::{Egress, Job, Mechanism, run_with};

/// A host-side HTTP server on loopback: the first line of every request it
/// got, and what it answers.
struct Remote {
    port: u16,
    seen: Arc<Mutex<Vec<String>>>,
}

async fn remote() -> Remote {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let log = log.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut chunk = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut chunk).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => head.extend_from_slice(&chunk[..n]),
                    }
                }
                let text = String::from_utf8_lossy(&head).to_string();
                log.lock()
                    .unwrap()
                    .push(text.lines().next().unwrap_or_default().to_owned());
                let body = "hello from the remote";
                let _ = stream
                    .write_all(
                        format!(
                            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                            body.len()
                        )
                        .as_bytes(),
                    )
                    .await;
            });
        }
    });
    Remote { port, seen }
}

impl Remote {
    fn requests(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

/// Records every address list it is asked to connect to; connects to
/// `instead` (a loopback listener) when given, else refuses.
struct RecordingDialer {
    asked: Mutex<Vec<Vec<SocketAddr>>>,
    instead: Option<SocketAddr>,
}

impl RecordingDialer {
    fn new(instead: Option<SocketAddr>) -> Arc<RecordingDialer> {
        Arc::new(RecordingDialer {
            asked: Mutex::new(Vec::new()),
            instead,
        })
    }

    fn asked(&self) -> Vec<Vec<SocketAddr>> {
        self.asked.lock().unwrap().clone()
    }
}

impl Dialer for RecordingDialer {
    fn dial<'a>(&'a self, addrs: &'a [SocketAddr]) -> BoxFuture<'a, std::io::Result<TcpStream>> {
        self.asked.lock().unwrap().push(addrs.to_vec());
        Box::pin(async move {
            match self.instead {
                Some(local) => TcpStream::connect(local).await,
                None => Err(std::io::Error::other("the test's dialer connects nowhere")),
            }
        })
    }
}

/// Names the tests made up, resolved without asking any server.
struct FixedResolver;

impl Resolver for FixedResolver {
    fn resolve<'a>(
        &'a self,
        host: &'a str,
        port: u16,
    ) -> BoxFuture<'a, std::io::Result<Vec<SocketAddr>>> {
        let ips: Vec<&str> = match host {
            "public.test" => vec!["93.184.215.14"],
            // Rebinding: one public address and one that is not.
            "rebind.test" => vec!["93.184.215.14", "169.254.169.254"],
            "lan.test" => vec!["192.168.1.20"],
            _ => vec![],
        };
        let addrs = ips
            .into_iter()
            .map(|ip| SocketAddr::new(ip.parse().unwrap(), port))
            .collect();
        Box::pin(async move { Ok(addrs) })
    }
}

/// Python run in the sandbox with `egress`; what it printed.
async fn python(mechanism: &Mechanism, place: &Place, code: &str, egress: Egress) -> String {
    let mut job = Job::new(
        &place.workspace,
        "python3",
        vec!["-c".into(), code.into()],
        std::time::Duration::from_secs(90),
    );
    job.egress = egress;
    let done = run_with(mechanism, &job, &CancellationToken::new())
        .await
        .unwrap();
    format!("{}{}", done.stdout.text(), done.stderr.text())
}

/// Fetches each URL through the proxy the environment names (as curl and
/// pip would); prints `OK <body>` or `HTTP <code> <body>` or `ERROR`.
fn fetch_each(urls: &[String]) -> String {
    let list = urls
        .iter()
        .map(|u| format!("{u:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "import urllib.request, urllib.error\n\
         for url in [{list}]:\n\
         \x20   try:\n\
         \x20       r = urllib.request.urlopen(url, timeout=60)\n\
         \x20       print('OK', url, r.read().decode())\n\
         \x20   except urllib.error.HTTPError as e:\n\
         \x20       print('HTTP', e.code, url, e.read().decode().strip())\n\
         \x20   except Exception as e:\n\
         \x20       print('ERROR', url, e)\n"
    )
}

/// Direct connections — not through the proxy — reach nothing: not the
/// host's loopback, not the local network, not the metadata address,
/// whatever the agent's local-network switch says.
#[tokio::test]
async fn a_program_reaches_no_address_directly() {
    let remote = remote().await;
    let code = format!(
        "import socket\n\
         for target in [('127.0.0.1', {port}), ('169.254.169.254', 80), ('10.0.0.1', 80)]:\n\
         \x20   try:\n\
         \x20       socket.create_connection(target, timeout=20); print('CONNECTED', target)\n\
         \x20   except OSError as e:\n\
         \x20       print('refused', target, e.errno)\n",
        port = remote.port
    );
    let place = place();
    for mechanism in mechanisms() {
        let said = python(&mechanism, &place, &code, Egress::new(true)).await;
        assert!(!said.contains("CONNECTED"), "{mechanism:?}: {said}");
        assert_eq!(said.matches("refused").count(), 3, "{mechanism:?}: {said}");
    }
    assert!(remote.requests().is_empty(), "{:?}", remote.requests());
}

/// Through the proxy, the host's loopback needs the agent's local-network
/// switch: refused without it (the server sees nothing), reached with it.
#[tokio::test]
async fn through_the_proxy_loopback_needs_the_local_network_switch() {
    let remote = remote().await;
    let url = format!("http://127.0.0.1:{}/hello?x=1", remote.port);
    let code = fetch_each(std::slice::from_ref(&url));
    let place = place();
    for mechanism in mechanisms() {
        let before = remote.requests().len();
        let said = python(&mechanism, &place, &code, Egress::new(false)).await;
        assert!(
            said.contains("HTTP 403") && said.contains("loopback"),
            "{mechanism:?}: {said}"
        );
        assert_eq!(remote.requests().len(), before, "{:?}", remote.requests());

        let said = python(&mechanism, &place, &code, Egress::new(true)).await;
        assert!(
            said.contains("OK") && said.contains("hello from the remote"),
            "{mechanism:?}: {said}"
        );
        // The server got the request in origin form, as from any client.
        assert_eq!(
            remote.requests().pop().as_deref(),
            Some("GET /hello?x=1 HTTP/1.1"),
            "{mechanism:?}"
        );
    }
}

/// Metadata addresses and names are refused through the proxy even with
/// the local-network switch, as is a name that resolves to one among
/// public ones, and the local network without the switch; the dialer is
/// never asked.
#[tokio::test]
async fn metadata_and_local_addresses_are_refused_before_any_connection() {
    let urls: Vec<String> = [
        "http://169.254.169.254/latest/meta-data/",
        "http://metadata.google.internal/computeMetadata/v1/",
        "http://rebind.test/",
        "http://[fd00:ec2::254]/",
    ]
    .iter()
    .map(|u| (*u).to_owned())
    .collect();
    let tunnel = "import http.client\n\
                  c = http.client.HTTPConnection('127.0.0.1', 3128, timeout=60)\n\
                  c.set_tunnel('169.254.169.254', 443)\n\
                  try:\n\
                  \x20   c.connect(); print('TUNNEL OPEN')\n\
                  except OSError as e:\n\
                  \x20   print('TUNNEL REFUSED', e)\n";
    let place = place();
    for mechanism in mechanisms() {
        let dialer = RecordingDialer::new(None);
        let egress = Egress::new(true)
            .with_resolver(Arc::new(FixedResolver))
            .with_dialer(dialer.clone());
        let said = python(&mechanism, &place, &fetch_each(&urls), egress.clone()).await;
        assert_eq!(said.matches("HTTP 403").count(), 4, "{mechanism:?}: {said}");
        let said = python(&mechanism, &place, tunnel, egress).await;
        assert!(
            said.contains("TUNNEL REFUSED") && said.contains("403"),
            "{mechanism:?}: {said}"
        );
        assert!(dialer.asked().is_empty(), "{:?}", dialer.asked());

        let dialer = RecordingDialer::new(None);
        let egress = Egress::new(false)
            .with_resolver(Arc::new(FixedResolver))
            .with_dialer(dialer.clone());
        let code = fetch_each(&["http://lan.test/".to_owned(), "http://10.1.2.3/".to_owned()]);
        let said = python(&mechanism, &place, &code, egress).await;
        assert_eq!(said.matches("HTTP 403").count(), 2, "{mechanism:?}: {said}");
        assert!(dialer.asked().is_empty(), "{:?}", dialer.asked());
    }
}

/// A public name is connected to at exactly the addresses that were
/// checked — by a plain request and through a `CONNECT` tunnel — and the
/// bytes flow both ways (the test's dialer lands on a loopback server).
#[tokio::test]
async fn a_public_name_is_reached_at_the_checked_address_only() {
    let remote = remote().await;
    let local: SocketAddr = format!("127.0.0.1:{}", remote.port).parse().unwrap();
    let tunnel = "import http.client\n\
                  c = http.client.HTTPConnection('127.0.0.1', 3128, timeout=60)\n\
                  c.set_tunnel('public.test', 443)\n\
                  c.request('GET', '/through-the-tunnel')\n\
                  print('TUNNEL', c.getresponse().read().decode())\n";
    let place = place();
    for mechanism in mechanisms() {
        let dialer = RecordingDialer::new(Some(local));
        let egress = Egress::new(false)
            .with_resolver(Arc::new(FixedResolver))
            .with_dialer(dialer.clone());
        let said = python(
            &mechanism,
            &place,
            &fetch_each(&["http://public.test/page".to_owned()]),
            egress.clone(),
        )
        .await;
        assert!(
            said.contains("OK http://public.test/page hello from the remote"),
            "{mechanism:?}: {said}"
        );
        let said = python(&mechanism, &place, tunnel, egress).await;
        assert!(
            said.contains("TUNNEL hello from the remote"),
            "{mechanism:?}: {said}"
        );
        let public: SocketAddr = "93.184.215.14:80".parse().unwrap();
        let public_tls: SocketAddr = "93.184.215.14:443".parse().unwrap();
        assert_eq!(dialer.asked(), vec![vec![public], vec![public_tls]]);
        let requests = remote.requests();
        assert!(
            requests.ends_with(&[
                "GET /page HTTP/1.1".to_owned(),
                "GET /through-the-tunnel HTTP/1.1".to_owned()
            ]),
            "{requests:?}"
        );
    }
}

/// A program cannot use up the app's descriptors through its proxy (found
/// in the attacker's re-review): past the cap, connections are closed as
/// they arrive, and once it lets go of the ones it holds, a request goes
/// through again.
#[tokio::test]
async fn a_program_holds_at_most_the_cap_of_proxy_connections() {
    let remote = remote().await;
    let held = crate::sandbox::proxy::MAX_CONNECTIONS + 40;
    let code = format!(
        "import socket, time, urllib.request\n\
         held = [socket.create_connection(('127.0.0.1', 3128), timeout=60) for _ in range({held})]\n\
         closed = 0\n\
         for s in held:\n\
         \x20   s.settimeout(60)\n\
         \x20   try:\n\
         \x20       s.sendall(b'GET http://127.0.0.1:{port}/never HTTP/1.1\\r\\n')\n\
         \x20   except OSError:\n\
         \x20       pass\n\
         for s in held[{cap}:]:\n\
         \x20   try:\n\
         \x20       closed += s.recv(1) == b''\n\
         \x20   except OSError:\n\
         \x20       closed += 1\n\
         print('CLOSED', closed)\n\
         for s in held: s.close()\n\
         deadline = time.time() + 60\n\
         while True:\n\
         \x20   try:\n\
         \x20       print('OK', urllib.request.urlopen('http://127.0.0.1:{port}/after', timeout=60).read().decode()); break\n\
         \x20   except Exception as e:\n\
         \x20       if time.time() > deadline: print('NEVER', e); break\n\
         \x20       time.sleep(0.2)\n",
        port = remote.port,
        cap = crate::sandbox::proxy::MAX_CONNECTIONS,
    );
    let place = place();
    for mechanism in mechanisms() {
        let said = python(&mechanism, &place, &code, Egress::new(true)).await;
        assert!(
            said.contains(&format!(
                "CLOSED {}",
                held - crate::sandbox::proxy::MAX_CONNECTIONS
            )),
            "{mechanism:?}: {said}"
        );
        assert!(
            said.contains("OK hello from the remote"),
            "{mechanism:?}: {said}"
        );
    }
}
