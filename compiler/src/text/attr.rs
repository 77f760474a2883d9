//! Attribute values as the text reader sees them, and their MLIR spelling (used by the printer).
//! Typed op attributes are built from these in `opdefs.rs`.

use crate::ir::{ConvDims, ElementType, Literal, Type};
use std::fmt;

/// A type in attribute or signature position: IR value types plus the few builtin types that only
/// appear inside attributes.
#[derive(Clone, Debug, PartialEq)]
pub enum SynType {
    Value(Type),
    /// A bare scalar type such as `i32` in `1 : i32`.
    Scalar(ElementType),
    Function(Vec<Type>, Vec<Type>),
    Index,
    None,
}

impl fmt::Display for SynType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SynType::Value(t) => write!(f, "{t}"),
            SynType::Scalar(e) => write!(f, "{e}"),
            SynType::Function(ins, outs) => {
                write!(f, "(")?;
                write_list(f, ins)?;
                write!(f, ") -> ")?;
                write_results(f, outs)
            }
            SynType::Index => write!(f, "index"),
            SynType::None => write!(f, "none"),
        }
    }
}

/// Writes `a, b, c`.
pub fn write_list<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T]) -> fmt::Result {
    for (i, t) in items.iter().enumerate() {
        if i > 0 {
            write!(f, ", ")?;
        }
        write!(f, "{t}")?;
    }
    Ok(())
}

/// Writes result types: a single non-function type bare, otherwise parenthesized.
pub fn write_results(f: &mut fmt::Formatter<'_>, outs: &[Type]) -> fmt::Result {
    if outs.len() == 1 {
        write!(f, "{}", outs[0])
    } else {
        write!(f, "(")?;
        write_list(f, outs)?;
        write!(f, ")")
    }
}

/// One attribute value.
#[derive(Clone, Debug, PartialEq)]
pub enum Attr {
    Unit,
    Bool(bool),
    /// An integer with its type (`None`: untyped, which MLIR reads as i64).
    Int(i128, Option<ElementType>),
    Float(f64, Option<ElementType>),
    Str(String),
    Type(SynType),
    Array(Vec<Attr>),
    /// `array<i64: 1, 2>`; booleans are 0/1.
    DenseArray(ElementType, Vec<i128>),
    /// `dense<...> : tensor<...>`.
    Dense(Literal),
    Dict(Vec<(String, Attr)>),
    SymbolRef(String),
    /// `#stablehlo<comparison_direction LT>`: (kind, value).
    Enum(String, String),
    /// `#stablehlo.gather<offset_dims = [1], ...>`: (name after `#stablehlo.`, fields).
    Struct(String, Vec<(String, Attr)>),
    /// `#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>`.
    Conv(ConvDims),
    /// Something apu keeps only as text (for example `#sdy.sharding<...>`).
    Opaque(String),
}

impl Attr {
    pub fn as_int(&self) -> Option<i128> {
        match self {
            Attr::Int(v, _) => Some(*v),
            Attr::Bool(b) => Some(*b as i128),
            _ => None,
        }
    }
    pub fn kind_name(&self) -> &'static str {
        match self {
            Attr::Unit => "unit",
            Attr::Bool(_) => "bool",
            Attr::Int(..) => "integer",
            Attr::Float(..) => "float",
            Attr::Str(_) => "string",
            Attr::Type(_) => "type",
            Attr::Array(_) => "array",
            Attr::DenseArray(..) => "array<...>",
            Attr::Dense(_) => "dense elements",
            Attr::Dict(_) => "dictionary",
            Attr::SymbolRef(_) => "symbol reference",
            Attr::Enum(..) => "enum",
            Attr::Struct(..) => "struct attribute",
            Attr::Conv(_) => "convolution dimension numbers",
            Attr::Opaque(_) => "opaque attribute",
        }
    }
}

/// Writes a string literal with MLIR escapes.
pub fn write_string(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    write!(f, "\"")?;
    for b in s.bytes() {
        match b {
            b'"' => write!(f, "\\\"")?,
            b'\\' => write!(f, "\\\\")?,
            b'\n' => write!(f, "\\n")?,
            b'\t' => write!(f, "\\t")?,
            0x20..=0x7e => write!(f, "{}", b as char)?,
            _ => write!(f, "\\{b:02X}")?,
        }
    }
    write!(f, "\"")
}

/// Writes a symbol reference, quoting names that are not bare identifiers.
pub fn write_symbol(f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
    let bare = name.bytes().next().is_some_and(|c| c.is_ascii_alphabetic() || c == b'_' || c == b'$')
        && name.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-'));
    if bare {
        write!(f, "@{name}")
    } else {
        write!(f, "@")?;
        write_string(f, name)
    }
}

/// Writes a dictionary key, quoting it when needed.
pub fn write_key(f: &mut fmt::Formatter<'_>, key: &str) -> fmt::Result {
    let bare = key.bytes().next().is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && key.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.'));
    if bare {
        write!(f, "{key}")
    } else {
        write_string(f, key)
    }
}

pub fn write_dict(f: &mut fmt::Formatter<'_>, entries: &[(String, Attr)]) -> fmt::Result {
    write!(f, "{{")?;
    for (i, (k, v)) in entries.iter().enumerate() {
        if i > 0 {
            write!(f, ", ")?;
        }
        write_key(f, k)?;
        if *v != Attr::Unit {
            write!(f, " = {v}")?;
        }
    }
    write!(f, "}}")
}

fn write_i64s(f: &mut fmt::Formatter<'_>, v: &[i64]) -> fmt::Result {
    write!(f, "[")?;
    write_list(f, v)?;
    write!(f, "]")
}

/// Writes one side of convolution dimension numbers, e.g. `[b, 0, 1, f]`.
fn write_conv_side(f: &mut fmt::Formatter<'_>, rank: usize, a: (i64, char), b: (i64, char), spatial: &[i64]) -> fmt::Result {
    let mut labels = vec![String::from("?"); rank];
    for (pos, ch) in [a, b] {
        if let Some(slot) = labels.get_mut(pos as usize) {
            *slot = ch.to_string();
        }
    }
    for (i, &s) in spatial.iter().enumerate() {
        if let Some(slot) = labels.get_mut(s as usize) {
            *slot = i.to_string();
        }
    }
    write!(f, "[")?;
    write_list(f, &labels)?;
    write!(f, "]")
}

pub fn write_conv_dims(f: &mut fmt::Formatter<'_>, d: &ConvDims) -> fmt::Result {
    let rank = d.input_spatial.len() + 2;
    write_conv_side(f, rank, (d.input_batch, 'b'), (d.input_feature, 'f'), &d.input_spatial)?;
    write!(f, "x")?;
    write_conv_side(f, rank, (d.kernel_input_feature, 'i'), (d.kernel_output_feature, 'o'), &d.kernel_spatial)?;
    write!(f, "->")?;
    write_conv_side(f, rank, (d.output_batch, 'b'), (d.output_feature, 'f'), &d.output_spatial)
}

impl fmt::Display for Attr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Attr::Unit => write!(f, "unit"),
            Attr::Bool(b) => write!(f, "{b}"),
            Attr::Int(v, None) => write!(f, "{v}"),
            Attr::Int(v, Some(t)) => write!(f, "{v} : {t}"),
            Attr::Float(v, t) => {
                super::literal_text::write_float(f, *v, t.unwrap_or(ElementType::F64))?;
                if let Some(t) = t {
                    write!(f, " : {t}")?;
                }
                Ok(())
            }
            Attr::Str(s) => write_string(f, s),
            Attr::Type(t) => write!(f, "{t}"),
            Attr::Array(items) => {
                write!(f, "[")?;
                write_list(f, items)?;
                write!(f, "]")
            }
            Attr::DenseArray(t, vals) => {
                write!(f, "array<{t}")?;
                if !vals.is_empty() {
                    write!(f, ": ")?;
                    for (i, v) in vals.iter().enumerate() {
                        if i > 0 {
                            write!(f, ", ")?;
                        }
                        if t.is_pred() {
                            write!(f, "{}", *v != 0)?;
                        } else {
                            write!(f, "{v}")?;
                        }
                    }
                }
                write!(f, ">")
            }
            Attr::Dense(lit) => super::literal_text::write_dense(f, lit),
            Attr::Dict(entries) => write_dict(f, entries),
            Attr::SymbolRef(s) => write_symbol(f, s),
            Attr::Enum(kind, value) => write!(f, "#stablehlo<{kind} {value}>"),
            Attr::Struct(name, fields) => {
                write!(f, "#stablehlo.{name}<")?;
                for (i, (k, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{k} = {v}")?;
                }
                write!(f, ">")
            }
            Attr::Conv(d) => {
                write!(f, "#stablehlo.conv<")?;
                write_conv_dims(f, d)?;
                write!(f, ">")
            }
            Attr::Opaque(s) => write!(f, "{s}"),
        }
    }
}

/// `[1, 2]` as an attribute-style list (used by pretty forms).
pub struct I64List<'a>(pub &'a [i64]);

impl fmt::Display for I64List<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_i64s(f, self.0)
    }
}
