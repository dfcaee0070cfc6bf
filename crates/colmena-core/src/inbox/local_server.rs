//! Where the desktop app serves the bus on this machine (SPEC B3, X1): a
//! loopback port kept in the store, so local sessions (an AI client, a
//! script) know where to find it across restarts.
//!
//! Whichever process serves it (the app, `colmena serve`) also says so here
//! while it does ([`set_serving`]): an outside role's wake command is told
//! that address, and only while something is listening on it.

use crate::ctx::Ctx;
use crate::error::{AppError, Result};
use crate::store::meta;

const META_PORT: &str = "local_server_port";
/// The port unless the person chose another.
pub const DEFAULT_PORT: u16 = 7878;

/// The port the desktop app listens on (127.0.0.1).
pub async fn port(ctx: &Ctx) -> Result<u16> {
    let stored = ctx.store().read(|conn| meta::get(conn, META_PORT)).await?;
    Ok(stored.and_then(|p| p.parse().ok()).unwrap_or(DEFAULT_PORT))
}

/// Chooses the port; ports below 1024 need privileges, so they are refused.
pub async fn set_port(ctx: &Ctx, port: u32) -> Result<u16> {
    let port = u16::try_from(port)
        .ok()
        .filter(|p| *p >= 1024)
        .ok_or_else(|| {
            AppError::invalid_field(
                "port",
                "out_of_range",
                format!("the port must be 1024 to 65535, not {port}"),
            )
        })?;
    ctx.store()
        .write(move |tx| meta::set(tx, META_PORT, &port.to_string()))
        .await?;
    Ok(port)
}

/// Records that this process serves the bus at `url` (`http://127.0.0.1:7878`),
/// or no longer does (`None`). A wildcard address (`0.0.0.0`, `[::]`) is
/// given as loopback: it is what a program on this machine dials.
pub fn set_serving(ctx: &Ctx, url: Option<String>) {
    let url = url.map(|u| {
        u.replacen("://0.0.0.0:", "://127.0.0.1:", 1)
            .replacen("://[::]:", "://127.0.0.1:", 1)
            .trim_end_matches('/')
            .to_owned()
    });
    if let Ok(mut slot) = ctx.serving_slot().lock() {
        *slot = url;
    }
}

/// The base URL this process serves the bus on, if it does.
pub fn serving(ctx: &Ctx) -> Option<String> {
    ctx.serving_slot().lock().ok().and_then(|s| s.clone())
}
