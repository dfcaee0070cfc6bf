//! Windows (run under Wine here): the file tools stay beneath the
//! workspace — no `..`, no absolute or drive paths, no device names or
//! hidden streams, no links followed, no writes into `.git`.

#![allow(clippy::unwrap_used)]

use serde_json::json;

use super::*;

fn root() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    (dir, root)
}

fn refusal(root: &Path, tool: &str, args: Value) -> String {
    let err = call(root, tool, &args).unwrap_err();
    format!(
        "{} {}",
        err.message,
        serde_json::to_string(&err.details).unwrap_or_default()
    )
}

#[test]
fn files_are_written_read_listed_moved_and_deleted_in_the_workspace() {
    let (_dir, root) = root();
    call(
        &root,
        "fs_write",
        &json!({"path": "notes/bees.md", "content": "Bees dance."}),
    )
    .unwrap();
    assert_eq!(
        call(&root, "fs_read", &json!({"path": "notes/bees.md"})).unwrap(),
        "Bees dance."
    );
    assert_eq!(
        std::fs::read_to_string(root.join("notes").join("bees.md")).unwrap(),
        "Bees dance."
    );
    let listed = call(&root, "fs_list", &json!({"path": ".", "recursive": true})).unwrap();
    assert_eq!(listed, "notes/\nnotes/bees.md");
    let found = call(&root, "fs_search", &json!({"query": "dance"})).unwrap();
    assert!(
        found.contains("notes/bees.md") && found.contains("1: Bees dance."),
        "{found}"
    );
    call(
        &root,
        "fs_move",
        &json!({"from": "notes/bees.md", "to": "bees.md"}),
    )
    .unwrap();
    call(&root, "fs_delete", &json!({"path": "notes"})).unwrap();
    call(&root, "fs_delete", &json!({"path": "bees.md"})).unwrap();
    assert_eq!(call(&root, "fs_list", &json!({})).unwrap(), "(empty)");
}

#[test]
fn paths_out_of_the_workspace_are_refused() {
    let (dir, root) = root();
    std::fs::write(dir.path().join("secret.txt"), "outside").unwrap();
    for path in [
        r"..\secret.txt",
        "../secret.txt",
        r"C:\Windows\win.ini",
        "C:secret.txt",
        r"\secret.txt",
        r"\\server\share\x",
    ] {
        let why = refusal(&root, "fs_read", json!({ "path": path }));
        assert!(why.contains("outside_workspace"), "{path}: {why}");
    }
}

#[test]
fn devices_streams_and_trimmed_names_are_refused() {
    let (_dir, root) = root();
    for path in [
        "nul",
        "CON.txt",
        "logs/com1",
        "lpt9.md",
        "a.txt:hidden",
        "trailing.",
        "dir /x.txt",
    ] {
        let why = refusal(&root, "fs_write", json!({ "path": path, "content": "x" }));
        assert!(why.contains("reserved_name"), "{path}: {why}");
    }
    assert_eq!(
        call(&root, "fs_list", &json!({})).unwrap(),
        "(empty)",
        "nothing was made"
    );
}

#[test]
fn git_metadata_is_never_written() {
    let (_dir, root) = root();
    let why = refusal(
        &root,
        "fs_write",
        json!({ "path": r".GIT\config", "content": "x" }),
    );
    assert!(why.contains("git_metadata"), "{why}");
}

/// Links Windows reports as reparse points (symbolic links, junctions)
/// are refused on the way and at the end, listed as links, and deleted as
/// links. Not run under Wine: Wine 8 reports a link as the folder or file
/// it points to (no reparse points), so nothing can tell it apart there.
#[test]
fn a_link_out_of_the_workspace_is_never_followed() {
    let (dir, root) = root();
    let outside = dir.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "TOP-SECRET").unwrap();
    std::os::windows::fs::symlink_dir(&outside, root.join("out")).unwrap();
    std::os::windows::fs::symlink_file(outside.join("secret.txt"), root.join("s.txt")).unwrap();
    for path in [r"out\secret.txt", "s.txt"] {
        let why = refusal(&root, "fs_read", json!({ "path": path }));
        assert!(why.contains("outside_workspace"), "{path}: {why}");
    }
    let why = refusal(
        &root,
        "fs_write",
        json!({ "path": r"out\new.txt", "content": "x" }),
    );
    assert!(why.contains("outside_workspace"), "{why}");
    assert!(!outside.join("new.txt").exists(), "nothing written outside");
    let listed = call(&root, "fs_list", &json!({"recursive": true})).unwrap();
    assert!(listed.contains("out (link, not followed)"), "{listed}");
    assert!(
        !listed.contains("secret"),
        "the listing went through the link: {listed}"
    );
    // Deleting the link removes the link, not what it points to.
    call(&root, "fs_delete", &json!({"path": "out"})).unwrap();
    assert_eq!(
        std::fs::read_to_string(outside.join("secret.txt")).unwrap(),
        "TOP-SECRET"
    );
}
