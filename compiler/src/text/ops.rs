//! Modules, functions, regions and the generic op form (`"dialect.op"(%a) <{...}> ({...}) {...} : (...) -> ...`).
//! Pretty forms (in `pretty.rs`) produce the same [`OpSyntax`], so both spellings build the same IR.

use super::attr::{Attr, SynType};
use super::lexer::TokKind;
use super::opdefs::{kind_from_attrs, Attrs, OpShape};
use super::parser::{LocSyn, Parser};
use crate::ir::{ArgAttrs, Function, Location, Module, Op, OpKind, Region, Type, ValueId};
use crate::{Error, Result};
use std::collections::HashMap;

const REGION_WEIGHT: usize = 4;

/// The function being built: its value arena and the SSA names in scope (one map per region).
pub struct FuncState {
    pub func: Function,
    scopes: Vec<HashMap<String, Vec<ValueId>>>,
}

impl FuncState {
    pub fn new(name: String) -> Self {
        FuncState { func: Function::new(name), scopes: vec![HashMap::new()] }
    }
    pub fn value_type(&self, v: ValueId) -> &Type {
        self.func.value_type(v)
    }
    pub fn new_value(&mut self, ty: Type) -> ValueId {
        self.func.new_value(ty)
    }
    fn define(&mut self, name: &str, values: Vec<ValueId>) -> std::result::Result<(), String> {
        let scope = self.scopes.last_mut().expect("function scope");
        if scope.contains_key(name) {
            return Err(format!("redefinition of %{name}"));
        }
        scope.insert(name.to_string(), values);
        Ok(())
    }
    /// Resolves `name` or `name#i`.
    fn lookup(&self, text: &str) -> std::result::Result<ValueId, String> {
        let (name, index) = match text.split_once('#') {
            Some((n, i)) => (n, Some(i.parse::<usize>().map_err(|_| format!("bad result index in %{text}"))?)),
            None => (text, None),
        };
        for scope in self.scopes.iter().rev() {
            if let Some(vals) = scope.get(name) {
                return match index {
                    Some(i) => vals.get(i).copied().ok_or_else(|| format!("%{name} has {} results, no #{i}", vals.len())),
                    None if vals.len() == 1 => Ok(vals[0]),
                    None => Err(format!("%{name} has {} results; write %{name}#<index>", vals.len())),
                };
            }
        }
        Err(format!("use of undefined value %{text}"))
    }
    fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }
    fn pop_scope(&mut self) {
        self.scopes.pop();
    }
}

/// One op as parsed, before it becomes IR.
pub struct OpSyntax {
    pub name: String,
    pub pos: usize,
    pub operands: Vec<ValueId>,
    /// Operand types when the text gives them (checked against the values' types).
    pub operand_types: Option<Vec<Type>>,
    pub result_types: Vec<Type>,
    pub attrs: Vec<(String, Attr)>,
    pub regions: Vec<Region>,
    pub loc: Option<LocSyn>,
    /// The op's kind when its syntax gave it directly (`sdy.manual_computation`).
    pub kind: Option<OpKind>,
}

impl OpSyntax {
    pub fn new(name: impl Into<String>, pos: usize) -> Self {
        OpSyntax {
            name: name.into(),
            pos,
            operands: Vec::new(),
            operand_types: None,
            result_types: Vec::new(),
            attrs: Vec::new(),
            regions: Vec::new(),
            loc: None,
            kind: None,
        }
    }
}

/// A block argument as written: name, type, position.
pub struct ArgSyntax {
    pub name: String,
    pub ty: Type,
    pub pos: usize,
}

fn is_terminator(name: &str) -> bool {
    matches!(name, "func.return" | "stablehlo.return" | "mhlo.return" | "sdy.return")
}

impl<'a> Parser<'a> {
    // ---- top level ----

    pub fn parse_top_level(&mut self) -> Result<Module> {
        let mut module: Option<Module> = None;
        let mut implicit = Module { name: String::new(), num_replicas: 1, num_partitions: 1, ..Default::default() };
        loop {
            match self.tok.kind {
                TokKind::Eof => break,
                TokKind::HashId => self.parse_alias_def()?,
                TokKind::BangId => {
                    let t = self.bump()?;
                    self.expect_punct("=")?;
                    let ty = self.parse_type()?;
                    self.type_aliases.insert(t.text, ty);
                }
                _ if self.at_id("module") || (self.tok.kind == TokKind::String && self.tok.text == "builtin.module") => {
                    if module.is_some() || !implicit.functions.is_empty() {
                        return Err(self.err_at(self.tok.start, "more than one module in the input"));
                    }
                    module = Some(self.parse_module_op()?);
                }
                _ if self.at_id("func.func") || self.at_id("func") || (self.tok.kind == TokKind::String && self.tok.text == "func.func") => {
                    if module.is_some() {
                        return Err(self.err_at(self.tok.start, "function outside the module"));
                    }
                    let f = self.parse_function()?;
                    implicit.functions.push(f);
                }
                _ => return Err(self.expected("a module, a function or an alias definition")),
            }
        }
        let mut m = match module {
            Some(m) => m,
            None if !implicit.functions.is_empty() => implicit,
            None => return Err(self.err_at(self.tok.start, "input holds no module")),
        };
        m.entry = m.function_index("main").ok_or_else(|| Error::invalid("module has no @main function (apu's entry point)"))?;
        self.resolve_locations(&mut m);
        Ok(m)
    }

    fn parse_alias_def(&mut self) -> Result<()> {
        let t = self.bump()?;
        self.expect_punct("=")?;
        if self.at_id("loc") {
            let l = self.parse_opt_loc()?.unwrap_or(LocSyn::Unknown);
            self.loc_aliases.insert(t.text, l);
        } else {
            let a = self.parse_attr()?;
            self.attr_aliases.insert(t.text, a);
        }
        Ok(())
    }

    fn resolve_locations(&self, m: &mut Module) {
        fn walk(p: &Parser, r: &mut Region) {
            for op in &mut r.ops {
                if let Some(idx) = op.location.text.strip_prefix('\0').and_then(|i| i.parse::<usize>().ok()) {
                    op.location.text = p.pending_locs.get(idx).map(|l| p.loc_text(l, 0)).unwrap_or_default();
                }
                for sub in &mut op.regions {
                    walk(p, sub);
                }
            }
        }
        for f in &mut m.functions {
            walk(self, &mut f.body);
        }
    }

    /// Registers `loc` and returns the placeholder location for an op.
    pub fn placeholder_location(&mut self, loc: LocSyn) -> Location {
        self.pending_locs.push(loc);
        Location { text: format!("\0{}", self.pending_locs.len() - 1) }
    }

    fn parse_module_op(&mut self) -> Result<Module> {
        let start = self.tok.start;
        let mut m = Module { num_replicas: 1, num_partitions: 1, ..Default::default() };
        let mut attrs = Vec::new();
        if self.eat_id("module")? {
            if self.tok.kind == TokKind::AtId {
                m.name = self.bump()?.text;
            }
            if self.eat_id("attributes")? {
                attrs = self.parse_dict()?;
            }
            self.expect_punct("{")?;
            self.parse_module_body(&mut m, "}")?;
            self.parse_opt_loc()?;
        } else {
            self.bump()?; // "builtin.module"
            self.expect_punct("(")?;
            self.expect_punct(")")?;
            if self.eat_punct("<")? {
                let props = self.parse_dict()?;
                self.expect_punct(">")?;
                if let Some(Attr::Str(s)) = Attrs(&props).get("sym_name") {
                    m.name = s.clone();
                }
            }
            self.expect_punct("(")?;
            self.expect_punct("{")?;
            self.parse_module_body(&mut m, "}")?;
            self.expect_punct(")")?;
            if self.at_punct("{") {
                attrs = self.parse_dict()?;
            }
            self.expect_punct(":")?;
            self.parse_syn_type()?;
            self.parse_opt_loc()?;
        }
        for (k, v) in &attrs {
            let n = |p: &Self| match v {
                Attr::Int(n, _) if *n >= 1 && *n <= u32::MAX as i128 => Ok(*n as u32),
                _ => Err(p.err_at(start, format!("module attribute {k} must be a positive integer"))),
            };
            match k.as_str() {
                "mhlo.num_replicas" => m.num_replicas = n(self)?,
                "mhlo.num_partitions" => m.num_partitions = n(self)?,
                _ => {}
            }
        }
        Ok(m)
    }

    fn parse_module_body(&mut self, m: &mut Module, close: &str) -> Result<()> {
        // The module's single block may carry an (argument-less) label in generic form.
        if self.tok.kind == TokKind::CaretId {
            self.bump()?;
            self.expect_punct(":")?;
        }
        while !self.eat_punct(close)? {
            if self.at_id("func.func") || self.at_id("func") || (self.tok.kind == TokKind::String && self.tok.text == "func.func") {
                let f = self.parse_function()?;
                if m.function(&f.name).is_some() {
                    return Err(self.err_at(self.tok.start, format!("function @{} is defined twice", f.name)));
                }
                m.functions.push(f);
            } else if self.at_sharding_decl() {
                self.skip_sharding_decl()?;
            } else if self.tok.kind == TokKind::Eof {
                return Err(self.expected(&format!("'{close}' closing the module")));
            } else {
                return Err(self.unimplemented_at(self.tok.start, format!("module-level op {} is not supported (apu reads func.func only)", self.tok.describe())));
            }
        }
        Ok(())
    }

    /// Shardy mesh declarations (`sdy.mesh @mesh = <["x"=1]>`) say how to split a program over
    /// devices; apu runs one device, so they carry nothing it needs.
    fn at_sharding_decl(&self) -> bool {
        (self.tok.kind == TokKind::BareId || self.tok.kind == TokKind::String) && self.tok.text == "sdy.mesh"
    }

    fn skip_sharding_decl(&mut self) -> Result<()> {
        let start = self.tok.start;
        if self.tok.kind == TokKind::BareId {
            self.bump()?;
            let name = self.expect_kind(TokKind::AtId, "a mesh name")?.text;
            self.expect_punct("=")?;
            if !self.at_punct("<") {
                return Err(self.expected("'<' starting the mesh"));
            }
            self.parse_mesh_body(&name)?;
            if self.at_punct("{") {
                self.parse_dict()?;
            }
        } else {
            self.bump()?;
            self.expect_punct("(")?;
            self.expect_punct(")")?;
            if self.eat_punct("<")? {
                self.parse_dict()?;
                self.expect_punct(">")?;
            }
            if self.at_punct("{") {
                self.parse_dict()?;
            }
            self.expect_punct(":")?;
            match self.parse_syn_type()? {
                SynType::Function(i, o) if i.is_empty() && o.is_empty() => {}
                other => return Err(self.err_at(start, format!("sdy.mesh must have type () -> (), found {other}"))),
            }
        }
        self.parse_opt_loc()?;
        Ok(())
    }

    // ---- functions ----

    fn parse_function(&mut self) -> Result<Function> {
        if self.tok.kind == TokKind::String {
            self.parse_generic_function()
        } else {
            self.parse_pretty_function()
        }
    }

    fn parse_pretty_function(&mut self) -> Result<Function> {
        let start = self.tok.start;
        // `func` is the spelling of older MLIR (before the func dialect).
        if !self.eat_id("func")? {
            self.expect_id("func.func")?;
        }
        let mut public = true;
        if self.at_id("public") || self.at_id("private") || self.at_id("nested") {
            public = self.bump()?.text == "public";
        }
        let name = self.expect_kind(TokKind::AtId, "a function name such as @main")?.text;
        let mut fs = FuncState::new(name.clone());
        fs.func.public = public;
        self.expect_punct("(")?;
        let mut args = Vec::new();
        let params = self.comma_list(")", |p| {
            let t = p.expect_kind(TokKind::PercentId, "an argument such as %arg0")?;
            p.expect_punct(":")?;
            let ty = p.parse_type()?;
            let attrs = if p.at_punct("{") { p.parse_dict()? } else { Vec::new() };
            p.parse_opt_loc()?;
            Ok((ArgSyntax { name: t.text, ty, pos: t.start }, attrs))
        })?;
        let mut arg_attrs = Vec::new();
        for (a, attrs) in params {
            arg_attrs.push(arg_attrs_from(&attrs));
            args.push(a);
        }
        let mut result_types = Vec::new();
        if self.eat_punct("->")? {
            if self.eat_punct("(")? {
                let results = self.comma_list(")", |p| {
                    let ty = p.parse_type()?;
                    let attrs = if p.at_punct("{") { p.parse_dict()? } else { Vec::new() };
                    Ok((ty, memory_kind_of(&attrs)))
                })?;
                if results.iter().any(|(_, kind)| kind.is_some()) {
                    fs.func.result_memory_kinds = results.iter().map(|(_, kind)| kind.clone()).collect();
                }
                result_types = results.into_iter().map(|(ty, _)| ty).collect();
            } else {
                result_types.push(self.parse_type()?);
            }
        }
        if self.eat_id("attributes")? {
            self.parse_dict()?;
        }
        if !self.at_punct("{") {
            return Err(self.unimplemented_at(start, format!("function @{name} has no body (external functions are not supported)")));
        }
        fs.func.arg_attrs = arg_attrs;
        fs.func.result_types = result_types;
        let body = self.parse_region(&mut fs, Some(args))?;
        fs.func.body = body;
        self.parse_opt_loc()?;
        Ok(fs.func)
    }

    fn parse_generic_function(&mut self) -> Result<Function> {
        let start = self.tok.start;
        self.bump()?; // "func.func"
        self.expect_punct("(")?;
        self.expect_punct(")")?;
        let mut props = Vec::new();
        if self.eat_punct("<")? {
            props = self.parse_dict()?;
            self.expect_punct(">")?;
        }
        let attrs = Attrs(&props);
        let name = match attrs.get("sym_name") {
            Some(Attr::Str(s)) => s.clone(),
            _ => return Err(self.err_at(start, "func.func needs a sym_name string property")),
        };
        let (ins, outs) = match attrs.get("function_type") {
            Some(Attr::Type(SynType::Function(i, o))) => (i.clone(), o.clone()),
            _ => return Err(self.err_at(start, format!("func.func @{name} needs a function_type property"))),
        };
        let mut fs = FuncState::new(name.clone());
        fs.func.public = !matches!(attrs.get("sym_visibility"), Some(Attr::Str(v)) if v != "public");
        fs.func.result_types = outs;
        fs.func.arg_attrs = match attrs.get("arg_attrs") {
            Some(Attr::Array(items)) => items
                .iter()
                .map(|a| match a {
                    Attr::Dict(d) => arg_attrs_from(d),
                    _ => ArgAttrs::default(),
                })
                .collect(),
            _ => vec![ArgAttrs::default(); ins.len()],
        };
        if fs.func.arg_attrs.len() != ins.len() {
            return Err(self.err_at(start, format!("@{name}: arg_attrs has {} entries for {} arguments", fs.func.arg_attrs.len(), ins.len())));
        }
        self.expect_punct("(")?;
        let body = self.parse_region(&mut fs, None)?;
        self.expect_punct(")")?;
        if self.at_punct("{") {
            self.parse_dict()?;
        }
        self.expect_punct(":")?;
        self.parse_syn_type()?;
        self.parse_opt_loc()?;
        let got: Vec<Type> = body.params.iter().map(|&p| fs.value_type(p).clone()).collect();
        if got != ins {
            return Err(self.err_at(
                start,
                format!("@{name}: entry block arguments ({}) do not match function_type inputs ({})", type_list(&got), type_list(&ins)),
            ));
        }
        fs.func.body = body;
        Ok(fs.func)
    }

    // ---- regions ----

    /// `{ [^bb0(args):] ops }`. `params` gives the arguments when the surrounding syntax names them
    /// (function signatures, `while`, `reduce ... reducer(...)`).
    pub fn parse_region(&mut self, fs: &mut FuncState, params: Option<Vec<ArgSyntax>>) -> Result<Region> {
        // A region level costs several parser frames: weigh it so that the depth limit holds
        // within a 2 MiB thread stack (about 50 nested regions).
        self.enter_weighted(REGION_WEIGHT)?;
        fs.push_scope();
        let r = self.parse_region_inner(fs, params);
        fs.pop_scope();
        self.leave_weighted(REGION_WEIGHT);
        r
    }

    fn parse_region_inner(&mut self, fs: &mut FuncState, params: Option<Vec<ArgSyntax>>) -> Result<Region> {
        let open = self.tok.start;
        self.expect_punct("{")?;
        let mut region = Region::default();
        let mut args = params;
        if self.tok.kind == TokKind::CaretId {
            if args.is_some() {
                return Err(self.err_at(self.tok.start, "this region's arguments are already given by the op; remove the block label"));
            }
            self.bump()?;
            let mut list = Vec::new();
            if self.eat_punct("(")? {
                list = self.comma_list(")", |p| {
                    let t = p.expect_kind(TokKind::PercentId, "a block argument")?;
                    p.expect_punct(":")?;
                    let ty = p.parse_type()?;
                    p.parse_opt_loc()?;
                    Ok(ArgSyntax { name: t.text, ty, pos: t.start })
                })?;
            }
            self.expect_punct(":")?;
            args = Some(list);
        }
        for a in args.unwrap_or_default() {
            let v = fs.new_value(a.ty);
            fs.define(&a.name, vec![v]).map_err(|m| self.err_at(a.pos, m))?;
            region.params.push(v);
        }
        loop {
            if self.at_punct("}") {
                return Err(self.err_at(self.tok.start, "region ends without a terminator (return)"));
            }
            if self.tok.kind == TokKind::CaretId {
                return Err(self.unimplemented_at(self.tok.start, "regions with more than one block are not supported"));
            }
            if self.tok.kind == TokKind::Eof {
                return Err(self.err_at(open, "unterminated region: expected '}'"));
            }
            if let Some(results) = self.parse_op(fs, &mut region.ops)? {
                region.results = results;
                if !self.eat_punct("}")? {
                    return Err(self.expected("'}' after the region's terminator"));
                }
                return Ok(region);
            }
        }
    }

    // ---- ops ----

    /// Parses one op into `out`; returns the returned values when the op is a terminator.
    pub fn parse_op(&mut self, fs: &mut FuncState, out: &mut Vec<Op>) -> Result<Option<Vec<ValueId>>> {
        let mut names: Vec<(String, usize, usize)> = Vec::new();
        if self.tok.kind == TokKind::PercentId {
            loop {
                let t = self.expect_kind(TokKind::PercentId, "a result name")?;
                if t.text.contains('#') {
                    return Err(self.err_at(t.start, "a result name cannot carry '#'"));
                }
                let mut count = 1usize;
                if self.eat_punct(":")? {
                    let c = self.parse_int()?;
                    if !(1..=100_000).contains(&c) {
                        return Err(self.err_at(t.start, format!("bad result count {c}")));
                    }
                    count = c as usize;
                }
                names.push((t.text, count, t.start));
                if !self.eat_punct(",")? {
                    break;
                }
            }
            self.expect_punct("=")?;
        }
        let pos = self.tok.start;
        let mut syn = match self.tok.kind {
            TokKind::String => self.parse_generic_op(fs)?,
            TokKind::BareId => {
                let name = self.bump()?.text;
                self.parse_pretty_op(fs, name, pos)?
            }
            _ => return Err(self.expected("an operation")),
        };
        if syn.loc.is_none() {
            syn.loc = self.parse_opt_loc()?;
        }
        self.finish_op(fs, names, syn, out)
    }

    fn parse_generic_op(&mut self, fs: &mut FuncState) -> Result<OpSyntax> {
        let t = self.bump()?;
        let mut syn = OpSyntax::new(t.text, t.start);
        self.expect_punct("(")?;
        syn.operands = self.comma_list(")", |p| p.parse_operand(fs))?;
        if self.at_punct("[") {
            return Err(self.unimplemented_at(self.tok.start, "ops with successors (branches) are not supported"));
        }
        if self.eat_punct("<")? {
            syn.attrs = self.parse_dict()?;
            self.expect_punct(">")?;
        }
        if self.eat_punct("(")? {
            syn.regions = self.comma_list(")", |p| p.parse_region(fs, None))?;
        }
        if self.at_punct("{") {
            let extra = self.parse_dict()?;
            syn.attrs.extend(extra);
        }
        self.expect_punct(":")?;
        let ty_start = self.tok.start;
        match self.parse_syn_type()? {
            SynType::Function(ins, outs) => {
                syn.operand_types = Some(ins);
                syn.result_types = outs;
            }
            other => return Err(self.err_at(ty_start, format!("expected a function type (operands) -> results, found {other}"))),
        }
        Ok(syn)
    }

    /// `%name` or `%name#i`, resolved in the current scopes.
    pub fn parse_operand(&mut self, fs: &FuncState) -> Result<ValueId> {
        let t = self.expect_kind(TokKind::PercentId, "an SSA value such as %0")?;
        fs.lookup(&t.text).map_err(|m| self.err_at(t.start, m))
    }

    /// Checks types, builds the IR op and binds the result names.
    fn finish_op(&mut self, fs: &mut FuncState, names: Vec<(String, usize, usize)>, mut syn: OpSyntax, out: &mut Vec<Op>) -> Result<Option<Vec<ValueId>>> {
        self.expand_mesh_groups(&mut syn)?;
        let err = |p: &Self, m: String| p.err_at(syn.pos, format!("{}: {m}", syn.name));
        if let Some(types) = &syn.operand_types {
            if types.len() != syn.operands.len() {
                return Err(err(self, format!("{} operands but {} operand types", syn.operands.len(), types.len())));
            }
            for (i, (v, t)) in syn.operands.iter().zip(types).enumerate() {
                if fs.value_type(*v) != t {
                    return Err(err(self, format!("operand #{i} is declared {t} but the value has type {}", fs.value_type(*v))));
                }
            }
        }
        if is_terminator(&syn.name) {
            if !names.is_empty() {
                return Err(err(self, "a terminator has no results".into()));
            }
            return Ok(Some(syn.operands));
        }
        let named: usize = names.iter().map(|n| n.1).sum();
        if !names.is_empty() && named != syn.result_types.len() {
            return Err(err(self, format!("{named} result names for {} results", syn.result_types.len())));
        }
        let loc = syn.loc.clone().unwrap_or_else(|| self.text_loc(syn.pos));
        let location = self.placeholder_location(loc);
        let results = if syn.name.starts_with("chlo.") {
            let mut b = crate::chlo::Builder::new(&mut fs.func, out, location);
            super::chlo::expand(&mut b, &syn).map_err(|e| match e.kind {
                crate::error::ErrorKind::Unimplemented => self.unimplemented_at(syn.pos, format!("{}: {}", syn.name, e.message)),
                _ => err(self, e.message),
            })?
        } else if syn.name == "stablehlo.if" {
            lower_if(fs, &syn, location, out).map_err(|m| err(self, m))?
        } else {
            let operand_types: Vec<Type> = syn.operands.iter().map(|v| fs.value_type(*v).clone()).collect();
            let shape = OpShape { operand_types: &operand_types, result_types: &syn.result_types };
            let given = syn.kind.take();
            let kind = given.map(Ok).unwrap_or_else(|| kind_from_attrs(&syn.name, &Attrs(&syn.attrs), &shape)).map_err(|m| {
                if m.contains("not supported") || m.starts_with("unknown op") {
                    self.unimplemented_at(syn.pos, m)
                } else {
                    err(self, m)
                }
            })?;
            let results: Vec<ValueId> = syn.result_types.iter().map(|t| fs.new_value(t.clone())).collect();
            out.push(Op { kind, operands: syn.operands.clone(), results: results.clone(), regions: syn.regions, location });
            results
        };
        let mut next = 0;
        for (name, count, pos) in names {
            let vals = results[next..next + count].to_vec();
            next += count;
            fs.define(&name, vals).map_err(|m| self.err_at(pos, m))?;
        }
        Ok(None)
    }
}

/// `if(pred) {true} {false}` has no IR op of its own: like the VHLO reader, it becomes
/// `case(convert<i32>(pred)) {false} {true}` (a true predicate converts to 1, the second branch).
fn lower_if(fs: &mut FuncState, syn: &OpSyntax, location: crate::ir::Location, out: &mut Vec<Op>) -> std::result::Result<Vec<ValueId>, String> {
    let pred_ty = Type::tensor(Vec::new(), crate::ir::ElementType::Pred);
    let [pred] = syn.operands.as_slice() else {
        return Err(format!("takes one predicate, got {} operands", syn.operands.len()));
    };
    if fs.value_type(*pred) != &pred_ty {
        return Err(format!("the predicate must be {pred_ty}, got {}", fs.value_type(*pred)));
    }
    let [true_branch, false_branch] = syn.regions.as_slice() else {
        return Err(format!("needs a true and a false region, got {}", syn.regions.len()));
    };
    let index = fs.new_value(Type::tensor(Vec::new(), crate::ir::ElementType::S32));
    out.push(Op { kind: OpKind::Convert, operands: vec![*pred], results: vec![index], regions: Vec::new(), location: location.clone() });
    let results: Vec<ValueId> = syn.result_types.iter().map(|t| fs.new_value(t.clone())).collect();
    let regions = vec![false_branch.clone(), true_branch.clone()];
    out.push(Op { kind: OpKind::Case, operands: vec![index], results: results.clone(), regions, location });
    Ok(results)
}

fn arg_attrs_from(attrs: &[(String, Attr)]) -> ArgAttrs {
    let aliasing_output = match Attrs(attrs).get("tf.aliasing_output") {
        Some(Attr::Int(v, _)) if *v >= 0 && *v <= u32::MAX as i128 => Some(*v as u32),
        _ => None,
    };
    let buffer_donor = matches!(Attrs(attrs).get("jax.buffer_donor"), Some(Attr::Bool(true)));
    ArgAttrs { aliasing_output, sharding: None, memory_kind: memory_kind_of(attrs), buffer_donor }
}

/// The `mhlo.memory_kind` string of an argument's or result's attributes.
fn memory_kind_of(attrs: &[(String, Attr)]) -> Option<String> {
    match Attrs(attrs).get("mhlo.memory_kind") {
        Some(Attr::Str(s)) => Some(s.clone()),
        _ => None,
    }
}

pub fn type_list(ts: &[Type]) -> String {
    ts.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ")
}
