//! Test helpers that drive the plugin through its `PJRT_Api` table, the way a framework does.
#![allow(dead_code, clippy::macro_metavars_in_unsafe)]

pub use apu_pjrt_api::*;
use std::os::raw::c_char;

/// A zeroed args struct with `struct_size` set to our full size.
#[macro_export]
macro_rules! args {
    ($ty:ident) => {{
        let mut a: $ty = unsafe { std::mem::zeroed() };
        a.struct_size = std::mem::size_of::<$ty>();
        a
    }};
    ($ty:ident { $($field:ident : $value:expr),* $(,)? }) => {{
        let mut a = $crate::args!($ty);
        $(a.$field = $value;)*
        a
    }};
}

pub fn api() -> &'static PJRT_Api {
    unsafe { &*apu::GetPjrtApi() }
}

/// A failed call: (code, message).
#[derive(Debug)]
pub struct Failure {
    pub code: PJRT_Error_Code,
    pub message: String,
}

/// Turns a returned error into a `Failure`, freeing it through the API.
pub fn check(err: *mut PJRT_Error) -> Result<(), Failure> {
    if err.is_null() {
        return Ok(());
    }
    let api = api();
    let mut code = args!(PJRT_Error_GetCode_Args { error: err });
    unsafe { assert!(api.PJRT_Error_GetCode.unwrap()(&mut code).is_null()) };
    let mut msg = args!(PJRT_Error_Message_Args { error: err });
    unsafe { api.PJRT_Error_Message.unwrap()(&mut msg) };
    let message = unsafe { str_from(msg.message, msg.message_size) };
    let mut destroy = args!(PJRT_Error_Destroy_Args { error: err });
    unsafe { api.PJRT_Error_Destroy.unwrap()(&mut destroy) };
    Err(Failure {
        code: code.code,
        message,
    })
}

/// Calls a table slot with args, returning Ok or the failure.
#[macro_export]
macro_rules! call {
    ($slot:ident, $args:expr) => {{
        let args = $args;
        $crate::common::check(unsafe {
            $crate::common::api().$slot.expect(stringify!($slot))(args)
        })
    }};
}

pub unsafe fn str_from(ptr: *const c_char, len: usize) -> String {
    if len == 0 {
        return String::new();
    }
    String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(ptr as *const u8, len) })
        .into_owned()
}

pub struct Client(pub *mut PJRT_Client);
// SAFETY: PJRT clients are thread-safe; that is part of what the tests check.
unsafe impl Sync for Client {}

impl Client {
    pub fn new() -> Client {
        Self::with_options(&[])
    }
    pub fn with_options(options: &[PJRT_NamedValue]) -> Client {
        let mut a = args!(PJRT_Client_Create_Args {
            create_options: options.as_ptr(),
            num_options: options.len(),
        });
        call!(PJRT_Client_Create, &mut a).expect("client create");
        Client(a.client)
    }
    pub fn devices(&self) -> Vec<*mut PJRT_Device> {
        let mut a = args!(PJRT_Client_Devices_Args { client: self.0 });
        call!(PJRT_Client_Devices, &mut a).unwrap();
        unsafe { std::slice::from_raw_parts(a.devices, a.num_devices) }.to_vec()
    }
    pub fn memories(&self) -> Vec<*mut PJRT_Memory> {
        let mut a = args!(PJRT_Client_AddressableMemories_Args { client: self.0 });
        call!(PJRT_Client_AddressableMemories, &mut a).unwrap();
        unsafe { std::slice::from_raw_parts(a.addressable_memories, a.num_addressable_memories) }
            .to_vec()
    }
    pub fn default_memory(&self, device: *mut PJRT_Device) -> *mut PJRT_Memory {
        let mut a = args!(PJRT_Device_DefaultMemory_Args { device: device });
        call!(PJRT_Device_DefaultMemory, &mut a).unwrap();
        a.memory
    }
    /// A buffer from host bytes with the given strides (None = dense).
    pub fn buffer_from_host(
        &self,
        data: &[u8],
        ty: PJRT_Buffer_Type,
        dims: &[i64],
        byte_strides: Option<&[i64]>,
        semantics: PJRT_HostBufferSemantics,
    ) -> Result<Buffer, Failure> {
        let device = self.devices()[0];
        let mut a = args!(PJRT_Client_BufferFromHostBuffer_Args {
            client: self.0,
            data: data.as_ptr() as *const _,
            type_: ty,
            dims: dims.as_ptr(),
            num_dims: dims.len(),
            byte_strides: byte_strides.map_or(std::ptr::null(), |s| s.as_ptr()),
            num_byte_strides: byte_strides.map_or(0, |s| s.len()),
            host_buffer_semantics: semantics,
            memory: self.default_memory(device),
        });
        call!(PJRT_Client_BufferFromHostBuffer, &mut a)?;
        assert!(
            !a.done_with_host_buffer.is_null(),
            "done_with_host_buffer must never be NULL"
        );
        await_event(a.done_with_host_buffer).unwrap();
        destroy_event(a.done_with_host_buffer);
        Ok(Buffer(a.buffer))
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let mut a = args!(PJRT_Client_Destroy_Args { client: self.0 });
        call!(PJRT_Client_Destroy, &mut a).unwrap();
    }
}

pub struct Buffer(pub *mut PJRT_Buffer);

impl Buffer {
    /// Dense row-major copy to host (host_layout NULL).
    pub fn to_host(&self) -> Result<Vec<u8>, Failure> {
        self.to_host_with_layout(std::ptr::null_mut())
    }
    pub fn to_host_with_layout(
        &self,
        layout: *mut PJRT_Buffer_MemoryLayout,
    ) -> Result<Vec<u8>, Failure> {
        let mut q = args!(PJRT_Buffer_ToHostBuffer_Args {
            src: self.0,
            host_layout: layout
        });
        call!(PJRT_Buffer_ToHostBuffer, &mut q)?;
        assert!(q.event.is_null(), "a size query returns no event");
        let mut out = vec![0u8; q.dst_size];
        let mut a = args!(PJRT_Buffer_ToHostBuffer_Args {
            src: self.0,
            host_layout: layout,
            dst: out.as_mut_ptr() as *mut _,
            dst_size: out.len(),
        });
        call!(PJRT_Buffer_ToHostBuffer, &mut a)?;
        assert!(!a.event.is_null(), "ToHostBuffer must return an event");
        let r = await_event(a.event);
        destroy_event(a.event);
        r.map(|()| out)
    }
    pub fn is_deleted(&self) -> bool {
        let mut a = args!(PJRT_Buffer_IsDeleted_Args { buffer: self.0 });
        call!(PJRT_Buffer_IsDeleted, &mut a).unwrap();
        a.is_deleted
    }
    pub fn dims(&self) -> Vec<i64> {
        let mut a = args!(PJRT_Buffer_Dimensions_Args { buffer: self.0 });
        call!(PJRT_Buffer_Dimensions, &mut a).unwrap();
        unsafe { std::slice::from_raw_parts(a.dims, a.num_dims) }.to_vec()
    }
    pub fn element_type(&self) -> PJRT_Buffer_Type {
        let mut a = args!(PJRT_Buffer_ElementType_Args { buffer: self.0 });
        call!(PJRT_Buffer_ElementType, &mut a).unwrap();
        a.type_
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        let mut a = args!(PJRT_Buffer_Destroy_Args { buffer: self.0 });
        call!(PJRT_Buffer_Destroy, &mut a).unwrap();
    }
}

pub fn await_event(event: *mut PJRT_Event) -> Result<(), Failure> {
    let mut a = args!(PJRT_Event_Await_Args { event: event });
    call!(PJRT_Event_Await, &mut a)
}

pub fn destroy_event(event: *mut PJRT_Event) {
    let mut a = args!(PJRT_Event_Destroy_Args { event: event });
    call!(PJRT_Event_Destroy, &mut a).unwrap();
}

pub fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

pub fn f32_values(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

pub struct Loaded(pub *mut PJRT_LoadedExecutable);

impl Client {
    pub fn compile(&self, format: &str, code: &[u8], options: &[u8]) -> Result<Loaded, Failure> {
        let program = args!(PJRT_Program {
            code: code.as_ptr() as *mut _,
            code_size: code.len(),
            format: format.as_ptr() as *const _,
            format_size: format.len(),
        });
        let mut a = args!(PJRT_Client_Compile_Args {
            client: self.0,
            program: &program,
            compile_options: options.as_ptr() as *const _,
            compile_options_size: options.len(),
        });
        call!(PJRT_Client_Compile, &mut a)?;
        Ok(Loaded(a.executable))
    }
}

impl Loaded {
    /// Runs on the executable's single device; waits for completion.
    pub fn execute(
        &self,
        inputs: &[&Buffer],
        non_donatable: &[i64],
    ) -> Result<Vec<Buffer>, Failure> {
        let num_outputs = self.with_executable(|e| {
            let mut n = args!(PJRT_Executable_NumOutputs_Args { executable: e });
            call!(PJRT_Executable_NumOutputs, &mut n).unwrap();
            n.num_outputs
        });
        let arg_list: Vec<*mut PJRT_Buffer> = inputs.iter().map(|b| b.0).collect();
        let arg_lists = [arg_list.as_ptr()];
        let mut outputs = vec![std::ptr::null_mut::<PJRT_Buffer>(); num_outputs];
        let output_lists = [outputs.as_mut_ptr()];
        let mut complete = [std::ptr::null_mut::<PJRT_Event>()];
        let mut options = args!(PJRT_ExecuteOptions {
            non_donatable_input_indices: non_donatable.as_ptr(),
            num_non_donatable_input_indices: non_donatable.len(),
        });
        let mut a = args!(PJRT_LoadedExecutable_Execute_Args {
            executable: self.0,
            options: &mut options,
            argument_lists: arg_lists.as_ptr(),
            num_devices: 1,
            num_args: inputs.len(),
            output_lists: output_lists.as_ptr(),
            device_complete_events: complete.as_mut_ptr(),
        });
        call!(PJRT_LoadedExecutable_Execute, &mut a)?;
        assert!(!complete[0].is_null(), "one completion event per device");
        let outs: Vec<Buffer> = outputs.into_iter().map(Buffer).collect();
        let r = await_event(complete[0]);
        destroy_event(complete[0]);
        r.map(|()| outs)
    }

    /// Calls `f` with a temporary `PJRT_Executable` of this loaded executable.
    pub fn with_executable<T>(&self, f: impl FnOnce(*mut PJRT_Executable) -> T) -> T {
        let mut g = args!(PJRT_LoadedExecutable_GetExecutable_Args {
            loaded_executable: self.0
        });
        call!(PJRT_LoadedExecutable_GetExecutable, &mut g).unwrap();
        let out = f(g.executable);
        let mut d = args!(PJRT_Executable_Destroy_Args {
            executable: g.executable
        });
        call!(PJRT_Executable_Destroy, &mut d).unwrap();
        out
    }
}

impl Drop for Loaded {
    fn drop(&mut self) {
        let mut a = args!(PJRT_LoadedExecutable_Destroy_Args { executable: self.0 });
        call!(PJRT_LoadedExecutable_Destroy, &mut a).unwrap();
    }
}

/// `<repo>/../shared/samples` if present.
pub fn samples_dir() -> Option<std::path::PathBuf> {
    let mut dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    loop {
        let candidate = dir.join("shared/samples");
        if candidate.is_dir() {
            return Some(candidate);
        }
        if !dir.pop() {
            return None;
        }
    }
}

pub fn fixture(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("compiler/tests/fixtures/vhlo")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
