//! Element values as both engines hold them: typed element storage and its byte format
//! ([`array`](mod@array): `Array`, the widened `Scalar`, and the conversions between them), 8-bit float
//! codecs ([`f8`]), a complex number type ([`complex`]) and dense tensors of typed elements
//! ([`value`]: `Dense`, which the linear algebra of [`crate::linalg`] takes and gives, and the
//! interpreter's `Value`). These are representations, not evaluators: the reference interpreter
//! (`interp`) and the plan executor (`exec`) each have their own op tables over them, so neither is
//! checked against its own code.

pub mod array;
pub mod complex;
pub mod f8;
pub mod value;
