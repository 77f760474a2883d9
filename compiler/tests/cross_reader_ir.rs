//! Cross-reader IR equivalence: every program of the project's fixtures (`tests/fixtures/programs`)
//! and of the shared JAX samples is read in every form it comes in — the VHLO portable artifact for
//! each target, the pretty and the generic StableHLO text, the HloModuleProto — and the IR each reader
//! builds is printed by apu's printer (which drops locations and numbers values in order). The printed
//! IR must be identical to the pretty text's after the same named normalizations, applied in order
//! and only as far as needed:
//!
//! 1. `as read`: nothing.
//! 2. `module header`: the module's name, argument attributes (donation), visibility and the
//!    replica/partition counts cleared (the HLO proto names its module differently and keeps donation
//!    in its alias config).
//! 3. `inline calls`: `passes::simplify` (calls inlined, identity reshapes/converts/broadcasts
//!    removed), then only the entry function kept, named `main`: HLO and the serializers keep
//!    different sets of helper functions.
//! 4. `drop dead ops`: ops without regions whose results are unused are removed (the serializer
//!    drops them).
//! 5. `merge and place constants`: equal constants merged across the function, each placed in the
//!    innermost region holding all its uses right before its first user (the VHLO serializer merges
//!    and hoists them to the top of the function; the text keeps them where JAX wrote them).
//! 6. `spelling`: a `broadcast_in_dim` expanding size-1 dimensions as a reshape then a broadcast,
//!    a size-preserving one as a `reshape`, commutative operands in definition order (XLA writes
//!    these its own way).
//! 7. `chlo composites` (forms with `chlo.*` composites): signatures only, see [`signature`].
//! 8. `hlo decompositions` (HloModuleProto only): signatures only, see [`signature`].
//!
//! `SHOW_HLO_DIFFS=1` also prints where each HloModuleProto still differs before the signature-only
//! normalization.
//!
//! The test prints, per reader, how many programs matched and at which normalization, and fails on any
//! program that still differs after all of them (showing the first differing line).

use apu_compiler::ir::{Function, Module, Op, OpKind, Region, ValueId};
use apu_compiler::passes::simplify;
use apu_compiler::print::print_module;
use apu_compiler::program::{read_program, ProgramFormat};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// (file suffix, format, reader label) of every form; the first is the reference.
const FORMS: &[(&str, ProgramFormat, &str)] = &[
    ("stablehlo.mlir", ProgramFormat::Mlir, "text (pretty)"),
    ("stablehlo_generic.mlir", ProgramFormat::Mlir, "text (generic)"),
    ("vhlo_v1_0_0.mlirbc", ProgramFormat::Mlir, "VHLO 1.0.0"),
    ("vhlo_v1_10_0.mlirbc", ProgramFormat::Mlir, "VHLO 1.10.0"),
    ("vhlo_v1_13_7.mlirbc", ProgramFormat::Mlir, "VHLO 1.13.7"),
    ("vhlo_v1_17_0.mlirbc", ProgramFormat::Mlir, "VHLO 1.17.0"),
    ("hlo.pb", ProgramFormat::Hlo, "HloModuleProto"),
];

const NORMALIZATIONS: &[&str] = &[
    "as read",
    "module header",
    "inline calls",
    "drop dead ops",
    "merge and place constants",
    "spelling",
    "chlo composites",
    "hlo decompositions",
];

fn clear_header(m: &mut Module) {
    m.name.clear();
    m.num_replicas = 1;
    m.num_partitions = 1;
    for f in &mut m.functions {
        f.arg_attrs.clear();
        f.public = true;
    }
}

fn entry_only(m: &Module) -> Module {
    let mut m = simplify(m).expect("simplify");
    let mut entry = m.functions.swap_remove(m.entry);
    entry.name = "main".into();
    m.functions = vec![entry];
    m.entry = 0;
    m
}

/// Rewrites every use in `region` (and nested regions) through `subst`.
fn substitute(region: &mut Region, subst: &HashMap<ValueId, ValueId>) {
    let map = |v: &mut ValueId| {
        if let Some(n) = subst.get(v) {
            *v = *n;
        }
    };
    for op in &mut region.ops {
        op.operands.iter_mut().for_each(map);
        op.regions.iter_mut().for_each(|r| substitute(r, subst));
    }
    region.results.iter_mut().for_each(map);
}

fn uses(region: &Region, out: &mut HashMap<ValueId, usize>) {
    for op in &region.ops {
        op.operands.iter().for_each(|v| *out.entry(*v).or_default() += 1);
        op.regions.iter().for_each(|r| uses(r, out));
    }
    region.results.iter().for_each(|v| *out.entry(*v).or_default() += 1);
}

fn has_effect(op: &Op) -> bool {
    !op.regions.is_empty() || matches!(op.kind, OpKind::CustomCall { has_side_effect: true, .. })
}

fn drop_dead_in(region: &mut Region, used: &HashMap<ValueId, usize>) -> bool {
    let before = region.ops.len();
    region.ops.retain(|op| has_effect(op) || op.results.iter().any(|r| used.contains_key(r)));
    let mut changed = region.ops.len() != before;
    for op in &mut region.ops {
        for r in &mut op.regions {
            changed |= drop_dead_in(r, used);
        }
    }
    changed
}

/// Normalization `drop dead ops`.
fn drop_dead(m: &mut Module) {
    for f in &mut m.functions {
        loop {
            let mut used = HashMap::new();
            uses(&f.body, &mut used);
            if !drop_dead_in(&mut f.body, &used) {
                break;
            }
        }
    }
}

/// A constant's identity: its literal and type.
fn constant_key(f: &Function, op: &Op) -> Option<String> {
    match &op.kind {
        OpKind::Constant(lit) => Some(format!("{lit:?}|{}", f.value_type(op.results[0]))),
        _ => None,
    }
}

/// Removes every constant of `region` and the regions nested in it; equal ones map to the first.
fn take_constants(f: &Function, region: &mut Region, found: &mut Vec<(String, Op)>, subst: &mut HashMap<ValueId, ValueId>) {
    let mut kept = Vec::with_capacity(region.ops.len());
    for mut op in std::mem::take(&mut region.ops) {
        match constant_key(f, &op) {
            Some(key) => match found.iter().find(|(k, _)| *k == key) {
                Some((_, first)) => {
                    subst.insert(op.results[0], first.results[0]);
                }
                None => found.push((key, op)),
            },
            None => {
                for r in &mut op.regions {
                    take_constants(f, r, found, subst);
                }
                kept.push(op);
            }
        }
    }
    region.ops = kept;
}

fn region_uses(region: &Region, v: ValueId) -> bool {
    region.results.contains(&v) || region.ops.iter().any(|op| op_uses(op, v))
}

fn op_uses(op: &Op, v: ValueId) -> bool {
    op.operands.contains(&v) || op.regions.iter().any(|r| region_uses(r, v))
}

/// Puts each constant in the innermost region holding all its uses, right before its first user
/// there; constants before the same op are ordered by operand position, then by value.
fn place_constants(region: &mut Region, pending: Vec<(String, Op)>) {
    let n = region.ops.len();
    let mut before: Vec<Vec<(usize, String, Op)>> = (0..=n).map(|_| Vec::new()).collect();
    let mut down: BTreeMap<(usize, usize), Vec<(String, Op)>> = BTreeMap::new();
    for (key, c) in pending {
        let v = c.results[0];
        let users: Vec<usize> = (0..n).filter(|&i| op_uses(&region.ops[i], v)).collect();
        let in_results = region.results.iter().position(|&r| r == v);
        match users.as_slice() {
            [] => before[n].push((in_results.unwrap_or(usize::MAX), key, c)),
            &[i] if in_results.is_none() && !region.ops[i].operands.contains(&v) => {
                let inner: Vec<usize> = (0..region.ops[i].regions.len()).filter(|&r| region_uses(&region.ops[i].regions[r], v)).collect();
                match inner.as_slice() {
                    &[r] => down.entry((i, r)).or_default().push((key, c)),
                    _ => before[i].push((usize::MAX, key, c)),
                }
            }
            &[i, ..] => {
                let pos = region.ops[i].operands.iter().position(|&o| o == v).unwrap_or(usize::MAX);
                before[i].push((pos, key, c));
            }
        }
    }
    for ((i, r), cs) in down {
        place_constants(&mut region.ops[i].regions[r], cs);
    }
    let mut ops = Vec::with_capacity(n);
    for (i, op) in std::mem::take(&mut region.ops).into_iter().map(Some).chain([None]).enumerate() {
        let mut cs = std::mem::take(&mut before[i]);
        cs.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        ops.extend(cs.into_iter().map(|(_, _, c)| c));
        ops.extend(op);
    }
    region.ops = ops;
}

/// Normalization `merge and place constants`: the VHLO serializer merges equal constants and hoists
/// them to the top of the function, the text keeps them where JAX emitted them, XLA merges some.
fn merge_and_place_constants(m: &mut Module) {
    for f in &mut m.functions {
        let mut body = std::mem::take(&mut f.body);
        let (mut found, mut subst) = (Vec::new(), HashMap::new());
        take_constants(f, &mut body, &mut found, &mut subst);
        substitute(&mut body, &subst);
        place_constants(&mut body, found);
        f.body = body;
    }
}

/// Splits `broadcast_in_dim` that expands size-1 operand dimensions into a reshape dropping them and
/// a broadcast of the rest, the way XLA writes it (its broadcast cannot expand a dimension).
fn split_expanding_broadcasts(f: &mut Function, region: &mut Region) {
    let mut ops = Vec::with_capacity(region.ops.len());
    for mut op in std::mem::take(&mut region.ops) {
        for r in &mut op.regions {
            split_expanding_broadcasts(f, r);
        }
        let OpKind::BroadcastInDim { broadcast_dimensions: dims } = &op.kind else {
            ops.push(op);
            continue;
        };
        let (Some(from), Some(to)) = (f.value_type(op.operands[0]).as_tensor(), f.value_type(op.results[0]).as_tensor()) else {
            ops.push(op);
            continue;
        };
        let expanded = |i: usize| from.shape[i] == 1 && to.shape.get(dims[i] as usize).is_some_and(|&d| d != 1);
        if dims.len() != from.shape.len() || !(0..dims.len()).any(expanded) {
            ops.push(op);
            continue;
        }
        let keep: Vec<usize> = (0..dims.len()).filter(|&i| !expanded(i)).collect();
        let reshaped = apu_compiler::ir::Type::tensor(keep.iter().map(|&i| from.shape[i]).collect(), from.elem);
        let new_dims = keep.iter().map(|&i| dims[i]).collect();
        let mid = f.new_value(reshaped);
        ops.push(Op::new(OpKind::Reshape, vec![op.operands[0]], vec![mid]));
        op.kind = OpKind::BroadcastInDim { broadcast_dimensions: new_dims };
        op.operands = vec![mid];
        ops.push(op);
    }
    region.ops = ops;
}

/// Normalization `spelling`: a `broadcast_in_dim` that expands size-1 dimensions becomes a reshape
/// dropping them then a broadcast, one that only inserts size-1 dimensions in order becomes a reshape
/// (XLA writes both that way); the operands of commutative binary ops are put in definition order
/// (XLA sometimes swaps them).
fn spelling(m: &mut Module) {
    fn walk(f: &Function, region: &mut Region, order: &mut HashMap<ValueId, usize>) {
        for &p in &region.params {
            let n = order.len();
            order.insert(p, n);
        }
        for op in &mut region.ops {
            if let OpKind::BroadcastInDim { broadcast_dimensions } = &op.kind {
                let (from, to) = (f.value_type(op.operands[0]), f.value_type(op.results[0]));
                let (Some(from), Some(to)) = (from.as_tensor(), to.as_tensor()) else { continue };
                let increasing = broadcast_dimensions.windows(2).all(|w| w[0] < w[1]);
                if increasing && from.num_elements() == to.num_elements() {
                    op.kind = OpKind::Reshape;
                }
            }
            if let OpKind::Binary(b) = &op.kind {
                use apu_compiler::ir::BinaryOp as B;
                if matches!(b, B::Add | B::Multiply | B::Maximum | B::Minimum | B::And | B::Or | B::Xor) {
                    let key = |v: &ValueId| order.get(v).copied().unwrap_or(usize::MAX);
                    op.operands.sort_by_key(key);
                }
            }
            for r in &mut op.regions {
                walk(f, r, order);
            }
            for &r in &op.results {
                let n = order.len();
                order.insert(r, n);
            }
        }
    }
    for f in &mut m.functions {
        let mut body = std::mem::take(&mut f.body);
        split_expanding_broadcasts(f, &mut body);
        walk(f, &mut body, &mut HashMap::new());
        f.body = body;
    }
}

/// How a form was written, for the two normalizations that only apply to some forms.
#[derive(Clone, Copy)]
struct FormKind {
    is_hlo: bool,
    has_chlo_composites: bool,
}

fn has_chlo_composites(m: &Module) -> bool {
    fn walk(r: &Region) -> bool {
        r.ops.iter().any(|op| matches!(&op.kind, OpKind::Composite { name, .. } if name.starts_with("chlo.")) || op.regions.iter().any(walk))
    }
    m.functions.iter().any(|f| walk(&f.body))
}

/// The module after normalizations `0..=level`, printed (for the last two: its signature, when they
/// apply to this form).
fn normalized(m: &Module, level: usize, kind: FormKind) -> String {
    let signature_only = (level >= 6 && kind.has_chlo_composites) || (level >= 7 && kind.is_hlo);
    let mut m = m.clone();
    if level >= 1 {
        clear_header(&mut m);
    }
    if level >= 2 {
        m = entry_only(&m);
    }
    if level >= 3 {
        drop_dead(&mut m);
    }
    if level >= 4 {
        merge_and_place_constants(&mut m);
    }
    if level >= 5 {
        spelling(&mut m);
    }
    if signature_only {
        return signature(&m);
    }
    print_module(&m)
}

/// Normalization `chlo composites`: the serializer writes `chlo.*` ops (erf, sinh, top_k…) as
/// composites whose decomposition function is StableHLO's own; the text reader expands the same
/// `chlo.*` ops with apu's decompositions. Programs with such composites compare signatures; what the
/// two decompositions compute is checked against JAX's outputs by `runtime/tests/pipeline_samples.rs`.
///
/// Normalization `hlo decompositions` (HLO only): the HloModuleProto JAX hands over is XLA's own
/// lowering, which decomposes some ops differently (`floor_divide` via `sign`, `iota` of a smaller
/// shape then a broadcast, `pad` through slices, scan loops with their own counters). Only the entry
/// signature is compared; what the ops compute is checked by running the HLO form against JAX's
/// outputs in `runtime/tests/pipeline_samples.rs`.
///
/// Both print the entry function's parameter and result types only.
fn signature(m: &Module) -> String {
    let f = m.entry_function();
    let types = |ts: &[apu_compiler::ir::Type]| ts.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ");
    format!("({}) -> ({})", types(&f.param_types()), types(&f.result_types))
}

/// The reference's signature after normalizations `0..=level`.
fn signature_at(m: &Module, level: usize) -> String {
    normalized(m, level, FormKind { is_hlo: true, has_chlo_composites: true })
}

fn first_difference(a: &str, b: &str) -> String {
    for (i, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            return format!("line {}:\n  reference: {x}\n  this form: {y}", i + 1);
        }
    }
    format!("lengths differ: {} vs {} lines", a.lines().count(), b.lines().count())
}

fn program_dirs() -> Vec<PathBuf> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![here.join("../tests/fixtures/programs")];
    match here.ancestors().map(|d| d.join("shared/samples/jax")).find(|c| c.is_dir()) {
        Some(d) => dirs.push(d),
        None => eprintln!("skipped the shared samples: not found"),
    }
    dirs
}

#[test]
fn every_reader_builds_the_same_ir_up_to_named_normalizations() {
    // reader label -> normalization level -> programs equal from that level on.
    let mut counts: BTreeMap<&str, BTreeMap<usize, usize>> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut programs = 0;
    for dir in program_dirs() {
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".stablehlo.mlir").map(str::to_string))
            .collect();
        names.sort();
        for name in names {
            let read = |suffix: &str, format: ProgramFormat| -> Option<Result<Module, String>> {
                let bytes = std::fs::read(dir.join(format!("{name}.{suffix}"))).ok()?;
                Some(read_program(format, &bytes).map_err(|e| e.to_string()))
            };
            let reference = match read(FORMS[0].0, FORMS[0].1) {
                Some(Ok(m)) => m,
                Some(Err(e)) => {
                    failures.push(format!("{name}: the pretty text does not read: {e}"));
                    continue;
                }
                None => continue,
            };
            programs += 1;
            let reference_kind = FormKind { is_hlo: false, has_chlo_composites: false };
            for &(suffix, format, label) in &FORMS[1..] {
                let Some(module) = read(suffix, format) else { continue };
                let module = match module {
                    Ok(m) => m,
                    Err(e) => {
                        failures.push(format!("{name}.{suffix}: does not read: {e}"));
                        continue;
                    }
                };
                let kind = FormKind { is_hlo: format == ProgramFormat::Hlo, has_chlo_composites: has_chlo_composites(&module) };
                let same_at = |l: usize| {
                    let form = normalized(&module, l, kind);
                    // When this form compares signatures, so does the reference.
                    let reference = if form.starts_with('(') { signature_at(&reference, l) } else { normalized(&reference, l, reference_kind) };
                    form == reference
                };
                if std::env::var_os("SHOW_HLO_DIFFS").is_some() && kind.is_hlo && !same_at(5) {
                    println!("{name}: {}", first_difference(&normalized(&reference, 5, reference_kind), &normalized(&module, 5, kind)));
                }
                match (0..NORMALIZATIONS.len()).find(|&l| same_at(l)) {
                    Some(level) => *counts.entry(label).or_default().entry(level).or_default() += 1,
                    None => {
                        let last = 5; // the last normalization that keeps the ops
                        let diff = first_difference(&normalized(&reference, last, reference_kind), &normalized(&module, last, kind));
                        failures.push(format!("{}/{name}.{suffix}: differs after every normalization, {diff}", dir.display()));
                    }
                }
            }
        }
    }
    println!("{programs} programs; the pretty text is the reference");
    for (label, levels) in &counts {
        let total: usize = levels.values().sum();
        let detail: Vec<String> = levels.iter().map(|(l, n)| format!("{n} {}", NORMALIZATIONS[*l])).collect();
        println!("{label:>16}: {total} equal ({})", detail.join(", "));
    }
    assert!(programs >= 50, "fixtures missing: {programs} programs");
    assert!(failures.is_empty(), "{} forms differ:\n{}", failures.len(), failures.join("\n"));
}
