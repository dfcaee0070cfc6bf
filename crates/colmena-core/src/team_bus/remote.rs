//! A client of a team's bus: another machine's `colmena serve`, reached over
//! its REST API with one author's token (issue 17, SPEC X1).
//!
//! Why it lives in core: the CLI speaks through it today (`colmena message
//! --server`), and a desktop on a team bus will send through the same code.
//!
//! What it promises about a send: **at most once, and as long as you are
//! willing to wait, exactly once.** Every send carries a message id (the
//! caller's, or a fresh UUID); while the link is down, or the answer never
//! came back, or the server says it is busy, the same request is sent again
//! with the same id until it is acknowledged or the caller's patience runs
//! out. The server keeps one message per (sender, id), so a retry after a
//! send that did land returns that message instead of a second copy
//! (`client_ids`).
//!
//! Safe by default: the server's certificate is always verified (a team's
//! own CA may be added, never "accept anything"); plain `http://` only to
//! this machine's loopback, since the token crosses the link on every
//! request; the token never appears in an error or a log line; what the
//! server answers is data — an error body is read as `{code, message,
//! details}` and nothing else.

use std::net::IpAddr;
use std::time::Duration;

use reqwest::{Certificate, Method, StatusCode};
use serde::de::DeserializeOwned;
use serde_json::json;
use url::Url;

use crate::error::{AppError, ErrorCode, Result};
use crate::inbox::authors::DirectoryEntry;
use crate::inbox::messages::{InboxQuery, Message, MessageReceipt, SendMessage};

/// The longest a send keeps trying, whatever it is asked.
pub const MAX_PATIENCE: Duration = Duration::from_secs(7 * 24 * 3600);
/// How long one request may take before it counts as lost.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);
/// The first pause between attempts; doubled up to [`MAX_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(200);
const MAX_PAUSE: Duration = Duration::from_secs(2);
/// The most of an answer read: an inbox of 500 messages of 64 KiB, and
/// room for their fields. A bus that sends more is not speaking Colmena.
const MAX_ANSWER_BYTES: usize = 40 * 1024 * 1024;
/// How much of what the bus says about a failure is kept and shown.
const MAX_ERROR_CHARS: usize = 500;

/// Where a team's bus is and who this client is on it.
#[derive(Clone)]
pub struct RemoteBusConfig {
    /// The server's base URL (`https://bus.example:8787`).
    pub url: String,
    /// The author's bearer token.
    pub token: String,
    /// A PEM bundle of extra CAs to trust (a team's own), if any.
    pub ca_pem: Option<Vec<u8>>,
}

impl std::fmt::Debug for RemoteBusConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteBusConfig")
            .field("url", &self.url)
            .field("token", &"…")
            .field("ca_pem", &self.ca_pem.as_ref().map(Vec::len))
            .finish()
    }
}

/// A connection-less client of one bus, as one author.
#[derive(Clone)]
pub struct RemoteBus {
    base: Url,
    token: String,
    http: reqwest::Client,
}

impl RemoteBus {
    /// Checks the URL and the CA bundle; nothing is sent yet.
    pub fn new(config: RemoteBusConfig) -> Result<RemoteBus> {
        let base = base_url(&config.url)?;
        if config.token.trim().is_empty() {
            return Err(AppError::invalid_field(
                "token",
                "required",
                "a team bus needs your token (`colmena author add` or `author rotate-token` on the server prints it)",
            ));
        }
        let mut builder = reqwest::Client::builder()
            .timeout(ATTEMPT_TIMEOUT)
            .connect_timeout(ATTEMPT_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("colmena/", env!("CARGO_PKG_VERSION")));
        if base.scheme() == "http" {
            // Plain HTTP is for this machine only: never through a proxy
            // (the token would reach it in clear), and `localhost` is the
            // loopback address, whatever a hosts file says.
            builder = builder.no_proxy();
            let port = base.port_or_known_default().unwrap_or(80);
            builder = builder.resolve(
                "localhost",
                std::net::SocketAddr::from(([127, 0, 0, 1], port)),
            );
        }
        if let Some(pem) = &config.ca_pem {
            let certificates = Certificate::from_pem_bundle(pem).map_err(|e| {
                AppError::invalid_field("ca", "invalid_pem", format!("the CA file is not PEM: {e}"))
            })?;
            if certificates.is_empty() {
                return Err(AppError::invalid_field(
                    "ca",
                    "invalid_pem",
                    "the CA file holds no certificate",
                ));
            }
            // Added to the system's roots, never instead of verification.
            builder = builder.tls_certs_merge(certificates);
        }
        let http = builder
            .build()
            .map_err(|e| AppError::internal(format!("could not set up HTTPS: {e}")))?;
        Ok(RemoteBus {
            base,
            token: config.token,
            http,
        })
    }

    /// The server's address, as configured (for messages to a person).
    pub fn url(&self) -> &Url {
        &self.base
    }

    /// Sends `message` from `from` to `to`, again and again with the same
    /// message id while the bus cannot be reached, for at most `patience`.
    /// The receipt is the server's; `Err` with code `upstream` and
    /// `details.reason` `unreachable` says it was never acknowledged (it may
    /// still have landed: sending again with the same id is safe).
    pub async fn send(
        &self,
        from: &str,
        to: &str,
        mut message: SendMessage,
        patience: Duration,
    ) -> Result<MessageReceipt> {
        let message_id = message
            .message_id
            .get_or_insert_with(|| uuid::Uuid::new_v4().to_string())
            .clone();
        let url = self.endpoint(&["author", from, "message-to", to])?;
        let body = json!({
            "body": message.body,
            "priority": message.priority,
            "reply_to": message.reply_to,
            "message_id": message_id,
        });
        self.with_patience(patience, || {
            self.request::<MessageReceipt>(Method::POST, url.clone(), Some(&body))
        })
        .await
        .map_err(|e| with_message_id(e, &message_id))
    }

    /// An author's inbox on the team bus (marking read unless `peek`).
    pub async fn inbox(&self, author: &str, query: &InboxQuery) -> Result<Vec<Message>> {
        let mut url = self.endpoint(&["author", author, "inbox"])?;
        {
            let mut pairs = url.query_pairs_mut();
            if let Some(since) = &query.since {
                pairs.append_pair("since", since);
            }
            if let Some(unread) = query.unread_only {
                pairs.append_pair("unread_only", if unread { "true" } else { "false" });
            }
            if query.peek == Some(true) {
                pairs.append_pair("peek", "true");
            }
            if let Some(limit) = query.limit {
                pairs.append_pair("limit", &limit.to_string());
            }
        }
        // Reading is not repeated: a lost answer may have marked mail read.
        self.request(Method::GET, url, None)
            .await
            .map_err(|e| e.error)
    }

    /// Who is on the team bus (its directory), by name.
    pub async fn authors(&self) -> Result<Vec<DirectoryEntry>> {
        let url = self.endpoint(&["authors"])?;
        self.request(Method::GET, url, None)
            .await
            .map_err(|e| e.error)
    }

    fn endpoint(&self, segments: &[&str]) -> Result<Url> {
        // `.` and `..` would be dropped or climb: no author is called so.
        if let Some(bad) = segments
            .iter()
            .find(|s| s.is_empty() || **s == "." || **s == "..")
        {
            return Err(AppError::invalid_field(
                "author",
                "invalid_author_id",
                format!("{bad:?} is not an author id"),
            ));
        }
        let mut url = self.base.clone();
        url.path_segments_mut()
            .map_err(|()| AppError::invalid_field("url", "invalid_url", "not a base URL"))?
            .pop_if_empty()
            .extend(segments);
        Ok(url)
    }

    /// Runs `attempt` until it succeeds, fails for good, or `patience` ends.
    async fn with_patience<T, F, Fut>(&self, patience: Duration, attempt: F) -> Result<T>
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = std::result::Result<T, Failure>>,
    {
        let now = tokio::time::Instant::now();
        let deadline = now.checked_add(patience).unwrap_or(now + MAX_PATIENCE);
        let mut pause = FIRST_PAUSE;
        let mut tries = 0u32;
        loop {
            tries += 1;
            let failure = match attempt().await {
                Ok(value) => return Ok(value),
                Err(failure) if !failure.retry => return Err(failure.error),
                Err(failure) => failure,
            };
            let wait = failure.retry_after.unwrap_or(pause).max(pause);
            if tokio::time::Instant::now() + wait > deadline {
                let message = if tries == 1 {
                    format!(
                        "the team bus at {} did not answer: {}",
                        self.base, failure.error.message
                    )
                } else {
                    format!(
                        "the team bus at {} did not answer in {tries} tries: {}",
                        self.base, failure.error.message
                    )
                };
                let mut error = AppError::new(ErrorCode::Upstream, message);
                error.details = Some(json!({ "reason": "unreachable", "tries": tries }));
                return Err(error);
            }
            tokio::time::sleep(wait).await;
            pause = (pause * 2).min(MAX_PAUSE);
        }
    }

    async fn request<T: DeserializeOwned>(
        &self,
        method: Method,
        url: Url,
        body: Option<&serde_json::Value>,
    ) -> std::result::Result<T, Failure> {
        let mut request = self
            .http
            .request(method, url)
            .bearer_auth(&self.token)
            .header(reqwest::header::ACCEPT, "application/json");
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.map_err(|e| Failure {
            error: AppError::new(ErrorCode::Upstream, transport_error(&e)),
            retry: !is_certificate_error(&e),
            retry_after: None,
        })?;
        let status = response.status();
        let retry_after = retry_after(&response);
        let bytes = read_bounded(response).await?;
        if status.is_success() {
            return serde_json::from_slice(&bytes).map_err(|e| Failure {
                error: AppError::new(
                    ErrorCode::Upstream,
                    format!("the team bus answered something that is not Colmena's API: {e}"),
                ),
                retry: false,
                retry_after: None,
            });
        }
        let error = match serde_json::from_slice::<AppError>(&bytes) {
            Ok(remote) => from_the_bus(remote),
            Err(_) => AppError::new(
                ErrorCode::Upstream,
                format!("the team bus answered HTTP {status}"),
            ),
        };
        Err(Failure {
            // A 500 may be the bus's passing trouble; the message id makes
            // asking again safe.
            retry: error.code.is_retryable()
                || matches!(
                    status,
                    StatusCode::INTERNAL_SERVER_ERROR
                        | StatusCode::BAD_GATEWAY
                        | StatusCode::SERVICE_UNAVAILABLE
                        | StatusCode::GATEWAY_TIMEOUT
                ),
            error,
            retry_after,
        })
    }
}

/// One attempt's failure: whether trying again may help.
struct Failure {
    error: AppError,
    retry: bool,
    retry_after: Option<Duration>,
}

/// Reads an answer, refusing one larger than [`MAX_ANSWER_BYTES`].
async fn read_bounded(mut response: reqwest::Response) -> std::result::Result<Vec<u8>, Failure> {
    let too_large = || Failure {
        error: AppError::new(
            ErrorCode::Upstream,
            format!("the team bus answered more than {MAX_ANSWER_BYTES} bytes"),
        ),
        retry: false,
        retry_after: None,
    };
    if response
        .content_length()
        .is_some_and(|n| n > MAX_ANSWER_BYTES as u64)
    {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if bytes.len() + chunk.len() > MAX_ANSWER_BYTES {
                    return Err(too_large());
                }
                bytes.extend_from_slice(&chunk);
            }
            Ok(None) => return Ok(bytes),
            Err(e) => {
                return Err(Failure {
                    error: AppError::new(ErrorCode::Upstream, transport_error(&e)),
                    retry: true,
                    retry_after: None,
                });
            }
        }
    }
}

/// A refusal from the team bus, as data: its code is kept (a script
/// tells "unauthorized" from "not found" by the exit status), its words
/// are shortened, stripped of control characters and said to be the
/// bus's; of its details only its reason is kept, as `remoteReason`, so
/// that nothing it sends passes for this app's own field errors.
fn from_the_bus(remote: AppError) -> AppError {
    let mut error = AppError::new(
        remote.code,
        format!("the team bus answered: {}", clean_text(&remote.message)),
    );
    let reason = remote
        .details
        .as_ref()
        .and_then(|d| d.get("reason"))
        .and_then(|r| r.as_str())
        .map(clean_text);
    if let Some(reason) = reason {
        error.details = Some(json!({ "remoteReason": reason }));
    }
    error
}

/// Text from the network, fit to show and to keep: no control characters
/// (a terminal's escape sequences), at most [`MAX_ERROR_CHARS`].
pub fn clean_text(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(MAX_ERROR_CHARS)
        .collect()
}

fn base_url(raw: &str) -> Result<Url> {
    let invalid = |reason: &str, message: String| AppError::invalid_field("url", reason, message);
    let url = Url::parse(raw.trim())
        .map_err(|e| invalid("invalid_url", format!("not a URL ({e}): {raw}")))?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(invalid(
            "token_in_url",
            "put the token in its own setting, not in the URL".into(),
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(invalid(
            "invalid_url",
            "the bus URL takes no query or fragment".into(),
        ));
    }
    match url.scheme() {
        "https" => Ok(url),
        "http" if is_loopback(&url) => Ok(url),
        "http" => Err(invalid(
            "https_required",
            format!(
                "{raw} would carry your token in clear over the network: use https:// (serve with --tls-cert and --tls-key)"
            ),
        )),
        other => Err(invalid(
            "invalid_url",
            format!("a bus URL is https:// (not {other}://)"),
        )),
    }
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}

fn retry_after(response: &reqwest::Response) -> Option<Duration> {
    let seconds: u64 = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(Duration::from_secs(seconds.min(60)))
}

/// What went wrong on the way, without the URL's query or any header.
fn transport_error(e: &reqwest::Error) -> String {
    let what = if e.is_timeout() {
        "no answer in time"
    } else if e.is_connect() {
        "could not connect"
    } else {
        "the connection failed"
    };
    let mut cause = String::new();
    let mut source = std::error::Error::source(e);
    while let Some(inner) = source {
        cause = inner.to_string();
        source = inner.source();
    }
    if cause.is_empty() {
        what.to_owned()
    } else {
        format!("{what} ({cause})")
    }
}

/// A certificate the client does not trust will not become trusted by
/// asking again.
fn is_certificate_error(e: &reqwest::Error) -> bool {
    let mut source = std::error::Error::source(e);
    while let Some(inner) = source {
        let text = inner.to_string().to_ascii_lowercase();
        if text.contains("certificate") {
            return true;
        }
        source = inner.source();
    }
    false
}

fn with_message_id(mut error: AppError, message_id: &str) -> AppError {
    let mut details = match error.details.take() {
        Some(serde_json::Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    details.insert("messageId".into(), json!(message_id));
    error.details = Some(serde_json::Value::Object(details));
    error
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(url: &str) -> RemoteBusConfig {
        RemoteBusConfig {
            url: url.into(),
            token: "t".into(),
            ca_pem: None,
        }
    }

    fn reason(e: AppError) -> String {
        e.details.unwrap()["reason"].as_str().unwrap().to_owned()
    }

    #[test]
    fn a_token_never_crosses_the_network_in_clear() {
        let e = RemoteBus::new(config("http://bus.team.example:8787"))
            .err()
            .unwrap();
        assert_eq!(reason(e), "https_required");
        for ok in [
            "https://bus.team.example:8787",
            "http://127.0.0.1:8787",
            "http://[::1]:8787/",
            "http://localhost:8787",
        ] {
            assert!(RemoteBus::new(config(ok)).is_ok(), "{ok}");
        }
    }

    #[test]
    fn bad_settings_are_named() {
        let e = RemoteBus::new(config("https://me:secret@bus.example"))
            .err()
            .unwrap();
        assert_eq!(reason(e), "token_in_url");
        let e = RemoteBus::new(config("ftp://bus.example")).err().unwrap();
        assert_eq!(reason(e), "invalid_url");
        let e = RemoteBus::new(RemoteBusConfig {
            token: " ".into(),
            ..config("https://bus.example")
        })
        .err()
        .unwrap();
        assert_eq!(reason(e), "required");
        let e = RemoteBus::new(RemoteBusConfig {
            ca_pem: Some(b"not a certificate".to_vec()),
            ..config("https://bus.example")
        })
        .err()
        .unwrap();
        assert_eq!(reason(e), "invalid_pem");
    }

    #[test]
    fn paths_are_escaped_and_under_the_base() {
        let bus = RemoteBus::new(config("https://bus.example/team/")).unwrap();
        let url = bus.endpoint(&["author", "a/../b", "inbox"]).unwrap();
        assert_eq!(
            url.as_str(),
            "https://bus.example/team/author/a%2F..%2Fb/inbox"
        );
    }

    #[test]
    fn dot_segments_are_not_author_ids() {
        let bus = RemoteBus::new(config("https://bus.example/")).unwrap();
        for bad in [".", "..", ""] {
            let e = bus.endpoint(&["author", bad, "inbox"]).unwrap_err();
            assert_eq!(reason(e), "invalid_author_id", "{bad:?}");
        }
    }

    #[test]
    fn what_the_bus_says_is_shown_as_its_words_and_nothing_more() {
        let remote = AppError::new(ErrorCode::Validation, "bad\u{1b}]0;pwned\u{7}".repeat(200))
            .with_details(json!({ "field": "token", "reason": "required", "agents": ["x"] }));
        let shown = from_the_bus(remote);
        assert_eq!(shown.code, ErrorCode::Validation);
        assert!(shown.message.starts_with("the team bus answered: "));
        assert!(!shown.message.chars().any(char::is_control));
        assert!(shown.message.chars().count() <= MAX_ERROR_CHARS + 30);
        assert_eq!(shown.details, Some(json!({ "remoteReason": "required" })));
    }

    #[test]
    fn the_token_is_not_in_the_debug_text() {
        let text = format!(
            "{:?}",
            RemoteBusConfig {
                token: "sekrit-token".into(),
                ..config("https://bus.example")
            }
        );
        assert!(!text.contains("sekrit"), "{text}");
    }
}
