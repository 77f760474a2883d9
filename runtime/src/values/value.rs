//! Runtime values of the interpreter: dense tensors (type + typed elements), tuples and tokens.

use super::array::{storage_elem, Array, Scalar};
use crate::Tensor;
use apu_compiler::ir::{ElementType, Literal, TensorType, Type};
use apu_compiler::{Error, Result};
use std::sync::Arc;

/// A tensor whose elements are typed (see [`Array`]); `data.len()` equals the element count.
#[derive(Clone, Debug, PartialEq)]
pub struct Dense {
    pub ty: TensorType,
    pub data: Array,
}

impl Dense {
    pub fn new(ty: TensorType, data: Array) -> Result<Dense> {
        if data.len() != ty.num_elements() || data.elem() != storage_elem(ty.elem) {
            return Err(Error::internal(format!(
                "{} {} elements do not form a {ty}",
                data.len(),
                data.elem()
            )));
        }
        Ok(Dense { ty, data })
    }
    pub fn from_tensor(t: &Tensor) -> Result<Dense> {
        Dense::new(t.ty.clone(), Array::from_bytes(t.ty.elem, t.bytes())?)
    }
    pub fn to_tensor(&self) -> Result<Tensor> {
        Tensor::from_bytes(self.ty.clone(), &self.data.to_bytes_as(self.ty.elem))
    }
    pub fn from_literal(lit: &Literal) -> Result<Dense> {
        let data = Array::from_bytes(lit.ty.elem, &lit.bytes)?;
        let data = match (lit.splat, data.len()) {
            (true, 1) => data.repeat(0, lit.ty.num_elements()),
            (true, n) => return Err(Error::invalid(format!("splat constant of type {} holds {n} elements", lit.ty))),
            (false, _) => data,
        };
        Dense::new(lit.ty.clone(), data)
    }
    pub fn scalar(elem: ElementType, value: Scalar) -> Result<Dense> {
        Dense::new(TensorType::scalar(elem), Array::from_scalars(elem, [value])?)
    }
    pub fn shape(&self) -> &[i64] {
        &self.ty.shape
    }
    pub fn elem(&self) -> ElementType {
        self.ty.elem
    }
}

/// A value bound to an SSA name.
#[derive(Clone, Debug)]
pub enum Value {
    Tensor(Arc<Dense>),
    Tuple(Vec<Value>),
    Token,
}

impl Value {
    pub fn tensor(d: Dense) -> Value {
        Value::Tensor(Arc::new(d))
    }
    pub fn as_dense(&self) -> Result<&Dense> {
        match self {
            Value::Tensor(d) => Ok(d),
            Value::Tuple(_) => Err(Error::internal("expected a tensor, got a tuple")),
            Value::Token => Err(Error::internal("expected a tensor, got a token")),
        }
    }
    /// Whether the value has type `ty` (shape, element type, tuple structure).
    pub fn has_type(&self, ty: &Type) -> bool {
        match (self, ty) {
            (Value::Tensor(d), Type::Tensor(t)) => &d.ty == t,
            (Value::Tuple(vs), Type::Tuple(ts)) => {
                vs.len() == ts.len() && vs.iter().zip(ts).all(|(v, t)| v.has_type(t))
            }
            (Value::Token, Type::Token) => true,
            _ => false,
        }
    }
    pub fn describe(&self) -> String {
        match self {
            Value::Tensor(d) => d.ty.to_string(),
            Value::Tuple(vs) => format!("tuple<{}>", vs.iter().map(|v| v.describe()).collect::<Vec<_>>().join(", ")),
            Value::Token => "!stablehlo.token".into(),
        }
    }
}
