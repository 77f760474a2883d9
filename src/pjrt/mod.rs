//! The PJRT C API: the C view of the device model (`apu_runtime::client`). Each submodule holds the
//! handle of one object type of the API — an `Arc` of the model object plus the C pointer lists,
//! strings and layouts the API hands out — and its `PJRT_<Type>_*` entry points, which decode their
//! C arguments, call the model and encode its answer. [`table`] gathers them into the `PJRT_Api`
//! that `GetPjrtApi` returns. Every entry point goes through [`guard::entry`] (the profiler
//! extension's, whose errors are its own type, through [`guard::profiler_entry`]).

// The C API's enum constants keep their C names.
#![allow(non_upper_case_globals)]

pub(crate) mod api_error;
pub(crate) mod attributes;
pub(crate) mod buffer;
pub(crate) mod client;
pub(crate) mod device;
pub(crate) mod error;
pub(crate) mod event;
pub(crate) mod executable;
pub(crate) mod execute;
pub(crate) mod extensions;
pub(crate) mod guard;
pub(crate) mod host_layout;
pub(crate) mod layout_list;
pub(crate) mod layouts;
pub(crate) mod loaded;
pub mod logging;
pub(crate) mod memory;
pub(crate) mod profiler;
pub(crate) mod shardings;
pub(crate) mod stubs;
pub(crate) mod table;
pub(crate) mod topology;
pub(crate) mod types;
pub(crate) mod wire;
pub(crate) mod xspace;

/// The table, for in-process users (tests, the command-line tool).
pub fn api() -> *const apu_pjrt_api::PJRT_Api {
    &table::API.0
}
