//! The attribute/type table: entries are decoded lazily, on first use, by their dialect's decoder.
//! Entries may refer to each other in any order, so each slot tracks "in progress" to reject cycles,
//! and a depth counter bounds recursion on adversarial inputs.

use super::model::{Attr, Ty};
use super::reader::Reader;
use super::sections::EntryLoc;
use crate::{Error, Result};
use std::rc::Rc;

/// Deepest chain of nested attribute/type references accepted.
const MAX_DEPTH: usize = 64;

/// Decodes the custom encoding of one dialect's attributes and types. The reader covers exactly one
/// entry; the table resolves references to other entries.
pub trait DialectDecoder {
    fn decode_attr(&self, r: &mut Reader<'_>, t: &mut Table<'_>) -> Result<Attr>;
    fn decode_type(&self, r: &mut Reader<'_>, t: &mut Table<'_>) -> Result<Ty>;
}

enum Slot<T> {
    Todo,
    InProgress,
    Done(Rc<T>),
}

pub struct Table<'a> {
    data: &'a [u8],
    base: usize,
    strings: Vec<&'a str>,
    dialect_names: Vec<&'a str>,
    decoders: Vec<Option<&'a dyn DialectDecoder>>,
    attr_locs: Vec<EntryLoc>,
    type_locs: Vec<EntryLoc>,
    attrs: Vec<Slot<Attr>>,
    types: Vec<Slot<Ty>>,
    depth: usize,
}

impl<'a> Table<'a> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        payload: &Reader<'a>,
        strings: Vec<&'a str>,
        dialect_names: Vec<&'a str>,
        decoders: Vec<Option<&'a dyn DialectDecoder>>,
        attr_locs: Vec<EntryLoc>,
        type_locs: Vec<EntryLoc>,
    ) -> Self {
        let mut p = payload.clone();
        let base = p.offset();
        let data = p.bytes(p.remaining()).unwrap_or(&[]);
        let attrs = attr_locs.iter().map(|_| Slot::Todo).collect();
        let types = type_locs.iter().map(|_| Slot::Todo).collect();
        Table { data, base, strings, dialect_names, decoders, attr_locs, type_locs, attrs, types, depth: 0 }
    }

    /// Decodes every entry once, lowest index first and then highest first, ignoring failures (they are
    /// reported again, with their context, when a program really uses the entry). Writers emit nested
    /// attributes (JAX's call-site location chains reach hundreds of levels) so that an entry's referents
    /// sit next to it; decoding in index order finds them already done, which keeps the recursion shallow
    /// and lets the depth bound stay small for adversarial inputs.
    pub fn prime(&mut self) {
        let at = Reader::new(&[], self.base, "attribute/type section");
        let (num_types, num_attrs) = (self.types.len(), self.attrs.len());
        let order: Vec<(usize, bool)> =
            (0..num_types).map(|i| (i, false)).chain((0..num_attrs).map(|i| (i, true))).collect();
        for &(i, is_attr) in order.iter().chain(order.iter().rev()) {
            let _ = if is_attr { self.attr_at(&at, i as u64).map(drop) } else { self.type_at(&at, i as u64).map(drop) };
        }
    }

    pub fn num_attrs(&self) -> usize {
        self.attrs.len()
    }
    pub fn strings(&self) -> &[&'a str] {
        &self.strings
    }

    /// A string of the string table.
    pub fn string(&self, r: &Reader<'_>, idx: u64) -> Result<&'a str> {
        self.strings.get(idx as usize).copied().ok_or_else(|| r.error(format!("string index {idx} out of range")))
    }
    pub fn read_string(&self, r: &mut Reader<'_>) -> Result<&'a str> {
        let idx = r.varint()?;
        self.string(r, idx)
    }

    /// Reads an attribute index and resolves it.
    pub fn read_attr(&mut self, r: &mut Reader<'_>) -> Result<Rc<Attr>> {
        let idx = r.varint()?;
        self.attr_at(r, idx)
    }
    /// Reads `(index << 1) | present` and resolves the attribute when present.
    pub fn read_optional_attr(&mut self, r: &mut Reader<'_>) -> Result<Option<Rc<Attr>>> {
        let v = r.varint()?;
        if v & 1 == 0 {
            return Ok(None);
        }
        self.attr_at(r, v >> 1).map(Some)
    }
    pub fn read_type(&mut self, r: &mut Reader<'_>) -> Result<Rc<Ty>> {
        let idx = r.varint()?;
        self.type_at(r, idx)
    }
    /// A list: varint count, then `count` items.
    pub fn read_list<T>(
        &mut self,
        r: &mut Reader<'_>,
        mut item: impl FnMut(&mut Self, &mut Reader<'_>) -> Result<T>,
    ) -> Result<Vec<T>> {
        let n = r.count("list element")?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(item(self, r)?);
        }
        Ok(out)
    }
    pub fn read_attr_list(&mut self, r: &mut Reader<'_>) -> Result<Vec<Rc<Attr>>> {
        self.read_list(r, |t, r| t.read_attr(r))
    }
    pub fn read_type_list(&mut self, r: &mut Reader<'_>) -> Result<Vec<Rc<Ty>>> {
        self.read_list(r, |t, r| t.read_type(r))
    }

    /// The attribute at `idx`; `at` supplies the offset for errors.
    pub fn attr_at(&mut self, at: &Reader<'_>, idx: u64) -> Result<Rc<Attr>> {
        let i = usize::try_from(idx).ok().filter(|&i| i < self.attrs.len());
        let i = i.ok_or_else(|| at.error(format!("attribute index {idx} out of range (have {})", self.attrs.len())))?;
        match &self.attrs[i] {
            Slot::Done(a) => return Ok(a.clone()),
            Slot::InProgress => return Err(at.error(format!("attribute #{i} refers to itself"))),
            Slot::Todo => {}
        }
        let loc = self.attr_locs[i];
        self.attrs[i] = Slot::InProgress;
        let result = self.decode_entry(at, loc, true, i).and_then(|e| match e {
            Entry::Attr(a) => Ok(a),
            Entry::Type(_) => Err(at.error("internal: type decoded for an attribute")),
        });
        match result {
            Ok(a) => {
                let a = Rc::new(a);
                self.attrs[i] = Slot::Done(a.clone());
                Ok(a)
            }
            Err(e) => {
                self.attrs[i] = Slot::Todo;
                Err(e)
            }
        }
    }

    pub fn type_at(&mut self, at: &Reader<'_>, idx: u64) -> Result<Rc<Ty>> {
        let i = usize::try_from(idx).ok().filter(|&i| i < self.types.len());
        let i = i.ok_or_else(|| at.error(format!("type index {idx} out of range (have {})", self.types.len())))?;
        match &self.types[i] {
            Slot::Done(t) => return Ok(t.clone()),
            Slot::InProgress => return Err(at.error(format!("type #{i} refers to itself"))),
            Slot::Todo => {}
        }
        let loc = self.type_locs[i];
        self.types[i] = Slot::InProgress;
        let result = self.decode_entry(at, loc, false, i).and_then(|e| match e {
            Entry::Type(t) => Ok(t),
            Entry::Attr(_) => Err(at.error("internal: attribute decoded for a type")),
        });
        match result {
            Ok(t) => {
                let t = Rc::new(t);
                self.types[i] = Slot::Done(t.clone());
                Ok(t)
            }
            Err(e) => {
                self.types[i] = Slot::Todo;
                Err(e)
            }
        }
    }

    fn decode_entry(&mut self, at: &Reader<'_>, loc: EntryLoc, is_attr: bool, i: usize) -> Result<Entry> {
        let kind = if is_attr { "attribute" } else { "type" };
        if self.depth >= MAX_DEPTH {
            return Err(at.error(format!("{kind} references nest deeper than {MAX_DEPTH}")));
        }
        let dialect = self.dialect_names.get(loc.dialect).copied().unwrap_or("?");
        // Offsets were checked against the section size when the offset table was read.
        let bytes = self.data.get(loc.start..loc.start + loc.len).unwrap_or(&[]);
        let mut r = Reader::new(bytes, self.base + loc.start, "attribute/type section");
        if !loc.custom {
            let text = r.cstr().unwrap_or("<unreadable>");
            return Err(Error::unimplemented(format!(
                "MLIR bytecode: {kind} #{i} of dialect '{dialect}' is stored as text ({text}); apu decodes only binary encodings"
            )));
        }
        let decoder = self.decoders.get(loc.dialect).copied().flatten().ok_or_else(|| {
            Error::unimplemented(format!("MLIR bytecode: {kind} #{i} belongs to dialect '{dialect}', which apu does not read"))
        })?;
        self.depth += 1;
        let out = if is_attr {
            decoder.decode_attr(&mut r, self).map(Entry::Attr)
        } else {
            decoder.decode_type(&mut r, self).map(Entry::Type)
        };
        self.depth -= 1;
        out.map_err(|e| e.context(format!("{kind} #{i} of dialect '{dialect}'")))
    }
}

enum Entry {
    Attr(Attr),
    Type(Ty),
}
