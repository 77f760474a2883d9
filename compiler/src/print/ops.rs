//! Per-op printing: pretty forms for the ops JAX prints that way, the generic form otherwise.

use super::{function_type, type_list, FuncPrinter};
use crate::ir::{Op, OpKind, Region, Type};
use crate::text::attr::{write_dict, Attr, I64List};
use crate::text::opdefs::{attrs_from_kind, compare_type_name, direction_name, precision_name, value_to_attr};
use std::fmt::Write;

struct Dict<'a>(&'a [(String, Attr)]);
impl std::fmt::Display for Dict<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write_dict(f, self.0)
    }
}

impl FuncPrinter<'_> {
    pub(crate) fn print_op(&mut self, op: &Op, depth: usize) {
        self.indent(depth);
        let in_types = self.types(&op.operands);
        let out_types = self.types(&op.results);
        let operands = self.names(&op.operands);
        let prefix = op.results.first().and_then(|v| self.prefix(*v)).unwrap_or_default();
        self.out.push_str(&prefix);
        let fn_ty = function_type(&in_types, &out_types);
        let all_same = out_types.len() == 1 && in_types.iter().all(|t| *t == out_types[0]);
        let mut line = String::new();
        let w = &mut line;
        match &op.kind {
            OpKind::Unary(_) | OpKind::Binary(_) | OpKind::Clamp if all_same && !in_types.is_empty() => {
                let _ = write!(w, "stablehlo.{} {operands} : {}", op.kind.name(), out_types[0]);
            }
            OpKind::Binary(crate::ir::BinaryOp::Complex)
                if out_types.len() == 1
                    && in_types.len() == 2
                    && in_types.iter().all(|t| {
                        matches!((t, &out_types[0]), (Type::Tensor(a), Type::Tensor(r)) if a.shape == r.shape && a.elem == r.elem.real_part() && r.elem.is_complex())
                    }) =>
            {
                let _ = write!(w, "stablehlo.complex {operands} : {}", out_types[0]);
            }
            OpKind::Unary(_) | OpKind::Binary(_) | OpKind::Clamp => {
                let _ = write!(w, "stablehlo.{} {operands} : {fn_ty}", op.kind.name());
            }
            OpKind::Compare { direction, compare_type } if op.operands.len() == 2 => {
                let _ = write!(w, "stablehlo.compare {}, {operands}", direction_name(*direction));
                if let Some(t) = compare_type {
                    let _ = write!(w, ", {}", compare_type_name(*t));
                }
                let _ = write!(w, " : {fn_ty}");
            }
            OpKind::Select if op.operands.len() == 3 && out_types.len() == 1 && in_types[1] == out_types[0] && in_types[2] == out_types[0] => {
                let _ = write!(w, "stablehlo.select {operands} : {}, {}", in_types[0], out_types[0]);
            }
            OpKind::Convert | OpKind::BitcastConvert | OpKind::Reshape | OpKind::Select => {
                let _ = write!(w, "stablehlo.{} {operands} : {fn_ty}", op.kind.name());
            }
            OpKind::Constant(lit) if out_types.len() == 1 && out_types[0] == Type::Tensor(lit.ty.clone()) => {
                let _ = write!(w, "stablehlo.constant {}", Attr::Dense(lit.clone()));
            }
            OpKind::Iota { dimension } if out_types.len() == 1 => {
                let _ = write!(w, "stablehlo.iota dim = {dimension} : {}", out_types[0]);
            }
            OpKind::BroadcastInDim { broadcast_dimensions: d } | OpKind::Transpose { permutation: d } => {
                let _ = write!(w, "stablehlo.{} {operands}, dims = {} : {fn_ty}", op.kind.name(), I64List(d));
            }
            OpKind::Slice { start_indices, limit_indices, strides } if start_indices.len() == limit_indices.len() && strides.len() == start_indices.len() => {
                let parts: Vec<String> = (0..start_indices.len())
                    .map(|i| {
                        if strides[i] == 1 {
                            format!("{}:{}", start_indices[i], limit_indices[i])
                        } else {
                            format!("{}:{}:{}", start_indices[i], limit_indices[i], strides[i])
                        }
                    })
                    .collect();
                let _ = write!(w, "stablehlo.slice {operands} [{}] : {fn_ty}", parts.join(", "));
            }
            OpKind::DynamicSlice { slice_sizes } => {
                let _ = write!(w, "stablehlo.dynamic_slice {operands}, sizes = {} : {fn_ty}", I64List(slice_sizes));
            }
            OpKind::DynamicUpdateSlice => {
                let _ = write!(w, "stablehlo.dynamic_update_slice {operands} : {fn_ty}");
            }
            OpKind::Concatenate { dimension } => {
                let _ = write!(w, "stablehlo.concatenate {operands}, dim = {dimension} : {fn_ty}");
            }
            OpKind::Pad { edge_padding_low, edge_padding_high, interior_padding } => {
                let _ = write!(
                    w,
                    "stablehlo.pad {operands}, low = {}, high = {}, interior = {} : {fn_ty}",
                    I64List(edge_padding_low),
                    I64List(edge_padding_high),
                    I64List(interior_padding)
                );
            }
            OpKind::DotGeneral { dims, precision, preferred_element_type: None } => {
                let _ = write!(w, "stablehlo.dot_general {operands}");
                if !dims.lhs_batch.is_empty() || !dims.rhs_batch.is_empty() {
                    let _ = write!(w, ", batching_dims = {} x {}", I64List(&dims.lhs_batch), I64List(&dims.rhs_batch));
                }
                let _ = write!(w, ", contracting_dims = {} x {}", I64List(&dims.lhs_contracting), I64List(&dims.rhs_contracting));
                if !precision.is_empty() {
                    let ps: Vec<&str> = precision.iter().map(|p| precision_name(*p)).collect();
                    let _ = write!(w, ", precision = [{}]", ps.join(", "));
                }
                let _ = write!(w, " : {fn_ty}");
            }
            OpKind::Convolution {
                window_strides,
                padding,
                lhs_dilation,
                rhs_dilation,
                window_reversal,
                dims,
                feature_group_count,
                batch_group_count,
                precision,
            } => {
                struct Dims<'a>(&'a crate::ir::ConvDims);
                impl std::fmt::Display for Dims<'_> {
                    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        crate::text::attr::write_conv_dims(f, self.0)
                    }
                }
                let _ = write!(w, "stablehlo.convolution({operands}) dim_numbers = {}", Dims(dims));
                let mut window = Vec::new();
                if !window_strides.is_empty() {
                    window.push(format!("stride = {}", I64List(window_strides)));
                }
                if !padding.is_empty() {
                    let pads: Vec<String> = padding.iter().map(|(lo, hi)| format!("[{lo}, {hi}]")).collect();
                    window.push(format!("pad = [{}]", pads.join(", ")));
                }
                if !lhs_dilation.is_empty() {
                    window.push(format!("lhs_dilate = {}", I64List(lhs_dilation)));
                }
                if !rhs_dilation.is_empty() {
                    window.push(format!("rhs_dilate = {}", I64List(rhs_dilation)));
                }
                if !window_reversal.is_empty() {
                    let rs: Vec<String> = window_reversal.iter().map(|b| b.to_string()).collect();
                    window.push(format!("reverse = [{}]", rs.join(", ")));
                }
                if !window.is_empty() {
                    let _ = write!(w, ", window = {{{}}}", window.join(", "));
                }
                let _ = write!(w, " {{batch_group_count = {batch_group_count} : i64, feature_group_count = {feature_group_count} : i64");
                if !precision.is_empty() {
                    let ps: Vec<String> = precision.iter().map(|p| format!("#stablehlo<precision {}>", precision_name(*p))).collect();
                    let _ = write!(w, ", precision_config = [{}]", ps.join(", "));
                }
                let _ = write!(w, "}} : {fn_ty}");
            }
            OpKind::Composite { name, decomposition, version, attributes } => {
                let _ = write!(w, "stablehlo.composite ");
                let mut attrs: Vec<(String, Attr)> = Vec::new();
                if !attributes.is_empty() {
                    let dict = attributes.iter().map(|(k, v)| (k.clone(), value_to_attr(v))).collect();
                    attrs.push(("composite_attributes".into(), Attr::Dict(dict)));
                }
                attrs.push(("decomposition".into(), Attr::SymbolRef(decomposition.clone())));
                if *version != 0 {
                    attrs.push(("version".into(), Attr::Int(*version as i128, Some(crate::ir::ElementType::S32))));
                }
                let _ = write!(w, "{} {operands} {} : {fn_ty}", Attr::Str(name.clone()), Dict(&attrs));
            }
            OpKind::Call { callee } => {
                let kw = if depth > 2 { "func.call" } else { "call" };
                let mut s = String::new();
                let _ = write!(s, "{}", super::Sym(callee));
                let _ = write!(w, "{kw} {s}({operands}) : {fn_ty}");
            }
            OpKind::GetTupleElement { index } if op.operands.len() == 1 => {
                let _ = write!(w, "stablehlo.get_tuple_element {operands}[{index}] : {fn_ty}");
            }
            OpKind::Reduce { dimensions } if op.regions.len() == 1 && op.operands.len() % 2 == 0 && !op.operands.is_empty() => {
                self.out.push_str(&line);
                self.print_reduce(op, dimensions, &fn_ty, depth);
                return;
            }
            OpKind::While if op.regions.len() == 2 && op.regions.iter().all(|r| r.params.len() == op.operands.len()) => {
                self.out.push_str(&line);
                self.print_while(op, &in_types, depth);
                return;
            }
            _ => {
                self.out.push_str(&line);
                self.print_generic(op, &operands, &fn_ty, depth);
                return;
            }
        }
        self.out.push_str(&line);
        self.out.push('\n');
    }

    fn print_generic(&mut self, op: &Op, operands: &str, fn_ty: &str, depth: usize) {
        let (name, attrs) = attrs_from_kind(&op.kind);
        let _ = write!(self.out, "\"{name}\"({operands})");
        if !attrs.is_empty() {
            let _ = write!(self.out, " <{}>", Dict(&attrs));
        }
        if !op.regions.is_empty() {
            self.out.push_str(" (");
            for (i, r) in op.regions.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.out.push_str("{\n");
                self.print_nested_region(r, depth, true);
                self.indent(depth);
                self.out.push('}');
            }
            self.out.push(')');
        }
        let _ = writeln!(self.out, " : {fn_ty}");
    }

    /// `applies` when the body is one binary op on the two block arguments, `reducer(...)` otherwise.
    fn print_reduce(&mut self, op: &Op, dimensions: &[i64], fn_ty: &str, depth: usize) {
        let n = op.operands.len() / 2;
        let pairs: Vec<String> = (0..n).map(|i| format!("({} init: {})", self.name(op.operands[i]), self.name(op.operands[n + i]))).collect();
        let _ = write!(self.out, "stablehlo.reduce{}", pairs.join(", "));
        let r = &op.regions[0];
        if let Some(name) = compact_reducer(r, n, self) {
            let _ = writeln!(self.out, " applies stablehlo.{name} across dimensions = {} : {fn_ty}", I64List(dimensions));
            return;
        }
        let _ = writeln!(self.out, " across dimensions = {} : {fn_ty}", I64List(dimensions));
        let saved = self.save_counters();
        for &p in &r.params {
            self.name_arg(p);
        }
        self.indent(depth);
        self.out.push_str(" reducer");
        for i in 0..n.min(r.params.len() / 2) {
            let (a, b) = (r.params[i], r.params[n + i]);
            let _ = write!(self.out, "({}: {}, {}: {}) ", self.name(a), self.ty(a), self.name(b), self.ty(b));
        }
        self.out.push_str("{\n");
        self.print_block_body(r, depth + 1, "stablehlo.return");
        self.restore_counters(saved);
        self.indent(depth);
        self.out.push_str("}\n");
    }

    fn print_while(&mut self, op: &Op, in_types: &[Type], depth: usize) {
        let (cond, body) = (&op.regions[0], &op.regions[1]);
        let names = self.name_iter_args(&cond.params);
        self.alias_names(&cond.params, &body.params);
        let inits: Vec<String> = names.iter().zip(&op.operands).map(|(n, &v)| format!("%{n} = {}", self.name(v))).collect();
        let _ = write!(self.out, "stablehlo.while({})", inits.join(", "));
        if !in_types.is_empty() {
            let _ = write!(self.out, " : {}", type_list(in_types));
        }
        self.out.push('\n');
        self.indent(depth);
        self.out.push_str("cond {\n");
        let saved = self.save_counters();
        self.print_block_body(cond, depth + 1, "stablehlo.return");
        self.restore_counters(saved);
        self.indent(depth);
        self.out.push_str("} do {\n");
        let saved = self.save_counters();
        self.print_block_body(body, depth + 1, "stablehlo.return");
        self.restore_counters(saved);
        self.indent(depth);
        self.out.push_str("}\n");
    }
}

/// The binary op name if `r` is `{ ^bb0(%a, %b): %c = op %a, %b; return %c }` on scalar tensors.
fn compact_reducer(r: &Region, n: usize, p: &FuncPrinter) -> Option<&'static str> {
    if n != 1 || r.params.len() != 2 || r.ops.len() != 1 || r.results.len() != 1 {
        return None;
    }
    let op = &r.ops[0];
    let OpKind::Binary(_) = op.kind else { return None };
    let same_types = p.ty(r.params[0]) == p.ty(r.params[1]) && p.ty(op.results[0]) == p.ty(r.params[0]);
    if op.operands == r.params && op.results == r.results && op.regions.is_empty() && same_types {
        Some(op.kind.name())
    } else {
        None
    }
}
