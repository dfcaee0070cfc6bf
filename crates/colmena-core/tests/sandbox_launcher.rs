//! `colmena-sandbox`, the launcher programs run through, on its own: it
//! refuses what it does not understand, confines itself with Landlock
//! before it becomes the program, sets the limits it is given, never runs
//! a program as root, and gives programs a /proc of their own. And the
//! master key of a workspace opened the ordinary way is not in its data dir.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::Path;
use std::process::{Command, Output};

const LAUNCHER: &str = env!("CARGO_BIN_EXE_colmena-sandbox");

fn launch(dir: &Path, args: &[&str]) -> Output {
    Command::new(LAUNCHER)
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[cfg(unix)]
fn running_as_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// `nobody`, whom the root tests switch to.
#[cfg(unix)]
const NOBODY: &str = "65534";

/// The options that name the program's user, as the app passes them when
/// it runs as root (the launcher refuses to run a program as root).
#[cfg(unix)]
fn as_user() -> Vec<&'static str> {
    if running_as_root() {
        vec!["--uid", NOBODY, "--gid", NOBODY]
    } else {
        Vec::new()
    }
}

/// Whether the root checks run. Not root: skipped, unless
/// `COLMENA_REQUIRE_ROOT_TESTS` (the test command runs as root) says they
/// must run.
#[cfg(target_os = "linux")]
fn root(test: &str) -> bool {
    if running_as_root() {
        return true;
    }
    assert!(
        std::env::var_os("COLMENA_REQUIRE_ROOT_TESTS").is_none(),
        "{test}: COLMENA_REQUIRE_ROOT_TESTS is set, but the tests do not run as root"
    );
    eprintln!("{test}: not root, skipped");
    false
}

#[test]
fn the_launcher_refuses_what_it_does_not_understand() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        vec!["--bogus", "--", "true"],
        vec!["--limit", "cpu=lots", "--", "true"],
        vec!["--limit", "stack=1", "--", "true"],
        vec!["--ro"],
        vec!["true"],
        vec!["--uid", "0", "--gid", "0", "--", "true"],
        vec!["--uid", "65534", "--", "true"],
        vec!["--own", "/tmp", "--", "true"],
        vec!["--supervise", "--private-proc", "--", "true"],
    ] {
        let out = launch(dir.path(), &args);
        assert_eq!(out.status.code(), Some(125), "{args:?}");
        assert!(
            text(&out.stderr).starts_with("colmena-sandbox: "),
            "{args:?}"
        );
    }
}

#[cfg(target_os = "linux")]
#[test]
fn under_landlock_only_the_granted_folders_are_reachable() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    let ws = data.join("workspaces/agent");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(data.join("master.key"), "TOP-SECRET").unwrap();
    let ws_text = ws.to_str().unwrap();
    let mut args = vec!["--landlock", "--private-proc"];
    if running_as_root() {
        // The workspace, in a folder only root may enter, is handed to the
        // program's user and reached through the launcher's own view.
        args.extend(as_user());
        args.extend(["--own", ws_text]);
    }
    args.extend([
        "--ro",
        "/usr",
        "--ro",
        "/bin",
        "--ro",
        "/lib",
        "--ro",
        "/lib64",
        "--ro",
        "/etc",
        "--rw",
        "/dev/null",
        "--rw",
        ws_text,
        "--",
        "sh",
        "-c",
        "cat ../../master.key; echo x > ../../planted; echo ok > here && cat here",
    ]);
    let out = launch(&ws, &args);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(!stdout.contains("TOP-SECRET"), "{stdout}");
    // Refused by Landlock, or not in the program's view at all (as root).
    assert!(
        stderr.contains("Permission denied") || stderr.contains("No such file"),
        "{stderr}"
    );
    assert!(!data.join("planted").exists());
    assert_eq!(stdout.trim(), "ok", "{stderr}");
}

#[cfg(unix)]
#[test]
fn the_launcher_sets_its_limits_before_the_program_starts() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = as_user();
    args.extend([
        "--limit",
        "as=1073741824",
        "--limit",
        "nofile=64",
        "--limit",
        "cpu=7",
        "--",
        "sh",
        "-c",
        "ulimit -v; ulimit -n; ulimit -t; ulimit -c",
    ]);
    let out = launch(dir.path(), &args);
    assert_eq!(
        text(&out.stdout),
        "1048576\n64\n7\n0\n",
        "{}",
        text(&out.stderr)
    );
}

/// As root the launcher refuses to run a program until it is told whom to
/// run it as, and the program then has that user's ids, no supplementary
/// group and no capability at all.
#[cfg(target_os = "linux")]
#[test]
fn as_root_a_program_never_runs_as_root() {
    if !root("as_root_a_program_never_runs_as_root") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = launch(dir.path(), &["--", "true"]);
    assert_eq!(out.status.code(), Some(125));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("colmena-sandbox: refusing to run a program as root"),
        "{stderr}"
    );
    let script = "id -u; id -g; id -G; grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status";
    let out = launch(
        dir.path(),
        &["--uid", NOBODY, "--gid", NOBODY, "--", "sh", "-c", script],
    );
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.get(..3), Some(&[NOBODY; 3][..]), "{stdout}");
    assert_eq!(lines.len(), 8, "{stdout} {}", text(&out.stderr));
    for line in &lines[3..] {
        assert!(line.ends_with("\t0000000000000000"), "{stdout}");
    }
}

/// As a user other than root, the launcher makes its namespaces with a user
/// namespace of its own: the program is still that user, and /proc lists
/// only its own processes.
#[cfg(target_os = "linux")]
#[test]
fn as_another_user_programs_still_get_a_proc_of_their_own() {
    use std::os::unix::fs::PermissionsExt;
    if !root("as_another_user_programs_still_get_a_proc_of_their_own") {
        return;
    }
    // A copy that user may run: the build's folder is root's.
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("colmena-sandbox");
    std::fs::copy(LAUNCHER, &copy).unwrap();
    for path in [dir.path(), copy.as_path()] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let host = std::fs::read_link("/proc/self/ns/pid").unwrap();
    let mut args = vec!["--landlock", "--private-proc"];
    for dir in ["/usr", "/bin", "/lib", "/lib64", "/etc", "/proc"] {
        if Path::new(dir).exists() {
            args.extend(["--ro", dir]);
        }
    }
    args.extend([
        "--rw",
        "/dev/null",
        "--",
        "sh",
        "-c",
        "id -u; readlink /proc/self/ns/pid; ls /proc | grep -c '^[0-9]'",
    ]);
    let out = Command::new("setpriv")
        .args(["--reuid", NOBODY, "--regid", NOBODY, "--clear-groups", "--"])
        .arg(&copy)
        .args(args)
        .current_dir(dir.path())
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .output()
        .expect("setpriv (util-linux) runs the launcher as another user");
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout} {}", text(&out.stderr));
    assert_eq!(lines[0], NOBODY, "{stdout}");
    assert!(lines[1].starts_with("pid:["), "{stdout}");
    assert_ne!(
        Path::new(lines[1]),
        host.as_path(),
        "no PID namespace of its own"
    );
    // The launcher, the shell, `ls`, `grep`: a handful, not the host's.
    let listed: usize = lines[2].parse().unwrap();
    assert!(listed < 10, "{listed} processes listed: {stdout}");
}

#[tokio::test]
async fn a_workspace_keeps_its_master_key_outside_its_data_dir() {
    let ws = support::workspace().await;
    let status = ws.ctx.vault().status().clone();
    assert!(status.ready, "{status:?}");
    assert!(!ws.dir.path().join("master.key").exists());
    assert!(
        !Path::new(&status.location).starts_with(ws.dir.path())
            && !Path::new(&status.location).starts_with(ws.ctx.data_dir()),
        "{}",
        status.location
    );
    assert!(Path::new(&status.location).is_file(), "{}", status.location);
}
