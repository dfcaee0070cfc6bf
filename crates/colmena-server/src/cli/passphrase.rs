//! Reading a key passphrase (issue 33): from standard input only, never
//! from an argument, which shell history and `ps` would keep. On a terminal
//! the person is asked on standard error with echo off (and twice when the
//! passphrase is new); piped, the first line is the passphrase.

use std::io::{BufRead, IsTerminal};

use colmena_core::secrets::key_bundle::PASSPHRASE_FIELD;
use colmena_core::{AppError, Result};
use zeroize::Zeroizing;

/// The passphrase, asked as `what` on a terminal; `confirm` asks twice.
pub fn read(what: &str, confirm: bool) -> Result<Zeroizing<String>> {
    let terminal = std::io::stdin().is_terminal();
    let first = line(terminal.then_some(what))?;
    if terminal && confirm {
        let again = line(Some("the same passphrase again"))?;
        if *again != *first {
            return Err(AppError::invalid_field(
                PASSPHRASE_FIELD,
                "passphrases_differ",
                "the two passphrases differ: nothing was done",
            ));
        }
    }
    Ok(first)
}

/// One line of standard input, without its line end; `prompt` is shown
/// first, and the typing not echoed.
fn line(prompt: Option<&str>) -> Result<Zeroizing<String>> {
    if let Some(prompt) = prompt {
        eprint!("{prompt}: ");
    }
    let mut text = Zeroizing::new(String::new());
    let read = without_echo(prompt.is_some(), || {
        std::io::stdin().lock().read_line(&mut text)
    })
    .map_err(|e| AppError::internal(format!("cannot read standard input: {e}")))?;
    if prompt.is_some() {
        eprintln!();
    }
    let end = text.trim_end_matches(['\n', '\r']).len();
    text.truncate(end);
    if read == 0 || text.is_empty() {
        return Err(AppError::invalid_field(
            PASSPHRASE_FIELD,
            "passphrase_required",
            "no passphrase: give it as a line of standard input",
        ));
    }
    Ok(text)
}

/// Runs `read` with the terminal's echo off (when `quiet`), restoring it after.
#[cfg(unix)]
fn without_echo<T>(quiet: bool, read: impl FnOnce() -> T) -> T {
    use rustix::termios::{LocalModes, OptionalActions, tcgetattr, tcsetattr};
    let stdin = std::io::stdin();
    let saved = if quiet { tcgetattr(&stdin).ok() } else { None };
    if let Some(saved) = &saved {
        let mut silent = saved.clone();
        silent.local_modes.remove(LocalModes::ECHO);
        let _ = tcsetattr(&stdin, OptionalActions::Now, &silent);
    }
    let out = read();
    if let Some(saved) = &saved {
        let _ = tcsetattr(&stdin, OptionalActions::Now, saved);
    }
    out
}

#[cfg(not(unix))]
fn without_echo<T>(_quiet: bool, read: impl FnOnce() -> T) -> T {
    read()
}
