//! Named values (`PJRT_NamedValue` lists): the attribute lists the plugin hands out, which must
//! outlive the call, and the option lists callers hand in. Also `PJRT_Plugin_Initialize` and
//! `PJRT_Plugin_Attributes`.

use super::api_error::ApiError;
use super::guard::{args_min_size, entry, slice, string_arg, ApiResult};
use apu_pjrt_api::*;
use once_cell::sync::Lazy;
use std::os::raw::c_char;

/// An attribute value apu hands out. Device and plugin attributes use only the first three kinds
/// (JAX aborts on a Float or Bool device attribute); cost-analysis properties are floats.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum AttrValue {
    Str(String),
    Int(i64),
    IntList(Vec<i64>),
    Float(f32),
}

/// A `PJRT_NamedValue` array together with the storage its pointers refer to.
pub(crate) struct NamedValues {
    values: Vec<PJRT_NamedValue>,
    // Heap storage the `values` point into; never mutated after construction, so the pointers stay
    // valid for as long as this struct lives.
    _entries: Vec<(String, AttrValue)>,
}

// SAFETY: the raw pointers inside `values` point into `_entries`, which is immutable.
unsafe impl Send for NamedValues {}
unsafe impl Sync for NamedValues {}

impl NamedValues {
    pub fn new(entries: Vec<(String, AttrValue)>) -> Self {
        let values = entries
            .iter()
            .map(|(name, value)| {
                // SAFETY: all-zero is a valid PJRT_NamedValue; the fields are set below.
                let mut nv: PJRT_NamedValue = unsafe { std::mem::zeroed() };
                nv.struct_size = std::mem::size_of::<PJRT_NamedValue>();
                nv.name = name.as_ptr() as *const c_char;
                nv.name_size = name.len();
                match value {
                    AttrValue::Str(s) => {
                        nv.type_ = PJRT_NamedValue_kString;
                        nv.__bindgen_anon_1.string_value = s.as_ptr() as *const c_char;
                        nv.value_size = s.len();
                    }
                    AttrValue::Int(i) => {
                        nv.type_ = PJRT_NamedValue_kInt64;
                        nv.__bindgen_anon_1.int64_value = *i;
                        nv.value_size = 1;
                    }
                    AttrValue::IntList(list) => {
                        nv.type_ = PJRT_NamedValue_kInt64List;
                        nv.__bindgen_anon_1.int64_array_value = list.as_ptr();
                        nv.value_size = list.len();
                    }
                    AttrValue::Float(x) => {
                        nv.type_ = PJRT_NamedValue_kFloat;
                        nv.__bindgen_anon_1.float_value = *x;
                        nv.value_size = 1;
                    }
                }
                nv
            })
            .collect();
        NamedValues {
            values,
            _entries: entries,
        }
    }
    pub fn as_ptr(&self) -> *const PJRT_NamedValue {
        self.values.as_ptr()
    }
    pub fn len(&self) -> usize {
        self.values.len()
    }
}

/// A value of a caller-supplied option.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum OptionValue {
    Str(String),
    Int(i64),
    IntList(Vec<i64>),
    Float(f32),
    Bool(bool),
}

/// Reads a caller's `PJRT_NamedValue` array.
///
/// # Safety
/// `ptr` must be valid for `len` named values whose pointers are valid.
pub(crate) unsafe fn read_options(
    ptr: *const PJRT_NamedValue,
    len: usize,
) -> ApiResult<Vec<(String, OptionValue)>> {
    let list = unsafe { slice(ptr, len, "create_options")? };
    let mut out = Vec::with_capacity(len);
    for nv in list {
        let name = unsafe { string_arg(nv.name, nv.name_size, "option name")? };
        // SAFETY: the union member read is the one `type_` selects.
        let value = unsafe {
            match nv.type_ {
                PJRT_NamedValue_kString => OptionValue::Str(string_arg(
                    nv.__bindgen_anon_1.string_value,
                    nv.value_size,
                    "option string value",
                )?),
                PJRT_NamedValue_kInt64 => OptionValue::Int(nv.__bindgen_anon_1.int64_value),
                PJRT_NamedValue_kInt64List => OptionValue::IntList(
                    slice(
                        nv.__bindgen_anon_1.int64_array_value,
                        nv.value_size,
                        "option list value",
                    )?
                    .to_vec(),
                ),
                PJRT_NamedValue_kFloat => OptionValue::Float(nv.__bindgen_anon_1.float_value),
                PJRT_NamedValue_kBool => OptionValue::Bool(nv.__bindgen_anon_1.bool_value),
                other => {
                    return Err(ApiError::invalid_argument(format!(
                        "option {name:?} has unknown value type {other}"
                    )))
                }
            }
        };
        out.push((name, value));
    }
    Ok(out)
}

// ---- Plugin ------------------------------------------------------------------------------------

/// The StableHLO version apu asks JAX to serialize to: the newest the readers accept (jaxlib 0.12's
/// 1.22.0; an older jaxlib clamps it to its own, 1.17.0 for 0.10.2). Decision 60.
pub(crate) const STABLEHLO_CURRENT_VERSION: [i64; 3] = [1, 22, 0];
pub(crate) const STABLEHLO_MINIMUM_VERSION: [i64; 3] = [0, 9, 0];

static PLUGIN_ATTRIBUTES: Lazy<NamedValues> = Lazy::new(|| {
    NamedValues::new(vec![
        ("xla_version".into(), AttrValue::Int(2)),
        (
            "stablehlo_current_version".into(),
            AttrValue::IntList(STABLEHLO_CURRENT_VERSION.to_vec()),
        ),
        (
            "stablehlo_minimum_version".into(),
            AttrValue::IntList(STABLEHLO_MINIMUM_VERSION.to_vec()),
        ),
    ])
});

args_min_size! {
    PJRT_Plugin_Initialize_Args => extension_start,
    // TensorFlow 2.18 (PJRT 0.54) declares the size as ending at `attributes`; see plugin_attributes.
    PJRT_Plugin_Attributes_Args => attributes,
}

pub(crate) unsafe extern "C" fn plugin_initialize(
    args: *mut PJRT_Plugin_Initialize_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Plugin_Initialize", args, |_| {
        super::logging::init();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn plugin_attributes(args: *mut PJRT_Plugin_Attributes_Args) -> *mut PJRT_Error {
    let err = entry("PJRT_Plugin_Attributes", args, |a| {
        a.attributes = PLUGIN_ATTRIBUTES.as_ptr();
        a.num_attributes = PLUGIN_ATTRIBUTES.len();
        Ok(())
    });
    // Headers up to PJRT 0.54 (TensorFlow 2.17/2.18) declared this struct's size as ending at
    // `attributes` (24 bytes) although the struct has `num_attributes` right after it, which those
    // callers read: the guard writes back only the declared bytes, so fill the count in as well.
    if err.is_null() && !args.is_null() && (*args).struct_size == 24 {
        std::ptr::addr_of_mut!((*args).num_attributes).write_unaligned(PLUGIN_ATTRIBUTES.len());
    }
    err
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_values_round_trip_through_the_reader() {
        let nv = NamedValues::new(vec![
            ("a".into(), AttrValue::Str("xyz".into())),
            ("b".into(), AttrValue::Int(-7)),
            ("c".into(), AttrValue::IntList(vec![1, 2, 3])),
        ]);
        let read = unsafe { read_options(nv.as_ptr(), nv.len()) }.unwrap();
        assert_eq!(
            read,
            vec![
                ("a".into(), OptionValue::Str("xyz".into())),
                ("b".into(), OptionValue::Int(-7)),
                ("c".into(), OptionValue::IntList(vec![1, 2, 3])),
            ]
        );
    }
}
