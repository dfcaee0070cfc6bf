//! Run on Windows (here, under Wine): what Windows holds after each call,
//! read back through Windows itself.

use std::os::windows::io::AsHandle;
use std::time::Duration;

use super::*;
use crate::JobLimits;
use crate::sddl::{self, Sid, entries, is_protected};

fn me() -> Sid {
    user_sid().unwrap()
}

#[test]
fn this_users_sid_is_read() {
    let sid = me();
    assert!(sid.as_str().starts_with("S-1-5-"), "{sid:?}");
}

#[test]
fn a_private_folder_and_what_is_made_in_it_are_this_users_alone() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("private");
    create_private_dir(&folder).unwrap();
    let list = dacl_of(&folder).unwrap();
    assert!(is_protected(&list), "{list}");
    let sid = me();
    assert_eq!(
        entries(&list),
        [format!("A;OICI;FA;;;{}", sid.as_str())],
        "{list}"
    );

    let file = folder.join("key");
    std::fs::write(&file, "secret").unwrap();
    let list = dacl_of(&file).unwrap();
    assert_eq!(
        entries(&list),
        [format!("A;ID;FA;;;{}", sid.as_str())],
        "{list}"
    );
}

#[test]
fn a_private_file_is_this_users_alone_from_its_first_byte() {
    use std::io::{Read, Seek, Write};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("key");
    let mut file = create_private_file(&path).unwrap();
    let list = dacl_of(&path).unwrap();
    assert!(is_protected(&list), "{list}");
    assert_eq!(
        entries(&list),
        [format!("A;;FA;;;{}", me().as_str())],
        "{list}"
    );
    file.write_all(b"secret").unwrap();
    file.rewind().unwrap();
    let mut back = String::new();
    file.read_to_string(&mut back).unwrap();
    assert_eq!(back, "secret");
}

/// What Wine can check too (it keeps no list, and answers with one made
/// from the Unix mode bits the list it was given became; it does not pass
/// a folder's list on to the files made in it): no entry for anyone but
/// this user — and SYSTEM, which Wine always adds.
#[test]
fn no_other_user_is_granted_a_private_file_or_folder() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("private");
    create_private_dir(&folder).unwrap();
    let own = dir.path().join("own");
    drop(create_private_file(&own).unwrap());
    let me = me();
    for path in [&folder, &own] {
        let list = dacl_of(path).unwrap();
        let grants: Vec<&str> = entries(&list)
            .into_iter()
            .filter_map(|entry| entry.rsplit(';').next())
            .collect();
        assert!(grants.contains(&me.as_str()), "{list}");
        assert!(
            grants.iter().all(|sid| *sid == me.as_str() || *sid == "SY"),
            "{}: {list}",
            path.display()
        );
    }
}

#[test]
fn private_files_and_folders_are_only_ever_new() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("taken");
    std::fs::write(&path, "someone else's").unwrap();
    let error = create_private_file(&path).unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::AlreadyExists, "{error}");
    assert!(error.to_string().contains("taken"), "{error}");
    let error = create_private_dir(dir.path()).unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::AlreadyExists, "{error}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "someone else's");
}

#[tokio::test]
async fn the_pipe_admits_this_user_alone() {
    use tokio::net::windows::named_pipe::{ClientOptions, ServerOptions};
    let name = format!(r"\\.\pipe\colmena-win32-test-{}", std::process::id());
    let mut options = ServerOptions::new();
    options
        .first_pipe_instance(true)
        .reject_remote_clients(true);
    let server = private_pipe(&options, name.as_ref()).unwrap();
    let list = dacl_of_handle(server.as_handle()).unwrap();
    let sid = me();
    let found = entries(&list);
    assert_eq!(found.len(), 1, "{list}");
    assert!(
        found[0].starts_with("A;;") && found[0].ends_with(sid.as_str()),
        "{list}"
    );
    // Its owner still connects.
    let connected = server.connect();
    let _client = ClientOptions::new().open(&name).unwrap();
    connected.await.unwrap();
    // What it was made from is the text `sddl` writes.
    assert_eq!(
        sddl::owner_only_pipe(&sid),
        format!("D:P(A;;GA;;;{})", sid.as_str())
    );
}

#[test]
fn a_job_holds_the_limits_it_was_given() {
    let limits = JobLimits {
        memory: Some(512 << 20),
        cpu_time: Some(Duration::from_secs(65)),
        processes: Some(64),
    };
    let job = Job::create(&limits).unwrap();
    let held = job.settings().unwrap();
    assert_eq!(
        held,
        JobSettings {
            flags: limits.flags(),
            cpu_ticks: 650_000_000,
            active_processes: 64,
            memory_bytes: 512 << 20,
        }
    );
}

/// Ten minutes of `ping`: one process, which starts no other.
fn long_ping() -> std::process::Child {
    std::process::Command::new("ping")
        .args(["-n", "600", "127.0.0.1"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn closing_a_job_ends_the_processes_in_it() {
    let job = Job::create(&JobLimits::tree_only()).unwrap();
    let mut child = long_ping();
    job.assign(child.as_handle()).unwrap();
    assert!(job.process_ids().unwrap().contains(&child.id()));
    assert!(
        child.try_wait().unwrap().is_none(),
        "alive before the close"
    );
    drop(job);
    // Two minutes of the ten it would live: a generous deadline.
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "still running two minutes after its job closed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_job_full_of_processes_takes_no_more() {
    let job = Job::create(&JobLimits {
        processes: Some(1),
        ..JobLimits::tree_only()
    })
    .unwrap();
    let (mut first, mut second) = (long_ping(), long_ping());
    job.assign(first.as_handle()).unwrap();
    let refused = job.assign(second.as_handle());
    let _ = second.kill();
    drop(job);
    let _ = first.wait();
    let _ = second.wait();
    assert!(refused.is_err(), "a second process joined a job of one");
}
