//! Start-up work the first frame does not need (issue 16) waits until the
//! window has painted its first view: the tray icon, the local bus server,
//! the wake-up and cron schedulers and the urgent-mail announcer. On two
//! cores they competed with the web process for the CPU while it loaded and
//! laid out the first view (BENCHMARKS.md, "The whole app against an empty
//! Tauri shell").
//!
//! The window says it has painted through `report_paint`; should it never
//! say so (a page that failed to load, animation frames that do not come:
//! seen under Xvfb), the work starts [`FALLBACK`] after the app did. An app
//! started hidden (at login) paints nothing and does it at once. Either way
//! it runs once: what only starts tasks (the bus) at once, and what needs
//! the main thread (the tray is a GTK widget on Linux) there. The bus never
//! waits for the main thread: making the tray can hold it for a while, and a
//! busy main thread would hold the local server's first answer with it (CI:
//! Settings → Local server still had none after 10 s).

use std::time::Duration;

use tauri::{AppHandle, Manager, Runtime};
use tokio::sync::watch;

/// How long the work waits for a first frame that does not come.
pub const FALLBACK: Duration = Duration::from_secs(3);

/// Managed state: has the window painted its first view yet?
pub struct FirstPaint {
    painted: watch::Sender<bool>,
}

impl Default for FirstPaint {
    fn default() -> FirstPaint {
        FirstPaint {
            painted: watch::channel(false).0,
        }
    }
}

impl FirstPaint {
    /// The window has painted a view (every later paint changes nothing).
    pub fn painted(&self) {
        self.painted
            .send_if_modified(|painted| !std::mem::replace(painted, true));
    }
}

/// Whether the deferred work has run (Settings → Desktop waits for the
/// tray's answer before it says whether there is one).
pub struct Started {
    done: watch::Sender<bool>,
}

impl Default for Started {
    fn default() -> Started {
        Started {
            done: watch::channel(false).0,
        }
    }
}

impl Started {
    /// Returns once the deferred work has run.
    pub async fn wait(&self) {
        let mut done = self.done.subscribe();
        // The sender lives in the managed state as long as the app.
        let _ = done.wait_for(|done| *done).await;
    }
}

/// Once the first view has painted (or [`FALLBACK`] later), or now when the
/// app starts `hidden`: runs `tasks` (work that only starts tasks, on any
/// thread) at once, then `on_main_thread` on the main thread. [`Started`]
/// says when both have run. Needs [`FirstPaint`] and [`Started`] managed.
pub fn run<R: Runtime>(
    app: &AppHandle<R>,
    hidden: bool,
    tasks: impl FnOnce(&AppHandle<R>) + Send + 'static,
    on_main_thread: impl FnOnce(&AppHandle<R>) + Send + 'static,
) {
    let on_main_thread = move |app: &AppHandle<R>| {
        on_main_thread(app);
        app.state::<Started>().done.send_replace(true);
    };
    if hidden {
        tasks(app);
        on_main_thread(app);
        return;
    }
    let mut painted = app.state::<FirstPaint>().painted.subscribe();
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let _ = tokio::time::timeout(FALLBACK, painted.wait_for(|painted| *painted)).await;
        tasks(&app);
        let handle = app.clone();
        if let Err(e) = app.run_on_main_thread(move || on_main_thread(&handle)) {
            tracing::warn!("the start-up work after the first frame could not run: {e}");
        }
    });
}
