//! Per-thread scratch buffers kept from one kernel call to the next. A fresh allocation of a few
//! MiB per call was zeroed and page-faulted every time (a repacked convolution input, a
//! repacked kernel, the column-major copy of a narrow product), so each such buffer lives in a
//! thread-local slot of its kernel and is lent out for the call.

use std::cell::RefCell;
use std::thread::LocalKey;

/// One kernel's slot: words, so that any element type up to 8 bytes is aligned in it.
pub(super) type Slot = LocalKey<RefCell<Vec<u64>>>;

/// Buffers larger than this many words are dropped after the call rather than kept (128 MiB).
const KEPT_WORDS: usize = 1 << 24;

/// Runs `f` on an uninitialised buffer of `elements` values of `T` taken from `slot` (which `f`
/// writes before it reads), then puts the buffer back for the next call on this thread.
///
/// # Safety
/// `f` must not read an element before writing it, and `T` must be at most 8-byte aligned.
pub(super) unsafe fn with_scratch<T, R>(slot: &'static Slot, elements: usize, f: impl FnOnce(*mut T) -> R) -> R {
    let words = (elements * std::mem::size_of::<T>()).div_ceil(8);
    // Taken out of the slot while lent, so that a nested call on the same slot gets its own.
    let mut store = slot.with(|s| s.take());
    if store.capacity() < words {
        store = Vec::with_capacity(words);
    }
    let out = f(store.as_mut_ptr() as *mut T);
    if store.capacity() <= KEPT_WORDS {
        slot.with(|s| *s.borrow_mut() = store);
    }
    out
}
