//! A virtual device: one worker thread that runs submitted work in submission order, so that work
//! given to a device completes asynchronously with respect to the caller (the PJRT contract) while
//! each device stays sequential, like a real accelerator stream.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Mutex};
use std::thread::{JoinHandle, ThreadId};

type Job = Box<dyn FnOnce() + Send + 'static>;

/// One device's in-order work queue.
pub struct DeviceQueue {
    name: String,
    sender: Mutex<Option<Sender<Job>>>,
    worker: Mutex<Option<JoinHandle<()>>>,
    worker_id: Option<ThreadId>,
    /// Jobs submitted and not yet finished.
    pending: Arc<AtomicUsize>,
}

impl std::fmt::Debug for DeviceQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceQueue({})", self.name)
    }
}

impl DeviceQueue {
    /// Starts the worker thread `name`. If the thread cannot be spawned (out of resources), work
    /// runs on the submitting thread instead, which is slower but still correct.
    pub fn new(name: impl Into<String>) -> Self {
        let name = name.into();
        let (sender, receiver) = channel::<Job>();
        let pending = Arc::new(AtomicUsize::new(0));
        let finished = pending.clone();
        let spawned = std::thread::Builder::new()
            .name(name.clone())
            .spawn(move || {
                while let Ok(job) = receiver.recv() {
                    // A panicking job must not kill the device: later work would never run and its
                    // events would never fire. Jobs report their own failures through events.
                    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).is_err() {
                        tracing::error!(
                            "a job on a device worker panicked; the panic was contained"
                        );
                    }
                    finished.fetch_sub(1, Ordering::AcqRel);
                }
            });
        match spawned {
            Ok(handle) => DeviceQueue {
                name,
                worker_id: Some(handle.thread().id()),
                sender: Mutex::new(Some(sender)),
                worker: Mutex::new(Some(handle)),
                pending,
            },
            Err(e) => {
                tracing::warn!("could not start device worker {name}: {e}; running work inline");
                DeviceQueue {
                    name,
                    worker_id: None,
                    sender: Mutex::new(None),
                    worker: Mutex::new(None),
                    pending,
                }
            }
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether no submitted job is queued or running: work started now on another thread would
    /// not overtake any earlier work of this device.
    pub fn is_idle(&self) -> bool {
        self.pending.load(Ordering::Acquire) == 0
    }

    /// Queues `job` behind earlier work. Jobs submitted after shutdown, or when no worker exists,
    /// run on the calling thread.
    pub fn submit(&self, job: impl FnOnce() + Send + 'static) {
        let job: Job = Box::new(job);
        let rejected = {
            let sender = self.sender.lock().unwrap_or_else(|p| p.into_inner());
            match sender.as_ref() {
                Some(s) => {
                    self.pending.fetch_add(1, Ordering::AcqRel);
                    let rejected = s.send(job).err().map(|e| e.0);
                    if rejected.is_some() {
                        self.pending.fetch_sub(1, Ordering::AcqRel);
                    }
                    rejected
                }
                None => Some(job),
            }
        };
        if let Some(job) = rejected {
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).is_err() {
                tracing::error!("an inline device job panicked; the panic was contained");
            }
        }
    }

    /// Lets queued work finish, then stops the worker. Safe to call from the worker itself (then it
    /// only closes the queue and the thread exits after its current job).
    pub fn shutdown(&self) {
        drop(self.sender.lock().unwrap_or_else(|p| p.into_inner()).take());
        let handle = self.worker.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(handle) = handle {
            if Some(std::thread::current().id()) != self.worker_id {
                let _ = handle.join();
            }
        }
    }
}

impl Drop for DeviceQueue {
    fn drop(&mut self) {
        self.shutdown();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;
    use std::sync::Arc;

    #[test]
    fn runs_jobs_in_order_off_the_caller_thread() {
        let queue = DeviceQueue::new("apu-test-0");
        let log = Arc::new(Mutex::new(Vec::new()));
        let caller = std::thread::current().id();
        let done = Event::new();
        for i in 0..50 {
            let log = log.clone();
            queue.submit(move || {
                assert_ne!(std::thread::current().id(), caller);
                log.lock().unwrap().push(i);
            });
        }
        let d = done.clone();
        queue.submit(move || d.set(Ok(())).unwrap());
        done.wait().unwrap();
        assert_eq!(*log.lock().unwrap(), (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn idle_only_when_every_submitted_job_has_finished() {
        let queue = DeviceQueue::new("apu-test-4");
        assert!(queue.is_idle());
        let (gate, opened) = (Event::new(), Event::new());
        let (g, o) = (gate.clone(), opened.clone());
        queue.submit(move || {
            o.set(Ok(())).unwrap();
            g.wait().unwrap();
        });
        queue.submit(|| {});
        opened.wait().unwrap();
        assert!(!queue.is_idle(), "a job is running and one is queued");
        gate.set(Ok(())).unwrap();
        let done = Event::new();
        let d = done.clone();
        queue.submit(move || d.set(Ok(())).unwrap());
        done.wait().unwrap();
        // The counter drops just after the job returns.
        let t = std::time::Instant::now();
        while !queue.is_idle() && t.elapsed() < std::time::Duration::from_secs(5) {
            std::thread::yield_now();
        }
        assert!(queue.is_idle());
    }

    #[test]
    fn survives_a_panicking_job() {
        let queue = DeviceQueue::new("apu-test-1");
        queue.submit(|| panic!("job panic (expected in this test)"));
        let done = Event::new();
        let d = done.clone();
        queue.submit(move || d.set(Ok(())).unwrap());
        assert!(done.wait().is_ok());
    }

    #[test]
    fn shutdown_drains_queue_and_later_jobs_run_inline() {
        let queue = DeviceQueue::new("apu-test-2");
        let hits = Arc::new(Mutex::new(0));
        for _ in 0..10 {
            let h = hits.clone();
            queue.submit(move || *h.lock().unwrap() += 1);
        }
        queue.shutdown();
        assert_eq!(*hits.lock().unwrap(), 10);
        let h = hits.clone();
        queue.submit(move || *h.lock().unwrap() += 1);
        assert_eq!(*hits.lock().unwrap(), 11);
    }

    #[test]
    fn dropping_the_queue_from_its_own_worker_does_not_deadlock() {
        let queue = Arc::new(DeviceQueue::new("apu-test-3"));
        let done = Event::new();
        let q = Mutex::new(Some(queue.clone()));
        let d = done.clone();
        queue.submit(move || {
            // The last reference may be released on the worker thread itself.
            drop(q.lock().unwrap().take());
            d.set(Ok(())).unwrap();
        });
        drop(queue);
        assert!(done.wait().is_ok());
    }
}
