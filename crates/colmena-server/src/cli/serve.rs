//! `colmena serve`: the bus headless (SPEC X1) — the HTTP API, the wake-up
//! scheduler and the drop folders — until SIGTERM or Ctrl-C.
//!
//! Safe by default: loopback only unless `--allow-remote`; then only the
//! `Host` names given with `--allowed-host` (and the address bound, when it
//! is a specific one) are answered besides the loopback ones, and without
//! `--tls-cert`/`--tls-key` a warning says tokens cross the network in
//! clear. The limits (timeouts, connections, per-token rate) have flags
//! for operators and load tests; the defaults are `http::ServerConfig`'s.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::http::{self, ServerConfig, Tls};
use clap::Args;
use colmena_core::{AppError, Ctx, Result};
use tokio_util::sync::CancellationToken;

use super::output::Output;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Where to listen.
    #[arg(long, default_value = "127.0.0.1:7878", value_name = "ADDR:PORT")]
    bind: SocketAddr,
    /// Listen on an address other machines can reach.
    #[arg(long)]
    allow_remote: bool,
    /// A host name (or address) clients use to reach this server, accepted
    /// in `Host` and `Origin` besides the loopback names. Repeatable.
    #[arg(long = "allowed-host", value_name = "NAME", requires = "allow_remote")]
    allowed_hosts: Vec<String>,
    /// Serve HTTPS with this PEM certificate chain (with --tls-key).
    #[arg(long, value_name = "PEM", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The PEM private key of --tls-cert.
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Seconds a client has to send a request's head (and a connection may
    /// sit idle).
    #[arg(long, default_value_t = 10, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=3600))]
    header_timeout: u64,
    /// Seconds from a request's head to its answer, body read included.
    #[arg(long, default_value_t = 120, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=86400))]
    request_timeout: u64,
    /// Connections open at once; more wait. MCP event streams may hold three
    /// quarters of them at most.
    #[arg(long, default_value_t = 512, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=65536))]
    max_connections: u64,
    /// Requests handled at once; more are answered 503 busy.
    #[arg(long, default_value_t = 256, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=65536))]
    max_in_flight: u64,
    /// Requests per second each token may make, sustained (0: no limit).
    #[arg(long, default_value_t = 20, value_name = "N")]
    rate_limit: u32,
    /// Requests a token may make in a burst above --rate-limit.
    #[arg(long, default_value_t = 100, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    rate_burst: u32,
    /// Do not wake roles or run scheduled jobs here (another process does).
    #[arg(long)]
    no_scheduler: bool,
    /// Where the bus lives: `sqlite` (this data dir, the default) or a
    /// PostgreSQL URL shared by any number of `colmena serve` replicas
    /// (stateless: put them behind any load balancer). Another machine's
    /// server needs verified TLS: `sslmode=require`, and `sslrootcert=FILE`
    /// for a CA of its own. A password is better given in
    /// $COLMENA_BUS_STORE than here, where `ps` shows it.
    #[arg(
        long,
        value_name = "sqlite|postgres://…",
        env = "COLMENA_BUS_STORE",
        hide_env_values = true
    )]
    pub store: Option<StoreUrl>,
    /// The bus's schema in that database (one server can hold several
    /// teams' buses).
    #[arg(
        long,
        value_name = "NAME",
        env = "COLMENA_BUS_SCHEMA",
        requires = "store"
    )]
    pub store_schema: Option<String>,
}

/// The bus store's URL as given: never printed (it may hold a password).
#[derive(Clone)]
pub struct StoreUrl(pub String);

impl std::str::FromStr for StoreUrl {
    type Err = std::convert::Infallible;
    fn from_str(text: &str) -> std::result::Result<StoreUrl, Self::Err> {
        Ok(StoreUrl(text.to_owned()))
    }
}

impl std::fmt::Debug for StoreUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StoreUrl(…)")
    }
}

impl ServeArgs {
    fn config(&self, bound: SocketAddr) -> Result<ServerConfig> {
        let tls = match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => Some(Tls::load(cert, key)?),
            _ => None,
        };
        let mut allowed_hosts = self.allowed_hosts.clone();
        // An address literal cannot be rebound by DNS: the address bound on
        // purpose is a name clients may use.
        if !bound.ip().is_loopback() && !bound.ip().is_unspecified() {
            allowed_hosts.push(bound.ip().to_string());
        }
        Ok(ServerConfig {
            header_timeout: Duration::from_secs(self.header_timeout),
            request_timeout: Duration::from_secs(self.request_timeout),
            max_connections: usize::try_from(self.max_connections).unwrap_or(usize::MAX),
            max_in_flight: usize::try_from(self.max_in_flight).unwrap_or(usize::MAX),
            rate_per_second: f64::from(self.rate_limit),
            rate_burst: self.rate_burst,
            allowed_hosts,
            tls,
            ..ServerConfig::default()
        })
    }
}

pub async fn run(ctx: &Ctx, out: &Output, args: ServeArgs) -> Result<()> {
    let listener = http::bind(args.bind, args.allow_remote).await?;
    let addr = listener
        .local_addr()
        .map_err(|e| AppError::internal(format!("no local address: {e}")))?;
    let config = args.config(addr)?;
    let scheme = if config.tls.is_some() {
        "https"
    } else {
        "http"
    };
    if args.allow_remote && !addr.ip().is_loopback() {
        if config.tls.is_none() {
            eprintln!(
                "warning: serving other machines over plain HTTP: tokens and messages cross \
                 the network in clear. Pass --tls-cert and --tls-key to serve HTTPS."
            );
        }
        if config.allowed_hosts.is_empty() {
            eprintln!(
                "warning: only loopback Host names are accepted; pass --allowed-host NAME \
                 for each name other machines use to reach this server."
            );
        }
    }
    // An outside role's wake command is told where to reach the bus.
    colmena_core::inbox::local_server::set_serving(ctx, Some(format!("{scheme}://{addr}")));
    let stop = CancellationToken::new();
    // Wake-ups and scheduled jobs (H25); a failure's notice is shown by
    // the app, which announces failures whichever process ran the job.
    colmena_core::workspace::Services::headless(args.no_scheduler).start(ctx, &stop);
    // Listening for SIGTERM / Ctrl-C starts before the line that says the
    // server is up: a script that stops it as soon as it reads that line
    // must meet the clean shutdown, not the default action of the signal.
    let signals = StopSignals::install();
    // One line either way: scripts wait for it to know the server is up.
    if out.json {
        println!(
            "{}",
            serde_json::json!({ "listening": format!("{scheme}://{addr}") })
        );
    } else {
        println!(
            "colmena bus listening on {scheme}://{addr} (data: {}, bus store: {})",
            ctx.data_dir().display(),
            ctx.bus_store_name()
        );
    }
    let signalled = stop.clone();
    let shutdown = async move {
        signals.wait().await;
        signalled.cancel();
    };
    let served = http::serve_with(ctx.clone(), listener, config, shutdown).await;
    colmena_core::inbox::local_server::set_serving(ctx, None);
    served?;
    stop.cancel();
    eprintln!("colmena bus stopped");
    Ok(())
}

/// SIGTERM and Ctrl-C, caught from the moment this is made (tokio's
/// `ctrl_c()` would only register when first polled).
struct StopSignals {
    #[cfg(unix)]
    term: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
}

impl StopSignals {
    fn install() -> StopSignals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            StopSignals {
                term: signal(SignalKind::terminate()).ok(),
                interrupt: signal(SignalKind::interrupt()).ok(),
            }
        }
        #[cfg(not(unix))]
        StopSignals {}
    }

    async fn wait(self) {
        #[cfg(unix)]
        {
            let StopSignals {
                mut term,
                mut interrupt,
            } = self;
            let term = async {
                match term.as_mut() {
                    Some(signal) => signal.recv().await.map(drop),
                    None => std::future::pending().await,
                }
            };
            let interrupt = async {
                match interrupt.as_mut() {
                    Some(signal) => signal.recv().await.map(drop),
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = term => {}
                _ = interrupt => {}
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    #[test]
    fn the_stores_password_is_never_in_the_parsed_commands_debug_text() {
        let cli = super::super::Cli::try_parse_from([
            "colmena",
            "serve",
            "--store",
            "postgres://colmena:hunter2@db.example/bus?sslmode=require",
        ])
        .unwrap();
        let text = format!("{cli:?}");
        assert!(text.contains("StoreUrl"), "{text}");
        assert!(!text.contains("hunter2"), "{text}");
    }
}
