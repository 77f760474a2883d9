//! Prints an [`ir::Module`](crate::ir::Module) as StableHLO text close to what
//! `jax.jit(f).lower(...).as_text()` shows: pretty forms for the common ops, the generic form for the
//! rest (as JAX does for `case`, `sort`, `gather`, `scatter`, `reduce_window`). Output is deterministic
//! (no locations, values numbered in order) and reads back with [`crate::text::parse_module`] into
//! the same IR, so print → parse → print is a fixed point.

mod ops;

use crate::ir::{Function, Module, Region, Type, ValueId};
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
    next_value: usize,
    next_arg: usize,
    next_iter: usize,
}

impl<'a> FuncPrinter<'a> {
    fn new(f: &'a Function, out: &'a mut String) -> Self {
        FuncPrinter { f, out, names: vec![None; f.values.len()], next_value: 0, next_arg: 0, next_iter: 0 }
    }

    pub(crate) fn name(&self, v: ValueId) -> String {
        match self.names.get(v.index()).and_then(|n| n.as_ref()) {
            Some(n) => format!("%{n}"),
            // Only reachable for malformed IR (a use before its definition): still print something.
            None => format!("%invalid{}", v.0),
        }
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
    /// Gives `vs` the next free `iterArg` name each; returns the names.
    pub(crate) fn name_iter_args(&mut self, vs: &[ValueId]) -> Vec<String> {
        vs.iter()
            .map(|&v| {
                let n = if self.next_iter == 0 { "iterArg".to_string() } else { format!("iterArg_{}", self.next_iter - 1) };
                self.next_iter += 1;
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
    /// Names an op's results; returns the `%N = ` / `%N:k = ` prefix.
    pub(crate) fn name_results(&mut self, results: &[ValueId]) -> String {
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

    pub(crate) fn save_counters(&self) -> (usize, usize) {
        (self.next_value, self.next_arg)
    }
    pub(crate) fn restore_counters(&mut self, saved: (usize, usize)) {
        self.next_value = saved.0;
        self.next_arg = saved.1;
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
        let saved = (self.next_value, self.next_arg);
        if with_block_args && !r.params.is_empty() {
            for &p in &r.params {
                self.name_arg(p);
            }
            self.indent(depth);
            let args: Vec<String> = r.params.iter().map(|&p| format!("{}: {}", self.name(p), self.ty(p))).collect();
            let _ = writeln!(self.out, "^bb0({}):", args.join(", "));
        }
        self.print_block_body(r, depth + 1, "stablehlo.return");
        self.next_value = saved.0;
        self.next_arg = saved.1;
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
