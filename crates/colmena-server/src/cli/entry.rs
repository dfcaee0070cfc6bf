//! The CLI's `main`, in the library so that the desktop binary can be the
//! CLI too: the Linux packages ship one binary (`/usr/bin/colmena` runs
//! `colmena-desktop --colmena-cli …`), which halves the package (issue 16).

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;

use super::{Cli, output, run};

/// Runs the command line `args` (the first one is the program, as in
/// `std::env::args_os`); the exit status says how it went.
pub fn main<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    // `colmena engine`: the local model engine, started by this program
    // itself (llm::local::engine); it speaks JSON lines, not this CLI.
    if args.get(1).is_some_and(|a| a == colmena_engine::ENGINE_ARG) && args.len() == 2 {
        return ExitCode::from(u8::try_from(colmena_engine::run()).unwrap_or(1));
    }
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("COLMENA_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let args = Cli::parse_from(args);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let json = args.json;
    match runtime.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            output::print_error(&err, json);
            ExitCode::from(output::exit_status(err.code))
        }
    }
}
