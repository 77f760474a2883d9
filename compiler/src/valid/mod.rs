//! Validation: the planner and the interpreter accept only a [`ValidModule`], which can be made only
//! by [`validate`]. It checks SSA structure (every use defined before, in scope, defined once) and
//! per-op type and shape rules following the StableHLO spec's constraints (`ops.rs`, `regions.rs`).
//! Each failure names the function, the op and its location, and the types involved.

mod collective;
pub use collective::combiner;
mod misc;
mod ops;
mod regions;

use crate::ir::{Function, Module, Region, Type, ValueId};
use crate::{Error, Result};

/// A module that passed [`validate`].
#[derive(Clone, Debug)]
pub struct ValidModule(Module);

impl ValidModule {
    pub fn module(&self) -> &Module {
        &self.0
    }
    pub fn into_inner(self) -> Module {
        self.0
    }
}

impl std::ops::Deref for ValidModule {
    type Target = Module;
    fn deref(&self) -> &Module {
        &self.0
    }
}

/// Checks a module and wraps it.
pub fn validate(module: Module) -> Result<ValidModule> {
    if module.entry >= module.functions.len() {
        return Err(Error::invalid("module has no entry function"));
    }
    for (i, f) in module.functions.iter().enumerate() {
        if module.functions[..i].iter().any(|g| g.name == f.name) {
            return Err(Error::invalid(format!("function @{} is defined twice", f.name)));
        }
        check_function(&module, f).map_err(|e| e.context(format!("function @{}", f.name)))?;
    }
    Ok(ValidModule(module))
}

/// What the checks of one function share.
pub(crate) struct Ctx<'m> {
    pub module: &'m Module,
    pub func: &'m Function,
    /// Whether each value is defined and in scope at the current point.
    defined: Vec<bool>,
    /// Current region nesting, bounded so that hostile IR cannot exhaust the stack.
    depth: usize,
    /// Inside the body of a manual computation: its number of instances.
    pub(crate) manual_instances: Option<i64>,
    /// Inside manual computations: the axes they made manual, outermost first.
    pub(crate) manual_axes: Vec<String>,
}

/// Regions nested deeper than this are rejected (real programs stay far below).
const MAX_REGION_DEPTH: usize = 128;

impl<'m> Ctx<'m> {
    pub fn ty(&self, v: ValueId) -> Result<&'m Type> {
        let f: &'m Function = self.func;
        f.values.get(v.index()).ok_or_else(|| Error::invalid(format!("value %{} is not in the function's value table", v.0)))
    }
    pub fn types(&self, vs: &[ValueId]) -> Result<Vec<Type>> {
        vs.iter().map(|&v| self.ty(v).cloned()).collect()
    }

    fn define(&mut self, v: ValueId) -> Result<()> {
        let n = self.func.values.len();
        match self.defined.get_mut(v.index()) {
            None => Err(Error::invalid(format!("value %{} is outside the value table ({n} values)", v.0))),
            Some(d) if *d => Err(Error::invalid(format!("value %{} is defined twice", v.0))),
            Some(d) => {
                *d = true;
                Ok(())
            }
        }
    }
    fn undefine(&mut self, v: ValueId) {
        if let Some(d) = self.defined.get_mut(v.index()) {
            *d = false;
        }
    }
    fn check_used(&self, v: ValueId, what: &str) -> Result<()> {
        if self.defined.get(v.index()).copied().unwrap_or(false) {
            Ok(())
        } else {
            Err(Error::invalid(format!("{what} %{} is used before its definition or outside its region", v.0)))
        }
    }

    /// Checks a region: its ops in order, nested regions, and the values it returns. Values defined
    /// inside go out of scope at the end.
    pub fn check_region(&mut self, region: &'m Region) -> Result<()> {
        if self.depth >= MAX_REGION_DEPTH {
            return Err(Error::invalid(format!("regions nested deeper than {MAX_REGION_DEPTH} levels")));
        }
        self.depth += 1;
        let r = self.check_region_inner(region);
        self.depth -= 1;
        r
    }

    fn check_region_inner(&mut self, region: &'m Region) -> Result<()> {
        for &p in &region.params {
            self.define(p)?;
        }
        for op in &region.ops {
            let at = || {
                let dialect = if matches!(op.kind, crate::ir::OpKind::Call { .. }) { "func" } else { "stablehlo" };
                format!("{dialect}.{} at {}", op.kind.name(), op.location)
            };
            for &v in &op.operands {
                self.check_used(v, "operand").map_err(|e| e.context(at()))?;
            }
            let (outer, outer_axes) = (self.manual_instances, self.manual_axes.len());
            if let crate::ir::OpKind::ManualComputation(mc) = &op.kind {
                self.manual_instances = Some(mc.instances());
                self.manual_axes.extend(mc.manual_axes.iter().cloned());
            }
            for r in &op.regions {
                let checked = self.check_region(r).map_err(|e| e.context(at()));
                if checked.is_err() {
                    self.manual_instances = outer;
                    self.manual_axes.truncate(outer_axes);
                }
                checked?;
            }
            self.manual_instances = outer;
            self.manual_axes.truncate(outer_axes);
            ops::check_op(self, op).map_err(|e| e.context(at()))?;
            for &r in &op.results {
                self.define(r).map_err(|e| e.context(at()))?;
            }
        }
        for &v in &region.results {
            self.check_used(v, "returned value")?;
        }
        for op in &region.ops {
            for &r in &op.results {
                self.undefine(r);
            }
        }
        for &p in &region.params {
            self.undefine(p);
        }
        Ok(())
    }
}

fn check_function(module: &Module, f: &Function) -> Result<()> {
    let mut ctx = Ctx { module, func: f, defined: vec![false; f.values.len()], depth: 0, manual_instances: None, manual_axes: Vec::new() };
    if !f.arg_attrs.is_empty() && f.arg_attrs.len() != f.body.params.len() {
        return Err(Error::invalid(format!("{} argument attribute entries for {} arguments", f.arg_attrs.len(), f.body.params.len())));
    }
    for (i, a) in f.arg_attrs.iter().enumerate() {
        if let Some(out) = a.aliasing_output {
            if out as usize >= f.result_types.len() {
                return Err(Error::invalid(format!(
                    "argument {i} aliases output {out} but the function has {} results",
                    f.result_types.len()
                )));
            }
        }
    }
    ctx.check_region(&f.body)?;
    let returned = ctx.types(&f.body.results)?;
    if returned != f.result_types {
        return Err(Error::invalid(format!(
            "returns ({}) but the signature says ({})",
            type_list(&returned),
            type_list(&f.result_types)
        )));
    }
    Ok(())
}

pub(crate) fn type_list(ts: &[Type]) -> String {
    ts.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ")
}
