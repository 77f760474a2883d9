//! Deep copies of XLA's C shape struct: TensorFlow destroys both the shape it passes and the one we
//! return, so the copy must own its own heap lists. Two layouts exist (`abi::ShapeAbi`): up to 2.19
//! `XLA_Layout` carries `dim_level_types`, `dim_unique` and `dim_ordered` (apu's header, `c::XLA_Shape`);
//! from 2.20 on it does not (`ShapeV220` below, same members otherwise; checked in the 2.20.0, 2.21.0 and
//! nightly 2.23 headers, `xla/stream_executor/tpu/c_api_decl.h`, later `xla/tpu/c_api_decl.h`).

use super::abi::ShapeAbi;
use apu_pjrt_api::tf as c;

extern "C" {
    fn malloc(size: usize) -> *mut std::ffi::c_void;
}

const INLINED: i64 = c::XLA_C_API_MAX_INLINED as i64;

/// `XLA_Layout` of TensorFlow 2.20+.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct LayoutV220 {
    pub minor_to_major: c::XLA_Int64List,
    pub tiles: c::XLA_TileList,
    pub index_primitive_type: i32,
    pub pointer_primitive_type: i32,
    pub element_size_in_bits: i64,
    pub memory_space: i64,
    pub dynamic_shape_metadata_prefix_bytes: i64,
    pub tail_padding_alignment_in_elements: i64,
}

/// `XLA_Shape` of TensorFlow 2.20+.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ShapeV220 {
    pub element_type: i32,
    pub dimensions: c::XLA_Int64List,
    pub dynamic_dimensions: c::XLA_BoolList,
    pub tuple_shapes: *mut ShapeV220,
    pub ntuple_shapes: i32,
    pub has_layout: bool,
    pub layout: LayoutV220,
}

/// Copies `n` elements to fresh heap memory. TensorFlow frees these lists with `delete[]`; for
/// trivially destructible element types that is `free` of the same block in libstdc++.
unsafe fn heap_copy<T: Copy>(src: *const T, n: usize) -> *mut T {
    if n == 0 || src.is_null() {
        return std::ptr::null_mut();
    }
    let p = malloc(n * std::mem::size_of::<T>()) as *mut T;
    if !p.is_null() {
        std::ptr::copy_nonoverlapping(src, p, n);
    }
    p
}

unsafe fn copy_int64_list(l: &mut c::XLA_Int64List) {
    if l.size > INLINED {
        l.__bindgen_anon_1.heap = heap_copy(l.__bindgen_anon_1.heap, l.size as usize);
    }
}

unsafe fn copy_int_list(l: &mut c::XLA_IntList) {
    if l.size > INLINED {
        l.__bindgen_anon_1.heap = heap_copy(l.__bindgen_anon_1.heap, l.size as usize);
    }
}

unsafe fn copy_bool_list(l: &mut c::XLA_BoolList) {
    if l.size > INLINED {
        l.__bindgen_anon_1.heap = heap_copy(l.__bindgen_anon_1.heap, l.size as usize);
    }
}

unsafe fn copy_tiles(t: &mut c::XLA_TileList) {
    let n = t.size;
    let tiles: *mut c::XLA_Tile = if n > INLINED {
        t.__bindgen_anon_1.heap = heap_copy(t.__bindgen_anon_1.heap, n as usize);
        t.__bindgen_anon_1.heap
    } else {
        t.__bindgen_anon_1.inlined.as_mut_ptr()
    };
    if !tiles.is_null() {
        for i in 0..n.max(0) as usize {
            copy_int64_list(&mut (*tiles.add(i)).dimensions);
        }
    }
}

/// The members both layouts share, and the layout-specific part of the layout copy.
trait Shape: Copy {
    fn lists(&mut self) -> (&mut c::XLA_Int64List, &mut c::XLA_BoolList);
    fn tuple(&mut self) -> (&mut *mut Self, &mut i32);
    fn has_layout(&self) -> bool;
    unsafe fn copy_layout(&mut self);
}

impl Shape for c::XLA_Shape {
    fn lists(&mut self) -> (&mut c::XLA_Int64List, &mut c::XLA_BoolList) {
        (&mut self.dimensions, &mut self.dynamic_dimensions)
    }
    fn tuple(&mut self) -> (&mut *mut Self, &mut i32) {
        (&mut self.tuple_shapes, &mut self.ntuple_shapes)
    }
    fn has_layout(&self) -> bool {
        self.has_layout
    }
    unsafe fn copy_layout(&mut self) {
        let l = &mut self.layout;
        copy_int64_list(&mut l.minor_to_major);
        copy_int_list(&mut l.dim_level_types);
        copy_int_list(&mut l.dim_unique);
        copy_int_list(&mut l.dim_ordered);
        copy_tiles(&mut l.tiles);
    }
}

impl Shape for ShapeV220 {
    fn lists(&mut self) -> (&mut c::XLA_Int64List, &mut c::XLA_BoolList) {
        (&mut self.dimensions, &mut self.dynamic_dimensions)
    }
    fn tuple(&mut self) -> (&mut *mut Self, &mut i32) {
        (&mut self.tuple_shapes, &mut self.ntuple_shapes)
    }
    fn has_layout(&self) -> bool {
        self.has_layout
    }
    unsafe fn copy_layout(&mut self) {
        copy_int64_list(&mut self.layout.minor_to_major);
        copy_tiles(&mut self.layout.tiles);
    }
}

unsafe fn deep_copy_as<S: Shape>(src: *const S, dst: *mut S) {
    std::ptr::copy_nonoverlapping(src, dst, 1);
    let d = &mut *dst;
    let (dims, dynamic) = d.lists();
    copy_int64_list(dims);
    copy_bool_list(dynamic);
    if d.has_layout() {
        d.copy_layout();
    }
    let (tuple, count) = d.tuple();
    if *count > 0 && !tuple.is_null() {
        let n = *count as usize;
        let src_tuple = *tuple;
        let out = malloc(n * std::mem::size_of::<S>()) as *mut S;
        if !out.is_null() {
            for i in 0..n {
                deep_copy_as(src_tuple.add(i), out.add(i));
            }
        }
        *tuple = out;
    } else {
        *tuple = std::ptr::null_mut();
        *count = 0;
    }
}

/// Makes `*dst` an independent copy of `*src`, both in the layout `abi` says TensorFlow uses.
///
/// # Safety
/// `src` is a valid shape of that layout; `dst` is writable memory for one.
pub unsafe fn deep_copy(abi: ShapeAbi, src: *const std::ffi::c_void, dst: *mut std::ffi::c_void) {
    match abi {
        ShapeAbi::WithDimLists => deep_copy_as(src as *const c::XLA_Shape, dst as *mut c::XLA_Shape),
        ShapeAbi::WithoutDimLists => deep_copy_as(src as *const ShapeV220, dst as *mut ShapeV220),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sizes of the two layouts on x86-64, from the headers: the 2.20+ one is three 32-byte lists shorter.
    #[test]
    fn layout_sizes() {
        assert_eq!(std::mem::size_of::<c::XLA_Shape>() - std::mem::size_of::<ShapeV220>(), 3 * 32);
        assert_eq!(std::mem::offset_of!(ShapeV220, layout), std::mem::offset_of!(c::XLA_Shape, layout));
    }

    /// A 2.20+ shape with a heap dimension list and a tuple element is copied without sharing memory.
    #[test]
    fn v220_deep_copy_owns_its_lists() {
        unsafe {
            let dims: Vec<i64> = (1..=8).collect();
            let mut inner: ShapeV220 = std::mem::zeroed();
            inner.element_type = 11;
            inner.dimensions.size = 8;
            inner.dimensions.__bindgen_anon_1.heap = dims.as_ptr() as *mut i64;
            inner.has_layout = true;
            inner.layout.minor_to_major.size = 2;
            inner.layout.minor_to_major.__bindgen_anon_1.inlined[..2].copy_from_slice(&[1, 0]);
            inner.layout.memory_space = 5;
            let mut outer: ShapeV220 = std::mem::zeroed();
            outer.tuple_shapes = &mut inner;
            outer.ntuple_shapes = 1;
            let mut out: ShapeV220 = std::mem::zeroed();
            deep_copy(ShapeAbi::WithoutDimLists, &outer as *const _ as *const _, &mut out as *mut _ as *mut _);
            assert_eq!(out.ntuple_shapes, 1);
            assert_ne!(out.tuple_shapes, outer.tuple_shapes);
            let t = &*out.tuple_shapes;
            assert_eq!(t.element_type, 11);
            assert_ne!(t.dimensions.__bindgen_anon_1.heap, dims.as_ptr() as *mut i64);
            assert_eq!(std::slice::from_raw_parts(t.dimensions.__bindgen_anon_1.heap, 8), &dims[..]);
            assert_eq!(&t.layout.minor_to_major.__bindgen_anon_1.inlined[..2], &[1, 0]);
            assert_eq!(t.layout.memory_space, 5);
        }
    }
}
