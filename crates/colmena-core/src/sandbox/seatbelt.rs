//! macOS: the Seatbelt profile a program an agent runs is confined by.
//!
//! Why Seatbelt: macOS has neither Landlock nor namespaces, and Seatbelt
//! (`/usr/bin/sandbox-exec` with a profile in Apple's Sandbox Profile
//! Language) is what the system itself, Chromium and other agent tools use
//! to confine a command-line program without an entitlement. The app starts
//! `sandbox-exec -p PROFILE -D NAME=VALUE… LAUNCHER …`: the profile holds
//! the launcher (which sets the limits and runs the program) and everything
//! it starts, which inherit it.
//!
//! The profile denies everything, then allows:
//! - reading and running from the system's folders ([`SYSTEM_READ`]) and
//!   the launcher itself; the metadata (not the contents) of any path, which
//!   resolving a path needs;
//! - reading and writing beneath the workspace and the run's temporary
//!   folder, and the harmless devices (`/dev/null`, `/dev/urandom`, …);
//! - starting programs, and signals and process information only among
//!   the processes of this sandbox (not the user's other programs);
//! - no network, but for one door: with the agent's network on
//!   (`cli_exec`), outgoing TCP (not UDP) to the app's proxy on this computer's
//!   loopback, at the one port the app listens on for this run
//!   (`proxy/loopback.rs`), which applies the agent's address policy and
//!   wants the run's key. No other socket reaches another machine, the
//!   loopback or a Unix socket (the session's agents, Docker); the git
//!   tools get no door at all.
//!
//! Paths that come from the workspace (the agent's folder, the temporary
//! folder, the launcher) are passed as parameters (`-D WORKSPACE=…`), never
//! written into the profile's text, so no path can change its meaning.
//! This file is text only: it is compiled on every system so its tests run
//! on Linux, and used on macOS (`command.rs`).

use std::ffi::OsString;
use std::path::Path;

/// Where `sandbox-exec` is (never looked up through `PATH`).
pub(crate) const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// Folders a program may read and run things from (not write): the
/// system's, the command-line tools (`git` is a shim into them), and the
/// usual places of installed tools (Homebrew, `/usr/local`, `/opt`).
/// `/etc`, `/tmp` and `/var` are links into `/private`: Seatbelt matches
/// the real path.
pub(super) const SYSTEM_READ: [&str; 12] = [
    "/usr",
    "/bin",
    "/sbin",
    "/System",
    "/Library/Apple",
    "/Library/Developer/CommandLineTools",
    "/Applications/Xcode.app",
    "/opt",
    "/private/etc",
    "/private/var/db/timezone",
    "/private/var/db/xcode_select_link",
    "/private/var/select",
];

/// Devices a program may read and write (`> /dev/null` must work).
const DEVICES: [&str; 5] = [
    "/dev/null",
    "/dev/zero",
    "/dev/random",
    "/dev/urandom",
    "/dev/dtracehelper",
];

/// The parameter names the profile reads.
const WORKSPACE: &str = "WORKSPACE";
const TMP: &str = "TMP";
const LAUNCHER: &str = "LAUNCHER";

/// The profile's text; the same for every run but the proxy's port (a
/// number the app chose, not text from anywhere else); paths are
/// parameters.
pub(super) fn profile(proxy_port: Option<u16>) -> String {
    let mut text = String::from(
        "(version 1)\n\
         ; A program an agent runs, from Colmena (sandbox/seatbelt.rs).\n\
         (deny default)\n\
         (allow process-exec process-fork)\n\
         (allow signal (target same-sandbox))\n\
         (allow process-info* (target same-sandbox))\n\
         (allow sysctl-read)\n\
         (allow ipc-posix-sem)\n\
         ; The user's own name and folder (getpwuid), nothing else of the system's services.\n\
         (allow mach-lookup (global-name \"com.apple.system.opendirectoryd.libinfo\"))\n\
         (allow file-read-metadata)\n",
    );
    text.push_str("(allow file-read*\n");
    for dir in SYSTEM_READ {
        text.push_str(&format!("  (subpath \"{dir}\")\n"));
    }
    text.push_str(&format!("  (literal (param \"{LAUNCHER}\")))\n"));
    text.push_str(&format!(
        "(allow file-read* file-write*\n  (subpath (param \"{WORKSPACE}\"))\n  (subpath (param \"{TMP}\")))\n"
    ));
    text.push_str("(allow file-read* file-write-data file-ioctl\n");
    for device in DEVICES {
        text.push_str(&format!("  (literal \"{device}\")\n"));
    }
    text.push_str(")\n");
    if let Some(port) = proxy_port {
        text.push_str(&format!(
            "; The app's proxy for this run, the only way out (proxy/loopback.rs).\n\
             (allow network-outbound (remote tcp \"localhost:{port}\"))\n"
        ));
    }
    text
}

/// `sandbox-exec`'s arguments before the launcher: the profile and the
/// values of its parameters. `workspace` and `tmp` must be real paths
/// (no links on the way: `/tmp` is `/private/tmp` to Seatbelt).
pub(super) fn arguments(
    workspace: &Path,
    tmp: &Path,
    launcher: &Path,
    proxy_port: Option<u16>,
) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["-p".into(), profile(proxy_port).into()];
    for (name, path) in [(WORKSPACE, workspace), (TMP, tmp), (LAUNCHER, launcher)] {
        let mut definition = OsString::from(format!("{name}="));
        definition.push(path.as_os_str());
        args.extend(["-D".into(), definition]);
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The profile is one balanced S-expression list per rule: a missing
    /// or extra parenthesis would make `sandbox-exec` refuse every run.
    #[test]
    fn the_profile_is_balanced_and_closed_by_default() {
        for text in [profile(None), profile(Some(49152))] {
            balanced_and_closed(&text);
        }
    }

    fn balanced_and_closed(text: &str) {
        let mut depth = 0i32;
        let mut in_string = false;
        for line in text.lines() {
            for c in line.chars() {
                match c {
                    '"' => in_string = !in_string,
                    ';' if !in_string => break,
                    '(' if !in_string => depth += 1,
                    ')' if !in_string => depth -= 1,
                    _ => {}
                }
                assert!(depth >= 0, "a ')' closes nothing: {line}");
            }
            assert!(!in_string, "a string runs past its line: {line}");
        }
        assert_eq!(depth, 0, "{text}");
        let rules: Vec<&str> = text.lines().filter(|l| l.starts_with('(')).collect();
        assert_eq!(rules[0], "(version 1)");
        assert_eq!(rules[1], "(deny default)", "closed by default, first");
    }

    #[test]
    fn writing_is_allowed_only_beneath_the_workspace_the_tmp_folder_and_devices() {
        let text = profile(None);
        let writes: Vec<&str> = text
            .split("\n(")
            .filter(|rule| rule.contains("file-write"))
            .collect();
        assert_eq!(writes.len(), 2, "{writes:?}");
        assert!(writes[0].contains("(subpath (param \"WORKSPACE\"))"));
        assert!(writes[0].contains("(subpath (param \"TMP\"))"));
        assert!(
            writes[1].starts_with("allow file-read* file-write-data file-ioctl")
                && writes[1]
                    .lines()
                    .skip(1)
                    .all(|l| l.contains("(literal \"/dev/") || l == ")"),
            "{}",
            writes[1]
        );
        // Nothing of the user's folders, the data dir or the keychain.
        for place in [
            "/Users",
            "Library/Keychains",
            "Application Support",
            "/private/var/folders",
        ] {
            assert!(!text.contains(place), "{place}");
        }
    }

    #[test]
    fn no_network_and_no_other_service_is_allowed() {
        let text = profile(None);
        assert!(!text.contains("network"), "{text}");
        let lookups: Vec<&str> = text.lines().filter(|l| l.contains("mach-lookup")).collect();
        assert_eq!(
            lookups,
            ["(allow mach-lookup (global-name \"com.apple.system.opendirectoryd.libinfo\"))"]
        );
        assert!(text.contains("(allow signal (target same-sandbox))"));
        assert!(text.contains("(allow process-info* (target same-sandbox))"));
    }

    /// With network, one rule more: outgoing to the proxy's port on
    /// loopback, nothing inbound, no other port, no Unix socket, no DNS.
    #[test]
    fn with_network_only_the_proxys_port_on_loopback_is_reachable() {
        let closed = profile(None);
        let open = profile(Some(49152));
        let added: Vec<&str> = open
            .lines()
            .filter(|line| !closed.lines().any(|l| l == *line) && !line.starts_with(';'))
            .collect();
        assert_eq!(
            added,
            ["(allow network-outbound (remote tcp \"localhost:49152\"))"]
        );
        assert!(!open.contains("network-inbound") && !open.contains("network-bind"));
        assert!(!open.contains("localhost:*") && !open.contains("unix-socket"));
        assert!(
            !open.contains("mDNSResponder"),
            "no name lookups: the proxy resolves"
        );
    }

    /// A path with quotes, parentheses or a newline stays a value: it is a
    /// parameter, never part of the profile's text.
    #[test]
    fn paths_are_parameters_never_profile_text() {
        let odd = Path::new("/Users/a\")(allow default)(\"/ws\nx");
        let args = arguments(
            odd,
            Path::new("/private/tmp/run"),
            Path::new("/Applications/Colmena.app/Contents/MacOS/colmena-sandbox"),
            None,
        );
        assert_eq!(args[0], "-p");
        assert_eq!(args[1], OsString::from(profile(None)));
        assert!(!profile(None).contains("allow default"));
        let definitions: Vec<String> = args[2..]
            .chunks(2)
            .map(|pair| {
                assert_eq!(pair[0], "-D");
                pair[1].to_string_lossy().into_owned()
            })
            .collect();
        assert_eq!(
            definitions,
            [
                "WORKSPACE=/Users/a\")(allow default)(\"/ws\nx",
                "TMP=/private/tmp/run",
                "LAUNCHER=/Applications/Colmena.app/Contents/MacOS/colmena-sandbox",
            ]
        );
    }

    #[test]
    fn system_folders_are_read_only_and_real_paths() {
        assert!(
            Path::new(SANDBOX_EXEC).is_absolute(),
            "never looked up in PATH"
        );
        let text = profile(None);
        let reads = text
            .split("\n(")
            .find(|rule| rule.starts_with("allow file-read*\n"))
            .unwrap_or_default();
        for dir in SYSTEM_READ {
            assert!(reads.contains(&format!("(subpath \"{dir}\")")), "{dir}");
            assert!(
                !dir.starts_with("/etc") && !dir.starts_with("/tmp") && !dir.starts_with("/var")
            );
        }
    }
}
