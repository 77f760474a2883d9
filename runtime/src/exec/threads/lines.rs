//! Keeping what threads write apart from what other threads use.
//!
//! Two threads that write words of one cache line take the line from each other on every write (a
//! round trip of ~100 ns between this machine's two vCPUs), even when the words have nothing to do
//! with each other. A lingering helper reads its board in a tight loop and the threads of a split
//! kernel claim pieces from their own shares, so any unrelated word on those lines that another
//! thread writes often would pay such a transfer per write, in some processes and not in others
//! (wherever the allocator put the board). Decision 81 says what was measured.

/// A value on cache lines of its own: 128 bytes, since the CPU's prefetcher fetches lines in
/// pairs and a neighbour on the paired line contends the same way.
#[repr(align(128))]
pub struct OwnLines<T>(pub T);

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn neighbours_in_a_vec_never_share_a_line_pair() {
        let v: Vec<OwnLines<AtomicUsize>> = (0..3).map(|_| OwnLines(AtomicUsize::new(0))).collect();
        let addr: Vec<usize> = v.iter().map(|x| &x.0 as *const _ as usize).collect();
        assert!(addr.iter().all(|a| a % 128 == 0), "{addr:x?}");
        assert!(addr.windows(2).all(|w| w[1] - w[0] >= 128), "{addr:x?}");
    }
}
