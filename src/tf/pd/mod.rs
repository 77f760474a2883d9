//! The PluggableDevice side: a StreamExecutor platform whose device memory is host memory and whose
//! streams execute synchronously (every enqueued operation has completed when its call returns, so work
//! on a stream is trivially in order and every event is complete once recorded).

pub mod memory;
pub mod platform;
pub mod stream;
