//! Cross-checks every `PJRT_Api` slot name and byte offset of the committed bindings against the
//! slot table in the shared notes (`jax-pjrt-contract.md` §4), which was taken from the upstream
//! header. Skips when the notes are not present beside the repository.
use apu_pjrt_api::PJRT_Api;
use std::path::PathBuf;

/// Name and byte offset of each slot, as the bindings lay them out.
macro_rules! slot_offsets {
    ($($name:ident),* $(,)?) => {
        vec![$((stringify!($name), std::mem::offset_of!(PJRT_Api, $name))),*]
    };
}

fn notes_path() -> Option<PathBuf> {
    let mut dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    loop {
        let candidate = dir.join("shared/notes/jax-pjrt-contract.md");
        if candidate.is_file() {
            return Some(candidate);
        }
        if !dir.pop() {
            return None;
        }
    }
}

/// Rows `| index | `name` | minor | offset | ...` of the slot table.
fn slots_from_notes(text: &str) -> Vec<(usize, String, usize)> {
    let mut rows = Vec::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 6 {
            continue;
        }
        let (Ok(index), Ok(offset)) = (cells[1].parse::<usize>(), cells[4].parse::<usize>()) else {
            continue;
        };
        let name = cells[2].trim_matches('`');
        if name.starts_with("PJRT_") {
            rows.push((index, name.to_string(), offset));
        }
    }
    rows
}

#[test]
fn every_slot_matches_the_notes() {
    let Some(path) = notes_path() else {
        println!("skipped: shared/notes/jax-pjrt-contract.md not found");
        return;
    };
    let text = std::fs::read_to_string(&path).expect("notes readable");
    let expected = slots_from_notes(&text);
    assert_eq!(expected.len(), 138, "slot rows parsed from {}", path.display());

    let actual = all_slots();
    assert_eq!(actual.len(), 138);
    for ((index, name, offset), (actual_name, actual_offset)) in expected.iter().zip(&actual) {
        assert_eq!(name, actual_name, "slot {index}");
        assert_eq!(*offset, *actual_offset, "byte offset of {name}");
        assert_eq!(*offset, 40 + 8 * index, "notes row {index} is self-consistent");
    }
}

fn all_slots() -> Vec<(&'static str, usize)> {
    let mut slots = slot_offsets!(
        PJRT_Error_Destroy, PJRT_Error_Message, PJRT_Error_GetCode, PJRT_Plugin_Initialize,
        PJRT_Plugin_Attributes, PJRT_Event_Destroy, PJRT_Event_IsReady, PJRT_Event_Error,
        PJRT_Event_Await, PJRT_Event_OnReady, PJRT_Client_Create, PJRT_Client_Destroy,
        PJRT_Client_PlatformName, PJRT_Client_ProcessIndex, PJRT_Client_PlatformVersion,
        PJRT_Client_Devices, PJRT_Client_AddressableDevices, PJRT_Client_LookupDevice,
        PJRT_Client_LookupAddressableDevice, PJRT_Client_AddressableMemories, PJRT_Client_Compile,
        PJRT_Client_DefaultDeviceAssignment, PJRT_Client_BufferFromHostBuffer,
        PJRT_DeviceDescription_Id, PJRT_DeviceDescription_ProcessIndex,
        PJRT_DeviceDescription_Attributes, PJRT_DeviceDescription_Kind,
        PJRT_DeviceDescription_DebugString, PJRT_DeviceDescription_ToString,
        PJRT_Device_GetDescription, PJRT_Device_IsAddressable, PJRT_Device_LocalHardwareId,
        PJRT_Device_AddressableMemories, PJRT_Device_DefaultMemory, PJRT_Device_MemoryStats,
        PJRT_Memory_Id, PJRT_Memory_Kind, PJRT_Memory_DebugString, PJRT_Memory_ToString,
        PJRT_Memory_AddressableByDevices, PJRT_Executable_Destroy, PJRT_Executable_Name,
        PJRT_Executable_NumReplicas, PJRT_Executable_NumPartitions, PJRT_Executable_NumOutputs,
        PJRT_Executable_SizeOfGeneratedCodeInBytes, PJRT_Executable_GetCostAnalysis,
        PJRT_Executable_OutputMemoryKinds, PJRT_Executable_OptimizedProgram,
        PJRT_Executable_Serialize, PJRT_LoadedExecutable_Destroy,
        PJRT_LoadedExecutable_GetExecutable, PJRT_LoadedExecutable_AddressableDevices,
        PJRT_LoadedExecutable_Delete, PJRT_LoadedExecutable_IsDeleted,
        PJRT_LoadedExecutable_Execute, PJRT_Executable_DeserializeAndLoad,
        PJRT_LoadedExecutable_Fingerprint, PJRT_Buffer_Destroy, PJRT_Buffer_ElementType,
        PJRT_Buffer_Dimensions, PJRT_Buffer_UnpaddedDimensions,
        PJRT_Buffer_DynamicDimensionIndices, PJRT_Buffer_GetMemoryLayout,
        PJRT_Buffer_OnDeviceSizeInBytes, PJRT_Buffer_Device, PJRT_Buffer_Memory,
        PJRT_Buffer_Delete, PJRT_Buffer_IsDeleted, PJRT_Buffer_CopyToDevice,
        PJRT_Buffer_ToHostBuffer, PJRT_Buffer_IsOnCpu, PJRT_Buffer_ReadyEvent,
        PJRT_Buffer_UnsafePointer, PJRT_Buffer_IncreaseExternalReferenceCount,
        PJRT_Buffer_DecreaseExternalReferenceCount, PJRT_Buffer_OpaqueDeviceMemoryDataPointer,
        PJRT_CopyToDeviceStream_Destroy, PJRT_CopyToDeviceStream_AddChunk,
        PJRT_CopyToDeviceStream_TotalBytes, PJRT_CopyToDeviceStream_GranuleSize,
        PJRT_CopyToDeviceStream_CurrentBytes, PJRT_TopologyDescription_Create,
        PJRT_TopologyDescription_Destroy, PJRT_TopologyDescription_PlatformName,
        PJRT_TopologyDescription_PlatformVersion, PJRT_TopologyDescription_GetDeviceDescriptions,
        PJRT_TopologyDescription_Serialize, PJRT_TopologyDescription_Attributes, PJRT_Compile,
        PJRT_Executable_OutputElementTypes, PJRT_Executable_OutputDimensions,
        PJRT_Buffer_CopyToMemory, PJRT_Client_CreateViewOfDeviceBuffer,
        PJRT_Executable_Fingerprint, PJRT_Client_TopologyDescription,
        PJRT_Executable_GetCompiledMemoryStats, PJRT_Memory_Kind_Id, PJRT_ExecuteContext_Create,
        PJRT_ExecuteContext_Destroy, PJRT_Buffer_CopyRawToHost,
        PJRT_AsyncHostToDeviceTransferManager_Destroy,
        PJRT_AsyncHostToDeviceTransferManager_TransferData,
        PJRT_Client_CreateBuffersForAsyncHostToDevice,
        PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer,
        PJRT_AsyncHostToDeviceTransferManager_Device,
        PJRT_AsyncHostToDeviceTransferManager_BufferCount,
        PJRT_AsyncHostToDeviceTransferManager_BufferSize,
        PJRT_AsyncHostToDeviceTransferManager_SetBufferError,
        PJRT_AsyncHostToDeviceTransferManager_AddMetadata, PJRT_Client_DmaMap,
        PJRT_Client_DmaUnmap, PJRT_Client_CreateUninitializedBuffer,
        PJRT_Client_UpdateGlobalProcessInfo, PJRT_TopologyDescription_Deserialize,
        PJRT_Client_CreateAliasBuffer, PJRT_Client_FulfillAliasBuffer,
        PJRT_LoadedExecutable_GetDeviceAssignment, PJRT_Client_CreateErrorBuffer,
        PJRT_AsyncHostToDeviceTransferManager_TransferLiteral, PJRT_Buffer_CopyRawToHostFuture,
        PJRT_Device_PoisonExecution, PJRT_Device_CreateAsyncTrackingEvent,
        PJRT_AsyncTrackingEvent_Destroy, PJRT_Executable_GetCompileOptions,
        PJRT_Buffer_DonateWithControlDependency, PJRT_Event_Create, PJRT_Event_Set,
        PJRT_Device_GetAttributes, PJRT_Client_Load,
        PJRT_LoadedExecutable_AddressableDeviceLogicalIds, PJRT_Buffer_Bitcast,
        PJRT_Error_ForEachPayload, PJRT_TopologyDescription_Fingerprint,
        PJRT_Executable_ParameterMemoryKinds, PJRT_Device_ClearMemoryStats,
        PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace,
        PJRT_TopologyDescription_GetMemorySpaceKindIds,
    );
    slots.sort_by_key(|&(_, offset)| offset);
    slots
}
