/*
 * apu's own declaration of the TensorFlow plug-in C ABIs it implements or calls:
 *   - the StreamExecutor C API (PluggableDevice): the structs TensorFlow hands to SE_InitPlugin and the
 *     callbacks apu fills in;
 *   - the kernel C API pieces apu calls from its kernels (TF_KernelBuilder, TF_OpKernelContext, TF_Tensor,
 *     TF_Status), declared as function-pointer types only, because apu resolves them at run time with
 *     dlsym(RTLD_DEFAULT, name): the same library is loaded by JAX, where no TensorFlow symbol exists, and
 *     by TensorFlow versions that lack some of them;
 *   - the NextPluggableDevice plug-in table (TFNPD_Api, TFNPD_PluginParams).
 *
 * Written from the ABI facts (field order, types, sizes on x86-64) recorded in the project's notes and
 * checked against the TensorFlow 2.21 wheel; the struct-size constants below are the values TensorFlow
 * passes and checks. Plain C11, so bindgen can read it.
 */
#ifndef APU_TF_C_API_H_
#define APU_TF_C_API_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------------
 * Common TensorFlow C types (opaque handles and enums).
 * ------------------------------------------------------------------------------------------------ */

typedef unsigned char TF_Bool;

typedef struct TF_Status TF_Status;
typedef struct TF_Tensor TF_Tensor;
typedef struct TF_KernelBuilder TF_KernelBuilder;
typedef struct TF_OpKernelConstruction TF_OpKernelConstruction;
typedef struct TF_OpKernelContext TF_OpKernelContext;

/* Status codes (the canonical error space, shared with absl::StatusCode). */
typedef enum TF_Code {
  TF_OK = 0,
  TF_CANCELLED = 1,
  TF_UNKNOWN = 2,
  TF_INVALID_ARGUMENT = 3,
  TF_DEADLINE_EXCEEDED = 4,
  TF_NOT_FOUND = 5,
  TF_ALREADY_EXISTS = 6,
  TF_PERMISSION_DENIED = 7,
  TF_RESOURCE_EXHAUSTED = 8,
  TF_FAILED_PRECONDITION = 9,
  TF_ABORTED = 10,
  TF_OUT_OF_RANGE = 11,
  TF_UNIMPLEMENTED = 12,
  TF_INTERNAL = 13,
  TF_UNAVAILABLE = 14,
  TF_DATA_LOSS = 15,
  TF_UNAUTHENTICATED = 16
} TF_Code;

/* Tensor element types (values of the DataType enum of TensorFlow's types.proto). */
typedef enum TF_DataType {
  TF_FLOAT = 1,
  TF_DOUBLE = 2,
  TF_INT32 = 3,
  TF_UINT8 = 4,
  TF_INT16 = 5,
  TF_INT8 = 6,
  TF_STRING = 7,
  TF_COMPLEX64 = 8,
  TF_INT64 = 9,
  TF_BOOL = 10,
  TF_QINT8 = 11,
  TF_QUINT8 = 12,
  TF_QINT32 = 13,
  TF_BFLOAT16 = 14,
  TF_QINT16 = 15,
  TF_QUINT16 = 16,
  TF_UINT16 = 17,
  TF_COMPLEX128 = 18,
  TF_HALF = 19,
  TF_RESOURCE = 20,
  TF_VARIANT = 21,
  TF_UINT32 = 22,
  TF_UINT64 = 23
} TF_DataType;

/* A borrowed string: pointer + length, not NUL-terminated. */
typedef struct TF_StringView {
  const char* data;
  size_t len;
} TF_StringView;

/* ------------------------------------------------------------------------------------------------
 * StreamExecutor C API (PluggableDevice), version 0.0.1.
 * ------------------------------------------------------------------------------------------------ */

#define SE_MAJOR 0
#define SE_MINOR 0
#define SE_PATCH 1

/* Plug-in-defined opaque objects; TensorFlow only passes the pointers back. */
typedef struct SP_Stream_st* SP_Stream;
typedef struct SP_Event_st* SP_Event;
typedef struct SP_Timer_st* SP_Timer;

/* Called by the plug-in once the work enqueued before it on a stream is done. */
typedef void (*SE_StatusCallbackFn)(void* arg, TF_Status* status);

typedef struct SP_TimerFns {
  size_t struct_size;
  void* ext;
  uint64_t (*nanoseconds)(SP_Timer timer);
} SP_TimerFns;
#define SP_TIMER_FNS_STRUCT_SIZE 24

typedef struct SP_AllocatorStats {
  size_t struct_size;
  int64_t num_allocs;
  int64_t bytes_in_use;
  int64_t peak_bytes_in_use;
  int64_t largest_alloc_size;
  int8_t has_bytes_limit;
  int64_t bytes_limit;
  int64_t bytes_reserved;
  int64_t peak_bytes_reserved;
  int8_t has_bytes_reservable_limit;
  int64_t bytes_reservable_limit;
  int64_t largest_free_block_bytes;
} SP_AllocatorStats;
#define SP_ALLOCATORSTATS_STRUCT_SIZE 96

typedef enum SE_EventStatus {
  SE_EVENT_UNKNOWN = 0,
  SE_EVENT_ERROR = 1,
  SE_EVENT_PENDING = 2,
  SE_EVENT_COMPLETE = 3
} SE_EventStatus;

/* A device allocation: `opaque` is what the plug-in's allocate returned. */
typedef struct SP_DeviceMemoryBase {
  size_t struct_size;
  void* ext;
  void* opaque;
  uint64_t size;
  uint64_t payload;
} SP_DeviceMemoryBase;
#define SP_DEVICE_MEMORY_BASE_STRUCT_SIZE 40

typedef struct SP_Device {
  size_t struct_size;
  void* ext;
  int32_t ordinal;
  void* device_handle;
  const char* hardware_name;
  const char* device_vendor;
  const char* pci_bus_id;
} SP_Device;
#define SP_DEVICE_STRUCT_SIZE 56

typedef struct SE_CreateDeviceParams {
  size_t struct_size;
  void* ext;
  int32_t ordinal;
  SP_Device* device;
} SE_CreateDeviceParams;
#define SE_CREATE_DEVICE_PARAMS_STRUCT_SIZE 32

typedef struct SP_DeviceFns {
  size_t struct_size;
  void* ext;
  int32_t (*get_numa_node)(const SP_Device* device);
  int64_t (*get_memory_bandwidth)(const SP_Device* device);
  double (*get_gflops)(const SP_Device* device);
} SP_DeviceFns;
#define SP_DEVICE_FNS_STRUCT_SIZE 40

typedef struct SE_CreateDeviceFnsParams {
  size_t struct_size;
  void* ext;
  SP_DeviceFns* device_fns;
} SE_CreateDeviceFnsParams;
#define SE_CREATE_DEVICE_FNS_PARAMS_STRUCT_SIZE 24

/* The device's runtime: 34 callbacks in this exact order. */
typedef struct SP_StreamExecutor {
  size_t struct_size;
  void* ext;

  void (*allocate)(const SP_Device* device, uint64_t size, int64_t memory_space, SP_DeviceMemoryBase* mem);
  void (*deallocate)(const SP_Device* device, SP_DeviceMemoryBase* memory);
  void* (*host_memory_allocate)(const SP_Device* device, uint64_t size);
  void (*host_memory_deallocate)(const SP_Device* device, void* mem);
  void* (*unified_memory_allocate)(const SP_Device* device, uint64_t bytes);
  void (*unified_memory_deallocate)(const SP_Device* device, void* location);
  TF_Bool (*get_allocator_stats)(const SP_Device* device, SP_AllocatorStats* stats);
  TF_Bool (*device_memory_usage)(const SP_Device* device, int64_t* free, int64_t* total);

  void (*create_stream)(const SP_Device* device, SP_Stream* stream, TF_Status* status);
  void (*destroy_stream)(const SP_Device* device, SP_Stream stream);
  void (*create_stream_dependency)(const SP_Device* device, SP_Stream dependent, SP_Stream other,
                                   TF_Status* status);
  void (*get_stream_status)(const SP_Device* device, SP_Stream stream, TF_Status* status);

  void (*create_event)(const SP_Device* device, SP_Event* event, TF_Status* status);
  void (*destroy_event)(const SP_Device* device, SP_Event event);
  SE_EventStatus (*get_event_status)(const SP_Device* device, SP_Event event);
  void (*record_event)(const SP_Device* device, SP_Stream stream, SP_Event event, TF_Status* status);
  void (*wait_for_event)(const SP_Device* device, SP_Stream stream, SP_Event event, TF_Status* status);

  void (*create_timer)(const SP_Device* device, SP_Timer* timer, TF_Status* status);
  void (*destroy_timer)(const SP_Device* device, SP_Timer timer);
  void (*start_timer)(const SP_Device* device, SP_Stream stream, SP_Timer timer, TF_Status* status);
  void (*stop_timer)(const SP_Device* device, SP_Stream stream, SP_Timer timer, TF_Status* status);

  void (*memcpy_dtoh)(const SP_Device* device, SP_Stream stream, void* host_dst,
                      const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status);
  void (*memcpy_htod)(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* device_dst,
                      const void* host_src, uint64_t size, TF_Status* status);
  void (*memcpy_dtod)(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* device_dst,
                      const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status);
  void (*sync_memcpy_dtoh)(const SP_Device* device, void* host_dst, const SP_DeviceMemoryBase* device_src,
                           uint64_t size, TF_Status* status);
  void (*sync_memcpy_htod)(const SP_Device* device, SP_DeviceMemoryBase* device_dst, const void* host_src,
                           uint64_t size, TF_Status* status);
  void (*sync_memcpy_dtod)(const SP_Device* device, SP_DeviceMemoryBase* device_dst,
                           const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status);

  void (*block_host_for_event)(const SP_Device* device, SP_Event event, TF_Status* status);
  void (*block_host_until_done)(const SP_Device* device, SP_Stream stream, TF_Status* status);
  void (*synchronize_all_activity)(const SP_Device* device, TF_Status* status);

  void (*mem_zero)(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location, uint64_t size,
                   TF_Status* status);
  void (*memset)(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location, uint8_t pattern,
                 uint64_t size, TF_Status* status);
  void (*memset32)(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location, uint32_t pattern,
                   uint64_t size, TF_Status* status);

  TF_Bool (*host_callback)(const SP_Device* device, SP_Stream stream, SE_StatusCallbackFn callback_fn,
                           void* callback_arg);
} SP_StreamExecutor;
#define SP_STREAMEXECUTOR_STRUCT_SIZE 288

typedef struct SE_CreateStreamExecutorParams {
  size_t struct_size;
  void* ext;
  SP_StreamExecutor* stream_executor;
} SE_CreateStreamExecutorParams;
#define SE_CREATE_STREAM_EXECUTOR_PARAMS_STRUCT_SIZE 24

/* `name` and `type` must match [A-Z][A-Z_]*; `type` is the device type users see. */
typedef struct SP_Platform {
  size_t struct_size;
  void* ext;
  const char* name;
  const char* type;
  TF_Bool supports_unified_memory;
  TF_Bool use_bfc_allocator;
  TF_Bool force_memory_growth;
} SP_Platform;
/* Offset of the end of `force_memory_growth`, not sizeof. */
#define SP_PLATFORM_STRUCT_SIZE 35

typedef struct SP_PlatformFns {
  size_t struct_size;
  void* ext;
  void (*get_device_count)(const SP_Platform* platform, int* device_count, TF_Status* status);
  void (*create_device)(const SP_Platform* platform, SE_CreateDeviceParams* params, TF_Status* status);
  void (*destroy_device)(const SP_Platform* platform, SP_Device* device);
  void (*create_device_fns)(const SP_Platform* platform, SE_CreateDeviceFnsParams* params, TF_Status* status);
  void (*destroy_device_fns)(const SP_Platform* platform, SP_DeviceFns* device_fns);
  void (*create_stream_executor)(const SP_Platform* platform, SE_CreateStreamExecutorParams* params,
                                 TF_Status* status);
  void (*destroy_stream_executor)(const SP_Platform* platform, SP_StreamExecutor* stream_executor);
  void (*create_timer_fns)(const SP_Platform* platform, SP_TimerFns* timer, TF_Status* status);
  void (*destroy_timer_fns)(const SP_Platform* platform, SP_TimerFns* timer_fns);
} SP_PlatformFns;
#define SP_PLATFORM_FNS_STRUCT_SIZE 88

typedef struct SE_PlatformRegistrationParams {
  size_t struct_size;
  void* ext;
  int32_t major_version;
  int32_t minor_version;
  int32_t patch_version;
  SP_Platform* platform;
  SP_PlatformFns* platform_fns;
  void (*destroy_platform)(SP_Platform* platform);
  void (*destroy_platform_fns)(SP_PlatformFns* platform_fns);
} SE_PlatformRegistrationParams;
#define SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE 64

/* ------------------------------------------------------------------------------------------------
 * TensorFlow functions apu calls, as pointer types for dlsym (never linked).
 * ------------------------------------------------------------------------------------------------ */

/* Status. */
typedef TF_Status* (*TF_NewStatus_Fn)(void);
typedef void (*TF_DeleteStatus_Fn)(TF_Status* status);
typedef void (*TF_SetStatus_Fn)(TF_Status* status, TF_Code code, const char* message);
typedef TF_Code (*TF_GetCode_Fn)(const TF_Status* status);
typedef const char* (*TF_Message_Fn)(const TF_Status* status);

/* Tensors. */
typedef TF_DataType (*TF_TensorType_Fn)(const TF_Tensor* tensor);
typedef int (*TF_NumDims_Fn)(const TF_Tensor* tensor);
typedef int64_t (*TF_Dim_Fn)(const TF_Tensor* tensor, int dim_index);
typedef size_t (*TF_TensorByteSize_Fn)(const TF_Tensor* tensor);
typedef void* (*TF_TensorData_Fn)(const TF_Tensor* tensor);
typedef int64_t (*TF_TensorElementCount_Fn)(const TF_Tensor* tensor);
typedef void (*TF_DeleteTensor_Fn)(TF_Tensor* tensor);

/* Kernel registration. */
typedef void* (*TF_KernelCreateFn)(TF_OpKernelConstruction* ctx);
typedef void (*TF_KernelComputeFn)(void* kernel, TF_OpKernelContext* ctx);
typedef void (*TF_KernelDeleteFn)(void* kernel);
typedef TF_KernelBuilder* (*TF_NewKernelBuilder_Fn)(const char* op_name, const char* device_name,
                                                    TF_KernelCreateFn create_func,
                                                    TF_KernelComputeFn compute_func,
                                                    TF_KernelDeleteFn delete_func);
typedef void (*TF_KernelBuilder_TypeConstraint_Fn)(TF_KernelBuilder* builder, const char* attr_name,
                                                   TF_DataType type, TF_Status* status);
typedef void (*TF_KernelBuilder_HostMemory_Fn)(TF_KernelBuilder* builder, const char* arg_name);
typedef void (*TF_KernelBuilder_Priority_Fn)(TF_KernelBuilder* builder, int32_t priority_number);
typedef void (*TF_RegisterKernelBuilder_Fn)(const char* kernel_name, TF_KernelBuilder* builder,
                                            TF_Status* status);
typedef void (*TF_DeleteKernelBuilder_Fn)(TF_KernelBuilder* builder);

/* Kernel construction: attributes. */
typedef void (*TF_OpKernelConstruction_GetAttrBool_Fn)(TF_OpKernelConstruction* ctx, const char* attr_name,
                                                       TF_Bool* val, TF_Status* status);
typedef void (*TF_OpKernelConstruction_GetAttrType_Fn)(TF_OpKernelConstruction* ctx, const char* attr_name,
                                                       TF_DataType* val, TF_Status* status);
typedef void (*TF_OpKernelConstruction_GetAttrSize_Fn)(TF_OpKernelConstruction* ctx, const char* attr_name,
                                                       int32_t* list_size, int32_t* total_size,
                                                       TF_Status* status);
typedef void (*TF_OpKernelConstruction_GetAttrString_Fn)(TF_OpKernelConstruction* ctx, const char* attr_name,
                                                         char* val, size_t max_length, TF_Status* status);
typedef void (*TF_OpKernelConstruction_GetAttrInt64_Fn)(TF_OpKernelConstruction* ctx,
                                                        const char* attr_name, int64_t* val,
                                                        TF_Status* status);
typedef void (*TF_OpKernelConstruction_GetAttrInt64List_Fn)(TF_OpKernelConstruction* ctx,
                                                            const char* attr_name, int64_t* vals,
                                                            int max_vals, TF_Status* status);
typedef void (*TF_OpKernelConstruction_GetAttrInt32List_Fn)(TF_OpKernelConstruction* ctx,
                                                            const char* attr_name, int32_t* vals,
                                                            int max_vals, TF_Status* status);

/* Kernel execution. */
typedef int (*TF_NumInputs_Fn)(TF_OpKernelContext* ctx);
typedef int (*TF_NumOutputs_Fn)(TF_OpKernelContext* ctx);
typedef void (*TF_GetInput_Fn)(TF_OpKernelContext* ctx, int i, TF_Tensor** tensor, TF_Status* status);
typedef TF_DataType (*TF_ExpectedOutputDataType_Fn)(TF_OpKernelContext* ctx, int i);
typedef TF_Tensor* (*TF_AllocateOutput_Fn)(TF_OpKernelContext* ctx, int index, TF_DataType dtype,
                                           const int64_t* dims, int num_dims, size_t len, TF_Status* status);
typedef void (*TF_SetOutput_Fn)(TF_OpKernelContext* ctx, int i, const TF_Tensor* tensor, TF_Status* status);
typedef void (*TF_OpKernelContext_Failure_Fn)(TF_OpKernelContext* ctx, TF_Status* status);
typedef SP_Stream (*TF_GetStream_Fn)(TF_OpKernelContext* ctx, TF_Status* status);

/* Whether TensorFlow's XLA auto-clustering is on (c_api_experimental). */
typedef unsigned char (*TF_GetXlaAutoJitEnabled_Fn)(void);

/* ------------------------------------------------------------------------------------------------
 * NextPluggableDevice, version 0.0.1.
 * ------------------------------------------------------------------------------------------------ */

#define TFNPD_MAJOR 0
#define TFNPD_MINOR 0
#define TFNPD_PATCH 1

/* PJRT handles, as the PJRT C API names them (opaque here). */
typedef struct PJRT_Buffer PJRT_Buffer;
typedef struct PJRT_Client PJRT_Client;
typedef struct PJRT_NamedValue PJRT_NamedValue;

/* XLA's C shape, which apu copies in TFNPD_XlaShapeToDeviceShapeRepresentation. The layout struct is the
 * one of TensorFlow 2.17/2.18 (with dim_level_types / dim_unique / dim_ordered; 2.21 dropped them): apu is a
 * NextPluggableDevice only on TensorFlow versions that export TF_CreateAndSetPjRtCApiClient, i.e. <= 2.18.
 * Lists keep up to XLA_C_API_MAX_INLINED elements inline and larger ones on the heap (owned, released by
 * TensorFlow with delete[]). */
#define XLA_C_API_MAX_INLINED 6

typedef struct XLA_IntList {
  union {
    int* heap;
    int inlined[XLA_C_API_MAX_INLINED];
  };
  int64_t size;
} XLA_IntList;

typedef struct XLA_Int64List {
  union {
    int64_t* heap;
    int64_t inlined[XLA_C_API_MAX_INLINED];
  };
  int64_t size;
} XLA_Int64List;

typedef struct XLA_BoolList {
  union {
    bool* heap;
    bool inlined[XLA_C_API_MAX_INLINED];
  };
  int64_t size;
} XLA_BoolList;

typedef struct XLA_Tile {
  XLA_Int64List dimensions;
} XLA_Tile;

typedef struct XLA_TileList {
  union {
    XLA_Tile* heap;
    XLA_Tile inlined[XLA_C_API_MAX_INLINED];
  };
  int64_t size;
} XLA_TileList;

typedef struct XLA_Layout {
  XLA_Int64List minor_to_major;
  XLA_IntList dim_level_types;
  XLA_IntList dim_unique;
  XLA_IntList dim_ordered;
  XLA_TileList tiles;
  int index_primitive_type;
  int pointer_primitive_type;
  int64_t element_size_in_bits;
  int64_t memory_space;
  int64_t dynamic_shape_metadata_prefix_bytes;
  int64_t tail_padding_alignment_in_elements;
} XLA_Layout;

typedef struct XLA_Shape {
  int element_type;
  XLA_Int64List dimensions;
  XLA_BoolList dynamic_dimensions;
  struct XLA_Shape* tuple_shapes;
  int ntuple_shapes;
  bool has_layout;
  XLA_Layout layout;
} XLA_Shape;

typedef enum XLA_LayoutPreference {
  XLA_LayoutPreference_kNoPreference = 0,
  XLA_LayoutPreference_kTpuPreferCompactChunkPaddedLayout = 1,
  XLA_LayoutPreference_kTpuPreferLinearLayout = 2
} XLA_LayoutPreference;

typedef struct TFNPD_DeviceEvent TFNPD_DeviceEvent;
typedef struct TFNPD_DeviceAllocator TFNPD_DeviceAllocator;
typedef struct TFNPD_DeviceContext TFNPD_DeviceContext;

typedef TFNPD_DeviceEvent* (*TFNPD_NewDeviceEvent)(void);
typedef void (*TFNPD_DeviceEventAwait)(TFNPD_DeviceEvent* event, TF_Status* status);
typedef bool (*TFNPD_DeviceEventIsReady)(TFNPD_DeviceEvent* event);
typedef void (*TFNPD_DeviceEventAndThen)(TFNPD_DeviceEvent* event, void (*callback)(void*), void* callback_arg);
typedef void (*TFNPD_DeviceEventDelete)(TFNPD_DeviceEvent* event);

typedef TFNPD_DeviceAllocator* (*TFNPD_DeviceAllocatorCreate)(int device_ordinal);
typedef void* (*TFNPD_DeviceAllocateRaw)(TFNPD_DeviceAllocator* allocator, size_t alignment, size_t num_bytes);
typedef void (*TFNPD_DeviceDeallocateRaw)(TFNPD_DeviceAllocator* allocator, void* ptr);
typedef TF_StringView (*TFNPD_DeviceAllocatorName)(TFNPD_DeviceAllocator* allocator);
typedef bool (*TFNPD_DeviceAllocatorAllocatesOpaqueHandle)(TFNPD_DeviceAllocator* allocator);
typedef void (*TFNPD_DeviceAllocatorDelete)(TFNPD_DeviceAllocator* allocator);

typedef TFNPD_DeviceContext* (*TFNPD_DeviceContextCreate)(int device_ordinal);
typedef void (*TFNPD_DeviceContextDelete)(TFNPD_DeviceContext* context);

typedef TFNPD_DeviceEvent* (*TFNPD_DeviceTensorToHostTensor)(TFNPD_DeviceContext* device_context,
                                                             const TF_Tensor* device_tensor, TF_Tensor* cpu_tensor,
                                                             TF_Status* status);
typedef TFNPD_DeviceEvent* (*TFNPD_HostTensorToDeviceTensor)(TFNPD_DeviceContext* device_context,
                                                             const TF_Tensor* cpu_tensor, TF_Tensor* device_tensor,
                                                             TF_Status* status);
typedef TFNPD_DeviceEvent* (*TFNPD_SameDeviceTensorCopy)(TFNPD_DeviceContext* context);
typedef PJRT_Buffer* (*TFNPD_SameDevicePjRtBufferCopy)(PJRT_Buffer* src_buffer, PJRT_Client* c_client,
                                                       TF_Status* status);

typedef void (*TFNPD_XlaShapeToDeviceShapeRepresentation)(XLA_Shape* serialized_xla_shape, int data_type,
                                                          bool use_fast_memory,
                                                          XLA_LayoutPreference layout_preference,
                                                          XLA_Shape* serialized_device_shape,
                                                          TF_Status* tf_status);

typedef int32_t (*TFNPD_GetDeviceCount)(TF_Status* status);
typedef void (*TFNPD_InitPluginInternalDeviceStates)(TF_Status* status);

typedef struct TFNPD_Api {
  size_t struct_size;
  void* priv;

  TFNPD_NewDeviceEvent TFNPD_NewDeviceEvent;
  TFNPD_DeviceEventAwait TFNPD_DeviceEventAwait;
  TFNPD_DeviceEventIsReady TFNPD_DeviceEventIsReady;
  TFNPD_DeviceEventAndThen TFNPD_DeviceEventAndThen;
  TFNPD_DeviceEventDelete TFNPD_DeviceEventDelete;

  TFNPD_DeviceAllocatorCreate TFNPD_DeviceAllocatorCreate;
  TFNPD_DeviceAllocateRaw TFNPD_DeviceAllocateRaw;
  TFNPD_DeviceDeallocateRaw TFNPD_DeviceDeallocateRaw;
  TFNPD_DeviceAllocatorName TFNPD_DeviceAllocatorName;
  TFNPD_DeviceAllocatorAllocatesOpaqueHandle TFNPD_DeviceAllocatorAllocatesOpaqueHandle;
  TFNPD_DeviceAllocatorDelete TFNPD_DeviceAllocatorDelete;

  TFNPD_DeviceContextCreate TFNPD_DeviceContextCreate;
  TFNPD_DeviceContextDelete TFNPD_DeviceContextDelete;

  TFNPD_DeviceTensorToHostTensor TFNPD_DeviceTensorToHostTensor;
  TFNPD_HostTensorToDeviceTensor TFNPD_HostTensorToDeviceTensor;
  TFNPD_SameDeviceTensorCopy TFNPD_SameDeviceTensorCopy;
  TFNPD_SameDevicePjRtBufferCopy TFNPD_SameDevicePjRtBufferCopy;

  TFNPD_XlaShapeToDeviceShapeRepresentation TFNPD_XlaShapeToDeviceShapeRepresentation;

  TFNPD_GetDeviceCount TFNPD_GetDeviceCount;
  TFNPD_InitPluginInternalDeviceStates TFNPD_InitPluginInternalDeviceStates;
} TFNPD_Api;
#define TFNPD_API_STRUCT_SIZE 176

typedef struct TFNPD_PluginParams {
  size_t struct_size;
  void* ext;
  const char* device_type;
  const char* compilation_device_name;
  int32_t priority;
  bool is_pluggable_device;
  /* Read by TensorFlow although it lies past struct_size (TensorFlow zero-initialises the struct). */
  bool use_pjrt_on_demand_compile;
} TFNPD_PluginParams;
/* Offset of the end of `is_pluggable_device`, not sizeof (40). */
#define TFNPD_PLUGIN_PARAMS_STRUCT_SIZE 37

/* NextPluggableDevice C API function apu calls when the running TensorFlow exports it (2.17, 2.18). */
typedef void (*TF_CreateAndSetPjRtCApiClient_Fn)(const char* device_type, TF_Status* status,
                                                 PJRT_NamedValue* create_options, int num_options);

#ifdef __cplusplus
}
#endif

#endif /* APU_TF_C_API_H_ */
