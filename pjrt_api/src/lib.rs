//! The PJRT C API as apu's own header (`include/apu_pjrt_c_api.h`, API version 0.112) and its
//! committed bindgen output (`src/bindings.rs`, regenerated and checked by
//! `tests/bindings_up_to_date.rs`).
//!
//! Every `PJRT_*` name of the header is re-exported unchanged. Anonymous-enum constants such as
//! `PJRT_Client_Compile_Args_STRUCT_SIZE` have bindgen-generated integer types; cast them with
//! `as usize`. The constants below give the most used ones in ready-to-use types.
#![allow(
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    dead_code,
    clippy::all
)]

mod bindings {
    include!("bindings.rs");
}
pub use bindings::*;

/// Major version apu reports in `PJRT_Api.pjrt_api_version`.
pub const API_MAJOR_VERSION: i32 = PJRT_API_MAJOR as i32;
/// Minor version apu reports (the framework version of jaxlib 0.10.2).
pub const API_MINOR_VERSION: i32 = PJRT_API_MINOR as i32;
/// `struct_size` of the full function table (head + 138 slots).
pub const API_STRUCT_SIZE: usize = PJRT_Api_STRUCT_SIZE as usize;
/// Byte offset of the first function pointer in `PJRT_Api`.
pub const API_FIRST_SLOT_OFFSET: usize = 40;
/// Number of function-pointer slots in `PJRT_Api` at version 0.112.
pub const API_SLOT_COUNT: usize = (API_STRUCT_SIZE - API_FIRST_SLOT_OFFSET) / std::mem::size_of::<usize>();
/// `struct_size` of `PJRT_ExecuteOptions` at 0.112 (jaxlib 0.10.2 passes exactly this).
pub const EXECUTE_OPTIONS_STRUCT_SIZE: usize = PJRT_ExecuteOptions_STRUCT_SIZE as usize;

/// Name of the entry point a PJRT plugin library exports, NUL-terminated for `dlsym`.
pub const GET_PJRT_API_SYMBOL: &[u8] = b"GetPjrtApi\0";
/// Signature of that entry point.
pub type GetPjrtApiFn = unsafe extern "C" fn() -> *const PJRT_Api;

/// True when a caller-provided args struct of `struct_size` bytes contains `field` of `Type`.
///
/// Callers built against an older header pass a smaller `struct_size`; members beyond it do not
/// exist in their struct and must be treated as absent (zero/NULL), never read:
///
/// ```
/// use apu_pjrt_api::{field_in_caller_struct, PJRT_ExecuteOptions};
/// assert!(field_in_caller_struct!(PJRT_ExecuteOptions, launch_id, 144));
/// assert!(!field_in_caller_struct!(PJRT_ExecuteOptions, num_hlo_output_callbacks, 136));
/// ```
#[macro_export]
macro_rules! field_in_caller_struct {
    ($ty:ty, $field:ident, $struct_size:expr) => {
        // Struct sizes always end at a member's end, so "starts inside" means "fully inside".
        ::std::mem::offset_of!($ty, $field) < ($struct_size as usize)
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    fn function_table_has_138_slots_ending_at_1144() {
        assert_eq!(API_STRUCT_SIZE, 1144);
        assert_eq!(API_SLOT_COUNT, 138);
        assert_eq!(size_of::<PJRT_Api>(), 1144);
        assert_eq!(offset_of!(PJRT_Api, PJRT_Error_Destroy), API_FIRST_SLOT_OFFSET);
        assert_eq!(offset_of!(PJRT_Api, PJRT_TopologyDescription_GetMemorySpaceKindIds), 1136);
    }

    #[test]
    fn caller_struct_size_decides_which_fields_exist() {
        // A caller whose struct ends right after `launch_id` has none of the later members.
        let end_of_launch_id = offset_of!(PJRT_ExecuteOptions, launch_id) + 4;
        assert!(field_in_caller_struct!(PJRT_ExecuteOptions, launch_id, end_of_launch_id));
        assert!(!field_in_caller_struct!(PJRT_ExecuteOptions, non_donatable_input_indices, end_of_launch_id));
        assert!(field_in_caller_struct!(PJRT_ExecuteOptions, num_hlo_output_callbacks, EXECUTE_OPTIONS_STRUCT_SIZE));
    }

    #[test]
    fn version_is_0_112() {
        assert_eq!((API_MAJOR_VERSION, API_MINOR_VERSION), (0, 112));
    }

    #[test]
    fn args_sizes_of_0_112_layouts() {
        // Sizes jaxlib 0.10.2 was observed to pass (notes: jax-pjrt-contract.md, Appendix A).
        assert_eq!(EXECUTE_OPTIONS_STRUCT_SIZE, 144);
        assert_eq!(PJRT_Device_MemoryStats_Args_STRUCT_SIZE as usize, 185);
        assert_eq!(PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE as usize, 120);
        assert_eq!(PJRT_LoadedExecutable_Execute_Args_STRUCT_SIZE as usize, 80);
        assert_eq!(PJRT_Program_STRUCT_SIZE as usize, 48);
        assert_eq!(PJRT_Client_Create_Args_STRUCT_SIZE as usize, 88);
    }
}

/// TensorFlow's plug-in C ABIs (StreamExecutor, kernel functions as dlsym pointer types, TFNPD), from
/// apu's own header `include/apu_tf_c_api.h`.
pub mod tf {
    include!("tf_bindings.rs");
}
