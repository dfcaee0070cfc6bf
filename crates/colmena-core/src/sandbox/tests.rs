//! The attacks the sandbox exists for, each one run for real: a program
//! that leaves a process behind, floods its output, reads the app's
//! environment, or reads the data dir (the store, the master key). What a
//! program run as root could do besides is in `tests/privileges.rs`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::*;
use crate::error::ErrorCode;

mod egress;
mod privileges;

/// A data dir with a store and a key file, and an agent workspace in it.
struct Place {
    _dir: tempfile::TempDir,
    data: PathBuf,
    workspace: PathBuf,
}

fn place() -> Place {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let workspace = data.join("workspaces").join("agent-1");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::write(data.join("master.key"), "TOP-SECRET-KEY").unwrap();
    std::fs::write(data.join("colmena.db"), "TOP-SECRET-STORE").unwrap();
    let data = data.canonicalize().unwrap();
    let workspace = workspace.canonicalize().unwrap();
    Place {
        _dir: dir,
        data,
        workspace,
    }
}

fn sh(place: &Place, script: &str, timeout: u64) -> Job {
    Job::new(
        &place.workspace,
        "sh",
        vec!["-c".into(), script.into()],
        Duration::from_secs(timeout),
    )
}

/// Every mechanism this machine has (Landlock and/or bubblewrap).
fn mechanisms() -> Vec<Mechanism> {
    let mut all = Vec::new();
    if mechanism::landlock_available() {
        all.push(Mechanism::Landlock);
    }
    if let Some(bwrap) = mechanism::bubblewrap() {
        all.push(Mechanism::Bubblewrap(bwrap));
    }
    assert!(
        !all.is_empty(),
        "this machine has neither Landlock nor bubblewrap"
    );
    all
}

/// Alive and not a zombie.
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let state = stat.rsplit_once(')')?.1.trim_start().chars().next()?;
            Some(state != 'Z' && state != 'X')
        })
        .unwrap_or(false)
}

/// A hang guard, not a timing claim: how long a test waits for something
/// that must happen before it gives up.
const PATIENCE: Duration = Duration::from_secs(60);

async fn wait_for_file(path: &Path) -> String {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && text.ends_with('\n')
        {
            return text.trim().to_owned();
        }
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits (up to [`PATIENCE`]) until `done` holds; whether it did.
async fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + PATIENCE;
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    done()
}

#[test]
fn with_neither_landlock_nor_bubblewrap_programs_are_refused() {
    let why = mechanism::choose(false, None).unwrap_err();
    assert!(
        why.contains("bubblewrap") && why.contains("Landlock"),
        "{why}"
    );
    assert_eq!(mechanism::choose(true, None), Ok(Mechanism::Landlock));
    assert_eq!(
        mechanism::choose(false, Some("/usr/bin/bwrap".into())),
        Ok(Mechanism::Bubblewrap("/usr/bin/bwrap".into()))
    );
}

#[test]
fn this_machine_confines_programs() {
    let found = mechanism::detect().unwrap();
    if cfg!(target_os = "linux") && mechanism::landlock_available() {
        assert_eq!(found, Mechanism::Landlock);
    }
    eprintln!("programs run under {}", found.describe());
}

#[tokio::test]
async fn cancel_kills_the_whole_group_with_what_it_put_in_the_background() {
    for mechanism in mechanisms() {
        let place = place();
        let job = sh(&place, "sleep 999 & echo started > bg.txt; wait", 120);
        let cancel = CancellationToken::new();
        let running = {
            let (job, cancel, mechanism) = (job.clone(), cancel.clone(), mechanism.clone());
            tokio::spawn(async move { run_with(&mechanism, &job, &cancel).await })
        };
        wait_for_file(&place.workspace.join("bg.txt")).await;
        // Programs run in a PID namespace of their own (bubblewrap's, or
        // the launcher's): the ids they see are not this process's, so
        // the check is by the command line.
        assert!(
            eventually(|| sleep_running("999")).await,
            "the background sleep never ran under {}",
            mechanism.describe()
        );
        cancel.cancel();
        // A hang guard, not a timing claim: the job's own limit is 120 s.
        let err = tokio::time::timeout(PATIENCE, running)
            .await
            .expect("cancel returns before the job's time limit")
            .unwrap()
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Cancelled);
        // Killed processes are gone once reaped: wait for that.
        assert!(
            eventually(|| !sleep_running("999")).await,
            "a 'sleep 999' survived under {}",
            mechanism.describe()
        );
    }
}

/// True when some process runs `sleep SECONDS` (each test that starts one
/// uses its own number: tests run at the same time, each in its own
/// process).
fn sleep_running(seconds: &str) -> bool {
    let wanted = format!("sleep\0{seconds}\0");
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|pid| alive(pid))
        .any(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c == wanted.as_bytes())
        })
}

#[tokio::test]
async fn nothing_the_program_started_outlives_the_call() {
    let place = place();
    let done = run(
        &sh(&place, "sleep 998 & echo started > bg.txt", 120),
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(done.code, Some(0), "{}", done.stderr.text());
    // Ended by the program's exit, not by its time limit.
    assert_eq!(
        done.stopped, None,
        "the call waited for the background sleep"
    );
    assert_eq!(
        wait_for_file(&place.workspace.join("bg.txt")).await,
        "started"
    );
    assert!(
        eventually(|| !sleep_running("998")).await,
        "the background sleep survived the call"
    );
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

#[tokio::test]
async fn yes_is_cut_at_the_cap_with_memory_flat() {
    let place = place();
    let before = rss_kib();
    // The time limit is a hang guard: `yes` is stopped by the flood, and
    // `stopped` says which of the two ended it.
    let done = run(
        &Job::new(
            &place.workspace,
            "yes",
            Vec::new(),
            Duration::from_secs(600),
        ),
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(done.stopped, Some(Stop::Flood), "yes ran until the timeout");
    assert!(done.stdout.kept.len() <= OUTPUT_CAP);
    assert!(
        done.stdout.total >= FLOOD_LIMIT / 2,
        "{}",
        done.stdout.total
    );
    assert!(done.stdout.text().len() <= OUTPUT_CAP + 100);
    assert!(done.stdout.text().contains("[cut: the first"));
    let grown = rss_kib().saturating_sub(before);
    assert!(grown < 64 * 1024, "memory grew by {grown} KiB");
}

#[tokio::test]
async fn a_program_past_its_time_is_stopped() {
    let place = place();
    // Stopped by its limit (1 s), not ended by the program (`sleep 1000`).
    let done = run(&sh(&place, "sleep 1000", 1), &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(done.stopped, Some(Stop::Timeout));
    assert_eq!(done.code, None);
}

/// The variable this test plants in its own environment (by running itself
/// again as a child process, since a test may not change its own).
const SECRET: &str = "COLMENA_TEST_SECRET";

#[tokio::test]
async fn the_environment_is_an_allow_list() {
    if std::env::var_os(SECRET).is_none() {
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "sandbox::tests::the_environment_is_an_allow_list",
                "--nocapture",
            ])
            .env(SECRET, "s3cr3t-value")
            .env("OPENAI_API_KEY", "sk-should-not-leak")
            .env("COLMENA_DATA_DIR", "/should/not/leak")
            .status()
            .unwrap();
        assert!(status.success(), "the run with planted secrets failed");
    }
    for mechanism in mechanisms() {
        let place = place();
        let job = Job::new(&place.workspace, "env", Vec::new(), Duration::from_secs(20));
        let done = run_with(&mechanism, &job, &CancellationToken::new())
            .await
            .unwrap();
        let out = done.stdout.text();
        assert_eq!(done.code, Some(0), "{out} {}", done.stderr.text());
        assert!(
            !out.contains("s3cr3t") && !out.contains("sk-should"),
            "{out}"
        );
        let names: Vec<&str> = out
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(n, _)| n)
            .collect();
        // The proxy variables are the sandbox's own (its one way out).
        let proxy = format!("http://127.0.0.1:{}", protocol::PROXY_PORT);
        for name in ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"] {
            assert!(out.contains(&format!("{name}={proxy}\n")), "{out}");
        }
        for name in &names {
            assert!(
                [
                    "PATH",
                    "HOME",
                    "PWD",
                    "LANG",
                    "LC_ALL",
                    "TERM",
                    "TMPDIR",
                    "http_proxy",
                    "HTTP_PROXY",
                    "https_proxy",
                    "HTTPS_PROXY"
                ]
                .contains(name),
                "{name} leaked into the sandbox under {}",
                mechanism.describe()
            );
        }
        assert!(
            out.contains(&format!("HOME={}", place.workspace.display())),
            "{out}"
        );
        assert!(out.contains(&format!("PATH={}", env::PATH)), "{out}");
    }
}

#[tokio::test]
async fn the_data_dir_and_everything_outside_the_workspace_stay_out_of_reach() {
    for mechanism in mechanisms() {
        let place = place();
        let outside = place.data.parent().unwrap().join("outside.txt");
        std::fs::write(&outside, "OUTSIDE").unwrap();
        let escape = std::env::temp_dir().join(format!("colmena-escape-{}", uuid::Uuid::now_v7()));
        let script = format!(
            "cat ../../master.key; cat {key}; cat {db}; cat {outside}; ls {data}; \
             echo planted > {escape}; echo planted > ../../planted; \
             echo inside > inside.txt && cat inside.txt; \
             echo tmp > \"$TMPDIR/t\" && cat \"$TMPDIR/t\"; \
             test -r /etc/passwd && echo system-readable; \
             echo x > /etc/colmena-test 2>/dev/null || echo system-read-only",
            key = place.data.join("master.key").display(),
            db = place.data.join("colmena.db").display(),
            outside = outside.display(),
            data = place.data.display(),
            escape = escape.display(),
        );
        let done = run_with(
            &mechanism,
            &sh(&place, &script, 30),
            &CancellationToken::new(),
        )
        .await
        .unwrap();
        let (out, err) = (done.stdout.text(), done.stderr.text());
        let how = mechanism.describe();
        assert!(
            !out.contains("TOP-SECRET") && !out.contains("OUTSIDE"),
            "{how}: {out}"
        );
        assert!(
            !out.contains("colmena.db"),
            "{how}: the data dir was listed: {out}"
        );
        assert!(
            err.contains("Permission denied") || err.contains("No such file"),
            "{how}: {err}"
        );
        assert!(
            !escape.exists(),
            "{how}: a file was written outside the workspace"
        );
        assert!(
            !place.data.join("planted").exists(),
            "{how}: the data dir was written"
        );
        assert!(!Path::new("/etc/colmena-test").exists());
        for expected in ["inside", "tmp", "system-readable", "system-read-only"] {
            assert!(
                out.contains(expected),
                "{how}: '{expected}' missing: {out} / {err}"
            );
        }
    }
}

#[tokio::test]
async fn resource_limits_apply() {
    let place = place();
    let mut job = sh(
        &place,
        "ulimit -v; ulimit -t; head -c 3000000 /dev/zero > big; echo wrote",
        20,
    );
    job.limits.file_size = 1024 * 1024;
    let done = run(&job, &CancellationToken::new()).await.unwrap();
    let out = done.stdout.text();
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some((Limits::default().memory / 1024).to_string().as_str()),
        "{out}"
    );
    assert_eq!(lines.next(), Some("25"), "{out}");
    let size = std::fs::metadata(place.workspace.join("big"))
        .unwrap()
        .len();
    assert!(
        size <= 1024 * 1024,
        "a {size}-byte file was written past the limit"
    );
}

#[tokio::test]
async fn a_missing_program_is_an_answer_not_a_crash() {
    let place = place();
    let done = run(
        &Job::new(
            &place.workspace,
            "no-such-program-here",
            Vec::new(),
            Duration::from_secs(60),
        ),
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(done.code, Some(i32::from(protocol::EXEC_FAILED)));
    assert!(
        done.stderr
            .text()
            .contains("cannot run no-such-program-here")
    );
}

/// A Python one-liner run in the sandbox; its stdout.
async fn python(mechanism: &Mechanism, place: &Place, code: &str, network: bool) -> String {
    let mut job = Job::new(
        &place.workspace,
        "python3",
        vec!["-c".into(), code.into()],
        Duration::from_secs(30),
    );
    job.network = network;
    let done = run_with(mechanism, &job, &CancellationToken::new())
        .await
        .unwrap();
    format!("{}{}", done.stdout.text(), done.stderr.text())
}

/// The way out the file rules leave: a Unix socket outside the workspace
/// (the session bus, ssh-agent, Docker, the display) — by path or
/// abstract. Connecting is refused under every mechanism; pipes between
/// the program's own processes still work.
#[tokio::test]
async fn no_unix_socket_outside_is_reachable_and_socketpairs_still_work() {
    let outside = tempfile::tempdir().unwrap();
    let path = outside.path().join("agent.sock");
    let by_path = std::os::unix::net::UnixListener::bind(&path).unwrap();
    by_path.set_nonblocking(true).unwrap();
    let abstract_name = {
        use std::os::linux::net::SocketAddrExt;
        std::os::unix::net::SocketAddr::from_abstract_name(b"colmena-test-abstract").unwrap()
    };
    let abstract_listener = std::os::unix::net::UnixListener::bind_addr(&abstract_name).unwrap();
    abstract_listener.set_nonblocking(true).unwrap();
    let code = format!(
        "import socket\n\
         for target in [{path:?}, '\\0colmena-test-abstract']:\n\
         \x20   try:\n\
         \x20       s = socket.socket(socket.AF_UNIX)\n\
         \x20       s.connect(target)\n\
         \x20       print('CONNECTED', repr(target))\n\
         \x20   except OSError as e:\n\
         \x20       print('refused', e.errno)\n\
         a, b = socket.socketpair()\n\
         a.send(b'ok'); print('pair', b.recv(2))\n",
        path = path.display().to_string()
    );
    let place = place();
    for mechanism in mechanisms() {
        let said = python(&mechanism, &place, &code, true).await;
        assert!(!said.contains("CONNECTED"), "{mechanism:?}: {said}");
        // EPERM: the filter, not a missing file, refused it.
        assert_eq!(
            said.matches("refused 1\n").count(),
            2,
            "{mechanism:?}: {said}"
        );
        assert!(said.contains("pair b'ok'"), "{mechanism:?}: {said}");
        assert!(
            by_path.accept().is_err() && abstract_listener.accept().is_err(),
            "{mechanism:?}: a listener outside was reached"
        );
    }
}

/// A program cannot leave the process group that is killed when the call
/// ends (`setsid`, `setpgid`).
#[tokio::test]
async fn a_program_cannot_leave_its_process_group() {
    let place = place();
    let code = "import os\n\
                for name, call in [('setsid', os.setsid), ('setpgid', lambda: os.setpgid(0, 0))]:\n\
                \x20   try:\n\
                \x20       call(); print('LEFT', name)\n\
                \x20   except OSError as e:\n\
                \x20       print(name, 'refused', e.errno)\n";
    for mechanism in mechanisms() {
        let said = python(&mechanism, &place, code, true).await;
        assert!(!said.contains("LEFT"), "{mechanism:?}: {said}");
        assert!(
            said.contains("setsid refused") && said.contains("setpgid refused"),
            "{mechanism:?}: {said}"
        );
    }
}

/// A job without network (the git tools) opens no socket: a listener on
/// the host's loopback is never reached.
#[tokio::test]
async fn a_job_without_network_reaches_nothing() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let code = format!(
        "import socket\n\
         try:\n\
         \x20   socket.create_connection(('127.0.0.1', {port}), timeout=5); print('CONNECTED')\n\
         except OSError as e:\n\
         \x20   print('refused', e.errno)\n"
    );
    let place = place();
    for mechanism in mechanisms() {
        let said = python(&mechanism, &place, &code, false).await;
        assert!(said.contains("refused"), "{mechanism:?}: {said}");
        assert!(
            listener.accept().is_err(),
            "{mechanism:?}: the listener was reached"
        );
        // With network (cli_exec) it does not either: its network is a
        // namespace of its own, the proxy its way out (`tests/egress.rs`).
        let said = python(&mechanism, &place, &code, true).await;
        assert!(said.contains("refused"), "{mechanism:?}: {said}");
        assert!(
            listener.accept().is_err(),
            "{mechanism:?}: the listener was reached"
        );
    }
}
