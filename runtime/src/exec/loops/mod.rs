//! The loop machinery of nested blocks: `control` runs `while` and `case` steps (scalar
//! conditions, the loop counter, one state vector); `loop_body` prepares bodies whose kernels run
//! on buffers fixed for the whole loop; `body_program` compiles runs of one-element body kernels
//! into one register program; `native` compiles those to machine code.

pub(super) mod body_program;
pub(super) mod control;
pub(super) mod loop_body;
pub(super) mod native;
pub(super) mod native_loop;
mod native_ops;
#[cfg(test)]
mod native_tests;
