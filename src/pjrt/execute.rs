//! `PJRT_LoadedExecutable_Execute`: decodes the C arguments, hands them to the model's
//! [`LoadedExecutable::execute`](apu_runtime::client::LoadedExecutable::execute) (which owns
//! donation, output creation, scheduling and the inline policy) and writes the output and event
//! handles it emits into the caller's arrays.

use super::api_error::ApiError;
use super::buffer::{buffer, BufferHandle};
use super::event::EventHandle;
use super::guard::{args_min_size, entry, field_if_present, slice, ApiResult};
use super::loaded::loaded;
use super::types::{pjrt_type, pjrt_type_display};
use apu_pjrt_api::*;
use apu_runtime::client::ExecuteOptions;

args_min_size! {
    PJRT_LoadedExecutable_Execute_Args => num_args,
}

/// The input indices the caller forbids donating (execute options, if its struct has them).
unsafe fn non_donatable_inputs<'a>(options: *const PJRT_ExecuteOptions) -> ApiResult<&'a [i64]> {
    if options.is_null() {
        return Ok(&[]);
    }
    let o = unsafe { &*options };
    let ptr = field_if_present!(o, PJRT_ExecuteOptions, non_donatable_input_indices);
    let len = field_if_present!(o, PJRT_ExecuteOptions, num_non_donatable_input_indices);
    match (ptr, len) {
        (Some(p), Some(n)) => unsafe { slice(p, n, "non_donatable_input_indices") },
        _ => Ok(&[]),
    }
}

pub(crate) unsafe extern "C" fn loaded_execute(
    args: *mut PJRT_LoadedExecutable_Execute_Args,
) -> *mut PJRT_Error {
    const NAME: &str = "PJRT_LoadedExecutable_Execute";
    entry(NAME, args, |a| {
        let l = unsafe { loaded(a.executable)? };
        let device = if a.execute_device.is_null() {
            None
        } else {
            if a.num_devices != 1 {
                return Err(ApiError::invalid_argument(format!(
                    "{NAME}: `execute_device` is set but num_devices is {}",
                    a.num_devices
                )));
            }
            Some(l.client.device_index(a.execute_device)?)
        };
        let options = ExecuteOptions {
            non_donatable: unsafe { non_donatable_inputs(a.options)? },
            device,
        };
        let arg_lists = unsafe { slice(a.argument_lists, a.num_devices, "argument_lists")? };
        let out_lists = unsafe { slice(a.output_lists, a.num_devices, "output_lists")? };
        let has_outputs = !l.exe.output_types.is_empty();
        let mut per_device = Vec::with_capacity(arg_lists.len());
        for &list in arg_lists {
            let raw_args = unsafe { slice(list, a.num_args, "argument list")? };
            let mut inputs = Vec::with_capacity(raw_args.len());
            for (i, &raw) in raw_args.iter().enumerate() {
                let b = unsafe { buffer(raw, "argument")? };
                // A storage-only type (kept as u8 bytes) is never a program's parameter type. A token
                // is its stored `pred[0]`, which the model checks against the parameter like any buffer.
                let token = b.pjrt_type == PJRT_Buffer_Type_TOKEN;
                if pjrt_type(b.buffer.ty().elem) != b.pjrt_type && !token && !b.buffer.is_deleted() {
                    return Err(ApiError::invalid_argument(format!(
                        "{NAME}: argument {i} of {} has shape {:?} and element type {}, the program expects {}",
                        l.exe.name,
                        b.buffer.ty().shape,
                        pjrt_type_display(b.pjrt_type),
                        l.exe.param_types.get(i).map_or("nothing".to_string(), |t| t.to_string()),
                    )));
                }
                inputs.push(b.buffer.clone());
            }
            per_device.push(inputs);
        }
        if has_outputs && out_lists.iter().any(|o| o.is_null()) {
            return Err(ApiError::invalid_argument(format!("{NAME}: an output list is NULL")));
        }
        // (device list, number of outputs) handed out, to take back if Execute fails after all.
        let mut emitted: Vec<(usize, usize)> = Vec::new();
        let outcome = l.model.execute(per_device, &options, |d, outputs, done| {
            for (k, promise) in outputs.iter().enumerate() {
                // SAFETY: the caller provides `num_outputs` slots per device.
                unsafe {
                    *out_lists[d].add(k) = BufferHandle::into_raw_as(
                        l.client.clone(),
                        promise.buffer().clone(),
                        l.exe.output_pjrt_types[k],
                    )
                };
            }
            if !a.device_complete_events.is_null() {
                // SAFETY: the caller provides one event slot per device.
                unsafe { *a.device_complete_events.add(d) = EventHandle::into_raw(done.clone()) };
            }
            emitted.push((d, outputs.len()));
        });
        if outcome.is_err() {
            // A caller does not read the lists of a failed Execute: destroy what they hold.
            for (d, n) in emitted {
                for k in 0..n {
                    // SAFETY: written above by this call.
                    let slot = unsafe { out_lists[d].add(k) };
                    drop(unsafe { Box::from_raw(*slot as *mut BufferHandle) });
                    unsafe { *slot = std::ptr::null_mut() };
                }
                if !a.device_complete_events.is_null() {
                    let slot = unsafe { a.device_complete_events.add(d) };
                    drop(unsafe { Box::from_raw(*slot as *mut EventHandle) });
                    unsafe { *slot = std::ptr::null_mut() };
                }
            }
        }
        outcome.map_err(|e| ApiError::from(e).prefixed(NAME))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pjrt::client::ClientState;
    use crate::pjrt::executable::ExecutableView;
    use crate::pjrt::loaded::LoadedHandle;
    use apu_compiler::ir::{ElementType, TensorType};
    use apu_runtime::client::ProgramSource;
    use apu_runtime::{BufferPromise, DeviceBuffer, Event, Tensor};
    use std::sync::atomic::Ordering;
    use std::sync::Arc;

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
        LoadedHandle::load(ExecutableView::compile(source).unwrap(), state.clone())
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

        x_promise.fulfill(Tensor::from_bytes(ty, &f32s(&[2.0; 8])).map_err(Into::into));
        completion.wait().unwrap();
        assert_eq!(output.wait_tensor().unwrap().bytes(), &f32s(&[5.0; 8])[..]);

        unsafe {
            for b in [x, y, out] {
                drop(Box::from_raw(b as *mut BufferHandle));
            }
            drop(Box::from_raw(done as *mut EventHandle));
            drop(Box::from_raw(loaded as *mut LoadedHandle));
        }
    }

    /// A failed input travels to the outputs and the completion event as an error.
    #[test]
    fn input_errors_reach_outputs_and_completion() {
        let (state, loaded, ty, x_promise, x) = donate_with_pending_x();
        // The second argument is another buffer: passing the donated x twice is refused up front.
        let y = BufferHandle::into_raw(state.clone(), DeviceBuffer::ready(Tensor::from_bytes(ty, &f32s(&[1.0; 8])).unwrap(), 0));
        let list = [x, y];
        let (out, done) = execute_raw(loaded, list);
        x_promise.fulfill(Err(apu_runtime::Error::invalid("upload failed")));
        let completion = unsafe { &*(done as *const EventHandle) }.event.clone();
        assert_eq!(completion.wait().unwrap_err().message, "upload failed");
        let output = unsafe { &*(out as *const BufferHandle) }.buffer.clone();
        assert!(output.wait_tensor().is_err());
        unsafe {
            drop(Box::from_raw(x as *mut BufferHandle));
            drop(Box::from_raw(y as *mut BufferHandle));
            drop(Box::from_raw(out as *mut BufferHandle));
            drop(Box::from_raw(done as *mut EventHandle));
            drop(Box::from_raw(loaded as *mut LoadedHandle));
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
        let last_run_ns = &unsafe { &*(loaded as *const LoadedHandle) }.exe.last_run_ns;
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
        unsafe { drop(Box::from_raw(loaded as *mut LoadedHandle)) };
    }
}
