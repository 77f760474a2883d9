//! Helper threads for split kernels that wait for the next job by spinning for a while before
//! they sleep (decision 40; how long, and how many threads may spin at once: `crate::spin`).
//!
//! A rayon pool's idle threads sleep soon after their last task, and a woken thread was often
//! queued behind the very thread that woke it while the other CPU stood idle (see `crate::spin`),
//! so the caller did the whole kernel alone. A helper still spinning when the next job comes takes
//! it at once on the CPU it has.
//!
//! A job is posted to every helper's slot; a helper takes it (`POSTED` -> `TAKEN`), runs the work
//! and marks it `DONE`. The caller works too, and when it is done it takes back the posts no helper
//! took, so a helper that the scheduler keeps off a CPU never holds the caller up.

use std::cell::Cell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU8, Ordering::*};
use std::sync::{Arc, Mutex, OnceLock, TryLockError};
use std::thread::Thread;

const IDLE: u8 = 0;
const POSTED: u8 = 1;
const TAKEN: u8 = 2;
const DONE: u8 = 3;

/// What a caller posts: its work, and whether a helper's run of it panicked.
struct Job<'a> {
    work: &'a (dyn Fn() + Sync),
    panicked: AtomicBool,
}

/// One helper's mailbox.
struct Slot {
    state: AtomicU8,
    /// The posted job; valid while `state` is `POSTED` or `TAKEN`.
    job: AtomicPtr<Job<'static>>,
    /// Set by the helper before it parks; the poster unparks it when set.
    sleeping: AtomicBool,
    /// The helper, set by itself when it starts (before it can sleep).
    thread: OnceLock<Thread>,
}

thread_local! {
    /// Whether this thread is one of a team's helpers (a job that splits again runs alone).
    static IS_HELPER: Cell<bool> = const { Cell::new(false) };
}

/// `size` helper threads, shared by every caller; one caller at a time posts to them.
pub struct Team {
    slots: Vec<Arc<Slot>>,
    /// Held by the caller whose job is posted; a second caller runs its work alone.
    posting: Mutex<()>,
}

impl Team {
    /// Starts `size` helpers named `{name}-{i}`.
    pub fn start(size: usize, name: &str) -> std::io::Result<Team> {
        let mut slots = Vec::with_capacity(size);
        for i in 0..size {
            let slot = Arc::new(Slot {
                state: AtomicU8::new(IDLE),
                job: AtomicPtr::new(std::ptr::null_mut()),
                sleeping: AtomicBool::new(false),
                thread: OnceLock::new(),
            });
            let mine = slot.clone();
            // The helper lives as long as the process (teams are shared and never dropped).
            std::thread::Builder::new().name(format!("{name}-{i}")).spawn(move || {
                IS_HELPER.with(|h| h.set(true));
                let _ = mine.thread.set(std::thread::current());
                serve(&mine);
            })?;
            slots.push(slot);
        }
        Ok(Team { slots, posting: Mutex::new(()) })
    }

    /// How many helpers the team has.
    pub fn size(&self) -> usize {
        self.slots.len()
    }

    /// Runs `work` on this thread and on up to `helpers` helpers at once, and returns when every
    /// run that started has finished. `work` must share its pieces out itself (each run claims
    /// pieces until none are left), since a helper may start late or not at all. A panic in a
    /// helper's run is raised again here.
    pub fn run(&self, helpers: usize, work: &(dyn Fn() + Sync)) {
        let guard = if IS_HELPER.with(|h| h.get()) {
            None
        } else {
            match self.posting.try_lock() {
                Ok(g) => Some(g),
                // A panic raised here last time left every slot idle: the team is sound.
                Err(TryLockError::Poisoned(p)) => Some(p.into_inner()),
                Err(TryLockError::WouldBlock) => None,
            }
        };
        let Some(_guard) = guard else {
            // Another caller has the helpers (or this is one of them): the work runs here alone.
            work();
            return;
        };
        let job = Job { work, panicked: AtomicBool::new(false) };
        // SAFETY of the lifetime erasure: every post is taken back or finished (state DONE) before
        // this function returns, so no helper reads `job` after it is gone.
        let ptr = &job as *const Job as *mut Job<'static>;
        let slots = &self.slots[..helpers.min(self.slots.len())];
        for s in slots {
            s.job.store(ptr, Relaxed);
            s.state.store(POSTED, SeqCst);
            if s.sleeping.load(SeqCst) {
                if let Some(t) = s.thread.get() {
                    t.unpark();
                }
            }
        }
        let mine = catch_unwind(AssertUnwindSafe(work));
        for s in slots {
            if s.state.compare_exchange(POSTED, IDLE, AcqRel, Acquire).is_err() {
                wait_until_done(s);
                s.state.store(IDLE, Release);
            }
        }
        if let Err(p) = mine {
            resume_unwind(p);
        }
        if job.panicked.load(Acquire) {
            panic!("a helper thread panicked in a split kernel");
        }
    }
}

/// Waits for a helper that took a job to finish it: a short spin, as it is running the same work
/// as the caller just did, then yielding, so that a helper sharing this CPU (more threads than
/// cores) gets it to finish its piece instead of waiting behind a spinning caller.
fn wait_until_done(s: &Slot) {
    let mut spins = 0u32;
    while s.state.load(Acquire) != DONE {
        if spins < 256 {
            spins += 1;
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

/// A helper's life: wait for a post (spinning a while, then parked), take it, run it.
fn serve(slot: &Slot) {
    loop {
        wait_for_post(slot);
        if slot.state.compare_exchange(POSTED, TAKEN, AcqRel, Acquire).is_ok() {
            // SAFETY: the poster keeps the job alive until this run is marked DONE.
            let job = unsafe { &*slot.job.load(Acquire) };
            if catch_unwind(AssertUnwindSafe(job.work)).is_err() {
                job.panicked.store(true, Release);
            }
            slot.state.store(DONE, Release);
        }
    }
}

fn wait_for_post(slot: &Slot) {
    let posted = || (slot.state.load(Acquire) == POSTED).then_some(());
    while crate::spin::poll_for(posted).is_none() {
        // Announce the sleep before the last look, so that a poster either sees `sleeping` and
        // unparks, or posted before the look (the unpark token also covers a post in between).
        slot.sleeping.store(true, SeqCst);
        if slot.state.load(SeqCst) != POSTED {
            std::thread::park();
        }
        slot.sleeping.store(false, SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::{Duration, Instant};

    fn on_helper(prefix: &str) -> bool {
        std::thread::current().name().is_some_and(|n| n.starts_with(prefix))
    }

    /// Waits (up to a generous deadline, for loaded test machines) until `cond` holds.
    fn eventually(cond: impl Fn() -> bool) -> bool {
        let end = Instant::now() + Duration::from_secs(20);
        while !cond() {
            if Instant::now() > end {
                return false;
            }
            std::thread::yield_now();
        }
        true
    }

    /// Posts a job whose caller waits until a helper has run it; true if one did.
    fn a_helper_takes_the_post(team: &Team, prefix: &str) -> bool {
        let ran = AtomicBool::new(false);
        team.run(team.slots.len(), &|| {
            if on_helper(prefix) {
                ran.store(true, Ordering::SeqCst);
            } else {
                eventually(|| ran.load(Ordering::SeqCst));
            }
        });
        ran.load(Ordering::SeqCst)
    }

    #[test]
    fn a_post_reaches_spinning_and_sleeping_helpers_and_every_piece_runs_once() {
        let team = Team::start(2, "team-a").unwrap();
        for _ in 0..20 {
            assert!(a_helper_takes_the_post(&team, "team-a"), "a spinning helper");
        }
        assert!(eventually(|| team.slots.iter().all(|s| s.sleeping.load(Ordering::SeqCst))), "idle helpers park");
        assert!(a_helper_takes_the_post(&team, "team-a"), "a parked helper is woken");
        // Pieces claimed from a counter run exactly once whoever takes them.
        for n in [0usize, 1, 7, 1000] {
            let next = AtomicUsize::new(0);
            let seen: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
            team.run(2, &|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                seen[i].fetch_add(1, Ordering::Relaxed);
            });
            assert!(seen.iter().all(|c| c.load(Ordering::Relaxed) == 1), "n = {n}");
        }
    }

    #[test]
    fn a_second_caller_runs_alone_and_a_helper_panic_reaches_the_caller() {
        let team = Team::start(1, "team-b").unwrap();
        // While one caller holds the helpers, another caller's work runs on its own thread only.
        let inner_on = Mutex::new(Vec::new());
        team.run(1, &|| {
            if on_helper("team-b") {
                return;
            }
            std::thread::scope(|sc| {
                sc.spawn(|| {
                    let me = std::thread::current().id();
                    team.run(1, &|| inner_on.lock().unwrap().push(std::thread::current().id() == me));
                });
            });
        });
        assert_eq!(*inner_on.lock().unwrap(), [true]);
        // A panic on the helper is raised on the caller, and the team still works afterwards.
        let taken = AtomicBool::new(false);
        let r = catch_unwind(AssertUnwindSafe(|| {
            team.run(1, &|| {
                if on_helper("team-b") {
                    taken.store(true, Ordering::SeqCst);
                    panic!("a test panic on the helper");
                }
                eventually(|| taken.load(Ordering::SeqCst));
            })
        }));
        assert!(taken.load(Ordering::SeqCst) && r.is_err(), "the helper's panic reaches the caller");
        assert!(a_helper_takes_the_post(&team, "team-b"));
    }
}
