//! The Shardings extension. A program on one device has no shardings to report and says so with
//! NULL arrays (without this extension, clients look for output shardings by fetching
//! `PJRT_Executable_OptimizedProgram` and compiling that text to HLO after every compile, only to
//! find none). A partitioned program (decision 64) reports, per parameter and output, the
//! `xla.OpSharding` of its pieces: JAX takes the shardings of arguments and results it left
//! unspecified from here (jax/_src/interpreters/pxla.py, `_get_in_shardings_from_xla` /
//! `get_out_shardings_from_executable`, jax 0.10.2-0.12).

use super::executable::ExecutableHandle;
use super::guard::{args_min_size, entry, handle};
use super::wire;
use apu_runtime::client::partition::Pieces;
use std::os::raw::c_char;
use apu_pjrt_api::*;

args_min_size! {
    PJRT_Shardings_PJRT_Executable_ParameterShardings_Args => sharding_sizes,
    PJRT_Shardings_PJRT_Executable_OutputShardings_Args => sharding_sizes,
}

pub(crate) unsafe extern "C" fn executable_parameter_shardings(
    args: *mut PJRT_Shardings_PJRT_Executable_ParameterShardings_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Shardings_PJRT_Executable_ParameterShardings", args, |a| {
        let e = &unsafe { handle::<_, ExecutableHandle>(a.executable, "executable")? }.exe;
        a.num_parameters = e.param_types.len();
        (a.shardings, a.sharding_sizes) = e.param_shardings.as_ref().map_or((std::ptr::null(), std::ptr::null()), |l| l.pointers());
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn executable_output_shardings(
    args: *mut PJRT_Shardings_PJRT_Executable_OutputShardings_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Shardings_PJRT_Executable_OutputShardings", args, |a| {
        let e = &unsafe { handle::<_, ExecutableHandle>(a.executable, "executable")? }.exe;
        a.num_outputs = e.output_shardings.as_ref().map_or(e.output_types.len(), |l| l.bytes.len());
        (a.shardings, a.sharding_sizes) = e.output_shardings.as_ref().map_or((std::ptr::null(), std::ptr::null()), |l| l.pointers());
        Ok(())
    })
}

/// Serialized `xla.OpSharding`s with the C arrays pointing at them.
pub(crate) struct ShardingList {
    bytes: Vec<Vec<u8>>,
    ptrs: Vec<*const c_char>,
    sizes: Vec<usize>,
}

// SAFETY: the pointers point into `bytes`, which is never mutated after construction.
unsafe impl Send for ShardingList {}
unsafe impl Sync for ShardingList {}

impl ShardingList {
    pub fn new(pieces: &[Pieces]) -> ShardingList {
        let bytes: Vec<Vec<u8>> = pieces.iter().map(op_sharding).collect();
        let ptrs = bytes.iter().map(|b| b.as_ptr() as *const c_char).collect();
        let sizes = bytes.iter().map(Vec::len).collect();
        ShardingList { bytes, ptrs, sizes }
    }

    /// The output shardings: as [`ShardingList::new`], except that a program with no outputs has one
    /// sharding, that of its empty result tuple (replicated), as XLA reports it; jaxlib refuses an
    /// empty list for an empty tuple.
    pub fn outputs(pieces: &[Pieces]) -> ShardingList {
        let mut list = ShardingList::new(pieces);
        if pieces.is_empty() {
            list.bytes.push(Vec::new());
            list.ptrs = vec![list.bytes[0].as_ptr() as *const c_char];
            list.sizes = vec![0];
        }
        list
    }

    fn pointers(&self) -> (*const *const c_char, *const usize) {
        debug_assert_eq!(self.ptrs.len(), self.bytes.len());
        (self.ptrs.as_ptr(), self.sizes.as_ptr())
    }
}

/// The `xla.OpSharding` of a value's pieces: REPLICATED when every device holds the whole value,
/// UNREDUCED when every device holds a part of it; else OTHER with one tile per piece (tile grid =
/// pieces per dimension, then a dimension of unreduced parts and one of copies where there are
/// several, named by `last_tile_dims`, or by `replicate_on_last_tile_dim` for copies alone), whose
/// devices are partition numbers, as in XLA.
pub(crate) fn op_sharding(p: &Pieces) -> Vec<u8> {
    const UNREDUCED: i64 = 6;
    const REPLICATED: i64 = 0;
    let n = p.offsets.len();
    let counts: Vec<i64> = p.global.shape.iter().zip(&p.local.shape).map(|(g, l)| if *l == 0 { 1 } else { g / l }).collect();
    let tiles: i64 = counts.iter().product();
    let parts = p.parts.max(1) as i64;
    let mut out = Vec::new();
    let copies = n as i64 / (tiles * parts).max(1);
    if tiles == 1 && parts == 1 {
        return out; // type REPLICATED is 0, proto3's default: nothing to write
    }
    if tiles == 1 && copies == 1 {
        wire::int(&mut out, 1, UNREDUCED);
        return out;
    }
    // Partitions of each tile, in partition order; tiles in row-major order.
    let mut by_tile: Vec<Vec<i64>> = vec![Vec::new(); tiles as usize];
    for (partition, offset) in p.offsets.iter().enumerate() {
        let tile = offset
            .iter()
            .zip(&p.local.shape)
            .zip(&counts)
            .fold(0, |t, ((o, l), c)| t * c + if *l == 0 { 0 } else { o / l });
        by_tile[tile as usize].push(partition as i64);
    }
    // Within a tile: by unreduced part, then (partition order) by copy.
    for tile in &mut by_tile {
        tile.sort_by_key(|&partition| p.part.get(partition as usize).copied().unwrap_or(0));
    }
    let mut dims = counts.clone();
    let mut last_tile_dims = Vec::new();
    if parts > 1 {
        dims.push(parts);
        last_tile_dims.push(UNREDUCED);
    }
    if copies > 1 {
        dims.push(copies);
        last_tile_dims.push(REPLICATED);
    }
    let devices: Vec<i64> = by_tile.into_iter().flatten().collect();
    wire::int(&mut out, 1, 3); // type OTHER
    wire::packed(&mut out, 3, &dims); // tile_assignment_dimensions
    wire::packed(&mut out, 4, &devices); // tile_assignment_devices
    if parts > 1 {
        wire::packed(&mut out, 8, &last_tile_dims); // last_tile_dims
    } else if copies > 1 {
        wire::int(&mut out, 6, 1); // replicate_on_last_tile_dim
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use apu_compiler::ir::{ElementType, MeshAxes, TensorType, ValueSharding};

    fn pieces(shape: &[i64], mesh: &[(&str, i64)], dims: &[&[&str]]) -> Pieces {
        let s = ValueSharding {
            mesh_name: "mesh".into(),
            mesh: MeshAxes { axes: mesh.iter().map(|(n, s)| (n.to_string(), *s)).collect(), ..Default::default() },
            dims: dims.iter().map(|d| d.iter().map(|x| x.to_string()).collect()).collect(),
            unreduced: Vec::new(),
        };
        let n = mesh.iter().map(|m| m.1).product::<i64>() as usize;
        Pieces::new(&TensorType::new(shape.to_vec(), ElementType::F32), Some(&s), n, "v").unwrap()
    }

    fn unreduced(shape: &[i64], mesh: &[(&str, i64)], dims: &[&[&str]], axes: &[&str]) -> Pieces {
        let s = ValueSharding {
            mesh_name: "mesh".into(),
            mesh: MeshAxes { axes: mesh.iter().map(|(n, s)| (n.to_string(), *s)).collect(), ..Default::default() },
            dims: dims.iter().map(|d| d.iter().map(|x| x.to_string()).collect()).collect(),
            unreduced: axes.iter().map(|a| a.to_string()).collect(),
        };
        let n = mesh.iter().map(|m| m.1).product::<i64>() as usize;
        Pieces::new(&TensorType::new(shape.to_vec(), ElementType::F32), Some(&s), n, "v").unwrap()
    }

    #[test]
    fn unreduced_values_are_named_by_last_tile_dims() {
        // The bytes jaxlib 0.10.2 and 0.12.0.1 compare equal to their own HloSharding of the same
        // NamedSharding on a 2x2 mesh (x, y) (integration notes).
        let xy = [("x", 2), ("y", 2)];
        // P('x', None, unreduced={'y'}): {devices=[2,1,2]0,1,2,3 last_tile_dims={unreduced}}.
        assert_eq!(op_sharding(&unreduced(&[4, 4], &xy, &[&["x"], &[]], &["y"])), vec![8, 3, 26, 3, 2, 1, 2, 34, 4, 0, 1, 2, 3, 66, 1, 6]);
        // P(None, None, unreduced={'y'}): parts along y, copies along x: devices 0,2,1,3.
        assert_eq!(
            op_sharding(&unreduced(&[4, 4], &xy, &[&[], &[]], &["y"])),
            vec![8, 3, 26, 4, 1, 1, 2, 2, 34, 4, 0, 2, 1, 3, 66, 2, 6, 0]
        );
        // Unreduced over every axis: type UNREDUCED alone.
        assert_eq!(op_sharding(&unreduced(&[4, 4], &xy, &[&[], &[]], &["x", "y"])), vec![8, 6]);
    }

    #[test]
    fn op_shardings_name_tiles_by_partition() {
        // Rows over x=4: tiles [4], devices 0..4.
        assert_eq!(op_sharding(&pieces(&[8, 3], &[("x", 4)], &[&["x"], &[]])), vec![8, 3, 26, 2, 4, 1, 34, 4, 0, 1, 2, 3]);
        // Replicated over the whole mesh: REPLICATED (all defaults).
        assert!(op_sharding(&pieces(&[8], &[("x", 4)], &[&[]])).is_empty());
        // Columns over y of a 2x2 mesh, copies over x: tiles [1, 2] + 2 copies; tile 0 holds partitions 0 and 2.
        assert_eq!(
            op_sharding(&pieces(&[2, 4], &[("x", 2), ("y", 2)], &[&[], &["y"]])),
            vec![8, 3, 26, 3, 1, 2, 2, 34, 4, 0, 2, 1, 3, 48, 1]
        );
    }
}
