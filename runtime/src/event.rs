//! Completion events: a one-shot "done, or failed with this error" signal that any thread can wait on
//! or attach callbacks to. Buffers use one to say "contents are ready", executions one per device to
//! say "the run finished". Cloning an [`Event`] shares the same signal.

use crate::Error;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// What an event resolves to: success, or the error of the work it tracked.
pub type Outcome = Result<(), Error>;

type Callback = Box<dyn FnOnce(&Outcome) + Send + 'static>;

enum State {
    /// Callbacks to run, and how many threads are blocked in [`Event::wait`]: completing an event
    /// nobody waits on then skips the condition variable's wake-up, a system call (about 0.2 µs
    /// of a 6 µs JAX dispatch, whose events are mostly only polled or given callbacks).
    Pending(Vec<Callback>, usize),
    Done(Outcome),
}

struct Shared {
    state: Mutex<State>,
    done: Condvar,
}

/// A shared, one-shot completion signal.
#[derive(Clone)]
pub struct Event {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.outcome() {
            None => write!(f, "Event(pending)"),
            Some(Ok(())) => write!(f, "Event(ready)"),
            Some(Err(e)) => write!(f, "Event(failed: {e})"),
        }
    }
}

impl Default for Event {
    fn default() -> Self {
        Event::new()
    }
}

impl Event {
    /// A pending event; complete it with [`Event::set`].
    pub fn new() -> Self {
        Event {
            shared: Arc::new(Shared {
                state: Mutex::new(State::Pending(Vec::new(), 0)),
                done: Condvar::new(),
            }),
        }
    }

    /// An event that is already complete with `outcome`.
    pub fn completed(outcome: Outcome) -> Self {
        Event {
            shared: Arc::new(Shared {
                state: Mutex::new(State::Done(outcome)),
                done: Condvar::new(),
            }),
        }
    }

    /// An event that is already successfully complete.
    pub fn ready() -> Self {
        Event::completed(Ok(()))
    }

    /// An event that already failed with `error`.
    pub fn failed(error: Error) -> Self {
        Event::completed(Err(error))
    }

    // A poisoned lock only means a callback panicked elsewhere; the state itself stays consistent
    // because every update is a single assignment.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.shared.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Completes the event and runs the waiting callbacks on this thread. Returns an error if the
    /// event was already complete (the first outcome is kept).
    pub fn set(&self, outcome: Outcome) -> Result<(), Error> {
        let (callbacks, waiters) = {
            let mut state = self.lock();
            match &mut *state {
                State::Done(_) => return Err(Error::invalid("event was already set")),
                State::Pending(callbacks, waiters) => {
                    let pending = (std::mem::take(callbacks), *waiters);
                    *state = State::Done(outcome.clone());
                    pending
                }
            }
        };
        // A waiter counts itself under the lock before it sleeps, so none is missed.
        if waiters > 0 {
            self.shared.done.notify_all();
        }
        // Callbacks run outside the lock so that they may use this event (or others) freely.
        for callback in callbacks {
            run_callback(callback, &outcome);
        }
        Ok(())
    }

    pub fn is_ready(&self) -> bool {
        matches!(*self.lock(), State::Done(_))
    }

    /// The outcome if complete, `None` while pending.
    pub fn outcome(&self) -> Option<Outcome> {
        match &*self.lock() {
            State::Done(outcome) => Some(outcome.clone()),
            State::Pending(..) => None,
        }
    }

    /// Blocks until the event completes and returns its outcome.
    pub fn wait(&self) -> Outcome {
        let mut state = self.lock();
        loop {
            match &mut *state {
                State::Done(outcome) => return outcome.clone(),
                State::Pending(_, waiters) => *waiters += 1,
            }
            state = self.shared.done.wait(state).unwrap_or_else(|p| p.into_inner());
            if let State::Pending(_, waiters) = &mut *state {
                // A spurious wake-up: counted again above.
                *waiters -= 1;
            }
        }
    }

    /// Runs `callback` with the outcome once the event completes: right now on this thread if it
    /// already has, otherwise on the thread that completes it.
    pub fn on_ready(&self, callback: impl FnOnce(&Outcome) + Send + 'static) {
        let outcome = {
            let mut state = self.lock();
            match &mut *state {
                State::Pending(callbacks, _) => {
                    callbacks.push(Box::new(callback));
                    return;
                }
                State::Done(outcome) => outcome.clone(),
            }
        };
        run_callback(Box::new(callback), &outcome);
    }

    /// An event that completes when all `events` have: with the first error among them (in list
    /// order of completion), or successfully.
    pub fn join_all(events: &[Event]) -> Event {
        let pending: Vec<&Event> = events.iter().filter(|e| !e.is_ready()).collect();
        if pending.is_empty() {
            let first_error = events
                .iter()
                .find_map(|e| e.outcome().and_then(|o| o.err()));
            return Event::completed(first_error.map_or(Ok(()), Err));
        }
        let joined = Event::new();
        let first_error = events
            .iter()
            .find_map(|e| e.outcome().and_then(|o| o.err()));
        let remaining = Arc::new(Mutex::new((pending.len(), first_error)));
        for event in pending {
            let joined = joined.clone();
            let remaining = remaining.clone();
            event.on_ready(move |outcome| {
                let finished = {
                    let mut guard = remaining.lock().unwrap_or_else(|p| p.into_inner());
                    if let (Err(e), None) = (outcome, &guard.1) {
                        guard.1 = Some(e.clone());
                    }
                    guard.0 -= 1;
                    (guard.0 == 0).then(|| guard.1.take())
                };
                if let Some(error) = finished {
                    let _ = joined.set(error.map_or(Ok(()), Err));
                }
            });
        }
        joined
    }

    /// True if both handles share one signal.
    pub fn same_as(&self, other: &Event) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

/// Runs a callback, containing a panic so that the completing thread (often a device worker) keeps
/// going and the remaining callbacks still run.
fn run_callback(callback: Callback, outcome: &Outcome) {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| callback(outcome)));
    if result.is_err() {
        tracing::error!("an event callback panicked; the panic was contained");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn callback_on_completed_event_runs_immediately() {
        let event = Event::ready();
        let hits = Arc::new(AtomicUsize::new(0));
        let h = hits.clone();
        event.on_ready(move |o| {
            assert!(o.is_ok());
            h.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!(hits.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn callbacks_fire_once_on_set_from_another_thread() {
        let event = Event::new();
        let hits = Arc::new(AtomicUsize::new(0));
        for _ in 0..3 {
            let h = hits.clone();
            event.on_ready(move |_| {
                h.fetch_add(1, Ordering::SeqCst);
            });
        }
        assert!(!event.is_ready());
        assert_eq!(hits.load(Ordering::SeqCst), 0);
        let e2 = event.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            e2.set(Ok(())).unwrap();
        });
        assert!(event.wait().is_ok());
        // The setter runs callbacks after waking waiters; give it a moment.
        for _ in 0..100 {
            if hits.load(Ordering::SeqCst) == 3 {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(hits.load(Ordering::SeqCst), 3);
        assert!(event.set(Ok(())).is_err(), "a second set must be refused");
    }

    /// Waiters that block before, during and after the set all wake up: the set skips the wake-up
    /// only when nobody is counted as waiting. Races 300 events; a missed wake-up would leave a
    /// waiter blocked, which the timeout turns into a failure instead of a hang.
    #[test]
    fn every_waiter_wakes_whenever_it_starts_waiting() {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for round in 0..300 {
                let event = Event::new();
                let waiters: Vec<_> = (0..3)
                    .map(|_| {
                        let e = event.clone();
                        std::thread::spawn(move || e.wait().is_ok())
                    })
                    .collect();
                if round % 2 == 0 {
                    std::thread::yield_now();
                }
                event.set(Ok(())).unwrap();
                let woke = waiters.into_iter().all(|w| w.join().unwrap());
                tx.send(woke).unwrap();
            }
        });
        for round in 0..300 {
            let woke = rx.recv_timeout(Duration::from_secs(20)).unwrap_or_else(|_| panic!("a waiter of round {round} never woke"));
            assert!(woke, "round {round}");
        }
    }

    #[test]
    fn errors_travel_through_events() {
        let event = Event::new();
        event.set(Err(Error::invalid("boom"))).unwrap();
        assert_eq!(event.wait().unwrap_err().message, "boom");
        assert_eq!(event.outcome().unwrap().unwrap_err().message, "boom");
    }

    #[test]
    fn join_waits_for_all_and_keeps_first_error() {
        let a = Event::new();
        let b = Event::new();
        let joined = Event::join_all(&[a.clone(), b.clone(), Event::ready()]);
        assert!(!joined.is_ready());
        a.set(Err(Error::internal("first"))).unwrap();
        assert!(!joined.is_ready());
        b.set(Err(Error::internal("second"))).unwrap();
        assert_eq!(joined.wait().unwrap_err().message, "first");
        assert!(Event::join_all(&[]).wait().is_ok());
        assert!(Event::join_all(&[Event::failed(Error::internal("x"))])
            .wait()
            .is_err());
    }

    #[test]
    fn panicking_callback_does_not_poison_others() {
        let event = Event::new();
        let hits = Arc::new(AtomicUsize::new(0));
        event.on_ready(|_| panic!("callback panic (expected in this test)"));
        let h = hits.clone();
        event.on_ready(move |_| {
            h.fetch_add(1, Ordering::SeqCst);
        });
        event.set(Ok(())).unwrap();
        assert_eq!(hits.load(Ordering::SeqCst), 1);
        assert!(event.is_ready());
    }
}
