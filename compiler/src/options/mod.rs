//! `xla.CompileOptionsProto`: the compile options a framework hands over with a program.
//!
//! The fields apu acts on are decoded into [`CompileOptions`]; the decoded proto (our subset)
//! and the original bytes stay available for anything else (debug options, environment
//! overrides, GPU target config…).

use crate::hlo::proto::{self, CompileOptionsProto, DeviceAssignmentProto, ShapeProto};
use crate::hlo::shape;
use crate::ir::Type;
use crate::{Error, Result};
use prost::Message;

mod debug_option_fields;
mod overrides;

/// Replica × partition → device id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceAssignment {
    pub replica_count: u32,
    pub computation_count: u32,
    /// `devices[partition][replica]`.
    pub devices: Vec<Vec<i64>>,
}

impl DeviceAssignment {
    pub fn device(&self, replica: usize, partition: usize) -> Option<i64> {
        self.devices.get(partition)?.get(replica).copied()
    }

    /// Serialized as an `xla.DeviceAssignmentProto`.
    pub fn encode(&self) -> Vec<u8> {
        DeviceAssignmentProto {
            replica_count: self.replica_count as i32,
            computation_count: self.computation_count as i32,
            computation_devices: self
                .devices
                .iter()
                .map(|ids| proto::device_assignment_proto::ComputationDevice { replica_device_ids: ids.clone() })
                .collect(),
        }
        .encode_to_vec()
    }
}

/// The layout the client asks for on one argument or result.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestedLayout {
    pub ty: Type,
    /// Row-major (apu's storage); anything else must be rejected or converted by the caller.
    pub row_major: bool,
    /// HLO-text rendering, for messages.
    pub text: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CompileOptions {
    pub num_replicas: u32,
    pub num_partitions: u32,
    /// -1 when the client lets the runtime choose (JAX); proto3 cannot tell an unset field from
    /// 0, so a client that sends nothing (TensorFlow) reads as 0, as in XLA itself.
    pub device_ordinal: i64,
    pub device_assignment: Option<DeviceAssignment>,
    /// One per argument when given (TensorFlow); empty from JAX.
    pub argument_layouts: Vec<RequestedLayout>,
    pub result_layout: Option<RequestedLayout>,
    pub parameter_is_tupled_arguments: bool,
    pub compile_portable_executable: bool,
    pub use_spmd_partitioning: bool,
    /// The decoded proto (apu's subset of the fields).
    pub proto: CompileOptionsProto,
    /// The bytes as received, with every field including those apu does not declare.
    pub raw: Vec<u8>,
}

impl CompileOptions {
    /// Decodes serialized options. Empty bytes mean all defaults (one replica, one partition).
    /// The debug-option overrides (`jit(..., compiler_options=...)`) are checked as XLA checks them
    /// ([`overrides`]): an unknown name or a value of the wrong type is INVALID_ARGUMENT.
    pub fn decode(bytes: &[u8]) -> Result<CompileOptions> {
        let proto = CompileOptionsProto::decode(bytes)
            .map_err(|e| Error::invalid(format!("failed to deserialize CompileOptionsProto ({} bytes): {e}", bytes.len())))?;
        overrides::check(&proto.env_option_overrides)?;
        let build = proto.executable_build_options.clone().unwrap_or_default();
        let device_assignment = build.device_assignment.as_ref().map(device_assignment).transpose()?;
        Ok(CompileOptions {
            num_replicas: count(build.num_replicas, "num_replicas")?,
            num_partitions: count(build.num_partitions, "num_partitions")?,
            device_ordinal: build.device_ordinal,
            device_assignment,
            argument_layouts: proto.argument_layouts.iter().map(requested_layout).collect::<Result<_>>()?,
            result_layout: build.result_layout.as_ref().map(requested_layout).transpose()?,
            parameter_is_tupled_arguments: proto.parameter_is_tupled_arguments,
            compile_portable_executable: proto.compile_portable_executable,
            use_spmd_partitioning: build.use_spmd_partitioning,
            proto,
            raw: bytes.to_vec(),
        })
    }
}

impl CompileOptions {
    /// apu's buffers are dense row-major: reject any other argument or result layout the client
    /// asks for (UNIMPLEMENTED, naming the layout). Absent layouts mean row-major.
    pub fn check_layouts(&self) -> Result<()> {
        let requested = self.argument_layouts.iter().enumerate().map(|(i, l)| (format!("argument {i}"), l));
        let result = self.result_layout.iter().map(|l| ("the result".to_string(), l));
        for (what, layout) in requested.chain(result) {
            if !layout.row_major {
                return Err(Error::unimplemented(format!(
                    "compile options ask for layout {} on {what}; apu only supports row-major (default) layouts",
                    layout.text
                )));
            }
        }
        Ok(())
    }
}

/// A replica or partition count; 0 (unset) means 1.
pub(crate) fn count(value: i64, what: &str) -> Result<u32> {
    match value {
        0 => Ok(1),
        v if v > 0 => u32::try_from(v).map_err(|_| Error::invalid(format!("{what} {v} is too large"))),
        v => Err(Error::invalid(format!("{what} {v} is negative"))),
    }
}

fn device_assignment(p: &DeviceAssignmentProto) -> Result<DeviceAssignment> {
    let replica_count = u32::try_from(p.replica_count)
        .map_err(|_| Error::invalid(format!("device assignment replica_count {}", p.replica_count)))?;
    let computation_count = u32::try_from(p.computation_count)
        .map_err(|_| Error::invalid(format!("device assignment computation_count {}", p.computation_count)))?;
    let devices: Vec<Vec<i64>> = p.computation_devices.iter().map(|c| c.replica_device_ids.clone()).collect();
    if devices.len() != computation_count as usize || devices.iter().any(|d| d.len() != replica_count as usize) {
        return Err(Error::invalid(format!(
            "device assignment declares {replica_count} replicas x {computation_count} computations but lists {:?}",
            devices
        )));
    }
    Ok(DeviceAssignment { replica_count, computation_count, devices })
}

fn requested_layout(s: &ShapeProto) -> Result<RequestedLayout> {
    Ok(RequestedLayout { ty: shape::to_type(s)?, row_major: shape::has_default_layout(s), text: shape::describe(s) })
}

/// Re-exported so callers can name the proto without reaching into `hlo`.
pub use proto::ExecutableBuildOptionsProto;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_bytes_are_defaults() {
        let o = CompileOptions::decode(&[]).unwrap();
        assert_eq!((o.num_replicas, o.num_partitions), (1, 1));
        assert_eq!(o.device_ordinal, 0);
        assert!(o.device_assignment.is_none());
    }

    #[test]
    fn garbage_is_invalid_argument() {
        let err = CompileOptions::decode(b"\xff\xff\xff").unwrap_err();
        assert_eq!(err.kind, crate::error::ErrorKind::InvalidArgument);
        assert!(err.to_string().contains("failed to deserialize CompileOptionsProto"), "{err}");
    }

    #[test]
    fn counts_and_device_assignment() {
        let p = CompileOptionsProto {
            executable_build_options: Some(proto::ExecutableBuildOptionsProto {
                device_ordinal: 3,
                num_replicas: 2,
                device_assignment: Some(DeviceAssignmentProto {
                    replica_count: 2,
                    computation_count: 1,
                    computation_devices: vec![proto::device_assignment_proto::ComputationDevice {
                        replica_device_ids: vec![4, 5],
                    }],
                }),
                ..Default::default()
            }),
            ..Default::default()
        };
        let o = CompileOptions::decode(&p.encode_to_vec()).unwrap();
        assert_eq!((o.device_ordinal, o.num_replicas, o.num_partitions), (3, 2, 1));
        assert_eq!(o.device_assignment.as_ref().unwrap().device(1, 0), Some(5));
        let da = o.device_assignment.as_ref().unwrap();
        let again = DeviceAssignmentProto::decode(da.encode().as_slice()).unwrap();
        assert_eq!(&again, p.executable_build_options.as_ref().unwrap().device_assignment.as_ref().unwrap());

        let mut bad = p.clone();
        bad.executable_build_options.as_mut().unwrap().num_partitions = -2;
        assert!(CompileOptions::decode(&bad.encode_to_vec()).is_err());
        let mut bad = p;
        bad.executable_build_options.as_mut().unwrap().device_assignment.as_mut().unwrap().replica_count = 3;
        assert!(CompileOptions::decode(&bad.encode_to_vec()).is_err());
    }

    /// The value of `key: value` in a protobuf text dump, at the given indentation.
    fn text_value<'t>(txt: &'t str, indent: usize, key: &str) -> Option<&'t str> {
        let prefix = format!("{}{key}: ", " ".repeat(indent));
        txt.lines().find_map(|l| l.strip_prefix(prefix.as_str()))
    }

    #[test]
    fn every_sample_decodes_like_its_text_dump() {
        let Some(dir) = crate::hlo::tests::samples_dir() else { return };
        let mut checked = 0;
        for sub in ["jax", "tensorflow"] {
            for e in std::fs::read_dir(dir.join(sub)).unwrap().flatten() {
                let path = e.path();
                if !path.to_string_lossy().ends_with(".compile_options.pb") {
                    continue;
                }
                let bytes = std::fs::read(&path).unwrap();
                let txt = std::fs::read_to_string(path.with_extension("txtpb")).unwrap();
                let o = CompileOptions::decode(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let name = path.display();
                assert_eq!((o.num_replicas, o.num_partitions), (1, 1), "{name}");
                assert_eq!(text_value(&txt, 2, "num_replicas"), Some("1"), "{name}");
                assert_eq!(text_value(&txt, 2, "num_partitions"), Some("1"), "{name}");
                let ordinal: i64 = text_value(&txt, 2, "device_ordinal").map_or(0, |v| v.parse().unwrap());
                assert_eq!(o.device_ordinal, ordinal, "{name}");
                let layouts = txt.lines().filter(|l| *l == "argument_layouts {").count();
                assert_eq!(o.argument_layouts.len(), layouts, "{name}");
                assert_eq!(o.result_layout.is_some(), txt.contains("\n  result_layout {"), "{name}");
                assert_eq!(o.compile_portable_executable, text_value(&txt, 0, "compile_portable_executable") == Some("true"));
                assert_eq!(o.proto.profile_version, text_value(&txt, 0, "profile_version").map_or(0, |v| v.parse().unwrap()));
                match &o.device_assignment {
                    Some(d) => assert_eq!((d.replica_count, d.computation_count, d.device(0, 0)), (1, 1, Some(0)), "{name}"),
                    None => assert!(!txt.contains("device_assignment {"), "{name}"),
                }
                o.check_layouts().unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(o.raw, bytes);
                checked += 1;
            }
        }
        assert!(checked >= 17, "only {checked} compile options samples");
    }
}
