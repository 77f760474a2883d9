//! Interprets a caller's `PJRT_Buffer_MemoryLayout` (tiled with `minor_to_major`, or explicit byte
//! strides) as byte strides over a shape, the form the runtime's strided copies take.

use super::api_error::ApiError;
use super::guard::{slice, ApiResult};
use apu_pjrt_api::*;
use apu_runtime::layout::{byte_strides_for_minor_to_major, dense_byte_strides};

/// Byte strides of `layout` for `shape`; NULL means dense row-major.
///
/// # Safety
/// A non-NULL `layout` must point to a valid layout whose arrays are valid.
pub(crate) unsafe fn layout_byte_strides(
    layout: *const PJRT_Buffer_MemoryLayout,
    shape: &[i64],
    elem_size: usize,
) -> ApiResult<Vec<i64>> {
    if layout.is_null() {
        return Ok(dense_byte_strides(shape, elem_size));
    }
    let layout = unsafe { &*layout };
    match layout.type_ {
        PJRT_Buffer_MemoryLayout_Type_Tiled => {
            let tiled = unsafe { &layout.__bindgen_anon_1.tiled };
            let minor_to_major = unsafe {
                slice(
                    tiled.minor_to_major,
                    tiled.minor_to_major_size,
                    "minor_to_major",
                )?
            };
            if tiled.num_tiles > 0 {
                let sizes =
                    unsafe { slice(tiled.tile_dim_sizes, tiled.num_tiles, "tile_dim_sizes")? };
                let total: usize = sizes.iter().sum();
                let dims = unsafe { slice(tiled.tile_dims, total, "tile_dims")? };
                // A tile of all-1 dimensions does not change the placement of elements.
                if dims.iter().any(|&d| d != 1) {
                    return Err(ApiError::unimplemented(format!(
                        "host layouts with tiles {dims:?} are not supported; apu copies dense or strided layouts"
                    )));
                }
            }
            byte_strides_for_minor_to_major(shape, minor_to_major, elem_size)
                .map_err(ApiError::from)
        }
        PJRT_Buffer_MemoryLayout_Type_Strides => {
            let strides = unsafe { &layout.__bindgen_anon_1.strides };
            let s = unsafe {
                slice(
                    strides.byte_strides,
                    strides.num_byte_strides,
                    "byte_strides",
                )?
            };
            if s.len() != shape.len() {
                return Err(ApiError::invalid_argument(format!(
                    "{} byte strides for a rank-{} shape {shape:?}",
                    s.len(),
                    shape.len()
                )));
            }
            Ok(s.to_vec())
        }
        other => Err(ApiError::invalid_argument(format!(
            "unknown memory layout type {other}"
        ))),
    }
}
