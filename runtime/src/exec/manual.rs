//! Collective, instance-id and manual-computation steps (decision 65). A manual step runs its body
//! block once per instance on dedicated threads ([`crate::collectives::run_manual`]), each with
//! slots of its own; the plan's constants and the captured outer slots are shared read-only.

use super::{Executable, Pool, Slots};
use crate::collectives;
use crate::rng::RunRng;
use super::scalar::ops::{binary_fn, binary_result_elem};
use crate::values::array::Array;
use crate::{AlignedBytes, Tensor};
use apu_compiler::ir::{BinaryOp, ManualComputation, OpKind, TensorType};
use apu_compiler::plan::{Block, CollectiveKernel, SlotId};
use apu_compiler::{Error, Result};
use std::sync::Arc;

impl Executable {
    fn tensor_of(&self, slots: &Slots, s: SlotId) -> Result<Tensor> {
        Ok(Tensor { ty: self.plan.slots[s].clone(), data: Self::slot_arc(slots, s)? })
    }

    pub(super) fn run_collective(&self, k: &CollectiveKernel, slots: &mut Slots) -> Result<()> {
        let operands = k.inputs.iter().map(|&s| self.tensor_of(slots, s)).collect::<Result<Vec<_>>>()?;
        let reduce = |parts: &[&Tensor]| -> Result<Tensor> {
            let op = k.combiner.ok_or_else(|| Error::internal(format!("{} without a combiner", k.kind.name())))?;
            match collectives::data::fold_typed(op, parts) {
                Some(t) => Ok(t),
                None => fold_other(op, parts),
            }
        };
        let results = collectives::run(&k.kind, operands, &reduce)?;
        for (&s, t) in k.outputs.iter().zip(results) {
            if t.ty != self.plan.slots[s] {
                return Err(Error::internal(format!("{} produced {}, expected {}", k.kind.name(), t.ty, self.plan.slots[s])));
            }
            slots[s] = Some(t.data);
        }
        Ok(())
    }

    pub(super) fn run_instance_id(&self, replica: bool, out: SlotId, slots: &mut Slots) {
        let (r, p) = collectives::current_ids();
        let id = if replica { r } else { p };
        slots[out] = Some(Arc::new(AlignedBytes::from_slice(&id.to_le_bytes())));
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn run_manual(
        &self,
        mc: &ManualComputation,
        inputs: &[SlotId],
        captured: &[SlotId],
        body: &Block,
        outputs: &[SlotId],
        slots: &mut Slots,
        rng: &RunRng,
    ) -> Result<()> {
        let types = |ss: &[SlotId]| -> Vec<TensorType> { ss.iter().map(|&s| self.plan.slots[s].clone()).collect() };
        let operands = inputs.iter().map(|&s| self.tensor_of(slots, s)).collect::<Result<Vec<_>>>()?;
        let shared: Vec<(SlotId, Arc<AlignedBytes>)> = captured
            .iter()
            .map(|&s| Ok((s, Self::slot_arc(slots, s)?)))
            .chain(self.constants.iter().map(|(s, b)| Ok((*s, b.clone()))))
            .collect::<Result<_>>()?;
        let run_body = |locals: Vec<Tensor>| -> Result<Vec<Tensor>> {
            let mut mine: Vec<Option<Arc<AlignedBytes>>> = vec![None; self.plan.slots.len()];
            for (s, b) in &shared {
                mine[*s] = Some(b.clone());
            }
            for (&p, t) in body.params.iter().zip(locals) {
                mine[p] = Some(t.data);
            }
            let mut pool = Pool::default();
            self.run_steps(&body.steps, &mut mine, &mut pool, rng)?;
            body.results.iter().map(|&r| self.tensor_of(&mine, r)).collect()
        };
        let results =
            collectives::run_manual(mc, &operands, &types(&body.params), &types(&body.results), &types(outputs), &run_body, &collectives::data::sum)?;
        for (&s, t) in outputs.iter().zip(results) {
            slots[s] = Some(t.data);
        }
        Ok(())
    }
}

/// Reductions on types without a native loop (f16, bf16, complex, ...), element by element with the
/// one-element evaluator's functions (`exec::scalar::ops`), each result rounded to its type.
pub(crate) fn fold_other(op: BinaryOp, parts: &[&Tensor]) -> Result<Tensor> {
    let mut ty = parts[0].ty.clone();
    let mut acc = Array::from_bytes(ty.elem, parts[0].bytes())?;
    for p in &parts[1..] {
        if p.ty != ty {
            return Err(Error::invalid(format!("{}: operand types differ: {} vs {}", OpKind::Binary(op).name(), ty, p.ty)));
        }
        let (g, out) = (binary_fn(op, ty.elem)?, binary_result_elem(op, ty.elem));
        let next = Array::from_bytes(p.ty.elem, p.bytes())?;
        acc = Array::from_scalars(out, (0..acc.len()).map(|k| g(acc.get(k), next.get(k))))?;
        ty = TensorType::new(ty.shape.clone(), out);
    }
    Tensor::from_bytes(ty.clone(), &acc.to_bytes_as(ty.elem))
}
