/* bench_knn.c - k-NN of umap_knn.h: parity with a naive double-precision
   reference, speed, and a side-by-side run against FAISS and pynndescent.

   Only public APIs are used: umap_knn.h's, and umap_vk.h's exact k-NN on
   the GPU for --device vulkan (built with -DUMAP_VULKAN, as the Makefile
   does when the Vulkan headers are installed).

   Build:  cc -O2 -I. bench/bench_knn.c -o bench_knn -lblas -lpthread -lm
   Run:    OPENBLAS_CORETYPE=SkylakeX ./bench_knn [options]     (or `make bench-knn`)

   PARITY (the default): random N(0,1) data, n x d (4096 x 64, k = 15), for
   each metric:
     - a naive double-precision reference: every distance in double, self
       excluded, ties broken by the smaller index (what umap_knn promises);
     - umap_knn (exact): index match rate (same index at the same rank), set
       recall, max / mean |distance - reference distance|;
     - umap_pairwise: max / mean error of all n*n entries against the same
       double distances;
     - times, median over --runs after one warm-up:
         pairwise  umap_pairwise on the n rows (the n x n matrix);
         knn e2e   umap_knn exact, from the rows to indices and distances
                   (pool start, checks, normalisation for cosine, tiled
                   sgemm, selection and re-ranking: everything);
         yardstick cblas_sgemm X X^T alone, full n x n (umap_knn computes
                   each symmetric tile once, so about half of it): what the
                   product costs, so that e2e minus about half of it is
                   what selection and re-ranking cost. There is no separate
                   selection timing: the public API has no such call.
     - umap_knn (NN-Descent) on the same data: recall and time.

   COMPARE (--compare): on the data sets named by --dataset, in one run, with
   the same thread count everywhere:
     umap_knn exact, umap_knn NN-Descent (in this process),
     FAISS IndexFlatL2 / IndexFlatIP (build/faiss_knn, bench/faiss_knn.cc),
     pynndescent (/usr/bin/python3 bench/pynndescent_knn.py).
   The data go to a temporary .f32 file that the helpers load once; they run
   in --serve mode, and the driver times in rounds: one run of every method
   per round (ours in this process, the helpers' on request, each helper
   timing its own run), so all methods see the same load on a shared
   machine. The helpers write the indices of their last run as raw int32.
   One table per data set and metric: median time over the rounds, recall
   against our exact result, ratio to FAISS. Then the targets, PASS / MISS:
     exact fmnist70k <= 1.0x FAISS;
     n = 4096, d = 64, k = 15 exact end to end <= 25 ms (random4096);
     NN-Descent recall >= 0.95 in <= 0.8x pynndescent's time;
     with --device vulkan, the GPU's exact fmnist70k <= 500 ms (the issue's
     target for an H100; the GPU is warmed once alone on large sets).
   What each side's time covers: umap_knn from the rows to k neighbours
   (including its own normalisation for cosine); FAISS normalisation (cosine),
   index build, add, search with k+1 and dropping self; pynndescent the
   NNDescent constructor (RP trees + NN-Descent) and neighbor_graph, with
   numba compiled beforehand on a small array (not timed), self dropped
   outside the timing.

   Recall: the fraction of our exact neighbours (n*k) that the other method
   also returns. For two lists of k each this is symmetric, so exact vs exact
   is the same number both ways (1.0 when they agree). "recall, ties": the
   fraction of the other method's neighbours whose double-precision distance
   is no larger than the k-th exact distance of that row, i.e. equally good
   answers count as found. "bad": entries that are out of range, the row
   itself, or repeated within a row.

   Threads: --threads T (default 2) for umap_knn, OMP_NUM_THREADS,
   OPENBLAS_NUM_THREADS, NUMBA_NUM_THREADS and pynndescent's n_jobs. OpenBLAS
   reads its variables when it is loaded, so when they differ from T the
   program sets them and runs itself again. OPENBLAS_CORETYPE is passed on as
   it is (the make targets set SkylakeX). The helpers run with
   OMP_WAIT_POLICY=PASSIVE unless the variable is set: with 2 cores, spinning
   OpenMP workers otherwise take the cores from OpenBLAS's threads (FAISS
   runs 2x slower so), and idle helpers must not spin while another method
   runs. The comparison should be with FAISS at its best.

   Options:
     --n N --d D --k K     parity data shape (default 4096 64 15)
     --metric NAME|both    any of umap_knn.h's metrics, or both = euclidean and
                           cosine (default both for parity, euclidean for
                           --compare); FAISS runs euclidean and cosine only
     --metric-p P          minkowski's p (2)
     --threads T           (default 2)
     --runs R              timed runs per measurement (default 9; with --compare
                           5 rounds, after 1 warm-up round)
     --compare             the FAISS / pynndescent comparison
     --dataset LIST        random4096|fmnist10k|fmnist70k|all, or a comma list
                           (default random4096,fmnist10k)
     --runs-large R        rounds for data sets above 20,000 rows (default 1, no
                           warm-up: an exact 70k run takes tens of seconds)
     --no-faiss --no-pynndescent --no-nndescent   leave a side out
     --device vulkan       --compare adds a row: umap_vk_knn (exact, on the
                           GPU; UMAP_VK_DEVICE / UMAP_VK_ALLOW_CPU choose the
                           device), its time from the rows in host memory to
                           the proven k-NN, and whether it equals the CPU's
                           exact result bit for bit
*/
#define _POSIX_C_SOURCE 200809L
#define UMAP_VK_IMPLEMENTATION /* umap.h and umap_knn.h come along */
#include "umap_vk.h"

#include "bench/knn_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const FAISS_BIN = "build/faiss_knn";
static const char *const PY = "/usr/bin/python3";
static const char *const PYNND_SCRIPT = "bench/pynndescent_knn.py";

enum { LARGE_N = 20000 };

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "bench_knn: out of memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

static void usage(void) {
    fprintf(stderr,
            "usage: bench_knn [--n N] [--d D] [--k K] [--metric NAME|both] [--metric-p P] [--threads T] [--runs R]\n"
            "       bench_knn --compare [--dataset random4096|fmnist10k|fmnist70k|all|LIST] [--metric ...]\n"
            "                 [--threads T] [--runs R] [--runs-large R] [--no-faiss] [--no-pynndescent] [--device vulkan]\n"
            "                 [--no-nndescent]\n");
    exit(2);
}

static const char *metric_name(umap_metric m) { return umap_metric_name(m); }
static double metric_p = 2.0; /* --metric-p: minkowski's */

/* ---- the naive double-precision reference ------------------------------- */

static double dist_double(const float *x, int64_t d, int64_t i, int64_t j, umap_metric m, const double *norms) {
    const float *a = x + i * d, *b = x + j * d;
    double s = 0.0;
    int64_t t;
    if (m == UMAP_METRIC_COSINE) {
        for (t = 0; t < d; t++) s += (double)a[t] * (double)b[t];
        if (norms[i] == 0.0 || norms[j] == 0.0) return 1.0; /* similarity 0 */
        return 1.0 - s / (norms[i] * norms[j]);
    }
    if (m != UMAP_METRIC_EUCLIDEAN) { /* the other metrics from their definitions */
        double ma = 0.0, mb = 0.0, aa = 0.0, bb = 0.0;
        int64_t any = 0, both = 0;
        for (t = 0; t < d; t++) {
            double e = fabs((double)a[t] - (double)b[t]);
            switch (m) {
            case UMAP_METRIC_MANHATTAN: s += e; break;
            case UMAP_METRIC_CHEBYSHEV: s = e > s ? e : s; break;
            case UMAP_METRIC_MINKOWSKI: s += pow(e, metric_p); break;
            case UMAP_METRIC_HAMMING: s += a[t] != b[t]; break;
            case UMAP_METRIC_JACCARD:
                any += a[t] != 0.0f || b[t] != 0.0f;
                both += a[t] != 0.0f && b[t] != 0.0f;
                break;
            default: ma += a[t]; mb += b[t]; break; /* correlation */
            }
        }
        if (m == UMAP_METRIC_MINKOWSKI) return pow(s, 1.0 / metric_p);
        if (m == UMAP_METRIC_HAMMING) return s / (double)d;
        if (m == UMAP_METRIC_JACCARD) return any ? (double)(any - both) / (double)any : 0.0;
        if (m != UMAP_METRIC_CORRELATION) return s;
        ma /= (double)d;
        mb /= (double)d;
        for (t = 0; t < d; t++) {
            s += ((double)a[t] - ma) * ((double)b[t] - mb);
            aa += ((double)a[t] - ma) * ((double)a[t] - ma);
            bb += ((double)b[t] - mb) * ((double)b[t] - mb);
        }
        if (aa == 0.0 || bb == 0.0) return 1.0;
        return 1.0 - s / (sqrt(aa) * sqrt(bb));
    }
    for (t = 0; t < d; t++) {
        double e = (double)a[t] - (double)b[t];
        s += e * e;
    }
    return sqrt(s);
}

static double *row_norms(const float *x, int64_t n, int64_t d) {
    double *nr = (double *)xmalloc((size_t)n * sizeof *nr);
    int64_t i, t;
    for (i = 0; i < n; i++) {
        double s = 0.0;
        for (t = 0; t < d; t++) s += (double)x[i * d + t] * (double)x[i * d + t];
        nr[i] = sqrt(s);
    }
    return nr;
}

typedef struct ref_ctx {
    const float *x;
    const double *norms;
    int64_t n, d;
    int k;
    umap_metric metric;
    int32_t *idx;
    double *dist;
    const float *pairwise; /* optional: umap_pairwise output to check */
    double *pw_max, *pw_sum; /* per task */
    int64_t rows_per_task;
} ref_ctx;

static void ref_task(void *vctx, int64_t task) {
    ref_ctx *c = (ref_ctx *)vctx;
    int64_t i0 = task * c->rows_per_task, i1 = i0 + c->rows_per_task, i, j;
    double pmax = 0.0, psum = 0.0;
    if (i1 > c->n) i1 = c->n;
    for (i = i0; i < i1; i++) {
        int32_t *ri = c->idx + i * c->k;
        double *rd = c->dist + i * c->k;
        int m = 0;
        for (j = 0; j < c->n; j++) {
            double dd = dist_double(c->x, c->d, i, j, c->metric, c->norms);
            int p;
            if (c->pairwise) {
                /* the diagonal: 0 (cosine: 0, or 1 for a zero row) */
                double want = j == i ? (c->metric == UMAP_METRIC_COSINE && c->norms[i] == 0.0 ? 1.0 : 0.0) : dd;
                double e = fabs((double)c->pairwise[i * c->n + j] - want);
                if (e > pmax || e != e) pmax = e != e ? INFINITY : e;
                psum += e;
            }
            if (j == i) continue;
            /* sorted insert: ascending distance, then ascending index (j
               grows, so an equal distance goes after the ones there) */
            if (m == c->k && !(dd < rd[m - 1])) continue;
            p = m < c->k ? m++ : m - 1;
            while (p > 0 && dd < rd[p - 1]) {
                rd[p] = rd[p - 1];
                ri[p] = ri[p - 1];
                p--;
            }
            rd[p] = dd;
            ri[p] = (int32_t)j;
        }
    }
    if (c->pw_max) {
        c->pw_max[task] = pmax;
        c->pw_sum[task] = psum;
    }
}

/* the reference k-NN; checks `pairwise` (n*n, may be NULL) on the way */
static void ref_knn(umap_pool *pool, const float *x, int64_t n, int64_t d, int k, umap_metric metric,
                    const float *pairwise, int32_t *idx, double *dist, double *pw_max, double *pw_mean) {
    ref_ctx c;
    int64_t tasks, t;
    double *norms = row_norms(x, n, d);
    memset(&c, 0, sizeof c);
    c.x = x; c.norms = norms; c.n = n; c.d = d; c.k = k; c.metric = metric; c.idx = idx; c.dist = dist;
    c.rows_per_task = 16;
    tasks = (n + c.rows_per_task - 1) / c.rows_per_task;
    if (pairwise) {
        c.pairwise = pairwise;
        c.pw_max = (double *)xmalloc((size_t)tasks * sizeof(double));
        c.pw_sum = (double *)xmalloc((size_t)tasks * sizeof(double));
    }
    umap_pool_for(pool, tasks, ref_task, &c);
    if (pairwise) {
        double mx = 0.0, sum = 0.0;
        for (t = 0; t < tasks; t++) {
            if (c.pw_max[t] > mx) mx = c.pw_max[t];
            sum += c.pw_sum[t];
        }
        *pw_max = mx;
        *pw_mean = sum / ((double)n * (double)n);
        free(c.pw_max);
        free(c.pw_sum);
    }
    free(norms);
}

/* ---- quality of a neighbour list against a reference -------------------- */

typedef struct quality {
    double match;      /* same index at the same rank */
    double recall;     /* reference neighbours found (set) */
    double recall_ties; /* neighbours no farther than the reference k-th */
    int64_t bad;       /* out of range, self or repeated */
} quality;

/* ref_kth: per row, the reference's k-th distance in double */
static quality compare_lists(const int32_t *a, const int32_t *ref, const double *ref_kth, const float *x, int64_t n,
                             int64_t d, int k, umap_metric metric, const double *norms) {
    quality q;
    int64_t i, match = 0, found = 0, good = 0, bad = 0;
    int j, t;
    for (i = 0; i < n; i++) {
        const int32_t *ra = a + i * k, *rr = ref + i * k;
        for (j = 0; j < k; j++) {
            int32_t v = ra[j];
            int rep = 0;
            if (v == rr[j]) match++;
            for (t = 0; t < k; t++)
                if (rr[t] == v) {
                    found++;
                    break;
                }
            for (t = 0; t < j; t++)
                if (ra[t] == v) rep = 1;
            if (v < 0 || v >= n || v == i || rep) {
                bad++;
                continue;
            }
            if (ref_kth && dist_double(x, d, i, v, metric, norms) <= ref_kth[i] * (1.0 + 1e-12)) good++;
        }
    }
    q.match = (double)match / ((double)n * k);
    q.recall = (double)found / ((double)n * k);
    q.recall_ties = ref_kth ? (double)good / ((double)n * k) : -1.0;
    q.bad = bad;
    return q;
}

/* ---- timing umap_knn ----------------------------------------------------- */

typedef struct timing {
    double median, min;
    int runs;
    umap_result r;
    umap_knn_info info; /* of the last run */
} timing;

static timing time_knn(const float *x, int64_t n, int64_t d, int k, umap_metric metric, umap_knn_method method,
                       int threads, int warmup, int runs, int32_t *idx, float *dist) {
    timing tm;
    umap_knn_desc desc;
    double *ms = (double *)xmalloc((size_t)runs * sizeof(double));
    int r;
    memset(&tm, 0, sizeof tm);
    memset(&desc, 0, sizeof desc);
    desc.k = k;
    desc.metric = metric;
    desc.metric_p = (float)metric_p;
    desc.method = method;
    desc.n_threads = threads;
    desc.info = &tm.info;
    for (r = 0; r < warmup + runs; r++) {
        double t0, t1;
        desc.seed = (uint64_t)r;
        t0 = knn_data_now_ms();
        tm.r = umap_knn(&desc, x, n, d, idx, dist);
        t1 = knn_data_now_ms();
        if (tm.r != UMAP_OK) break;
        if (r >= warmup) ms[r - warmup] = t1 - t0;
    }
    if (tm.r == UMAP_OK) {
        tm.runs = runs;
        tm.min = knn_data_min(ms, runs);
        tm.median = knn_data_median(ms, runs);
    }
    free(ms);
    return tm;
}

static timing time_pairwise(const float *x, int64_t n, int64_t d, umap_metric metric, int threads, int warmup,
                            int runs, float *out) {
    timing tm;
    umap_knn_desc desc;
    double *ms = (double *)xmalloc((size_t)runs * sizeof(double));
    int r;
    memset(&tm, 0, sizeof tm);
    memset(&desc, 0, sizeof desc);
    desc.metric = metric;
    desc.metric_p = (float)metric_p;
    desc.n_threads = threads;
    desc.info = &tm.info;
    for (r = 0; r < warmup + runs; r++) {
        double t0 = knn_data_now_ms(), t1;
        tm.r = umap_pairwise(&desc, x, n, d, out);
        t1 = knn_data_now_ms();
        if (tm.r != UMAP_OK) break;
        if (r >= warmup) ms[r - warmup] = t1 - t0;
    }
    if (tm.r == UMAP_OK) {
        tm.runs = runs;
        tm.min = knn_data_min(ms, runs);
        tm.median = knn_data_median(ms, runs);
    }
    free(ms);
    return tm;
}

/* the machine may be shared: say how busy it was */
static void print_load(const char *when) {
    FILE *f = fopen("/proc/loadavg", "r");
    char buf[128];
    if (f && fgets(buf, sizeof buf, f)) printf("load average %s: %s", when, buf);
    if (f) fclose(f);
}

static const char *pass(int ok) { return ok ? "PASS" : "MISS"; }

static void print_failure(const char *what, umap_result r, const umap_knn_info *info) {
    printf("  %s: %s%s%s\n", what, umap_result_string(r), info->error_detail[0] ? ": " : "", info->error_detail);
}

/* ---- parity mode ---------------------------------------------------------- */

static int run_parity(int64_t n, int64_t d, int k, const umap_metric *metrics, int n_metrics, int threads, int runs,
                      int nndescent) {
    float *x = knn_data_random(n, d, 42);
    int32_t *idx = (int32_t *)xmalloc((size_t)(n * k) * sizeof(int32_t));
    int32_t *ref_idx = (int32_t *)xmalloc((size_t)(n * k) * sizeof(int32_t));
    float *dist = (float *)xmalloc((size_t)(n * k) * sizeof(float));
    double *ref_dist = (double *)xmalloc((size_t)(n * k) * sizeof(double));
    double *ref_kth = (double *)xmalloc((size_t)n * sizeof(double));
    float *pw = NULL;
    umap_pool *pool = NULL;
    int mi, failures = 0;
    int64_t i;
    if (!x) {
        fprintf(stderr, "bench_knn: out of memory\n");
        exit(1);
    }
    if (n <= 65535 && (double)n * (double)n * 4.0 <= 4.0 * 1024 * 1024 * 1024)
        pw = (float *)xmalloc((size_t)(n * n) * sizeof(float));
    if (umap_pool_create(threads, NULL, &pool) != UMAP_OK) {
        fprintf(stderr, "bench_knn: cannot start threads\n");
        exit(1);
    }
    printf("parity: random N(0,1) data %lld x %lld, k = %d, %d threads, median of %d runs after 1 warm-up\n",
           (long long)n, (long long)d, k, threads, runs);
    for (mi = 0; mi < n_metrics; mi++) {
        umap_metric m = metrics[mi];
        timing te, tp, tn;
        double pw_max = -1.0, pw_mean = -1.0, emax = 0.0, esum = 0.0, rmax = 0.0, *norms;
        quality qe, qn;
        printf("\n== %s\n", metric_name(m));
        print_load("now");
        fflush(stdout);
        memset(&tp, 0, sizeof tp);
        tp.r = UMAP_ERR_TOO_LARGE;
        if (pw) tp = time_pairwise(x, n, d, m, threads, 1, runs, pw);
        te = time_knn(x, n, d, k, m, UMAP_KNN_EXACT, threads, 1, runs, idx, dist);
        {
            double t0 = knn_data_now_ms();
            ref_knn(pool, x, n, d, k, m, tp.r == UMAP_OK ? pw : NULL, ref_idx, ref_dist, &pw_max, &pw_mean);
            printf("reference (double, naive): %.0f ms\n", knn_data_now_ms() - t0);
        }
        for (i = 0; i < n; i++) ref_kth[i] = ref_dist[i * k + k - 1];
        norms = row_norms(x, n, d);
        if (te.r != UMAP_OK) {
            print_failure("umap_knn exact", te.r, &te.info);
            failures++;
        } else {
            for (i = 0; i < n * k; i++) {
                double e = fabs((double)dist[i] - ref_dist[i]);
                if (e > emax || e != e) emax = e != e ? INFINITY : e;
                if (ref_dist[i] > 0.0 && e / ref_dist[i] > rmax) rmax = e / ref_dist[i];
                esum += e;
            }
            qe = compare_lists(idx, ref_idx, ref_kth, x, n, d, k, m, norms);
            printf("umap_knn exact vs reference: index match %.6f, recall %.6f, recall ties %.6f, bad %lld\n",
                   qe.match, qe.recall, qe.recall_ties, (long long)qe.bad);
            printf("  distance error: max %.3g, mean %.3g (max relative %.3g)\n", emax, esum / (double)(n * k), rmax);
            printf("  info: method %d, distance evals %.4g (n^2 = %.4g), rechecked rows %lld\n", (int)te.info.method,
                   te.info.distance_evals, (double)n * (double)n, (long long)te.info.rechecked_rows);
            if (qe.match < 1.0 || qe.bad) failures++;
        }
        if (tp.r == UMAP_OK)
            printf("umap_pairwise vs reference (all n*n entries): max error %.3g, mean %.3g\n", pw_max, pw_mean);
        else print_failure("umap_pairwise", tp.r, &tp.info);

        printf("\n| %-44s | %10s | %10s |\n", "timed", "median ms", "min ms");
        printf("|%.46s|%.12s|%.12s|\n", "----------------------------------------------", "------------",
               "------------");
        if (tp.r == UMAP_OK)
            printf("| %-44s | %10.2f | %10.2f |\n", "pairwise: umap_pairwise (n x n matrix)", tp.median, tp.min);
        if (te.r == UMAP_OK) {
            printf("| %-44s | %10.2f | %10.2f |\n", "knn e2e: umap_knn exact (rows -> k-NN)", te.median, te.min);
        }
#ifndef UMAP_NO_BLAS
        if (pw) {
            /* the product alone, as a yardstick: one full n x n x d sgemm
               (umap_knn computes each symmetric tile once, about half) */
            double *ms = (double *)xmalloc((size_t)runs * sizeof(double)), med, mn;
            const float *xs = x;
            float *nx = NULL;
            int r;
            if (m == UMAP_METRIC_COSINE) { /* what umap_knn multiplies: the normalised rows */
                nx = (float *)xmalloc((size_t)(n * d) * sizeof(float));
                for (i = 0; i < n * d; i++) nx[i] = (float)(x[i] / norms[i / d]);
                xs = nx;
            }
            for (r = 0; r <= runs; r++) {
                double t0 = knn_data_now_ms();
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)n, (int)d, 1.0f, xs, (int)d, xs,
                            (int)d, 0.0f, pw, (int)n);
                if (r > 0) ms[r - 1] = knn_data_now_ms() - t0;
            }
            mn = knn_data_min(ms, runs);
            med = knn_data_median(ms, runs);
            printf("| %-44s | %10.2f | %10.2f |\n", "sgemm X X^T alone, full n^2 (yardstick)", med, mn);
            free(ms);
            free(nx);
        }
#endif
        if (te.r == UMAP_OK && tp.r == UMAP_OK)
            printf("(no separate selection time: umap_knn never forms the n x n matrix that umap_pairwise writes,\n"
                   " so knn e2e / pairwise = %.2f compares two whole calls)\n", te.median / tp.median);
        if (nndescent) {
            tn = time_knn(x, n, d, k, m, UMAP_KNN_NNDESCENT, threads, 1, runs, idx, dist);
            if (tn.r == UMAP_OK) {
                qn = compare_lists(idx, ref_idx, ref_kth, x, n, d, k, m, norms);
                printf("| %-44s | %10.2f | %10.2f |\n", "umap_knn NN-Descent (rows -> k-NN)", tn.median, tn.min);
                printf("NN-Descent vs reference: recall %.4f, recall ties %.4f, bad %lld, %d iterations, "
                       "%.3g distance evals\n",
                       qn.recall, qn.recall_ties, (long long)qn.bad, tn.info.iterations, tn.info.distance_evals);
            } else print_failure("umap_knn NN-Descent", tn.r, &tn.info);
        }
        if (n == 4096 && d == 64 && k == 15 && te.r == UMAP_OK)
            printf("target: n=4096 d=64 k=15 %s exact end to end <= 25 ms: %.2f ms %s\n", metric_name(m), te.median,
                   pass(te.median <= 25.0));
        free(norms);
    }
    umap_pool_free(pool);
    free(x); free(idx); free(ref_idx); free(dist); free(ref_dist); free(ref_kth); free(pw);
    return failures;
}

/* ---- compare mode --------------------------------------------------------- */

/* A helper program in --serve mode: it loads the data, says "ready", then
   answers each "run" line on its stdin with one timed run ("ms=T"), and on
   "quit" writes the indices of its last run to its --out file and exits.
   The driver alternates one run of every method per round, so that all of
   them see the same machine load (these machines are often shared, and
   timings drift by 2x within a minute). Lines the helper prints besides
   ready / ms= are echoed. */
typedef struct helper {
    const char *label;
    pid_t pid;
    FILE *to, *from;
    int alive;
} helper;

/* reads lines until one starts with `want`; 1 with the rest in *val (may be
   NULL), 0 at EOF */
static int helper_expect(helper *h, const char *want, double *val) {
    char line[1024];
    size_t w = strlen(want);
    while (fgets(line, sizeof line, h->from)) {
        if (!strncmp(line, want, w)) {
            if (val && sscanf(line + w, "%lf", val) != 1) continue;
            return 1;
        }
        printf("  %s: %s", h->label, line);
    }
    return 0;
}

static void helper_stop(helper *h) {
    int status;
    if (h->to) fclose(h->to);
    if (h->from) {
        if (h->alive) helper_expect(h, "done", NULL); /* echoes what is left */
        fclose(h->from);
    }
    if (h->pid > 0) waitpid(h->pid, &status, 0);
    h->to = h->from = NULL;
    h->pid = -1;
    h->alive = 0;
}

static int helper_start(helper *h, const char *label, char *const argv[]) {
    int in[2], out[2], i;
    memset(h, 0, sizeof *h);
    h->label = label;
    h->pid = -1;
    printf("starting %s:", label);
    for (i = 0; argv[i]; i++) printf(" %s", argv[i]);
    printf("\n");
    fflush(stdout);
    if (pipe(in) != 0) return 0;
    if (pipe(out) != 0) {
        close(in[0]);
        close(in[1]);
        return 0;
    }
    h->pid = fork();
    if (h->pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(out[1], 2);
        close(in[0]); close(in[1]); close(out[0]); close(out[1]);
        execv(argv[0], argv);
        printf("cannot run %s\n", argv[0]);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    if (h->pid < 0) {
        close(in[1]);
        close(out[0]);
        return 0;
    }
    h->to = fdopen(in[1], "w");
    h->from = fdopen(out[0], "r");
    if (!h->to || !h->from) {
        helper_stop(h);
        return 0;
    }
    h->alive = helper_expect(h, "ready", NULL);
    if (!h->alive) {
        printf("  %s did not start (see above)\n", label);
        helper_stop(h);
    }
    return h->alive;
}

static int helper_run(helper *h, double *ms) {
    if (!h->alive) return 0;
    fprintf(h->to, "run\n");
    fflush(h->to);
    if (!helper_expect(h, "ms=", ms)) {
        printf("  %s stopped answering\n", h->label);
        h->alive = 0;
        helper_stop(h);
        return 0;
    }
    return 1;
}

/* asks for the indices of the last run; 1 when they arrived */
static int helper_finish(helper *h, const char *out_path, int32_t *idx, size_t count) {
    int ok = 0;
    if (h->alive) {
        fprintf(h->to, "quit\n");
        fflush(h->to);
        ok = helper_expect(h, "done", NULL);
        h->alive = 0;
    }
    helper_stop(h);
    ok = ok && knn_data_read(out_path, idx, count * sizeof(int32_t)) == 0;
    remove(out_path);
    return ok;
}

typedef struct row {
    const char *method;
    int ok, runs;
    double median, min;
    quality q;
    const char *note;
    double *ms; /* per timed round */
} row;

static void print_row(const row *r, double faiss_ms) {
    char ratio[32] = "-", rec[32] = "-", ties[32] = "-", bad[32] = "-", med[32] = "-", mn[32] = "-";
    if (r->ok) {
        snprintf(med, sizeof med, "%.1f", r->median);
        snprintf(mn, sizeof mn, "%.1f", r->min);
        snprintf(rec, sizeof rec, "%.4f", r->q.recall);
        snprintf(ties, sizeof ties, "%.4f", r->q.recall_ties);
        snprintf(bad, sizeof bad, "%lld", (long long)r->q.bad);
        if (faiss_ms > 0.0) snprintf(ratio, sizeof ratio, "%.2fx", r->median / faiss_ms);
    }
    printf("| %-22s | %4d | %10s | %10s | %8s | %8s | %5s | %8s | %-30s |\n", r->method, r->ok ? r->runs : 0, med, mn,
           rec, ties, bad, ratio, r->note ? r->note : "");
}

typedef struct compare_opts {
    int threads, runs, runs_large;
    int faiss, pynnd, nndescent;
    const char *tmpdir;
    umap_vk *vk; /* --device vulkan */
} compare_opts;

enum { M_EXACT, M_VK, M_NND, M_FAISS, M_PYNND, M_COUNT };

static int run_compare(const char *name, const float *x, int64_t n, int64_t d, int k, umap_metric m,
                       const char *data_path, const compare_opts *o) {
    int large = n > LARGE_N;
    int runs = large ? o->runs_large : o->runs, warmup = large ? 0 : 1;
    int32_t *exact = (int32_t *)xmalloc((size_t)(n * k) * sizeof(int32_t));
    int32_t *nnd = (int32_t *)xmalloc((size_t)(n * k) * sizeof(int32_t));
    int32_t *gpu = (int32_t *)xmalloc((size_t)(n * k) * sizeof(int32_t));
    float *gpu_dist = (float *)xmalloc((size_t)(n * k) * sizeof(float));
    float *nnd_dist = (float *)xmalloc((size_t)(n * k) * sizeof(float));
    int32_t *other = (int32_t *)xmalloc((size_t)(n * k) * sizeof(int32_t));
    float *dist = (float *)xmalloc((size_t)(n * k) * sizeof(float));
    double *kth = (double *)xmalloc((size_t)n * sizeof(double));
    double *norms = row_norms(x, n, d), faiss_ms = -1.0, pynnd_ms = -1.0;
    row rows[M_COUNT];
    helper hf, hp;
    int i, r, failures = 0, on[M_COUNT];
    char sn[32], sd[32], sk[32], sr[32], st[32], sp[32], fout[512], pout[512], exact_note[64], vk_note[320];
    umap_knn_desc desc;
    umap_knn_info info_exact, info_nnd, info_vk;
    umap_result rc_exact = UMAP_OK, rc_nnd = UMAP_OK, rc_vk = UMAP_OK;
    int64_t q;

    printf("\n== %s (%lld x %lld), %s, k = %d, %d threads; %d timed round%s%s, one run of every method per round\n",
           name, (long long)n, (long long)d, metric_name(m), k, o->threads, runs, runs == 1 ? "" : "s",
           warmup ? " after 1 warm-up round" : ", no warm-up");
    print_load("before");
    fflush(stdout);
    memset(rows, 0, sizeof rows);
    memset(&hf, 0, sizeof hf);
    memset(&hp, 0, sizeof hp);
    rows[M_EXACT].method = "umap_knn exact";
    rows[M_NND].method = "umap_knn NN-Descent";
    rows[M_VK].method = "umap_vk_knn (GPU)";
    rows[M_FAISS].method = "FAISS IndexFlat";
    rows[M_PYNND].method = "pynndescent";
    for (i = 0; i < M_COUNT; i++) rows[i].ms = (double *)xmalloc((size_t)runs * sizeof(double));
    on[M_EXACT] = 1;
    on[M_NND] = o->nndescent;
    on[M_VK] = o->vk != NULL;
    on[M_FAISS] = on[M_PYNND] = 0;

    snprintf(sn, sizeof sn, "%lld", (long long)n);
    snprintf(sd, sizeof sd, "%lld", (long long)d);
    snprintf(sk, sizeof sk, "%d", k);
    snprintf(sr, sizeof sr, "%d", runs);
    snprintf(st, sizeof st, "%d", o->threads);
    snprintf(sp, sizeof sp, "%g", metric_p);
    snprintf(fout, sizeof fout, "%s/faiss.i32", o->tmpdir);
    snprintf(pout, sizeof pout, "%s/pynnd.i32", o->tmpdir);
    if (o->faiss && m != UMAP_METRIC_EUCLIDEAN && m != UMAP_METRIC_COSINE) {
        rows[M_FAISS].note = "no such metric"; /* IndexFlatL2 / IndexFlatIP only */
    } else if (o->faiss) {
        if (access(FAISS_BIN, X_OK) != 0) {
            printf("FAISS skipped: %s not built (make %s; needs libfaiss-dev)\n", FAISS_BIN, FAISS_BIN);
            rows[M_FAISS].note = "not built";
        } else {
            char *argv[] = {(char *)FAISS_BIN, (char *)"--serve", (char *)"--data", (char *)data_path,
                            (char *)"--n", sn, (char *)"--d", sd, (char *)"--k", sk, (char *)"--metric",
                            (char *)metric_name(m), (char *)"--threads", st, (char *)"--out", fout, NULL};
            on[M_FAISS] = helper_start(&hf, "FAISS", argv);
            rows[M_FAISS].note = on[M_FAISS] ? (m == UMAP_METRIC_COSINE ? "IndexFlatIP, normalised rows" : "IndexFlatL2")
                                             : "failed (see above)";
        }
    }
    if (o->pynnd) {
        if (access(PY, X_OK) != 0 || access(PYNND_SCRIPT, R_OK) != 0) {
            printf("pynndescent skipped: needs %s and %s (run from the repository root)\n", PY, PYNND_SCRIPT);
            rows[M_PYNND].note = "not available";
        } else {
            char *argv[] = {(char *)PY, (char *)PYNND_SCRIPT, (char *)"--serve", (char *)"--data", (char *)data_path,
                            (char *)"--n", sn, (char *)"--d", sd, (char *)"--k", sk, (char *)"--metric",
                            (char *)metric_name(m), (char *)"--metric-p", sp, (char *)"--threads", st,
                            (char *)"--out", pout, NULL};
            on[M_PYNND] = helper_start(&hp, "pynndescent", argv);
            rows[M_PYNND].note = on[M_PYNND] ? "n_neighbors=k+1, self dropped" : "failed (see above)";
        }
    }

    memset(&desc, 0, sizeof desc);
    desc.k = k;
    desc.metric = m;
    desc.metric_p = (float)metric_p;
    desc.n_threads = o->threads;
    if (on[M_VK] && !warmup) { /* a GPU run pays pipeline creation and first allocations once: warm it alone */
        desc.method = UMAP_KNN_EXACT;
        desc.info = &info_vk;
        rc_vk = umap_vk_knn(o->vk, &desc, x, n, d, gpu, gpu_dist);
        if (rc_vk != UMAP_OK) on[M_VK] = 0;
    }
    for (r = 0; r < warmup + runs; r++) {
        int t = r - warmup; /* < 0: warm-up */
        double t0, ms;
        if (on[M_EXACT]) {
            desc.method = UMAP_KNN_EXACT;
            desc.info = &info_exact;
            t0 = knn_data_now_ms();
            rc_exact = umap_knn(&desc, x, n, d, exact, dist);
            ms = knn_data_now_ms() - t0;
            if (rc_exact != UMAP_OK) on[M_EXACT] = 0;
            else if (t >= 0) rows[M_EXACT].ms[t] = ms;
        }
        if (on[M_VK]) {
            desc.method = UMAP_KNN_EXACT;
            desc.info = &info_vk;
            t0 = knn_data_now_ms();
            rc_vk = umap_vk_knn(o->vk, &desc, x, n, d, gpu, gpu_dist);
            ms = knn_data_now_ms() - t0;
            if (rc_vk != UMAP_OK) on[M_VK] = 0;
            else if (t >= 0) rows[M_VK].ms[t] = ms;
        }
        if (on[M_NND]) {
            desc.method = UMAP_KNN_NNDESCENT;
            desc.info = &info_nnd;
            desc.seed = (uint64_t)r;
            t0 = knn_data_now_ms();
            rc_nnd = umap_knn(&desc, x, n, d, nnd, nnd_dist);
            ms = knn_data_now_ms() - t0;
            if (rc_nnd != UMAP_OK) on[M_NND] = 0;
            else if (t >= 0) rows[M_NND].ms[t] = ms;
        }
        if (on[M_FAISS]) {
            if (!helper_run(&hf, &ms)) on[M_FAISS] = 0;
            else if (t >= 0) rows[M_FAISS].ms[t] = ms;
        }
        if (on[M_PYNND]) {
            if (!helper_run(&hp, &ms)) on[M_PYNND] = 0;
            else if (t >= 0) rows[M_PYNND].ms[t] = ms;
        }
        fflush(stdout);
    }

    /* ground truth: our exact result */
    if (rc_exact != UMAP_OK) {
        print_failure("umap_knn exact", rc_exact, &info_exact);
        printf("  (the recall columns below are against nothing: all 0)\n");
        failures++;
        memset(exact, 0xff, (size_t)(n * k) * sizeof(int32_t));
        for (q = 0; q < n; q++) kth[q] = -1.0;
    } else {
        for (q = 0; q < n; q++) kth[q] = dist_double(x, d, q, exact[q * k + k - 1], m, norms);
        rows[M_EXACT].q = compare_lists(exact, exact, kth, x, n, d, k, m, norms);
        rows[M_EXACT].ok = 1;
        snprintf(exact_note, sizeof exact_note, "%lld rows rechecked", (long long)info_exact.rechecked_rows);
        rows[M_EXACT].note = exact_note;
        if (rows[M_EXACT].q.bad) failures++;
    }
    if (o->vk) {
        if (rc_vk != UMAP_OK) {
            print_failure("umap_vk_knn", rc_vk, &info_vk);
            rows[M_VK].note = "failed (see above)";
            failures++;
        } else {
            umap_vk_device_info dev;
            int same = rc_exact == UMAP_OK && !memcmp(gpu, exact, (size_t)(n * k) * sizeof(int32_t)) &&
                       !memcmp(gpu_dist, dist, (size_t)(n * k) * sizeof(float));
            umap_vk_device(o->vk, &dev);
            rows[M_VK].q = compare_lists(gpu, exact, kth, x, n, d, k, m, norms);
            rows[M_VK].ok = 1;
            snprintf(vk_note, sizeof vk_note, "%.120s; %s; %lld rechecked", dev.name,
                     same ? "= CPU exact, bit for bit" : "DIFFERS from CPU exact", (long long)info_vk.rechecked_rows);
            rows[M_VK].note = vk_note;
            if (!same) failures++;
        }
    } else rows[M_VK].note = "left out (--device vulkan adds it)";
    if (o->nndescent) {
        if (rc_nnd != UMAP_OK) {
            print_failure("umap_knn NN-Descent", rc_nnd, &info_nnd);
            rows[M_NND].note = "failed (see above)";
        } else {
            rows[M_NND].q = compare_lists(nnd, exact, kth, x, n, d, k, m, norms);
            rows[M_NND].ok = 1;
            printf("  NN-Descent: %d iterations, %.3g distance evals (%.3f of n^2)\n", info_nnd.iterations,
                   info_nnd.distance_evals, info_nnd.distance_evals / ((double)n * (double)n));
        }
    } else rows[M_NND].note = "left out (--no-nndescent)";
    if (o->faiss && hf.pid > 0) {
        int alive = on[M_FAISS];
        if (helper_finish(&hf, fout, other, (size_t)(n * k)) && alive) {
            rows[M_FAISS].q = compare_lists(other, exact, kth, x, n, d, k, m, norms);
            rows[M_FAISS].ok = 1;
        } else rows[M_FAISS].note = "failed (see above)";
    } else if (!o->faiss) rows[M_FAISS].note = "left out (--no-faiss)";
    if (o->pynnd && hp.pid > 0) {
        int alive = on[M_PYNND];
        if (helper_finish(&hp, pout, other, (size_t)(n * k)) && alive) {
            rows[M_PYNND].q = compare_lists(other, exact, kth, x, n, d, k, m, norms);
            rows[M_PYNND].ok = 1;
        } else rows[M_PYNND].note = "failed (see above)";
    } else if (!o->pynnd) rows[M_PYNND].note = "left out (--no-pynndescent)";
    for (i = 0; i < M_COUNT; i++)
        if (rows[i].ok) {
            rows[i].runs = runs;
            rows[i].min = knn_data_min(rows[i].ms, runs);
            rows[i].median = knn_data_median(rows[i].ms, runs);
        }
    if (rows[M_FAISS].ok) faiss_ms = rows[M_FAISS].median;
    if (rows[M_PYNND].ok) pynnd_ms = rows[M_PYNND].median;

    printf("\n%s, %s: recall = fraction of umap_knn exact's neighbours found; ratio = median / FAISS median\n", name,
           metric_name(m));
    printf("| %-22s | %4s | %10s | %10s | %8s | %8s | %5s | %8s | %-30s |\n", "method", "runs", "median ms", "min ms",
           "recall", "rec.ties", "bad", "vs FAISS", "note");
    printf("|------------------------|------|------------|------------|----------|----------|-------|----------|"
           "--------------------------------|\n");
    for (i = 0; i < M_COUNT; i++) print_row(&rows[i], faiss_ms);
    print_load("after (1, 5, 15 min; includes this benchmark)");

    /* targets */
    if (!strcmp(name, "fmnist70k")) {
        if (rows[M_EXACT].ok && faiss_ms > 0.0)
            printf("target: exact fmnist70k <= 1.0x FAISS: %.2fx %s%s\n", rows[M_EXACT].median / faiss_ms,
                   pass(rows[M_EXACT].median <= faiss_ms), runs == 1 ? " (1 run each)" : "");
        else printf("target: exact fmnist70k <= 1.0x FAISS: not measured\n");
        if (o->vk && rows[M_VK].ok) /* the GPU target, set for an H100 through Vulkan */
            printf("target (H100, vulkan): GPU exact fmnist70k k=15 <= 500 ms: %.1f ms %s\n", rows[M_VK].median,
                   pass(rows[M_VK].median <= 500.0));
        else if (o->vk) printf("target (H100, vulkan): GPU exact fmnist70k k=15 <= 500 ms: not measured\n");
    }
    if (n == 4096 && d == 64 && k == 15 && rows[M_EXACT].ok)
        printf("target: n=4096 d=64 k=15 exact end to end <= 25 ms: %.2f ms %s\n", rows[M_EXACT].median,
               pass(rows[M_EXACT].median <= 25.0));
    /* the issue sets the NN-Descent target on Fashion-MNIST; iid random
       data has no neighbourhood structure, and recall there is reported only */
    if (o->nndescent && !strncmp(name, "fmnist", 6)) {
        const row *nd = &rows[M_NND];
        if (nd->ok && pynnd_ms > 0.0)
            printf("target: NN-Descent recall >= 0.95 in <= 0.8x pynndescent: recall %.4f, %.2fx %s\n", nd->q.recall,
                   nd->median / pynnd_ms, pass(nd->q.recall >= 0.95 && nd->median <= 0.8 * pynnd_ms));
        else if (nd->ok)
            printf("target: NN-Descent recall >= 0.95: recall %.4f %s (no pynndescent time to compare)\n",
                   nd->q.recall, pass(nd->q.recall >= 0.95));
        else printf("target: NN-Descent recall >= 0.95 in <= 0.8x pynndescent: not measured (NN-Descent failed)\n");
    }
    fflush(stdout);
    for (i = 0; i < M_COUNT; i++) free(rows[i].ms);
    free(exact); free(nnd); free(gpu); free(gpu_dist); free(nnd_dist); free(other); free(dist); free(kth); free(norms);
    return failures;
}

/* ---- main ----------------------------------------------------------------- */

/* OpenBLAS reads its variables at load time: set them and start again when
   they are not what --threads asks for */
static void ensure_env(int threads, char **argv) {
    char t[16];
    const char *vars[] = {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "NUMBA_NUM_THREADS"};
    int i, again = 0;
    snprintf(t, sizeof t, "%d", threads);
    for (i = 0; i < 3; i++) {
        const char *v = getenv(vars[i]);
        if (!v || strcmp(v, t)) {
            setenv(vars[i], t, 1);
            if (i < 2) again = 1;
        }
    }
    /* for the helpers (FAISS's OpenMP, numba's): see the top of the file */
    if (!getenv("OMP_WAIT_POLICY")) setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    if (again && !getenv("BENCH_KNN_REEXEC")) {
        setenv("BENCH_KNN_REEXEC", "1", 1);
        execv("/proc/self/exe", argv);
        /* no /proc: go on, OpenBLAS may use another thread count */
        printf("note: could not restart with OPENBLAS_NUM_THREADS=%s; set it in the environment\n", t);
    }
}

static int parse_metrics(const char *s, umap_metric *m) {
    if (umap_metric_from_name(s, &m[0])) return 1;
    if (!strcmp(s, "both")) { m[0] = UMAP_METRIC_EUCLIDEAN; m[1] = UMAP_METRIC_COSINE; return 2; }
    usage();
    return 0;
}

int main(int argc, char **argv) {
    int64_t n = 4096, d = 64;
    int k = 15, threads = 2, runs = -1, compare = 0, i, failures = 0, n_metrics = 0;
    const char *metric = NULL, *datasets = "random4096,fmnist10k", *env, *device = "cpu";
    umap_metric metrics[2];
    compare_opts co;
    memset(&co, 0, sizeof co);
    co.runs_large = 1;
    co.faiss = co.pynnd = co.nndescent = 1;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (!strcmp(a, "--n") && has) n = atoll(argv[++i]);
        else if (!strcmp(a, "--d") && has) d = atoll(argv[++i]);
        else if (!strcmp(a, "--k") && has) k = atoi(argv[++i]);
        else if (!strcmp(a, "--metric") && has) metric = argv[++i];
        else if (!strcmp(a, "--metric-p") && has) metric_p = atof(argv[++i]);
        else if (!strcmp(a, "--threads") && has) threads = atoi(argv[++i]);
        else if (!strcmp(a, "--runs") && has) runs = atoi(argv[++i]);
        else if (!strcmp(a, "--runs-large") && has) co.runs_large = atoi(argv[++i]);
        else if (!strcmp(a, "--dataset") && has) datasets = argv[++i];
        else if (!strcmp(a, "--compare")) compare = 1;
        else if (!strcmp(a, "--no-faiss")) co.faiss = 0;
        else if (!strcmp(a, "--no-pynndescent")) co.pynnd = 0;
        else if (!strcmp(a, "--no-nndescent")) co.nndescent = 0;
        else if (!strcmp(a, "--device") && has) device = argv[++i];
        else usage();
    }
    if (runs < 0) runs = compare ? 5 : 9;
    if (!strcmp(datasets, "all")) datasets = "random4096,fmnist10k,fmnist70k";
    n_metrics = parse_metrics(metric ? metric : compare ? "euclidean" : "both", metrics);
    if (threads < 1 || runs < 1 || co.runs_large < 1 || k < 1 || n < 2 || d < 1 || k >= n) usage();
    ensure_env(threads, argv);

    env = getenv("OPENBLAS_CORETYPE");
    printf("bench_knn: %s, umap_knn.h with %s, OPENBLAS_CORETYPE=%s, OPENBLAS_NUM_THREADS=%s, OMP_NUM_THREADS=%s\n",
           compare ? "compare" : "parity",
#ifdef UMAP_NO_BLAS
           "the portable sgemm (UMAP_NO_BLAS)",
#else
           "CBLAS sgemm (-lblas)",
#endif
           env ? env : "(unset)", getenv("OPENBLAS_NUM_THREADS"), getenv("OMP_NUM_THREADS"));
    print_load("before the run");

    if (strcmp(device, "cpu") != 0) {
        char why[512];
        umap_vk_device_info dev;
        if (strcmp(device, "vulkan") != 0 || !compare) usage();
        if (umap_vk_create(NULL, &co.vk, why, sizeof why) != UMAP_OK) {
            printf("bench_knn: --device vulkan: %s\n", why);
            return 1;
        }
        umap_vk_device(co.vk, &dev);
        printf("bench_knn: Vulkan device %s (max binding %lld bytes)\n", dev.name, (long long)dev.max_binding_bytes);
    }
    if (!compare) {
        failures = run_parity(n, d, k, metrics, n_metrics, threads, runs, co.nndescent);
    } else {
        char tmpl[] = "/tmp/bench_knn.XXXXXX", list[256], *name, *save = NULL;
        co.threads = threads;
        co.runs = runs;
        co.tmpdir = mkdtemp(tmpl);
        if (!co.tmpdir) {
            perror("bench_knn: mkdtemp");
            return 1;
        }
        snprintf(list, sizeof list, "%s", datasets);
        for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
            char err[512], path[512];
            int64_t dn, dd;
            int mi;
            float *x = knn_data_load(name, &dn, &dd, err, sizeof err);
            if (!x) {
                printf("\n== %s: skipped: %s\n", name, err);
                failures++;
                continue;
            }
            snprintf(path, sizeof path, "%s/%s.f32", co.tmpdir, name);
            if (knn_data_write(path, x, (size_t)(dn * dd) * sizeof(float)) != 0) {
                printf("\n== %s: skipped: cannot write %s\n", name, path);
                free(x);
                failures++;
                continue;
            }
            for (mi = 0; mi < n_metrics; mi++) failures += run_compare(name, x, dn, dd, k, metrics[mi], path, &co);
            remove(path);
            free(x);
        }
        rmdir(co.tmpdir);
    }
    umap_vk_free(co.vk);
    if (failures) printf("\nbench_knn: %d problem%s (see above)\n", failures, failures == 1 ? "" : "s");
    return failures ? 1 : 0;
}
