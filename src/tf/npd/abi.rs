//! The TensorFlow builds whose private C++ layout apu has checked, for handing TensorFlow a PJRT client
//! without `TF_CreateAndSetPjRtCApiClient` (not linked into the wheels from 2.19 on; see `client.rs`).
//!
//! Each entry was read from that build's own files (`tests/tf/tf_binary.py`, run by
//! `tests/tf/test_npd_abi.py` in every pinned venv and by `scripts/check_tf_abi.sh` over downloaded wheels):
//! the size TensorFlow's own code allocates for an `xla::PjRtCApiClient`, how its absl encodes an OK
//! `Status`, and whether its XLA C `XLA_Layout` still has the three dimension-attribute lists. A build not
//! listed here gets PluggableDevice (one log line says why): the constructor's mangled name does not change
//! when the class grows, so a wrong size could not be detected at run time.

/// How the running TensorFlow's absl represents an OK `absl::Status` (its one `uintptr_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusEncoding {
    /// absl lts_20230802 (TensorFlow ≤ 2.19): inlined codes are `code << 2`, so OK is 0.
    CodeShifted,
    /// absl lts_20250127 and later (2.20+): inlined codes are `(code << 2) + 1`, so OK is 1.
    CodeShiftedPlusOne,
}

impl StatusEncoding {
    pub fn ok_rep(self) -> usize {
        match self {
            StatusEncoding::CodeShifted => 0,
            StatusEncoding::CodeShiftedPlusOne => 1,
        }
    }
    /// The status code of an inlined (message-less) status; `None` for a heap status (a pointer).
    pub fn inlined_code(self, rep: usize) -> Option<usize> {
        match self {
            StatusEncoding::CodeShifted if rep & 1 == 0 => Some(rep >> 2),
            StatusEncoding::CodeShiftedPlusOne if rep & 1 == 1 => Some(rep >> 2),
            _ => None,
        }
    }
}

/// Which `XLA_Shape` layout `TFNPD_XlaShapeToDeviceShapeRepresentation` passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeAbi {
    /// `XLA_Layout` with `dim_level_types`, `dim_unique`, `dim_ordered` (≤ 2.19).
    WithDimLists,
    /// Without them (2.20+).
    WithoutDimLists,
}

/// One checked TensorFlow build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckedBuild {
    /// `TF_Version()` of the build.
    pub version: &'static str,
    /// `sizeof(xla::PjRtCApiClient)` as the build's own `new` allocates it.
    pub client_object_size: usize,
    pub status: StatusEncoding,
    pub shape: ShapeAbi,
}

/// The builds checked so far (cp311 x86-64 wheels: tensorflow-cpu 2.19.0, 2.20.0, 2.21.0; tf-nightly
/// 2.23.0.dev20261026).
pub const CHECKED_BUILDS: [CheckedBuild; 4] = [
    CheckedBuild { version: "2.19.0", client_object_size: 472, status: StatusEncoding::CodeShifted, shape: ShapeAbi::WithDimLists },
    CheckedBuild { version: "2.20.0", client_object_size: 472, status: StatusEncoding::CodeShiftedPlusOne, shape: ShapeAbi::WithoutDimLists },
    CheckedBuild { version: "2.21.0", client_object_size: 600, status: StatusEncoding::CodeShiftedPlusOne, shape: ShapeAbi::WithoutDimLists },
    CheckedBuild { version: "2.23.0-dev20261026", client_object_size: 584, status: StatusEncoding::CodeShiftedPlusOne, shape: ShapeAbi::WithoutDimLists },
];

/// What apu allocates for the client object: well above every checked size, so that a build that grew
/// the class a little between checks would still not overrun (the table is the gate, this the margin).
pub const CLIENT_ALLOCATION: usize = 4096;

pub fn checked_build(version: &str) -> Option<&'static CheckedBuild> {
    CHECKED_BUILDS.iter().find(|b| b.version == version)
}

/// The comma-separated versions of [`CHECKED_BUILDS`], for log lines.
pub fn checked_versions() -> String {
    CHECKED_BUILDS.iter().map(|b| b.version).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_checked_object_fits_the_allocation_with_room_to_spare() {
        for b in CHECKED_BUILDS {
            assert!(b.client_object_size * 4 <= CLIENT_ALLOCATION, "{b:?}");
        }
    }

    #[test]
    fn ok_and_error_statuses_decode_in_both_encodings() {
        // OK in one encoding is never an inlined error in the other, and an error code survives a round trip.
        assert_eq!(StatusEncoding::CodeShifted.inlined_code(0), Some(0));
        assert_eq!(StatusEncoding::CodeShiftedPlusOne.inlined_code(1), Some(0));
        assert_eq!(StatusEncoding::CodeShifted.inlined_code(9 << 2), Some(9));
        assert_eq!(StatusEncoding::CodeShiftedPlusOne.inlined_code((9 << 2) + 1), Some(9));
        assert_eq!(StatusEncoding::CodeShiftedPlusOne.inlined_code(0x7f00_0000_1000), None);
    }

    #[test]
    fn unknown_versions_are_not_checked() {
        assert!(checked_build("2.21.0").is_some());
        assert!(checked_build("2.19.1").is_none());
        assert!(checked_build("2.22.0").is_none());
        assert!(checked_versions().contains("2.20.0"));
    }
}
