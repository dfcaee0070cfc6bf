//! The desktop shell: opens the workspace, registers the typed IPC commands
//! (one line each over `colmena-core`), forwards committed changes to the UI
//! as events, and runs the window. No logic lives here.

mod after_first_paint;
pub mod bindings;
mod commands;
mod handed_files;
mod launch;
mod links;
mod notice_text;
mod server;
mod tray;
mod ui_prefs;
mod updates;
mod window;
mod window_state;

#[cfg(test)]
mod ipc_tests;

use colmena_core::Ctx;
use tauri::{Manager, Runtime};
use tauri_specta::Event;

pub use commands::names::COMMANDS;

/// As the first argument, makes this binary the `colmena` CLI (main.rs).
pub const CLI_FLAG: &str = "--colmena-cli";

/// Starts the app. Exits with a message when the workspace cannot be opened,
/// and at once when an app already runs on this workspace (it gets this
/// launch's arguments and comes to the front).
pub fn run() {
    launch::init_logging();
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut options = match launch::open_options(std::env::args_os().skip(1)) {
        Ok(options) => options,
        Err(err) => launch::fail(&err),
    };
    // The data dir exists (owner-only) before anything listens in it.
    options.data_dir = match colmena_core::data_dir::prepare(&options.data_dir) {
        Ok(dir) => dir,
        Err(err) => launch::fail(&err),
    };
    let listening = {
        let handover = colmena_core::single_instance::Handover {
            args: args.clone(),
            cwd: std::env::current_dir()
                .map(|d| d.display().to_string())
                .unwrap_or_default(),
        };
        match colmena_core::single_instance::claim(&options.data_dir, &handover) {
            colmena_core::single_instance::Claim::HandedOver => {
                eprintln!(
                    "colmena: Colmena already runs on this workspace; it has been brought to the front"
                );
                std::process::exit(0);
            }
            colmena_core::single_instance::Claim::First(listening) => Some(listening),
            colmena_core::single_instance::Claim::Alone => None,
        }
    };
    // The first start of a new version copies the store before anything opens it.
    let store = options.data_dir.join(colmena_core::store::DB_FILE);
    if let Err(err) =
        colmena_core::store::backup::before_new_version(&store, env!("CARGO_PKG_VERSION"))
    {
        launch::fail(&err);
    }
    let ctx = match tauri::async_runtime::block_on(colmena_core::workspace::open(options)) {
        Ok(ctx) => ctx,
        Err(err) => launch::fail(&err),
    };
    colmena_server::mcp_client::install(&ctx);
    let mut builder = app_builder(tauri::Builder::default(), bindings::builder(), ctx.clone());
    // The place the window opens on: a link it was launched with, else where
    // the person was (`initial_route` tells the page the same).
    let launch_route = links::route_in_args(&args);
    let first_route = launch_route
        .clone()
        .or_else(|| ui_prefs::last_route(ctx.data_dir()))
        .or_else(|| home_route(&ctx));
    let view = first_route
        .as_deref()
        .and_then(links::view_of)
        .unwrap_or(links::DEFAULT_VIEW);
    let language = notice_text::language(ctx.data_dir());
    builder = builder.plugin(window::first_frame_preload(view, language));
    let app = match builder.build(tauri::generate_context!()) {
        Ok(app) => app,
        Err(err) => {
            eprintln!("colmena: the app could not start: {err}");
            std::process::exit(1);
        }
    };
    *app.state::<commands::shell::LaunchRoute>()
        .0
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = launch_route;
    if let Ok(cwd) = std::env::current_dir() {
        app.state::<handed_files::HandedFiles>().offer(&args, &cwd);
    }
    let socket = listening.map(|listening| {
        let path = listening.path.clone();
        let handle = app.handle().clone();
        listening.forward(move |handover| {
            on_handover(&handle, &handover.args, std::path::Path::new(&handover.cwd))
        });
        path
    });
    // The updater needs the release's public key (tauri.conf.json), which the
    // IPC tests' mock app lacks: it is added to the real app only.
    match app
        .handle()
        .plugin(tauri_plugin_updater::Builder::new().build())
    {
        Ok(()) => {
            app.manage(updates::Updates::new(app.handle()));
        }
        Err(e) => tracing::warn!("no updater: {e}"),
    }
    let hidden = args.iter().any(|a| a == launch::HIDDEN_FLAG);
    // The bus and the tray wait for the first frame (after_first_paint); the
    // bus does not wait for the main thread as well.
    after_first_paint::run(app.handle(), hidden, start_bus, tray::install);
    app.run(move |app, event| {
        if let tauri::RunEvent::Ready = event {
            window_ready(app, hidden);
        }
        // macOS hands links to the running app as an event, not argv.
        #[cfg(target_os = "macos")]
        if let tauri::RunEvent::Opened { urls } = &event {
            let links: Vec<String> = urls.iter().map(|u| u.to_string()).collect();
            on_handover(app, &links, std::path::Path::new("/"));
        }
        // The MCP servers this app started stop with it.
        if let tauri::RunEvent::Exit = event {
            tauri::async_runtime::block_on(colmena_core::workspace::shutdown(&ctx));
            // Only the socket this app bound (Unix; a pipe goes with it).
            #[cfg(unix)]
            if let Some(socket) = &socket {
                let _ = std::fs::remove_file(socket);
            }
            #[cfg(not(unix))]
            let _ = &socket;
        }
    });
}

/// The window exists: back where it was, and hidden when started at login
/// (with a tray to bring it back).
fn window_ready<R: Runtime>(app: &tauri::AppHandle<R>, hidden: bool) {
    let Some(window) = app.get_webview_window("main") else {
        return;
    };
    window_state::restore(&window, app.state::<Ctx>().data_dir());
    // Restored first, then kept: the restore's own moves need not save.
    app.manage(window_state::Saver::default());
    if hidden && app.state::<tray::TrayState>().available() {
        let _ = window.hide();
    }
}

/// A second launch on this workspace: the window comes to the front, a
/// `colmena://` link among its arguments opens its place and the files it
/// names (from `cwd`, where it ran) wait for the canvas the window shows.
fn on_handover<R: Runtime>(app: &tauri::AppHandle<R>, args: &[String], cwd: &std::path::Path) {
    tray::show_window(app);
    if let Some(route) = links::route_in_args(args)
        && let Err(e) = (bindings::OpenRoute { route }).emit(app)
    {
        tracing::warn!("could not open the link: {e}");
    }
    let files = app.state::<handed_files::HandedFiles>();
    if files.offer(args, cwd) {
        let count = u32::try_from(files.list().len()).unwrap_or(u32::MAX);
        if let Err(e) = (bindings::FilesHanded { count }).emit(app) {
            tracing::warn!("could not hand the files to the window: {e}");
        }
    }
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
        .plugin(tauri_plugin_autostart::init(
            tauri_plugin_autostart::MacosLauncher::LaunchAgent,
            Some(vec![launch::HIDDEN_FLAG]),
        ))
        .invoke_handler(specta.invoke_handler())
        .on_window_event(|window, event| {
            tray::on_window_event(window, event);
            window_state::on_window_event(window, event);
        })
        .manage(ctx)
        .manage(server::LocalServer::new())
        .manage(tray::TrayState::default())
        .manage(after_first_paint::FirstPaint::default())
        .manage(after_first_paint::Started::default())
        .manage(commands::shell::LaunchRoute::default())
        .manage(handed_files::HandedFiles::default())
        .setup(move |app| {
            specta.mount_events(app);
            app.manage(commands::desktop::Dialogs::new(app.handle().clone()));
            app.manage(commands::backups::Quit::new(app.handle().clone()));
            app.manage(start_at_login(app.handle()));
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
    let lang = notice_text::language(app.state::<Ctx>().data_dir());
    let (title, body) = notice_text::worded(notice, lang);
    show_desktop_notice(app, &title, &body);
}

/// An OS notification with these words.
pub(crate) fn show_desktop_notice<R: Runtime>(app: &tauri::AppHandle<R>, title: &str, body: &str) {
    use tauri_plugin_notification::NotificationExt;
    if let Err(e) = app.notification().builder().title(title).body(body).show() {
        tracing::warn!("no desktop notification could be shown: {e}");
    }
}

/// "Start at login" through the autostart plugin (its own commands are not
/// granted to the window: only ours, which take a yes or no).
fn start_at_login<R: Runtime>(app: &tauri::AppHandle<R>) -> commands::shell::StartAtLogin {
    use tauri_plugin_autostart::ManagerExt;
    let (reader, writer) = (app.clone(), app.clone());
    commands::shell::StartAtLogin {
        is_on: std::sync::Arc::new(move || reader.autolaunch().is_enabled().unwrap_or(false)),
        set: std::sync::Arc::new(move |on| {
            let manager = writer.autolaunch();
            if manager.is_enabled().unwrap_or(false) == on {
                return Ok(());
            }
            if on {
                manager.enable()
            } else {
                manager.disable()
            }
            .map_err(|e| {
                colmena_core::AppError::new(
                    colmena_core::ErrorCode::Precondition,
                    format!("start at login could not be changed: {e}"),
                )
            })
        }),
    }
}

/// Where a window with no place to go back to opens: Activity once anything
/// has run, else the canvas (`links::DEFAULT_VIEW`).
fn home_route(ctx: &Ctx) -> Option<String> {
    match tauri::async_runtime::block_on(colmena_core::activity::has_history(ctx)) {
        Ok(true) => Some("#/activity".to_owned()),
        Ok(false) => None,
        Err(e) => {
            tracing::warn!("could not tell whether anything ran here: {}", e.message);
            None
        }
    }
}
