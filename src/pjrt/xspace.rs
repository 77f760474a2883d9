//! apu's profiler spans as a serialized `tensorflow.profiler.XSpace`, the trace format JAX's
//! profiler collects from plug-ins (field numbers: `docs/integration-notes.md`, profiler). One
//! plane per device (`/device:CUSTOM:<n>`, which trace viewers export when there is no GPU or TPU
//! plane), one line per recording thread, one event per span; a span's detail is a string stat.
//! Written by hand (a few dozen bytes of protobuf per span) rather than through a proto crate.

use apu_runtime::profile::{Span, SpanKind};
use std::collections::BTreeMap;

use super::wire::{bytes, int};

/// The stat a span's detail goes into, by kind (its name in the trace viewer).
fn detail_stat(kind: SpanKind) -> &'static str {
    match kind {
        SpanKind::Step => "shapes",
        SpanKind::Execute | SpanKind::Compile => "program",
    }
}

/// The XSpace holding `spans` (empty bytes when there are none).
pub(crate) fn encode(spans: &[Span]) -> Vec<u8> {
    let mut by_device: BTreeMap<usize, Vec<&Span>> = BTreeMap::new();
    for s in spans {
        by_device.entry(s.device).or_default().push(s);
    }
    let mut space = Vec::new();
    for (device, spans) in by_device {
        bytes(&mut space, 1, &plane(device, &spans));
    }
    space
}

fn plane(device: usize, spans: &[&Span]) -> Vec<u8> {
    // Metadata ids from 1: 0 means "unset" to the profiler's own builders.
    let mut event_ids: BTreeMap<&str, i64> = BTreeMap::new();
    let mut stat_ids: BTreeMap<&str, i64> = BTreeMap::new();
    let mut lines: BTreeMap<u64, Vec<&Span>> = BTreeMap::new();
    for s in spans {
        let next = event_ids.len() as i64 + 1;
        event_ids.entry(s.name.as_str()).or_insert(next);
        let next = stat_ids.len() as i64 + 1;
        stat_ids.entry(detail_stat(s.kind)).or_insert(next);
        lines.entry(s.thread).or_default().push(s);
    }
    let mut p = Vec::new();
    int(&mut p, 1, device as i64);
    bytes(&mut p, 2, format!("/device:CUSTOM:{device}").as_bytes());
    for (thread, spans) in &lines {
        bytes(&mut p, 3, &line(*thread, spans, &event_ids, &stat_ids));
    }
    for (name, id) in &event_ids {
        let mut m = Vec::new();
        int(&mut m, 1, *id);
        bytes(&mut m, 2, name.as_bytes());
        p.extend(map_entry(4, *id, &m));
    }
    for (name, id) in &stat_ids {
        let mut m = Vec::new();
        int(&mut m, 1, *id);
        bytes(&mut m, 2, name.as_bytes());
        p.extend(map_entry(5, *id, &m));
    }
    p
}

/// One entry of a map<int64, message> field: a message of key (1) and value (2).
fn map_entry(field: u64, id: i64, value: &[u8]) -> Vec<u8> {
    let mut entry = Vec::new();
    int(&mut entry, 1, id);
    bytes(&mut entry, 2, value);
    let mut out = Vec::new();
    bytes(&mut out, field, &entry);
    out
}

fn line(thread: u64, spans: &[&Span], event_ids: &BTreeMap<&str, i64>, stat_ids: &BTreeMap<&str, i64>) -> Vec<u8> {
    let origin = spans.iter().map(|s| s.start_ns).min().unwrap_or(0);
    let end = spans.iter().map(|s| s.start_ns + s.duration_ns).max().unwrap_or(origin);
    let mut l = Vec::new();
    int(&mut l, 1, thread as i64);
    bytes(&mut l, 2, format!("apu thread {thread}").as_bytes());
    int(&mut l, 3, origin as i64);
    for s in spans {
        let mut e = Vec::new();
        int(&mut e, 1, event_ids[s.name.as_str()]);
        int(&mut e, 2, ((s.start_ns - origin) * 1000) as i64);
        int(&mut e, 3, (s.duration_ns * 1000) as i64);
        if !s.detail.is_empty() {
            let mut stat = Vec::new();
            int(&mut stat, 1, stat_ids[detail_stat(s.kind)]);
            bytes(&mut stat, 5, s.detail.as_bytes());
            bytes(&mut e, 4, &stat);
        }
        bytes(&mut l, 4, &e);
    }
    int(&mut l, 9, ((end - origin) * 1000) as i64);
    int(&mut l, 10, thread as i64);
    l
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal protobuf reader for the test: (field, wire type, varint or bytes) in order.
    fn fields(mut b: &[u8]) -> Vec<(u32, u32, u64, Vec<u8>)> {
        fn read_varint(b: &mut &[u8]) -> u64 {
            let (mut v, mut shift) = (0u64, 0);
            loop {
                let byte = b[0];
                *b = &b[1..];
                v |= u64::from(byte & 0x7f) << shift;
                if byte < 0x80 {
                    return v;
                }
                shift += 7;
            }
        }
        let mut out = Vec::new();
        while !b.is_empty() {
            let k = read_varint(&mut b);
            let (field, wire) = ((k >> 3) as u32, (k & 7) as u32);
            if wire == 0 {
                out.push((field, wire, read_varint(&mut b), Vec::new()));
            } else {
                let n = read_varint(&mut b) as usize;
                out.push((field, wire, 0, b[..n].to_vec()));
                b = &b[n..];
            }
        }
        out
    }

    fn span(kind: SpanKind, name: &str, detail: &str, device: usize, thread: u64, start_ns: u64, duration_ns: u64) -> Span {
        Span { kind, name: name.into(), detail: detail.into(), device, thread, start_ns, duration_ns }
    }

    #[test]
    fn spans_become_planes_lines_events_and_metadata() {
        let t0 = 1_800_000_000_000_000_000;
        let spans = [
            span(SpanKind::Step, "dot", "f32[8,8]", 0, 1, t0 + 100, 50),
            span(SpanKind::Step, "dot", "f32[4]", 0, 1, t0 + 200, 7),
            span(SpanKind::Compile, "plan", "main", 0, 2, t0, 30),
            span(SpanKind::Step, "fused", "", 1, 3, t0 + 5, 1),
        ];
        let space = fields(&encode(&spans));
        assert_eq!(space.len(), 2, "one plane per device");
        let plane0 = fields(&space[0].3);
        assert_eq!((plane0[0].0, plane0[0].2), (1, 0));
        assert_eq!((plane0[1].0, plane0[1].3.as_slice()), (2, &b"/device:CUSTOM:0"[..]));
        let lines: Vec<_> = plane0.iter().filter(|f| f.0 == 3).map(|f| fields(&f.3)).collect();
        assert_eq!(lines.len(), 2, "one line per thread");
        let l1 = &lines[0];
        assert_eq!((l1[0].0, l1[0].2), (1, 1));
        assert_eq!((l1[2].0, l1[2].2), (3, t0 + 100), "the line starts at its first span");
        let events: Vec<_> = l1.iter().filter(|f| f.0 == 4).map(|f| fields(&f.3)).collect();
        assert_eq!(events.len(), 2);
        // Second event: offset 100 ns and duration 7 ns, in picoseconds; its shapes as a string stat.
        assert_eq!((events[1][1].0, events[1][1].2), (2, 100_000));
        assert_eq!((events[1][2].0, events[1][2].2), (3, 7_000));
        let stat = fields(&events[1][3].3);
        assert_eq!((stat[1].0, stat[1].3.as_slice()), (5, &b"f32[4]"[..]));
        // Both dot spans share one event metadata entry; "plan" has its own.
        let names: Vec<Vec<u8>> = plane0
            .iter()
            .filter(|f| f.0 == 4)
            .map(|f| fields(&fields(&f.3)[1].3)[1].3.clone())
            .collect();
        assert_eq!(names, vec![b"dot".to_vec(), b"plan".to_vec()]);
        assert!(encode(&[]).is_empty());
    }
}
