//! The per-run Unix socket the launcher hands connections through
//! (`launcher/forward.rs`), in a folder of its own that only the app's user
//! may enter and that is never in the program's view.

use std::io::IoSliceMut;
use std::mem::MaybeUninit;
use std::path::{Path, PathBuf};

use rustix::net::{RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, recvmsg};
use tokio::io::Interest;
use tokio::net::{TcpStream, UnixListener, UnixStream};
use tokio_util::sync::{CancellationToken, DropGuard};

use super::{Egress, MAX_CONNECTIONS};
use crate::error::{AppError, Result};

/// The socket, before the launcher connects. Dropped unserved (the
/// program could not start), it removes its folder.
pub(crate) struct Door {
    dir: PathBuf,
    socket: PathBuf,
    listener: Option<UnixListener>,
}

impl Drop for Door {
    fn drop(&mut self) {
        if self.listener.is_some() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// A door being served; dropping it (the run ended) stops every connection
/// and removes the folder.
pub(crate) struct Serving {
    dir: PathBuf,
    _stop: DropGuard,
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Door {
    pub(crate) fn open() -> Result<Door> {
        let dir =
            std::env::temp_dir().join(format!("colmena-proxy-{}", uuid::Uuid::now_v7().simple()));
        crate::private_files::create_dir(&dir).map_err(|e| {
            AppError::precondition(format!(
                "cannot create a folder for the program's proxy in {}: {e}",
                std::env::temp_dir().display()
            ))
        })?;
        let socket = dir.join("proxy.sock");
        let listener = UnixListener::bind(&socket).map_err(|e| {
            let _ = std::fs::remove_dir_all(&dir);
            AppError::precondition(format!("cannot open the program's proxy: {e}"))
        })?;
        Ok(Door {
            dir,
            socket,
            listener: Some(listener),
        })
    }

    /// The path the launcher connects to (`--proxy`).
    pub(crate) fn socket(&self) -> &Path {
        &self.socket
    }

    /// The folder holding the socket (bubblewrap binds it into its view,
    /// read-only, for the launcher).
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Takes the launcher's connection, then serves every connection it
    /// hands over with `egress`, until the returned guard is dropped.
    pub(crate) fn serve(mut self, egress: Egress) -> Serving {
        let stop = CancellationToken::new();
        let serving = Serving {
            dir: self.dir.clone(),
            _stop: stop.clone().drop_guard(),
        };
        let Some(listener) = self.listener.take() else {
            return serving;
        };
        tokio::spawn(async move {
            tokio::select! {
                _ = stop.cancelled() => {}
                () = hand_over(listener, egress) => {}
            }
        });
        serving
    }
}

/// One launcher per run: its connection, then each descriptor it sends,
/// served on a task of its own (all of them end with this one), at most
/// [`MAX_CONNECTIONS`] at a time.
async fn hand_over(listener: UnixListener, egress: Egress) {
    let Ok((launcher, _)) = listener.accept().await else {
        return;
    };
    drop(listener);
    let mut connections = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            received = receive(&launcher) => match received {
                Received::Connection(client) => {
                    while connections.try_join_next().is_some() {}
                    if connections.len() >= MAX_CONNECTIONS {
                        drop(client);
                        continue;
                    }
                    let egress = egress.clone();
                    connections.spawn(async move { serve(&egress, client).await });
                }
                Received::Nothing => {}
                Received::Closed => return,
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

/// How long a program has to send its request head.
const HEAD_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Serves one connection to its end: every connection through this door
/// comes from the program itself.
async fn serve(egress: &Egress, mut client: TcpStream) {
    let read = tokio::time::timeout(HEAD_TIMEOUT, super::read_head(&mut client)).await;
    if let Ok(Some((head, early))) = read {
        egress.pass(client, head, early).await;
    }
}

enum Received {
    Connection(TcpStream),
    /// A message without a usable descriptor: ignored.
    Nothing,
    /// The launcher is gone: the program ended.
    Closed,
}

/// A received socket is marked close-on-exec as it arrives: no program
/// the app starts meanwhile inherits it.
const RECEIVE_FLAGS: RecvFlags = RecvFlags::CMSG_CLOEXEC.union(RecvFlags::DONTWAIT);

async fn receive(launcher: &UnixStream) -> Received {
    loop {
        if launcher.readable().await.is_err() {
            return Received::Closed;
        }
        let got = launcher.try_io(Interest::READABLE, || {
            let mut byte = [0u8; 1];
            let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
            let mut control = RecvAncillaryBuffer::new(&mut space);
            let message = recvmsg(
                launcher,
                &mut [IoSliceMut::new(&mut byte)],
                &mut control,
                RECEIVE_FLAGS,
            )?;
            let fd = control.drain().find_map(|message| match message {
                RecvAncillaryMessage::ScmRights(mut fds) => fds.next(),
                _ => None,
            });
            Ok((message.bytes, fd))
        });
        return match got {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
            Err(_) | Ok((0, None)) => Received::Closed,
            Ok((_, None)) => Received::Nothing,
            Ok((_, Some(fd))) => {
                let stream = std::net::TcpStream::from(fd);
                match stream
                    .set_nonblocking(true)
                    .and_then(|()| TcpStream::from_std(stream))
                {
                    Ok(stream) => Received::Connection(stream),
                    Err(_) => Received::Nothing,
                }
            }
        };
    }
}
