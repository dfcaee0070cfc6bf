//! Downloading a local model (issue 35) from a loopback HTTP server that
//! serves the real test GGUF with `Range` support, and can be told to cut
//! the connection mid-file or to redirect elsewhere. Nothing leaves this
//! machine: the download policy allows only this server (and the refusals
//! are of hosts the policy does not name, refused before any connection).

#![allow(clippy::unwrap_used)]

mod common;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use colmena_core::models::download::{self, DownloadPolicy, DownloadProgress};
use colmena_core::models::local;
use colmena_core::net_guard::NetGuard;
use colmena_core::{Ctx, ErrorCode};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

fn gguf() -> PathBuf {
    common::test_gguf()
}

/// A file server on 127.0.0.1: `GET /model.gguf` (with `Range`), `GET
/// /elsewhere` (a redirect to a host the policy does not allow).
struct Server {
    base: String,
    /// Cut the connection after this many body bytes (0: never), once.
    cut_after: Arc<AtomicU64>,
    /// Requests that carried a Range header.
    ranged: Arc<AtomicUsize>,
    requests: Arc<AtomicUsize>,
}

async fn serve(bytes: Arc<Vec<u8>>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let cut_after = Arc::new(AtomicU64::new(0));
    let ranged = Arc::new(AtomicUsize::new(0));
    let requests = Arc::new(AtomicUsize::new(0));
    let (cut, seen_range, seen) = (cut_after.clone(), ranged.clone(), requests.clone());
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let bytes = bytes.clone();
            let (cut, seen_range, seen) = (cut.clone(), seen_range.clone(), seen.clone());
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    if socket.read(&mut byte).await.unwrap_or(0) == 0 {
                        return;
                    }
                    head.push(byte[0]);
                }
                seen.fetch_add(1, Ordering::SeqCst);
                let head = String::from_utf8_lossy(&head).to_string();
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
                if path == "/elsewhere" {
                    let answer = "HTTP/1.1 302 Found\r\nLocation: https://downloads.example.net/model.gguf\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
                    let _ = socket.write_all(answer.as_bytes()).await;
                    return;
                }
                let from: u64 = head
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("range: bytes=")
                            .map(str::to_owned)
                    })
                    .map(|r| {
                        seen_range.fetch_add(1, Ordering::SeqCst);
                        r.trim_end_matches('-').trim().parse().unwrap()
                    })
                    .unwrap_or(0);
                let body = &bytes[from as usize..];
                let status = if from > 0 {
                    format!(
                        "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes {from}-{}/{}\r\n",
                        bytes.len() - 1,
                        bytes.len()
                    )
                } else {
                    "HTTP/1.1 200 OK\r\n".to_owned()
                };
                let head = format!(
                    "{status}Content-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                if socket.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let limit = cut.swap(0, Ordering::SeqCst);
                let send = if limit > 0 {
                    &body[..limit as usize]
                } else {
                    body
                };
                for chunk in send.chunks(64 * 1024) {
                    if socket.write_all(chunk).await.is_err() {
                        return;
                    }
                }
                // A cut: the connection closes with the body unfinished.
                let _ = socket.shutdown().await;
            });
        }
    });
    Server {
        base,
        cut_after,
        ranged,
        requests,
    }
}

fn policy_for(server: &Server) -> DownloadPolicy {
    let mirror = url::Url::parse(&server.base).unwrap();
    DownloadPolicy {
        guard: NetGuard::system(true),
        hosts: Vec::new(),
        plain_http_origins: Vec::new(),
        free_space: Arc::new(|_: &Path| Some(u64::MAX)),
    }
    .with_mirror(&mirror)
}

async fn setup() -> (tempfile::TempDir, Ctx, Server, Vec<u8>) {
    let bytes = std::fs::read(gguf()).unwrap();
    let server = serve(Arc::new(bytes.clone())).await;
    let (dir, ctx) = common::workspace().await;
    download::set_policy(&ctx, policy_for(&server));
    (dir, ctx, server, bytes)
}

fn sha(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn no_progress() -> impl Fn(&DownloadProgress) + Send + Sync {
    |_| {}
}

#[tokio::test]
async fn a_url_downloads_with_progress_and_becomes_a_usable_model() {
    let (dir, ctx, server, bytes) = setup().await;
    let seen: Arc<Mutex<Vec<DownloadProgress>>> = Arc::default();
    let into = seen.clone();
    let model = local::pull(
        &ctx,
        &format!("{}/model.gguf", server.base),
        Some("smollm2"),
        &move |p: &DownloadProgress| into.lock().unwrap().push(p.clone()),
    )
    .await
    .unwrap();
    assert_eq!(model.id.as_str(), "local/smollm2");
    let on_disk = std::fs::read(dir.path().join("models/smollm2.gguf")).unwrap();
    assert_eq!(sha(&on_disk), sha(&bytes));
    let seen = seen.lock().unwrap();
    let last = seen.last().unwrap();
    assert_eq!(last.downloaded, bytes.len() as u64);
    assert_eq!(last.total, Some(bytes.len() as u64));
    assert!(
        seen.windows(2).all(|w| w[0].downloaded <= w[1].downloaded),
        "progress only grows"
    );
    assert!(download::under_way(&ctx).is_empty());
}

#[tokio::test]
async fn a_download_cut_mid_file_resumes_from_where_it_stopped() {
    let (dir, ctx, server, bytes) = setup().await;
    server.cut_after.store(40 * 1024 * 1024, Ordering::SeqCst);
    let url = format!("{}/model.gguf", server.base);
    let err = local::pull(&ctx, &url, Some("smollm2"), &no_progress())
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Upstream, "{err:?}");
    assert_eq!(
        err.details.as_ref().unwrap()["reason"],
        "connection_lost",
        "{err:?}"
    );
    let part = dir.path().join("models/smollm2.gguf.part");
    assert_eq!(
        std::fs::metadata(&part).unwrap().len(),
        40 * 1024 * 1024,
        "what came is kept"
    );
    // Listed as downloading; a run on it would say so.
    let listed = local::list(&ctx).await.unwrap();
    assert!(listed[0].downloading, "{listed:?}");

    local::pull(&ctx, &url, Some("smollm2"), &no_progress())
        .await
        .unwrap();
    assert_eq!(
        server.ranged.load(Ordering::SeqCst),
        1,
        "the rest was asked for with Range"
    );
    let on_disk = std::fs::read(dir.path().join("models/smollm2.gguf")).unwrap();
    assert_eq!(sha(&on_disk), sha(&bytes));
    assert!(!part.exists());
}

#[tokio::test]
async fn a_wrong_checksum_is_refused_and_the_file_removed() {
    let (dir, ctx, server, _) = setup().await;
    let source = download::Source {
        url: url::Url::parse(&format!("{}/model.gguf", server.base)).unwrap(),
        sha256: Some("0".repeat(64)),
        size: None,
    };
    let models = dir.path().join("models");
    let err = download::fetch(&ctx, &models, "wrong", &source, &no_progress())
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    assert_eq!(err.details.as_ref().unwrap()["reason"], "checksum_mismatch");
    assert!(!models.join("wrong.gguf").exists() && !models.join("wrong.gguf.part").exists());
}

#[tokio::test]
async fn a_cancelled_download_leaves_nothing_behind() {
    let (dir, ctx, server, _) = setup().await;
    let url = format!("{}/model.gguf", server.base);
    let ctx2 = ctx.clone();
    let cancelled = Arc::new(AtomicUsize::new(0));
    let flag = cancelled.clone();
    // Cancelled from its own progress: certainly mid-file.
    let err = local::pull(&ctx, &url, Some("smollm2"), &move |p: &DownloadProgress| {
        if p.downloaded > 0 && flag.fetch_add(1, Ordering::SeqCst) == 0 {
            assert!(download::cancel(&ctx2, "smollm2"));
        }
    })
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Cancelled, "{err:?}");
    assert!(!dir.path().join("models/smollm2.gguf.part").exists());
    assert!(local::list(&ctx).await.unwrap().is_empty());
    assert!(
        colmena_core::models::get(&ctx, &"local/smollm2".into())
            .await
            .is_err(),
        "no entry is left"
    );
}

#[tokio::test]
async fn a_full_disk_is_refused_before_the_file_is_written() {
    let (dir, ctx, server, _) = setup().await;
    let mut policy = policy_for(&server);
    policy.free_space = Arc::new(|_: &Path| Some(10 * 1024 * 1024));
    download::set_policy(&ctx, policy);
    let err = local::pull(
        &ctx,
        &format!("{}/model.gguf", server.base),
        Some("smollm2"),
        &no_progress(),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Precondition);
    assert_eq!(
        err.details.as_ref().unwrap()["reason"],
        "disk_full",
        "{err:?}"
    );
    assert_eq!(
        std::fs::metadata(dir.path().join("models/smollm2.gguf.part"))
            .map(|m| m.len())
            .unwrap_or(0),
        0
    );
}

#[tokio::test]
async fn other_hosts_and_plain_http_are_refused_before_any_connection() {
    let (_dir, ctx, server, _) = setup().await;
    // A redirect to a host the policy does not allow: refused at that hop.
    let err = local::pull(
        &ctx,
        &format!("{}/elsewhere", server.base),
        Some("x"),
        &no_progress(),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Forbidden, "{err:?}");
    assert_eq!(err.details.as_ref().unwrap()["reason"], "host_not_allowed");
    let before = server.requests.load(Ordering::SeqCst);
    for (url, reason) in [
        (
            "https://downloads.example.net/model.gguf",
            "host_not_allowed",
        ),
        ("http://huggingface.co/x/resolve/main/m.gguf", "https_only"),
    ] {
        let mut policy = DownloadPolicy::from_env();
        policy.guard = NetGuard::system(false);
        download::set_policy(&ctx, policy);
        let err = local::pull(&ctx, url, Some("x"), &no_progress())
            .await
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden, "{url}: {err:?}");
        assert_eq!(err.details.as_ref().unwrap()["reason"], reason, "{url}");
    }
    assert_eq!(server.requests.load(Ordering::SeqCst), before);
}

#[tokio::test]
async fn the_cli_pulls_a_library_model_from_a_mirror_and_checks_it() {
    let bytes = std::fs::read(gguf()).unwrap();
    let server = serve(Arc::new(bytes)).await;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_owned();
    let mirror = format!("{}/hf", server.base);
    let out = tokio::task::spawn_blocking(move || {
        common::colmena(&data)
            .args(["--json", "model", "pull", "smollm2-135m"])
            .env("COLMENA_MODEL_MIRROR", &mirror)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let model: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(model["id"], "local/smollm2-135m");
    let progress = String::from_utf8_lossy(&out.stderr);
    assert!(
        progress.contains("smollm2-135m [") && progress.contains("MB/s"),
        "{progress}"
    );
    assert!(dir.path().join("models/smollm2-135m.gguf").is_file());
    let library = common::ok_json(common::colmena(dir.path()).args(["model", "library"]));
    let entries = library.as_array().unwrap();
    assert!(entries.len() >= 5, "{library}");
    assert_eq!(
        entries.iter().filter(|m| m["recommended"] == true).count(),
        1
    );
}

#[tokio::test]
async fn the_window_can_name_a_library_model_or_a_url_but_never_a_file() {
    let (_dir, ctx, _server, _) = setup().await;
    let err = local::pull_download(&ctx, &gguf().display().to_string(), &no_progress())
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    assert_eq!(err.details.as_ref().unwrap()["reason"], "not_downloadable");
    assert!(
        local::list(&ctx).await.unwrap().is_empty(),
        "nothing was read or copied"
    );
}

#[tokio::test]
async fn an_ai_client_pulls_a_library_model_over_mcp_with_progress_in_bytes() {
    let bytes = std::fs::read(gguf()).unwrap();
    let size = bytes.len() as u64;
    let server = serve(Arc::new(bytes)).await;
    let dir = tempfile::tempdir().unwrap();
    let config = serde_json::json!({
        "colmena": env!("CARGO_BIN_EXE_colmena"),
        "data_dir": dir.path(),
        "mirror": format!("{}/hf", server.base),
        "model": "smollm2-135m",
    });
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/mcp/model_pull_check.py");
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(common::mcp_python())
            .arg(script)
            .arg(config.to_string())
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the Python MCP client failed:\n{}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    let findings: serde_json::Value =
        serde_json::from_str(stdout.lines().last().unwrap_or_default()).unwrap();
    // Progress is best effort (a slow client misses steps, never memory):
    // what came counts bytes of this file, against its size.
    let last = findings["last"].as_f64().unwrap();
    assert!(last > 0.0 && last <= size as f64, "{findings}");
    assert_eq!(findings["total"].as_f64(), Some(size as f64), "{findings}");
    assert!(
        findings["message"].as_str().unwrap().contains("MB/s"),
        "{findings}"
    );
    assert_eq!(
        findings["path"]["details"]["reason"], "not_downloadable",
        "{findings}"
    );
    assert_eq!(
        findings["elsewhere"]["details"]["reason"], "host_not_allowed",
        "{findings}"
    );
    assert!(dir.path().join("models/smollm2-135m.gguf").is_file());
    let default = common::ok_json(common::colmena(dir.path()).args(["model", "default"]));
    assert_eq!(default["defaultModel"], "local/smollm2-135m");
}
