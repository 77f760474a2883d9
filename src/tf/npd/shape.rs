//! Deep copies of XLA's C shape struct: TensorFlow destroys both the shape it passes and the one we
//! return, so the copy must own its own heap lists. The struct layout is TensorFlow 2.17/2.18's, the only
//! versions on which apu runs as a NextPluggableDevice (see `host::why_npd_unavailable`).

use apu_pjrt_api::tf as c;

extern "C" {
    fn malloc(size: usize) -> *mut std::ffi::c_void;
}

const INLINED: i64 = c::XLA_C_API_MAX_INLINED as i64;

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

unsafe fn copy_layout(l: &mut c::XLA_Layout) {
    copy_int64_list(&mut l.minor_to_major);
    copy_int_list(&mut l.dim_level_types);
    copy_int_list(&mut l.dim_unique);
    copy_int_list(&mut l.dim_ordered);
    let n = l.tiles.size;
    let tiles: *mut c::XLA_Tile = if n > INLINED {
        l.tiles.__bindgen_anon_1.heap = heap_copy(l.tiles.__bindgen_anon_1.heap, n as usize);
        l.tiles.__bindgen_anon_1.heap
    } else {
        l.tiles.__bindgen_anon_1.inlined.as_mut_ptr()
    };
    if !tiles.is_null() {
        for i in 0..n.max(0) as usize {
            copy_int64_list(&mut (*tiles.add(i)).dimensions);
        }
    }
}

/// Makes `*dst` an independent copy of `*src`.
///
/// # Safety
/// `src` is a valid shape; `dst` is writable memory for one shape.
pub unsafe fn deep_copy(src: *const c::XLA_Shape, dst: *mut c::XLA_Shape) {
    std::ptr::copy_nonoverlapping(src, dst, 1);
    let d = &mut *dst;
    copy_int64_list(&mut d.dimensions);
    copy_bool_list(&mut d.dynamic_dimensions);
    if d.has_layout {
        copy_layout(&mut d.layout);
    }
    if d.ntuple_shapes > 0 && !d.tuple_shapes.is_null() {
        let n = d.ntuple_shapes as usize;
        let out = malloc(n * std::mem::size_of::<c::XLA_Shape>()) as *mut c::XLA_Shape;
        if !out.is_null() {
            for i in 0..n {
                deep_copy((*src).tuple_shapes.add(i), out.add(i));
            }
        }
        d.tuple_shapes = out;
    } else {
        d.tuple_shapes = std::ptr::null_mut();
        d.ntuple_shapes = 0;
    }
}
