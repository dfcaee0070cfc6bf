//! The command line that starts a program under a mechanism: the launcher
//! (limits, and Landlock), or `bwrap` around the launcher (limits only).

use std::ffi::OsString;
use std::path::Path;

use tokio::process::Command;

use super::mechanism::{DEVICES, Mechanism, SYSTEM_READ, exists};
use super::{Job, env, protocol as p};
use crate::error::Result;

/// The launcher's options for `job`'s limits (CPU time: its time limit and a
/// little more — the wall clock stops it first).
fn limits(job: &Job) -> Vec<OsString> {
    let l = &job.limits;
    let cpu = job.timeout.as_secs().saturating_add(5);
    [
        ("cpu", cpu),
        ("as", l.memory),
        ("fsize", l.file_size),
        ("nproc", l.processes),
        ("nofile", l.open_files),
    ]
    .iter()
    .flat_map(|(name, n)| {
        [
            OsString::from(p::LIMIT),
            OsString::from(format!("{name}={n}")),
        ]
    })
    .collect()
}

pub(super) fn build(
    mechanism: &Mechanism,
    launcher: &Path,
    job: &Job,
    tmp: &Path,
) -> Result<Command> {
    let mut args: Vec<OsString> = Vec::new();
    let no_network = (!job.network).then(|| OsString::from(p::NO_NETWORK));
    let mut command = match mechanism {
        Mechanism::Landlock => {
            args.push(p::LANDLOCK.into());
            args.extend(no_network);
            for dir in SYSTEM_READ.iter().map(Path::new).filter(|d| exists(d)) {
                args.extend([p::READ.into(), dir.into()]);
            }
            for dev in DEVICES.iter().map(Path::new).filter(|d| exists(d)) {
                args.extend([p::WRITE.into(), dev.into()]);
            }
            args.extend([p::WRITE.into(), job.workspace.clone().into()]);
            args.extend([p::WRITE.into(), tmp.into()]);
            args.extend(limits(job));
            Command::new(launcher)
        }
        Mechanism::Bubblewrap(bwrap) => {
            let bind = |flag: &str, path: &Path| -> [OsString; 3] {
                [flag.into(), path.into(), path.into()]
            };
            for flag in ["--die-with-parent", "--new-session", "--unshare-all"] {
                args.push(flag.into());
            }
            if job.network {
                args.push("--share-net".into());
            }
            for dir in SYSTEM_READ
                .iter()
                .map(Path::new)
                .filter(|d| *d != Path::new("/proc"))
            {
                args.extend(bind("--ro-bind-try", dir));
            }
            args.extend([
                "--proc".into(),
                "/proc".into(),
                "--dev".into(),
                "/dev".into(),
            ]);
            args.extend(["--tmpfs".into(), "/tmp".into()]);
            args.extend(bind("--bind", &job.workspace));
            args.extend(bind("--bind", tmp));
            args.extend(bind("--ro-bind", launcher));
            args.extend(["--chdir".into(), job.workspace.clone().into()]);
            args.extend([p::END.into(), launcher.into()]);
            args.extend(no_network);
            args.extend(limits(job));
            Command::new(bwrap)
        }
    };
    args.push(p::END.into());
    args.push(job.program.clone().into());
    args.extend(job.args.iter().map(OsString::from));
    command
        .args(args)
        .env_clear()
        .envs(env::allowed(&job.workspace, tmp, &job.env));
    Ok(command)
}
