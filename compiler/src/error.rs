//! Errors of the compiler. Every error names where it happened (op, byte offset, location) so that a
//! user reading a Python traceback knows what to change. The plugin maps [`ErrorKind`] to PJRT codes.

use std::fmt;

/// What kind of failure, for mapping to a PJRT error code at the boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The program is well formed but uses something apu does not implement (PJRT UNIMPLEMENTED).
    Unimplemented,
    /// The program is malformed or ill-typed (PJRT INVALID_ARGUMENT).
    InvalidArgument,
    /// A bug in apu (PJRT INTERNAL).
    Internal,
}

/// One compiler error: a kind, a message, and the chain of contexts (outermost last) that says where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
    pub context: Vec<String>,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn unimplemented(message: impl Into<String>) -> Self {
        Error { kind: ErrorKind::Unimplemented, message: message.into(), context: Vec::new() }
    }
    pub fn invalid(message: impl Into<String>) -> Self {
        Error { kind: ErrorKind::InvalidArgument, message: message.into(), context: Vec::new() }
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Error { kind: ErrorKind::Internal, message: message.into(), context: Vec::new() }
    }
    /// A malformed binary input: names the format, section and byte offset.
    pub fn malformed(format: &str, offset: usize, message: impl fmt::Display) -> Self {
        Error::invalid(format!("malformed {format} at byte {offset}: {message}"))
    }
    /// Adds where the error happened (an op, a function, a section), innermost first.
    pub fn context(mut self, ctx: impl Into<String>) -> Self {
        self.context.push(ctx.into());
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ErrorKind::Unimplemented => write!(f, "UNIMPLEMENTED: ")?,
            ErrorKind::InvalidArgument | ErrorKind::Internal => {}
        }
        write!(f, "{}", self.message)?;
        for c in &self.context {
            write!(f, "\n  in {c}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// Adds context to the error of a `Result`.
pub trait ResultExt<T> {
    fn context_with(self, f: impl FnOnce() -> String) -> Result<T>;
}

impl<T> ResultExt<T> for Result<T> {
    fn context_with(self, f: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| e.context(f()))
    }
}
