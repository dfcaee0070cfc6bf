//! A GGUF file checked before the engine is asked to load it, so that a
//! file that is not a model, a download cut short or a model too large for
//! the memory gets a clear error with a stable reason — not an abort in the
//! C++ engine. Reads the header only (the key/value pairs and the tensor
//! table) and checks that the file is long enough for every tensor it
//! declares.

use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use serde_json::json;

use crate::error::{AppError, ErrorCode, Result};

const MAGIC: &[u8; 4] = b"GGUF";
/// Bigger than any real header field: a corrupt length is refused, not
/// allocated.
const MAX_STRING: u64 = 64 << 20;
const MAX_COUNT: u64 = 1 << 24;
/// Arrays of arrays nest at most this deep (real files: one level); a
/// crafted file nesting a million levels is refused, not recursed into.
const MAX_NESTING: u32 = 4;

/// What the header says about a model.
#[derive(Debug, Clone, PartialEq)]
pub struct GgufInfo {
    /// `general.architecture` (`llama`, `qwen2`, `gemma3`…).
    pub architecture: String,
    /// `<arch>.context_length`, when given.
    pub context_length: Option<u32>,
    /// The file's length, and how long its tensors say it must be.
    pub file_bytes: u64,
}

fn invalid(path: &Path, reason: &str, why: impl std::fmt::Display) -> AppError {
    AppError::new(ErrorCode::Validation, format!("'{}' {why}", path.display()))
        .with_details(json!({ "reason": reason }))
}

/// Reads and checks the header of the GGUF at `path`.
pub fn check(path: &Path) -> Result<GgufInfo> {
    let file = std::fs::File::open(path).map_err(|e| {
        AppError::new(
            ErrorCode::NotFound,
            format!("'{}' cannot be read: {e}", path.display()),
        )
    })?;
    let file_bytes = file.metadata()?.len();
    let mut r = Header {
        inner: BufReader::new(file),
    };
    let not_gguf = || invalid(path, "not_gguf", "is not a GGUF model file");
    let truncated = || {
        invalid(
            path,
            "truncated",
            "is cut short: the download did not finish or the file is damaged",
        )
    };
    let mut magic = [0u8; 4];
    if r.inner.read_exact(&mut magic).is_err() || &magic != MAGIC {
        return Err(not_gguf());
    }
    let version = r.u32().map_err(|_| truncated())?;
    if !(2..=3).contains(&version) {
        return Err(invalid(
            path,
            "unsupported_version",
            format!("is GGUF version {version}; the engine reads versions 2 and 3"),
        ));
    }
    let tensors = r.u64().map_err(|_| truncated())?;
    let pairs = r.u64().map_err(|_| truncated())?;
    if tensors > MAX_COUNT || pairs > MAX_COUNT {
        return Err(not_gguf());
    }
    let mut architecture = None;
    let mut context_length = None;
    let mut alignment = 32u64;
    let mut keys = Vec::new();
    for _ in 0..pairs {
        let key = r.string().map_err(|_| truncated())?;
        let kind = r.u32().map_err(|_| truncated())?;
        match (key.as_str(), kind) {
            ("general.architecture", 8) => {
                architecture = Some(r.string().map_err(|_| truncated())?);
            }
            ("general.alignment", 4) => alignment = u64::from(r.u32().map_err(|_| truncated())?),
            (k, 4) if k.ends_with(".context_length") => {
                keys.push(k.to_owned());
                context_length = Some(r.u32().map_err(|_| truncated())?);
            }
            _ => r.skip_value(kind, 0).map_err(|e| match e {
                Skip::Truncated => truncated(),
                Skip::Corrupt => not_gguf(),
            })?,
        }
    }
    let architecture = architecture.ok_or_else(|| {
        invalid(
            path,
            "unknown_architecture",
            "names no architecture (general.architecture)",
        )
    })?;
    // The tensor table: the data must hold the furthest tensor.
    let mut end = 0u64;
    for _ in 0..tensors {
        let _name = r.string().map_err(|_| truncated())?;
        let dims = r.u32().map_err(|_| truncated())?;
        if dims > 8 {
            return Err(not_gguf());
        }
        let mut elements = 1u64;
        for _ in 0..dims {
            elements = elements.saturating_mul(r.u64().map_err(|_| truncated())?);
        }
        let kind = r.u32().map_err(|_| truncated())?;
        let offset = r.u64().map_err(|_| truncated())?;
        end = end.max(offset.saturating_add(tensor_bytes(kind, elements)));
    }
    let header_end = r.inner.stream_position()?;
    let data_start = header_end.div_ceil(alignment.max(1)) * alignment.max(1);
    if data_start.saturating_add(end) > file_bytes {
        return Err(truncated());
    }
    Ok(GgufInfo {
        architecture,
        context_length,
        file_bytes,
    })
}

/// Bytes of a tensor of `elements` in ggml type `kind` (block sizes from
/// ggml.h); an unknown type counts as none, so it never refuses a file the
/// engine may know.
fn tensor_bytes(kind: u32, elements: u64) -> u64 {
    let (block, bytes) = match kind {
        0 => (1, 4),      // F32
        1 => (1, 2),      // F16
        2 => (32, 18),    // Q4_0
        3 => (32, 20),    // Q4_1
        6 => (32, 22),    // Q5_0
        7 => (32, 24),    // Q5_1
        8 => (32, 34),    // Q8_0
        9 => (32, 36),    // Q8_1
        10 => (256, 84),  // Q2_K
        11 => (256, 110), // Q3_K
        12 => (256, 144), // Q4_K
        13 => (256, 176), // Q5_K
        14 => (256, 210), // Q6_K
        15 => (256, 292), // Q8_K
        24 => (1, 1),     // I8
        25 => (1, 2),     // I16
        26 => (1, 4),     // I32
        27 => (1, 8),     // I64
        28 => (1, 8),     // F64
        30 => (1, 2),     // BF16
        _ => return 0,
    };
    elements.div_ceil(block).saturating_mul(bytes)
}

enum Skip {
    Truncated,
    Corrupt,
}

struct Header<R> {
    inner: R,
}

impl<R: Read + Seek> Header<R> {
    fn bytes<const N: usize>(&mut self) -> std::io::Result<[u8; N]> {
        let mut b = [0u8; N];
        self.inner.read_exact(&mut b)?;
        Ok(b)
    }

    fn u32(&mut self) -> std::io::Result<u32> {
        Ok(u32::from_le_bytes(self.bytes()?))
    }

    fn u64(&mut self) -> std::io::Result<u64> {
        Ok(u64::from_le_bytes(self.bytes()?))
    }

    fn string(&mut self) -> std::io::Result<String> {
        let len = self.u64()?;
        if len > MAX_STRING {
            return Err(std::io::ErrorKind::InvalidData.into());
        }
        let mut buf = vec![0u8; usize::try_from(len).unwrap_or(0)];
        self.inner.read_exact(&mut buf)?;
        Ok(String::from_utf8_lossy(&buf).into_owned())
    }

    fn skip(&mut self, n: u64) -> std::result::Result<(), Skip> {
        let n = i64::try_from(n).map_err(|_| Skip::Corrupt)?;
        self.inner
            .seek(SeekFrom::Current(n))
            .map_err(|_| Skip::Truncated)?;
        Ok(())
    }

    fn skip_value(&mut self, kind: u32, depth: u32) -> std::result::Result<(), Skip> {
        if depth > MAX_NESTING {
            return Err(Skip::Corrupt);
        }
        match kind {
            0 | 1 | 7 => self.skip(1),
            2 | 3 => self.skip(2),
            4..=6 => self.skip(4),
            10..=12 => self.skip(8),
            8 => {
                let len = self.u64().map_err(|_| Skip::Truncated)?;
                if len > MAX_STRING {
                    return Err(Skip::Corrupt);
                }
                self.skip(len)
            }
            9 => {
                let item = self.u32().map_err(|_| Skip::Truncated)?;
                let count = self.u64().map_err(|_| Skip::Truncated)?;
                if count > MAX_COUNT * 16 {
                    return Err(Skip::Corrupt);
                }
                match item {
                    0 | 1 | 7 => self.skip(count),
                    2 | 3 => self.skip(count * 2),
                    4..=6 => self.skip(count * 4),
                    10..=12 => self.skip(count * 8),
                    8 | 9 => {
                        for _ in 0..count {
                            self.skip_value(item, depth + 1)?;
                        }
                        Ok(())
                    }
                    _ => Err(Skip::Corrupt),
                }
            }
            _ => Err(Skip::Corrupt),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(pairs: &[u8], n_pairs: u64) -> Vec<u8> {
        let mut out = b"GGUF".to_vec();
        out.extend_from_slice(&3u32.to_le_bytes());
        out.extend_from_slice(&0u64.to_le_bytes());
        out.extend_from_slice(&n_pairs.to_le_bytes());
        out.extend_from_slice(pairs);
        out
    }

    fn key(name: &str, kind: u32) -> Vec<u8> {
        let mut out = (name.len() as u64).to_le_bytes().to_vec();
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&kind.to_le_bytes());
        out
    }

    fn reason(bytes: &[u8]) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.gguf");
        std::fs::write(&path, bytes).unwrap();
        let err = check(&path).unwrap_err();
        err.details.unwrap()["reason"].as_str().unwrap().to_owned()
    }

    #[test]
    fn crafted_headers_are_refused_without_recursing_or_allocating() {
        // Arrays of arrays a hundred thousand levels deep.
        let mut pairs = key("x", 9);
        for _ in 0..100_000 {
            pairs.extend_from_slice(&9u32.to_le_bytes());
            pairs.extend_from_slice(&1u64.to_le_bytes());
        }
        assert_eq!(reason(&header(&pairs, 1)), "not_gguf");
        // A string claiming to be 2^60 bytes long.
        let mut pairs = key("general.name", 8);
        pairs.extend_from_slice(&(1u64 << 60).to_le_bytes());
        assert_eq!(reason(&header(&pairs, 1)), "not_gguf");
        // A header that ends mid-key.
        assert_eq!(
            reason(&header(&key("general.arch", 8)[..6], 1)),
            "truncated"
        );
        assert_eq!(reason(b"GGUF"), "truncated");
        assert_eq!(reason(b"PK\x03\x04 a zip"), "not_gguf");
    }
}
