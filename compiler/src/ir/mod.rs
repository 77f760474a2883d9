//! The IR: StableHLO-level ops over statically shaped tensors.

pub mod collective;
mod ffi_attr;
pub mod halfs;
mod literal;
pub mod minifloat;
mod module;
mod ops;
mod types;

pub use collective::{DimAxes, GroupMode, ManualComputation, MeshAxes, ReplicaGroups, ValueSharding};
pub use ffi_attr::FfiAttr;
pub use literal::Literal;
pub use module::{ArgAttrs, Function, Location, Module, Op, Region, ValueId};
pub use ops::*;
pub use types::{same_dims, ElementType, TensorType, Type};
