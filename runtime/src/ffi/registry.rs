//! The process's FFI handlers for platform apu, by target name: filled by the wheel (which forwards
//! `jax.ffi.register_ffi_target(..., platform="apu")` through `apu_ffi_register`) or by a handler
//! library through the API table's Handler_Register; read when a program is compiled and run.

use super::abi::Handler;
use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

fn handlers() -> &'static RwLock<HashMap<String, Handler>> {
    static HANDLERS: OnceLock<RwLock<HashMap<String, Handler>>> = OnceLock::new();
    HANDLERS.get_or_init(Default::default)
}

/// Registers `execute` under `name`. Registering the same function again is a no-op; another
/// function under a taken name is refused, as XLA refuses it.
pub fn register(name: &str, execute: Handler) -> Result<(), String> {
    if name.is_empty() {
        return Err("an FFI handler needs a non-empty name".into());
    }
    let mut map = handlers().write().unwrap_or_else(|e| e.into_inner());
    match map.get(name) {
        Some(&h) if h as usize != execute as usize => {
            Err(format!("an FFI handler named {name:?} is already registered for platform apu with another function"))
        }
        _ => {
            map.insert(name.to_string(), execute);
            Ok(())
        }
    }
}

pub fn lookup(name: &str) -> Option<Handler> {
    handlers().read().unwrap_or_else(|e| e.into_inner()).get(name).copied()
}

/// Why a bundle with stages other than execute is refused.
pub fn stages_message(name: &str) -> String {
    format!(
        "FFI handler {name:?} has instantiate/prepare/initialize stages; apu runs the execute stage only \
         (register the execute handler alone)"
    )
}
