//! The environment of a sandboxed program: an allow-list, built from
//! nothing. The app's own variables (`COLMENA_*`, provider keys, tokens,
//! `SSH_AUTH_SOCK`, the desktop session's) never reach it.

use std::path::Path;

/// The only `PATH` a sandboxed program sees: system folders only (and
/// Homebrew's on macOS, where `/usr/local` is Intel Homebrew's; Windows'
/// is built from where the system lives, see `system`).
#[cfg(not(any(target_os = "macos", windows)))]
pub(crate) const PATH: &str = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";
#[cfg(target_os = "macos")]
pub(crate) const PATH: &str = "/opt/homebrew/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";

/// Names a caller may add beyond the base set (the git tools' `GIT_*`).
/// The base set: where programs are, home and temporary folders, a plain
/// terminal and locale.
#[cfg(not(windows))]
fn system(workspace: &Path, tmp: &Path) -> Vec<(String, String)> {
    vec![
        ("PATH".to_owned(), PATH.to_owned()),
        ("HOME".to_owned(), workspace.display().to_string()),
        ("PWD".to_owned(), workspace.display().to_string()),
        ("LANG".to_owned(), "C.UTF-8".to_owned()),
        ("LC_ALL".to_owned(), "C.UTF-8".to_owned()),
        ("TERM".to_owned(), "dumb".to_owned()),
        ("TMPDIR".to_owned(), tmp.display().to_string()),
    ]
}

/// Windows: the system's folders (and Git for Windows' `cmd`, where the
/// git tools find `git`), what its programs expect to be set (`SystemRoot`,
/// `ComSpec`, `PATHEXT`), the workspace as the profile and home, the run's
/// temporary folder.
#[cfg(windows)]
fn system(workspace: &Path, tmp: &Path) -> Vec<(String, String)> {
    let root = std::env::var("SystemRoot").unwrap_or_else(|_| r"C:\Windows".to_owned());
    let programs = std::env::var("ProgramFiles").unwrap_or_else(|_| r"C:\Program Files".to_owned());
    let path = format!(r"{root}\system32;{root};{root}\System32\Wbem;{programs}\Git\cmd");
    let (workspace, tmp) = (workspace.display().to_string(), tmp.display().to_string());
    vec![
        ("PATH".to_owned(), path),
        ("SystemRoot".to_owned(), root.clone()),
        (
            "SystemDrive".to_owned(),
            std::env::var("SystemDrive").unwrap_or_else(|_| "C:".to_owned()),
        ),
        ("windir".to_owned(), root.clone()),
        ("ComSpec".to_owned(), format!(r"{root}\system32\cmd.exe")),
        ("PATHEXT".to_owned(), ".COM;.EXE;.BAT;.CMD".to_owned()),
        ("USERPROFILE".to_owned(), workspace.clone()),
        ("HOME".to_owned(), workspace),
        ("TEMP".to_owned(), tmp.clone()),
        ("TMP".to_owned(), tmp),
        ("TERM".to_owned(), "dumb".to_owned()),
    ]
}

fn extra_allowed(name: &str) -> bool {
    name.starts_with("GIT_") && !name.contains("SSH") && name != "GIT_ASKPASS"
}

/// The whole environment for a program run in `workspace` with `tmp` as its
/// temporary folder, plus the allowed `extra` variables; with `proxy` (its
/// URL), the variables that send proxy-aware programs (curl, pip, npm, git)
/// to the app's proxy, the only way out of the sandbox's network.
pub(crate) fn allowed(
    workspace: &Path,
    tmp: &Path,
    extra: &[(String, String)],
    proxy: Option<&str>,
) -> Vec<(String, String)> {
    let mut env = system(workspace, tmp);
    if let Some(proxy) = proxy {
        for name in ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"] {
            env.push((name.to_owned(), proxy.to_owned()));
        }
    }
    env.extend(
        extra
            .iter()
            .filter(|(name, _)| extra_allowed(name))
            .cloned(),
    );
    env
}
