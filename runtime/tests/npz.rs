//! .npy/.npz reading and writing.

mod common;

use apu_compiler::error::ErrorKind;
use apu_compiler::ir::{ElementType, TensorType};
use apu_runtime::npz::{read_npy, read_npz, write_npy, write_npz};
use apu_runtime::Tensor;
use common::*;

fn patterned(elem: ElementType, shape: &[i64]) -> Tensor {
    let ty = TensorType::new(shape.to_vec(), elem);
    let bytes: Vec<u8> = (0..ty.byte_size()).map(|i| (i * 37 % 251) as u8).collect();
    let bytes = if elem == ElementType::Pred { bytes.iter().map(|b| b & 1).collect() } else { bytes };
    Tensor::from_bytes(ty, &bytes).unwrap()
}

#[test]
fn npz_round_trips_every_dtype() {
    use ElementType::*;
    let entries: Vec<(String, Tensor)> = [Pred, S8, S16, S32, S64, U8, U16, U32, U64, F16, BF16, F32, F64, C64, C128]
        .iter()
        .enumerate()
        .map(|(i, &e)| (format!("t{i}"), patterned(e, if i % 3 == 0 { &[] } else if i % 3 == 1 { &[5] } else { &[2, 3] })))
        .collect();
    let bytes = write_npz(&entries).unwrap();
    let back = read_npz(&bytes).unwrap();
    assert_eq!(back.len(), entries.len());
    for ((n, t), (m, u)) in entries.iter().zip(&back) {
        assert_eq!(n, m);
        assert_eq!(t.ty, u.ty);
        assert_eq!(t.bytes(), u.bytes());
    }
}

#[test]
fn npy_header_is_aligned_and_parsable() {
    let t = f32s(&[3], &[1.0, 2.0, 3.0]);
    let b = write_npy(&t).unwrap();
    assert_eq!(&b[..6], b"\x93NUMPY");
    assert_eq!((b.len() - 12) % 64, 0, "data starts at a multiple of 64");
    let header = std::str::from_utf8(&b[10..b.len() - 12]).unwrap();
    assert!(header.contains("'descr': '<f4'") && header.contains("'shape': (3,)"), "{header}");
    assert_eq!(read_npy(&b).unwrap().bytes(), t.bytes());
}

#[test]
fn reads_numpy_written_sample() {
    let Some(dir) = samples_dir() else {
        eprintln!("skipped: samples not found");
        return;
    };
    let entries = apu_runtime::npz::load_npz(&dir.join("jax/add.io.npz")).unwrap();
    let names: Vec<&str> = entries.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["in0", "in1", "out0"]);
    let (a, b, c) = (to_f32(&entries[0].1), to_f32(&entries[1].1), to_f32(&entries[2].1));
    assert_eq!(entries[0].1.ty.shape, [8]);
    for i in 0..8 {
        assert_eq!(a[i] + b[i], c[i]);
    }
    let cond = apu_runtime::npz::load_npz(&dir.join("jax/cond.io.npz")).unwrap();
    assert_eq!(cond[0].1.ty, TensorType::scalar(ElementType::Pred));
}

#[test]
fn truncated_or_corrupt_archives_are_errors_not_panics() {
    let bytes = write_npz(&[("a".into(), f32s(&[2], &[1.0, 2.0])), ("b".into(), i32s(&[], &[7]))]).unwrap();
    for len in 0..bytes.len() {
        assert!(read_npz(&bytes[..len]).is_err(), "prefix of {len} bytes");
    }
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0xFF;
        let _ = read_npz(&b); // any result but a panic
    }
    // A flipped data byte is caught by the CRC.
    let mut b = bytes.clone();
    let at = bytes.len() / 4;
    b[at] ^= 1;
    assert!(read_npz(&b).is_err());
}

#[test]
fn unknown_compression_is_unimplemented_and_bad_deflate_is_invalid() {
    let bytes = write_npz(&[("a".into(), f32s(&[1], &[1.0]))]).unwrap();
    // The compression method sits at +10 of the central directory entry.
    let cd = bytes.windows(4).position(|w| w == [0x50, 0x4b, 0x01, 0x02]).unwrap();
    let with_method = |m: u8| {
        let mut b = bytes.clone();
        b[cd + 10] = m;
        read_npz(&b).unwrap_err()
    };
    assert_eq!(with_method(12).kind, ErrorKind::Unimplemented); // bzip2
    assert_eq!(with_method(8).kind, ErrorKind::InvalidArgument); // stored bytes are not a deflate stream
}
