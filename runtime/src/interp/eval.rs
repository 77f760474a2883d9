//! The evaluator: binds SSA values of one function call in a frame and runs ops in order.

use super::array::{round_scalar, Scalar};
use super::reduce::{self, ScalarBody, Window};
use super::value::{Dense, Value};
use super::random::RunRng;
use super::{convert, dot, elementwise as ew, shape_ops as sh};
use apu_compiler::ir::{ElementType, Function, Module, Op, OpKind, Region, TensorType, Type, ValueId};
use apu_compiler::{Error, Result};

/// Deepest nesting of calls and regions before the interpreter gives up (StableHLO has no
/// recursion, so only a malformed module gets there).
pub const MAX_DEPTH: usize = 200;

pub struct Interpreter<'m> {
    pub module: &'m Module,
    rng: RngSource<'m>,
}

/// Where `rng` ops take their run seed and call indices from (see [`super::random`]).
enum RngSource<'m> {
    Owned(RunRng),
    Shared(&'m RunRng),
}

/// The values of one function activation. Regions share it: they may read any earlier value.
pub struct Frame<'f> {
    pub func: &'f Function,
    values: Vec<Option<Value>>,
}

impl<'f> Frame<'f> {
    fn new(func: &'f Function) -> Self {
        Frame { func, values: vec![None; func.values.len()] }
    }
    fn get(&self, v: ValueId) -> Result<&Value> {
        self.values
            .get(v.index())
            .and_then(|x| x.as_ref())
            .ok_or_else(|| Error::invalid(format!("value {v} is used before it is defined")))
    }
    fn set(&mut self, v: ValueId, value: Value) -> Result<()> {
        let slot = self
            .values
            .get_mut(v.index())
            .ok_or_else(|| Error::invalid(format!("value {v} is not in the function's value table")))?;
        *slot = Some(value);
        Ok(())
    }
    fn tensor_type(&self, v: ValueId) -> Result<TensorType> {
        match self.func.values.get(v.index()) {
            Some(Type::Tensor(t)) => Ok(t.clone()),
            Some(other) => Err(Error::invalid(format!("value {v} must have a tensor type, has {other}"))),
            None => Err(Error::invalid(format!("value {v} is not in the function's value table"))),
        }
    }
}

fn one(d: Dense) -> Result<Vec<Value>> {
    Ok(vec![Value::tensor(d)])
}

fn many(ds: Vec<Dense>) -> Result<Vec<Value>> {
    Ok(ds.into_iter().map(Value::tensor).collect())
}

/// A region that maps scalars to scalars as a single binary op, e.g. `add(%a, %b)`.
fn single_binary_op(frame: &Frame, region: &Region) -> Option<(apu_compiler::ir::BinaryOp, ElementType)> {
    // Reshapes after the op are identities on scalars (sharding constraints read from bytecode).
    let (op, rest) = region.ops.split_first()?;
    let OpKind::Binary(b) = op.kind else { return None };
    let out = rest.iter().try_fold(&op.results, |prev, r| (matches!(r.kind, OpKind::Reshape) && r.operands == *prev).then_some(&r.results))?;
    if region.params.len() != 2 || op.operands != region.params || region.results != *out {
        return None;
    }
    let t = frame.func.values.get(region.params[0].index())?.as_tensor()?;
    (t.rank() == 0).then_some((b, t.elem))
}

impl<'m> Interpreter<'m> {
    /// An interpreter whose `rng` ops use run seed 0.
    pub fn new(module: &'m Module) -> Self {
        Interpreter { module, rng: RngSource::Owned(RunRng::new(0)) }
    }

    /// An interpreter whose `rng` ops draw from `rng` (shared with the caller, e.g. a plan's run).
    pub fn with_rng(module: &'m Module, rng: &'m RunRng) -> Self {
        Interpreter { module, rng: RngSource::Shared(rng) }
    }

    fn run_rng(&self) -> &RunRng {
        match &self.rng {
            RngSource::Owned(r) => r,
            RngSource::Shared(r) => r,
        }
    }

    /// Calls a function with argument values (types are checked by the caller or the validator).
    pub fn call(&self, func: &'m Function, args: Vec<Value>, depth: usize) -> Result<Vec<Value>> {
        if depth > MAX_DEPTH {
            return Err(Error::invalid(format!("calls nest deeper than {MAX_DEPTH} levels")));
        }
        let mut frame = Frame::new(func);
        self.run_region(&mut frame, &func.body, args, depth).map_err(|e| e.context(format!("function @{}", func.name)))
    }

    fn run_region(&self, frame: &mut Frame<'m>, region: &Region, args: Vec<Value>, depth: usize) -> Result<Vec<Value>> {
        if depth > MAX_DEPTH {
            return Err(Error::invalid(format!("regions and calls nest deeper than {MAX_DEPTH} levels")));
        }
        if args.len() != region.params.len() {
            return Err(Error::invalid(format!("region takes {} arguments, got {}", region.params.len(), args.len())));
        }
        for (&p, a) in region.params.iter().zip(args) {
            frame.set(p, a)?;
        }
        for op in &region.ops {
            tracing::trace!(op = op.kind.name(), location = %op.location, depth, "interpreting");
            let results = self
                .eval_op(frame, op, depth)
                .map_err(|e| e.context(format!("{} at {}", op.kind.name(), op.location)))?;
            if results.len() != op.results.len() {
                return Err(Error::internal(format!(
                    "{} produced {} results, the op declares {}",
                    op.kind.name(),
                    results.len(),
                    op.results.len()
                )));
            }
            for (&r, v) in op.results.iter().zip(results) {
                // Every value must have its declared type, so later ops can rely on it.
                let declared = frame.func.values.get(r.index());
                if !declared.is_some_and(|t| v.has_type(t)) {
                    return Err(Error::invalid(format!(
                        "{} produced {} for {r}, which is declared {}",
                        op.kind.name(),
                        v.describe(),
                        declared.map_or("nothing".to_string(), |t| t.to_string())
                    ))
                    .context(format!("{} at {}", op.kind.name(), op.location)));
                }
                frame.set(r, v)?;
            }
        }
        region.results.iter().map(|&r| frame.get(r).cloned()).collect()
    }

    /// Runs a region on scalars: the fast path for a lone binary op, else the whole region on
    /// rank-0 tensors. Results are rounded to their element types, as storing them would.
    fn scalar_body<'a>(&'a self, frame: &'a mut Frame<'m>, region: &'a Region, depth: usize) -> Box<ScalarBody<'a>>
    where
        'm: 'a,
    {
        if let Some((op, elem)) = single_binary_op(frame, region) {
            if let Ok(g) = ew::binary_fn(op, elem) {
                return Box::new(move |args: &[Scalar]| {
                    if args.len() != 2 {
                        return Err(Error::invalid("binary region called with the wrong number of values"));
                    }
                    Ok(vec![round_scalar(elem, g(args[0], args[1]))])
                });
            }
        }
        if let Some(program) = super::scalar_region::ScalarProgram::compile(frame.func, region, |v| frame.get(v).ok().cloned()) {
            return Box::new(move |args: &[Scalar]| program.run(args));
        }
        Box::new(move |args: &[Scalar]| {
            let mut values = Vec::with_capacity(args.len());
            for (&p, &a) in region.params.iter().zip(args) {
                let ty = frame.tensor_type(p)?;
                values.push(Value::tensor(Dense::scalar(ty.elem, a)?));
            }
            let out = self.run_region(frame, region, values, depth + 1)?;
            out.iter().map(|v| Ok(v.as_dense()?.data.get(0))).collect()
        })
    }

    fn eval_op(&self, frame: &mut Frame<'m>, op: &Op, depth: usize) -> Result<Vec<Value>> {
        let operands: Vec<Value> = op.operands.iter().map(|&v| frame.get(v).cloned()).collect::<Result<_>>()?;
        let dense = |i: usize| -> Result<&Dense> {
            operands.get(i).ok_or_else(|| Error::invalid(format!("missing operand {i}")))?.as_dense()
        };
        let all_dense = |range: std::ops::Range<usize>| -> Result<Vec<&Dense>> { range.map(dense).collect() };
        let result_type = |i: usize| -> Result<TensorType> {
            frame.tensor_type(*op.results.get(i).ok_or_else(|| Error::invalid(format!("missing result {i}")))?)
        };
        let result_types = || -> Result<Vec<TensorType>> { (0..op.results.len()).map(result_type).collect() };
        use OpKind as K;
        match &op.kind {
            K::Unary(u) => one(ew::unary(*u, dense(0)?)?),
            K::Binary(b) => one(ew::binary(*b, dense(0)?, dense(1)?)?),
            K::Compare { direction, compare_type } => one(ew::compare(*direction, *compare_type, dense(0)?, dense(1)?)?),
            K::Select => one(ew::select(dense(0)?, dense(1)?, dense(2)?)?),
            K::Clamp => one(ew::clamp(dense(0)?, dense(1)?, dense(2)?)?),
            K::Convert => one(convert::convert(dense(0)?, &result_type(0)?)?),
            K::BitcastConvert => one(convert::bitcast_convert(dense(0)?, &result_type(0)?)?),
            K::ReducePrecision { exponent_bits, mantissa_bits } => {
                one(convert::reduce_precision(dense(0)?, *exponent_bits, *mantissa_bits)?)
            }
            K::Constant(lit) => one(Dense::from_literal(lit)?),
            K::Iota { dimension } => one(sh::iota(*dimension, &result_type(0)?)?),
            K::RngBitGenerator { algorithm } => {
                let (state, bits) = super::rng::rng_bit_generator(*algorithm, dense(0)?, &result_type(0)?, &result_type(1)?)?;
                many(vec![state, bits])
            }
            K::Rng { distribution } => one(super::random::rng(*distribution, dense(0)?, dense(1)?, &result_type(0)?, self.run_rng())?),
            // The ids of the instance this thread runs (0 outside any; decision 65).
            K::ReplicaId => one(Dense::scalar(ElementType::U32, Scalar::Int(crate::collectives::current_ids().0 as _))?),
            K::PartitionId => one(Dense::scalar(ElementType::U32, Scalar::Int(crate::collectives::current_ids().1 as _))?),
            K::CreateToken | K::AfterAll => Ok(vec![Value::Token]),
            K::BroadcastInDim { broadcast_dimensions } => {
                one(sh::broadcast_in_dim(dense(0)?, broadcast_dimensions, &result_type(0)?)?)
            }
            K::Reshape => one(sh::reshape(dense(0)?, &result_type(0)?)?),
            K::Transpose { permutation } => one(sh::transpose(dense(0)?, permutation, &result_type(0)?)?),
            K::Reverse { dimensions } => one(sh::reverse(dense(0)?, dimensions)?),
            K::Slice { start_indices, limit_indices, strides } => {
                one(sh::slice(dense(0)?, start_indices, limit_indices, strides, &result_type(0)?)?)
            }
            K::DynamicSlice { slice_sizes } => {
                one(sh::dynamic_slice(dense(0)?, &all_dense(1..operands.len())?, slice_sizes, &result_type(0)?)?)
            }
            K::DynamicUpdateSlice => one(sh::dynamic_update_slice(dense(0)?, dense(1)?, &all_dense(2..operands.len())?)?),
            K::Concatenate { dimension } => one(sh::concatenate(&all_dense(0..operands.len())?, *dimension, &result_type(0)?)?),
            K::Pad { edge_padding_low, edge_padding_high, interior_padding } => one(sh::pad(
                dense(0)?,
                dense(1)?,
                edge_padding_low,
                edge_padding_high,
                interior_padding,
                &result_type(0)?,
            )?),
            K::Gather { dims, slice_sizes, .. } => {
                one(super::gather::gather(dense(0)?, dense(1)?, dims, slice_sizes, &result_type(0)?)?)
            }
            K::Scatter { dims, .. } => {
                let n = op.results.len();
                let inputs = all_dense(0..n)?;
                let indices = dense(n)?;
                let updates = all_dense(n + 1..operands.len())?;
                let types = result_types()?;
                let region = region(op, 0)?;
                let mut body = self.scalar_body(frame, region, depth);
                many(super::gather::scatter(&inputs, indices, &updates, dims, &types, &mut *body)?)
            }
            K::GetDimensionSize { dimension } => {
                let x = dense(0)?;
                let size = x.ty.shape.get(*dimension as usize).copied().ok_or_else(|| {
                    Error::invalid(format!("get_dimension_size: dimension {dimension} out of range for {}", x.ty))
                })?;
                one(Dense::scalar(ElementType::S32, Scalar::Int(size as i128))?)
            }
            K::Reduce { dimensions } => {
                let n = op.results.len();
                let (inputs, inits) = (all_dense(0..n)?, all_dense(n..2 * n)?);
                let types = result_types()?;
                let body_region = region(op, 0)?;
                if let (1, Some((b, e))) = (n, single_binary_op(frame, body_region)) {
                    if let (true, Some(g)) = (e == inputs[0].elem(), ew::float_binary(b)) {
                        if let Some(r) = reduce::reduce_float(inputs[0], inits[0], dimensions, &types[0], g) {
                            return one(r?);
                        }
                    }
                }
                let mut body = self.scalar_body(frame, body_region, depth);
                many(reduce::reduce(&inputs, &inits, dimensions, &types, &mut *body)?)
            }
            K::ReduceWindow { window_dimensions, window_strides, base_dilations, window_dilations, padding } => {
                let n = op.results.len();
                let (inputs, inits) = (all_dense(0..n)?, all_dense(n..2 * n)?);
                let types = result_types()?;
                let win = Window {
                    dims: window_dimensions,
                    strides: window_strides,
                    base_dilations,
                    window_dilations,
                    padding,
                };
                let mut body = self.scalar_body(frame, region(op, 0)?, depth);
                many(reduce::reduce_window(&inputs, &inits, &win, &types, &mut *body)?)
            }
            K::SelectAndScatter { window_dimensions, window_strides, padding } => {
                let x = dense(0)?;
                let ones = vec![1i64; x.ty.rank()];
                let win = Window {
                    dims: window_dimensions,
                    strides: window_strides,
                    base_dilations: &ones,
                    window_dilations: &ones,
                    padding,
                };
                let (select_region, scatter_region) = (region(op, 0)?, region(op, 1)?);
                let compile = |r: &Region| super::scalar_region::ScalarProgram::compile(frame.func, r, |v| frame.get(v).ok().cloned());
                if let (Some(sel), Some(sc)) = (compile(select_region), compile(scatter_region)) {
                    let mut select = |a: Scalar, b: Scalar| Ok(matches!(sel.run(&[a, b])?.first(), Some(Scalar::Bool(true))));
                    let mut scatter = |args: &[Scalar]| sc.run(args);
                    return one(reduce::select_and_scatter(x, dense(1)?, dense(2)?, &win, &mut select, &mut scatter)?);
                }
                // The two regions run interleaved; each call borrows the frame in turn.
                let cell = std::cell::RefCell::new(frame);
                let mut select = |a: Scalar, b: Scalar| -> Result<bool> {
                    let mut f = cell.borrow_mut();
                    let r = self.scalar_body(&mut f, select_region, depth)(&[a, b])?;
                    Ok(matches!(r.first(), Some(Scalar::Bool(true))))
                };
                let mut scatter = |args: &[Scalar]| -> Result<Vec<Scalar>> {
                    let mut f = cell.borrow_mut();
                    let result = self.scalar_body(&mut f, scatter_region, depth)(args);
                    result
                };
                one(reduce::select_and_scatter(x, dense(1)?, dense(2)?, &win, &mut select, &mut scatter)?)
            }
            K::DotGeneral { dims, .. } => one(dot::dot_general(dense(0)?, dense(1)?, dims, &result_type(0)?)?),
            K::Convolution { .. } => one(super::conv::convolution(&op.kind, dense(0)?, dense(1)?, &result_type(0)?)?),
            K::Sort { dimension, is_stable } => {
                let inputs = all_dense(0..operands.len())?;
                let mut body = self.scalar_body(frame, region(op, 0)?, depth);
                let mut less = |args: &[Scalar]| -> Result<bool> { Ok(matches!(body(args)?.first(), Some(Scalar::Bool(true)))) };
                many(super::sort::sort(&inputs, *dimension, *is_stable, &mut less)?)
            }
            K::Map { .. } => {
                let inputs = all_dense(0..operands.len())?;
                let ty = result_type(0)?;
                if inputs.iter().any(|x| x.ty.shape != ty.shape) {
                    return Err(Error::invalid(format!("map: operands do not all have the shape of {ty}")));
                }
                let mut body = self.scalar_body(frame, region(op, 0)?, depth);
                let mut out = Vec::with_capacity(ty.num_elements());
                for k in 0..ty.num_elements() {
                    let args: Vec<Scalar> = inputs.iter().map(|x| x.data.get(k)).collect();
                    out.push(body(&args)?.first().copied().ok_or_else(|| Error::invalid("map region returned nothing"))?);
                }
                one(Dense::new(ty.clone(), super::array::Array::from_scalars(ty.elem, out)?)?)
            }
            K::Fft { fft_type, fft_length } => one(crate::linalg::fft::fft(dense(0)?, *fft_type, fft_length, &result_type(0)?)?),
            K::Cholesky { lower } => one(crate::linalg::cholesky::cholesky(dense(0)?, *lower)?),
            K::TriangularSolve { left_side, lower, unit_diagonal, transpose_a } => one(crate::linalg::cholesky::triangular_solve(
                dense(0)?,
                dense(1)?,
                *left_side,
                *lower,
                *unit_diagonal,
                *transpose_a,
            )?),
            K::BatchNormInference { epsilon, feature_index } => {
                one(super::norm::inference(&all_dense(0..operands.len())?, *epsilon, *feature_index)?)
            }
            K::BatchNormTraining { epsilon, feature_index } => {
                many(super::norm::training(&all_dense(0..operands.len())?, *epsilon, *feature_index)?)
            }
            K::BatchNormGrad { epsilon, feature_index } => {
                many(super::norm::grad(&all_dense(0..operands.len())?, *epsilon, *feature_index)?)
            }
            K::While => {
                let (cond, body) = (region(op, 0)?, region(op, 1)?);
                let mut state = operands;
                loop {
                    let c = self.run_region(frame, cond, state.clone(), depth + 1)?;
                    let go = match c.first().map(|v| v.as_dense()).transpose()? {
                        Some(d) if d.data.len() == 1 && d.elem() == ElementType::Pred => matches!(d.data.get(0), Scalar::Bool(true)),
                        _ => return Err(Error::invalid("while: condition must return a scalar i1")),
                    };
                    if !go {
                        return Ok(state);
                    }
                    state = self.run_region(frame, body, state, depth + 1)?;
                }
            }
            K::Case => {
                let index = dense(0)?;
                let n = op.regions.len();
                if n == 0 {
                    return Err(Error::invalid("case has no branches"));
                }
                let i = index.data.get_index(0).filter(|_| index.data.len() == 1).ok_or_else(|| {
                    Error::invalid(format!("case: index must be an integer scalar, got {}", index.ty))
                })?;
                // An out-of-range index runs the last branch (spec).
                let branch = if i < 0 || i >= n as i128 { n - 1 } else { i as usize };
                self.run_region(frame, &op.regions[branch], Vec::new(), depth + 1)
            }
            K::Call { callee } => self.call_named(callee, operands, depth),
            K::Composite { decomposition, .. } => self.call_named(decomposition, operands, depth),
            K::Tuple => Ok(vec![Value::Tuple(operands)]),
            K::GetTupleElement { index } => match operands.first() {
                Some(Value::Tuple(vs)) => vs
                    .get(*index as usize)
                    .cloned()
                    .map(|v| vec![v])
                    .ok_or_else(|| Error::invalid(format!("get_tuple_element: index {index} out of range"))),
                _ => Err(Error::invalid("get_tuple_element: operand is not a tuple")),
            },
            K::OptimizationBarrier => Ok(operands),
            K::AllReduce { .. } | K::AllGather { .. } | K::ReduceScatter { .. } | K::AllToAll { .. } | K::CollectiveBroadcast { .. } | K::CollectivePermute { .. } => {
                // The oracle's reduction: the region's binary op, folded in group order with the
                // interpreter's own elementwise functions.
                let combiner = match &op.kind {
                    K::AllReduce { .. } | K::ReduceScatter { .. } => Some(
                        single_binary_op(frame, region(op, 0)?)
                            .ok_or_else(|| Error::unimplemented(format!("{} with a combiner region other than one binary op", op.kind.name())))?
                            .0,
                    ),
                    _ => None,
                };
                let reduce = |parts: &[&crate::Tensor]| -> Result<crate::Tensor> {
                    fold_tensors(combiner.ok_or_else(|| Error::internal("a reduction without a combiner"))?, parts)
                };
                let tensors = all_dense(0..operands.len())?.into_iter().map(Dense::to_tensor).collect::<Result<Vec<_>>>()?;
                let results = crate::collectives::run(&op.kind, tensors, &reduce)?;
                many(results.iter().map(Dense::from_tensor).collect::<Result<Vec<_>>>()?)
            }
            K::ManualComputation(mc) => {
                let body = region(op, 0)?;
                let func = frame.func;
                // A token (an ordered effect threaded through the body) carries nothing: it crosses
                // as an empty tensor with one unsplit dimension and comes back a token.
                let is_token = |v: ValueId| matches!(func.value_type(v), apu_compiler::ir::Type::Token);
                let empty = TensorType::new(vec![0], ElementType::Pred);
                let mut mc = mc.clone();
                for (dims, v) in mc.in_shardings.iter_mut().zip(&op.operands).chain(mc.out_shardings.iter_mut().zip(&op.results)) {
                    if is_token(*v) {
                        *dims = vec![Vec::new()];
                    }
                }
                let local = |vs: &[ValueId]| -> Result<Vec<TensorType>> {
                    vs.iter().map(|&v| if is_token(v) { Ok(empty.clone()) } else { frame.tensor_type(v) }).collect()
                };
                let (params, returned) = (local(&body.params)?, local(&body.results)?);
                // Shardy isolates the body from above, but the compile pipeline's passes may share
                // constants with it: each instance starts from the values defined so far.
                let outer = frame.values.clone();
                let run_body = |args: Vec<crate::Tensor>| -> Result<Vec<crate::Tensor>> {
                    let mut f = Frame { func, values: outer.clone() };
                    let args = args
                        .iter()
                        .zip(&body.params)
                        .map(|(t, &p)| if is_token(p) { Ok(Value::Token) } else { Ok(Value::tensor(Dense::from_tensor(t)?)) })
                        .collect::<Result<Vec<_>>>()?;
                    let out = self.run_region(&mut f, body, args, depth + 1)?;
                    out.iter().map(|v| if matches!(v, Value::Token) { Ok(crate::Tensor::zeroed(empty.clone())) } else { v.as_dense()?.to_tensor() }).collect()
                };
                let tensors = (0..operands.len())
                    .map(|i| if is_token(op.operands[i]) { Ok(crate::Tensor::zeroed(empty.clone())) } else { dense(i)?.to_tensor() })
                    .collect::<Result<Vec<_>>>()?;
                let sum = |parts: &[&crate::Tensor]| fold_tensors(apu_compiler::ir::BinaryOp::Add, parts);
                let results = crate::collectives::run_manual(&mc, &tensors, &params, &returned, &local(&op.results)?, &run_body, &sum)?;
                results
                    .iter()
                    .zip(&op.results)
                    .map(|(t, &r)| if is_token(r) { Ok(Value::Token) } else { Ok(Value::tensor(Dense::from_tensor(t)?)) })
                    .collect()
            }
            K::CustomCall { call_target_name, .. } if call_target_name == crate::host_callback::HOST_CALLBACK_TARGET => {
                // A call into the host is an effect, not a computation: the oracle makes the same call.
                let callback = apu_compiler::plan::host_callback::host_callback_number(op)
                    .transpose()?
                    .ok_or_else(|| Error::internal("host callback without a number"))?;
                let args = all_dense(0..operands.len())?.into_iter().map(Dense::to_tensor).collect::<Result<Vec<_>>>()?;
                let results = crate::host_callback::call(callback, &args, &result_types()?)?;
                many(results.iter().map(Dense::from_tensor).collect::<Result<Vec<_>>>()?)
            }
            K::CustomCall { call_target_name, .. } if super::support::is_identity_custom_call(call_target_name) => {
                for (i, v) in operands.iter().enumerate() {
                    let want = frame.func.values.get(op.results.get(i).map(|r| r.index()).unwrap_or(usize::MAX));
                    if operands.len() != op.results.len() || !want.is_some_and(|t| v.has_type(t)) {
                        return Err(Error::invalid(format!(
                            "custom_call \"{call_target_name}\" must return its operands unchanged on one device"
                        )));
                    }
                }
                Ok(operands)
            }
            K::CustomCall { call_target_name, .. } if super::support::is_sink_custom_call(call_target_name) && op.results.is_empty() => {
                Ok(Vec::new())
            }
            K::CustomCall { call_target_name, .. } if crate::linalg::qr::is_qr_custom_call(call_target_name) => {
                let results = crate::linalg::qr::eval(call_target_name, &all_dense(0..operands.len())?, &result_types()?)?;
                Ok(results.into_iter().map(Value::tensor).collect())
            }
            K::CustomCall { call_target_name, backend_config, .. } if crate::linalg::condensed::is_condensed_custom_call(call_target_name) => {
                many(crate::linalg::condensed::eval(call_target_name, backend_config.as_ref(), &all_dense(0..operands.len())?, &result_types()?)?)
            }
            K::CustomCall { call_target_name, backend_config, .. } if call_target_name == crate::linalg::schur::SCHUR_TARGET => {
                many(crate::linalg::schur::eval(backend_config.as_ref(), &all_dense(0..operands.len())?, &result_types()?)?)
            }
            K::CustomCall { call_target_name, backend_config, .. } if call_target_name == crate::linalg::eig::EIG_TARGET => {
                many(crate::linalg::eig::eval(backend_config.as_ref(), &all_dense(0..operands.len())?, &result_types()?)?)
            }
            K::CustomCall { call_target_name, .. } if call_target_name == crate::linalg::lu::LU_TARGET => {
                many(crate::linalg::lu::eval(&all_dense(0..operands.len())?, &result_types()?)?)
            }
            K::CustomCall { call_target_name, backend_config, .. } if call_target_name == crate::linalg::eigh::EIGH_TARGET => {
                let results = crate::linalg::eigh::eval(backend_config.as_ref(), &all_dense(0..operands.len())?, &result_types()?)?;
                Ok(results.into_iter().map(Value::tensor).collect())
            }
            K::CustomCall { call_target_name, .. }
                if apu_compiler::plan::typed_ffi_call(op).is_some() && !super::support::is_apu_custom_call(call_target_name) =>
            {
                // Like a host callback, a foreign function is the same call on both paths.
                let call = apu_compiler::plan::typed_ffi_call(op).expect("matched above");
                let args = all_dense(0..operands.len())?.into_iter().map(Dense::to_tensor).collect::<Result<Vec<_>>>()?;
                let context = crate::ffi::context::InvokeContext::new(0, 0);
                let results = crate::ffi::call(&call, &args, &result_types()?, &context)?;
                many(results.iter().map(Dense::from_tensor).collect::<Result<Vec<_>>>()?)
            }
            K::CustomCall { call_target_name, .. } => {
                Err(Error::unimplemented(format!("custom_call target \"{call_target_name}\"")))
            }
        }
    }

    /// Evaluates one op of `func` on its operand values, with `captured` binding the values its
    /// regions read from the enclosing function (the plan executor's fallback for ops without a
    /// fast kernel).
    pub fn eval_single(&self, func: &'m Function, op: &Op, operands: Vec<Value>, captured: Vec<(ValueId, Value)>) -> Result<Vec<Value>> {
        let mut frame = Frame::new(func);
        for (v, value) in captured {
            frame.set(v, value)?;
        }
        if operands.len() != op.operands.len() {
            return Err(Error::internal(format!("{} takes {} operands, got {}", op.kind.name(), op.operands.len(), operands.len())));
        }
        for (&v, value) in op.operands.iter().zip(operands) {
            frame.set(v, value)?;
        }
        self.eval_op(&mut frame, op, 0).map_err(|e| e.context(format!("{} at {}", op.kind.name(), op.location)))
    }

    fn call_named(&self, name: &str, args: Vec<Value>, depth: usize) -> Result<Vec<Value>> {
        let f = self.module.function(name).ok_or_else(|| Error::invalid(format!("call to unknown function @{name}")))?;
        if args.len() != f.body.params.len() {
            return Err(Error::invalid(format!("@{name} takes {} arguments, got {}", f.body.params.len(), args.len())));
        }
        self.call(f, args, depth + 1)
    }
}

fn region(op: &Op, i: usize) -> Result<&Region> {
    op.regions.get(i).ok_or_else(|| Error::invalid(format!("{} needs region {i}", op.kind.name())))
}

/// The interpreter's elementwise fold of same-typed tensors with `op`, in order: how collectives
/// combine their members' values and a manual computation adds the parts of an unreduced result.
fn fold_tensors(op: apu_compiler::ir::BinaryOp, parts: &[&crate::Tensor]) -> Result<crate::Tensor> {
    let (first, rest) = parts.split_first().ok_or_else(|| Error::internal("a fold of no tensors"))?;
    let mut acc = Dense::from_tensor(first)?;
    for p in rest {
        acc = ew::binary(op, &acc, &Dense::from_tensor(p)?)?;
    }
    acc.to_tensor()
}
