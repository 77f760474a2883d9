//! apu's serialized executable (`PJRT_Executable_Serialize` / `DeserializeAndLoad`): the program as it
//! was handed to compile, in an envelope of our own. Loading compiles it again (apu's compile is
//! milliseconds; a plan holds pointers and machine code that have no stable form on disk).
//!
//! Version 2 adds the origin: the process a program that calls host callbacks belongs to (see
//! `host_bound.rs`); version 1 envelopes (no origin) are still read.

use super::executable::ProgramSource;
use crate::{Error, Result};

const MAGIC: &[u8; 8] = b"APUEXEC\0";
const VERSION: u32 = 2;

/// A decoded envelope.
#[derive(Clone, Debug, PartialEq)]
pub struct Envelope {
    pub source: ProgramSource,
    /// The process token of the compiling process, for programs bound to it; None otherwise.
    pub origin: Option<String>,
}

/// `magic, version (u32 LE), then format, code, options, origin each as (u64 LE length, bytes)`;
/// an empty origin means none.
pub fn serialize(source: &ProgramSource, origin: Option<&str>) -> Vec<u8> {
    let origin = origin.unwrap_or("");
    let mut out = Vec::with_capacity(48 + source.code.len() + source.options.len() + origin.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    for part in [source.format.as_bytes(), &source.code, &source.options, origin.as_bytes()] {
        out.extend_from_slice(&(part.len() as u64).to_le_bytes());
        out.extend_from_slice(part);
    }
    out
}

pub fn deserialize(bytes: &[u8]) -> Result<Envelope> {
    let bad = |msg: String| Error::invalid(format!("not a serialized apu executable: {msg}"));
    if bytes.len() < 12 || &bytes[..8] != MAGIC {
        return Err(bad("missing APUEXEC header".into()));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    let names: &[&str] = match version {
        1 => &["format", "code", "options"],
        2 => &["format", "code", "options", "origin"],
        _ => return Err(bad(format!("envelope version {version}, this apu reads 1 and {VERSION}"))),
    };
    let mut pos = 12;
    let mut parts = Vec::new();
    for what in names {
        let len_bytes = bytes.get(pos..pos + 8).ok_or_else(|| bad(format!("truncated before the {what} length")))?;
        let len = u64::from_le_bytes(len_bytes.try_into().expect("8 bytes"));
        pos += 8;
        let end = usize::try_from(len)
            .ok()
            .and_then(|l| pos.checked_add(l))
            .filter(|&e| e <= bytes.len())
            .ok_or_else(|| bad(format!("{what} of {len} bytes runs past the end at byte {pos}")))?;
        parts.push(bytes[pos..end].to_vec());
        pos = end;
    }
    if pos != bytes.len() {
        return Err(bad(format!("{} trailing bytes", bytes.len() - pos)));
    }
    let text = |b: Vec<u8>, what: &str| String::from_utf8(b).map_err(|_| bad(format!("{what} is not UTF-8")));
    let mut parts = parts.into_iter();
    let format = text(parts.next().expect("format"), "format")?;
    let code = parts.next().expect("code");
    let options = parts.next().expect("options");
    let origin = match parts.next() {
        Some(o) if !o.is_empty() => Some(text(o, "origin")?),
        _ => None,
    };
    Ok(Envelope { source: ProgramSource { format, code, options }, origin })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source() -> ProgramSource {
        ProgramSource { format: "mlir".into(), code: vec![1, 2, 3], options: vec![9; 5] }
    }

    #[test]
    fn envelope_round_trips_and_rejects_damage() {
        for origin in [None, Some("4242-17")] {
            let bytes = serialize(&source(), origin);
            let back = deserialize(&bytes).unwrap();
            assert_eq!(back.source, source());
            assert_eq!(back.origin.as_deref(), origin);
            for cut in 0..bytes.len() {
                assert!(deserialize(&bytes[..cut]).is_err(), "truncated at {cut}");
            }
            let mut extra = bytes.clone();
            extra.push(0);
            assert!(deserialize(&extra).is_err());
        }
        assert!(deserialize(b"garbage garbage garbage").is_err());
    }

    #[test]
    fn version_1_envelopes_read_without_origin() {
        // Version 1 is version 2 without the origin part.
        let mut v1 = serialize(&source(), None);
        v1.truncate(v1.len() - 8);
        v1[8..12].copy_from_slice(&1u32.to_le_bytes());
        assert_eq!(deserialize(&v1).unwrap(), Envelope { source: source(), origin: None });
        let mut v3 = serialize(&source(), None);
        v3[8..12].copy_from_slice(&3u32.to_le_bytes());
        assert!(deserialize(&v3).is_err());
    }
}
