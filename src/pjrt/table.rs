//! The static `PJRT_Api` table that `GetPjrtApi` returns: API version 0.112 and all 138 function
//! slots filled (real handlers or UNIMPLEMENTED stubs; never NULL, since frameworks call most slots
//! without checking). The struct literal must name every field, so a slot cannot be forgotten.

use super::*;
use apu_pjrt_api::*;

/// The table's pointers are immutable and point at static code; sharing it is safe.
pub(crate) struct SyncApi(pub PJRT_Api);
// SAFETY: see above; `extension_start` points at the immutable static extension chain.
unsafe impl Sync for SyncApi {}

pub(crate) static API: SyncApi = SyncApi(PJRT_Api {
    struct_size: std::mem::size_of::<PJRT_Api>(),
    extension_start: extensions::chain_start(),
    pjrt_api_version: PJRT_Api_Version {
        struct_size: std::mem::size_of::<PJRT_Api_Version>(),
        extension_start: std::ptr::null_mut(),
        major_version: PJRT_API_MAJOR as i32,
        minor_version: PJRT_API_MINOR as i32,
    },
    PJRT_Error_Destroy: Some(error::error_destroy),
    PJRT_Error_Message: Some(error::error_message),
    PJRT_Error_GetCode: Some(error::error_get_code),
    PJRT_Plugin_Initialize: Some(attributes::plugin_initialize),
    PJRT_Plugin_Attributes: Some(attributes::plugin_attributes),
    PJRT_Event_Destroy: Some(event::event_destroy),
    PJRT_Event_IsReady: Some(event::event_is_ready),
    PJRT_Event_Error: Some(event::event_error),
    PJRT_Event_Await: Some(event::event_await),
    PJRT_Event_OnReady: Some(event::event_on_ready),
    PJRT_Client_Create: Some(client::client_create),
    PJRT_Client_Destroy: Some(client::client_destroy),
    PJRT_Client_PlatformName: Some(client::client_platform_name),
    PJRT_Client_ProcessIndex: Some(client::client_process_index),
    PJRT_Client_PlatformVersion: Some(client::client_platform_version),
    PJRT_Client_Devices: Some(client::client_devices),
    PJRT_Client_AddressableDevices: Some(client::client_addressable_devices),
    PJRT_Client_LookupDevice: Some(client::client_lookup_device),
    PJRT_Client_LookupAddressableDevice: Some(client::client_lookup_addressable_device),
    PJRT_Client_AddressableMemories: Some(client::client_addressable_memories),
    PJRT_Client_Compile: Some(loaded::client_compile),
    PJRT_Client_DefaultDeviceAssignment: Some(client::client_default_device_assignment),
    PJRT_Client_BufferFromHostBuffer: Some(buffer::client_buffer_from_host_buffer),
    PJRT_DeviceDescription_Id: Some(device::description_id),
    PJRT_DeviceDescription_ProcessIndex: Some(device::description_process_index),
    PJRT_DeviceDescription_Attributes: Some(device::description_attributes),
    PJRT_DeviceDescription_Kind: Some(device::description_kind),
    PJRT_DeviceDescription_DebugString: Some(device::description_debug_string),
    PJRT_DeviceDescription_ToString: Some(device::description_to_string),
    PJRT_Device_GetDescription: Some(device::device_get_description),
    PJRT_Device_IsAddressable: Some(device::device_is_addressable),
    PJRT_Device_LocalHardwareId: Some(device::device_local_hardware_id),
    PJRT_Device_AddressableMemories: Some(device::device_addressable_memories),
    PJRT_Device_DefaultMemory: Some(device::device_default_memory),
    PJRT_Device_MemoryStats: Some(device::device_memory_stats),
    PJRT_Memory_Id: Some(memory::memory_id),
    PJRT_Memory_Kind: Some(memory::memory_kind),
    PJRT_Memory_DebugString: Some(memory::memory_debug_string),
    PJRT_Memory_ToString: Some(memory::memory_to_string),
    PJRT_Memory_AddressableByDevices: Some(memory::memory_addressable_by_devices),
    PJRT_Executable_Destroy: Some(executable::executable_destroy),
    PJRT_Executable_Name: Some(executable::executable_name),
    PJRT_Executable_NumReplicas: Some(executable::executable_num_replicas),
    PJRT_Executable_NumPartitions: Some(executable::executable_num_partitions),
    PJRT_Executable_NumOutputs: Some(executable::executable_num_outputs),
    PJRT_Executable_SizeOfGeneratedCodeInBytes: Some(
        executable::executable_size_of_generated_code_in_bytes,
    ),
    PJRT_Executable_GetCostAnalysis: Some(executable::executable_get_cost_analysis),
    PJRT_Executable_OutputMemoryKinds: Some(executable::executable_output_memory_kinds),
    PJRT_Executable_OptimizedProgram: Some(executable::executable_optimized_program),
    PJRT_Executable_Serialize: Some(executable::executable_serialize),
    PJRT_LoadedExecutable_Destroy: Some(loaded::loaded_destroy),
    PJRT_LoadedExecutable_GetExecutable: Some(loaded::loaded_get_executable),
    PJRT_LoadedExecutable_AddressableDevices: Some(loaded::loaded_addressable_devices),
    PJRT_LoadedExecutable_Delete: Some(loaded::loaded_delete),
    PJRT_LoadedExecutable_IsDeleted: Some(loaded::loaded_is_deleted),
    PJRT_LoadedExecutable_Execute: Some(execute::loaded_execute),
    PJRT_Executable_DeserializeAndLoad: Some(loaded::executable_deserialize_and_load),
    PJRT_LoadedExecutable_Fingerprint: Some(loaded::loaded_fingerprint),
    PJRT_Buffer_Destroy: Some(buffer::buffer_destroy),
    PJRT_Buffer_ElementType: Some(buffer::buffer_element_type),
    PJRT_Buffer_Dimensions: Some(buffer::buffer_dimensions),
    PJRT_Buffer_UnpaddedDimensions: Some(buffer::buffer_unpadded_dimensions),
    PJRT_Buffer_DynamicDimensionIndices: Some(buffer::buffer_dynamic_dimension_indices),
    PJRT_Buffer_GetMemoryLayout: Some(buffer::buffer_get_memory_layout),
    PJRT_Buffer_OnDeviceSizeInBytes: Some(buffer::buffer_on_device_size_in_bytes),
    PJRT_Buffer_Device: Some(buffer::buffer_device),
    PJRT_Buffer_Memory: Some(buffer::buffer_memory),
    PJRT_Buffer_Delete: Some(buffer::buffer_delete),
    PJRT_Buffer_IsDeleted: Some(buffer::buffer_is_deleted),
    PJRT_Buffer_CopyToDevice: Some(buffer::buffer_copy_to_device),
    PJRT_Buffer_ToHostBuffer: Some(buffer::buffer_to_host_buffer),
    PJRT_Buffer_IsOnCpu: Some(buffer::buffer_is_on_cpu),
    PJRT_Buffer_ReadyEvent: Some(buffer::buffer_ready_event),
    PJRT_Buffer_UnsafePointer: Some(buffer::buffer_unsafe_pointer),
    PJRT_Buffer_IncreaseExternalReferenceCount: Some(
        buffer::buffer_increase_external_reference_count,
    ),
    PJRT_Buffer_DecreaseExternalReferenceCount: Some(
        buffer::buffer_decrease_external_reference_count,
    ),
    PJRT_Buffer_OpaqueDeviceMemoryDataPointer: Some(
        buffer::buffer_opaque_device_memory_data_pointer,
    ),
    PJRT_CopyToDeviceStream_Destroy: Some(stubs::PJRT_CopyToDeviceStream_Destroy),
    PJRT_CopyToDeviceStream_AddChunk: Some(stubs::PJRT_CopyToDeviceStream_AddChunk),
    PJRT_CopyToDeviceStream_TotalBytes: Some(stubs::PJRT_CopyToDeviceStream_TotalBytes),
    PJRT_CopyToDeviceStream_GranuleSize: Some(stubs::PJRT_CopyToDeviceStream_GranuleSize),
    PJRT_CopyToDeviceStream_CurrentBytes: Some(stubs::PJRT_CopyToDeviceStream_CurrentBytes),
    PJRT_TopologyDescription_Create: Some(stubs::PJRT_TopologyDescription_Create),
    PJRT_TopologyDescription_Destroy: Some(topology::topology_destroy),
    PJRT_TopologyDescription_PlatformName: Some(topology::topology_platform_name),
    PJRT_TopologyDescription_PlatformVersion: Some(topology::topology_platform_version),
    PJRT_TopologyDescription_GetDeviceDescriptions: Some(
        topology::topology_get_device_descriptions,
    ),
    PJRT_TopologyDescription_Serialize: Some(stubs::PJRT_TopologyDescription_Serialize),
    PJRT_TopologyDescription_Attributes: Some(topology::topology_attributes),
    PJRT_Compile: Some(loaded::compile),
    PJRT_Executable_OutputElementTypes: Some(executable::executable_output_element_types),
    PJRT_Executable_OutputDimensions: Some(executable::executable_output_dimensions),
    PJRT_Buffer_CopyToMemory: Some(buffer::buffer_copy_to_memory),
    PJRT_Client_CreateViewOfDeviceBuffer: Some(stubs::PJRT_Client_CreateViewOfDeviceBuffer),
    PJRT_Executable_Fingerprint: Some(executable::executable_fingerprint),
    PJRT_Client_TopologyDescription: Some(client::client_topology_description),
    PJRT_Executable_GetCompiledMemoryStats: Some(executable::executable_get_compiled_memory_stats),
    PJRT_Memory_Kind_Id: Some(memory::memory_kind_id),
    PJRT_ExecuteContext_Create: Some(stubs::PJRT_ExecuteContext_Create),
    PJRT_ExecuteContext_Destroy: Some(stubs::PJRT_ExecuteContext_Destroy),
    PJRT_Buffer_CopyRawToHost: Some(buffer::buffer_copy_raw_to_host),
    PJRT_AsyncHostToDeviceTransferManager_Destroy: Some(
        stubs::PJRT_AsyncHostToDeviceTransferManager_Destroy,
    ),
    PJRT_AsyncHostToDeviceTransferManager_TransferData: Some(
        stubs::PJRT_AsyncHostToDeviceTransferManager_TransferData,
    ),
    PJRT_Client_CreateBuffersForAsyncHostToDevice: Some(
        stubs::PJRT_Client_CreateBuffersForAsyncHostToDevice,
    ),
    PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer: Some(
        stubs::PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer,
    ),
    PJRT_AsyncHostToDeviceTransferManager_Device: Some(
        stubs::PJRT_AsyncHostToDeviceTransferManager_Device,
    ),
    PJRT_AsyncHostToDeviceTransferManager_BufferCount: Some(
        stubs::PJRT_AsyncHostToDeviceTransferManager_BufferCount,
    ),
    PJRT_AsyncHostToDeviceTransferManager_BufferSize: Some(
        stubs::PJRT_AsyncHostToDeviceTransferManager_BufferSize,
    ),
    PJRT_AsyncHostToDeviceTransferManager_SetBufferError: Some(
        stubs::PJRT_AsyncHostToDeviceTransferManager_SetBufferError,
    ),
    PJRT_AsyncHostToDeviceTransferManager_AddMetadata: Some(
        stubs::PJRT_AsyncHostToDeviceTransferManager_AddMetadata,
    ),
    PJRT_Client_DmaMap: Some(stubs::PJRT_Client_DmaMap),
    PJRT_Client_DmaUnmap: Some(stubs::PJRT_Client_DmaUnmap),
    PJRT_Client_CreateUninitializedBuffer: Some(buffer::client_create_uninitialized_buffer),
    PJRT_Client_UpdateGlobalProcessInfo: Some(stubs::PJRT_Client_UpdateGlobalProcessInfo),
    PJRT_TopologyDescription_Deserialize: Some(stubs::PJRT_TopologyDescription_Deserialize),
    PJRT_Client_CreateAliasBuffer: Some(stubs::PJRT_Client_CreateAliasBuffer),
    PJRT_Client_FulfillAliasBuffer: Some(stubs::PJRT_Client_FulfillAliasBuffer),
    PJRT_LoadedExecutable_GetDeviceAssignment: Some(loaded::loaded_get_device_assignment),
    PJRT_Client_CreateErrorBuffer: Some(buffer::client_create_error_buffer),
    PJRT_AsyncHostToDeviceTransferManager_TransferLiteral: Some(
        stubs::PJRT_AsyncHostToDeviceTransferManager_TransferLiteral,
    ),
    PJRT_Buffer_CopyRawToHostFuture: Some(stubs::PJRT_Buffer_CopyRawToHostFuture),
    PJRT_Device_PoisonExecution: Some(stubs::PJRT_Device_PoisonExecution),
    PJRT_Device_CreateAsyncTrackingEvent: Some(stubs::PJRT_Device_CreateAsyncTrackingEvent),
    PJRT_AsyncTrackingEvent_Destroy: Some(stubs::PJRT_AsyncTrackingEvent_Destroy),
    PJRT_Executable_GetCompileOptions: Some(executable::executable_get_compile_options),
    PJRT_Buffer_DonateWithControlDependency: Some(stubs::PJRT_Buffer_DonateWithControlDependency),
    PJRT_Event_Create: Some(event::event_create),
    PJRT_Event_Set: Some(event::event_set),
    PJRT_Device_GetAttributes: Some(device::device_get_attributes),
    PJRT_Client_Load: Some(loaded::client_load),
    PJRT_LoadedExecutable_AddressableDeviceLogicalIds: Some(
        loaded::loaded_addressable_device_logical_ids,
    ),
    PJRT_Buffer_Bitcast: Some(stubs::PJRT_Buffer_Bitcast),
    PJRT_Error_ForEachPayload: Some(error::error_for_each_payload),
    PJRT_TopologyDescription_Fingerprint: Some(topology::topology_fingerprint),
    PJRT_Executable_ParameterMemoryKinds: Some(executable::executable_parameter_memory_kinds),
    PJRT_Device_ClearMemoryStats: Some(device::device_clear_memory_stats),
    PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace: Some(
        stubs::PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace,
    ),
    PJRT_TopologyDescription_GetMemorySpaceKindIds: Some(
        topology::topology_get_memory_space_kind_ids,
    ),
});

#[cfg(test)]
mod tests {
    use super::guard::ArgsStruct;
    use apu_pjrt_api::*;

    fn accepts<A: ArgsStruct>(name: &str, jaxlib_size: usize) {
        assert!(
            A::min_size() <= jaxlib_size,
            "{name}: apu needs {} bytes, jaxlib 0.10.2 passes {jaxlib_size}",
            A::min_size()
        );
    }

    /// The `struct_size` values jaxlib 0.10.2 passes (shared notes, jax-pjrt-contract Appendix A)
    /// must all pass the guard's minimum-size check.
    #[test]
    fn jaxlib_struct_sizes_pass_the_guard() {
        accepts::<PJRT_Buffer_CopyToMemory_Args>("Buffer_CopyToMemory", 40);
        accepts::<PJRT_Buffer_DecreaseExternalReferenceCount_Args>(
            "Buffer_DecreaseExternalReferenceCount",
            24,
        );
        accepts::<PJRT_Buffer_Delete_Args>("Buffer_Delete", 24);
        accepts::<PJRT_Buffer_Destroy_Args>("Buffer_Destroy", 24);
        accepts::<PJRT_Buffer_Device_Args>("Buffer_Device", 32);
        accepts::<PJRT_Buffer_Dimensions_Args>("Buffer_Dimensions", 40);
        accepts::<PJRT_Buffer_DynamicDimensionIndices_Args>("Buffer_DynamicDimensionIndices", 40);
        accepts::<PJRT_Buffer_ElementType_Args>("Buffer_ElementType", 28);
        accepts::<PJRT_Buffer_IncreaseExternalReferenceCount_Args>(
            "Buffer_IncreaseExternalReferenceCount",
            24,
        );
        accepts::<PJRT_Buffer_IsDeleted_Args>("Buffer_IsDeleted", 25);
        accepts::<PJRT_Buffer_IsOnCpu_Args>("Buffer_IsOnCpu", 25);
        accepts::<PJRT_Buffer_Memory_Args>("Buffer_Memory", 32);
        accepts::<PJRT_Buffer_OnDeviceSizeInBytes_Args>("Buffer_OnDeviceSizeInBytes", 32);
        accepts::<PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args>(
            "Buffer_OpaqueDeviceMemoryDataPointer",
            32,
        );
        accepts::<PJRT_Buffer_ReadyEvent_Args>("Buffer_ReadyEvent", 32);
        accepts::<PJRT_Buffer_ToHostBuffer_Args>("Buffer_ToHostBuffer", 56);
        accepts::<PJRT_Buffer_UnsafePointer_Args>("Buffer_UnsafePointer", 32);
        accepts::<PJRT_Client_AddressableDevices_Args>("Client_AddressableDevices", 40);
        accepts::<PJRT_Client_AddressableMemories_Args>("Client_AddressableMemories", 40);
        accepts::<PJRT_Client_BufferFromHostBuffer_Args>("Client_BufferFromHostBuffer", 120);
        accepts::<PJRT_Client_Compile_Args>("Client_Compile", 56);
        accepts::<PJRT_Client_Create_Args>("Client_Create", 88);
        accepts::<PJRT_Client_Destroy_Args>("Client_Destroy", 24);
        accepts::<PJRT_Client_Devices_Args>("Client_Devices", 40);
        accepts::<PJRT_Client_LookupDevice_Args>("Client_LookupDevice", 40);
        accepts::<PJRT_Client_PlatformName_Args>("Client_PlatformName", 40);
        accepts::<PJRT_Client_PlatformVersion_Args>("Client_PlatformVersion", 40);
        accepts::<PJRT_Client_TopologyDescription_Args>("Client_TopologyDescription", 32);
        accepts::<PJRT_DeviceDescription_Attributes_Args>("DeviceDescription_Attributes", 40);
        accepts::<PJRT_DeviceDescription_DebugString_Args>("DeviceDescription_DebugString", 40);
        accepts::<PJRT_DeviceDescription_Id_Args>("DeviceDescription_Id", 28);
        accepts::<PJRT_DeviceDescription_Kind_Args>("DeviceDescription_Kind", 40);
        accepts::<PJRT_DeviceDescription_ProcessIndex_Args>("DeviceDescription_ProcessIndex", 28);
        accepts::<PJRT_DeviceDescription_ToString_Args>("DeviceDescription_ToString", 40);
        accepts::<PJRT_Device_AddressableMemories_Args>("Device_AddressableMemories", 40);
        accepts::<PJRT_Device_DefaultMemory_Args>("Device_DefaultMemory", 32);
        accepts::<PJRT_Device_GetAttributes_Args>("Device_GetAttributes", 56);
        accepts::<PJRT_Device_GetDescription_Args>("Device_GetDescription", 32);
        accepts::<PJRT_Device_IsAddressable_Args>("Device_IsAddressable", 25);
        accepts::<PJRT_Device_LocalHardwareId_Args>("Device_LocalHardwareId", 28);
        accepts::<PJRT_Device_MemoryStats_Args>("Device_MemoryStats", 185);
        accepts::<PJRT_Error_Destroy_Args>("Error_Destroy", 24);
        accepts::<PJRT_Error_ForEachPayload_Args>("Error_ForEachPayload", 40);
        accepts::<PJRT_Error_GetCode_Args>("Error_GetCode", 28);
        accepts::<PJRT_Error_Message_Args>("Error_Message", 40);
        accepts::<PJRT_Event_Destroy_Args>("Event_Destroy", 24);
        accepts::<PJRT_Event_Error_Args>("Event_Error", 24);
        accepts::<PJRT_Event_IsReady_Args>("Event_IsReady", 25);
        accepts::<PJRT_Event_OnReady_Args>("Event_OnReady", 40);
        accepts::<PJRT_Executable_Destroy_Args>("Executable_Destroy", 24);
        accepts::<PJRT_Executable_Fingerprint_Args>("Executable_Fingerprint", 40);
        accepts::<PJRT_Executable_GetCompiledMemoryStats_Args>(
            "Executable_GetCompiledMemoryStats",
            144,
        );
        accepts::<PJRT_Executable_GetCostAnalysis_Args>("Executable_GetCostAnalysis", 40);
        accepts::<PJRT_Executable_NumOutputs_Args>("Executable_NumOutputs", 32);
        accepts::<PJRT_Executable_NumPartitions_Args>("Executable_NumPartitions", 32);
        accepts::<PJRT_Executable_NumReplicas_Args>("Executable_NumReplicas", 32);
        accepts::<PJRT_Executable_OptimizedProgram_Args>("Executable_OptimizedProgram", 32);
        accepts::<PJRT_Executable_OutputMemoryKinds_Args>("Executable_OutputMemoryKinds", 48);
        accepts::<PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args>(
            "LoadedExecutable_AddressableDeviceLogicalIds",
            40,
        );
        accepts::<PJRT_LoadedExecutable_AddressableDevices_Args>(
            "LoadedExecutable_AddressableDevices",
            40,
        );
        accepts::<PJRT_LoadedExecutable_Destroy_Args>("LoadedExecutable_Destroy", 24);
        accepts::<PJRT_LoadedExecutable_Execute_Args>("LoadedExecutable_Execute", 80);
        accepts::<PJRT_LoadedExecutable_GetDeviceAssignment_Args>(
            "LoadedExecutable_GetDeviceAssignment",
            56,
        );
        accepts::<PJRT_LoadedExecutable_GetExecutable_Args>("LoadedExecutable_GetExecutable", 32);
        accepts::<PJRT_Memory_AddressableByDevices_Args>("Memory_AddressableByDevices", 40);
        accepts::<PJRT_Memory_DebugString_Args>("Memory_DebugString", 40);
        accepts::<PJRT_Memory_Kind_Args>("Memory_Kind", 40);
        accepts::<PJRT_Memory_ToString_Args>("Memory_ToString", 40);
        accepts::<PJRT_Plugin_Attributes_Args>("Plugin_Attributes", 32);
        accepts::<PJRT_Plugin_Initialize_Args>("Plugin_Initialize", 16);
        accepts::<PJRT_TopologyDescription_Attributes_Args>("TopologyDescription_Attributes", 40);
        accepts::<PJRT_TopologyDescription_Fingerprint_Args>("TopologyDescription_Fingerprint", 32);
        accepts::<PJRT_TopologyDescription_PlatformName_Args>(
            "TopologyDescription_PlatformName",
            40,
        );
        accepts::<PJRT_TopologyDescription_PlatformVersion_Args>(
            "TopologyDescription_PlatformVersion",
            40,
        );
    }
}
