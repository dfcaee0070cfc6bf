//! Windows: the running app listens on a named pipe. Pipe names are one
//! namespace for the whole machine, and any user may list them, so a name
//! proves nothing and another user could create it first. Both ends
//! therefore prove they know a secret that only this user can read — a
//! random key in the data dir (`desktop.key`, made by the first launch) —
//! before anything is handed over:
//!
//! 1. the launch sends a fresh nonce;
//! 2. the app answers with its own nonce and an HMAC-SHA256 of both under
//!    the key (the launch checks it: a squatter that does not know the key
//!    gets nothing more, and the launch runs on its own);
//! 3. the launch sends its HMAC of both nonces (the other way round), then
//!    its arguments as one JSON line; the app checks the HMAC and answers
//!    `ok`.
//!
//! The pipe's name is derived from the key (never the key itself), so two
//! workspaces are two apps. Remote clients are refused, and the pipe's
//! access list names this user alone (`colmena_win32::private_pipe`): other
//! users of the machine cannot open it at all, and no administrator or
//! SYSTEM entry is granted. The key file gets the same owner-only list
//! before the key is written into it, also in a data dir outside the
//! profile. What arrives is only ever arguments, read within 2 s and at
//! most 64 KiB, four launches at a time (the others wait their turn).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
use tokio::net::windows::named_pipe::{ClientOptions, NamedPipeServer, ServerOptions};
use zeroize::Zeroizing;

use super::{Claim, Handover, Listening, MAX_HANDOVER};

/// The key's file in the data dir.
const KEY_FILE: &str = "desktop.key";
const KEY_LEN: usize = 32;
const NONCE_LEN: usize = 32;
const MAC_LEN: usize = 32;
/// Windows' `ERROR_PIPE_BUSY`: every instance of the pipe is taken.
const ERROR_PIPE_BUSY: i32 = 231;
/// At most this many launches are read at once.
const READERS: usize = 4;
/// How long a launch has to say everything.
const READ_LIMIT: Duration = Duration::from_secs(2);
/// How long a launch waits for the running app.
const ANSWER_LIMIT: Duration = Duration::from_secs(5);

type Key = Arc<Zeroizing<Vec<u8>>>;

/// Hands `handover` to the app running on `data_dir` (an existing,
/// private folder), or becomes it.
pub fn claim(data_dir: &Path, handover: &Handover) -> Claim {
    let key = match key(data_dir) {
        Ok(key) => Arc::new(key),
        Err(e) => {
            tracing::warn!("no single instance: the launch key cannot be read or made: {e}");
            return Claim::Alone;
        }
    };
    let name = pipe_name(&key);
    for _ in 0..2 {
        // Asked first, then made: Wine ignores "first instance only", so
        // making it first would not tell a running app apart there.
        match send(&name, &key, handover) {
            Ok(()) => return Claim::HandedOver,
            // Nobody listens: become the app.
            Err(Refused::Gone) => {}
            Err(Refused::Impostor) => {
                tracing::warn!(
                    "a program that does not know this workspace's key holds its launch pipe: \
                     starting without handover"
                );
                return Claim::Alone;
            }
            Err(Refused::Failed(e)) => {
                tracing::warn!("the running app did not answer ({e}): starting without handover");
                return Claim::Alone;
            }
        }
        match serve(&name, Arc::clone(&key)) {
            Ok(listening) => return Claim::First(listening),
            // Another launch made it between our two steps: hand over.
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {}
            Err(e) => {
                tracing::warn!("no single instance ({name}): {e}");
                return Claim::Alone;
            }
        }
    }
    Claim::Alone
}

/// The workspace's launch key: read, or made by the first launch (a file
/// only this user may read). A launch that finds it half-written waits.
pub(super) fn key(data_dir: &Path) -> io::Result<Zeroizing<Vec<u8>>> {
    let path = data_dir.join(KEY_FILE);
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                if let Some(key) =
                    crate::secrets::decode_hex(text.trim()).filter(|k| k.len() == KEY_LEN)
                {
                    return Ok(Zeroizing::new(key));
                }
                if Instant::now() > deadline {
                    return Err(io::Error::other(format!(
                        "{} is not a launch key",
                        path.display()
                    )));
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let key = new_key()?;
                // Written whole under another name, then linked in place
                // (which never replaces a file): a crash leaves no
                // half-written key, and a second first launch reads ours.
                let draft = data_dir.join(format!(
                    "{KEY_FILE}.{}",
                    crate::secrets::encode_hex(&new_key()?[..8])
                ));
                let written = (|| {
                    use std::io::Write;
                    // Owner-only from the moment it exists, wherever the
                    // data dir is (a `--data-dir` outside the profile),
                    // and never a file someone else made first.
                    let mut file = colmena_win32::create_private_file(&draft)?;
                    file.write_all(crate::secrets::encode_hex(&key).as_bytes())?;
                    file.sync_all()?;
                    drop(file);
                    std::fs::hard_link(&draft, &path)
                })();
                let _ = std::fs::remove_file(&draft);
                match written {
                    Ok(()) => return Ok(key),
                    // Another launch made it first: read theirs.
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(e),
                }
            }
            Err(e) => return Err(e),
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn new_key() -> io::Result<Zeroizing<Vec<u8>>> {
    let mut key = Zeroizing::new(vec![0u8; KEY_LEN]);
    getrandom::fill(&mut key).map_err(|e| io::Error::other(e.to_string()))?;
    Ok(key)
}

/// The pipe of the app running with `key`: a name derived from it.
pub(super) fn pipe_name(key: &[u8]) -> String {
    let mut hash = Sha256::new();
    hash.update(b"colmena launch pipe\0");
    hash.update(key);
    format!(
        r"\\.\pipe\colmena-{}",
        crate::secrets::encode_hex(&hash.finalize()[..16])
    )
}

/// HMAC-SHA256 under `key` of `label`, then `first`, then `second`.
fn mac(key: &[u8], label: &[u8], first: &[u8], second: &[u8]) -> io::Result<Hmac<Sha256>> {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).map_err(io::Error::other)?;
    mac.update(label);
    mac.update(first);
    mac.update(second);
    Ok(mac)
}

fn nonce() -> io::Result<[u8; NONCE_LEN]> {
    let mut nonce = [0u8; NONCE_LEN];
    getrandom::fill(&mut nonce).map_err(|e| io::Error::other(e.to_string()))?;
    Ok(nonce)
}

fn runtime() -> io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}

/// An instance of the pipe: local clients of this user only (its access
/// list names this user alone; other users of the machine cannot open it).
fn server(name: &str, first: bool) -> io::Result<NamedPipeServer> {
    let mut options = ServerOptions::new();
    options
        .first_pipe_instance(first)
        .reject_remote_clients(true);
    colmena_win32::private_pipe(&options, name.as_ref())
}

/// Creates the pipe's first instance (an error when it exists) and answers
/// launches on a thread of its own from then on.
fn serve(name: &str, key: Key) -> io::Result<Listening> {
    let (ready, made) = mpsc::sync_channel(1);
    let (sender, received) = mpsc::channel();
    let pipe = name.to_owned();
    std::thread::spawn(move || {
        let runtime = match runtime() {
            Ok(runtime) => runtime,
            Err(e) => {
                let _ = ready.send(Err(e));
                return;
            }
        };
        runtime.block_on(async move {
            let mut listener = match server(&pipe, true) {
                Ok(listener) => {
                    let _ = ready.send(Ok(()));
                    listener
                }
                Err(e) => {
                    let _ = ready.send(Err(e));
                    return;
                }
            };
            let readers = Arc::new(tokio::sync::Semaphore::new(READERS));
            loop {
                let connected = listener.connect().await;
                // The next instance before this one is read, so the pipe
                // never disappears while the app runs.
                // Never given up: a pipe that disappeared would make the
                // next launch a second app, and free the name for a squatter.
                let next = loop {
                    match server(&pipe, false) {
                        Ok(next) => break next,
                        Err(e) => {
                            tracing::warn!("the launch pipe cannot take more launches yet: {e}");
                            tokio::time::sleep(Duration::from_millis(500)).await;
                        }
                    }
                };
                let this = std::mem::replace(&mut listener, next);
                if let Err(e) = connected {
                    tracing::warn!("the launch pipe failed to accept: {e}");
                    continue;
                }
                let (sender, key, readers) =
                    (sender.clone(), Arc::clone(&key), Arc::clone(&readers));
                tokio::spawn(async move {
                    // A burst of launches waits its turn (within what a
                    // launch waits) rather than being turned away.
                    let Ok(Ok(permit)) =
                        tokio::time::timeout(ANSWER_LIMIT, readers.acquire_owned()).await
                    else {
                        return;
                    };
                    match tokio::time::timeout(READ_LIMIT, answer(this, &key)).await {
                        Ok(Ok(handover)) => {
                            let _ = sender.send(handover);
                        }
                        Ok(Err(e)) => tracing::warn!("a launch handover was refused: {e}"),
                        Err(_) => tracing::warn!("a launch handover was refused: too slow"),
                    }
                    drop(permit);
                });
            }
        });
    });
    match made.recv() {
        Ok(Ok(())) => Ok(Listening {
            path: PathBuf::from(name),
            received,
        }),
        Ok(Err(e)) => Err(e),
        Err(_) => Err(io::Error::other("the launch pipe's thread ended")),
    }
}

/// The app's side of one launch: proves it knows the key, checks that the
/// launch does, then reads its arguments.
async fn answer(mut pipe: NamedPipeServer, key: &[u8]) -> io::Result<Handover> {
    let mut theirs = [0u8; NONCE_LEN];
    pipe.read_exact(&mut theirs).await?;
    let ours = nonce()?;
    pipe.write_all(&ours).await?;
    pipe.write_all(&mac(key, b"app", &theirs, &ours)?.finalize().into_bytes())
        .await?;
    let mut proof = [0u8; MAC_LEN];
    pipe.read_exact(&mut proof).await?;
    mac(key, b"launch", &ours, &theirs)?
        .verify_slice(&proof)
        .map_err(|_| io::Error::other("the launch does not know this workspace's key"))?;
    let mut line = Vec::new();
    tokio::io::BufReader::new((&mut pipe).take(MAX_HANDOVER + 1))
        .read_until(b'\n', &mut line)
        .await?;
    if line.last() != Some(&b'\n') {
        return Err(io::Error::other("too long, or cut short"));
    }
    let handover = serde_json::from_slice(&line[..line.len() - 1]).map_err(io::Error::other)?;
    pipe.write_all(b"ok\n").await?;
    Ok(handover)
}

/// Why a handover did not happen.
enum Refused {
    /// No pipe any more: the app quit.
    Gone,
    /// Whoever holds the pipe does not know the key.
    Impostor,
    Failed(io::Error),
}

impl From<io::Error> for Refused {
    fn from(e: io::Error) -> Self {
        Refused::Failed(e)
    }
}

/// The launch's side: checks the app knows the key before it says
/// anything but a nonce.
fn send(name: &str, key: &[u8], handover: &Handover) -> Result<(), Refused> {
    runtime()?.block_on(async {
        let deadline = tokio::time::Instant::now() + ANSWER_LIMIT;
        let mut pipe = loop {
            match ClientOptions::new().open(name) {
                Ok(pipe) => break pipe,
                Err(e) if e.raw_os_error() == Some(ERROR_PIPE_BUSY) => {
                    if tokio::time::Instant::now() > deadline {
                        return Err(Refused::Failed(e));
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(Refused::Gone),
                Err(e) => return Err(Refused::Failed(e)),
            }
        };
        let talk = async {
            let ours = nonce()?;
            pipe.write_all(&ours).await?;
            let mut theirs = [0u8; NONCE_LEN];
            pipe.read_exact(&mut theirs).await?;
            let mut proof = [0u8; MAC_LEN];
            pipe.read_exact(&mut proof).await?;
            if mac(key, b"app", &ours, &theirs)?
                .verify_slice(&proof)
                .is_err()
            {
                return Err(Refused::Impostor);
            }
            pipe.write_all(&mac(key, b"launch", &theirs, &ours)?.finalize().into_bytes())
                .await?;
            let mut line = serde_json::to_vec(handover).map_err(io::Error::other)?;
            line.push(b'\n');
            pipe.write_all(&line).await?;
            let mut answer = [0u8; 3];
            pipe.read_exact(&mut answer).await?;
            if &answer == b"ok\n" {
                Ok(())
            } else {
                Err(Refused::Failed(io::Error::other(
                    "the running app did not take the launch",
                )))
            }
        };
        tokio::time::timeout_at(deadline, talk)
            .await
            .unwrap_or_else(|_| Err(Refused::Failed(io::Error::other("no answer in time"))))
    })
}
