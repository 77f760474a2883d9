//! The PJRT C API as apu's own header (`include/apu_pjrt_c_api.h`) and its committed bindgen output.
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals, dead_code)]

/// TensorFlow's plug-in C ABIs (StreamExecutor, kernel functions as dlsym pointer types, TFNPD), from
/// apu's own header `include/apu_tf_c_api.h`.
pub mod tf {
    #![allow(clippy::all)]
    include!("tf_bindings.rs");
}
