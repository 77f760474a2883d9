//! The threads a program's split kernels run on: a rayon pool per thread count, the calling thread
//! working too, and which pieces each thread takes first.

pub mod claims;
mod handout;
mod lines;
pub mod workers;
