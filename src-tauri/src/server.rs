//! The bus server the desktop app runs on 127.0.0.1 (the same one as
//! `colmena serve`), with the wake-up scheduler and the urgent-mail
//! announcer. A port already taken is reported in Settings, not fatal.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Mutex;

use colmena_core::Ctx;
use colmena_core::workspace::Services;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

/// What Settings shows about the local server.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ServerStatus {
    pub port: u16,
    /// `http://127.0.0.1:PORT` while serving.
    pub url: Option<String>,
    /// Why it is not serving.
    pub error: Option<String>,
}

/// Managed state: the running server and how to stop it.
pub struct LocalServer {
    inner: Mutex<Running>,
    /// Whether the first start has been tried (it waits for the first
    /// frame: `after_first_paint`); Settings waits for that answer.
    tried: tokio::sync::watch::Sender<bool>,
}

struct Running {
    status: ServerStatus,
    stop: CancellationToken,
}

impl LocalServer {
    pub fn new() -> LocalServer {
        LocalServer {
            inner: Mutex::new(Running {
                status: ServerStatus {
                    port: 0,
                    url: None,
                    error: None,
                },
                stop: CancellationToken::new(),
            }),
            tried: tokio::sync::watch::channel(false).0,
        }
    }

    /// The status once the first start has been tried.
    pub async fn status_once_tried(&self) -> ServerStatus {
        let mut tried = self.tried.subscribe();
        // The sender lives as long as this state.
        let _ = tried.wait_for(|tried| *tried).await;
        self.status()
    }

    pub fn status(&self) -> ServerStatus {
        self.inner
            .lock()
            .map(|r| r.status.clone())
            .unwrap_or(ServerStatus {
                port: 0,
                url: None,
                error: Some("state unavailable".into()),
            })
    }

    /// Stops the server (if any) and starts it on `port`.
    pub async fn restart(&self, ctx: &Ctx, port: u16) -> ServerStatus {
        if let Ok(running) = self.inner.lock() {
            running.stop.cancel();
        }
        colmena_core::inbox::local_server::set_serving(ctx, None);
        let stop = CancellationToken::new();
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let status = match colmena_server::http::bind(addr, false).await {
            Ok(listener) => {
                let (ctx, stopped) = (ctx.clone(), stop.clone());
                // Outside roles' wake commands are told where to reach it.
                colmena_core::inbox::local_server::set_serving(
                    &ctx,
                    Some(format!("http://{addr}")),
                );
                tauri::async_runtime::spawn(async move {
                    let shutdown = async move { stopped.cancelled().await };
                    if let Err(e) = colmena_server::http::serve(ctx, listener, shutdown).await {
                        tracing::error!("the local bus server stopped: {}", e.message);
                    }
                });
                ServerStatus {
                    port,
                    url: Some(format!("http://{addr}")),
                    error: None,
                }
            }
            Err(e) => {
                tracing::warn!("the local bus server is not running: {}", e.message);
                ServerStatus {
                    port,
                    url: None,
                    error: Some(e.message),
                }
            }
        };
        if let Ok(mut running) = self.inner.lock() {
            *running = Running {
                status: status.clone(),
                stop,
            };
        }
        self.tried.send_replace(true);
        status
    }
}

/// Starts the server on the stored port, the scheduler and the announcer.
pub async fn start(ctx: &Ctx, server: &LocalServer) {
    let port = colmena_core::inbox::local_server::port(ctx)
        .await
        .unwrap_or(colmena_core::inbox::local_server::DEFAULT_PORT);
    server.restart(ctx, port).await;
    // The schedulers, the announcers (urgent mail, failed jobs, whichever
    // process ran them) and the team bus's delivery, for as long as the
    // app runs. Called on Tauri's tokio runtime.
    Services::desktop().start(ctx, &CancellationToken::new());
}
