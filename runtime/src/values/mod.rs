//! Element values as both engines hold them: typed element storage and its byte format
//! ([`array`]: `Array`, the widened `Scalar`, and the conversions between them), 8-bit float
//! codecs ([`f8`]) and a complex number type ([`complex`]). These are representations, not
//! evaluators: the reference interpreter (`interp`) and the plan executor (`exec`) each have their
//! own op tables over them, so neither checks the other with its own code.

pub mod array;
pub mod complex;
pub mod f8;
