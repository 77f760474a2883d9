//! What a handler may ask about the call it is running in (`XLA_FFI_InvokeContext` is opaque to it).

use super::abi::Attrs;

pub struct InvokeContext {
    pub device_ordinal: i32,
    pub run_id: i64,
    /// The (empty) per-call options CustomOptions_Get returns.
    pub no_options: Attrs,
}

impl InvokeContext {
    pub fn new(device_ordinal: i32, run_id: i64) -> Self {
        InvokeContext {
            device_ordinal,
            run_id,
            no_options: Attrs {
                struct_size: super::abi::struct_size!(Attrs, attrs),
                extension_start: std::ptr::null_mut(),
                size: 0,
                types: std::ptr::null_mut(),
                names: std::ptr::null_mut(),
                attrs: std::ptr::null_mut(),
            },
        }
    }
}
