//! `--proxy`: the program's one way out of a network namespace that holds
//! nothing but its own loopback (Linux).
//!
//! Why this shape: an address policy cannot be enforced on the program
//! itself. Landlock filters TCP by port only; seccomp cannot read the
//! address `connect` is given without racing the program; `LD_PRELOAD`
//! misses static binaries. A namespace with no route anywhere closes every
//! address at once — the host's loopback (the local bus, a database), the
//! local network, 169.254.169.254 — and the launcher opens one door back:
//! it listens on 127.0.0.1:[`PROXY_PORT`](crate::protocol::PROXY_PORT)
//! inside, and hands every connection it accepts, as a file descriptor, to
//! the app through a Unix socket it connected before confining itself (the
//! program cannot open Unix sockets, and the socket's folder is not in its
//! view). The app reads the request (`CONNECT host:port`, or a plain HTTP
//! request with a full URL), resolves the name, checks every address with
//! the agent's policy — never metadata; loopback and private ranges only
//! with its local-network switch — and connects to exactly those
//! addresses. Proxy-aware programs (curl, pip, npm, git over https) find
//! the door through `http_proxy`; raw TCP, UDP and DNS go nowhere.
//!
//! The launcher stays the program's parent to do this: one thread accepts
//! and passes connections on while the main thread waits for the program.

use std::io::IoSlice;
use std::mem::MaybeUninit;
use std::net::{Ipv4Addr, TcpListener};
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;
use std::path::Path;

use rustix::net::{
    AddressFamily, RecvFlags, SendAncillaryBuffer, SendAncillaryMessage, SendFlags, SocketType,
    netdevice, netlink::SocketAddrNetlink, recv, sendmsg, sendto, socket,
};

use crate::protocol as p;

/// The listener inside the namespace and the connection to the app.
pub(crate) struct Forwarder {
    listener: TcpListener,
    app: UnixStream,
}

impl Forwarder {
    /// Listens inside the namespace and connects to the app's socket: both
    /// before the launcher confines itself (afterwards it may open no Unix
    /// socket, and Landlock may hide the path).
    pub(crate) fn open(socket: &Path) -> Result<Forwarder, String> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, p::PROXY_PORT)).map_err(|e| {
            format!(
                "cannot listen on 127.0.0.1:{} inside the sandbox: {e}",
                p::PROXY_PORT
            )
        })?;
        let app = UnixStream::connect(socket)
            .map_err(|e| format!("cannot reach the app's proxy at {}: {e}", socket.display()))?;
        Ok(Forwarder { listener, app })
    }

    /// Its two descriptors (kept open when the launcher closes what it
    /// inherited).
    pub(crate) fn descriptors(&self) -> [i32; 2] {
        use std::os::fd::AsRawFd;
        [self.listener.as_raw_fd(), self.app.as_raw_fd()]
    }

    /// Passes every connection on until the app stops taking them (the run
    /// ended) — on a thread of its own; the program is already running.
    pub(crate) fn start(self) {
        std::thread::spawn(move || {
            for connection in self.listener.incoming() {
                let Ok(connection) = connection else {
                    // Out of descriptors, for one: not a busy loop.
                    std::thread::sleep(std::time::Duration::from_millis(100));
                    continue;
                };
                let fds = [connection.as_fd()];
                let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
                let mut control = SendAncillaryBuffer::new(&mut space);
                if !control.push(SendAncillaryMessage::ScmRights(&fds)) {
                    return;
                }
                // One byte carries the descriptor; the connection is the
                // app's from here (this copy closes when dropped).
                if sendmsg(
                    &self.app,
                    &[IoSlice::new(b"c")],
                    &mut control,
                    SendFlags::NOSIGNAL,
                )
                .is_err()
                {
                    return;
                }
            }
        });
    }
}

/// Brings the namespace's own loopback up (a new network namespace starts
/// with it down: nothing could listen on 127.0.0.1). One `RTM_NEWLINK`
/// message to the kernel, as `ip link set lo up` sends; needs
/// `CAP_NET_ADMIN` in the namespace, which the first process has.
pub(crate) fn loopback_up() -> Result<(), String> {
    let why = |e: rustix::io::Errno| format!("cannot bring the sandbox's loopback up: {e}");
    let inet = socket(AddressFamily::INET, SocketType::DGRAM, None).map_err(why)?;
    let index = netdevice::name_to_index(&inet, "lo").map_err(why)?;
    // Protocol 0 is NETLINK_ROUTE.
    let route = socket(AddressFamily::NETLINK, SocketType::RAW, None).map_err(why)?;
    let up = u32::try_from(libc::IFF_UP).map_err(|e| e.to_string())?;
    let flags = u16::try_from(libc::NLM_F_REQUEST | libc::NLM_F_ACK).map_err(|e| e.to_string())?;
    let mut message = Vec::with_capacity(32);
    message.extend(32u32.to_ne_bytes()); // nlmsg_len: header + ifinfomsg
    message.extend(libc::RTM_NEWLINK.to_ne_bytes()); // nlmsg_type
    message.extend(flags.to_ne_bytes()); // nlmsg_flags
    message.extend(1u32.to_ne_bytes()); // nlmsg_seq
    message.extend(0u32.to_ne_bytes()); // nlmsg_pid: the kernel fills it in
    message.extend([0u8, 0u8]); // ifi_family (AF_UNSPEC), padding
    message.extend(0u16.to_ne_bytes()); // ifi_type
    message.extend(index.to_ne_bytes()); // ifi_index
    message.extend(up.to_ne_bytes()); // ifi_flags
    message.extend(up.to_ne_bytes()); // ifi_change: only IFF_UP
    sendto(
        &route,
        &message,
        SendFlags::empty(),
        &SocketAddrNetlink::new(0, 0),
    )
    .map_err(why)?;
    let mut answer = [0u8; 512];
    let (length, _) = recv(&route, &mut answer[..], RecvFlags::empty()).map_err(why)?;
    acknowledged(&answer[..length.min(answer.len())])
}

/// The kernel's answer: `NLMSG_ERROR` with error 0 is the acknowledgement.
fn acknowledged(answer: &[u8]) -> Result<(), String> {
    let field = |at: usize| -> Option<[u8; 4]> { answer.get(at..at + 4)?.try_into().ok() };
    let kind = answer
        .get(4..6)
        .and_then(|b| <[u8; 2]>::try_from(b).ok())
        .map(u16::from_ne_bytes);
    let error = field(16).map(i32::from_ne_bytes);
    match (kind, error) {
        (Some(kind), Some(0)) if i32::from(kind) == libc::NLMSG_ERROR => Ok(()),
        (Some(kind), Some(error)) if i32::from(kind) == libc::NLMSG_ERROR => Err(format!(
            "cannot bring the sandbox's loopback up: {}",
            std::io::Error::from_raw_os_error(-error)
        )),
        _ => {
            Err("cannot bring the sandbox's loopback up: the kernel's answer is unreadable".into())
        }
    }
}
