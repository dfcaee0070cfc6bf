//! Who programs run as when Colmena itself runs as root (a container,
//! `colmena serve` on a server).
//!
//! Dropping capabilities alone is not enough for a program started as
//! root: it would still read root-only files in the system folders it may
//! read (`/etc/shadow`), and the kernel does not hold root to the process
//! limit. So the launcher switches to another user first (`--uid`,
//! `--gid`): `colmena-sandbox` when the system has such a user (an
//! administrator can create one, `useradd --system --no-create-home
//! colmena-sandbox`, to keep programs apart from services that run as
//! `nobody`), else `nobody` (65534). The launcher hands the workspace and
//! the run's temporary folder to that user before each program.

use std::sync::OnceLock;

/// The dedicated user, when the system has one.
pub(crate) const DEDICATED: &str = "colmena-sandbox";
/// `nobody`, when there is no dedicated user.
const NOBODY: u32 = 65534;

/// A user a program runs as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProgramUser {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
}

/// The user programs run as when this process runs as root; `None`
/// otherwise (programs then run as this process's user).
pub(crate) fn program_user() -> Option<ProgramUser> {
    static FOUND: OnceLock<ProgramUser> = OnceLock::new();
    if !running_as_root() {
        return None;
    }
    let found = FOUND.get_or_init(|| {
        let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
        choose(&passwd)
    });
    Some(found.clone())
}

#[cfg(unix)]
pub(crate) fn running_as_root() -> bool {
    rustix::process::geteuid().is_root()
}

#[cfg(not(unix))]
pub(crate) fn running_as_root() -> bool {
    false
}

/// [`DEDICATED`] from `passwd` (the text of `/etc/passwd`) when it is there
/// and not root's, else `nobody`.
fn choose(passwd: &str) -> ProgramUser {
    passwd
        .lines()
        .find_map(|line| {
            let mut fields = line.split(':');
            if fields.next()? != DEDICATED {
                return None;
            }
            let _password = fields.next()?;
            let uid: u32 = fields.next()?.parse().ok()?;
            let gid: u32 = fields.next()?.parse().ok()?;
            (uid != 0 && gid != 0 && uid != u32::MAX && gid != u32::MAX).then(|| ProgramUser {
                name: DEDICATED.to_owned(),
                uid,
                gid,
            })
        })
        .unwrap_or_else(|| ProgramUser {
            name: "nobody".to_owned(),
            uid: NOBODY,
            gid: NOBODY,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dedicated_user_is_taken_when_it_exists_and_is_not_root() {
        let nobody = choose("root:x:0:0:root:/root:/bin/bash\n");
        assert_eq!(
            (nobody.name.as_str(), nobody.uid, nobody.gid),
            ("nobody", 65534, 65534)
        );
        let dedicated = choose(
            "root:x:0:0:root:/root:/bin/bash\n\
             colmena-sandbox:x:998:997::/nonexistent:/usr/sbin/nologin\n",
        );
        assert_eq!(
            (dedicated.name.as_str(), dedicated.uid, dedicated.gid),
            ("colmena-sandbox", 998, 997)
        );
        for bad in [
            "colmena-sandbox:x:0:0::/:/bin/sh\n",
            "colmena-sandbox:x:abc:1::/:/bin/sh\n",
            "colmena-sandbox:x:5\n",
        ] {
            assert_eq!(choose(bad).name, "nobody", "{bad}");
        }
    }
}
