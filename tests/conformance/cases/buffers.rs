//! Host <-> device transfers for every element type, strides, host buffer semantics, deletion.
use crate::conformance::handles::{Client, HostData};
use crate::conformance::plugin::Plugin;
use crate::conformance::runner::CaseResult;
use crate::pjrt_args;
use anyhow::{bail, ensure, Context};
use apu_pjrt_api::*;

/// (type, name, bytes per element) of the element types every plugin must move to and from
/// the host unchanged.
pub const BYTE_ALIGNED_TYPES: [(PJRT_Buffer_Type, &str, usize); 15] = [
    (PJRT_Buffer_Type_PRED, "PRED", 1),
    (PJRT_Buffer_Type_S8, "S8", 1),
    (PJRT_Buffer_Type_S16, "S16", 2),
    (PJRT_Buffer_Type_S32, "S32", 4),
    (PJRT_Buffer_Type_S64, "S64", 8),
    (PJRT_Buffer_Type_U8, "U8", 1),
    (PJRT_Buffer_Type_U16, "U16", 2),
    (PJRT_Buffer_Type_U32, "U32", 4),
    (PJRT_Buffer_Type_U64, "U64", 8),
    (PJRT_Buffer_Type_F16, "F16", 2),
    (PJRT_Buffer_Type_BF16, "BF16", 2),
    (PJRT_Buffer_Type_F32, "F32", 4),
    (PJRT_Buffer_Type_F64, "F64", 8),
    (PJRT_Buffer_Type_C64, "C64", 8),
    (PJRT_Buffer_Type_C128, "C128", 16),
];

/// One-byte floating-point types (any byte pattern that is not NaN round-trips) and sub-byte
/// types, which travel one element per byte on the host (value in the low bits).
pub const NARROW_TYPES: [(PJRT_Buffer_Type, &str, u8); 15] = [
    (PJRT_Buffer_Type_F8E5M2, "F8E5M2", 0xFF),
    (PJRT_Buffer_Type_F8E4M3FN, "F8E4M3FN", 0xFF),
    (PJRT_Buffer_Type_F8E4M3B11FNUZ, "F8E4M3B11FNUZ", 0xFF),
    (PJRT_Buffer_Type_F8E5M2FNUZ, "F8E5M2FNUZ", 0xFF),
    (PJRT_Buffer_Type_F8E4M3FNUZ, "F8E4M3FNUZ", 0xFF),
    (PJRT_Buffer_Type_F8E4M3, "F8E4M3", 0xFF),
    (PJRT_Buffer_Type_F8E3M4, "F8E3M4", 0xFF),
    (PJRT_Buffer_Type_F8E8M0FNU, "F8E8M0FNU", 0xFF),
    (PJRT_Buffer_Type_S4, "S4", 0x0F),
    (PJRT_Buffer_Type_U4, "U4", 0x0F),
    (PJRT_Buffer_Type_S2, "S2", 0x03),
    (PJRT_Buffer_Type_U2, "U2", 0x03),
    (PJRT_Buffer_Type_F4E2M1FN, "F4E2M1FN", 0x0F),
    (PJRT_Buffer_Type_S1, "S1", 0x01),
    (PJRT_Buffer_Type_U1, "U1", 0x01),
];

const SEMANTICS: [(PJRT_HostBufferSemantics, &str); 3] = [
    (PJRT_HostBufferSemantics_kImmutableOnlyDuringCall, "kImmutableOnlyDuringCall"),
    (PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes, "kImmutableUntilTransferCompletes"),
    (PJRT_HostBufferSemantics_kImmutableZeroCopy, "kImmutableZeroCopy"),
];

/// Little-endian bytes of element `value` (a small integer) in type `ty`; finite and exact in
/// every type, so any change of bytes is a real error.
pub fn element_bytes(ty: PJRT_Buffer_Type, value: i32) -> Vec<u8> {
    let f = value as f32;
    match ty {
        PJRT_Buffer_Type_PRED => vec![(value & 1) as u8],
        PJRT_Buffer_Type_S8 => (value as i8).to_le_bytes().to_vec(),
        PJRT_Buffer_Type_S16 => ((value * 300) as i16).to_le_bytes().to_vec(),
        PJRT_Buffer_Type_S32 => (value * 70_000).to_le_bytes().to_vec(),
        PJRT_Buffer_Type_S64 => (value as i64 * 5_000_000_000).to_le_bytes().to_vec(),
        PJRT_Buffer_Type_U8 => ((value * 37) as u8).to_le_bytes().to_vec(),
        PJRT_Buffer_Type_U16 => ((value as u16).wrapping_mul(9001)).to_le_bytes().to_vec(),
        PJRT_Buffer_Type_U32 => ((value as u32).wrapping_mul(3_000_000_007)).to_le_bytes().to_vec(),
        PJRT_Buffer_Type_U64 => ((value as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)).to_le_bytes().to_vec(),
        PJRT_Buffer_Type_F16 => f16_bits(value).to_le_bytes().to_vec(),
        PJRT_Buffer_Type_BF16 => ((f.to_bits() >> 16) as u16).to_le_bytes().to_vec(),
        PJRT_Buffer_Type_F32 => (f * 0.5).to_le_bytes().to_vec(),
        PJRT_Buffer_Type_F64 => (value as f64 / 3.0).to_le_bytes().to_vec(),
        PJRT_Buffer_Type_C64 => [f.to_le_bytes(), (-0.25 * f).to_le_bytes()].concat(),
        PJRT_Buffer_Type_C128 => [(value as f64).to_le_bytes(), (value as f64 * 1.5).to_le_bytes()].concat(),
        _ => panic!("element_bytes: type {ty} not covered"),
    }
}

/// IEEE half-precision bits of a small integer (|v| < 2048), exact.
fn f16_bits(value: i32) -> u16 {
    if value == 0 {
        return 0;
    }
    let sign = if value < 0 { 0x8000u16 } else { 0 };
    let magnitude = value.unsigned_abs();
    let exponent = 31 - magnitude.leading_zeros(); // floor(log2)
    let mantissa = (magnitude << (10 - exponent)) & 0x3FF;
    sign | (((exponent + 15) as u16) << 10) | mantissa as u16
}

/// Row-major bytes of a `rows x cols` array whose element (r, c) is r*cols + c - 2.
pub fn row_major(ty: PJRT_Buffer_Type, rows: usize, cols: usize) -> Vec<u8> {
    (0..rows * cols).flat_map(|i| element_bytes(ty, i as i32 - 2)).collect()
}

/// The same logical array stored column-major, with the byte strides that describe it.
pub fn column_major(ty: PJRT_Buffer_Type, elem: usize, rows: usize, cols: usize) -> (Vec<u8>, [i64; 2]) {
    let mut bytes = vec![0u8; rows * cols * elem];
    for r in 0..rows {
        for c in 0..cols {
            let at = (c * rows + r) * elem;
            bytes[at..at + elem].copy_from_slice(&element_bytes(ty, (r * cols + c) as i32 - 2));
        }
    }
    (bytes, [elem as i64, (rows * elem) as i64])
}

fn round_trip(client: &Client, ty: PJRT_Buffer_Type, elem: usize, semantics: PJRT_HostBufferSemantics, strided: bool) -> anyhow::Result<()> {
    let (rows, cols) = (2usize, 3usize);
    let expected = row_major(ty, rows, cols);
    let (host, strides) = if strided {
        let (bytes, strides) = column_major(ty, elem, rows, cols);
        (bytes, Some(strides))
    } else {
        (expected.clone(), None)
    };
    let dims = [rows as i64, cols as i64];
    let device = client.first_device()?;
    let transfer = client.buffer_from_host(
        &HostData { bytes: &host, element_type: ty, dims: &dims, byte_strides: strides.as_ref().map(|s| &s[..]), semantics },
        device,
    )?;
    let done = transfer.done_with_host_buffer.context("done_with_host_buffer is NULL")?;
    let buffer = transfer.buffer;
    let zero_copy = semantics == PJRT_HostBufferSemantics_kImmutableZeroCopy;
    if !zero_copy {
        // The plugin no longer needs the host memory once this fires.
        done.await_ready()?.context("done_with_host_buffer completed with an error")?;
    }
    ensure!(buffer.element_type()? == ty, "element type {} after upload", buffer.element_type()?);
    ensure!(buffer.dimensions()? == dims, "dimensions {:?}", buffer.dimensions()?);
    let ready = buffer.ready_event()?.context("Buffer_ReadyEvent returned NULL")?;
    ready.await_ready()?.context("ready event error")?;
    let back = buffer.to_host(expected.len())?;
    ensure!(back == expected, "bytes read back differ: {back:?} vs {expected:?}");
    drop(ready);
    // A zero-copy buffer may alias `host` for its whole life: the event fires at the latest when
    // the buffer is destroyed.
    drop(buffer);
    if zero_copy {
        done.await_ready()?.context("done_with_host_buffer completed with an error")?;
    }
    Ok(())
}

/// Every byte-aligned element type, every immutable semantics, dense row-major.
pub fn round_trip_every_type(plugin: &Plugin) -> CaseResult {
    let client = Client::create(plugin)?;
    for (ty, name, elem) in BYTE_ALIGNED_TYPES {
        for (semantics, sem_name) in SEMANTICS {
            round_trip(&client, ty, elem, semantics, false).with_context(|| format!("{name} with {sem_name}"))?;
        }
    }
    Ok(())
}

/// Narrow types: small finite values (sign-extended for signed sub-byte ints, as numpy's
/// ml_dtypes stores them) survive a host round trip, compared on the element's own bits.
pub fn round_trip_narrow_types(plugin: &Plugin) -> CaseResult {
    let client = Client::create(plugin)?;
    for (ty, name, mask) in NARROW_TYPES {
        let signed = matches!(ty, PJRT_Buffer_Type_S4 | PJRT_Buffer_Type_S2 | PJRT_Buffer_Type_S1);
        let values: Vec<u8> = (0u8..6)
            .map(|v| {
                let raw = (v * 3 + 1) & mask & 0x3F; // finite in every 8-bit float format
                if signed && raw & ((mask >> 1) + 1) != 0 { raw | !mask } else { raw }
            })
            .collect();
        let buffer = client.upload(&values, ty, &[2, 3]).with_context(|| format!("{name}: upload"))?;
        ensure!(buffer.element_type()? == ty, "{name}: element type {}", buffer.element_type()?);
        let back = buffer.to_host(values.len()).with_context(|| format!("{name}: read back"))?;
        // Only the element's own bits are significant: XLA returns S4/S2 values without sign
        // extension (0x0A for an input byte 0xFA), which ml_dtypes reads as the same number.
        let significant = |bytes: &[u8]| bytes.iter().map(|b| b & mask).collect::<Vec<u8>>();
        ensure!(significant(&back) == significant(&values), "{name}: {back:?} read back for {values:?}");
    }
    Ok(())
}

/// Column-major host data described by byte strides must arrive in logical (row-major) order.
pub fn round_trip_with_byte_strides(plugin: &Plugin) -> CaseResult {
    let client = Client::create(plugin)?;
    for (ty, name, elem) in BYTE_ALIGNED_TYPES {
        for (semantics, sem_name) in SEMANTICS {
            round_trip(&client, ty, elem, semantics, true).with_context(|| format!("{name} strided with {sem_name}"))?;
        }
    }
    Ok(())
}

/// Rank-0 and zero-sized arrays.
pub fn round_trip_scalar_and_empty(plugin: &Plugin) -> CaseResult {
    let client = Client::create(plugin)?;
    let scalar = 42.5f32.to_le_bytes();
    let buffer = client.upload(&scalar, PJRT_Buffer_Type_F32, &[])?;
    ensure!(buffer.dimensions()?.is_empty(), "scalar has dims {:?}", buffer.dimensions()?);
    ensure!(buffer.to_host(4)? == scalar, "scalar value changed");
    let empty = client.upload(&[], PJRT_Buffer_Type_S32, &[0, 5])?;
    ensure!(empty.dimensions()? == [0, 5], "empty dims {:?}", empty.dimensions()?);
    ensure!(empty.to_host(0)?.is_empty(), "empty read");
    Ok(())
}

/// ToHostBuffer with dst = NULL reports the size to allocate.
pub fn to_host_size_query(plugin: &Plugin) -> CaseResult {
    let client = Client::create(plugin)?;
    let buffer = client.upload(&row_major(PJRT_Buffer_Type_F64, 2, 3), PJRT_Buffer_Type_F64, &[2, 3])?;
    let size = buffer.host_size()?;
    ensure!(size == 48, "dst_size {size} for f64[2,3]");
    Ok(())
}

/// ToHostBuffer with an explicit descending tiled layout (what jaxlib passes) and with a
/// transposed (column-major) one.
pub fn to_host_with_layout(plugin: &Plugin) -> CaseResult {
    let client = Client::create(plugin)?;
    let ty = PJRT_Buffer_Type_S32;
    let buffer = client.upload(&row_major(ty, 2, 3), ty, &[2, 3])?;
    for (minor_to_major, expected) in [([1i64, 0], row_major(ty, 2, 3)), ([0i64, 1], column_major(ty, 4, 2, 3).0)] {
        let tiled = pjrt_args!(PJRT_Buffer_MemoryLayout_Tiled {
            minor_to_major: minor_to_major.as_ptr(),
            minor_to_major_size: 2,
        });
        let mut layout = pjrt_args!(PJRT_Buffer_MemoryLayout {
            type_: PJRT_Buffer_MemoryLayout_Type_Tiled,
        });
        layout.__bindgen_anon_1.tiled = tiled;
        let mut out = vec![0u8; 24];
        buffer.to_host_into(&mut out, Some(&mut layout))?.context("event")?;
        ensure!(out == expected, "minor_to_major {minor_to_major:?}: got {out:?}, expected {expected:?}");
    }
    Ok(())
}

/// Buffer metadata: device, memory kind "device", unpadded dims.
pub fn buffer_metadata(plugin: &Plugin) -> CaseResult {
    let client = Client::create(plugin)?;
    let buffer = client.upload(&row_major(PJRT_Buffer_Type_F32, 2, 3), PJRT_Buffer_Type_F32, &[2, 3])?;
    ensure!(buffer.device()? == client.first_device()?, "Buffer_Device is not the device uploaded to");
    let kind = super::client::memory_kind(plugin, buffer.memory()?)?;
    ensure!(kind == "device", "buffer memory kind {kind:?}");
    let mut unpadded = pjrt_args!(PJRT_Buffer_UnpaddedDimensions_Args { buffer: buffer.raw });
    crate::pjrt_call!(plugin, PJRT_Buffer_UnpaddedDimensions, &mut unpadded)?;
    let dims = unsafe { crate::conformance::handles::copy_list(unpadded.unpadded_dims, unpadded.num_dims) };
    ensure!(dims == [2, 3], "unpadded dims {dims:?}");
    Ok(())
}

/// IsDeleted before and after Delete; reading a deleted buffer is an error, not a crash.
pub fn delete_and_use_after_delete(plugin: &Plugin) -> CaseResult {
    let client = Client::create(plugin)?;
    let buffer = client.upload(&row_major(PJRT_Buffer_Type_F32, 2, 3), PJRT_Buffer_Type_F32, &[2, 3])?;
    ensure!(!buffer.is_deleted()?, "fresh buffer reports deleted");
    buffer.delete()?;
    ensure!(buffer.is_deleted()?, "IsDeleted false after Delete");
    let mut out = vec![0u8; 24];
    match buffer.to_host_into(&mut out, None) {
        Err(e) => {
            println!("    ToHostBuffer after Delete failed as expected: {e}");
            ensure!(!e.message.is_empty(), "empty error message for read after delete")
        }
        Ok(Err(e)) => {
            println!("    ToHostBuffer event after Delete failed as expected: {e}");
            ensure!(!e.message.is_empty(), "empty event error message for read after delete")
        }
        Ok(Ok(())) => bail!("ToHostBuffer of a deleted buffer succeeded"),
    }
    Ok(())
}
