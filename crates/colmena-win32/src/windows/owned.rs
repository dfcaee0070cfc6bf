//! Owners of what Windows hands out: a handle closed on drop, memory from
//! `LocalAlloc` freed on drop, and the text of a wide string.

use std::ffi::{OsStr, c_void};
use std::io;
use std::os::windows::ffi::OsStrExt;

use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, LocalFree};

/// A handle this process opened and nobody else closes.
pub(super) struct OwnedHandle(pub HANDLE);

impl Drop for OwnedHandle {
    fn drop(&mut self) {
        // SAFETY: the handle was returned open by Windows to this owner
        // alone, and is closed exactly once, here.
        unsafe { CloseHandle(self.0) };
    }
}

/// Memory Windows allocated with `LocalAlloc` for us to free.
pub(super) struct LocalMemory(pub *mut c_void);

impl Drop for LocalMemory {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: the pointer came from a call documented to allocate
            // it with `LocalAlloc` and is freed exactly once, here.
            unsafe { LocalFree(self.0) };
        }
    }
}

/// `text` as a NUL-terminated UTF-16 string.
pub(super) fn wide(text: &OsStr) -> Vec<u16> {
    text.encode_wide().chain(Some(0)).collect()
}

/// The NUL-terminated UTF-16 string at `text`, freed afterwards.
///
/// # Safety
/// `text` points to a NUL-terminated UTF-16 string allocated by
/// `LocalAlloc`, which nothing else frees.
pub(super) unsafe fn take_local_text(text: *mut u16) -> String {
    let owned = LocalMemory(text.cast());
    let mut len = 0;
    // SAFETY: the caller guarantees a NUL-terminated string; we read up
    // to and not past its terminator.
    while unsafe { *text.add(len) } != 0 {
        len += 1;
    }
    // SAFETY: the `len` units before the terminator are initialised.
    let units = unsafe { std::slice::from_raw_parts(text, len) };
    let result = String::from_utf16_lossy(units);
    drop(owned);
    result
}

/// `what` failed: Windows' last error, named.
pub(super) fn last_error(what: &str) -> io::Error {
    let error = io::Error::last_os_error();
    io::Error::new(error.kind(), format!("{what}: {error}"))
}
