//! Spans for a framework's profiler (`jax.profiler.trace`): while a session is on, the compile
//! pipeline records its phases and the executor one span per plan step, with the step's kind and
//! the shapes it writes. Off (the normal case) it costs one relaxed atomic load per step. The
//! spans are plain data; the C view turns them into the framework's trace format (decision 85).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// What a span belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpanKind {
    /// A phase of the compile pipeline (read, validate, plan, ...).
    Compile,
    /// One execution of a program on a device.
    Execute,
    /// One plan step of an execution.
    Step,
}

/// One recorded span.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    pub kind: SpanKind,
    /// What ran: a compile phase, a program name, a step kind.
    pub name: String,
    /// Details: the shapes a step writes, the program a phase worked on.
    pub detail: String,
    /// The device the span ran for (0 for compile phases).
    pub device: usize,
    /// A small number per OS thread that recorded spans in this session, from 1.
    pub thread: u64,
    /// Wall-clock start in nanoseconds since the Unix epoch (the profiler's clock).
    pub start_ns: u64,
    pub duration_ns: u64,
}

static ACTIVE: AtomicBool = AtomicBool::new(false);
static SPANS: Mutex<Vec<Span>> = Mutex::new(Vec::new());
/// Bounds a session's memory: a long trace keeps its first spans and counts the rest.
const MAX_SPANS: usize = 1 << 20;
static DROPPED: AtomicU64 = AtomicU64::new(0);
static NEXT_THREAD: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static THREAD: u64 = NEXT_THREAD.fetch_add(1, Ordering::Relaxed);
    /// The device whose work this thread is doing (0 outside a run).
    static DEVICE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Runs `f` as work for `device`: the spans it records belong to that device.
pub fn on_device<T>(device: usize, f: impl FnOnce() -> T) -> T {
    let before = DEVICE.with(|d| d.replace(device));
    let out = f();
    DEVICE.with(|d| d.set(before));
    out
}

/// Whether a session is recording.
#[inline]
pub fn active() -> bool {
    ACTIVE.load(Ordering::Relaxed)
}

/// Starts a session, dropping whatever an earlier one left.
pub fn start() {
    let mut spans = SPANS.lock().unwrap_or_else(|p| p.into_inner());
    spans.clear();
    DROPPED.store(0, Ordering::Relaxed);
    ACTIVE.store(true, Ordering::SeqCst);
}

/// Ends the session: its spans, and how many were dropped past the bound.
pub fn stop() -> (Vec<Span>, u64) {
    ACTIVE.store(false, Ordering::SeqCst);
    let spans = std::mem::take(&mut *SPANS.lock().unwrap_or_else(|p| p.into_inner()));
    (spans, DROPPED.swap(0, Ordering::Relaxed))
}

/// A span being timed: made by [`begin`] only while a session records.
pub struct Timer {
    wall_ns: u64,
    started: Instant,
}

/// Starts timing a span, or `None` when no session records (then nothing is measured).
#[inline]
pub fn begin() -> Option<Timer> {
    if !active() {
        return None;
    }
    let wall_ns = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    Some(Timer { wall_ns, started: Instant::now() })
}

impl Timer {
    /// Records the span for the device this thread works for ([`on_device`]); `describe` gives
    /// its name and detail (only called while recording).
    pub fn end(self, kind: SpanKind, describe: impl FnOnce() -> (String, String)) {
        let duration_ns = self.started.elapsed().as_nanos() as u64;
        if !active() {
            return;
        }
        let (name, detail) = describe();
        let device = DEVICE.with(|d| d.get());
        let span = Span { kind, name, detail, device, thread: THREAD.with(|t| *t), start_ns: self.wall_ns, duration_ns };
        let mut spans = SPANS.lock().unwrap_or_else(|p| p.into_inner());
        if spans.len() < MAX_SPANS {
            spans.push(span);
        } else {
            DROPPED.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Runs `f` as a compile phase named `phase` (a span when a session records).
pub fn compile_phase<T>(phase: &str, detail: impl FnOnce() -> String, f: impl FnOnce() -> T) -> T {
    let timer = begin();
    let out = f();
    if let Some(t) = timer {
        t.end(SpanKind::Compile, || (phase.to_string(), detail()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One test owns the global session (tests run in parallel threads).
    #[test]
    fn a_session_records_spans_only_while_on() {
        assert!(begin().is_none() || active());
        start();
        let t = begin().expect("recording");
        std::thread::sleep(std::time::Duration::from_millis(2));
        on_device(3, || t.end(SpanKind::Step, || ("dot".into(), "f32[2,2]".into())));
        let x = compile_phase("read", || "main".into(), || 7);
        assert_eq!(x, 7);
        let (spans, dropped) = stop();
        assert_eq!(dropped, 0);
        assert_eq!(spans.len(), 2);
        assert_eq!((spans[0].kind, spans[0].name.as_str(), spans[0].detail.as_str(), spans[0].device), (SpanKind::Step, "dot", "f32[2,2]", 3));
        assert!(spans[0].duration_ns >= 2_000_000, "{}", spans[0].duration_ns);
        assert!(spans[0].start_ns > 1_700_000_000_000_000_000, "wall clock in ns since the epoch");
        assert_eq!((spans[1].kind, spans[1].name.as_str(), spans[1].device), (SpanKind::Compile, "read", 0));
        assert!(begin().is_none(), "nothing is timed after stop");
    }
}
