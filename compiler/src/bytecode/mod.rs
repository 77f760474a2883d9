//! A reader of the generic MLIR bytecode container (`program-formats.md` §2–3): sections, the
//! string/dialect/property tables, lazily decoded attributes and types, and the IR section as a tree
//! of [`RawOp`]s. Dialects plug in through [`DialectDecoder`]; builtin is provided here.
//!
//! Every malformed input yields an `Error::malformed("MLIR bytecode", offset, …)` naming the section;
//! nothing here panics on bad bytes, and all recursion is bounded.

pub mod builtin;
pub mod ir_section;
pub mod model;
pub mod reader;
pub mod sections;
pub mod table;

pub use ir_section::{Properties, RawArg, RawBlock, RawOp, RawRegion};
pub use model::{attr_loc_text, Attr, FloatKind, Loc, Signedness, Ty};
pub use reader::Reader;
pub use table::{DialectDecoder, Table};

use crate::Result;
use sections::id;

/// A decoded file: its header, the attribute/type table (still lazily decoding) and the top-level ops.
pub struct Bytecode<'a> {
    pub version: u64,
    pub producer: &'a str,
    pub dialects: Vec<&'a str>,
    pub table: Table<'a>,
    pub ops: Vec<RawOp<'a>>,
}

/// Reads a bytecode file. `decoders` maps dialect names to their attribute/type decoders; builtin
/// is always known. Attributes of other dialects fail only when something uses them.
pub fn read<'a>(bytes: &'a [u8], decoders: &[(&str, &'a dyn DialectDecoder)]) -> Result<Bytecode<'a>> {
    static BUILTIN: builtin::BuiltinDecoder = builtin::BuiltinDecoder;
    let container = sections::read_container(bytes)?;
    let section = |i: u8| container.sections[i as usize].clone();
    let strings = sections::read_strings(section(id::STRING).expect("checked required"))?;
    let properties = match section(id::PROPERTIES) {
        Some(r) => sections::read_properties(r)?,
        None => Vec::new(),
    };
    let dialects = sections::read_dialects(section(id::DIALECT).expect("checked required"), container.version, &strings)?;
    let payload = section(id::ATTR_TYPE).expect("checked required");
    let (attr_locs, type_locs) = sections::read_attr_type_offsets(
        section(id::ATTR_TYPE_OFFSET).expect("checked required"),
        dialects.names.len(),
        payload.remaining(),
    )?;
    let dialect_decoders = dialects
        .names
        .iter()
        .map(|name| {
            if *name == "builtin" {
                Some(&BUILTIN as &dyn DialectDecoder)
            } else {
                decoders.iter().find(|(n, _)| n == name).map(|(_, d)| *d)
            }
        })
        .collect();
    let mut table = Table::new(&payload, strings, dialects.names.clone(), dialect_decoders, attr_locs, type_locs);
    table.prime();
    let ops = {
        let mut ir = ir_section::IrReader::new(container.version, &dialects.op_names, &properties, &mut table);
        ir.read_top_level(section(id::IR).expect("checked required"))?
    };
    Ok(Bytecode { version: container.version, producer: container.producer, dialects: dialects.names, table, ops })
}
