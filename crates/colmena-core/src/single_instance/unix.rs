//! Unix: the running app listens on a socket in its data dir (a private
//! folder), or in an owner-only folder of the runtime folder when the
//! data dir's path is too long for a socket address.

use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::{Claim, Handover, Listening, MAX_HANDOVER};

/// The socket of the app running on `data_dir`: inside it (a private
/// folder) when the path is short enough for a socket address, else in a
/// private folder of the user's runtime folder (or of the temporary folder)
/// under a name made from the data dir.
pub fn socket_path(data_dir: &Path) -> PathBuf {
    let inside = data_dir.join("desktop.sock");
    if inside.as_os_str().len() < 100 {
        return inside;
    }
    let runtime = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    runtime
        .join(format!("colmena-{}", owner_id(data_dir)))
        .join(format!("{:016x}.sock", fnv1a(data_dir)))
}

fn owner_id(data_dir: &Path) -> u32 {
    std::fs::metadata(data_dir)
        .map(|m| m.uid())
        .unwrap_or(u32::MAX)
}

fn fnv1a(path: &Path) -> u64 {
    path.as_os_str()
        .as_encoded_bytes()
        .iter()
        .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
            (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
        })
}

/// Hands `handover` to the app running on `data_dir` (an existing,
/// private folder), or becomes it.
pub fn claim(data_dir: &Path, handover: &Handover) -> Claim {
    let path = socket_path(data_dir);
    if !private_folder(data_dir, &path) {
        tracing::warn!("{} is not private: no single instance", path.display());
        return Claim::Alone;
    }
    for _ in 0..2 {
        match send(&path, handover) {
            Ok(()) => return Claim::HandedOver,
            // Nobody listens: a socket left by an app that died goes.
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::ConnectionRefused | std::io::ErrorKind::NotFound
                ) =>
            {
                let _ = std::fs::remove_file(&path);
            }
            // Someone listens but did not answer in time: never take
            // its socket away (two apps on one store would follow).
            Err(e) => {
                tracing::warn!("the running app did not answer ({e}): starting without handover");
                return Claim::Alone;
            }
        }
        match UnixListener::bind(&path) {
            Ok(listener) => {
                if std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).is_err()
                {
                    return Claim::Alone;
                }
                return Claim::First(listen(listener, path));
            }
            // Another launch bound it between our two steps: hand over.
            Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => continue,
            Err(e) => {
                tracing::warn!("no single instance ({}): {e}", path.display());
                return Claim::Alone;
            }
        }
    }
    Claim::Alone
}

/// The socket's folder is the data dir, or a folder only the data dir's
/// owner can enter (made here when missing).
fn private_folder(data_dir: &Path, socket: &Path) -> bool {
    let Some(folder) = socket.parent() else {
        return false;
    };
    if folder == data_dir {
        return true;
    }
    let mut builder = std::fs::DirBuilder::new();
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    let _ = builder.create(folder);
    match (
        std::fs::metadata(data_dir),
        std::fs::symlink_metadata(folder),
    ) {
        (Ok(dir), Ok(f)) => f.is_dir() && f.uid() == dir.uid() && f.mode() & 0o077 == 0,
        _ => false,
    }
}

fn send(path: &Path, handover: &Handover) -> std::io::Result<()> {
    let mut stream = UnixStream::connect(path)?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut line = serde_json::to_vec(handover)?;
    line.push(b'\n');
    stream.write_all(&line)?;
    let mut answer = [0u8; 3];
    stream.read_exact(&mut answer)?;
    if &answer == b"ok\n" {
        Ok(())
    } else {
        Err(std::io::Error::other(
            "the running app did not take the launch",
        ))
    }
}

/// At most this many launches are read at once (each has 2 s in all).
const READERS: usize = 4;

fn listen(listener: UnixListener, path: PathBuf) -> Listening {
    let (sender, received) = mpsc::channel();
    let busy = Arc::new(AtomicUsize::new(0));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let stream = match stream {
                Ok(stream) => stream,
                Err(e) => {
                    tracing::warn!("the launch socket failed to accept: {e}");
                    std::thread::sleep(Duration::from_millis(100));
                    continue;
                }
            };
            if busy.fetch_add(1, Ordering::SeqCst) >= READERS {
                busy.fetch_sub(1, Ordering::SeqCst);
                continue; // dropped: too many launches at once
            }
            let (sender, busy) = (sender.clone(), busy.clone());
            std::thread::spawn(move || {
                match read(&stream) {
                    Ok(handover) => {
                        let _ = (&stream).write_all(b"ok\n");
                        let _ = sender.send(handover);
                    }
                    Err(e) => tracing::warn!("a launch handover was refused: {e}"),
                }
                busy.fetch_sub(1, Ordering::SeqCst);
            });
        }
    });
    Listening { path, received }
}

/// One JSON line, read within 2 s in all and at most 64 KiB.
fn read(mut stream: &UnixStream) -> std::io::Result<Handover> {
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut line = Vec::new();
    let mut chunk = [0u8; 4096];
    while !line.contains(&b'\n') {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || line.len() as u64 > MAX_HANDOVER {
            return Err(std::io::Error::other("too slow or too long"));
        }
        stream.set_read_timeout(Some(left))?;
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        line.extend_from_slice(&chunk[..n]);
    }
    let end = line.iter().position(|b| *b == b'\n').unwrap_or(line.len());
    serde_json::from_slice(&line[..end]).map_err(std::io::Error::other)
}
