//! Prints the raw op tree of an MLIR bytecode file (debugging aid for the VHLO reader).
use apu_compiler::bytecode::{self, RawOp};

fn dump(op: &RawOp<'_>, depth: usize) {
    let pad = "  ".repeat(depth);
    println!(
        "{pad}{} results={:?} operands={:?} isolated={} scope_types={}",
        op.name,
        op.results,
        op.operands,
        op.isolated,
        op.scope_types.len()
    );
    for (i, r) in op.regions.iter().enumerate() {
        for b in &r.blocks {
            println!("{pad}  region {i} block args={:?}", b.args.iter().map(|a| a.id).collect::<Vec<_>>());
            for o in &b.ops {
                dump(o, depth + 2);
            }
        }
    }
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: vhlo_dump FILE");
    let bytes = std::fs::read(path).unwrap();
    match apu_compiler::read_vhlo_bytecode(&bytes) {
        Ok(m) => println!("module {} with {} functions, entry {}", m.name, m.functions.len(), m.entry),
        Err(e) => println!("error: {e}"),
    }
    let (v, s) = (apu_compiler::vhlo::dialect::VhloDecoder, apu_compiler::vhlo::dialect::SdyDecoder);
    let file = bytecode::read(&bytes, &[("vhlo", &v as &dyn bytecode::DialectDecoder), ("sdy", &s)]).unwrap();
    println!("version {} producer {} dialects {:?}", file.version, file.producer, file.dialects);
    for op in &file.ops {
        dump(op, 0);
    }
}
