//! Programs partitioned over N devices (`num_partitions` = N > 1): what `jax.pmap` and `shard_map`
//! send. The program is the *global* one (its manual computations run their bodies once per device
//! themselves, decision 65), while Execute hands over one argument list per device, each holding
//! that device's piece, and expects one result list per device. So apu runs the global program
//! once: each global input is assembled from the devices' pieces by the argument's `sdy.sharding`,
//! and each global result is cut into the devices' pieces by the result's sharding (decision 64).
//! On one host this costs one copy per piece and nothing else; no partitioner is needed.
//!
//! Partition p is mesh position p (the readers accept only meshes whose device order is 0..N). A
//! dimension split over mesh axes (a, b) has size(a)*size(b) pieces, and partition p holds piece
//! `coord_a(p) * size(b) + coord_b(p)`; along the axes a value is not split over, partitions hold
//! copies, and the one at coordinate 0 is the copy read when assembling.

use crate::{Error, Result, Tensor};
use apu_compiler::ir::{DimAxes, Function, OpKind, TensorType, ValueId, ValueSharding};
use std::collections::HashMap;

/// How one argument or result of the global program maps onto the devices.
#[derive(Clone, Debug, PartialEq)]
pub struct Pieces {
    pub global: TensorType,
    /// The type of each device's piece.
    pub local: TensorType,
    /// Per partition: where its piece starts in the global value, per dimension.
    pub offsets: Vec<Vec<i64>>,
    /// Per partition: whether its piece is read when assembling (the first of its copies; along
    /// unreduced axes every part is read, and they are added).
    pub first: Vec<bool>,
    /// Per partition: whether its piece is zeros (not at coordinate 0 of the unreduced axes: the
    /// parts of an unreduced value add up to it, so one holds it and the others nothing).
    pub zero: Vec<bool>,
    /// How many parts an unreduced value has (the product of its unreduced axes; 1 when none), and
    /// per partition which part it holds (its position along those axes, in mesh order).
    pub parts: usize,
    pub part: Vec<usize>,
}

/// The pieces of every parameter and result of a partitioned program.
#[derive(Clone, Debug, PartialEq)]
pub struct Partitioning {
    pub partitions: usize,
    pub params: Vec<Pieces>,
    pub results: Vec<Pieces>,
}

impl Partitioning {
    /// From the entry function's shardings; where it gives none, from what the program's own
    /// shardings imply ([`propagated`]); else replicated on every device.
    pub fn new(entry: &Function, params: &[TensorType], results: &[TensorType], partitions: usize) -> Result<Partitioning> {
        let (param_shardings, result_shardings) = propagated(entry);
        let pieces = |types: &[TensorType], shardings: &[Option<ValueSharding>], what: &str| {
            types
                .iter()
                .enumerate()
                .map(|(i, t)| Pieces::new(t, shardings.get(i).and_then(Option::as_ref), partitions, &format!("{what} {i}")))
                .collect::<Result<Vec<_>>>()
        };
        Ok(Partitioning {
            partitions,
            params: pieces(params, &param_shardings, "parameter")?,
            results: pieces(results, &result_shardings, "result")?,
        })
    }
}

/// The shardings of the entry's parameters and results: those it states, and for the others what
/// its body implies. JAX leaves values unannotated and lets XLA's sharding propagation choose:
/// the parameters and results of `jit(shard_map(f))` get the manual computation's `in_shardings` /
/// `out_shardings`, and a result computed elementwise from a sharded value keeps that value's
/// sharding (`jit(lambda x: x * 2, in_shardings=s)` returns an array sharded as `s`), and a value
/// under a sharding constraint has the constraint's (`with_sharding_constraint`, `reshard`). The framework
/// asks the executable for these and places the pieces by them, so apu reports the same for these
/// common cases. Values the walk does not reach stay unannotated: replicated, always correct.
fn propagated(entry: &Function) -> (Vec<Option<ValueSharding>>, Vec<Option<ValueSharding>>) {
    let body = &entry.body;
    let mut params: Vec<Option<ValueSharding>> =
        (0..body.params.len()).map(|i| entry.arg_attrs.get(i).and_then(|a| a.sharding.clone())).collect();
    let mut known: HashMap<ValueId, ValueSharding> = HashMap::new();
    for (v, s) in body.params.iter().zip(&params) {
        if let Some(s) = s {
            known.insert(*v, s.clone());
        }
    }
    let shape = |v: ValueId| entry.value_type(v).as_tensor().map(|t| t.shape.clone());
    // The readers turn Shardy's casts into same-shape reshapes; look through them to the parameter.
    let mut origin: HashMap<ValueId, ValueId> = HashMap::new();
    for op in &body.ops {
        match &op.kind {
            OpKind::ManualComputation(mc) => {
                let sharding = |dims: &DimAxes, unreduced: &[String]| ValueSharding {
                    mesh_name: mc.mesh_name.clone(),
                    mesh: mc.mesh.clone(),
                    dims: dims.clone(),
                    unreduced: unreduced.to_vec(),
                };
                for (k, (v, dims)) in op.operands.iter().zip(&mc.in_shardings).enumerate() {
                    let v = origin.get(v).unwrap_or(v);
                    if let Some(i) = body.params.iter().position(|p| p == v).filter(|&i| params[i].is_none()) {
                        params[i] = Some(sharding(dims, mc.operand_unreduced(k)));
                        known.insert(*v, sharding(dims, mc.operand_unreduced(k)));
                    }
                }
                for (k, (v, dims)) in op.results.iter().zip(&mc.out_shardings).enumerate() {
                    // Along free axes XLA propagates through the body: a result shaped like an
                    // operand keeps the operand's split over the free axes (elementwise code in a
                    // partially manual region, a nested computation over the free axes).
                    let mut dims = dims.clone();
                    let like = op.operands.iter().filter(|o| shape(**o) == shape(*v)).find_map(|o| known.get(origin.get(o).unwrap_or(o)));
                    if let Some(s) = like.filter(|s| s.mesh == mc.mesh && s.dims.len() == dims.len()) {
                        let used: Vec<String> = dims.iter().flatten().cloned().collect();
                        for (mine, theirs) in dims.iter_mut().zip(&s.dims) {
                            for a in theirs.iter().filter(|a| !mc.is_manual(a) && !used.contains(a)) {
                                mine.push(a.clone());
                            }
                        }
                    }
                    known.insert(*v, sharding(&dims, mc.result_unreduced(k)));
                }
            }
            OpKind::Unary(_) | OpKind::Binary(_) | OpKind::Compare { .. } | OpKind::Select | OpKind::Clamp | OpKind::Convert | OpKind::Reshape => {
                let [result] = op.results.as_slice() else { continue };
                let out = shape(*result);
                if let (OpKind::Reshape, [operand]) = (&op.kind, op.operands.as_slice()) {
                    if shape(*operand) == out {
                        origin.insert(*result, *origin.get(operand).unwrap_or(operand));
                    }
                }
                let from = op.operands.iter().find(|&&v| shape(v) == out && known.contains_key(&v));
                if let Some(s) = from.and_then(|v| known.get(v)).cloned() {
                    known.insert(*result, s);
                }
                // A value the program constrains lives where the constraint says, whatever made it.
                if let Some((_, s)) = entry.constraints.iter().find(|(v, _)| v == result) {
                    known.insert(*result, s.clone());
                }
            }
            _ => {}
        }
    }
    // An inferred sharding that does not split a result evenly (a constraint on an odd length, which
    // XLA pads) is not reported: the result stays replicated, a correct placement.
    let even = |s: &ValueSharding, v: ValueId| {
        shape(v).is_some_and(|dims| {
            dims.len() == s.dims.len()
                && dims.iter().zip(&s.dims).all(|(&d, axes)| {
                    let n: i64 = axes.iter().map(|a| s.mesh.axis(a).map_or(1, |i| s.mesh.axes[i].1)).product();
                    n > 0 && d % n == 0
                })
        })
    };
    let results = (0..body.results.len())
        .map(|i| {
            let v = body.results[i];
            entry.result_shardings.get(i).cloned().flatten().or_else(|| known.get(&v).filter(|s| even(s, v)).cloned())
        })
        .collect();
    (params, results)
}

impl Pieces {
    pub fn new(global: &TensorType, sharding: Option<&ValueSharding>, partitions: usize, what: &str) -> Result<Pieces> {
        let n = partitions as i64;
        // No sharding, or one that splits no dimension (JAX writes `<@empty_mesh, [{}, {}]>` for
        // replicated values): the whole value on every device, whatever mesh it names.
        let Some(s) = sharding.filter(|s| s.dims.iter().any(|axes| !axes.is_empty()) || !s.unreduced.is_empty()) else {
            return Ok(Pieces {
                global: global.clone(),
                local: global.clone(),
                offsets: vec![vec![0; global.rank()]; partitions],
                first: (0..partitions).map(|p| p == 0).collect(),
                zero: vec![false; partitions],
                parts: 1,
                part: vec![0; partitions],
            });
        };
        let mesh = &s.mesh;
        if mesh.size() != n {
            return Err(Error::unimplemented(format!(
                "{what} is sharded over mesh @{} of {} devices, but the program is partitioned over {n}",
                s.mesh_name,
                mesh.size()
            )));
        }
        if !mesh.device_ids.is_empty() && !(0..n).all(|p| mesh.device_ids.contains(&p)) {
            return Err(Error::invalid(format!(
                "{what}: mesh @{} orders devices {:?}, which are not the program's {n} partitions",
                s.mesh_name, mesh.device_ids
            )));
        }
        if s.dims.len() != global.rank() {
            return Err(Error::invalid(format!("{what}: a sharding of rank {} for {global}", s.dims.len())));
        }
        let mut local = global.shape.clone();
        for (d, axes) in s.dims.iter().enumerate() {
            let mut count = 1;
            for a in axes {
                let i = mesh.axis(a).ok_or_else(|| {
                    Error::invalid(format!("{what}: sharding names axis \"{a}\", which mesh @{} lacks", s.mesh_name))
                })?;
                count *= mesh.axes[i].1;
            }
            if count == 0 || global.shape[d] % count != 0 {
                return Err(Error::unimplemented(format!(
                    "{what} ({global}): dimension {d} of size {} does not split evenly into {count} pieces",
                    global.shape[d]
                ))
                .tensor(global));
            }
            local[d] = global.shape[d] / count;
        }
        if let Some(a) = s.unreduced.iter().find(|a| mesh.axis(a).is_none()) {
            return Err(Error::invalid(format!("{what}: unreduced over axis \"{a}\", which mesh @{} lacks", s.mesh_name)));
        }
        let mut offsets = Vec::with_capacity(partitions);
        let mut first = Vec::with_capacity(partitions);
        let mut zero = Vec::with_capacity(partitions);
        let mut part = Vec::with_capacity(partitions);
        let unreduced: Vec<usize> = (0..mesh.axes.len()).filter(|&i| s.unreduced.contains(&mesh.axes[i].0)).collect();
        let parts = unreduced.iter().map(|&i| mesh.axes[i].1 as usize).product();
        for p in 0..n {
            let c = mesh.coords(mesh.position_of(p));
            let offset = s
                .dims
                .iter()
                .enumerate()
                .map(|(d, axes)| {
                    let index = axes.iter().fold(0, |index, a| {
                        let i = mesh.axis(a).unwrap_or(0);
                        index * mesh.axes[i].1 + c[i]
                    });
                    index * local[d]
                })
                .collect();
            offsets.push(offset);
            let used = |name: &str| s.dims.iter().flatten().chain(&s.unreduced).any(|a| a == name);
            first.push(mesh.axes.iter().enumerate().all(|(i, (name, _))| used(name) || c[i] == 0));
            zero.push(unreduced.iter().any(|&i| c[i] != 0));
            part.push(unreduced.iter().fold(0, |u, &i| u * mesh.axes[i].1 as usize + c[i] as usize));
        }
        Ok(Pieces { global: global.clone(), local: TensorType::new(local, global.elem), offsets, first, zero, parts, part })
    }

    /// Every device holds the whole value (no split, nothing unreduced).
    fn is_whole(&self) -> bool {
        self.local.shape == self.global.shape && !self.zero.contains(&true)
    }

    /// The global value from the devices' pieces (`pieces[p]` is partition p's).
    pub fn assemble(&self, pieces: &[Tensor]) -> Result<Tensor> {
        if self.is_whole() {
            return Ok(pieces[0].clone());
        }
        // The parts read per block: one, or the parts of an unreduced value, which are added.
        let mut blocks: Vec<(&[i64], Vec<&Tensor>)> = Vec::new();
        for (p, piece) in pieces.iter().enumerate().filter(|(p, _)| self.first[*p]) {
            match blocks.iter_mut().find(|(o, _)| *o == self.offsets[p].as_slice()) {
                Some((_, parts)) => parts.push(piece),
                None => blocks.push((&self.offsets[p], vec![piece])),
            }
        }
        let mut bytes = vec![0u8; self.global.byte_size()];
        for (offset, parts) in blocks {
            let summed;
            let block = match parts.as_slice() {
                [one] => *one,
                _ => {
                    summed = crate::collectives::data::sum(&parts)?;
                    &summed
                }
            };
            let src = block.bytes();
            for_each_row(&self.global.shape, &self.local.shape, offset, self.elem_size(), |g, b, n| {
                bytes[g..g + n].copy_from_slice(&src[b..b + n])
            });
        }
        Ok(Tensor::from_bytes(self.global.clone(), &bytes)?)
    }

    /// The devices' pieces of a global value.
    pub fn split(&self, global: &Tensor) -> Result<Vec<Tensor>> {
        if self.is_whole() {
            return Ok(vec![global.clone(); self.offsets.len()]);
        }
        self.offsets
            .iter()
            .zip(&self.zero)
            .map(|(offset, &zero)| {
                let mut bytes = vec![0u8; self.local.byte_size()];
                let src = global.bytes();
                if !zero {
                    for_each_row(&self.global.shape, &self.local.shape, offset, self.elem_size(), |g, b, n| {
                        bytes[b..b + n].copy_from_slice(&src[g..g + n])
                    });
                }
                Ok(Tensor::from_bytes(self.local.clone(), &bytes)?)
            })
            .collect()
    }

    fn elem_size(&self) -> usize {
        let n = self.global.num_elements();
        if n == 0 {
            0
        } else {
            self.global.byte_size() / n
        }
    }
}

/// Calls `f(global_byte, block_byte, bytes)` for each row of a block of shape `local` at `offset` in
/// a row-major value of shape `global` (a row: the block's last dimension, contiguous on both sides).
fn for_each_row(global: &[i64], local: &[i64], offset: &[i64], elem: usize, mut f: impl FnMut(usize, usize, usize)) {
    let rank = global.len();
    if local.iter().any(|&d| d == 0) || elem == 0 {
        return;
    }
    if rank == 0 {
        return f(0, 0, elem);
    }
    let mut strides = vec![1i64; rank];
    for d in (0..rank - 1).rev() {
        strides[d] = strides[d + 1] * global[d + 1];
    }
    let row = local[rank - 1] as usize * elem;
    let rows: i64 = local[..rank - 1].iter().product();
    let mut index = vec![0i64; rank - 1];
    for r in 0..rows as usize {
        let start: i64 = (0..rank).map(|d| (offset[d] + if d < rank - 1 { index[d] } else { 0 }) * strides[d]).sum();
        f(start as usize * elem, r * row, row);
        for d in (0..rank - 1).rev() {
            index[d] += 1;
            if index[d] < local[d] {
                break;
            }
            index[d] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use apu_compiler::ir::{ElementType, MeshAxes};

    fn mesh(axes: &[(&str, i64)]) -> MeshAxes {
        MeshAxes { axes: axes.iter().map(|(n, s)| (n.to_string(), *s)).collect(), ..Default::default() }
    }

    fn f32s(shape: &[i64], values: impl IntoIterator<Item = f32>) -> Tensor {
        let bytes: Vec<u8> = values.into_iter().flat_map(f32::to_le_bytes).collect();
        Tensor::from_bytes(TensorType::new(shape.to_vec(), ElementType::F32), &bytes).unwrap()
    }

    fn values(t: &Tensor) -> Vec<f32> {
        t.bytes().chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
    }

    fn sharding(m: MeshAxes, dims: &[&[&str]]) -> ValueSharding {
        ValueSharding {
            mesh_name: "mesh".into(),
            mesh: m,
            dims: dims.iter().map(|d| d.iter().map(|s| s.to_string()).collect()).collect(),
            unreduced: Vec::new(),
        }
    }

    #[test]
    fn an_unreduced_value_is_whole_on_one_device_and_the_devices_parts_add_up() {
        // Rows over x, unreduced over y (mesh x=2, y=2; partition p = 2 * x + y).
        let t = TensorType::new(vec![2, 2], ElementType::F32);
        let mut s = sharding(mesh(&[("x", 2), ("y", 2)]), &[&["x"], &[]]);
        s.unreduced = vec!["y".into()];
        let p = Pieces::new(&t, Some(&s), 4, "result 0").unwrap();
        assert_eq!(p.local.shape, vec![1, 2]);
        assert_eq!(p.zero, vec![false, true, false, true]);
        let pieces = p.split(&f32s(&[2, 2], [1., 2., 3., 4.])).unwrap();
        assert_eq!(pieces.iter().map(values).collect::<Vec<_>>(), vec![vec![1., 2.], vec![0., 0.], vec![3., 4.], vec![0., 0.]]);
        // Any parts that add up assemble to their sum.
        let parts = [f32s(&[1, 2], [1., 1.]), f32s(&[1, 2], [0., 1.]), f32s(&[1, 2], [2., 2.]), f32s(&[1, 2], [1., 2.])];
        assert_eq!(values(&p.assemble(&parts).unwrap()), vec![1., 2., 3., 4.]);
        // Unreduced only: not a split, but not whole on every device either.
        let mut r = sharding(mesh(&[("x", 2)]), &[&[]]);
        r.unreduced = vec!["x".into()];
        let p = Pieces::new(&TensorType::new(vec![2], ElementType::F32), Some(&r), 2, "result 0").unwrap();
        assert_eq!(values(&p.assemble(&[f32s(&[2], [1., 2.]), f32s(&[2], [10., 20.])]).unwrap()), vec![11., 22.]);
    }

    #[test]
    fn a_2d_mesh_splits_rows_and_columns_and_assembles_back() {
        // 4x6 over mesh x=2, y=2: rows over x, columns over y; partition p = 2 * x + y.
        let t = TensorType::new(vec![4, 6], ElementType::F32);
        let s = sharding(mesh(&[("x", 2), ("y", 2)]), &[&["x"], &["y"]]);
        let p = Pieces::new(&t, Some(&s), 4, "parameter 0").unwrap();
        assert_eq!(p.local.shape, vec![2, 3]);
        assert_eq!(p.offsets, vec![vec![0, 0], vec![0, 3], vec![2, 0], vec![2, 3]]);
        let global = f32s(&[4, 6], (0..24).map(|v| v as f32));
        let pieces = p.split(&global).unwrap();
        assert_eq!(values(&pieces[1]), vec![3., 4., 5., 9., 10., 11.]);
        assert_eq!(values(&pieces[2]), vec![12., 13., 14., 18., 19., 20.]);
        assert_eq!(values(&p.assemble(&pieces).unwrap()), values(&global));
    }

    #[test]
    fn values_replicated_over_an_axis_are_read_from_its_first_coordinate() {
        // Rows over y only: partitions (x=1, *) hold copies of (x=0, *), which are the ones read.
        let t = TensorType::new(vec![4], ElementType::F32);
        let s = sharding(mesh(&[("x", 2), ("y", 2)]), &[&["y"]]);
        let p = Pieces::new(&t, Some(&s), 4, "parameter 0").unwrap();
        assert_eq!(p.first, vec![true, true, false, false]);
        let pieces = vec![f32s(&[2], [1., 2.]), f32s(&[2], [3., 4.]), f32s(&[2], [9., 9.]), f32s(&[2], [9., 9.])];
        assert_eq!(values(&p.assemble(&pieces).unwrap()), vec![1., 2., 3., 4.]);
        // Two axes on one dimension: the first named varies slowest.
        let s = sharding(mesh(&[("x", 2), ("y", 2)]), &[&["y", "x"]]);
        let p = Pieces::new(&TensorType::new(vec![8], ElementType::F32), Some(&s), 4, "p").unwrap();
        assert_eq!(p.offsets, vec![vec![0], vec![4], vec![2], vec![6]]);
    }

    #[test]
    fn unsharded_values_are_whole_on_every_device_and_uneven_splits_are_refused() {
        let t = TensorType::new(vec![3], ElementType::F32);
        let p = Pieces::new(&t, None, 2, "result 0").unwrap();
        let g = f32s(&[3], [1., 2., 3.]);
        assert_eq!(p.split(&g).unwrap().len(), 2);
        let s = sharding(mesh(&[("x", 2)]), &[&["x"]]);
        let e = Pieces::new(&t, Some(&s), 2, "result 0").unwrap_err().to_string();
        assert!(e.contains("does not split evenly"), "{e}");
        let e = Pieces::new(&t, Some(&s), 4, "result 0").unwrap_err().to_string();
        assert!(e.contains("partitioned over 4"), "{e}");
        // A sharding that splits nothing is replicated, even over a mesh of another size (JAX's empty mesh).
        let empty = sharding(mesh(&[]), &[&[]]);
        let p = Pieces::new(&t, Some(&empty), 4, "parameter 0").unwrap();
        assert_eq!((p.local.shape.clone(), p.first.clone()), (vec![3], vec![true, false, false, false]));
    }
}
