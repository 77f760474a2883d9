//! The decoded forms of attributes and types. Builtin and dialect decoders both produce these, so the
//! code that maps ops onto the IR sees one vocabulary whatever dialect wrote an attribute.

use std::rc::Rc;

/// Floating-point formats a type can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatKind {
    BF16,
    F16,
    F32,
    F64,
    F80,
    F128,
    TF32,
    F8E5M2,
    F8E4M3,
    F8E4M3FN,
    F8E5M2FNUZ,
    F8E4M3FNUZ,
    F8E4M3B11FNUZ,
    F8E3M4,
    F4E2M1FN,
    F6E2M3FN,
    F6E3M2FN,
    F8E8M0FNU,
}

impl FloatKind {
    pub fn bit_width(self) -> u32 {
        use FloatKind::*;
        match self {
            BF16 | F16 => 16,
            F32 | TF32 => 32,
            F64 => 64,
            F80 => 80,
            F128 => 128,
            F8E5M2 | F8E4M3 | F8E4M3FN | F8E5M2FNUZ | F8E4M3FNUZ | F8E4M3B11FNUZ | F8E3M4 | F8E8M0FNU => 8,
            F4E2M1FN => 4,
            F6E2M3FN | F6E3M2FN => 6,
        }
    }
}

/// Integer signedness as MLIR spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signedness {
    Signless,
    Signed,
    Unsigned,
}

/// A decoded type.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    Integer { width: u32, signedness: Signedness },
    Index,
    Float(FloatKind),
    Complex(Rc<Ty>),
    /// A ranked tensor; dynamic dimensions are `i64::MIN`. `encoding` is kept for bounded dynamism.
    Tensor { shape: Vec<i64>, elem: Rc<Ty>, encoding: Option<Rc<Attr>> },
    UnrankedTensor(Rc<Ty>),
    Function { inputs: Vec<Rc<Ty>>, results: Vec<Rc<Ty>> },
    Tuple(Vec<Rc<Ty>>),
    Token,
    None,
    /// A type apu has no model for (quantized, memref, vector, buffer, future, witness, …), by name.
    Other(String),
}

/// A decoded location.
#[derive(Clone, Debug, PartialEq)]
pub enum Loc {
    Unknown,
    FileLineCol { file: String, line: u64, col: u64 },
    Name { name: String, child: Rc<Attr> },
    CallSite { callee: Rc<Attr>, caller: Rc<Attr> },
    Fused(Vec<Rc<Attr>>),
}

/// A decoded attribute.
#[derive(Clone, Debug, PartialEq)]
pub enum Attr {
    Array(Vec<Rc<Attr>>),
    /// Entries in file order; keys are strings.
    Dict(Vec<(String, Rc<Attr>)>),
    String(String),
    SymbolRef { root: String, nested: Vec<String> },
    Type(Rc<Ty>),
    Unit,
    Bool(bool),
    /// An integer of the given type; `value` holds the bits zero-extended from the type's width.
    Integer { ty: Rc<Ty>, value: u64 },
    /// A float of the given type; `bits` is the IEEE-style bit pattern of the type's format.
    Float { ty: Rc<Ty>, bits: u64 },
    /// Dense elements (builtin dense or `vhlo.tensor_v1`): a shaped type and its raw blob.
    DenseElements { ty: Rc<Ty>, data: Vec<u8> },
    /// A builtin dense array (`array<i64: 1, 2>`): element type, count, raw little-endian data.
    DenseArray { elem: Rc<Ty>, count: usize, data: Vec<u8> },
    /// A dialect enum value (`#vhlo<comparison_direction_v1 LT>`): enum name and numeric value.
    Enum { name: &'static str, value: u64 },
    Loc(Loc),
    /// A dialect attribute apu keeps but does not model, with its decoded fields.
    Dialect { dialect: &'static str, name: &'static str, fields: Vec<Rc<Attr>> },
    /// A signed integer inside a dialect attribute's fields.
    Int(i64),
    /// A list of signed integers inside a dialect attribute's fields.
    Ints(Vec<i64>),
}

impl Attr {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Attr::String(s) => Some(s),
            _ => None,
        }
    }
    /// Entry of a dictionary attribute by key.
    pub fn dict_get(&self, key: &str) -> Option<&Rc<Attr>> {
        match self {
            Attr::Dict(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

impl Loc {
    /// A short human-readable form: `file:line:col`, a name, or the most precise part of a chain.
    pub fn text(&self) -> String {
        match self {
            Loc::Unknown => String::new(),
            Loc::FileLineCol { file, line, col } => format!("{file}:{line}:{col}"),
            Loc::Name { name, child } => {
                let inner = attr_loc_text(child);
                if inner.is_empty() {
                    name.clone()
                } else {
                    format!("{name} ({inner})")
                }
            }
            // The callee is where the op is; the caller chain adds little to a message.
            Loc::CallSite { callee, caller } => {
                let c = attr_loc_text(callee);
                if c.is_empty() {
                    attr_loc_text(caller)
                } else {
                    c
                }
            }
            Loc::Fused(parts) => {
                parts.iter().map(|p| attr_loc_text(p)).filter(|s| !s.is_empty()).collect::<Vec<_>>().join(", ")
            }
        }
    }
}

/// Location text of an attribute that should be a location (empty otherwise).
pub fn attr_loc_text(a: &Attr) -> String {
    match a {
        Attr::Loc(l) => l.text(),
        _ => String::new(),
    }
}
