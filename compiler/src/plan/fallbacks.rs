//! The steps of a plan that run an op on the reference interpreter, listed by op name and
//! location (nested loop and branch bodies included): a fallback is a performance bug that
//! tests and tools name, never a silent slow path.

use super::{Plan, Step, StepKind};
use std::fmt;

/// One fallback step: the op's name, its source location and where it sits in the plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FallbackStep {
    /// The StableHLO op name, e.g. `reduce_window`.
    pub op: String,
    /// The op's location as the program gave it (`file:line:col`, an op path, or `unknown location`).
    pub location: String,
    /// Enclosing control flow, outermost first (`while`, `case`), empty at the top level.
    pub nesting: Vec<&'static str>,
    /// The element types of the op's operands and results, for a message naming them.
    pub types: String,
}

impl fmt::Display for FallbackStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {} ({})", self.op, self.location, self.types)?;
        for n in &self.nesting {
            write!(f, " in {n}")?;
        }
        Ok(())
    }
}

impl Plan {
    /// Every step that runs an op on the interpreter, in plan order.
    pub fn fallbacks(&self) -> Vec<FallbackStep> {
        let mut out = Vec::new();
        self.collect(&self.steps, &mut Vec::new(), &mut out);
        out
    }

    fn collect(&self, steps: &[Step], nesting: &mut Vec<&'static str>, out: &mut Vec<FallbackStep>) {
        for s in steps {
            if let StepKind::Fallback { op, inputs, outputs, .. } = &s.kind {
                let ty = |slots: &[usize]| slots.iter().map(|&x| self.slots[x].to_string()).collect::<Vec<_>>().join(", ");
                out.push(FallbackStep {
                    op: op.kind.name().to_string(),
                    location: op.location.to_string(),
                    nesting: nesting.clone(),
                    types: format!("({}) -> ({})", ty(inputs), ty(outputs)),
                });
            }
            let label = match s.kind {
                StepKind::While { .. } => Some("while"),
                StepKind::Case { .. } => Some("case"),
                _ => None,
            };
            if let Some(l) = label {
                nesting.push(l);
            }
            for inner in s.kind.nested_steps() {
                self.collect(inner, nesting, out);
            }
            if label.is_some() {
                nesting.pop();
            }
        }
    }
}
