//! Prints an [`ir::Module`](crate::ir::Module) as StableHLO text close to what
//! `jax.jit(f).lower(...).as_text()` shows: pretty forms for the common ops, the generic form for the
//! rest (as JAX does for `case`, `sort`, `gather`, `scatter`, `reduce_window`). Output is deterministic
//! (no locations, values numbered in order) and reads back with [`crate::text::parse_module`] into
//! the same IR, so print → parse → print is a fixed point.

mod ops;

use crate::ir::{Function, Module, OpKind, Region, Type, ValueId};
use std::collections::HashSet;
use std::fmt::Write;

/// Prints a module.
pub fn print_module(m: &Module) -> String {
    let mut out = String::new();
    let _ = write!(out, "module");
    if !m.name.is_empty() {
        out.push(' ');
        let _ = write!(out, "{}", Sym(&m.name));
    }
    let _ = writeln!(
        out,
        " attributes {{mhlo.num_partitions = {} : i32, mhlo.num_replicas = {} : i32}} {{",
        m.num_partitions, m.num_replicas
    );
    for f in &m.functions {
        FuncPrinter::new(f, &mut out).print();
    }
    out.push_str("}\n");
    out
}

struct Sym<'a>(&'a str);
impl std::fmt::Display for Sym<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::text::attr::write_symbol(f, self.0)
    }
}

/// Prints one function; owns the value names.
pub(crate) struct FuncPrinter<'a> {
    pub(crate) f: &'a Function,
    pub(crate) out: &'a mut String,
    names: Vec<Option<String>>,
    /// The `%x = ` prefix of each op, keyed by its first result.
    prefixes: Vec<Option<String>>,
    next_value: usize,
    next_arg: usize,
    /// Suffix for the next clash of a named value (`%cst_0`, `%c_1`, …), shared by all names as in
    /// MLIR's printer.
    next_conflict: usize,
    /// Names in use, and the names each open region added (released when it closes).
    used: HashSet<String>,
    scopes: Vec<Vec<String>>,
}

/// Counters saved when a region opens and restored when it closes, so that sibling regions
/// reuse the same names and numbers (as MLIR prints them).
pub(crate) struct Saved {
    next_value: usize,
    next_arg: usize,
    next_conflict: usize,
}

impl<'a> FuncPrinter<'a> {
    fn new(f: &'a Function, out: &'a mut String) -> Self {
        FuncPrinter {
            f,
            out,
            names: vec![None; f.values.len()],
            prefixes: vec![None; f.values.len()],
            next_value: 0,
            next_arg: 0,
            next_conflict: 0,
            used: HashSet::new(),
            scopes: vec![Vec::new()],
        }
    }

    pub(crate) fn name(&self, v: ValueId) -> String {
        match self.names.get(v.index()).and_then(|n| n.as_ref()) {
            Some(n) => format!("%{n}"),
            // Only reachable for malformed IR (a use before its definition): still print something.
            None => format!("%invalid{}", v.0),
        }
    }
    pub(crate) fn prefix(&self, first_result: ValueId) -> Option<String> {
        self.prefixes.get(first_result.index()).cloned().flatten()
    }
    pub(crate) fn names(&self, vs: &[ValueId]) -> String {
        vs.iter().map(|&v| self.name(v)).collect::<Vec<_>>().join(", ")
    }
    pub(crate) fn ty(&self, v: ValueId) -> &'a Type {
        let f: &'a Function = self.f;
        f.values.get(v.index()).unwrap_or(&Type::Token)
    }
    pub(crate) fn types(&self, vs: &[ValueId]) -> Vec<Type> {
        vs.iter().map(|&v| self.ty(v).clone()).collect()
    }

    fn set_name(&mut self, v: ValueId, n: String) {
        if let Some(slot) = self.names.get_mut(v.index()) {
            *slot = Some(n);
        }
    }
    pub(crate) fn name_arg(&mut self, v: ValueId) {
        let n = format!("arg{}", self.next_arg);
        self.next_arg += 1;
        self.set_name(v, n);
    }
    /// `base`, or `base_N` with the next conflict number when `base` is taken.
    fn unique(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        while self.used.contains(&name) {
            name = format!("{base}_{}", self.next_conflict);
            self.next_conflict += 1;
        }
        self.used.insert(name.clone());
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(name.clone());
        }
        name
    }

    /// Gives each of `vs` a unique `iterArg` name; returns the names.
    pub(crate) fn name_iter_args(&mut self, vs: &[ValueId]) -> Vec<String> {
        vs.iter()
            .map(|&v| {
                let n = self.unique("iterArg");
                self.set_name(v, n.clone());
                n
            })
            .collect()
    }
    pub(crate) fn alias_names(&mut self, from: &[ValueId], to: &[ValueId]) {
        for (a, b) in from.iter().zip(to) {
            let n = self.names.get(a.index()).cloned().flatten();
            if let Some(n) = n {
                self.set_name(*b, n);
            }
        }
    }
    /// Names an op's results (`%cst`/`%c` for constants, `%output_state, %output` for
    /// rng_bit_generator, numbers otherwise, like JAX's printout); returns the `... = ` prefix.
    fn name_results(&mut self, kind: &OpKind, results: &[ValueId]) -> String {
        let bases: Option<&[&str]> = match kind {
            OpKind::Constant(lit) if lit.ty.elem.is_float() || lit.ty.elem.is_complex() => Some(&["cst"]),
            OpKind::Constant(_) => Some(&["c"]),
            OpKind::RngBitGenerator { .. } => Some(&["output_state", "output"]),
            _ => None,
        };
        if let Some(bases) = bases.filter(|b| b.len() == results.len()) {
            let names: Vec<String> = bases.iter().map(|b| self.unique(b)).collect();
            for (&r, n) in results.iter().zip(&names) {
                self.set_name(r, n.clone());
            }
            let list: Vec<String> = names.iter().map(|n| format!("%{n}")).collect();
            return format!("{} = ", list.join(", "));
        }
        if results.is_empty() {
            return String::new();
        }
        let n = self.next_value;
        self.next_value += 1;
        if results.len() == 1 {
            self.set_name(results[0], n.to_string());
            format!("%{n} = ")
        } else {
            for (i, &r) in results.iter().enumerate() {
                self.set_name(r, format!("{n}#{i}"));
            }
            format!("%{n}:{} = ", results.len())
        }
    }

    /// Opens a region's naming scope.
    pub(crate) fn save_counters(&mut self) -> Saved {
        self.scopes.push(Vec::new());
        Saved { next_value: self.next_value, next_arg: self.next_arg, next_conflict: self.next_conflict }
    }
    /// Closes the scope opened by [`Self::save_counters`].
    pub(crate) fn restore_counters(&mut self, saved: Saved) {
        if let Some(names) = self.scopes.pop() {
            for n in names {
                self.used.remove(&n);
            }
        }
        self.next_value = saved.next_value;
        self.next_arg = saved.next_arg;
        self.next_conflict = saved.next_conflict;
    }

    pub(crate) fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
    }

    fn print(mut self) {
        let f = self.f;
        self.out.push_str("  func.func ");
        self.out.push_str(if f.public { "public " } else { "private " });
        let _ = write!(self.out, "{}(", Sym(&f.name));
        for (i, &p) in f.body.params.iter().enumerate() {
            self.name_arg(p);
            if i > 0 {
                self.out.push_str(", ");
            }
            let _ = write!(self.out, "{}: {}", self.name(p), self.ty(p));
            if let Some(alias) = f.arg_attrs.get(i).and_then(|a| a.aliasing_output) {
                let _ = write!(self.out, " {{tf.aliasing_output = {alias} : i32}}");
            }
        }
        self.out.push(')');
        match f.result_types.len() {
            0 => {}
            1 => {
                let _ = write!(self.out, " -> {}", f.result_types[0]);
            }
            _ => {
                let _ = write!(self.out, " -> ({})", type_list(&f.result_types));
            }
        }
        self.out.push_str(" {\n");
        self.print_block_body(&f.body, 2, "return");
        self.out.push_str("  }\n");
    }

    /// Prints a region's ops and its terminator at `depth`.
    pub(crate) fn print_block_body(&mut self, r: &Region, depth: usize, terminator: &str) {
        // Like MLIR, name every value of this block before any nested region: nested regions
        // continue from the block's final counters.
        for op in &r.ops {
            let prefix = self.name_results(&op.kind, &op.results);
            if let Some(slot) = op.results.first().and_then(|v| self.prefixes.get_mut(v.index())) {
                *slot = Some(prefix);
            }
        }
        for op in &r.ops {
            self.print_op(op, depth);
        }
        self.indent(depth);
        self.out.push_str(terminator);
        if !r.results.is_empty() {
            let tys = self.types(&r.results);
            let _ = write!(self.out, " {} : {}", self.names(&r.results), type_list(&tys));
        }
        self.out.push('\n');
    }

    /// Prints a nested region `{ ... }` (opening brace already written by the caller), with the
    /// value numbering scoped like MLIR's: names inside are reused by sibling regions.
    pub(crate) fn print_nested_region(&mut self, r: &Region, depth: usize, with_block_args: bool) {
        let saved = self.save_counters();
        if with_block_args && !r.params.is_empty() {
            for &p in &r.params {
                self.name_arg(p);
            }
            self.indent(depth);
            let args: Vec<String> = r.params.iter().map(|&p| format!("{}: {}", self.name(p), self.ty(p))).collect();
            let _ = writeln!(self.out, "^bb0({}):", args.join(", "));
        }
        self.print_block_body(r, depth + 1, "stablehlo.return");
        self.restore_counters(saved);
    }
}

pub(crate) fn type_list(ts: &[Type]) -> String {
    ts.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ")
}

/// `(a, b) -> c` with MLIR's result rules (one result bare, otherwise parenthesized).
pub(crate) fn function_type(ins: &[Type], outs: &[Type]) -> String {
    let results = if outs.len() == 1 { outs[0].to_string() } else { format!("({})", type_list(outs)) };
    format!("({}) -> {}", type_list(ins), results)
}
