//! A deliberately small reader of PJRT-style C headers: enough to list, for each named struct,
//! its member names in order, every enumerator, and which structs declare a `_STRUCT_SIZE`
//! constant. It understands the shapes both apu's header and upstream's use (comments,
//! preprocessor lines, `typedef struct X {..} X;`, anonymous unions, function-pointer members,
//! `_PJRT_API_STRUCT_FIELD(name)` table members); it is not a C parser.
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Default)]
pub struct Declarations {
    /// struct name -> member names in declaration order (anonymous union members flattened).
    pub structs: BTreeMap<String, Vec<String>>,
    /// enumerator names (including `<Struct>_STRUCT_SIZE` constants written as enums).
    pub enumerators: BTreeSet<String>,
    /// `<Struct>_STRUCT_SIZE` constants declared through a helper macro.
    pub struct_size_constants: BTreeSet<String>,
}

pub fn read(text: &str) -> Declarations {
    let code = strip_preprocessor(&strip_comments(text));
    let mut decls = Declarations::default();
    collect_size_macros(&code, &mut decls);
    collect_structs(&code, &mut decls);
    collect_enums(&code, &mut decls);
    decls
}

fn strip_comments(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(b"//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if bytes[i..].starts_with(b"/*") {
            i += 2;
            while i < bytes.len() && !bytes[i..].starts_with(b"*/") {
                i += 1;
            }
            i = (i + 2).min(bytes.len());
            out.push(' ');
        } else {
            let ch_len = utf8_len(bytes[i]);
            out.push_str(&text[i..(i + ch_len).min(text.len())]);
            i += ch_len;
        }
    }
    out
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

/// Drops `#...` lines together with their backslash continuations.
fn strip_preprocessor(text: &str) -> String {
    let mut out = String::new();
    let mut continuing = false;
    for line in text.lines() {
        let is_directive = continuing || line.trim_start().starts_with('#');
        continuing = is_directive && line.trim_end().ends_with('\\');
        if !is_directive {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn collect_size_macros(code: &str, decls: &mut Declarations) {
    for macro_name in ["PJRT_DEFINE_STRUCT_TRAITS", "APU_PJRT_STRUCT_SIZE_CONSTANT"] {
        let mut rest = code;
        while let Some(pos) = rest.find(macro_name) {
            rest = &rest[pos + macro_name.len()..];
            let args = rest.trim_start();
            if let Some(args) = args.strip_prefix('(') {
                if let Some(name) = args.split(',').next().map(str::trim) {
                    if is_identifier(name) {
                        decls.struct_size_constants.insert(format!("{name}_STRUCT_SIZE"));
                    }
                }
            }
        }
    }
}

/// Finds every `struct NAME {` and reads its body.
fn collect_structs(code: &str, decls: &mut Declarations) {
    let bytes = code.as_bytes();
    let mut search_from = 0;
    while let Some(found) = code[search_from..].find("struct") {
        let start = search_from + found;
        search_from = start + 6;
        if start > 0 && is_ident_byte(bytes[start - 1]) {
            continue;
        }
        let after = &code[start + 6..];
        let name_len = after.trim_start().bytes().take_while(|b| is_ident_byte(*b)).count();
        let skipped_ws = after.len() - after.trim_start().len();
        if name_len == 0 {
            continue;
        }
        let name = &after[skipped_ws..skipped_ws + name_len];
        let tail = after[skipped_ws + name_len..].trim_start();
        if !tail.starts_with('{') {
            continue;
        }
        let body_start = code.len() - tail.len() + 1;
        let Some(body_end) = matching_brace(code, body_start - 1) else { continue };
        let members = members_of(&code[body_start..body_end]);
        decls.structs.insert(name.to_string(), members);
        search_from = body_end;
    }
}

fn collect_enums(code: &str, decls: &mut Declarations) {
    let mut search_from = 0;
    while let Some(found) = code[search_from..].find("enum") {
        let start = search_from + found;
        search_from = start + 4;
        let bytes = code.as_bytes();
        if (start > 0 && is_ident_byte(bytes[start - 1]))
            || bytes.get(start + 4).is_some_and(|b| is_ident_byte(*b))
        {
            continue;
        }
        let Some(open_rel) = code[start..].find('{') else { break };
        let between = &code[start + 4..start + open_rel];
        if between.contains(';') || between.contains('}') {
            continue; // `enum X` used as a type, not a definition
        }
        let Some(close) = matching_brace(code, start + open_rel) else { continue };
        for item in code[start + open_rel + 1..close].split(',') {
            let name = item.split('=').next().unwrap_or("").trim();
            if is_identifier(name) {
                decls.enumerators.insert(name.to_string());
            }
        }
        search_from = close;
    }
}

fn members_of(body: &str) -> Vec<String> {
    let mut members = Vec::new();
    for decl in split_top_level(body, ';') {
        let decl = decl.trim();
        if decl.is_empty() {
            continue;
        }
        if let Some(name) = macro_argument(decl, "_PJRT_API_STRUCT_FIELD") {
            members.push(name);
            continue;
        }
        if let Some(open) = decl.find('{') {
            // Anonymous union/struct: its members are addressed as members of the outer struct.
            if let Some(close) = matching_brace(decl, open) {
                let tail = decl[close + 1..].trim();
                if tail.is_empty() {
                    members.extend(members_of(&decl[open + 1..close]));
                } else {
                    members.push(last_identifier(tail));
                }
            }
            continue;
        }
        members.push(declarator_name(decl));
    }
    members
}

fn macro_argument(decl: &str, macro_name: &str) -> Option<String> {
    let pos = decl.find(macro_name)?;
    let rest = decl[pos + macro_name.len()..].trim_start().strip_prefix('(')?;
    let arg = rest.split(')').next()?.trim();
    is_identifier(arg).then(|| arg.to_string())
}

/// `void (*destroy)(PJRT_Error*)` -> destroy; `const int64_t* dims` -> dims; `char x[4]` -> x.
fn declarator_name(decl: &str) -> String {
    if let Some(pos) = decl.find("(*") {
        let name: String = decl[pos + 2..].trim_start().chars().take_while(|c| is_ident_char(*c)).collect();
        return name;
    }
    let without_array = decl.split('[').next().unwrap_or(decl);
    last_identifier(without_array)
}

fn last_identifier(text: &str) -> String {
    let trimmed = text.trim_end();
    let rev: String = trimmed.chars().rev().take_while(|c| is_ident_char(*c)).collect();
    rev.chars().rev().collect()
}

fn split_top_level(text: &str, separator: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, ch) in text.char_indices() {
        match ch {
            '{' | '(' => depth += 1,
            '}' | ')' => depth -= 1,
            c if c == separator && depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

fn matching_brace(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, ch) in text[open..].char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn is_identifier(s: &str) -> bool {
    !s.is_empty() && !s.starts_with(|c: char| c.is_ascii_digit()) && s.chars().all(is_ident_char)
}
