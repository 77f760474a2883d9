//! `PJRT_LoadedExecutable_Execute`: checks the arguments, marks donated inputs deleted, creates the
//! output buffers (pending), and queues the run on each target device once its inputs are ready.
//! The call returns at once; output ready events and the per-device completion events fire when
//! the run finishes (or carry its error).
//!
//! Except for quick programs: when the last run of the program took under [`INLINE_BELOW_NS`], its
//! inputs are ready and its one device has no work queued or running, the run happens on the
//! calling thread and Execute returns with the events already set, as XLA:CPU runs cheap programs.
//! Handing such a run to the device thread costs two cross-thread wake-ups, which on a virtual
//! machine's idle cores took longer than the run itself (docs/decisions.md 26).

use super::buffer::{buffer, BufferHandle};
use super::device::device_index;
use super::error::ApiError;
use super::event::EventHandle;
use super::guard::{args_min_size, entry, field_if_present, slice, ApiResult};
use super::loaded::loaded;
use super::types::{pjrt_type, pjrt_type_display};
use apu_compiler::valid::ValidModule;
use apu_pjrt_api::*;
use apu_runtime::exec::Program;
use apu_runtime::{BufferPromise, DeviceBuffer, Event, Tensor};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Programs whose last run took less than this run on the calling thread when their device is idle.
const INLINE_BELOW_NS: u64 = 1_000_000;

/// Builds the executable form of a program at compile time: the fused plan (or the interpreter where no
/// plan can be built). Programs the executor cannot run are rejected here with UNIMPLEMENTED, never at run time.
pub(crate) fn prepare(module: &ValidModule) -> ApiResult<Program> {
    Program::compile(module).map_err(ApiError::from)
}

/// Completes the device's completion event with an error if a run is dropped before finishing
/// (e.g. a panic in the executor), so that no waiter hangs.
struct CompletionGuard(Event);

impl Drop for CompletionGuard {
    fn drop(&mut self) {
        // No effect if the run already set the event.
        let _ = self.0.set(Err(apu_compiler::Error::internal(
            "the execution was abandoned before it finished",
        )));
    }
}

/// One device's share of an execution, moved to its worker.
struct DeviceRun {
    program: Arc<Program>,
    inputs: Vec<Arc<DeviceBuffer>>,
    /// Contents of the inputs that were already ready at Execute time, taken then so that a later
    /// `PJRT_Buffer_Delete` of an argument cannot pull them from under the run.
    captured: Vec<Option<Tensor>>,
    donated: Vec<usize>,
    outputs: Vec<BufferPromise>,
    done: CompletionGuard,
    /// Where the run's duration is recorded (the executable's `last_run_ns`).
    last_run_ns: Arc<AtomicU64>,
}

impl DeviceRun {
    fn fail(self, error: apu_compiler::Error) {
        for o in self.outputs {
            o.fulfill(Err(error.clone()));
        }
        for &i in &self.donated {
            self.inputs[i].release_donated();
        }
        let _ = self.done.0.set(Err(error));
    }

    fn run(self) {
        let inputs = self
            .inputs
            .iter()
            .zip(&self.captured)
            .map(|(b, captured)| {
                captured
                    .clone()
                    .map_or_else(|| b.contents_for_consumer(), Ok)
            })
            .collect::<apu_compiler::Result<Vec<Tensor>>>();
        let result = inputs.and_then(|tensors| {
            let start = Instant::now();
            let results = self.program.run(&tensors)?;
            self.last_run_ns.store(start.elapsed().as_nanos().min(u64::MAX as u128 - 1) as u64, Ordering::Relaxed);
            Ok(unshare_passed_through(results, &tensors, &self.donated))
        });
        let results = match result {
            Ok(r) if r.len() == self.outputs.len() => r,
            Ok(r) => {
                let n = self.outputs.len();
                return self.fail(apu_compiler::Error::internal(format!(
                    "the program produced {} results, expected {n}",
                    r.len()
                )));
            }
            Err(e) => return self.fail(e),
        };
        for &i in &self.donated {
            self.inputs[i].release_donated();
        }
        for (promise, tensor) in self.outputs.into_iter().zip(results) {
            promise.fulfill(Ok(tensor));
        }
        let _ = self.done.0.set(Ok(()));
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

args_min_size! {
    PJRT_LoadedExecutable_Execute_Args => num_args,
}

/// The input indices the caller forbids donating (execute options, if its struct has them).
unsafe fn non_donatable_inputs(options: *const PJRT_ExecuteOptions) -> ApiResult<Vec<i64>> {
    if options.is_null() {
        return Ok(Vec::new());
    }
    let o = unsafe { &*options };
    let ptr = field_if_present!(o, PJRT_ExecuteOptions, non_donatable_input_indices);
    let len = field_if_present!(o, PJRT_ExecuteOptions, num_non_donatable_input_indices);
    match (ptr, len) {
        (Some(p), Some(n)) => Ok(unsafe { slice(p, n, "non_donatable_input_indices")? }.to_vec()),
        _ => Ok(Vec::new()),
    }
}

pub(crate) unsafe extern "C" fn loaded_execute(
    args: *mut PJRT_LoadedExecutable_Execute_Args,
) -> *mut PJRT_Error {
    entry("PJRT_LoadedExecutable_Execute", args, |a| {
        let l = unsafe { loaded(a.executable)? };
        if l.is_deleted() {
            return Err(ApiError::failed_precondition(
                "PJRT_LoadedExecutable_Execute: the executable was deleted",
            ));
        }
        let exe = &l.exe;
        let targets: Vec<usize> = if !a.execute_device.is_null() {
            if a.num_devices != 1 {
                return Err(ApiError::invalid_argument(format!(
                    "PJRT_LoadedExecutable_Execute: `execute_device` is set but num_devices is {}",
                    a.num_devices
                )));
            }
            vec![device_index(&l.client, a.execute_device)?]
        } else {
            if a.num_devices != l.device_indices.len() {
                return Err(ApiError::invalid_argument(format!(
                    "PJRT_LoadedExecutable_Execute: {} argument lists given, the executable runs on {} device(s)",
                    a.num_devices,
                    l.device_indices.len()
                )));
            }
            l.device_indices.clone()
        };
        if a.num_args != exe.param_types.len() {
            return Err(ApiError::invalid_argument(format!(
                "PJRT_LoadedExecutable_Execute: {} arguments given, {} takes {}",
                a.num_args,
                exe.name,
                exe.param_types.len()
            )));
        }
        let non_donatable = unsafe { non_donatable_inputs(a.options)? };
        let arg_lists = unsafe { slice(a.argument_lists, a.num_devices, "argument_lists")? };
        let out_lists = unsafe { slice(a.output_lists, a.num_devices, "output_lists")? };

        // Check everything before the first side effect (donation, output creation).
        let mut per_device = Vec::with_capacity(targets.len());
        for (d, &list) in arg_lists.iter().enumerate() {
            let raw_args = unsafe { slice(list, a.num_args, "argument list")? };
            let mut inputs = Vec::with_capacity(raw_args.len());
            for (i, &raw) in raw_args.iter().enumerate() {
                let b = unsafe { buffer(raw, "argument")? };
                if b.buffer.is_deleted() {
                    return Err(ApiError::invalid_argument(format!(
                        "PJRT_LoadedExecutable_Execute: argument {i} (device list {d}) was deleted or donated"
                    )));
                }
                let expected = &exe.param_types[i];
                // Storage-only types are kept as u8 bytes: compare the caller-visible type too.
                if b.buffer.ty() != expected || b.pjrt_type != pjrt_type(expected.elem) {
                    return Err(ApiError::invalid_argument(format!(
                        "PJRT_LoadedExecutable_Execute: argument {i} of {} has shape {:?} and element type {}, \
                         the program expects {expected}",
                        exe.name,
                        b.buffer.ty().shape,
                        pjrt_type_display(b.pjrt_type),
                    )));
                }
                inputs.push(b.buffer.clone());
            }
            if out_lists[d].is_null() && !exe.output_types.is_empty() {
                return Err(ApiError::invalid_argument(
                    "PJRT_LoadedExecutable_Execute: an output list is NULL",
                ));
            }
            per_device.push(inputs);
        }

        let donated: Vec<usize> = exe
            .aliasing_outputs
            .iter()
            .enumerate()
            .filter(|(i, alias)| alias.is_some() && !non_donatable.contains(&(*i as i64)))
            .map(|(i, _)| i)
            .collect();

        for (d, inputs) in per_device.into_iter().enumerate() {
            let device = targets[d];
            for &i in &donated {
                inputs[i].mark_donated();
            }
            let outputs: Vec<BufferPromise> = exe
                .output_types
                .iter()
                .map(|t| DeviceBuffer::pending(t.clone(), device))
                .collect();
            for (k, promise) in outputs.iter().enumerate() {
                // SAFETY: the caller provides `num_outputs` slots per device.
                unsafe {
                    *out_lists[d].add(k) =
                        BufferHandle::into_raw(l.client.clone(), promise.buffer().clone())
                };
            }
            let done = Event::new();
            if !a.device_complete_events.is_null() {
                // SAFETY: the caller provides one event slot per device.
                unsafe { *a.device_complete_events.add(d) = EventHandle::into_raw(done.clone()) };
            }
            let ready = Event::join_all(
                &inputs
                    .iter()
                    .map(|b| b.ready_event().clone())
                    .collect::<Vec<_>>(),
            );
            let captured = inputs
                .iter()
                .map(|b| b.contents_for_consumer().ok())
                .collect();
            let run = DeviceRun {
                program: exe.program.clone(),
                inputs,
                captured,
                donated: donated.clone(),
                outputs,
                done: CompletionGuard(done),
                last_run_ns: exe.last_run_ns.clone(),
            };
            let quick = exe.last_run_ns.load(Ordering::Relaxed) < INLINE_BELOW_NS;
            if quick && targets.len() == 1 && l.client.device(device).queue.is_idle() {
                match ready.outcome() {
                    Some(Ok(())) => {
                        run.run();
                        continue;
                    }
                    Some(Err(e)) => {
                        run.fail(e);
                        continue;
                    }
                    None => {}
                }
            }
            let client = l.client.clone();
            ready.on_ready(move |outcome| match outcome {
                Err(e) => run.fail(e.clone()),
                Ok(()) => client.device(device).queue.submit(move || run.run()),
            });
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pjrt::client::ClientState;
    use crate::pjrt::executable::{Executable, ProgramSource};
    use crate::pjrt::loaded::LoadedExecutable;
    use apu_compiler::ir::{ElementType, TensorType};

    fn fixture(name: &str) -> Vec<u8> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("compiler/tests/fixtures/vhlo")
            .join(name);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// The `donate` fixture (two f32[8] arguments, one result) loaded on `state`'s client.
    fn load_donate(state: &Arc<ClientState>) -> *mut PJRT_LoadedExecutable {
        let source = ProgramSource {
            format: "mlir".into(),
            code: fixture("donate.vhlo_v1_0_0.mlirbc"),
            options: vec![],
        };
        LoadedExecutable::load(Executable::compile(source).unwrap(), state.clone())
            .unwrap()
            .into_raw()
    }

    /// A client with the donate program loaded, and its first argument `x` (f32[8]) as a buffer whose
    /// contents are still to come: the promise fulfils it.
    #[allow(clippy::type_complexity)]
    fn donate_with_pending_x() -> (Arc<ClientState>, *mut PJRT_LoadedExecutable, TensorType, BufferPromise, *mut PJRT_Buffer) {
        let state = ClientState::new(1);
        let loaded = load_donate(&state);
        let ty = TensorType::new(vec![8], ElementType::F32);
        let x_promise = DeviceBuffer::pending(ty.clone(), 0);
        let x = BufferHandle::into_raw(state.clone(), x_promise.buffer().clone());
        (state, loaded, ty, x_promise, x)
    }

    /// Calls Execute on one device with arguments `list`; returns the raw output buffer and
    /// completion event handles (the caller owns them).
    fn execute_raw(
        loaded: *mut PJRT_LoadedExecutable,
        list: [*mut PJRT_Buffer; 2],
    ) -> (*mut PJRT_Buffer, *mut PJRT_Event) {
        let lists = [list.as_ptr()];
        let mut out = [std::ptr::null_mut::<PJRT_Buffer>()];
        let outs = [out.as_mut_ptr()];
        let mut done = [std::ptr::null_mut::<PJRT_Event>()];
        let mut args: PJRT_LoadedExecutable_Execute_Args = unsafe { std::mem::zeroed() };
        args.struct_size = std::mem::size_of::<PJRT_LoadedExecutable_Execute_Args>();
        args.executable = loaded;
        args.argument_lists = lists.as_ptr();
        args.num_devices = 1;
        args.num_args = 2;
        args.output_lists = outs.as_ptr();
        args.device_complete_events = done.as_mut_ptr();
        assert!(unsafe { loaded_execute(&mut args) }.is_null());
        (out[0], done[0])
    }

    /// Execute returns before its inputs exist; outputs and the completion event follow them.
    #[test]
    fn execution_waits_for_pending_inputs_without_blocking_the_caller() {
        let (state, loaded, ty, x_promise, x) = donate_with_pending_x();
        let y = BufferHandle::into_raw(
            state.clone(),
            DeviceBuffer::ready(Tensor::from_bytes(ty.clone(), &f32s(&[1.0; 8])).unwrap(), 0),
        );
        let list = [x, y];
        let (out, done) = execute_raw(loaded, list);

        let output = unsafe { &*(out as *const BufferHandle) }.buffer.clone();
        let completion = unsafe { &*(done as *const EventHandle) }.event.clone();
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(
            !output.ready_event().is_ready() && !completion.is_ready(),
            "nothing can run before x exists"
        );
        // Deleting an argument after Execute returned must not affect the queued run.
        unsafe { &*(y as *const BufferHandle) }.buffer.delete();

        x_promise.fulfill(Tensor::from_bytes(ty, &f32s(&[2.0; 8])));
        completion.wait().unwrap();
        assert_eq!(output.wait_tensor().unwrap().bytes(), &f32s(&[5.0; 8])[..]);

        unsafe {
            for b in [x, y, out] {
                drop(Box::from_raw(b as *mut BufferHandle));
            }
            drop(Box::from_raw(done as *mut EventHandle));
            drop(Box::from_raw(loaded as *mut LoadedExecutable));
        }
    }

    /// A failed input travels to the outputs and the completion event as an error.
    #[test]
    fn input_errors_reach_outputs_and_completion() {
        let (_state, loaded, _, x_promise, x) = donate_with_pending_x();
        let list = [x, x];
        let (out, done) = execute_raw(loaded, list);
        x_promise.fulfill(Err(apu_compiler::Error::invalid("upload failed")));
        let completion = unsafe { &*(done as *const EventHandle) }.event.clone();
        assert_eq!(completion.wait().unwrap_err().message, "upload failed");
        let output = unsafe { &*(out as *const BufferHandle) }.buffer.clone();
        assert!(output.wait_tensor().is_err());
        unsafe {
            drop(Box::from_raw(x as *mut BufferHandle));
            drop(Box::from_raw(out as *mut BufferHandle));
            drop(Box::from_raw(done as *mut EventHandle));
            drop(Box::from_raw(loaded as *mut LoadedExecutable));
        }
    }

    /// Runs the `donate` fixture on fresh ready inputs x = 2, y = 1 and returns the output buffer
    /// and completion event right after Execute returned.
    fn execute_ready(state: &Arc<ClientState>, loaded: *mut PJRT_LoadedExecutable) -> (Arc<DeviceBuffer>, Event) {
        let ty = TensorType::new(vec![8], ElementType::F32);
        let input = |v: f32| {
            BufferHandle::into_raw(
                state.clone(),
                DeviceBuffer::ready(Tensor::from_bytes(ty.clone(), &f32s(&[v; 8])).unwrap(), 0),
            )
        };
        let list = [input(2.0), input(1.0)];
        let (out, done) = execute_raw(loaded, list);
        let output = unsafe { &*(out as *const BufferHandle) }.buffer.clone();
        let completion = unsafe { &*(done as *const EventHandle) }.event.clone();
        unsafe {
            for b in [list[0], list[1], out] {
                drop(Box::from_raw(b as *mut BufferHandle));
            }
            drop(Box::from_raw(done as *mut EventHandle));
        }
        (output, completion)
    }

    /// The first run goes to the device thread; once the program is known to be quick, a run
    /// with ready inputs on an idle device happens inside Execute; a busy device still queues it
    /// behind its earlier work.
    #[test]
    fn quick_programs_run_inside_execute_when_the_device_is_idle() {
        let state = ClientState::new(1);
        let loaded = load_donate(&state);
        let want = f32s(&[5.0; 8]);
        let (output, completion) = execute_ready(&state, loaded);
        completion.wait().unwrap();
        assert_eq!(output.wait_tensor().unwrap().bytes(), &want[..]);
        // The worker counts the job finished just after it set the events.
        let queue = &state.device(0).queue;
        let t = std::time::Instant::now();
        while !queue.is_idle() && t.elapsed() < std::time::Duration::from_secs(5) {
            std::thread::yield_now();
        }
        let last_run_ns = &unsafe { &*(loaded as *const LoadedExecutable) }.exe.last_run_ns;
        assert_ne!(last_run_ns.load(Ordering::Relaxed), u64::MAX, "the run's duration is recorded");
        // Quick whatever this build's and this machine's speed (a debug build on a loaded CI machine
        // may take over the threshold even for this program).
        last_run_ns.store(0, Ordering::Relaxed);

        let (output, completion) = execute_ready(&state, loaded);
        assert!(completion.is_ready() && output.ready_event().is_ready(), "a quick run on an idle device is done when Execute returns");
        assert_eq!(output.wait_tensor().unwrap().bytes(), &want[..]);

        let (gate, started) = (Event::new(), Event::new());
        let (g, s) = (gate.clone(), started.clone());
        state.device(0).queue.submit(move || {
            s.set(Ok(())).unwrap();
            g.wait().unwrap();
        });
        started.wait().unwrap();
        let (output, completion) = execute_ready(&state, loaded);
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(!completion.is_ready(), "a busy device runs the program after its earlier work");
        gate.set(Ok(())).unwrap();
        completion.wait().unwrap();
        assert_eq!(output.wait_tensor().unwrap().bytes(), &want[..]);
        unsafe { drop(Box::from_raw(loaded as *mut LoadedExecutable)) };
    }
}
