//! The handover on every OS: the same tests for the socket and the pipe.

use super::*;
use std::sync::mpsc;

/// The first launch on `data_dir`: it listens, and what is handed to it
/// arrives on the returned channel.
fn first_launch(data_dir: &std::path::Path) -> mpsc::Receiver<Handover> {
    let Claim::First(listening) = claim(data_dir, &handover(&[])) else {
        panic!("the first launch must listen");
    };
    let (tx, rx) = mpsc::channel();
    listening.forward(move |h| tx.send(h).unwrap());
    rx
}

/// A real launch after an attack is still handed over.
fn still_serves(data_dir: &std::path::Path, received: &mpsc::Receiver<Handover>) {
    assert!(matches!(
        claim(data_dir, &handover(&["x"])),
        Claim::HandedOver
    ));
    // A hang guard, not a timing claim.
    let got = received.recv_timeout(std::time::Duration::from_secs(60));
    assert_eq!(got.unwrap().args, ["x"]);
}

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

#[cfg(unix)]
#[test]
fn a_socket_left_by_a_dead_app_is_taken_over() {
    let dir = tempfile::tempdir().unwrap();
    let path = socket_path(dir.path());
    drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
    assert!(path.exists());
    assert!(matches!(claim(dir.path(), &handover(&[])), Claim::First(_)));
}

#[cfg(unix)]
#[test]
fn garbage_on_the_socket_is_refused_and_the_app_keeps_serving() {
    use std::io::{Read, Write};
    let dir = tempfile::tempdir().unwrap();
    let rx = first_launch(dir.path());
    // A client that drips bytes holds one reader, not the socket.
    let mut drip = std::os::unix::net::UnixStream::connect(socket_path(dir.path())).unwrap();
    drip.write_all(b"{").unwrap();
    let mut raw = std::os::unix::net::UnixStream::connect(socket_path(dir.path())).unwrap();
    raw.write_all(b"rm -rf /\n").unwrap();
    let mut answer = String::new();
    let _ = raw.read_to_string(&mut answer);
    assert_eq!(answer, "");
    still_serves(dir.path(), &rx);
}

#[cfg(unix)]
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

/// Windows: someone who cannot read the data dir created the pipe first
/// (pipe names can be listed): the launch learns it from the handshake,
/// says nothing but its nonce, and runs on its own.
#[cfg(windows)]
#[test]
fn a_squatter_on_the_pipe_gets_nothing_and_the_launch_runs_alone() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = tempfile::tempdir().unwrap();
    // The key an earlier launch made; no app runs now.
    let name = windows::pipe_name(&windows::key(dir.path()).unwrap());
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (heard_tx, heard) = mpsc::channel();
    let squatter = runtime.block_on(async {
        tokio::net::windows::named_pipe::ServerOptions::new()
            .create(&name)
            .unwrap()
    });
    runtime.spawn(async move {
        let mut pipe = squatter;
        pipe.connect().await.unwrap();
        let mut nonce = [0u8; 32];
        pipe.read_exact(&mut nonce).await.unwrap();
        // A made-up nonce and proof.
        pipe.write_all(&[7u8; 64]).await.unwrap();
        let mut rest = Vec::new();
        let _ = pipe.read_to_end(&mut rest).await;
        heard_tx.send(rest).unwrap();
    });
    assert!(matches!(
        claim(dir.path(), &handover(&["colmena://canvas/secret"])),
        Claim::Alone
    ));
    let rest = heard
        .recv_timeout(std::time::Duration::from_secs(60))
        .unwrap();
    assert!(
        rest.is_empty(),
        "the launch said more than its nonce: {rest:?}"
    );
}

/// Windows: a client that does not know the key is refused, and the app
/// keeps serving real launches.
#[cfg(windows)]
#[test]
fn a_launch_without_the_key_is_refused_and_the_app_keeps_serving() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = tempfile::tempdir().unwrap();
    let rx = first_launch(dir.path());
    let name = listening_name(dir.path());
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let answer = runtime.block_on(async {
        let mut pipe = tokio::net::windows::named_pipe::ClientOptions::new()
            .open(&name)
            .unwrap();
        pipe.write_all(&[1u8; 32]).await.unwrap();
        let mut reply = [0u8; 64];
        pipe.read_exact(&mut reply).await.unwrap();
        // A wrong proof: the app may close the pipe as soon as it has read
        // it, so these writes may find it closed — only the answer counts.
        let _ = pipe.write_all(&[2u8; 32]).await;
        let _ = pipe
            .write_all(b"{\"args\":[\"rm -rf /\"],\"cwd\":\"C:\\\\\"}\n")
            .await;
        let mut answer = Vec::new();
        let _ = pipe.read_to_end(&mut answer).await;
        answer
    });
    assert!(answer.is_empty(), "refused without an answer: {answer:?}");
    still_serves(dir.path(), &rx);
}

#[cfg(windows)]
fn listening_name(data_dir: &std::path::Path) -> String {
    windows::pipe_name(&windows::key(data_dir).unwrap())
}
