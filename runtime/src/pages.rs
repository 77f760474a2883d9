//! Large buffers as anonymous mappings of their own, aligned to 2 MiB and advised to be backed by
//! transparent huge pages.
//!
//! Why: a kernel streaming a large buffer crosses a 4 KiB page every 4 KiB, and each crossing can
//! cost a TLB miss and restarts the hardware prefetcher's stream; which physical pages a buffer got
//! also made the same program up to 1.5x slower in one process than in the next (measured on the
//! last-axis sum of [4096,4096], see docs/decisions.md, decision 39). With THP in "madvise" mode, the
//! default on many distributions, a mapping gets huge pages only when asked. The mapping also
//! comes zeroed from the kernel, so a zeroed buffer costs no separate pass of writes.

/// The huge page size on x86-64 and the alignment of every mapping made here.
pub const HUGE_PAGE: usize = 2 << 20;

/// An anonymous read-write mapping, unmapped on drop.
pub struct Mapping {
    ptr: std::ptr::NonNull<u8>,
    size: usize,
}

// SAFETY: the mapping is owned by this value alone, like a heap allocation.
unsafe impl Send for Mapping {}
// SAFETY: shared access only reads through `as_ptr`; writes need `&mut`.
unsafe impl Sync for Mapping {}

impl Mapping {
    /// A zeroed mapping of `len` bytes rounded up to whole base pages, aligned to [`HUGE_PAGE`],
    /// advised to use huge pages; None where that is not available (not Linux, or the kernel
    /// refused the mapping), for the caller to use the heap instead. The kernel backs only whole
    /// aligned 2 MiB ranges with huge pages, so a tail shorter than that keeps base pages and no
    /// memory is spent beyond the last base page.
    pub fn zeroed(len: usize) -> Option<Mapping> {
        let size = len.max(1).checked_next_multiple_of(base_page())?;
        map_aligned(size).map(|ptr| Mapping { ptr, size })
    }
    pub fn as_ptr(&self) -> *const u8 {
        self.ptr.as_ptr()
    }
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

#[cfg(target_os = "linux")]
fn base_page() -> usize {
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if page > 0 { page as usize } else { 4096 }
}

#[cfg(not(target_os = "linux"))]
fn base_page() -> usize {
    4096
}

#[cfg(target_os = "linux")]
fn map_aligned(size: usize) -> Option<std::ptr::NonNull<u8>> {
    // The kernel aligns a mapping to its base page only: reserve one huge page more, then give back
    // the parts before and after the aligned range.
    let reserve = size.checked_add(HUGE_PAGE)?;
    // SAFETY: a new private anonymous mapping; no existing memory is touched.
    let raw = unsafe {
        libc::mmap(std::ptr::null_mut(), reserve, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0)
    };
    if raw == libc::MAP_FAILED {
        return None;
    }
    let base = raw as usize;
    let start = base.next_multiple_of(HUGE_PAGE);
    let (head, tail) = (start - base, base + reserve - (start + size));
    // SAFETY: both ranges lie inside the reservation just made and outside the range kept.
    unsafe {
        if head > 0 {
            libc::munmap(raw, head);
        }
        if tail > 0 {
            libc::munmap((start + size) as *mut libc::c_void, tail);
        }
        // Advice only: if it fails (THP disabled), the mapping keeps 4 KiB pages and works the same.
        libc::madvise(start as *mut libc::c_void, size, libc::MADV_HUGEPAGE);
    }
    std::ptr::NonNull::new(start as *mut u8)
}

#[cfg(not(target_os = "linux"))]
fn map_aligned(_size: usize) -> Option<std::ptr::NonNull<u8>> {
    None
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: exactly the range `map_aligned` kept, unmapped once.
        #[cfg(target_os = "linux")]
        unsafe {
            libc::munmap(self.ptr.as_ptr() as *mut libc::c_void, self.size);
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// The `THPeligible` line of /proc/self/smaps for the mapping holding `addr`.
    fn thp_eligible(addr: usize) -> Option<bool> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ') {
                if let Some((lo, hi)) = range.split_once('-') {
                    if let (Ok(lo), Ok(hi)) = (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16)) {
                        inside = (lo..hi).contains(&addr);
                        continue;
                    }
                }
            }
            if inside {
                if let Some(v) = line.strip_prefix("THPeligible:") {
                    return Some(v.trim() == "1");
                }
            }
        }
        None
    }

    #[test]
    fn a_mapping_is_zeroed_aligned_writable_and_eligible_for_huge_pages() {
        let len = 5 * HUGE_PAGE / 2;
        let mut m = Mapping::zeroed(len).expect("an anonymous mapping of 5 MiB");
        assert_eq!(m.size, len.next_multiple_of(base_page()), "rounded up to whole base pages only");
        assert_eq!(m.as_ptr() as usize % HUGE_PAGE, 0);
        // SAFETY: the mapping holds `size` bytes and this test owns it.
        let bytes = unsafe { std::slice::from_raw_parts_mut(m.as_mut_ptr(), m.size) };
        assert!(bytes.iter().all(|&b| b == 0));
        bytes[len - 1] = 7;
        assert_eq!(bytes[len - 1], 7);
        // The advice is only honoured where THP is not switched off for the whole system.
        let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
        if !thp.contains("[never]") && !thp.is_empty() {
            assert_eq!(thp_eligible(m.as_ptr() as usize), Some(true), "THP mode: {thp}");
        }
    }
}
