//! Which pieces of a split kernel each thread takes: first the pieces of its CPU's share, in
//! order, then what is left of the others' (decision 42).
//!
//! Why: a program called in a loop reads the same buffers on every call. On this machine the two
//! vCPUs at times do not share their last-level cache the way one L3 would: reading the half of a
//! 64 MiB buffer that the same CPU read the pass before took 0.45-0.53 ms (median), reading the
//! half the other CPU read took 0.78-0.82 ms (`benches/hw/read_bw.c`, integration notes). With pieces
//! claimed from one shared counter, which thread reads which rows changes from call to call; with
//! a share per CPU it stays the same, and the rows stay in that CPU's cache. Stealing from the
//! other shares keeps the balance when a thread is held up; on a machine with one shared cache
//! the order changes nothing.

use super::lines::OwnLines;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `pieces` pieces in `homes` shares of consecutive pieces, each with its own claim counter.
pub struct HomeClaims {
    /// Next unclaimed piece and end of each share, each on lines of its own: every thread claims
    /// from its own share first, and shares on one line made each claim a transfer of it.
    shares: Vec<OwnLines<(AtomicUsize, usize)>>,
}

impl HomeClaims {
    pub fn new(pieces: usize, homes: usize) -> HomeClaims {
        let homes = homes.clamp(1, pieces.max(1));
        let bound = |h: usize| h * pieces / homes;
        HomeClaims { shares: (0..homes).map(|h| OwnLines((AtomicUsize::new(bound(h)), bound(h + 1)))).collect() }
    }

    /// The share a thread on `cpu` takes first.
    pub fn home_of(&self, cpu: usize) -> usize {
        cpu % self.shares.len()
    }

    /// The next piece for a thread whose share is `home`: from its own share, else from the next
    /// share round that still has one; None when all are taken.
    pub fn next(&self, home: usize) -> Option<usize> {
        let n = self.shares.len();
        (0..n).map(|i| &self.shares[(home + i) % n]).find_map(|share| {
            let (next, end) = &share.0;
            // A counter past its end stays past it: a failed claim never hands out a piece.
            if next.load(Ordering::Relaxed) >= *end {
                return None;
            }
            let p = next.fetch_add(1, Ordering::Relaxed);
            (p < *end).then_some(p)
        })
    }
}

/// The CPU this thread runs on now (0 where that cannot be asked).
pub fn current_cpu() -> usize {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: no preconditions; -1 on failure.
        let cpu = unsafe { libc::sched_getcpu() };
        if cpu >= 0 {
            return cpu as usize;
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(c: &HomeClaims, home: usize) -> Vec<usize> {
        std::iter::from_fn(|| c.next(home)).collect()
    }

    #[test]
    fn a_thread_takes_its_own_share_first_then_the_rest_and_every_piece_once() {
        let c = HomeClaims::new(8, 2);
        assert_eq!((c.home_of(0), c.home_of(1), c.home_of(5)), (0, 1, 1));
        assert_eq!(c.next(1), Some(4), "share 1 holds pieces 4..8");
        assert_eq!(c.next(0), Some(0));
        // One thread alone takes the rest: its own share in order, then the other's.
        assert_eq!(drain(&c, 1), vec![5, 6, 7, 1, 2, 3]);
        assert_eq!(c.next(0), None);
    }

    #[test]
    fn shares_never_outnumber_pieces_and_concurrent_claims_cover_each_piece_once() {
        let c = HomeClaims::new(3, 8);
        assert_eq!(drain(&c, 7), vec![1, 2, 0], "three shares of one piece; home 7 is share 1");
        let c = HomeClaims::new(1000, 3);
        let seen: Vec<AtomicUsize> = (0..1000).map(|_| AtomicUsize::new(0)).collect();
        std::thread::scope(|s| {
            for home in 0..4 {
                let (c, seen) = (&c, &seen);
                s.spawn(move || {
                    while let Some(p) = c.next(c.home_of(home)) {
                        seen[p].fetch_add(1, Ordering::Relaxed);
                    }
                });
            }
        });
        assert!(seen.iter().all(|n| n.load(Ordering::Relaxed) == 1));
    }
}
