//! `colmena-sandbox`: the launcher `cli_exec` and the git tools start
//! programs through, and that keeps the user's MCP servers from outliving
//! the app (`--supervise`). See `sandbox/launcher.rs` and
//! `sandbox/supervisor.rs`.

#[path = "../sandbox/launcher.rs"]
mod launcher;
#[cfg(unix)]
#[path = "../sandbox/launcher/plan.rs"]
mod plan;
// The app writes every option on every OS; off Linux the launcher reads
// fewer (no network namespace to forward into, so no `PROXY_PORT`), and
// off Unix it only says why it runs nothing (see `launcher::main`).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
#[path = "../sandbox/protocol.rs"]
mod protocol;
#[cfg(unix)]
#[path = "../sandbox/supervisor.rs"]
mod supervisor;

#[cfg(target_os = "linux")]
#[path = "../sandbox/launcher/forward.rs"]
mod forward;
#[cfg(target_os = "linux")]
#[path = "../sandbox/launcher/hand_over.rs"]
mod hand_over;
#[cfg(target_os = "linux")]
#[path = "../sandbox/launcher/namespaces.rs"]
mod namespaces;
#[cfg(target_os = "linux")]
#[path = "../sandbox/launcher/privileges.rs"]
mod privileges;
#[cfg(target_os = "linux")]
#[path = "../sandbox/launcher/reach.rs"]
mod reach;
#[cfg(target_os = "linux")]
#[path = "../sandbox/launcher/syscalls.rs"]
mod syscalls;

fn main() -> std::process::ExitCode {
    launcher::main()
}
