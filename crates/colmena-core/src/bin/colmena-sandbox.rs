//! `colmena-sandbox`: the launcher `cli_exec` and the git tools start
//! programs through, and that keeps the user's MCP servers from outliving
//! the app (`--supervise`). See `runtime/sandbox/launcher.rs` and
//! `runtime/sandbox/supervisor.rs`.

#[path = "../runtime/sandbox/launcher.rs"]
mod launcher;
#[path = "../runtime/sandbox/protocol.rs"]
mod protocol;
#[cfg(unix)]
#[path = "../runtime/sandbox/supervisor.rs"]
mod supervisor;

fn main() -> std::process::ExitCode {
    launcher::main()
}
