//! Waking a role that lives outside Colmena (issue 15): the scheduler runs
//! the role's wake command — `claude -p "…" --resume <session>`, a script —
//! and the program reads and answers the role's mail itself, over MCP or
//! HTTP, with a token of its own.
//!
//! What keeps this safe:
//!
//! - **Nothing from a message reaches the program** except through the bus.
//!   The command is the list of arguments the person configured, run as is
//!   without a shell; mail is never put on its command line, in its
//!   environment or on its stdin (which is empty). A message saying
//!   `$(rm -rf ~)` is text the program may read, never something run.
//! - **The token is the role's, and short-lived**: a fresh one per wake-up,
//!   valid for the time limit plus a minute and removed when the wake-up
//!   ends however it ends. It authenticates as the role and nothing else.
//! - **Nothing outlives the wake-up**: the program runs under `colmena-sandbox
//!   --supervise` (like the person's MCP servers, `crate::process`), so a
//!   time limit, the scheduler stopping or Colmena dying ends it and every
//!   process it started. Its environment is the person's minus Colmena's own
//!   `COLMENA_*` variables (the MCP servers' policy), plus what it needs to
//!   reach the bus.
//! - **Only the person chooses the program**: roles are configured only by
//!   the local doors (the window, the CLI); no token door reaches
//!   `authors::create` or `authors::update`.
//!
//! Colmena does not mark the mail read: the program reads its inbox (which
//! marks it), so mail it did not get to waits for the next wake-up.

use std::path::PathBuf;
use std::process::ExitStatus;
use std::sync::{Arc, Mutex};
use std::time::Duration as StdDuration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::wake_history::{self, MAX_OUTPUT_BYTES, WakeEnd, WakeKind};
use super::wakes::{WakeOutcome, record, unread_for_wake};
use crate::ctx::Ctx;
use crate::error::{AppError, Result};
use crate::inbox::authors::{self, Author};
use crate::inbox::role_config;
use crate::inbox::{drop_folder, local_server, token};
use crate::process::{Input, kill_group, release_group, spawn_supervised, supervised_command};

/// Most message ids one wake-up's history entry lists.
const MAX_LISTED: u32 = 50;
/// How long a wake token outlives the time limit, so a program finishing
/// right at the limit is not refused mid-answer.
const TOKEN_GRACE_SECONDS: i64 = 60;
/// How long the output is still read once the program has ended (a process
/// that escaped with the pipe open must not hold the wake-up forever).
const DRAIN: StdDuration = StdDuration::from_secs(2);

/// Environment variables the program gets (on top of the person's).
pub const ENV_AUTHOR_ID: &str = "COLMENA_AUTHOR_ID";
pub const ENV_AUTHOR_NAME: &str = "COLMENA_AUTHOR_NAME";
pub const ENV_TOKEN: &str = "COLMENA_TOKEN";
pub const ENV_MCP_URL: &str = "COLMENA_MCP_URL";
pub const ENV_API_URL: &str = "COLMENA_API_URL";
pub const ENV_UNREAD: &str = "COLMENA_UNREAD";

/// The folder a role's wake command runs in: the role's own, under the
/// data dir (its drop folder's parent).
pub fn folder(ctx: &Ctx, author: &str) -> PathBuf {
    let inbox = drop_folder::folder(ctx, author);
    inbox
        .parent()
        .map_or_else(|| ctx.data_dir().join("roles").join(author), PathBuf::from)
}

/// One wake-up of `role` by its wake command; `stop` (the scheduler
/// stopping) ends the program early. Nothing runs when nothing is unread.
pub(crate) async fn wake(
    ctx: &Ctx,
    role: &Author,
    stop: &CancellationToken,
) -> Result<WakeOutcome> {
    let Some(command) = role.wake_command.clone() else {
        return Ok(WakeOutcome::default());
    };
    let unread = unread_for_wake(ctx, &role.id, MAX_LISTED).await?;
    if unread.is_empty() {
        record(ctx, &role.id, None).await?;
        return Ok(WakeOutcome::default());
    }
    let ids: Vec<String> = unread.iter().map(|m| m.id.clone()).collect();
    let count = authors::get(ctx, &role.id).await?.unread;
    let entry = wake_history::begin(ctx, &role.id, WakeKind::Command, &ids).await?;
    let limit = role
        .wake_timeout_seconds
        .unwrap_or(role_config::DEFAULT_WAKE_TIMEOUT_SECONDS);
    let ran = match issue_token(ctx, &role.id, limit).await {
        Ok((secret, hash)) => {
            let ran = run(ctx, role, &command, &secret, count, limit, stop).await;
            if let Err(e) = revoke_token(ctx, hash).await {
                tracing::warn!(
                    "the wake token of '{}' was not removed (it expires by itself): {}",
                    role.id,
                    e.message
                );
            }
            ran
        }
        Err(e) => Err(e),
    };
    let end = match ran {
        Ok(ran) => {
            let error = ran.failure(&command[0], limit);
            WakeEnd {
                exit_code: ran.exit_code,
                timed_out: ran.timed_out,
                output: Some(ran.output),
                error,
                ..WakeEnd::default()
            }
        }
        Err(e) => WakeEnd {
            error: Some(e.message),
            ..WakeEnd::default()
        },
    };
    let error = end.error.clone();
    wake_history::finish(ctx, entry, end).await?;
    record(ctx, &role.id, error.clone()).await?;
    Ok(WakeOutcome {
        run_id: None,
        error,
    })
}

/// What running the program came to.
struct Ran {
    exit_code: Option<i32>,
    timed_out: bool,
    stopped: bool,
    output: String,
}

impl Ran {
    /// Why this wake-up failed, in words, if it did.
    fn failure(&self, program: &str, limit: u32) -> Option<String> {
        if self.timed_out {
            return Some(format!(
                "the wake command '{program}' did not finish within its time limit of \
                 {limit} s: it was stopped, with everything it started"
            ));
        }
        if self.stopped {
            return Some(format!(
                "the wake command '{program}' was stopped because Colmena's scheduler stopped"
            ));
        }
        match self.exit_code {
            Some(0) => None,
            Some(code @ 129..=192) => Some(format!(
                "the wake command '{program}' was killed by signal {}",
                code - 128
            )),
            Some(code) => Some(format!(
                "the wake command '{program}' exited with code {code}"
            )),
            None => Some(format!(
                "the wake command '{program}' ended without an exit code"
            )),
        }
    }
}

/// A fresh token for `author`, valid for `limit` seconds and a grace; the
/// store keeps only its hash. Expired ones are swept on the way.
async fn issue_token(ctx: &Ctx, author: &str, limit: u32) -> Result<(String, Vec<u8>)> {
    let (secret, hash) = token::generate()?;
    let seconds = limit.saturating_add(u32::try_from(TOKEN_GRACE_SECONDS).unwrap_or(0));
    ctx.bus().issue_wake_token(author, &hash, seconds).await?;
    Ok((secret, hash))
}

async fn revoke_token(ctx: &Ctx, hash: Vec<u8>) -> Result<()> {
    ctx.bus().revoke_wake_token(&hash).await
}

/// Runs `command` for `role` until it ends, its time limit passes or
/// `stop` is cancelled; then nothing it started is left.
async fn run(
    ctx: &Ctx,
    role: &Author,
    command: &[String],
    secret: &str,
    unread: u32,
    limit: u32,
    stop: &CancellationToken,
) -> Result<Ran> {
    let dir = folder(ctx, &role.id);
    std::fs::create_dir_all(&dir).map_err(|e| {
        AppError::internal(format!(
            "cannot create the role's folder {}: {e}",
            dir.display()
        ))
    })?;
    let mut env = vec![
        (ENV_AUTHOR_ID.to_owned(), role.id.clone()),
        (ENV_AUTHOR_NAME.to_owned(), role.name.clone()),
        (ENV_TOKEN.to_owned(), secret.to_owned()),
        (ENV_UNREAD.to_owned(), unread.to_string()),
    ];
    let mut note = String::new();
    match local_server::serving(ctx) {
        Some(base) => {
            env.push((ENV_MCP_URL.to_owned(), format!("{base}/mcp")));
            env.push((ENV_API_URL.to_owned(), base));
        }
        None => note.push_str(&format!(
            "[colmena] no local bus server is running in this process: {ENV_MCP_URL} and \
             {ENV_API_URL} are not set (start it in Settings, or run `colmena serve`)\n"
        )),
    }
    let mut cmd = supervised_command(&command[0], &command[1..], &env, Some(&dir))?;
    let mut child = spawn_supervised(&mut cmd, Input::Closed)
        .await
        .map_err(|e| {
            AppError::precondition(format!(
                "cannot start the wake command '{}': {e}",
                command[0]
            ))
        })?;
    let leader = child.id();
    let output = Arc::new(Mutex::new(Tail::default()));
    let readers: Vec<JoinHandle<()>> = [
        child
            .stdout
            .take()
            .map(|p| read_into(p, Arc::clone(&output))),
        child
            .stderr
            .take()
            .map(|p| read_into(p, Arc::clone(&output))),
    ]
    .into_iter()
    .flatten()
    .collect();
    enum Ending {
        Exited(std::io::Result<ExitStatus>),
        TimedOut,
        Stopped,
    }
    let ending = tokio::select! {
        status = child.wait() => Ending::Exited(status),
        () = tokio::time::sleep(StdDuration::from_secs(u64::from(limit))) => Ending::TimedOut,
        () = stop.cancelled() => Ending::Stopped,
    };
    let (status, timed_out, stopped) = match ending {
        Ending::Exited(status) => {
            if let Some(leader) = leader {
                release_group(leader);
            }
            (Some(status), false, false)
        }
        Ending::TimedOut | Ending::Stopped => {
            if let Some(leader) = leader {
                kill_group(leader);
            }
            let _ = child.kill().await;
            (
                None,
                matches!(ending, Ending::TimedOut),
                matches!(ending, Ending::Stopped),
            )
        }
    };
    for reader in readers {
        let abort = reader.abort_handle();
        if tokio::time::timeout(DRAIN, reader).await.is_err() {
            abort.abort();
        }
    }
    let text = output.lock().map(|t| t.text()).unwrap_or_default();
    let exit_code = match &status {
        Some(Ok(status)) => status.code(),
        Some(Err(e)) => {
            note.push_str(&format!(
                "[colmena] the wake command's end was not seen: {e}\n"
            ));
            None
        }
        None => None,
    };
    Ok(Ran {
        exit_code,
        timed_out,
        stopped,
        output: format!("{note}{text}"),
    })
}

/// The last [`MAX_OUTPUT_BYTES`] of everything written, stdout and stderr
/// as they came.
#[derive(Default)]
struct Tail {
    bytes: Vec<u8>,
}

impl Tail {
    fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend_from_slice(chunk);
        if self.bytes.len() > 2 * MAX_OUTPUT_BYTES {
            let cut = self.bytes.len() - MAX_OUTPUT_BYTES;
            self.bytes.drain(..cut);
        }
    }

    fn text(&self) -> String {
        let start = self.bytes.len().saturating_sub(MAX_OUTPUT_BYTES);
        String::from_utf8_lossy(&self.bytes[start..]).into_owned()
    }
}

fn read_into<R: AsyncRead + Unpin + Send + 'static>(
    mut pipe: R,
    into: Arc<Mutex<Tail>>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut chunk = [0u8; 8192];
        while let Ok(n) = pipe.read(&mut chunk).await {
            if n == 0 {
                break;
            }
            if let Ok(mut tail) = into.lock() {
                tail.push(&chunk[..n]);
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_output_keeps_its_end() {
        let mut tail = Tail::default();
        for _ in 0..5 {
            tail.push(&vec![b'a'; MAX_OUTPUT_BYTES]);
        }
        tail.push(b"the end");
        let text = tail.text();
        assert_eq!(text.len(), MAX_OUTPUT_BYTES);
        assert!(text.ends_with("aaathe end"));
    }

    #[test]
    fn a_failure_says_what_happened() {
        let ran = |exit_code, timed_out, stopped| Ran {
            exit_code,
            timed_out,
            stopped,
            output: String::new(),
        };
        assert_eq!(ran(Some(0), false, false).failure("x", 5), None);
        assert!(
            ran(Some(3), false, false)
                .failure("x", 5)
                .unwrap()
                .contains("code 3")
        );
        assert!(
            ran(Some(137), false, false)
                .failure("x", 5)
                .unwrap()
                .contains("signal 9")
        );
        assert!(
            ran(None, true, false)
                .failure("x", 5)
                .unwrap()
                .contains("5 s")
        );
        assert!(
            ran(None, false, true)
                .failure("x", 5)
                .unwrap()
                .contains("scheduler")
        );
    }
}
