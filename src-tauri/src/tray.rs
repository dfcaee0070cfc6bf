//! Always on (issue 16): closing the window keeps Colmena running in the
//! system tray, because roles wake, schedules fire and the local server
//! answers only while the app runs.
//!
//! The tray's menu says what waits for the person (unread mail to them,
//! tool calls waiting for approval) and what ran while they were away (the
//! Activity view's "since you last looked": hiding the window is looking
//! away), opens the window and quits. Closing the
//! window hides it while "keep running in the tray" is on (the default) and
//! a tray icon could be made; the first time, a desktop notification says
//! so. Without a tray (no status-notifier library on this desktop) closing
//! quits as before: a hidden window nobody can bring back would be worse.

use std::sync::atomic::{AtomicBool, Ordering};

use colmena_core::activity::{self, ActivityFigures};
use colmena_core::{Caller, Ctx};
use tauri::menu::{Menu, MenuItem, PredefinedMenuItem};
use tauri::tray::{MouseButton, MouseButtonState, TrayIconBuilder, TrayIconEvent};
use tauri::{AppHandle, Manager, Runtime, Window, WindowEvent};

use crate::{notice_text, ui_prefs};

/// Whether the tray icon exists (closing may hide the window).
#[derive(Default)]
pub struct TrayState {
    available: AtomicBool,
    /// Rung when the person looked away (the window hid): the digest starts again.
    looked: tokio::sync::Notify,
}

impl TrayState {
    pub fn available(&self) -> bool {
        self.available.load(Ordering::SeqCst)
    }
}

/// What the tray's first line says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Waiting {
    pub unread: u32,
    pub approvals: u32,
}

/// The tray's status line in `lang`.
pub fn status_text(waiting: Waiting, lang: &str) -> String {
    let say = |key: &str, n: u32| notice_text::say(lang, key, &[("count", &n.to_string())]);
    let mut parts = Vec::new();
    if waiting.unread > 0 {
        parts.push(say(plural("tray.unread", waiting.unread), waiting.unread));
    }
    if waiting.approvals > 0 {
        parts.push(say(
            plural("tray.approvals", waiting.approvals),
            waiting.approvals,
        ));
    }
    if parts.is_empty() {
        return notice_text::say(lang, "tray.nothing", &[]);
    }
    parts.join(" · ")
}

/// What ran since the person last looked, in `lang`: "While you were away:
/// 3 runs, 1 failed" (`None`: they have never looked).
pub fn away_text(since: Option<ActivityFigures>, lang: &str) -> String {
    let Some(since) = since.filter(|f| f.runs > 0) else {
        return notice_text::say(lang, "tray.awayNothing", &[]);
    };
    let runs = notice_text::say(
        lang,
        if since.runs == 1 {
            "tray.awayRuns_one"
        } else {
            "tray.awayRuns_other"
        },
        &[("count", &since.runs.to_string())],
    );
    let failed = notice_text::say(
        lang,
        match since.failures {
            0 => "tray.awayFailed_zero",
            1 => "tray.awayFailed_one",
            _ => "tray.awayFailed_other",
        },
        &[("count", &since.failures.to_string())],
    );
    notice_text::say(lang, "tray.away", &[("runs", &runs), ("failed", &failed)])
}

/// What ran since the person last looked (`None` before they first did).
async fn since_seen(ctx: &Ctx) -> Option<ActivityFigures> {
    match activity::since_seen(ctx, &Caller::ui(ctx)).await {
        Ok(since) => since.map(|s| s.figures),
        Err(e) => {
            tracing::warn!("the tray's digest: {}", e.message);
            None
        }
    }
}

fn plural(key: &str, n: u32) -> &'static str {
    match (key, n) {
        ("tray.unread", 1) => "tray.unread_one",
        ("tray.unread", _) => "tray.unread_other",
        (_, 1) => "tray.approvals_one",
        _ => "tray.approvals_other",
    }
}

/// What waits for the person now.
pub async fn waiting(ctx: &Ctx) -> Waiting {
    let unread = colmena_core::inbox::authors::list(ctx)
        .await
        .map(|authors| {
            authors
                .iter()
                .filter(|a| a.is_owner)
                .map(|a| a.unread)
                .sum()
        })
        .unwrap_or(0);
    let approvals = colmena_core::permissions::approvals::pending(ctx)
        .await
        .map_or(0, |list| u32::try_from(list.len()).unwrap_or(u32::MAX));
    Waiting { unread, approvals }
}

/// Makes the tray icon and keeps its menu current. A desktop without a tray
/// is logged, and closing then quits.
pub fn install<R: Runtime>(app: &AppHandle<R>) {
    app.manage(TrayState::default());
    match build(app) {
        Ok(()) => app
            .state::<TrayState>()
            .available
            .store(true, Ordering::SeqCst),
        Err(e) => tracing::warn!("no tray icon ({e}): closing the window quits Colmena"),
    }
}

fn build<R: Runtime>(app: &AppHandle<R>) -> tauri::Result<()> {
    let lang = notice_text::language(app.state::<Ctx>().data_dir());
    let item = |id: &str, text: String, enabled: bool| {
        MenuItem::with_id(app, id, text, enabled, None::<&str>)
    };
    let status = item("status", status_text(Waiting::default(), lang), false)?;
    let away = item("away", away_text(None, lang), false)?;
    let open = item("open", notice_text::say(lang, "tray.open", &[]), true)?;
    let quit = item("quit", notice_text::say(lang, "tray.quit", &[]), true)?;
    let menu = Menu::with_items(
        app,
        &[
            &status,
            &away,
            &PredefinedMenuItem::separator(app)?,
            &open,
            &quit,
        ],
    )?;
    let mut tray = TrayIconBuilder::with_id("main")
        .tooltip("Colmena")
        .menu(&menu)
        // Windows and macOS: a left click opens the window, a right click the
        // menu. Linux shows the menu on any click.
        .show_menu_on_left_click(false)
        .on_menu_event(|app, event| match event.id().as_ref() {
            "open" => show_window(app),
            "quit" => app.exit(0),
            _ => {}
        })
        .on_tray_icon_event(|tray, event| {
            if let TrayIconEvent::Click {
                button: MouseButton::Left,
                button_state: MouseButtonState::Up,
                ..
            } = event
            {
                show_window(tray.app_handle());
            }
        });
    if let Some(icon) = app.default_window_icon() {
        tray = tray.icon(icon.clone());
    }
    let icon = tray.build(app)?;
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let ctx = app.state::<Ctx>().inner().clone();
        let mut changes = ctx.subscribe();
        loop {
            let lang = notice_text::language(ctx.data_dir());
            let now = waiting(&ctx).await;
            let text = status_text(now, lang);
            let _ = status.set_text(&text);
            let _ = away.set_text(away_text(since_seen(&ctx).await, lang));
            let _ = open.set_text(notice_text::say(lang, "tray.open", &[]));
            let _ = quit.set_text(notice_text::say(lang, "tray.quit", &[]));
            let count = now.unread + now.approvals;
            let _ = icon.set_title((count > 0).then(|| count.to_string()));
            let _ = icon.set_tooltip(Some(format!("Colmena — {text}")));
            // Wait for a change that moves the counts or the digest (a
            // run, a round, a job's fire, a wake-up, the person looking).
            let tray = app.state::<TrayState>();
            loop {
                use colmena_core::Change;
                let change = tokio::select! {
                    change = changes.recv() => change,
                    () = tray.looked.notified() => break,
                };
                match change {
                    Ok(
                        Change::Messages
                        | Change::Approvals
                        | Change::Runs
                        | Change::Canvases
                        | Change::CronJobs
                        | Change::Authors,
                    )
                    | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => break,
                    Ok(_) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                }
            }
        }
    });
    Ok(())
}

/// Brings the main window back and to the front.
pub fn show_window<R: Runtime>(app: &AppHandle<R>) {
    if let Some(window) = app.get_webview_window("main") {
        let _ = window.show();
        let _ = window.unminimize();
        let _ = window.set_focus();
    }
}

/// Closing the window: hide it into the tray when that is on and there is a
/// tray, saying so the first time; else let it close (and the app quit).
pub fn on_window_event<R: Runtime>(window: &Window<R>, event: &WindowEvent) {
    let WindowEvent::CloseRequested { api, .. } = event else {
        return;
    };
    let app = window.app_handle();
    let data_dir = app.state::<Ctx>().data_dir().to_path_buf();
    if !app.state::<TrayState>().available() || !ui_prefs::keep_in_tray(&data_dir) {
        return;
    }
    api.prevent_close();
    let _ = window.hide();
    // Hidden is looking away: what runs from now is "while you were away".
    let ctx = app.state::<Ctx>().inner().clone();
    let handle = app.clone();
    tauri::async_runtime::spawn(async move {
        match activity::mark_seen(&ctx, &Caller::ui(&ctx)).await {
            Ok(_) => handle.state::<TrayState>().looked.notify_one(),
            Err(e) => tracing::warn!(
                "could not remember when the window was hidden: {}",
                e.message
            ),
        }
    });
    if !ui_prefs::flag(&data_dir, ui_prefs::TRAY_HINT_SHOWN) {
        let lang = notice_text::language(&data_dir);
        crate::show_desktop_notice(
            app,
            &notice_text::say(lang, "tray.hintTitle", &[]),
            &notice_text::say(lang, "tray.hintBody", &[]),
        );
        if let Err(e) = ui_prefs::set_flag(&data_dir, ui_prefs::TRAY_HINT_SHOWN, true) {
            tracing::warn!("{}", e.message);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_line_counts_in_both_languages() {
        let w = |unread, approvals| Waiting { unread, approvals };
        assert_eq!(status_text(w(0, 0), "en"), "Nothing waits for you");
        assert_eq!(status_text(w(1, 0), "en"), "1 unread message");
        assert_eq!(
            status_text(w(3, 2), "en"),
            "3 unread messages · 2 approvals waiting"
        );
        assert_eq!(status_text(w(0, 1), "es"), "1 aprobación pendiente");
        assert_eq!(status_text(w(2, 0), "es"), "2 mensajes sin leer");
        assert_eq!(status_text(w(0, 0), "es"), "Nada te espera");
    }

    #[test]
    fn the_digest_says_what_ran_while_away_in_both_languages() {
        let f = |runs, failures| {
            Some(ActivityFigures {
                runs,
                failures,
                tokens: 0,
            })
        };
        assert_eq!(away_text(None, "en"), "Nothing new since you last looked");
        assert_eq!(
            away_text(f(0, 0), "en"),
            "Nothing new since you last looked"
        );
        assert_eq!(
            away_text(f(1, 0), "en"),
            "While you were away: 1 run, none failed"
        );
        assert_eq!(
            away_text(f(5, 2), "en"),
            "While you were away: 5 runs, 2 failed"
        );
        assert_eq!(
            away_text(f(3, 1), "es"),
            "Mientras no estabas: 3 ejecuciones, 1 falló"
        );
    }
}
