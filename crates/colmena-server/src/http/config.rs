//! How hard the server holds under abuse: every timeout and limit in one
//! place, with the defaults the app and `colmena serve` use. Tests (and the
//! `colmena serve` flags) change them; nothing else does.

use std::time::Duration;

use rmcp::transport::streamable_http_server::session::local::SessionConfig;

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
    /// closes. MCP event streams may hold three quarters of them at most,
    /// so the rest always answer other requests. Default 512.
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
    /// How long an MCP session may sit idle (no request, nothing to send)
    /// before it is closed and stops counting against its author's cap.
    /// Default 300 s, rmcp's own.
    pub mcp_session_idle: Duration,
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
            mcp_session_idle: SessionConfig::DEFAULT_KEEP_ALIVE,
        }
    }
}

impl ServerConfig {
    /// No per-token rate limit (load tests and benchmarks).
    pub fn unlimited_rate(mut self) -> Self {
        self.rate_per_second = 0.0;
        self
    }

    /// Connections event streams (`GET /mcp`) may hold at once: all but a
    /// quarter of [`Self::max_connections`] (at least one), so streams that
    /// never end cannot take the slots every other request needs —
    /// `/health` and tool calls answer with every stream slot taken.
    pub(crate) fn stream_slots(&self) -> usize {
        let connections = self.max_connections.max(1);
        connections - (connections / 4).max(1)
    }
}

/// The largest request head (request line and headers) read; more is 431.
pub(crate) const MAX_HEAD_BYTES: usize = 64 * 1024;
/// The most headers one request may carry.
pub(crate) const MAX_HEADERS: usize = 64;
/// MCP sessions one author may hold open at once. A wake command that never
/// closes its session keeps about five open (one wake-up a minute, five
/// minutes idle before one is pruned); more is a client opening sessions in
/// a loop. Past it, `initialize` is 429 `too_many_sessions`.
pub(crate) const MAX_SESSIONS_PER_AUTHOR: usize = 8;
/// MCP event streams (`GET /mcp`) one author may hold open at once, across
/// its sessions (one session alone may hold 33). Past it, 429
/// `too_many_streams`.
pub(crate) const MAX_STREAMS_PER_AUTHOR: usize = 4;
/// How long a stopping server waits for requests in flight.
pub(crate) const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_leave_a_quarter_of_the_connections_and_at_least_one() {
        for (connections, streams) in [(1, 0), (2, 1), (4, 3), (8, 6), (512, 384)] {
            let config = ServerConfig {
                max_connections: connections,
                ..ServerConfig::default()
            };
            assert_eq!(config.stream_slots(), streams, "{connections}");
        }
    }
}
