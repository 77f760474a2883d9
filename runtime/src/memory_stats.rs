//! Per-device memory accounting: bytes held by live buffer contents, with peak and allocation
//! counts, for `device.memory_stats()`-style queries.

use std::sync::atomic::{AtomicI64, Ordering};

#[derive(Debug, Default)]
pub struct MemoryStats {
    in_use: AtomicI64,
    peak: AtomicI64,
    num_allocs: AtomicI64,
    largest_alloc: AtomicI64,
}

/// A consistent-enough copy of the counters (each read atomically).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryStatsSnapshot {
    pub bytes_in_use: i64,
    pub peak_bytes_in_use: i64,
    pub num_allocs: i64,
    pub largest_alloc_size: i64,
}

impl MemoryStats {
    pub fn allocate(&self, bytes: usize) {
        let bytes = bytes as i64;
        let now = self.in_use.fetch_add(bytes, Ordering::AcqRel) + bytes;
        self.peak.fetch_max(now, Ordering::AcqRel);
        self.num_allocs.fetch_add(1, Ordering::AcqRel);
        self.largest_alloc.fetch_max(bytes, Ordering::AcqRel);
    }

    pub fn free(&self, bytes: usize) {
        self.in_use.fetch_sub(bytes as i64, Ordering::AcqRel);
    }

    pub fn snapshot(&self) -> MemoryStatsSnapshot {
        MemoryStatsSnapshot {
            bytes_in_use: self.in_use.load(Ordering::Acquire),
            peak_bytes_in_use: self.peak.load(Ordering::Acquire),
            num_allocs: self.num_allocs.load(Ordering::Acquire),
            largest_alloc_size: self.largest_alloc.load(Ordering::Acquire),
        }
    }

    /// Restarts the peak, allocation count and largest allocation from the current state.
    pub fn clear(&self) {
        self.peak
            .store(self.in_use.load(Ordering::Acquire), Ordering::Release);
        self.num_allocs.store(0, Ordering::Release);
        self.largest_alloc.store(0, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_peak_and_clear() {
        let s = MemoryStats::default();
        s.allocate(100);
        s.allocate(50);
        s.free(100);
        assert_eq!(
            s.snapshot(),
            MemoryStatsSnapshot {
                bytes_in_use: 50,
                peak_bytes_in_use: 150,
                num_allocs: 2,
                largest_alloc_size: 100
            }
        );
        s.clear();
        assert_eq!(s.snapshot().peak_bytes_in_use, 50);
        assert_eq!(s.snapshot().num_allocs, 0);
    }
}
