//! Device memory of the APU: 64-byte aligned host allocations with allocator statistics.

use std::alloc::{alloc, alloc_zeroed, dealloc, Layout};
use std::collections::HashMap;
use std::sync::Mutex;

/// Alignment of every allocation (what TensorFlow's CPU kernels and Eigen expect at most).
pub const ALIGNMENT: usize = 64;

/// The amount of memory the device reports as free and total.
pub const REPORTED_MEMORY_BYTES: i64 = 4 << 30;

/// Counters in the shape of `SP_AllocatorStats`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub num_allocs: i64,
    pub bytes_in_use: i64,
    pub peak_bytes_in_use: i64,
    pub largest_alloc_size: i64,
}

#[derive(Default)]
struct State {
    /// Address → size of every live allocation (host callbacks give only the address back).
    live: HashMap<usize, usize>,
    stats: Stats,
}

/// A thread-safe allocator of aligned host memory.
#[derive(Default)]
pub struct Allocator {
    state: Mutex<State>,
}

impl Allocator {
    pub fn new() -> Self {
        Self::default()
    }

    /// Allocates `size` zeroed bytes; `None` if the system is out of memory. Zero-byte requests get a
    /// distinct one-alignment block so that every allocation has a unique address.
    pub fn allocate(&self, size: usize) -> Option<*mut u8> {
        self.allocate_with(size, true)
    }

    /// Allocates `size` bytes without clearing them, for tensors (decision 76): TensorFlow writes a
    /// tensor before reading it, as with its own CPU allocator, and clearing took a memset of every
    /// output (as long as the kernel's own pass over a large elementwise op).
    pub fn allocate_uninit(&self, size: usize) -> Option<*mut u8> {
        self.allocate_with(size, false)
    }

    fn allocate_with(&self, size: usize, zeroed: bool) -> Option<*mut u8> {
        let layout = Layout::from_size_align(size.max(1), ALIGNMENT).ok()?;
        // SAFETY: the layout has non-zero size.
        let p = unsafe { if zeroed { alloc_zeroed(layout) } else { alloc(layout) } };
        if p.is_null() {
            return None;
        }
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.live.insert(p as usize, size);
        let s = &mut st.stats;
        s.num_allocs += 1;
        s.bytes_in_use += size as i64;
        s.peak_bytes_in_use = s.peak_bytes_in_use.max(s.bytes_in_use);
        s.largest_alloc_size = s.largest_alloc_size.max(size as i64);
        Some(p)
    }

    /// Frees an address returned by [`Allocator::allocate`]; unknown addresses (and null) are ignored,
    /// so a double free from a confused caller cannot corrupt the heap. Safe: only addresses found in the
    /// live table, which this allocator handed out, are ever freed.
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    pub fn deallocate(&self, p: *mut u8) -> bool {
        if p.is_null() {
            return false;
        }
        let size = {
            let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
            let Some(size) = st.live.remove(&(p as usize)) else { return false };
            st.stats.bytes_in_use -= size as i64;
            size
        };
        let layout = Layout::from_size_align(size.max(1), ALIGNMENT).expect("layout was valid at allocation");
        // SAFETY: `p` was allocated with exactly this layout and is removed from `live`, so freed once.
        unsafe { dealloc(p, layout) };
        true
    }

    pub fn stats(&self) -> Stats {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_aligned_zeroed_and_counted() {
        let a = Allocator::new();
        let p = a.allocate(100).unwrap();
        let q = a.allocate(300).unwrap();
        assert_eq!(p as usize % ALIGNMENT, 0);
        // SAFETY: p points to 100 bytes we own.
        assert!(unsafe { std::slice::from_raw_parts(p, 100) }.iter().all(|&b| b == 0));
        assert_eq!(a.stats(), Stats { num_allocs: 2, bytes_in_use: 400, peak_bytes_in_use: 400, largest_alloc_size: 300 });
        assert!(a.deallocate(q));
        assert!(!a.deallocate(q), "double free must be refused");
        let s = a.stats();
        assert_eq!((s.bytes_in_use, s.peak_bytes_in_use), (100, 400));
        assert!(a.deallocate(p));
        assert_eq!(a.stats().bytes_in_use, 0);
    }

    #[test]
    fn tensor_allocations_are_aligned_counted_and_freed_like_zeroed_ones() {
        let a = Allocator::new();
        let p = a.allocate_uninit(4 << 20).unwrap();
        let q = a.allocate_uninit(0).unwrap();
        assert!(p as usize % ALIGNMENT == 0 && q as usize % ALIGNMENT == 0 && p != q);
        assert_eq!(a.stats(), Stats { num_allocs: 2, bytes_in_use: 4 << 20, peak_bytes_in_use: 4 << 20, largest_alloc_size: 4 << 20 });
        // SAFETY: p holds 4 MiB.
        unsafe { std::ptr::write_bytes(p, 0x5a, 4 << 20) };
        assert!(a.deallocate(p) && a.deallocate(q));
        assert!(!a.deallocate(p));
        assert_eq!(a.stats().bytes_in_use, 0);
    }

    #[test]
    fn zero_sized_allocations_are_distinct() {
        let a = Allocator::new();
        let p = a.allocate(0).unwrap();
        let q = a.allocate(0).unwrap();
        assert_ne!(p, q);
        assert!(a.deallocate(p) && a.deallocate(q));
    }
}
