/* transform_time.c - the C side of `make bench-python`: umap_transform of
   the first n rows of a raw .f32 file (d = the model's features) by a
   loaded model, `runs` times after 3 untimed; prints the median and the fastest, wall
   time, in seconds.

   usage: transform_time MODEL ROWS.f32 N RUNS THREADS */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c99 */
#include "umap.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double transform_time__now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int transform_time__cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    umap_model *model;
    char detail[256];
    int64_t n, d;
    int runs, threads, r;
    float *rows, *out;
    double *times;
    FILE *f;
    if (argc != 6) {
        fprintf(stderr, "usage: transform_time MODEL ROWS.f32 N RUNS THREADS\n");
        return 2;
    }
    n = atoll(argv[3]);
    runs = atoi(argv[4]);
    threads = atoi(argv[5]);
    if (n < 1 || runs < 1) return 2;
    if (umap_load(argv[1], &model, detail, sizeof detail) != UMAP_OK) {
        fprintf(stderr, "transform_time: %s: %s\n", argv[1], detail);
        return 1;
    }
    d = umap_model_n_features(model);
    rows = (float *)malloc((size_t)(n * d) * sizeof *rows);
    out = (float *)malloc((size_t)n * (size_t)umap_model_n_components(model) * sizeof *out);
    times = (double *)malloc((size_t)runs * sizeof *times);
    f = fopen(argv[2], "rb");
    if (!rows || !out || !times || !f || fread(rows, sizeof *rows, (size_t)(n * d), f) != (size_t)(n * d)) {
        fprintf(stderr, "transform_time: cannot read %lld rows of %lld floats from %s\n", (long long)n,
                (long long)d, argv[2]);
        return 1;
    }
    fclose(f);
    for (r = 0; r < 3; r++) /* warm-up, as the Python side's process is warm */
        if (umap_transform(model, rows, n, d, out, threads) != UMAP_OK) return 1;
    for (r = 0; r < runs; r++) {
        double t0 = transform_time__now();
        if (umap_transform(model, rows, n, d, out, threads) != UMAP_OK) return 1;
        times[r] = transform_time__now() - t0;
    }
    qsort(times, (size_t)runs, sizeof *times, transform_time__cmp);
    printf("%.9f %.9f\n", times[runs / 2], times[0]);
    umap_model_free(model);
    free(rows);
    free(out);
    free(times);
    return 0;
}
