//! `cli_exec` and `git_*`: programs run in the agent's workspace folder,
//! inside the sandbox (`sandbox`: cleared environment, own process
//! group killed whole, capped output, limits, file system confined to the
//! workspace).
//!
//! The git tools also defend against the repository itself: a `.git/config`
//! can name programs git runs on its own (`core.fsmonitor`, hooks, external
//! diff and textconv drivers, pagers, signing, SSH commands), and a value
//! that starts with `-` is read by git as an option (`--no-index` prints any
//! file, `--output=` overwrites one). So values that look like options are
//! refused, `--end-of-options` ends git's option parsing where it takes
//! revisions, and the configuration that runs programs is overridden on the
//! command line, which wins over every config file. What cannot be
//! overridden by name — filter drivers (`filter.<name>.clean` runs on
//! `status` and `diff`), merge drivers, a work tree elsewhere — is looked
//! for in the repository's config before every git tool, and the tool is
//! refused when it is there. Git runs without network.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::error::{AppError, Result};
use crate::sandbox::{self, Finished, Job, Stop};

/// Time limit of a git command.
const GIT_TIMEOUT: Duration = Duration::from_secs(60);

/// `-c` overrides for every git command: nothing from the repository's
/// config makes git run a program, sign, prompt or reach the network.
const GIT_OVERRIDES: [&str; 15] = [
    "safe.bareRepository=explicit",
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.untrackedCache=false",
    "core.pager=cat",
    "core.editor=true",
    "core.sshCommand=",
    "core.askPass=",
    "credential.helper=",
    "diff.external=",
    "commit.gpgSign=false",
    "tag.gpgSign=false",
    "gpg.program=false",
    "protocol.allow=never",
    "submodule.recurse=false",
];

fn report(program: &str, finished: &Finished, timeout: Duration) -> Result<String> {
    if finished.stopped == Some(Stop::Timeout) {
        return Err(AppError::precondition(format!(
            "{program} was stopped after {} s",
            timeout.as_secs()
        )));
    }
    let status = finished
        .code
        .map_or("killed by a signal".to_owned(), |c| c.to_string());
    let mut text = format!(
        "exit status: {status}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        finished.stdout.text(),
        finished.stderr.text()
    );
    if let Some(note) = finished.code.and_then(sandbox::exit_note) {
        text.push_str(&format!("\n[{note}]"));
    }
    if finished.stopped == Some(Stop::Flood) {
        text.push_str(&format!(
            "\n[{program} wrote more than {} bytes and was stopped]",
            sandbox::FLOOD_LIMIT
        ));
    }
    // Said with every result where it holds (Windows), so neither the
    // model nor the person reading the run takes it for confined.
    if sandbox::programs_unconfined() {
        text.push_str(&format!("\n[not confined: {}]", sandbox::UNCONFINED));
    }
    Ok(text)
}

/// `cli_exec`. `allow_local_network`: the agent's switch — its program
/// may then reach loopback and private addresses through the sandbox's
/// proxy, never metadata addresses (`sandbox::proxy`).
pub async fn exec(
    dir: &Path,
    args: &Value,
    allow_local_network: bool,
    cancel: &CancellationToken,
) -> Result<String> {
    let program = args["command"].as_str().unwrap_or_default();
    if program.trim().is_empty() {
        return Err(AppError::invalid_field(
            "command",
            "required",
            "name the program to run",
        ));
    }
    let list: Vec<String> = args["args"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let timeout = Duration::from_secs(args["timeout_seconds"].as_u64().unwrap_or(60).clamp(1, 600));
    let mut job = Job::new(dir, program, list, timeout);
    job.egress = sandbox::Egress::new(allow_local_network);
    let finished = sandbox::run(&job, cancel).await?;
    report(program, &finished, timeout)
}

/// A user-supplied git value, refused when git would read it as an option.
fn git_value(field: &str, value: &str) -> Result<String> {
    if value.trim_start().starts_with('-') {
        return Err(AppError::invalid_field(
            field,
            "option_like",
            format!("'{value}' starts with '-', which git would read as an option; refused"),
        ));
    }
    Ok(value.to_owned())
}

fn optional(args: &Value, field: &str) -> Result<Option<String>> {
    args[field]
        .as_str()
        .filter(|v| !v.is_empty())
        .map(|v| git_value(field, v))
        .transpose()
}

/// The git command line (after the global options) for a git tool.
fn git_args(name: &str, args: &Value) -> Result<Vec<Vec<String>>> {
    let s = |v: &str| v.to_owned();
    Ok(match name {
        "git_status" => vec![vec![s("status"), s("--short"), s("--branch")]],
        "git_diff" => {
            let (from, to, path) = (
                optional(args, "from")?,
                optional(args, "to")?,
                optional(args, "path")?,
            );
            let mut l = vec![
                s("diff"),
                s("--no-ext-diff"),
                s("--no-textconv"),
                s("--no-color"),
                s("--end-of-options"),
            ];
            l.extend(from);
            l.extend(to);
            l.push(s("--"));
            l.extend(path);
            vec![l]
        }
        "git_log" => {
            let limit = args["limit"].as_u64().unwrap_or(20).clamp(1, 200);
            let path = optional(args, "path")?;
            let mut l = vec![
                s("log"),
                format!("-{limit}"),
                s("--oneline"),
                s("--no-ext-diff"),
                s("--no-textconv"),
                s("--no-color"),
                s("--end-of-options"),
                s("--"),
            ];
            l.extend(path);
            vec![l]
        }
        "git_commit" => {
            let paths: Vec<String> = args["paths"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(|p| git_value("paths", p))
                        .collect::<Result<_>>()
                })
                .transpose()?
                .unwrap_or_default();
            let message = git_value("message", args["message"].as_str().unwrap_or_default())?;
            if message.trim().is_empty() {
                return Err(AppError::invalid_field(
                    "message",
                    "required",
                    "a commit needs a message",
                ));
            }
            let mut steps = Vec::new();
            if !paths.is_empty() {
                let mut add = vec![s("add"), s("--")];
                add.extend(paths);
                steps.push(add);
            }
            steps.push(vec![
                s("commit"),
                s("--no-verify"),
                s("--no-gpg-sign"),
                format!("--message={message}"),
            ]);
            steps
        }
        other => return Err(AppError::internal(format!("{other} is not a git tool"))),
    })
}

/// Environment for git: no system or global config, no repository found
/// above the workspace, no prompts, no locks taken by read commands.
/// Commits are authored by the agent (the workspace folder is named after
/// it), not by whoever the repository's config names.
fn git_env(dir: &Path) -> Vec<(String, String)> {
    let ceiling = dir.parent().unwrap_or(dir).display().to_string();
    let agent = dir
        .file_name()
        .map_or("agent".to_owned(), |n| n.to_string_lossy().into_owned());
    let (name, email) = (
        format!("Colmena agent {agent}"),
        format!("{agent}@colmena.invalid"),
    );
    let mut env: Vec<(String, String)> = [
        ("GIT_CEILING_DIRECTORIES", ceiling.as_str()),
        ("GIT_CONFIG_NOSYSTEM", "1"),
        ("GIT_CONFIG_GLOBAL", "/dev/null"),
        ("GIT_TERMINAL_PROMPT", "0"),
        ("GIT_OPTIONAL_LOCKS", "0"),
        ("GIT_NO_REPLACE_OBJECTS", "1"),
        ("GIT_PAGER", "cat"),
        ("GIT_EDITOR", "true"),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
    .collect();
    for who in ["AUTHOR", "COMMITTER"] {
        env.push((format!("GIT_{who}_NAME"), name.clone()));
        env.push((format!("GIT_{who}_EMAIL"), email.clone()));
    }
    env
}

/// A git job in `dir`: the overrides, then `step`; no network.
fn git_job(dir: &Path, step: Vec<String>) -> Job {
    let mut list = vec!["--no-pager".to_owned()];
    for o in GIT_OVERRIDES {
        list.push("-c".to_owned());
        list.push(o.to_owned());
    }
    list.extend(step);
    let mut job = Job::new(dir, "git", list, GIT_TIMEOUT);
    job.env = git_env(dir);
    job.network = false;
    job
}

/// A config key that makes git run a program, or work on files outside the
/// workspace, that the overrides cannot switch off by name.
fn runs_something(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    let driver = |section: &str, fields: &[&str]| {
        key.strip_prefix(section)
            .and_then(|rest| rest.rsplit_once('.'))
            .is_some_and(|(_, field)| fields.contains(&field))
    };
    // Diff drivers (`diff.<name>.command`, `.textconv`) are off through
    // `--no-ext-diff` and `--no-textconv`.
    key.starts_with("filter.")
        || driver("merge.", &["driver"])
        || key == "core.worktree"
        || key == "core.gitproxy"
}

/// Refuses a repository whose config names programs git would run.
async fn check_config(dir: &Path, cancel: &CancellationToken) -> Result<()> {
    let listing = git_job(
        dir,
        vec![
            "config".to_owned(),
            "--list".to_owned(),
            "--name-only".to_owned(),
        ],
    );
    let finished = sandbox::run(&listing, cancel).await?;
    // Not a repository (exit 128 and nothing listed) has nothing to refuse;
    // the tool itself says what is wrong.
    if finished.stdout.total > finished.stdout.kept.len() as u64 {
        // What was cut could hide a driver.
        return Err(AppError::precondition(
            "the git tools do not run in this repository: its config is too large to check",
        )
        .with_details(serde_json::json!({ "reason": "repository_runs_programs" })));
    }
    let listed = String::from_utf8_lossy(&finished.stdout.kept).into_owned();
    let found: Vec<&str> = listed.lines().filter(|k| runs_something(k)).collect();
    if found.is_empty() {
        return Ok(());
    }
    Err(AppError::precondition(format!(
        "the git tools do not run in this repository: its config names programs git would run \
         or files outside the workspace ({}); remove those settings from .git/config",
        found.join(", ")
    ))
    .with_details(serde_json::json!({ "reason": "repository_runs_programs", "keys": found })))
}

pub async fn git(
    dir: &Path,
    name: &str,
    args: &Value,
    cancel: &CancellationToken,
) -> Result<String> {
    let steps = git_args(name, args)?;
    check_config(dir, cancel).await?;
    let mut last = String::new();
    for step in steps {
        let job = git_job(dir, step);
        let finished = sandbox::run(&job, cancel).await?;
        last = report("git", &finished, GIT_TIMEOUT)?;
        if finished.code != Some(0) {
            break;
        }
    }
    Ok(last)
}

#[cfg(test)]
mod tests;
