//! Dense tensors in host memory with 64-byte aligned storage, so kernels may view the bytes as any
//! element type.

use apu_compiler::ir::TensorType;
use crate::pages::{Mapping, HUGE_PAGE};
use std::sync::Arc;

#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Chunk([u8; 64]);

/// Buffers of at least this many bytes get a mapping of their own ([`Mapping`]), so that they are
/// backed by huge pages; smaller ones come from the heap.
const MAP_AT_LEAST: usize = HUGE_PAGE;

enum Storage {
    Heap(Vec<Chunk>),
    Mapped(Mapping),
    /// Memory owned by someone else (a TensorFlow tensor's buffer, decision 76): never freed here,
    /// never kept for reuse by the executor's pools.
    External(ExternalPtr),
}

struct ExternalPtr(*mut u8);
// SAFETY: the owner of external memory guarantees it outlives every use ([`AlignedBytes::external`]);
// the pointer itself is just an address.
unsafe impl Send for ExternalPtr {}
unsafe impl Sync for ExternalPtr {}

/// A zero-initialised, 64-byte aligned byte buffer.
pub struct AlignedBytes {
    storage: Storage,
    len: usize,
}

impl AlignedBytes {
    /// A zeroed buffer; aborts like any Rust allocation if memory runs out (sizes a program's
    /// types fix; sizes a caller asks for go through [`AlignedBytes::try_zeroed`]).
    pub fn zeroed(len: usize) -> Self {
        Self::try_zeroed(len).unwrap_or_else(|| {
            std::alloc::handle_alloc_error(std::alloc::Layout::from_size_align(len, 64).unwrap_or(std::alloc::Layout::new::<Chunk>()))
        })
    }

    /// A zeroed buffer, or None when `len` bytes cannot be had.
    pub fn try_zeroed(len: usize) -> Option<Self> {
        if len >= MAP_AT_LEAST {
            if let Some(m) = Mapping::zeroed(len) {
                return Some(AlignedBytes { storage: Storage::Mapped(m), len });
            }
        }
        let n = len.div_ceil(64);
        if n == 0 {
            return Some(AlignedBytes { storage: Storage::Heap(Vec::new()), len });
        }
        // `alloc_zeroed` with an alignment above malloc's own writes the zeros itself (no calloc);
        // the buffers that pass is costly for are mapped above.
        let layout = std::alloc::Layout::array::<Chunk>(n).ok()?;
        // SAFETY: the layout has a non-zero size; all-zero bytes are a valid `Chunk`;
        // `Vec::from_raw_parts` takes back exactly the layout of `[Chunk; n]`.
        let chunks = unsafe {
            let ptr = std::alloc::alloc_zeroed(layout) as *mut Chunk;
            if ptr.is_null() {
                return None;
            }
            Vec::from_raw_parts(ptr, n, n)
        };
        Some(AlignedBytes { storage: Storage::Heap(chunks), len })
    }
    /// A view of `len` bytes at `ptr` that someone else owns (no copy); `None` unless `ptr` is
    /// 64-byte aligned and non-null, as the kernels expect of every buffer.
    ///
    /// # Safety
    /// `ptr` is valid for reads and writes of `len` bytes, and stays so (and is written by nobody
    /// else) as long as this value or an `Arc` of it lives. The executor never keeps external buffers
    /// past a run ([`AlignedBytes::is_external`]); a caller passing them as arguments keeps its own
    /// reference to the argument for the whole run, so the executor never writes them in place.
    pub unsafe fn external(ptr: *mut u8, len: usize) -> Option<Self> {
        if ptr.is_null() || (ptr as usize) % 64 != 0 {
            return None;
        }
        Some(AlignedBytes { storage: Storage::External(ExternalPtr(ptr)), len })
    }

    /// Whether the bytes belong to someone else ([`AlignedBytes::external`]): such a buffer must not
    /// be kept for reuse after the run that was given it.
    pub fn is_external(&self) -> bool {
        matches!(self.storage, Storage::External(_))
    }

    pub fn from_slice(bytes: &[u8]) -> Self {
        let mut out = Self::zeroed(bytes.len());
        out.as_mut_slice().copy_from_slice(bytes);
        out
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: the storage holds at least `len` initialised bytes, contiguous.
        unsafe { std::slice::from_raw_parts(self.as_ptr(), self.len) }
    }
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and we hold the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.as_mut_ptr(), self.len) }
    }
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        match &mut self.storage {
            Storage::Heap(chunks) => chunks.as_mut_ptr() as *mut u8,
            Storage::Mapped(m) => m.as_mut_ptr(),
            Storage::External(p) => p.0,
        }
    }
    pub fn as_ptr(&self) -> *const u8 {
        match &self.storage {
            Storage::Heap(chunks) => chunks.as_ptr() as *const u8,
            Storage::Mapped(m) => m.as_ptr(),
            Storage::External(p) => p.0 as *const u8,
        }
    }
}

impl Clone for AlignedBytes {
    fn clone(&self) -> Self {
        Self::from_slice(self.as_slice())
    }
}

impl std::fmt::Debug for AlignedBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AlignedBytes({} bytes)", self.len)
    }
}

/// A tensor value: its type and its bytes (dense, row-major, little-endian; see
/// [`apu_compiler::ir::ElementType`] for the storage of each element type). Cloning shares the bytes.
#[derive(Clone, Debug)]
pub struct Tensor {
    pub ty: TensorType,
    pub data: Arc<AlignedBytes>,
}

impl Tensor {
    /// A tensor from bytes; fails if the byte count does not match the type.
    pub fn from_bytes(ty: TensorType, bytes: &[u8]) -> apu_compiler::Result<Self> {
        if bytes.len() != ty.byte_size() {
            return Err(apu_compiler::Error::invalid(format!(
                "tensor of type {ty} needs {} bytes, got {}",
                ty.byte_size(),
                bytes.len()
            )));
        }
        Ok(Tensor { ty, data: Arc::new(AlignedBytes::from_slice(bytes)) })
    }
    pub fn zeroed(ty: TensorType) -> Self {
        let n = ty.byte_size();
        Tensor { ty, data: Arc::new(AlignedBytes::zeroed(n)) }
    }
    pub fn bytes(&self) -> &[u8] {
        self.data.as_slice()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_on_either_side_of_the_mapping_threshold_are_zeroed_aligned_and_copy_exactly() {
        for len in [0, 1, 64, MAP_AT_LEAST - 1, MAP_AT_LEAST, MAP_AT_LEAST + 1, 3 * MAP_AT_LEAST + 4097] {
            let z = AlignedBytes::zeroed(len);
            assert_eq!(z.len(), len);
            assert!(z.as_slice().iter().all(|&b| b == 0), "len {len}");
            assert_eq!(z.as_ptr() as usize % 64, 0, "len {len}");
            assert_eq!(matches!(z.storage, Storage::Mapped(_)), cfg!(target_os = "linux") && len >= MAP_AT_LEAST, "len {len}");
            let bytes: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            let mut b = AlignedBytes::from_slice(&bytes);
            assert_eq!(b.as_slice(), &bytes[..], "len {len}");
            let c = b.clone();
            if len > 0 {
                b.as_mut_slice()[len - 1] ^= 0xff;
                assert_ne!(c.as_ptr(), b.as_ptr(), "a clone has its own bytes");
            }
            assert_eq!(c.as_slice(), &bytes[..], "a clone keeps the bytes it was made from");
        }
    }

    #[test]
    fn external_bytes_are_viewed_in_place_and_cloned_into_owned_memory() {
        let mut owned = AlignedBytes::from_slice(&[1u8, 2, 3, 4, 5]);
        let p = owned.as_mut_ptr();
        // SAFETY: `owned` outlives `view` and nothing else writes it meanwhile.
        let mut view = unsafe { AlignedBytes::external(p, 5) }.unwrap();
        assert!(view.is_external() && !owned.is_external());
        assert_eq!((view.as_ptr(), view.as_slice()), (p as *const u8, &[1u8, 2, 3, 4, 5][..]));
        view.as_mut_slice()[0] = 9;
        let copy = view.clone();
        assert!(!copy.is_external(), "a clone owns its bytes");
        assert_ne!(copy.as_ptr(), view.as_ptr());
        drop(view); // frees nothing
        assert_eq!((owned.as_slice()[0], copy.as_slice()[0]), (9, 9));
        // Misaligned or null memory is refused: the kernels view buffers as any element type.
        assert!(unsafe { AlignedBytes::external(p.wrapping_add(1), 4) }.is_none());
        assert!(unsafe { AlignedBytes::external(std::ptr::null_mut(), 0) }.is_none());
    }
}
