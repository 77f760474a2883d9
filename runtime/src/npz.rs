//! NumPy `.npy` and `.npz` files as `(name, Tensor)` pairs, for tests and the command-line tool.
//!
//! `.npz` is a zip archive of `<name>.npy` members. `np.savez` stores members uncompressed, which is
//! what this reader handles (zip64 size fields included); compressed members (`np.savez_compressed`)
//! are UNIMPLEMENTED. The writer produces stored members that `np.load` reads.
//!
//! dtypes: `b1`, `i1`..`i8`, `u1`..`u8`, `f2`, `f4`, `f8`, `c8`, `c16` little-endian (or `|`), and
//! `V2`, which is how ml_dtypes' bfloat16 arrays are saved (NumPy has no bf16 descr), read as bf16.

use crate::Tensor;
use apu_compiler::ir::{ElementType, TensorType};
use apu_compiler::{Error, Result};

const NPY_MAGIC: &[u8] = b"\x93NUMPY";

fn bad(what: &str, offset: usize, msg: impl std::fmt::Display) -> Error {
    Error::malformed(what, offset, msg)
}

fn descr_elem(descr: &str) -> Result<ElementType> {
    use ElementType as E;
    let (order, code) = descr.split_at(descr.len().min(1));
    if order == ">" && !matches!(code, "i1" | "u1" | "b1") {
        return Err(Error::unimplemented(format!("big-endian .npy dtype {descr:?}")));
    }
    Ok(match code {
        "b1" => E::Pred,
        "i1" => E::S8,
        "i2" => E::S16,
        "i4" => E::S32,
        "i8" => E::S64,
        "u1" => E::U8,
        "u2" => E::U16,
        "u4" => E::U32,
        "u8" => E::U64,
        "f2" => E::F16,
        "f4" => E::F32,
        "f8" => E::F64,
        "c8" => E::C64,
        "c16" => E::C128,
        "V2" => E::BF16,
        _ => return Err(Error::unimplemented(format!(".npy dtype {descr:?}"))),
    })
}

fn elem_descr(elem: ElementType) -> Result<&'static str> {
    use ElementType as E;
    Ok(match elem {
        E::Pred => "|b1",
        E::S8 => "|i1",
        E::S16 => "<i2",
        E::S32 => "<i4",
        E::S64 => "<i8",
        E::U8 => "|u1",
        E::U16 => "<u2",
        E::U32 => "<u4",
        E::U64 => "<u8",
        E::F16 => "<f2",
        E::F32 => "<f4",
        E::F64 => "<f8",
        E::C64 => "<c8",
        E::C128 => "<c16",
        E::BF16 => "|V2",
        other => return Err(Error::unimplemented(format!("writing {other} to .npy"))),
    })
}

/// The quoted string value of `key` in the header dict.
fn header_str<'a>(header: &'a str, key: &str) -> Option<&'a str> {
    let rest = &header[header.find(&format!("'{key}'"))? + key.len() + 2..];
    let rest = rest.trim_start().strip_prefix(':')?.trim_start();
    let quote = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let rest = &rest[1..];
    Some(&rest[..rest.find(quote)?])
}

fn header_shape(header: &str) -> Option<Vec<i64>> {
    let rest = &header[header.find("'shape'")? + 7..];
    let rest = rest.trim_start().strip_prefix(':')?.trim_start().strip_prefix('(')?;
    let inner = &rest[..rest.find(')')?];
    inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.trim_end_matches('L').parse::<i64>().ok().filter(|&d| d >= 0))
        .collect()
}

/// Parses one `.npy` file.
pub fn read_npy(bytes: &[u8]) -> Result<Tensor> {
    const WHAT: &str = ".npy";
    if bytes.len() < 10 || &bytes[..6] != NPY_MAGIC {
        return Err(bad(WHAT, 0, "missing \\x93NUMPY magic"));
    }
    let (header_len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10usize),
        2 | 3 if bytes.len() >= 12 => (u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize, 12),
        v => return Err(bad(WHAT, 6, format!("unsupported format version {v}"))),
    };
    let end = start.checked_add(header_len).filter(|&e| e <= bytes.len()).ok_or_else(|| bad(WHAT, 8, "header runs past the end"))?;
    let header = std::str::from_utf8(&bytes[start..end]).map_err(|_| bad(WHAT, start, "header is not UTF-8"))?;
    let descr = header_str(header, "descr").ok_or_else(|| bad(WHAT, start, "header has no 'descr'"))?;
    let elem = descr_elem(descr)?;
    if header.contains("'fortran_order': True") {
        return Err(Error::unimplemented("Fortran-ordered .npy arrays"));
    }
    let shape = header_shape(header).ok_or_else(|| bad(WHAT, start, "header has no valid 'shape'"))?;
    let ty = TensorType::new(shape, elem);
    let data = &bytes[end..];
    if data.len() != ty.byte_size() {
        return Err(bad(WHAT, end, format!("{ty} needs {} data bytes, file has {}", ty.byte_size(), data.len())));
    }
    Tensor::from_bytes(ty, data)
}

/// Serialises a tensor as a version 1.0 `.npy` file.
pub fn write_npy(t: &Tensor) -> Result<Vec<u8>> {
    let shape = match t.ty.shape.len() {
        1 => format!("({},)", t.ty.shape[0]),
        _ => format!("({})", t.ty.shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    };
    let mut header = format!("{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}", elem_descr(t.ty.elem)?);
    // Data starts at a multiple of 64 bytes; the header ends with a newline.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + t.bytes().len());
    out.extend_from_slice(NPY_MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(t.bytes());
    Ok(out)
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// Little-endian reads with bounds checks.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl Reader<'_> {
    fn u16(&self, at: usize) -> Result<u16> {
        self.bytes.get(at..at + 2).map(|b| u16::from_le_bytes([b[0], b[1]])).ok_or_else(|| bad(".npz", at, "truncated"))
    }
    fn u32(&self, at: usize) -> Result<u32> {
        self.bytes.get(at..at + 4).map(|b| u32::from_le_bytes(b.try_into().unwrap())).ok_or_else(|| bad(".npz", at, "truncated"))
    }
    fn u64(&self, at: usize) -> Result<u64> {
        self.bytes.get(at..at + 8).map(|b| u64::from_le_bytes(b.try_into().unwrap())).ok_or_else(|| bad(".npz", at, "truncated"))
    }
    fn slice(&self, at: usize, len: usize) -> Result<&[u8]> {
        at.checked_add(len).and_then(|end| self.bytes.get(at..end)).ok_or_else(|| bad(".npz", at, format!("{len} bytes run past the end")))
    }
}

/// Reads every `.npy` member of an `.npz` archive, named without the `.npy` suffix, in archive order.
pub fn read_npz(bytes: &[u8]) -> Result<Vec<(String, Tensor)>> {
    const WHAT: &str = ".npz";
    let r = Reader { bytes };
    // The end-of-central-directory record is in the last 64 KiB + 22 bytes.
    let lowest = bytes.len().saturating_sub(22 + 65535);
    let eocd = (lowest..=bytes.len().saturating_sub(22))
        .rev()
        .find(|&i| r.u32(i).ok() == Some(0x0605_4b50))
        .ok_or_else(|| bad(WHAT, bytes.len(), "no end-of-central-directory record (not a zip file)"))?;
    let mut count = r.u16(eocd + 10)? as u64;
    let mut cd = r.u32(eocd + 16)? as u64;
    if (count == 0xFFFF || cd == 0xFFFF_FFFF) && eocd >= 20 && r.u32(eocd - 20)? == 0x0706_4b50 {
        let z64 = r.u64(eocd - 20 + 8)? as usize;
        if r.u32(z64)? != 0x0606_4b50 {
            return Err(bad(WHAT, z64, "bad zip64 end-of-central-directory signature"));
        }
        count = r.u64(z64 + 32)?;
        cd = r.u64(z64 + 48)?;
    }
    let mut out = Vec::new();
    let mut at = usize::try_from(cd).map_err(|_| bad(WHAT, eocd, "central directory offset too large"))?;
    for _ in 0..count {
        if r.u32(at)? != 0x0201_4b50 {
            return Err(bad(WHAT, at, "bad central directory entry signature"));
        }
        let method = r.u16(at + 10)?;
        let crc = r.u32(at + 16)?;
        let mut csize = r.u32(at + 20)? as u64;
        let mut usize_ = r.u32(at + 24)? as u64;
        let (nlen, elen, clen) = (r.u16(at + 28)? as usize, r.u16(at + 30)? as usize, r.u16(at + 32)? as usize);
        let mut local = r.u32(at + 42)? as u64;
        let name = String::from_utf8_lossy(r.slice(at + 46, nlen)?).into_owned();
        // Zip64 extra field: the 64-bit values of the fields that hold 0xFFFFFFFF, in this order.
        let extra = r.slice(at + 46 + nlen, elen)?;
        let mut e = 0;
        while e + 4 <= extra.len() {
            let id = u16::from_le_bytes([extra[e], extra[e + 1]]);
            let size = u16::from_le_bytes([extra[e + 2], extra[e + 3]]) as usize;
            let body = extra.get(e + 4..e + 4 + size).ok_or_else(|| bad(WHAT, at, "truncated extra field"))?;
            if id == 1 {
                let mut k = 0;
                let mut next = |field: &mut u64| -> Result<()> {
                    if *field == 0xFFFF_FFFF {
                        let b = body.get(k..k + 8).ok_or_else(|| bad(WHAT, at, "short zip64 extra field"))?;
                        *field = u64::from_le_bytes(b.try_into().unwrap());
                        k += 8;
                    }
                    Ok(())
                };
                next(&mut usize_)?;
                next(&mut csize)?;
                next(&mut local)?;
            }
            e += 4 + size;
        }
        if method != 0 {
            return Err(Error::unimplemented(format!(
                "compressed .npz member {name:?} (method {method}); save with np.savez, not np.savez_compressed"
            )));
        }
        if csize != usize_ {
            return Err(bad(WHAT, at, format!("stored member {name:?} has different sizes")));
        }
        let local = usize::try_from(local).map_err(|_| bad(WHAT, at, "member offset too large"))?;
        if r.u32(local)? != 0x0403_4b50 {
            return Err(bad(WHAT, local, "bad local header signature"));
        }
        let data_at = local + 30 + r.u16(local + 26)? as usize + r.u16(local + 28)? as usize;
        let data = r.slice(data_at, usize::try_from(csize).map_err(|_| bad(WHAT, at, "member too large"))?)?;
        if crc32(data) != crc {
            return Err(bad(WHAT, data_at, format!("CRC mismatch in member {name:?}")));
        }
        let tensor = read_npy(data).map_err(|e| e.context(format!("member {name:?}")))?;
        out.push((name.strip_suffix(".npy").unwrap_or(&name).to_string(), tensor));
        at += 46 + nlen + elen + clen;
    }
    Ok(out)
}

/// Writes an `.npz` archive with one stored `<name>.npy` member per tensor.
pub fn write_npz(entries: &[(String, Tensor)]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, t) in entries {
        let data = write_npy(t)?;
        let fname = format!("{name}.npy");
        if data.len() >= u32::MAX as usize || out.len() >= u32::MAX as usize {
            return Err(Error::unimplemented("writing .npz files larger than 4 GiB"));
        }
        let crc = crc32(&data);
        let offset = out.len() as u32;
        let common = |v: &mut Vec<u8>| {
            v.extend_from_slice(&20u16.to_le_bytes()); // version needed
            v.extend_from_slice(&0u16.to_le_bytes()); // flags
            v.extend_from_slice(&0u16.to_le_bytes()); // stored
            v.extend_from_slice(&0u16.to_le_bytes()); // time
            v.extend_from_slice(&0x21u16.to_le_bytes()); // date 1980-01-01
            v.extend_from_slice(&crc.to_le_bytes());
            v.extend_from_slice(&(data.len() as u32).to_le_bytes());
            v.extend_from_slice(&(data.len() as u32).to_le_bytes());
            v.extend_from_slice(&(fname.len() as u16).to_le_bytes());
            v.extend_from_slice(&0u16.to_le_bytes()); // extra length
        };
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        common(&mut out);
        out.extend_from_slice(fname.as_bytes());
        out.extend_from_slice(&data);
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes()); // version made by
        common(&mut central);
        central.extend_from_slice(&[0; 6]); // comment length, disk number, internal attributes
        central.extend_from_slice(&0u32.to_le_bytes()); // external attrs
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(fname.as_bytes());
    }
    let cd_offset = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    Ok(out)
}

pub fn load_npz(path: &std::path::Path) -> Result<Vec<(String, Tensor)>> {
    let bytes = std::fs::read(path).map_err(|e| Error::invalid(format!("cannot read {}: {e}", path.display())))?;
    read_npz(&bytes).map_err(|e| e.context(path.display().to_string()))
}

pub fn save_npz(path: &std::path::Path, entries: &[(String, Tensor)]) -> Result<()> {
    std::fs::write(path, write_npz(entries)?).map_err(|e| Error::invalid(format!("cannot write {}: {e}", path.display())))
}
