//! Entry points apu does not implement yet. Each returns UNIMPLEMENTED naming the function, so a
//! framework that calls one gets a clear error instead of a crash (every table slot must be
//! non-NULL). Generated from one list so that adding a stub is one line.

use super::api_error::ApiError;
use apu_pjrt_api::*;

macro_rules! unimplemented_entry_points {
    ($($name:ident($args:ident)),* $(,)?) => {
        $(
            #[allow(non_snake_case)]
            pub(crate) unsafe extern "C" fn $name(_args: *mut $args) -> *mut PJRT_Error {
                // Cannot panic: formatting a constant string is the only work done.
                ApiError::unimplemented(concat!(stringify!($name), " is not implemented by apu")).into_raw()
            }
        )*
    };
}

unimplemented_entry_points! {
    PJRT_CopyToDeviceStream_Destroy(PJRT_CopyToDeviceStream_Destroy_Args),
    PJRT_CopyToDeviceStream_AddChunk(PJRT_CopyToDeviceStream_AddChunk_Args),
    PJRT_CopyToDeviceStream_TotalBytes(PJRT_CopyToDeviceStream_TotalBytes_Args),
    PJRT_CopyToDeviceStream_GranuleSize(PJRT_CopyToDeviceStream_GranuleSize_Args),
    PJRT_CopyToDeviceStream_CurrentBytes(PJRT_CopyToDeviceStream_CurrentBytes_Args),
    PJRT_TopologyDescription_Create(PJRT_TopologyDescription_Create_Args),
    PJRT_TopologyDescription_Serialize(PJRT_TopologyDescription_Serialize_Args),
    PJRT_TopologyDescription_Deserialize(PJRT_TopologyDescription_Deserialize_Args),
    PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace(PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args),
    PJRT_Client_CreateViewOfDeviceBuffer(PJRT_Client_CreateViewOfDeviceBuffer_Args),
    PJRT_Client_CreateBuffersForAsyncHostToDevice(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args),
    PJRT_Client_DmaMap(PJRT_Client_DmaMap_Args),
    PJRT_Client_DmaUnmap(PJRT_Client_DmaUnmap_Args),
    PJRT_Client_UpdateGlobalProcessInfo(PJRT_Client_UpdateGlobalProcessInfo_Args),
    PJRT_Client_CreateAliasBuffer(PJRT_Client_CreateAliasBuffer_Args),
    PJRT_Client_FulfillAliasBuffer(PJRT_Client_FulfillAliasBuffer_Args),
    PJRT_ExecuteContext_Create(PJRT_ExecuteContext_Create_Args),
    PJRT_ExecuteContext_Destroy(PJRT_ExecuteContext_Destroy_Args),
    PJRT_AsyncHostToDeviceTransferManager_Destroy(PJRT_AsyncHostToDeviceTransferManager_Destroy_Args),
    PJRT_AsyncHostToDeviceTransferManager_TransferData(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args),
    PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args),
    PJRT_AsyncHostToDeviceTransferManager_Device(PJRT_AsyncHostToDeviceTransferManager_Device_Args),
    PJRT_AsyncHostToDeviceTransferManager_BufferCount(PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args),
    PJRT_AsyncHostToDeviceTransferManager_BufferSize(PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args),
    PJRT_AsyncHostToDeviceTransferManager_SetBufferError(PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args),
    PJRT_AsyncHostToDeviceTransferManager_AddMetadata(PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args),
    PJRT_AsyncHostToDeviceTransferManager_TransferLiteral(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args),
    PJRT_Buffer_CopyRawToHostFuture(PJRT_Buffer_CopyRawToHostFuture_Args),
    PJRT_Buffer_DonateWithControlDependency(PJRT_Buffer_DonateWithControlDependency_Args),
    PJRT_Buffer_Bitcast(PJRT_Buffer_Bitcast_Args),
    PJRT_Device_PoisonExecution(PJRT_Device_PoisonExecution_Args),
    PJRT_Device_CreateAsyncTrackingEvent(PJRT_Device_CreateAsyncTrackingEvent_Args),
    PJRT_AsyncTrackingEvent_Destroy(PJRT_AsyncTrackingEvent_Destroy_Args),
}
