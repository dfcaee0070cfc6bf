//! The window stays on the app's own pages; links leave through the system
//! browser.
//!
//! Why: the web view holds the IPC bridge. A page from elsewhere loaded in it
//! — a link in a model's answer, a redirect — would be a foreign document
//! next to commands that read keys and run agents (the capability file binds
//! commands to the window, not to an origin). So every navigation to another
//! origin is refused, and a link the person clicks is handed, only when it is
//! `http`/`https`, to the OS's browser by the `open_link` command.

use tauri::plugin::{Builder, TauriPlugin};
use tauri::{Runtime, Url};

use colmena_core::{AppError, Result};

/// Where the app's own pages are served from.
pub fn is_app_origin(url: &Url) -> bool {
    match url.scheme() {
        // Linux and macOS.
        "tauri" => url.host_str() == Some("localhost"),
        // Windows serves the custom protocol as http(s)://tauri.localhost.
        "http" | "https" => {
            url.host_str() == Some("tauri.localhost")
                || (!cfg!(feature = "custom-protocol") && is_dev_server(url))
        }
        _ => false,
    }
}

/// The Vite dev server (`build.devUrl`), used only without the embedded assets.
fn is_dev_server(url: &Url) -> bool {
    url.scheme() == "http" && url.host_str() == Some("localhost") && url.port() == Some(1420)
}

/// The plugin that refuses navigation away from the app's origin.
pub fn navigation_guard<R: Runtime>() -> TauriPlugin<R> {
    Builder::new("navigation-guard")
        .on_navigation(|_, url| {
            let allowed = is_app_origin(url);
            if !allowed {
                tracing::warn!(
                    "navigation to {} refused",
                    url.origin().ascii_serialization()
                );
            }
            allowed
        })
        .build()
}

/// Starts fetching what the first frame needs — the code of the view the
/// window opens on (`view`, one of the views `links` knows) and the
/// catalog of the language it speaks (`language`: `en` or `es`) — as the
/// page starts, in parallel with the main bundle instead of after it
/// (issue 16). The UI's build gives these chunks fixed names,
/// `assets/view-<view>.js` and `assets/lang-<language>.js`
/// (ui/vite.config.ts); the page's own imports find them loading or loaded.
pub fn first_frame_preload<R: Runtime>(
    view: &'static str,
    language: &'static str,
) -> TauriPlugin<R> {
    Builder::new("first-frame")
        .js_init_script(format!(
            "import(new URL('/assets/view-{view}.js', location.href).href).catch(() => {{}});\n\
             import(new URL('/assets/lang-{language}.js', location.href).href).catch(() => {{}});"
        ))
        .build()
}

/// A link that may be opened in the system browser: `http` or `https` with a
/// host, at most 2,000 characters.
pub fn external_link(text: &str) -> Result<Url> {
    let refuse =
        |why: &str| AppError::invalid_field("url", "unsupported_link", format!("{why}: {text}"));
    if text.len() > 2_000 {
        return Err(refuse("the link is too long"));
    }
    let url = Url::parse(text).map_err(|_| refuse("not a link"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(refuse("only web links open in the browser"));
    }
    Ok(url)
}

/// Opens `url` in the system browser (the program gets it as one argument,
/// never through a shell) and does not wait for it.
pub fn open_in_browser(url: &Url) -> Result<()> {
    #[cfg(target_os = "linux")]
    let mut command = std::process::Command::new("xdg-open");
    #[cfg(target_os = "macos")]
    let mut command = std::process::Command::new("open");
    #[cfg(target_os = "windows")]
    let mut command = {
        let mut c = std::process::Command::new("rundll32");
        c.arg("url.dll,FileProtocolHandler");
        c
    };
    let mut child = command
        .arg(url.as_str())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| AppError::precondition(format!("no browser could be started: {e}")))?;
    // Reaped in the background: the opener exits as soon as it has handed over.
    std::thread::spawn(move || {
        let _ = child.wait();
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn only_the_apps_own_origin_is_navigable() {
        assert!(is_app_origin(&url("tauri://localhost/")));
        assert!(is_app_origin(&url("tauri://localhost/index.html#/chat")));
        assert!(is_app_origin(&url("http://tauri.localhost/")));
        for foreign in [
            "https://example.com/",
            "http://localhost:8080/",
            "http://127.0.0.1:1420/",
            "tauri://evil.test/",
            "file:///etc/passwd",
            "javascript:alert(1)",
            "data:text/html,hi",
            "http://tauri.localhost.evil.test/",
        ] {
            assert!(!is_app_origin(&url(foreign)), "{foreign}");
        }
    }

    #[test]
    fn only_web_links_open_in_the_browser() {
        assert!(external_link("https://example.org/a?b=c").is_ok());
        assert!(external_link("http://example.org").is_ok());
        for refused in [
            "file:///etc/passwd",
            "javascript:alert(1)",
            "tauri://localhost/",
            "mailto:a@b.c",
            "smb://host/share",
            "/relative",
            "",
        ] {
            let err = external_link(refused).unwrap_err();
            assert_eq!(err.code, colmena_core::ErrorCode::Validation, "{refused}");
        }
        assert!(external_link(&format!("https://e.org/{}", "a".repeat(2_000))).is_err());
    }
}
