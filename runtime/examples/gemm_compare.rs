//! Compares GEMM back ends on the shapes of the performance anchors (matmul, MLP forward and
//! backward): `matrixmultiply` and `gemm`, one thread and two.
//! `cargo run --release -p apu-runtime --example gemm_compare [filter]`

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

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    for &(name, m, k, n, ta, tb) in SHAPES {
        if !name.contains(&filter) {
            continue;
        }
        let a: Vec<f32> = (0..m * k).map(|i| ((i * 7919) % 1000) as f32 / 500.0 - 1.0).collect();
        let b: Vec<f32> = (0..k * n).map(|i| ((i * 104729) % 1000) as f32 / 500.0 - 1.0).collect();
        let mut c = vec![0f32; m * n];
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
        let (w, cp) = time(runs, || mm(&mut c, 0, m));
        println!("{name:<14} mm   1T wall {w:>10.1} us cpu {cp:>10.1}");
        let (w, cp) = time(runs, || gm(c.as_mut_ptr(), 0, m, gemm::Parallelism::None));
        let err = c.iter().zip(&reference).map(|(x, y)| (x - y).abs() / (1.0 + y.abs())).fold(0f32, f32::max);
        println!("{name:<14} gemm 1T wall {w:>10.1} us cpu {cp:>10.1}  (max rel diff {err:.1e})");
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
