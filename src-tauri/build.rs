include!("src/commands/names.rs");

fn main() {
    // The window's assets are embedded at compile time from ui/dist: a new
    // UI build must rebuild the shell, or it would ship the previous UI (or
    // none, when the build ran while dist was being rewritten).
    println!("cargo:rerun-if-changed=../ui/dist");
    let attributes = tauri_build::Attributes::new()
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    tauri_build::try_build(attributes).expect("tauri build script failed");
}
