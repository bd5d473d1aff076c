/* knn_data.h - data sets, raw files and timing helpers shared by the k-NN
   benchmarks (bench/bench_knn.c, bench/bench_batch.c and
   bench/faiss_knn.cc). Plain C99 that also compiles as C++; everything is
   static inline, so each program includes it once. POSIX: mkdtemp.

   Data sets (knn_data_load):
     random4096  4096 x 64, N(0, 1) entries from a fixed seed
     fmnist10k   Fashion-MNIST test images, 10,000 x 784, pixels / 255
     fmnist70k   Fashion-MNIST train then test, 70,000 x 784, pixels / 255
   Fashion-MNIST is read from KNN_DATA_FMNIST_DIR (Debian
   dataset-fashion-mnist: gzip IDX files) by cli/umap_io.h, whose
   implementation this header brings along (its own inflate: no zlib).
   It needs umap.h (its includer's implementation: files are written
   through umap_output, staged as every file the project writes).

   Files passed between the benchmark driver and its helper programs are raw,
   row-major, native-endian: .f32 holds n*d float32 (n and d go on the command
   line), .i32 holds n*k int32 neighbour indices. */
#ifndef KNN_DATA_H
#define KNN_DATA_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "umap.h"
#define UMAP_IO_IMPLEMENTATION /* the IDX reader; a program that also includes it gets one copy */
#include "cli/umap_io.h"

/* static inline: a program that uses only some of these gets no warning */
#define KNN_DATA_FN static inline

#ifndef KNN_DATA_FMNIST_DIR
#define KNN_DATA_FMNIST_DIR "/usr/share/datasets/fashion-mnist"
#endif

KNN_DATA_FN double knn_data_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

KNN_DATA_FN int knn_data_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* median of v[0..n) (sorts v); 0 for n == 0 */
KNN_DATA_FN double knn_data_median(double *v, int n) {
    if (n <= 0) return 0.0;
    qsort(v, (size_t)n, sizeof *v, knn_data_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* smallest of v[0..n) */
KNN_DATA_FN double knn_data_min(const double *v, int n) {
    double m = n > 0 ? v[0] : 0.0;
    int i;
    for (i = 1; i < n; i++)
        if (v[i] < m) m = v[i];
    return m;
}

/* n*d standard normal floats from splitmix64 + Box-Muller; the same seed
   gives the same data on every machine */
KNN_DATA_FN uint64_t knn_data_splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

KNN_DATA_FN float *knn_data_random(int64_t n, int64_t d, uint64_t seed) {
    float *x = (float *)malloc((size_t)(n * d) * sizeof(float));
    uint64_t s = seed;
    int64_t i;
    if (!x) return NULL;
    for (i = 0; i < n * d; i += 2) {
        double u1 = ((double)(knn_data_splitmix(&s) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
        double u2 = (double)(knn_data_splitmix(&s) >> 11) * (1.0 / 9007199254740992.0);
        double r = sqrt(-2.0 * log(u1));
        x[i] = (float)(r * cos(6.283185307179586 * u2));
        if (i + 1 < n * d) x[i + 1] = (float)(r * sin(6.283185307179586 * u2));
    }
    return x;
}

/* Appends the first max_rows images of an IDX image file (gzipped or not:
   cli/umap_io.h reads it, the one IDX reader of this repository) of dim
   pixels each to out, from row at on, as pixel / 255. Returns the number of
   images read, or -1 with err set. */
KNN_DATA_FN int64_t knn_data_read_idx_images(const char *path, float *out, int64_t at, int64_t max_rows, int64_t dim,
                                             char *err, size_t errlen) {
    umap_io_matrix m;
    int64_t n, i;
    umap_io_result r = umap_io_read_matrix(path, 0, &m, err, errlen);
    if (r != UMAP_IO_OK) {
        if (r == UMAP_IO_ERR_OPEN) snprintf(err + strlen(err), errlen - strlen(err), " (install dataset-fashion-mnist)");
        return -1;
    }
    if (m.cols != dim) {
        snprintf(err, errlen, "%s: images of %lld pixels, expected %lld", path, (long long)m.cols, (long long)dim);
        umap_io_matrix_free(&m);
        return -1;
    }
    n = m.rows < max_rows ? m.rows : max_rows;
    for (i = 0; i < n * dim; i++) out[at * dim + i] = m.data[i] / 255.0f;
    umap_io_matrix_free(&m);
    return n;
}

/* The same for the labels of an IDX label file: the first max_rows into
   out[at ..]. Returns the number read, or -1 with err set. */
KNN_DATA_FN int64_t knn_data_read_idx_labels(const char *path, int32_t *out, int64_t at, int64_t max_rows, char *err,
                                             size_t errlen) {
    umap_io_labels l;
    int64_t n;
    umap_io_result r = umap_io_read_labels(path, &l, err, errlen);
    if (r != UMAP_IO_OK) {
        if (r == UMAP_IO_ERR_OPEN) snprintf(err + strlen(err), errlen - strlen(err), " (install dataset-fashion-mnist)");
        return -1;
    }
    n = l.n < max_rows ? l.n : max_rows;
    memcpy(out + at, l.data, (size_t)n * sizeof *out);
    umap_io_labels_free(&l);
    return n;
}

/* One of the named data sets; NULL with err set when it cannot be had.
   *n and *d receive the shape. */
KNN_DATA_FN float *knn_data_load(const char *name, int64_t *n, int64_t *d, char *err, size_t errlen) {
    float *x;
    int64_t got;
    err[0] = 0;
    if (!strcmp(name, "random4096")) {
        *n = 4096;
        *d = 64;
        x = knn_data_random(*n, *d, 42);
        if (!x) snprintf(err, errlen, "out of memory");
        return x;
    }
    if (strcmp(name, "fmnist10k") && strcmp(name, "fmnist70k")) {
        snprintf(err, errlen, "unknown data set '%s' (random4096, fmnist10k, fmnist70k)", name);
        return NULL;
    }
    *d = 784;
    *n = !strcmp(name, "fmnist10k") ? 10000 : 70000;
    x = (float *)malloc((size_t)(*n * *d) * sizeof(float));
    if (!x) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (*n == 10000) {
        got = knn_data_read_idx_images(KNN_DATA_FMNIST_DIR "/t10k-images-idx3-ubyte.gz", x, 0, 10000, *d, err, errlen);
    } else {
        got = knn_data_read_idx_images(KNN_DATA_FMNIST_DIR "/train-images-idx3-ubyte.gz", x, 0, 60000, *d, err, errlen);
        if (got == 60000)
            got += knn_data_read_idx_images(KNN_DATA_FMNIST_DIR "/t10k-images-idx3-ubyte.gz", x, 60000, 10000, *d, err,
                                        errlen);
    }
    if (got != *n) {
        if (!err[0]) snprintf(err, errlen, "%s: read %lld of %lld images", name, (long long)got, (long long)*n);
        free(x);
        return NULL;
    }
    return x;
}

/* raw files, staged (umap_output): 0 on success, -1 on failure (the reason
   on stderr) */
KNN_DATA_FN int knn_data_write(const char *path, const void *p, size_t bytes) {
    umap_output o;
    if (umap_output_open(&o, path) != UMAP_OK) {
        fprintf(stderr, "%s\n", o.error);
        return -1;
    }
    fwrite(p, 1, bytes, o.file);
    if (umap_output_commit(&o) != UMAP_OK) {
        fprintf(stderr, "%s\n", o.error);
        return -1;
    }
    return 0;
}

/* reads exactly `bytes` bytes; a file of another size is an error */
KNN_DATA_FN int knn_data_read(const char *path, void *p, size_t bytes) {
    FILE *f = fopen(path, "rb");
    size_t got;
    int extra;
    if (!f) return -1;
    got = fread(p, 1, bytes, f);
    extra = fgetc(f);
    fclose(f);
    return got == bytes && extra == EOF ? 0 : -1;
}

/* Self exclusion for methods that return the query row among its own
   neighbours: in[i*kin .. ) holds kin = k+1 candidates of row i, ascending by
   distance (dist may be NULL). Drops the first occurrence of i (or the last
   candidate when i is absent, e.g. among more than k+1 duplicates), orders
   equal distances by index, and writes k to out[i*k ..). */
KNN_DATA_FN void knn_data_drop_self(const int64_t *in, const float *dist, int64_t n, int k, int32_t *out) {
    int64_t i;
    int j, m, a, b;
    for (i = 0; i < n; i++) {
        const int64_t *r = in + i * (k + 1);
        const float *dr = dist ? dist + i * (k + 1) : NULL;
        int32_t *o = out + i * k;
        float od[1024];
        int skip = k; /* default: drop the last */
        for (j = 0; j <= k; j++)
            if (r[j] == i) {
                skip = j;
                break;
            }
        for (j = 0, m = 0; j <= k; j++)
            if (j != skip) {
                o[m] = (int32_t)r[j];
                if (dr && m < 1024) od[m] = dr[j];
                m++;
            }
        if (dr && k <= 1024) /* insertion sort by (distance, index): only equal distances move */
            for (a = 1; a < k; a++)
                for (b = a; b > 0 && od[b - 1] == od[b] && o[b - 1] > o[b]; b--) {
                    int32_t ti = o[b];
                    o[b] = o[b - 1];
                    o[b - 1] = ti;
                }
    }
}

#endif /* KNN_DATA_H */
