/* Sums each row of a [4096, 4096] f32 array (64 MiB, more than the L3) on two threads, each taking
 * half the rows, three ways: one row at a time with four accumulators, four rows at once, and one
 * row at a time prefetching the next row. The median pass is what memory allows for the bench's
 * "sum over last axis" on this machine; docs/performance.md compares apu and XLA:CPU with it.
 *   cc -O2 -mavx512f -pthread -o /tmp/row_fold benches/hw/row_fold.c && /tmp/row_fold
 */
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROWS 4096
#define COLS 4096
#define PASSES 400

static float *x;
static float sums[ROWS];
static int way;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void one_row(int r, int prefetch) {
    const float *p = x + (size_t)r * COLS;
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (int j = 0; j < COLS; j += 64) {
        if (prefetch && r + 1 < ROWS)
            for (int k = 0; k < 64; k += 16) _mm_prefetch((const char *)(p + COLS + j + k), _MM_HINT_T0);
        a0 = _mm512_add_ps(a0, _mm512_loadu_ps(p + j));
        a1 = _mm512_add_ps(a1, _mm512_loadu_ps(p + j + 16));
        a2 = _mm512_add_ps(a2, _mm512_loadu_ps(p + j + 32));
        a3 = _mm512_add_ps(a3, _mm512_loadu_ps(p + j + 48));
    }
    sums[r] = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
}

static void four_rows(int r) {
    const float *p = x + (size_t)r * COLS;
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (int j = 0; j < COLS; j += 16) {
        a0 = _mm512_add_ps(a0, _mm512_loadu_ps(p + j));
        a1 = _mm512_add_ps(a1, _mm512_loadu_ps(p + COLS + j));
        a2 = _mm512_add_ps(a2, _mm512_loadu_ps(p + 2 * COLS + j));
        a3 = _mm512_add_ps(a3, _mm512_loadu_ps(p + 3 * COLS + j));
    }
    sums[r] = _mm512_reduce_add_ps(a0);
    sums[r + 1] = _mm512_reduce_add_ps(a1);
    sums[r + 2] = _mm512_reduce_add_ps(a2);
    sums[r + 3] = _mm512_reduce_add_ps(a3);
}

static void *half(void *which) {
    int lo = (int)(long)which * ROWS / 2, hi = lo + ROWS / 2;
    for (int r = lo; r < hi; r += way == 1 ? 4 : 1) {
        if (way == 1) four_rows(r);
        else one_row(r, way == 2);
    }
    return NULL;
}

static int by_value(const void *a, const void *b) {
    double d = *(const double *)a - *(const double *)b;
    return (d > 0) - (d < 0);
}

int main(void) {
    static const char *names[] = {"one row at a time", "four rows at once", "one row, prefetching the next"};
    x = aligned_alloc(64, (size_t)ROWS * COLS * sizeof(float));
    if (!x) return 1;
    for (size_t i = 0; i < (size_t)ROWS * COLS; i++) x[i] = 1.0f;
    static double t[PASSES];
    for (way = 0; way < 3; way++) {
        for (int i = 0; i < PASSES; i++) {
            double t0 = now();
            pthread_t other;
            pthread_create(&other, NULL, half, (void *)1L);
            half((void *)0L);
            pthread_join(other, NULL);
            t[i] = now() - t0;
        }
        if (sums[ROWS - 1] != (float)COLS) return 2; /* the sums must be right */
        qsort(t, PASSES, sizeof t[0], by_value);
        printf("%-30s median %.3f ms  fastest %.3f ms  (%.1f GB/s at the median)\n", names[way],
               t[PASSES / 2] * 1e3, t[0] * 1e3, (double)ROWS * COLS * 4 / t[PASSES / 2] / 1e9);
    }
    return 0;
}
