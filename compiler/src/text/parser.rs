//! The parser core: token handling, positions and error messages, plus the grammar shared by every
//! op form — types, attributes and locations.

use super::attr::{Attr, SynType};
use super::lexer::{Lexer, LineMap, TokKind, Token};
use super::literal_text::{build_literal, DenseBody, DenseElem};
use crate::ir::{ConvDims, ElementType, TensorType, Type};
use crate::{Error, Result};
use std::collections::HashMap;

/// Nesting deeper than this (regions, attributes, types, locations) is rejected instead of risking
/// a stack overflow on hostile input.
pub const MAX_DEPTH: usize = 200;

/// A location as written; resolved to text once all `#locN = ...` aliases are known.
#[derive(Clone, Debug, PartialEq)]
pub enum LocSyn {
    Unknown,
    File { file: String, line: u64, col: u64 },
    Name(String, Option<Box<LocSyn>>),
    CallSite(Box<LocSyn>, Box<LocSyn>),
    Fused(Vec<LocSyn>),
    Alias(String),
    /// No `loc(...)` was written: the position in the text.
    Text { line: usize, col: usize },
}

pub struct Parser<'a> {
    pub(super) lx: Lexer<'a>,
    pub(super) tok: Token,
    lines: LineMap,
    depth: usize,
    pub(super) attr_aliases: HashMap<String, Attr>,
    pub(super) type_aliases: HashMap<String, Type>,
    pub(super) loc_aliases: HashMap<String, LocSyn>,
    /// Locations of the ops built so far; `Location::text` holds `"\0<index>"` until resolution.
    pub(super) pending_locs: Vec<LocSyn>,
    /// Shardy meshes by name, and whether their device order is 0..N.
    pub(super) meshes: HashMap<String, (crate::ir::MeshAxes, bool)>,
}

impl<'a> Parser<'a> {
    pub fn new(src: &'a str) -> Result<Self> {
        let mut lx = Lexer::new(src);
        let tok = lx.next_token()?;
        Ok(Parser {
            lx,
            tok,
            lines: LineMap::new(src),
            depth: 0,
            attr_aliases: HashMap::new(),
            type_aliases: HashMap::new(),
            loc_aliases: HashMap::new(),
            pending_locs: Vec::new(),
            meshes: HashMap::new(),
        })
    }

    // ---- tokens and errors ----

    pub fn bump(&mut self) -> Result<Token> {
        let next = self.lx.next_token()?;
        Ok(std::mem::replace(&mut self.tok, next))
    }

    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        self.lines.line_col(offset)
    }

    pub fn err_at(&self, offset: usize, msg: impl std::fmt::Display) -> Error {
        let (l, c) = self.line_col(offset);
        Error::invalid(format!("{l}:{c}: {msg}"))
    }

    pub fn unimplemented_at(&self, offset: usize, msg: impl std::fmt::Display) -> Error {
        let (l, c) = self.line_col(offset);
        Error::unimplemented(format!("{l}:{c}: {msg}"))
    }

    /// "expected X, found Y" at the current token.
    pub fn expected(&self, what: &str) -> Error {
        self.err_at(self.tok.start, format!("expected {what}, found {}", self.tok.describe()))
    }

    pub fn at_punct(&self, p: &str) -> bool {
        self.tok.is_punct(p)
    }
    pub fn at_id(&self, id: &str) -> bool {
        self.tok.is_id(id)
    }

    pub fn eat_punct(&mut self, p: &str) -> Result<bool> {
        if self.at_punct(p) {
            self.bump()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }
    pub fn eat_id(&mut self, id: &str) -> Result<bool> {
        if self.at_id(id) {
            self.bump()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    pub fn expect_punct(&mut self, p: &str) -> Result<()> {
        if self.eat_punct(p)? {
            Ok(())
        } else {
            Err(self.expected(&format!("'{p}'")))
        }
    }
    pub fn expect_id(&mut self, id: &str) -> Result<()> {
        if self.eat_id(id)? {
            Ok(())
        } else {
            Err(self.expected(&format!("'{id}'")))
        }
    }

    pub fn expect_kind(&mut self, kind: TokKind, what: &str) -> Result<Token> {
        if self.tok.kind == kind {
            self.bump()
        } else {
            Err(self.expected(what))
        }
    }

    /// Whether the token after the current one is the punctuation `p`.
    pub fn peek_next_is_punct(&self, p: &str) -> Result<bool> {
        let mut lx = self.lx.clone();
        Ok(lx.next_token()?.is_punct(p))
    }

    pub fn enter(&mut self) -> Result<()> {
        self.enter_weighted(1)
    }

    /// Like [`Self::enter`] for constructs whose parsing uses more stack per level (regions).
    pub fn enter_weighted(&mut self, weight: usize) -> Result<()> {
        self.depth += weight;
        if self.depth > MAX_DEPTH {
            return Err(self.err_at(self.tok.start, format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        Ok(())
    }
    pub fn leave(&mut self) {
        self.leave_weighted(1)
    }
    pub fn leave_weighted(&mut self, weight: usize) {
        self.depth = self.depth.saturating_sub(weight);
    }

    /// Parses `item (, item)*` up to and including `close` (which may come first: empty list).
    pub fn comma_list<T>(&mut self, close: &str, mut item: impl FnMut(&mut Self) -> Result<T>) -> Result<Vec<T>> {
        let mut out = Vec::new();
        if self.eat_punct(close)? {
            return Ok(out);
        }
        loop {
            out.push(item(self)?);
            if self.eat_punct(close)? {
                return Ok(out);
            }
            if !self.eat_punct(",")? {
                return Err(self.expected(&format!("',' or '{close}'")));
            }
        }
    }

    // ---- numbers ----

    /// An integer literal with an optional leading `-`.
    pub fn parse_int(&mut self) -> Result<i128> {
        let neg = self.eat_punct("-")?;
        if self.tok.kind != TokKind::Integer {
            return Err(self.expected("an integer"));
        }
        let t = self.bump()?;
        let v = parse_int_text(&t.text).ok_or_else(|| self.err_at(t.start, format!("integer {} is too large", t.text)))?;
        Ok(if neg { -v } else { v })
    }

    pub fn parse_i64(&mut self) -> Result<i64> {
        let start = self.tok.start;
        let v = self.parse_int()?;
        i64::try_from(v).map_err(|_| self.err_at(start, format!("integer {v} does not fit in 64 bits")))
    }

    /// `[1, 2, 3]`.
    pub fn parse_i64_list(&mut self) -> Result<Vec<i64>> {
        self.expect_punct("[")?;
        self.comma_list("]", |p| p.parse_i64())
    }

    // ---- types ----

    pub(super) fn element_type_named(name: &str) -> Option<ElementType> {
        ElementType::ALL.iter().copied().find(|e| e.stablehlo_name() == name)
    }

    /// Any type: a value type, a scalar, a function type, `index` or `none`.
    pub fn parse_syn_type(&mut self) -> Result<SynType> {
        self.enter()?;
        let r = self.parse_syn_type_inner();
        self.leave();
        r
    }

    fn parse_syn_type_inner(&mut self) -> Result<SynType> {
        let start = self.tok.start;
        match self.tok.kind {
            TokKind::Punct if self.at_punct("(") => {
                self.bump()?;
                let ins = self.comma_list(")", |p| p.parse_type())?;
                self.expect_punct("->")?;
                let outs = self.parse_result_types()?;
                Ok(SynType::Function(ins, outs))
            }
            TokKind::BangId => {
                let t = self.bump()?;
                if t.text == "stablehlo.token" || t.text == "mhlo.token" {
                    Ok(SynType::Value(Type::Token))
                } else if let Some(ty) = self.type_aliases.get(&t.text) {
                    Ok(SynType::Value(ty.clone()))
                } else {
                    Err(self.unimplemented_at(start, format!("type !{} is not supported", t.text)))
                }
            }
            TokKind::BareId => {
                let name = self.tok.text.clone();
                match name.as_str() {
                    "tensor" => Ok(SynType::Value(Type::Tensor(self.parse_tensor_type()?))),
                    "tuple" => {
                        self.bump()?;
                        self.expect_punct("<")?;
                        let items = self.comma_list(">", |p| p.parse_type())?;
                        Ok(SynType::Value(Type::Tuple(items)))
                    }
                    "complex" => {
                        self.bump()?;
                        self.expect_punct("<")?;
                        let inner = self.expect_kind(TokKind::BareId, "f32 or f64")?;
                        self.expect_punct(">")?;
                        match inner.text.as_str() {
                            "f32" => Ok(SynType::Scalar(ElementType::C64)),
                            "f64" => Ok(SynType::Scalar(ElementType::C128)),
                            other => Err(self.unimplemented_at(inner.start, format!("complex<{other}> is not supported"))),
                        }
                    }
                    "index" => {
                        self.bump()?;
                        Ok(SynType::Index)
                    }
                    "none" => {
                        self.bump()?;
                        Ok(SynType::None)
                    }
                    _ => {
                        if let Some(e) = Self::element_type_named(&name) {
                            self.bump()?;
                            Ok(SynType::Scalar(e))
                        } else if name.starts_with('f') || name.starts_with('i') || name.starts_with("ui") || name.starts_with("si") || name == "tf32" || name == "memref" || name == "vector" {
                            Err(self.unimplemented_at(start, format!("type {name} is not supported by apu")))
                        } else {
                            Err(self.expected("a type"))
                        }
                    }
                }
            }
            _ => Err(self.expected("a type")),
        }
    }

    /// A value type (tensor, tuple or token).
    pub fn parse_type(&mut self) -> Result<Type> {
        let start = self.tok.start;
        match self.parse_syn_type()? {
            SynType::Value(t) => Ok(t),
            other => Err(self.err_at(start, format!("expected a tensor, tuple or token type, found {other}"))),
        }
    }

    /// Results after `->`: one type or a parenthesized list (attributes on results are not allowed here).
    pub fn parse_result_types(&mut self) -> Result<Vec<Type>> {
        if self.eat_punct("(")? {
            self.comma_list(")", |p| p.parse_type())
        } else {
            Ok(vec![self.parse_type()?])
        }
    }

    /// `tensor<4x8xf32>`, scanning the shape from the raw text.
    pub fn parse_tensor_type(&mut self) -> Result<TensorType> {
        let start = self.tok.start;
        self.expect_id("tensor")?;
        if !self.at_punct("<") {
            return Err(self.expected("'<' after tensor"));
        }
        // The lexer sits right after '<': read `NxMx` directly.
        let bytes = self.lx.src.as_bytes();
        let mut pos = self.lx.pos;
        let mut shape = Vec::new();
        loop {
            while pos < bytes.len() && bytes[pos].is_ascii_whitespace() {
                pos += 1;
            }
            match bytes.get(pos) {
                Some(b'?') => return Err(self.unimplemented_at(pos, "dynamic dimensions ('?') are not supported; apu needs static shapes")),
                Some(b'*') => return Err(self.unimplemented_at(pos, "unranked tensors are not supported")),
                Some(d) if d.is_ascii_digit() => {
                    let dstart = pos;
                    while pos < bytes.len() && bytes[pos].is_ascii_digit() {
                        pos += 1;
                    }
                    if bytes.get(pos) != Some(&b'x') {
                        return Err(self.err_at(pos, "expected 'x' after a dimension size"));
                    }
                    let d: i64 = self.lx.src[dstart..pos]
                        .parse()
                        .map_err(|_| self.err_at(dstart, "dimension size is too large"))?;
                    shape.push(d);
                    pos += 1;
                }
                _ => break,
            }
        }
        self.lx.pos = pos;
        self.bump()?;
        let elem_start = self.tok.start;
        let elem = match self.parse_syn_type()? {
            SynType::Scalar(e) => e,
            // `index` only appears in attributes (custom-call layouts); 64 bits holds it.
            SynType::Index => ElementType::S64,
            other => return Err(self.err_at(elem_start, format!("expected an element type, found {other}"))),
        };
        if self.eat_punct(",")? {
            return Err(self.unimplemented_at(self.tok.start, "tensor encodings (bounds, sparsity) are not supported"));
        }
        self.expect_punct(">")?;
        if shape.len() > 64 {
            return Err(self.err_at(start, "tensor rank above 64"));
        }
        // Keeps element and byte counts far from overflow everywhere downstream.
        let count = shape.iter().try_fold(1u128, |acc, &d| acc.checked_mul(d as u128));
        if count.map_or(true, |c| c > 1u128 << 48) {
            return Err(self.err_at(start, format!("tensor type with shape {shape:?} has too many elements (more than 2^48)")));
        }
        Ok(TensorType::new(shape, elem))
    }

    // ---- attributes ----

    pub fn parse_attr(&mut self) -> Result<Attr> {
        self.enter()?;
        let r = self.parse_attr_inner();
        self.leave();
        r
    }

    fn parse_attr_inner(&mut self) -> Result<Attr> {
        let start = self.tok.start;
        match self.tok.kind {
            TokKind::Integer | TokKind::Float => self.parse_number_attr(),
            TokKind::Punct if self.at_punct("-") => self.parse_number_attr(),
            TokKind::Punct if self.at_punct("[") => {
                self.bump()?;
                Ok(Attr::Array(self.comma_list("]", |p| p.parse_attr())?))
            }
            TokKind::Punct if self.at_punct("{") => Ok(Attr::Dict(self.parse_dict()?)),
            TokKind::Punct if self.at_punct("(") => Ok(Attr::Type(self.parse_syn_type()?)),
            TokKind::String => {
                let s = self.bump()?.text;
                if self.at_punct(":") {
                    // A typed string such as `"abc" : !foo` — keep the string.
                    self.bump()?;
                    self.parse_syn_type()?;
                }
                Ok(Attr::Str(s))
            }
            TokKind::AtId => {
                let s = self.bump()?.text;
                if self.at_punct(":") && self.lx.src[self.tok.end..].starts_with(":@") {
                    return Err(self.unimplemented_at(start, "nested symbol references are not supported"));
                }
                Ok(Attr::SymbolRef(s))
            }
            TokKind::HashId => self.parse_hash_attr(),
            TokKind::BangId => Ok(Attr::Type(self.parse_syn_type()?)),
            TokKind::BareId => match self.tok.text.as_str() {
                "true" => {
                    self.bump()?;
                    Ok(Attr::Bool(true))
                }
                "false" => {
                    self.bump()?;
                    Ok(Attr::Bool(false))
                }
                "unit" => {
                    self.bump()?;
                    Ok(Attr::Unit)
                }
                "dense" => self.parse_dense_attr(),
                "array" => self.parse_dense_array(),
                "dense_resource" => Err(self.unimplemented_at(start, "dense_resource constants are not supported; send the constant inline")),
                "sparse" => Err(self.unimplemented_at(start, "sparse constants are not supported")),
                "affine_map" | "affine_set" | "strided" | "distinct" => self.parse_opaque_call(),
                "loc" => Err(self.err_at(start, "a location is not allowed here")),
                _ => Ok(Attr::Type(self.parse_syn_type()?)),
            },
            _ => Err(self.expected("an attribute")),
        }
    }

    fn parse_number_attr(&mut self) -> Result<Attr> {
        let start = self.tok.start;
        let neg = self.eat_punct("-")?;
        let t = self.bump()?;
        let attr = match t.kind {
            TokKind::Integer => {
                let v = parse_int_text(&t.text).ok_or_else(|| self.err_at(t.start, "integer is too large"))?;
                let v = if neg { -v } else { v };
                if self.eat_punct(":")? {
                    let ty_start = self.tok.start;
                    match self.parse_syn_type()? {
                        SynType::Scalar(e) if e.is_float() => {
                            // `0x7FC00000 : f32` is a bit pattern; a decimal integer is a value.
                            if t.text.starts_with("0x") {
                                let mut bytes = v.to_le_bytes().to_vec();
                                bytes.truncate(e.byte_size());
                                Attr::Float(super::literal_text::decode_float(&bytes, e), Some(e))
                            } else {
                                Attr::Float(v as f64, Some(e))
                            }
                        }
                        SynType::Scalar(ElementType::Pred) => Attr::Bool(v != 0),
                        SynType::Scalar(e) => Attr::Int(v, Some(e)),
                        SynType::Index => Attr::Int(v, None),
                        other => return Err(self.err_at(ty_start, format!("expected an integer or float type, found {other}"))),
                    }
                } else {
                    Attr::Int(v, None)
                }
            }
            TokKind::Float => {
                let v: f64 = t.text.parse().map_err(|_| self.err_at(t.start, "malformed float"))?;
                let v = if neg { -v } else { v };
                if self.eat_punct(":")? {
                    let ty_start = self.tok.start;
                    match self.parse_syn_type()? {
                        SynType::Scalar(e) if e.is_float() => Attr::Float(v, Some(e)),
                        other => return Err(self.err_at(ty_start, format!("expected a float type, found {other}"))),
                    }
                } else {
                    Attr::Float(v, None)
                }
            }
            _ => return Err(self.err_at(start, format!("expected a number, found {}", t.describe()))),
        };
        Ok(attr)
    }

    /// `{a = 1, b, "c d" = "x"}`.
    pub fn parse_dict(&mut self) -> Result<Vec<(String, Attr)>> {
        self.expect_punct("{")?;
        self.comma_list("}", |p| {
            let key = match p.tok.kind {
                TokKind::BareId | TokKind::String => p.bump()?.text,
                _ => return Err(p.expected("an attribute name")),
            };
            if p.eat_punct("=")? {
                Ok((key, p.parse_attr()?))
            } else {
                Ok((key, Attr::Unit))
            }
        })
    }

    fn parse_dense_array(&mut self) -> Result<Attr> {
        self.expect_id("array")?;
        self.expect_punct("<")?;
        let start = self.tok.start;
        let elem = match self.parse_syn_type()? {
            SynType::Scalar(e) => e,
            other => return Err(self.err_at(start, format!("expected an element type in array<...>, found {other}"))),
        };
        if !(elem.is_int() || elem.is_pred()) {
            return Err(self.unimplemented_at(start, format!("array<{elem}: ...> is not supported (only integer and i1 arrays)")));
        }
        let mut vals = Vec::new();
        if self.eat_punct(":")? {
            vals = self.comma_list(">", |p| match p.tok.kind {
                TokKind::BareId if p.at_id("true") => p.bump().map(|_| 1),
                TokKind::BareId if p.at_id("false") => p.bump().map(|_| 0),
                _ => p.parse_int(),
            })?;
        } else {
            self.expect_punct(">")?;
        }
        Ok(Attr::DenseArray(elem, vals))
    }

    fn parse_dense_attr(&mut self) -> Result<Attr> {
        let start = self.tok.start;
        self.expect_id("dense")?;
        self.expect_punct("<")?;
        let body = if self.at_punct(">") {
            DenseBody::Empty
        } else if self.tok.kind == TokKind::String {
            let t = self.bump()?;
            let hex = t.text.strip_prefix("0x").ok_or_else(|| self.err_at(t.start, "expected a \"0x...\" hex string in dense<>"))?;
            DenseBody::HexBytes(parse_hex_bytes(hex).ok_or_else(|| self.err_at(t.start, "malformed hex string in dense<>"))?)
        } else {
            DenseBody::Elems(self.parse_dense_elem()?)
        };
        self.expect_punct(">")?;
        self.expect_punct(":")?;
        let ty_start = self.tok.start;
        let ty = match self.parse_syn_type()? {
            SynType::Value(Type::Tensor(t)) => t,
            other => return Err(self.err_at(ty_start, format!("expected a tensor type after dense<...>, found {other}"))),
        };
        let lit = build_literal(&body, &ty).map_err(|m| self.err_at(start, format!("bad dense constant: {m}")))?;
        Ok(Attr::Dense(lit))
    }

    fn parse_dense_elem(&mut self) -> Result<DenseElem> {
        self.enter()?;
        let r = self.parse_dense_elem_inner();
        self.leave();
        r
    }

    fn parse_dense_elem_inner(&mut self) -> Result<DenseElem> {
        if self.eat_punct("[")? {
            return Ok(DenseElem::List(self.comma_list("]", |p| p.parse_dense_elem())?));
        }
        if self.eat_punct("(")? {
            let re = self.parse_dense_elem()?;
            self.expect_punct(",")?;
            let im = self.parse_dense_elem()?;
            self.expect_punct(")")?;
            return Ok(DenseElem::Complex(Box::new(re), Box::new(im)));
        }
        if self.eat_id("true")? {
            return Ok(DenseElem::Bool(true));
        }
        if self.eat_id("false")? {
            return Ok(DenseElem::Bool(false));
        }
        let neg = self.eat_punct("-")?;
        match self.tok.kind {
            TokKind::Integer => {
                let t = self.bump()?;
                if let Some(hex) = t.text.strip_prefix("0x") {
                    if neg {
                        return Err(self.err_at(t.start, "a hex bit pattern cannot be negated"));
                    }
                    let v = u128::from_str_radix(hex, 16).map_err(|_| self.err_at(t.start, "hex literal is too large"))?;
                    return Ok(DenseElem::Hex(v));
                }
                let v = parse_int_text(&t.text).ok_or_else(|| self.err_at(t.start, "integer is too large"))?;
                Ok(DenseElem::Int(if neg { -v } else { v }))
            }
            TokKind::Float => {
                let t = self.bump()?;
                let v: f64 = t.text.parse().map_err(|_| self.err_at(t.start, "malformed float"))?;
                Ok(DenseElem::Float(if neg { -v } else { v }))
            }
            TokKind::BareId if self.at_id("inf") || self.at_id("nan") => {
                let t = self.bump()?;
                let v = if t.text == "inf" { f64::INFINITY } else { f64::NAN };
                Ok(DenseElem::Float(if neg { -v } else { v }))
            }
            _ => Err(self.expected("a dense element (number, true/false, list or (re, im))")),
        }
    }

    /// `#...` attributes: StableHLO enums and structs, aliases, and opaque dialect attributes.
    fn parse_hash_attr(&mut self) -> Result<Attr> {
        let t = self.bump()?;
        let name = t.text.clone();
        if !self.at_punct("<") {
            if let Some(a) = self.attr_aliases.get(&name) {
                return Ok(a.clone());
            }
            return Err(self.err_at(t.start, format!("unknown attribute alias #{name}")));
        }
        match name.as_str() {
            "stablehlo" | "chlo" | "mhlo" => {
                self.expect_punct("<")?;
                let kind = self.expect_kind(TokKind::BareId, "an enum kind such as comparison_direction")?.text;
                let value = self.expect_kind(TokKind::BareId, "an enum value")?.text;
                self.expect_punct(">")?;
                Ok(Attr::Enum(kind, value))
            }
            "stablehlo.conv" | "mhlo.conv" => {
                self.expect_punct("<")?;
                let d = if self.at_id("raw") {
                    return Err(self.unimplemented_at(self.tok.start, "#stablehlo.conv<raw ...> is not supported; use the [b, 0, 1, f]x... form"));
                } else {
                    self.parse_conv_dims()?
                };
                self.expect_punct(">")?;
                Ok(Attr::Conv(d))
            }
            n if n.starts_with("stablehlo.") || n.starts_with("mhlo.") || n.starts_with("chlo.") => {
                let short = n.split_once('.').map(|x| x.1).unwrap_or(n).to_string();
                self.expect_punct("<")?;
                if self.tok.kind == TokKind::BareId && !self.peek_next_is_punct("=")? {
                    // Enum-style `#stablehlo.result_accuracy_mode<DEFAULT>`.
                    let v = self.bump()?.text;
                    self.expect_punct(">")?;
                    return Ok(Attr::Enum(short, v));
                }
                let fields = self.comma_list(">", |p| {
                    let key = p.expect_kind(TokKind::BareId, "a field name")?.text;
                    p.expect_punct("=")?;
                    let v = p.parse_struct_field_value()?;
                    Ok((key, v))
                })?;
                Ok(Attr::Struct(short, fields))
            }
            _ => {
                let text = self.skip_balanced_angles(t.start)?;
                Ok(Attr::Opaque(text))
            }
        }
    }

    /// Field values inside `#stablehlo.xxx<...>`: bare enum words (`DEFAULT`) are allowed too.
    fn parse_struct_field_value(&mut self) -> Result<Attr> {
        if self.tok.kind == TokKind::BareId
            && !matches!(self.tok.text.as_str(), "true" | "false" | "array" | "dense" | "tensor")
            && Self::element_type_named(&self.tok.text).is_none()
        {
            let t = self.bump()?;
            return Ok(Attr::Enum(String::new(), t.text));
        }
        if self.at_punct("[") {
            self.bump()?;
            return Ok(Attr::Array(self.comma_list("]", |p| p.parse_struct_field_value())?));
        }
        self.parse_attr()
    }

    /// Skips `<...>` with nesting, returning the text from `from` through the closing `>`.
    fn skip_balanced_angles(&mut self, from: usize) -> Result<String> {
        let mut depth = 0usize;
        loop {
            if self.tok.kind == TokKind::Eof {
                return Err(self.err_at(from, "unterminated '<' in attribute"));
            }
            if self.at_punct("<") {
                depth += 1;
            } else if self.at_punct(">") {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    let end = self.tok.end;
                    self.bump()?;
                    return Ok(self.lx.src[from..end].to_string());
                }
            }
            self.bump()?;
        }
    }

    fn parse_opaque_call(&mut self) -> Result<Attr> {
        let start = self.tok.start;
        self.bump()?;
        self.skip_balanced_angles(start).map(Attr::Opaque)
    }

    /// `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`.
    pub fn parse_conv_dims(&mut self) -> Result<ConvDims> {
        let start = self.tok.start;
        let input = self.parse_conv_side()?;
        self.expect_id("x")?;
        let kernel = self.parse_conv_side()?;
        self.expect_punct("->")?;
        let output = self.parse_conv_side()?;
        let mut d = ConvDims::default();
        let bad = |p: &Self, m: &str| p.err_at(start, format!("bad convolution dimension numbers: {m}"));
        let find = |side: &[ConvLabel], c: char| side.iter().position(|l| *l == ConvLabel::Named(c)).map(|i| i as i64);
        let spatial = |side: &[ConvLabel]| -> Option<Vec<i64>> {
            let mut s: Vec<(i64, i64)> = side
                .iter()
                .enumerate()
                .filter_map(|(i, l)| match l {
                    ConvLabel::Spatial(k) => Some((*k, i as i64)),
                    _ => None,
                })
                .collect();
            s.sort();
            if s.iter().enumerate().any(|(i, (k, _))| *k != i as i64) {
                return None;
            }
            Some(s.into_iter().map(|x| x.1).collect())
        };
        d.input_batch = find(&input, 'b').ok_or_else(|| bad(self, "input has no 'b'"))?;
        d.input_feature = find(&input, 'f').ok_or_else(|| bad(self, "input has no 'f'"))?;
        d.input_spatial = spatial(&input).ok_or_else(|| bad(self, "input spatial dimensions must be 0..n"))?;
        d.kernel_input_feature = find(&kernel, 'i').ok_or_else(|| bad(self, "kernel has no 'i'"))?;
        d.kernel_output_feature = find(&kernel, 'o').ok_or_else(|| bad(self, "kernel has no 'o'"))?;
        d.kernel_spatial = spatial(&kernel).ok_or_else(|| bad(self, "kernel spatial dimensions must be 0..n"))?;
        d.output_batch = find(&output, 'b').ok_or_else(|| bad(self, "output has no 'b'"))?;
        d.output_feature = find(&output, 'f').ok_or_else(|| bad(self, "output has no 'f'"))?;
        d.output_spatial = spatial(&output).ok_or_else(|| bad(self, "output spatial dimensions must be 0..n"))?;
        Ok(d)
    }

    fn parse_conv_side(&mut self) -> Result<Vec<ConvLabel>> {
        self.expect_punct("[")?;
        self.comma_list("]", |p| match p.tok.kind {
            TokKind::Integer => Ok(ConvLabel::Spatial(p.parse_i64()?)),
            TokKind::BareId if p.tok.text.len() == 1 => {
                let c = p.bump()?.text.chars().next().unwrap_or('?');
                Ok(ConvLabel::Named(c))
            }
            _ => Err(p.expected("a dimension label (b, f, i, o or a spatial index)")),
        })
    }

    // ---- locations ----

    /// `loc(...)` if present.
    pub fn parse_opt_loc(&mut self) -> Result<Option<LocSyn>> {
        if !self.at_id("loc") {
            return Ok(None);
        }
        self.bump()?;
        self.expect_punct("(")?;
        let l = self.parse_loc_inner()?;
        self.expect_punct(")")?;
        Ok(Some(l))
    }

    pub fn parse_loc_inner(&mut self) -> Result<LocSyn> {
        self.enter()?;
        let r = self.parse_loc_inner2();
        self.leave();
        r
    }

    fn parse_loc_inner2(&mut self) -> Result<LocSyn> {
        match self.tok.kind {
            TokKind::HashId => Ok(LocSyn::Alias(self.bump()?.text)),
            TokKind::BareId if self.at_id("unknown") => {
                self.bump()?;
                Ok(LocSyn::Unknown)
            }
            TokKind::BareId if self.at_id("callsite") => {
                self.bump()?;
                self.expect_punct("(")?;
                let callee = self.parse_loc_inner()?;
                self.expect_id("at")?;
                let caller = self.parse_loc_inner()?;
                self.expect_punct(")")?;
                Ok(LocSyn::CallSite(Box::new(callee), Box::new(caller)))
            }
            TokKind::BareId if self.at_id("fused") => {
                self.bump()?;
                if self.eat_punct("<")? {
                    self.parse_attr()?;
                    self.expect_punct(">")?;
                }
                self.expect_punct("[")?;
                Ok(LocSyn::Fused(self.comma_list("]", |p| p.parse_loc_inner())?))
            }
            TokKind::String => {
                let s = self.bump()?.text;
                if self.eat_punct(":")? {
                    let line = self.parse_int()? as u64;
                    self.expect_punct(":")?;
                    let col = self.parse_int()? as u64;
                    if self.eat_id("to")? {
                        if self.eat_punct(":")? {
                            self.parse_int()?;
                        } else {
                            self.parse_int()?;
                            self.expect_punct(":")?;
                            self.parse_int()?;
                        }
                    }
                    Ok(LocSyn::File { file: s, line, col })
                } else if self.eat_punct("(")? {
                    let child = self.parse_loc_inner()?;
                    self.expect_punct(")")?;
                    Ok(LocSyn::Name(s, Some(Box::new(child))))
                } else {
                    Ok(LocSyn::Name(s, None))
                }
            }
            _ => Err(self.expected("a location (unknown, \"file\":line:col, \"name\", callsite(...), fused[...] or #alias)")),
        }
    }

    /// The location an op gets when none is written: its position in the text.
    pub fn text_loc(&self, offset: usize) -> LocSyn {
        let (line, col) = self.line_col(offset);
        LocSyn::Text { line, col }
    }

    /// Resolves a location to the short text apu shows in messages.
    pub fn loc_text(&self, l: &LocSyn, depth: usize) -> String {
        if depth > MAX_DEPTH {
            return String::new();
        }
        match l {
            LocSyn::Unknown => String::new(),
            LocSyn::File { file, line, col } => format!("{file}:{line}:{col}"),
            LocSyn::Text { line, col } => format!("<text>:{line}:{col}"),
            LocSyn::Name(n, child) => match child.as_deref().and_then(|c| self.first_file(c, depth + 1)) {
                Some(f) => format!("{n} ({f})"),
                None => n.clone(),
            },
            LocSyn::CallSite(callee, caller) => {
                let t = self.loc_text(callee, depth + 1);
                if t.is_empty() {
                    self.loc_text(caller, depth + 1)
                } else {
                    t
                }
            }
            LocSyn::Fused(items) => items.iter().map(|i| self.loc_text(i, depth + 1)).find(|t| !t.is_empty()).unwrap_or_default(),
            LocSyn::Alias(a) => self.loc_aliases.get(a).map(|l| self.loc_text(l, depth + 1)).unwrap_or_default(),
        }
    }

    fn first_file(&self, l: &LocSyn, depth: usize) -> Option<String> {
        if depth > MAX_DEPTH {
            return None;
        }
        match l {
            LocSyn::File { file, line, col } => Some(format!("{file}:{line}:{col}")),
            LocSyn::Name(_, Some(c)) => self.first_file(c, depth + 1),
            LocSyn::CallSite(callee, caller) => self.first_file(callee, depth + 1).or_else(|| self.first_file(caller, depth + 1)),
            LocSyn::Fused(items) => items.iter().find_map(|i| self.first_file(i, depth + 1)),
            LocSyn::Alias(a) => self.loc_aliases.get(a).and_then(|l| self.first_file(l, depth + 1)),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum ConvLabel {
    Named(char),
    Spatial(i64),
}

pub fn parse_int_text(text: &str) -> Option<i128> {
    if let Some(hex) = text.strip_prefix("0x") {
        u128::from_str_radix(hex, 16).ok().and_then(|v| i128::try_from(v).ok())
    } else {
        text.parse().ok()
    }
}

fn parse_hex_bytes(hex: &str) -> Option<Vec<u8>> {
    if hex.len() % 2 != 0 {
        return None;
    }
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok()).collect()
}
