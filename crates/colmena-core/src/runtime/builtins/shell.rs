//! `cli_exec` and `git_*`: programs run in the agent's workspace folder,
//! with a time limit, output captured and cut, killed when cancelled.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

use crate::error::{AppError, ErrorCode, Result};

const MAX_OUTPUT: usize = 32 * 1024;

fn cut(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(MAX_OUTPUT)]).into_owned();
    if bytes.len() > MAX_OUTPUT {
        format!("{text}\n[cut at {MAX_OUTPUT} bytes]")
    } else {
        text
    }
}

async fn run(
    dir: &Path,
    program: &str,
    args: &[String],
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<String> {
    let child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| {
            AppError::new(
                ErrorCode::Precondition,
                format!("cannot start {program}: {e}"),
            )
        })?;
    let output = tokio::select! {
        _ = cancel.cancelled() => return Err(crate::llm::http::cancelled()),
        done = tokio::time::timeout(timeout, child.wait_with_output()) => done
            .map_err(|_| AppError::new(ErrorCode::Precondition, format!("{program} was stopped after {} s", timeout.as_secs())))?
            .map_err(|e| AppError::internal(format!("{program} failed: {e}")))?,
    };
    let status = output
        .status
        .code()
        .map_or("killed by a signal".to_owned(), |c| c.to_string());
    Ok(format!(
        "exit status: {status}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        cut(&output.stdout),
        cut(&output.stderr)
    ))
}

pub async fn exec(dir: &Path, args: &Value, cancel: &CancellationToken) -> Result<String> {
    let program = args["command"].as_str().unwrap_or_default();
    let list: Vec<String> = args["args"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let timeout = Duration::from_secs(args["timeout_seconds"].as_u64().unwrap_or(60).clamp(1, 600));
    run(dir, program, &list, timeout, cancel).await
}

pub async fn git(
    dir: &Path,
    name: &str,
    args: &Value,
    cancel: &CancellationToken,
) -> Result<String> {
    let text = |k: &str| args[k].as_str().map(str::to_owned);
    let mut list: Vec<String> = match name {
        "git_status" => vec!["status".into(), "--short".into(), "--branch".into()],
        "git_diff" => {
            let mut l = vec!["diff".into()];
            l.extend(text("from"));
            l.extend(text("to"));
            if let Some(path) = text("path") {
                l.push("--".into());
                l.push(path);
            }
            l
        }
        "git_log" => {
            let limit = args["limit"].as_u64().unwrap_or(20).clamp(1, 200);
            let mut l = vec!["log".into(), format!("-{limit}"), "--oneline".into()];
            if let Some(path) = text("path") {
                l.push("--".into());
                l.push(path);
            }
            l
        }
        "git_commit" => {
            let paths: Vec<String> = args["paths"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            if !paths.is_empty() {
                let mut add = vec!["add".into(), "--".into()];
                add.extend(paths);
                run(dir, "git", &add, Duration::from_secs(60), cancel).await?;
            }
            vec![
                "commit".into(),
                "-m".into(),
                text("message").unwrap_or_default(),
            ]
        }
        other => return Err(AppError::internal(format!("{other} is not a git tool"))),
    };
    list.insert(0, "--no-pager".into());
    run(dir, "git", &list, Duration::from_secs(60), cancel).await
}
