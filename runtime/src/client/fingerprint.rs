//! A stable hash for fingerprints that key compilation caches.

/// 64-bit FNV-1a over length-prefixed parts: stable across Rust versions (unlike `DefaultHasher`).
pub fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for p in parts {
        eat(&(p.len() as u64).to_le_bytes());
        eat(p);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_hash_depends_on_every_part() {
        let a = fnv1a(&[b"mlir", b"code", b"opts"]);
        assert_ne!(a, fnv1a(&[b"mlir", b"code", b"opt2"]));
        assert_ne!(a, fnv1a(&[b"mlirc", b"ode", b"opts"]), "parts are length-prefixed");
    }
}
