//! The key-file backend: the master key as 32 raw bytes in a file that only
//! its owner may read (mode 0600), inside the data dir.

use std::io::Write;
use std::path::Path;

use zeroize::Zeroizing;

use super::{KEY_LEN, MasterKey};

/// File name of the master key inside the data dir.
pub const KEY_FILE: &str = "master.key";

/// Why the key file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum KeyFileError {
    #[error("the key file {0} is missing")]
    Missing(String),
    #[error("the key file {path} holds {len} bytes, not {KEY_LEN}")]
    WrongLength { path: String, len: usize },
    #[error("could not use the key file {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> KeyFileError + '_ {
    move |source| KeyFileError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Reads the key file. Tightens its permissions to 0600 if someone loosened
/// them; the returned note says so.
pub fn load(path: &Path) -> Result<(MasterKey, Option<String>), KeyFileError> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => Zeroizing::new(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(KeyFileError::Missing(path.display().to_string()));
        }
        Err(e) => return Err(io(path)(e)),
    };
    let key: [u8; KEY_LEN] =
        bytes
            .as_slice()
            .try_into()
            .map_err(|_| KeyFileError::WrongLength {
                path: path.display().to_string(),
                len: bytes.len(),
            })?;
    let note = tighten_permissions(path)?;
    Ok((MasterKey(Zeroizing::new(key)), note))
}

/// Writes a new key file; fails if one exists (a key is never overwritten).
pub fn create(path: &Path, key: &MasterKey) -> Result<(), KeyFileError> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path).map_err(io(path))?;
    file.write_all(key.0.as_slice()).map_err(io(path))?;
    file.sync_all().map_err(io(path))?;
    Ok(())
}

#[cfg(unix)]
fn tighten_permissions(path: &Path) -> Result<Option<String>, KeyFileError> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path)
        .map_err(io(path))?
        .permissions()
        .mode();
    if mode & 0o077 == 0 {
        return Ok(None);
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(io(path))?;
    Ok(Some(format!(
        "the key file was readable by others (mode {:o}); it is now 0600",
        mode & 0o777
    )))
}

#[cfg(not(unix))]
fn tighten_permissions(_path: &Path) -> Result<Option<String>, KeyFileError> {
    Ok(None)
}
