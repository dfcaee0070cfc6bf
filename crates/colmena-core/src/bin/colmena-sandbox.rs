//! `colmena-sandbox`: the launcher `cli_exec` and the git tools start
//! programs through. See `runtime/sandbox/launcher.rs`.

#[path = "../runtime/sandbox/launcher.rs"]
mod launcher;
#[path = "../runtime/sandbox/protocol.rs"]
mod protocol;

fn main() -> std::process::ExitCode {
    launcher::main()
}
