//! The one choke point every exported PJRT function goes through. It contains panics, checks the
//! args pointer and the caller's `struct_size`, shields the handler from fields the caller does not
//! have, and turns a `Result` into the `PJRT_Error*` the C API returns.
//!
//! Struct sizes: a caller built against an older header passes a shorter args struct. Rather than
//! teach every handler which fields exist, a short struct is copied into a zeroed full-size local,
//! the handler runs on that copy (absent fields read as zero / NULL / false), and only the caller's
//! `struct_size` bytes are copied back. A caller with a longer struct is served in place; we never
//! touch bytes past our own definition.

use super::api_error::ApiError;
use apu_pjrt_api::PJRT_Error;
use std::panic::{catch_unwind, AssertUnwindSafe};

pub(crate) type ApiResult<T> = Result<T, ApiError>;

/// An args struct of the C API: starts with `size_t struct_size` and has a minimum size below
/// which a handler cannot work (the end of the last member it always reads or writes).
pub(crate) trait ArgsStruct: Sized {
    fn min_size() -> usize;
}

/// Byte offset just past a member: its offset plus its size. The closure only names the member so
/// that its type can be inferred; it is never called.
pub(crate) fn end_of_field<T, F>(offset: usize, _member: fn(&T) -> &F) -> usize {
    offset + std::mem::size_of::<F>()
}

/// Declares the minimum `struct_size` of args structs: `Type => last_required_member`.
macro_rules! args_min_size {
    ($($ty:ident => $field:ident),* $(,)?) => {
        $(
            impl $crate::pjrt::guard::ArgsStruct for apu_pjrt_api::$ty {
                fn min_size() -> usize {
                    $crate::pjrt::guard::end_of_field::<apu_pjrt_api::$ty, _>(
                        std::mem::offset_of!(apu_pjrt_api::$ty, $field),
                        |a| &a.$field,
                    )
                }
            }
        )*
    };
}
pub(crate) use args_min_size;

/// True if a struct the caller declared as `struct_size` bytes contains the member that ends at
/// `field_end` (see [`end_of_field`]); for nested structs that are not args (e.g. execute options).
pub(crate) fn has_field(struct_size: usize, field_end: usize) -> bool {
    struct_size >= field_end
}

/// Reads a member of a nested C struct only if the caller's `struct_size` covers it.
macro_rules! field_if_present {
    ($ptr:expr, $ty:ty, $field:ident) => {{
        let p: &$ty = $ptr;
        let end =
            $crate::pjrt::guard::end_of_field::<$ty, _>(std::mem::offset_of!($ty, $field), |a| {
                &a.$field
            });
        if $crate::pjrt::guard::has_field(p.struct_size, end) {
            Some(p.$field)
        } else {
            None
        }
    }};
}
pub(crate) use field_if_present;

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_string()
    }
}

/// Runs `body` on the caller's args with every safety check. `name` is the PJRT function name,
/// used in error messages.
pub(crate) fn entry<A: ArgsStruct>(
    name: &'static str,
    args: *mut A,
    body: impl FnOnce(&mut A) -> ApiResult<()>,
) -> *mut PJRT_Error {
    tracing::trace!("{name}");
    let outcome = catch_unwind(AssertUnwindSafe(|| -> ApiResult<()> {
        if args.is_null() {
            return Err(ApiError::invalid_argument(format!("{name}: args is NULL")));
        }
        // SAFETY: every args struct starts with `size_t struct_size`; the caller guarantees the
        // pointer is valid for at least that many bytes.
        let size = unsafe { std::ptr::read_unaligned(args as *const usize) };
        let min = A::min_size();
        if size < min {
            return Err(ApiError::invalid_argument(format!(
                "{name}: args struct_size is {size} bytes, apu needs at least {min} (of {} it knows); \
                 the caller was built against an incompatible PJRT C API header",
                std::mem::size_of::<A>()
            )));
        }
        if size >= std::mem::size_of::<A>() {
            // SAFETY: the caller's struct covers all of ours.
            body(unsafe { &mut *args })
        } else {
            // SAFETY: all-zero is a valid value of every bindgen args struct (pointers NULL,
            // optional function pointers None, integers 0, bools false).
            let mut local: A = unsafe { std::mem::zeroed() };
            // SAFETY: `size` < size_of::<A>() bytes are readable at `args` (caller's promise)
            // and writable in `local`.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    args as *const u8,
                    &mut local as *mut A as *mut u8,
                    size,
                );
            }
            let result = body(&mut local);
            // SAFETY: write back exactly the bytes the caller owns.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    &local as *const A as *const u8,
                    args as *mut u8,
                    size,
                );
            }
            result
        }
    }));
    match outcome {
        Ok(Ok(())) => std::ptr::null_mut(),
        Ok(Err(e)) => {
            tracing::debug!("{name} failed: {}", e.message());
            e.into_raw()
        }
        Err(panic) => {
            let msg = panic_message(&*panic);
            tracing::error!("{name} panicked: {msg}");
            ApiError::internal(format!("{name}: internal error (panic contained): {msg}"))
                .into_raw()
        }
    }
}

/// Like [`entry`] for the few functions that return `void`: failures can only be logged.
pub(crate) fn entry_void<A: ArgsStruct>(
    name: &'static str,
    args: *mut A,
    body: impl FnOnce(&mut A) -> ApiResult<()>,
) {
    let err = entry(name, args, body);
    if !err.is_null() {
        // SAFETY: `entry` just made this error with `ApiError::into_raw`.
        let e = unsafe { ApiError::from_raw(err) };
        tracing::error!("{name}: {}", e.message());
    }
}

/// Borrows the object behind an opaque handle, failing cleanly on NULL.
///
/// # Safety
/// A non-NULL `raw` must be a live handle of type `T` created by this plugin.
pub(crate) unsafe fn handle<'a, R, T>(raw: *const R, what: &str) -> ApiResult<&'a T> {
    if raw.is_null() {
        return Err(ApiError::invalid_argument(format!("`{what}` is NULL")));
    }
    Ok(unsafe { &*(raw as *const T) })
}

/// Borrows `len` elements at `ptr` (NULL is fine when `len` is 0).
///
/// # Safety
/// A non-NULL `ptr` must be valid for `len` reads.
pub(crate) unsafe fn slice<'a, T>(ptr: *const T, len: usize, what: &str) -> ApiResult<&'a [T]> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(ApiError::invalid_argument(format!(
            "`{what}` is NULL but its length is {len}"
        )));
    }
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// A (pointer, length) string argument as UTF-8 text (lossy: names are ASCII in practice).
///
/// # Safety
/// As for [`slice`].
pub(crate) unsafe fn string_arg(
    ptr: *const std::os::raw::c_char,
    len: usize,
    what: &str,
) -> ApiResult<String> {
    let bytes = unsafe { slice(ptr as *const u8, len, what)? };
    Ok(String::from_utf8_lossy(bytes).into_owned())
}

/// Raw pointers that the plugin hands out and keeps for the lifetime of an object. They point into
/// objects owned by the same client, which is Send + Sync.
pub(crate) struct PtrList<T>(pub Vec<*mut T>);
// SAFETY: the pointees are immutable plugin objects that are themselves Send + Sync.
unsafe impl<T> Send for PtrList<T> {}
unsafe impl<T> Sync for PtrList<T> {}

impl<T> PtrList<T> {
    pub fn as_ptr(&self) -> *const *mut T {
        self.0.as_ptr()
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
}

/// The profiler extension's choke point (its calls return the extension's own error type, not a
/// `PJRT_Error`): contains panics and turns a failure into a profiler error with a non-zero code.
pub(crate) fn profiler_entry(
    name: &'static str,
    body: impl FnOnce() -> Result<(), &'static str>,
) -> *mut super::profiler::ProfilerError {
    let outcome = catch_unwind(AssertUnwindSafe(body));
    let message = match outcome {
        Ok(Ok(())) => return std::ptr::null_mut(),
        Ok(Err(why)) => format!("apu profiler {name}: {why}"),
        Err(panic) => format!("apu profiler {name}: internal error (panic contained): {}", panic_message(&*panic)),
    };
    tracing::warn!("{message}");
    let code = apu_pjrt_api::PJRT_Error_Code_INVALID_ARGUMENT as std::os::raw::c_int;
    Box::into_raw(Box::new(super::profiler::ProfilerError { code, message }))
}
