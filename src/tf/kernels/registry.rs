//! The kernels apu registers, and the C callbacks TensorFlow calls to build and run them.

use super::attrs::Attrs;
use super::ops::{Padding, PoolKind, SliceMasks, TfElementwise, TfOp, TfReduction, TfUnary};
use apu_compiler::ir::ComparisonDirection;
use super::tf_io;
use crate::tf::guard::{self, TfError};
use crate::tf::symbols::{self, OwnedStatus, TfApi};
use apu_compiler::ir::{BinaryOp, ElementType};
use apu_pjrt_api::tf as c;
use std::ffi::{c_void, CString};

type Make = fn(&Attrs) -> Result<TfOp, String>;

/// One kernel registration: the op, the attribute types it is registered for, its host-memory
/// arguments, and how to read its attributes into a [`TfOp`].
pub struct KernelDef {
    pub op: &'static str,
    pub constraints: &'static [(&'static str, c::TF_DataType)],
    pub host_memory: &'static [&'static str],
    pub make: Make,
}

const F32: c::TF_DataType = c::TF_DataType_TF_FLOAT;
const I32: c::TF_DataType = c::TF_DataType_TF_INT32;
const I64: c::TF_DataType = c::TF_DataType_TF_INT64;
const BOOL: c::TF_DataType = c::TF_DataType_TF_BOOL;
const T_F32: &[(&str, c::TF_DataType)] = &[("T", F32)];

fn pool(kind: PoolKind, a: &Attrs) -> Result<TfOp, String> {
    let same = match a.string("padding")?.as_str() {
        "SAME" => true,
        "VALID" => false,
        other => return Err(format!("pooling padding {other:?} is not supported on APU")),
    };
    Ok(TfOp::Pool { kind, ksize: a.ints("ksize")?, strides: a.ints("strides")?, same, channels_first: channels_first(a)? })
}

fn channels_first(a: &Attrs) -> Result<bool, String> {
    match a.string("data_format").as_deref() {
        Ok("NHWC") | Ok("NWC") | Ok("NDHWC") | Err(_) => Ok(false),
        Ok("NCHW") | Ok("NCW") | Ok("NCDHW") => Ok(true),
        Ok(other) => Err(format!("data_format {other:?} is not supported on APU")),
    }
}

fn pool_grad(kind: PoolKind, a: &Attrs) -> Result<TfOp, String> {
    match pool(kind, a)? {
        TfOp::Pool { kind, ksize, strides, same, channels_first } => Ok(TfOp::PoolGrad { kind, ksize, strides, same, channels_first }),
        _ => unreachable!("pool makes a Pool"),
    }
}

fn slice_masks(a: &Attrs) -> Result<SliceMasks, String> {
    Ok(SliceMasks {
        begin: a.int("begin_mask")?,
        end: a.int("end_mask")?,
        ellipsis: a.int("ellipsis_mask")?,
        new_axis: a.int("new_axis_mask")?,
        shrink_axis: a.int("shrink_axis_mask")?,
    })
}

fn conv_grad(input: bool, a: &Attrs) -> Result<TfOp, String> {
    match conv2d(a)? {
        TfOp::Conv2D { strides, dilations, padding, channels_first } if input => Ok(TfOp::Conv2DBackpropInput { strides, dilations, padding, channels_first }),
        TfOp::Conv2D { strides, dilations, padding, channels_first } => Ok(TfOp::Conv2DBackpropFilter { strides, dilations, padding, channels_first }),
        _ => unreachable!("conv2d makes a Conv2D"),
    }
}

fn conv2d(a: &Attrs) -> Result<TfOp, String> {
    let channels_first = channels_first(a)?;
    let padding = match a.string("padding")?.as_str() {
        "SAME" => Padding::Same,
        "VALID" => Padding::Valid,
        "EXPLICIT" => {
            let p = a.ints("explicit_paddings")?;
            if p.len() != 8 {
                return Err(format!("explicit_paddings needs 8 values, got {}", p.len()));
            }
            Padding::Explicit(p.chunks(2).map(|c| (c[0], c[1])).collect())
        }
        other => return Err(format!("padding {other:?} is not supported on APU")),
    };
    let dilations = a.ints("dilations").unwrap_or_else(|_| vec![1, 1, 1, 1]);
    Ok(TfOp::Conv2D { strides: a.ints("strides")?, dilations, padding, channels_first })
}

fn reduction(r: TfReduction) -> Make {
    match r {
        TfReduction::Sum => |a| Ok(TfOp::Reduce { reduction: TfReduction::Sum, keep_dims: a.bool_or_false("keep_dims") }),
        TfReduction::Mean => |a| Ok(TfOp::Reduce { reduction: TfReduction::Mean, keep_dims: a.bool_or_false("keep_dims") }),
        TfReduction::Max => |a| Ok(TfOp::Reduce { reduction: TfReduction::Max, keep_dims: a.bool_or_false("keep_dims") }),
        TfReduction::Min => |a| Ok(TfOp::Reduce { reduction: TfReduction::Min, keep_dims: a.bool_or_false("keep_dims") }),
        TfReduction::Prod => |a| Ok(TfOp::Reduce { reduction: TfReduction::Prod, keep_dims: a.bool_or_false("keep_dims") }),
    }
}

macro_rules! unary_def {
    ($name:literal, $u:ident) => {
        KernelDef { op: $name, constraints: T_F32, host_memory: &[], make: |_| Ok(TfOp::Unary(TfUnary::$u)) }
    };
}
macro_rules! binary_def {
    ($name:literal, $b:ident) => {
        KernelDef { op: $name, constraints: T_F32, host_memory: &[], make: |_| Ok(TfOp::Binary(BinaryOp::$b)) }
    };
}
macro_rules! elementwise_def {
    ($name:literal, $e:ident) => {
        KernelDef { op: $name, constraints: T_F32, host_memory: &[], make: |_| Ok(TfOp::Elementwise(TfElementwise::$e)) }
    };
}
macro_rules! compare_def {
    ($name:literal, $d:ident) => {
        KernelDef { op: $name, constraints: T_F32, host_memory: &[], make: |_| Ok(TfOp::Compare(ComparisonDirection::$d)) }
    };
}
/// An op with one host-memory int32/int64 input named `$host` whose index type attribute is `$idx`.
macro_rules! host_index_defs {
    ($name:literal, $idx:literal, $host:literal, $op:expr) => {
        [
            KernelDef { op: $name, constraints: &[("T", F32), ($idx, I32)], host_memory: &[$host], make: |_| Ok($op) },
            KernelDef { op: $name, constraints: &[("T", F32), ($idx, I64)], host_memory: &[$host], make: |_| Ok($op) },
        ]
    };
}
macro_rules! cast_def {
    ($from:expr, $to:expr, $ir:ident) => {
        KernelDef { op: "Cast", constraints: &[("SrcT", $from), ("DstT", $to)], host_memory: &[], make: |_| Ok(TfOp::Cast { to: ElementType::$ir }) }
    };
}
macro_rules! reduce_defs {
    ($name:literal, $r:ident) => {
        [
            KernelDef { op: $name, constraints: &[("T", F32), ("Tidx", I32)], host_memory: &["reduction_indices"], make: reduction(TfReduction::$r) },
            KernelDef { op: $name, constraints: &[("T", F32), ("Tidx", I64)], host_memory: &["reduction_indices"], make: reduction(TfReduction::$r) },
        ]
    };
}

/// Every kernel apu registers on its PluggableDevice.
pub fn kernel_defs() -> Vec<KernelDef> {
    let mut v = vec![
        KernelDef { op: "Relu", constraints: T_F32, host_memory: &[], make: |_| Ok(TfOp::Relu) },
        KernelDef { op: "Relu6", constraints: T_F32, host_memory: &[], make: |_| Ok(TfOp::Relu6) },
        KernelDef { op: "Elu", constraints: T_F32, host_memory: &[], make: |_| Ok(TfOp::Elu) },
        unary_def!("Neg", Neg),
        unary_def!("Abs", Abs),
        unary_def!("Exp", Exp),
        unary_def!("Log", Log),
        unary_def!("Tanh", Tanh),
        unary_def!("Sigmoid", Sigmoid),
        unary_def!("Sqrt", Sqrt),
        unary_def!("Rsqrt", Rsqrt),
        unary_def!("Square", Square),
        binary_def!("AddV2", Add),
        binary_def!("Add", Add),
        binary_def!("Sub", Subtract),
        binary_def!("Mul", Multiply),
        binary_def!("RealDiv", Divide),
        binary_def!("Maximum", Maximum),
        binary_def!("Minimum", Minimum),
        KernelDef {
            op: "MatMul",
            constraints: T_F32,
            host_memory: &[],
            make: |a| Ok(TfOp::MatMul { transpose_a: a.bool("transpose_a")?, transpose_b: a.bool("transpose_b")? }),
        },
        KernelDef {
            op: "BatchMatMulV2",
            constraints: T_F32,
            host_memory: &[],
            make: |a| Ok(TfOp::BatchMatMul { adj_x: a.bool("adj_x")?, adj_y: a.bool("adj_y")? }),
        },
        KernelDef { op: "BiasAdd", constraints: T_F32, host_memory: &[], make: |a| Ok(TfOp::BiasAdd { channels_first: channels_first(a)? }) },
        KernelDef { op: "Softmax", constraints: T_F32, host_memory: &[], make: |_| Ok(TfOp::Softmax) },
        KernelDef { op: "LogSoftmax", constraints: T_F32, host_memory: &[], make: |_| Ok(TfOp::LogSoftmax) },
        KernelDef { op: "Cast", constraints: &[("SrcT", F32), ("DstT", I32)], host_memory: &[], make: |_| Ok(TfOp::Cast { to: ElementType::S32 }) },
        KernelDef { op: "Cast", constraints: &[("SrcT", I32), ("DstT", F32)], host_memory: &[], make: |_| Ok(TfOp::Cast { to: ElementType::F32 }) },
        KernelDef { op: "Conv2D", constraints: T_F32, host_memory: &[], make: conv2d },
        KernelDef { op: "ReluGrad", constraints: T_F32, host_memory: &[], make: |_| Ok(TfOp::ReluGrad) },
        KernelDef {
            op: "BiasAddGrad",
            constraints: T_F32,
            host_memory: &[],
            make: |a| Ok(TfOp::BiasAddGrad { channels_first: channels_first(a)? }),
        },
        KernelDef { op: "SoftmaxCrossEntropyWithLogits", constraints: T_F32, host_memory: &[], make: |_| Ok(TfOp::SoftmaxCrossEntropyWithLogits) },
    ];
    v.extend([
        elementwise_def!("Pow", Pow),
        elementwise_def!("DivNoNan", DivNoNan),
        elementwise_def!("SquaredDifference", SquaredDifference),
        elementwise_def!("RsqrtGrad", RsqrtGrad),
        elementwise_def!("SigmoidGrad", SigmoidGrad),
        elementwise_def!("TanhGrad", TanhGrad),
        elementwise_def!("Sign", Sign),
        elementwise_def!("ZerosLike", ZerosLike),
        elementwise_def!("OnesLike", OnesLike),
        KernelDef { op: "AddN", constraints: T_F32, host_memory: &[], make: |_| Ok(TfOp::AddN) },
        compare_def!("Equal", Eq),
        compare_def!("NotEqual", Ne),
        compare_def!("Greater", Gt),
        compare_def!("GreaterEqual", Ge),
        compare_def!("Less", Lt),
        compare_def!("LessEqual", Le),
        KernelDef { op: "SelectV2", constraints: T_F32, host_memory: &[], make: |_| Ok(TfOp::SelectV2) },
        KernelDef { op: "MaxPool", constraints: T_F32, host_memory: &[], make: |a| pool(PoolKind::Max, a) },
        KernelDef { op: "AvgPool", constraints: T_F32, host_memory: &[], make: |a| pool(PoolKind::Avg, a) },
        KernelDef {
            op: "SparseSoftmaxCrossEntropyWithLogits",
            constraints: &[("T", F32), ("Tlabels", I32)],
            host_memory: &[],
            make: |_| Ok(TfOp::SparseSoftmaxCrossEntropyWithLogits),
        },
        KernelDef {
            op: "SparseSoftmaxCrossEntropyWithLogits",
            constraints: &[("T", F32), ("Tlabels", I64)],
            host_memory: &[],
            make: |_| Ok(TfOp::SparseSoftmaxCrossEntropyWithLogits),
        },
        cast_def!(I64, F32, F32),
        cast_def!(F32, I64, S64),
        cast_def!(I32, I64, S64),
        cast_def!(I64, I32, S32),
        cast_def!(BOOL, F32, F32),
        cast_def!(BOOL, I32, S32),
    ]);
    v.extend(host_index_defs!("Tile", "Tmultiples", "multiples", TfOp::Tile));
    v.extend(host_index_defs!("BroadcastTo", "Tidx", "shape", TfOp::BroadcastTo));
    v.extend(host_index_defs!("Transpose", "Tperm", "perm", TfOp::Transpose));
    v.extend(host_index_defs!("Fill", "index_type", "dims", TfOp::Fill));
    v.extend(reduce_defs!("Sum", Sum));
    v.extend(reduce_defs!("Mean", Mean));
    v.extend(reduce_defs!("Max", Max));
    v.extend(reduce_defs!("Min", Min));
    v.extend(reduce_defs!("Prod", Prod));
    v.extend(training_defs());
    v
}

/// What a Keras CNN or LSTM training step needs beyond the forward kernels: gradients of
/// convolution and pooling, slicing, stacking, splitting, concatenation, gathering.
fn training_defs() -> Vec<KernelDef> {
    let mut v = vec![
        KernelDef { op: "Conv2DBackpropInput", constraints: T_F32, host_memory: &["input_sizes"], make: |a| conv_grad(true, a) },
        KernelDef { op: "Conv2DBackpropFilter", constraints: T_F32, host_memory: &["filter_sizes"], make: |a| conv_grad(false, a) },
        KernelDef { op: "MaxPoolGrad", constraints: T_F32, host_memory: &[], make: |a| pool_grad(PoolKind::Max, a) },
        KernelDef { op: "AvgPoolGrad", constraints: T_F32, host_memory: &["orig_input_shape"], make: |a| pool_grad(PoolKind::Avg, a) },
        KernelDef { op: "Pack", constraints: T_F32, host_memory: &[], make: |a| Ok(TfOp::Pack { axis: a.int_or_zero("axis") }) },
        KernelDef { op: "Unpack", constraints: T_F32, host_memory: &[], make: |a| Ok(TfOp::Unpack { axis: a.int_or_zero("axis"), num: a.int("num")? }) },
        KernelDef { op: "Split", constraints: T_F32, host_memory: &["split_dim"], make: |a| Ok(TfOp::Split { num: a.int("num_split")? }) },
        elementwise_def!("FloorMod", FloorMod),
    ];
    v.extend([
        KernelDef { op: "StridedSlice", constraints: &[("T", F32), ("Index", I32)], host_memory: &["begin", "end", "strides"], make: |a| Ok(TfOp::StridedSlice(slice_masks(a)?)) },
        KernelDef { op: "StridedSlice", constraints: &[("T", F32), ("Index", I64)], host_memory: &["begin", "end", "strides"], make: |a| Ok(TfOp::StridedSlice(slice_masks(a)?)) },
        KernelDef { op: "StridedSliceGrad", constraints: &[("T", F32), ("Index", I32)], host_memory: &["shape", "begin", "end", "strides"], make: |a| Ok(TfOp::StridedSliceGrad(slice_masks(a)?)) },
        KernelDef { op: "StridedSliceGrad", constraints: &[("T", F32), ("Index", I64)], host_memory: &["shape", "begin", "end", "strides"], make: |a| Ok(TfOp::StridedSliceGrad(slice_masks(a)?)) },
        KernelDef { op: "Slice", constraints: &[("T", F32), ("Index", I32)], host_memory: &["begin", "size"], make: |_| Ok(TfOp::Slice) },
        KernelDef { op: "Slice", constraints: &[("T", F32), ("Index", I64)], host_memory: &["begin", "size"], make: |_| Ok(TfOp::Slice) },
        KernelDef { op: "ConcatV2", constraints: &[("T", F32), ("Tidx", I32)], host_memory: &["axis"], make: |_| Ok(TfOp::ConcatV2) },
        KernelDef { op: "ConcatV2", constraints: &[("T", F32), ("Tidx", I64)], host_memory: &["axis"], make: |_| Ok(TfOp::ConcatV2) },
        KernelDef { op: "SplitV", constraints: &[("T", F32), ("Tlen", I32)], host_memory: &["size_splits", "split_dim"], make: |a| Ok(TfOp::SplitV { num: a.int("num_split")? }) },
        KernelDef { op: "SplitV", constraints: &[("T", F32), ("Tlen", I64)], host_memory: &["size_splits", "split_dim"], make: |a| Ok(TfOp::SplitV { num: a.int("num_split")? }) },
    ]);
    v.extend([
        KernelDef { op: "GatherV2", constraints: &[("Tparams", F32), ("Tindices", I32), ("Taxis", I32)], host_memory: &["axis"], make: gather },
        KernelDef { op: "GatherV2", constraints: &[("Tparams", F32), ("Tindices", I32), ("Taxis", I64)], host_memory: &["axis"], make: gather },
        KernelDef { op: "GatherV2", constraints: &[("Tparams", F32), ("Tindices", I64), ("Taxis", I32)], host_memory: &["axis"], make: gather },
        KernelDef { op: "GatherV2", constraints: &[("Tparams", F32), ("Tindices", I64), ("Taxis", I64)], host_memory: &["axis"], make: gather },
    ]);
    v
}

fn gather(a: &Attrs) -> Result<TfOp, String> {
    Ok(TfOp::GatherV2 { batch_dims: a.int_or_zero("batch_dims") })
}

/// State of one constructed kernel: the op (or why its attributes were not acceptable, reported when
/// it runs, where TensorFlow turns it into a Python exception) and its cache key.
struct Kernel {
    op_name: &'static str,
    op: Result<TfOp, String>,
    key: std::sync::Arc<str>,
}

/// Per-registration data the create callback needs; TensorFlow's create callback gets no user pointer,
/// so each registration gets its own monomorphised callback that indexes this table.
static DEFS: std::sync::OnceLock<Vec<KernelDef>> = std::sync::OnceLock::new();

unsafe extern "C" fn create<const I: usize>(ctx: *mut c::TF_OpKernelConstruction) -> *mut c_void {
    guard::quiet("kernel create", std::ptr::null_mut(), || {
        let (Ok(api), Some(def)) = (symbols::api(), DEFS.get().and_then(|d| d.get(I))) else {
            return std::ptr::null_mut();
        };
        let attrs = Attrs { api, ctx, _life: std::marker::PhantomData };
        let op = guard::catch(def.op, || Ok((def.make)(&attrs))).unwrap_or_else(|e| Err(e.message));
        let key = match &op {
            Ok(op) => format!("{op:?}").into(),
            Err(_) => "".into(),
        };
        Box::into_raw(Box::new(Kernel { op_name: def.op, op, key })) as *mut c_void
    })
}

unsafe extern "C" fn delete(kernel: *mut c_void) {
    guard::quiet("kernel delete", (), || {
        if !kernel.is_null() {
            drop(Box::from_raw(kernel as *mut Kernel));
        }
    })
}

unsafe fn compute_inner(api: &'static TfApi, kernel: &Kernel, ctx: *mut c::TF_OpKernelContext) -> Result<(), TfError> {
    let op = kernel.op.as_ref().map_err(|m| TfError::invalid(m.clone()))?;
    let n = (api.num_inputs.unwrap())(ctx);
    // Views of TensorFlow's input buffers, alive until this function returns.
    let inputs = tf_io::Inputs::read(api, ctx, n)?;
    let entry = super::cache::global().entry(&kernel.key, op, &inputs.tensors)?;
    let expected = (api.num_outputs.unwrap())(ctx);
    let Some(types) = entry.result_types() else {
        // An interpreted program (APU_EXECUTOR=interp): result types are known after the run.
        let outputs = entry.run(op, &inputs.tensors, Vec::new())?;
        check_count(outputs.len(), expected)?;
        for (i, t) in outputs.iter().enumerate() {
            tf_io::write_output(api, ctx, i as i32, t)?;
        }
        return Ok(());
    };
    check_count(types.len(), expected)?;
    // Outputs first, so that the program writes its results straight into them.
    let mut memory = Vec::with_capacity(types.len());
    let mut targets = Vec::with_capacity(types.len());
    for (i, ty) in types.iter().enumerate() {
        let (data, view) = tf_io::allocate_output(api, ctx, i as i32, ty)?;
        memory.push(data);
        targets.push(view);
    }
    let outputs = entry.run(op, &inputs.tensors, targets)?;
    check_count(outputs.len(), expected)?;
    for (t, &data) in outputs.iter().zip(&memory) {
        tf_io::copy_into(data, t);
    }
    Ok(())
}

fn check_count(produced: usize, expected: i32) -> Result<(), TfError> {
    if produced as i32 != expected {
        return Err(TfError::internal(format!("produced {produced} outputs, TensorFlow expects {expected}")));
    }
    Ok(())
}

unsafe extern "C" fn compute(kernel: *mut c_void, ctx: *mut c::TF_OpKernelContext) {
    let Some(kernel) = (kernel as *const Kernel).as_ref() else { return };
    guard::kernel(kernel.op_name, ctx, || {
        let api = symbols::api().map_err(TfError::internal)?;
        compute_inner(api, kernel, ctx)
    });
}

macro_rules! creators {
    ($($i:literal)*) => { [$(create::<$i> as unsafe extern "C" fn(*mut c::TF_OpKernelConstruction) -> *mut c_void),*] };
}
const CREATORS: [unsafe extern "C" fn(*mut c::TF_OpKernelConstruction) -> *mut c_void; 128] = creators!(
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
    64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95
    96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120 121 122 123 124 125 126 127
);

/// Registers every kernel for `device_type`; failures are logged, never fatal. Returns how many registered.
pub fn register_all(device_type: &str) -> usize {
    let api = match symbols::api() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("apu: cannot register TensorFlow kernels: {e}");
            return 0;
        }
    };
    let defs = DEFS.get_or_init(kernel_defs);
    let device = CString::new(device_type).unwrap_or_default();
    let mut registered = 0;
    for (i, def) in defs.iter().enumerate() {
        let Some(&creator) = CREATORS.get(i) else {
            eprintln!("apu: too many kernel definitions; {} not registered", def.op);
            continue;
        };
        let op = CString::new(def.op).unwrap_or_default();
        let status = OwnedStatus::new(api);
        // SAFETY: the names are NUL-terminated and the callbacks have the kernel C API's signatures.
        unsafe {
            let builder = (api.new_kernel_builder.unwrap())(op.as_ptr(), device.as_ptr(), Some(creator), Some(compute), Some(delete));
            for (attr, ty) in def.constraints {
                let a = CString::new(*attr).unwrap_or_default();
                (api.kernel_builder_type_constraint.unwrap())(builder, a.as_ptr(), *ty, status.raw);
            }
            for arg in def.host_memory {
                let a = CString::new(*arg).unwrap_or_default();
                (api.kernel_builder_host_memory.unwrap())(builder, a.as_ptr());
            }
            if status.is_ok() {
                let name = CString::new(format!("apu_{}_{i}", def.op)).unwrap_or_default();
                (api.register_kernel_builder.unwrap())(name.as_ptr(), builder, status.raw);
            }
        }
        if status.is_ok() {
            registered += 1;
        } else {
            eprintln!("apu: registering kernel {} on {device_type} failed: {}", def.op, status.message());
        }
    }
    registered
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_definition_has_a_create_callback() {
        assert!(super::kernel_defs().len() <= super::CREATORS.len());
    }
}
