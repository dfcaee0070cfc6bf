//! How hard the server holds under abuse: every timeout and limit in one
//! place, with the defaults the app and `colmena serve` use. Tests (and the
//! `colmena serve` flags) change them; nothing else does.

use std::time::Duration;

use super::tls::Tls;

/// The server's limits. [`ServerConfig::default`] is what runs unless told.
#[derive(Clone)]
pub struct ServerConfig {
    /// How long a client has to send a request's head (line and headers),
    /// which is also how long a keep-alive connection may sit idle and how
    /// long a TLS handshake may take. Slowloris ends here. Default 10 s.
    pub header_timeout: Duration,
    /// From a request's head to its response's head, the body read
    /// included (a response that streams, like an MCP event stream, is not
    /// cut once it has begun). Default 120 s.
    pub request_timeout: Duration,
    /// Connections open at once; more wait in the kernel's backlog until one
    /// closes. Default 512.
    pub max_connections: usize,
    /// Requests being handled at once; more are answered 503 `busy` with
    /// `Retry-After` at once. Default 256.
    pub max_in_flight: usize,
    /// Requests per second each token may make, sustained; `0` turns the
    /// limit off. Default 20.
    pub rate_per_second: f64,
    /// Requests a token may make in a burst above that rate. Default 100.
    pub rate_burst: u32,
    /// Host names (or addresses) accepted in `Host` and `Origin` besides
    /// the loopback ones (`localhost`, `127.0.0.1`, `[::1]`); only with
    /// `--allow-remote`. Lower case, no port.
    pub allowed_hosts: Vec<String>,
    /// Serve HTTPS with this certificate and key.
    pub tls: Option<Tls>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            header_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(120),
            max_connections: 512,
            max_in_flight: 256,
            rate_per_second: 20.0,
            rate_burst: 100,
            allowed_hosts: Vec::new(),
            tls: None,
        }
    }
}

impl ServerConfig {
    /// No per-token rate limit (load tests and benchmarks).
    pub fn unlimited_rate(mut self) -> Self {
        self.rate_per_second = 0.0;
        self
    }
}

/// The largest request head (request line and headers) read; more is 431.
pub(crate) const MAX_HEAD_BYTES: usize = 64 * 1024;
/// The most headers one request may carry.
pub(crate) const MAX_HEADERS: usize = 64;
/// How long a stopping server waits for requests in flight.
pub(crate) const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);
