//! The Shardings extension. apu runs every program unpartitioned on one device, so it has no
//! shardings to report and says so with NULL arrays. Without this extension, clients look for
//! output shardings by fetching `PJRT_Executable_OptimizedProgram` and compiling that text to HLO
//! after every compile, only to find none.

use super::executable::ExecutableHandle;
use super::guard::{args_min_size, entry, handle};
use apu_pjrt_api::*;

args_min_size! {
    PJRT_Shardings_PJRT_Executable_ParameterShardings_Args => sharding_sizes,
    PJRT_Shardings_PJRT_Executable_OutputShardings_Args => sharding_sizes,
}

pub(crate) unsafe extern "C" fn executable_parameter_shardings(
    args: *mut PJRT_Shardings_PJRT_Executable_ParameterShardings_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Shardings_PJRT_Executable_ParameterShardings", args, |a| {
        let e = &unsafe { handle::<_, ExecutableHandle>(a.executable, "executable")? }.exe;
        a.num_parameters = e.param_types.len();
        a.shardings = std::ptr::null();
        a.sharding_sizes = std::ptr::null();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn executable_output_shardings(
    args: *mut PJRT_Shardings_PJRT_Executable_OutputShardings_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Shardings_PJRT_Executable_OutputShardings", args, |a| {
        let e = &unsafe { handle::<_, ExecutableHandle>(a.executable, "executable")? }.exe;
        a.num_outputs = e.output_types.len();
        a.shardings = std::ptr::null();
        a.sharding_sizes = std::ptr::null();
        Ok(())
    })
}
