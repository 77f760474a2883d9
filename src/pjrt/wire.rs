//! Protobuf wire-format writing for the few messages the C views encode by hand (an OpSharding per
//! value in `shardings`, the profiler's XSpace in `xspace`): varints, keys, and the field kinds
//! those messages use.

const VARINT: u64 = 0;
const LEN: u64 = 2;

pub(crate) fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A varint field (int64 / uint64 / enum / bool); negative values as their 10-byte two's complement.
pub(crate) fn int(out: &mut Vec<u8>, field: u64, v: i64) {
    varint(out, field << 3 | VARINT);
    varint(out, v as u64);
}

/// A length-delimited field: string, bytes or an embedded message.
pub(crate) fn bytes(out: &mut Vec<u8>, field: u64, b: &[u8]) {
    varint(out, field << 3 | LEN);
    varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// A packed repeated varint field.
pub(crate) fn packed(out: &mut Vec<u8>, field: u64, values: &[i64]) {
    let mut body = Vec::new();
    for &v in values {
        varint(&mut body, v as u64);
    }
    bytes(out, field, &body);
}
