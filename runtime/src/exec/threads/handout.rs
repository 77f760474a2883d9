//! Handing a split kernel's work to a rayon pool without waiting for helpers that never came.
//!
//! The calling thread (a device's worker, or the framework's thread for a program run inline) is
//! not one of the pool's threads, so a rayon scope would make it wait at the end until every task
//! it spawned had run, including one whose thread was still asleep: on this 2-vCPU machine a woken
//! thread can take 50-100 µs to be scheduled, and each split kernel waited that long (a rayon scope
//! here made the zoo's loop models 3-5x slower). So the pool's tasks only *offer* help: each enters
//! the hand-out if it is still open, runs the work (which claims pieces until none are left), and
//! leaves. The caller works too; when it has no piece left it closes the hand-out and waits only
//! for helpers already inside, which are finishing a piece. A task that starts after the close
//! returns at once.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::*};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Set in `state` once the caller is done: no helper enters after it.
const CLOSED: usize = 1 << (usize::BITS - 1);

/// One kernel's offer of work to helpers. On lines of its own (see `lines.rs`): the caller waits
/// on `state` while helpers write it.
#[repr(align(128))]
struct Handout {
    /// The caller's work; valid while the hand-out is open or a helper is inside it.
    work: *const (dyn Fn() + Sync + 'static),
    /// [`CLOSED`] plus the number of helpers running `work` now.
    state: AtomicUsize,
    panicked: AtomicBool,
}

// SAFETY: `work` is `Sync` and is only called while the caller keeps it alive (see `run`).
unsafe impl Send for Handout {}
unsafe impl Sync for Handout {}

impl Handout {
    /// A helper's visit: enter unless closed, run the work, leave.
    fn help(&self) {
        let mut s = self.state.load(Acquire);
        loop {
            if s & CLOSED != 0 {
                return;
            }
            match self.state.compare_exchange_weak(s, s + 1, AcqRel, Acquire) {
                Ok(_) => break,
                Err(now) => s = now,
            }
        }
        // SAFETY: the caller does not return before `state` shows no helper inside.
        let work = unsafe { &*self.work };
        if catch_unwind(AssertUnwindSafe(work)).is_err() {
            self.panicked.store(true, Release);
        }
        self.state.fetch_sub(1, Release);
    }
}

/// How long a helper's task stays after its work, looking for the next kernel's hand-out before it
/// gives its thread back to rayon (which soon puts it to sleep). The kernels of one run follow
/// each other within tens of microseconds; a woken rayon thread took 50-100 µs to be scheduled.
const LINGER: Duration = Duration::from_micros(200);

/// Where a pool's helper tasks find the newest hand-out while they linger. On lines of its own
/// (see `lines.rs`): lingering helpers read `generation` in a tight loop.
#[derive(Default)]
#[repr(align(128))]
pub struct Board {
    current: Mutex<Option<Arc<Handout>>>,
    /// Bumped with every hand-out posted; lingering tasks watch it.
    generation: AtomicU64,
    /// Tasks lingering now: a new hand-out spawns only as many tasks as are missing.
    lingering: AtomicUsize,
}

impl Board {
    fn post(&self, h: &Arc<Handout>) {
        *self.current.lock().unwrap_or_else(|p| p.into_inner()) = Some(h.clone());
        self.generation.fetch_add(1, Release);
    }

    fn current(&self) -> Option<Arc<Handout>> {
        self.current.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// A helper task: help with `first`, then with every hand-out posted while it lingers.
    fn serve(&self, first: Arc<Handout>) {
        first.help();
        drop(first);
        let mut seen = self.generation.load(Acquire);
        loop {
            self.lingering.fetch_add(1, AcqRel);
            let next = self.wait_for_post(seen);
            self.lingering.fetch_sub(1, AcqRel);
            let Some(g) = next else { return };
            seen = g;
            if let Some(h) = self.current() {
                h.help();
            }
        }
    }

    fn wait_for_post(&self, seen: u64) -> Option<u64> {
        let since = Instant::now();
        let mut spins = 0u32;
        loop {
            let g = self.generation.load(Acquire);
            if g != seen {
                return Some(g);
            }
            spins = spins.wrapping_add(1);
            // The clock is read now and then: it costs more than a look at an atomic.
            if spins % 64 == 0 && since.elapsed() >= LINGER {
                return None;
            }
            std::hint::spin_loop();
        }
    }
}

/// Runs `work` on this thread and offers it to `helpers` helpers of `pool` (tasks lingering on
/// `board` first, new tasks for the rest); returns when this thread is done and no helper is still
/// inside. `work` must share its pieces out itself (each run claims pieces until none are left),
/// since a helper may come late or not at all. A panic in a helper's run is raised again here.
pub fn run(pool: &rayon::ThreadPool, board: &Arc<Board>, helpers: usize, work: &(dyn Fn() + Sync)) {
    // SAFETY of the lifetime erasure: helpers call `work` only between entering an open hand-out
    // and leaving it, and this function returns only after closing it with none inside.
    let erased: *const (dyn Fn() + Sync + 'static) = unsafe { std::mem::transmute(work as *const (dyn Fn() + Sync)) };
    let handout = Arc::new(Handout { work: erased, state: AtomicUsize::new(0), panicked: AtomicBool::new(false) });
    board.post(&handout);
    for _ in board.lingering.load(Acquire).min(helpers)..helpers {
        let (b, h) = (board.clone(), handout.clone());
        pool.spawn(move || b.serve(h));
    }
    let mine = catch_unwind(AssertUnwindSafe(work));
    handout.state.fetch_or(CLOSED, AcqRel);
    let mut spins = 0u32;
    while handout.state.load(Acquire) & !CLOSED != 0 {
        // A helper inside is finishing a piece like the ones this thread just ran: a short spin,
        // then yield, so that a helper sharing this CPU gets to finish.
        if spins < 256 {
            spins += 1;
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
    if let Err(p) = mine {
        resume_unwind(p);
    }
    if handout.panicked.load(Acquire) {
        panic!("a helper thread panicked in a split kernel");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    fn pool(n: usize, name: &'static str) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new().num_threads(n).thread_name(move |i| format!("{name}-{i}")).build().unwrap()
    }

    #[test]
    fn every_piece_runs_once_and_helpers_take_part() {
        let p = pool(2, "handout-a");
        for n in [0usize, 1, 7, 1000] {
            let next = AtomicUsize::new(0);
            let seen: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
            run(&p, &Arc::new(Board::default()), 2, &|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                seen[i].fetch_add(1, Ordering::Relaxed);
            });
            assert!(seen.iter().all(|c| c.load(Ordering::Relaxed) == 1), "n = {n}");
        }
        // With work that lasts until a helper arrives, a helper runs it.
        let helped = AtomicBool::new(false);
        run(&p, &Arc::new(Board::default()), 1, &|| {
            if std::thread::current().name().is_some_and(|t| t.starts_with("handout-a")) {
                helped.store(true, Ordering::SeqCst);
            } else {
                let end = Instant::now() + Duration::from_secs(20);
                while !helped.load(Ordering::SeqCst) && Instant::now() < end {
                    std::thread::yield_now();
                }
            }
        });
        assert!(helped.load(Ordering::SeqCst), "a helper took part");
    }

    #[test]
    fn the_caller_does_not_wait_for_a_helper_that_never_starts() {
        // The pool's only thread is kept busy: the offered task cannot start until it is free.
        let p = pool(1, "handout-b");
        let (release, blocked) = std::sync::mpsc::channel::<()>();
        let busy = Arc::new(AtomicBool::new(false));
        let b = busy.clone();
        p.spawn(move || {
            b.store(true, Ordering::SeqCst);
            let _ = blocked.recv();
        });
        while !busy.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
        let ran = Arc::new(AtomicUsize::new(0));
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::scope(|sc| {
            let (p, ran) = (&p, ran.clone());
            sc.spawn(move || {
                run(p, &Arc::new(Board::default()), 1, &|| {
                    ran.fetch_add(1, Ordering::SeqCst);
                });
                done.send(()).unwrap();
            });
            // Returns while the pool's thread is still busy, with only the caller's run; the
            // pool's thread is released either way, so a failure here cannot hang the test.
            let returned = finished.recv_timeout(Duration::from_secs(10)).is_ok();
            let _ = release.send(());
            assert!(returned, "the caller waited for a task that had not started");
        });
        assert_eq!(ran.load(Ordering::SeqCst), 1, "returned with only the caller's run");
        // The late task finds the hand-out closed and does not run the work.
        p.install(|| ());
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(ran.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_helper_panic_reaches_the_caller() {
        let p = pool(1, "handout-c");
        let taken = AtomicBool::new(false);
        let r = catch_unwind(AssertUnwindSafe(|| {
            run(&p, &Arc::new(Board::default()), 1, &|| {
                if std::thread::current().name().is_some_and(|t| t.starts_with("handout-c")) {
                    taken.store(true, Ordering::SeqCst);
                    panic!("a test panic on the helper");
                }
                let end = Instant::now() + Duration::from_secs(20);
                while !taken.load(Ordering::SeqCst) && Instant::now() < end {
                    std::thread::yield_now();
                }
            })
        }));
        assert!(taken.load(Ordering::SeqCst) && r.is_err(), "the helper's panic reaches the caller");
        // The pool still works.
        let ran = AtomicUsize::new(0);
        run(&p, &Arc::new(Board::default()), 1, &|| {
            ran.fetch_add(1, Ordering::SeqCst);
        });
        assert!(ran.load(Ordering::SeqCst) >= 1);
    }
}
