//! The few fields of `xla.CompileOptionsProto` apu needs (replica/partition counts, the device
//! assignment, the device ordinal), read with a small protobuf wire-format walker, plus the
//! hand-written `xla.DeviceAssignmentProto` that `PJRT_LoadedExecutable_GetDeviceAssignment`
//! returns. Field numbers: CompileOptionsProto 3 = executable_build_options;
//! ExecutableBuildOptionsProto 1 = device_ordinal, 4 = num_replicas, 5 = num_partitions,
//! 9 = device_assignment; DeviceAssignmentProto 1 = replica_count, 2 = computation_count,
//! 3 = computation_devices { 1 = replica_device_ids (repeated int64) }.
//!
//! The whole top-level message is checked for well-formedness so that garbage bytes are rejected,
//! but nested messages apu does not use (debug options, layouts, …) are skipped unread.

/// What apu takes from the compile options. `None` = not set.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct CompileOptions {
    pub device_ordinal: Option<i64>,
    pub num_replicas: Option<i64>,
    pub num_partitions: Option<i64>,
    pub device_assignment: Option<DeviceAssignment>,
}

/// `computation_devices[partition][replica]` = device id.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct DeviceAssignment {
    pub replica_count: i64,
    pub computation_count: i64,
    pub computation_devices: Vec<Vec<i64>>,
}

/// A protobuf field value as it appears on the wire.
enum Wire<'a> {
    Varint(u64),
    Fixed64,
    Bytes(&'a [u8]),
    Fixed32,
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    what: &'static str,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8], what: &'static str) -> Self {
        Reader {
            bytes,
            pos: 0,
            what,
        }
    }

    fn fail(&self, msg: &str) -> String {
        format!("{} at byte {}: {msg}", self.what, self.pos)
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut value = 0u64;
        for i in 0..10 {
            let b = *self
                .bytes
                .get(self.pos)
                .ok_or_else(|| self.fail("truncated varint"))?;
            self.pos += 1;
            value |= ((b & 0x7f) as u64) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(self.fail("varint longer than 10 bytes"))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| {
                self.fail(&format!(
                    "field of {n} bytes runs past the end ({} bytes)",
                    self.bytes.len()
                ))
            })?;
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    /// The next (field number, value), or `None` at the end.
    fn field(&mut self) -> Result<Option<(u64, Wire<'a>)>, String> {
        if self.pos == self.bytes.len() {
            return Ok(None);
        }
        let key = self.varint()?;
        let number = key >> 3;
        if number == 0 {
            return Err(self.fail("field number 0"));
        }
        let value = match key & 7 {
            0 => Wire::Varint(self.varint()?),
            1 => {
                self.take(8)?;
                Wire::Fixed64
            }
            2 => {
                let len =
                    usize::try_from(self.varint()?).map_err(|_| self.fail("length overflows"))?;
                Wire::Bytes(self.take(len)?)
            }
            5 => {
                self.take(4)?;
                Wire::Fixed32
            }
            other => return Err(self.fail(&format!("unsupported wire type {other}"))),
        };
        Ok(Some((number, value)))
    }
}

fn int(value: u64) -> i64 {
    value as i64
}

/// Appends the elements of a repeated int64 field, packed or not.
fn push_repeated_int(out: &mut Vec<i64>, value: Wire<'_>) -> Result<(), String> {
    match value {
        Wire::Varint(v) => out.push(int(v)),
        Wire::Bytes(packed) => {
            let mut r = Reader::new(packed, "packed int64 list");
            while r.pos < packed.len() {
                out.push(int(r.varint()?));
            }
        }
        _ => return Err("repeated int64 field with a fixed-width wire type".into()),
    }
    Ok(())
}

fn parse_device_assignment(bytes: &[u8]) -> Result<DeviceAssignment, String> {
    let mut r = Reader::new(bytes, "DeviceAssignmentProto");
    let mut da = DeviceAssignment::default();
    while let Some((number, value)) = r.field()? {
        match (number, value) {
            (1, Wire::Varint(v)) => da.replica_count = int(v),
            (2, Wire::Varint(v)) => da.computation_count = int(v),
            (3, Wire::Bytes(cd)) => {
                let mut cr = Reader::new(cd, "DeviceAssignmentProto.ComputationDevice");
                let mut ids = Vec::new();
                while let Some((n, v)) = cr.field()? {
                    if n == 1 {
                        push_repeated_int(&mut ids, v)?;
                    }
                }
                da.computation_devices.push(ids);
            }
            _ => {}
        }
    }
    Ok(da)
}

fn parse_build_options(bytes: &[u8], out: &mut CompileOptions) -> Result<(), String> {
    let mut r = Reader::new(bytes, "ExecutableBuildOptionsProto");
    while let Some((number, value)) = r.field()? {
        match (number, value) {
            (1, Wire::Varint(v)) => out.device_ordinal = Some(int(v)),
            (4, Wire::Varint(v)) => out.num_replicas = Some(int(v)),
            (5, Wire::Varint(v)) => out.num_partitions = Some(int(v)),
            (9, Wire::Bytes(da)) => out.device_assignment = Some(parse_device_assignment(da)?),
            _ => {}
        }
    }
    Ok(())
}

/// Parses serialized `CompileOptionsProto` bytes; an error describes where the bytes are broken.
pub(crate) fn parse(bytes: &[u8]) -> Result<CompileOptions, String> {
    let mut out = CompileOptions::default();
    let mut r = Reader::new(bytes, "CompileOptionsProto");
    while let Some((number, value)) = r.field()? {
        if let (3, Wire::Bytes(build)) = (number, value) {
            parse_build_options(build, &mut out)?;
        }
    }
    Ok(out)
}

// ---- Writing -----------------------------------------------------------------------------------

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Serializes a device assignment as `xla.DeviceAssignmentProto`.
pub(crate) fn serialize_device_assignment(da: &DeviceAssignment) -> Vec<u8> {
    let mut out = Vec::new();
    put_varint(&mut out, 1 << 3);
    put_varint(&mut out, da.replica_count as u64);
    put_varint(&mut out, 2 << 3);
    put_varint(&mut out, da.computation_count as u64);
    for ids in &da.computation_devices {
        let mut packed = Vec::new();
        for &id in ids {
            put_varint(&mut packed, id as u64);
        }
        let mut computation = Vec::new();
        put_varint(&mut computation, (1 << 3) | 2);
        put_varint(&mut computation, packed.len() as u64);
        computation.extend_from_slice(&packed);
        put_varint(&mut out, (3 << 3) | 2);
        put_varint(&mut out, computation.len() as u64);
        out.extend_from_slice(&computation);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_is_rejected_and_empty_is_default() {
        assert!(parse(b"invalid").is_err());
        assert!(
            parse(&[0x1a, 0x05, 0x08]).is_err(),
            "truncated nested message"
        );
        assert_eq!(parse(&[]).unwrap(), CompileOptions::default());
    }

    #[test]
    fn reads_build_options_and_device_assignment() {
        let da = DeviceAssignment {
            replica_count: 2,
            computation_count: 1,
            computation_devices: vec![vec![0, 1]],
        };
        let da_bytes = serialize_device_assignment(&da);
        assert_eq!(parse_device_assignment(&da_bytes).unwrap(), da);

        let mut build = Vec::new();
        put_varint(&mut build, 1 << 3);
        put_varint(&mut build, u64::MAX); // device_ordinal -1
        put_varint(&mut build, 4 << 3);
        put_varint(&mut build, 2);
        put_varint(&mut build, (9 << 3) | 2);
        put_varint(&mut build, da_bytes.len() as u64);
        build.extend_from_slice(&da_bytes);
        let mut options = vec![(5 << 3) as u8, 0x7f]; // profile_version, an unrelated varint
        put_varint(&mut options, (3 << 3) | 2);
        put_varint(&mut options, build.len() as u64);
        options.extend_from_slice(&build);

        let parsed = parse(&options).unwrap();
        assert_eq!(parsed.device_ordinal, Some(-1));
        assert_eq!(parsed.num_replicas, Some(2));
        assert_eq!(parsed.num_partitions, None);
        assert_eq!(parsed.device_assignment, Some(da));
    }

    #[test]
    fn reads_real_jax_compile_options_if_present() {
        let Some(dir) = crate::pjrt::test_support::samples_dir() else {
            println!("skipped: samples not found");
            return;
        };
        let mut seen = 0;
        for entry in std::fs::read_dir(dir.join("jax"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = entry.path();
            if path.to_string_lossy().ends_with(".compile_options.pb") {
                let bytes = std::fs::read(&path).unwrap();
                let parsed = parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                assert_eq!(parsed.num_replicas, Some(1), "{}", path.display());
                seen += 1;
            }
        }
        println!("parsed {seen} compile option files");
    }
}
