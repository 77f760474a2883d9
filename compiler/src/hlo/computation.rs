//! Translation of HLO computations into IR functions and regions.
//!
//! Tuples: apu flattens every tuple-shaped HLO value into its leaves (depth-first). A `tuple`
//! instruction emits no op, `get-tuple-element` picks a leaf group, and an op with a tuple-shaped
//! result (while, call, conditional, variadic reduce or sort, rng-bit-generator…) gets one IR
//! result per leaf. So functions, regions, while loops and the entry signature take and return
//! only tensors and tokens; tuple-shaped entry parameters become one parameter per leaf, and a
//! tuple-shaped entry result becomes one result per leaf (PJRT hands results back untupled).

use super::proto::{HloComputationProto, HloInstructionProto, ShapeProto, StackFrameIndexProto};
use super::shape;
use crate::ir::{Function, Location, Op, OpKind, Region, Type, ValueId};
use crate::{Error, Result};
use std::collections::HashMap;

/// Deepest nesting of computations (regions in regions, calls in calls) apu accepts; it bounds
/// the recursion of the reader on hostile input.
const MAX_NESTING: usize = 32;

/// What an HLO instruction produced: one IR value, or a (possibly nested) tuple of them.
#[derive(Clone, Debug)]
pub(super) enum Mapped {
    Value(ValueId),
    Tuple(Vec<Mapped>),
}

impl Mapped {
    pub fn push_leaves(&self, out: &mut Vec<ValueId>) {
        match self {
            Mapped::Value(v) => out.push(*v),
            Mapped::Tuple(parts) => parts.iter().for_each(|p| p.push_leaves(out)),
        }
    }
    pub fn leaves(&self) -> Vec<ValueId> {
        let mut out = Vec::new();
        self.push_leaves(&mut out);
        out
    }
}

/// Leaves of several mapped values, in order.
pub(super) fn leaves_of(values: &[Mapped]) -> Vec<ValueId> {
    let mut out = Vec::new();
    values.iter().for_each(|m| m.push_leaves(&mut out));
    out
}

/// Creates fresh values for every leaf of `ty` and the matching tuple structure.
pub(super) fn fresh(f: &mut Function, ty: &Type) -> (Vec<ValueId>, Mapped) {
    let mut leaves = Vec::new();
    let mapped = fresh_into(f, ty, &mut leaves);
    (leaves, mapped)
}

fn fresh_into(f: &mut Function, ty: &Type, leaves: &mut Vec<ValueId>) -> Mapped {
    match ty {
        Type::Tuple(parts) => Mapped::Tuple(parts.iter().map(|p| fresh_into(f, p, leaves)).collect()),
        other => {
            let v = f.new_value(other.clone());
            leaves.push(v);
            Mapped::Value(v)
        }
    }
}

/// Appends an op whose results are the leaves of `result_ty`; returns the mapped result.
pub(super) fn emit(
    f: &mut Function,
    ops: &mut Vec<Op>,
    kind: OpKind,
    operands: Vec<ValueId>,
    result_ty: &Type,
    regions: Vec<Region>,
    location: &Location,
) -> Mapped {
    let (results, mapped) = fresh(f, result_ty);
    ops.push(Op { kind, operands, results, regions, location: location.clone() });
    mapped
}

/// The state of reading one module: its computations by id and the functions made so far.
pub(super) struct ModuleReader<'p> {
    computations: HashMap<i64, &'p HloComputationProto>,
    pub functions: Vec<Function>,
    /// Computation id → index in `functions`, for computations reached through `call`.
    function_of: HashMap<i64, usize>,
    /// Computations being translated, innermost last (bounds nesting, detects cycles).
    active: Vec<i64>,
    /// The module's source positions, for locations.
    frames: Option<&'p StackFrameIndexProto>,
}

impl<'p> ModuleReader<'p> {
    pub fn new(computations: &'p [HloComputationProto], frames: Option<&'p StackFrameIndexProto>) -> Result<Self> {
        let mut by_id = HashMap::new();
        for c in computations {
            if by_id.insert(c.id, c).is_some() {
                return Err(Error::invalid(format!("two computations have id {}", c.id)));
            }
        }
        Ok(ModuleReader {
            computations: by_id,
            functions: Vec::new(),
            function_of: HashMap::new(),
            active: Vec::new(),
            frames,
        })
    }

    pub fn computation(&self, id: i64) -> Result<&'p HloComputationProto> {
        self.computations.get(&id).copied().ok_or_else(|| Error::invalid(format!("no computation has id {id}")))
    }

    pub fn frames(&self) -> Option<&'p StackFrameIndexProto> {
        self.frames
    }

    fn enter(&mut self, id: i64) -> Result<()> {
        if self.active.contains(&id) {
            let name = self.computations.get(&id).map(|c| c.name.as_str()).unwrap_or("?");
            return Err(Error::invalid(format!("computation {name} (id {id}) calls itself")));
        }
        if self.active.len() >= MAX_NESTING {
            return Err(Error::unimplemented(format!("computations nested deeper than {MAX_NESTING}")));
        }
        self.active.push(id);
        Ok(())
    }

    fn leave(&mut self) {
        self.active.pop();
    }

    /// The IR function for computation `id` (made on first use). Parameters and results are the
    /// leaves of the computation's parameter and root shapes.
    pub fn function_for(&mut self, id: i64, public: bool) -> Result<usize> {
        if let Some(&i) = self.function_of.get(&id) {
            return Ok(i);
        }
        let comp = self.computation(id)?;
        self.enter(id)?;
        let made = self.make_function(comp, public);
        self.leave();
        let f = made.map_err(|e| e.context(format!("computation {}", comp.name)))?;
        self.functions.push(f);
        let index = self.functions.len() - 1;
        self.function_of.insert(id, index);
        Ok(index)
    }

    fn make_function(&mut self, comp: &'p HloComputationProto, public: bool) -> Result<Function> {
        let mut f = Function::new(self.unique_name(&comp.name));
        f.public = public;
        let mut params = Vec::new();
        for shape in parameter_shapes(comp)? {
            let (leaves, mapped) = fresh(&mut f, &shape::to_type(shape)?);
            f.body.params.extend(leaves);
            params.push(mapped);
        }
        let mut ops = Vec::new();
        let root = self.translate(&mut f, comp, &params, &mut ops)?;
        f.body.ops = ops;
        f.body.results = root.leaves();
        f.result_types = f.body.results.iter().map(|&v| f.value_type(v).clone()).collect();
        f.arg_attrs = vec![Default::default(); f.body.params.len()];
        Ok(f)
    }

    pub fn unique_name(&self, base: &str) -> String {
        let taken = |n: &str| self.functions.iter().any(|f| f.name == n);
        if !taken(base) {
            return base.to_string();
        }
        (1..).map(|i| format!("{base}.{i}")).find(|n| !taken(n)).expect("an unused name exists")
    }

    /// A region made from computation `id` (a reduce combiner, a while body…) inside function `f`:
    /// fresh block arguments for the leaves of its parameters.
    pub fn region_for(&mut self, f: &mut Function, id: i64) -> Result<Region> {
        let comp = self.computation(id)?;
        self.enter(id)?;
        let made = (|| {
            let mut region = Region::default();
            let mut params = Vec::new();
            for shape in parameter_shapes(comp)? {
                let (leaves, mapped) = fresh(f, &shape::to_type(shape)?);
                region.params.extend(leaves);
                params.push(mapped);
            }
            let root = self.translate(f, comp, &params, &mut region.ops)?;
            region.results = root.leaves();
            Ok(region)
        })();
        self.leave();
        made.map_err(|e: Error| e.context(format!("computation {}", comp.name)))
    }

    /// A region with no block arguments whose body is computation `id` applied to `args`
    /// (conditional branches: regions see the values defined above them).
    pub fn closed_region_for(&mut self, f: &mut Function, id: i64, args: &[Mapped]) -> Result<Region> {
        let mut region = Region::default();
        let root = self.inline(f, id, args, &mut region.ops)?;
        region.results = root.leaves();
        Ok(region)
    }

    /// Emits computation `id` applied to `args` into `ops` (fusions, branch bodies).
    pub fn inline(&mut self, f: &mut Function, id: i64, args: &[Mapped], ops: &mut Vec<Op>) -> Result<Mapped> {
        let comp = self.computation(id)?;
        self.enter(id)?;
        let made = self.translate(f, comp, args, ops);
        self.leave();
        made.map_err(|e| e.context(format!("computation {}", comp.name)))
    }

    /// Emits the instructions of `comp` into `ops`, with `params[i]` standing for parameter i.
    fn translate(
        &mut self,
        f: &mut Function,
        comp: &'p HloComputationProto,
        params: &[Mapped],
        ops: &mut Vec<Op>,
    ) -> Result<Mapped> {
        let index = InstructionIndex::new(comp)?;
        let mut mapped: Vec<Option<Mapped>> = vec![None; comp.instructions.len()];
        for (i, inst) in comp.instructions.iter().enumerate() {
            let operands = inst
                .operand_ids
                .iter()
                .map(|&id| {
                    index.get(id).and_then(|j| mapped[j].clone()).ok_or_else(|| {
                        Error::invalid(format!("operand id {id} is not an earlier instruction of {}", comp.name))
                    })
                })
                .collect::<Result<Vec<_>>>()
                .map_err(|e| e.context(instruction_context(inst, self.frames)))?;
            let m = self
                .instruction(f, inst, &operands, params, ops)
                .map_err(|e| e.context(instruction_context(inst, self.frames)))?;
            mapped[i] = Some(m);
        }
        let root = index
            .get(comp.root_id)
            .ok_or_else(|| Error::invalid(format!("root id {} of {} is not one of its instructions", comp.root_id, comp.name)))?;
        mapped[root].clone().ok_or_else(|| Error::internal("root instruction was not translated"))
    }
}

/// Instruction ids of one computation. JAX writes full ids (computation id << 32 | local id)
/// in `operand_ids`, TensorFlow local ids; both resolve here.
struct InstructionIndex {
    full: HashMap<i64, usize>,
    local: HashMap<i64, usize>,
}

impl InstructionIndex {
    fn new(comp: &HloComputationProto) -> Result<Self> {
        let mut full = HashMap::new();
        let mut local = HashMap::new();
        for (i, inst) in comp.instructions.iter().enumerate() {
            if full.insert(inst.id, i).is_some() {
                return Err(Error::invalid(format!("two instructions of {} have id {}", comp.name, inst.id)));
            }
            local.entry(inst.id & 0xffff_ffff).or_insert(i);
        }
        Ok(InstructionIndex { full, local })
    }

    fn get(&self, id: i64) -> Option<usize> {
        self.full.get(&id).or_else(|| self.local.get(&(id & 0xffff_ffff))).copied()
    }
}

/// The parameter shapes of a computation, ordered by parameter number (which must be 0..n).
pub(super) fn parameter_shapes(comp: &HloComputationProto) -> Result<Vec<&ShapeProto>> {
    let mut params: Vec<(i64, &HloInstructionProto)> =
        comp.instructions.iter().filter(|i| i.opcode == "parameter").map(|i| (i.parameter_number, i)).collect();
    params.sort_by_key(|(n, _)| *n);
    let mut shapes = Vec::with_capacity(params.len());
    for (expected, (n, inst)) in params.iter().enumerate() {
        if *n != expected as i64 {
            return Err(Error::invalid(format!(
                "parameters of computation {} are not numbered 0..{} (found parameter number {n})",
                comp.name,
                params.len()
            )));
        }
        shapes.push(instruction_shape(inst)?);
    }
    Ok(shapes)
}

pub(super) fn instruction_shape(inst: &HloInstructionProto) -> Result<&ShapeProto> {
    inst.shape.as_ref().ok_or_else(|| Error::invalid(format!("instruction {} has no shape", inst.name)))
}

/// `name = opcode` plus the user's op name and source position when known.
fn instruction_context(inst: &HloInstructionProto, frames: Option<&StackFrameIndexProto>) -> String {
    let loc = location_of(inst, frames).text;
    match loc.strip_suffix(&format!("(hlo {})", inst.name)) {
        Some(prefix) if !prefix.is_empty() => format!("{} = {} at {}", inst.name, inst.opcode, prefix.trim_end()),
        _ => format!("{} = {}", inst.name, inst.opcode),
    }
}

/// The source location of an instruction for messages: JAX's op name, the source position
/// (from the metadata, else from the module's stack frame index), and always the HLO name.
pub(super) fn location_of(inst: &HloInstructionProto, frames: Option<&StackFrameIndexProto>) -> Location {
    let mut text = String::new();
    if let Some(m) = &inst.metadata {
        if !m.op_name.is_empty() {
            text.push_str(&m.op_name);
            text.push(' ');
        }
        if !m.source_file.is_empty() {
            text.push_str(&format!("{}:{} ", m.source_file, m.source_line));
        } else if let Some((file, line, column)) = frames.and_then(|f| frame_position(f, m.stack_frame_id)) {
            text.push_str(&format!("{file}:{line}:{column} "));
        }
    }
    text.push_str(&format!("(hlo {})", inst.name));
    Location { text }
}

/// File, line and column of the innermost frame `id` (1-based; 0 or out of range → none).
fn frame_position(frames: &StackFrameIndexProto, id: i32) -> Option<(&str, i32, i32)> {
    let at = |i: i32| usize::try_from(i).ok()?.checked_sub(1);
    let frame = frames.stack_frames.get(at(id)?)?;
    let loc = frames.file_locations.get(at(frame.file_location_id)?)?;
    let file = frames.file_names.get(at(loc.file_name_id)?)?;
    Some((file.as_str(), loc.line, loc.column))
}
