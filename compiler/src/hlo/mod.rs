//! Reader of `xla.HloModuleProto` (PJRT program formats "hlo" and "hlo_with_config").
pub mod proto;
