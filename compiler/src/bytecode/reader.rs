//! Byte-level primitives of MLIR bytecode: prefix varints, zig-zag varints, blobs, NUL-terminated
//! strings. A [`Reader`] walks one slice of the file and remembers where that slice starts, so every
//! error names an absolute byte offset and the section being read.

use crate::{Error, Result};

/// The format name used in every error of the bytecode reader.
pub const FORMAT: &str = "MLIR bytecode";

/// A cursor over a slice of the file.
#[derive(Clone)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    /// Absolute offset of `data[0]` in the file, for error messages.
    base: usize,
    /// What is being read ("string section", "IR section", …), for error messages.
    what: &'static str,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8], base: usize, what: &'static str) -> Self {
        Reader { data, pos: 0, base, what }
    }

    /// Absolute file offset of the next byte.
    pub fn offset(&self) -> usize {
        self.base + self.pos
    }
    pub fn what(&self) -> &'static str {
        self.what
    }
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// An error at the current offset naming the part being read.
    pub fn error(&self, msg: impl std::fmt::Display) -> Error {
        Error::malformed(FORMAT, self.offset(), format!("{}: {msg}", self.what))
    }

    pub fn byte(&mut self) -> Result<u8> {
        let b = *self.data.get(self.pos).ok_or_else(|| self.error("unexpected end of data"))?;
        self.pos += 1;
        Ok(b)
    }

    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.error(format!("needs {n} bytes, only {} left", self.remaining())));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// A sub-reader over the next `n` bytes (which this reader skips).
    pub fn sub(&mut self, n: usize, what: &'static str) -> Result<Reader<'a>> {
        let base = self.offset();
        let data = self.bytes(n)?;
        Ok(Reader::new(data, base, what))
    }

    /// Prefix varint: the count of trailing zeros of the first byte is the count of extra bytes.
    pub fn varint(&mut self) -> Result<u64> {
        let first = self.byte()?;
        if first & 1 == 1 {
            return Ok(u64::from(first >> 1));
        }
        if first == 0 {
            let raw = self.bytes(8)?;
            return Ok(u64::from_le_bytes(raw.try_into().expect("8 bytes")));
        }
        let extra = first.trailing_zeros() as usize;
        let rest = self.bytes(extra)?;
        let mut value = u64::from(first);
        for (i, b) in rest.iter().enumerate() {
            value |= u64::from(*b) << (8 * (i + 1));
        }
        Ok(value >> (extra + 1))
    }

    /// A zig-zag encoded signed varint.
    pub fn svarint(&mut self) -> Result<i64> {
        let u = self.varint()?;
        Ok(((u >> 1) as i64) ^ -((u & 1) as i64))
    }

    /// A varint used as a count or index: must fit in `usize` and not exceed `limit`.
    pub fn index(&mut self, limit: usize, what: &str) -> Result<usize> {
        let v = self.varint()?;
        if v >= limit as u64 {
            return Err(self.error(format!("{what} index {v} out of range (have {limit})")));
        }
        Ok(v as usize)
    }

    /// A count of items that each take at least one byte, so it cannot exceed the bytes left.
    pub fn count(&mut self, what: &str) -> Result<usize> {
        let v = self.varint()?;
        if v > self.remaining() as u64 {
            return Err(self.error(format!("{what} count {v} exceeds the {} bytes left", self.remaining())));
        }
        Ok(v as usize)
    }

    /// A varint followed by `len` raw bytes.
    pub fn blob(&mut self) -> Result<&'a [u8]> {
        let len = self.varint()?;
        if len > self.remaining() as u64 {
            return Err(self.error(format!("blob of {len} bytes exceeds the {} bytes left", self.remaining())));
        }
        self.bytes(len as usize)
    }

    /// A NUL-terminated string (the NUL is consumed, not returned).
    pub fn cstr(&mut self) -> Result<&'a str> {
        let rest = &self.data[self.pos..];
        let nul = rest.iter().position(|&b| b == 0).ok_or_else(|| self.error("string without NUL terminator"))?;
        let s = std::str::from_utf8(&rest[..nul]).map_err(|_| self.error("string is not UTF-8"))?;
        self.pos += nul + 1;
        Ok(s)
    }

    /// Skips `0xCB` padding until the absolute offset is a multiple of `align`.
    pub fn align_to(&mut self, align: u64) -> Result<()> {
        if align == 0 || !align.is_power_of_two() || align > 4096 {
            return Err(self.error(format!("invalid alignment {align}")));
        }
        while (self.offset() as u64) % align != 0 {
            if self.byte()? != 0xCB {
                return Err(self.error("alignment padding byte is not 0xCB"));
            }
        }
        Ok(())
    }

    /// An unsigned integer of `width` bits, as MLIR writes APInts of a known width.
    /// Returns the value zero-extended from `width` bits (two's complement bits for signed types).
    pub fn apint(&mut self, width: u32) -> Result<Vec<u64>> {
        if width <= 8 {
            return Ok(vec![u64::from(self.byte()?) & mask(width)]);
        }
        if width <= 64 {
            return Ok(vec![(self.svarint()? as u64) & mask(width)]);
        }
        let words = self.count("APInt word")?;
        let needed = (width as usize).div_ceil(64);
        if words != needed {
            return Err(self.error(format!("APInt of {width} bits has {words} words, expected {needed}")));
        }
        (0..words).map(|_| self.svarint().map(|v| v as u64)).collect()
    }
}

fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_of_every_length() {
        // 1 byte: value 5 -> (5 << 1) | 1.
        assert_eq!(Reader::new(&[0x0B], 0, "t").varint().unwrap(), 5);
        // 2 bytes: value 300 -> (300 << 2) | 0b10.
        let v = (300u64 << 2) | 2;
        assert_eq!(Reader::new(&v.to_le_bytes()[..2], 0, "t").varint().unwrap(), 300);
        // 9 bytes: 0x00 then a raw u64.
        let mut nine = vec![0u8];
        nine.extend_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(Reader::new(&nine, 0, "t").varint().unwrap(), u64::MAX);
        // Truncated.
        assert!(Reader::new(&[0x02], 0, "t").varint().is_err());
    }

    #[test]
    fn zigzag() {
        assert_eq!(Reader::new(&[0x03], 0, "t").svarint().unwrap(), -1);
        assert_eq!(Reader::new(&[0x05], 0, "t").svarint().unwrap(), 1);
    }

    #[test]
    fn errors_name_offset_and_part() {
        let e = Reader::new(&[], 17, "string section").byte().unwrap_err();
        assert!(e.message.contains("byte 17") && e.message.contains("string section"), "{e}");
    }
}
