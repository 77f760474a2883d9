//! The function table, plugin attributes and error objects.
use crate::conformance::handles::Client;
use crate::conformance::plugin::{bytes_to_string, Plugin};
use crate::conformance::runner::{CaseResult, Skip};
use crate::{pjrt_args, pjrt_call};
use anyhow::{bail, ensure};
use apu_pjrt_api::*;
use std::collections::BTreeMap;

/// Slots a framework skips when NULL (jax-pjrt-contract.md §8.3); every other slot is called
/// without a NULL check once the reported minor version covers it.
const NULL_CHECKED_SLOTS: [usize; 2] = [128, 130];

/// Version 0.x with x at least jaxlib's minimum (29), and every slot of the 0.112 table present.
pub fn api_version_and_table(plugin: &Plugin) -> CaseResult {
    let api = plugin.api();
    let version = &api.pjrt_api_version;
    ensure!(version.major_version == 0, "major version {} (frameworks require 0)", version.major_version);
    ensure!(version.minor_version >= 29, "minor version {} is below jaxlib's minimum 0.29", version.minor_version);
    ensure!(
        api.struct_size >= API_STRUCT_SIZE,
        "PJRT_Api.struct_size {} < {} (a 0.112 framework reads all 138 slots)",
        api.struct_size,
        API_STRUCT_SIZE
    );
    // Read the slots as raw words so that a NULL is reported by index rather than by name.
    let words = plugin.raw_api() as *const usize;
    let mut missing = Vec::new();
    for slot in 0..API_SLOT_COUNT {
        let value = unsafe { *words.add(API_FIRST_SLOT_OFFSET / 8 + slot) };
        if value == 0 && !NULL_CHECKED_SLOTS.contains(&slot) {
            missing.push(slot);
        }
    }
    ensure!(missing.is_empty(), "NULL function slots (indices): {missing:?}");
    Ok(())
}

/// apu's own promise: exactly 0.112 and exactly the 1144-byte table.
pub fn apu_reports_0_112(plugin: &Plugin) -> CaseResult {
    let api = plugin.api();
    ensure!(
        (api.pjrt_api_version.major_version, api.pjrt_api_version.minor_version) == (0, 112),
        "apu reports {}.{}",
        api.pjrt_api_version.major_version,
        api.pjrt_api_version.minor_version
    );
    ensure!(api.struct_size == 1144, "PJRT_Api.struct_size {}", api.struct_size);
    ensure!(
        api.pjrt_api_version.struct_size >= PJRT_Api_Version_STRUCT_SIZE as usize,
        "pjrt_api_version.struct_size {}",
        api.pjrt_api_version.struct_size
    );
    Ok(())
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    String(String),
    Int64(i64),
    Int64List(Vec<i64>),
    Float(f32),
    Bool(bool),
}

/// Decodes a plugin-owned NamedValue array.
pub fn named_values(values: *const PJRT_NamedValue, count: usize) -> anyhow::Result<Vec<(String, Value)>> {
    let mut out = Vec::new();
    for i in 0..count {
        let nv = unsafe { &*values.add(i) };
        let name = unsafe { bytes_to_string(nv.name, nv.name_size) };
        let value = unsafe {
            match nv.type_ {
                PJRT_NamedValue_kString => Value::String(bytes_to_string(nv.__bindgen_anon_1.string_value, nv.value_size)),
                PJRT_NamedValue_kInt64 => Value::Int64(nv.__bindgen_anon_1.int64_value),
                PJRT_NamedValue_kInt64List => {
                    let ptr = nv.__bindgen_anon_1.int64_array_value;
                    Value::Int64List(if nv.value_size == 0 { vec![] } else { std::slice::from_raw_parts(ptr, nv.value_size).to_vec() })
                }
                PJRT_NamedValue_kFloat => Value::Float(nv.__bindgen_anon_1.float_value),
                PJRT_NamedValue_kBool => Value::Bool(nv.__bindgen_anon_1.bool_value),
                other => bail!("attribute {name:?} has unknown type {other}"),
            }
        };
        out.push((name, value));
    }
    Ok(out)
}

/// The three attributes upstream's test requires, with unique names and sane values.
pub fn plugin_attributes(plugin: &Plugin) -> CaseResult {
    let mut args = pjrt_args!(PJRT_Plugin_Attributes_Args {});
    pjrt_call!(plugin, PJRT_Plugin_Attributes, &mut args)?;
    let attributes = named_values(args.attributes, args.num_attributes)?;
    let mut by_name = BTreeMap::new();
    for (name, value) in attributes {
        ensure!(by_name.insert(name.clone(), value).is_none(), "attribute {name:?} appears twice");
    }
    match by_name.get("xla_version") {
        Some(Value::Int64(_)) => {}
        other => bail!("xla_version should be an Int64, found {other:?}"),
    }
    let version = |key: &str| -> anyhow::Result<Vec<i64>> {
        match by_name.get(key) {
            Some(Value::Int64List(v)) if v.len() == 3 && v.iter().all(|x| *x >= 0) => Ok(v.clone()),
            other => bail!("{key} should be an Int64List [major, minor, patch], found {other:?}"),
        }
    };
    let current = version("stablehlo_current_version")?;
    let minimum = version("stablehlo_minimum_version")?;
    ensure!(minimum <= current, "stablehlo_minimum_version {minimum:?} > stablehlo_current_version {current:?}");
    Ok(())
}

/// Errors carry a real code and message; Error_Destroy accepts NULL.
pub fn error_objects(plugin: &Plugin) -> CaseResult {
    let client = Client::create(plugin)?;
    let error = match client.lookup_device(1 << 20) {
        Ok(device) => bail!("PJRT_Client_LookupDevice(1<<20) succeeded with {device:?}"),
        Err(e) => e,
    };
    ensure!(error.code == PJRT_Error_Code_INVALID_ARGUMENT, "code {} for an unknown device id", error.code);
    ensure!(!error.message.is_empty(), "empty error message");
    let mut destroy_null = pjrt_args!(PJRT_Error_Destroy_Args {});
    if let Some(f) = plugin.api().PJRT_Error_Destroy {
        unsafe { f(&mut destroy_null) };
    }
    Ok(())
}

/// Since the error object has a visible function table, a caller may use it directly.
pub fn error_function_table(plugin: &Plugin) -> CaseResult {
    // Before the function table existed (it is absent from the 0.94 header and present at
    // 0.112) the first word of an error is private to the plugin.
    if plugin.version().1 < 112 {
        return Err(Skip(format!("plugin reports 0.{}; PJRT_Error has a function table from 0.112 on", plugin.version().1)).into());
    }
    let client = Client::create(plugin)?;
    let mut args = pjrt_args!(PJRT_Client_LookupDevice_Args { client: client.raw, id: 1 << 20 });
    let f = plugin.api().PJRT_Client_LookupDevice.ok_or_else(|| anyhow::anyhow!("slot NULL"))?;
    let error = unsafe { f(&mut args) };
    ensure!(!error.is_null(), "lookup of an unknown device id succeeded");
    let vtable = unsafe { (*error).vtable };
    let check = (|| -> anyhow::Result<()> {
        ensure!(!vtable.is_null(), "PJRT_Error.vtable is NULL");
        let table = unsafe { &*vtable };
        ensure!(table.struct_size >= PJRT_Error_FunctionTable_STRUCT_SIZE as usize, "table struct_size {}", table.struct_size);
        let get_code = table.get_code.ok_or_else(|| anyhow::anyhow!("get_code NULL"))?;
        let message = table.message.ok_or_else(|| anyhow::anyhow!("message NULL"))?;
        ensure!(unsafe { get_code(error) } == PJRT_Error_Code_INVALID_ARGUMENT, "vtable get_code disagrees");
        let (mut text, mut len) = (std::ptr::null(), 0usize);
        unsafe { message(error, &mut text, &mut len) };
        ensure!(len > 0 && !text.is_null(), "vtable message empty");
        Ok(())
    })();
    plugin.check(error).err(); // destroys it through the regular slot
    check?;
    Ok(())
}
