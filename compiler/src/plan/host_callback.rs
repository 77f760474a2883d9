//! Host callbacks as plan steps: `custom_call @apu_host_callback` (what the wheel lowers
//! `jax.debug.print`, `jax.debug.callback`, `jax.pure_callback` and `io_callback` to) becomes a
//! [`HostCallbackKernel`] that the executor runs by handing its operands to the host.

use super::SlotId;
use crate::ir::{AttrValue, Op, OpKind};
use crate::{Error, Result};

/// The custom-call target of a host callback; its backend config is the callback's number.
pub const HOST_CALLBACK_TARGET: &str = "apu_host_callback";

#[derive(Clone, Debug, PartialEq)]
pub struct HostCallbackKernel {
    /// The host's number for the function to call.
    pub callback: u64,
    pub inputs: Vec<SlotId>,
    pub outputs: Vec<SlotId>,
}

/// The callback number of a host-callback op, None for any other op.
pub fn host_callback_number(op: &Op) -> Option<Result<u64>> {
    let OpKind::CustomCall { call_target_name, backend_config, .. } = &op.kind else {
        return None;
    };
    if call_target_name != HOST_CALLBACK_TARGET {
        return None;
    }
    let number = match backend_config {
        Some(AttrValue::String(s)) => s.trim().parse::<u64>().ok(),
        Some(AttrValue::Int(i)) => u64::try_from(*i).ok(),
        _ => None,
    };
    Some(number.ok_or_else(|| {
        Error::invalid(format!(
            "custom_call @{HOST_CALLBACK_TARGET} at {}: backend_config {backend_config:?} is not a callback number",
            op.location
        ))
    }))
}
