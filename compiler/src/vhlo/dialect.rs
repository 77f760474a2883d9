//! Binary encodings of VHLO attributes and types (`AttributeCode` / `TypeCode` of StableHLO's
//! `VhloBytecode.cpp`, tabled in `program-formats.md` §4.3–4.4), decoded into the shared model.

use crate::bytecode::builtin::read_scalar_bits;
use crate::bytecode::{Attr, DialectDecoder, FloatKind, Reader, Signedness, Table, Ty};
use crate::{Error, Result};
use std::rc::Rc;

pub struct VhloDecoder;

/// Names of VHLO enum attributes, by attribute code.
fn enum_name(code: u64) -> Option<&'static str> {
    Some(match code {
        3 => "comparison_direction",
        4 => "comparison_type",
        5 => "custom_call_api_version",
        7 => "fft_type",
        11 => "precision",
        12 => "rng_algorithm",
        13 => "rng_distribution",
        16 => "transpose",
        19 => "result_accuracy_mode",
        _ => return None,
    })
}

impl DialectDecoder for VhloDecoder {
    fn decode_attr(&self, r: &mut Reader<'_>, t: &mut Table<'_>) -> Result<Attr> {
        let code = r.varint()?;
        if let Some(name) = enum_name(code) {
            let value = r.varint()?;
            return Ok(Attr::Enum { name, value });
        }
        let dialect = |name, fields| Attr::Dialect { dialect: "vhlo", name, fields };
        Ok(match code {
            1 => Attr::Array(t.read_attr_list(r)?),
            2 => match r.varint()? {
                0 => Attr::Bool(false),
                1 => Attr::Bool(true),
                v => return Err(r.error(format!("vhlo.bool_v1 with value {v}"))),
            },
            6 => Attr::Dict(t.read_list(r, |t, r| {
                let key = t.read_attr(r)?;
                let key = key.as_str().ok_or_else(|| r.error("vhlo.dict_v1 key is not a string"))?.to_string();
                Ok((key, t.read_attr(r)?))
            })?),
            8 => {
                let ty = t.read_type(r)?;
                let bits = read_scalar_bits(r, &ty)?;
                Attr::Float { ty, bits }
            }
            9 => {
                let ty = t.read_type(r)?;
                let value = read_scalar_bits(r, &ty)?;
                Attr::Integer { ty, value }
            }
            10 => {
                let output = t.read_list(r, |_, r| r.svarint())?;
                let operand = r.svarint()?;
                let operand_index = t.read_list(r, |_, r| r.svarint())?;
                let fields = vec![Rc::new(Attr::Ints(output)), Rc::new(Attr::Int(operand)), Rc::new(Attr::Ints(operand_index))];
                dialect("output_operand_alias", fields)
            }
            14 => Attr::String(t.read_string(r)?.to_string()),
            15 => {
                let ty = t.read_type(r)?;
                Attr::DenseElements { ty, data: r.blob()?.to_vec() }
            }
            17 => Attr::Type(t.read_type(r)?),
            18 => dialect("type_extensions", vec![Rc::new(Attr::Ints(t.read_list(r, |_, r| r.svarint())?))]),
            20 => {
                let atol = r.apint(64)?.first().copied().unwrap_or(0);
                let rtol = r.apint(64)?.first().copied().unwrap_or(0);
                let ulps = r.svarint()?;
                let mode = t.read_attr(r)?;
                let f64_ty = Rc::new(Ty::Float(FloatKind::F64));
                let fields = vec![
                    Rc::new(Attr::Float { ty: f64_ty.clone(), bits: atol }),
                    Rc::new(Attr::Float { ty: f64_ty, bits: rtol }),
                    Rc::new(Attr::Int(ulps)),
                    mode,
                ];
                dialect("result_accuracy", fields)
            }
            21 => dialect("sub_axis_info", vec![Rc::new(Attr::Int(r.svarint()?)), Rc::new(Attr::Int(r.svarint()?))]),
            22 => {
                let name = t.read_attr(r)?;
                let mut fields = vec![name];
                if r.varint()? != 0 {
                    fields.push(t.read_attr(r)?);
                }
                dialect("axis_ref", fields)
            }
            23 => dialect("replica_group_mesh_axes", vec![t.read_attr(r)?, t.read_attr(r)?]),
            24 => {
                let name = t.read_attr(r)?;
                dialect("mesh_axis", vec![name, Rc::new(Attr::Int(r.svarint()?))])
            }
            25 => {
                let axes = t.read_attr(r)?;
                let mut fields = vec![axes];
                if let Some(ids) = t.read_optional_attr(r)? {
                    fields.push(ids);
                }
                dialect("mesh", fields)
            }
            other => return Err(Error::unimplemented(format!("vhlo attribute code {other} is not supported"))),
        })
    }

    fn decode_type(&self, r: &mut Reader<'_>, t: &mut Table<'_>) -> Result<Ty> {
        use FloatKind::*;
        let code = r.varint()?;
        let int = |width, signedness| Ok(Ty::Integer { width, signedness });
        let float = |k| Ok(Ty::Float(k));
        let (sl, un) = (Signedness::Signless, Signedness::Unsigned);
        match code {
            0 => int(1, sl),
            1 => Ok(Ty::Complex(t.read_type(r)?)),
            2 => float(BF16),
            3 => float(F16),
            4 => float(F32),
            5 => float(F64),
            6 => float(F8E4M3FN),
            7 => float(F8E5M2),
            8 => Ok(Ty::Function { inputs: t.read_type_list(r)?, results: t.read_type_list(r)? }),
            9 => Ok(Ty::Index),
            10 => int(4, sl),
            11 => int(8, sl),
            12 => int(16, sl),
            13 => int(32, sl),
            14 => int(64, sl),
            15 => int(4, un),
            16 => int(8, un),
            17 => int(16, un),
            18 => int(32, un),
            19 => int(64, un),
            20 => {
                let shape = t.read_list(r, |_, r| r.svarint())?;
                Ok(Ty::Tensor { shape, elem: t.read_type(r)?, encoding: None })
            }
            21 => {
                let encoding = Some(t.read_attr(r)?);
                let shape = t.read_list(r, |_, r| r.svarint())?;
                Ok(Ty::Tensor { shape, elem: t.read_type(r)?, encoding })
            }
            22 => Ok(Ty::Token),
            23 => Ok(Ty::Tuple(t.read_type_list(r)?)),
            24 | 30 => Ok(Ty::Other("quantized".into())),
            25 => Ok(Ty::UnrankedTensor(t.read_type(r)?)),
            26 => Ok(Ty::Other("witness".into())),
            27 => float(F8E4M3FNUZ),
            28 => float(F8E5M2FNUZ),
            29 => float(F8E4M3B11FNUZ),
            31 => int(2, sl),
            32 => int(2, un),
            33 => Ok(Ty::None),
            34 => float(TF32),
            35 => float(F8E4M3),
            36 => float(F8E3M4),
            37 => float(F4E2M1FN),
            38 => float(F6E2M3FN),
            39 => float(F6E3M2FN),
            40 => float(F8E8M0FNU),
            41 => Ok(Ty::Other("buffer".into())),
            42 => Ok(Ty::Other("future".into())),
            other => Err(Error::unimplemented(format!("vhlo type code {other} is not supported"))),
        }
    }
}

/// Shardy attributes: only what is needed to recognise single-device (empty-mesh, unsharded)
/// annotations; everything else is reported as real sharding by the op mapping.
pub struct SdyDecoder;

impl DialectDecoder for SdyDecoder {
    fn decode_attr(&self, r: &mut Reader<'_>, t: &mut Table<'_>) -> Result<Attr> {
        let code = r.varint()?;
        let dialect = |name, fields| Attr::Dialect { dialect: "sdy", name, fields };
        Ok(match code {
            // manual_axes: the axes an sdy.manual_computation makes manual (decision 65).
            0 => dialect("manual_axes", vec![Rc::new(Attr::Array(t.read_attr_list(r)?))]),
            1 => {
                let name = Rc::new(Attr::String(t.read_string(r)?.to_string()));
                dialect("mesh_axis", vec![name, Rc::new(Attr::Int(r.svarint()?))])
            }
            2 => {
                let axes = Rc::new(Attr::Array(t.read_attr_list(r)?));
                let ids = Rc::new(Attr::Ints(t.read_list(r, |_, r| r.svarint())?));
                dialect("mesh", vec![axes, ids])
            }
            4 => {
                let name = Rc::new(Attr::String(t.read_string(r)?.to_string()));
                let mut fields = vec![name];
                if let Some(sub) = t.read_optional_attr(r)? {
                    fields.push(sub);
                }
                dialect("axis_ref", fields)
            }
            5 => {
                let axes = Rc::new(Attr::Array(t.read_attr_list(r)?));
                let closed = Rc::new(Attr::Bool(r.byte()? != 0));
                dialect("dimension_sharding", vec![axes, closed])
            }
            6 => {
                let mesh = t.read_attr(r)?;
                let dims = Rc::new(Attr::Array(t.read_attr_list(r)?));
                let replicated = Rc::new(Attr::Array(t.read_attr_list(r)?));
                dialect("tensor_sharding", vec![mesh, dims, replicated])
            }
            // tensor_sharding v2/v3 add unreduced axes (and a reduction op): values not yet
            // reduced, which apu does not model; the field is kept so readers can refuse it.
            15 | 17 => {
                let mesh = t.read_attr(r)?;
                let dims = Rc::new(Attr::Array(t.read_attr_list(r)?));
                let replicated = Rc::new(Attr::Array(t.read_attr_list(r)?));
                let unreduced = Rc::new(Attr::Array(t.read_attr_list(r)?));
                dialect("tensor_sharding", vec![mesh, dims, replicated, unreduced])
            }
            // One tensor sharding per operand or result (v1: without unreduced axes, v2: with).
            7 | 16 => dialect("tensor_sharding_per_value", vec![Rc::new(Attr::Array(t.read_attr_list(r)?))]),
            other => {
                return Err(Error::unimplemented(format!(
                    "sdy attribute code {other}: apu runs on one device and does not read Shardy sharding"
                )))
            }
        })
    }

    fn decode_type(&self, _r: &mut Reader<'_>, _t: &mut Table<'_>) -> Result<Ty> {
        Err(Error::unimplemented("sdy types: apu runs on one device and does not read Shardy"))
    }
}

/// StableHLO's own (not versioned) types. A portable artifact keeps the block arguments of Shardy
/// regions (`sdy.manual_computation` bodies) in StableHLO types, so a token threaded through a
/// shard_map body arrives as `!stablehlo.token`: type code 0 of StableHLO's bytecode interface
/// (`stablehlo/dialect/StablehloBytecode.cpp`, `TypeCode::kTokenType`), with no fields.
pub struct StablehloDecoder;

impl DialectDecoder for StablehloDecoder {
    fn decode_attr(&self, r: &mut Reader<'_>, _t: &mut Table<'_>) -> Result<Attr> {
        let code = r.varint()?;
        Err(Error::unimplemented(format!("stablehlo attribute code {code} outside VHLO")))
    }

    fn decode_type(&self, r: &mut Reader<'_>, _t: &mut Table<'_>) -> Result<Ty> {
        match r.varint()? {
            0 => Ok(Ty::Token),
            other => Err(Error::unimplemented(format!("stablehlo type code {other} outside VHLO"))),
        }
    }
}
