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
    colmena_desktop::run();
    ExitCode::SUCCESS
}
