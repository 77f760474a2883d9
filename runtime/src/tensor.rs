//! Dense tensors in host memory with 64-byte aligned storage, so kernels may view the bytes as any
//! element type.

use apu_compiler::ir::TensorType;
use std::sync::Arc;

#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Chunk([u8; 64]);

/// A zero-initialised, 64-byte aligned byte buffer.
#[derive(Clone)]
pub struct AlignedBytes {
    chunks: Vec<Chunk>,
    len: usize,
}

impl AlignedBytes {
    pub fn zeroed(len: usize) -> Self {
        let n = len.div_ceil(64);
        if n == 0 {
            return AlignedBytes { chunks: Vec::new(), len };
        }
        // Zeroed allocation (calloc-like) so that large buffers come as fresh zero pages instead of
        // being written twice; `Vec::from_raw_parts` takes back exactly the layout of `[Chunk; n]`.
        let layout = std::alloc::Layout::array::<Chunk>(n).expect("buffer size overflows");
        // SAFETY: the layout has a non-zero size; all-zero bytes are a valid `Chunk`.
        let chunks = unsafe {
            let ptr = std::alloc::alloc_zeroed(layout) as *mut Chunk;
            if ptr.is_null() {
                std::alloc::handle_alloc_error(layout);
            }
            Vec::from_raw_parts(ptr, n, n)
        };
        AlignedBytes { chunks, len }
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
        // SAFETY: `chunks` holds at least `len` initialised bytes, contiguous.
        unsafe { std::slice::from_raw_parts(self.chunks.as_ptr() as *const u8, self.len) }
    }
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and we hold the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.chunks.as_mut_ptr() as *mut u8, self.len) }
    }
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.chunks.as_mut_ptr() as *mut u8
    }
    pub fn as_ptr(&self) -> *const u8 {
        self.chunks.as_ptr() as *const u8
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
    pub fn from_bytes(ty: TensorType, bytes: &[u8]) -> crate::Result<Self> {
        if bytes.len() != ty.byte_size() {
            return Err(crate::Error::invalid(format!(
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
