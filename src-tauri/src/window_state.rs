//! The window comes back where it was (issue 16): its size, its position and
//! whether it was maximised, in `<data dir>/window-state.json`.
//!
//! Why not the window-state plugin: it writes when the window closes or the
//! app exits, and an app that is killed, or logged out with, or that only
//! ever hides into the tray, would forget. Here every move and resize is
//! saved half a second after it settles. A saved place that lies on no
//! monitor any more (a screen unplugged) is not restored: the window opens
//! where the OS puts it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tauri::{PhysicalPosition, PhysicalSize, Runtime, WebviewWindow, WindowEvent};

pub const FILE: &str = "window-state.json";

/// Where the window was, in physical pixels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
    #[serde(default)]
    pub maximized: bool,
}

fn path(data_dir: &Path) -> PathBuf {
    data_dir.join(FILE)
}

pub fn read(data_dir: &Path) -> Option<Placement> {
    let bytes = std::fs::read(path(data_dir)).ok()?;
    let placement: Placement = serde_json::from_slice(&bytes).ok()?;
    let sane =
        (200..=20_000).contains(&placement.width) && (200..=20_000).contains(&placement.height);
    sane.then_some(placement)
}

pub fn write(data_dir: &Path, placement: &Placement) -> std::io::Result<()> {
    let partial = data_dir.join(format!("{FILE}.partial"));
    std::fs::write(&partial, serde_json::to_vec(placement)?)?;
    std::fs::rename(partial, path(data_dir))
}

/// Whether a window at `placement` would show at least a corner of its top
/// edge on one of `monitors` (position and size of each).
pub fn on_a_monitor(
    placement: &Placement,
    monitors: &[(PhysicalPosition<i32>, PhysicalSize<u32>)],
) -> bool {
    let (x, y) = (placement.x + 40, placement.y + 10);
    monitors.iter().any(|(at, size)| {
        let right =
            at.x.saturating_add(i32::try_from(size.width).unwrap_or(i32::MAX));
        let bottom =
            at.y.saturating_add(i32::try_from(size.height).unwrap_or(i32::MAX));
        x >= at.x && x < right && y >= at.y && y < bottom
    })
}

/// Puts `window` where it was last time, when that place is still on screen.
pub fn restore<R: Runtime>(window: &WebviewWindow<R>, data_dir: &Path) {
    let Some(placement) = read(data_dir) else {
        return;
    };
    let monitors: Vec<_> = window
        .available_monitors()
        .unwrap_or_default()
        .iter()
        .map(|m| (*m.position(), *m.size()))
        .collect();
    let _ = window.set_size(PhysicalSize::new(placement.width, placement.height));
    if monitors.is_empty() || on_a_monitor(&placement, &monitors) {
        let _ = window.set_position(PhysicalPosition::new(placement.x, placement.y));
    }
    if placement.maximized {
        let _ = window.maximize();
    }
}

/// Counts moves and resizes, so that only the last of a burst saves.
#[derive(Default)]
pub struct Saver {
    generation: Arc<AtomicU64>,
}

/// Saves the main window's place half a second after each move or resize
/// settles (the app's window-event hook calls this).
pub fn on_window_event<R: Runtime>(window: &tauri::Window<R>, event: &WindowEvent) {
    use tauri::Manager;
    if !matches!(event, WindowEvent::Moved(_) | WindowEvent::Resized(_)) || window.label() != "main"
    {
        return;
    }
    let Some(saver) = window.try_state::<Saver>() else {
        return;
    };
    let generation = saver.generation.clone();
    let mine = generation.fetch_add(1, Ordering::SeqCst) + 1;
    let Some(window) = window.get_webview_window("main") else {
        return;
    };
    let data_dir = window.state::<colmena_core::Ctx>().data_dir().to_path_buf();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        if generation.load(Ordering::SeqCst) != mine {
            return; // a later event will save
        }
        if let Some(placement) = placement_of(&window)
            && let Err(e) = write(&data_dir, &placement)
        {
            tracing::warn!("the window's place was not saved: {e}");
        }
    });
}

fn placement_of<R: Runtime>(window: &WebviewWindow<R>) -> Option<Placement> {
    // A hidden or minimised window keeps its last saved place.
    if !window.is_visible().ok()? || window.is_minimized().unwrap_or(false) {
        return None;
    }
    let maximized = window.is_maximized().unwrap_or(false);
    if maximized {
        // Keep the size it goes back to; only the flag changes.
        let mut last = read_last(window)?;
        last.maximized = true;
        return Some(last);
    }
    let at = window.outer_position().ok()?;
    let size = window.inner_size().ok()?;
    Some(Placement {
        x: at.x,
        y: at.y,
        width: size.width,
        height: size.height,
        maximized: false,
    })
}

fn read_last<R: Runtime>(window: &WebviewWindow<R>) -> Option<Placement> {
    use tauri::Manager;
    let ctx = window.state::<colmena_core::Ctx>();
    read(ctx.data_dir()).or_else(|| {
        let size = window.inner_size().ok()?;
        Some(Placement {
            x: 0,
            y: 0,
            width: size.width,
            height: size.height,
            maximized: true,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_placement_is_saved_and_read_back_and_nonsense_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let p = Placement {
            x: 10,
            y: 20,
            width: 1000,
            height: 700,
            maximized: false,
        };
        write(dir.path(), &p).unwrap();
        assert_eq!(read(dir.path()), Some(p));
        std::fs::write(
            dir.path().join(FILE),
            r#"{"x":0,"y":0,"width":5,"height":5}"#,
        )
        .unwrap();
        assert_eq!(read(dir.path()), None);
        std::fs::write(dir.path().join(FILE), "nope").unwrap();
        assert_eq!(read(dir.path()), None);
    }

    #[test]
    fn a_place_on_an_unplugged_screen_is_not_restored() {
        let screen = [(PhysicalPosition::new(0, 0), PhysicalSize::new(1920, 1080))];
        let at = |x, y| Placement {
            x,
            y,
            width: 800,
            height: 600,
            maximized: false,
        };
        assert!(on_a_monitor(&at(100, 100), &screen));
        assert!(!on_a_monitor(&at(2500, 100), &screen));
        assert!(!on_a_monitor(&at(100, -500), &screen));
    }
}
