// Keeps a console window from opening next to the app on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::process::ExitCode;

fn main() -> ExitCode {
    // The Linux packages ship one binary: `/usr/bin/colmena` runs
    // `colmena-desktop --colmena-cli …` (packaging/linux/colmena).
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == colmena_desktop::CLI_FLAG) {
        args.splice(0..2, ["colmena".into()]);
        return colmena_server::cli::main(args);
    }
    // `colmena-desktop engine`: the local model engine, started by the app
    // (and by the CLI run through it) as a child process; the CLI's own
    // entry knows the argument, so the engine is that path too.
    if args.len() == 2 && args[1] == colmena_server::ENGINE_ARG {
        return colmena_server::cli::main(["colmena", colmena_server::ENGINE_ARG]);
    }
    colmena_desktop::run();
    ExitCode::SUCCESS
}
