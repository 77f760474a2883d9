//! The native programs against the register-program interpreter: the same programs, over the same
//! buffers and register files, must leave the same bits in both.

use super::body_program::{Axes, Axis, BodyProgram, POp, Reg};
use super::loop_body::Source;
use super::native;
use apu_compiler::ir::{BinaryOp as B, ComparisonDirection as D, ElementType as E, UnaryOp as U};

const TYPES: [E; 7] = [E::F32, E::F64, E::S32, E::S64, E::U32, E::U64, E::Pred];

/// Edge values of each type as little-endian element bytes.
fn edges(e: E) -> Vec<Vec<u8>> {
    match e {
        E::F32 => [0.0f32, -0.0, 1.0, -1.0, 1.5, 0.1, 3.0, f32::MAX, f32::MIN, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -f32::NAN, f32::from_bits(0x7fc0_0001), f32::from_bits(0x7f80_0001), 1e-45, 16_777_217.0]
            .iter()
            .map(|v| v.to_le_bytes().to_vec())
            .collect(),
        E::F64 => [0.0f64, -0.0, 1.0, -1.0, 0.1, 2.5, 1e308, -1e308, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -f64::NAN, f64::from_bits(0x7ff8_0000_0000_0001), f64::from_bits(0x7ff0_0000_0000_0001), 5e-324, 9_007_199_254_740_993.0, 1e39, (1u64 << 24) as f64 + 1.0]
            .iter()
            .map(|v| v.to_le_bytes().to_vec())
            .collect(),
        E::S32 => [0i32, 1, -1, 2, 3, 4, 5, 7, -7, 16, 1000, i32::MAX, i32::MIN, i32::MIN + 1].iter().map(|v| v.to_le_bytes().to_vec()).collect(),
        E::S64 => [0i64, 1, -1, 2, 3, 4, 5, -8, 1 << 40, i64::MAX, i64::MIN, i64::MIN + 1, i32::MAX as i64, i32::MIN as i64, (1 << 53) + 1]
            .iter()
            .map(|v| v.to_le_bytes().to_vec())
            .collect(),
        E::U32 => [0u32, 1, 2, 3, 4, 5, 7, 16, 1000, u32::MAX, 0x8000_0000, 0x8000_0001].iter().map(|v| v.to_le_bytes().to_vec()).collect(),
        E::U64 => [0u64, 1, 2, 3, 4, 5, 7, u64::MAX, 1 << 63, (1 << 63) + 1, (1 << 53) + 1, (1 << 24) + 1, u64::MAX - (1 << 40), 0x8000_0000_0000_0401]
            .iter()
            .map(|v| v.to_le_bytes().to_vec())
            .collect(),
        // A pred byte other than 0/1 reads as true.
        _ => vec![vec![0], vec![1], vec![2]],
    }
}

fn int(e: E) -> bool {
    matches!(e, E::S32 | E::S64 | E::U32 | E::U64)
}

fn float(e: E) -> bool {
    matches!(e, E::F32 | E::F64)
}

/// The binary ops the scalar evaluator takes on type `e`.
fn binaries(e: E) -> Vec<B> {
    if float(e) {
        vec![B::Add, B::Subtract, B::Multiply, B::Divide, B::Maximum, B::Minimum]
    } else if e == E::Pred {
        vec![B::And, B::Or, B::Xor]
    } else {
        vec![B::Add, B::Subtract, B::Multiply, B::Divide, B::Remainder, B::Maximum, B::Minimum, B::And, B::Or, B::Xor]
    }
}

fn unaries(e: E) -> Vec<U> {
    if float(e) {
        vec![U::Negate, U::Abs]
    } else if e == E::Pred {
        vec![U::Not]
    } else {
        vec![U::Not, U::Negate, U::Abs, U::Sign]
    }
}

const DIRS: [D; 6] = [D::Eq, D::Ne, D::Lt, D::Le, D::Gt, D::Ge];

/// Whether two element bytes of type `e` are the same value: the same bits, except that any two
/// NaNs are alike. Which NaN operand's payload (and sign) an op passes on is not something either
/// path can promise: Rust leaves it unspecified, and LLVM and Cranelift both commute `x + y` into
/// whichever operand order suits the registers. NaN-ness itself, and every other bit, must agree.
fn same(x: &[u8], y: &[u8], e: E) -> bool {
    match e {
        E::F32 => x.chunks(4).zip(y.chunks(4)).all(|(a, b)| {
            let (a, b) = (f32::from_le_bytes(a.try_into().unwrap()), f32::from_le_bytes(b.try_into().unwrap()));
            a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
        }),
        E::F64 => x.chunks(8).zip(y.chunks(8)).all(|(a, b)| {
            let (a, b) = (f64::from_le_bytes(a.try_into().unwrap()), f64::from_le_bytes(b.try_into().unwrap()));
            a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
        }),
        _ => x == y,
    }
}

/// Runs `p` through the interpreter and natively on copies of `buffers` (of element types
/// `types`) and of its register file (registers of types `regs`, held as the scalar evaluator
/// holds them: floats as f64 bits), and asserts both leave the same values.
fn agree(p: &BodyProgram, buffers: &[Vec<u8>], types: &[E], regs: &[E], what: &str) {
    let native = native::program(p).unwrap_or_else(|e| panic!("{what}: JIT failed: {e}"));
    let (mut bi, mut bn) = (buffers.to_vec(), buffers.to_vec());
    let (mut ri, mut rn) = (p.registers(), p.registers());
    let pi: Vec<*mut u8> = bi.iter_mut().map(|b| b.as_mut_ptr()).collect();
    let pn: Vec<*mut u8> = bn.iter_mut().map(|b| b.as_mut_ptr()).collect();
    // SAFETY: the programs address only these buffers, within their sizes (built so below).
    unsafe {
        p.run(&mut ri, &pi);
        native.call(rn.as_mut_ptr(), pn.as_ptr());
    }
    for (i, (x, y)) in bi.iter().zip(&bn).enumerate() {
        assert!(same(x, y, types[i]), "{what}: buffer {i} ({}) differs: {x:?} vs {y:?}\n{:?}", types[i], p.ops);
    }
    for (r, (x, y)) in ri.iter().zip(&rn).enumerate() {
        let e = if regs[r] == E::F32 { E::F64 } else { regs[r] };
        assert!(same(&x.to_le_bytes(), &y.to_le_bytes(), e), "{what}: register {r} ({}) differs ({x:#x} vs {y:#x})\n{:?}", regs[r], p.ops);
    }
}

fn program(ops: Vec<POp>, axes: Vec<Axis>, init: Vec<i64>, bases: usize) -> BodyProgram {
    BodyProgram { start: 0, end: 0, ops, axes, init, bases: (0..bases).map(Source::Slot).collect(), native: None }
}

/// Every op on every pair of edge values of every type: loads from buffer 0, each result stored
/// to a buffer of its own (and left in its register).
#[test]
fn every_op_on_edge_values() {
    for e in TYPES {
        let values = edges(e);
        let data: Vec<u8> = values.concat();
        let n = values.len() as u32;
        let mut kinds: Vec<Box<dyn Fn(Reg, Reg, Reg) -> (POp, E)>> = Vec::new();
        for op in binaries(e) {
            kinds.push(Box::new(move |a, b, dst| (POp::Binary { op, e, a, b, dst }, e)));
        }
        for op in unaries(e) {
            kinds.push(Box::new(move |a, _, dst| (POp::Unary { op, e, a, dst }, e)));
        }
        for d in DIRS {
            kinds.push(Box::new(move |a, b, dst| (POp::Compare { d, e, a, b, dst }, E::Pred)));
        }
        for to in TYPES {
            // Floats convert only to floats.
            if !float(e) || float(to) {
                kinds.push(Box::new(move |a, _, dst| (POp::Convert { from: e, to, a, dst }, to)));
            }
        }
        if int(e) {
            let signed = matches!(e, E::S32 | E::S64);
            for (k, rem) in [(1, false), (1, true), (3, false), (3, true), (31, false), (31, true), (61, false), (61, true)] {
                kinds.push(Box::new(move |a, _, dst| (POp::Pow2 { a, k, signed, rem, dst }, e)));
            }
        }
        for (n_kind, kind) in kinds.iter().enumerate() {
            // Registers 0..n: the loaded values; then one per result; a pred register selects.
            let mut ops: Vec<POp> = (0..n).map(|i| POp::Load { base: 0, offset: i, e, dst: i }).collect();
            let mut init = vec![0i64; n as usize];
            let mut bases = 1u16;
            let mut buffers = vec![data.clone()];
            let (mut types, mut regs) = (vec![e], vec![e; n as usize]);
            for x in 0..n {
                for y in 0..n {
                    let dst = init.len() as Reg;
                    init.push(0);
                    let (op, te) = kind(x, y, dst);
                    ops.push(op);
                    ops.push(POp::Store { base: bases, a: dst, e: te });
                    buffers.push(vec![0xa5; 8]);
                    types.push(te);
                    regs.push(te);
                    bases += 1;
                }
            }
            let p = program(ops, vec![], init, bases as usize);
            agree(&p, &buffers, &types, &regs, &format!("{e} kind {n_kind}"));
        }
    }
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
}

/// Random programs mixing every op: loads, constants, arithmetic across types, conversions,
/// selects, and one-element reads and writes (set or add, clamped or skipped) of a 3x4 table
/// per type at starts taken from edge values, so most fall outside.
#[test]
fn random_programs_agree() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    // Buffers: per type its edge values (base t), a 3x4 table (base 7 + t); stores after that.
    let tables: Vec<Vec<u8>> = TYPES
        .iter()
        .map(|&e| {
            let v = edges(e);
            (0..12).flat_map(|i| v[(i * 5 + 1) % v.len()].clone()).collect()
        })
        .collect();
    for case in 0..400 {
        let mut buffers: Vec<Vec<u8>> = TYPES.iter().map(|&e| edges(e).concat()).collect();
        buffers.extend(tables.iter().cloned());
        let mut types: Vec<E> = TYPES.iter().chain(TYPES.iter()).copied().collect();
        let mut ops = Vec::new();
        let mut axes: Vec<Axis> = Vec::new();
        let mut init: Vec<i64> = Vec::new();
        // The registers holding a value, with its type.
        let mut regs: Vec<(Reg, E)> = Vec::new();
        let fresh = |init: &mut Vec<i64>, v: i64| {
            init.push(v);
            (init.len() - 1) as Reg
        };
        for (t, &e) in TYPES.iter().enumerate() {
            let n = edges(e).len();
            for _ in 0..2 {
                let dst = fresh(&mut init, 0);
                ops.push(POp::Load { base: t as u16, offset: rng.below(n) as u32, e, dst });
                regs.push((dst, e));
            }
            // A constant: an edge value held as the interpreter holds it (loaded at build time).
            let bytes = &edges(e)[rng.below(n)];
            // SAFETY: `bytes` is one element of type `e`.
            let k = fresh(&mut init, unsafe { crate::exec::scalar::load(bytes.as_ptr(), 0, e) });
            regs.push((k, e));
        }
        let of = |regs: &[(Reg, E)], rng: &mut Rng, want: &dyn Fn(E) -> bool| -> Option<(Reg, E)> {
            let c: Vec<_> = regs.iter().copied().filter(|&(_, e)| want(e)).collect();
            (!c.is_empty()).then(|| rng.pick(&c))
        };
        for _ in 0..40 {
            let dst = init.len() as Reg;
            let e = rng.pick(&TYPES);
            let same = |rng: &mut Rng, regs: &[(Reg, E)]| of(regs, rng, &|x| x == e).map(|r| r.0);
            let choice = rng.below(10);
            let made: Option<(POp, Option<E>)> = match choice {
                0 | 1 => {
                    let (a, b) = (same(&mut rng, &regs), same(&mut rng, &regs));
                    let op = rng.pick(&binaries(e));
                    a.zip(b).map(|(a, b)| (POp::Binary { op, e, a, b, dst }, Some(e)))
                }
                2 => same(&mut rng, &regs).map(|a| (POp::Unary { op: rng.pick(&unaries(e)), e, a, dst }, Some(e))),
                3 => {
                    let (a, b) = (same(&mut rng, &regs), same(&mut rng, &regs));
                    let d = rng.pick(&DIRS);
                    a.zip(b).map(|(a, b)| (POp::Compare { d, e, a, b, dst }, Some(E::Pred)))
                }
                4 => of(&regs, &mut rng, &|x| !float(x) || float(e)).map(|(a, from)| (POp::Convert { from, to: e, a, dst }, Some(e))),
                5 => {
                    let p = of(&regs, &mut rng, &|x| x == E::Pred).map(|r| r.0);
                    let (a, b) = (same(&mut rng, &regs), same(&mut rng, &regs));
                    p.zip(a).zip(b).map(|((p, a), b)| (POp::Select { p, a, b, dst }, Some(e)))
                }
                6 if int(e) => {
                    let k = 1 + rng.below(if matches!(e, E::S32 | E::U32) { 31 } else { 61 }) as u32;
                    let signed = matches!(e, E::S32 | E::S64);
                    same(&mut rng, &regs).map(|a| (POp::Pow2 { a, k, signed, rem: rng.below(2) == 0, dst }, Some(e)))
                }
                7 | 8 => {
                    // A read or write of the type's table at a start of two index registers.
                    let i0 = of(&regs, &mut rng, &int);
                    let i1 = of(&regs, &mut rng, &int);
                    let t = TYPES.iter().position(|&x| x == e).unwrap_or(0);
                    i0.zip(i1).and_then(|(i0, i1)| {
                        let first = axes.len() as u32;
                        axes.push(Axis { reg: i0.0, unsigned64: i0.1 == E::U64, stride: 4, last: 2 });
                        axes.push(Axis { reg: i1.0, unsigned64: i1.1 == E::U64, stride: 1, last: 3 });
                        let x = Axes { first, len: 2 };
                        let base = (7 + t) as u16;
                        if choice == 7 {
                            Some((POp::Read { base, axes: x, e, dst }, Some(e)))
                        } else {
                            let add = e != E::Pred && rng.below(2) == 0;
                            same(&mut rng, &regs).map(|value| (POp::Write { base, axes: x, e, value, add, skip_outside: rng.below(2) == 0 }, None))
                        }
                    })
                }
                _ => of(&regs, &mut rng, &|_| true).map(|(a, e)| {
                    buffers.push(vec![0x5a; 8]);
                    types.push(e);
                    (POp::Store { base: (buffers.len() - 1) as u16, a, e }, None)
                }),
            };
            if let Some((op, result)) = made {
                ops.push(op);
                if let Some(te) = result {
                    init.push(0);
                    regs.push((dst, te));
                }
            }
        }
        let bases = buffers.len();
        let mut reg_types = vec![E::S64; init.len()];
        for &(r, e) in &regs {
            reg_types[r as usize] = e;
        }
        let p = program(ops, axes, init, bases);
        agree(&p, &buffers, &types, &reg_types, &format!("case {case}"));
    }
}

/// The holder frees its code on drop and can be shared across threads.
#[test]
fn native_code_is_shared_and_freed() {
    fn shared<T: Send + Sync>() {}
    shared::<native::Native>();
    shared::<BodyProgram>();
    // Many compile-and-drop rounds: the code is freed each time (a leak would show in RSS only,
    // so this mainly runs the drop path under the test harness).
    for _ in 0..50 {
        let p = program(vec![POp::Binary { op: B::Add, e: E::S32, a: 0, b: 1, dst: 2 }], vec![], vec![i32::MAX as i64, 1, 0], 0);
        let n = native::program(&p).expect("jit");
        let mut r = p.registers();
        unsafe { n.call(r.as_mut_ptr(), std::ptr::null()) };
        assert_eq!(r[2], i32::MIN as i64, "s32 add wraps");
    }
}
