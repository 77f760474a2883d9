//! Eigenvalues and eigenvectors of one Hermitian (or real symmetric) matrix, in f64.
//!
//! Two classical O(n³) stages (Golub and Van Loan, "Matrix Computations", 8.3):
//!
//! 1. Householder reduction to tridiagonal form, A = Q T Qᴴ. Each reflector's phase is chosen so
//!    that it annihilates a column below the subdiagonal; a diagonal unitary D then makes the
//!    subdiagonal real and non-negative, so T' = Dᴴ T D is real symmetric and A = (QD) T' (QD)ᴴ.
//! 2. The implicit QL algorithm with Wilkinson shifts on T', whose plane rotations are applied to
//!    the columns of QD as they are made.
//!
//! Every loop walks rows: the reduction's matrix-vector products and rank-2 updates are row by
//! row, and QD is kept transposed (row i holds column i), so a rotation of two columns combines
//! two contiguous rows. That is what makes this fast next to cyclic Jacobi on a row-major matrix,
//! whose rotations walk columns with a stride of n.

use super::field::Field;

/// z / |z|, or 1 for z = 0: the phase a reflector or the diagonal scaling uses.
fn phase<T: Field>(z: T) -> T {
    let r = z.abs2().sqrt();
    if r == 0.0 {
        T::from_real(1.0)
    } else {
        z.scale(1.0 / r)
    }
}

/// The eigendecomposition of the Hermitian matrix `a` (row-major n×n, both triangles filled).
/// Returns `(vectors, values)`: row j of `vectors` is the unit eigenvector of `values[j]`, in no
/// particular order. A matrix with a non-finite entry, or one the QL iteration does not settle
/// (not seen for finite input), gives NaN everywhere rather than a partial answer.
pub fn eigen<T: Field>(mut a: Vec<T>, n: usize) -> (Vec<T>, Vec<f64>) {
    if a.iter().any(|z| !z.is_finite()) {
        return (vec![T::from_real(f64::NAN); n * n], vec![f64::NAN; n]);
    }
    let (mut d, sub, reflectors) = tridiagonalize(&mut a, n);
    let mut vectors = transposed_basis(&reflectors, &sub, n);
    // The real, non-negative subdiagonal of T' = Dᴴ T D, with a trailing 0 for QL's bookkeeping.
    let mut e: Vec<f64> = sub.iter().map(|z| z.abs2().sqrt()).chain([0.0]).collect();
    if !ql_implicit(&mut d, &mut e, &mut vectors, n) {
        return (vec![T::from_real(f64::NAN); n * n], vec![f64::NAN; n]);
    }
    (vectors, d)
}

/// One Householder reflector H = I - β v vᴴ acting on indices k+1.. (β = 0: the identity).
struct Reflector<T> {
    beta: f64,
    v: Vec<T>,
}

/// Reduces `a` in place to Hermitian tridiagonal form T = Qᴴ A Q with Q = H_0 H_1 ⋯ H_{n-2}.
/// Returns T's (real) diagonal, its subdiagonal T[k+1][k] (complex in general), and the H_k.
fn tridiagonalize<T: Field>(a: &mut [T], n: usize) -> (Vec<f64>, Vec<T>, Vec<Reflector<T>>) {
    let mut sub = Vec::with_capacity(n.saturating_sub(1));
    let mut reflectors = Vec::with_capacity(n.saturating_sub(1));
    for k in 0..n.saturating_sub(1) {
        let m = n - k - 1;
        // Column k below the diagonal, read from row k (A is Hermitian, so it is row k conjugated).
        let x: Vec<T> = a[k * n + k + 1..(k + 1) * n].iter().map(|z| z.conj()).collect();
        let tail: f64 = x[1..].iter().map(|z| z.abs2()).sum();
        if tail == 0.0 {
            // Already zero below the subdiagonal.
            sub.push(x[0]);
            reflectors.push(Reflector { beta: 0.0, v: Vec::new() });
            continue;
        }
        // H x = α e₁ with α = -phase(x₀)‖x‖, the sign that avoids cancellation in v₀ = x₀ - α.
        let norm = (x[0].abs2() + tail).sqrt();
        let alpha = phase(x[0]).scale(-norm);
        let mut v = x;
        v[0] = v[0] - alpha;
        let beta = 2.0 / (v[0].abs2() + tail);
        // The trailing block B ← H B H = B - v wᴴ - w vᴴ, with p = β B v and w = p - (β/2)(vᴴp) v.
        let base = (k + 1) * (n + 1);
        let mut p = vec![T::default(); m];
        for (i, pi) in p.iter_mut().enumerate() {
            let row = &a[base + i * n..base + i * n + m];
            let mut s = T::default();
            for (bij, vj) in row.iter().zip(&v) {
                s = s + *bij * *vj;
            }
            *pi = s.scale(beta);
        }
        let vp: f64 = v.iter().zip(&p).map(|(vi, pi)| (vi.conj() * *pi).real()).sum();
        let half_k = 0.5 * beta * vp;
        let w: Vec<T> = p.iter().zip(&v).map(|(pi, vi)| *pi - vi.scale(half_k)).collect();
        for i in 0..m {
            let (vi, wi) = (v[i], w[i]);
            let row = &mut a[base + i * n..base + i * n + m];
            for ((bij, vj), wj) in row.iter_mut().zip(&v).zip(&w) {
                *bij = *bij - vi * wj.conj() - wi * vj.conj();
            }
        }
        sub.push(alpha);
        reflectors.push(Reflector { beta, v });
    }
    let d = (0..n).map(|i| a[i * n + i].real()).collect();
    (d, sub, reflectors)
}

/// (QD)ᵀ, row-major: row i is column i of Q·D, where Q = H_0 ⋯ H_{n-2} and D = diag(φ) with
/// φ₀ = 1, φ_{k+1} = φ_k · phase(sub_k), which makes every subdiagonal entry of Dᴴ T D equal |sub_k|.
fn transposed_basis<T: Field>(reflectors: &[Reflector<T>], sub: &[T], n: usize) -> Vec<T> {
    // Q by backward accumulation: Q ← H_k Q for k = n-2 down to 0. H_k touches rows k+1.., and
    // H_{k+1} ⋯ is the identity outside rows and columns k+1.., so columns k+1.. are enough.
    let mut q = vec![T::default(); n * n];
    for i in 0..n {
        q[i * n + i] = T::from_real(1.0);
    }
    for (k, h) in reflectors.iter().enumerate().rev() {
        if h.beta == 0.0 {
            continue;
        }
        let lo = k + 1;
        // u = vᴴ Q[lo.., lo..], then Q[lo.., lo..] -= β v u.
        let mut u = vec![T::default(); n - lo];
        for (i, vi) in h.v.iter().enumerate() {
            let c = vi.conj();
            for (uj, qij) in u.iter_mut().zip(&q[(lo + i) * n + lo..(lo + i + 1) * n]) {
                *uj = *uj + c * *qij;
            }
        }
        for (i, vi) in h.v.iter().enumerate() {
            let c = vi.scale(h.beta);
            for (qij, uj) in q[(lo + i) * n + lo..(lo + i + 1) * n].iter_mut().zip(&u) {
                *qij = *qij - c * *uj;
            }
        }
    }
    let mut phi = T::from_real(1.0);
    let mut out = vec![T::default(); n * n];
    for i in 0..n {
        if i > 0 {
            phi = phi * phase(sub[i - 1]);
        }
        for r in 0..n {
            out[i * n + r] = q[r * n + i] * phi;
        }
    }
    out
}

/// The implicit QL algorithm with Wilkinson shifts on the real symmetric tridiagonal matrix with
/// diagonal `d` and subdiagonal `e` (e[i] couples i and i+1; e[n-1] = 0). On return `d` holds the
/// eigenvalues; each plane rotation of columns (i, i+1) is applied to rows i and i+1 of
/// `vectors` (which hold columns). Returns false if an eigenvalue takes more than 60 iterations.
fn ql_implicit<T: Field>(d: &mut [f64], e: &mut [f64], vectors: &mut [T], n: usize) -> bool {
    for l in 0..n {
        let mut iterations = 0;
        loop {
            // The first negligible subdiagonal entry at or after l splits off the block l..=m.
            let mut m = l;
            while m + 1 < n && e[m].abs() > f64::EPSILON * (d[m].abs() + d[m + 1].abs()) {
                m += 1;
            }
            if m == l {
                break;
            }
            iterations += 1;
            if iterations > 60 {
                return false;
            }
            // The shift: the eigenvalue of the leading 2×2 of the block nearer d[l].
            let g0 = (d[l + 1] - d[l]) / (2.0 * e[l]);
            let r0 = g0.hypot(1.0);
            let mut g = d[m] - d[l] + e[l] / (g0 + r0.copysign(g0));
            let (mut s, mut c, mut p) = (1.0f64, 1.0f64, 0.0f64);
            // Chase the bulge from the bottom of the block up to l.
            let mut underflow = false;
            for i in (l..m).rev() {
                let f = s * e[i];
                let b = c * e[i];
                let r = f.hypot(g);
                e[i + 1] = r;
                if r == 0.0 {
                    // f and g both vanished: deflate here and start the block again.
                    d[i + 1] -= p;
                    e[m] = 0.0;
                    underflow = true;
                    break;
                }
                s = f / r;
                c = g / r;
                let g1 = d[i + 1] - p;
                let r1 = (d[i] - g1) * s + 2.0 * c * b;
                p = s * r1;
                d[i + 1] = g1 + p;
                g = c * r1 - b;
                rotate_rows(vectors, n, i, c, s);
            }
            if underflow {
                continue;
            }
            d[l] -= p;
            e[l] = g;
            e[m] = 0.0;
        }
    }
    true
}

/// Columns i and i+1 of the basis (rows of `vectors`) ← (c·xᵢ - s·xᵢ₊₁, s·xᵢ + c·xᵢ₊₁).
fn rotate_rows<T: Field>(vectors: &mut [T], n: usize, i: usize, c: f64, s: f64) {
    let (head, tail) = vectors.split_at_mut((i + 1) * n);
    let (xi, xj) = (&mut head[i * n..], &mut tail[..n]);
    for (a, b) in xi.iter_mut().zip(xj.iter_mut()) {
        let (ai, bj) = (*a, *b);
        *b = ai.scale(s) + bj.scale(c);
        *a = ai.scale(c) - bj.scale(s);
    }
}
