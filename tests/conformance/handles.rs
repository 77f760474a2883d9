//! Owning wrappers over plugin objects, so cases read like client code and never leak.
use super::plugin::{bytes_to_string, PjrtError, Plugin};
use crate::{pjrt_args, pjrt_call};
use apu_pjrt_api::*;
use std::ptr::null_mut;

pub type PjrtResult<T> = Result<T, PjrtError>;

pub struct Client<'p> {
    pub plugin: &'p Plugin,
    pub raw: *mut PJRT_Client,
}

impl<'p> Client<'p> {
    /// A client with no options and NULL key-value callbacks, as in single-process JAX.
    pub fn create(plugin: &'p Plugin) -> PjrtResult<Client<'p>> {
        let mut args = pjrt_args!(PJRT_Client_Create_Args {});
        pjrt_call!(plugin, PJRT_Client_Create, &mut args)?;
        if args.client.is_null() {
            return Err(PjrtError { code: PJRT_Error_Code_INTERNAL, message: "PJRT_Client_Create returned NULL client".into() });
        }
        Ok(Client { plugin, raw: args.client })
    }

    pub fn platform_name(&self) -> PjrtResult<String> {
        let mut args = pjrt_args!(PJRT_Client_PlatformName_Args { client: self.raw });
        pjrt_call!(self.plugin, PJRT_Client_PlatformName, &mut args)?;
        Ok(unsafe { bytes_to_string(args.platform_name, args.platform_name_size) })
    }

    pub fn platform_version(&self) -> PjrtResult<String> {
        let mut args = pjrt_args!(PJRT_Client_PlatformVersion_Args { client: self.raw });
        pjrt_call!(self.plugin, PJRT_Client_PlatformVersion, &mut args)?;
        Ok(unsafe { bytes_to_string(args.platform_version, args.platform_version_size) })
    }

    pub fn process_index(&self) -> PjrtResult<i32> {
        let mut args = pjrt_args!(PJRT_Client_ProcessIndex_Args { client: self.raw });
        pjrt_call!(self.plugin, PJRT_Client_ProcessIndex, &mut args)?;
        Ok(args.process_index)
    }

    pub fn devices(&self) -> PjrtResult<Vec<*mut PJRT_Device>> {
        let mut args = pjrt_args!(PJRT_Client_Devices_Args { client: self.raw });
        pjrt_call!(self.plugin, PJRT_Client_Devices, &mut args)?;
        Ok(unsafe { copy_list(args.devices, args.num_devices) })
    }

    pub fn addressable_devices(&self) -> PjrtResult<Vec<*mut PJRT_Device>> {
        let mut args = pjrt_args!(PJRT_Client_AddressableDevices_Args { client: self.raw });
        pjrt_call!(self.plugin, PJRT_Client_AddressableDevices, &mut args)?;
        Ok(unsafe { copy_list(args.addressable_devices, args.num_addressable_devices) })
    }

    pub fn addressable_memories(&self) -> PjrtResult<Vec<*mut PJRT_Memory>> {
        let mut args = pjrt_args!(PJRT_Client_AddressableMemories_Args { client: self.raw });
        pjrt_call!(self.plugin, PJRT_Client_AddressableMemories, &mut args)?;
        Ok(unsafe { copy_list(args.addressable_memories, args.num_addressable_memories) })
    }

    pub fn lookup_device(&self, id: i32) -> PjrtResult<*mut PJRT_Device> {
        let mut args = pjrt_args!(PJRT_Client_LookupDevice_Args { client: self.raw, id: id });
        pjrt_call!(self.plugin, PJRT_Client_LookupDevice, &mut args)?;
        Ok(args.device)
    }

    pub fn lookup_addressable_device(&self, local_hardware_id: i32) -> PjrtResult<*mut PJRT_Device> {
        let mut args = pjrt_args!(PJRT_Client_LookupAddressableDevice_Args {
            client: self.raw,
            local_hardware_id: local_hardware_id,
        });
        pjrt_call!(self.plugin, PJRT_Client_LookupAddressableDevice, &mut args)?;
        Ok(args.addressable_device)
    }

    pub fn first_device(&self) -> PjrtResult<*mut PJRT_Device> {
        self.addressable_devices()?.first().copied().ok_or_else(|| PjrtError {
            code: PJRT_Error_Code_NOT_FOUND,
            message: "client has no addressable device".into(),
        })
    }

    /// Compiles `code` in `format` with serialized CompileOptionsProto `options`.
    pub fn compile(&self, code: &[u8], format: &str, options: &[u8]) -> PjrtResult<LoadedExecutable<'p>> {
        self.compile_with_extension(code, format, options, null_mut())
    }

    pub fn compile_with_extension(
        &self,
        code: &[u8],
        format: &str,
        options: &[u8],
        extension_start: *mut PJRT_Extension_Base,
    ) -> PjrtResult<LoadedExecutable<'p>> {
        let program = pjrt_args!(PJRT_Program {
            code: code.as_ptr() as *mut _,
            code_size: code.len(),
            format: format.as_ptr() as *const _,
            format_size: format.len(),
        });
        let mut args = pjrt_args!(PJRT_Client_Compile_Args {
            extension_start: extension_start,
            client: self.raw,
            program: &program,
            compile_options: options.as_ptr() as *const _,
            compile_options_size: options.len(),
        });
        pjrt_call!(self.plugin, PJRT_Client_Compile, &mut args)?;
        Ok(LoadedExecutable { plugin: self.plugin, raw: args.executable })
    }
}

impl Drop for Client<'_> {
    fn drop(&mut self) {
        let mut args = pjrt_args!(PJRT_Client_Destroy_Args { client: self.raw });
        let _ = pjrt_call!(self.plugin, PJRT_Client_Destroy, &mut args);
    }
}

/// Copies a plugin-owned array of handles.
///
/// # Safety
/// `ptr` must point to `len` elements when `len > 0`.
pub unsafe fn copy_list<T: Copy>(ptr: *const T, len: usize) -> Vec<T> {
    if len == 0 || ptr.is_null() {
        return Vec::new();
    }
    std::slice::from_raw_parts(ptr, len).to_vec()
}

pub struct Event<'p> {
    pub plugin: &'p Plugin,
    pub raw: *mut PJRT_Event,
}

impl<'p> Event<'p> {
    pub fn wrap(plugin: &'p Plugin, raw: *mut PJRT_Event) -> Option<Event<'p>> {
        (!raw.is_null()).then_some(Event { plugin, raw })
    }

    /// Blocks until completion; Ok(Err(e)) is an event that completed with an error.
    pub fn await_ready(&self) -> PjrtResult<Result<(), PjrtError>> {
        let mut args = pjrt_args!(PJRT_Event_Await_Args { event: self.raw });
        Ok(pjrt_call!(self.plugin, PJRT_Event_Await, &mut args))
    }

    pub fn is_ready(&self) -> PjrtResult<bool> {
        let mut args = pjrt_args!(PJRT_Event_IsReady_Args { event: self.raw });
        pjrt_call!(self.plugin, PJRT_Event_IsReady, &mut args)?;
        Ok(args.is_ready)
    }

    /// The outcome of a completed event.
    pub fn error(&self) -> Result<(), PjrtError> {
        let mut args = pjrt_args!(PJRT_Event_Error_Args { event: self.raw });
        pjrt_call!(self.plugin, PJRT_Event_Error, &mut args)
    }
}

impl Drop for Event<'_> {
    fn drop(&mut self) {
        let mut args = pjrt_args!(PJRT_Event_Destroy_Args { event: self.raw });
        let _ = pjrt_call!(self.plugin, PJRT_Event_Destroy, &mut args);
    }
}

pub struct Buffer<'p> {
    pub plugin: &'p Plugin,
    pub raw: *mut PJRT_Buffer,
}

impl<'p> Buffer<'p> {
    pub fn element_type(&self) -> PjrtResult<PJRT_Buffer_Type> {
        let mut args = pjrt_args!(PJRT_Buffer_ElementType_Args { buffer: self.raw });
        pjrt_call!(self.plugin, PJRT_Buffer_ElementType, &mut args)?;
        Ok(args.type_)
    }

    pub fn dimensions(&self) -> PjrtResult<Vec<i64>> {
        let mut args = pjrt_args!(PJRT_Buffer_Dimensions_Args { buffer: self.raw });
        pjrt_call!(self.plugin, PJRT_Buffer_Dimensions, &mut args)?;
        Ok(unsafe { copy_list(args.dims, args.num_dims) })
    }

    pub fn is_deleted(&self) -> PjrtResult<bool> {
        let mut args = pjrt_args!(PJRT_Buffer_IsDeleted_Args { buffer: self.raw });
        pjrt_call!(self.plugin, PJRT_Buffer_IsDeleted, &mut args)?;
        Ok(args.is_deleted)
    }

    pub fn delete(&self) -> PjrtResult<()> {
        let mut args = pjrt_args!(PJRT_Buffer_Delete_Args { buffer: self.raw });
        pjrt_call!(self.plugin, PJRT_Buffer_Delete, &mut args)
    }

    pub fn device(&self) -> PjrtResult<*mut PJRT_Device> {
        let mut args = pjrt_args!(PJRT_Buffer_Device_Args { buffer: self.raw });
        pjrt_call!(self.plugin, PJRT_Buffer_Device, &mut args)?;
        Ok(args.device)
    }

    pub fn memory(&self) -> PjrtResult<*mut PJRT_Memory> {
        let mut args = pjrt_args!(PJRT_Buffer_Memory_Args { buffer: self.raw });
        pjrt_call!(self.plugin, PJRT_Buffer_Memory, &mut args)?;
        Ok(args.memory)
    }

    pub fn ready_event(&self) -> PjrtResult<Option<Event<'p>>> {
        let mut args = pjrt_args!(PJRT_Buffer_ReadyEvent_Args { buffer: self.raw });
        pjrt_call!(self.plugin, PJRT_Buffer_ReadyEvent, &mut args)?;
        Ok(Event::wrap(self.plugin, args.event))
    }

    /// Bytes needed by ToHostBuffer with no host layout (asks the plugin with dst = NULL).
    pub fn host_size(&self) -> PjrtResult<usize> {
        let mut args = pjrt_args!(PJRT_Buffer_ToHostBuffer_Args { src: self.raw });
        pjrt_call!(self.plugin, PJRT_Buffer_ToHostBuffer, &mut args)?;
        Ok(args.dst_size)
    }

    /// Copies the buffer to `dst` (dense row-major unless `layout` says otherwise) and waits.
    /// The outer error is the call's, the inner one the completion event's.
    pub fn to_host_into(&self, dst: &mut [u8], layout: Option<&mut PJRT_Buffer_MemoryLayout>) -> PjrtResult<Result<(), PjrtError>> {
        let mut args = pjrt_args!(PJRT_Buffer_ToHostBuffer_Args {
            src: self.raw,
            host_layout: layout.map_or(null_mut(), |l| l as *mut _),
            dst: dst.as_mut_ptr() as *mut _,
            dst_size: dst.len(),
        });
        pjrt_call!(self.plugin, PJRT_Buffer_ToHostBuffer, &mut args)?;
        let event = Event::wrap(self.plugin, args.event).ok_or_else(|| PjrtError {
            code: PJRT_Error_Code_INTERNAL,
            message: "PJRT_Buffer_ToHostBuffer returned no event".into(),
        })?;
        event.await_ready()
    }

    /// Reads the whole buffer, failing on either the call or its event.
    pub fn to_host(&self, len: usize) -> PjrtResult<Vec<u8>> {
        let mut out = vec![0u8; len];
        self.to_host_into(&mut out, None)??;
        Ok(out)
    }
}

impl Drop for Buffer<'_> {
    fn drop(&mut self) {
        let mut args = pjrt_args!(PJRT_Buffer_Destroy_Args { buffer: self.raw });
        let _ = pjrt_call!(self.plugin, PJRT_Buffer_Destroy, &mut args);
    }
}

/// How to place host data into a new buffer.
pub struct HostData<'a> {
    pub bytes: &'a [u8],
    pub element_type: PJRT_Buffer_Type,
    pub dims: &'a [i64],
    pub byte_strides: Option<&'a [i64]>,
    pub semantics: PJRT_HostBufferSemantics,
}

/// A new buffer and the event saying when the host memory may be reused.
pub struct Transfer<'p> {
    pub buffer: Buffer<'p>,
    pub done_with_host_buffer: Option<Event<'p>>,
}

impl<'p> Client<'p> {
    pub fn buffer_from_host(&self, data: &HostData<'_>, device: *mut PJRT_Device) -> PjrtResult<Transfer<'p>> {
        let (strides_ptr, strides_len) = data.byte_strides.map_or((std::ptr::null(), 0), |s| (s.as_ptr(), s.len()));
        let mut args = pjrt_args!(PJRT_Client_BufferFromHostBuffer_Args {
            client: self.raw,
            data: data.bytes.as_ptr() as *const _,
            type_: data.element_type,
            dims: data.dims.as_ptr(),
            num_dims: data.dims.len(),
            byte_strides: strides_ptr,
            num_byte_strides: strides_len,
            host_buffer_semantics: data.semantics,
            device: device,
        });
        pjrt_call!(self.plugin, PJRT_Client_BufferFromHostBuffer, &mut args)?;
        Ok(Transfer {
            buffer: Buffer { plugin: self.plugin, raw: args.buffer },
            done_with_host_buffer: Event::wrap(self.plugin, args.done_with_host_buffer),
        })
    }

    /// Synchronous convenience: copies (kImmutableOnlyDuringCall) and waits for readiness.
    pub fn upload(&self, bytes: &[u8], element_type: PJRT_Buffer_Type, dims: &[i64]) -> PjrtResult<Buffer<'p>> {
        let device = self.first_device()?;
        let transfer = self.buffer_from_host(
            &HostData { bytes, element_type, dims, byte_strides: None, semantics: PJRT_HostBufferSemantics_kImmutableOnlyDuringCall },
            device,
        )?;
        if let Some(done) = &transfer.done_with_host_buffer {
            done.await_ready()??;
        }
        if let Some(ready) = transfer.buffer.ready_event()? {
            ready.await_ready()??;
        }
        Ok(transfer.buffer)
    }
}

pub struct LoadedExecutable<'p> {
    pub plugin: &'p Plugin,
    pub raw: *mut PJRT_LoadedExecutable,
}

/// Outputs of one execution on one device.
pub struct Execution<'p> {
    pub outputs: Vec<Buffer<'p>>,
    pub complete: Option<Event<'p>>,
}

impl<'p> LoadedExecutable<'p> {
    pub fn executable(&self) -> PjrtResult<Executable<'p>> {
        let mut args = pjrt_args!(PJRT_LoadedExecutable_GetExecutable_Args { loaded_executable: self.raw });
        pjrt_call!(self.plugin, PJRT_LoadedExecutable_GetExecutable, &mut args)?;
        Ok(Executable { plugin: self.plugin, raw: args.executable })
    }

    pub fn num_outputs(&self) -> PjrtResult<usize> {
        self.executable()?.num_outputs()
    }

    pub fn addressable_devices(&self) -> PjrtResult<Vec<*mut PJRT_Device>> {
        let mut args = pjrt_args!(PJRT_LoadedExecutable_AddressableDevices_Args { executable: self.raw });
        pjrt_call!(self.plugin, PJRT_LoadedExecutable_AddressableDevices, &mut args)?;
        Ok(unsafe { copy_list(args.addressable_devices, args.num_addressable_devices) })
    }

    /// Runs on one device as jaxlib does: execute_device NULL, one completion event requested,
    /// `options` as given (jaxlib passes the 144-byte 0.112 layout).
    pub fn execute(&self, inputs: &[&Buffer<'p>], options: &mut PJRT_ExecuteOptions) -> PjrtResult<Execution<'p>> {
        self.execute_with_extension(inputs, options, null_mut())
    }

    pub fn execute_with_extension(
        &self,
        inputs: &[&Buffer<'p>],
        options: &mut PJRT_ExecuteOptions,
        extension_start: *mut PJRT_Extension_Base,
    ) -> PjrtResult<Execution<'p>> {
        let num_outputs = self.num_outputs()?;
        let argument_list: Vec<*mut PJRT_Buffer> = inputs.iter().map(|b| b.raw).collect();
        let argument_lists: [*const *mut PJRT_Buffer; 1] = [argument_list.as_ptr()];
        let mut output_list: Vec<*mut PJRT_Buffer> = vec![null_mut(); num_outputs];
        let output_lists: [*mut *mut PJRT_Buffer; 1] = [output_list.as_mut_ptr()];
        let mut complete: [*mut PJRT_Event; 1] = [null_mut()];
        let mut args = pjrt_args!(PJRT_LoadedExecutable_Execute_Args {
            extension_start: extension_start,
            executable: self.raw,
            options: options,
            argument_lists: argument_lists.as_ptr(),
            num_devices: 1,
            num_args: argument_list.len(),
            output_lists: output_lists.as_ptr(),
            device_complete_events: complete.as_mut_ptr(),
        });
        pjrt_call!(self.plugin, PJRT_LoadedExecutable_Execute, &mut args)?;
        Ok(Execution {
            outputs: output_list.into_iter().filter(|b| !b.is_null()).map(|raw| Buffer { plugin: self.plugin, raw }).collect(),
            complete: Event::wrap(self.plugin, complete[0]),
        })
    }
}

impl Drop for LoadedExecutable<'_> {
    fn drop(&mut self) {
        let mut args = pjrt_args!(PJRT_LoadedExecutable_Destroy_Args { executable: self.raw });
        let _ = pjrt_call!(self.plugin, PJRT_LoadedExecutable_Destroy, &mut args);
    }
}

/// ExecuteOptions as jaxlib 0.10.2 fills them (struct_size 144, launch id set, nothing else).
pub fn default_execute_options() -> PJRT_ExecuteOptions {
    pjrt_args!(PJRT_ExecuteOptions { launch_id: 1 })
}

pub struct Executable<'p> {
    pub plugin: &'p Plugin,
    pub raw: *mut PJRT_Executable,
}

impl Executable<'_> {
    pub fn num_outputs(&self) -> PjrtResult<usize> {
        let mut args = pjrt_args!(PJRT_Executable_NumOutputs_Args { executable: self.raw });
        pjrt_call!(self.plugin, PJRT_Executable_NumOutputs, &mut args)?;
        Ok(args.num_outputs)
    }

    pub fn num_replicas(&self) -> PjrtResult<usize> {
        let mut args = pjrt_args!(PJRT_Executable_NumReplicas_Args { executable: self.raw });
        pjrt_call!(self.plugin, PJRT_Executable_NumReplicas, &mut args)?;
        Ok(args.num_replicas)
    }

    pub fn num_partitions(&self) -> PjrtResult<usize> {
        let mut args = pjrt_args!(PJRT_Executable_NumPartitions_Args { executable: self.raw });
        pjrt_call!(self.plugin, PJRT_Executable_NumPartitions, &mut args)?;
        Ok(args.num_partitions)
    }
}

impl Drop for Executable<'_> {
    fn drop(&mut self) {
        let mut args = pjrt_args!(PJRT_Executable_Destroy_Args { executable: self.raw });
        let _ = pjrt_call!(self.plugin, PJRT_Executable_Destroy, &mut args);
    }
}

// PJRT objects may be used from any thread (jaxlib compiles on a worker thread); the suite
// relies on that, and checks it in the threaded cases.
unsafe impl Send for Client<'_> {}
unsafe impl Sync for Client<'_> {}
unsafe impl Send for LoadedExecutable<'_> {}
unsafe impl Sync for LoadedExecutable<'_> {}
unsafe impl Send for Buffer<'_> {}
unsafe impl Send for Event<'_> {}
