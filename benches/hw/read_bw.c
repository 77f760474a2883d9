/* How fast two threads read a buffer the size of the last-axis sum's input (f32[4096,4096], 64 MiB,
 * on huge pages like apu's large buffers), and whether it matters which CPU read which half the
 * pass before. Each thread sums one half with four AVX-512 chains; the passes come in pairs of
 * "same" (each thread reads the half it read last time) and pairs of "swapped" (the halves change
 * hands every pass). Prints the median and best of each kind.
 *
 * A reduction that reads its input once can go no faster than "same", so that is the ceiling
 * docs/performance.md compares the last-axis sums to. When "same" is much faster than "swapped",
 * the two CPUs do not share one last-level cache (on this cloud machine that comes and goes), and
 * a kernel called in a loop gains from reading each row on the same CPU every call (decision 42).
 *   cc -O2 -mavx512f -pthread -o /tmp/read_bw benches/hw/read_bw.c && /tmp/read_bw
 */
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define PASSES 200
#define HUGE (2UL << 20)

static float *data;
static size_t count;
static pthread_barrier_t barrier;
static volatile float sink;
static double same[PASSES], swapped[PASSES];
static int n_same, n_swapped;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void *reader(void *arg) {
    long id = (long)arg;
    for (int pass = 0; pass < PASSES; pass++) {
        int swapping = (pass / 2) % 2;
        long half = swapping ? (id + pass) % 2 : id;
        size_t lo = count / 2 * half, hi = lo + count / 2;
        pthread_barrier_wait(&barrier);
        double start = now();
        __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
        for (size_t i = lo; i < hi; i += 64) {
            s0 = _mm512_add_ps(s0, _mm512_load_ps(data + i));
            s1 = _mm512_add_ps(s1, _mm512_load_ps(data + i + 16));
            s2 = _mm512_add_ps(s2, _mm512_load_ps(data + i + 32));
            s3 = _mm512_add_ps(s3, _mm512_load_ps(data + i + 48));
        }
        sink = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
        /* A pass ends when the slower thread is done. */
        pthread_barrier_wait(&barrier);
        double took = now() - start;
        /* The second pass of a swapping pair is the one whose halves changed hands. */
        if (id == 0) {
            if (!swapping) same[n_same++] = took;
            else if (pass % 2 == 1) swapped[n_swapped++] = took;
        }
    }
    return NULL;
}

int main(void) {
    size_t bytes = 64UL << 20;
    count = bytes / sizeof(float);
    char *raw = mmap(NULL, bytes + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return 1;
    data = (float *)(((size_t)raw + HUGE - 1) & ~(HUGE - 1));
    madvise(data, bytes, MADV_HUGEPAGE);
    for (size_t i = 0; i < count; i++) data[i] = 1.0f;
    pthread_barrier_init(&barrier, NULL, 2);
    pthread_t t[2];
    for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, reader, (void *)i);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    qsort(same, n_same, sizeof(double), by_value);
    qsort(swapped, n_swapped, sizeof(double), by_value);
    printf("64 MiB on 2 threads: same halves median %.3f ms (best %.3f, %.0f GB/s); swapped halves median %.3f ms (best %.3f)\n",
           same[n_same / 2] * 1e3, same[0] * 1e3, bytes / same[0] / 1e9, swapped[n_swapped / 2] * 1e3, swapped[0] * 1e3);
    return 0;
}
