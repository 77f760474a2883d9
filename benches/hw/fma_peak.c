/* The machine's f32 FMA peak: each thread runs 12 independent chains of AVX-512 FMAs (enough to
 * cover the FMA latency on two pipes), so the figure is what the FPUs can do, the ceiling for any
 * GEMM. Used in docs/performance.md to say how close apu's and XLA:CPU's matmuls come to it.
 *   cc -O2 -mavx512f -mfma -pthread -o /tmp/fma_peak benches/hw/fma_peak.c && /tmp/fma_peak [threads]
 */
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHAINS 12
#define STEPS 20000000L /* per chain */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static volatile float sink;

static void *chains(void *unused) {
    (void)unused;
    __m512 acc[CHAINS];
    const __m512 mul = _mm512_set1_ps(0.999999f), add = _mm512_set1_ps(1e-7f);
    for (int i = 0; i < CHAINS; i++) acc[i] = _mm512_set1_ps((float)i);
    for (long s = 0; s < STEPS; s++) {
#pragma GCC unroll 12
        for (int i = 0; i < CHAINS; i++) acc[i] = _mm512_fmadd_ps(acc[i], mul, add);
    }
    __m512 total = acc[0];
    for (int i = 1; i < CHAINS; i++) total = _mm512_add_ps(total, acc[i]);
    sink = _mm512_reduce_add_ps(total); /* keeps the loop from being removed */
    return NULL;
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 2;
    if (threads < 1 || threads > 256) threads = 2;
    pthread_t tid[256];
    for (int round = 0; round < 5; round++) {
        double t0 = now();
        for (int i = 1; i < threads; i++) pthread_create(&tid[i], NULL, chains, NULL);
        chains(NULL);
        for (int i = 1; i < threads; i++) pthread_join(tid[i], NULL);
        double flops = 2.0 * 16 * CHAINS * STEPS * threads;
        printf("%d threads: %.1f GFLOP/s\n", threads, flops / (now() - t0) / 1e9);
    }
    return 0;
}
