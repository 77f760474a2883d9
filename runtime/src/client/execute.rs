//! Execution: checks the arguments, marks donated inputs deleted, creates the outputs (pending),
//! and queues the run on each target device once its inputs are ready. It returns at once; the
//! outputs' ready events and each device's completion event fire when the run finishes (or carry
//! its error).
//!
//! Except for quick programs: when the last run of the program took under [`INLINE_BELOW_NS`], its
//! inputs are ready and its one device has no work queued or running, the run happens on the
//! calling thread and `execute` returns with the events already set, as XLA:CPU runs cheap
//! programs. Handing such a run to the device thread costs two cross-thread wake-ups, which on a
//! virtual machine's idle cores took longer than the run itself (docs/decisions.md 26).

use super::{Executable, LoadedExecutable};
use crate::{BufferPromise, DeviceBuffer, Error, Event, Result, Tensor};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

/// Programs whose last run took less than this run on the calling thread when their device is idle.
pub const INLINE_BELOW_NS: u64 = 1_000_000;

/// How to run: which inputs must not be donated, and on which device.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExecuteOptions<'a> {
    /// Parameter indices the caller forbids donating, though the program aliases them.
    pub non_donatable: &'a [i64],
    /// Run on this one device instead of the executable's own devices.
    pub device: Option<usize>,
}

/// Completes the device's completion event with an error if a run is dropped before finishing
/// (e.g. a panic in the executor), so that no waiter hangs.
struct CompletionGuard(Event);

impl Drop for CompletionGuard {
    fn drop(&mut self) {
        // No effect if the run already set the event.
        let _ = self.0.set(Err(Error::internal("the execution was abandoned before it finished")));
    }
}

/// One device's share of an execution, moved to its worker.
struct DeviceRun {
    exe: Arc<Executable>,
    inputs: Vec<Arc<DeviceBuffer>>,
    /// Contents of the inputs that were already ready at execute time, taken then so that a later
    /// deletion of an argument cannot pull them from under the run.
    captured: Vec<Option<Tensor>>,
    donated: Vec<usize>,
    outputs: Vec<BufferPromise>,
    done: CompletionGuard,
    device: usize,
}

impl DeviceRun {
    fn fail(self, error: Error) {
        for o in self.outputs {
            o.fulfill(Err(error.clone()));
        }
        for &i in &self.donated {
            self.inputs[i].release_donated();
        }
        let _ = self.done.0.set(Err(error));
    }

    /// Runs the program and fulfils the outputs; a failure fails them and is also returned (for
    /// an inline run to report).
    fn run(self) -> Result<()> {
        let inputs = self
            .inputs
            .iter()
            .zip(&self.captured)
            .map(|(b, captured)| captured.clone().map_or_else(|| b.contents_for_consumer(), Ok))
            .collect::<Result<Vec<Tensor>>>();
        let result = inputs.and_then(|tensors| {
            let start = Instant::now();
            let results = run_profiled(&self.exe, self.device, &tensors)?;
            self.exe
                .last_run_ns
                .store(start.elapsed().as_nanos().min(u64::MAX as u128 - 1) as u64, Ordering::Relaxed);
            Ok(unshare_passed_through(results, &tensors, &self.donated))
        });
        let results = match result {
            Ok(r) if r.len() == self.outputs.len() => r,
            Ok(r) => {
                let n = self.outputs.len();
                let e = Error::internal(format!("the program produced {} results, expected {n}", r.len()));
                self.fail(e.clone());
                return Err(e);
            }
            Err(e) => {
                self.fail(e.clone());
                return Err(e);
            }
        };
        for &i in &self.donated {
            self.inputs[i].release_donated();
        }
        for (promise, tensor) in self.outputs.into_iter().zip(results) {
            promise.fulfill(Ok(tensor));
        }
        let _ = self.done.0.set(Ok(()));
        Ok(())
    }
}

/// A program that returns a parameter unchanged would hand back the argument's own memory. Like
/// XLA, give such a result its own copy unless the argument was donated: callers (JAX's
/// `unsafe_buffer_pointer`, DLPack exports) may rely on a non-donated input and an output never
/// sharing storage.
fn unshare_passed_through(results: Vec<Tensor>, inputs: &[Tensor], donated: &[usize]) -> Vec<Tensor> {
    let kept: Vec<*const u8> = inputs
        .iter()
        .enumerate()
        .filter(|(i, t)| !donated.contains(i) && !t.bytes().is_empty())
        .map(|(_, t)| t.bytes().as_ptr())
        .collect();
    results
        .into_iter()
        .map(|t| {
            if t.bytes().is_empty() || !kept.contains(&t.bytes().as_ptr()) {
                return t;
            }
            Tensor::from_bytes(t.ty.clone(), t.bytes()).unwrap_or(t)
        })
        .collect()
}

impl LoadedExecutable {
    /// Runs the executable with `args[d]` on its `d`-th target device (its own devices, or
    /// `options.device`). Everything is checked before the first side effect (donation, output
    /// creation). Then, per target device, `emit(d, outputs, completion)` hands the caller the
    /// pending outputs and the completion event before the run can start. The one error after
    /// that: a program that calls host callbacks, run inline, whose run failed (its outputs and
    /// event carry the error too; the caller's view drops what it was given).
    pub fn execute(
        &self,
        args: Vec<Vec<Arc<DeviceBuffer>>>,
        options: &ExecuteOptions<'_>,
        mut emit: impl FnMut(usize, &[BufferPromise], &Event),
    ) -> Result<()> {
        let exe = &self.exe;
        if self.is_deleted() {
            return Err(Error::failed_precondition("the executable was deleted").op(exe.name.clone()));
        }
        let targets: &[usize] = match &options.device {
            Some(d) => std::slice::from_ref(d),
            None => &self.device_indices,
        };
        if args.len() != targets.len() {
            return Err(Error::invalid(format!(
                "{} argument lists given, the executable runs on {} device(s)",
                args.len(),
                targets.len()
            )));
        }
        for (d, inputs) in args.iter().enumerate() {
            if inputs.len() != exe.param_types.len() {
                return Err(Error::invalid(format!(
                    "{} arguments given, {} takes {}",
                    inputs.len(),
                    exe.name,
                    exe.param_types.len()
                )));
            }
            for (i, (b, expected)) in inputs.iter().zip(&exe.param_types).enumerate() {
                if b.is_deleted() {
                    return Err(Error::invalid(format!(
                        "argument {i} (device list {d}) was deleted or donated"
                    ))
                    .location(format!("argument {i}")));
                }
                if b.ty() != expected {
                    return Err(Error::invalid(format!(
                        "argument {i} of {} has shape {:?} and element type {}, the program expects {expected}",
                        exe.name,
                        b.ty().shape,
                        b.ty().elem,
                    ))
                    .op(exe.name.clone())
                    .tensor(b.ty())
                    .location(format!("argument {i}")));
                }
            }
        }

        let donated: Vec<usize> = exe
            .aliasing_outputs
            .iter()
            .enumerate()
            .filter(|(i, alias)| alias.is_some() && !options.non_donatable.contains(&(*i as i64)))
            .map(|(i, _)| i)
            .collect();

        // A donated buffer is consumed by the call: passing it a second time (donated or not) would
        // read memory the outputs may already be overwriting. XLA refuses this too.
        for (d, inputs) in args.iter().enumerate() {
            for &i in &donated {
                if let Some(j) = (0..inputs.len()).find(|&j| j != i && Arc::ptr_eq(&inputs[i], &inputs[j])) {
                    return Err(Error::invalid(format!(
                        "argument {i} of {} (device list {d}) is donated, and the same buffer is also argument {j}: \
                         a donated buffer cannot be used again by the same call",
                        exe.name
                    ))
                    .location(format!("argument {i}")));
                }
            }
        }

        if exe.partitioning.is_some() {
            return self.execute_partitioned(args, targets, &donated, emit);
        }

        for (d, inputs) in args.into_iter().enumerate() {
            let device = targets[d];
            for &i in &donated {
                inputs[i].mark_donated();
            }
            let outputs = output_promises(&exe, device);
            let done = Event::new();
            emit(d, &outputs, &done);
            let ready = Event::join_all(&inputs.iter().map(|b| b.ready_event().clone()).collect::<Vec<_>>());
            let captured = inputs.iter().map(|b| b.contents_for_consumer().ok()).collect();
            let run = DeviceRun {
                exe: exe.clone(),
                inputs,
                captured,
                donated: donated.clone(),
                outputs,
                done: CompletionGuard(done),
                device,
            };
            // Programs that call the host run inline too, as on XLA:CPU: the host function's
            // exception is then raised by the call that ran it (`Err` below; the outputs and the
            // completion event the caller was given carry it too).
            let quick = exe.last_run_ns.load(Ordering::Relaxed) < INLINE_BELOW_NS;
            if (quick || exe.calls_host) && targets.len() == 1 && self.client.device(device).queue.is_idle() {
                match ready.outcome() {
                    Some(Ok(())) => {
                        match run.run() {
                            Err(e) if exe.calls_host => return Err(e),
                            _ => continue,
                        }
                    }
                    Some(Err(e)) => {
                        run.fail(e);
                        continue;
                    }
                    None => {}
                }
            }
            let client = self.client.clone();
            ready.on_ready(move |outcome| match outcome {
                Err(e) => run.fail(e.clone()),
                Ok(()) => client.device(device).queue.submit(move || {
                    // A queued run's failure reaches the caller through its outputs and event.
                    let _ = run.run();
                }),
            });
        }
        Ok(())
    }

    /// A partitioned program: the devices' pieces are assembled into the global inputs, the global
    /// program runs once on the first device's queue, and its results are cut back into pieces
    /// (see [`super::partition`]). Every device gets its own outputs and completion event.
    fn execute_partitioned(
        &self,
        args: Vec<Vec<Arc<DeviceBuffer>>>,
        targets: &[usize],
        donated: &[usize],
        mut emit: impl FnMut(usize, &[BufferPromise], &Event),
    ) -> Result<()> {
        let exe = self.exe.clone();
        let part = exe.partitioning.as_ref().expect("checked by the caller");
        if args.len() != part.partitions {
            return Err(Error::invalid(format!(
                "{} argument lists given, {} is partitioned over {} devices",
                args.len(),
                exe.name,
                part.partitions
            )));
        }
        let mut outputs = Vec::with_capacity(args.len());
        let mut dones = Vec::with_capacity(args.len());
        for (d, inputs) in args.iter().enumerate() {
            for &i in donated {
                inputs[i].mark_donated();
            }
            let outs = output_promises(&exe, targets[d]);
            let done = Event::new();
            emit(d, &outs, &done);
            outputs.push(outs);
            dones.push(CompletionGuard(done));
        }
        let events: Vec<Event> = args.iter().flatten().map(|b| b.ready_event().clone()).collect();
        let ready = Event::join_all(&events);
        let device = targets[0];
        let run = PartitionedRun { exe, args, donated: donated.to_vec(), outputs, dones, device };
        let client = self.client.clone();
        ready.on_ready(move |outcome| match outcome {
            Err(e) => run.finish(Err(e.clone())),
            Ok(()) => client.device(device).queue.submit(move || {
                let result = run.compute();
                run.finish(result)
            }),
        });
        Ok(())
    }
}

/// A partitioned execution, moved to the first device's worker.
struct PartitionedRun {
    exe: Arc<Executable>,
    args: Vec<Vec<Arc<DeviceBuffer>>>,
    donated: Vec<usize>,
    outputs: Vec<Vec<BufferPromise>>,
    dones: Vec<CompletionGuard>,
    /// The device whose queue runs the global program.
    device: usize,
}

impl PartitionedRun {
    /// Assembles the global inputs, runs the program once, cuts the results per device.
    fn compute(&self) -> Result<Vec<Vec<Tensor>>> {
        let part = self.exe.partitioning.as_ref().expect("a partitioned executable");
        let mut globals = Vec::with_capacity(part.params.len());
        for (i, pieces) in part.params.iter().enumerate() {
            let per_device = self.args.iter().map(|inputs| inputs[i].contents_for_consumer()).collect::<Result<Vec<_>>>()?;
            globals.push(pieces.assemble(&per_device)?);
        }
        let start = Instant::now();
        let results = run_profiled(&self.exe, self.device, &globals)?;
        self.exe.last_run_ns.store(start.elapsed().as_nanos().min(u64::MAX as u128 - 1) as u64, Ordering::Relaxed);
        if results.len() != part.results.len() {
            return Err(Error::internal(format!("the program produced {} results, expected {}", results.len(), part.results.len())));
        }
        let mut per_device: Vec<Vec<Tensor>> = vec![Vec::with_capacity(results.len()); part.partitions];
        for (r, pieces) in results.iter().zip(&part.results) {
            for (d, t) in pieces.split(r)?.into_iter().enumerate() {
                per_device[d].push(t);
            }
        }
        Ok(per_device)
    }

    fn finish(self, result: Result<Vec<Vec<Tensor>>>) {
        for &i in &self.donated {
            for inputs in &self.args {
                inputs[i].release_donated();
            }
        }
        match result {
            Ok(per_device) => {
                for ((outs, tensors), done) in self.outputs.into_iter().zip(per_device).zip(self.dones) {
                    for (promise, t) in outs.into_iter().zip(tensors) {
                        promise.fulfill(Ok(t));
                    }
                    let _ = done.0.set(Ok(()));
                }
            }
            Err(e) => {
                for (outs, done) in self.outputs.into_iter().zip(self.dones) {
                    for promise in outs {
                        promise.fulfill(Err(e.clone()));
                    }
                    let _ = done.0.set(Err(e.clone()));
                }
            }
        }
    }
}

/// The output buffers of one run on `device`, each in the memory its result declares (a host
/// memory kind is a label on apu: every kind is host memory, so arguments of any kind are read
/// where they are and no copy is made).
/// Runs the program as work of `device`: one execute span (and the steps' spans inside it) while a
/// profiler session records.
fn run_profiled(exe: &Executable, device: usize, args: &[Tensor]) -> Result<Vec<Tensor>> {
    crate::profile::on_device(device, || {
        let timer = crate::profile::begin();
        let results = exe.program.run(args).map_err(Error::from);
        if let Some(t) = timer {
            t.end(crate::profile::SpanKind::Execute, || (format!("execute {}", exe.name), exe.name.clone()));
        }
        results
    })
}

fn output_promises(exe: &Executable, device: usize) -> Vec<BufferPromise> {
    exe.output_types.iter().zip(&exe.output_memory_kinds).map(|(t, &kind)| DeviceBuffer::pending_in(t.clone(), device, kind)).collect()
}
