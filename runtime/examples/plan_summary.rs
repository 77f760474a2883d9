//! Prints the plan of each program given on the command line (StableHLO text or VHLO bytecode):
//! step counts and every op that falls back to the interpreter. With `APU_TIME=1` it also runs
//! each program on pseudo-random inputs and prints the median of 5 runs (after a warm-up; `APU_RUNS=n` for n). With
//! `APU_STEPS=1` it prints the plan's steps as an outline (kind, output slots and types), loop and
//! branch bodies indented, to see what a loop runs per iteration.

use apu_compiler::plan::StepKind;
use apu_compiler::program::{read_program, ProgramFormat};
use apu_compiler::valid::validate;
use apu_runtime::exec::{Options, Program};

fn main() {
    for path in std::env::args().skip(1) {
        let code = std::fs::read(&path).expect("readable program");
        let module = match read_program(ProgramFormat::Mlir, &code).and_then(validate) {
            Ok(m) => m,
            Err(e) => {
                println!("{path}: {e}");
                continue;
            }
        };
        match Program::compile_with(&module, &Options { threads: 1, min_parallel_work: usize::MAX, interpret: false, row_block_bytes: apu_runtime::exec::DEFAULT_ROW_BLOCK_BYTES }) {
            Ok(p) => match p.plan() {
                Some(plan) => {
                    let fallbacks: Vec<String> = plan.fallbacks().iter().map(|f| f.to_string()).collect();
                    println!("{path}: {} fallbacks {:?}", plan.summary(), fallbacks);
                    if std::env::var("APU_STEPS").is_ok_and(|v| v == "1") {
                        outline(plan, &plan.steps, 1);
                    }
                    if std::env::var("APU_TIME").is_ok_and(|v| v == "1") {
                        time(&module);
                    }
                }
                None => println!("{path}: runs on the interpreter"),
            },
            Err(e) => println!("{path}: {e}"),
        }
    }
}

fn time(module: &apu_compiler::valid::ValidModule) {
    let mut seed = 1u64;
    let inputs: Vec<apu_runtime::Tensor> = module
        .entry_function()
        .param_types()
        .iter()
        .map(|t| {
            let t = t.as_tensor().expect("tensor parameter").clone();
            let n = t.num_elements();
            let mut bytes = Vec::with_capacity(t.byte_size());
            for _ in 0..n {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let r = (seed >> 40) as u32;
                match t.elem.byte_size() {
                    4 if t.elem.is_float() => bytes.extend(((r as f32 / (1u32 << 24) as f32) - 0.5).to_le_bytes()),
                    8 if t.elem.is_float() => bytes.extend(((r as f64 / (1u32 << 24) as f64) - 0.5).to_le_bytes()),
                    k => bytes.extend(&(r % 4).to_le_bytes()[..k.min(4)]),
                }
                bytes.resize(bytes.len().max(bytes.len()), 0);
            }
            bytes.resize(t.byte_size(), 0);
            apu_runtime::Tensor::from_bytes(t, &bytes).expect("input bytes")
        })
        .collect();
    for threads in [1, 2] {
        let p = Program::compile_with(module, &Options { threads, ..Options::from_env() }).expect("compiles");
        drop(p.run(&inputs).expect("runs"));
        // `APU_RUNS=n` times n runs instead of 5 (long enough to profile).
        let runs = std::env::var("APU_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(5usize).max(1);
        let mut times: Vec<f64> = (0..runs)
            .map(|_| {
                let t = std::time::Instant::now();
                drop(p.run(&inputs).expect("runs"));
                t.elapsed().as_secs_f64()
            })
            .collect();
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!("    {threads}T: {:.1} us", times[runs / 2] * 1e6);
    }
}

/// One line per step: its id, kind and the types of the slots it writes.
fn outline(plan: &apu_compiler::plan::Plan, steps: &[apu_compiler::plan::Step], depth: usize) {
    let ty = |s: &usize| plan.slots[*s].to_string();
    for s in steps {
        let (what, outs): (String, Vec<usize>) = match &s.kind {
            StepKind::Elementwise(k) => (format!("fused[{} instrs, {} inputs]", k.expr.instrs.len(), k.inputs.len()), vec![k.out]),
            StepKind::Reduce(k) => ("reduce".into(), vec![k.out]),
            StepKind::ArgReduce(k) => ("arg_reduce".into(), vec![k.value_out, k.index_out]),
            StepKind::Dot(d) => ("dot".into(), vec![d.out]),
            StepKind::Conv(c) => ("conv".into(), vec![c.out]),
            StepKind::DepthwiseConv(c) => ("depthwise_conv".into(), vec![c.out]),
            StepKind::Window(k) => (format!("reduce_window[{:?}]", k.combiner), vec![k.out]),
            StepKind::SelectScatter(k) => ("select_and_scatter".into(), vec![k.out]),
            StepKind::Pad(k) => ("pad".into(), vec![k.out]),
            StepKind::ViewCopy(k) => (format!("view_copy[{} bytes/elem]", k.elem_bytes), vec![k.out]),
            StepKind::Sort(k) => (format!("sort[dim {} by operand {}{}]", k.dimension, k.key, if k.descending { ", descending" } else { "" }), k.outputs.clone()),
            StepKind::Concat(k) => ("concat".into(), vec![k.out]),
            StepKind::DynamicSlice(k) => (if k.update.is_some() { "dynamic_update_slice" } else { "dynamic_slice" }.into(), vec![k.out]),
            StepKind::IndexedCopy(k) => (if k.updates.is_some() { "scatter" } else { "gather" }.into(), vec![k.out]),
            StepKind::Alias { dst, .. } => ("alias".into(), vec![*dst]),
            StepKind::HostCallback(k) => (format!("host_callback #{}", k.callback), k.outputs.clone()),
            StepKind::FfiCall(k) => (format!("ffi_call @{}", k.target), k.outputs.clone()),
            StepKind::Fallback { op, outputs, .. } => (format!("fallback {}", op.kind.name()), outputs.clone()),
            StepKind::While { outputs, .. } => ("while".into(), outputs.clone()),
            StepKind::Case { outputs, .. } => ("case".into(), outputs.clone()),
            StepKind::Rows(g) => (format!("rows[{} steps]", g.steps.len()), Vec::new()),
            StepKind::Collective(k) => (k.kind.name().to_string(), k.outputs.clone()),
            StepKind::InstanceId { replica, out } => ((if *replica { "replica_id" } else { "partition_id" }).into(), vec![*out]),
            StepKind::Manual { computation, outputs, .. } => (format!("manual[{} instances]", computation.instances()), outputs.clone()),
        };
        let outs: Vec<String> = outs.iter().map(ty).collect();
        println!("{:indent$}#{} {what} -> {}", "", s.id, outs.join(", "), indent = depth * 2);
        if let StepKind::While { cond, body, .. } = &s.kind {
            println!("{:indent$}cond:", "", indent = depth * 2 + 1);
            outline(plan, &cond.steps, depth + 1);
            println!("{:indent$}body:", "", indent = depth * 2 + 1);
            outline(plan, &body.steps, depth + 1);
        } else {
            for inner in s.kind.nested_steps() {
                outline(plan, inner, depth + 1);
            }
        }
    }
}
