//! Executables that call host callbacks belong to the process that compiled them.
//!
//! A `custom_call @apu_host_callback` names its function by a number the wheel handed out in this
//! process (decision 63). In another process the same number names another function or none, so a
//! serialized program that calls the host carries its process's token, and loading it anywhere else is
//! refused with a reason, before it can ever run (decision 83). Programs without host callbacks carry
//! no token and load anywhere.

use crate::{Error, Result};
use apu_compiler::ir::{Module, Region};
use apu_compiler::plan::HOST_CALLBACK_TARGET;
use std::sync::OnceLock;

/// This process's token: its id and the moment it first asked, so that a reused process id does not
/// match either.
pub fn process_token() -> &'static str {
    static TOKEN: OnceLock<String> = OnceLock::new();
    TOKEN.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        format!("pid {} at {nanos}", std::process::id())
    })
}

/// Whether any function of the module (any region, at any depth) calls a host callback.
pub fn calls_host(module: &Module) -> bool {
    fn region(r: &Region) -> bool {
        r.ops.iter().any(|op| {
            matches!(&op.kind, apu_compiler::ir::OpKind::CustomCall { call_target_name, .. }
                if call_target_name == HOST_CALLBACK_TARGET)
                || op.regions.iter().any(region)
        })
    }
    module.functions.iter().any(|f| region(&f.body))
}

/// The origin to write into a serialized program: this process's token if it calls the host.
pub fn origin_for(calls_host: bool) -> Option<&'static str> {
    calls_host.then(process_token)
}

/// Refuses a deserialized program that calls the host unless it was serialized by this process.
pub fn check_origin(name: &str, calls_host: bool, origin: Option<&str>) -> Result<()> {
    if !calls_host || origin == Some(process_token()) {
        return Ok(());
    }
    let from = origin.map_or("an unknown process".to_string(), |o| format!("another process ({o})"));
    Err(Error::failed_precondition(format!(
        "serialized executable {name} calls host callbacks (custom_call @{HOST_CALLBACK_TARGET}), which name \
         Python functions by numbers that belong to the process that compiled it; it comes from {from}, so \
         apu will not load it here. Compile the function again in this process"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_programs_that_call_the_host_are_bound() {
        assert_eq!(origin_for(false), None);
        assert_eq!(origin_for(true), Some(process_token()));
        assert!(check_origin("f", false, None).is_ok());
        assert!(check_origin("f", false, Some("pid 1 at 2")).is_ok());
        assert!(check_origin("f", true, Some(process_token())).is_ok());
        for other in [None, Some("pid 1 at 2")] {
            let e = check_origin("f", true, other).unwrap_err();
            assert_eq!(e.code, crate::error::Code::FailedPrecondition, "{e:?}");
            assert!(e.message.contains("host callbacks"), "{}", e.message);
        }
    }
}
