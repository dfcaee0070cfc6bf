//! The empty Tauri shell Colmena is measured against (`scripts/bench-app.sh`,
//! BENCHMARKS.md): one window, a static page, and the one command the page
//! calls once it has painted, which writes `shell <wall-clock ms>` to the file
//! named by `COLMENA_FIRST_PAINT_FILE` — the line Colmena's UI writes first.

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

#[tauri::command]
fn painted() {
    if let Some(file) = std::env::var_os("COLMENA_FIRST_PAINT_FILE") {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or_default();
        let _ = std::fs::write(file, format!("shell {now}\n"));
    }
}

fn main() {
    let app = tauri::Builder::default()
        .invoke_handler(tauri::generate_handler![painted])
        .build(tauri::generate_context!());
    match app {
        Ok(app) => app.run(|_, _| {}),
        Err(e) => {
            eprintln!("the empty shell could not start: {e}");
            std::process::exit(1);
        }
    }
}
