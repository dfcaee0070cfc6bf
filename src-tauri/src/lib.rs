//! The desktop shell: opens the workspace, registers the typed IPC commands
//! (one line each over `colmena-core`), forwards committed changes to the UI
//! as events, and runs the window. No logic lives here.

pub mod bindings;
mod commands;
mod launch;
mod notice_text;
mod server;
mod ui_prefs;
mod window;

#[cfg(test)]
mod ipc_tests;

use colmena_core::Ctx;
use tauri::{Manager, Runtime};
use tauri_specta::Event;

pub use commands::names::COMMANDS;

/// Starts the app. Exits with a message when the workspace cannot be opened.
pub fn run() {
    launch::init_logging();
    let options = match launch::open_options(std::env::args_os().skip(1)) {
        Ok(options) => options,
        Err(err) => launch::fail(&err),
    };
    let ctx = match tauri::async_runtime::block_on(Ctx::open(options)) {
        Ok(ctx) => ctx,
        Err(err) => launch::fail(&err),
    };
    colmena_server::mcp_client::install(&ctx);
    let app = match app_builder(tauri::Builder::default(), bindings::builder(), ctx.clone())
        .build(tauri::generate_context!())
    {
        Ok(app) => app,
        Err(err) => {
            eprintln!("colmena: the app could not start: {err}");
            std::process::exit(1);
        }
    };
    start_bus(app.handle());
    app.run(move |_, event| {
        // The MCP servers this app started stop with it.
        if let tauri::RunEvent::Exit = event {
            tauri::async_runtime::block_on(ctx.shutdown());
        }
    });
}

/// The app with its plugins, state, commands and event forwarding; shared by
/// `run` and the IPC tests (which use the mock runtime).
pub fn app_builder<R: Runtime>(
    base: tauri::Builder<R>,
    specta: tauri_specta::Builder<R>,
    ctx: Ctx,
) -> tauri::Builder<R> {
    base.plugin(window::navigation_guard())
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_notification::init())
        .invoke_handler(specta.invoke_handler())
        .manage(ctx)
        .manage(server::LocalServer::new())
        .setup(move |app| {
            specta.mount_events(app);
            app.manage(commands::desktop::Dialogs::new(app.handle().clone()));
            forward_changes(app.handle().clone());
            forward_notices(app.handle().clone());
            notify_waiting_approvals(app.handle().clone());
            Ok(())
        })
}

/// Starts the local bus server, the wake-up scheduler and the urgent-mail
/// announcer (the app only: the IPC tests run without them).
pub fn start_bus<R: Runtime>(app: &tauri::AppHandle<R>) {
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let ctx = app.state::<Ctx>().inner().clone();
        server::start(&ctx, &app.state::<server::LocalServer>()).await;
    });
}

/// Re-emits every committed change as a typed `DataChanged` event.
fn forward_changes<R: Runtime>(app: tauri::AppHandle<R>) {
    let mut changes = app.state::<Ctx>().subscribe();
    tauri::async_runtime::spawn(async move {
        loop {
            match changes.recv().await {
                Ok(change) => {
                    if let Err(e) = (bindings::DataChanged { change }).emit(&app) {
                        tracing::warn!("could not emit a change event: {e}");
                    }
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(missed)) => {
                    tracing::debug!("change feed lagged by {missed} events");
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            }
        }
    });
}

/// Re-emits every notice an agent sends to the person as `UserNotice`.
fn forward_notices<R: Runtime>(app: tauri::AppHandle<R>) {
    let mut notices = app.state::<Ctx>().notices();
    tauri::async_runtime::spawn(async move {
        loop {
            match notices.recv().await {
                Ok(notice) => {
                    if notice.urgent {
                        show_desktop_notification(&app, &notice);
                    }
                    if let Err(e) = (bindings::UserNotice { notice }).emit(&app) {
                        tracing::warn!("could not emit a notice: {e}");
                    }
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(missed)) => {
                    tracing::warn!("{missed} notices were dropped");
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            }
        }
    });
}

/// A desktop notification for each tool call that starts waiting for a
/// person while the window is not in front — whichever process runs it (the
/// app, the CLI, `colmena mcp`): the store announces other processes'
/// commits too. With the window in front, the card in the app is enough.
fn notify_waiting_approvals<R: Runtime>(app: tauri::AppHandle<R>) {
    use colmena_core::permissions::approvals;
    use std::collections::HashSet;
    let ctx = app.state::<Ctx>().inner().clone();
    let mut changes = ctx.subscribe();
    tauri::async_runtime::spawn(async move {
        let ids = |list: &[approvals::Approval]| list.iter().map(|a| a.id.clone()).collect();
        let mut seen: HashSet<String> = approvals::pending(&ctx)
            .await
            .map(|list| ids(&list))
            .unwrap_or_default();
        loop {
            match changes.recv().await {
                Ok(colmena_core::Change::Approvals)
                | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Ok(_) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            }
            let Ok(pending) = approvals::pending(&ctx).await else {
                continue;
            };
            let in_front = app
                .get_webview_window("main")
                .and_then(|w| w.is_focused().ok())
                .unwrap_or(false);
            for approval in pending.iter().filter(|a| !seen.contains(&a.id)) {
                if !in_front {
                    let agent = colmena_core::agents::get(&ctx, &approval.agent_id.as_str().into())
                        .await
                        .map_or_else(|_| approval.agent_id.clone(), |a| a.name);
                    show_desktop_notification(
                        &app,
                        &colmena_core::Notice {
                            title: format!("{agent} asks to use {}", approval.tool),
                            body: format!(
                                "The agent {} and waits for you — allow or deny it in Colmena.",
                                approval.risk.described()
                            ),
                            urgent: true,
                            from: Some(approval.agent_id.clone()),
                            topic: Some(colmena_core::NoticeTopic::Approval {
                                agent,
                                tool: approval.tool.clone(),
                                risk: approval.risk,
                            }),
                        },
                    );
                }
            }
            seen = ids(&pending);
        }
    });
}

/// An OS notification for something urgent (the window may be hidden).
fn show_desktop_notification<R: Runtime>(app: &tauri::AppHandle<R>, notice: &colmena_core::Notice) {
    use tauri_plugin_notification::NotificationExt;
    let lang = notice_text::language(app.state::<Ctx>().data_dir());
    let (title, body) = notice_text::worded(notice, lang);
    if let Err(e) = app.notification().builder().title(title).body(body).show() {
        tracing::warn!("no desktop notification could be shown: {e}");
    }
}
