//! Errors of the device model (client, buffers, events, executions). Each carries a [`Code`] as a
//! field — the canonical status codes every framework above us speaks — so that a code set by a
//! caller (an event failed with ABORTED, say) survives a trip through buffers and events. The
//! compiler's errors convert in with their kind as the code and their contexts as text.
//!
//! In the manner of candle's errors, what an error is about is kept as data ([`Subject`]: op, element
//! type, shape, location) beside the human message, so that callers can act on it without parsing.

use apu_compiler::ir::{ElementType, TensorType};
use std::fmt;

/// The canonical status codes, numbered as everywhere else (gRPC, absl, the PJRT C API).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Code {
    Cancelled = 1,
    Unknown = 2,
    InvalidArgument = 3,
    DeadlineExceeded = 4,
    NotFound = 5,
    AlreadyExists = 6,
    PermissionDenied = 7,
    ResourceExhausted = 8,
    FailedPrecondition = 9,
    Aborted = 10,
    OutOfRange = 11,
    Unimplemented = 12,
    Internal = 13,
    Unavailable = 14,
    DataLoss = 15,
    Unauthenticated = 16,
}

impl Code {
    /// Every code, in numeric order.
    pub const ALL: [Code; 16] = [
        Code::Cancelled,
        Code::Unknown,
        Code::InvalidArgument,
        Code::DeadlineExceeded,
        Code::NotFound,
        Code::AlreadyExists,
        Code::PermissionDenied,
        Code::ResourceExhausted,
        Code::FailedPrecondition,
        Code::Aborted,
        Code::OutOfRange,
        Code::Unimplemented,
        Code::Internal,
        Code::Unavailable,
        Code::DataLoss,
        Code::Unauthenticated,
    ];

    /// The code with this number; `None` for 0 (success) and unknown numbers.
    pub fn from_u32(n: u32) -> Option<Code> {
        Code::ALL.iter().copied().find(|c| *c as u32 == n)
    }

    pub fn name(self) -> &'static str {
        match self {
            Code::Cancelled => "CANCELLED",
            Code::Unknown => "UNKNOWN",
            Code::InvalidArgument => "INVALID_ARGUMENT",
            Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
            Code::NotFound => "NOT_FOUND",
            Code::AlreadyExists => "ALREADY_EXISTS",
            Code::PermissionDenied => "PERMISSION_DENIED",
            Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
            Code::FailedPrecondition => "FAILED_PRECONDITION",
            Code::Aborted => "ABORTED",
            Code::OutOfRange => "OUT_OF_RANGE",
            Code::Unimplemented => "UNIMPLEMENTED",
            Code::Internal => "INTERNAL",
            Code::Unavailable => "UNAVAILABLE",
            Code::DataLoss => "DATA_LOSS",
            Code::Unauthenticated => "UNAUTHENTICATED",
        }
    }
}

/// What an error is about, as data. Every field is optional: an error names what it knows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Subject {
    /// The op (or executable, or API step) that failed.
    pub op: Option<String>,
    pub dtype: Option<ElementType>,
    pub shape: Option<Vec<i64>>,
    /// Source location of the op, or the position of the argument (`argument 2`).
    pub location: Option<String>,
}

impl Subject {
    pub fn is_empty(&self) -> bool {
        *self == Subject::default()
    }
}

/// One error of the device model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub code: Code,
    /// What went wrong, for people.
    pub message: String,
    /// Where it happened, innermost first, for people (`in function @main`, …).
    pub context: Vec<String>,
    /// What it is about, for programs.
    pub subject: Box<Subject>,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Error { code, message: message.into(), context: Vec::new(), subject: Box::default() }
    }
    pub fn invalid(message: impl Into<String>) -> Self {
        Error::new(Code::InvalidArgument, message)
    }
    pub fn unimplemented(message: impl Into<String>) -> Self {
        Error::new(Code::Unimplemented, message)
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Error::new(Code::Internal, message)
    }
    pub fn failed_precondition(message: impl Into<String>) -> Self {
        Error::new(Code::FailedPrecondition, message)
    }
    pub fn resource_exhausted(message: impl Into<String>) -> Self {
        Error::new(Code::ResourceExhausted, message)
    }

    /// Adds where the error happened, innermost first.
    pub fn context(mut self, ctx: impl Into<String>) -> Self {
        self.context.push(ctx.into());
        self
    }
    /// Names the op (or executable) the error is about.
    pub fn op(mut self, op: impl Into<String>) -> Self {
        self.subject.op = Some(op.into());
        self
    }
    /// Names the type of the value the error is about.
    pub fn tensor(mut self, ty: &TensorType) -> Self {
        self.subject.dtype = Some(ty.elem);
        self.subject.shape = Some(ty.shape.clone());
        self
    }
    pub fn shape(mut self, shape: &[i64]) -> Self {
        self.subject.shape = Some(shape.to_vec());
        self
    }
    pub fn location(mut self, location: impl Into<String>) -> Self {
        self.subject.location = Some(location.into());
        self
    }

    /// The message followed by its contexts, one `\n  in …` line each: the text frameworks show.
    pub fn full_message(&self) -> String {
        let mut out = self.message.clone();
        for c in &self.context {
            out.push_str("\n  in ");
            out.push_str(c);
        }
        out
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.name(), self.full_message())
    }
}

impl std::error::Error for Error {}

impl From<apu_compiler::Error> for Error {
    fn from(e: apu_compiler::Error) -> Self {
        use apu_compiler::error::ErrorKind;
        let code = match e.kind {
            ErrorKind::Unimplemented => Code::Unimplemented,
            ErrorKind::InvalidArgument => Code::InvalidArgument,
            ErrorKind::Internal => Code::Internal,
        };
        Error { code, message: e.message, context: e.context, subject: Box::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_through_their_numbers() {
        for (i, c) in Code::ALL.iter().enumerate() {
            assert_eq!(*c as u32, i as u32 + 1);
            assert_eq!(Code::from_u32(*c as u32), Some(*c));
        }
        assert_eq!(Code::from_u32(0), None);
        assert_eq!(Code::from_u32(17), None);
    }

    #[test]
    fn compiler_errors_keep_kind_as_code_and_context() {
        let e: Error = apu_compiler::Error::unimplemented("op x").context("function @main").into();
        assert_eq!(e.code, Code::Unimplemented);
        assert_eq!(e.full_message(), "op x\n  in function @main");
        assert_eq!(Error::from(apu_compiler::Error::invalid("bad")).code, Code::InvalidArgument);
        assert_eq!(Error::from(apu_compiler::Error::internal("bug")).code, Code::Internal);
    }

    #[test]
    fn subject_is_data() {
        let ty = TensorType::new(vec![2, 3], ElementType::F32);
        let e = Error::invalid("argument 1 has the wrong type").op("main").tensor(&ty).location("argument 1");
        assert_eq!(e.subject.op.as_deref(), Some("main"));
        assert_eq!(e.subject.dtype, Some(ElementType::F32));
        assert_eq!(e.subject.shape.as_deref(), Some(&[2i64, 3][..]));
        assert_eq!(e.subject.location.as_deref(), Some("argument 1"));
        assert_eq!(e.to_string(), "INVALID_ARGUMENT: argument 1 has the wrong type");
    }
}
