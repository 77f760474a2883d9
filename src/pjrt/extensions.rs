//! The extension chain `PJRT_Api.extension_start` points at: Layouts, then Shardings, then
//! Profiler. The first two spare clients a fallback that re-compiles
//! `PJRT_Executable_OptimizedProgram` to HLO after every compile (see [`super::layouts`] and
//! [`super::shardings`]); the profiler gives JAX's profiler apu's spans ([`super::profiler`]).

use super::{layouts, shardings};
use apu_pjrt_api::*;

/// Extension tables are immutable and point at static code and at each other; sharing is safe.
pub(crate) struct SyncExtension<T>(pub T);
// SAFETY: see above.
unsafe impl<T> Sync for SyncExtension<T> {}

pub(crate) static SHARDINGS: SyncExtension<PJRT_Shardings_Extension> =
    SyncExtension(PJRT_Shardings_Extension {
        base: PJRT_Extension_Base {
            struct_size: std::mem::size_of::<PJRT_Shardings_Extension>(),
            type_: PJRT_Extension_Type_Shardings,
            next: &super::profiler::EXTENSION.0 as *const super::profiler::ProfilerExtension as *mut PJRT_Extension_Base,
        },
        PJRT_Shardings_PJRT_Executable_ParameterShardings: Some(
            shardings::executable_parameter_shardings,
        ),
        PJRT_Shardings_PJRT_Executable_OutputShardings: Some(shardings::executable_output_shardings),
    });

pub(crate) static LAYOUTS: SyncExtension<PJRT_Layouts_Extension> =
    SyncExtension(PJRT_Layouts_Extension {
        base: PJRT_Extension_Base {
            struct_size: std::mem::size_of::<PJRT_Layouts_Extension>(),
            type_: PJRT_Extension_Type_Layouts,
            next: &SHARDINGS.0 as *const PJRT_Shardings_Extension as *mut PJRT_Extension_Base,
        },
        PJRT_Layouts_MemoryLayout_Destroy: Some(layouts::memory_layout_destroy),
        PJRT_Layouts_MemoryLayout_Serialize: Some(layouts::memory_layout_serialize),
        PJRT_Layouts_PJRT_Client_GetDefaultLayout: Some(layouts::client_get_default_layout),
        PJRT_Layouts_PJRT_Buffer_MemoryLayout: Some(layouts::buffer_memory_layout),
        PJRT_Layouts_PJRT_Topology_GetDefaultLayout: Some(layouts::topology_get_default_layout),
        PJRT_Layouts_PJRT_Executable_GetOutputLayouts: Some(layouts::executable_get_output_layouts),
        PJRT_Layouts_PJRT_Executable_GetParameterLayouts: Some(
            layouts::executable_get_parameter_layouts,
        ),
    });

/// Head of the chain, for `PJRT_Api.extension_start`.
pub(crate) const fn chain_start() -> *mut PJRT_Extension_Base {
    &LAYOUTS.0 as *const PJRT_Layouts_Extension as *mut PJRT_Extension_Base
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Walks the chain from the API table and finds the three extensions, each with the struct
    /// size of the table layout clients expect (Layouts version 4: 7 entries; Shardings: 2;
    /// Profiler: the extension with its API table pointer and context id).
    #[test]
    fn chain_lists_layouts_shardings_and_profiler() {
        let api = unsafe { &*crate::pjrt::api() };
        let mut seen = Vec::new();
        let mut ext = api.extension_start as *const PJRT_Extension_Base;
        while !ext.is_null() {
            let base = unsafe { &*ext };
            seen.push((base.type_, base.struct_size));
            ext = base.next;
        }
        assert_eq!(
            seen,
            vec![(PJRT_Extension_Type_Layouts, 80), (PJRT_Extension_Type_Shardings, 40), (PJRT_Extension_Type_Profiler, 40)]
        );
    }
}
