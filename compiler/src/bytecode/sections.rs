//! The container: header, section framing, and the small tables (strings, dialects and op names,
//! properties, attribute/type offsets) that the IR section refers to.

use super::reader::{Reader, FORMAT};
use crate::{Error, Result};

/// Highest bytecode version this reader understands (MLIR's `kVersion` when this was written).
pub const MAX_VERSION: u64 = 6;
pub const MAGIC: &[u8; 4] = b"ML\xefR";

pub mod id {
    pub const STRING: u8 = 0;
    pub const DIALECT: u8 = 1;
    pub const ATTR_TYPE: u8 = 2;
    pub const ATTR_TYPE_OFFSET: u8 = 3;
    pub const IR: u8 = 4;
    pub const RESOURCE: u8 = 5;
    pub const RESOURCE_OFFSET: u8 = 6;
    pub const DIALECT_VERSIONS: u8 = 7;
    pub const PROPERTIES: u8 = 8;
    pub const COUNT: usize = 9;
}

/// Version thresholds (see `program-formats.md` §2.2).
pub mod version {
    pub const DIALECT_VERSIONING: u64 = 1;
    pub const LAZY_LOADING: u64 = 2;
    pub const USE_LIST_ORDERING: u64 = 3;
    pub const ELIDE_UNKNOWN_BLOCK_ARG_LOCATION: u64 = 4;
    pub const NATIVE_PROPERTIES: u64 = 5;
}

pub fn section_name(id: u8) -> &'static str {
    match id {
        id::STRING => "string section",
        id::DIALECT => "dialect section",
        id::ATTR_TYPE => "attribute/type section",
        id::ATTR_TYPE_OFFSET => "attribute/type offset section",
        id::IR => "IR section",
        id::RESOURCE => "resource section",
        id::RESOURCE_OFFSET => "resource offset section",
        id::DIALECT_VERSIONS => "dialect version section",
        id::PROPERTIES => "properties section",
        _ => "unknown section",
    }
}

/// Reads one section header and returns (id, payload reader).
pub fn read_section<'a>(r: &mut Reader<'a>) -> Result<(u8, Reader<'a>)> {
    let start = r.offset();
    let head = r.byte()?;
    let sid = head & 0x7F;
    if sid as usize >= id::COUNT {
        return Err(Error::malformed(FORMAT, start, format!("unknown section id {sid}")));
    }
    let len = r.varint()?;
    if head & 0x80 != 0 {
        let align = r.varint()?;
        r.align_to(align)?;
    }
    if len > r.remaining() as u64 {
        return Err(Error::malformed(
            FORMAT,
            start,
            format!("{} claims {len} bytes, only {} left", section_name(sid), r.remaining()),
        ));
    }
    let payload = r.sub(len as usize, section_name(sid))?;
    Ok((sid, payload))
}

/// The header and the top-level sections of a file, by id.
pub struct Container<'a> {
    pub version: u64,
    pub producer: &'a str,
    pub sections: [Option<Reader<'a>>; id::COUNT],
}

pub fn read_container(bytes: &[u8]) -> Result<Container<'_>> {
    let mut r = Reader::new(bytes, 0, "header");
    if r.bytes(4).map_err(|_| r.error("file shorter than the magic number"))? != MAGIC {
        return Err(Error::malformed(FORMAT, 0, "header: wrong magic number (expected ML\\xEFR)"));
    }
    let version = r.varint()?;
    if version > MAX_VERSION {
        return Err(r.error(format!(
            "bytecode version {version} is newer than the highest version apu reads ({MAX_VERSION})"
        )));
    }
    let producer = r.cstr()?;
    let mut sections: [Option<Reader<'_>>; id::COUNT] = Default::default();
    while !r.is_empty() {
        let start = r.offset();
        let (sid, payload) = read_section(&mut r)?;
        if sid == id::DIALECT_VERSIONS {
            return Err(Error::malformed(FORMAT, start, "dialect version section at top level"));
        }
        if sections[sid as usize].is_some() {
            return Err(Error::malformed(FORMAT, start, format!("duplicate {}", section_name(sid))));
        }
        sections[sid as usize] = Some(payload);
    }
    for required in [id::STRING, id::DIALECT, id::ATTR_TYPE, id::ATTR_TYPE_OFFSET, id::IR] {
        if sections[required as usize].is_none() {
            return Err(r.error(format!("missing {}", section_name(required))));
        }
    }
    if version >= version::NATIVE_PROPERTIES && sections[id::PROPERTIES as usize].is_none() {
        return Err(r.error(format!("missing properties section (required from bytecode version 5, file is {version})")));
    }
    Ok(Container { version, producer, sections })
}

/// The string table.
pub fn read_strings<'a>(mut r: Reader<'a>) -> Result<Vec<&'a str>> {
    let n = r.count("string")?;
    let mut sizes = Vec::with_capacity(n);
    for _ in 0..n {
        sizes.push(r.varint()?);
    }
    // Sizes are written last string first.
    sizes.reverse();
    let total: u128 = sizes.iter().map(|&s| u128::from(s)).sum();
    if total != r.remaining() as u128 {
        return Err(r.error(format!("string sizes add up to {total} bytes but {} remain", r.remaining())));
    }
    let mut out = Vec::with_capacity(n);
    for size in sizes {
        let at = r.offset();
        let raw = r.bytes(size as usize)?;
        match raw.split_last() {
            Some((0, body)) => {
                out.push(std::str::from_utf8(body).map_err(|_| Error::malformed(FORMAT, at, "string section: string is not UTF-8"))?)
            }
            _ => return Err(Error::malformed(FORMAT, at, "string section: string does not end in NUL")),
        }
    }
    Ok(out)
}

/// One operation name: its dialect and its full `dialect.op` spelling.
#[derive(Clone, Debug)]
pub struct OpName {
    pub dialect: usize,
    pub name: String,
    /// `false` when the writer did not know the op (bytecode ≥ 5); such ops carry no native properties.
    pub registered: bool,
}

pub struct Dialects<'a> {
    pub names: Vec<&'a str>,
    pub op_names: Vec<OpName>,
}

pub fn read_dialects<'a>(mut r: Reader<'a>, version: u64, strings: &[&'a str]) -> Result<Dialects<'a>> {
    let n = r.count("dialect")?;
    let mut names = Vec::with_capacity(n);
    for _ in 0..n {
        if version < version::DIALECT_VERSIONING {
            names.push(strings[r.index(strings.len(), "dialect name string")?]);
            continue;
        }
        let v = r.varint()?;
        let idx = (v >> 1) as usize;
        if idx >= strings.len() {
            return Err(r.error(format!("dialect name string index {idx} out of range")));
        }
        names.push(strings[idx]);
        if v & 1 == 1 {
            // The dialect's version blob: VHLO and builtin write none; other dialects' versions are
            // only meaningful to their own upgrade hooks, which apu does not have.
            let (sid, _) = super::sections::read_section(&mut r)?;
            if sid != id::DIALECT_VERSIONS {
                return Err(r.error(format!("expected a dialect version section, found {}", section_name(sid))));
            }
        }
    }
    let mut declared_ops = None;
    if version >= version::ELIDE_UNKNOWN_BLOCK_ARG_LOCATION {
        declared_ops = Some(r.varint()?);
    }
    let mut op_names = Vec::new();
    while !r.is_empty() {
        let dialect = r.index(names.len(), "op-name dialect")?;
        let count = r.count("op name")?;
        for _ in 0..count {
            let (idx, registered) = if version >= version::NATIVE_PROPERTIES {
                let v = r.varint()?;
                ((v >> 1) as usize, v & 1 == 1)
            } else {
                (r.varint()? as usize, true)
            };
            let s = strings.get(idx).ok_or_else(|| r.error(format!("op name string index {idx} out of range")))?;
            op_names.push(OpName { dialect, name: format!("{}.{}", names[dialect], s), registered });
        }
    }
    if let Some(d) = declared_ops {
        if d != op_names.len() as u64 {
            return Err(r.error(format!("declares {d} op names but lists {}", op_names.len())));
        }
    }
    Ok(Dialects { names, op_names })
}

/// Native op properties: one byte string per entry.
pub fn read_properties<'a>(mut r: Reader<'a>) -> Result<Vec<Reader<'a>>> {
    let n = r.count("properties entry")?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let len = r.varint()?;
        if len > r.remaining() as u64 {
            return Err(r.error(format!("properties entry of {len} bytes exceeds the {} left", r.remaining())));
        }
        out.push(r.sub(len as usize, "properties section")?);
    }
    Ok(out)
}

/// Where one attribute or type entry sits in the attribute/type section.
#[derive(Clone, Copy, Debug)]
pub struct EntryLoc {
    pub dialect: usize,
    pub start: usize,
    pub len: usize,
    pub custom: bool,
}

/// The offset table: attributes first, then types, with one running offset.
pub fn read_attr_type_offsets(
    mut r: Reader<'_>,
    num_dialects: usize,
    payload_len: usize,
) -> Result<(Vec<EntryLoc>, Vec<EntryLoc>)> {
    let num_attrs = r.varint()?;
    let num_types = r.varint()?;
    // Every entry has a size varint of at least one byte.
    if num_attrs.saturating_add(num_types) > r.remaining() as u64 {
        return Err(r.error(format!("declares {num_attrs} attributes and {num_types} types, too many for its size")));
    }
    let mut running = 0usize;
    let mut read_group = |r: &mut Reader<'_>, want: usize| -> Result<Vec<EntryLoc>> {
        let mut out = Vec::with_capacity(want);
        while out.len() < want {
            let dialect = r.index(num_dialects, "attribute/type dialect")?;
            let count = r.count("attribute/type entry")?;
            if out.len() + count > want {
                return Err(r.error("attribute/type group runs past the declared count"));
            }
            for _ in 0..count {
                let v = r.varint()?;
                let len = (v >> 1) as usize;
                if len > payload_len.saturating_sub(running) {
                    return Err(r.error(format!("entry of {len} bytes runs past the attribute/type section")));
                }
                out.push(EntryLoc { dialect, start: running, len, custom: v & 1 == 1 });
                running += len;
            }
        }
        Ok(out)
    };
    let attrs = read_group(&mut r, num_attrs as usize)?;
    let types = read_group(&mut r, num_types as usize)?;
    if !r.is_empty() {
        return Err(r.error(format!("{} trailing bytes", r.remaining())));
    }
    Ok((attrs, types))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(bytes: &[u8]) -> Reader<'_> {
        Reader::new(bytes, 100, "test section")
    }

    #[test]
    fn string_sizes_are_listed_last_string_first() {
        // Two strings, "ab" then "xyz": sizes 4 ("xyz\0") then 3 ("ab\0").
        let bytes = [0x05, 0x09, 0x07, b'a', b'b', 0, b'x', b'y', b'z', 0];
        assert_eq!(read_strings(r(&bytes)).unwrap(), vec!["ab", "xyz"]);
        // Sizes that do not add up to the payload are rejected with the offset.
        let err = read_strings(r(&bytes[..9])).unwrap_err();
        assert!(err.message.contains("at byte 103"), "{err}");
    }

    #[test]
    fn op_names_carry_dialect_and_registration() {
        let strings = ["builtin", "vhlo", "module", "add_v1"];
        // v6: 2 dialects, 2 op names in total, then groups (dialect, count, (name << 1) | registered).
        let bytes = [0x05, 0x01, 0x05, 0x05, 0x01, 0x03, 0x0B, 0x03, 0x03, 0x0D];
        let d = read_dialects(r(&bytes), 6, &strings).unwrap();
        assert_eq!(d.names, vec!["builtin", "vhlo"]);
        let names: Vec<(&str, bool)> = d.op_names.iter().map(|o| (o.name.as_str(), o.registered)).collect();
        assert_eq!(names, vec![("builtin.module", true), ("vhlo.add_v1", false)]);
        // A wrong total count is caught.
        let mut wrong = bytes;
        wrong[3] = 0x07;
        assert!(read_dialects(r(&wrong), 6, &strings).is_err());
    }

    #[test]
    fn attribute_and_type_offsets_run_on_across_both_tables() {
        // 2 attributes, 1 type; attrs of dialect 0 sized 3 (custom) and 2 (text); type of dialect 1 sized 4.
        let bytes = [0x05, 0x03, 0x01, 0x05, 0x0F, 0x09, 0x03, 0x03, 0x13];
        let (attrs, types) = read_attr_type_offsets(r(&bytes), 2, 9).unwrap();
        let spans: Vec<(usize, usize, bool)> = attrs.iter().map(|e| (e.start, e.len, e.custom)).collect();
        assert_eq!(spans, vec![(0, 3, true), (3, 2, false)]);
        assert_eq!((types[0].dialect, types[0].start, types[0].len), (1, 5, 4));
        // Entries running past the attribute/type section are rejected.
        assert!(read_attr_type_offsets(r(&bytes), 2, 8).is_err());
    }
}
