//! Dropping every privilege before the program starts (Linux).
//!
//! Landlock confines paths, not powers: a program started as root, or with
//! capabilities, still reads other processes' environments through /proc
//! (`CAP_SYS_PTRACE`, or simply being the same root), sniffs loopback with
//! a packet socket (`CAP_NET_RAW`: every bearer token sent to the local
//! server), reads root-only files in the system folders it may read
//! (`/etc/shadow`), and is exempt from the process limit. So the launcher,
//! last thing before the syscall filter:
//!
//! 1. empties the bounding set, while it still has `CAP_SETPCAP` (root, or
//!    the owner of the user namespace `namespaces.rs` made): nothing the
//!    program runs can ever gain a capability back, not even a set-uid or
//!    file-capability program;
//! 2. empties the ambient set;
//! 3. as root, switches to the program's user: supplementary groups
//!    dropped, then the group, then the user (real, effective and saved —
//!    the kernel then clears the permitted and effective sets);
//! 4. empties the effective, permitted and inheritable sets;
//! 5. sets `no_new_privs`;
//!
//! and then checks each of those instead of trusting the calls. Without
//! `CAP_SETPCAP` (an ordinary user without user namespaces) the bounding
//! set cannot be emptied; with every other set empty, `no_new_privs` and a
//! user other than root, nothing in it can be used.
//!
//! The calls change the calling thread only (the raw system calls, not
//! libc's process-wide wrappers): the launcher has one thread.

use rustix::io::Errno;
use rustix::process::{Gid, Uid, geteuid, getuid};
use rustix::thread::{
    CapabilitySet, CapabilitySets, capabilities, capability_is_in_ambient_set,
    capability_is_in_bounding_set, clear_ambient_capability_set, no_new_privs,
    remove_capability_from_bounding_set, set_capabilities, set_no_new_privs, set_thread_groups,
    set_thread_res_gid, set_thread_res_uid,
};

use crate::plan::ProgramUser;

/// Steps 1 to 5 of the module docs, then the check; `user` as root.
pub(crate) fn drop_all(user: Option<ProgramUser>) -> Result<(), String> {
    let start = capabilities(None).map_err(cannot("read the capabilities"))?;
    let may_empty_bounding = start.effective.contains(CapabilitySet::SETPCAP);
    if may_empty_bounding {
        for capability in known_capabilities() {
            remove_capability_from_bounding_set(capability)
                .map_err(cannot("empty the capability bounding set"))?;
        }
    }
    clear_ambient_capability_set().map_err(cannot("empty the ambient capabilities"))?;
    if let Some(user) = user {
        let (uid, gid) = (Uid::from_raw(user.uid), Gid::from_raw(user.gid));
        set_thread_groups(&[]).map_err(cannot("drop the supplementary groups"))?;
        set_thread_res_gid(gid, gid, gid).map_err(cannot("switch to the program's group"))?;
        set_thread_res_uid(uid, uid, uid).map_err(cannot("switch to the program's user"))?;
    }
    let none = CapabilitySets {
        effective: CapabilitySet::empty(),
        permitted: CapabilitySet::empty(),
        inheritable: CapabilitySet::empty(),
    };
    set_capabilities(None, none).map_err(cannot("drop the capabilities"))?;
    set_no_new_privs(true).map_err(cannot("set no_new_privs"))?;
    verify(user, may_empty_bounding)
}

/// What the calls above promise, read back from the kernel.
fn verify(user: Option<ProgramUser>, bounding_emptied: bool) -> Result<(), String> {
    let left = |what: &str| -> Result<(), String> {
        Err(format!(
            "{what} after dropping privileges; the program was not run"
        ))
    };
    let now = capabilities(None).map_err(cannot("read the capabilities"))?;
    if !(now.effective.is_empty() && now.permitted.is_empty() && now.inheritable.is_empty()) {
        return left("capabilities are left");
    }
    for capability in known_capabilities() {
        if capability_is_in_ambient_set(capability).map_err(cannot("read the ambient set"))? {
            return left("an ambient capability is left");
        }
        if bounding_emptied
            && capability_is_in_bounding_set(capability).map_err(cannot("read the bounding set"))?
        {
            return left("the bounding set is not empty");
        }
    }
    if !no_new_privs().map_err(cannot("read no_new_privs"))? {
        return left("no_new_privs is not set");
    }
    let (real, effective) = (getuid(), geteuid());
    if real.is_root() || effective.is_root() {
        return left("the user is still root");
    }
    if let Some(user) = user
        && (real.as_raw() != user.uid || effective.as_raw() != user.uid)
    {
        return left("the user is not the program's");
    }
    Ok(())
}

/// Every capability this kernel knows: bit by bit until it answers that a
/// capability does not exist (a kernel newer than this program may know
/// more than rustix names).
fn known_capabilities() -> Vec<CapabilitySet> {
    (0..u64::BITS)
        .map(|bit| CapabilitySet::from_bits_retain(1 << bit))
        .take_while(|&capability| capability_is_in_bounding_set(capability).is_ok())
        .collect()
}

fn cannot(what: &'static str) -> impl Fn(Errno) -> String {
    move |e| format!("cannot {what}: {e}")
}
