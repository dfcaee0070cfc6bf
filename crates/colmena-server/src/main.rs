//! `colmena`: the command-line door to the same services the desktop app uses.

fn main() -> std::process::ExitCode {
    colmena_server::cli::main(std::env::args_os())
}
