//! Compares GEMM back ends on the shapes of the performance anchors (matmul, MLP forward and
//! backward): `matrixmultiply`, `gemm` and an experimental GEMM of our own (support/sgemm, in
//! several tile shapes), one thread and two. Buffers are on huge pages, like the plugin's.
//! `cargo run --release -p apu-runtime --example gemm_compare [filter]`

#[path = "support/sgemm/mod.rs"]
#[allow(dead_code)]
mod sgemm;
use sgemm::View;
use std::time::Instant;

#[path = "support/cpu_time.rs"]
mod cpu_time;
use cpu_time::process_cpu_seconds as cpu_seconds;

/// (name, m, k, n, lhs transposed, rhs transposed)
const SHAPES: &[(&str, usize, usize, usize, bool, bool)] = &[
    ("mm256", 256, 256, 256, false, false),
    ("mm1024", 1024, 1024, 1024, false, false),
    ("mm2048", 2048, 2048, 2048, false, false),
    ("mlp x@w1", 256, 784, 512, false, false),
    ("mlp h@w2", 256, 512, 512, false, false),
    ("mlp h@w3", 256, 512, 10, false, false),
    ("mlp dW1=xT@g", 784, 256, 512, true, false),
    ("mlp dW2=hT@g", 512, 256, 512, true, false),
    ("mlp dW3=hT@g", 512, 256, 10, true, false),
    ("mlp dh=g@w2T", 256, 512, 512, false, true),
    ("mlp dh=g@w3T", 256, 10, 512, false, true),
];

fn time(runs: usize, mut f: impl FnMut()) -> (f64, f64) {
    f();
    let mut wall = vec![];
    let mut cpu = vec![];
    for _ in 0..runs {
        let c = cpu_seconds();
        let t = Instant::now();
        f();
        wall.push(t.elapsed().as_secs_f64());
        cpu.push(cpu_seconds() - c);
    }
    wall.sort_by(|a, b| a.partial_cmp(b).unwrap());
    cpu.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (wall[0] * 1e6, cpu[runs / 2] * 1e6)
}

/// `APU_SGEMM_BLOCKING=kc,mc,nc` overrides our GEMM's blocking, to tune it.
fn blocking() -> sgemm::Blocking {
    match std::env::var("APU_SGEMM_BLOCKING") {
        Ok(v) => {
            let p: Vec<usize> = v.split(',').map(|x| x.parse().unwrap()).collect();
            sgemm::Blocking { kc: p[0], mc: p[1], nc: p[2], stream_b: p.get(3) == Some(&1) }
        }
        Err(_) => sgemm::Blocking::DEFAULT,
    }
}

/// A zeroed buffer on transparent huge pages, like the plugin's large buffers (runtime/src/pages.rs),
/// so the page walks are the plugin's too. Leaked: the example is short.
fn huge(len: usize) -> &'static mut [f32] {
    const HUGE: usize = 2 << 20;
    let size = (len * 4).next_multiple_of(HUGE);
    unsafe {
        let raw = libc::mmap(std::ptr::null_mut(), size + HUGE, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0);
        assert!(raw != libc::MAP_FAILED);
        let start = (raw as usize).next_multiple_of(HUGE);
        libc::madvise(start as *mut libc::c_void, size, libc::MADV_HUGEPAGE);
        std::slice::from_raw_parts_mut(start as *mut f32, len)
    }
}

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    for &(name, m, k, n, ta, tb) in SHAPES {
        if !name.contains(&filter) {
            continue;
        }
        let a = huge(m * k);
        a.iter_mut().enumerate().for_each(|(i, x)| *x = ((i * 7919) % 1000) as f32 / 500.0 - 1.0);
        let b = huge(k * n);
        b.iter_mut().enumerate().for_each(|(i, x)| *x = ((i * 104729) % 1000) as f32 / 500.0 - 1.0);
        let (a, b) = (&*a, &*b);
        let c = huge(m * n);
        // Row-major [m,k] or, transposed, stored as [k,m].
        let (ars, acs) = if ta { (1isize, m as isize) } else { (k as isize, 1) };
        let (brs, bcs) = if tb { (1isize, k as isize) } else { (n as isize, 1) };
        let runs = if m * n * k > 1 << 28 { 5 } else { 30 };
        let mm = |c: &mut [f32], r0: usize, r1: usize| unsafe {
            matrixmultiply::sgemm(r1 - r0, k, n, 1.0, a.as_ptr().offset(r0 as isize * ars), ars, acs, b.as_ptr(), brs, bcs, 0.0, c.as_mut_ptr().add(r0 * n), n as isize, 1)
        };
        let gm = |c: *mut f32, r0: usize, r1: usize, par: gemm::Parallelism| unsafe {
            gemm::gemm(r1 - r0, n, k, c.add(r0 * n), 1, n as isize, false, a.as_ptr().offset(r0 as isize * ars), acs, ars, b.as_ptr(), bcs, brs, 0.0f32, 1.0f32, false, false, false, par)
        };
        let mut reference = vec![0f32; m * n];
        mm(&mut reference, 0, m);
        let (w, cp) = time(runs, || mm(c, 0, m));
        println!("{name:<14} mm   1T wall {w:>10.1} us cpu {cp:>10.1}");
        let (w, cp) = time(runs, || gm(c.as_mut_ptr(), 0, m, gemm::Parallelism::None));
        let err = c.iter().zip(&reference).map(|(x, y)| (x - y).abs() / (1.0 + y.abs())).fold(0f32, |e, d| if d.is_nan() { f32::INFINITY } else { e.max(d) });
        println!("{name:<14} gemm 1T wall {w:>10.1} us cpu {cp:>10.1}  (max rel diff {err:.1e})");
        let blocking = blocking();
        let (av, bv) = (View { ptr: a.as_ptr(), rs: ars, cs: acs }, View { ptr: b.as_ptr(), rs: brs, cs: bcs });
        c.iter_mut().for_each(|x| *x = f32::NAN);
        let shapes: [(&str, unsafe fn(usize, usize, usize, View, View, *mut f32, usize, sgemm::Blocking)); 5] = [
            ("12x2", sgemm::gemm_shape::<12, 2>),
            ("14x2", sgemm::gemm_shape::<14, 2>),
            ("8x3", sgemm::gemm_shape::<8, 3>),
            ("6x4", sgemm::gemm_shape::<6, 4>),
            ("4x4", sgemm::gemm_shape::<4, 4>),
        ];
        let mut best = vec![f64::INFINITY; shapes.len()];
        for _round in 0..3 {
            for (i, (_, f)) in shapes.iter().enumerate() {
                c.iter_mut().for_each(|x| *x = f32::NAN);
                let (w, _) = time(runs.div_ceil(3), || unsafe { f(m, n, k, av, bv, c.as_mut_ptr(), n, blocking) });
                let err = c.iter().zip(&reference).map(|(x, y)| (x - y).abs() / (1.0 + y.abs())).fold(0f32, |e, d| if d.is_nan() { f32::INFINITY } else { e.max(d) });
                assert!(err < 1e-4, "{} differs by {err}", shapes[i].0);
                best[i] = best[i].min(w);
            }
        }
        for (i, (shape, _)) in shapes.iter().enumerate() {
            let gf = 2.0 * (m * n * k) as f64 / best[i] / 1e3;
            println!("{name:<14} ours {shape} 1T wall {:>10.1} us {gf:.0} GFLOP/s {blocking:?}", best[i]);
        }
        // Ours on two threads: rows split in halves (each thread packs all of B), and twins (each
        // thread runs the whole product into its own C, to see what two threads cost each other).
        let c2 = huge(m * n);
        let (cptr, c2ptr) = (c.as_mut_ptr() as usize, c2.as_mut_ptr() as usize);
        let half = (m / 2).div_ceil(12) * 12;
        let (w, _) = time(runs, || {
            pool.in_place_scope(|s| {
                s.spawn(|_| unsafe {
                    let a2 = View { ptr: a.as_ptr().offset(half.min(m) as isize * ars), ..av };
                    sgemm::gemm(m - half.min(m), n, k, a2, bv, (cptr as *mut f32).add(half.min(m) * n), n, blocking)
                });
                unsafe { sgemm::gemm(half.min(m), n, k, av, bv, cptr as *mut f32, n, blocking) };
            })
        });
        println!("{name:<14} ours rows2T wall {w:>10.1} us {:.0} GFLOP/s", 2.0 * (m * n * k) as f64 / w / 1e3);
        let (w, _) = time(runs, || {
            pool.in_place_scope(|s| {
                s.spawn(|_| unsafe { sgemm::gemm(m, n, k, av, bv, c2ptr as *mut f32, n, blocking) });
                unsafe { sgemm::gemm(m, n, k, av, bv, cptr as *mut f32, n, blocking) };
            })
        });
        println!("{name:<14} ours twins2T wall {w:>10.1} us {:.0} GFLOP/s per thread", 2.0 * (m * n * k) as f64 / w / 1e3);
        let half = (m / 2).div_ceil(16) * 16;
        let cptr = c.as_mut_ptr() as usize;
        let (w, cp) = time(runs, || {
            pool.in_place_scope(|s| {
                s.spawn(|_| gm(cptr as *mut f32, half.min(m), m, gemm::Parallelism::None));
                gm(cptr as *mut f32, 0, half.min(m), gemm::Parallelism::None);
            })
        });
        println!("{name:<14} gemm rows2T wall {w:>10.1} us cpu {cp:>10.1}");
        let (w, cp) = time(runs, || pool.install(|| gm(cptr as *mut f32, 0, m, gemm::Parallelism::Rayon(2))));
        println!("{name:<14} gemm ray2T wall {w:>10.1} us cpu {cp:>10.1}");
        let (w, cp) = time(runs, || {
            pool.in_place_scope(|s| {
                s.spawn(|_| {
                    let c = unsafe { std::slice::from_raw_parts_mut(cptr as *mut f32, m * n) };
                    mm(c, half.min(m), m)
                });
                let c = unsafe { std::slice::from_raw_parts_mut(cptr as *mut f32, m * n) };
                mm(c, 0, half.min(m));
            })
        });
        println!("{name:<14} mm   rows2T wall {w:>10.1} us cpu {cp:>10.1}");
    }
}
