//! Calls from a running program back into the host process: `jax.debug.print`, `jax.debug.callback`,
//! `jax.pure_callback` and `io_callback` lower (through the wheel's own lowering rules) to
//! `custom_call @apu_host_callback` whose backend config is the callback's number. Running such an op
//! hands its operands to the host's trampoline together with that number; the host calls its function
//! and writes the results into buffers apu allocated for them.
//!
//! The trampoline is installed once per process by the host (the wheel installs a Python one through
//! the plugin's `apu_host_callback_install`). It is called from whichever thread runs the program, so
//! the host side must take its own locks (a ctypes callback takes the GIL itself). A failure comes
//! back as a message, which becomes the error of that execution; apu never unwinds into the host.

use crate::Tensor;
use apu_compiler::{Error, Result};
use apu_compiler::ir::{ElementType, TensorType};
use std::ffi::{c_char, c_int, CStr};
use std::sync::atomic::{AtomicPtr, Ordering};


pub use apu_compiler::plan::HOST_CALLBACK_TARGET;

/// One operand or result as the host sees it: a dense row-major array.
#[repr(C)]
pub struct HostArray {
    /// First byte; may be dangling (but non-null) for an empty array.
    pub data: *mut u8,
    pub byte_len: usize,
    /// NUL-terminated StableHLO element type name: "f32", "bf16", "i1", "ui8", "complex<f32>", ...
    pub element_type: *const c_char,
    pub rank: usize,
    pub dims: *const i64,
}

/// The host's entry: `callback` is the number from the backend config. Returns 0 on success; otherwise
/// writes a NUL-terminated message of at most `error_len` bytes into `error` and returns non-zero.
pub type Trampoline = unsafe extern "C" fn(
    callback: u64,
    num_args: usize,
    args: *const HostArray,
    num_results: usize,
    results: *const HostArray,
    error: *mut c_char,
    error_len: usize,
) -> c_int;

static TRAMPOLINE: AtomicPtr<()> = AtomicPtr::new(std::ptr::null_mut());

/// Installs (or, with None, removes) the process's trampoline.
pub fn install(trampoline: Option<Trampoline>) {
    let p = trampoline.map_or(std::ptr::null_mut(), |f| f as *mut ());
    TRAMPOLINE.store(p, Ordering::Release);
}

fn trampoline() -> Option<Trampoline> {
    let p = TRAMPOLINE.load(Ordering::Acquire);
    // SAFETY: only `install` stores into TRAMPOLINE, and it stores a `Trampoline` or null.
    (!p.is_null()).then(|| unsafe { std::mem::transmute::<*mut (), Trampoline>(p) })
}

/// Reads the callback number from the op's backend config (the wheel writes it as a decimal string).
pub fn callback_number(backend_config: &str) -> Result<u64> {
    backend_config.trim().parse::<u64>().map_err(|_| {
        Error::invalid(format!(
            "custom_call @{HOST_CALLBACK_TARGET}: backend_config {backend_config:?} is not a callback number"
        ))
    })
}

/// Element type names with their NUL, kept static so the host may read them during the call.
fn element_type_name(t: ElementType) -> &'static CStr {
    // Leaked once per element type: a handful of short strings for the life of the process.
    static NAMES: std::sync::OnceLock<Vec<(ElementType, &'static CStr)>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        ElementType::ALL
            .iter()
            .map(|&e| {
                let s = std::ffi::CString::new(e.stablehlo_name()).expect("element type names have no NUL");
                (e, &*Box::leak(s.into_boxed_c_str()))
            })
            .collect()
    });
    names.iter().find(|(e, _)| *e == t).map(|(_, n)| *n).unwrap_or(c"unknown")
}

fn host_array(data: *mut u8, byte_len: usize, ty: &TensorType) -> HostArray {
    HostArray {
        data: if data.is_null() { std::ptr::NonNull::<u8>::dangling().as_ptr() } else { data },
        byte_len,
        element_type: element_type_name(ty.elem).as_ptr(),
        rank: ty.shape.len(),
        dims: ty.shape.as_ptr(),
    }
}

/// Runs host callback `callback` on `args` and returns results of `result_types`.
pub fn call(callback: u64, args: &[Tensor], result_types: &[TensorType]) -> Result<Vec<Tensor>> {
    let Some(trampoline) = trampoline() else {
        return Err(Error::invalid(format!(
            "custom_call @{HOST_CALLBACK_TARGET}: host callback {callback} was called, but no host has installed \
             a callback handler in this process (the apu wheel's Python package installs it when JAX loads apu)"
        )));
    };
    let mut results: Vec<Tensor> = result_types.iter().map(|t| Tensor::zeroed(t.clone())).collect();
    // The host only reads the operands; the pointer is mutable only because one struct serves both ways.
    let arg_views: Vec<HostArray> =
        args.iter().map(|t| host_array(t.bytes().as_ptr() as *mut u8, t.bytes().len(), &t.ty)).collect();
    let result_views: Vec<HostArray> = results
        .iter_mut()
        .map(|t| {
            let bytes = std::sync::Arc::get_mut(&mut t.data).expect("a fresh result buffer has one owner");
            let len = bytes.len();
            host_array(bytes.as_mut_ptr(), len, &t.ty)
        })
        .collect();
    let mut message = vec![0 as c_char; 4096];
    // SAFETY: every pointer handed over stays valid until the call returns (the tensors, the views,
    // the shape vectors and the message buffer outlive it); the host writes at most `message.len()`
    // bytes into `message` and only within each result's `byte_len`.
    let status = unsafe {
        trampoline(
            callback,
            arg_views.len(),
            arg_views.as_ptr(),
            result_views.len(),
            result_views.as_ptr(),
            message.as_mut_ptr(),
            message.len(),
        )
    };
    drop(result_views);
    if status != 0 {
        let last = message.len() - 1;
        message[last] = 0;
        // SAFETY: the buffer is NUL-terminated (set just above at the latest).
        let text = unsafe { CStr::from_ptr(message.as_ptr()) }.to_string_lossy().into_owned();
        let text = if text.is_empty() { "the host callback failed without a message".to_string() } else { text };
        return Err(Error::invalid(format!("host callback {callback} failed: {text}")));
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Tests install process-wide trampolines: one at a time.
    static SERIAL: Mutex<()> = Mutex::new(());

    unsafe extern "C" fn add_one_and_sum(
        callback: u64,
        num_args: usize,
        args: *const HostArray,
        num_results: usize,
        results: *const HostArray,
        error: *mut c_char,
        error_len: usize,
    ) -> c_int {
        let args = unsafe { std::slice::from_raw_parts(args, num_args) };
        let results = unsafe { std::slice::from_raw_parts(results, num_results) };
        if callback == 13 {
            let msg = b"ValueError: thirteen\0";
            let n = msg.len().min(error_len);
            unsafe { std::ptr::copy_nonoverlapping(msg.as_ptr() as *const c_char, error, n) };
            return 1;
        }
        let ty = unsafe { CStr::from_ptr(args[0].element_type) }.to_str().unwrap();
        assert_eq!(ty, "f32");
        let dims = unsafe { std::slice::from_raw_parts(args[0].dims, args[0].rank) };
        let n: i64 = dims.iter().product();
        let x = unsafe { std::slice::from_raw_parts(args[0].data as *const f32, n as usize) };
        let out = unsafe { std::slice::from_raw_parts_mut(results[0].data as *mut f32, n as usize) };
        for (o, v) in out.iter_mut().zip(x) {
            *o = v + callback as f32;
        }
        let sum = unsafe { &mut *(results[1].data as *mut f32) };
        *sum = x.iter().sum();
        0
    }

    fn f32s(shape: &[i64], v: &[f32]) -> Tensor {
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        Tensor::from_bytes(TensorType::new(shape.to_vec(), ElementType::F32), &bytes).unwrap()
    }

    fn values(t: &Tensor) -> Vec<f32> {
        t.bytes().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
    }

    #[test]
    fn results_come_from_the_host_and_failures_carry_its_message() {
        let _serial = SERIAL.lock().unwrap();
        install(None);
        let x = f32s(&[2, 2], &[1.0, 2.0, 3.0, 4.5]);
        let types = [x.ty.clone(), TensorType::new(vec![], ElementType::F32)];
        let missing = call(1, std::slice::from_ref(&x), &types).unwrap_err();
        assert!(missing.to_string().contains("no host has installed"), "{missing}");

        install(Some(add_one_and_sum));
        let out = call(2, std::slice::from_ref(&x), &types).unwrap();
        assert_eq!(values(&out[0]), vec![3.0, 4.0, 5.0, 6.5]);
        assert_eq!(values(&out[1]), vec![10.5]);
        let failed = call(13, &[x], &types).unwrap_err();
        assert!(failed.to_string().contains("host callback 13 failed: ValueError: thirteen"), "{failed}");
        install(None);
    }

    #[test]
    fn callback_numbers_are_decimal() {
        assert_eq!(callback_number(" 42 ").unwrap(), 42);
        assert!(callback_number("x").is_err());
    }
}
