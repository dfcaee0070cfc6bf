//! Views stay live when another process writes the same workspace (the CLI
//! next to the running app): its commits are noticed and announced.

#![allow(clippy::unwrap_used)]

mod support;

use std::time::Duration;

use colmena_core::Caller;
use colmena_core::{Change, memory};

#[tokio::test]
async fn a_commit_by_another_connection_is_announced_as_changes() {
    let ws = support::workspace().await;
    let other = support::open(ws.dir.path()).await;
    let mut changes = ws.ctx.subscribe();

    memory::write(
        &other,
        &Caller::ui(&other),
        "Shared",
        "written by the other process",
    )
    .await
    .unwrap();

    // A hang guard, not a timing claim.
    let seen = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            if changes.recv().await.unwrap() == Change::Memories {
                return;
            }
        }
    })
    .await;
    assert!(
        seen.is_ok(),
        "the other connection's commit was never announced"
    );
    assert_eq!(
        memory::read(&ws.ctx, &Caller::ui(&ws.ctx), "Shared")
            .await
            .unwrap()
            .content,
        "written by the other process"
    );
}

#[tokio::test]
async fn its_own_commits_are_not_announced_twice() {
    let ws = support::workspace().await;
    let mut changes = ws.ctx.subscribe();
    memory::write(&ws.ctx, &Caller::ui(&ws.ctx), "Mine", "local")
        .await
        .unwrap();
    // The local change is announced once, by the service that made it.
    assert_eq!(changes.recv().await.unwrap(), Change::Memories);
    // Two looks for other processes' commits may pass: nothing must come
    // of them (an absence check: a slow machine only looks fewer times).
    tokio::time::sleep(Duration::from_millis(1600)).await;
    assert!(
        changes.try_recv().is_err(),
        "a local commit was also taken for another process's"
    );
}
