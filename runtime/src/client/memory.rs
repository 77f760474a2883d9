//! Memory kinds: every apu device has three memory spaces, `device` (the default), `pinned_host`
//! and `unpinned_host`, as XLA:CPU's devices do, so that JAX's host offloading (`device_put` to a
//! host kind, `out_shardings` / `in_shardings` with a memory kind, offloading `remat` policies)
//! works on apu. All three are the same host memory: the kind is a label that a buffer carries and
//! a program's parameters and results declare (`mhlo.memory_kind`); moving a buffer between kinds
//! shares its bytes (decision 84).

use crate::{Error, Result};

/// The kind of a memory space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum MemoryKind {
    /// What JAX calls device memory (HBM on an accelerator); the default of every buffer.
    #[default]
    Device,
    /// Host memory the device can reach directly (page-locked on a GPU).
    PinnedHost,
    /// Pageable host memory.
    UnpinnedHost,
}

impl MemoryKind {
    /// Every kind, the default first: the order of each device's memory spaces.
    pub const ALL: [MemoryKind; 3] = [MemoryKind::Device, MemoryKind::PinnedHost, MemoryKind::UnpinnedHost];

    /// The name frameworks use (`memory.kind`, `mhlo.memory_kind`, `memory_kind=` of a sharding).
    pub fn name(self) -> &'static str {
        match self {
            MemoryKind::Device => "device",
            MemoryKind::PinnedHost => "pinned_host",
            MemoryKind::UnpinnedHost => "unpinned_host",
        }
    }

    /// A stable, non-zero id per kind (`PJRT_Memory_Kind_Id`): the same on every device.
    pub const fn id(self) -> i32 {
        self.position() as i32 + 1
    }

    /// The position of this kind among a device's memory spaces.
    pub const fn position(self) -> usize {
        match self {
            MemoryKind::Device => 0,
            MemoryKind::PinnedHost => 1,
            MemoryKind::UnpinnedHost => 2,
        }
    }

    /// The kind a name designates; `what` names where the name came from, for the error.
    pub fn from_name(name: &str, what: &str) -> Result<MemoryKind> {
        MemoryKind::ALL.into_iter().find(|k| k.name() == name).ok_or_else(|| {
            Error::invalid(format!(
                "{what} has memory kind {name:?}; apu devices have the memory kinds \"device\", \"pinned_host\" and \"unpinned_host\""
            ))
        })
    }
}

impl std::fmt::Display for MemoryKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_have_distinct_names_ids_and_positions() {
        for (i, k) in MemoryKind::ALL.into_iter().enumerate() {
            assert_eq!(k.position(), i);
            assert_eq!(MemoryKind::from_name(k.name(), "x").unwrap(), k);
            assert!(k.id() > 0);
        }
        assert_eq!(MemoryKind::default(), MemoryKind::Device);
        let ids: std::collections::HashSet<i32> = MemoryKind::ALL.iter().map(|k| k.id()).collect();
        assert_eq!(ids.len(), 3);
    }

    #[test]
    fn unknown_kinds_are_named_in_the_error() {
        let e = MemoryKind::from_name("hbm", "result 2").unwrap_err();
        assert_eq!(e.code, crate::Code::InvalidArgument);
        assert!(e.message.starts_with("result 2 has memory kind \"hbm\""), "{}", e.message);
    }
}
