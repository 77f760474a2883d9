//! Validation: the planner and the interpreter accept only a [`ValidModule`], which can be made only
//! by [`validate`]. Checks grow op by op; each failure names the function, the op and its location.

use crate::ir::{Module, Op, OpKind, Region};
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
    for f in &module.functions {
        check_region(&module, &f.body).map_err(|e| e.context(format!("function @{}", f.name)))?;
    }
    Ok(ValidModule(module))
}

fn check_region(module: &Module, region: &Region) -> Result<()> {
    for op in &region.ops {
        check_op(module, op).map_err(|e| e.context(format!("{} at {}", op.kind.name(), op.location)))?;
        for r in &op.regions {
            check_region(module, r)?;
        }
    }
    Ok(())
}

fn check_op(module: &Module, op: &Op) -> Result<()> {
    match &op.kind {
        OpKind::Call { callee } if module.function(callee).is_none() => {
            Err(Error::invalid(format!("call to unknown function @{callee}")))
        }
        _ => Ok(()),
    }
}
