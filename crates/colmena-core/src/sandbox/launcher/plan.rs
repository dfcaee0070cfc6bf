//! The launcher's command line, read (`protocol.rs` names the options;
//! the app writes them): what to run, how to confine it, and the checks
//! that refuse combinations that make no sense before anything happens.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::protocol as p;

/// The user and group a program runs as when the launcher starts as root
/// (`--uid`, `--gid`; never 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProgramUser {
    pub uid: u32,
    pub gid: u32,
}

/// What the command line asks for.
pub(crate) struct Plan {
    pub supervise: bool,
    /// With `supervise`: the app's process id, as the app says.
    pub parent: Option<u32>,
    pub landlock: bool,
    pub private_proc: bool,
    /// This launcher is the first process of the namespaces `private_proc`
    /// made (started by itself with `--init`).
    pub init: bool,
    pub no_network: bool,
    /// `--proxy`: the Unix socket of the app's proxy; the program's only
    /// network goes through it.
    pub proxy: Option<PathBuf>,
    pub user: Option<ProgramUser>,
    pub own: Vec<PathBuf>,
    pub read: Vec<PathBuf>,
    pub write: Vec<PathBuf>,
    pub limits: Vec<(String, u64)>,
    pub program: OsString,
    pub args: Vec<OsString>,
}

pub(crate) fn parse(mut args: impl Iterator<Item = OsString>) -> Result<Plan, String> {
    let mut plan = Plan {
        supervise: false,
        parent: None,
        landlock: false,
        private_proc: false,
        init: false,
        no_network: false,
        proxy: None,
        user: None,
        own: Vec::new(),
        read: Vec::new(),
        write: Vec::new(),
        limits: Vec::new(),
        program: OsString::new(),
        args: Vec::new(),
    };
    let (mut uid, mut gid) = (None, None);
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
            p::PRIVATE_PROC => plan.private_proc = true,
            p::INIT => plan.init = true,
            p::NO_NETWORK => plan.no_network = true,
            p::PROXY => {
                plan.proxy = Some(args.next().ok_or("--proxy needs a socket path")?.into());
            }
            p::UID => uid = Some(account_id(p::UID, args.next())?),
            p::GID => gid = Some(account_id(p::GID, args.next())?),
            p::OWN => plan
                .own
                .push(args.next().ok_or("--own needs a path")?.into()),
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
                plan.user = match (uid, gid) {
                    (Some(uid), Some(gid)) => Some(ProgramUser { uid, gid }),
                    (None, None) => None,
                    _ => return Err("--uid and --gid go together".into()),
                };
                check_combination(&plan)?;
                return Ok(plan);
            }
            other => return Err(format!("unknown option '{other}'")),
        }
    }
    Err("no program (expected -- PROGRAM ARG…)".into())
}

/// `--uid N`, `--gid N`: an id other than root's (and other than -1,
/// which the kernel reads as "unchanged").
fn account_id(option: &str, value: Option<OsString>) -> Result<u32, String> {
    let value = value.ok_or_else(|| format!("{option} needs a number"))?;
    let value = value.to_string_lossy();
    match value.parse::<u32>() {
        Ok(0) => Err(format!("{option} 0: a program never runs as root")),
        Ok(id) if id != u32::MAX => Ok(id),
        _ => Err(format!("{option}: '{value}' is not a user or group id")),
    }
}

/// Options that make no sense together.
fn check_combination(plan: &Plan) -> Result<(), String> {
    if plan.parent.is_some() && !plan.supervise {
        return Err("--parent needs --supervise".into());
    }
    if plan.supervise && (plan.user.is_some() || plan.private_proc) {
        return Err(
            "--supervise runs the person's own program as the app's user: \
             no --uid, --gid or --private-proc"
                .into(),
        );
    }
    if !plan.own.is_empty() && plan.user.is_none() {
        return Err("--own needs --uid and --gid".into());
    }
    if plan.proxy.is_some() && (plan.no_network || plan.supervise) {
        return Err("--proxy goes with neither --no-network nor --supervise".into());
    }
    if plan.init && !plan.private_proc {
        return Err("--init is the launcher's own, with --private-proc".into());
    }
    Ok(())
}
