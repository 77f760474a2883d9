//! Wire compatibility of apu's `proto/*.proto` with the upstream schemas that jaxlib 0.10.2 and
//! TensorFlow 2.21 serialize with (`shared/samples/schema/*.binpb`, read at test time only).
//!
//! For every message and enum apu declares: the upstream one with the same full name exists, and
//! every declared field has the same number, name, type, label and (for messages and enums) the
//! same type name; every declared enum value has the same number.

use super::proto::APU_DESCRIPTORS;
use super::tests::samples_dir;
use prost::Message;
use prost_types::{DescriptorProto, EnumDescriptorProto, FileDescriptorSet};
use std::collections::HashMap;

#[derive(Default)]
struct Schema<'a> {
    messages: HashMap<String, &'a DescriptorProto>,
    enums: HashMap<String, &'a EnumDescriptorProto>,
}

impl<'a> Schema<'a> {
    fn of(set: &'a FileDescriptorSet) -> Self {
        let mut s = Schema::default();
        for file in &set.file {
            let prefix = format!(".{}", file.package());
            for m in &file.message_type {
                s.add_message(&prefix, m);
            }
            for e in &file.enum_type {
                s.enums.insert(format!("{prefix}.{}", e.name()), e);
            }
        }
        s
    }

    fn add_message(&mut self, prefix: &str, m: &'a DescriptorProto) {
        let name = format!("{prefix}.{}", m.name());
        for n in &m.nested_type {
            self.add_message(&name, n);
        }
        for e in &m.enum_type {
            self.enums.insert(format!("{name}.{}", e.name()), e);
        }
        self.messages.insert(name, m);
    }
}

/// Differences between apu's declarations and one upstream schema, one line each. With
/// `allow_missing`, declarations the (older) schema does not have yet are not differences:
/// that sender never writes them, and what it does write must still match.
fn differences(ours: &Schema, upstream: &Schema, allow_missing: bool) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, m) in &ours.messages {
        let Some(up) = upstream.messages.get(name) else {
            problems.push(format!("message {name} is not upstream"));
            continue;
        };
        for f in &m.field {
            match up.field.iter().find(|u| u.number() == f.number()) {
                None if allow_missing => {}
                None => problems.push(format!("{name}.{} = {}: no upstream field with that number", f.name(), f.number())),
                Some(u) => {
                    if (u.name(), u.r#type(), u.label(), u.type_name()) != (f.name(), f.r#type(), f.label(), f.type_name()) {
                        problems.push(format!(
                            "{name} field {}: ours {} {:?} {:?} {}, upstream {} {:?} {:?} {}",
                            f.number(),
                            f.name(),
                            f.label(),
                            f.r#type(),
                            f.type_name(),
                            u.name(),
                            u.label(),
                            u.r#type(),
                            u.type_name()
                        ));
                    }
                }
            }
        }
    }
    for (name, e) in &ours.enums {
        let Some(up) = upstream.enums.get(name) else {
            problems.push(format!("enum {name} is not upstream"));
            continue;
        };
        for v in &e.value {
            match up.value.iter().find(|u| u.name() == v.name()) {
                Some(u) if u.number() == v.number() => {}
                Some(u) => problems.push(format!("{name}.{} = {}, upstream {}", v.name(), v.number(), u.number())),
                None if allow_missing => {}
                None => problems.push(format!("{name}.{} is not upstream", v.name())),
            }
        }
    }
    problems.sort();
    problems
}

fn load(path: &std::path::Path) -> FileDescriptorSet {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    FileDescriptorSet::decode(bytes.as_slice()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn our_protos_match_jaxlib_and_tensorflow_schemas() {
    let Some(dir) = samples_dir() else { return };
    let ours_set = FileDescriptorSet::decode(APU_DESCRIPTORS).expect("our own descriptor set");
    let ours = Schema::of(&ours_set);
    assert!(ours.messages.contains_key(".xla.HloInstructionProto") && ours.enums.contains_key(".xla.PrimitiveType"));
    let declared_fields: usize = ours.messages.values().map(|m| m.field.len()).sum();
    assert!(declared_fields > 250, "only {declared_fields} fields declared?");
    // jaxlib 0.10.2's schema is newer than TensorFlow 2.21's: every declaration must be in it.
    for (file, allow_missing) in [("jaxlib_xla_protos.binpb", false), ("tensorflow_xla_protos.binpb", true)] {
        let set = load(&dir.join("schema").join(file));
        let upstream = Schema::of(&set);
        let problems = differences(&ours, &upstream, allow_missing);
        assert!(problems.is_empty(), "{file}: {} differences:\n{}", problems.len(), problems.join("\n"));
    }
}

#[test]
fn a_wrong_declaration_is_detected() {
    // The comparison itself must catch a changed number or type.
    let mut set = FileDescriptorSet::decode(APU_DESCRIPTORS).unwrap();
    let ours = Schema::of(&set);
    assert!(differences(&ours, &ours, false).is_empty());
    let shape = set
        .file
        .iter_mut()
        .flat_map(|f| f.message_type.iter_mut())
        .find(|m| m.name() == "ShapeProto")
        .unwrap();
    let dims = shape.field.iter_mut().find(|f| f.name() == "dimensions").unwrap();
    dims.r#type = Some(prost_types::field_descriptor_proto::Type::Int32 as i32);
    let reference = FileDescriptorSet::decode(APU_DESCRIPTORS).unwrap();
    let problems = differences(&Schema::of(&set), &Schema::of(&reference), true);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains(".xla.ShapeProto field 3"), "{problems:?}");
}
