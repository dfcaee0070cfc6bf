//! The body of `colmena-sandbox` (compiled only into that binary, with the
//! files in `launcher/`: its command line in `plan.rs`, the Linux steps in
//! the others).
//!
//! Why a launcher: limits and Landlock must be applied by the process that
//! will run the program, between `fork` and `exec`. Doing that in the app
//! would need `pre_exec`, which is `unsafe` and not async-signal-safe in a
//! multithreaded tokio process. Instead the app starts this small,
//! single-threaded program (already in its own process group, with a
//! cleared environment and the workspace as its working folder); it limits
//! *itself* and then `exec`s the program, which inherits every restriction
//! and can never lift them. In order:
//!
//! 1. with `--private-proc`, PID and mount namespaces of its own, so that
//!    `/proc` lists only the program's processes (`launcher/namespaces.rs`:
//!    the launcher then runs again inside them and stays as their first
//!    process); with `--proxy` a network namespace too, whose only way out
//!    is the app's proxy (`launcher/forward.rs`);
//! 2. with `--uid`: the workspace handed to that user
//!    (`launcher/hand_over.rs`) and the granted folders made reachable for
//!    it (`launcher/reach.rs`);
//! 3. resource limits, then the Landlock ruleset (its paths opened while
//!    still root);
//! 4. every privilege dropped: capabilities, the user switched from root,
//!    `no_new_privs` (`launcher/privileges.rs`);
//! 5. the syscall filter (`launcher/syscalls.rs`).
//!
//! It refuses to run a program as root: as root, the app names another
//! user (`--uid`, `--gid`), else the launcher exits with
//! [`SETUP_FAILED`](crate::protocol::SETUP_FAILED).
//!
//! With `--supervise` (the user's MCP servers) it does not become the
//! program: it runs it as a child and watches it and the app, so that
//! nothing the program starts outlives either — see `supervisor.rs`. Those
//! are the person's own programs and run as the app's user: only limits,
//! and Landlock and the filter when asked, apply to them.
//!
//! It refuses to run the program when it cannot confine it: exit status
//! [`SETUP_FAILED`](crate::protocol::SETUP_FAILED) and a message on
//! standard error that starts with
//! [`ERROR_PREFIX`](crate::protocol::ERROR_PREFIX).

use std::process::ExitCode;

#[cfg(unix)]
use crate::plan::{Plan, ProgramUser, parse};
use crate::protocol as p;

pub(crate) fn fail(message: &str) -> ExitCode {
    eprintln!("{}{message}", p::ERROR_PREFIX);
    ExitCode::from(p::SETUP_FAILED)
}

#[cfg(unix)]
pub fn main() -> ExitCode {
    use std::os::unix::process::CommandExt;

    let mut args = std::env::args_os().skip(1).peekable();
    if args.peek().is_some_and(|a| a == p::WATCHDOG) {
        return crate::supervisor::watchdog(args.nth(1));
    }
    let plan = match parse(args) {
        Ok(plan) => plan,
        Err(e) => return fail(&e),
    };
    if plan.supervise {
        return supervise(&plan);
    }
    let root = rustix::process::geteuid().is_root();
    if let Err(e) = check_user(&plan, root) {
        return fail(&e);
    }
    let (private_mounts, own_network) = match enter_namespaces(&plan, root) {
        #[cfg(target_os = "linux")]
        Ok(Stage::Ended(status)) => return status,
        Ok(Stage::Here {
            private_mounts,
            own_network,
        }) => (private_mounts, own_network),
        Err(e) => return fail(&e),
    };
    let forwarder = match open_forwarder(&plan, own_network) {
        Ok(forwarder) => forwarder,
        Err(e) => return fail(&e),
    };
    // `--proxy` without a namespace of its own: no network at all rather
    // than the host's.
    let no_network = plan.no_network || (plan.proxy.is_some() && !own_network);
    if plan.proxy.is_some() && !own_network {
        eprintln!(
            "{}this system gave the sandbox no network namespace of its own, so the program \
             runs without network (its address policy needs one)",
            p::ERROR_PREFIX
        );
    }
    if let Err(e) = confine(&plan, private_mounts, no_network) {
        return fail(&e);
    }
    #[cfg(target_os = "linux")]
    close_inherited(
        forwarder
            .as_ref()
            .map(|f| f.descriptors())
            .unwrap_or_default(),
    );
    #[cfg(target_os = "linux")]
    if plan.init || forwarder.is_some() {
        return crate::namespaces::run_program(&plan.program, &plan.args, forwarder);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = forwarder;
    // Only returns when the program could not be executed.
    let error = std::process::Command::new(&plan.program)
        .args(&plan.args)
        .exec();
    eprintln!(
        "{}cannot run {}: {error}",
        p::ERROR_PREFIX,
        plan.program.to_string_lossy()
    );
    ExitCode::from(p::EXEC_FAILED)
}

/// Windows: only `--supervise` (the person's own MCP servers and wake
/// commands, and the programs agents run, which the gate has had a person
/// approve). The app has put this launcher in a Job Object — with limits,
/// for an agent's program — before writing [`GO`](crate::protocol::GO) on
/// its standard input; the program, started only then, is born in the job
/// with everything it starts, and the app ends them all by closing the
/// job. The launcher reads that one byte unbuffered, so the rest of its
/// input is the program's; it exits with the program's exit code.
#[cfg(windows)]
pub fn main() -> ExitCode {
    use std::os::windows::process::CommandExt;

    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if args.first().is_none_or(|a| a != p::SUPERVISE) {
        return fail(
            "on Windows the launcher only runs the person's own programs (--supervise): \
             programs agents run have no sandbox here",
        );
    }
    let Some(end) = args.iter().position(|a| a == p::END) else {
        return fail("no program to run: '--' and the program are missing");
    };
    let Some(program) = args.get(end + 1) else {
        return fail("no program to run after '--'");
    };
    if let Err(e) = wait_for_go() {
        return fail(&format!("the app did not say to start: {e}"));
    }
    /// Windows' `CREATE_NO_WINDOW`: no console window of its own.
    const CREATE_NO_WINDOW: u32 = 0x0800_0000;
    match std::process::Command::new(program)
        .args(&args[end + 2..])
        .creation_flags(CREATE_NO_WINDOW)
        .status()
    {
        Ok(status) => std::process::exit(status.code().unwrap_or(1)),
        Err(error) => {
            eprintln!(
                "{}cannot run {}: {error}",
                p::ERROR_PREFIX,
                program.to_string_lossy()
            );
            ExitCode::from(p::EXEC_FAILED)
        }
    }
}

/// Reads the app's one byte from standard input without buffering more.
#[cfg(windows)]
fn wait_for_go() -> std::io::Result<()> {
    use std::io::Read;
    use std::os::windows::io::AsHandle;

    let mut input = std::fs::File::from(std::io::stdin().as_handle().try_clone_to_owned()?);
    let mut byte = [0u8; 1];
    input.read_exact(&mut byte)?;
    if byte[0] == p::GO {
        Ok(())
    } else {
        Err(std::io::Error::other(format!("it wrote {:#04x}", byte[0])))
    }
}

/// `--supervise`: the person's own program, as the app's user; limits, and
/// Landlock and the syscall filter only when the app asks for confinement.
#[cfg(unix)]
fn supervise(plan: &Plan) -> ExitCode {
    if let Err(e) = limit(&plan.limits) {
        return fail(&e);
    }
    if plan.landlock
        && let Err(e) = landlock(plan)
    {
        return fail(&e);
    }
    if (plan.landlock || plan.no_network)
        && let Err(e) = filter_syscalls(plan.no_network)
    {
        return fail(&e);
    }
    crate::supervisor::run(&plan.program, &plan.args, plan.parent)
}

/// A program never runs as root: as root the launcher needs another user to
/// switch to (the app passes one); as anyone else it cannot switch.
#[cfg(unix)]
fn check_user(plan: &Plan, root: bool) -> Result<(), String> {
    match (root, plan.user) {
        (true, None) => Err(
            "refusing to run a program as root: it would keep root's files and powers \
             (the app names another user with --uid and --gid when it runs as root)"
                .into(),
        ),
        (false, Some(_)) => Err("--uid needs the launcher to run as root".into()),
        _ => Ok(()),
    }
}

/// Where this process stands with respect to the namespaces of
/// `--private-proc`.
#[cfg(unix)]
enum Stage {
    /// The launcher ran again inside new namespaces and ended with this
    /// status: this process has nothing left to do (Linux: namespaces).
    #[cfg(target_os = "linux")]
    Ended(ExitCode),
    /// Confine this process and run the program from here.
    /// `private_mounts`: mounts made here never reach the host, so paths
    /// may be opened for the program's user (`launcher/reach.rs`).
    /// `own_network`: this process is in a network namespace of its own
    /// (made with the others, or by bubblewrap) for `--proxy`.
    Here {
        private_mounts: bool,
        own_network: bool,
    },
}

#[cfg(target_os = "linux")]
fn enter_namespaces(plan: &Plan, root: bool) -> Result<Stage, String> {
    use crate::namespaces;
    let proxy = plan.proxy.is_some();
    if !plan.private_proc {
        // Under bubblewrap, which made every namespace itself.
        return Ok(Stage::Here {
            private_mounts: false,
            own_network: proxy,
        });
    }
    if plan.init {
        // The first stage made a network namespace with the others.
        let private_mounts = namespaces::prepare_first_process(root, proxy)?;
        return Ok(Stage::Here {
            private_mounts,
            own_network: proxy,
        });
    }
    if namespaces::unshare_for_child(root, proxy)? {
        Ok(Stage::Ended(namespaces::start_first_process()))
    } else {
        // Refused (no user namespaces for this user, a container without
        // CAP_SYS_ADMIN): the host's /proc, as without the option, and no
        // network namespace.
        Ok(Stage::Here {
            private_mounts: false,
            own_network: false,
        })
    }
}

#[cfg(all(unix, not(target_os = "linux")))]
fn enter_namespaces(_plan: &Plan, _root: bool) -> Result<Stage, String> {
    Ok(Stage::Here {
        private_mounts: false,
        own_network: false,
    })
}

/// `--proxy` in a network namespace of its own: the listener inside and
/// the connection to the app (`launcher/forward.rs`), opened before
/// confinement.
#[cfg(target_os = "linux")]
fn open_forwarder(
    plan: &Plan,
    own_network: bool,
) -> Result<Option<crate::forward::Forwarder>, String> {
    match &plan.proxy {
        Some(socket) if own_network => crate::forward::Forwarder::open(socket).map(Some),
        _ => Ok(None),
    }
}

/// No network namespaces here: `--proxy` means no network.
#[cfg(all(unix, not(target_os = "linux")))]
fn open_forwarder(_plan: &Plan, _own_network: bool) -> Result<Option<()>, String> {
    Ok(None)
}

/// Closes every descriptor above standard error but `keep`: whatever the
/// app (or whoever started the app) left open without close-on-exec would
/// otherwise reach the program past Landlock and the switch of user — an
/// open root-only file, a socket (found in the attacker's re-review).
#[cfg(target_os = "linux")]
fn close_inherited(keep: [i32; 2]) {
    use rustix::process::{Resource, getrlimit};
    let limit = getrlimit(Resource::Nofile)
        .current
        .unwrap_or(65_536)
        .min(65_536);
    let limit = i32::try_from(limit).unwrap_or(65_536);
    for fd in 3..limit {
        if !keep.contains(&fd) {
            // EBADF for most: nothing is open there.
            let _ = nix::unistd::close(fd);
        }
    }
}

/// Steps 2 to 5 of the module docs, on this process.
#[cfg(unix)]
fn confine(plan: &Plan, private_mounts: bool, no_network: bool) -> Result<(), String> {
    if let Some(user) = plan.user {
        open_to(user, plan, private_mounts)?;
    }
    limit(&plan.limits)?;
    if plan.landlock {
        landlock(plan)?;
    }
    drop_privileges(plan.user)?;
    filter_syscalls(no_network)
}

/// Hands `--own` folders to `user` and makes every granted path reachable
/// for it.
#[cfg(target_os = "linux")]
fn open_to(user: ProgramUser, plan: &Plan, private_mounts: bool) -> Result<(), String> {
    use std::path::PathBuf;
    for dir in &plan.own {
        crate::hand_over::hand_over(dir, user)?;
    }
    let granted: Vec<PathBuf> = plan
        .own
        .iter()
        .chain(&plan.read)
        .chain(&plan.write)
        .cloned()
        .collect();
    crate::reach::make_reachable(&granted, user, private_mounts)
}

#[cfg(all(unix, not(target_os = "linux")))]
fn open_to(_user: ProgramUser, _plan: &Plan, _private_mounts: bool) -> Result<(), String> {
    Err("running programs as another user needs Linux; the program was not run".into())
}

#[cfg(target_os = "linux")]
fn drop_privileges(user: Option<ProgramUser>) -> Result<(), String> {
    crate::privileges::drop_all(user)
}

/// Not root (see [`check_user`]) and no capabilities to drop.
#[cfg(all(unix, not(target_os = "linux")))]
fn drop_privileges(_user: Option<ProgramUser>) -> Result<(), String> {
    Ok(())
}

#[cfg(target_os = "linux")]
fn filter_syscalls(no_network: bool) -> Result<(), String> {
    crate::syscalls::filter(no_network)
}

#[cfg(all(unix, not(target_os = "linux")))]
fn filter_syscalls(_no_network: bool) -> Result<(), String> {
    Ok(())
}

#[cfg(unix)]
fn limit(limits: &[(String, u64)]) -> Result<(), String> {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    // No core dumps: they would write the program's memory into the workspace.
    let mut all = vec![(Resource::Core, 0)];
    for (name, n) in limits {
        // macOS enforces no address-space limit (and some versions refuse
        // to set one): the memory limit is Linux's only (README, per OS).
        if cfg!(target_os = "macos") && name == "as" {
            continue;
        }
        let resource = match name.as_str() {
            "cpu" => Resource::Cpu,
            "as" => Resource::As,
            "fsize" => Resource::Fsize,
            "nproc" => Resource::Nproc,
            "nofile" => Resource::Nofile,
            other => return Err(format!("unknown limit '{other}'")),
        };
        all.push((resource, *n));
    }
    for (resource, n) in all {
        // Never above the system's own ceiling (raising it needs root: on
        // macOS a user's process ceiling is often below the processes limit).
        let n = getrlimit(resource)
            .maximum
            .map_or(n, |ceiling| n.min(ceiling));
        let new = Rlimit {
            current: Some(n),
            maximum: Some(n),
        };
        setrlimit(resource, new).map_err(|e| format!("cannot set the limit {resource:?}: {e}"))?;
    }
    Ok(())
}

/// Landlock: everything handled, read-only beneath `plan.read`, everything
/// beneath `plan.write`; no signals to, and no abstract sockets of,
/// processes outside the sandbox. ABI 6 (Linux 6.12: truncation, signals
/// and abstract sockets) is required — below it a program could truncate
/// any file of the user or signal every process of the session, so the
/// app uses bubblewrap there ([`MIN_ABI`]); what newer kernels add (Unix
/// sockets by path) is taken where it exists.
#[cfg(target_os = "linux")]
fn landlock(plan: &Plan) -> Result<(), String> {
    use landlock::{
        ABI, Access, AccessFs, CompatLevel, Compatible, RulesetAttr, RulesetCreatedAttr,
        RulesetStatus, Scope, path_beneath_rules,
    };
    let newest = ABI::V10;
    let status = landlock::Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(p::MIN_ABI))
        .and_then(|r| r.scope(Scope::from_all(p::MIN_ABI)))
        .map(|r| r.set_compatibility(CompatLevel::BestEffort))
        .and_then(|r| r.handle_access(AccessFs::from_all(newest)))
        .and_then(|r| r.create())
        .and_then(|r| r.add_rules(path_beneath_rules(&plan.read, AccessFs::from_read(newest))))
        .and_then(|r| r.add_rules(path_beneath_rules(&plan.write, AccessFs::from_all(newest))))
        .and_then(|r| r.restrict_self())
        .map_err(|e| format!("cannot set up Landlock: {e}"))?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err("Landlock is not enforced by this kernel; the program was not run".into());
    }
    Ok(())
}

#[cfg(all(unix, not(target_os = "linux")))]
fn landlock(_plan: &Plan) -> Result<(), String> {
    Err("Landlock exists only on Linux; the program was not run".into())
}
