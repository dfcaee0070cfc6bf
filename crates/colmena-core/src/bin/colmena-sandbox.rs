//! `colmena-sandbox`: the launcher `cli_exec` and the git tools start
//! programs through, and that keeps the user's MCP servers from outliving
//! the app (`--supervise`). See `runtime/sandbox/launcher.rs` and
//! `runtime/sandbox/supervisor.rs`.

#[path = "../runtime/sandbox/launcher.rs"]
mod launcher;
#[path = "../runtime/sandbox/launcher/plan.rs"]
mod plan;
#[path = "../runtime/sandbox/protocol.rs"]
mod protocol;
#[cfg(unix)]
#[path = "../runtime/sandbox/supervisor.rs"]
mod supervisor;

#[cfg(target_os = "linux")]
#[path = "../runtime/sandbox/launcher/forward.rs"]
mod forward;
#[cfg(target_os = "linux")]
#[path = "../runtime/sandbox/launcher/hand_over.rs"]
mod hand_over;
#[cfg(target_os = "linux")]
#[path = "../runtime/sandbox/launcher/namespaces.rs"]
mod namespaces;
#[cfg(target_os = "linux")]
#[path = "../runtime/sandbox/launcher/privileges.rs"]
mod privileges;
#[cfg(target_os = "linux")]
#[path = "../runtime/sandbox/launcher/reach.rs"]
mod reach;
#[cfg(target_os = "linux")]
#[path = "../runtime/sandbox/launcher/syscalls.rs"]
mod syscalls;

fn main() -> std::process::ExitCode {
    launcher::main()
}
