//! Device buffers: a tensor that becomes available asynchronously (ready event), can be deleted
//! (explicitly or by donation to an execution), and can be pinned by external references so that a
//! raw pointer handed out to a framework stays valid.

use crate::client::MemoryKind;
use crate::event::Event;
use crate::memory_stats::MemoryStats;
use crate::tensor::Tensor;
use crate::Error;
use apu_compiler::ir::TensorType;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

enum Contents {
    /// The producing work has not finished.
    Pending,
    Ready(Tensor),
    /// The producing work failed; the error is also in the ready event.
    Failed(Error),
    /// Deleted (or donated and consumed): the bytes were released.
    Released,
}

struct ExternalRefs {
    count: usize,
    /// Keeps the bytes alive while the framework holds raw pointers into them.
    pin: Option<Tensor>,
}

/// A buffer in one memory space of one virtual device.
pub struct DeviceBuffer {
    ty: TensorType,
    device: usize,
    memory: MemoryKind,
    ready: Event,
    contents: Mutex<Contents>,
    deleted: AtomicBool,
    /// Donated to an execution that has not read the contents yet: they must survive deletion.
    donated: AtomicBool,
    external: Mutex<ExternalRefs>,
    /// The device's memory accounting, once attached with [`DeviceBuffer::track`].
    stats: OnceLock<Arc<MemoryStats>>,
}

impl std::fmt::Debug for DeviceBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceBuffer({} in {} memory of device {}, deleted: {})",
            self.ty,
            self.memory,
            self.device,
            self.is_deleted()
        )
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The producer's side of a pending buffer: fulfil it exactly once. Dropping it unfulfilled fails
/// the buffer, so a consumer never waits forever on work that was abandoned.
pub struct BufferPromise {
    buffer: Option<Arc<DeviceBuffer>>,
}

impl BufferPromise {
    pub fn buffer(&self) -> &Arc<DeviceBuffer> {
        self.buffer
            .as_ref()
            .expect("promise holds its buffer until fulfilled")
    }

    /// Stores the result and fires the ready event. A tensor of the wrong type becomes an error.
    pub fn fulfill(mut self, result: Result<Tensor, Error>) {
        if let Some(buffer) = self.buffer.take() {
            buffer.complete(result);
        }
    }
}

impl Drop for BufferPromise {
    fn drop(&mut self) {
        if let Some(buffer) = self.buffer.take() {
            buffer.complete(Err(Error::internal(
                "the work producing this buffer was abandoned",
            )));
        }
    }
}

impl DeviceBuffer {
    /// Replaces the contents, keeping the memory accounting in step (bytes count while Ready).
    fn replace_contents(&self, slot: &mut Contents, new: Contents) {
        if let Some(stats) = self.stats.get() {
            if let Contents::Ready(t) = &*slot {
                stats.free(t.bytes().len());
            }
            if let Contents::Ready(t) = &new {
                stats.allocate(t.bytes().len());
            }
        }
        *slot = new;
    }

    /// Counts this buffer's contents in `stats` from now on (once; later calls are ignored).
    pub fn track(&self, stats: Arc<MemoryStats>) {
        let contents = lock(&self.contents);
        if self.stats.set(stats).is_ok() {
            if let (Contents::Ready(t), Some(stats)) = (&*contents, self.stats.get()) {
                stats.allocate(t.bytes().len());
            }
        }
    }

    /// A buffer in the default (`device`) memory that is ready now.
    pub fn ready(tensor: Tensor, device: usize) -> Arc<Self> {
        Self::ready_in(tensor, device, MemoryKind::Device)
    }

    /// A buffer in `device`'s memory of kind `memory` that is ready now.
    pub fn ready_in(tensor: Tensor, device: usize, memory: MemoryKind) -> Arc<Self> {
        Arc::new(DeviceBuffer {
            ty: tensor.ty.clone(),
            device,
            memory,
            ready: Event::ready(),
            contents: Mutex::new(Contents::Ready(tensor)),
            deleted: AtomicBool::new(false),
            donated: AtomicBool::new(false),
            stats: OnceLock::new(),
            external: Mutex::new(ExternalRefs {
                count: 0,
                pin: None,
            }),
        })
    }

    /// A buffer in the default (`device`) memory whose contents some asynchronous work will
    /// supply through the promise.
    pub fn pending(ty: TensorType, device: usize) -> BufferPromise {
        Self::pending_in(ty, device, MemoryKind::Device)
    }

    /// Like [`DeviceBuffer::pending`], in `device`'s memory of kind `memory`.
    pub fn pending_in(ty: TensorType, device: usize, memory: MemoryKind) -> BufferPromise {
        let buffer = Arc::new(DeviceBuffer {
            ty,
            device,
            memory,
            ready: Event::new(),
            contents: Mutex::new(Contents::Pending),
            deleted: AtomicBool::new(false),
            donated: AtomicBool::new(false),
            stats: OnceLock::new(),
            external: Mutex::new(ExternalRefs {
                count: 0,
                pin: None,
            }),
        });
        BufferPromise {
            buffer: Some(buffer),
        }
    }

    fn complete(&self, result: Result<Tensor, Error>) {
        let result = result.and_then(|t| {
            if t.ty == self.ty {
                Ok(t)
            } else {
                Err(Error::internal(format!(
                    "buffer of type {} was given a tensor of type {}",
                    self.ty, t.ty
                )))
            }
        });
        let outcome = result.as_ref().map(|_| ()).map_err(Clone::clone);
        {
            let mut contents = lock(&self.contents);
            if matches!(*contents, Contents::Pending) {
                let new = match result {
                    // Deleted before it was produced (and not awaited by a consumer it was
                    // donated to): nobody can read it any more.
                    Ok(_) if self.is_deleted() && !self.donated.load(Ordering::Acquire) => {
                        Contents::Released
                    }
                    Ok(t) => Contents::Ready(t),
                    Err(e) => Contents::Failed(e),
                };
                self.replace_contents(&mut contents, new);
            }
        }
        let _ = self.ready.set(outcome);
    }

    pub fn ty(&self) -> &TensorType {
        &self.ty
    }

    /// Index of the device that holds the buffer.
    pub fn device(&self) -> usize {
        self.device
    }

    /// The kind of the device memory this buffer is in.
    pub fn memory(&self) -> MemoryKind {
        self.memory
    }

    /// Fires when the contents are available (or their production failed).
    pub fn ready_event(&self) -> &Event {
        &self.ready
    }

    pub fn is_deleted(&self) -> bool {
        self.deleted.load(Ordering::Acquire)
    }

    /// Deletes the buffer: later reads fail; bytes pinned by external references stay valid until
    /// the last reference is dropped.
    pub fn delete(&self) {
        self.deleted.store(true, Ordering::Release);
        let mut contents = lock(&self.contents);
        if !matches!(*contents, Contents::Pending) && !self.donated.load(Ordering::Acquire) {
            self.replace_contents(&mut contents, Contents::Released);
        }
    }

    /// Marks the buffer deleted because an execution consumes it, without releasing the bytes yet:
    /// the execution still reads them (via [`DeviceBuffer::contents_for_consumer`]) and releases
    /// them with [`DeviceBuffer::release_donated`].
    pub fn mark_donated(&self) {
        let _contents = lock(&self.contents);
        self.donated.store(true, Ordering::Release);
        self.deleted.store(true, Ordering::Release);
    }

    /// Releases the bytes of a donated buffer once its consumer is done with them.
    pub fn release_donated(&self) {
        let mut contents = lock(&self.contents);
        self.donated.store(false, Ordering::Release);
        if matches!(*contents, Contents::Ready(_)) {
            self.replace_contents(&mut contents, Contents::Released);
        }
    }

    /// The tensor, if ready and not deleted. Does not wait.
    pub fn tensor(&self) -> Result<Tensor, Error> {
        if self.is_deleted() {
            return Err(Error::invalid(format!(
                "buffer {} was deleted or donated",
                self.ty
            )));
        }
        self.contents_for_consumer()
    }

    /// Like [`DeviceBuffer::tensor`] but ignores the deleted flag: for an execution that was
    /// given this buffer before it was donated.
    pub fn contents_for_consumer(&self) -> Result<Tensor, Error> {
        match &*lock(&self.contents) {
            Contents::Ready(t) => Ok(t.clone()),
            Contents::Pending => Err(Error::internal(format!(
                "buffer {} is not ready yet",
                self.ty
            ))),
            Contents::Failed(e) => Err(e.clone()),
            Contents::Released => Err(Error::invalid(format!(
                "buffer {} was deleted or donated",
                self.ty
            ))),
        }
    }

    /// Waits for the buffer to be ready, then returns its tensor.
    pub fn wait_tensor(&self) -> Result<Tensor, Error> {
        self.ready.wait()?;
        self.tensor()
    }

    /// Adds an external reference; the bytes stay at the same address until it is dropped. Waits
    /// for the contents.
    pub fn increase_external_refs(&self) -> Result<(), Error> {
        let tensor = self.wait_tensor()?;
        let mut ext = lock(&self.external);
        ext.count += 1;
        if ext.pin.is_none() {
            ext.pin = Some(tensor);
        }
        Ok(())
    }

    /// Drops an external reference. Fails if there is none.
    pub fn decrease_external_refs(&self) -> Result<(), Error> {
        let mut ext = lock(&self.external);
        if ext.count == 0 {
            return Err(Error::invalid(
                "Attempting to decrease reference on a buffer with zero reference count.",
            ));
        }
        ext.count -= 1;
        if ext.count == 0 {
            ext.pin = None;
        }
        Ok(())
    }

    pub fn external_refs(&self) -> usize {
        lock(&self.external).count
    }

    /// Address of the bytes (waits for the contents). Valid while the buffer is alive and not
    /// deleted, or while an external reference is held.
    pub fn data_pointer(&self) -> Result<*const u8, Error> {
        if let Some(pin) = &lock(&self.external).pin {
            return Ok(pin.data.as_ptr());
        }
        Ok(self.wait_tensor()?.data.as_ptr())
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        let mut contents = std::mem::replace(&mut *lock(&self.contents), Contents::Released);
        self.replace_contents(&mut contents, Contents::Released);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use apu_compiler::ir::ElementType;

    fn f32x4(values: [f32; 4]) -> Tensor {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        Tensor::from_bytes(TensorType::new(vec![4], ElementType::F32), &bytes).unwrap()
    }

    #[test]
    fn pending_buffer_becomes_ready_on_fulfil() {
        let promise = DeviceBuffer::pending(TensorType::new(vec![4], ElementType::F32), 0);
        let buffer = promise.buffer().clone();
        assert!(!buffer.ready_event().is_ready());
        assert!(buffer.tensor().is_err());
        let t = std::thread::spawn(move || promise.fulfill(Ok(f32x4([1.0, 2.0, 3.0, 4.0]))));
        let tensor = buffer.wait_tensor().unwrap();
        t.join().unwrap();
        assert_eq!(&tensor.bytes()[4..8], &2.0f32.to_le_bytes());
    }

    #[test]
    fn dropped_promise_fails_the_buffer() {
        let promise = DeviceBuffer::pending(TensorType::scalar(ElementType::S32), 0);
        let buffer = promise.buffer().clone();
        drop(promise);
        assert!(buffer.ready_event().wait().is_err());
        assert!(buffer.tensor().is_err());
    }

    #[test]
    fn wrong_type_is_an_error_not_a_panic() {
        let promise = DeviceBuffer::pending(TensorType::scalar(ElementType::S32), 0);
        let buffer = promise.buffer().clone();
        promise.fulfill(Ok(f32x4([0.0; 4])));
        let err = buffer.ready_event().wait().unwrap_err();
        assert!(err.message.contains("tensor<4xf32>"), "{err}");
    }

    #[test]
    fn delete_and_donation() {
        let buffer = DeviceBuffer::ready(f32x4([1.0; 4]), 0);
        buffer.mark_donated();
        assert!(buffer.is_deleted());
        assert!(buffer.tensor().is_err());
        assert!(buffer.contents_for_consumer().is_ok());
        buffer.release_donated();
        assert!(buffer.contents_for_consumer().is_err());

        let other = DeviceBuffer::ready(f32x4([1.0; 4]), 0);
        other.delete();
        assert!(other.is_deleted() && other.tensor().is_err());
    }

    #[test]
    fn memory_is_accounted_while_contents_live() {
        let stats = Arc::new(MemoryStats::default());
        let a = DeviceBuffer::ready(f32x4([1.0; 4]), 0);
        a.track(stats.clone());
        let promise = DeviceBuffer::pending(TensorType::new(vec![4], ElementType::F32), 0);
        let b = promise.buffer().clone();
        b.track(stats.clone());
        assert_eq!(stats.snapshot().bytes_in_use, 16);
        promise.fulfill(Ok(f32x4([2.0; 4])));
        assert_eq!(stats.snapshot().bytes_in_use, 32);
        a.delete();
        assert_eq!(stats.snapshot().bytes_in_use, 16);
        drop(b);
        assert_eq!(stats.snapshot().bytes_in_use, 0);
        assert_eq!(stats.snapshot().peak_bytes_in_use, 32);
    }

    #[test]
    fn donated_pending_buffer_keeps_its_contents_for_the_consumer() {
        let promise = DeviceBuffer::pending(TensorType::new(vec![4], ElementType::F32), 0);
        let buffer = promise.buffer().clone();
        buffer.mark_donated();
        buffer.delete(); // a later explicit delete must not take the bytes from the consumer
        promise.fulfill(Ok(f32x4([2.0; 4])));
        assert!(buffer.tensor().is_err(), "deleted for everyone else");
        assert!(buffer.contents_for_consumer().is_ok());
        buffer.release_donated();
        assert!(buffer.contents_for_consumer().is_err());

        let promise = DeviceBuffer::pending(TensorType::new(vec![4], ElementType::F32), 0);
        let deleted = promise.buffer().clone();
        deleted.delete();
        promise.fulfill(Ok(f32x4([2.0; 4])));
        assert!(
            deleted.contents_for_consumer().is_err(),
            "plain deletion releases late contents"
        );
    }

    #[test]
    fn external_refs_pin_the_bytes_past_delete() {
        let buffer = DeviceBuffer::ready(f32x4([5.0; 4]), 0);
        assert!(buffer.decrease_external_refs().is_err());
        buffer.increase_external_refs().unwrap();
        let ptr = buffer.data_pointer().unwrap();
        buffer.delete();
        assert_eq!(buffer.data_pointer().unwrap(), ptr);
        // SAFETY: the pin keeps the allocation alive.
        let first = unsafe { std::slice::from_raw_parts(ptr, 4) };
        assert_eq!(first, &5.0f32.to_le_bytes());
        buffer.decrease_external_refs().unwrap();
        assert_eq!(buffer.external_refs(), 0);
        assert!(buffer.data_pointer().is_err());
    }
}
