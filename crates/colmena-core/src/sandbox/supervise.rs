//! The app's side of supervised programs (the user's MCP servers,
//! command-woken roles): the command that starts one under
//! `colmena-sandbox --supervise`, the start ([`spawn_supervised`]: on
//! Windows the launcher enters a Job Object first), and the kill that ends
//! its whole tree. What the launcher does is in `supervisor.rs` (Unix) and
//! `launcher.rs` (Windows); the tree per OS in `group.rs`.
//!
//! Unlike `cli_exec`, the program is the person's own choice, so it gets
//! their environment (`PATH` to find `npx`, `HOME` for its caches) — minus
//! Colmena's own `COLMENA_*` variables (a data dir, a token: this process's
//! business, not a third-party package's) — plus what its configuration
//! adds. Its name is looked up on `PATH` here, before anything starts, so a
//! missing `npx` is a clear error rather than a launcher that exits 127.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::json;
use tokio::process::{Child, Command};

use super::{group, mechanism, protocol as p};
use crate::error::{AppError, Result};

/// A command for `program args…` under the supervising launcher (start it
/// with [`spawn_supervised`]): its own process group (the launcher leads
/// it; on Windows its own Job Object), stdin, stdout and stderr piped,
/// this process's environment without `COLMENA_*` and with `env` on top,
/// `cwd` as its folder (else this process's).
///
/// The launcher's exit status is the program's (its code, or 128 + the
/// signal that killed it), and once the launcher has exited nothing the
/// program started is alive (Windows: once [`release_group`] has closed
/// its job). If this process dies, the launcher kills the group within a
/// quarter of a second (Windows: the system closes the job's handle, and
/// the job kills the tree). `kill_on_drop` kills only the
/// launcher; its watchdog then kills the group — call [`kill_group`] with
/// the child's id to end everything at once.
pub fn supervised_command(
    program: &str,
    args: &[String],
    env: &[(String, String)],
    cwd: Option<&Path>,
) -> Result<Command> {
    check(program, args, env)?;
    let path = env
        .iter()
        .rev()
        .find(|(name, _)| name == "PATH")
        .map(|(_, value)| value.into())
        .or_else(|| std::env::var_os("PATH"));
    let resolved = resolve(program, path.as_deref(), cwd)?;
    let launcher = mechanism::launcher()?;
    let mut command = Command::new(launcher);
    command
        .arg(p::SUPERVISE)
        .arg(p::PARENT)
        .arg(std::process::id().to_string())
        .arg(p::END)
        .arg(resolved)
        .args(args);
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("COLMENA_") {
            command.env_remove(name);
        }
    }
    command.envs(env.iter().map(|(name, value)| (name, value)));
    if let Some(dir) = cwd {
        command.current_dir(dir);
    }
    #[cfg(unix)]
    command.process_group(0);
    // No console window flashing up for a program the app starts.
    #[cfg(windows)]
    command.creation_flags(CREATE_NO_WINDOW);
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    Ok(command)
}

/// Windows' `CREATE_NO_WINDOW` process creation flag.
#[cfg(windows)]
pub(super) const CREATE_NO_WINDOW: u32 = 0x0800_0000;

/// What a supervised program's standard input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// A pipe the caller writes to (`child.stdin`): MCP over stdio.
    Piped,
    /// Nothing: the program reads end-of-file at once.
    Closed,
}

/// Starts a [`supervised_command`]. Unix: the launcher leads its process
/// group from its first instruction. Windows: the launcher is put in a Job
/// Object that only this process holds, and only then told to start the
/// program (one byte on its standard input), so nothing the program starts
/// is ever outside the job. Once the launcher has exited, call
/// [`release_group`].
pub async fn spawn_supervised(command: &mut Command, input: Input) -> std::io::Result<Child> {
    spawn_limited(command, input, &colmena_win32::JobLimits::tree_only()).await
}

/// [`spawn_supervised`] with `limits` on the tree (Windows: its job's; on
/// Unix the launcher sets its own limits from its arguments).
pub(super) async fn spawn_limited(
    command: &mut Command,
    input: Input,
    limits: &colmena_win32::JobLimits,
) -> std::io::Result<Child> {
    #[cfg(not(windows))]
    {
        let _ = limits;
        if input == Input::Closed {
            command.stdin(Stdio::null());
        }
        command.spawn()
    }
    #[cfg(windows)]
    {
        use tokio::io::AsyncWriteExt;
        command.stdin(Stdio::piped());
        let mut child = command.spawn()?;
        let id = child.id();
        let told = async {
            group::adopt(&child, limits)?;
            let mut stdin = child
                .stdin
                .take()
                .ok_or_else(|| std::io::Error::other("the launcher's stdin is not a pipe"))?;
            stdin.write_all(&[p::GO]).await?;
            stdin.flush().await?;
            Ok::<_, std::io::Error>(stdin)
        }
        .await;
        match told {
            Ok(stdin) => {
                if input == Input::Piped {
                    child.stdin = Some(stdin);
                }
                Ok(child)
            }
            Err(e) => {
                if let Some(id) = id {
                    group::kill(id);
                }
                let _ = child.start_kill();
                Err(e)
            }
        }
    }
}

/// Ends the whole tree of the supervised program whose launcher is
/// `leader` (its pid): the launcher, the program and everything it
/// started (Unix: SIGKILL to the process group; Windows: its Job Object
/// closed). A tree that is already gone is fine.
pub fn kill_group(leader: u32) {
    group::kill(leader);
}

/// The launcher `leader` has exited. Unix: nothing (it ended everything
/// before it exited, and its id may be reused). Windows: what the program
/// left running ends with its Job Object, whose handle is freed.
pub fn release_group(leader: u32) {
    group::release(leader);
}

/// What the operating system would refuse with a less clear message.
fn check(program: &str, args: &[String], env: &[(String, String)]) -> Result<()> {
    if program.trim().is_empty() {
        return Err(AppError::invalid_field(
            "command",
            "empty",
            "the program to start is empty",
        ));
    }
    if program.contains('\0') || args.iter().any(|a| a.contains('\0')) {
        return Err(AppError::invalid_field(
            "command",
            "nul_byte",
            "the program or an argument contains a NUL character",
        ));
    }
    for (name, value) in env {
        if name.is_empty() || name.contains(['=', '\0']) || value.contains('\0') {
            return Err(AppError::invalid_field(
                "env",
                "invalid_variable",
                format!("'{name}' is not a valid environment variable (empty, or with '=' or NUL)"),
            ));
        }
    }
    Ok(())
}

/// `program` as a path: as given when it has a `/` (relative to `cwd`),
/// else the first runnable file of that name in the folders of `path`.
pub(super) fn resolve(program: &str, path: Option<&OsStr>, cwd: Option<&Path>) -> Result<PathBuf> {
    let base = || {
        cwd.map(Path::to_path_buf)
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_default()
    };
    let anchored = |p: PathBuf| if p.is_relative() { base().join(p) } else { p };
    if program.contains('/') || (cfg!(windows) && program.contains('\\')) {
        let candidate = anchored(PathBuf::from(program));
        return if runnable(&candidate) {
            Ok(candidate)
        } else {
            Err(not_found(
                program,
                format!(
                    "cannot start '{program}': {} is not a program that can run",
                    candidate.display()
                ),
            ))
        };
    }
    let dirs: Vec<PathBuf> = path
        .map(|p| std::env::split_paths(p).collect())
        .unwrap_or_default();
    let names = file_names(program);
    dirs.iter()
        .filter(|dir| !dir.as_os_str().is_empty())
        .flat_map(|dir| names.iter().map(move |name| anchored(dir.join(name))))
        .find(|candidate| runnable(candidate))
        .ok_or_else(|| {
            let folders = path.map(|p| p.to_string_lossy().into_owned());
            not_found(
                program,
                format!(
                    "cannot start '{program}': it is not in any folder of PATH ({}); \
                     install it, or give its full path",
                    folders.as_deref().unwrap_or("PATH is not set")
                ),
            )
        })
}

/// The names `program` may have on disk. Windows, as its shell finds
/// them: each of `PATHEXT`'s extensions added (`npx` is `npx.cmd` there),
/// and the name as given only when it has an extension of its own (next to
/// `npx.cmd` lies `npx`, a POSIX shell script Windows cannot run).
fn file_names(program: &str) -> Vec<String> {
    if !cfg!(windows) {
        return vec![program.to_owned()];
    }
    let mut names = Vec::new();
    if Path::new(program).extension().is_some() {
        names.push(program.to_owned());
    }
    let extensions = std::env::var("PATHEXT").unwrap_or_else(|_| ".COM;.EXE;.BAT;.CMD".to_owned());
    names.extend(
        extensions
            .split(';')
            .filter(|e| e.starts_with('.') && e.len() > 1)
            .map(|e| format!("{program}{}", e.to_ascii_lowercase())),
    );
    names
}

fn not_found(program: &str, message: String) -> AppError {
    AppError::precondition(message)
        .with_details(json!({ "reason": "program_not_found", "program": program }))
}

/// A file (links followed) someone may execute.
#[cfg(unix)]
fn runnable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn runnable(path: &Path) -> bool {
    path.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn a_program_is_found_on_the_path_given_and_refused_when_missing() {
        let dir = tempfile::tempdir().unwrap();
        let tool = dir.path().join("my-tool");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        let plain = dir.path().join("not-runnable");
        std::fs::write(&plain, "data").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let path =
            std::env::join_paths(["/nonexistent-dir", dir.path().to_str().unwrap()]).unwrap();
        assert_eq!(resolve("my-tool", Some(&path), None).unwrap(), tool);
        // Relative to the folder the program will run in.
        assert_eq!(
            resolve("./my-tool", None, Some(dir.path())).unwrap(),
            dir.path().join("./my-tool")
        );
        for (program, path) in [
            ("no-such-tool", Some(path.as_os_str())),
            ("my-tool", None),
            ("not-runnable", Some(path.as_os_str())),
        ] {
            let e = resolve(program, path, Some(dir.path())).unwrap_err();
            assert_eq!(e.code, ErrorCode::Precondition, "{program}");
            assert_eq!(e.details.as_ref().unwrap()["reason"], "program_not_found");
        }
    }

    #[test]
    fn malformed_input_is_refused_before_anything_starts() {
        let ok = vec![("A".to_owned(), "1".to_owned())];
        assert!(check("sh", &[], &ok).is_ok());
        for (program, args, env) in [
            (" ", vec![], ok.clone()),
            ("sh", vec!["a\0b".to_owned()], ok.clone()),
            ("sh", vec![], vec![("A=B".to_owned(), "1".to_owned())]),
            ("sh", vec![], vec![(String::new(), "1".to_owned())]),
        ] {
            let e = check(program, &args, &env).unwrap_err();
            assert_eq!(e.code, ErrorCode::Validation, "{program} {args:?} {env:?}");
        }
    }
}
