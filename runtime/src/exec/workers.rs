//! Thread pools for splitting large kernels. Small work runs on the calling thread: handing work
//! to a pool costs tens of microseconds, more than a small kernel takes.

use once_cell::sync::Lazy;
use rayon::ThreadPool;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

static POOLS: Lazy<Mutex<HashMap<usize, Arc<ThreadPool>>>> = Lazy::new(|| Mutex::new(HashMap::new()));

/// Number of threads by default: `APU_NUM_THREADS` if set, else the machine's cores.
pub fn default_threads() -> usize {
    std::env::var("APU_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| *CORES)
}

/// The machine's cores, asked once: `available_parallelism` reads cgroup files on Linux, which
/// costs more than the rest of compiling a small program.
static CORES: Lazy<usize> = Lazy::new(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));

pub struct Workers {
    threads: usize,
    pool: Option<Arc<ThreadPool>>,
    /// Below this much work (elements times per-element cost) a kernel runs on the calling thread.
    min_parallel: usize,
}

impl Workers {
    pub fn new(threads: usize, min_parallel: usize) -> apu_compiler::Result<Workers> {
        let threads = threads.max(1);
        let pool = if threads > 1 {
            let mut pools = POOLS.lock().unwrap_or_else(|p| p.into_inner());
            let pool = match pools.get(&threads) {
                Some(p) => p.clone(),
                None => {
                    let p = rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .thread_name(|i| format!("apu-worker-{i}"))
                        .build()
                        .map_err(|e| apu_compiler::Error::internal(format!("cannot start {threads} worker threads: {e}")))?;
                    let p = Arc::new(p);
                    pools.insert(threads, p.clone());
                    p
                }
            };
            Some(pool)
        } else {
            None
        };
        Ok(Workers { threads, pool, min_parallel })
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Whether work of this size is worth handing to the pool.
    pub fn worth_splitting(&self, work: usize) -> bool {
        self.pool.is_some() && work >= self.min_parallel
    }

    /// Runs `f` inside the pool, so that a library's own rayon parallelism (`gemm`) uses this
    /// pool's threads instead of rayon's global pool; on this thread when there is no pool.
    pub fn install(&self, f: impl FnOnce() + Send) {
        match &self.pool {
            Some(p) => p.install(f),
            None => f(),
        }
    }

    /// Runs `f` over `0..n`, split into ranges aligned to `align` across the pool when
    /// `n * cost` reaches the threshold, else in one call on this thread.
    pub fn for_ranges(&self, n: usize, align: usize, cost: usize, f: &(dyn Fn(Range<usize>) + Sync)) {
        let align = align.max(1);
        let pool = match &self.pool {
            Some(p) if n.saturating_mul(cost.max(1)) >= self.min_parallel && n > align => p,
            _ => {
                if n > 0 {
                    f(0..n);
                }
                return;
            }
        };
        // Pieces are claimed from a shared counter by the calling thread and `threads - 1` pool
        // tasks: `threads` runnable threads in all (the caller already has a core; a task per
        // pool thread on top of it would put three threads on two cores), and a thread slowed by
        // something else on the machine takes fewer pieces.
        let pieces = (self.threads * 2).min(n.div_ceil(align));
        let per = n.div_ceil(pieces).div_ceil(align) * align;
        let next = AtomicUsize::new(0);
        let work = || loop {
            let start = next.fetch_add(1, Ordering::Relaxed).saturating_mul(per);
            if start >= n {
                break;
            }
            f(start..(start + per).min(n));
        };
        let work = &work;
        pool.in_place_scope(|s| {
            for _ in 1..self.threads.min(pieces) {
                s.spawn(move |_| work());
            }
            work();
        });
    }
}
