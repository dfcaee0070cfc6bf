//! What the sandbox costs each program an agent runs (BENCHMARKS.md): the
//! wall time from spawn to exit of `/bin/true`, started the plain way
//! (the floor) and through `colmena-sandbox` as `cli_exec` starts it —
//! cleared environment, own process group, resource limits, dropped
//! privileges, syscall filter, and Landlock with a private /proc (the
//! launcher runs twice: outside and inside its namespaces), or bubblewrap,
//! where the machine has it — alternating, so both see the same machine.
//! As root, the program runs as `nobody`, as the app would run it.
//!
//! Run: `cargo bench -p colmena-core --bench sandbox_spawn`
//! (`-- --runs N`, default 300 per variant).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[cfg(target_os = "linux")]
#[path = "sandbox_spawn/linux.rs"]
mod linux;

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    #[cfg(not(target_os = "linux"))]
    eprintln!("this bench measures Linux's Landlock and bubblewrap launches; run it on Linux");
}
