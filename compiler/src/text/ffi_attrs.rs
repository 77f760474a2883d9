//! A typed-FFI custom call's attributes in StableHLO text (`mhlo.backend_config = {eps = 1.0e-05 : f32}`),
//! both ways: the reader keeps each value's exact type, the printer writes it back.

use super::attr::Attr;
use crate::ir::{ElementType, FfiAttr, Literal, TensorType};

type R<T> = std::result::Result<T, String>;

/// The FFI attributes of a custom call whose `mhlo.backend_config` is a dictionary, else None.
pub fn read(config: Option<&Attr>) -> R<Option<Vec<(String, FfiAttr)>>> {
    match config {
        Some(Attr::Dict(entries)) => dict(entries).map(Some),
        _ => Ok(None),
    }
}

fn dict(entries: &[(String, Attr)]) -> R<Vec<(String, FfiAttr)>> {
    entries.iter().map(|(k, v)| value(v).map(|v| (k.clone(), v)).map_err(|e| format!("FFI attribute '{k}': {e}"))).collect()
}

fn value(a: &Attr) -> R<FfiAttr> {
    let message = |e: crate::Error| e.message;
    Ok(match a {
        Attr::Bool(b) => FfiAttr::bool(*b),
        // An untyped integer is an i64 and an untyped float an f64, as MLIR reads them.
        Attr::Int(v, t) => {
            let elem = t.unwrap_or(ElementType::S64);
            if elem.is_float() {
                FfiAttr::float(elem, *v as f64).map_err(message)?
            } else {
                FfiAttr::scalar_from_bits(elem, *v as u64).map_err(message)?
            }
        }
        Attr::Float(v, t) => FfiAttr::float(t.unwrap_or(ElementType::F64), *v).map_err(message)?,
        Attr::Str(s) => FfiAttr::String(s.clone()),
        Attr::Dict(entries) => FfiAttr::Dict(dict(entries)?),
        Attr::Dense(lit) => FfiAttr::array(lit.clone()).map_err(message)?,
        Attr::DenseArray(elem, values) => {
            let width = elem.byte_size();
            let bytes: Vec<u8> = values.iter().flat_map(|&v| (v as u64).to_le_bytes()[..width].to_vec()).collect();
            let lit = Literal::dense(TensorType::new(vec![values.len() as i64], *elem), bytes).map_err(message)?;
            FfiAttr::array(lit).map_err(message)?
        }
        other => return Err(format!("an FFI attribute cannot be a {}", other.kind_name())),
    })
}

/// `output_operand_aliases = [#stablehlo.output_operand_alias<...>]` as (result, operand) pairs; tuple
/// results or operands are refused (apu's programs have none).
pub fn read_aliases(a: &Attr) -> R<Vec<(usize, usize)>> {
    let Attr::Array(items) = a else {
        return Err(format!("output_operand_aliases must be a list, found {}", a.kind_name()));
    };
    let ints = |a: Option<&Attr>| -> R<Vec<i128>> {
        match a {
            None => Ok(Vec::new()),
            Some(Attr::Array(v)) => v.iter().map(|x| x.as_int().ok_or_else(|| "expected integers".to_string())).collect(),
            Some(Attr::DenseArray(_, v)) => Ok(v.clone()),
            Some(other) => Err(format!("expected a list of integers, found {}", other.kind_name())),
        }
    };
    items
        .iter()
        .map(|item| {
            let Attr::Struct(kind, fields) = item else {
                return Err(format!("expected #stablehlo.output_operand_alias, found {}", item.kind_name()));
            };
            let field = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, v)| v);
            if kind != "output_operand_alias" {
                return Err(format!("expected #stablehlo.output_operand_alias, found #stablehlo.{kind}"));
            }
            let output = ints(field("output_tuple_indices"))?;
            let operand = field("operand_index").and_then(Attr::as_int).ok_or("output_operand_alias without operand_index")?;
            let operand_index = ints(field("operand_tuple_indices"))?;
            if output.len() > 1 || !operand_index.is_empty() || operand < 0 {
                return Err(format!("output_operand_alias of output {output:?} to operand {operand} {operand_index:?} (tuples) is not supported"));
            }
            Ok((output.first().copied().unwrap_or(0) as usize, operand as usize))
        })
        .collect()
}

/// `operand_layouts = [dense<[1, 0]> : tensor<2xindex>, ...]`: a minor-to-major list per value.
pub fn read_layouts(a: Option<&Attr>) -> R<Vec<Vec<i64>>> {
    let Some(a) = a else { return Ok(Vec::new()) };
    let Attr::Array(items) = a else {
        return Err(format!("layouts must be a list, found {}", a.kind_name()));
    };
    items
        .iter()
        .map(|item| match item {
            Attr::Dense(lit) if lit.ty.shape.len() <= 1 && lit.ty.elem.byte_size() == 8 => Ok(lit
                .to_dense_bytes()
                .chunks_exact(8)
                .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect()),
            Attr::Array(v) => v.iter().map(|x| x.as_int().map(|i| i as i64).ok_or_else(|| "expected integers".to_string())).collect(),
            other => Err(format!("a layout must be a dense list of indices, found {}", other.kind_name())),
        })
        .collect()
}

pub fn write_layouts(layouts: &[Vec<i64>]) -> Attr {
    Attr::Array(
        layouts
            .iter()
            .map(|l| {
                let bytes = l.iter().flat_map(|v| v.to_le_bytes()).collect();
                Literal::dense(TensorType::new(vec![l.len() as i64], ElementType::S64), bytes)
                    .map(Attr::Dense)
                    .unwrap_or_else(|_| Attr::Array(Vec::new()))
            })
            .collect(),
    )
}

/// The printer's form of `output_operand_aliases` (results are named by index, as for a tuple).
pub fn write_aliases(aliases: &[(usize, usize)]) -> Attr {
    let list = |v: Vec<i128>| Attr::Array(v.into_iter().map(|x| Attr::Int(x, None)).collect());
    Attr::Array(
        aliases
            .iter()
            .map(|&(result, operand)| {
                Attr::Struct(
                    "output_operand_alias".into(),
                    vec![
                        ("output_tuple_indices".into(), list(vec![result as i128])),
                        ("operand_index".into(), Attr::Int(operand as i128, None)),
                        ("operand_tuple_indices".into(), list(vec![])),
                    ],
                )
            })
            .collect(),
    )
}

/// The printer's form of FFI attributes (a dictionary).
pub fn write(attrs: &[(String, FfiAttr)]) -> Attr {
    Attr::Dict(attrs.iter().map(|(k, v)| (k.clone(), write_value(v))).collect())
}

fn write_value(v: &FfiAttr) -> Attr {
    match v {
        FfiAttr::Scalar(lit) => scalar(lit),
        FfiAttr::Array(lit) => Attr::Dense(lit.clone()),
        FfiAttr::String(s) => Attr::Str(s.clone()),
        FfiAttr::Dict(entries) => write(entries),
    }
}

fn scalar(lit: &Literal) -> Attr {
    let elem = lit.ty.elem;
    let mut raw = [0u8; 8];
    let n = lit.bytes.len().min(8);
    raw[..n].copy_from_slice(&lit.bytes[..n]);
    let bits = u64::from_le_bytes(raw);
    match elem {
        ElementType::Pred => Attr::Bool(bits != 0),
        ElementType::F64 => Attr::Float(f64::from_bits(bits), Some(elem)),
        ElementType::F32 => Attr::Float(f64::from(f32::from_bits(bits as u32)), Some(elem)),
        ElementType::F16 => Attr::Float(half::f16::from_bits(bits as u16).to_f64(), Some(elem)),
        ElementType::BF16 => Attr::Float(half::bf16::from_bits(bits as u16).to_f64(), Some(elem)),
        e if e.is_signed_int() => {
            let shift = 64 - 8 * n as u32;
            Attr::Int(i128::from(((bits << shift) as i64) >> shift), Some(e))
        }
        e => Attr::Int(i128::from(bits), Some(e)),
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{ElementType, FfiAttr, OpKind};

    const PROGRAM: &str = r#"
func.func public @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = stablehlo.custom_call @my_op(%x) {backend_config = "", mhlo.backend_config = {arr = dense<[1, 2]> : tensor<2xi64>, eps = 9.99999974E-6 : f32, flag = true, n = -3 : i32, name = "abc", pyf = 2.5 : f64, u = 200 : ui8, nested = {k = 4 : i16}}} : (tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
"#;

    fn ffi_attributes(m: &crate::ir::Module) -> Vec<(String, FfiAttr)> {
        match &m.functions[0].body.ops[0].kind {
            OpKind::CustomCall { ffi_attributes: Some(a), .. } => a.clone(),
            other => panic!("expected a typed FFI custom call, got {other:?}"),
        }
    }

    #[test]
    fn ffi_attributes_keep_their_types_and_survive_printing() {
        let m = crate::text::parse_module(PROGRAM).unwrap();
        let attrs = ffi_attributes(&m);
        let get = |k: &str| attrs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()).unwrap();
        let scalar = |k: &str| match get(k) {
            FfiAttr::Scalar(l) => (l.ty.elem, l.bytes.to_vec()),
            other => panic!("{k}: {other:?}"),
        };
        assert_eq!(scalar("eps"), (ElementType::F32, 9.99999974e-6f32.to_le_bytes().to_vec()));
        assert_eq!(scalar("n"), (ElementType::S32, (-3i32).to_le_bytes().to_vec()));
        assert_eq!(scalar("u"), (ElementType::U8, vec![200]));
        assert_eq!(scalar("flag"), (ElementType::Pred, vec![1]));
        assert_eq!(scalar("pyf"), (ElementType::F64, 2.5f64.to_le_bytes().to_vec()));
        assert_eq!(get("name"), FfiAttr::String("abc".into()));
        match get("arr") {
            FfiAttr::Array(l) => assert_eq!((l.ty.elem, l.ty.shape.clone(), l.bytes.len()), (ElementType::S64, vec![2], 16)),
            other => panic!("arr: {other:?}"),
        }
        assert!(matches!(get("nested"), FfiAttr::Dict(d) if d.len() == 1));

        let printed = crate::print::print_module(&m);
        let again = crate::text::parse_module(&printed).unwrap_or_else(|e| panic!("{e}\n{printed}"));
        assert_eq!(ffi_attributes(&again), attrs, "{printed}");
    }

    #[test]
    fn output_operand_aliases_are_read_and_printed() {
        let text = r#"
func.func public @main(%a: tensor<3xf32>, %b: tensor<2xf32>) -> (tensor<3xf32>, tensor<2xf32>) {
  %r:2 = stablehlo.custom_call @t(%a, %b) {backend_config = "", mhlo.backend_config = {}, output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [1], operand_index = 1, operand_tuple_indices = []>]} : (tensor<3xf32>, tensor<2xf32>) -> (tensor<3xf32>, tensor<2xf32>)
  return %r#0, %r#1 : tensor<3xf32>, tensor<2xf32>
}
"#;
        let aliases = |m: &crate::ir::Module| match &m.functions[0].body.ops[0].kind {
            OpKind::CustomCall { output_operand_aliases, .. } => output_operand_aliases.clone(),
            other => panic!("{other:?}"),
        };
        let m = crate::text::parse_module(text).unwrap();
        assert_eq!(aliases(&m), vec![(1, 1)]);
        let printed = crate::print::print_module(&m);
        assert_eq!(aliases(&crate::text::parse_module(&printed).unwrap()), vec![(1, 1)], "{printed}");
    }
}
