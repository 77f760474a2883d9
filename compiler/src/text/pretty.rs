//! Pretty (custom assembly) forms of the ops JAX prints, e.g. `stablehlo.add %a, %b : tensor<4xf32>`,
//! `stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : ...`. Each form is
//! turned into the same [`OpSyntax`] (op name + generic attribute names) that the generic form gives.

use super::attr::{Attr, SynType};
use super::lexer::{TokKind, Token};
use super::opdefs::{binary_from_name, unary_from_name};
use super::ops::{ArgSyntax, FuncState, OpSyntax};
use super::parser::Parser;
use crate::ir::{ElementType, Op, OpKind, Region, Type};
use crate::Result;

fn i64_array(v: Vec<i64>) -> Attr {
    Attr::DenseArray(ElementType::S64, v.into_iter().map(|x| x as i128).collect())
}

impl<'a> Parser<'a> {
    /// The token after the current one, without consuming anything.
    fn peek2(&self) -> Result<Token> {
        let mut lx = self.lx.clone();
        lx.next_token()
    }

    /// `%a, %b, ...` — stops before a `, keyword` tail (consuming that comma) or at anything else.
    fn parse_values_until_keyword(&mut self, fs: &FuncState) -> Result<Vec<crate::ir::ValueId>> {
        let mut out = Vec::new();
        if self.tok.kind != TokKind::PercentId {
            return Ok(out);
        }
        loop {
            out.push(self.parse_operand(fs)?);
            if !self.at_punct(",") {
                return Ok(out);
            }
            let next = self.peek2()?;
            self.bump()?; // ','
            if next.kind != TokKind::PercentId {
                return Ok(out);
            }
        }
    }

    fn parse_opt_attr_dict(&mut self, syn: &mut OpSyntax) -> Result<()> {
        if self.at_punct("{") {
            let d = self.parse_dict()?;
            syn.attrs.extend(d);
        }
        Ok(())
    }

    /// `: t` (every operand and the result have type t), `: t -> r`, `: t1, t2 -> r` (one type per
    /// operand) or `: (ts) -> rs`.
    fn parse_uniform_or_function_types(&mut self, syn: &mut OpSyntax) -> Result<()> {
        self.expect_punct(":")?;
        let start = self.tok.start;
        match self.parse_syn_type()? {
            SynType::Function(ins, outs) => {
                syn.operand_types = Some(ins);
                syn.result_types = outs;
            }
            SynType::Value(t) if self.at_punct(",") => {
                // `: t1, t2 -> r` (CHLO binary ops): one type per operand, then the results.
                let mut ins = vec![t];
                while self.eat_punct(",")? {
                    ins.push(self.parse_type()?);
                }
                self.expect_punct("->")?;
                syn.operand_types = Some(ins);
                syn.result_types = self.parse_result_types()?;
            }
            SynType::Value(t) => {
                syn.operand_types = Some(vec![t.clone(); syn.operands.len()]);
                if self.eat_punct("->")? {
                    syn.result_types = self.parse_result_types()?;
                } else {
                    syn.result_types = vec![t];
                }
            }
            other => return Err(self.err_at(start, format!("expected a tensor or function type, found {other}"))),
        }
        Ok(())
    }

    /// `: (ts) -> rs` only.
    pub(super) fn parse_function_types(&mut self, syn: &mut OpSyntax) -> Result<()> {
        self.expect_punct(":")?;
        let start = self.tok.start;
        match self.parse_syn_type()? {
            SynType::Function(ins, outs) => {
                syn.operand_types = Some(ins);
                syn.result_types = outs;
                Ok(())
            }
            other => Err(self.err_at(start, format!("expected a function type (operands) -> results, found {other}"))),
        }
    }

    /// `: t1, t2, ...`.
    fn parse_type_list_after_colon(&mut self) -> Result<Vec<Type>> {
        self.expect_punct(":")?;
        let mut ts = vec![self.parse_type()?];
        while self.eat_punct(",")? {
            ts.push(self.parse_type()?);
        }
        Ok(ts)
    }

    /// `keyword = [1, 2]`.
    fn parse_kw_list(&mut self, kw: &str) -> Result<Vec<i64>> {
        self.expect_id(kw)?;
        self.expect_punct("=")?;
        self.parse_i64_list()
    }

    fn parse_kw_int(&mut self, kw: &str) -> Result<i64> {
        self.expect_id(kw)?;
        self.expect_punct("=")?;
        self.parse_i64()
    }

    pub fn parse_pretty_op(&mut self, fs: &mut FuncState, name: String, pos: usize) -> Result<OpSyntax> {
        let name = match name.as_str() {
            "return" => "func.return".to_string(),
            "call" => "func.call".to_string(),
            _ => name,
        };
        let mut syn = OpSyntax::new(name.clone(), pos);
        let short = name.split_once('.').map(|x| x.1).unwrap_or(&name).to_string();
        let dialect = name.split_once('.').map(|x| x.0).unwrap_or("");
        match (dialect, short.as_str()) {
            ("sdy", "manual_computation") => self.parse_manual_computation(fs, &mut syn)?,
            // `sdy.sharding_constraint %x <@mesh, [...]> : type` (and `sdy.reshard`): where a value
            // should live. The global program apu runs is the same with or without them, as in
            // the VHLO reader: a same-shape reshape, which the plan removes.
            ("sdy", "sharding_constraint" | "reshard") => {
                syn.operands.push(self.parse_operand(fs)?);
                self.parse_tensor_sharding()?;
                self.parse_opt_attr_dict(&mut syn)?;
                self.parse_uniform_or_function_types(&mut syn)?;
                syn.kind = Some(crate::ir::OpKind::Reshape);
            }
            ("func" | "stablehlo" | "mhlo" | "sdy", "return") => {
                syn.operands = self.parse_values_until_keyword(fs)?;
                self.parse_opt_attr_dict(&mut syn)?;
                if !syn.operands.is_empty() {
                    syn.operand_types = Some(self.parse_type_list_after_colon()?);
                }
            }
            ("func", "call") => {
                let callee = self.expect_kind(TokKind::AtId, "a callee such as @f")?.text;
                syn.attrs.push(("callee".into(), Attr::SymbolRef(callee)));
                self.expect_punct("(")?;
                syn.operands = self.comma_list(")", |p| p.parse_operand(fs))?;
                self.parse_opt_attr_dict(&mut syn)?;
                self.parse_function_types(&mut syn)?;
            }
            ("chlo", "top_k") => {
                self.expect_punct("(")?;
                syn.operands.push(self.parse_operand(fs)?);
                self.expect_punct(",")?;
                let k = self.parse_kw_int("k")?;
                self.expect_punct(")")?;
                syn.attrs.push(("k".into(), Attr::Int(k as i128, Some(ElementType::S64))));
                self.parse_opt_attr_dict(&mut syn)?;
                self.parse_uniform_or_function_types(&mut syn)?;
            }
            ("chlo", _) => {
                syn.operands = self.parse_values_until_keyword(fs)?;
                self.parse_opt_attr_dict(&mut syn)?;
                self.parse_uniform_or_function_types(&mut syn)?;
            }
            ("stablehlo" | "mhlo", s) => self.parse_stablehlo_pretty(fs, s, &mut syn)?,
            _ => return Err(self.unimplemented_at(pos, format!("op '{name}' is not supported by apu"))),
        }
        Ok(syn)
    }

    fn parse_stablehlo_pretty(&mut self, fs: &mut FuncState, short: &str, syn: &mut OpSyntax) -> Result<()> {
        if unary_from_name(short).is_some() || binary_from_name(short).is_some() {
            syn.operands = self.parse_values_until_keyword(fs)?;
            self.parse_opt_attr_dict(syn)?;
            self.parse_uniform_or_function_types(syn)?;
            if short == "complex" && syn.result_types.len() == 1 && syn.operand_types.as_ref() == Some(&vec![syn.result_types[0].clone(); 2]) {
                // `complex %re, %im : tensor<Nxcomplex<f32>>` names only the result type.
                if let Type::Tensor(t) = &syn.result_types[0] {
                    let real = Type::Tensor(crate::ir::TensorType::new(t.shape.clone(), t.elem.real_part()));
                    syn.operand_types = Some(vec![real.clone(), real]);
                }
            }
            return Ok(());
        }
        match short {
            "constant" => {
                self.parse_opt_attr_dict(syn)?;
                let start = self.tok.start;
                let value = self.parse_attr()?;
                match &value {
                    Attr::Dense(lit) => syn.result_types = vec![Type::Tensor(lit.ty.clone())],
                    other => return Err(self.err_at(start, format!("expected dense<...> : tensor<...>, found {}", other.kind_name()))),
                }
                syn.attrs.push(("value".into(), value));
            }
            "compare" => {
                let dir = self.expect_kind(TokKind::BareId, "a comparison direction (EQ, NE, LT, LE, GT, GE)")?;
                syn.attrs.push(("comparison_direction".into(), Attr::Enum("comparison_direction".into(), dir.text)));
                self.expect_punct(",")?;
                syn.operands.push(self.parse_operand(fs)?);
                self.expect_punct(",")?;
                syn.operands.push(self.parse_operand(fs)?);
                if self.eat_punct(",")? {
                    let t = self.expect_kind(TokKind::BareId, "a comparison type (FLOAT, TOTALORDER, SIGNED, UNSIGNED)")?;
                    syn.attrs.push(("compare_type".into(), Attr::Enum("comparison_type".into(), t.text)));
                }
                self.parse_opt_attr_dict(syn)?;
                self.parse_function_types(syn)?;
            }
            "select" => {
                syn.operands = self.parse_values_until_keyword(fs)?;
                self.parse_opt_attr_dict(syn)?;
                if self.peek_is_function_type()? {
                    self.parse_function_types(syn)?;
                } else {
                    let ts = self.parse_type_list_after_colon()?;
                    if ts.len() != 2 || syn.operands.len() != 3 {
                        return Err(self.err_at(syn.pos, "stablehlo.select expects three operands and ': pred_type, result_type'"));
                    }
                    syn.operand_types = Some(vec![ts[0].clone(), ts[1].clone(), ts[1].clone()]);
                    syn.result_types = vec![ts[1].clone()];
                }
            }
            "clamp" => {
                syn.operands = self.parse_values_until_keyword(fs)?;
                self.parse_opt_attr_dict(syn)?;
                self.parse_uniform_or_function_types(syn)?;
            }
            "iota" => {
                let d = self.parse_kw_int("dim")?;
                syn.attrs.push(("iota_dimension".into(), Attr::Int(d as i128, Some(ElementType::S64))));
                self.parse_opt_attr_dict(syn)?;
                syn.result_types = vec![self.parse_colon_single_type()?];
            }
            "broadcast_in_dim" | "transpose" | "reverse" => {
                syn.operands = self.parse_values_until_keyword(fs)?;
                let dims = self.parse_kw_list("dims")?;
                let key = match short {
                    "broadcast_in_dim" => "broadcast_dimensions",
                    "transpose" => "permutation",
                    _ => "dimensions",
                };
                syn.attrs.push((key.into(), i64_array(dims)));
                self.parse_opt_attr_dict(syn)?;
                self.parse_uniform_or_function_types(syn)?;
            }
            "slice" => {
                syn.operands.push(self.parse_operand(fs)?);
                self.expect_punct("[")?;
                let triples = self.comma_list("]", |p| {
                    let start = p.parse_i64()?;
                    p.expect_punct(":")?;
                    let limit = p.parse_i64()?;
                    let stride = if p.eat_punct(":")? { p.parse_i64()? } else { 1 };
                    Ok((start, limit, stride))
                })?;
                syn.attrs.push(("start_indices".into(), i64_array(triples.iter().map(|t| t.0).collect())));
                syn.attrs.push(("limit_indices".into(), i64_array(triples.iter().map(|t| t.1).collect())));
                syn.attrs.push(("strides".into(), i64_array(triples.iter().map(|t| t.2).collect())));
                self.parse_opt_attr_dict(syn)?;
                self.parse_uniform_or_function_types(syn)?;
            }
            "dynamic_slice" => {
                syn.operands = self.parse_values_until_keyword(fs)?;
                let sizes = self.parse_kw_list("sizes")?;
                syn.attrs.push(("slice_sizes".into(), i64_array(sizes)));
                self.parse_opt_attr_dict(syn)?;
                self.parse_function_types(syn)?;
            }
            "concatenate" => {
                syn.operands = self.parse_values_until_keyword(fs)?;
                let d = self.parse_kw_int("dim")?;
                syn.attrs.push(("dimension".into(), Attr::Int(d as i128, Some(ElementType::S64))));
                self.parse_opt_attr_dict(syn)?;
                self.parse_function_types(syn)?;
            }
            "pad" => {
                syn.operands = self.parse_values_until_keyword(fs)?;
                let low = self.parse_kw_list("low")?;
                self.expect_punct(",")?;
                let high = self.parse_kw_list("high")?;
                self.expect_punct(",")?;
                let interior = self.parse_kw_list("interior")?;
                syn.attrs.push(("edge_padding_low".into(), i64_array(low)));
                syn.attrs.push(("edge_padding_high".into(), i64_array(high)));
                syn.attrs.push(("interior_padding".into(), i64_array(interior)));
                self.parse_opt_attr_dict(syn)?;
                self.parse_function_types(syn)?;
            }
            "get_dimension_size" => {
                syn.operands = self.parse_values_until_keyword(fs)?;
                let d = self.parse_kw_int("dim")?;
                syn.attrs.push(("dimension".into(), Attr::Int(d as i128, Some(ElementType::S64))));
                self.parse_opt_attr_dict(syn)?;
                self.parse_function_types(syn)?;
            }
            "reduce_precision" => {
                syn.operands = self.parse_values_until_keyword(fs)?;
                self.expect_id("format")?;
                self.expect_punct("=")?;
                let f = self.expect_kind(TokKind::BareId, "a format such as e5m10")?;
                let (e, m) = f
                    .text
                    .strip_prefix('e')
                    .and_then(|r| r.split_once('m'))
                    .and_then(|(e, m)| Some((e.parse::<i128>().ok()?, m.parse::<i128>().ok()?)))
                    .ok_or_else(|| self.err_at(f.start, "expected a format such as e5m10"))?;
                syn.attrs.push(("exponent_bits".into(), Attr::Int(e, Some(ElementType::S32))));
                syn.attrs.push(("mantissa_bits".into(), Attr::Int(m, Some(ElementType::S32))));
                self.parse_opt_attr_dict(syn)?;
                self.parse_uniform_or_function_types(syn)?;
            }
            "fft" => {
                syn.operands = self.parse_values_until_keyword(fs)?;
                self.expect_id("type")?;
                self.expect_punct("=")?;
                let t = self.expect_kind(TokKind::BareId, "an FFT type (FFT, IFFT, RFFT, IRFFT)")?;
                syn.attrs.push(("fft_type".into(), Attr::Enum("fft_type".into(), t.text)));
                self.expect_punct(",")?;
                let len = self.parse_kw_list("length")?;
                syn.attrs.push(("fft_length".into(), i64_array(len)));
                self.parse_opt_attr_dict(syn)?;
                self.parse_function_types(syn)?;
            }
            "dot_general" | "dot" => self.parse_dot_pretty(fs, short, syn)?,
            "convolution" => self.parse_convolution_pretty(fs, syn)?,
            "reduce" => self.parse_reduce_pretty(fs, syn)?,
            "while" => self.parse_while_pretty(fs, syn)?,
            "get_tuple_element" => {
                syn.operands.push(self.parse_operand(fs)?);
                self.expect_punct("[")?;
                let i = self.parse_i64()?;
                self.expect_punct("]")?;
                syn.attrs.push(("index".into(), Attr::Int(i as i128, Some(ElementType::S32))));
                self.parse_opt_attr_dict(syn)?;
                self.parse_function_types(syn)?;
            }
            "tuple" => {
                syn.operands = self.parse_values_until_keyword(fs)?;
                self.parse_opt_attr_dict(syn)?;
                syn.result_types = vec![self.parse_colon_single_type()?];
            }
            "optimization_barrier" | "after_all" => {
                syn.operands = self.parse_values_until_keyword(fs)?;
                self.parse_opt_attr_dict(syn)?;
                let ts = self.parse_type_list_after_colon()?;
                if short == "after_all" {
                    syn.result_types = ts;
                } else {
                    syn.operand_types = Some(ts.clone());
                    syn.result_types = ts;
                }
            }
            "create_token" | "replica_id" | "partition_id" => {
                self.parse_opt_attr_dict(syn)?;
                syn.result_types = vec![self.parse_colon_single_type()?];
            }
            "composite" => {
                let n = self.expect_kind(TokKind::String, "the composite name string")?;
                syn.attrs.push(("name".into(), Attr::Str(n.text)));
                syn.operands = self.parse_values_until_keyword(fs)?;
                self.parse_opt_attr_dict(syn)?;
                self.parse_function_types(syn)?;
            }
            "custom_call" => {
                let t = self.expect_kind(TokKind::AtId, "a call target such as @foo")?;
                syn.attrs.push(("call_target_name".into(), Attr::Str(t.text)));
                self.expect_punct("(")?;
                syn.operands = self.comma_list(")", |p| p.parse_operand(fs))?;
                self.parse_opt_attr_dict(syn)?;
                self.parse_function_types(syn)?;
            }
            "rng_bit_generator" | "rng" => {
                syn.operands = self.parse_values_until_keyword(fs)?;
                let (kw, key, kind) = if short == "rng" {
                    ("distribution", "rng_distribution", "rng_distribution")
                } else {
                    ("algorithm", "rng_algorithm", "rng_algorithm")
                };
                self.expect_id(kw)?;
                self.expect_punct("=")?;
                let v = self.expect_kind(TokKind::BareId, "an enum value")?.text;
                syn.attrs.push((key.into(), Attr::Enum(kind.into(), v)));
                self.parse_opt_attr_dict(syn)?;
                self.parse_function_types(syn)?;
            }
            _ => {
                // Ops whose custom form is just `operands attr-dict : types`.
                syn.operands = self.parse_values_until_keyword(fs)?;
                self.parse_opt_attr_dict(syn)?;
                self.parse_uniform_or_function_types(syn)?;
            }
        }
        Ok(())
    }

    fn parse_colon_single_type(&mut self) -> Result<Type> {
        self.expect_punct(":")?;
        self.parse_type()
    }

    fn peek_is_function_type(&mut self) -> Result<bool> {
        Ok(self.at_punct(":") && self.peek2()?.is_punct("("))
    }

    /// `%a, %b, [batching_dims = [0] x [0],] contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT]`.
    fn parse_dot_pretty(&mut self, fs: &mut FuncState, short: &str, syn: &mut OpSyntax) -> Result<()> {
        syn.operands = self.parse_values_until_keyword(fs)?;
        let mut fields: Vec<(String, Attr)> = Vec::new();
        let list = |v: Vec<i64>| Attr::Array(v.into_iter().map(|x| Attr::Int(x as i128, None)).collect());
        loop {
            if self.tok.kind != TokKind::BareId {
                break;
            }
            let kw = self.bump()?;
            self.expect_punct("=")?;
            match kw.text.as_str() {
                "batching_dims" | "contracting_dims" if short == "dot_general" => {
                    let l = self.parse_i64_list()?;
                    self.expect_id("x")?;
                    let r = self.parse_i64_list()?;
                    let which = if kw.text == "batching_dims" { "batching" } else { "contracting" };
                    fields.push((format!("lhs_{which}_dimensions"), list(l)));
                    fields.push((format!("rhs_{which}_dimensions"), list(r)));
                }
                "precision" => {
                    self.expect_punct("[")?;
                    let ps = self.comma_list("]", |p| {
                        let t = p.expect_kind(TokKind::BareId, "a precision (DEFAULT, HIGH, HIGHEST)")?;
                        Ok(Attr::Enum("precision".into(), t.text))
                    })?;
                    syn.attrs.push(("precision_config".into(), Attr::Array(ps)));
                }
                // Checked and not kept, as the VHLO reader does (vhlo/dot_algorithm.rs): apu
                // multiplies at the operands' precision, accumulating at least as wide as asked.
                "algorithm" if short == "dot_general" => {
                    self.expect_punct("<")?;
                    self.comma_list(">", |p| {
                        let key = p.expect_kind(TokKind::BareId, "a dot algorithm field")?;
                        p.expect_punct("=")?;
                        let value = p.bump()?;
                        let ok = match key.text.as_str() {
                            "lhs_precision_type" | "rhs_precision_type" | "accumulation_type" => {
                                value.kind == TokKind::BareId && Self::element_type_named(&value.text).is_some_and(|e| e.is_float())
                            }
                            "lhs_component_count" | "rhs_component_count" | "num_primitive_operations" => {
                                value.kind == TokKind::Integer && value.text.parse::<i64>().is_ok_and(|n| n >= 1)
                            }
                            "allow_imprecise_accumulation" => matches!(value.text.as_str(), "true" | "false"),
                            _ => return Err(p.err_at(key.start, format!("unknown dot algorithm field '{}'", key.text))),
                        };
                        match ok {
                            true => Ok(()),
                            false => Err(p.err_at(value.start, format!("invalid dot algorithm {} = {}", key.text, value.text))),
                        }
                    })?;
                }
                other => return Err(self.err_at(kw.start, format!("unexpected '{other}' in {}", syn.name))),
            }
            if !self.eat_punct(",")? {
                break;
            }
        }
        if short == "dot_general" {
            // Keep the canonical field order whatever order the text used.
            let order = ["lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions", "rhs_contracting_dimensions"];
            fields.sort_by_key(|(k, _)| order.iter().position(|o| o == k));
            syn.attrs.push(("dot_dimension_numbers".into(), Attr::Struct("dot".into(), fields)));
        }
        self.parse_opt_attr_dict(syn)?;
        self.parse_function_types(syn)
    }

    /// `(%lhs, %rhs) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {...} {attrs} : (...) -> ...`.
    fn parse_convolution_pretty(&mut self, fs: &mut FuncState, syn: &mut OpSyntax) -> Result<()> {
        self.expect_punct("(")?;
        syn.operands = self.comma_list(")", |p| p.parse_operand(fs))?;
        self.expect_id("dim_numbers")?;
        self.expect_punct("=")?;
        let dims = self.parse_conv_dims()?;
        syn.attrs.push(("dimension_numbers".into(), Attr::Conv(dims)));
        if self.eat_punct(",")? {
            self.expect_id("window")?;
            self.expect_punct("=")?;
            let w = self.parse_dict()?;
            for (k, v) in w {
                let key = match k.as_str() {
                    "stride" => "window_strides",
                    "pad" => "padding",
                    "lhs_dilate" => "lhs_dilation",
                    "rhs_dilate" => "rhs_dilation",
                    "reverse" => "window_reversal",
                    other => return Err(self.err_at(syn.pos, format!("unknown convolution window field '{other}'"))),
                };
                syn.attrs.push((key.into(), v));
            }
        }
        self.parse_opt_attr_dict(syn)?;
        self.parse_function_types(syn)
    }

    /// Both `reduce` forms: `applies <op>` and `reducer(...) {...}`.
    fn parse_reduce_pretty(&mut self, fs: &mut FuncState, syn: &mut OpSyntax) -> Result<()> {
        let mut inputs = Vec::new();
        let mut inits = Vec::new();
        loop {
            self.expect_punct("(")?;
            inputs.push(self.parse_operand(fs)?);
            self.expect_id("init")?;
            self.expect_punct(":")?;
            inits.push(self.parse_operand(fs)?);
            self.expect_punct(")")?;
            if !self.eat_punct(",")? {
                break;
            }
        }
        syn.operands = inputs.iter().chain(inits.iter()).copied().collect();
        let mut applies: Option<(String, usize)> = None;
        if self.eat_id("applies")? {
            let t = self.expect_kind(TokKind::BareId, "the reducing op such as stablehlo.add")?;
            applies = Some((t.text, t.start));
        }
        self.expect_id("across")?;
        let dims = self.parse_kw_list("dimensions")?;
        syn.attrs.push(("dimensions".into(), i64_array(dims)));
        self.parse_opt_attr_dict(syn)?;
        self.parse_function_types(syn)?;
        let init_types: Vec<Type> = inits.iter().map(|v| fs.value_type(*v).clone()).collect();
        let region = match applies {
            Some((op_name, op_pos)) => {
                if inputs.len() != 1 {
                    return Err(self.err_at(op_pos, "'applies' form of reduce needs exactly one input"));
                }
                let bin = op_name
                    .strip_prefix("stablehlo.")
                    .and_then(binary_from_name)
                    .ok_or_else(|| self.unimplemented_at(op_pos, format!("reduce applies {op_name}: only binary StableHLO ops are supported")))?;
                let ty = init_types[0].clone();
                let a = fs.new_value(ty.clone());
                let b = fs.new_value(ty.clone());
                let r = fs.new_value(ty);
                let location = self.placeholder_location(self.text_loc(op_pos));
                Region { params: vec![a, b], ops: vec![Op { kind: OpKind::Binary(bin), operands: vec![a, b], results: vec![r], regions: Vec::new(), location }], results: vec![r] }
            }
            None => {
                self.expect_id("reducer")?;
                let mut firsts = Vec::new();
                let mut seconds = Vec::new();
                for _ in 0..inputs.len() {
                    self.expect_punct("(")?;
                    let mut pair = Vec::new();
                    for k in 0..2 {
                        if k == 1 {
                            self.expect_punct(",")?;
                        }
                        let t = self.expect_kind(TokKind::PercentId, "a reducer argument")?;
                        self.expect_punct(":")?;
                        let ty = self.parse_type()?;
                        self.parse_opt_loc()?;
                        pair.push(ArgSyntax { name: t.text, ty, pos: t.start });
                    }
                    self.expect_punct(")")?;
                    seconds.push(pair.pop().expect("two reducer args"));
                    firsts.push(pair.pop().expect("two reducer args"));
                }
                firsts.extend(seconds);
                self.parse_region(fs, Some(firsts))?
            }
        };
        syn.regions.push(region);
        Ok(())
    }

    /// `while(%iterArg = %x, ...) : types [attributes {...}] cond { ... } do { ... }`.
    fn parse_while_pretty(&mut self, fs: &mut FuncState, syn: &mut OpSyntax) -> Result<()> {
        self.expect_punct("(")?;
        let pairs = self.comma_list(")", |p| {
            let n = p.expect_kind(TokKind::PercentId, "a loop variable such as %iterArg")?;
            p.expect_punct("=")?;
            let v = p.parse_operand(fs)?;
            Ok((n, v))
        })?;
        syn.operands = pairs.iter().map(|(_, v)| *v).collect();
        let types = if pairs.is_empty() { Vec::new() } else { self.parse_type_list_after_colon()? };
        if types.len() != pairs.len() {
            return Err(self.err_at(syn.pos, format!("while has {} loop variables but {} types", pairs.len(), types.len())));
        }
        if self.eat_id("attributes")? {
            let d = self.parse_dict()?;
            syn.attrs.extend(d);
        }
        syn.operand_types = Some(types.clone());
        syn.result_types = types.clone();
        let args = |pairs: &[(Token, crate::ir::ValueId)]| -> Vec<ArgSyntax> {
            pairs.iter().zip(&types).map(|((n, _), t)| ArgSyntax { name: n.text.clone(), ty: t.clone(), pos: n.start }).collect()
        };
        self.expect_id("cond")?;
        let cond = self.parse_region(fs, Some(args(&pairs)))?;
        self.expect_id("do")?;
        let body = self.parse_region(fs, Some(args(&pairs)))?;
        syn.regions = vec![cond, body];
        Ok(())
    }
}
