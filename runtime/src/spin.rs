//! Waiting for the next piece of work by spinning for a while before sleeping (decision 40).
//!
//! A thread that sleeps between jobs is woken by a futex call and queued on a CPU the kernel picks;
//! on a virtual machine that packs work onto few CPUs, the device thread and a helper it woke were
//! queued on one CPU while the other stood idle. A thread still spinning when work arrives takes it
//! at once on the CPU it has. Spinning threads are limited to the machine's cores, so that threads
//! beyond them (more devices or `APU_NUM_THREADS` than cores) sleep instead of taking CPU time from
//! the ones working.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long an idle thread spins before it sleeps: longer than the gap between the kernels of a
/// run and between calls of a Python loop that waits for each result (tens of microseconds; 50 µs
/// measured slower on a 1 ms kernel), short enough that an idle device soon costs nothing.
pub const SPIN: Duration = Duration::from_micros(200);

/// Threads spinning now, across every device and helper team of the process.
static SPINNING: AtomicUsize = AtomicUsize::new(0);

/// Calls `poll` until it returns `Some` or [`SPIN`] has passed; `None` then (or at once when as many
/// threads as cores are spinning already), and the caller should sleep until woken.
pub fn poll_for<T>(poll: impl FnMut() -> Option<T>) -> Option<T> {
    poll_counted(&SPINNING, crate::exec::workers::cores(), poll)
}

/// [`poll_for`] with the count of spinning threads and its limit given.
fn poll_counted<T>(spinning: &AtomicUsize, limit: usize, mut poll: impl FnMut() -> Option<T>) -> Option<T> {
    if let Some(t) = poll() {
        return Some(t);
    }
    if spinning.fetch_add(1, Ordering::AcqRel) >= limit {
        spinning.fetch_sub(1, Ordering::AcqRel);
        return None;
    }
    let since = Instant::now();
    let mut spins = 0u32;
    let found = loop {
        if let Some(t) = poll() {
            break Some(t);
        }
        spins = spins.wrapping_add(1);
        // The clock is read now and then: it costs more than a look at an atomic.
        if spins % 64 == 0 && since.elapsed() >= SPIN {
            break None;
        }
        std::hint::spin_loop();
    };
    spinning.fetch_sub(1, Ordering::AcqRel);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polling_returns_what_arrives_gives_up_after_the_spin_and_spinners_are_limited() {
        let spinning = AtomicUsize::new(0);
        let mut n = 0;
        let found = poll_counted(&spinning, 1, || {
            n += 1;
            (n == 1000).then_some(n)
        });
        assert_eq!(found, Some(1000));
        let t = Instant::now();
        assert_eq!(poll_counted(&spinning, 1, || None::<()>), None);
        assert!(t.elapsed() >= SPIN, "gave up after {:?}", t.elapsed());
        assert_eq!(spinning.load(Ordering::SeqCst), 0, "a spinner is counted only while it spins");
        // With the limit reached, a thread does not spin: one look, then it should sleep.
        spinning.store(1, Ordering::SeqCst);
        let mut looks = 0;
        assert_eq!(poll_counted(&spinning, 1, || { looks += 1; None::<()> }), None);
        assert_eq!((looks, spinning.load(Ordering::SeqCst)), (1, 1));
    }
}
