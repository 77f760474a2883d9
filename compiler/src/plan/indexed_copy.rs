//! `gather`, and `scatter` whose update computation overwrites or adds, as copies of boxes that an
//! index tensor places: gather and overwriting scatter move whole elements without arithmetic, so
//! they are byte copies for every element type; an adding scatter (the gradient of a gather, e.g. of
//! an embedding lookup) adds each run into place for the types `Combine::Add` covers. Without it they ran in the interpreter, which converts every element of the
//! operand on every call: a loop that sets one row of a carried matrix per iteration (JAX's LU,
//! `x.at[i].set(row)`) paid for the whole matrix each time.
//!
//! The geometry is the spec's, fixed at plan time: batch position `b` runs row-major over the index
//! tensor's dimensions other than `index_vector_dim`; its start vector (component `k` names big
//! dimension `start_map[k]`) places a box of `sizes` in the big tensor (gather's operand, scatter's
//! input), which is copied to (gather) or from (scatter) the small tensor (gather's result, scatter's
//! updates). Batching dimensions are left to the interpreter.

use super::SlotId;
use crate::ir::{ElementType, GatherDims, ScatterDims, TensorType};

#[derive(Clone, Debug, PartialEq)]
pub struct IndexedCopyKernel {
    pub out: SlotId,
    /// Gather: the operand. Scatter: the input, which `out` starts as.
    pub big: SlotId,
    pub indices: SlotId,
    /// Scatter: the updates; gather: `None`.
    pub updates: Option<SlotId>,
    pub geometry: Geometry,
    pub combine: Combine,
    /// Scatter only: the input's last use is this step, so its buffer may be written in place when
    /// nothing else holds it.
    pub in_place: bool,
}

/// What a scatter does with an update and the element it lands on (gather: `Replace`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Combine {
    Replace,
    /// `current + update` in the element type: IEEE addition for f32 and f64 (what the
    /// interpreter's f64 sum rounded once gives), wrapping for integers of 8 to 64 bits.
    Add(ElementType),
}

impl Combine {
    /// The combiner of a scatter's update computation for element type `elem`, if the kernel has it.
    pub fn of_region(region: &crate::ir::Region, elem: ElementType) -> Option<Combine> {
        use crate::ir::{BinaryOp, OpKind};
        if region.params.len() != 2 {
            return None;
        }
        match region.ops.as_slice() {
            [] if region.results == region.params[1..] => Some(Combine::Replace),
            [op] if op.kind == OpKind::Binary(BinaryOp::Add)
                && region.results == op.results
                && (op.operands == region.params || op.operands.iter().rev().eq(region.params.iter())) =>
            {
                adds(elem).then_some(Combine::Add(elem))
            }
            _ => None,
        }
    }
}

/// The element types an adding scatter is planned for: the ones whose sum the kernel forms exactly
/// as the interpreter does (sub-f32 floats would need the interpreter's single rounding from f64).
pub fn adds(elem: ElementType) -> bool {
    use ElementType as E;
    matches!(elem, E::F32 | E::F64 | E::S8 | E::S16 | E::S32 | E::S64 | E::U8 | E::U16 | E::U32 | E::U64)
}

/// Shapes and strides (in elements) of one gather or scatter.
#[derive(Clone, Debug, PartialEq)]
pub struct Geometry {
    pub big_shape: Vec<usize>,
    /// Row-major strides of the big tensor.
    pub big_strides: Vec<usize>,
    pub elem_bytes: usize,
    pub index_elem: ElementType,
    /// The index tensor's dimensions other than `index_vector_dim`, and their strides in it.
    pub batch_shape: Vec<usize>,
    pub batch_index_strides: Vec<usize>,
    /// Stride of `index_vector_dim` in the index tensor (0 when it is the implicit trailing one).
    pub component_stride: usize,
    /// Big dimension of each start-vector component.
    pub start_map: Vec<usize>,
    /// Stride in the small tensor of each batch dimension.
    pub batch_small_strides: Vec<usize>,
    /// Box size per big dimension, and the stride in the small tensor of each (0 for the size-1
    /// dimensions the small tensor does not have).
    pub sizes: Vec<usize>,
    pub box_small_strides: Vec<usize>,
    /// Scatter: a box that does not fit is skipped whole (as XLA and the interpreter do). Gather:
    /// its start is clamped so it fits (spec).
    pub skip_outside: bool,
    /// (big dimension, position in `batch_shape`): batching dimensions, whose start is the batch
    /// position's coordinate there.
    pub batch_starts: Vec<(usize, usize)>,
}

/// Index element types the kernel reads (whole bytes; the interpreter takes the rest).
fn index_type_ok(elem: ElementType) -> bool {
    use ElementType as E;
    matches!(elem, E::S8 | E::S16 | E::S32 | E::S64 | E::U8 | E::U16 | E::U32 | E::U64)
}

fn dims(v: &[i64], rank: usize) -> Option<Vec<usize>> {
    v.iter().map(|&d| usize::try_from(d).ok().filter(|&d| d < rank)).collect()
}

fn shape(t: &TensorType) -> Option<Vec<usize>> {
    t.shape.iter().map(|&d| usize::try_from(d).ok()).collect()
}

fn row_major(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// The index tensor's part: (batch shape, batch strides, component stride, component count).
fn index_layout(indices: &TensorType, index_vector_dim: i64) -> Option<(Vec<usize>, Vec<usize>, usize, usize)> {
    let ishape = shape(indices)?;
    let ivd = usize::try_from(index_vector_dim).ok().filter(|&d| d <= ishape.len())?;
    let strides = row_major(&ishape);
    let batch: Vec<usize> = (0..ishape.len()).filter(|&d| d != ivd).collect();
    let (component_stride, count) = if ivd < ishape.len() { (strides[ivd], ishape[ivd]) } else { (0, 1) };
    Some((batch.iter().map(|&d| ishape[d]).collect(), batch.iter().map(|&d| strides[d]).collect(), component_stride, count))
}

/// Pairs each batching dimension of the big tensor with the position in the batch shape of its
/// index dimension (the index tensor's dimensions other than `index_vector_dim`, in order).
fn batch_starts(big_dims: &[i64], index_dims: &[i64], big_rank: usize, indices: &TensorType, index_vector_dim: i64) -> Option<Vec<(usize, usize)>> {
    let big = dims(big_dims, big_rank)?;
    let idx = dims(index_dims, indices.rank())?;
    if big.len() != idx.len() {
        return None;
    }
    let ivd = usize::try_from(index_vector_dim).ok()?;
    big.into_iter()
        .zip(idx)
        .map(|(b, i)| match i.cmp(&ivd) {
            std::cmp::Ordering::Less => Some((b, i)),
            std::cmp::Ordering::Greater => Some((b, i - 1)),
            std::cmp::Ordering::Equal => None,
        })
        .collect()
}

/// The geometry of a gather the kernel handles, or `None` (the interpreter runs it).
pub fn gather(operand: &TensorType, indices: &TensorType, d: &GatherDims, slice_sizes: &[i64], result: &TensorType) -> Option<Geometry> {
    if !index_type_ok(indices.elem) || result.elem != operand.elem {
        return None;
    }
    let big_shape = shape(operand)?;
    let rank = big_shape.len();
    let out_shape = shape(result)?;
    let offset_dims = dims(&d.offset_dims, out_shape.len())?;
    let batch_starts = batch_starts(&d.operand_batching_dims, &d.start_indices_batching_dims, rank, indices, d.index_vector_dim)?;
    // Batching dimensions are, like collapsed ones, one element of the box not in the result.
    let collapsed: Vec<usize> = dims(&d.collapsed_slice_dims, rank)?.into_iter().chain(batch_starts.iter().map(|b| b.0)).collect();
    let start_map = dims(&d.start_index_map, rank)?;
    let sizes: Vec<usize> = slice_sizes.iter().map(|&s| usize::try_from(s).ok()).collect::<Option<_>>()?;
    if sizes.len() != rank || sizes.iter().zip(&big_shape).any(|(s, n)| s > n) || collapsed.iter().any(|&c| sizes[c] != 1) {
        return None;
    }
    let (batch_shape, batch_index_strides, component_stride, count) = index_layout(indices, d.index_vector_dim)?;
    let out_strides = row_major(&out_shape);
    let result_batch: Vec<usize> = (0..out_shape.len()).filter(|r| !offset_dims.contains(r)).collect();
    let window: Vec<usize> = (0..rank).filter(|r| !collapsed.contains(r)).collect();
    if count != start_map.len()
        || window.len() != offset_dims.len()
        || result_batch.iter().map(|&r| out_shape[r]).ne(batch_shape.iter().copied())
        || window.iter().zip(&offset_dims).any(|(&w, &o)| sizes[w] != out_shape[o])
    {
        return None;
    }
    let mut box_small_strides = vec![0usize; rank];
    for (&w, &o) in window.iter().zip(&offset_dims) {
        box_small_strides[w] = out_strides[o];
    }
    Some(Geometry {
        big_strides: row_major(&big_shape),
        big_shape,
        elem_bytes: operand.elem.byte_size(),
        index_elem: indices.elem,
        batch_shape,
        batch_index_strides,
        component_stride,
        start_map,
        batch_small_strides: result_batch.iter().map(|&r| out_strides[r]).collect(),
        sizes,
        box_small_strides,
        skip_outside: false,
        batch_starts,
    })
}

/// The geometry of a one-input scatter the kernel handles (its update computation must be one
/// [`Combine`]; the caller checks that), or `None`. When updates may overlap (`unique_indices` false), the
/// kernel's order (batch position, then box) must give every element its updates in the
/// interpreter's order (row-major over the updates). That holds when every scatter dimension of the
/// updates precedes every window one, and also when the box is one element wide along every
/// dimension an index moves (a resize's gradient, an embedding's): two updates then land on the same
/// element only with the same window position, and both orders take them by batch position.
pub fn scatter(input: &TensorType, indices: &TensorType, updates: &TensorType, d: &ScatterDims, unique_indices: bool) -> Option<Geometry> {
    if !index_type_ok(indices.elem) || updates.elem != input.elem {
        return None;
    }
    let big_shape = shape(input)?;
    let rank = big_shape.len();
    let upd_shape = shape(updates)?;
    let window_dims = dims(&d.update_window_dims, upd_shape.len())?;
    let batch_starts = batch_starts(&d.input_batching_dims, &d.scatter_indices_batching_dims, rank, indices, d.index_vector_dim)?;
    let inserted: Vec<usize> = dims(&d.inserted_window_dims, rank)?.into_iter().chain(batch_starts.iter().map(|b| b.0)).collect();
    let start_map = dims(&d.scatter_dims_to_operand_dims, rank)?;
    let (batch_shape, batch_index_strides, component_stride, count) = index_layout(indices, d.index_vector_dim)?;
    let upd_strides = row_major(&upd_shape);
    let scatter_dims: Vec<usize> = (0..upd_shape.len()).filter(|u| !window_dims.contains(u)).collect();
    let window: Vec<usize> = (0..rank).filter(|r| !inserted.contains(r)).collect();
    let ordered = scatter_dims.iter().all(|&s| window_dims.iter().all(|&w| s < w));
    if count != start_map.len()
        || window.len() != window_dims.len()
        || scatter_dims.iter().map(|&u| upd_shape[u]).ne(batch_shape.iter().copied())
    {
        return None;
    }
    let mut sizes = vec![1usize; rank];
    let mut box_small_strides = vec![0usize; rank];
    for (&w, &u) in window.iter().zip(&window_dims) {
        sizes[w] = upd_shape[u];
        box_small_strides[w] = upd_strides[u];
    }
    let narrow_where_indexed = start_map.iter().all(|&d| sizes[d] == 1);
    if !(unique_indices || ordered || narrow_where_indexed) {
        return None;
    }
    Some(Geometry {
        big_strides: row_major(&big_shape),
        big_shape,
        elem_bytes: input.elem.byte_size(),
        index_elem: indices.elem,
        batch_shape,
        batch_index_strides,
        component_stride,
        start_map,
        batch_small_strides: scatter_dims.iter().map(|&u| upd_strides[u]).collect(),
        sizes,
        box_small_strides,
        skip_outside: true,
        batch_starts,
    })
}
