//! What a program could do with privileges (security review findings 2
//! and 5), each tried for real under every mechanism: keep capabilities or
//! root, read the app's environment and other processes' command lines
//! through /proc, open raw, packet or netlink sockets, make the calls the
//! filter refuses. Nothing leaves the machine: sockets are opened, never
//! connected.
//!
//! The root cases need the tests to run as root, as the test command does
//! (`scripts/test.sh` also sets `COLMENA_REQUIRE_ROOT_TESTS`, so that they
//! fail instead of skipping there).

use std::ffi::OsStr;
use std::path::Path;

use tokio_util::sync::CancellationToken;

use super::{mechanisms, place, python, sh};
use crate::sandbox::{program_user, run_with};

/// Whether this test process is root. When not, the caller skips its root
/// checks — unless `COLMENA_REQUIRE_ROOT_TESTS` says they must run.
fn root(test: &str) -> bool {
    if rustix::process::geteuid().is_root() {
        return true;
    }
    assert!(
        std::env::var_os("COLMENA_REQUIRE_ROOT_TESTS").is_none(),
        "{test}: COLMENA_REQUIRE_ROOT_TESTS is set, but the tests do not run as root"
    );
    eprintln!("{test}: not root, its root checks are skipped");
    false
}

/// The value of `name:` in `/proc/self/status` as the program printed it.
fn status_field<'a>(out: &'a str, name: &str) -> &'a str {
    out.lines()
        .find_map(|line| line.strip_prefix(name))
        .map(str::trim)
        .unwrap_or_else(|| panic!("no {name} in {out}"))
}

#[tokio::test]
async fn programs_have_no_capabilities_and_are_not_root() {
    let as_root = root("programs_have_no_capabilities_and_are_not_root");
    let place = place();
    let script = "grep -E '^(Cap|NoNewPrivs)' /proc/self/status; echo uid: $(id -u); \
                  echo written > mine.txt && echo wrote";
    for mechanism in mechanisms() {
        let how = mechanism.describe();
        let done = run_with(
            &mechanism,
            &sh(&place, script, 30),
            &CancellationToken::new(),
        )
        .await
        .unwrap();
        let out = done.stdout.text();
        for set in ["CapInh:", "CapPrm:", "CapEff:", "CapAmb:"] {
            assert_eq!(status_field(&out, set), "0000000000000000", "{how}: {out}");
        }
        assert_eq!(status_field(&out, "NoNewPrivs:"), "1", "{how}: {out}");
        // The workspace stays the program's to write.
        assert!(out.contains("wrote"), "{how}: {out} {}", done.stderr.text());
        if as_root {
            assert_eq!(
                status_field(&out, "CapBnd:"),
                "0000000000000000",
                "{how}: {out}"
            );
            let user = program_user().unwrap();
            assert_ne!(user.uid, 0);
            assert_eq!(status_field(&out, "uid:"), user.uid.to_string(), "{how}");
        }
    }
}

/// What the review planted: an API key in the app's environment, and a
/// secret on another process's command line (an MCP server's argument,
/// `colmena serve --store postgres://…:pw@`).
const PLANTED_KEY: &str = "sk-planted-should-not-leak";
const PLANTED_ARGV: &str = "--api-key=SECRET_ARGV_abc123";

/// Kills the process when the test ends, passed or not.
struct Holder(std::process::Child);

impl Drop for Holder {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn the_apps_environment_and_other_command_lines_are_out_of_reach() {
    // A test may not change its own environment: it runs itself again with
    // the key planted.
    if std::env::var_os("OPENAI_API_KEY").as_deref() != Some(OsStr::new(PLANTED_KEY)) {
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "sandbox::tests::privileges::the_apps_environment_and_other_command_lines_are_out_of_reach",
                "--nocapture",
            ])
            .env("OPENAI_API_KEY", PLANTED_KEY)
            .status()
            .unwrap();
        assert!(status.success(), "the run with a planted key failed");
        return;
    }
    let as_root = root("the_apps_environment_and_other_command_lines_are_out_of_reach");
    let _holder = Holder(
        std::process::Command::new("python3")
            .args(["-c", "import time; time.sleep(600)", PLANTED_ARGV])
            .spawn()
            .unwrap(),
    );
    let host_pids = std::fs::read_link("/proc/self/ns/pid").unwrap();
    let script = "for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ; tr '\\0' ' ' < $p/cmdline; \
                  echo; done 2>/dev/null; echo pid-namespace: $(readlink /proc/self/ns/pid)";
    let place = place();
    for mechanism in mechanisms() {
        let how = mechanism.describe();
        let done = run_with(
            &mechanism,
            &sh(&place, script, 30),
            &CancellationToken::new(),
        )
        .await
        .unwrap();
        let out = done.stdout.text();
        assert!(
            !out.contains(PLANTED_KEY),
            "{how}: the app's key leaked: {out}"
        );
        let namespace = status_field(&out, "pid-namespace:");
        assert!(namespace.starts_with("pid:["), "{how}: {out}");
        let own_namespace = Path::new(namespace) != host_pids.as_path();
        if as_root {
            assert!(own_namespace, "{how}: no PID namespace of its own: {out}");
        }
        if own_namespace {
            assert!(
                !out.contains("SECRET_ARGV"),
                "{how}: an argument leaked: {out}"
            );
        } else {
            eprintln!("{how}: this user gets no PID namespace here; /proc is the host's");
        }
    }
}

/// Socket families and types the filter refuses (each with EPERM, whoever
/// runs it), and the plain TCP socket it allows.
const SOCKETS: &str = r#"
import socket
tries = [
    ("packet", socket.AF_PACKET, socket.SOCK_RAW, 768),
    ("raw4", socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP),
    ("raw6", socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6),
    ("sock_packet", socket.AF_INET, 10, 768),
    ("netlink", socket.AF_NETLINK, socket.SOCK_RAW, 0),
    ("unix", socket.AF_UNIX, socket.SOCK_STREAM, 0),
]
for name, family, kind, proto in tries:
    try:
        socket.socket(family, kind, proto).close()
        print(name, "OPENED")
    except OSError as e:
        print(name, "refused", e.errno)
socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
print("tcp opened")
"#;

#[tokio::test]
async fn raw_packet_and_netlink_sockets_are_refused() {
    let place = place();
    for mechanism in mechanisms() {
        let said = python(&mechanism, &place, SOCKETS, true).await;
        for name in ["packet", "raw4", "raw6", "sock_packet", "netlink", "unix"] {
            assert!(
                said.contains(&format!("{name} refused 1\n")),
                "{mechanism:?}: {name}: {said}"
            );
        }
        assert!(said.contains("tcp opened"), "{mechanism:?}: {said}");
    }
}

/// The refused calls, made directly (x86_64 numbers): each fails with
/// EPERM. `unshare(0)` and `keyctl` would succeed without the filter,
/// whoever runs them. A FIFO may still be made.
#[cfg(target_arch = "x86_64")]
const DENIED_CALLS: &str = r#"
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
calls = [
    ("ptrace", 101, 16, os.getpid(), 0, 0),
    ("process_vm_readv", 310, 1, 0, 0, 0, 0, 0),
    ("keyctl", 250, 0, -1, 0),
    ("bpf", 321, 0, 0, 0),
    ("perf_event_open", 298, 0, 0, -1, -1, 0),
    ("init_module", 175, 0, 0, 0),
    ("finit_module", 313, -1, 0, 0),
    ("unshare", 272, 0),
    ("mount", 165, 0, 0, 0, 0, 0),
    ("mknodat_char", 259, -100, "dev-node", 0o20644, 259),
]
for name, number, *args in calls:
    args = [ctypes.c_char_p(a.encode()) if isinstance(a, str) else ctypes.c_long(a) for a in args]
    result = libc.syscall(ctypes.c_long(number), *args)
    print(name, result, ctypes.get_errno() if result == -1 else 0)
os.mkfifo("fifo")
print("fifo made")
"#;

#[cfg(target_arch = "x86_64")]
#[tokio::test]
async fn the_refused_calls_fail_with_eperm() {
    let place = place();
    for mechanism in mechanisms() {
        let said = python(&mechanism, &place, DENIED_CALLS, true).await;
        for name in [
            "ptrace",
            "process_vm_readv",
            "keyctl",
            "bpf",
            "perf_event_open",
            "init_module",
            "finit_module",
            "unshare",
            "mount",
            "mknodat_char",
        ] {
            assert!(
                said.contains(&format!("{name} -1 1\n")),
                "{mechanism:?}: {name}: {said}"
            );
        }
        assert!(said.contains("fifo made"), "{mechanism:?}: {said}");
        let _ = std::fs::remove_file(place.workspace.join("fifo"));
    }
}

/// A descriptor the app inherited without close-on-exec (here: a file of
/// the data dir, opened by the test process and left inheritable) never
/// reaches the program: the launcher closes everything above standard
/// error before the program starts (found in the attacker's re-review).
#[tokio::test]
async fn descriptors_the_app_inherited_do_not_reach_the_program() {
    use std::os::fd::AsRawFd;
    let place = place();
    let secret = std::fs::File::open(place.data.join("master.key")).unwrap();
    rustix::io::fcntl_setfd(&secret, rustix::io::FdFlags::empty()).unwrap();
    let code = format!(
        "import os\n\
         try:\n\
         \x20   print('READ', os.read({fd}, 100))\n\
         except OSError as e:\n\
         \x20   print('closed', e.errno)\n",
        fd = secret.as_raw_fd()
    );
    for mechanism in mechanisms() {
        let said = python(&mechanism, &place, &code, false).await;
        assert!(
            !said.contains("TOP-SECRET") && !said.contains("READ") && said.contains("closed 9"),
            "{}: {said}",
            mechanism.describe()
        );
    }
}
