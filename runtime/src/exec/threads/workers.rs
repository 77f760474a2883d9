//! Splitting large kernels across a rayon pool. Small work runs on the calling thread: handing work
//! to a pool costs microseconds, more than a small kernel takes.

use super::claims::{current_cpu, HomeClaims};
use super::handout::{self, Board};
use once_cell::sync::Lazy;
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

/// A rayon pool and the board its lingering tasks watch for the next kernel.
struct HelperPool {
    pool: ThreadPool,
    board: Arc<Board>,
}

impl HelperPool {
    /// Runs `work` on this thread and offers it to `helpers` of the pool's threads; on one of
    /// them already (a piece that splits again), the work runs here alone.
    fn share(&self, helpers: usize, work: &(dyn Fn() + Sync)) {
        if self.pool.current_thread_index().is_some() {
            work();
        } else {
            handout::run(&self.pool, &self.board, helpers, work);
        }
    }
}

/// Pools by size, shared by every program with the same thread count.
static POOLS: Lazy<Mutex<HashMap<usize, Arc<HelperPool>>>> = Lazy::new(|| Mutex::new(HashMap::new()));

/// A pool of `size` helper threads for [`Workers::for_ranges`], whose calling thread works too.
fn shared_pool(size: usize) -> apu_compiler::Result<Arc<HelperPool>> {
    let mut pools = POOLS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(p) = pools.get(&size) {
        return Ok(p.clone());
    }
    let p = ThreadPoolBuilder::new()
        .num_threads(size)
        .thread_name(|i| format!("apu-worker-{i}"))
        .build()
        .map_err(|e| apu_compiler::Error::internal(format!("cannot start {size} helper threads: {e}")))?;
    let p = Arc::new(HelperPool { pool: p, board: Arc::new(Board::default()) });
    pools.insert(size, p.clone());
    Ok(p)
}

/// Number of threads by default: `APU_NUM_THREADS` if set, else the machine's cores.
pub fn default_threads() -> usize {
    std::env::var("APU_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(cores)
}

/// The machine's cores.
fn cores() -> usize {
    *CORES
}

/// The machine's cores, asked once: `available_parallelism` reads cgroup files on Linux, which
/// costs more than the rest of compiling a small program.
static CORES: Lazy<usize> = Lazy::new(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));

/// A program's threads: the calling thread plus a rayon pool of `threads - 1` helpers for split
/// kernels, large products included.
///
/// The pool is one thread smaller than `threads` because the calling thread (a device's worker, or
/// the framework's thread for a program run inline) works on the pieces too, instead of handing the
/// whole kernel over and sleeping until it is done.
pub struct Workers {
    threads: usize,
    helpers: Option<Arc<HelperPool>>,
    /// Below this much work (elements times per-element cost) a kernel runs on the calling thread.
    min_parallel: usize,
}

impl Workers {
    pub fn new(threads: usize, min_parallel: usize) -> apu_compiler::Result<Workers> {
        let threads = threads.max(1);
        // No more threads run a split kernel at once than cores: with more (`APU_NUM_THREADS` above
        // the cores), a woken helper preempted a thread that held a piece, and the kernel waited
        // for it (1.1-1.7x slower with 4 threads on 2 cores). The pieces stay `2 * threads`.
        let helpers = if threads > 1 { Some(shared_pool(threads.min(cores()) - 1)?) } else { None };
        Ok(Workers { threads, helpers, min_parallel })
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Whether work of this size is worth handing to the pool.
    pub fn worth_splitting(&self, work: usize) -> bool {
        self.helpers.is_some() && work >= self.min_parallel
    }

    /// Runs `f` over `0..n`, split into ranges aligned to `align` across the pool when
    /// `n * cost` reaches the threshold, else in one call on this thread.
    pub fn for_ranges(&self, n: usize, align: usize, cost: usize, f: &(dyn Fn(Range<usize>) + Sync)) {
        let align = align.max(1);
        let helper_pool = match &self.helpers {
            Some(t) if n.saturating_mul(cost.max(1)) >= self.min_parallel && n > align => t,
            _ => {
                if n > 0 {
                    f(0..n);
                }
                return;
            }
        };
        // Pieces are claimed by the calling thread and each helper, so a thread slowed by
        // something else on the machine (or a helper that starts late, woken from sleep) takes
        // fewer pieces. Each takes its CPU's share first, so that a loop calling the kernel reads
        // each row on the same CPU every time (decision 42).
        let per = n.div_ceil((self.threads * 2).min(n.div_ceil(align))).div_ceil(align) * align;
        // Rounding `per` up to `align` can leave fewer pieces than asked for.
        let pieces = n.div_ceil(per);
        // One share per thread that can take part: the pool has no more helpers than cores allow.
        let helpers = (self.threads.min(pieces) - 1).min(helper_pool.pool.current_num_threads());
        let claims = HomeClaims::new(pieces, helpers + 1);
        let work = || {
            let home = claims.home_of(current_cpu());
            while let Some(p) = claims.next(home) {
                f(p * per..((p + 1) * per).min(n));
            }
        };
        helper_pool.share(helpers, &work);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Names of the threads that ran pieces of a split `0..n`, after checking that every index
    /// was covered exactly once.
    fn split_threads(w: &Workers, n: usize) -> Vec<String> {
        let seen: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
        let names = Mutex::new(Vec::new());
        w.for_ranges(n, 1, 1, &|r| {
            for i in r {
                seen[i].fetch_add(1, Ordering::Relaxed);
            }
            let me = std::thread::current().name().unwrap_or("unnamed").to_string();
            names.lock().unwrap().push(me);
        });
        assert!(seen.iter().all(|c| c.load(Ordering::Relaxed) == 1), "every index exactly once");
        names.into_inner().unwrap()
    }

    #[test]
    fn split_kernels_run_on_the_calling_thread_and_the_helpers() {
        let w = Workers::new(3, 1).unwrap();
        let caller = std::thread::current().name().unwrap_or("unnamed").to_string();
        let names = split_threads(&w, 1000);
        assert!(names.iter().all(|t| *t == caller || t.starts_with("apu-worker-")), "{names:?}");
    }

    #[test]
    fn no_more_threads_run_a_split_kernel_at_once_than_cores() {
        let w = Workers::new(cores() + 2, 1).unwrap();
        // Pieces long enough that every posted helper would take one.
        let names = Mutex::new(Vec::new());
        w.for_ranges(1000, 1, 1, &|_| {
            std::thread::sleep(std::time::Duration::from_millis(5));
            names.lock().unwrap().push(std::thread::current().id());
        });
        let mut names = names.into_inner().unwrap();
        assert_eq!(names.len(), 2 * (cores() + 2), "two pieces per thread");
        names.sort_by_key(|t| format!("{t:?}"));
        names.dedup();
        assert!(names.len() <= cores(), "{} cores, pieces ran on {} threads", cores(), names.len());
    }

    #[test]
    fn with_one_thread_a_run_stays_on_the_calling_thread() {
        let w = Workers::new(1, 1).unwrap();
        let caller = std::thread::current().id();
        let seen = AtomicUsize::new(0);
        w.for_ranges(100, 1, 1, &|r| {
            assert_eq!(std::thread::current().id(), caller);
            seen.fetch_add(r.len(), Ordering::Relaxed);
        });
        assert_eq!(seen.load(Ordering::Relaxed), 100);
    }
}
