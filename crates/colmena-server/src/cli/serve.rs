//! `colmena serve`: the bus headless (SPEC X1) — the HTTP API, the wake-up
//! scheduler and the drop folders — until SIGTERM or Ctrl-C.

use std::net::SocketAddr;

use clap::Args;
use colmena_core::{AppError, Ctx, Result};
use colmena_server::http;
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
    /// Do not wake roles here (another process does).
    #[arg(long)]
    no_scheduler: bool,
}

pub async fn run(ctx: &Ctx, out: &Output, args: ServeArgs) -> Result<()> {
    let listener = http::bind(args.bind, args.allow_remote).await?;
    let addr = listener
        .local_addr()
        .map_err(|e| AppError::internal(format!("no local address: {e}")))?;
    let stop = CancellationToken::new();
    if !args.no_scheduler {
        let (ctx, stop) = (ctx.clone(), stop.clone());
        tokio::spawn(colmena_core::inbox::wakes::run_scheduler(ctx, stop));
    }
    // One line either way: scripts wait for it to know the server is up.
    if out.json {
        println!(
            "{}",
            serde_json::json!({ "listening": format!("http://{addr}") })
        );
    } else {
        println!(
            "colmena bus listening on http://{addr} (data: {})",
            ctx.data_dir().display()
        );
    }
    let signalled = stop.clone();
    let shutdown = async move {
        wait_for_signal().await;
        signalled.cancel();
    };
    http::serve(ctx.clone(), listener, shutdown).await?;
    stop.cancel();
    eprintln!("colmena bus stopped");
    Ok(())
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
