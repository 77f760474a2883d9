//! The kernels one plan step runs on whole buffers: reductions (`reduce`, `arg_reduce`, `fold`),
//! windows and padding (`window`), GEMM-backed dots and convolutions (`gemm`, `conv`,
//! `depthwise`), copies that move elements without computing them (`transpose`,
//! `dynamic_slice`, `indexed_copy`), row-blocked groups (`rows`), and the per-thread scratch
//! buffers some of them keep between calls (`scratch`).

pub(super) mod arg_reduce;
pub(super) mod conv;
pub(super) mod conv_dot;
pub(super) mod depthwise;
pub(super) mod dynamic_slice;
pub(super) mod fold;
pub(super) mod gemm;
pub(super) mod indexed_copy;
pub(super) mod reduce;
pub(super) mod rows;
pub(super) mod scratch;
pub(super) mod sort;
pub(super) mod steps;
pub(super) mod transpose;
pub(super) mod view_copy;
pub(super) mod window;
