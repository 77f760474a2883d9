//! `jit(..., compiler_options={...})`: the overrides of XLA debug options a client sends in the
//! compile options' `env_option_overrides`, checked the way XLA's own PJRT clients check them
//! (xla/pjrt/pjrt_executable.cc, `CompileOptions::ApplyOption` and `ApplyOptionFromString`): a
//! name must be a field of XLA's `DebugOptions` ("No such compile option: '<name>'"), and its value
//! must suit the field's type ("While setting option <name>, '<value>' is not a valid <type>
//! value."). apu acts on none of these options, but a typo or a wrong value must not pass silently:
//! JAX's api_test.py asserts both errors. The effort levels (`exec_time_optimization_effort`, ...)
//! never arrive here: JAX moves them to the build options before sending (jax/_src/compiler.py).
//!
//! Where XLA's string parsing has gaps (no string form for double fields, 32-bit parsing for int64
//! fields) apu accepts what the field can hold; where XLA accepts only "True"/"False" for a bool
//! given as a string, apu also accepts "true"/"false".

use super::debug_option_fields::DEBUG_OPTION_FIELDS;
use crate::hlo::proto::option_override_proto::Value;
use crate::hlo::proto::OptionOverrideProto;
use crate::{Error, Result};
use std::collections::HashMap;

/// The type of a `DebugOptions` field, as far as an override can set it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FieldKind {
    Bool,
    Int32,
    Int64,
    Float,
    #[allow(dead_code)] // no DebugOptions field of jaxlib 0.10.2 or 0.12.0.1 is a double
    Double,
    String,
    /// A repeated field of the named element type: no override can set it.
    Repeated(&'static str),
    /// An enum or message field: no override can set it.
    Other(&'static str),
}

impl FieldKind {
    /// The name protobuf gives the type (what XLA's message prints).
    fn type_name(self) -> &'static str {
        match self {
            FieldKind::Bool => "bool",
            FieldKind::Int32 => "int32",
            FieldKind::Int64 => "int64",
            FieldKind::Float => "float",
            FieldKind::Double => "double",
            FieldKind::String => "string",
            FieldKind::Repeated(t) | FieldKind::Other(t) => t,
        }
    }
}

fn field(name: &str) -> Option<FieldKind> {
    DEBUG_OPTION_FIELDS.binary_search_by(|(n, _)| (*n).cmp(name)).ok().map(|i| DEBUG_OPTION_FIELDS[i].1)
}

/// Checks every override (in name order, so that the first error is always the same one).
pub(super) fn check(overrides: &HashMap<String, OptionOverrideProto>) -> Result<()> {
    let mut names: Vec<&String> = overrides.keys().collect();
    names.sort();
    for name in names {
        check_one(name, overrides[name].value.as_ref())?;
    }
    Ok(())
}

fn check_one(name: &str, value: Option<&Value>) -> Result<()> {
    let kind = field(name).ok_or_else(|| Error::invalid(format!("No such compile option: '{name}'")))?;
    let value = value.ok_or_else(|| Error::invalid(format!("compile option '{name}': the override has no value")))?;
    let fits = match (kind, value) {
        (FieldKind::Bool, Value::BoolField(_)) => true,
        (FieldKind::Int32, Value::IntField(v)) => i32::try_from(*v).is_ok(),
        (FieldKind::Int64, Value::IntField(_)) => true,
        (FieldKind::Float | FieldKind::Double, Value::DoubleField(_)) => true,
        (_, Value::StringField(s)) => parses_as(kind, s),
        _ => false,
    };
    if fits {
        return Ok(());
    }
    let shown = match value {
        Value::StringField(s) => s.clone(),
        Value::BoolField(b) => b.to_string(),
        Value::IntField(i) => i.to_string(),
        Value::DoubleField(d) => d.to_string(),
    };
    Err(Error::invalid(format!(
        "While setting option {name}, '{shown}' is not a valid {} value.",
        kind.type_name()
    )))
}

fn parses_as(kind: FieldKind, s: &str) -> bool {
    let t = s.trim();
    match kind {
        FieldKind::String => true,
        FieldKind::Bool => matches!(t, "True" | "False" | "true" | "false"),
        FieldKind::Int32 => t.parse::<i32>().is_ok(),
        FieldKind::Int64 => t.parse::<i64>().is_ok(),
        FieldKind::Float => t.parse::<f32>().is_ok(),
        FieldKind::Double => t.parse::<f64>().is_ok(),
        FieldKind::Repeated(_) | FieldKind::Other(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(name: &str, value: Value) -> HashMap<String, OptionOverrideProto> {
        HashMap::from([(name.to_string(), OptionOverrideProto { value: Some(value) })])
    }

    fn message(name: &str, value: Value) -> String {
        check(&one(name, value)).map(|_| String::new()).unwrap_or_else(|e| e.to_string())
    }

    #[test]
    fn the_field_table_is_sorted_and_has_the_fields_jax_tests_use() {
        assert!(DEBUG_OPTION_FIELDS.windows(2).all(|w| w[0].0 < w[1].0), "binary search needs sorted names");
        assert_eq!(field("xla_embed_ir_in_executable"), Some(FieldKind::Bool));
        assert_eq!(field("xla_dump_to"), Some(FieldKind::String));
        assert_eq!(field("xla_backend_optimization_level"), Some(FieldKind::Int32));
        assert_eq!(field("invalid_key"), None);
    }

    #[test]
    fn unknown_names_are_refused_by_name() {
        let m = message("invalid_key", Value::StringField("invalid_value".into()));
        assert!(m.contains("No such compile option: 'invalid_key'"), "{m}");
        // An effort level is a build option: JAX never sends it here, and a misspelling is unknown.
        let m = message("exec_time_compilation_effort", Value::DoubleField(0.0));
        assert!(m.contains("No such compile option"), "{m}");
    }

    #[test]
    fn values_must_suit_the_field_type() {
        let m = message("xla_embed_ir_in_executable", Value::StringField("invalid_value".into()));
        assert!(m.contains("While setting option xla_embed_ir_in_executable, 'invalid_value' is not a valid bool value."), "{m}");
        assert_eq!(message("xla_embed_ir_in_executable", Value::BoolField(true)), "");
        assert_eq!(message("xla_embed_ir_in_executable", Value::StringField("True".into())), "");
        assert!(message("xla_embed_ir_in_executable", Value::IntField(1)).contains("not a valid bool value"));
        assert_eq!(message("xla_backend_optimization_level", Value::IntField(2)), "");
        assert_eq!(message("xla_backend_optimization_level", Value::StringField(" 3".into())), "");
        let m = message("xla_backend_optimization_level", Value::IntField(1 << 40));
        assert!(m.contains("is not a valid int32 value"), "{m}");
        assert!(message("xla_backend_optimization_level", Value::DoubleField(1.5)).contains("int32"));
        assert_eq!(message("xla_dump_to", Value::StringField("/tmp/x".into())), "");
        assert!(message("xla_dump_to", Value::BoolField(true)).contains("not a valid string value"));
    }

    #[test]
    fn enum_and_repeated_fields_cannot_be_overridden() {
        let (name, kind) = DEBUG_OPTION_FIELDS
            .iter()
            .find(|(_, k)| matches!(k, FieldKind::Repeated(_)))
            .expect("DebugOptions has repeated fields");
        let m = message(name, Value::StringField("x".into()));
        assert!(m.contains(&format!("is not a valid {} value", kind.type_name())), "{m}");
    }

    #[test]
    fn an_override_without_a_value_is_an_error() {
        let map = HashMap::from([("xla_dump_to".to_string(), OptionOverrideProto { value: None })]);
        assert!(check(&map).is_err());
    }
}
