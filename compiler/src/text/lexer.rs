//! The MLIR lexer: turns text into tokens that remember their byte span, so that every parse error
//! can name a line and column. Shapes (`4x8xf32`) are not tokenized here: the type parser scans them
//! from the raw text because `0xf32` would otherwise read as a hexadecimal integer.

use crate::{Error, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokKind {
    Eof,
    /// `foo`, `stablehlo.add`, `f32`, `x`.
    BareId,
    /// `%0`, `%arg1`, `%1#2` (the text keeps the `#2`).
    PercentId,
    /// `@main`, `@"quoted name"` (text is the name without `@` and quotes).
    AtId,
    /// `^bb0`.
    CaretId,
    /// `#loc3`, `#stablehlo`, `#stablehlo.gather`.
    HashId,
    /// `!stablehlo.token`.
    BangId,
    /// `12`, `0xFF800000`.
    Integer,
    /// `1.5`, `1.000000e+00`, `2E-4`.
    Float,
    /// A string literal; the text is the unescaped content.
    String,
    /// Punctuation: `( ) { } [ ] < > , : = -> * ? + -` and `...`.
    Punct,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub kind: TokKind,
    pub start: usize,
    pub end: usize,
    pub text: String,
}

impl Token {
    pub fn is_punct(&self, p: &str) -> bool {
        self.kind == TokKind::Punct && self.text == p
    }
    pub fn is_id(&self, id: &str) -> bool {
        self.kind == TokKind::BareId && self.text == id
    }
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self.kind {
            TokKind::Eof => "end of input".to_string(),
            TokKind::String => format!("string {:?}", self.text),
            TokKind::PercentId => format!("'%{}'", self.text),
            TokKind::AtId => format!("'@{}'", self.text),
            TokKind::CaretId => format!("'^{}'", self.text),
            TokKind::HashId => format!("'#{}'", self.text),
            TokKind::BangId => format!("'!{}'", self.text),
            _ => format!("'{}'", self.text),
        }
    }
}

/// Maps byte offsets to 1-based line and column numbers.
#[derive(Clone, Debug)]
pub struct LineMap {
    line_starts: Vec<usize>,
}

impl LineMap {
    pub fn new(src: &str) -> Self {
        let mut line_starts = vec![0];
        for (i, b) in src.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i + 1);
            }
        }
        LineMap { line_starts }
    }
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let line = self.line_starts.partition_point(|&s| s <= offset).max(1);
        (line, offset - self.line_starts[line - 1] + 1)
    }
}

/// A cursor over the source. `next_token` skips whitespace and `//` comments.
#[derive(Clone)]
pub struct Lexer<'a> {
    pub src: &'a str,
    pub pos: usize,
}

fn is_id_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}
fn is_id_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-')
}
fn is_suffix_id_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-')
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Self {
        Lexer { src, pos: 0 }
    }

    fn bytes(&self) -> &'a [u8] {
        self.src.as_bytes()
    }
    fn peek_byte(&self, ahead: usize) -> Option<u8> {
        self.bytes().get(self.pos + ahead).copied()
    }

    pub fn skip_trivia(&mut self) {
        loop {
            match self.peek_byte(0) {
                Some(c) if c.is_ascii_whitespace() => self.pos += 1,
                Some(b'/') if self.peek_byte(1) == Some(b'/') => {
                    while let Some(c) = self.peek_byte(0) {
                        if c == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                _ => return,
            }
        }
    }

    fn err(&self, at: usize, msg: impl std::fmt::Display) -> Error {
        let (l, c) = LineMap::new(self.src).line_col(at);
        Error::invalid(format!("{l}:{c}: {msg}"))
    }

    fn take_while(&mut self, f: impl Fn(u8) -> bool) {
        while let Some(c) = self.peek_byte(0) {
            if !f(c) {
                break;
            }
            self.pos += 1;
        }
    }

    fn token(&self, kind: TokKind, start: usize, text: String) -> Token {
        Token { kind, start, end: self.pos, text }
    }

    pub fn next_token(&mut self) -> Result<Token> {
        self.skip_trivia();
        let start = self.pos;
        let Some(c) = self.peek_byte(0) else {
            return Ok(self.token(TokKind::Eof, start, String::new()));
        };
        match c {
            b'%' | b'^' | b'#' | b'!' => {
                self.pos += 1;
                let name_start = self.pos;
                match self.peek_byte(0) {
                    Some(d) if is_suffix_id_char(d) => self.take_while(is_suffix_id_char),
                    Some(b'"') if c == b'!' || c == b'#' => {
                        // Quoted dialect names are not used by StableHLO; reject clearly.
                        return Err(self.err(start, "quoted dialect names are not supported"));
                    }
                    _ => return Err(self.err(start, format!("expected a name after '{}'", c as char))),
                }
                if c == b'%' && self.peek_byte(0) == Some(b'#') && self.peek_byte(1).is_some_and(|d| d.is_ascii_digit()) {
                    self.pos += 1;
                    self.take_while(|d| d.is_ascii_digit());
                }
                let kind = match c {
                    b'%' => TokKind::PercentId,
                    b'^' => TokKind::CaretId,
                    b'#' => TokKind::HashId,
                    _ => TokKind::BangId,
                };
                Ok(self.token(kind, start, self.src[name_start..self.pos].to_string()))
            }
            b'@' => {
                self.pos += 1;
                if self.peek_byte(0) == Some(b'"') {
                    let s = self.lex_string()?;
                    Ok(self.token(TokKind::AtId, start, s))
                } else if self.peek_byte(0).is_some_and(|d| is_id_start(d) || d == b'$') {
                    let name_start = self.pos;
                    self.take_while(is_id_char);
                    Ok(self.token(TokKind::AtId, start, self.src[name_start..self.pos].to_string()))
                } else {
                    Err(self.err(start, "expected a symbol name after '@'"))
                }
            }
            b'"' => {
                let s = self.lex_string()?;
                Ok(self.token(TokKind::String, start, s))
            }
            b'0'..=b'9' => self.lex_number(start),
            c if is_id_start(c) => {
                self.take_while(|d| d.is_ascii_alphanumeric() || matches!(d, b'_' | b'$' | b'.'));
                Ok(self.token(TokKind::BareId, start, self.src[start..self.pos].to_string()))
            }
            b'-' if self.peek_byte(1) == Some(b'>') => {
                self.pos += 2;
                Ok(self.token(TokKind::Punct, start, "->".into()))
            }
            b'.' if self.src[self.pos..].starts_with("...") => {
                self.pos += 3;
                Ok(self.token(TokKind::Punct, start, "...".into()))
            }
            b'(' | b')' | b'{' | b'}' | b'[' | b']' | b'<' | b'>' | b',' | b':' | b'=' | b'*' | b'?' | b'+' | b'-'
            | b'|' => {
                self.pos += 1;
                Ok(self.token(TokKind::Punct, start, (c as char).to_string()))
            }
            _ => {
                let ch = self.src[self.pos..].chars().next().unwrap_or('?');
                Err(self.err(start, format!("unexpected character {ch:?}")))
            }
        }
    }

    fn lex_number(&mut self, start: usize) -> Result<Token> {
        if self.peek_byte(0) == Some(b'0')
            && self.peek_byte(1) == Some(b'x')
            && self.peek_byte(2).is_some_and(|d| d.is_ascii_hexdigit())
        {
            self.pos += 2;
            self.take_while(|d| d.is_ascii_hexdigit());
            return Ok(self.token(TokKind::Integer, start, self.src[start..self.pos].to_string()));
        }
        self.take_while(|d| d.is_ascii_digit());
        let mut is_float = false;
        if self.peek_byte(0) == Some(b'.') {
            is_float = true;
            self.pos += 1;
            self.take_while(|d| d.is_ascii_digit());
        }
        if is_float && matches!(self.peek_byte(0), Some(b'e' | b'E')) {
            let save = self.pos;
            self.pos += 1;
            if matches!(self.peek_byte(0), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.peek_byte(0).is_some_and(|d| d.is_ascii_digit()) {
                self.take_while(|d| d.is_ascii_digit());
            } else {
                self.pos = save;
            }
        }
        let kind = if is_float { TokKind::Float } else { TokKind::Integer };
        Ok(self.token(kind, start, self.src[start..self.pos].to_string()))
    }

    /// Reads a `"..."` literal at the cursor; understands `\n`, `\t`, `\"`, `\\` and `\XX` hex escapes.
    fn lex_string(&mut self) -> Result<String> {
        let start = self.pos;
        self.pos += 1; // opening quote
        let mut bytes = Vec::new();
        loop {
            let Some(c) = self.peek_byte(0) else {
                return Err(self.err(start, "unterminated string literal"));
            };
            self.pos += 1;
            match c {
                b'"' => break,
                b'\n' => return Err(self.err(start, "unterminated string literal (newline before closing quote)")),
                b'\\' => {
                    let Some(e) = self.peek_byte(0) else {
                        return Err(self.err(start, "unterminated string literal"));
                    };
                    self.pos += 1;
                    match e {
                        b'n' => bytes.push(b'\n'),
                        b't' => bytes.push(b'\t'),
                        b'"' => bytes.push(b'"'),
                        b'\\' => bytes.push(b'\\'),
                        h if h.is_ascii_hexdigit() => {
                            let Some(l) = self.peek_byte(0).filter(|l| l.is_ascii_hexdigit()) else {
                                return Err(self.err(self.pos - 2, "bad escape in string: expected two hex digits"));
                            };
                            self.pos += 1;
                            let hex = |d: u8| (d as char).to_digit(16).unwrap_or(0) as u8;
                            bytes.push(hex(h) * 16 + hex(l));
                        }
                        _ => return Err(self.err(self.pos - 2, "unknown escape in string")),
                    }
                }
                _ => bytes.push(c),
            }
        }
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(TokKind, String)> {
        let mut lx = Lexer::new(src);
        let mut out = Vec::new();
        loop {
            let t = lx.next_token().unwrap();
            if t.kind == TokKind::Eof {
                return out;
            }
            out.push((t.kind, t.text));
        }
    }

    #[test]
    fn lexes_ops_and_values() {
        let toks = kinds(r#"%1:2 = "stablehlo.add"(%0#1) -> @f 1.5e+00 0xFF -3 ^bb0 #loc3 !stablehlo.token"#);
        assert_eq!(toks[0], (TokKind::PercentId, "1".into()));
        assert_eq!(toks[1], (TokKind::Punct, ":".into()));
        assert_eq!(toks[2], (TokKind::Integer, "2".into()));
        assert_eq!(toks[4], (TokKind::String, "stablehlo.add".into()));
        assert_eq!(toks[6], (TokKind::PercentId, "0#1".into()));
        assert_eq!(toks[8], (TokKind::Punct, "->".into()));
        assert_eq!(toks[9], (TokKind::AtId, "f".into()));
        assert_eq!(toks[10], (TokKind::Float, "1.5e+00".into()));
        assert_eq!(toks[11], (TokKind::Integer, "0xFF".into()));
        assert_eq!(toks[12], (TokKind::Punct, "-".into()));
        assert_eq!(toks[14], (TokKind::CaretId, "bb0".into()));
        assert_eq!(toks[15], (TokKind::HashId, "loc3".into()));
        assert_eq!(toks[16], (TokKind::BangId, "stablehlo.token".into()));
    }

    #[test]
    fn string_escapes_and_errors() {
        assert_eq!(kinds(r#""a\"b\0A""#)[0].1, "a\"b\n");
        let err = Lexer::new("\n  \"abc").next_token().unwrap_err();
        assert!(err.message.starts_with("2:3:"), "{}", err.message);
    }

    #[test]
    fn line_map() {
        let m = LineMap::new("ab\ncd\n");
        assert_eq!(m.line_col(0), (1, 1));
        assert_eq!(m.line_col(4), (2, 2));
        assert_eq!(m.line_col(6), (3, 1));
    }
}
