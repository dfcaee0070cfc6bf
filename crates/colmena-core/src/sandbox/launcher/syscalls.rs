//! The launcher's syscall filter (seccomp, Linux, under both mechanisms):
//! what Landlock, the dropped privileges and the namespaces leave open. The
//! listed calls fail with `EPERM`; everything else is allowed. A call made
//! through another architecture's table (32-bit calls on a 64-bit kernel)
//! kills the program; x32 numbers are listed too.
//!
//! - **Sockets other than IPv4 and IPv6** (`AF_UNIX`, `AF_PACKET`,
//!   `AF_NETLINK`, …): Landlock confines connecting to a Unix socket by
//!   path only from ABI 9 (Linux 7.1), and bubblewrap shares the host's
//!   abstract sockets; through them a program could reach the user's
//!   session bus (`systemd-run --user` runs anything outside the sandbox),
//!   ssh-agent, gpg-agent, Docker or the display. A packet socket reads
//!   loopback traffic (every bearer token sent to the local server);
//!   netlink talks to the kernel's network configuration. `socketpair`
//!   stays allowed. Without netlink `getifaddrs` fails; name lookups fall
//!   back to assuming both address families;
//! - **raw IPv4/IPv6 sockets** (`SOCK_RAW`, and the legacy `SOCK_PACKET`):
//!   forged packets and sniffing, whatever the capabilities say;
//! - **with `--no-network`** (the git tools): every socket;
//! - **leaving the process group** (`setsid`, `setpgid`): the group is what
//!   is killed when the call ends;
//! - **io_uring**, which can open sockets without the `socket` call;
//! - **other processes' memory and descriptors** (`ptrace`,
//!   `process_vm_readv`/`writev`, `pidfd_getfd`: the launcher's connection
//!   to the app's proxy stays its own);
//! - **the kernel's own attack surface**: loading modules or a new kernel,
//!   `bpf`, `perf_event_open`, the kernel keyrings (`keyctl`, `add_key`,
//!   `request_key`), opening files by handle (which skips path checks);
//! - **device nodes** (`mknod` of a character or block device; FIFOs and
//!   plain files stay allowed, so `mkfifo` works);
//! - **new namespaces and mounts** (`unshare`, `setns`, `mount` and the new
//!   mount API): the sandbox made the ones it needs. `clone` with namespace
//!   flags is not matched (`clone3` passes them in memory a filter cannot
//!   read); without capabilities and under `no_new_privs` a user namespace
//!   gains nothing outside itself.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// The bits of `socket`'s type argument that name the type (the rest are
/// `SOCK_CLOEXEC`, `SOCK_NONBLOCK`); the kernel's `SOCK_TYPE_MASK`.
const SOCKET_TYPE_MASK: u64 = 0xf;
/// `SOCK_PACKET`: the legacy packet socket (deprecated in the libc crate).
const SOCK_PACKET: u64 = 10;
/// x32 calls are x86_64 calls with this bit set.
const X32: i64 = 0x4000_0000;
/// Calls x32 has under numbers of its own (its slots for the 64-bit
/// numbers are invalid there): ptrace, kexec_load, process_vm_readv,
/// process_vm_writev.
#[cfg(target_arch = "x86_64")]
const X32_ONLY: [i64; 4] = [521, 528, 539, 540];

pub(crate) fn filter(no_network: bool) -> Result<(), String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(backend)?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let mut deny = |number: i64, when: Vec<SeccompRule>| {
        if arch == TargetArch::x86_64 {
            rules.insert(number | X32, when.clone());
        }
        rules.insert(number, when);
    };
    // No rule: every call of that number.
    let sockets = if no_network {
        Vec::new()
    } else {
        socket_rules()?
    };
    deny(libc::SYS_socket, sockets);
    deny(libc::SYS_mknodat, device_node_rules(2)?);
    #[cfg(target_arch = "x86_64")]
    deny(libc::SYS_mknod, device_node_rules(1)?);
    for number in [
        libc::SYS_setsid,
        libc::SYS_setpgid,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
        libc::SYS_pidfd_getfd,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_kexec_load,
        libc::SYS_kexec_file_load,
        libc::SYS_bpf,
        libc::SYS_perf_event_open,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_open_by_handle_at,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_open_tree,
        libc::SYS_move_mount,
        libc::SYS_mount_setattr,
    ] {
        deny(number, Vec::new());
    }
    #[cfg(target_arch = "x86_64")]
    for number in X32_ONLY {
        rules.insert(number | X32, Vec::new());
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
    seccompiler::apply_filter(&program)
        .map_err(|e| format!("cannot set up the syscall filter: {e}"))
}

/// `socket(family, type, …)` is refused when the family is neither IPv4
/// nor IPv6, or the type is raw or packet (rules are alternatives; the
/// conditions of one rule must all hold).
fn socket_rules() -> Result<Vec<SeccompRule>, String> {
    let inet = constant(libc::AF_INET)?;
    let inet6 = constant(libc::AF_INET6)?;
    let raw = constant(libc::SOCK_RAW)?;
    let socket_type = |value: u64| condition(1, SeccompCmpOp::MaskedEq(SOCKET_TYPE_MASK), value);
    Ok(vec![
        rule(vec![
            condition(0, SeccompCmpOp::Ne, inet)?,
            condition(0, SeccompCmpOp::Ne, inet6)?,
        ])?,
        rule(vec![socket_type(raw)?])?,
        rule(vec![socket_type(SOCK_PACKET)?])?,
    ])
}

/// `mknod`/`mknodat` is refused for character and block devices; the mode
/// is argument `mode_arg`.
fn device_node_rules(mode_arg: u8) -> Result<Vec<SeccompRule>, String> {
    let kind = |value: libc::mode_t| {
        condition(
            mode_arg,
            SeccompCmpOp::MaskedEq(u64::from(libc::S_IFMT)),
            u64::from(value),
        )
    };
    Ok(vec![
        rule(vec![kind(libc::S_IFCHR)?])?,
        rule(vec![kind(libc::S_IFBLK)?])?,
    ])
}

/// A condition on the low 32 bits of argument `index` (every argument
/// matched here is an `int` or a `mode_t`).
fn condition(index: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, String> {
    SeccompCondition::new(index, SeccompCmpArgLen::Dword, op, value).map_err(backend)
}

fn rule(conditions: Vec<SeccompCondition>) -> Result<SeccompRule, String> {
    SeccompRule::new(conditions).map_err(backend)
}

fn constant(value: libc::c_int) -> Result<u64, String> {
    u64::try_from(value).map_err(|e| e.to_string())
}

fn backend(e: seccompiler::BackendError) -> String {
    format!("cannot set up the syscall filter: {e}")
}
