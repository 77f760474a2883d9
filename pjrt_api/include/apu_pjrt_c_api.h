/*
 * apu_pjrt_c_api.h — the PJRT C API as implemented by apu, at API version 0.112.
 *
 * This is apu's own description of the PJRT plugin ABI (the `GetPjrtApi` function table and the
 * argument structs of every entry), written so that a library built against it is
 * binary-compatible with frameworks built against OpenXLA's pjrt_c_api.h of the same version
 * (jaxlib 0.10.2 uses 0.112). Names, member order and member types follow the upstream ABI
 * exactly; everything else (layout of this file, comments, helper macro names) is apu's.
 *
 * Conventions that hold for every entry point:
 *   - Each function takes a single pointer to an `<Function>_Args` struct. The caller sets
 *     `struct_size` to the size of the struct it knows (`<Args>_STRUCT_SIZE` of its own header)
 *     and `extension_start` to an optional extension chain. Members marked out are written by
 *     the callee; everything else is input.
 *   - An implementation must not read members lying beyond the caller's `struct_size`: an older
 *     caller simply does not have them, so they count as absent (zero / NULL).
 *   - Strings are passed as (pointer, byte length) pairs and are not NUL-terminated.
 *   - Returned arrays and strings are owned by the object they were read from unless the
 *     comment says otherwise.
 *
 * `<Name>_STRUCT_SIZE` is the offset of a struct's last member plus that member's size, i.e. the
 * struct size without trailing padding; this is what callers put in `struct_size`.
 *
 * Layout facts were checked on x86-64 Linux (LP64) against the sizes jaxlib 0.10.2 passes.
 * Members that upstream added after 0.112 are deliberately absent:
 * PJRT_ExecuteOptions.{custom_options, num_custom_options} and
 * PJRT_Device_MemoryStats_Args.{peak_allocated_bytes, peak_allocated_bytes_is_set}.
 */

#ifndef APU_PJRT_C_API_H_
#define APU_PJRT_C_API_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PJRT_API_MAJOR 0
#define PJRT_API_MINOR 112

/* Size of `type` up to and including `last`, excluding any trailing padding. */
#define APU_PJRT_SIZE_UP_TO(type, last) \
  (offsetof(type, last) + sizeof(((type *)0)->last))

/*
 * Declares `type##_STRUCT_SIZE` as an integer constant. An enum constant (not a plain #define)
 * is used so that the value is a compile-time constant visible to binding generators.
 */
#define APU_PJRT_STRUCT_SIZE_CONSTANT(type, last) \
  enum { type##_STRUCT_SIZE = APU_PJRT_SIZE_UP_TO(type, last) }

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================ */
/* Extension chain                                                                              */
/* ============================================================================================ */

/*
 * Optional feature tables hang off PJRT_Api.extension_start (plugin side) and off the
 * extension_start member of every args struct (caller side), as a NULL-terminated singly linked
 * list. Each concrete extension struct begins with PJRT_Extension_Base. Kinds a reader does not
 * know are skipped, never treated as an error (jaxlib puts its own Profiler extension into the
 * args of Compile and Execute).
 */

/* Kinds of extension; values are positional and append-only. */
typedef enum {
  PJRT_Extension_Type_Gpu_Custom_Call = 0,
  PJRT_Extension_Type_Profiler = 1,
  PJRT_Extension_Type_Custom_Partitioner = 2,
  PJRT_Extension_Type_Stream = 3,
  PJRT_Extension_Type_Layouts = 4,
  PJRT_Extension_Type_FFI = 5,
  PJRT_Extension_Type_MemoryDescriptions = 6,
  PJRT_Extension_Type_Triton = 7,
  PJRT_Extension_Type_RawBuffer = 8,
  PJRT_Extension_Type_PhaseCompile = 9,
  PJRT_Extension_Type_Example = 10,
  PJRT_Extension_Type_Unknown = 11,
  PJRT_Extension_Type_CrossHostTransfers = 12,
  PJRT_Extension_Type_ExecutableMetadata = 13,
  PJRT_Extension_Type_Callback = 14,
  PJRT_Extension_Type_HostAllocator = 15,
  PJRT_Extension_Type_TpuTopology = 16,
  PJRT_Extension_Type_TpuExecutable = 17,
  PJRT_Extension_Type_Megascale = 18,
  PJRT_Extension_Type_Shardings = 19,
  PJRT_Extension_Type_AbiVersion = 20,
  PJRT_Extension_Type_Collectives = 21,
  PJRT_Extension_Type_MultiSlice = 22,
  PJRT_Extension_Type_HostMemoryAllocator = 23,
  PJRT_Extension_Type_XlaTransform = 24,
} PJRT_Extension_Type;

/* Common head of every extension struct. */
typedef struct PJRT_Extension_Base {
  size_t struct_size;
  PJRT_Extension_Type type;
  struct PJRT_Extension_Base *next;
} PJRT_Extension_Base;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Extension_Base, next);

/* ============================================================================================ */
/* API version                                                                                  */
/* ============================================================================================ */

/*
 * apu implements the table as of minor version 0.112 (what jaxlib 0.10.2 was built with).
 * A caller only calls slots whose minor version is <= the one the plugin reports.
 */

/* The version a plugin implements; major 0 means "no ABI stability promise beyond append-only". */
typedef struct PJRT_Api_Version {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  int major_version;  /* out */
  int minor_version;  /* out */
} PJRT_Api_Version;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Api_Version, minor_version);

/* ============================================================================================ */
/* Error objects                                                                                */
/* ============================================================================================ */

/*
 * Every fallible function returns NULL on success or a PJRT_Error* that the caller owns and
 * frees with PJRT_Error_Destroy.
 */
typedef struct PJRT_Error PJRT_Error;

typedef struct PJRT_Error_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Error *error;
} PJRT_Error_Destroy_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Error_Destroy_Args, error);

/* Frees an error; NULL is allowed. [slot 0, offset 40] */
typedef void PJRT_Error_Destroy(PJRT_Error_Destroy_Args *args);

typedef struct PJRT_Error_Message_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const PJRT_Error *error;
  const char *message;  /* out */
  size_t message_size;  /* out */
} PJRT_Error_Message_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Error_Message_Args, message_size);

/* Message bytes (not NUL-terminated) live as long as the error. [slot 1, offset 48] */
typedef void PJRT_Error_Message(PJRT_Error_Message_Args *args);

/* Status codes, numbered like absl::StatusCode (0 is OK and never carried by a PJRT_Error). */
typedef enum {
  PJRT_Error_Code_OK = 0,
  PJRT_Error_Code_CANCELLED = 1,
  PJRT_Error_Code_UNKNOWN = 2,
  PJRT_Error_Code_INVALID_ARGUMENT = 3,
  PJRT_Error_Code_DEADLINE_EXCEEDED = 4,
  PJRT_Error_Code_NOT_FOUND = 5,
  PJRT_Error_Code_ALREADY_EXISTS = 6,
  PJRT_Error_Code_PERMISSION_DENIED = 7,
  PJRT_Error_Code_RESOURCE_EXHAUSTED = 8,
  PJRT_Error_Code_FAILED_PRECONDITION = 9,
  PJRT_Error_Code_ABORTED = 10,
  PJRT_Error_Code_OUT_OF_RANGE = 11,
  PJRT_Error_Code_UNIMPLEMENTED = 12,
  PJRT_Error_Code_INTERNAL = 13,
  PJRT_Error_Code_UNAVAILABLE = 14,
  PJRT_Error_Code_DATA_LOSS = 15,
  PJRT_Error_Code_UNAUTHENTICATED = 16,
} PJRT_Error_Code;

/* Called once per (key, value) payload attached to an error; neither string is NUL-terminated. */
typedef void (*PJRT_Error_PayloadVisitor)(
    const char *key,
    size_t key_size,
    const char *value,
    size_t value_size,
    void *user_arg);

/*
 * Behaviour of an error object, reachable from the error itself. instance_size is the size
 * of the plugin's full error object.
 */
typedef struct PJRT_Error_FunctionTable {
  size_t struct_size;
  size_t instance_size;
  PJRT_Extension_Base *extension_start;
  void (*destroy)(PJRT_Error *error);
  void (*message)(const PJRT_Error *error, const char **message, size_t *message_size);
  PJRT_Error_Code (*get_code)(const PJRT_Error *error);
  void (*for_each_payload)(
      const PJRT_Error *error,
      PJRT_Error_PayloadVisitor visitor,
      void *user_arg);
} PJRT_Error_FunctionTable;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Error_FunctionTable, for_each_payload);

/*
 * An error starts with a pointer to its function table, so a plugin's error objects must
 * embed this struct as their first member.
 */
struct PJRT_Error {
  const struct PJRT_Error_FunctionTable *vtable;
};
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Error, vtable);

typedef struct PJRT_Error_GetCode_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const PJRT_Error *error;
  PJRT_Error_Code code;  /* out */
} PJRT_Error_GetCode_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Error_GetCode_Args, code);

/* Reads the status code of an error. [slot 2, offset 56] */
typedef PJRT_Error *PJRT_Error_GetCode(PJRT_Error_GetCode_Args *args);

typedef struct PJRT_Error_ForEachPayload_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const PJRT_Error *error;
  PJRT_Error_PayloadVisitor visitor;
  void *user_arg;
} PJRT_Error_ForEachPayload_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Error_ForEachPayload_Args, user_arg);

/*
 * Visits the payloads of an error; a plugin without payloads visits nothing.
 * [slot 132, offset 1096]
 */
typedef PJRT_Error *PJRT_Error_ForEachPayload(PJRT_Error_ForEachPayload_Args *args);

/*
 * Supplied by the plugin to caller callbacks so they can build a PJRT_Error; the message
 * only has to live for the duration of the call.
 */
typedef PJRT_Error *(*PJRT_CallbackError)(
    PJRT_Error_Code code,
    const char *message,
    size_t message_size);

/* ============================================================================================ */
/* Named values (key/value pairs)                                                               */
/* ============================================================================================ */

/* Which union member of PJRT_NamedValue is valid. */
typedef enum {
  PJRT_NamedValue_kString = 0,
  PJRT_NamedValue_kInt64 = 1,
  PJRT_NamedValue_kInt64List = 2,
  PJRT_NamedValue_kFloat = 3,
  PJRT_NamedValue_kBool = 4,
} PJRT_NamedValue_Type;

/*
 * Option or attribute. Strings are not NUL-terminated: value_size is the byte length for
 * strings, the element count for Int64List and 1 for scalars.
 */
typedef struct PJRT_NamedValue {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const char *name;
  size_t name_size;
  PJRT_NamedValue_Type type;
  union {
    const char *string_value;
    int64_t int64_value;
    const int64_t *int64_array_value;
    float float_value;
    bool bool_value;
  };
  size_t value_size;
} PJRT_NamedValue;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_NamedValue, value_size);

/* ============================================================================================ */
/* Plugin-wide calls                                                                            */
/* ============================================================================================ */

typedef struct PJRT_Plugin_Initialize_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
} PJRT_Plugin_Initialize_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Plugin_Initialize_Args, extension_start);

/* Called once, after the version check and before any client is created. [slot 3, offset 64] */
typedef PJRT_Error *PJRT_Plugin_Initialize(PJRT_Plugin_Initialize_Args *args);

typedef struct PJRT_Plugin_Attributes_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const PJRT_NamedValue *attributes;  /* out */
  size_t num_attributes;  /* out */
} PJRT_Plugin_Attributes_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Plugin_Attributes_Args, num_attributes);

/*
 * Process-lifetime attributes. JAX reads stablehlo_current_version to choose the StableHLO
 * version it serializes to; xla_version and stablehlo_minimum_version are expected too.
 * [slot 4, offset 72]
 */
typedef PJRT_Error *PJRT_Plugin_Attributes(PJRT_Plugin_Attributes_Args *args);

/* ============================================================================================ */
/* Events (completion of asynchronous work)                                                     */
/* ============================================================================================ */

/*
 * An event completes once, with or without an error. The caller owns every PJRT_Event* it
 * receives and frees it with PJRT_Event_Destroy.
 */
typedef struct PJRT_Event PJRT_Event;

typedef struct PJRT_Event_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Event *event;
} PJRT_Event_Destroy_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Event_Destroy_Args, event);

/* Frees an event (pending callbacks still fire); NULL is allowed. [slot 5, offset 80] */
typedef PJRT_Error *PJRT_Event_Destroy(PJRT_Event_Destroy_Args *args);

typedef struct PJRT_Event_IsReady_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Event *event;
  bool is_ready;  /* out */
} PJRT_Event_IsReady_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Event_IsReady_Args, is_ready);

/* Non-blocking completion check. [slot 6, offset 88] */
typedef PJRT_Error *PJRT_Event_IsReady(PJRT_Event_IsReady_Args *args);

typedef struct PJRT_Event_Error_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Event *event;
} PJRT_Event_Error_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Event_Error_Args, event);

/*
 * The outcome of a completed event, as a new error object the caller must free.
 * [slot 7, offset 96]
 */
typedef PJRT_Error *PJRT_Event_Error(PJRT_Event_Error_Args *args);

typedef struct PJRT_Event_Await_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Event *event;
} PJRT_Event_Await_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Event_Await_Args, event);

/* Blocks until the event completes and returns its outcome. [slot 8, offset 104] */
typedef PJRT_Error *PJRT_Event_Await(PJRT_Event_Await_Args *args);

/*
 * Completion callback: it receives ownership of `error` (NULL on success) and must destroy it;
 * it may run on any thread, possibly before PJRT_Event_OnReady returns.
 */
typedef void (*PJRT_Event_OnReadyCallback)(PJRT_Error *error, void *user_arg);

typedef struct PJRT_Event_OnReady_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Event *event;
  PJRT_Event_OnReadyCallback callback;
  void *user_arg;
} PJRT_Event_OnReady_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Event_OnReady_Args, user_arg);

/*
 * Registers a callback to run once the event completes (immediately if it already has).
 * [slot 9, offset 112]
 */
typedef PJRT_Error *PJRT_Event_OnReady(PJRT_Event_OnReady_Args *args);

typedef struct PJRT_Event_Create_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Event *event;  /* out */
} PJRT_Event_Create_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Event_Create_Args, event);

/* Creates an event that the caller completes later with PJRT_Event_Set. [slot 126, offset 1048] */
typedef PJRT_Error *PJRT_Event_Create(PJRT_Event_Create_Args *args);

typedef struct PJRT_Event_Set_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Event *event;
  PJRT_Error_Code error_code;
  const char *error_message;
  size_t error_message_size;
} PJRT_Event_Set_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Event_Set_Args, error_message_size);

/*
 * Completes an event made by PJRT_Event_Create; error_code OK means success.
 * [slot 127, offset 1056]
 */
typedef PJRT_Error *PJRT_Event_Set(PJRT_Event_Set_Args *args);

/* ============================================================================================ */
/* Client: devices, memories, compilation and host-to-device transfers                          */
/* ============================================================================================ */

/*
 * The handle types are opaque except PJRT_Error and PJRT_Memory, whose first member is a
 * pointer to a function table.
 */
typedef struct PJRT_Client PJRT_Client;
typedef struct PJRT_Device PJRT_Device;
typedef struct PJRT_Memory PJRT_Memory;
typedef struct PJRT_Memory_FunctionTable PJRT_Memory_FunctionTable;

/* Lets a caller attach keyed user data to a memory space object. */
struct PJRT_Memory_FunctionTable {
  size_t struct_size;
  struct PJRT_Extension_Base *extension_start;
  size_t instance_struct_size;
  void *(*get_user_data)(struct PJRT_Memory *memory, const void *key);
  void (*set_user_data)(
      struct PJRT_Memory *memory,
      const void *key,
      void *data,
      void (*dtor)(void *));
};
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Memory_FunctionTable, set_user_data);

/* A memory space; like PJRT_Error it starts with its function table pointer. */
struct PJRT_Memory {
  const struct PJRT_Memory_FunctionTable *vtable;
};
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Memory, vtable);
typedef struct PJRT_ShapeSpec PJRT_ShapeSpec;
typedef struct PJRT_DeviceDescription PJRT_DeviceDescription;
typedef struct PJRT_TopologyDescription PJRT_TopologyDescription;
typedef struct PJRT_Executable PJRT_Executable;
typedef struct PJRT_LoadedExecutable PJRT_LoadedExecutable;
typedef struct PJRT_Buffer PJRT_Buffer;
typedef struct PJRT_FulfillAliasBufferCallback PJRT_FulfillAliasBufferCallback;
typedef struct PJRT_AsyncHostToDeviceTransferManager PJRT_AsyncHostToDeviceTransferManager;
typedef struct PJRT_PhaseCompiler PJRT_PhaseCompiler;

/* Frees a value returned by a key-value get callback. */
typedef void (*PJRT_KeyValueGetCallback_ValueDeleter)(char *value);

typedef struct PJRT_KeyValueGetCallback_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const char *key;
  size_t key_size;
  int timeout_in_ms;
  PJRT_CallbackError *callback_error;
  void *user_arg;
  char *value;  /* out */
  size_t value_size;  /* out */
  PJRT_KeyValueGetCallback_ValueDeleter value_deleter_callback;  /* out */
} PJRT_KeyValueGetCallback_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_KeyValueGetCallback_Args, value_deleter_callback);

typedef PJRT_Error *(*PJRT_KeyValueGetCallback)(PJRT_KeyValueGetCallback_Args *args);

typedef void (*PJRT_KeyValueTryGetCallback_ValueDeleter)(char *value);

typedef struct PJRT_KeyValueTryGetCallback_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const char *key;
  size_t key_size;
  PJRT_CallbackError *callback_error;
  void *user_arg;
  char *value;  /* out */
  size_t value_size;  /* out */
  PJRT_KeyValueTryGetCallback_ValueDeleter value_deleter_callback;  /* out */
} PJRT_KeyValueTryGetCallback_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_KeyValueTryGetCallback_Args, value_deleter_callback);

typedef PJRT_Error *(*PJRT_KeyValueTryGetCallback)(PJRT_KeyValueTryGetCallback_Args *args);

typedef struct PJRT_KeyValuePutCallback_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const char *key;
  size_t key_size;
  const char *value;
  size_t value_size;
  PJRT_CallbackError *callback_error;
  void *user_arg;
} PJRT_KeyValuePutCallback_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_KeyValuePutCallback_Args, user_arg);

typedef PJRT_Error *(*PJRT_KeyValuePutCallback)(PJRT_KeyValuePutCallback_Args *args);

/*
 * In single-process jaxlib the kv_* fields are left uninitialised: read them only when the
 * options describe a multi-process job.
 */
typedef struct PJRT_Client_Create_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const PJRT_NamedValue *create_options;
  size_t num_options;
  PJRT_KeyValueGetCallback kv_get_callback;
  void *kv_get_user_arg;
  PJRT_KeyValuePutCallback kv_put_callback;
  void *kv_put_user_arg;
  PJRT_Client *client;  /* out */
  PJRT_KeyValueTryGetCallback kv_try_get_callback;
  void *kv_try_get_user_arg;
} PJRT_Client_Create_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_Create_Args, kv_try_get_user_arg);

/*
 * Creates a client from typed options (unknown option names may be rejected).
 * [slot 10, offset 120]
 */
typedef PJRT_Error *PJRT_Client_Create(PJRT_Client_Create_Args *args);

typedef struct PJRT_Client_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
} PJRT_Client_Destroy_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_Destroy_Args, client);

/* Destroys a client; NULL is allowed. [slot 11, offset 128] */
typedef PJRT_Error *PJRT_Client_Destroy(PJRT_Client_Destroy_Args *args);

typedef struct PJRT_Client_PlatformName_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  const char *platform_name;  /* out */
  size_t platform_name_size;  /* out */
} PJRT_Client_PlatformName_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_PlatformName_Args, platform_name_size);

/* Platform name such as "cpu" or "apu"; owned by the client. [slot 12, offset 136] */
typedef PJRT_Error *PJRT_Client_PlatformName(PJRT_Client_PlatformName_Args *args);

typedef struct PJRT_Client_ProcessIndex_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  int process_index;  /* out */
} PJRT_Client_ProcessIndex_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_ProcessIndex_Args, process_index);

/* 0 in a single-process setting. [slot 13, offset 144] */
typedef PJRT_Error *PJRT_Client_ProcessIndex(PJRT_Client_ProcessIndex_Args *args);

typedef struct PJRT_Client_PlatformVersion_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  const char *platform_version;  /* out */
  size_t platform_version_size;  /* out */
} PJRT_Client_PlatformVersion_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_PlatformVersion_Args, platform_version_size);

/* Free-form version text; owned by the client. [slot 14, offset 152] */
typedef PJRT_Error *PJRT_Client_PlatformVersion(PJRT_Client_PlatformVersion_Args *args);

typedef struct PJRT_Client_TopologyDescription_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  PJRT_TopologyDescription *topology;  /* out */
} PJRT_Client_TopologyDescription_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_TopologyDescription_Args, topology);

/* The topology of the client; owned by the client (do not destroy). [slot 95, offset 800] */
typedef PJRT_Error *PJRT_Client_TopologyDescription(PJRT_Client_TopologyDescription_Args *args);

typedef struct PJRT_Client_Devices_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  PJRT_Device *const *devices;  /* out */
  size_t num_devices;  /* out */
} PJRT_Client_Devices_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_Devices_Args, num_devices);

/* All devices, addressable or not; the array is owned by the client. [slot 15, offset 160] */
typedef PJRT_Error *PJRT_Client_Devices(PJRT_Client_Devices_Args *args);

typedef struct PJRT_Client_AddressableDevices_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  PJRT_Device *const *addressable_devices;  /* out */
  size_t num_addressable_devices;  /* out */
} PJRT_Client_AddressableDevices_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_AddressableDevices_Args, num_addressable_devices);

/* Devices this process can use. [slot 16, offset 168] */
typedef PJRT_Error *PJRT_Client_AddressableDevices(PJRT_Client_AddressableDevices_Args *args);

typedef struct PJRT_Client_LookupDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  int id;
  PJRT_Device *device;  /* out */
} PJRT_Client_LookupDevice_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_LookupDevice_Args, device);

/* Device by global id. [slot 17, offset 176] */
typedef PJRT_Error *PJRT_Client_LookupDevice(PJRT_Client_LookupDevice_Args *args);

typedef struct PJRT_Client_LookupAddressableDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  int local_hardware_id;
  PJRT_Device *addressable_device;  /* out */
} PJRT_Client_LookupAddressableDevice_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_LookupAddressableDevice_Args, addressable_device);

/* Addressable device by local hardware id. [slot 18, offset 184] */
typedef PJRT_Error *PJRT_Client_LookupAddressableDevice(
    PJRT_Client_LookupAddressableDevice_Args *args);

typedef enum {
  PJRT_ProcessState_kUnspecified = 0,
  PJRT_ProcessState_kUninitialized = 1,
  PJRT_ProcessState_kDisconnected = 2,
  PJRT_ProcessState_kConnected = 3,
  PJRT_ProcessState_kError = 4,
} PJRT_ProcessState;

typedef struct PJRT_ProcessInfo {
  size_t struct_size;
  int task_id;
  uint64_t incarnation_id;
  PJRT_ProcessState state;
  int error_code;
  const char *error_message;
  size_t error_message_size;
} PJRT_ProcessInfo;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_ProcessInfo, error_message_size);

typedef struct PJRT_Client_UpdateGlobalProcessInfo_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  PJRT_ProcessInfo *process_infos;
  size_t num_process_infos;
} PJRT_Client_UpdateGlobalProcessInfo_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_UpdateGlobalProcessInfo_Args, num_process_infos);

/* [slot 113, offset 944] */
typedef PJRT_Error *PJRT_Client_UpdateGlobalProcessInfo(
    PJRT_Client_UpdateGlobalProcessInfo_Args *args);

typedef struct PJRT_Client_AddressableMemories_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  PJRT_Memory *const *addressable_memories;  /* out */
  size_t num_addressable_memories;  /* out */
} PJRT_Client_AddressableMemories_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_AddressableMemories_Args, num_addressable_memories);

/*
 * Memory spaces this process can use; every memory a device reports must be one of these
 * objects. [slot 19, offset 192]
 */
typedef PJRT_Error *PJRT_Client_AddressableMemories(PJRT_Client_AddressableMemories_Args *args);

/*
 * A program to compile. `format` is "mlir" (MLIR bytecode or text), "hlo" (HloModuleProto) or
 * "hlo_with_config"; neither code nor format is NUL-terminated.
 */
typedef struct PJRT_Program {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  char *code;
  size_t code_size;
  const char *format;
  size_t format_size;
} PJRT_Program;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Program, format_size);

typedef struct PJRT_Client_Compile_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  const PJRT_Program *program;
  const char *compile_options;
  size_t compile_options_size;
  PJRT_LoadedExecutable *executable;  /* out */
} PJRT_Client_Compile_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_Compile_Args, executable);

/*
 * Compiles and loads a program; compile_options is a serialized xla.CompileOptionsProto.
 * May be called from a thread other than the one that created the client. [slot 20, offset 200]
 */
typedef PJRT_Error *PJRT_Client_Compile(PJRT_Client_Compile_Args *args);

typedef struct PJRT_Client_Load_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  PJRT_Executable *executable;
  const char *compile_options;
  size_t compile_options_size;
  PJRT_LoadedExecutable *loaded_executable;  /* out */
} PJRT_Client_Load_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_Load_Args, loaded_executable);

/* Loads an already compiled executable onto this client. [slot 129, offset 1072] */
typedef PJRT_Error *PJRT_Client_Load(PJRT_Client_Load_Args *args);

typedef struct PJRT_Client_DefaultDeviceAssignment_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  int num_replicas;
  int num_partitions;
  size_t default_assignment_size;
  int *default_assignment;
} PJRT_Client_DefaultDeviceAssignment_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_DefaultDeviceAssignment_Args, default_assignment);

/* Fills a replicas x partitions grid of device ids. [slot 21, offset 208] */
typedef PJRT_Error *PJRT_Client_DefaultDeviceAssignment(
    PJRT_Client_DefaultDeviceAssignment_Args *args);

typedef struct PJRT_Client_DmaMap_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  void *data;
  size_t size;
} PJRT_Client_DmaMap_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_DmaMap_Args, size);

/* [slot 110, offset 920] */
typedef PJRT_Error *PJRT_Client_DmaMap(PJRT_Client_DmaMap_Args *args);

typedef struct PJRT_Client_DmaUnmap_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  void *data;
} PJRT_Client_DmaUnmap_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_DmaUnmap_Args, data);

/* [slot 111, offset 928] */
typedef PJRT_Error *PJRT_Client_DmaUnmap(PJRT_Client_DmaUnmap_Args *args);

typedef struct PJRT_AsyncHostToDeviceTransferManager_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_AsyncHostToDeviceTransferManager *transfer_manager;
} PJRT_AsyncHostToDeviceTransferManager_Destroy_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_AsyncHostToDeviceTransferManager_Destroy_Args, transfer_manager);

/* [slot 101, offset 848] */
typedef PJRT_Error *PJRT_AsyncHostToDeviceTransferManager_Destroy(
    PJRT_AsyncHostToDeviceTransferManager_Destroy_Args *args);

typedef struct PJRT_AsyncHostToDeviceTransferManager_TransferData_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_AsyncHostToDeviceTransferManager *transfer_manager;
  int buffer_index;
  const void *data;
  int64_t offset;
  int64_t transfer_size;
  bool is_last_transfer;
  PJRT_Event *done_with_h2d_transfer;  /* out */
} PJRT_AsyncHostToDeviceTransferManager_TransferData_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(
    PJRT_AsyncHostToDeviceTransferManager_TransferData_Args,
    done_with_h2d_transfer);

/* [slot 102, offset 856] */
typedef PJRT_Error *PJRT_AsyncHostToDeviceTransferManager_TransferData(
    PJRT_AsyncHostToDeviceTransferManager_TransferData_Args *args);

typedef struct PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_AsyncHostToDeviceTransferManager *transfer_manager;
  int buffer_index;
  PJRT_Buffer *buffer_out;  /* out */
} PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(
    PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args,
    buffer_out);

/* [slot 104, offset 872] */
typedef PJRT_Error *PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer(
    PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args *args);

typedef struct PJRT_AsyncHostToDeviceTransferManager_Device_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_AsyncHostToDeviceTransferManager *transfer_manager;
  PJRT_Device *device_out;  /* out */
} PJRT_AsyncHostToDeviceTransferManager_Device_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_AsyncHostToDeviceTransferManager_Device_Args, device_out);

/* [slot 105, offset 880] */
typedef PJRT_Error *PJRT_AsyncHostToDeviceTransferManager_Device(
    PJRT_AsyncHostToDeviceTransferManager_Device_Args *args);

typedef struct PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_AsyncHostToDeviceTransferManager *transfer_manager;
  size_t buffer_count;  /* out */
} PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args, buffer_count);

/* [slot 106, offset 888] */
typedef PJRT_Error *PJRT_AsyncHostToDeviceTransferManager_BufferCount(
    PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args *args);

typedef struct PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_AsyncHostToDeviceTransferManager *transfer_manager;
  int buffer_index;
  size_t buffer_size;  /* out */
} PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args, buffer_size);

/* [slot 107, offset 896] */
typedef PJRT_Error *PJRT_AsyncHostToDeviceTransferManager_BufferSize(
    PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args *args);

typedef struct PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_AsyncHostToDeviceTransferManager *transfer_manager;
  int buffer_index;
  PJRT_Error_Code error_code;
  const char *error_message;
  size_t error_message_size;
} PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(
    PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args,
    error_message_size);

/* [slot 108, offset 904] */
typedef PJRT_Error *PJRT_AsyncHostToDeviceTransferManager_SetBufferError(
    PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args *args);

typedef struct PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_AsyncHostToDeviceTransferManager *transfer_manager;
  const PJRT_NamedValue *transfer_metadata;
  size_t num_metadata;
} PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args, num_metadata);

/* [slot 109, offset 912] */
typedef PJRT_Error *PJRT_AsyncHostToDeviceTransferManager_AddMetadata(
    PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args *args);

/* Element types. The numbering is PJRT's own and differs from xla::PrimitiveType. */
typedef enum {
  PJRT_Buffer_Type_INVALID = 0,
  PJRT_Buffer_Type_PRED = 1,
  PJRT_Buffer_Type_S8 = 2,
  PJRT_Buffer_Type_S16 = 3,
  PJRT_Buffer_Type_S32 = 4,
  PJRT_Buffer_Type_S64 = 5,
  PJRT_Buffer_Type_U8 = 6,
  PJRT_Buffer_Type_U16 = 7,
  PJRT_Buffer_Type_U32 = 8,
  PJRT_Buffer_Type_U64 = 9,
  PJRT_Buffer_Type_F16 = 10,
  PJRT_Buffer_Type_F32 = 11,
  PJRT_Buffer_Type_F64 = 12,
  PJRT_Buffer_Type_BF16 = 13,
  PJRT_Buffer_Type_C64 = 14,
  PJRT_Buffer_Type_C128 = 15,
  PJRT_Buffer_Type_F8E5M2 = 16,
  PJRT_Buffer_Type_F8E4M3FN = 17,
  PJRT_Buffer_Type_F8E4M3B11FNUZ = 18,
  PJRT_Buffer_Type_F8E5M2FNUZ = 19,
  PJRT_Buffer_Type_F8E4M3FNUZ = 20,
  PJRT_Buffer_Type_S4 = 21,
  PJRT_Buffer_Type_U4 = 22,
  PJRT_Buffer_Type_TOKEN = 23,
  PJRT_Buffer_Type_S2 = 24,
  PJRT_Buffer_Type_U2 = 25,
  PJRT_Buffer_Type_F8E4M3 = 26,
  PJRT_Buffer_Type_F8E3M4 = 27,
  PJRT_Buffer_Type_F8E8M0FNU = 28,
  PJRT_Buffer_Type_F4E2M1FN = 29,
  PJRT_Buffer_Type_S1 = 30,
  PJRT_Buffer_Type_U1 = 31,
  PJRT_Buffer_Type_F6E2M3FN = 32,
  PJRT_Buffer_Type_F6E3M2FN = 33,
} PJRT_Buffer_Type;

/*
 * How long the caller's host memory stays valid and unchanged for
 * PJRT_Client_BufferFromHostBuffer: only during the call, until done_with_host_buffer fires, or
 * for the whole life of the buffer (zero copy; the plugin may alias it, mutably for
 * kMutableZeroCopy).
 */
typedef enum {
  PJRT_HostBufferSemantics_kImmutableOnlyDuringCall = 0,
  PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes = 1,
  PJRT_HostBufferSemantics_kImmutableZeroCopy = 2,
  PJRT_HostBufferSemantics_kMutableZeroCopy = 3,
} PJRT_HostBufferSemantics;

/* Which member of the PJRT_Buffer_MemoryLayout union is valid. */
typedef enum {
  PJRT_Buffer_MemoryLayout_Type_Tiled = 0,
  PJRT_Buffer_MemoryLayout_Type_Strides = 1,
} PJRT_Buffer_MemoryLayout_Type;

/* minor_to_major order plus optional tiles (tile_dims flattened, tile_dim_sizes per tile). */
typedef struct PJRT_Buffer_MemoryLayout_Tiled {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const int64_t *minor_to_major;
  size_t minor_to_major_size;
  const int64_t *tile_dims;
  const size_t *tile_dim_sizes;
  size_t num_tiles;
} PJRT_Buffer_MemoryLayout_Tiled;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_MemoryLayout_Tiled, num_tiles);

/* Explicit byte strides, one per dimension. */
typedef struct PJRT_Buffer_MemoryLayout_Strides {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const int64_t *byte_strides;
  size_t num_byte_strides;
} PJRT_Buffer_MemoryLayout_Strides;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_MemoryLayout_Strides, num_byte_strides);

typedef struct PJRT_Buffer_MemoryLayout {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  union {
    PJRT_Buffer_MemoryLayout_Tiled tiled;
    PJRT_Buffer_MemoryLayout_Strides strides;
  };
  PJRT_Buffer_MemoryLayout_Type type;
} PJRT_Buffer_MemoryLayout;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_MemoryLayout, type);

typedef struct PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_AsyncHostToDeviceTransferManager *transfer_manager;
  int buffer_index;
  const void *data;
  const int64_t *shape_dims;
  size_t shape_num_dims;
  PJRT_Buffer_Type shape_element_type;
  PJRT_Buffer_MemoryLayout *shape_layout;
  PJRT_Event *done_with_h2d_transfer;  /* out */
} PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(
    PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args,
    done_with_h2d_transfer);

/* [slot 119, offset 992] */
typedef PJRT_Error *PJRT_AsyncHostToDeviceTransferManager_TransferLiteral(
    PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args *args);

typedef struct PJRT_Client_CreateUninitializedBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  const int64_t *shape_dims;
  size_t shape_num_dims;
  PJRT_Buffer_Type shape_element_type;
  PJRT_Buffer_MemoryLayout *shape_layout;
  PJRT_Device *device;
  PJRT_Memory *memory;
  PJRT_Buffer *buffer;  /* out */
} PJRT_Client_CreateUninitializedBuffer_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_CreateUninitializedBuffer_Args, buffer);

/* [slot 112, offset 936] */
typedef PJRT_Error *PJRT_Client_CreateUninitializedBuffer(
    PJRT_Client_CreateUninitializedBuffer_Args *args);

typedef struct PJRT_Client_CreateErrorBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  PJRT_Error_Code error_code;
  const char *error_message;
  size_t error_message_size;
  const int64_t *shape_dims;
  size_t shape_num_dims;
  PJRT_Buffer_Type shape_element_type;
  PJRT_Buffer_MemoryLayout *shape_layout;
  PJRT_Memory *memory;
  PJRT_Buffer *buffer;  /* out */
  const PJRT_NamedValue *payload;
  size_t num_payload;
  PJRT_Buffer_MemoryLayout *device_layout;
} PJRT_Client_CreateErrorBuffer_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_CreateErrorBuffer_Args, device_layout);

/* [slot 118, offset 984] */
typedef PJRT_Error *PJRT_Client_CreateErrorBuffer(PJRT_Client_CreateErrorBuffer_Args *args);

typedef struct PJRT_Client_CreateAliasBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  PJRT_Memory *memory;
  const int64_t *shape_dims;
  size_t shape_num_dims;
  PJRT_Buffer_Type shape_element_type;
  PJRT_Buffer_MemoryLayout *shape_layout;
  PJRT_Buffer *alias_buffer;  /* out */
  PJRT_FulfillAliasBufferCallback *fulfill_alias_buffer_cb;  /* out */
} PJRT_Client_CreateAliasBuffer_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_CreateAliasBuffer_Args, fulfill_alias_buffer_cb);

/* [slot 115, offset 960] */
typedef PJRT_Error *PJRT_Client_CreateAliasBuffer(PJRT_Client_CreateAliasBuffer_Args *args);

typedef struct PJRT_Client_FulfillAliasBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  PJRT_Buffer *buffer;
  PJRT_Error_Code status_code;
  const char *error_message;
  size_t error_message_size;
  PJRT_FulfillAliasBufferCallback *fulfill_alias_buffer_cb;
} PJRT_Client_FulfillAliasBuffer_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_FulfillAliasBuffer_Args, fulfill_alias_buffer_cb);

/* [slot 116, offset 968] */
typedef PJRT_Error *PJRT_Client_FulfillAliasBuffer(PJRT_Client_FulfillAliasBuffer_Args *args);

/*
 * byte_strides NULL means dense row-major. device may be NULL when memory is set.
 * done_with_host_buffer must always be returned as a real event.
 */
typedef struct PJRT_Client_BufferFromHostBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  const void *data;
  PJRT_Buffer_Type type;
  const int64_t *dims;
  size_t num_dims;
  const int64_t *byte_strides;
  size_t num_byte_strides;
  PJRT_HostBufferSemantics host_buffer_semantics;
  PJRT_Device *device;
  PJRT_Memory *memory;
  PJRT_Buffer_MemoryLayout *device_layout;
  PJRT_Event *done_with_host_buffer;  /* out */
  PJRT_Buffer *buffer;  /* out */
} PJRT_Client_BufferFromHostBuffer_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_BufferFromHostBuffer_Args, buffer);

/* Creates a device buffer from host memory. [slot 22, offset 216] */
typedef PJRT_Error *PJRT_Client_BufferFromHostBuffer(PJRT_Client_BufferFromHostBuffer_Args *args);

typedef struct PJRT_Client_CreateViewOfDeviceBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  void *device_buffer_ptr;
  const int64_t *dims;
  size_t num_dims;
  PJRT_Buffer_Type element_type;
  PJRT_Buffer_MemoryLayout *layout;
  PJRT_Device *device;
  void (*on_delete_callback)(void *device_buffer_ptr, void *user_arg);
  void *on_delete_callback_arg;
  intptr_t stream;
  PJRT_Buffer *buffer;  /* out */
  PJRT_Memory *memory;
} PJRT_Client_CreateViewOfDeviceBuffer_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_CreateViewOfDeviceBuffer_Args, memory);

/* Wraps memory the caller already placed on the device, without copying. [slot 93, offset 784] */
typedef PJRT_Error *PJRT_Client_CreateViewOfDeviceBuffer(
    PJRT_Client_CreateViewOfDeviceBuffer_Args *args);

/* Element type and dimensions of one buffer to be created. */
struct PJRT_ShapeSpec {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const int64_t *dims;
  size_t num_dims;
  PJRT_Buffer_Type element_type;
};
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_ShapeSpec, element_type);

typedef struct PJRT_Client_CreateBuffersForAsyncHostToDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  PJRT_ShapeSpec *shape_specs;
  size_t num_shape_specs;
  PJRT_Buffer_MemoryLayout **device_layouts;
  size_t num_device_layouts;
  PJRT_Memory *memory;
  PJRT_AsyncHostToDeviceTransferManager *transfer_manager;  /* out */
} PJRT_Client_CreateBuffersForAsyncHostToDevice_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args, transfer_manager);

/* [slot 103, offset 864] */
typedef PJRT_Error *PJRT_Client_CreateBuffersForAsyncHostToDevice(
    PJRT_Client_CreateBuffersForAsyncHostToDevice_Args *args);

/* ============================================================================================ */
/* Device descriptions (static facts about a device)                                            */
/* ============================================================================================ */

typedef struct PJRT_DeviceDescription_Id_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_DeviceDescription *device_description;
  int id;  /* out */
} PJRT_DeviceDescription_Id_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_DeviceDescription_Id_Args, id);

/* Global device id. [slot 23, offset 224] */
typedef PJRT_Error *PJRT_DeviceDescription_Id(PJRT_DeviceDescription_Id_Args *args);

typedef struct PJRT_DeviceDescription_ProcessIndex_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_DeviceDescription *device_description;
  int process_index;  /* out */
} PJRT_DeviceDescription_ProcessIndex_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_DeviceDescription_ProcessIndex_Args, process_index);

/* [slot 24, offset 232] */
typedef PJRT_Error *PJRT_DeviceDescription_ProcessIndex(
    PJRT_DeviceDescription_ProcessIndex_Args *args);

typedef struct PJRT_DeviceDescription_Attributes_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_DeviceDescription *device_description;
  size_t num_attributes;  /* out */
  const PJRT_NamedValue *attributes;  /* out */
} PJRT_DeviceDescription_Attributes_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_DeviceDescription_Attributes_Args, attributes);

/*
 * Device attributes; JAX only accepts String, Int64 and Int64List values here.
 * [slot 25, offset 240]
 */
typedef PJRT_Error *PJRT_DeviceDescription_Attributes(PJRT_DeviceDescription_Attributes_Args *args);

typedef struct PJRT_DeviceDescription_Kind_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_DeviceDescription *device_description;
  const char *device_kind;  /* out */
  size_t device_kind_size;  /* out */
} PJRT_DeviceDescription_Kind_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_DeviceDescription_Kind_Args, device_kind_size);

/* Device kind, e.g. "cpu". [slot 26, offset 248] */
typedef PJRT_Error *PJRT_DeviceDescription_Kind(PJRT_DeviceDescription_Kind_Args *args);

typedef struct PJRT_DeviceDescription_DebugString_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_DeviceDescription *device_description;
  const char *debug_string;  /* out */
  size_t debug_string_size;  /* out */
} PJRT_DeviceDescription_DebugString_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_DeviceDescription_DebugString_Args, debug_string_size);

/* [slot 27, offset 256] */
typedef PJRT_Error *PJRT_DeviceDescription_DebugString(
    PJRT_DeviceDescription_DebugString_Args *args);

typedef struct PJRT_DeviceDescription_ToString_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_DeviceDescription *device_description;
  const char *to_string;  /* out */
  size_t to_string_size;  /* out */
} PJRT_DeviceDescription_ToString_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_DeviceDescription_ToString_Args, to_string_size);

/* [slot 28, offset 264] */
typedef PJRT_Error *PJRT_DeviceDescription_ToString(PJRT_DeviceDescription_ToString_Args *args);

/* ============================================================================================ */
/* Devices                                                                                      */
/* ============================================================================================ */

typedef struct PJRT_Device_GetDescription_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Device *device;
  PJRT_DeviceDescription *device_description;  /* out */
} PJRT_Device_GetDescription_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Device_GetDescription_Args, device_description);

/* The static description of a device; owned by the device. [slot 29, offset 272] */
typedef PJRT_Error *PJRT_Device_GetDescription(PJRT_Device_GetDescription_Args *args);

typedef struct PJRT_Device_IsAddressable_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Device *device;
  bool is_addressable;  /* out */
} PJRT_Device_IsAddressable_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Device_IsAddressable_Args, is_addressable);

/* Whether this process can use the device. [slot 30, offset 280] */
typedef PJRT_Error *PJRT_Device_IsAddressable(PJRT_Device_IsAddressable_Args *args);

typedef struct PJRT_Device_LocalHardwareId_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Device *device;
  int local_hardware_id;  /* out */
} PJRT_Device_LocalHardwareId_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Device_LocalHardwareId_Args, local_hardware_id);

/* Process-local hardware id (-1 if not addressable). [slot 31, offset 288] */
typedef PJRT_Error *PJRT_Device_LocalHardwareId(PJRT_Device_LocalHardwareId_Args *args);

typedef struct PJRT_Device_AddressableMemories_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Device *device;
  PJRT_Memory *const *memories;  /* out */
  size_t num_memories;  /* out */
} PJRT_Device_AddressableMemories_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Device_AddressableMemories_Args, num_memories);

/* Memory spaces the device can address. [slot 32, offset 296] */
typedef PJRT_Error *PJRT_Device_AddressableMemories(PJRT_Device_AddressableMemories_Args *args);

typedef struct PJRT_Device_DefaultMemory_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Device *device;
  PJRT_Memory *memory;  /* out */
} PJRT_Device_DefaultMemory_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Device_DefaultMemory_Args, memory);

/* The memory space buffers go to by default (kind "device"). [slot 33, offset 304] */
typedef PJRT_Error *PJRT_Device_DefaultMemory(PJRT_Device_DefaultMemory_Args *args);

/*
 * 0.112 layout (185 bytes, ends with pool_bytes_is_set). Each *_is_set flag says whether
 * the preceding value is meaningful.
 */
typedef struct PJRT_Device_MemoryStats_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Device *device;
  int64_t bytes_in_use;  /* out */
  int64_t peak_bytes_in_use;  /* out */
  bool peak_bytes_in_use_is_set;  /* out */
  int64_t num_allocs;  /* out */
  bool num_allocs_is_set;  /* out */
  int64_t largest_alloc_size;  /* out */
  bool largest_alloc_size_is_set;  /* out */
  int64_t bytes_limit;  /* out */
  bool bytes_limit_is_set;  /* out */
  int64_t bytes_reserved;  /* out */
  bool bytes_reserved_is_set;  /* out */
  int64_t peak_bytes_reserved;  /* out */
  bool peak_bytes_reserved_is_set;  /* out */
  int64_t bytes_reservable_limit;  /* out */
  bool bytes_reservable_limit_is_set;  /* out */
  int64_t largest_free_block_bytes;  /* out */
  bool largest_free_block_bytes_is_set;  /* out */
  int64_t pool_bytes;  /* out */
  bool pool_bytes_is_set;  /* out */
  int64_t peak_pool_bytes;  /* out */
  bool peak_pool_bytes_is_set;  /* out */
} PJRT_Device_MemoryStats_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Device_MemoryStats_Args, peak_pool_bytes_is_set);

/* Allocator statistics; UNIMPLEMENTED is acceptable. [slot 34, offset 312] */
typedef PJRT_Error *PJRT_Device_MemoryStats(PJRT_Device_MemoryStats_Args *args);

typedef struct PJRT_Device_ClearMemoryStats_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Device *device;
} PJRT_Device_ClearMemoryStats_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Device_ClearMemoryStats_Args, device);

/* [slot 135, offset 1120] */
typedef PJRT_Error *PJRT_Device_ClearMemoryStats(PJRT_Device_ClearMemoryStats_Args *args);

typedef struct PJRT_Device_PoisonExecution_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Device *device;
  int32_t launch_id;
  PJRT_Error_Code error_code;
  const char *error_message;
  size_t error_message_size;
  bool poisoned;  /* out */
  const PJRT_NamedValue *payload;
  size_t num_payload;
} PJRT_Device_PoisonExecution_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Device_PoisonExecution_Args, num_payload);

/* [slot 121, offset 1008] */
typedef PJRT_Error *PJRT_Device_PoisonExecution(PJRT_Device_PoisonExecution_Args *args);
typedef struct PJRT_Device_Attributes PJRT_Device_Attributes;

typedef struct PJRT_Device_GetAttributes_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Device *device;
  const PJRT_NamedValue *attributes;  /* out */
  size_t num_attributes;  /* out */
  PJRT_Device_Attributes *device_attributes;  /* out */
  void (*attributes_deleter)(PJRT_Device_Attributes *device_attributes);  /* out */
} PJRT_Device_GetAttributes_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Device_GetAttributes_Args, attributes_deleter);

/* [slot 128, offset 1064] */
typedef PJRT_Error *PJRT_Device_GetAttributes(PJRT_Device_GetAttributes_Args *args);

/* ============================================================================================ */
/* Async tracking events and memory spaces                                                      */
/* ============================================================================================ */
typedef struct PJRT_AsyncTrackingEvent PJRT_AsyncTrackingEvent;

typedef struct PJRT_Device_CreateAsyncTrackingEvent_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Device *device;
  const char *description;
  size_t description_size;
  PJRT_AsyncTrackingEvent *event;  /* out */
} PJRT_Device_CreateAsyncTrackingEvent_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Device_CreateAsyncTrackingEvent_Args, event);

/* [slot 122, offset 1016] */
typedef PJRT_Error *PJRT_Device_CreateAsyncTrackingEvent(
    PJRT_Device_CreateAsyncTrackingEvent_Args *args);

typedef struct PJRT_AsyncTrackingEvent_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_AsyncTrackingEvent *event;
} PJRT_AsyncTrackingEvent_Destroy_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_AsyncTrackingEvent_Destroy_Args, event);

/* [slot 123, offset 1024] */
typedef PJRT_Error *PJRT_AsyncTrackingEvent_Destroy(PJRT_AsyncTrackingEvent_Destroy_Args *args);

typedef struct PJRT_Memory_Id_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Memory *memory;
  int id;  /* out */
} PJRT_Memory_Id_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Memory_Id_Args, id);

/* [slot 35, offset 320] */
typedef PJRT_Error *PJRT_Memory_Id(PJRT_Memory_Id_Args *args);

typedef struct PJRT_Memory_Kind_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Memory *memory;
  const char *kind;  /* out */
  size_t kind_size;  /* out */
} PJRT_Memory_Kind_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Memory_Kind_Args, kind_size);

/* Memory kind string such as "device" or "pinned_host". [slot 36, offset 328] */
typedef PJRT_Error *PJRT_Memory_Kind(PJRT_Memory_Kind_Args *args);

typedef struct PJRT_Memory_Kind_Id_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Memory *memory;
  int kind_id;  /* out */
} PJRT_Memory_Kind_Id_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Memory_Kind_Id_Args, kind_id);

/* Small integer identifying the memory kind within the platform. [slot 97, offset 816] */
typedef PJRT_Error *PJRT_Memory_Kind_Id(PJRT_Memory_Kind_Id_Args *args);

typedef struct PJRT_Memory_DebugString_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Memory *memory;
  const char *debug_string;  /* out */
  size_t debug_string_size;  /* out */
} PJRT_Memory_DebugString_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Memory_DebugString_Args, debug_string_size);

/* [slot 37, offset 336] */
typedef PJRT_Error *PJRT_Memory_DebugString(PJRT_Memory_DebugString_Args *args);

typedef struct PJRT_Memory_ToString_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Memory *memory;
  const char *to_string;  /* out */
  size_t to_string_size;  /* out */
} PJRT_Memory_ToString_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Memory_ToString_Args, to_string_size);

/* [slot 38, offset 344] */
typedef PJRT_Error *PJRT_Memory_ToString(PJRT_Memory_ToString_Args *args);

typedef struct PJRT_Memory_AddressableByDevices_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Memory *memory;
  PJRT_Device *const *devices;  /* out */
  size_t num_devices;  /* out */
} PJRT_Memory_AddressableByDevices_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Memory_AddressableByDevices_Args, num_devices);

/* [slot 39, offset 352] */
typedef PJRT_Error *PJRT_Memory_AddressableByDevices(PJRT_Memory_AddressableByDevices_Args *args);

/* ============================================================================================ */
/* Execute contexts (per-execution user data, used by the FFI extension)                        */
/* ============================================================================================ */
typedef struct PJRT_ExecuteContext PJRT_ExecuteContext;

typedef struct PJRT_ExecuteContext_Create_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_ExecuteContext *context;  /* out */
} PJRT_ExecuteContext_Create_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_ExecuteContext_Create_Args, context);

/* [slot 98, offset 824] */
typedef PJRT_Error *PJRT_ExecuteContext_Create(PJRT_ExecuteContext_Create_Args *args);

typedef struct PJRT_ExecuteContext_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_ExecuteContext *context;
} PJRT_ExecuteContext_Destroy_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_ExecuteContext_Destroy_Args, context);

/* [slot 99, offset 832] */
typedef PJRT_Error *PJRT_ExecuteContext_Destroy(PJRT_ExecuteContext_Destroy_Args *args);

/* ============================================================================================ */
/* Executables and loaded executables                                                           */
/* ============================================================================================ */

/*
 * PJRT_Executable is the compiled program; PJRT_LoadedExecutable
 * is that program bound to devices of one client, ready to run.
 */

typedef struct PJRT_Executable_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Executable *executable;
} PJRT_Executable_Destroy_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Executable_Destroy_Args, executable);

/* [slot 40, offset 360] */
typedef PJRT_Error *PJRT_Executable_Destroy(PJRT_Executable_Destroy_Args *args);

typedef struct PJRT_LoadedExecutable_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_LoadedExecutable *executable;
} PJRT_LoadedExecutable_Destroy_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_LoadedExecutable_Destroy_Args, executable);

/* [slot 50, offset 440] */
typedef PJRT_Error *PJRT_LoadedExecutable_Destroy(PJRT_LoadedExecutable_Destroy_Args *args);

typedef struct PJRT_LoadedExecutable_GetExecutable_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_LoadedExecutable *loaded_executable;
  PJRT_Executable *executable;  /* out */
} PJRT_LoadedExecutable_GetExecutable_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_LoadedExecutable_GetExecutable_Args, executable);

/* [slot 51, offset 448] */
typedef PJRT_Error *PJRT_LoadedExecutable_GetExecutable(
    PJRT_LoadedExecutable_GetExecutable_Args *args);
typedef struct PJRT_DeviceAssignmentSerialized PJRT_DeviceAssignmentSerialized;

typedef struct PJRT_LoadedExecutable_GetDeviceAssignment_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_LoadedExecutable *executable;
  const char *serialized_bytes;  /* out */
  size_t serialized_bytes_size;  /* out */
  PJRT_DeviceAssignmentSerialized *serialized_device_assignment;
  void (*serialized_device_assignment_deleter)(PJRT_DeviceAssignmentSerialized *da);  /* out */
} PJRT_LoadedExecutable_GetDeviceAssignment_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(
    PJRT_LoadedExecutable_GetDeviceAssignment_Args,
    serialized_device_assignment_deleter);

/* Serialized xla.DeviceAssignmentProto; an empty one means "portable". [slot 117, offset 976] */
typedef PJRT_Error *PJRT_LoadedExecutable_GetDeviceAssignment(
    PJRT_LoadedExecutable_GetDeviceAssignment_Args *args);

typedef struct PJRT_Executable_Name_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Executable *executable;
  const char *executable_name;  /* out */
  size_t executable_name_size;  /* out */
} PJRT_Executable_Name_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Executable_Name_Args, executable_name_size);

/* [slot 41, offset 368] */
typedef PJRT_Error *PJRT_Executable_Name(PJRT_Executable_Name_Args *args);

typedef struct PJRT_Executable_NumReplicas_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Executable *executable;
  size_t num_replicas;  /* out */
} PJRT_Executable_NumReplicas_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Executable_NumReplicas_Args, num_replicas);

/* [slot 42, offset 376] */
typedef PJRT_Error *PJRT_Executable_NumReplicas(PJRT_Executable_NumReplicas_Args *args);

typedef struct PJRT_Executable_NumPartitions_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Executable *executable;
  size_t num_partitions;  /* out */
} PJRT_Executable_NumPartitions_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Executable_NumPartitions_Args, num_partitions);

/* [slot 43, offset 384] */
typedef PJRT_Error *PJRT_Executable_NumPartitions(PJRT_Executable_NumPartitions_Args *args);

typedef struct PJRT_LogicalDeviceIds {
  int replica;
  int partition;
} PJRT_LogicalDeviceIds;

typedef struct PJRT_LoadedExecutable_AddressableDevices_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_LoadedExecutable *executable;
  PJRT_Device *const *addressable_devices;  /* out */
  size_t num_addressable_devices;  /* out */
} PJRT_LoadedExecutable_AddressableDevices_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(
    PJRT_LoadedExecutable_AddressableDevices_Args,
    num_addressable_devices);

/* [slot 52, offset 456] */
typedef PJRT_Error *PJRT_LoadedExecutable_AddressableDevices(
    PJRT_LoadedExecutable_AddressableDevices_Args *args);

typedef struct PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_LoadedExecutable *executable;
  PJRT_LogicalDeviceIds *addressable_device_logical_ids;  /* out */
  size_t num_addressable_device_logical_ids;  /* out */
} PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(
    PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args,
    num_addressable_device_logical_ids);

/* [slot 130, offset 1080] */
typedef PJRT_Error *PJRT_LoadedExecutable_AddressableDeviceLogicalIds(
    PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args *args);

typedef struct PJRT_Executable_OptimizedProgram_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Executable *executable;
  PJRT_Program *program;  /* out */
} PJRT_Executable_OptimizedProgram_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Executable_OptimizedProgram_Args, program);

/*
 * Called first with program->code NULL to learn code_size, then again with a buffer of
 * that size. [slot 48, offset 424]
 */
typedef PJRT_Error *PJRT_Executable_OptimizedProgram(PJRT_Executable_OptimizedProgram_Args *args);

typedef struct PJRT_LoadedExecutable_Delete_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_LoadedExecutable *executable;
} PJRT_LoadedExecutable_Delete_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_LoadedExecutable_Delete_Args, executable);

/* [slot 53, offset 464] */
typedef PJRT_Error *PJRT_LoadedExecutable_Delete(PJRT_LoadedExecutable_Delete_Args *args);

typedef struct PJRT_LoadedExecutable_IsDeleted_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_LoadedExecutable *executable;
  bool is_deleted;  /* out */
} PJRT_LoadedExecutable_IsDeleted_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_LoadedExecutable_IsDeleted_Args, is_deleted);

/* [slot 54, offset 472] */
typedef PJRT_Error *PJRT_LoadedExecutable_IsDeleted(PJRT_LoadedExecutable_IsDeleted_Args *args);

/* A block of bytes handed between plugin and caller together with the function that frees it. */
typedef struct PJRT_Chunk {
  void *data;
  size_t size;
  void (*deleter)(void *data, void *deleter_arg);
  void *deleter_arg;
} PJRT_Chunk;
typedef struct PJRT_CopyToDeviceStream PJRT_CopyToDeviceStream;

/* Host send callback: receives one chunk of a device-to-host transfer. */
typedef PJRT_Error *(*PJRT_SendCallback)(
    PJRT_Chunk *chunk,
    PJRT_CallbackError *callback_error,
    size_t total_size_in_bytes,
    bool done,
    void *user_arg);

/* Host receive callback: supplies data for a host-to-device transfer through a stream. */
typedef void (*PJRT_RecvCallback)(PJRT_CopyToDeviceStream *stream, void *user_arg);

typedef struct PJRT_SendCallbackInfo {
  int64_t channel_id;
  void *user_arg;
  PJRT_SendCallback send_callback;
} PJRT_SendCallbackInfo;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_SendCallbackInfo, send_callback);

typedef struct PJRT_RecvCallbackInfo {
  int64_t channel_id;
  void *user_arg;
  PJRT_RecvCallback recv_callback;
} PJRT_RecvCallbackInfo;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_RecvCallbackInfo, recv_callback);

typedef void (*PJRT_HloOutputCallback)(
    int64_t replica_id,
    int64_t partition_id,
    const void *data,
    const int64_t *shape_dims,
    size_t shape_num_dims,
    PJRT_Buffer_Type shape_element_type,
    int64_t operand_index,
    void *user_arg);

typedef struct PJRT_HloOutputCallbackInfo {
  void *user_arg;
  PJRT_HloOutputCallback callback;
  int64_t callback_id;
  size_t num_operands;
} PJRT_HloOutputCallbackInfo;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_HloOutputCallbackInfo, num_operands);
typedef struct PJRT_MultiSlice_Config PJRT_MultiSlice_Config;

/*
 * Layout of minor version 0.112: 144 bytes on LP64, ending with num_hlo_output_callbacks.
 * Newer callers pass longer structs: read only fields that end within struct_size.
 */
typedef struct PJRT_ExecuteOptions {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_SendCallbackInfo **send_callbacks;
  PJRT_RecvCallbackInfo **recv_callbacks;
  size_t num_send_ops;
  size_t num_recv_ops;
  int launch_id;
  const int64_t *non_donatable_input_indices;
  size_t num_non_donatable_input_indices;
  PJRT_ExecuteContext *context;
  const char *call_location;
  size_t num_tasks;
  int *task_ids;
  int64_t *incarnation_ids;
  PJRT_MultiSlice_Config *multi_slice_config;
  bool use_major_to_minor_data_layout_for_callbacks;
  PJRT_HloOutputCallbackInfo *hlo_output_callbacks;
  size_t num_hlo_output_callbacks;
} PJRT_ExecuteOptions;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_ExecuteOptions, num_hlo_output_callbacks);

/*
 * argument_lists[device][argument] in; output_lists[device][output] filled by the plugin
 * (the caller allocates the arrays). device_complete_events, when non-NULL, receives one event
 * per device.
 */
typedef struct PJRT_LoadedExecutable_Execute_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_LoadedExecutable *executable;
  PJRT_ExecuteOptions *options;
  PJRT_Buffer *const *const *argument_lists;
  size_t num_devices;
  size_t num_args;
  PJRT_Buffer **const *output_lists;
  PJRT_Event **device_complete_events;
  PJRT_Device *execute_device;
} PJRT_LoadedExecutable_Execute_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_LoadedExecutable_Execute_Args, execute_device);

/* Runs the executable once per listed device. [slot 55, offset 480] */
typedef PJRT_Error *PJRT_LoadedExecutable_Execute(PJRT_LoadedExecutable_Execute_Args *args);

typedef struct PJRT_Executable_NumOutputs_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Executable *executable;
  size_t num_outputs;  /* out */
} PJRT_Executable_NumOutputs_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Executable_NumOutputs_Args, num_outputs);

/* Number of outputs per device, used by callers to size output lists. [slot 44, offset 392] */
typedef PJRT_Error *PJRT_Executable_NumOutputs(PJRT_Executable_NumOutputs_Args *args);

typedef struct PJRT_Executable_SizeOfGeneratedCodeInBytes_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Executable *executable;
  int64_t size_in_bytes;  /* out */
} PJRT_Executable_SizeOfGeneratedCodeInBytes_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Executable_SizeOfGeneratedCodeInBytes_Args, size_in_bytes);

/* [slot 45, offset 400] */
typedef PJRT_Error *PJRT_Executable_SizeOfGeneratedCodeInBytes(
    PJRT_Executable_SizeOfGeneratedCodeInBytes_Args *args);

typedef struct PJRT_Executable_Fingerprint_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Executable *executable;
  const char *executable_fingerprint;  /* out */
  size_t executable_fingerprint_size;  /* out */
} PJRT_Executable_Fingerprint_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Executable_Fingerprint_Args, executable_fingerprint_size);

/* [slot 94, offset 792] */
typedef PJRT_Error *PJRT_Executable_Fingerprint(PJRT_Executable_Fingerprint_Args *args);

typedef struct PJRT_Executable_GetCostAnalysis_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Executable *executable;
  size_t num_properties;  /* out */
  const PJRT_NamedValue *properties;  /* out */
} PJRT_Executable_GetCostAnalysis_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Executable_GetCostAnalysis_Args, properties);

/* [slot 46, offset 408] */
typedef PJRT_Error *PJRT_Executable_GetCostAnalysis(PJRT_Executable_GetCostAnalysis_Args *args);

typedef struct PJRT_Executable_GetCompiledMemoryStats_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Executable *executable;
  int64_t generated_code_size_in_bytes;  /* out */
  int64_t argument_size_in_bytes;  /* out */
  int64_t output_size_in_bytes;  /* out */
  int64_t alias_size_in_bytes;  /* out */
  int64_t temp_size_in_bytes;  /* out */
  int64_t host_generated_code_size_in_bytes;  /* out */
  int64_t host_argument_size_in_bytes;  /* out */
  int64_t host_output_size_in_bytes;  /* out */
  int64_t host_alias_size_in_bytes;  /* out */
  int64_t host_temp_size_in_bytes;  /* out */
  int64_t peak_memory_in_bytes;  /* out */
  int64_t total_size_in_bytes;  /* out */
  int64_t total_allocation_bytes;  /* out */
  int64_t indefinite_allocations;  /* out */
  int64_t peak_unpadded_heap_bytes;  /* out */
} PJRT_Executable_GetCompiledMemoryStats_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(
    PJRT_Executable_GetCompiledMemoryStats_Args,
    peak_unpadded_heap_bytes);

/* [slot 96, offset 808] */
typedef PJRT_Error *PJRT_Executable_GetCompiledMemoryStats(
    PJRT_Executable_GetCompiledMemoryStats_Args *args);

typedef struct PJRT_Executable_OutputElementTypes_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Executable *executable;
  PJRT_Buffer_Type *output_types;  /* out */
  size_t num_output_types;  /* out */
} PJRT_Executable_OutputElementTypes_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Executable_OutputElementTypes_Args, num_output_types);

/* [slot 90, offset 760] */
typedef PJRT_Error *PJRT_Executable_OutputElementTypes(
    PJRT_Executable_OutputElementTypes_Args *args);

typedef struct PJRT_Executable_OutputDimensions_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Executable *executable;
  size_t num_outputs;
  const int64_t *dims;  /* out */
  const size_t *dim_sizes;  /* out */
} PJRT_Executable_OutputDimensions_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Executable_OutputDimensions_Args, dim_sizes);

/* [slot 91, offset 768] */
typedef PJRT_Error *PJRT_Executable_OutputDimensions(PJRT_Executable_OutputDimensions_Args *args);

typedef struct PJRT_Executable_ParameterMemoryKinds_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Executable *executable;
  size_t num_parameters;
  const char *const *memory_kinds;  /* out */
  const size_t *memory_kind_sizes;  /* out */
} PJRT_Executable_ParameterMemoryKinds_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Executable_ParameterMemoryKinds_Args, memory_kind_sizes);

/* [slot 134, offset 1112] */
typedef PJRT_Error *PJRT_Executable_ParameterMemoryKinds(
    PJRT_Executable_ParameterMemoryKinds_Args *args);

typedef struct PJRT_Executable_OutputMemoryKinds_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Executable *executable;
  size_t num_outputs;
  const char *const *memory_kinds;  /* out */
  const size_t *memory_kind_sizes;  /* out */
} PJRT_Executable_OutputMemoryKinds_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Executable_OutputMemoryKinds_Args, memory_kind_sizes);

/* [slot 47, offset 416] */
typedef PJRT_Error *PJRT_Executable_OutputMemoryKinds(PJRT_Executable_OutputMemoryKinds_Args *args);
typedef struct PJRT_SerializedExecutable PJRT_SerializedExecutable;
typedef struct PJRT_SerializedCompileOptions PJRT_SerializedCompileOptions;

typedef struct PJRT_Executable_Serialize_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const PJRT_Executable *executable;
  const char *serialized_bytes;  /* out */
  size_t serialized_bytes_size;  /* out */
  PJRT_SerializedExecutable *serialized_executable;
  void (*serialized_executable_deleter)(PJRT_SerializedExecutable *exec);  /* out */
} PJRT_Executable_Serialize_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Executable_Serialize_Args, serialized_executable_deleter);

/* [slot 49, offset 432] */
typedef PJRT_Error *PJRT_Executable_Serialize(PJRT_Executable_Serialize_Args *args);

typedef struct PJRT_Executable_GetCompileOptions_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Executable *executable;
  const char *serialized_bytes;  /* out */
  size_t serialized_bytes_size;  /* out */
  PJRT_SerializedCompileOptions *serialized_compile_options;
  void (*serialized_compile_options_deleter)(PJRT_SerializedCompileOptions *options);  /* out */
} PJRT_Executable_GetCompileOptions_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(
    PJRT_Executable_GetCompileOptions_Args,
    serialized_compile_options_deleter);

/* [slot 124, offset 1032] */
typedef PJRT_Error *PJRT_Executable_GetCompileOptions(PJRT_Executable_GetCompileOptions_Args *args);

typedef struct PJRT_LoadOptions {
  size_t struct_size;
  const int32_t *computation_origin;
  size_t computation_origin_size;
  PJRT_MultiSlice_Config *multi_slice_config;
} PJRT_LoadOptions;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_LoadOptions, multi_slice_config);

typedef struct PJRT_Executable_DeserializeAndLoad_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  const char *serialized_executable;
  size_t serialized_executable_size;
  PJRT_LoadedExecutable *loaded_executable;  /* out */
  const char *overridden_serialized_compile_options;
  size_t overridden_serialized_compile_options_size;
  PJRT_LoadOptions *load_options;
} PJRT_Executable_DeserializeAndLoad_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Executable_DeserializeAndLoad_Args, load_options);

/* [slot 56, offset 488] */
typedef PJRT_Error *PJRT_Executable_DeserializeAndLoad(
    PJRT_Executable_DeserializeAndLoad_Args *args);

typedef struct PJRT_LoadedExecutable_Fingerprint_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_LoadedExecutable *executable;
  const char *executable_fingerprint;  /* out */
  size_t executable_fingerprint_size;  /* out */
} PJRT_LoadedExecutable_Fingerprint_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_LoadedExecutable_Fingerprint_Args, executable_fingerprint_size);

/* [slot 57, offset 496] */
typedef PJRT_Error *PJRT_LoadedExecutable_Fingerprint(PJRT_LoadedExecutable_Fingerprint_Args *args);

/* ============================================================================================ */
/* Buffers (arrays resident in a memory space)                                                  */
/* ============================================================================================ */

typedef struct PJRT_Buffer_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
} PJRT_Buffer_Destroy_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_Destroy_Args, buffer);

/* [slot 58, offset 504] */
typedef PJRT_Error *PJRT_Buffer_Destroy(PJRT_Buffer_Destroy_Args *args);

typedef struct PJRT_Buffer_ElementType_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
  PJRT_Buffer_Type type;  /* out */
} PJRT_Buffer_ElementType_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_ElementType_Args, type);

/* [slot 59, offset 512] */
typedef PJRT_Error *PJRT_Buffer_ElementType(PJRT_Buffer_ElementType_Args *args);

typedef struct PJRT_Buffer_Dimensions_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
  const int64_t *dims;  /* out */
  size_t num_dims;  /* out */
} PJRT_Buffer_Dimensions_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_Dimensions_Args, num_dims);

/* [slot 60, offset 520] */
typedef PJRT_Error *PJRT_Buffer_Dimensions(PJRT_Buffer_Dimensions_Args *args);

typedef struct PJRT_Buffer_UnpaddedDimensions_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
  const int64_t *unpadded_dims;  /* out */
  size_t num_dims;  /* out */
} PJRT_Buffer_UnpaddedDimensions_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_UnpaddedDimensions_Args, num_dims);

/* [slot 61, offset 528] */
typedef PJRT_Error *PJRT_Buffer_UnpaddedDimensions(PJRT_Buffer_UnpaddedDimensions_Args *args);

typedef struct PJRT_Buffer_DynamicDimensionIndices_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
  const size_t *dynamic_dim_indices;  /* out */
  size_t num_dynamic_dims;  /* out */
} PJRT_Buffer_DynamicDimensionIndices_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_DynamicDimensionIndices_Args, num_dynamic_dims);

/* [slot 62, offset 536] */
typedef PJRT_Error *PJRT_Buffer_DynamicDimensionIndices(
    PJRT_Buffer_DynamicDimensionIndices_Args *args);

typedef struct PJRT_Buffer_GetMemoryLayout_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
  PJRT_Buffer_MemoryLayout layout;  /* out */
} PJRT_Buffer_GetMemoryLayout_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_GetMemoryLayout_Args, layout);

/* [slot 63, offset 544] */
typedef PJRT_Error *PJRT_Buffer_GetMemoryLayout(PJRT_Buffer_GetMemoryLayout_Args *args);

/*
 * dst NULL asks for the required size in dst_size. host_layout NULL means dense row-major.
 * The event is always returned, even for a synchronous copy.
 */
typedef struct PJRT_Buffer_ToHostBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *src;
  PJRT_Buffer_MemoryLayout *host_layout;
  void *dst;
  size_t dst_size;
  PJRT_Event *event;  /* out */
} PJRT_Buffer_ToHostBuffer_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_ToHostBuffer_Args, event);

/* [slot 70, offset 600] */
typedef PJRT_Error *PJRT_Buffer_ToHostBuffer(PJRT_Buffer_ToHostBuffer_Args *args);

typedef struct PJRT_Buffer_OnDeviceSizeInBytes_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
  size_t on_device_size_in_bytes;  /* out */
} PJRT_Buffer_OnDeviceSizeInBytes_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_OnDeviceSizeInBytes_Args, on_device_size_in_bytes);

/* [slot 64, offset 552] */
typedef PJRT_Error *PJRT_Buffer_OnDeviceSizeInBytes(PJRT_Buffer_OnDeviceSizeInBytes_Args *args);

typedef struct PJRT_Buffer_Delete_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
} PJRT_Buffer_Delete_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_Delete_Args, buffer);

/*
 * Releases the buffer memory early; the handle stays valid until PJRT_Buffer_Destroy.
 * [slot 67, offset 576]
 */
typedef PJRT_Error *PJRT_Buffer_Delete(PJRT_Buffer_Delete_Args *args);

typedef struct PJRT_Buffer_IsDeleted_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
  bool is_deleted;  /* out */
} PJRT_Buffer_IsDeleted_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_IsDeleted_Args, is_deleted);

/*
 * True after PJRT_Buffer_Delete, or after the buffer was donated to an execution.
 * [slot 68, offset 584]
 */
typedef PJRT_Error *PJRT_Buffer_IsDeleted(PJRT_Buffer_IsDeleted_Args *args);

typedef struct PJRT_Buffer_CopyRawToHost_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
  void *dst;
  int64_t offset;
  int64_t transfer_size;
  PJRT_Event *event;  /* out */
} PJRT_Buffer_CopyRawToHost_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_CopyRawToHost_Args, event);

/* [slot 100, offset 840] */
typedef PJRT_Error *PJRT_Buffer_CopyRawToHost(PJRT_Buffer_CopyRawToHost_Args *args);

typedef struct PJRT_Buffer_CopyRawToHostFuture_Callback_Args {
  size_t struct_size;
  void *callback_data;
  PJRT_Error_Code error_code;
  const char *error_message;
  size_t error_message_size;
  void *dst;
} PJRT_Buffer_CopyRawToHostFuture_Callback_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_CopyRawToHostFuture_Callback_Args, dst);

typedef struct PJRT_Buffer_CopyRawToHostFuture_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
  int64_t offset;
  int64_t transfer_size;
  PJRT_Event *event;  /* out */
  void *callback_data;  /* out */
  void (*future_ready_callback)(PJRT_Buffer_CopyRawToHostFuture_Callback_Args *args);  /* out */
} PJRT_Buffer_CopyRawToHostFuture_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_CopyRawToHostFuture_Args, future_ready_callback);

/* [slot 120, offset 1000] */
typedef PJRT_Error *PJRT_Buffer_CopyRawToHostFuture(PJRT_Buffer_CopyRawToHostFuture_Args *args);

typedef struct PJRT_Buffer_CopyToDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
  PJRT_Device *dst_device;
  PJRT_Buffer *dst_buffer;  /* out */
} PJRT_Buffer_CopyToDevice_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_CopyToDevice_Args, dst_buffer);

/* [slot 69, offset 592] */
typedef PJRT_Error *PJRT_Buffer_CopyToDevice(PJRT_Buffer_CopyToDevice_Args *args);

typedef struct PJRT_Buffer_CopyToMemory_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
  PJRT_Memory *dst_memory;
  PJRT_Buffer *dst_buffer;  /* out */
} PJRT_Buffer_CopyToMemory_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_CopyToMemory_Args, dst_buffer);

/* [slot 92, offset 776] */
typedef PJRT_Error *PJRT_Buffer_CopyToMemory(PJRT_Buffer_CopyToMemory_Args *args);

typedef struct PJRT_Buffer_Bitcast_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
  PJRT_Buffer_Type element_type;
  const int64_t *dims;
  size_t num_dims;
  PJRT_Buffer_MemoryLayout *device_layout;
  PJRT_Buffer *out_buffer;  /* out */
} PJRT_Buffer_Bitcast_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_Bitcast_Args, out_buffer);

/* [slot 131, offset 1088] */
typedef PJRT_Error *PJRT_Buffer_Bitcast(PJRT_Buffer_Bitcast_Args *args);

typedef struct PJRT_Buffer_IsOnCpu_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
  bool is_on_cpu;  /* out */
} PJRT_Buffer_IsOnCpu_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_IsOnCpu_Args, is_on_cpu);

/*
 * True lets callers read the buffer in place through OpaqueDeviceMemoryDataPointer.
 * [slot 71, offset 608]
 */
typedef PJRT_Error *PJRT_Buffer_IsOnCpu(PJRT_Buffer_IsOnCpu_Args *args);

typedef struct PJRT_Buffer_Device_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
  PJRT_Device *device;  /* out */
} PJRT_Buffer_Device_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_Device_Args, device);

/* [slot 65, offset 560] */
typedef PJRT_Error *PJRT_Buffer_Device(PJRT_Buffer_Device_Args *args);

typedef struct PJRT_Buffer_Memory_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
  PJRT_Memory *memory;  /* out */
} PJRT_Buffer_Memory_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_Memory_Args, memory);

/* [slot 66, offset 568] */
typedef PJRT_Error *PJRT_Buffer_Memory(PJRT_Buffer_Memory_Args *args);

typedef struct PJRT_Buffer_ReadyEvent_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
  PJRT_Event *event;  /* out */
} PJRT_Buffer_ReadyEvent_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_ReadyEvent_Args, event);

/* An event that completes when the buffer contents are available. [slot 72, offset 616] */
typedef PJRT_Error *PJRT_Buffer_ReadyEvent(PJRT_Buffer_ReadyEvent_Args *args);

typedef struct PJRT_Buffer_UnsafePointer_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
  uintptr_t buffer_pointer;  /* out */
} PJRT_Buffer_UnsafePointer_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_UnsafePointer_Args, buffer_pointer);

/* [slot 73, offset 624] */
typedef PJRT_Error *PJRT_Buffer_UnsafePointer(PJRT_Buffer_UnsafePointer_Args *args);

typedef struct PJRT_Buffer_IncreaseExternalReferenceCount_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
} PJRT_Buffer_IncreaseExternalReferenceCount_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_IncreaseExternalReferenceCount_Args, buffer);

/* [slot 74, offset 632] */
typedef PJRT_Error *PJRT_Buffer_IncreaseExternalReferenceCount(
    PJRT_Buffer_IncreaseExternalReferenceCount_Args *args);

typedef struct PJRT_Buffer_DecreaseExternalReferenceCount_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
} PJRT_Buffer_DecreaseExternalReferenceCount_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_DecreaseExternalReferenceCount_Args, buffer);

/* [slot 75, offset 640] */
typedef PJRT_Error *PJRT_Buffer_DecreaseExternalReferenceCount(
    PJRT_Buffer_DecreaseExternalReferenceCount_Args *args);

typedef struct PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
  void *device_memory_ptr;  /* out */
} PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args, device_memory_ptr);

/* [slot 76, offset 648] */
typedef PJRT_Error *PJRT_Buffer_OpaqueDeviceMemoryDataPointer(
    PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args *args);

typedef struct PJRT_Buffer_DonateWithControlDependency_Callback_Args {
  size_t struct_size;
  void *callback_data;
  PJRT_Error_Code error_code;
  const char *error_message;
  size_t error_message_size;
} PJRT_Buffer_DonateWithControlDependency_Callback_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(
    PJRT_Buffer_DonateWithControlDependency_Callback_Args,
    error_message_size);

typedef struct PJRT_Buffer_DonateWithControlDependency_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
  void *callback_data;  /* out */
  void (*dependency_ready_callback)(PJRT_Buffer_DonateWithControlDependency_Callback_Args *args);  /* out */
  PJRT_Buffer *out_buffer;  /* out */
} PJRT_Buffer_DonateWithControlDependency_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Buffer_DonateWithControlDependency_Args, out_buffer);

/* [slot 125, offset 1040] */
typedef PJRT_Error *PJRT_Buffer_DonateWithControlDependency(
    PJRT_Buffer_DonateWithControlDependency_Args *args);

/* ============================================================================================ */
/* Copy-to-device streams (receive side of host callbacks) and topologies                       */
/* ============================================================================================ */

typedef struct PJRT_CopyToDeviceStream_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_CopyToDeviceStream *stream;
} PJRT_CopyToDeviceStream_Destroy_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_CopyToDeviceStream_Destroy_Args, stream);

/* [slot 77, offset 656] */
typedef PJRT_Error *PJRT_CopyToDeviceStream_Destroy(PJRT_CopyToDeviceStream_Destroy_Args *args);

typedef struct PJRT_CopyToDeviceStream_AddChunk_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_CopyToDeviceStream *stream;
  PJRT_Chunk *chunk;
  PJRT_Event *transfer_complete;  /* out */
} PJRT_CopyToDeviceStream_AddChunk_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_CopyToDeviceStream_AddChunk_Args, transfer_complete);

/* [slot 78, offset 664] */
typedef PJRT_Error *PJRT_CopyToDeviceStream_AddChunk(PJRT_CopyToDeviceStream_AddChunk_Args *args);

typedef struct PJRT_CopyToDeviceStream_TotalBytes_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_CopyToDeviceStream *stream;
  int64_t total_bytes;  /* out */
} PJRT_CopyToDeviceStream_TotalBytes_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_CopyToDeviceStream_TotalBytes_Args, total_bytes);

/* [slot 79, offset 672] */
typedef PJRT_Error *PJRT_CopyToDeviceStream_TotalBytes(
    PJRT_CopyToDeviceStream_TotalBytes_Args *args);

typedef struct PJRT_CopyToDeviceStream_GranuleSize_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_CopyToDeviceStream *stream;
  int64_t granule_size_in_bytes;  /* out */
} PJRT_CopyToDeviceStream_GranuleSize_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_CopyToDeviceStream_GranuleSize_Args, granule_size_in_bytes);

/* [slot 80, offset 680] */
typedef PJRT_Error *PJRT_CopyToDeviceStream_GranuleSize(
    PJRT_CopyToDeviceStream_GranuleSize_Args *args);

typedef struct PJRT_CopyToDeviceStream_CurrentBytes_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_CopyToDeviceStream *stream;
  int64_t current_bytes;  /* out */
} PJRT_CopyToDeviceStream_CurrentBytes_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_CopyToDeviceStream_CurrentBytes_Args, current_bytes);

/* [slot 81, offset 688] */
typedef PJRT_Error *PJRT_CopyToDeviceStream_CurrentBytes(
    PJRT_CopyToDeviceStream_CurrentBytes_Args *args);

/* ============================================================================================ */
/* Topology descriptions and ahead-of-time compilation                                          */
/* ============================================================================================ */

typedef struct PJRT_TopologyDescription_Create_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const char *topology_name;
  size_t topology_name_size;
  const PJRT_NamedValue *create_options;
  size_t num_options;
  PJRT_TopologyDescription *topology;  /* out */
} PJRT_TopologyDescription_Create_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_TopologyDescription_Create_Args, topology);

/* [slot 82, offset 696] */
typedef PJRT_Error *PJRT_TopologyDescription_Create(PJRT_TopologyDescription_Create_Args *args);

typedef struct PJRT_TopologyDescription_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_TopologyDescription *topology;
} PJRT_TopologyDescription_Destroy_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_TopologyDescription_Destroy_Args, topology);

/* [slot 83, offset 704] */
typedef PJRT_Error *PJRT_TopologyDescription_Destroy(PJRT_TopologyDescription_Destroy_Args *args);

typedef struct PJRT_TopologyDescription_PlatformVersion_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_TopologyDescription *topology;
  const char *platform_version;  /* out */
  size_t platform_version_size;  /* out */
} PJRT_TopologyDescription_PlatformVersion_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_TopologyDescription_PlatformVersion_Args, platform_version_size);

/* [slot 85, offset 720] */
typedef PJRT_Error *PJRT_TopologyDescription_PlatformVersion(
    PJRT_TopologyDescription_PlatformVersion_Args *args);

typedef struct PJRT_TopologyDescription_PlatformName_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const PJRT_TopologyDescription *topology;
  const char *platform_name;  /* out */
  size_t platform_name_size;  /* out */
} PJRT_TopologyDescription_PlatformName_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_TopologyDescription_PlatformName_Args, platform_name_size);

/* [slot 84, offset 712] */
typedef PJRT_Error *PJRT_TopologyDescription_PlatformName(
    PJRT_TopologyDescription_PlatformName_Args *args);

typedef struct PJRT_TopologyDescription_GetDeviceDescriptions_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const PJRT_TopologyDescription *topology;
  PJRT_DeviceDescription *const *descriptions;  /* out */
  size_t num_descriptions;  /* out */
} PJRT_TopologyDescription_GetDeviceDescriptions_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(
    PJRT_TopologyDescription_GetDeviceDescriptions_Args,
    num_descriptions);

/* [slot 86, offset 728] */
typedef PJRT_Error *PJRT_TopologyDescription_GetDeviceDescriptions(
    PJRT_TopologyDescription_GetDeviceDescriptions_Args *args);
typedef struct PJRT_SerializedTopology PJRT_SerializedTopology;

typedef struct PJRT_TopologyDescription_Serialize_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_TopologyDescription *topology;
  const char *serialized_bytes;  /* out */
  size_t serialized_bytes_size;  /* out */
  PJRT_SerializedTopology *serialized_topology;  /* out */
  void (*serialized_topology_deleter)(PJRT_SerializedTopology *serialized_topology);  /* out */
} PJRT_TopologyDescription_Serialize_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_TopologyDescription_Serialize_Args, serialized_topology_deleter);

/* [slot 87, offset 736] */
typedef PJRT_Error *PJRT_TopologyDescription_Serialize(
    PJRT_TopologyDescription_Serialize_Args *args);

typedef struct PJRT_TopologyDescription_Deserialize_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const char *serialized_topology;
  size_t serialized_topology_size;
  PJRT_TopologyDescription *topology;  /* out */
} PJRT_TopologyDescription_Deserialize_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_TopologyDescription_Deserialize_Args, topology);

/* [slot 114, offset 952] */
typedef PJRT_Error *PJRT_TopologyDescription_Deserialize(
    PJRT_TopologyDescription_Deserialize_Args *args);

typedef struct PJRT_TopologyDescription_Attributes_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_TopologyDescription *topology;
  const PJRT_NamedValue *attributes;  /* out */
  size_t num_attributes;  /* out */
} PJRT_TopologyDescription_Attributes_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_TopologyDescription_Attributes_Args, num_attributes);

/* [slot 88, offset 744] */
typedef PJRT_Error *PJRT_TopologyDescription_Attributes(
    PJRT_TopologyDescription_Attributes_Args *args);

typedef struct PJRT_TopologyDescription_Fingerprint_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const PJRT_TopologyDescription *topology;
  uint64_t fingerprint;  /* out */
} PJRT_TopologyDescription_Fingerprint_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_TopologyDescription_Fingerprint_Args, fingerprint);

/* [slot 133, offset 1104] */
typedef PJRT_Error *PJRT_TopologyDescription_Fingerprint(
    PJRT_TopologyDescription_Fingerprint_Args *args);

typedef struct PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const PJRT_TopologyDescription *topology;
  int memory_space_kind_id;
  const int64_t *dims;
  size_t num_dims;
  PJRT_Buffer_Type element_type;
  const PJRT_Buffer_MemoryLayout *layout;
  const char *serialized_shape;  /* out */
  size_t serialized_shape_size;  /* out */
  void (*serialized_shape_deleter)(const char *);  /* out */
} PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(
    PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args,
    serialized_shape_deleter);

/* [slot 136, offset 1128] */
typedef PJRT_Error *PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace(
    PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args *args);

typedef struct PJRT_TopologyDescription_GetMemorySpaceKindIds_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const PJRT_TopologyDescription *topology;
  const int *memory_space_kind_ids;  /* out */
  size_t num_memory_space_kind_ids;  /* out */
} PJRT_TopologyDescription_GetMemorySpaceKindIds_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(
    PJRT_TopologyDescription_GetMemorySpaceKindIds_Args,
    num_memory_space_kind_ids);

/* [slot 137, offset 1136] */
typedef PJRT_Error *PJRT_TopologyDescription_GetMemorySpaceKindIds(
    PJRT_TopologyDescription_GetMemorySpaceKindIds_Args *args);

typedef struct PJRT_Compile_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const PJRT_TopologyDescription *topology;
  const PJRT_Program *program;
  const char *compile_options;
  size_t compile_options_size;
  PJRT_Client *client;
  PJRT_Executable *executable;  /* out */
} PJRT_Compile_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Compile_Args, executable);

/* [slot 89, offset 752] */
typedef PJRT_Error *PJRT_Compile(PJRT_Compile_Args *args);

/* ============================================================================================ */
/* The function table                                                                           */
/* ============================================================================================ */

/*
 * GetPjrtApi() (exported by the plugin library, C linkage) returns a pointer to a PJRT_Api
 * that stays valid for the life of the process.
 */

/*
 * The table returned by GetPjrtApi: a 40-byte head, then one function pointer per slot
 * (slot i at byte offset 40 + 8 * i on LP64). Slots are only ever appended.
 */
typedef struct PJRT_Api {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Api_Version pjrt_api_version;
  PJRT_Error_Destroy *PJRT_Error_Destroy;                              /* slot   0, offset   40 */
  PJRT_Error_Message *PJRT_Error_Message;                              /* slot   1, offset   48 */
  PJRT_Error_GetCode *PJRT_Error_GetCode;                              /* slot   2, offset   56 */
  PJRT_Plugin_Initialize *PJRT_Plugin_Initialize;                      /* slot   3, offset   64 */
  PJRT_Plugin_Attributes *PJRT_Plugin_Attributes;                      /* slot   4, offset   72 */
  PJRT_Event_Destroy *PJRT_Event_Destroy;                              /* slot   5, offset   80 */
  PJRT_Event_IsReady *PJRT_Event_IsReady;                              /* slot   6, offset   88 */
  PJRT_Event_Error *PJRT_Event_Error;                                  /* slot   7, offset   96 */
  PJRT_Event_Await *PJRT_Event_Await;                                  /* slot   8, offset  104 */
  PJRT_Event_OnReady *PJRT_Event_OnReady;                              /* slot   9, offset  112 */
  PJRT_Client_Create *PJRT_Client_Create;                              /* slot  10, offset  120 */
  PJRT_Client_Destroy *PJRT_Client_Destroy;                            /* slot  11, offset  128 */
  PJRT_Client_PlatformName *PJRT_Client_PlatformName;                  /* slot  12, offset  136 */
  PJRT_Client_ProcessIndex *PJRT_Client_ProcessIndex;                  /* slot  13, offset  144 */
  PJRT_Client_PlatformVersion *PJRT_Client_PlatformVersion;            /* slot  14, offset  152 */
  PJRT_Client_Devices *PJRT_Client_Devices;                            /* slot  15, offset  160 */
  PJRT_Client_AddressableDevices *PJRT_Client_AddressableDevices;      /* slot  16, offset  168 */
  PJRT_Client_LookupDevice *PJRT_Client_LookupDevice;                  /* slot  17, offset  176 */
  /* slot  18, offset  184 */
  PJRT_Client_LookupAddressableDevice *PJRT_Client_LookupAddressableDevice;
  PJRT_Client_AddressableMemories *PJRT_Client_AddressableMemories;    /* slot  19, offset  192 */
  PJRT_Client_Compile *PJRT_Client_Compile;                            /* slot  20, offset  200 */
  /* slot  21, offset  208 */
  PJRT_Client_DefaultDeviceAssignment *PJRT_Client_DefaultDeviceAssignment;
  PJRT_Client_BufferFromHostBuffer *PJRT_Client_BufferFromHostBuffer;  /* slot  22, offset  216 */
  PJRT_DeviceDescription_Id *PJRT_DeviceDescription_Id;                /* slot  23, offset  224 */
  /* slot  24, offset  232 */
  PJRT_DeviceDescription_ProcessIndex *PJRT_DeviceDescription_ProcessIndex;
  /* slot  25, offset  240 */
  PJRT_DeviceDescription_Attributes *PJRT_DeviceDescription_Attributes;
  PJRT_DeviceDescription_Kind *PJRT_DeviceDescription_Kind;            /* slot  26, offset  248 */
  /* slot  27, offset  256 */
  PJRT_DeviceDescription_DebugString *PJRT_DeviceDescription_DebugString;
  PJRT_DeviceDescription_ToString *PJRT_DeviceDescription_ToString;    /* slot  28, offset  264 */
  PJRT_Device_GetDescription *PJRT_Device_GetDescription;              /* slot  29, offset  272 */
  PJRT_Device_IsAddressable *PJRT_Device_IsAddressable;                /* slot  30, offset  280 */
  PJRT_Device_LocalHardwareId *PJRT_Device_LocalHardwareId;            /* slot  31, offset  288 */
  PJRT_Device_AddressableMemories *PJRT_Device_AddressableMemories;    /* slot  32, offset  296 */
  PJRT_Device_DefaultMemory *PJRT_Device_DefaultMemory;                /* slot  33, offset  304 */
  PJRT_Device_MemoryStats *PJRT_Device_MemoryStats;                    /* slot  34, offset  312 */
  PJRT_Memory_Id *PJRT_Memory_Id;                                      /* slot  35, offset  320 */
  PJRT_Memory_Kind *PJRT_Memory_Kind;                                  /* slot  36, offset  328 */
  PJRT_Memory_DebugString *PJRT_Memory_DebugString;                    /* slot  37, offset  336 */
  PJRT_Memory_ToString *PJRT_Memory_ToString;                          /* slot  38, offset  344 */
  PJRT_Memory_AddressableByDevices *PJRT_Memory_AddressableByDevices;  /* slot  39, offset  352 */
  PJRT_Executable_Destroy *PJRT_Executable_Destroy;                    /* slot  40, offset  360 */
  PJRT_Executable_Name *PJRT_Executable_Name;                          /* slot  41, offset  368 */
  PJRT_Executable_NumReplicas *PJRT_Executable_NumReplicas;            /* slot  42, offset  376 */
  PJRT_Executable_NumPartitions *PJRT_Executable_NumPartitions;        /* slot  43, offset  384 */
  PJRT_Executable_NumOutputs *PJRT_Executable_NumOutputs;              /* slot  44, offset  392 */
  /* slot  45, offset  400 */
  PJRT_Executable_SizeOfGeneratedCodeInBytes *PJRT_Executable_SizeOfGeneratedCodeInBytes;
  PJRT_Executable_GetCostAnalysis *PJRT_Executable_GetCostAnalysis;    /* slot  46, offset  408 */
  /* slot  47, offset  416 */
  PJRT_Executable_OutputMemoryKinds *PJRT_Executable_OutputMemoryKinds;
  PJRT_Executable_OptimizedProgram *PJRT_Executable_OptimizedProgram;  /* slot  48, offset  424 */
  PJRT_Executable_Serialize *PJRT_Executable_Serialize;                /* slot  49, offset  432 */
  PJRT_LoadedExecutable_Destroy *PJRT_LoadedExecutable_Destroy;        /* slot  50, offset  440 */
  /* slot  51, offset  448 */
  PJRT_LoadedExecutable_GetExecutable *PJRT_LoadedExecutable_GetExecutable;
  /* slot  52, offset  456 */
  PJRT_LoadedExecutable_AddressableDevices *PJRT_LoadedExecutable_AddressableDevices;
  PJRT_LoadedExecutable_Delete *PJRT_LoadedExecutable_Delete;          /* slot  53, offset  464 */
  PJRT_LoadedExecutable_IsDeleted *PJRT_LoadedExecutable_IsDeleted;    /* slot  54, offset  472 */
  PJRT_LoadedExecutable_Execute *PJRT_LoadedExecutable_Execute;        /* slot  55, offset  480 */
  /* slot  56, offset  488 */
  PJRT_Executable_DeserializeAndLoad *PJRT_Executable_DeserializeAndLoad;
  /* slot  57, offset  496 */
  PJRT_LoadedExecutable_Fingerprint *PJRT_LoadedExecutable_Fingerprint;
  PJRT_Buffer_Destroy *PJRT_Buffer_Destroy;                            /* slot  58, offset  504 */
  PJRT_Buffer_ElementType *PJRT_Buffer_ElementType;                    /* slot  59, offset  512 */
  PJRT_Buffer_Dimensions *PJRT_Buffer_Dimensions;                      /* slot  60, offset  520 */
  PJRT_Buffer_UnpaddedDimensions *PJRT_Buffer_UnpaddedDimensions;      /* slot  61, offset  528 */
  /* slot  62, offset  536 */
  PJRT_Buffer_DynamicDimensionIndices *PJRT_Buffer_DynamicDimensionIndices;
  PJRT_Buffer_GetMemoryLayout *PJRT_Buffer_GetMemoryLayout;            /* slot  63, offset  544 */
  PJRT_Buffer_OnDeviceSizeInBytes *PJRT_Buffer_OnDeviceSizeInBytes;    /* slot  64, offset  552 */
  PJRT_Buffer_Device *PJRT_Buffer_Device;                              /* slot  65, offset  560 */
  PJRT_Buffer_Memory *PJRT_Buffer_Memory;                              /* slot  66, offset  568 */
  PJRT_Buffer_Delete *PJRT_Buffer_Delete;                              /* slot  67, offset  576 */
  PJRT_Buffer_IsDeleted *PJRT_Buffer_IsDeleted;                        /* slot  68, offset  584 */
  PJRT_Buffer_CopyToDevice *PJRT_Buffer_CopyToDevice;                  /* slot  69, offset  592 */
  PJRT_Buffer_ToHostBuffer *PJRT_Buffer_ToHostBuffer;                  /* slot  70, offset  600 */
  PJRT_Buffer_IsOnCpu *PJRT_Buffer_IsOnCpu;                            /* slot  71, offset  608 */
  PJRT_Buffer_ReadyEvent *PJRT_Buffer_ReadyEvent;                      /* slot  72, offset  616 */
  PJRT_Buffer_UnsafePointer *PJRT_Buffer_UnsafePointer;                /* slot  73, offset  624 */
  /* slot  74, offset  632 */
  PJRT_Buffer_IncreaseExternalReferenceCount *PJRT_Buffer_IncreaseExternalReferenceCount;
  /* slot  75, offset  640 */
  PJRT_Buffer_DecreaseExternalReferenceCount *PJRT_Buffer_DecreaseExternalReferenceCount;
  /* slot  76, offset  648 */
  PJRT_Buffer_OpaqueDeviceMemoryDataPointer *PJRT_Buffer_OpaqueDeviceMemoryDataPointer;
  PJRT_CopyToDeviceStream_Destroy *PJRT_CopyToDeviceStream_Destroy;    /* slot  77, offset  656 */
  PJRT_CopyToDeviceStream_AddChunk *PJRT_CopyToDeviceStream_AddChunk;  /* slot  78, offset  664 */
  /* slot  79, offset  672 */
  PJRT_CopyToDeviceStream_TotalBytes *PJRT_CopyToDeviceStream_TotalBytes;
  /* slot  80, offset  680 */
  PJRT_CopyToDeviceStream_GranuleSize *PJRT_CopyToDeviceStream_GranuleSize;
  /* slot  81, offset  688 */
  PJRT_CopyToDeviceStream_CurrentBytes *PJRT_CopyToDeviceStream_CurrentBytes;
  PJRT_TopologyDescription_Create *PJRT_TopologyDescription_Create;    /* slot  82, offset  696 */
  PJRT_TopologyDescription_Destroy *PJRT_TopologyDescription_Destroy;  /* slot  83, offset  704 */
  /* slot  84, offset  712 */
  PJRT_TopologyDescription_PlatformName *PJRT_TopologyDescription_PlatformName;
  /* slot  85, offset  720 */
  PJRT_TopologyDescription_PlatformVersion *PJRT_TopologyDescription_PlatformVersion;
  /* slot  86, offset  728 */
  PJRT_TopologyDescription_GetDeviceDescriptions *PJRT_TopologyDescription_GetDeviceDescriptions;
  /* slot  87, offset  736 */
  PJRT_TopologyDescription_Serialize *PJRT_TopologyDescription_Serialize;
  /* slot  88, offset  744 */
  PJRT_TopologyDescription_Attributes *PJRT_TopologyDescription_Attributes;
  PJRT_Compile *PJRT_Compile;                                          /* slot  89, offset  752 */
  /* slot  90, offset  760 */
  PJRT_Executable_OutputElementTypes *PJRT_Executable_OutputElementTypes;
  PJRT_Executable_OutputDimensions *PJRT_Executable_OutputDimensions;  /* slot  91, offset  768 */
  PJRT_Buffer_CopyToMemory *PJRT_Buffer_CopyToMemory;                  /* slot  92, offset  776 */
  /* slot  93, offset  784 */
  PJRT_Client_CreateViewOfDeviceBuffer *PJRT_Client_CreateViewOfDeviceBuffer;
  PJRT_Executable_Fingerprint *PJRT_Executable_Fingerprint;            /* slot  94, offset  792 */
  PJRT_Client_TopologyDescription *PJRT_Client_TopologyDescription;    /* slot  95, offset  800 */
  /* slot  96, offset  808 */
  PJRT_Executable_GetCompiledMemoryStats *PJRT_Executable_GetCompiledMemoryStats;
  PJRT_Memory_Kind_Id *PJRT_Memory_Kind_Id;                            /* slot  97, offset  816 */
  PJRT_ExecuteContext_Create *PJRT_ExecuteContext_Create;              /* slot  98, offset  824 */
  PJRT_ExecuteContext_Destroy *PJRT_ExecuteContext_Destroy;            /* slot  99, offset  832 */
  PJRT_Buffer_CopyRawToHost *PJRT_Buffer_CopyRawToHost;                /* slot 100, offset  840 */
  /* slot 101, offset  848 */
  PJRT_AsyncHostToDeviceTransferManager_Destroy *PJRT_AsyncHostToDeviceTransferManager_Destroy;
  /* slot 102, offset  856 */
  PJRT_AsyncHostToDeviceTransferManager_TransferData *PJRT_AsyncHostToDeviceTransferManager_TransferData;
  /* slot 103, offset  864 */
  PJRT_Client_CreateBuffersForAsyncHostToDevice *PJRT_Client_CreateBuffersForAsyncHostToDevice;
  /* slot 104, offset  872 */
  PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer *PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer;
  /* slot 105, offset  880 */
  PJRT_AsyncHostToDeviceTransferManager_Device *PJRT_AsyncHostToDeviceTransferManager_Device;
  /* slot 106, offset  888 */
  PJRT_AsyncHostToDeviceTransferManager_BufferCount *PJRT_AsyncHostToDeviceTransferManager_BufferCount;
  /* slot 107, offset  896 */
  PJRT_AsyncHostToDeviceTransferManager_BufferSize *PJRT_AsyncHostToDeviceTransferManager_BufferSize;
  /* slot 108, offset  904 */
  PJRT_AsyncHostToDeviceTransferManager_SetBufferError *PJRT_AsyncHostToDeviceTransferManager_SetBufferError;
  /* slot 109, offset  912 */
  PJRT_AsyncHostToDeviceTransferManager_AddMetadata *PJRT_AsyncHostToDeviceTransferManager_AddMetadata;
  PJRT_Client_DmaMap *PJRT_Client_DmaMap;                              /* slot 110, offset  920 */
  PJRT_Client_DmaUnmap *PJRT_Client_DmaUnmap;                          /* slot 111, offset  928 */
  /* slot 112, offset  936 */
  PJRT_Client_CreateUninitializedBuffer *PJRT_Client_CreateUninitializedBuffer;
  /* slot 113, offset  944 */
  PJRT_Client_UpdateGlobalProcessInfo *PJRT_Client_UpdateGlobalProcessInfo;
  /* slot 114, offset  952 */
  PJRT_TopologyDescription_Deserialize *PJRT_TopologyDescription_Deserialize;
  PJRT_Client_CreateAliasBuffer *PJRT_Client_CreateAliasBuffer;        /* slot 115, offset  960 */
  PJRT_Client_FulfillAliasBuffer *PJRT_Client_FulfillAliasBuffer;      /* slot 116, offset  968 */
  /* slot 117, offset  976 */
  PJRT_LoadedExecutable_GetDeviceAssignment *PJRT_LoadedExecutable_GetDeviceAssignment;
  PJRT_Client_CreateErrorBuffer *PJRT_Client_CreateErrorBuffer;        /* slot 118, offset  984 */
  /* slot 119, offset  992 */
  PJRT_AsyncHostToDeviceTransferManager_TransferLiteral *PJRT_AsyncHostToDeviceTransferManager_TransferLiteral;
  PJRT_Buffer_CopyRawToHostFuture *PJRT_Buffer_CopyRawToHostFuture;    /* slot 120, offset 1000 */
  PJRT_Device_PoisonExecution *PJRT_Device_PoisonExecution;            /* slot 121, offset 1008 */
  /* slot 122, offset 1016 */
  PJRT_Device_CreateAsyncTrackingEvent *PJRT_Device_CreateAsyncTrackingEvent;
  PJRT_AsyncTrackingEvent_Destroy *PJRT_AsyncTrackingEvent_Destroy;    /* slot 123, offset 1024 */
  /* slot 124, offset 1032 */
  PJRT_Executable_GetCompileOptions *PJRT_Executable_GetCompileOptions;
  /* slot 125, offset 1040 */
  PJRT_Buffer_DonateWithControlDependency *PJRT_Buffer_DonateWithControlDependency;
  PJRT_Event_Create *PJRT_Event_Create;                                /* slot 126, offset 1048 */
  PJRT_Event_Set *PJRT_Event_Set;                                      /* slot 127, offset 1056 */
  PJRT_Device_GetAttributes *PJRT_Device_GetAttributes;                /* slot 128, offset 1064 */
  PJRT_Client_Load *PJRT_Client_Load;                                  /* slot 129, offset 1072 */
  /* slot 130, offset 1080 */
  PJRT_LoadedExecutable_AddressableDeviceLogicalIds *PJRT_LoadedExecutable_AddressableDeviceLogicalIds;
  PJRT_Buffer_Bitcast *PJRT_Buffer_Bitcast;                            /* slot 131, offset 1088 */
  PJRT_Error_ForEachPayload *PJRT_Error_ForEachPayload;                /* slot 132, offset 1096 */
  /* slot 133, offset 1104 */
  PJRT_TopologyDescription_Fingerprint *PJRT_TopologyDescription_Fingerprint;
  /* slot 134, offset 1112 */
  PJRT_Executable_ParameterMemoryKinds *PJRT_Executable_ParameterMemoryKinds;
  PJRT_Device_ClearMemoryStats *PJRT_Device_ClearMemoryStats;          /* slot 135, offset 1120 */
  /* slot 136, offset 1128 */
  PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace *PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace;
  /* slot 137, offset 1136 */
  PJRT_TopologyDescription_GetMemorySpaceKindIds *PJRT_TopologyDescription_GetMemorySpaceKindIds;
} PJRT_Api;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Api, PJRT_TopologyDescription_GetMemorySpaceKindIds);

/* ============================================================================================ */
/* Extensions apu provides                                                                      */
/* ============================================================================================ */

/*
 * Layouts extension (type PJRT_Extension_Type_Layouts, table version 4). Without it, a client
 * learns the layouts of an executable's parameters and outputs by fetching
 * PJRT_Executable_OptimizedProgram and re-compiling that text to HLO, several times per compile.
 * A layout object is opaque; its serialized form is the HLO layout text, e.g. "{1,0}" (what the
 * client's layout parser reads back). Entries were appended over the versions; apu fills all seven,
 * since clients call some of them without checking for NULL.
 */
typedef struct PJRT_Layouts_MemoryLayout PJRT_Layouts_MemoryLayout;
typedef struct PJRT_Layouts_SerializedLayout PJRT_Layouts_SerializedLayout;

/* Frees `layout` (NULL is allowed). */
typedef struct PJRT_Layouts_MemoryLayout_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Layouts_MemoryLayout *layout;
} PJRT_Layouts_MemoryLayout_Destroy_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Layouts_MemoryLayout_Destroy_Args, layout);
typedef PJRT_Error *PJRT_Layouts_MemoryLayout_Destroy(PJRT_Layouts_MemoryLayout_Destroy_Args *args);

/* The layout as text; the bytes live until the caller runs `serialized_layout_deleter`. */
typedef struct PJRT_Layouts_MemoryLayout_Serialize_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Layouts_MemoryLayout *layout;
  const char *serialized_bytes;                                         /* out */
  size_t serialized_bytes_size;                                         /* out */
  PJRT_Layouts_SerializedLayout *serialized_layout;                     /* out */
  void (*serialized_layout_deleter)(PJRT_Layouts_SerializedLayout *s);  /* out */
} PJRT_Layouts_MemoryLayout_Serialize_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Layouts_MemoryLayout_Serialize_Args, serialized_layout_deleter);
typedef PJRT_Error *PJRT_Layouts_MemoryLayout_Serialize(PJRT_Layouts_MemoryLayout_Serialize_Args *args);

/* The layout of a buffer's data; the caller owns `layout`. */
typedef struct PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
  PJRT_Layouts_MemoryLayout *layout; /* out */
} PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args, layout);
typedef PJRT_Error *PJRT_Layouts_PJRT_Buffer_MemoryLayout(PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args *args);

/* The layout the client gives an array of this type and shape; the caller owns `layout`. */
typedef struct PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  PJRT_Buffer_Type type;
  const int64_t *dims;
  size_t num_dims;
  PJRT_Layouts_MemoryLayout *layout; /* out */
} PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args, layout);
typedef PJRT_Error *PJRT_Layouts_PJRT_Client_GetDefaultLayout(PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args *args);

/* As GetDefaultLayout, for a topology. */
typedef struct PJRT_Layouts_PJRT_Topology_GetDefaultLayout_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_TopologyDescription *topology_description;
  PJRT_Buffer_Type type;
  const int64_t *dims;
  size_t num_dims;
  PJRT_Layouts_MemoryLayout *layout; /* out */
} PJRT_Layouts_PJRT_Topology_GetDefaultLayout_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Layouts_PJRT_Topology_GetDefaultLayout_Args, layout);
typedef PJRT_Error *PJRT_Layouts_PJRT_Topology_GetDefaultLayout(PJRT_Layouts_PJRT_Topology_GetDefaultLayout_Args *args);

/* One layout per output; the array and the layouts belong to the executable (do not destroy). */
typedef struct PJRT_Layouts_PJRT_Executable_GetOutputLayouts_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Executable *executable;
  size_t num_outputs;                 /* out */
  PJRT_Layouts_MemoryLayout **layouts; /* out */
} PJRT_Layouts_PJRT_Executable_GetOutputLayouts_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Layouts_PJRT_Executable_GetOutputLayouts_Args, layouts);
typedef PJRT_Error *PJRT_Layouts_PJRT_Executable_GetOutputLayouts(PJRT_Layouts_PJRT_Executable_GetOutputLayouts_Args *args);

/* One layout per parameter; owned by the executable like the output layouts. */
typedef struct PJRT_Layouts_PJRT_Executable_GetParameterLayouts_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Executable *executable;
  size_t num_parameters;              /* out */
  PJRT_Layouts_MemoryLayout **layouts; /* out */
} PJRT_Layouts_PJRT_Executable_GetParameterLayouts_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Layouts_PJRT_Executable_GetParameterLayouts_Args, layouts);
typedef PJRT_Error *PJRT_Layouts_PJRT_Executable_GetParameterLayouts(PJRT_Layouts_PJRT_Executable_GetParameterLayouts_Args *args);

typedef struct PJRT_Layouts_Extension {
  PJRT_Extension_Base base;
  PJRT_Layouts_MemoryLayout_Destroy *PJRT_Layouts_MemoryLayout_Destroy;
  PJRT_Layouts_MemoryLayout_Serialize *PJRT_Layouts_MemoryLayout_Serialize;
  PJRT_Layouts_PJRT_Client_GetDefaultLayout *PJRT_Layouts_PJRT_Client_GetDefaultLayout;
  PJRT_Layouts_PJRT_Buffer_MemoryLayout *PJRT_Layouts_PJRT_Buffer_MemoryLayout;
  PJRT_Layouts_PJRT_Topology_GetDefaultLayout *PJRT_Layouts_PJRT_Topology_GetDefaultLayout;
  PJRT_Layouts_PJRT_Executable_GetOutputLayouts *PJRT_Layouts_PJRT_Executable_GetOutputLayouts;
  PJRT_Layouts_PJRT_Executable_GetParameterLayouts *PJRT_Layouts_PJRT_Executable_GetParameterLayouts;
} PJRT_Layouts_Extension;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Layouts_Extension, PJRT_Layouts_PJRT_Executable_GetParameterLayouts);

/*
 * Shardings extension (type PJRT_Extension_Type_Shardings, version 1): serialized xla.OpSharding
 * per parameter / output, owned by the executable. A plugin without shardings sets `shardings`
 * and `sharding_sizes` to NULL, which tells the client "no sharding" without it having to
 * re-compile PJRT_Executable_OptimizedProgram to find out.
 */
typedef struct PJRT_Shardings_PJRT_Executable_ParameterShardings_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Executable *executable;
  size_t num_parameters;             /* out */
  const char *const *shardings;      /* out */
  const size_t *sharding_sizes;      /* out */
} PJRT_Shardings_PJRT_Executable_ParameterShardings_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Shardings_PJRT_Executable_ParameterShardings_Args, sharding_sizes);
typedef PJRT_Error *PJRT_Shardings_PJRT_Executable_ParameterShardings(PJRT_Shardings_PJRT_Executable_ParameterShardings_Args *args);

typedef struct PJRT_Shardings_PJRT_Executable_OutputShardings_Args {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Executable *executable;
  size_t num_outputs;                /* out */
  const char *const *shardings;      /* out */
  const size_t *sharding_sizes;      /* out */
} PJRT_Shardings_PJRT_Executable_OutputShardings_Args;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Shardings_PJRT_Executable_OutputShardings_Args, sharding_sizes);
typedef PJRT_Error *PJRT_Shardings_PJRT_Executable_OutputShardings(PJRT_Shardings_PJRT_Executable_OutputShardings_Args *args);

typedef struct PJRT_Shardings_Extension {
  PJRT_Extension_Base base;
  PJRT_Shardings_PJRT_Executable_ParameterShardings *PJRT_Shardings_PJRT_Executable_ParameterShardings;
  PJRT_Shardings_PJRT_Executable_OutputShardings *PJRT_Shardings_PJRT_Executable_OutputShardings;
} PJRT_Shardings_Extension;
APU_PJRT_STRUCT_SIZE_CONSTANT(PJRT_Shardings_Extension, PJRT_Shardings_PJRT_Executable_OutputShardings);

/* The entry point every PJRT plugin library exports. */
const PJRT_Api *GetPjrtApi(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* APU_PJRT_C_API_H_ */
