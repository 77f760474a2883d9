//! The spare buffers of a run: buffers whose slot's last use has passed, handed to later steps
//! that need one of the same size (and kept between runs, so large buffers stay mapped).
//!
//! Small buffers are also kept by the slot that last held them, already wrapped in their `Arc`:
//! a loop body writes the same slots on every iteration, and a step taking its slot's own
//! buffer back costs neither an allocation for the `Arc` nor a search of the spare list. Such
//! a step of one scalar otherwise spent as long in `malloc` and `free` as in its own work.

use crate::AlignedBytes;
use std::sync::Arc;

/// Buffers up to this size are kept by slot; larger ones go back to the shared list, where any
/// slot of the same size can take them (that sharing is the plan's memory reuse).
const SMALL_BYTES: usize = 256;

#[derive(Default)]
pub(super) struct Pool {
    spare: Vec<AlignedBytes>,
    /// Per slot: a small buffer nobody else holds, last released by that slot.
    by_slot: Vec<Option<Arc<AlignedBytes>>>,
    /// Per slot: whether it takes its buffers with [`Pool::take_for`] (a loop's parameters never
    /// do: their buffers, the previous iteration's results, go back to the shared list for the
    /// next results).
    takes: Vec<bool>,
    /// Buffers the caller gave for result slots (written in place, no copy out): the step writing
    /// such a slot takes its buffer from here.
    targets: Vec<(usize, AlignedBytes)>,
}

impl Pool {
    /// A buffer of `len` bytes: a spare one of that size (its old contents), or a new zeroed one.
    pub fn take(&mut self, len: usize) -> AlignedBytes {
        match self.spare.iter().position(|b| b.len() == len) {
            Some(i) => self.spare.swap_remove(i),
            None => AlignedBytes::zeroed(len),
        }
    }

    /// Gives slot `slot` the buffer `b` to write (a caller's output memory); a step writing the
    /// slot with a buffer of `b`'s size takes it ([`Pool::take_out`], [`Pool::take_for`]).
    pub fn target(&mut self, slot: usize, b: AlignedBytes) {
        self.targets.push((slot, b));
    }

    /// Drops the targets no step took (the caller copies those results).
    pub fn clear_targets(&mut self) {
        self.targets.clear();
    }

    fn take_target(&mut self, slot: usize, len: usize) -> Option<AlignedBytes> {
        if self.targets.is_empty() {
            return None;
        }
        let i = self.targets.iter().position(|(s, b)| *s == slot && b.len() == len)?;
        Some(self.targets.swap_remove(i).1)
    }

    /// A buffer of `len` bytes that step output `slot` is written into: the caller's target for
    /// the slot if it gave one, else as [`Pool::take`].
    pub fn take_out(&mut self, slot: usize, len: usize) -> AlignedBytes {
        match self.take_target(slot, len) {
            Some(b) => b,
            None => self.take(len),
        }
    }

    /// A buffer of `len` bytes for slot `slot`, which nobody else holds (`Arc::get_mut` works).
    pub fn take_for(&mut self, slot: usize, len: usize) -> Arc<AlignedBytes> {
        if let Some(b) = self.take_target(slot, len) {
            return Arc::new(b);
        }
        if self.takes.len() <= slot {
            self.takes.resize(slot + 1, false);
            self.by_slot.resize(slot + 1, None);
        }
        self.takes[slot] = true;
        if let Some(kept) = self.by_slot.get_mut(slot) {
            if kept.as_ref().is_some_and(|b| b.len() == len) {
                if let Some(b) = kept.take() {
                    return b;
                }
            }
        }
        Arc::new(self.take(len))
    }

    /// Keeps `b` for reuse; external memory (the caller's) is never kept.
    pub fn put(&mut self, b: AlignedBytes) {
        if !b.is_external() {
            self.spare.push(b);
        }
    }

    pub fn extend(&mut self, bufs: impl IntoIterator<Item = AlignedBytes>) {
        self.spare.extend(bufs.into_iter().filter(|b| !b.is_external()));
    }

    /// Takes back the buffer slot `slot` held, unless someone else still holds it.
    pub fn release(&mut self, slot: usize, mut b: Arc<AlignedBytes>) {
        if Arc::get_mut(&mut b).is_none() || b.is_external() {
            return;
        }
        if b.len() <= SMALL_BYTES && self.takes.get(slot) == Some(&true) {
            self.by_slot[slot] = Some(b);
        } else if let Ok(owned) = Arc::try_unwrap(b) {
            self.spare.push(owned);
        }
    }

    /// Keeps at most `n` buffers of the shared list (those kept by slot are small).
    pub fn truncate(&mut self, n: usize) {
        self.spare.truncate(n);
    }

    /// How many buffers the shared list holds.
    pub fn len(&self) -> usize {
        self.spare.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_takes_back_its_own_small_buffer() {
        let mut pool = Pool::default();
        let a = pool.take_for(3, 8);
        let addr = a.as_ptr();
        pool.release(3, a);
        // Another slot of the same size does not get it; slot 3 does, the same allocation.
        let other = pool.take_for(4, 8);
        assert_ne!(other.as_ptr(), addr);
        let again = pool.take_for(3, 8);
        assert_eq!(again.as_ptr(), addr);
        // A different size for the slot makes a new buffer.
        pool.release(3, again);
        assert_ne!(pool.take_for(3, 16).as_ptr(), addr);
    }

    #[test]
    fn shared_or_large_buffers_are_not_kept_by_slot() {
        let mut pool = Pool::default();
        // Slot 7 never takes a buffer (a loop parameter): what it releases goes to the list.
        pool.release(7, Arc::new(AlignedBytes::zeroed(8)));
        assert_eq!(pool.len(), 1);
        let _ = pool.take(8);
        let a = pool.take_for(0, 8);
        let held = a.clone();
        pool.release(0, a);
        assert_ne!(pool.take_for(0, 8).as_ptr(), held.as_ptr(), "still held elsewhere: not reused");
        let big = pool.take_for(1, 4096);
        let addr = big.as_ptr();
        pool.release(1, big);
        assert_eq!(pool.len(), 1, "large buffers go to the shared list");
        assert_eq!(pool.take(4096).as_ptr(), addr, "where any slot of that size takes them");
    }

    #[test]
    fn targets_go_to_their_slot_and_external_memory_is_never_kept() {
        let mut owner = AlignedBytes::zeroed(128);
        let p = owner.as_mut_ptr();
        let mut pool = Pool::default();
        // SAFETY: `owner` outlives the pool's use of the view below.
        pool.target(5, unsafe { AlignedBytes::external(p, 128) }.unwrap());
        assert_ne!(pool.take_out(4, 128).as_ptr(), p as *const u8, "another slot does not get it");
        assert_ne!(pool.take_out(5, 64).as_ptr(), p as *const u8, "nor a write of another size");
        let t = pool.take_out(5, 128);
        assert_eq!(t.as_ptr(), p as *const u8);
        assert_ne!(pool.take_out(5, 128).as_ptr(), p as *const u8, "taken once");
        // Released, put or extended, external memory leaves the pool's keeping.
        pool.put(t);
        pool.release(9, Arc::new(unsafe { AlignedBytes::external(p, 128) }.unwrap()));
        pool.extend([unsafe { AlignedBytes::external(p, 128) }.unwrap()]);
        let before = pool.len();
        assert!((0..before).all(|_| pool.take(128).as_ptr() != p as *const u8));
        pool.target(1, unsafe { AlignedBytes::external(p, 8) }.unwrap());
        assert_eq!(pool.take_for(1, 8).as_ptr(), p as *const u8, "take_for serves targets too");
        pool.target(2, unsafe { AlignedBytes::external(p, 8) }.unwrap());
        pool.clear_targets();
        assert_ne!(pool.take_out(2, 8).as_ptr(), p as *const u8);
        drop(owner);
    }
}
