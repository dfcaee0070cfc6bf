//! Downloading a local model (issue 35): resumable, checked, cancellable.
//!
//! - Only to the configured hosts (Hugging Face and its CDN, or the mirror
//!   `COLMENA_MODEL_MIRROR` names), only over HTTPS (plain HTTP only for a
//!   mirror on this computer), each hop — redirects included — through
//!   `NetGuard`, so an address check happens before any connection.
//! - The file grows as `models/<name>.gguf.part`; a quit or a lost
//!   connection leaves it there and the next pull asks for the rest (HTTP
//!   `Range`). A cancel removes it.
//! - Free disk space is checked before the body is read; the SHA-256 is
//!   checked against the library's value (or the checksum Hugging Face
//!   sends, `X-Linked-Etag`) before the file is renamed into place, and a
//!   mismatch removes the part: a model is never usable half-checked.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;
use url::Url;

use crate::ctx::Ctx;
use crate::error::{AppError, ErrorCode, Result};
use crate::net_guard::{NetGuard, Outgoing};

/// Redirect hops followed (Hugging Face sends one, to its CDN).
const MAX_HOPS: usize = 5;
/// Until the answer's headers come, and between two pieces of the body.
const HEADERS_TIMEOUT: Duration = Duration::from_secs(30);
const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// The most a whole download may take (a 2.5 GB model on a slow link).
const BODY_TIMEOUT: Duration = Duration::from_secs(12 * 3600);
/// Kept free on the disk beyond the file itself.
const DISK_MARGIN: u64 = 256 << 20;
/// How often progress is told.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// Hosts model files are fetched from by default: Hugging Face and the
/// CDNs its `resolve` links redirect to.
pub const DEFAULT_HOSTS: &[&str] = &["huggingface.co", "hf.co"];

/// How far a download has come.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct DownloadProgress {
    pub name: String,
    pub downloaded: u64,
    /// The whole file's size, once known.
    pub total: Option<u64>,
    pub bytes_per_second: u64,
    /// `None` until the speed and the size are known.
    pub seconds_left: Option<u64>,
}

impl DownloadProgress {
    /// How far it has come, readable: `12.3/98.0 MB, 5.1 MB/s, 0:17 left`
    /// (the command line's bar and MCP progress say it alike).
    pub fn summary(&self) -> String {
        let mb = |b: u64| b as f64 / 1e6;
        let speed = mb(self.bytes_per_second);
        match self.total {
            Some(total) if total > 0 => {
                let left = self
                    .seconds_left
                    .map_or_else(String::new, |s| format!(", {}:{:02} left", s / 60, s % 60));
                format!(
                    "{:.1}/{:.1} MB, {speed:.1} MB/s{left}",
                    mb(self.downloaded),
                    mb(total)
                )
            }
            _ => format!("{:.1} MB, {speed:.1} MB/s", mb(self.downloaded)),
        }
    }
}

/// Reads the bytes free on the disk holding a folder (`None`: unknown).
pub type FreeSpace = Arc<dyn Fn(&Path) -> Option<u64> + Send + Sync>;

/// Where a download may go and how the disk is read: the defaults, or
/// what a test puts in its place.
#[derive(Clone)]
pub struct DownloadPolicy {
    pub guard: NetGuard,
    /// Host names allowed (a name also allows its subdomains).
    pub hosts: Vec<String>,
    /// Origins allowed over plain HTTP (a mirror on this computer).
    pub plain_http_origins: Vec<String>,
    /// Bytes free on the disk holding a folder.
    pub free_space: FreeSpace,
}

impl DownloadPolicy {
    /// Hugging Face over HTTPS to public addresses, plus the mirror
    /// `COLMENA_MODEL_MIRROR` names (`HF_ENDPOINT`-style: a base URL).
    pub fn from_env() -> DownloadPolicy {
        let mut policy = DownloadPolicy {
            guard: NetGuard::system(false),
            hosts: DEFAULT_HOSTS.iter().map(|h| (*h).to_owned()).collect(),
            plain_http_origins: Vec::new(),
            free_space: Arc::new(|dir: &Path| fs4::available_space(dir).ok()),
        };
        if let Some(mirror) = mirror() {
            policy = policy.with_mirror(&mirror);
        }
        policy
    }

    /// Also allows `mirror`'s host; a mirror on loopback may be plain HTTP
    /// and is reached even though local addresses are refused otherwise.
    pub fn with_mirror(mut self, mirror: &Url) -> DownloadPolicy {
        if let Some(host) = mirror.host_str() {
            self.hosts.push(host.to_owned());
            let loopback = crate::net_guard::classify_name(host)
                .is_some_and(|c| c.as_str() == "loopback")
                || host
                    .parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback());
            if loopback {
                self.guard = NetGuard::system(true);
                if mirror.scheme() == "http" {
                    self.plain_http_origins
                        .push(mirror.origin().ascii_serialization());
                }
            }
        }
        self
    }

    fn allows(&self, url: &Url) -> Result<()> {
        let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
        let host_ok = self
            .hosts
            .iter()
            .any(|h| host == *h || host.ends_with(&format!(".{h}")));
        if !host_ok {
            return Err(AppError::new(
                ErrorCode::Forbidden,
                format!(
                    "models are downloaded only from {}; '{host}' is not one of them",
                    self.hosts.join(", ")
                ),
            )
            .with_details(json!({ "reason": "host_not_allowed", "host": host })));
        }
        let plain_ok = url.scheme() == "http"
            && self
                .plain_http_origins
                .contains(&url.origin().ascii_serialization());
        if url.scheme() != "https" && !plain_ok {
            return Err(AppError::new(
                ErrorCode::Forbidden,
                format!(
                    "models are downloaded over HTTPS only, not {}",
                    url.scheme()
                ),
            )
            .with_details(json!({ "reason": "https_only" })));
        }
        Ok(())
    }
}

/// `COLMENA_MODEL_MIRROR`, when set to a URL.
pub fn mirror() -> Option<Url> {
    let raw = std::env::var("COLMENA_MODEL_MIRROR").ok()?;
    Url::parse(raw.trim()).ok()
}

/// The policy of a workspace: [`DownloadPolicy::from_env`] unless replaced.
#[derive(Default)]
pub(crate) struct PolicySlot(Mutex<Option<DownloadPolicy>>);

/// Replaces the download policy of a workspace (tests: a loopback server,
/// an injected disk).
pub fn set_policy(ctx: &Ctx, policy: DownloadPolicy) {
    *ctx.slot::<PolicySlot>()
        .0
        .lock()
        .unwrap_or_else(PoisonError::into_inner) = Some(policy);
}

pub(crate) fn policy(ctx: &Ctx) -> DownloadPolicy {
    ctx.slot::<PolicySlot>()
        .0
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
        .unwrap_or_else(DownloadPolicy::from_env)
}

/// The downloads under way in this process, by model name.
#[derive(Default)]
pub(crate) struct Active(Mutex<HashMap<String, (CancellationToken, DownloadProgress)>>);

/// The downloads under way.
pub fn under_way(ctx: &Ctx) -> Vec<DownloadProgress> {
    let active = ctx.slot::<Active>();
    let map = active.0.lock().unwrap_or_else(PoisonError::into_inner);
    let mut list: Vec<DownloadProgress> = map.values().map(|(_, p)| p.clone()).collect();
    list.sort_by(|a, b| a.name.cmp(&b.name));
    list
}

/// Cancels the download of `name` (its part is removed); false when none
/// was under way.
pub fn cancel(ctx: &Ctx, name: &str) -> bool {
    let active = ctx.slot::<Active>();
    let map = active.0.lock().unwrap_or_else(PoisonError::into_inner);
    map.get(name).map(|(token, _)| token.cancel()).is_some()
}

/// What to fetch and how to check it.
#[derive(Debug, Clone)]
pub struct Source {
    pub url: Url,
    /// Lowercase hex; `None`: the server's `X-Linked-Etag`, if it sends one.
    pub sha256: Option<String>,
    pub size: Option<u64>,
}

/// Downloads `source` into `dir` as model `name`, telling `progress` as it
/// goes; the file is whole and checked when this returns `Ok`.
pub async fn fetch(
    ctx: &Ctx,
    dir: &Path,
    name: &str,
    source: &Source,
    progress: &(dyn Fn(&DownloadProgress) + Send + Sync),
) -> Result<PathBuf> {
    let target = crate::llm::local::files::path_of(dir, name)?;
    let part = crate::llm::local::files::part_of(dir, name)?;
    let cancel = CancellationToken::new();
    {
        let active = ctx.slot::<Active>();
        let mut map = active.0.lock().unwrap_or_else(PoisonError::into_inner);
        if map.contains_key(name) {
            return Err(AppError::conflicting_field(
                "name",
                "already_downloading",
                format!("'{name}' is already downloading"),
            ));
        }
        map.insert(
            name.to_owned(),
            (cancel.clone(), started(name, source.size)),
        );
    }
    let active = ctx.slot::<Active>();
    let tell = |p: &DownloadProgress| {
        if let Some(entry) = active
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_mut(name)
        {
            entry.1 = p.clone();
        }
        progress(p);
    };
    let outcome = run(&policy(ctx), &part, name, source, &cancel, &tell).await;
    active
        .0
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(name);
    match outcome {
        Ok(()) => {
            std::fs::rename(&part, &target)?;
            Ok(target)
        }
        Err(e) => {
            // A cancel or a wrong file leaves nothing; a broken connection
            // keeps what came, for the next pull to resume.
            let drop_part = e.code == ErrorCode::Cancelled
                || e.details
                    .as_ref()
                    .and_then(|d| d.get("reason"))
                    .and_then(|r| r.as_str())
                    == Some("checksum_mismatch");
            if drop_part {
                let _gone = std::fs::remove_file(&part);
            }
            Err(e)
        }
    }
}

fn started(name: &str, size: Option<u64>) -> DownloadProgress {
    DownloadProgress {
        name: name.to_owned(),
        downloaded: 0,
        total: size,
        bytes_per_second: 0,
        seconds_left: None,
    }
}

async fn run(
    policy: &DownloadPolicy,
    part: &Path,
    name: &str,
    source: &Source,
    cancel: &CancellationToken,
    tell: &(dyn Fn(&DownloadProgress) + Send + Sync),
) -> Result<()> {
    if let Some(dir) = part.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let have = std::fs::metadata(part).map(|m| m.len()).unwrap_or(0);
    let (response, linked_sha) = tokio::select! {
        () = cancel.cancelled() => return Err(cancelled()),
        answer = request(policy, &source.url, have) => answer?,
    };
    let status = response.status().as_u16();
    let expected_sha = source.sha256.clone().or(linked_sha);
    let resumed_from = match status {
        206 => {
            let start = content_range_start(&response);
            if start != Some(have) {
                return Err(upstream(
                    "broken_range",
                    format!("the server resumed '{name}' at the wrong place"),
                ));
            }
            have
        }
        200 => 0,
        416 if source.size == Some(have) => {
            // Everything came already; only the check is left.
            return verify(part, expected_sha, source.size, cancel).await;
        }
        _ => {
            return Err(upstream(
                "http_status",
                format!("the server answered {status} for '{name}'"),
            ));
        }
    };
    let total = response
        .content_length()
        .map(|n| n + resumed_from)
        .or(source.size);
    if let (Some(total), Some(free)) = (total, part.parent().and_then(|d| (policy.free_space)(d))) {
        let needed = total.saturating_sub(resumed_from) + DISK_MARGIN;
        if free < needed {
            return Err(AppError::precondition(format!(
                "'{name}' needs {} MB of disk and {} MB are free",
                needed >> 20,
                free >> 20
            ))
            .with_details(
                json!({ "reason": "disk_full", "neededBytes": needed, "freeBytes": free }),
            ));
        }
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(resumed_from > 0)
        .write(true)
        .truncate(resumed_from == 0)
        .open(part)?;
    let mut downloaded = resumed_from;
    let started_at = Instant::now();
    let mut last_told = Instant::now() - PROGRESS_EVERY;
    let mut body = response.bytes_stream();
    loop {
        let next = tokio::select! {
            () = cancel.cancelled() => return Err(cancelled()),
            next = tokio::time::timeout(IDLE_TIMEOUT, body.next()) => next,
        };
        let chunk = match next {
            Err(_) => {
                return Err(upstream(
                    "timeout",
                    format!("the download of '{name}' stalled; pull it again to resume"),
                ));
            }
            Ok(None) => break,
            Ok(Some(Err(e))) => {
                file.flush()?;
                return Err(upstream(
                    "connection_lost",
                    format!("the download of '{name}' broke ({e}); pull it again to resume"),
                ));
            }
            Ok(Some(Ok(chunk))) => chunk,
        };
        file.write_all(&chunk)?;
        downloaded += chunk.len() as u64;
        if last_told.elapsed() >= PROGRESS_EVERY {
            last_told = Instant::now();
            tell(&progress_of(
                name,
                downloaded,
                resumed_from,
                total,
                started_at,
            ));
        }
    }
    file.sync_all()?;
    drop(file);
    tell(&progress_of(
        name,
        downloaded,
        resumed_from,
        total,
        started_at,
    ));
    if let Some(total) = total
        && downloaded < total
    {
        return Err(upstream(
            "connection_lost",
            format!("the download of '{name}' ended early; pull it again to resume"),
        ));
    }
    verify(part, expected_sha, total, cancel).await
}

fn progress_of(
    name: &str,
    downloaded: u64,
    resumed_from: u64,
    total: Option<u64>,
    started_at: Instant,
) -> DownloadProgress {
    let secs = started_at.elapsed().as_secs_f64();
    let speed = if secs > 0.0 {
        ((downloaded - resumed_from) as f64 / secs) as u64
    } else {
        0
    };
    DownloadProgress {
        name: name.to_owned(),
        downloaded,
        total,
        bytes_per_second: speed,
        seconds_left: match (total, speed) {
            (Some(total), s) if s > 0 => Some(total.saturating_sub(downloaded) / s),
            _ => None,
        },
    }
}

/// GETs `url` (from byte `from` on), one hop at a time, every hop allowed
/// by the policy and checked by the guard. Also answers the checksum
/// Hugging Face links the file to, if a hop said it.
async fn request(
    policy: &DownloadPolicy,
    url: &Url,
    from: u64,
) -> Result<(reqwest::Response, Option<String>)> {
    let mut headers = reqwest::header::HeaderMap::new();
    if from > 0 {
        let range = format!("bytes={from}-");
        if let Ok(value) = reqwest::header::HeaderValue::from_str(&range) {
            headers.insert(reqwest::header::RANGE, value);
        }
    }
    let outgoing = Outgoing {
        method: reqwest::Method::GET,
        headers,
        body: None,
    };
    let mut current = url.clone();
    let mut linked_sha = None;
    for _ in 0..=MAX_HOPS {
        policy.allows(&current)?;
        // The hop's timeout covers the whole body too (reqwest's total
        // deadline): the body gets hours, the headers their own limit, and
        // a stalled body `IDLE_TIMEOUT` (in `run`).
        let response = tokio::time::timeout(
            HEADERS_TIMEOUT,
            policy.guard.send(&current, &outgoing, BODY_TIMEOUT),
        )
        .await
        .map_err(|_| {
            upstream(
                "timeout",
                format!(
                    "{} did not answer within {} s",
                    host_of(&current),
                    HEADERS_TIMEOUT.as_secs()
                ),
            )
        })??;
        if let Some(sha) = linked_etag(&response) {
            linked_sha = Some(sha);
        }
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok());
        match (response.status().is_redirection(), location) {
            (true, Some(location)) => {
                current = current.join(location).map_err(|_| {
                    upstream(
                        "bad_redirect",
                        "the server redirected to an invalid URL".into(),
                    )
                })?;
            }
            _ => return Ok((response, linked_sha)),
        }
    }
    Err(upstream(
        "too_many_redirects",
        format!("{url} redirected more than {MAX_HOPS} times"),
    ))
}

fn host_of(url: &Url) -> String {
    url.host_str().unwrap_or("the server").to_owned()
}

/// `X-Linked-Etag` as Hugging Face sends it for a large file: its SHA-256.
fn linked_etag(response: &reqwest::Response) -> Option<String> {
    let raw = response.headers().get("x-linked-etag")?.to_str().ok()?;
    let sha = raw
        .trim()
        .trim_start_matches("W/")
        .trim_matches('"')
        .to_ascii_lowercase();
    (sha.len() == 64 && sha.chars().all(|c| c.is_ascii_hexdigit())).then_some(sha)
}

fn content_range_start(response: &reqwest::Response) -> Option<u64> {
    let raw = response
        .headers()
        .get(reqwest::header::CONTENT_RANGE)?
        .to_str()
        .ok()?;
    let range = raw.strip_prefix("bytes ")?;
    range.split('-').next()?.trim().parse().ok()
}

/// Checks the whole file's size and SHA-256, off the async threads (a
/// 2 GB model takes seconds to read) and stopped by a cancel.
async fn verify(
    part: &Path,
    sha256: Option<String>,
    size: Option<u64>,
    cancel: &CancellationToken,
) -> Result<()> {
    let part = part.to_owned();
    let cancel = cancel.clone();
    tokio::task::spawn_blocking(move || verify_now(&part, sha256.as_deref(), size, &cancel))
        .await
        .map_err(|e| AppError::internal(format!("the download's check stopped: {e}")))?
}

fn verify_now(
    part: &Path,
    sha256: Option<&str>,
    size: Option<u64>,
    cancel: &CancellationToken,
) -> Result<()> {
    let len = std::fs::metadata(part)?.len();
    if let Some(size) = size
        && len != size
    {
        return Err(mismatch(format!(
            "the file is {len} bytes, not the {size} it should be"
        )));
    }
    let Some(expected) = sha256 else {
        return Ok(());
    };
    let mut hasher = Sha256::new();
    let mut file = std::fs::File::open(part)?;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        if cancel.is_cancelled() {
            return Err(cancelled());
        }
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    let got = crate::secrets::encode_hex(&hasher.finalize());
    if got != expected.to_ascii_lowercase() {
        return Err(mismatch(format!(
            "its SHA-256 is {got}, not the expected {expected}"
        )));
    }
    Ok(())
}

fn mismatch(why: String) -> AppError {
    AppError::new(
        ErrorCode::Validation,
        format!("the downloaded model is not the expected file: {why}; it was removed"),
    )
    .with_details(json!({ "reason": "checksum_mismatch" }))
}

fn upstream(reason: &str, message: String) -> AppError {
    AppError::new(ErrorCode::Upstream, message).with_details(json!({ "reason": reason }))
}

fn cancelled() -> AppError {
    AppError::new(ErrorCode::Cancelled, "the download was cancelled")
}
