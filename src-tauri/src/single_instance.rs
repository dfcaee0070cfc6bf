//! One app per workspace (issue 16): a second launch on the same data dir
//! hands its arguments to the running app, which comes to the front, and
//! exits.
//!
//! Why our own and per workspace, not the single-instance plugin: the
//! plugin keys on the app identifier through the D-Bus session bus, so a
//! second workspace (`--data-dir`, the tests, a second person's folder) could
//! not run next to the first, and without a session bus (a headless login)
//! there would be no single instance at all. Here the running app listens on
//! a Unix socket inside its own data dir (a private folder), so "the same
//! store" is exactly what decides. What arrives is only ever arguments:
//! `colmena://` links become a place in the window (`links`), nothing more.
//!
//! Windows has no Unix sockets on every version Tauri supports; there the
//! launch is not handed over (noted in the README).

use std::path::{Path, PathBuf};

/// What a second launch sends: its arguments and its folder.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Handover {
    pub args: Vec<String>,
    pub cwd: String,
}

/// The most a handover may carry (arguments are short).
const MAX_HANDOVER: u64 = 64 * 1024;

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

#[cfg(unix)]
fn owner_id(data_dir: &Path) -> u32 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(data_dir)
        .map(|m| m.uid())
        .unwrap_or(u32::MAX)
}

#[cfg(not(unix))]
fn owner_id(_: &Path) -> u32 {
    0
}

fn fnv1a(path: &Path) -> u64 {
    path.as_os_str()
        .as_encoded_bytes()
        .iter()
        .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
            (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
        })
}

#[cfg(unix)]
pub use unix::{Claim, claim};

#[cfg(unix)]
mod unix {
    use std::io::{Read, Write};
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    use std::os::unix::net::{UnixListener, UnixStream};
    use std::path::{Path, PathBuf};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    use super::{Handover, MAX_HANDOVER, socket_path};

    /// The outcome of a launch.
    pub enum Claim {
        /// No app runs on this workspace: this one listens (and already
        /// answers: handovers wait in `Listening` until the app exists).
        First(Listening),
        /// The running app took the arguments; this launch should exit.
        HandedOver,
        /// Neither (the socket could not be made safely): run without handover.
        Alone,
    }

    /// The socket this app bound, answering from the moment it is bound.
    pub struct Listening {
        pub path: PathBuf,
        received: mpsc::Receiver<Handover>,
    }

    impl Listening {
        /// Hands every launch, the ones that came while the app was starting
        /// first, to `on_handover`, on a thread of its own.
        pub fn forward(self, on_handover: impl Fn(Handover) + Send + 'static) {
            std::thread::spawn(move || {
                for handover in self.received {
                    on_handover(handover);
                }
            });
        }
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
                    tracing::warn!(
                        "the running app did not answer ({e}): starting without handover"
                    );
                    return Claim::Alone;
                }
            }
            match UnixListener::bind(&path) {
                Ok(listener) => {
                    if std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
                        .is_err()
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
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn handover(args: &[&str]) -> Handover {
        Handover {
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            cwd: "/tmp".into(),
        }
    }

    #[test]
    fn a_second_launch_on_the_same_workspace_hands_over_its_arguments() {
        let dir = tempfile::tempdir().unwrap();
        let Claim::First(listening) = claim(dir.path(), &handover(&[])) else {
            panic!("the first launch must listen");
        };
        // A launch while the app is still starting is answered and kept.
        let early = handover(&["early"]);
        assert!(matches!(claim(dir.path(), &early), Claim::HandedOver));
        let (tx, rx) = mpsc::channel();
        listening.forward(move |h| tx.send(h).unwrap());
        // Hang guards, not timing claims.
        assert_eq!(
            rx.recv_timeout(std::time::Duration::from_secs(60)).unwrap(),
            early
        );
        let second = handover(&["colmena://canvas/c1"]);
        assert!(matches!(claim(dir.path(), &second), Claim::HandedOver));
        assert_eq!(
            rx.recv_timeout(std::time::Duration::from_secs(60)).unwrap(),
            second
        );
        // Another workspace is another app.
        let other = tempfile::tempdir().unwrap();
        assert!(matches!(claim(other.path(), &second), Claim::First(_)));
    }

    #[test]
    fn a_socket_left_by_a_dead_app_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = socket_path(dir.path());
        drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
        assert!(path.exists());
        assert!(matches!(claim(dir.path(), &handover(&[])), Claim::First(_)));
    }

    #[test]
    fn garbage_on_the_socket_is_refused_and_the_app_keeps_serving() {
        use std::io::{Read, Write};
        let dir = tempfile::tempdir().unwrap();
        let Claim::First(listening) = claim(dir.path(), &handover(&[])) else {
            panic!("the first launch must listen");
        };
        let (tx, rx) = mpsc::channel();
        listening.forward(move |h| tx.send(h).unwrap());
        // A client that drips bytes holds one reader, not the socket.
        let mut drip = std::os::unix::net::UnixStream::connect(socket_path(dir.path())).unwrap();
        drip.write_all(b"{").unwrap();
        let mut raw = std::os::unix::net::UnixStream::connect(socket_path(dir.path())).unwrap();
        raw.write_all(b"rm -rf /\n").unwrap();
        let mut answer = String::new();
        let _ = raw.read_to_string(&mut answer);
        assert_eq!(answer, "");
        assert!(matches!(
            claim(dir.path(), &handover(&["x"])),
            Claim::HandedOver
        ));
        assert_eq!(
            rx.recv_timeout(std::time::Duration::from_secs(60))
                .unwrap()
                .args,
            ["x"]
        );
    }

    #[test]
    fn a_long_data_dir_gets_a_short_socket_name_in_a_private_folder() {
        let base = tempfile::tempdir().unwrap();
        let long = base.path().join("a".repeat(120));
        std::fs::create_dir(&long).unwrap();
        let path = socket_path(&long);
        assert!(path.as_os_str().len() < 108, "{}", path.display());
        assert_ne!(socket_path(&long.join("b")), path);
        let Claim::First(listening) = claim(&long, &handover(&[])) else {
            panic!("the first launch must listen");
        };
        use std::os::unix::fs::PermissionsExt;
        let folder = std::fs::metadata(path.parent().unwrap()).unwrap();
        assert_eq!(folder.permissions().mode() & 0o077, 0, "owner-only folder");
        assert!(matches!(claim(&long, &handover(&["x"])), Claim::HandedOver));
        drop(listening);
        let _ = std::fs::remove_file(&path);
    }
}
