//! The body of `colmena-sandbox` (compiled only into that binary).
//!
//! Why a launcher: limits and Landlock must be applied by the process that
//! will run the program, between `fork` and `exec`. Doing that in the app
//! would need `pre_exec`, which is `unsafe` and not async-signal-safe in a
//! multithreaded tokio process. Instead the app starts this small,
//! single-threaded program (already in its own process group, with a
//! cleared environment and the workspace as its working folder); it limits
//! *itself* — resource limits, then a Landlock ruleset, then a syscall
//! filter — and then `exec`s the program, which inherits every restriction
//! and can never lift them.
//!
//! The syscall filter (seccomp, on Linux, under both mechanisms) closes what
//! the others leave open:
//! - **Unix sockets** (`socket(AF_UNIX)`): Landlock confines connecting to
//!   one by path only from ABI 9 (Linux 7.1), and bubblewrap shares the
//!   host's abstract sockets; through them a program could reach the user's
//!   session bus (`systemd-run --user` runs anything outside the sandbox),
//!   ssh-agent, gpg-agent, Docker or the display. `socketpair` stays allowed;
//! - **leaving the process group** (`setsid`, `setpgid`): the group is what
//!   is killed when the call ends;
//! - **io_uring**, which can open sockets without the `socket` call;
//! - with `--no-network` (the git tools), every socket.
//!
//! With `--supervise` (the user's MCP servers) it does not become the
//! program: it runs it as a child and watches it and the app, so that
//! nothing the program starts outlives either — see `supervisor.rs`.
//!
//! It refuses to run the program when it cannot confine it: exit status
//! [`SETUP_FAILED`](crate::protocol::SETUP_FAILED) and a message on
//! standard error that starts with
//! [`ERROR_PREFIX`](crate::protocol::ERROR_PREFIX).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::protocol as p;

/// What the command line asks for.
struct Plan {
    supervise: bool,
    /// With `supervise`: the app's process id, as the app says.
    parent: Option<u32>,
    landlock: bool,
    no_network: bool,
    read: Vec<PathBuf>,
    write: Vec<PathBuf>,
    limits: Vec<(String, u64)>,
    program: OsString,
    args: Vec<OsString>,
}

fn parse(mut args: impl Iterator<Item = OsString>) -> Result<Plan, String> {
    let mut plan = Plan {
        supervise: false,
        parent: None,
        landlock: false,
        no_network: false,
        read: Vec::new(),
        write: Vec::new(),
        limits: Vec::new(),
        program: OsString::new(),
        args: Vec::new(),
    };
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy();
        match text.as_ref() {
            p::SUPERVISE => plan.supervise = true,
            p::PARENT => {
                let pid = args.next().ok_or("--parent needs a process id")?;
                let pid = pid.to_string_lossy();
                let pid = pid
                    .parse()
                    .map_err(|_| format!("--parent: '{pid}' is not a process id"))?;
                plan.parent = Some(pid);
            }
            p::LANDLOCK => plan.landlock = true,
            p::NO_NETWORK => plan.no_network = true,
            p::READ => plan
                .read
                .push(args.next().ok_or("--ro needs a path")?.into()),
            p::WRITE => plan
                .write
                .push(args.next().ok_or("--rw needs a path")?.into()),
            p::LIMIT => {
                let value = args.next().ok_or("--limit needs NAME=N")?;
                let value = value.to_string_lossy();
                let (name, n) = value.split_once('=').ok_or("--limit needs NAME=N")?;
                if !p::LIMITS.contains(&name) {
                    return Err(format!("unknown limit '{name}'"));
                }
                let n = n
                    .parse()
                    .map_err(|_| format!("--limit {name}: '{n}' is not a number"))?;
                plan.limits.push((name.to_owned(), n));
            }
            p::END => {
                plan.program = args.next().ok_or("no program after --")?;
                plan.args = args.collect();
                if plan.parent.is_some() && !plan.supervise {
                    return Err("--parent needs --supervise".into());
                }
                return Ok(plan);
            }
            other => return Err(format!("unknown option '{other}'")),
        }
    }
    Err("no program (expected -- PROGRAM ARG…)".into())
}

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
    if let Err(e) = limit(&plan.limits) {
        return fail(&e);
    }
    if plan.landlock
        && let Err(e) = confine(&plan)
    {
        return fail(&e);
    }
    // A supervised program is the person's own (an MCP server they
    // configured): filtered only when the app asks for confinement.
    if (!plan.supervise || plan.landlock || plan.no_network)
        && let Err(e) = filter_syscalls(plan.no_network)
    {
        return fail(&e);
    }
    if plan.supervise {
        return crate::supervisor::run(&plan.program, &plan.args, plan.parent);
    }
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

#[cfg(not(unix))]
pub fn main() -> ExitCode {
    fail("this system has no sandbox for programs run by agents")
}

#[cfg(unix)]
fn limit(limits: &[(String, u64)]) -> Result<(), String> {
    use rustix::process::{Resource, Rlimit, setrlimit};
    // No core dumps: they would write the program's memory into the workspace.
    let mut all = vec![(Resource::Core, 0)];
    for (name, n) in limits {
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
fn confine(plan: &Plan) -> Result<(), String> {
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
fn confine(_plan: &Plan) -> Result<(), String> {
    Err("Landlock exists only on Linux; the program was not run".into())
}

/// The syscall filter of the module docs: the listed calls fail with
/// `EPERM`, everything else is allowed. A call made through another
/// architecture's table (32-bit calls on a 64-bit kernel) kills the
/// program; x32 numbers are listed too.
#[cfg(target_os = "linux")]
fn filter_syscalls(no_network: bool) -> Result<(), String> {
    use std::collections::BTreeMap;

    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule, TargetArch,
    };

    let why = |e: seccompiler::Error| format!("cannot set up the syscall filter: {e}");
    let backend = |e: seccompiler::BackendError| format!("cannot set up the syscall filter: {e}");
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(backend)?;
    let unix = u64::try_from(libc::AF_UNIX).map_err(|e| e.to_string())?;
    // No condition: every socket; else only Unix ones.
    let sockets = if no_network {
        Vec::new()
    } else {
        vec![
            SeccompRule::new(vec![
                SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, unix)
                    .map_err(backend)?,
            ])
            .map_err(backend)?,
        ]
    };
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let mut deny = |number: i64, when: Vec<SeccompRule>| {
        // x32 calls are x86_64 calls with this bit set.
        if arch == TargetArch::x86_64 {
            rules.insert(number | 0x4000_0000, when.clone());
        }
        rules.insert(number, when);
    };
    deny(libc::SYS_socket, sockets);
    for number in [
        libc::SYS_setsid,
        libc::SYS_setpgid,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
    ] {
        deny(number, Vec::new());
    }
    let eperm = u32::try_from(libc::EPERM).map_err(|e| e.to_string())?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(eperm),
        arch,
    )
    .map_err(backend)?;
    let program = BpfProgram::try_from(filter).map_err(backend)?;
    seccompiler::apply_filter(&program).map_err(why)
}

#[cfg(all(unix, not(target_os = "linux")))]
fn filter_syscalls(_no_network: bool) -> Result<(), String> {
    Ok(())
}
