//! One handler call: the step's operands and fresh result buffers become an XLA FFI call frame
//! (buffers, results, attributes sorted by name), the handler runs on this thread, and its error,
//! if any, becomes the error of the execution with the handler's message.

use super::abi::*;
use super::context::InvokeContext;
use crate::Tensor;
use apu_compiler::ir::{ElementType, FfiAttr, TensorType};
use apu_compiler::plan::TypedFfiCall;
use apu_compiler::{Error, Result};
use std::ffi::{c_int, c_void};

/// `XLA_FFI_DataType` of an element type: XLA's primitive type numbers. None for the sub-byte
/// integers and floats, which apu stores one per byte and XLA packs.
pub fn data_type(e: ElementType) -> Option<c_int> {
    use ElementType as E;
    Some(match e {
        E::Pred => 1,
        E::S8 => 2,
        E::S16 => 3,
        E::S32 => 4,
        E::S64 => 5,
        E::U8 => 6,
        E::U16 => 7,
        E::U32 => 8,
        E::U64 => 9,
        E::F16 => 10,
        E::F32 => 11,
        E::F64 => 12,
        E::C64 => 15,
        E::BF16 => 16,
        E::C128 => 18,
        E::F8E5M2 => 19,
        E::F8E4M3FN => 20,
        E::F8E4M3B11FNUZ => 23,
        E::F8E5M2FNUZ => 24,
        E::F8E4M3FNUZ => 25,
        E::F8E4M3 => 28,
        E::F8E3M4 => 29,
        E::F8E8M0FNU => 33,
        _ => return None,
    })
}

/// The error of a call to a target no handler is registered for, the same at compile and at run time.
fn unregistered(target: &str) -> Error {
    Error::unimplemented(format!(
        "custom_call @{target}: no FFI handler named {target:?} is registered for platform apu \
         (register it with jax.ffi.register_ffi_target({target:?}, ..., platform=\"apu\"))"
    ))
}

/// Checks at compile time what [`call`] needs: a registered handler and element types FFI can name.
pub fn check(call: &TypedFfiCall<'_>, operands: &[TensorType], results: &[TensorType]) -> Result<()> {
    let (target, attributes) = (call.target, call.attributes);
    for &(r, o) in call.aliases {
        match (results.get(r), operands.get(o)) {
            (Some(rt), Some(ot)) if rt == ot => {}
            (rt, ot) => {
                return Err(Error::invalid(format!(
                    "custom_call @{target}: result {r} ({}) aliases operand {o} ({}), which must have the same type",
                    rt.map_or("missing".into(), |t| t.to_string()),
                    ot.map_or("missing".into(), |t| t.to_string())
                )))
            }
        }
    }
    if super::registry::lookup(target).is_none() {
        return Err(unregistered(target));
    }
    for (what, t) in operands.iter().map(|t| ("operand", t)).chain(results.iter().map(|t| ("result", t))) {
        if data_type(t.elem).is_none() {
            return Err(Error::unimplemented(format!("custom_call @{target}: an FFI {what} of type {t}")));
        }
    }
    check_layouts(target, "operand", call.operand_layouts, operands)?;
    check_layouts(target, "result", call.result_layouts, results)?;
    check_attributes(target, attributes)
}

fn check_layouts(target: &str, what: &str, layouts: &[Vec<i64>], types: &[TensorType]) -> Result<()> {
    if layouts.is_empty() {
        return Ok(());
    }
    if layouts.len() != types.len() {
        return Err(Error::invalid(format!("custom_call @{target}: {} {what} layouts for {} {what}s", layouts.len(), types.len())));
    }
    for (i, (l, t)) in layouts.iter().zip(types).enumerate() {
        crate::layout::byte_strides_for_minor_to_major(&t.shape, l, 1)
            .map_err(|e| Error::invalid(format!("custom_call @{target}: {what} {i} ({t}): {}", e.message)))?;
    }
    Ok(())
}

/// Whether `layout` (minor-to-major) is row-major for `rank` dimensions, which is how apu stores values.
fn is_row_major(layout: Option<&Vec<i64>>) -> bool {
    layout.is_none_or(|l| l.iter().rev().copied().eq(0..l.len() as i64))
}

/// Copies between apu's row-major order and the physical order of `layout` (minor-to-major) with the
/// strided copies host buffers use (`crate::layout`): `to_physical` reads row-major `src` and writes
/// the layout's order, otherwise the reverse. The layout was checked at compile time.
fn relayout(src: &[u8], dims: &[i64], layout: &[i64], elem_size: usize, to_physical: bool) -> Result<Vec<u8>> {
    let strides = crate::layout::byte_strides_for_minor_to_major(dims, layout, elem_size)?;
    let mut out = vec![0u8; src.len()];
    if to_physical {
        crate::layout::scatter_strided(src, &mut out, 0, dims, &strides, elem_size)?;
    } else {
        crate::layout::gather_strided_into(src, 0, dims, &strides, elem_size, &mut out)?;
    }
    Ok(out)
}

/// The copies of `tensors` the handler sees in their non-row-major `layouts` (None: the tensor as is).
fn physical_copies(tensors: &[Tensor], layouts: &[Vec<i64>]) -> Result<Vec<Option<Vec<u8>>>> {
    tensors
        .iter()
        .enumerate()
        .map(|(i, t)| match layouts.get(i) {
            Some(l) if !is_row_major(Some(l)) => relayout(t.bytes(), &t.ty.shape, l, t.ty.elem.byte_size(), true).map(Some),
            _ => Ok(None),
        })
        .collect()
}

fn check_attributes(target: &str, attributes: &[(String, FfiAttr)]) -> Result<()> {
    for (name, value) in attributes {
        let elem = match value {
            FfiAttr::Scalar(l) | FfiAttr::Array(l) => l.ty.elem,
            FfiAttr::String(_) => continue,
            FfiAttr::Dict(entries) => {
                check_attributes(target, entries)?;
                continue;
            }
        };
        if data_type(elem).is_none() || elem.is_complex() {
            return Err(Error::unimplemented(format!("custom_call @{target}: FFI attribute '{name}' of element type {elem}")));
        }
    }
    Ok(())
}

/// Runs handler `target` on `args`, returning results of `result_types`.
pub fn call(call: &TypedFfiCall<'_>, args: &[Tensor], result_types: &[TensorType], context: &InvokeContext) -> Result<Vec<Tensor>> {
    let (target, attributes) = (call.target, call.attributes);
    let handler = super::registry::lookup(target).ok_or_else(|| unregistered(target))?;
    let mut results: Vec<Tensor> = result_types.iter().map(|t| Tensor::zeroed(t.clone())).collect();
    // An aliased result shares its operand's buffer in XLA; here it starts as a copy of it, which is
    // what a handler that updates the result in place reads (the operand is never written).
    for &(r, o) in call.aliases {
        if let (Some(res), Some(arg)) = (results.get_mut(r), args.get(o)) {
            let bytes = std::sync::Arc::get_mut(&mut res.data).expect("a fresh result buffer has one owner");
            bytes.as_mut_slice().copy_from_slice(arg.bytes());
        }
    }
    // Values the handler wants in another layout than row-major get a copy in that layout; results
    // come back through theirs after the call.
    let physical_args = physical_copies(args, call.operand_layouts)?;
    let mut physical_results = physical_copies(&results, call.result_layouts)?;
    let mut arg_buffers: Vec<Buffer> = args
        .iter()
        .zip(&physical_args)
        .map(|(t, physical)| {
            let p = physical.as_ref().map_or(t.bytes().as_ptr(), |v| v.as_ptr());
            buffer(target, p as *mut u8, &t.ty)
        })
        .collect::<Result<_>>()?;
    let mut ret_buffers: Vec<Buffer> = results
        .iter_mut()
        .zip(physical_results.iter_mut())
        .map(|(t, physical)| {
            let p = match physical {
                Some(v) => v.as_mut_ptr(),
                None => std::sync::Arc::get_mut(&mut t.data).expect("a fresh result buffer has one owner").as_mut_ptr(),
            };
            buffer(target, p, &t.ty)
        })
        .collect::<Result<_>>()?;
    let mut arg_types = vec![ARG_BUFFER; arg_buffers.len()];
    let mut ret_types = vec![RET_BUFFER; ret_buffers.len()];
    let mut arg_ptrs: Vec<*mut c_void> = arg_buffers.iter_mut().map(|b| (b as *mut Buffer).cast()).collect();
    let mut ret_ptrs: Vec<*mut c_void> = ret_buffers.iter_mut().map(|b| (b as *mut Buffer).cast()).collect();
    let mut encoder = AttrEncoder::default();
    let attrs = encoder.dict(attributes);
    let mut frame = CallFrame {
        struct_size: struct_size!(CallFrame, attrs),
        extension_start: std::ptr::null_mut(),
        api: &super::api::API,
        ctx: (context as *const InvokeContext).cast_mut().cast(),
        stage: STAGE_EXECUTE,
        args: Args {
            struct_size: struct_size!(Args, args),
            extension_start: std::ptr::null_mut(),
            size: arg_ptrs.len() as i64,
            types: arg_types.as_mut_ptr(),
            args: arg_ptrs.as_mut_ptr(),
        },
        rets: Rets {
            struct_size: struct_size!(Rets, rets),
            extension_start: std::ptr::null_mut(),
            size: ret_ptrs.len() as i64,
            types: ret_types.as_mut_ptr(),
            rets: ret_ptrs.as_mut_ptr(),
        },
        attrs,
        future: std::ptr::null_mut(),
    };
    // SAFETY: every pointer in the frame stays valid until the handler (and its future) is done: the
    // operand and result tensors, the buffer descriptors and shape vectors, and the encoder's storage
    // all outlive this block. A handler writes only within its result buffers, as the FFI contract says.
    let outcome = unsafe {
        let error = handler(&mut frame);
        if !error.is_null() {
            // A handler that fails synchronously has not handed a future over; its error is the answer.
            Err(super::api::take_error(error))
        } else if !frame.future.is_null() {
            super::api::Future::wait_and_free(frame.future)
        } else {
            Ok(())
        }
    };
    drop(encoder);
    drop(physical_args);
    for (i, physical) in physical_results.into_iter().enumerate() {
        if let (Some(bytes), Some(layout)) = (physical, call.result_layouts.get(i)) {
            let t = &mut results[i];
            let logical = relayout(&bytes, &t.ty.shape, layout, t.ty.elem.byte_size(), false)?;
            std::sync::Arc::get_mut(&mut t.data).expect("a fresh result buffer has one owner").as_mut_slice().copy_from_slice(&logical);
        }
    }
    outcome.map_err(|(code, message)| {
        let message = format!("custom_call @{target}: the FFI handler failed: {message}");
        match code {
            super::abi::code::INVALID_ARGUMENT => Error::invalid(message),
            super::abi::code::UNIMPLEMENTED => Error::unimplemented(message),
            _ => Error::internal(message),
        }
    })?;
    Ok(results)
}

fn buffer(target: &str, data: *mut u8, ty: &TensorType) -> Result<Buffer> {
    let dtype = data_type(ty.elem)
        .ok_or_else(|| Error::unimplemented(format!("custom_call @{target}: an FFI buffer of type {ty}")))?;
    Ok(Buffer {
        struct_size: struct_size!(Buffer, dims),
        extension_start: std::ptr::null_mut(),
        dtype,
        data: data.cast(),
        rank: ty.shape.len() as i64,
        // Handlers read the dimensions only; the shape vector outlives the call.
        dims: ty.shape.as_ptr().cast_mut(),
    })
}

/// Owns everything an encoded attribute dictionary points at. Boxes and boxed slices keep their
/// addresses while the vectors holding them grow.
#[derive(Default)]
struct AttrEncoder {
    spans: Vec<Box<ByteSpan>>,
    scalars: Vec<Box<Scalar>>,
    arrays: Vec<Box<Array>>,
    dicts: Vec<Box<Attrs>>,
    type_lists: Vec<Box<[c_int]>>,
    pointer_lists: Vec<Box<[*mut c_void]>>,
    name_lists: Vec<Box<[*mut ByteSpan]>>,
}

impl AttrEncoder {
    /// The attributes sorted by name, as handlers look them up.
    fn dict(&mut self, entries: &[(String, FfiAttr)]) -> Attrs {
        let mut sorted: Vec<&(String, FfiAttr)> = entries.iter().collect();
        sorted.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        let mut types = Vec::with_capacity(sorted.len());
        let mut names = Vec::with_capacity(sorted.len());
        let mut values = Vec::with_capacity(sorted.len());
        for (name, value) in sorted {
            let mut span = Box::new(ByteSpan { ptr: name.as_ptr().cast(), len: name.len() });
            names.push(&mut *span as *mut ByteSpan);
            self.spans.push(span);
            let (ty, p) = self.value(value);
            types.push(ty);
            values.push(p);
        }
        let mut types = types.into_boxed_slice();
        let mut names = names.into_boxed_slice();
        let mut values = values.into_boxed_slice();
        let attrs = Attrs {
            struct_size: struct_size!(Attrs, attrs),
            extension_start: std::ptr::null_mut(),
            size: types.len() as i64,
            types: types.as_mut_ptr(),
            names: names.as_mut_ptr(),
            attrs: values.as_mut_ptr(),
        };
        self.type_lists.push(types);
        self.name_lists.push(names);
        self.pointer_lists.push(values);
        attrs
    }

    fn value(&mut self, v: &FfiAttr) -> (c_int, *mut c_void) {
        match v {
            FfiAttr::Scalar(lit) => {
                // Readers only make scalars of types FFI names (see FfiAttr's constructors).
                let mut s = Box::new(Scalar { dtype: data_type(lit.ty.elem).unwrap_or(0), value: lit.bytes.as_ptr().cast_mut().cast() });
                let p = (&mut *s as *mut Scalar).cast();
                self.scalars.push(s);
                (ATTR_SCALAR, p)
            }
            FfiAttr::Array(lit) => {
                let mut a = Box::new(Array {
                    dtype: data_type(lit.ty.elem).unwrap_or(0),
                    size: lit.ty.num_elements(),
                    data: lit.bytes.as_ptr().cast_mut().cast(),
                });
                let p = (&mut *a as *mut Array).cast();
                self.arrays.push(a);
                (ATTR_ARRAY, p)
            }
            FfiAttr::String(s) => {
                let mut span = Box::new(ByteSpan { ptr: s.as_ptr().cast(), len: s.len() });
                let p = (&mut *span as *mut ByteSpan).cast();
                self.spans.push(span);
                (ATTR_STRING, p)
            }
            FfiAttr::Dict(entries) => {
                let mut d = Box::new(self.dict(entries));
                let p = (&mut *d as *mut Attrs).cast();
                self.dicts.push(d);
                (ATTR_DICTIONARY, p)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relayout_to_column_major_and_back() {
        // A 2x3 matrix of u8 in row-major order; column-major (minor-to-major [0, 1]) reads it by columns.
        let rows: Vec<u8> = vec![1, 2, 3, 4, 5, 6];
        let columns = relayout(&rows, &[2, 3], &[0, 1], 1, true).unwrap();
        assert_eq!(columns, vec![1, 4, 2, 5, 3, 6]);
        assert_eq!(relayout(&columns, &[2, 3], &[0, 1], 1, false).unwrap(), rows);
        // Row-major is the identity; a 3-D layout moves the middle dimension outermost.
        assert_eq!(relayout(&rows, &[2, 3], &[1, 0], 1, true).unwrap(), rows);
        let cube: Vec<u8> = (0..24).collect();
        let moved = relayout(&cube, &[2, 3, 4], &[2, 0, 1], 1, true).unwrap();
        assert_eq!(&moved[..8], &[0, 1, 2, 3, 12, 13, 14, 15]);
        assert_eq!(relayout(&moved, &[2, 3, 4], &[2, 0, 1], 1, false).unwrap(), cube);
        assert!(is_row_major(None) && is_row_major(Some(&vec![2, 1, 0])) && !is_row_major(Some(&vec![0, 1])));
    }
}
