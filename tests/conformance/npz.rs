//! Just enough of `.npz` (an uncompressed zip of `.npy` files, as `np.savez` writes) to read the
//! sample inputs and outputs. Every length is checked; bad input is an error, never a panic.
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq)]
pub struct NpyArray {
    /// numpy dtype string, e.g. "<f4", "|b1", "<i4".
    pub descr: String,
    pub shape: Vec<i64>,
    /// Raw little-endian, C-order element bytes.
    pub data: Vec<u8>,
}

pub fn read_npz(bytes: &[u8]) -> Result<BTreeMap<String, NpyArray>, String> {
    let mut arrays = BTreeMap::new();
    let mut at = 0usize;
    while at + 4 <= bytes.len() && bytes[at..at + 4] == [0x50, 0x4b, 0x03, 0x04] {
        let header = bytes.get(at..at + 30).ok_or("truncated zip local header")?;
        let flags = u16::from_le_bytes([header[6], header[7]]);
        let method = u16::from_le_bytes([header[8], header[9]]);
        let size = u32::from_le_bytes(header[18..22].try_into().unwrap()) as usize;
        let name_len = u16::from_le_bytes([header[26], header[27]]) as usize;
        let extra_len = u16::from_le_bytes([header[28], header[29]]) as usize;
        if method != 0 || flags & 0x8 != 0 {
            return Err(format!("zip entry at byte {at}: only stored entries with known sizes are supported"));
        }
        let name_start = at + 30;
        let data_start = name_start + name_len + extra_len;
        let name = bytes.get(name_start..name_start + name_len).ok_or("truncated zip entry name")?;
        let data = bytes.get(data_start..data_start + size).ok_or("truncated zip entry data")?;
        let name = String::from_utf8_lossy(name).trim_end_matches(".npy").to_string();
        arrays.insert(name.clone(), read_npy(data).map_err(|e| format!("{name}: {e}"))?);
        at = data_start + size;
    }
    if arrays.is_empty() {
        return Err("no stored .npy entries found".into());
    }
    Ok(arrays)
}

pub fn read_npy(bytes: &[u8]) -> Result<NpyArray, String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not an .npy array".into());
    }
    let (header_len, header_start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 => {
            let raw = bytes.get(8..12).ok_or("truncated .npy header length")?;
            (u32::from_le_bytes(raw.try_into().unwrap()) as usize, 12)
        }
        v => return Err(format!(".npy version {v} not supported")),
    };
    let header = bytes.get(header_start..header_start + header_len).ok_or("truncated .npy header")?;
    let header = String::from_utf8_lossy(header);
    if header.contains("'fortran_order': True") {
        return Err("fortran-order arrays are not supported".into());
    }
    let descr = quoted_value(&header, "descr").ok_or("no descr in .npy header")?;
    let shape_text = header
        .split("'shape':")
        .nth(1)
        .and_then(|rest| rest.split_once('(').map(|(_, r)| r))
        .and_then(|rest| rest.split_once(')').map(|(s, _)| s))
        .ok_or("no shape in .npy header")?;
    let shape = shape_text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<i64>().map_err(|e| format!("bad dimension {s:?}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(NpyArray { descr, shape, data: bytes[header_start + header_len..].to_vec() })
}

fn quoted_value(header: &str, key: &str) -> Option<String> {
    let rest = header.split(&format!("'{key}':")).nth(1)?.trim_start();
    let rest = rest.strip_prefix('\'')?;
    Some(rest.split('\'').next()?.to_string())
}

impl NpyArray {
    pub fn f32_values(&self) -> Result<Vec<f32>, String> {
        if self.descr != "<f4" {
            return Err(format!("expected <f4, found {}", self.descr));
        }
        Ok(self.data.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect())
    }
}
