//! CPU detection: the vector extension (AVX-512, AVX2 + FMA, or none) whose compiled
//! instruction functions [`super::dispatch`] picks, detected once per process.

/// Vector extensions the kernels are compiled for, picked at run time.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum CpuLevel {
    Avx512,
    Avx2,
    Baseline,
}

/// The vector extensions this process uses (detected once; `APU_CPU_LEVEL` may force a lower one).
pub(crate) fn cpu_level() -> CpuLevel {
    *CPU_LEVEL
}

pub(super) static CPU_LEVEL: once_cell::sync::Lazy<CpuLevel> = once_cell::sync::Lazy::new(|| {
    #[cfg(target_arch = "x86_64")]
    {
        let has = |f: &str| match f {
            "avx512" => std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512dq")
                && std::arch::is_x86_feature_detected!("avx512vl")
                && std::arch::is_x86_feature_detected!("bmi2"),
            _ => std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma"),
        };
        let forced = std::env::var("APU_CPU_LEVEL").ok();
        match forced.as_deref() {
            Some("baseline") => return CpuLevel::Baseline,
            Some("avx2") if has("avx2") => return CpuLevel::Avx2,
            _ => {}
        }
        if has("avx512") {
            return CpuLevel::Avx512;
        }
        if has("avx2") {
            return CpuLevel::Avx2;
        }
    }
    CpuLevel::Baseline
});
