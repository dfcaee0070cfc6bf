//! This user's SID, and owner-only access lists put on folders, files and
//! pipes (their text is `crate::sddl`).

use std::ffi::c_void;
use std::fs::File;
use std::io;
use std::os::windows::io::{AsRawHandle, BorrowedHandle, FromRawHandle, OwnedHandle};
use std::path::Path;
use std::ptr::null_mut;

use windows_sys::Win32::Foundation::{
    ERROR_SUCCESS, GENERIC_READ, GENERIC_WRITE, HANDLE, INVALID_HANDLE_VALUE,
};
use windows_sys::Win32::Security::Authorization::{
    ConvertSecurityDescriptorToStringSecurityDescriptorW, ConvertSidToStringSidW,
    ConvertStringSecurityDescriptorToSecurityDescriptorW, GetNamedSecurityInfoW, GetSecurityInfo,
    SDDL_REVISION_1, SE_FILE_OBJECT, SE_KERNEL_OBJECT, SE_OBJECT_TYPE,
};
use windows_sys::Win32::Security::{
    DACL_SECURITY_INFORMATION, GetTokenInformation, SECURITY_ATTRIBUTES, TOKEN_QUERY, TOKEN_USER,
    TokenUser,
};
use windows_sys::Win32::Storage::FileSystem::{
    CREATE_NEW, CreateDirectoryW, CreateFileW, FILE_ATTRIBUTE_NORMAL,
};
use windows_sys::Win32::System::Threading::{GetCurrentProcess, OpenProcessToken};

use super::owned::{LocalMemory, last_error, take_local_text, wide};
use crate::Object;
use crate::sddl::{self, Sid};

/// The SID of the user this process runs as (its token's user, also when
/// the process is elevated).
pub fn user_sid() -> io::Result<Sid> {
    let mut token: HANDLE = null_mut();
    // SAFETY: the pseudo-handle of this process is always valid; `token`
    // receives a new handle, owned below.
    if unsafe { OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &mut token) } == 0 {
        return Err(last_error("cannot open this process's token"));
    }
    let token = super::owned::OwnedHandle(token);
    let mut needed = 0u32;
    // SAFETY: a null buffer of length 0 only asks for the size needed.
    unsafe { GetTokenInformation(token.0, TokenUser, null_mut(), 0, &mut needed) };
    if needed == 0 {
        return Err(last_error("cannot size this process's user"));
    }
    // u64s: the TOKEN_USER at its start needs pointer alignment.
    let mut buffer = vec![0u64; (needed as usize).div_ceil(8)];
    // SAFETY: the buffer holds at least `needed` writable bytes.
    let read = unsafe {
        GetTokenInformation(
            token.0,
            TokenUser,
            buffer.as_mut_ptr().cast(),
            needed,
            &mut needed,
        )
    };
    if read == 0 {
        return Err(last_error("cannot read this process's user"));
    }
    // SAFETY: Windows wrote a TOKEN_USER at the start of the aligned
    // buffer; its SID points into the same buffer, alive for this scope.
    let sid = unsafe { (*buffer.as_ptr().cast::<TOKEN_USER>()).User.Sid };
    let mut text: *mut u16 = null_mut();
    // SAFETY: `sid` is a valid SID; `text` receives a LocalAlloc'd string.
    if unsafe { ConvertSidToStringSidW(sid, &mut text) } == 0 {
        return Err(last_error("cannot write this process's user as text"));
    }
    // SAFETY: a NUL-terminated string from LocalAlloc, ours to free.
    let text = unsafe { take_local_text(text) };
    Sid::parse(&text).map_err(|e| io::Error::other(e.to_string()))
}

/// A security descriptor made from SDDL text, freed on drop.
pub(super) struct Descriptor(LocalMemory);

impl Descriptor {
    pub(super) fn from_sddl(text: &str) -> io::Result<Descriptor> {
        let text = wide(text.as_ref());
        let mut descriptor = null_mut();
        // SAFETY: `text` is NUL-terminated; `descriptor` receives a
        // LocalAlloc'd descriptor, owned below.
        let made = unsafe {
            ConvertStringSecurityDescriptorToSecurityDescriptorW(
                text.as_ptr(),
                SDDL_REVISION_1,
                &mut descriptor,
                null_mut(),
            )
        };
        if made == 0 {
            return Err(last_error("cannot make a security descriptor"));
        }
        Ok(Descriptor(LocalMemory(descriptor)))
    }

    pub(super) fn as_ptr(&self) -> *mut c_void {
        self.0.0
    }
}

/// Security attributes whose descriptor is owner-only for `object`.
fn owner_only(object: Object) -> io::Result<Descriptor> {
    Descriptor::from_sddl(&sddl::owner_only(&user_sid()?, object))
}

/// Non-inheritable security attributes holding `descriptor`.
pub(super) fn attributes(descriptor: &Descriptor) -> SECURITY_ATTRIBUTES {
    SECURITY_ATTRIBUTES {
        nLength: size_of::<SECURITY_ATTRIBUTES>() as u32,
        lpSecurityDescriptor: descriptor.as_ptr(),
        bInheritHandle: 0,
    }
}

/// The last error, of a create at `path` (its kind kept: `AlreadyExists`).
fn cannot_create(path: &Path) -> io::Error {
    let error = io::Error::last_os_error();
    io::Error::new(
        error.kind(),
        format!("cannot create {}: {error}", path.display()),
    )
}

/// Makes the folder `path` (its parent must exist) with an access list for
/// this user alone, protected from its parent's and inherited by what is
/// made in it: private from the moment it exists. An error when it exists.
pub fn create_private_dir(path: &Path) -> io::Result<()> {
    let descriptor = owner_only(Object::Folder)?;
    let attributes = attributes(&descriptor);
    let name = wide(path.as_os_str());
    // SAFETY: `name` is NUL-terminated; the attributes' descriptor is
    // alive for the call (Windows copies it into the folder).
    if unsafe { CreateDirectoryW(name.as_ptr(), &attributes) } == 0 {
        return Err(cannot_create(path));
    }
    Ok(())
}

/// Creates the new file `path` (an error when it exists) with an access
/// list for this user alone, opened for writing and reading by this
/// process only until it is closed: nobody else can ever have opened it.
pub fn create_private_file(path: &Path) -> io::Result<File> {
    let descriptor = owner_only(Object::File)?;
    let attributes = attributes(&descriptor);
    let name = wide(path.as_os_str());
    // SAFETY: `name` is NUL-terminated; the attributes' descriptor is
    // alive for the call; no template file.
    let handle = unsafe {
        CreateFileW(
            name.as_ptr(),
            GENERIC_READ | GENERIC_WRITE,
            0,
            &attributes,
            CREATE_NEW,
            FILE_ATTRIBUTE_NORMAL,
            null_mut(),
        )
    };
    if handle == INVALID_HANDLE_VALUE {
        return Err(cannot_create(path));
    }
    // SAFETY: a handle Windows just opened for us alone, owned from here.
    Ok(File::from(unsafe { OwnedHandle::from_raw_handle(handle) }))
}

/// The access list of the file or folder at `path`, as SDDL.
pub fn dacl_of(path: &Path) -> io::Result<String> {
    let name = wide(path.as_os_str());
    let mut descriptor = null_mut();
    // SAFETY: `name` is NUL-terminated; `descriptor` receives a LocalAlloc'd
    // descriptor (the other outputs may be null).
    let status = unsafe {
        GetNamedSecurityInfoW(
            name.as_ptr(),
            SE_FILE_OBJECT,
            DACL_SECURITY_INFORMATION,
            null_mut(),
            null_mut(),
            null_mut(),
            null_mut(),
            &mut descriptor,
        )
    };
    describe(status, descriptor)
}

/// The access list of the kernel object (a pipe, a job) behind `handle`.
pub fn dacl_of_handle(handle: BorrowedHandle<'_>) -> io::Result<String> {
    let mut descriptor = null_mut();
    // SAFETY: a borrowed handle is open for the call; the outputs are as
    // in `dacl_of`.
    let status = unsafe {
        GetSecurityInfo(
            handle.as_raw_handle(),
            SE_KERNEL_OBJECT as SE_OBJECT_TYPE,
            DACL_SECURITY_INFORMATION,
            null_mut(),
            null_mut(),
            null_mut(),
            null_mut(),
            &mut descriptor,
        )
    };
    describe(status, descriptor)
}

fn describe(status: u32, descriptor: *mut c_void) -> io::Result<String> {
    if status != ERROR_SUCCESS {
        return Err(io::Error::from_raw_os_error(status as i32));
    }
    let descriptor = LocalMemory(descriptor);
    let mut text = null_mut();
    // SAFETY: the descriptor is valid; `text` receives a LocalAlloc'd string.
    let written = unsafe {
        ConvertSecurityDescriptorToStringSecurityDescriptorW(
            descriptor.0,
            SDDL_REVISION_1,
            DACL_SECURITY_INFORMATION,
            &mut text,
            null_mut(),
        )
    };
    if written == 0 {
        return Err(last_error("cannot write an access list as text"));
    }
    // SAFETY: a NUL-terminated string from LocalAlloc, ours to free.
    Ok(unsafe { take_local_text(text) })
}
