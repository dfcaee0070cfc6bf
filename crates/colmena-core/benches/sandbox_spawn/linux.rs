//! The bench itself: Linux's mechanisms (see `../sandbox_spawn.rs`).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const LAUNCHER: &str = env!("CARGO_BIN_EXE_colmena-sandbox");
/// The folders `cli_exec` gives read access to (sandbox/mechanism.rs).
const SYSTEM_READ: [&str; 10] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc",
];
const LIMITS: [&str; 5] = [
    "cpu=65",
    "as=8589934592",
    "fsize=1073741824",
    "nproc=4096",
    "nofile=1024",
];

/// As root, the user the program runs as (the launcher refuses root).
fn as_user() -> Vec<String> {
    if rustix::process::geteuid().is_root() {
        ["--uid", "65534", "--gid", "65534"]
            .map(String::from)
            .to_vec()
    } else {
        Vec::new()
    }
}

fn landlock_args(workspace: &Path) -> Vec<String> {
    let mut args = vec!["--landlock".to_owned(), "--private-proc".to_owned()];
    args.extend(as_user());
    for dir in SYSTEM_READ.iter().filter(|d| Path::new(d).exists()) {
        args.extend(["--ro".to_owned(), (*dir).to_owned()]);
    }
    args.extend(["--rw".to_owned(), "/dev/null".to_owned()]);
    args.extend(["--rw".to_owned(), workspace.display().to_string()]);
    args
}

fn limits() -> Vec<String> {
    LIMITS
        .iter()
        .flat_map(|l| ["--limit".to_owned(), (*l).to_owned()])
        .collect()
}

/// One spawn-to-exit of `program args`, as the app starts programs.
fn once(program: &str, args: &[String], workspace: &Path) -> Duration {
    let started = Instant::now();
    let status = Command::new(program)
        .args(args)
        .current_dir(workspace)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .status()
        .unwrap();
    let took = started.elapsed();
    assert!(status.success(), "{program} {args:?} failed");
    took
}

fn works(program: &str, args: &[String], workspace: &Path) -> bool {
    Command::new(program)
        .args(args)
        .current_dir(workspace)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let last = sorted.len().saturating_sub(1);
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )]
    let index = ((last as f64) * p).round() as usize;
    sorted[index.min(last)]
}

pub(crate) fn main() {
    let runs: usize = std::env::args()
        .skip_while(|a| a != "--runs")
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(300);
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().canonicalize().unwrap();
    let landlock = {
        let mut args = landlock_args(&workspace);
        args.extend(limits());
        args.extend(["--".to_owned(), "/bin/true".to_owned()]);
        args
    };
    let mut variants: Vec<(String, String, Vec<String>)> = vec![
        ("plain spawn (floor)".into(), "/bin/true".into(), Vec::new()),
        (
            "launcher: limits + syscall filter".into(),
            LAUNCHER.into(),
            {
                let mut args = as_user();
                args.extend(limits());
                args.extend(["--".to_owned(), "/bin/true".to_owned()]);
                args
            },
        ),
    ];
    // Only where the kernel takes a Landlock ruleset of ABI 6.
    if works(LAUNCHER, &landlock, &workspace) {
        variants.push((
            "launcher: + Landlock (cli_exec here)".into(),
            LAUNCHER.into(),
            landlock,
        ));
    }
    if Path::new("/usr/bin/bwrap").exists() {
        // As root without a user namespace (it would map root alone), as
        // the app starts it (sandbox/command.rs).
        let namespaces: &[&str] = if as_user().is_empty() {
            &["--unshare-all", "--share-net"]
        } else {
            &[
                "--unshare-ipc",
                "--unshare-pid",
                "--unshare-uts",
                "--unshare-cgroup-try",
            ]
        };
        let mut args: Vec<String> = ["--die-with-parent", "--new-session"]
            .iter()
            .chain(namespaces)
            .map(|s| (*s).to_owned())
            .collect();
        for dir in SYSTEM_READ.iter().filter(|d| **d != "/proc") {
            args.extend(["--ro-bind-try".into(), (*dir).into(), (*dir).into()]);
        }
        args.extend(["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"].map(String::from));
        let ws = workspace.display().to_string();
        args.extend([
            "--bind".into(),
            ws.clone(),
            ws.clone(),
            "--chdir".into(),
            ws,
        ]);
        args.extend(["--ro-bind".into(), LAUNCHER.into(), LAUNCHER.into()]);
        args.extend(["--".into(), LAUNCHER.into()]);
        args.extend(as_user());
        args.extend(limits());
        args.extend(["--".to_owned(), "/bin/true".to_owned()]);
        variants.push((
            "bubblewrap + launcher (the fallback)".into(),
            "/usr/bin/bwrap".into(),
            args,
        ));
    }
    // Warm up the page cache and the binaries.
    for (_, program, args) in &variants {
        for _ in 0..10 {
            once(program, args, &workspace);
        }
    }
    let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(runs); variants.len()];
    for _ in 0..runs {
        for (i, (_, program, args)) in variants.iter().enumerate() {
            times[i].push(once(program, args, &workspace));
        }
    }
    let floor = {
        let mut sorted = times[0].clone();
        sorted.sort();
        percentile(&sorted, 0.5)
    };
    println!("spawn to exit of /bin/true, {runs} runs each, alternating");
    println!(
        "{:<40} {:>9} {:>9} {:>9}",
        "variant", "p50", "p95", "p50 ratio"
    );
    for ((name, _, _), mut sample) in variants.iter().zip(times) {
        sample.sort();
        let (p50, p95) = (percentile(&sample, 0.5), percentile(&sample, 0.95));
        println!(
            "{name:<40} {:>7.2}ms {:>7.2}ms {:>8.2}×",
            p50.as_secs_f64() * 1e3,
            p95.as_secs_f64() * 1e3,
            p50.as_secs_f64() / floor.as_secs_f64()
        );
    }
}
