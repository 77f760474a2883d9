//! The IR section: operations, regions and blocks, with MLIR's value numbering translated into
//! unique value ids per isolated scope (sibling regions reuse bytecode slots, apu's IR does not).

use super::model::{Attr, Ty};
use super::reader::Reader;
use super::sections::{id, read_section, section_name, version, OpName};
use super::table::Table;
use crate::Result;
use std::rc::Rc;

/// Deepest nesting of regions accepted.
const MAX_REGION_DEPTH: usize = 32;

/// Where an op's inherent attributes are.
#[derive(Clone)]
pub enum Properties<'a> {
    /// Native properties (bytecode ≥ 5, registered op): the raw entry, decoded by the op's dialect.
    Native(Reader<'a>),
    /// An unregistered op's properties: one attribute.
    Attr(Rc<Attr>),
}

/// One operation as the container describes it, before any dialect interprets it.
#[derive(Clone)]
pub struct RawOp<'a> {
    pub name: String,
    pub registered: bool,
    /// Absolute offset of the op in the file.
    pub offset: usize,
    pub loc: Rc<Attr>,
    /// The dictionary of discardable (before bytecode 5: all) attributes.
    pub attrs: Option<Rc<Attr>>,
    pub props: Option<Properties<'a>>,
    pub result_types: Vec<Rc<Ty>>,
    /// Unique ids (within the enclosing isolated scope) of the results.
    pub results: Vec<u32>,
    pub operands: Vec<u32>,
    pub successors: Vec<u64>,
    pub regions: Vec<RawRegion<'a>>,
    /// Whether the regions start a new value scope (`IsolatedFromAbove`).
    pub isolated: bool,
    /// For isolated ops: the type of every value of the new scope, by unique id.
    pub scope_types: Vec<Rc<Ty>>,
}

#[derive(Clone, Default)]
pub struct RawRegion<'a> {
    pub blocks: Vec<RawBlock<'a>>,
}

#[derive(Clone, Default)]
pub struct RawBlock<'a> {
    pub args: Vec<RawArg>,
    pub ops: Vec<RawOp<'a>>,
}

#[derive(Clone)]
pub struct RawArg {
    pub id: u32,
    pub ty: Rc<Ty>,
    pub loc: Option<Rc<Attr>>,
}

/// One isolated value scope: bytecode slots → unique ids, and each id's type once defined.
#[derive(Default)]
struct Scope {
    slots: Vec<Option<u32>>,
    types: Vec<Option<Rc<Ty>>>,
    /// Next slot to define, per open region.
    next_slot: Vec<usize>,
    /// End (exclusive) of the slots reserved by each open region.
    slot_end: Vec<usize>,
}

impl Scope {
    fn fresh_id(&mut self) -> u32 {
        self.types.push(None);
        (self.types.len() - 1) as u32
    }

    fn define(&mut self, r: &Reader<'_>, ty: Rc<Ty>) -> Result<u32> {
        let (Some(next), Some(&end)) = (self.next_slot.last_mut(), self.slot_end.last()) else {
            return Err(r.error("value defined outside any region"));
        };
        if *next >= end {
            return Err(r.error("region defines more values than it declared"));
        }
        let slot = *next;
        *next += 1;
        let id = match self.slots[slot] {
            // Referenced earlier (a forward reference within this region): this is its definition.
            Some(id) if self.types[id as usize].is_none() => id,
            Some(_) => return Err(r.error("value slot defined twice")),
            None => self.fresh_id(),
        };
        self.slots[slot] = Some(id);
        self.types[id as usize] = Some(ty);
        Ok(id)
    }

    fn use_value(&mut self, r: &Reader<'_>, slot: u64) -> Result<u32> {
        let s = usize::try_from(slot).ok().filter(|&s| s < self.slots.len());
        let s = s.ok_or_else(|| r.error(format!("operand refers to value #{slot}, outside the {} visible", self.slots.len())))?;
        Ok(match self.slots[s] {
            Some(id) => id,
            None => {
                let id = self.fresh_id();
                self.slots[s] = Some(id);
                id
            }
        })
    }
}

pub struct IrReader<'t, 'a> {
    pub version: u64,
    pub op_names: &'t [OpName],
    pub properties: &'t [Reader<'a>],
    pub table: &'t mut Table<'a>,
    scopes: Vec<Scope>,
    depth: usize,
}

impl<'t, 'a> IrReader<'t, 'a> {
    pub fn new(version: u64, op_names: &'t [OpName], properties: &'t [Reader<'a>], table: &'t mut Table<'a>) -> Self {
        IrReader { version, op_names, properties, table, scopes: Vec::new(), depth: 0 }
    }

    /// Reads the IR section: one implicit top-level block. Returns its ops.
    pub fn read_top_level(&mut self, mut r: Reader<'a>) -> Result<Vec<RawOp<'a>>> {
        self.scopes.push(Scope::default());
        let scope = self.scopes.last_mut().expect("pushed");
        scope.next_slot.push(0);
        scope.slot_end.push(0);
        let header = r.varint()?;
        if header & 1 == 1 {
            return Err(r.error("top-level block cannot have arguments"));
        }
        let num_ops = header >> 1;
        let mut ops = Vec::new();
        for _ in 0..num_ops {
            ops.push(self.read_op(&mut r)?);
        }
        if !r.is_empty() {
            return Err(r.error(format!("{} trailing bytes after the top-level ops", r.remaining())));
        }
        self.scopes.pop();
        Ok(ops)
    }

    fn scope(&mut self) -> &mut Scope {
        self.scopes.last_mut().expect("a scope is open while reading ops")
    }

    fn read_op(&mut self, r: &mut Reader<'a>) -> Result<RawOp<'a>> {
        let offset = r.offset();
        let name_idx = r.index(self.op_names.len(), "op name")?;
        let op_name = &self.op_names[name_idx];
        let (name, registered) = (op_name.name.clone(), op_name.registered);
        let ctx = |e: crate::Error| e.context(format!("op '{name}' at byte {offset}"));
        self.read_op_body(r, name.clone(), registered, offset).map_err(ctx)
    }

    fn read_op_body(&mut self, r: &mut Reader<'a>, name: String, registered: bool, offset: usize) -> Result<RawOp<'a>> {
        let mask = r.byte()?;
        if mask & 0x80 != 0 {
            return Err(r.error(format!("op mask {mask:#x} has unknown bits")));
        }
        let loc = self.table.read_attr(r)?;
        let attrs = if mask & 0x01 != 0 { Some(self.table.read_attr(r)?) } else { None };
        let mut props = None;
        if mask & 0x40 != 0 {
            if self.version < version::NATIVE_PROPERTIES {
                return Err(r.error("op has properties before bytecode version 5"));
            }
            props = Some(if registered {
                let idx = r.index(self.properties.len(), "properties")?;
                Properties::Native(self.properties[idx].clone())
            } else {
                Properties::Attr(self.table.read_attr(r)?)
            });
        }
        let mut result_types = Vec::new();
        if mask & 0x02 != 0 {
            result_types = self.table.read_type_list(r)?;
        }
        let mut operands = Vec::new();
        if mask & 0x04 != 0 {
            let n = r.count("operand")?;
            for _ in 0..n {
                let slot = r.varint()?;
                operands.push(self.scope().use_value(r, slot)?);
            }
        }
        let mut successors = Vec::new();
        if mask & 0x08 != 0 {
            let n = r.count("successor")?;
            for _ in 0..n {
                successors.push(r.varint()?);
            }
        }
        let mut results = Vec::with_capacity(result_types.len());
        for ty in &result_types {
            results.push(self.scope().define(r, ty.clone())?);
        }
        if mask & 0x20 != 0 {
            if self.version < version::USE_LIST_ORDERING {
                return Err(r.error("op has use-list orders before bytecode version 3"));
            }
            skip_use_list_orders(r, results.len())?;
        }
        let mut regions = Vec::new();
        let mut isolated = false;
        let mut scope_types = Vec::new();
        if mask & 0x10 != 0 {
            let v = r.varint()?;
            let num_regions = v >> 1;
            isolated = v & 1 == 1;
            if num_regions > r.remaining() as u64 {
                return Err(r.error(format!("{num_regions} regions cannot fit in the bytes left")));
            }
            if self.depth >= MAX_REGION_DEPTH {
                return Err(r.error(format!("regions nest deeper than {MAX_REGION_DEPTH}")));
            }
            self.depth += 1;
            let out = if isolated {
                self.read_isolated_regions(r, num_regions as usize)
            } else {
                (0..num_regions).map(|_| self.read_region(r)).collect::<Result<Vec<_>>>().map(|rs| (rs, Vec::new()))
            };
            self.depth -= 1;
            (regions, scope_types) = out?;
        }
        Ok(RawOp {
            name,
            registered,
            offset,
            loc,
            attrs,
            props,
            result_types,
            results,
            operands,
            successors,
            regions,
            isolated,
            scope_types,
        })
    }

    fn read_isolated_regions(&mut self, r: &mut Reader<'a>, n: usize) -> Result<(Vec<RawRegion<'a>>, Vec<Rc<Ty>>)> {
        // From bytecode 2 (lazy loading) isolated regions sit in a nested IR section.
        let mut nested;
        let reader: &mut Reader<'a> = if self.version >= version::LAZY_LOADING {
            let (sid, payload) = read_section(r)?;
            if sid != id::IR {
                return Err(r.error(format!("isolated regions must be in a nested IR section, found {}", section_name(sid))));
            }
            nested = payload;
            &mut nested
        } else {
            r
        };
        self.scopes.push(Scope::default());
        let regions = (0..n).map(|_| self.read_region(reader)).collect::<Result<Vec<_>>>();
        let scope = self.scopes.pop().expect("pushed");
        let regions = regions?;
        if self.version >= version::LAZY_LOADING && !reader.is_empty() {
            return Err(reader.error(format!("{} trailing bytes after isolated regions", reader.remaining())));
        }
        let mut types = Vec::with_capacity(scope.types.len());
        for (i, t) in scope.types.into_iter().enumerate() {
            types.push(t.ok_or_else(|| reader.error(format!("value {i} is used but never defined")))?);
        }
        Ok((regions, types))
    }

    fn read_region(&mut self, r: &mut Reader<'a>) -> Result<RawRegion<'a>> {
        let num_blocks = r.count("block")?;
        if num_blocks == 0 {
            return Ok(RawRegion::default());
        }
        let num_values = r.count("region value")?;
        let scope = self.scope();
        let base = scope.slots.len();
        scope.slots.resize(base + num_values, None);
        scope.next_slot.push(base);
        scope.slot_end.push(base + num_values);
        let blocks = (0..num_blocks).map(|_| self.read_block(r)).collect::<Result<Vec<_>>>();
        let scope = self.scope();
        scope.slots.truncate(base);
        scope.next_slot.pop();
        scope.slot_end.pop();
        Ok(RawRegion { blocks: blocks? })
    }

    fn read_block(&mut self, r: &mut Reader<'a>) -> Result<RawBlock<'a>> {
        let header = r.varint()?;
        let num_ops = header >> 1;
        let mut args = Vec::new();
        if header & 1 == 1 {
            let n = r.count("block argument")?;
            for _ in 0..n {
                let (ty, loc) = if self.version >= version::ELIDE_UNKNOWN_BLOCK_ARG_LOCATION {
                    let v = r.varint()?;
                    let ty = self.table.type_at(r, v >> 1)?;
                    let loc = if v & 1 == 1 { Some(self.table.read_attr(r)?) } else { None };
                    (ty, loc)
                } else {
                    let ty = self.table.read_type(r)?;
                    (ty, Some(self.table.read_attr(r)?))
                };
                let id = self.scope().define(r, ty.clone())?;
                args.push(RawArg { id, ty, loc });
            }
            if self.version >= version::USE_LIST_ORDERING {
                // The writer patches this byte with the op-mask bit 0x20 when orders follow.
                if r.byte()? != 0 {
                    skip_use_list_orders(r, args.len())?;
                }
            }
        }
        if num_ops > r.remaining() as u64 {
            return Err(r.error(format!("block claims {num_ops} ops, more than the bytes left")));
        }
        // The count is only bounded by the bytes left; don't let a forged one reserve a huge vector.
        let mut ops = Vec::with_capacity((num_ops as usize).min(1024));
        for _ in 0..num_ops {
            ops.push(self.read_op(r)?);
        }
        Ok(RawBlock { args, ops })
    }
}

/// Use-list orders only reorder uses inside MLIR's in-memory IR; apu has no use lists, so skip them.
fn skip_use_list_orders(r: &mut Reader<'_>, range: usize) -> Result<()> {
    let entries = if range > 1 { r.count("use-list entry")? } else { 1 };
    for _ in 0..entries {
        if range > 1 {
            r.varint()?;
        }
        let v = r.varint()?;
        let n = v >> 1;
        if n > r.remaining() as u64 {
            return Err(r.error("use-list order longer than the bytes left"));
        }
        for _ in 0..n {
            r.varint()?;
        }
    }
    Ok(())
}
