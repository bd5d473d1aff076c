/* umap_knn.h - k-nearest neighbours for C/C++, header-only, and the base the
   other umap headers share. MIT licence (see the end of this file).

   DO THIS
   -------
   In exactly one C or C++ file:

       #define UMAP_KNN_IMPLEMENTATION
       #include "umap_knn.h"

   (or define UMAP_IMPLEMENTATION and include umap.h, which brings this
   file's implementation along: never both in one program). Link with
   -lblas -lpthread -lm; UMAP_NO_BLAS and UMAP_NO_THREADS drop them.
   This file needs only libc, libm and optionally CBLAS and pthreads.

   COMPILE-TIME OPTIONS: as for umap.h (UMAP_STATIC, UMAP_NO_BLAS,
   UMAP_NO_THREADS, UMAP_NO_CPU_DISPATCH, UMAP_MALLOC/UMAP_FREE, UMAP_ASSERT).

   QUICK START
   -----------
       umap_knn_desc d = {0};              // k = 15, euclidean, auto, all cores
       d.k = 10;
       int32_t *idx = malloc(n * 10 * sizeof *idx);
       float *dist = malloc(n * 10 * sizeof *dist);
       umap_result r = umap_knn(&d, data, n, dim, idx, dist);   // data: n x dim, row-major
       if (r != UMAP_OK) puts(umap_result_string(r));

   WHAT IT COMPUTES
   ----------------
   umap_knn: for every row i, its k nearest OTHER rows (self excluded),
   ascending by distance, ties broken by the smaller index, in the metric
   desc.metric (umap-learn's names; umap_metric_from_name reads them):
     euclidean    sqrt(sum (x - y)^2)
     cosine       1 - x.y / (|x| |y|); a zero row has similarity 0 to
                  everything, so distance 1
     manhattan    sum |x - y|
     chebyshev    max |x - y|
     minkowski    (sum |x - y|^p)^(1/p), p = desc.metric_p (>= 1, finite;
                  0 means 2; p = 1 and 2 give manhattan's and euclidean's
                  bits)
     correlation  1 - the Pearson correlation: cosine of the rows centred
                  on their means (a constant row: distance 1)
     hamming      the fraction of coordinates that differ (any values;
                  binary data is its usual use)
     jaccard      1 - |A and B| / |A or B| of the sets of nonzero
                  coordinates (any nonzero value counts as 1); two empty
                  rows: 0, as in umap-learn
     hellinger    sqrt(1 - sum sqrt(x y) / sqrt(sum x sum y)), for
                  non-negative data (a negative value is an error naming
                  it); computed as |sx - sy| / sqrt(2) between the rows'
                  square-root shares (s_j = sqrt(x_j / sum x)), so equal
                  rows are at exactly 0; a zero row is the origin there:
                  at 0 from zero rows, at sqrt(1/2) from the others
                  (umap-learn: 1)
     canberra     sum |x - y| / (|x| + |y|), a term 0 where both are 0
     braycurtis   sum |x - y| / sum |x + y| (0 where that sum is 0)
     dice         (A xor B) / (2 |A and B| + (A xor B)) of the sets of
                  nonzero coordinates; 0 when they are equal (umap-learn's)
     russellrao   (dim - |A and B|) / dim; 0 when A = B (umap-learn's)
     seuclidean   sqrt(sum (x - y)^2 / V) over the columns, V = desc.metric_v
                  (dim variances, finite and >= 0; 0 leaves the column
                  out), or when that is NULL the columns' sample variances
                  (n - 1 in the denominator, as scipy's) of the data (of the
                  base for a query), a constant column left out; computed
                  as euclidean on a copy whose columns are divided by
                  sqrt V (umap-learn's default V is all ones: euclidean)
     haversine    the great-circle distance on the unit sphere between two
                  (latitude, longitude) rows in radians:
                  2 asin(sqrt(sin^2(dlat/2) + cos lat1 cos lat2 sin^2(dlon/2))),
                  in [0, pi]; the rows must have exactly 2 columns, and a
                  latitude beyond +-pi/2 or a longitude beyond +-2 pi is an
                  error naming the row (degrees, not radians: multiply by
                  pi/180); umap-learn takes any values
     precomputed  the data ARE the distances: umap_knn takes the n x n
                  matrix (entry i*n + j: from row i to row j), which must
                  be square, free of negative entries and symmetric (to a
                  relative 2^-16: the caller's rounding, not another
                  quantity); umap_knn_query takes n_queries x n_base
                  distances to the base rows (dim = n_base; base is not
                  read, and may be NULL), which must not be negative.
                  Each row's k smallest entries are selected (the
                  diagonal is never read as a neighbour);
                  NN-Descent has nothing to save there, so every method
                  selects exactly. umap_pairwise returns the matrix
                  checked; the graph searches refuse it (umap_knn_query
                  is already exact and cheaper). Sparse rows
                  (umap_knn_rows, umap_knn_query_rows) are a graph of
                  distances, umap-learn's sparse precomputed input: a
                  row's stored entries are its candidates and the pairs
                  it does not store are unknown; each row must store at
                  least k (its own entry aside), none negative, and the
                  self search's graph is n x n (umap_pairwise_rows
                  refuses it: pairs are missing).
     custom       the caller's function, desc.metric_fn (umap_metric_fn:
                  two dense rows in, a distance in double out, with
                  desc.metric_user_data), for any distance the table
                  lacks (umap-learn needs numba for this). It must be
                  finite, >= 0 and symmetric; a NaN, an Inf, a negative
                  value or one beyond float's range is an error naming
                  the pair (among the pairs a search measured: NN-Descent
                  and the graph walks measure few). It is called from
                  several threads at once, so it must not write shared
                  state. The exact search measures every pair (a
                  self-search each pair once), then its candidates again;
                  NN-Descent measures far fewer, its trees split by the
                  euclidean hyperplane. Dense rows only: sparse rows are
                  refused.
   umap_knn_query: the k nearest rows of `base` for each query row (nothing
   excluded). umap_knn_query_graph: the same, approximately, by a walk
   along the base's own k-NN graph; umap_knn_graph_index_build/search do
   its preparation once for many query sets (umap.h's transform of a
   keep_data model walks one).

   Exact search (UMAP_KNN_EXACT) screens candidates with tiled sgemm (the
   Gram trick: |x|^2 + |y|^2 - 2 x.y; cosine and correlation on a unit,
   centred unit copy), keeping every candidate that a rigorous
   floating-point error bound cannot rule out, then re-ranks them with
   distances computed in double: the result is the exact k-NN, not an
   approximation of it. The other metrics screen the same way with their
   own float kernel, tile by tile (vectorisable 16-lane loops), under a
   relative error bound (|fl(s) - s| <= gamma_(dim + c) s: their terms are
   non-negative). Self-search computes each tile of the distance
   matrix once and uses it for both rows it touches. Memory: the output,
   one tile (tile_rows^2 floats, 4 or 16 MiB by default) and a candidate buffer
   of n * (2k + 16) entries; never n^2.
   A row whose candidates overflow that buffer (only in clusters of more
   than 2k + 16 points closer together than the bound can resolve, such as
   exact duplicates) is searched directly against every row instead:
   correct, at O(n * dim) for that row (info->rechecked_rows counts them).

   NN-Descent (UMAP_KNN_NNDESCENT) is approximate: random-projection-tree
   initialisation, then local joins until fewer than delta * n * k updates
   happen in a round, in any metric (the trees split by angle for cosine
   and correlation, by the euclidean bisecting hyperplane for the others;
   distances are reported in the metric). UMAP_KNN_AUTO picks exact below
   exact_threshold rows.

   Sparse rows (CSR, umap_rows_csr: TF-IDF, counts, one-hot) go through
   umap_knn_rows and umap_knn_query_rows, the same functions that take
   dense rows (umap_rows_dense). Their search is exact and never densifies:
   per query row, a walk down the base's columns at its nonzeros sums what
   the pair shares, which bounds every distance; the few rows the bounds
   cannot rule out are measured in double. Memory: the nonzeros twice and
   a few doubles per base row and thread. Its time grows as n^2 (plus the
   products of the column lengths); above exact_threshold rows auto takes
   NN-Descent, whose distances between stored values are exact in double
   and whose trees split a 64-column random-sign sketch of the rows.
   umap_pairwise_rows gives the n x n matrix of either form.

   Any finite float data works: euclidean, manhattan or chebyshev data
   whose largest magnitude is outside [2^-40, 2^40] is searched on a copy
   scaled by an exact power of two (squares would overflow or underflow in
   float), minkowski's always (to a largest magnitude in [1/4, 1/2), where
   no |x - y|^p overflows), then the distances are scaled back. NaN or Inf
   is an error naming the first bad row.

   ADDING A METRIC
   ---------------
   One entry in UMAP_METRIC_LIST (append: the enum's values are part of the
   model format's old integer form), X(ID, name, prep, screen, binary, apart,
   domain) as
   documented there, plus its four kernels in the implementation (search
   for umap__mf_manhattan): umap__mf_NAME (the float screen value, monotone
   in the distance and symmetric), umap__md_NAME (the distance in double),
   umap__mfin_NAME (distance from a screen value) and umap__mterr_NAME
   (one term's rounding in units of 2^-24, for the error bound). The exact
   search, NN-Descent, umap_pairwise, umap.h (fit, transform, quality, the
   model files, which save the name) and the CLI's --metric pick it up from
   the table; umap_vk.h's GPU search takes the Gram metrics and hands the
   others to the CPU. tests/test_metrics.cc runs every metric of the list
   against kt::dist in tests/test_knn_util.h: add its definition there.

   Results depend on the data and the seed only, never on the thread count.

   THE PIECES (search for the `>>` markers; in this order in both halves)
   >>base     result codes, allocator and log hooks (shared by umap.h)
   >>rng      Philox4x32-10: (seed, stream, counter) -> bits
   >>threads  a small pool with deterministic task splitting
   >>sgemm    the portable matrix product (CBLAS otherwise), shared with umap.h
   >>tune     kernel autotuning: variants of the same bits, records
   >>knn      validation, exact search, helpers
   >>nndescent  NN-Descent: random-projection trees, then local joins
   >>entry    umap_knn, umap_knn_query: checks, scaling, exact or NN-Descent
   >>sparse   umap_knn_rows, umap_knn_query_rows: the exact search on CSR
              rows, from the base's columns, never densified
   >>graph search  umap_knn_query_graph: best-first walks along a k-NN graph,
              and the graph index they walk
   >>pairwise  all pairwise distances of a block of rows (umap_pairwise,
              umap_pairwise_rows)
   (tests/test_manual.cc holds this list and the markers to each other)
*/
#ifndef UMAP_KNN_H
#define UMAP_KNN_H

#include <stddef.h>
#include <stdint.h>

#ifndef UMAPDEF
#ifdef UMAP_STATIC
#define UMAPDEF static
#else
#define UMAPDEF extern
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* >>base ------------------------------------------------------------------ */

/* Every fallible call returns one of these. The list is the single source of
   the enum and of the messages returned by umap_result_string(). */
#define UMAP_RESULT_LIST(X)                                                   \
    X(UMAP_OK, "ok")                                                          \
    X(UMAP_ERR_INVALID_ARGUMENT, "invalid argument")                          \
    X(UMAP_ERR_OUT_OF_MEMORY, "out of memory")                                \
    X(UMAP_ERR_SHAPE, "shape mismatch")                                       \
    X(UMAP_ERR_DTYPE, "wrong element type")                                   \
    X(UMAP_ERR_UNKNOWN_INPUT, "no input or parameter of that name")           \
    X(UMAP_ERR_MISSING_INPUT, "an input was not bound before run")            \
    X(UMAP_ERR_MISSING_PARAM, "a parameter was not bound before run")         \
    X(UMAP_ERR_UNSUPPORTED_OP, "the backend has no kernel for an op")         \
    X(UMAP_ERR_INDEX_OUT_OF_RANGE, "an index tensor holds an out-of-range index") \
    X(UMAP_ERR_NOT_DIFFERENTIABLE, "no gradient rule for an op")              \
    X(UMAP_ERR_GRAPH, "the graph holds an earlier error")                     \
    X(UMAP_ERR_NON_FINITE, "NaN or Inf where a finite value was required")    \
    X(UMAP_ERR_THREAD, "could not start a thread")                            \
    X(UMAP_ERR_GRADCHECK, "gradient check failed")                            \
    X(UMAP_ERR_CUSTOM_OP, "a custom op kernel reported an error")                \
    X(UMAP_ERR_TOO_LARGE, "sizes overflow or exceed a limit")                 \
    X(UMAP_ERR_IO, "a file could not be opened, read or written")             \
    X(UMAP_ERR_FORMAT, "a file is malformed, truncated or of an unsupported version") \
    X(UMAP_ERR_CANCELLED, "cancelled by the progress callback")                \
    X(UMAP_ERR_NO_DEVICE, "no usable GPU device (no Vulkan loader or driver, or none that fits)") \
    X(UMAP_ERR_DEVICE, "the GPU device failed")                             \
    X(UMAP_ERR_NOT_BATCHABLE, "no batching (vmap) rule for an op")

typedef enum umap_result {
#define UMAP__X_ENUM(id, msg) id,
    UMAP_RESULT_LIST(UMAP__X_ENUM)
#undef UMAP__X_ENUM
    UMAP_RESULT_COUNT
} umap_result;

UMAPDEF const char *umap_result_string(umap_result r);

/* Runtime allocator hook; a zeroed struct means the UMAP_MALLOC/UMAP_FREE
   defaults. alloc_fn returning NULL is handled as UMAP_ERR_OUT_OF_MEMORY. */
typedef struct umap_allocator {
    void *(*alloc_fn)(size_t size, void *user_data);
    void (*free_fn)(void *ptr, void *user_data);
    void *user_data;
} umap_allocator;

typedef enum umap_log_level { UMAP_LOG_ERROR, UMAP_LOG_WARN, UMAP_LOG_INFO, UMAP_LOG_DEBUG } umap_log_level;

/* Logging hook; silent when NULL. */
typedef struct umap_logger {
    void (*log_fn)(umap_log_level level, const char *message, void *user_data);
    void *user_data;
} umap_logger;

/* >>rng ------------------------------------------------------------------- */

/* Philox4x32-10: a pure function of (seed, stream, counter). A umap_rng walks
   the counter of one stream; streams with different numbers never overlap. */
UMAPDEF void umap_philox(uint64_t seed, uint64_t stream, uint64_t counter, uint32_t out[4]);

typedef struct umap_rng {
    uint64_t seed, stream, counter;
    uint32_t buf[4];
    int pos; /* next unused word of buf; 4 = empty */
} umap_rng;

UMAPDEF void umap_rng_init(umap_rng *r, uint64_t seed, uint64_t stream);
UMAPDEF uint32_t umap_rng_u32(umap_rng *r);
UMAPDEF float umap_rng_uniform(umap_rng *r);        /* [0, 1) */
UMAPDEF float umap_rng_normal(umap_rng *r);         /* N(0, 1), Box-Muller */
UMAPDEF uint32_t umap_rng_below(umap_rng *r, uint32_t n); /* uniform in [0, n), unbiased; n > 0 */

/* >>threads --------------------------------------------------------------- */

typedef struct umap_pool umap_pool;
/* n_threads <= 0: all online cores. The pool counts the calling thread. */
UMAPDEF umap_result umap_pool_create(int n_threads, const umap_allocator *alloc, umap_pool **out);
UMAPDEF void umap_pool_free(umap_pool *pool);
UMAPDEF int umap_pool_threads(const umap_pool *pool);
/* Runs fn(ctx, task) for task in [0, n_tasks) on the pool and waits. Tasks
   must write disjoint memory; then the result cannot depend on the thread
   count. pool may be NULL (runs inline). One caller at a time, and never
   from inside a task of the same pool. */
UMAPDEF void umap_pool_for(umap_pool *pool, int64_t n_tasks, void (*fn)(void *ctx, int64_t task), void *ctx);

/* >>tune ------------------------------------------------------------------ */

/* Kernel autotuning, off by default (it times kernels at first use). The
   portable sgemm has variants (the micro-kernel's vector width, blocking
   over N, rows per task) that differ in speed but never in the result:
   every variant computes each output as the same chain of multiply-adds
   over k in the same order, so the bits are the same whichever one runs
   (tests/test_tune.cc checks every variant; the tuner also compares each
   variant's output with the default's and never picks one that differs).
   K is never split into partial sums and reductions are not tuned
   (UMAP__FULL_CHUNKS in umap.h): both would change the order of additions.

   A tuner attached to a pool (umap_pool_set_tuner) times every variant on
   the first product of each shape class (sizes rounded to powers of two;
   only products of at least UMAP_TUNE_MIN_MACS multiply-adds, 2^20 unless
   defined at compile time), keeps the fastest as a record, and uses it
   from then on. The records persist
   in a cache file through umap.h (umap_tuner_load, umap_tuner_save; the
   UMAP_TUNE environment variable), keyed by this CPU and the library
   version. One tuner may serve several pools in several threads. */
typedef struct umap_tuner umap_tuner;
UMAPDEF umap_result umap_tuner_create(const umap_allocator *alloc, const umap_logger *logger, umap_tuner **out);
UMAPDEF void umap_tuner_free(umap_tuner *t);
/* t may be NULL (tuning off); the pool does not own it */
UMAPDEF void umap_pool_set_tuner(umap_pool *pool, umap_tuner *t);
/* this CPU's device key, "cpu MODEL isa=KERNEL" */
UMAPDEF const char *umap_tuner_cpu(const umap_tuner *t);
UMAPDEF int umap_tuner_count(const umap_tuner *t);
/* Records: (device, key) -> value, printable strings without tabs (< 400
   bytes each). get: 1 and the value copied when found. A tuner holds at
   most UMAP_TUNE_MAX_RECORDS: a new record past them evicts the oldest
   (a record only saves a measurement, made again when needed), so the
   cache file, which holds the same records, never grows past what its
   reader takes. */
#define UMAP_TUNE_MAX_RECORDS 4096
UMAPDEF int umap_tuner_get(umap_tuner *t, const char *device, const char *key, char *value, size_t value_size);
UMAPDEF umap_result umap_tuner_set(umap_tuner *t, const char *device, const char *key, const char *value);
/* Times the shape class of an M x N x K product (op(A) op(B), ta/tb as in
   sgemm) now, on seeded data, and records the fastest variant. */
UMAPDEF umap_result umap_tuner_tune_sgemm(umap_tuner *t, umap_pool *pool, int ta, int tb, int64_t M, int64_t N,
                                          int64_t K);
/* The sgemm variants, for tests: C = op(A) op(B) under variant i of
   [0, umap_sgemm_variant_count()), named in name; 1 when it ran, 0 when
   this CPU may not use that variant (0 is the default, always usable). */
UMAPDEF int umap_sgemm_variant_count(void);
UMAPDEF int umap_sgemm_variant(umap_pool *pool, int variant, int ta, int tb, int64_t M, int64_t N, int64_t K,
                               const float *A, const float *B, float *C, char *name, size_t name_size);

/* >>knn ------------------------------------------------------------------- */

/* The metrics: ONE list, X(ID, name, prep, screen, binary, apart), the source of
   the enum, the names (umap-learn's), and in the implementation of each
   metric's kernels and handling.
     prep:   the working copy the search runs on. SCALE: the data itself, or
             a copy scaled by an exact power of two when magnitudes are
             extreme (the distance is homogeneous, so it scales back);
             UNIT: rows normalised in double; CENTRED_UNIT: rows centred on
             their mean, then normalised; PNORM: always scaled to a largest
             magnitude in [1/4, 1/2), so |x - y|^p neither overflows nor
             needs care; RATIO: scaled as SCALE, but the distance does not
             depend on the scale (canberra, braycurtis), so nothing is
             scaled back; SQRT_L1: rows divided by their sum, then square
             roots (hellinger, euclidean on that copy: non-negative data
             only); COLUMNS: each column times 1 / sqrt V_j, the metric's
             per-column variances (seuclidean, euclidean on that copy),
             scaled as SCALE; NONE: the
             data itself (the metric compares values).
     screen: how the exact search finds candidates. GRAM_L2 / GRAM_DOT:
             tiled sgemm (|y|^2 - 2 x.y, or -x.y on the unit copy) with a
             proven error bound; DIRECT: the metric's own float kernel, tile
             by tile, with a relative error bound. Both re-rank the
             candidates by distances computed in double.
     binary: 1 where the metric reads the data as booleans / for equality
             only (jaccard: any nonzero coordinate is 1, as in umap-learn;
             hamming: the fraction of coordinates that differ, as scipy;
             dice and russellrao: umap-learn's, on nonzero coordinates).
             Its screen counts exactly (below 2^24 columns), so the DIRECT
             error bound has no term growing with dim.
             SELECT: none: the data are the distances (precomputed), each
             row's k smallest entries are selected, nothing is measured.
     apart:  umap-learn's default disconnection distance: umap.h's fit
             drops k-NN edges at least this long (the metric's largest
             distance: rows with nothing in common); 0 = none.
     domain: the rows the metric is defined on, checked after finiteness
             wherever rows come in (umap_knn*, umap_pairwise, umap.h's fit
             and transform), the first bad row named. ANY; NONNEG: no
             negative value (hellinger's shares); LATLON: 2 columns,
             latitude in [-pi/2, pi/2] and longitude in [-2 pi, 2 pi],
             radians (haversine).
   Enum values are part of the model format's old integer form: append. */
#define UMAP_METRIC_LIST(X)                                        \
    X(EUCLIDEAN, euclidean, SCALE, GRAM_L2, 0, 0, ANY)             \
    X(COSINE, cosine, UNIT, GRAM_DOT, 0, 2, ANY)                   \
    X(MANHATTAN, manhattan, SCALE, DIRECT, 0, 0, ANY)              \
    X(CHEBYSHEV, chebyshev, SCALE, DIRECT, 0, 0, ANY)              \
    X(MINKOWSKI, minkowski, PNORM, DIRECT, 0, 0, ANY)              \
    X(CORRELATION, correlation, CENTRED_UNIT, GRAM_DOT, 0, 2, ANY) \
    X(HAMMING, hamming, NONE, DIRECT, 1, 0, ANY)                   \
    X(JACCARD, jaccard, NONE, DIRECT, 1, 1, ANY)                   \
    X(HELLINGER, hellinger, SQRT_L1, GRAM_L2, 0, 1, NONNEG)        \
    X(CANBERRA, canberra, RATIO, DIRECT, 0, 0, ANY)                \
    X(BRAYCURTIS, braycurtis, RATIO, DIRECT, 0, 0, ANY)            \
    X(DICE, dice, NONE, DIRECT, 1, 1, ANY)                         \
    X(RUSSELLRAO, russellrao, NONE, DIRECT, 1, 0, ANY)             \
    X(PRECOMPUTED, precomputed, NONE, SELECT, 0, 0, ANY)           \
    X(HAVERSINE, haversine, NONE, DIRECT, 0, 0, LATLON)            \
    X(SEUCLIDEAN, seuclidean, COLUMNS, GRAM_L2, 0, 0, ANY)         \
    X(CUSTOM, custom, NONE, DIRECT, 0, 0, ANY)

typedef enum umap_metric {
#define UMAP__X_METRIC_ENUM(id, name, prep, screen, binary, apart, domain) UMAP_METRIC_##id,
    UMAP_METRIC_LIST(UMAP__X_METRIC_ENUM)
#undef UMAP__X_METRIC_ENUM
    UMAP_METRIC_COUNT
} umap_metric;

/* umap-learn's name of a metric ("euclidean", ...); "unknown" out of range */
UMAPDEF const char *umap_metric_name(umap_metric m);
/* the metric of that name (exact, lower case); 0 if there is none */
UMAPDEF int umap_metric_from_name(const char *name, umap_metric *out);
/* every name, separated by sep ("euclidean|cosine|..."), for messages and
   help texts; a static string per separator is not kept: writes into buf */
UMAPDEF const char *umap_metric_names(char *buf, size_t size, const char *sep);
/* A custom metric (UMAP_METRIC_CUSTOM): the distance between two rows of
   dim floats, computed as the caller likes; user_data is the desc's
   metric_user_data. Finite, >= 0 and symmetric; called from several threads
   at once (see the metric table above). */
typedef double (*umap_metric_fn)(const float *a, const float *b, int64_t dim, void *user_data);

typedef enum umap_knn_method {
    UMAP_KNN_AUTO,
    UMAP_KNN_EXACT,
    UMAP_KNN_NNDESCENT,
    UMAP_KNN_GRAPH /* reported by umap_knn_query_graph; not a desc.method */
} umap_knn_method;

/* What a call did (optional; see umap_knn_desc.info). */
typedef struct umap_knn_info {
    umap_knn_method method;    /* the method that ran (AUTO resolved) */
    int iterations;            /* NN-Descent rounds */
    double distance_evals;     /* distances or dot products computed: the work done */
    int64_t rechecked_rows;    /* exact: rows whose candidate buffer overflowed and were searched again */
    int64_t bad_row;           /* first row holding NaN or Inf or outside the metric's domain, else -1 */
    char error_detail[256];    /* why a call failed ("" on success) */
} umap_knn_info;

/* Progress of one search: done out of total work units (NN-Descent: rounds,
   of at most max_iterations; exact: tiles of the distance matrix; umap_vk.h's
   search: 2 stages, the device's screening and the host's proof), called
   before the first unit and after each. Return non-zero to cancel: the
   search stops and returns UMAP_ERR_CANCELLED. */
typedef int (*umap_knn_progress_fn)(int64_t done, int64_t total, void *user_data);

/* Zero-initialised = defaults: every field where 0 stands for a default
   has no legal zero of its own (for the latest stop give delta the smallest
   positive float: a round without updates; for no auto switch, set method). */
typedef struct umap_knn_desc {
    int k;                      /* neighbours per row; 0 = 15 */
    umap_metric metric;         /* default euclidean */
    float metric_p;             /* minkowski's p: >= 1 and finite; 0 = 2 */
    const float *metric_v;      /* seuclidean's V: dim variances, finite, >= 0 (0: the column
                                   left out); NULL = the data's (a query's: the base's) */
    umap_metric_fn metric_fn;   /* custom's function: set with UMAP_METRIC_CUSTOM, else NULL */
    void *metric_user_data;     /* handed to metric_fn */
    umap_knn_method method;     /* default auto */
    int n_threads;              /* 0 = all cores */
    uint64_t seed;              /* NN-Descent; 0 is a valid seed */
    int64_t exact_threshold;    /* auto: exact when n <= this, >= 1; 0 = UMAP_KNN_EXACT_THRESHOLD */
    int tile_rows;              /* exact: rows per tile; 0 = 1024 up to 8192 rows, else 2048 */
    /* NN-Descent */
    int max_iterations;         /* 0 = max(5, round(log2 n)) */
    float delta;                /* stop when a round makes < delta*n*k updates, > 0; 0 = 0.001 */
    int n_trees;                /* random-projection trees, >= 1; 0 = auto */
    int max_candidates;         /* per row and round; 0 = min(60, 2k) */
    /* umap_knn_query_graph */
    int search_width;           /* rows kept by each walk, >= k; 0 = max(k, UMAP_KNN_GRAPH_WIDTH) */
    umap_allocator allocator;
    umap_logger logger;
    umap_pool *pool;            /* optional: run on this pool (then n_threads is ignored);
                                   saves starting threads on every call of a batch loop */
    umap_knn_info *info;        /* optional: filled in by every call */
    umap_knn_progress_fn progress; /* optional; see umap_knn_progress_fn */
    void *progress_user_data;
} umap_knn_desc;

/* umap_knn_query_graph's defaults: rows kept by each walk, and starting
   rows when the caller gives none */
#ifndef UMAP_KNN_GRAPH_WIDTH
#define UMAP_KNN_GRAPH_WIDTH 32
#endif
#ifndef UMAP_KNN_GRAPH_SEEDS
#define UMAP_KNN_GRAPH_SEEDS 16
#endif

/* Where auto switches to NN-Descent: on Fashion-MNIST subsets the two
   cost about the same near this size, NN-Descent pulls ahead above it at
   a recall@15 of 0.99 or more (docs/knn.md and docs/BENCHMARKS.md). Set
   desc.exact_threshold (or this macro) higher for data without
   structure: on iid Gaussian noise NN-Descent's recall stays low. */
#ifndef UMAP_KNN_EXACT_THRESHOLD
#define UMAP_KNN_EXACT_THRESHOLD 8192
#endif
/* The same for sparse rows (when desc.exact_threshold is 0): their exact
   search costs no column per pair, so it stays ahead of NN-Descent far
   longer (docs/knn.md). */
#ifndef UMAP_KNN_SPARSE_EXACT_THRESHOLD
#define UMAP_KNN_SPARSE_EXACT_THRESHOLD 65536
#endif

/* Self k-NN of n rows of dim floats. indices: n*k int32, distances: n*k
   float (either may be NULL if not wanted). 1 <= k < n. */
UMAPDEF umap_result umap_knn(const umap_knn_desc *desc, const float *data, int64_t n, int64_t dim,
                             int32_t *indices, float *distances);
/* k nearest base rows for each query row (exact); 1 <= k <= n_base. */
UMAPDEF umap_result umap_knn_query(const umap_knn_desc *desc, const float *base, int64_t n_base,
                                   const float *queries, int64_t n_queries, int64_t dim, int32_t *indices,
                                   float *distances);
/* Approximate k nearest base rows for each query: a best-first walk along
   the base's own k-NN graph (graph: n_base x graph_k row indices, -1 for
   none; umap_knn's output is one), made undirected, from n_seeds starting
   rows per query (seeds: n_queries x n_seeds, -1 for none; NULL: n_seeds
   rows spread evenly over the base, 0 = UMAP_KNN_GRAPH_SEEDS), and from
   one row of each connected piece of the graph when it has several (each
   costs a distance per query: clusters apart make pieces). Each walk
   keeps desc.search_width rows; the k reported are ranked as the exact
   search ranks them, by the metric in double. Far cheaper than the exact
   query on large bases (about search_width x graph_k distances a query
   instead of n_base); how close it comes depends on the graph and the
   seeds (umap.h's transform seeds it from the encoder's placement). A query
   that reaches fewer than k rows is measured against every row. */
UMAPDEF umap_result umap_knn_query_graph(const umap_knn_desc *desc, const float *base, int64_t n_base,
                                         const int32_t *graph, int graph_k, const float *queries, int64_t n_queries,
                                         int64_t dim, const int32_t *seeds, int n_seeds, int32_t *indices,
                                         float *distances);
/* The same search with its preparation done once for many query sets (a
   batch loop, a few rows at a time): the base checked, its graph made
   undirected and split into pieces, and the metric's working copy of the
   base (cosine, correlation: its unit rows, n_base x dim floats;
   seuclidean: its weighted rows, the weights from desc's metric_v or the
   base, kept for every search; none for euclidean at ordinary scales),
   built with desc's metric, threads and allocator. Rows of up to 64 floats are copied (n_base x dim floats, at
   the working scale) in a breadth-first order of the graph, so that a
   walk's reads lie near each other in memory; the results are the same.
   Each query set then costs its walks alone. The index points
   at base, which must stay unchanged while it lives.
   umap_knn_graph_index_search takes k, search_width, threads and info from
   its desc, whose metric must be the index's (its metric_v is not read); it gives what
   umap_knn_query_graph gives for the same base, graph and queries.
   Searches may run on one index from several threads at once. */
typedef struct umap_knn_graph_index umap_knn_graph_index;
UMAPDEF umap_result umap_knn_graph_index_build(const umap_knn_desc *desc, const float *base, int64_t n_base,
                                               int64_t dim, const int32_t *graph, int graph_k,
                                               umap_knn_graph_index **out);
UMAPDEF umap_result umap_knn_graph_index_search(const umap_knn_desc *desc, const umap_knn_graph_index *index,
                                                const float *queries, int64_t n_queries, const int32_t *seeds,
                                                int n_seeds, int32_t *indices, float *distances);
UMAPDEF void umap_knn_graph_index_free(umap_knn_graph_index *index);
/* Rows of data in either form, one description for both: dense, n x dim
   floats row-major (umap_rows_dense), or sparse, CSR as scipy's
   csr_matrix holds it (umap_rows_csr): row i stores values[indptr[i] ..
   indptr[i+1]) at the columns indices[...], strictly increasing within a
   row (scipy: X.sum_duplicates(), which also sorts) and each in [0, dim);
   a column not stored is 0, and stored zeros are allowed. A sparse search
   reads the stored values only: never densified, its memory grows with
   the nonzeros. Every metric but haversine and precomputed takes sparse
   rows (chebyshev at the cost of every pair); the distances are the dense
   search's on the same matrix (correlation's within rounding: it is
   computed without centring the rows, which would fill them). */
typedef struct umap_rows {
    int64_t n, dim;
    const float *dense;     /* dense rows; NULL for sparse */
    const int64_t *indptr;  /* sparse: n + 1 offsets, indptr[0] = 0, never decreasing */
    const int32_t *indices; /* sparse: indptr[n] column indices */
    const float *values;    /* sparse: indptr[n] values, finite */
} umap_rows;
UMAPDEF umap_rows umap_rows_dense(const float *data, int64_t n, int64_t dim);
UMAPDEF umap_rows umap_rows_csr(int64_t n, int64_t dim, const int64_t *indptr, const int32_t *indices,
                                const float *values);
/* umap_knn and umap_knn_query on either form (the base and the queries in
   the same one). On sparse rows the exact search scans the base's columns
   per query row, bounds each pair's distance from what the two share, and
   measures the candidates in double; NN-Descent (auto above
   exact_threshold rows, as for dense rows) measures its pairs in double
   on the stored values, its trees split a random-sign sketch of the rows.
   A query search is exact. */
UMAPDEF umap_result umap_knn_rows(const umap_knn_desc *desc, const umap_rows *data, int32_t *indices,
                                  float *distances);
UMAPDEF umap_result umap_knn_query_rows(const umap_knn_desc *desc, const umap_rows *base, const umap_rows *queries,
                                        int32_t *indices, float *distances);
/* Full n x n distance matrix (small n): out[i*n + j]. */
UMAPDEF umap_result umap_pairwise(const umap_knn_desc *desc, const float *data, int64_t n, int64_t dim, float *out);
/* umap_pairwise on either form of rows: on sparse ones each pair in double
   over the union of the two rows' columns (the exact search's measure,
   the dense direct metrics' bits), never densified. */
UMAPDEF umap_result umap_pairwise_rows(const umap_knn_desc *desc, const umap_rows *data, float *out);
/* The seed implementation's packed layout: n rows of 2k floats, columns
   0..k-1 the indices (as floats, exact below 2^24 rows), k..2k-1 the
   distances. */
UMAPDEF umap_result umap_knn_pack(const int32_t *indices, const float *distances, int64_t n, int k, float *packed);
UMAPDEF umap_result umap_knn_unpack(const float *packed, int64_t n, int k, int32_t *indices, float *distances);

#ifdef __cplusplus
}
#endif
#endif /* UMAP_KNN_H */

/* ========================================================================= */
/*                              IMPLEMENTATION                               */
/* ========================================================================= */
#if defined(UMAP_KNN_IMPLEMENTATION) || defined(UMAP_IMPLEMENTATION)
#ifndef UMAP_KNN__IMPLEMENTED
#define UMAP_KNN__IMPLEMENTED

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
/* Win32's own threads, processor count and clock: Windows has no
   pthreads without a separate library */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#elif !defined(UMAP_NO_THREADS)
#include <pthread.h>
#include <unistd.h>
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <sys/time.h>
#define UMAP__HAVE_GETTIMEOFDAY 1
#else
#include <time.h>
#endif

#ifndef UMAP_NO_BLAS
#include <cblas.h>
#endif

#ifndef UMAP_ASSERT
#include <assert.h>
#define UMAP_ASSERT(x) assert(x)
#endif

#if defined(UMAP_MALLOC) && defined(UMAP_FREE)
/* user-provided default allocator */
#elif !defined(UMAP_MALLOC) && !defined(UMAP_FREE)
#define UMAP_MALLOC(sz, ud) ((void)(ud), malloc(sz))
#define UMAP_FREE(p, ud) ((void)(ud), free(p))
#else
#error "umap.h: define both UMAP_MALLOC and UMAP_FREE, or neither"
#endif

#ifdef UMAP_STATIC
#define UMAP__FN static
#else
#define UMAP__FN
#endif

/* >>base ------------------------------------------------------------------ */

/* The x86 features of the kernels compiled for more than the build's own
   target (the sgemm micro-kernels, the k-NN screens, the refinement): one
   place asks the CPU, so every kernel family picks by the same answer. */
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__)) && \
    !defined(UMAP_NO_CPU_DISPATCH)
#define UMAP__CPU_DISPATCH 1
#define UMAP__CPU_AVX2 1u
#define UMAP__CPU_FMA 2u
#define UMAP__CPU_AVX512F 4u
/* 1 when the CPU has every feature of the mask */
static int umap__cpu_has(unsigned features) {
    unsigned have = 0;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) have |= UMAP__CPU_AVX2;
    if (__builtin_cpu_supports("fma")) have |= UMAP__CPU_FMA;
    if (__builtin_cpu_supports("avx512f")) have |= UMAP__CPU_AVX512F;
    return (have & features) == features;
}
#endif

UMAP__FN const char *umap_result_string(umap_result r) {
    static const char *const messages[] = {
#define UMAP__X_MSG(id, msg) msg,
        UMAP_RESULT_LIST(UMAP__X_MSG)
#undef UMAP__X_MSG
    };
    if ((int)r < 0 || (int)r >= (int)UMAP_RESULT_COUNT) return "unknown result code";
    return messages[r];
}

/* wall-clock seconds: phase times, the tuner's timings, the pool's spin
   budget (without gettimeofday: processor time, the best C99 offers) */
static double umap__now_s(void) {
#ifdef UMAP__HAVE_GETTIMEOFDAY
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
#elif defined(_WIN32)
    LARGE_INTEGER freq, now;
    QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&now);
    return (double)now.QuadPart / (double)freq.QuadPart;
#else
    return (double)clock() / CLOCKS_PER_SEC;
#endif
}

static void *umap__alloc(const umap_allocator *a, size_t size) {
    if (size == 0) size = 1;
    if (a && a->alloc_fn) return a->alloc_fn(size, a->user_data);
    return UMAP_MALLOC(size, a ? a->user_data : NULL);
}

static void umap__free(const umap_allocator *a, void *p) {
    if (!p) return;
    if (a && a->free_fn) { a->free_fn(p, a->user_data); return; }
    UMAP_FREE(p, a ? a->user_data : NULL);
}

static void *umap__calloc(const umap_allocator *a, size_t count, size_t size) {
    void *p;
    if (size && count > SIZE_MAX / size) return NULL;
    p = umap__alloc(a, count * size);
    if (p) memset(p, 0, count * size);
    return p;
}

/* Checked size arithmetic, the one mechanism every header uses: a product of
   sizes (rows * columns, a count * bytes per element, a shape's element
   count) goes through these before it sizes an allocation or bounds an
   index, so a caller's huge n or d becomes UMAP_ERR_TOO_LARGE instead of a
   wrapped, too small buffer. 1: *out = a * b (a, b >= 0, product <= max);
   0: a negative operand, or the product exceeds max (INT64_MAX at most). */
static int umap__mul_le(int64_t a, int64_t b, int64_t max, int64_t *out) {
    if (a < 0 || b < 0 || (b && a > max / b)) return 0;
    *out = a * b;
    return 1;
}
static int umap__mul(int64_t a, int64_t b, int64_t *out) { return umap__mul_le(a, b, INT64_MAX, out); }
/* 1: *out = count * elem bytes, representable in size_t (and in int64) */
static int umap__bytes(int64_t count, size_t elem, size_t *out) {
    int64_t b;
    if (!umap__mul(count, (int64_t)elem, &b) || (uint64_t)b > (uint64_t)SIZE_MAX) return 0;
    *out = (size_t)b;
    return 1;
}
/* 1: rows x cols elements of elem bytes each fit in int64 and in size_t */
static int umap__bytes2(int64_t rows, int64_t cols, size_t elem, size_t *out) {
    int64_t c;
    return umap__mul(rows, cols, &c) && umap__bytes(c, elem, out);
}

static void umap__log(const umap_logger *l, umap_log_level level, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    if (!l || !l->log_fn) return;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    l->log_fn(level, buf, l->user_data);
}

/* One error context: where a failure's message goes. Every object that
   can fail holds one, set up where it starts (a fit, a k-NN run, a graph, a
   program), or a call builds one over its caller's buffer (a model file's
   parse, a Vulkan call), and every failure goes through umap__fail: the
   message is formatted, kept and logged one way. */
typedef struct umap__err {
    char *detail;             /* the message for the caller (NULL: not kept) */
    size_t size;
    const umap_logger *log;   /* NULL: not logged */
    const char *prefix;       /* before the logged line ("fit: "), or NULL */
    umap_result *first;       /* non-NULL: only the first failure is kept, and its result set here */
} umap__err;

#if defined(__GNUC__) || defined(__clang__)
#define UMAP__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define UMAP__PRINTF(f, a)
#endif

static umap_result umap__failv(const umap__err *e, umap_result r, const char *fmt, va_list ap) {
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    if (!e->first || *e->first == UMAP_OK) {
        if (e->detail && e->size) snprintf(e->detail, e->size, "%s", buf);
        if (e->first) *e->first = r;
    }
    umap__log(e->log, UMAP_LOG_ERROR, "%s%s", e->prefix ? e->prefix : "", buf);
    return r;
}

/* r, with its message where e says */
static umap_result umap__fail(const umap__err *e, umap_result r, const char *fmt, ...) UMAP__PRINTF(3, 4);
static umap_result umap__fail(const umap__err *e, umap_result r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    r = umap__failv(e, r, fmt, ap);
    va_end(ap);
    return r;
}

/* >>rng ------------------------------------------------------------------- */

UMAP__FN void umap_philox(uint64_t seed, uint64_t stream, uint64_t counter, uint32_t out[4]) {
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    uint32_t c0 = (uint32_t)counter, c1 = (uint32_t)(counter >> 32);
    uint32_t c2 = (uint32_t)stream, c3 = (uint32_t)(stream >> 32);
    int round;
    for (round = 0; round < 10; round++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1;
        c3 = (uint32_t)p0;
        c0 = n0;
        c2 = n2;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    out[0] = c0; out[1] = c1; out[2] = c2; out[3] = c3;
}

UMAP__FN void umap_rng_init(umap_rng *r, uint64_t seed, uint64_t stream) {
    r->seed = seed;
    r->stream = stream;
    r->counter = 0;
    r->pos = 4;
}

UMAP__FN uint32_t umap_rng_u32(umap_rng *r) {
    if (r->pos >= 4) {
        umap_philox(r->seed, r->stream, r->counter++, r->buf);
        r->pos = 0;
    }
    return r->buf[r->pos++];
}

UMAP__FN float umap_rng_uniform(umap_rng *r) {
    return (float)(umap_rng_u32(r) >> 8) * (1.0f / 16777216.0f);
}

UMAP__FN float umap_rng_normal(umap_rng *r) {
    double u1 = ((double)umap_rng_u32(r) + 1.0) * (1.0 / 4294967296.0); /* (0, 1] */
    double u2 = (double)umap_rng_u32(r) * (1.0 / 4294967296.0);
    return (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}

UMAP__FN uint32_t umap_rng_below(umap_rng *r, uint32_t n) {
    /* Lemire's multiply-shift with rejection: unbiased */
    uint64_t m;
    uint32_t lo, threshold;
    if (n == 0) return 0;
    m = (uint64_t)umap_rng_u32(r) * n;
    lo = (uint32_t)m;
    if (lo < n) {
        threshold = (uint32_t)(-n) % n;
        while (lo < threshold) {
            m = (uint64_t)umap_rng_u32(r) * n;
            lo = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

/* >>threads --------------------------------------------------------------- */

/* The hand-off between the caller and the workers. A training step runs a
   few dozen parallel ops of some tens of microseconds each, and a worker
   asleep on a condition variable takes about as long as one op to wake:
   so tasks are taken with an atomic counter, and an idle worker first
   spins on the generation counter for UMAP__POOL_SPIN_US before it
   sleeps; the caller spins the same way for the workers' last tasks. The
   budget is time, not a count of relax instructions, which take from one
   cycle (aarch64's yield) to over a hundred (x86's pause on recent
   Intel). A pool with more threads than the machine has cores does not
   spin: there a spinning thread would take the core from one with work. */
#ifndef UMAP_NO_THREADS
#define UMAP__POOL_SPIN_US 500
#if defined(__x86_64__) || defined(__i386__)
#if defined(__GNUC__) || defined(__clang__)
#define UMAP__CPU_RELAX() __builtin_ia32_pause()
#elif defined(_MSC_VER)
#define UMAP__CPU_RELAX() YieldProcessor()
#endif
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
#define UMAP__CPU_RELAX() __asm__ __volatile__("yield")
#endif
#ifndef UMAP__CPU_RELAX
#define UMAP__CPU_RELAX() ((void)0)
#endif
#endif

/* The OS's threads behind a few calls: POSIX threads, or Win32's (slim
   reader/writer locks and condition variables, Vista and later). */
#ifndef UMAP_NO_THREADS
#ifdef _WIN32
typedef HANDLE umap__thread;
typedef SRWLOCK umap__mutex;
typedef CONDITION_VARIABLE umap__cond;
#define UMAP__THREAD_FN(name, arg) DWORD WINAPI name(LPVOID arg)
#define UMAP__THREAD_END 0
static int umap__mutex_init(umap__mutex *m) {
    InitializeSRWLock(m);
    return 1;
}
static void umap__mutex_destroy(umap__mutex *m) { (void)m; }
static void umap__mutex_lock(umap__mutex *m) { AcquireSRWLockExclusive(m); }
static void umap__mutex_unlock(umap__mutex *m) { ReleaseSRWLockExclusive(m); }
static void umap__cond_init(umap__cond *c) { InitializeConditionVariable(c); }
static void umap__cond_destroy(umap__cond *c) { (void)c; }
static void umap__cond_wait(umap__cond *c, umap__mutex *m) { SleepConditionVariableSRW(c, m, INFINITE, 0); }
static void umap__cond_signal(umap__cond *c) { WakeConditionVariable(c); }
static void umap__cond_broadcast(umap__cond *c) { WakeAllConditionVariable(c); }
static int umap__thread_start(umap__thread *t, LPTHREAD_START_ROUTINE fn, void *arg) {
    *t = CreateThread(NULL, 0, fn, arg, 0, NULL);
    return *t != NULL;
}
static void umap__thread_join(umap__thread t) {
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
}
static long umap__cpu_count(void) {
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    return (long)si.dwNumberOfProcessors;
}
#else
typedef pthread_t umap__thread;
typedef pthread_mutex_t umap__mutex;
typedef pthread_cond_t umap__cond;
#define UMAP__THREAD_FN(name, arg) void *name(void *arg)
#define UMAP__THREAD_END NULL
static int umap__mutex_init(umap__mutex *m) { return pthread_mutex_init(m, NULL) == 0; }
static void umap__mutex_destroy(umap__mutex *m) { pthread_mutex_destroy(m); }
static void umap__mutex_lock(umap__mutex *m) { pthread_mutex_lock(m); }
static void umap__mutex_unlock(umap__mutex *m) { pthread_mutex_unlock(m); }
static void umap__cond_init(umap__cond *c) { pthread_cond_init(c, NULL); }
static void umap__cond_destroy(umap__cond *c) { pthread_cond_destroy(c); }
static void umap__cond_wait(umap__cond *c, umap__mutex *m) { pthread_cond_wait(c, m); }
static void umap__cond_signal(umap__cond *c) { pthread_cond_signal(c); }
static void umap__cond_broadcast(umap__cond *c) { pthread_cond_broadcast(c); }
static int umap__thread_start(umap__thread *t, void *(*fn)(void *), void *arg) {
    return pthread_create(t, NULL, fn, arg) == 0;
}
static void umap__thread_join(umap__thread t) { pthread_join(t, NULL); }
static long umap__cpu_count(void) { return sysconf(_SC_NPROCESSORS_ONLN); }
#endif
/* The pool's counters, each an int64_t read and written by several
   threads: Windows' Interlocked calls (MSVC's path, which mingw-w64 tests
   too), GCC/Clang's __atomic builtins, or for any other C99 compiler (tcc)
   a lock around each access: slower hand-offs, the same results. */
#if defined(_WIN32)
#define UMAP__COUNTERS_INTERLOCKED 1
#elif !defined(__GNUC__) && !defined(__clang__)
#define UMAP__COUNTERS_LOCKED 1
#endif
#endif

struct umap_pool {
    umap_allocator alloc;
    int n_threads;
#ifndef UMAP_NO_THREADS
    umap__thread *threads;
    int n_started;
    int spin_us;                      /* spin before sleeping: 0 or UMAP__POOL_SPIN_US */
    umap__mutex mu;                   /* guards the sleeps, not the counters */
    umap__cond work_cv, done_cv;
    int64_t generation;               /* counter: bumped per umap_pool_for and at shutdown */
    int64_t shutdown;                 /* counter */
    int64_t busy;                     /* counter: workers still inside this generation */
    void (*fn)(void *, int64_t);      /* written before the generation is bumped */
    void *ctx;
    int64_t n_tasks;
    int64_t next_task;                /* counter */
#ifdef UMAP__COUNTERS_LOCKED
    umap__mutex counters_mu;          /* taken alone, never while waiting for it with mu held */
#endif
#endif
    umap_tuner *tuner;                /* umap_pool_set_tuner: the sgemm plans (not owned) */
    void (*tuner_release)(umap_tuner *); /* set by umap.h for a tuner the pool owns (UMAP_TUNE) */
};

#ifndef UMAP_NO_THREADS
/* an acquiring load, a releasing store, and an add that returns the old
   value and orders both ways */
static int64_t umap__counter_load(umap_pool *p, int64_t *x) {
#if defined(UMAP__COUNTERS_INTERLOCKED)
    (void)p;
    return InterlockedCompareExchange64((volatile LONG64 *)x, 0, 0);
#elif defined(UMAP__COUNTERS_LOCKED)
    int64_t v;
    umap__mutex_lock(&p->counters_mu);
    v = *x;
    umap__mutex_unlock(&p->counters_mu);
    return v;
#else
    (void)p;
    return __atomic_load_n(x, __ATOMIC_ACQUIRE);
#endif
}

static void umap__counter_store(umap_pool *p, int64_t *x, int64_t v) {
#if defined(UMAP__COUNTERS_INTERLOCKED)
    (void)p;
    InterlockedExchange64((volatile LONG64 *)x, v);
#elif defined(UMAP__COUNTERS_LOCKED)
    umap__mutex_lock(&p->counters_mu);
    *x = v;
    umap__mutex_unlock(&p->counters_mu);
#else
    (void)p;
    __atomic_store_n(x, v, __ATOMIC_RELEASE);
#endif
}

static int64_t umap__counter_add(umap_pool *p, int64_t *x, int64_t v) {
#if defined(UMAP__COUNTERS_INTERLOCKED)
    (void)p;
    return InterlockedExchangeAdd64((volatile LONG64 *)x, v);
#elif defined(UMAP__COUNTERS_LOCKED)
    int64_t old;
    umap__mutex_lock(&p->counters_mu);
    old = *x;
    *x = old + v;
    umap__mutex_unlock(&p->counters_mu);
    return old;
#else
    (void)p;
    return __atomic_fetch_add(x, v, __ATOMIC_ACQ_REL);
#endif
}

static int64_t umap__pool_take(umap_pool *p) {
    int64_t t = umap__counter_add(p, &p->next_task, 1);
    return t < p->n_tasks ? t : -1;
}

/* A spin's budget: umap__spin_more relaxes once and says whether to go on.
   The clock is read every 64 calls, first after 64, so a hand-off that
   comes at once never reads it; a clock set back ends the spin. */
typedef struct umap__spin {
    double start, budget_s;
    unsigned calls;
} umap__spin;

static void umap__spin_begin(umap__spin *s, int budget_us) {
    s->budget_s = budget_us * 1e-6;
    s->start = 0.0; /* set at the first clock read */
    s->calls = 0;
}

static int umap__spin_more(umap__spin *s) {
    double t;
    if (s->budget_s <= 0.0) return 0;
    UMAP__CPU_RELAX();
    if (++s->calls % 64) return 1;
    if (s->calls == 64) {
        s->start = umap__now_s();
        return 1;
    }
    t = umap__now_s() - s->start;
    return t >= 0.0 && t < s->budget_s;
}

static UMAP__THREAD_FN(umap__pool_worker, arg) {
    umap_pool *p = (umap_pool *)arg;
    int64_t seen = 0, g;
    for (;;) {
        int64_t t;
        umap__spin spin;
        umap__spin_begin(&spin, p->spin_us);
        while ((g = umap__counter_load(p, &p->generation)) == seen && umap__spin_more(&spin)) {}
        if (g == seen) {
            umap__mutex_lock(&p->mu);
            while ((g = umap__counter_load(p, &p->generation)) == seen) umap__cond_wait(&p->work_cv, &p->mu);
            umap__mutex_unlock(&p->mu);
        }
        seen = g;
        if (umap__counter_load(p, &p->shutdown)) return UMAP__THREAD_END;
        while ((t = umap__pool_take(p)) >= 0) p->fn(p->ctx, t);
        if (umap__counter_add(p, &p->busy, -1) == 1) { /* the last one out */
            umap__mutex_lock(&p->mu);
            umap__cond_signal(&p->done_cv);
            umap__mutex_unlock(&p->mu);
        }
    }
}
#endif

UMAP__FN umap_result umap_pool_create(int n_threads, const umap_allocator *alloc, umap_pool **out) {
    umap_pool *p;
    umap_allocator a;
    if (!out) return UMAP_ERR_INVALID_ARGUMENT;
    *out = NULL;
    memset(&a, 0, sizeof a);
    if (alloc) a = *alloc;
#ifdef UMAP_NO_THREADS
    n_threads = 1;
#else
    if (n_threads <= 0) {
        long c = umap__cpu_count();
        n_threads = c > 0 ? (int)c : 1;
    }
    if (n_threads > 256) n_threads = 256;
#endif
    p = (umap_pool *)umap__calloc(&a, 1, sizeof *p);
    if (!p) return UMAP_ERR_OUT_OF_MEMORY;
    p->alloc = a;
    p->n_threads = n_threads;
#ifndef UMAP_NO_THREADS
    if (n_threads > 1) {
        long cores = umap__cpu_count();
        int i;
        p->spin_us = cores > 0 && n_threads <= cores ? UMAP__POOL_SPIN_US : 0;
        p->threads = (umap__thread *)umap__calloc(&a, (size_t)n_threads, sizeof(umap__thread));
        if (!p->threads) { umap__free(&a, p); return UMAP_ERR_OUT_OF_MEMORY; }
        (void)umap__mutex_init(&p->mu);
#ifdef UMAP__COUNTERS_LOCKED
        (void)umap__mutex_init(&p->counters_mu);
#endif
        umap__cond_init(&p->work_cv);
        umap__cond_init(&p->done_cv);
        for (i = 0; i < n_threads - 1; i++) {
            if (!umap__thread_start(&p->threads[i], umap__pool_worker, p)) {
                umap_pool_free(p);
                return UMAP_ERR_THREAD;
            }
            p->n_started++;
        }
    }
#endif
    *out = p;
    return UMAP_OK;
}

UMAP__FN void umap_pool_free(umap_pool *p) {
    if (!p) return;
    if (p->tuner_release) p->tuner_release(p->tuner);
#ifndef UMAP_NO_THREADS
    if (p->threads) {
        int i;
        umap__mutex_lock(&p->mu);
        umap__counter_store(p, &p->shutdown, 1);
        umap__counter_store(p, &p->generation, p->generation + 1);
        umap__cond_broadcast(&p->work_cv);
        umap__mutex_unlock(&p->mu);
        for (i = 0; i < p->n_started; i++) umap__thread_join(p->threads[i]);
        umap__mutex_destroy(&p->mu);
#ifdef UMAP__COUNTERS_LOCKED
        umap__mutex_destroy(&p->counters_mu);
#endif
        umap__cond_destroy(&p->work_cv);
        umap__cond_destroy(&p->done_cv);
        umap__free(&p->alloc, p->threads);
    }
#endif
    umap__free(&p->alloc, p);
}

UMAP__FN int umap_pool_threads(const umap_pool *p) { return p ? p->n_threads : 1; }

UMAP__FN void umap_pool_for(umap_pool *p, int64_t n_tasks, void (*fn)(void *, int64_t), void *ctx) {
    int64_t t;
    if (n_tasks <= 0) return;
#ifndef UMAP_NO_THREADS
    if (p && p->n_started > 0 && n_tasks > 1) {
        umap__spin spin;
        p->fn = fn;
        p->ctx = ctx;
        p->n_tasks = n_tasks;
        umap__counter_store(p, &p->next_task, 0);
        umap__counter_store(p, &p->busy, p->n_started);
        umap__mutex_lock(&p->mu);
        umap__counter_store(p, &p->generation, p->generation + 1);
        umap__cond_broadcast(&p->work_cv);
        umap__mutex_unlock(&p->mu);
        while ((t = umap__pool_take(p)) >= 0) fn(ctx, t);
        umap__spin_begin(&spin, p->spin_us);
        while (umap__counter_load(p, &p->busy) > 0 && umap__spin_more(&spin)) {}
        if (umap__counter_load(p, &p->busy) > 0) {
            umap__mutex_lock(&p->mu);
            while (umap__counter_load(p, &p->busy) > 0) umap__cond_wait(&p->done_cv, &p->mu);
            umap__mutex_unlock(&p->mu);
        }
        return;
    }
#else
    (void)p;
#endif
    for (t = 0; t < n_tasks; t++) fn(ctx, t);
}

/* >>sgemm: shared with umap.h's CPU backend ------------------------------- */

/* Work is cut into tasks of a fixed grain; the cut depends on the sizes only,
   never on the thread count, and each task writes its own outputs. */
typedef struct umap__range_ctx {
    void (*fn)(void *ctx, int64_t begin, int64_t end);
    void *ctx;
    int64_t n, grain;
} umap__range_ctx;

static void umap__range_task(void *c, int64_t t) {
    umap__range_ctx *r = (umap__range_ctx *)c;
    int64_t b = t * r->grain, e = b + r->grain < r->n ? b + r->grain : r->n;
    r->fn(r->ctx, b, e);
}

static void umap__parallel_range(umap_pool *pool, int64_t n, int64_t grain, void (*fn)(void *, int64_t, int64_t),
                                 void *ctx) {
    umap__range_ctx r;
    if (n <= 0) return;
    if (grain < 1) grain = 1;
    if (n <= grain) { fn(ctx, 0, n); return; }
    r.fn = fn; r.ctx = ctx; r.n = n; r.grain = grain;
    umap_pool_for(pool, (n + grain - 1) / grain, umap__range_task, &r);
}

/* --- sgemm: C[M,N] = op(A) op(B), row-major --- */
#define UMAP__MR 6
#define UMAP__NR 16

/* out (MR x NR) = a (MR rows of K) times a packed panel bp (K x NR), or
   with add, out += it: a K fed in slices goes on from where the last slice
   stopped, so every element is the same chain of roundings however K is cut */
typedef void (*umap__micro_fn)(int64_t K, const float *a, int64_t ars, int64_t aks, const float *bp, float *out,
                               int add);

typedef struct umap__gemm_ctx {
    int ta, tb;
    int64_t M, N, K, lda, ldb, ldc;
    const float *A, *B;
    float *C, *packed;
    umap__micro_fn micro;
    int64_t panel_block;  /* panels swept per row group before the next group; 0: all */
} umap__gemm_ctx;

/* B -> panels of NR columns, k-major, zero-padded: packed[(p*K + k)*NR + j].
   A training step's products are small enough that the caller's packing,
   which no worker shares, shows in its time: a full panel of an
   untransposed B is a row copy per k, a transposed one is read a column
   at a time (contiguous in B). */
static void umap__gemm_pack(void *ctx, int64_t p0, int64_t p1) {
    const umap__gemm_ctx *c = (const umap__gemm_ctx *)ctx;
    int64_t p, k, j;
    for (p = p0; p < p1; p++) {
        float *dst = c->packed + p * c->K * UMAP__NR;
        int64_t col0 = p * UMAP__NR, cols = c->N - col0 < UMAP__NR ? c->N - col0 : UMAP__NR;
        if (cols < UMAP__NR) memset(dst, 0, (size_t)(c->K * UMAP__NR) * sizeof(float));
        if (c->tb)
            for (j = 0; j < cols; j++) {
                const float *src = c->B + (col0 + j) * c->ldb;
                for (k = 0; k < c->K; k++) dst[k * UMAP__NR + j] = src[k];
            }
        else
            for (k = 0; k < c->K; k++) memcpy(dst + k * UMAP__NR, c->B + k * c->ldb + col0, (size_t)cols * sizeof(float));
    }
}

/* The micro-kernel: a 6 x 16 block of C held in registers over the whole K
   loop, written once as a macro over the vector type. With GCC/Clang on x86
   it is compiled for SSE2, AVX2+FMA and AVX-512 (target attributes) and the
   CPU picks at run time, so a plain -O2 build still gets wide vectors;
   elsewhere it uses the target's native width; other compilers get C loops.
   Accumulators are named variables: an array would be kept in memory. */

#define UMAP__ACC_DECL(VF, r) VF c##r##0 = {0}, c##r##1 = {0}, c##r##2 = {0}, c##r##3 = {0};
#define UMAP__ACC_LOAD(VF, VPR, r)                                                             \
    {                                                                                          \
        const int vw = UMAP__NR / (VPR);                                                       \
        memcpy(&c##r##0, out + (r) * UMAP__NR, sizeof(VF));                                    \
        if ((VPR) > 1) memcpy(&c##r##1, out + (r) * UMAP__NR + vw, sizeof(VF));                \
        if ((VPR) > 2) {                                                                       \
            memcpy(&c##r##2, out + (r) * UMAP__NR + 2 * vw, sizeof(VF));                       \
            memcpy(&c##r##3, out + (r) * UMAP__NR + 3 * vw, sizeof(VF));                       \
        }                                                                                      \
    }
/* a is broadcast lane by lane, not by a scalar operand: where float
   arithmetic runs in double (FLT_EVAL_METHOD 1: s390x in strict C), a
   scalar times a float vector does not compile */
#define UMAP__ACC_STEP(VF, VPR, r)                                       \
    {                                                                    \
        VF av;                                                           \
        int lane;                                                        \
        for (lane = 0; lane < (int)(sizeof av / sizeof(float)); lane++)  \
            av[lane] = ak[(r) * ars];                                    \
        c##r##0 += av * b0;                                              \
        if ((VPR) > 1) c##r##1 += av * b1;                               \
        if ((VPR) > 2) { c##r##2 += av * b2; c##r##3 += av * b3; }       \
    }
#define UMAP__ACC_STORE(VF, VPR, r)                                                            \
    {                                                                                          \
        const int vw = UMAP__NR / (VPR);                                                       \
        memcpy(out + (r) * UMAP__NR, &c##r##0, sizeof(VF));                                    \
        if ((VPR) > 1) memcpy(out + (r) * UMAP__NR + vw, &c##r##1, sizeof(VF));                \
        if ((VPR) > 2) {                                                                       \
            memcpy(out + (r) * UMAP__NR + 2 * vw, &c##r##2, sizeof(VF));                       \
            memcpy(out + (r) * UMAP__NR + 3 * vw, &c##r##3, sizeof(VF));                       \
        }                                                                                      \
    }
#define UMAP__DEFINE_MICRO(NAME, VF, ATTR)                                                               \
    ATTR static void NAME(int64_t K, const float *a, int64_t ars, int64_t aks, const float *bp, float *out,  \
                          int add) {                                                                     \
        enum { VPR = UMAP__NR * sizeof(float) / sizeof(VF), VW = UMAP__NR / VPR };                      \
        UMAP__ACC_DECL(VF, 0) UMAP__ACC_DECL(VF, 1) UMAP__ACC_DECL(VF, 2)                                \
        UMAP__ACC_DECL(VF, 3) UMAP__ACC_DECL(VF, 4) UMAP__ACC_DECL(VF, 5)                                \
        VF b0 = {0}, b1 = {0}, b2 = {0}, b3 = {0};                                                       \
        int64_t k;                                                                                       \
        if (add) {                                                                                       \
            UMAP__ACC_LOAD(VF, VPR, 0) UMAP__ACC_LOAD(VF, VPR, 1) UMAP__ACC_LOAD(VF, VPR, 2)             \
            UMAP__ACC_LOAD(VF, VPR, 3) UMAP__ACC_LOAD(VF, VPR, 4) UMAP__ACC_LOAD(VF, VPR, 5)             \
        }                                                                                                \
        for (k = 0; k < K; k++) {                                                                        \
            const float *ak = a + k * aks, *bk = bp + k * UMAP__NR;                                      \
            memcpy(&b0, bk, sizeof b0);                                                                  \
            if (VPR > 1) memcpy(&b1, bk + VW, sizeof b1);                                                \
            if (VPR > 2) { memcpy(&b2, bk + 2 * VW, sizeof b2); memcpy(&b3, bk + 3 * VW, sizeof b3); }   \
            UMAP__ACC_STEP(VF, VPR, 0) UMAP__ACC_STEP(VF, VPR, 1) UMAP__ACC_STEP(VF, VPR, 2)                 \
            UMAP__ACC_STEP(VF, VPR, 3) UMAP__ACC_STEP(VF, VPR, 4) UMAP__ACC_STEP(VF, VPR, 5)                 \
        }                                                                                                \
        UMAP__ACC_STORE(VF, VPR, 0) UMAP__ACC_STORE(VF, VPR, 1) UMAP__ACC_STORE(VF, VPR, 2)              \
        UMAP__ACC_STORE(VF, VPR, 3) UMAP__ACC_STORE(VF, VPR, 4) UMAP__ACC_STORE(VF, VPR, 5)              \
    }

/* The micro-kernels this build has, best first: the default is the first
   the CPU runs. `fused` says whether its multiply-adds may be contracted to
   FMA: a tuner only swaps kernels of the same kind, whose outputs are the
   same chain of roundings lane by lane (the widths differ, not the sums). */
typedef struct umap__micro_variant {
    const char *name;
    umap__micro_fn fn;
    int fused;
} umap__micro_variant;

#ifdef UMAP__CPU_DISPATCH
typedef float umap__vf4 __attribute__((vector_size(16)));
typedef float umap__vf8 __attribute__((vector_size(32)));
typedef float umap__vf16 __attribute__((vector_size(64)));
UMAP__DEFINE_MICRO(umap__micro_base, umap__vf4, )
UMAP__DEFINE_MICRO(umap__micro_avx2, umap__vf8, __attribute__((target("avx2,fma"))))
UMAP__DEFINE_MICRO(umap__micro_avx512, umap__vf16, __attribute__((target("avx512f"))))
static const umap__micro_variant umap__micros[] = {
    {"avx512", umap__micro_avx512, 1}, {"avx2", umap__micro_avx2, 1}, {"sse2", umap__micro_base, 0}};
static int umap__micro_runs(int i) {
    if (i == 0) return umap__cpu_has(UMAP__CPU_AVX512F);
    if (i == 1) return umap__cpu_has(UMAP__CPU_AVX2 | UMAP__CPU_FMA);
    return 1;
}
#elif defined(__GNUC__) || defined(__clang__)
#if defined(__AVX512F__)
typedef float umap__vf __attribute__((vector_size(64)));
#elif defined(__AVX__)
typedef float umap__vf __attribute__((vector_size(32)));
#else
typedef float umap__vf __attribute__((vector_size(16)));
#endif
UMAP__DEFINE_MICRO(umap__micro_native, umap__vf, )
static const umap__micro_variant umap__micros[] = {{"native", umap__micro_native, 0}};
static int umap__micro_runs(int i) { (void)i; return 1; }
#else
static void umap__micro_plain(int64_t K, const float *a, int64_t ars, int64_t aks, const float *bp, float *out,
                              int add) {
    int64_t k;
    int r, j;
    if (!add) memset(out, 0, UMAP__MR * UMAP__NR * sizeof(float));
    for (k = 0; k < K; k++)
        for (r = 0; r < UMAP__MR; r++) {
            float av = a[k * aks + r * ars];
            for (j = 0; j < UMAP__NR; j++) out[r * UMAP__NR + j] += av * bp[k * UMAP__NR + j];
        }
}
static const umap__micro_variant umap__micros[] = {{"plain", umap__micro_plain, 0}};
static int umap__micro_runs(int i) { (void)i; return 1; }
#endif
#define UMAP__N_MICROS ((int)(sizeof umap__micros / sizeof umap__micros[0]))

/* the default micro-kernel: the first this CPU runs */
static int umap__micro_default(void) {
    int i;
    for (i = 0; i < UMAP__N_MICROS - 1; i++)
        if (umap__micro_runs(i)) return i;
    return UMAP__N_MICROS - 1;
}

/* How one product is cut, all of it invisible in the result: the micro-kernel
   (of the default's kind), how many B panels a row group sweeps before the
   next group (cache blocking over N) and how many row groups a task takes
   (scheduling over M). K is never split: every C element is the same chain
   of additions in every plan. */
typedef struct umap__gemm_plan {
    int micro;        /* index into umap__micros */
    int panel_block;  /* 0: all panels per group */
    int grain_scale;  /* row groups per task = the default's times this */
} umap__gemm_plan;

/* the variants a tuner tries: one table, crossed with the micro-kernels */
static const int umap__panel_blocks[] = {0, 4, 16};
static const int umap__grain_scales[] = {1, 4};
#define UMAP__N_PANEL_BLOCKS ((int)(sizeof umap__panel_blocks / sizeof umap__panel_blocks[0]))
#define UMAP__N_GRAIN_SCALES ((int)(sizeof umap__grain_scales / sizeof umap__grain_scales[0]))
#define UMAP__N_GEMM_PLANS (UMAP__N_MICROS * UMAP__N_PANEL_BLOCKS * UMAP__N_GRAIN_SCALES)

static umap__gemm_plan umap__gemm_default_plan(void) {
    umap__gemm_plan p;
    p.micro = umap__micro_default();
    p.panel_block = 0;
    p.grain_scale = 1;
    return p;
}

/* plan number i of the table (0 is the default); 0 when this CPU cannot run
   it or its micro-kernel is of another kind than the default's */
static int umap__gemm_plan_at(int i, umap__gemm_plan *p) {
    int def = umap__micro_default();
    if (i < 0 || i >= UMAP__N_GEMM_PLANS) return 0;
    p->micro = (def + i / (UMAP__N_PANEL_BLOCKS * UMAP__N_GRAIN_SCALES)) % UMAP__N_MICROS;
    p->panel_block = umap__panel_blocks[(i / UMAP__N_GRAIN_SCALES) % UMAP__N_PANEL_BLOCKS];
    p->grain_scale = umap__grain_scales[i % UMAP__N_GRAIN_SCALES];
    return umap__micro_runs(p->micro) && umap__micros[p->micro].fused == umap__micros[def].fused;
}

#define UMAP__TAIL_KC 256 /* K slice of a partial row group's copy */

static void umap__gemm_rows(void *ctx, int64_t g0, int64_t g1) {
    const umap__gemm_ctx *c = (const umap__gemm_ctx *)ctx;
    int64_t n_panels = (c->N + UMAP__NR - 1) / UMAP__NR, grp, p, k, k0, pb;
    int64_t block = c->panel_block > 0 ? c->panel_block : n_panels;
    /* A rows: element (i, k) at A[i*ars + k*aks] */
    int64_t ars = c->ta ? 1 : c->lda, aks = c->ta ? c->lda : 1;
    for (pb = 0; pb < n_panels; pb += block)
        for (grp = g0; grp < g1; grp++) {
            int64_t i0 = grp * UMAP__MR, mr = c->M - i0 < UMAP__MR ? c->M - i0 : UMAP__MR;
            int64_t p_end = pb + block < n_panels ? pb + block : n_panels;
            for (p = pb; p < p_end; p++) {
                const float *bp = c->packed + p * c->K * UMAP__NR;
                float acc[UMAP__MR * UMAP__NR];
                int r, nr = (int)(c->N - p * UMAP__NR < UMAP__NR ? c->N - p * UMAP__NR : UMAP__NR);
                if (mr == UMAP__MR) c->micro(c->K, c->A + i0 * ars, ars, aks, bp, acc, 0);
                else { /* the last rows, copied into a zero-padded group a slice of K at a time:
                          the micro-kernel's arithmetic, not a scalar loop as slow as the rest */
                    memset(acc, 0, sizeof acc);
                    for (k0 = 0; k0 < c->K; k0 += UMAP__TAIL_KC) {
                        float pad[UMAP__MR * UMAP__TAIL_KC];
                        int64_t kc = c->K - k0 < UMAP__TAIL_KC ? c->K - k0 : UMAP__TAIL_KC;
                        for (k = 0; k < kc; k++)
                            for (r = 0; r < UMAP__MR; r++)
                                pad[k * UMAP__MR + r] = r < mr ? c->A[(i0 + r) * ars + (k0 + k) * aks] : 0.0f;
                        c->micro(kc, pad, 1, UMAP__MR, bp + k0 * UMAP__NR, acc, 1);
                    }
                }
                /* a whole panel's row is a copy of constant size, which the
                   compiler inlines: a library call per 64 bytes was a
                   visible part of a training step's small products */
                if (nr == UMAP__NR)
                    for (r = 0; r < mr; r++)
                        memcpy(c->C + (i0 + r) * c->ldc + p * UMAP__NR, acc + r * UMAP__NR, UMAP__NR * sizeof(float));
                else
                    for (r = 0; r < mr; r++)
                        memcpy(c->C + (i0 + r) * c->ldc + p * UMAP__NR, acc + r * UMAP__NR, (size_t)nr * sizeof(float));
            }
        }
}

static int64_t umap__gemm_workspace(int64_t N, int64_t K) {
    return ((N + UMAP__NR - 1) / UMAP__NR) * UMAP__NR * K;
}

/* Products below this many multiply-adds stay on the portable kernel even
   with CBLAS: a threaded BLAS (OpenBLAS) wakes its own threads on every
   call, and they then fight the pool's threads for the cores: UMAP's
   training steps ran slower through a 2-thread OpenBLAS than on the
   portable kernel (docs/NOTES.md). */
#ifndef UMAP_BLAS_MIN_MACS
#define UMAP_BLAS_MIN_MACS ((int64_t)1 << 26)
#endif

/* does this product take the portable path (and need packing space)? */
static int umap__gemm_portable(int64_t M, int64_t N, int64_t K) {
#ifdef UMAP_NO_BLAS
    (void)M; (void)N; (void)K;
    return 1;
#else
    return M >= 2147483647 || N >= 2147483647 || K >= 2147483647 || /* CBLAS takes int sizes */
           (double)M * (double)N * (double)K < (double)UMAP_BLAS_MIN_MACS;
#endif
}

/* The portable kernel under one plan; workspace holds
   umap__gemm_workspace(N, K) floats. */
static void umap__sgemm_plan(umap_pool *pool, const umap__gemm_plan *plan, int ta, int tb, int64_t M, int64_t N,
                             int64_t K, const float *A, const float *B, float *C, float *workspace) {
    umap__gemm_ctx c;
    int64_t rows_per_task;
    c.ta = ta; c.tb = tb; c.M = M; c.N = N; c.K = K;
    c.lda = ta ? M : K;
    c.ldb = tb ? K : N;
    c.ldc = N;
    c.A = A; c.B = B; c.C = C;
    c.packed = workspace;
    c.micro = umap__micros[plan->micro].fn;
    c.panel_block = plan->panel_block;
    umap__parallel_range(pool, (N + UMAP__NR - 1) / UMAP__NR, 4, umap__gemm_pack, &c);
    /* ~64k multiply-adds per task at least, so small products stay inline */
    rows_per_task = 1 + 65536 / ((N * K) > 0 ? N * K : 1);
    if (rows_per_task > 64) rows_per_task = 64;
    umap__parallel_range(pool, (M + UMAP__MR - 1) / UMAP__MR,
                         (rows_per_task + UMAP__MR - 1) / UMAP__MR * plan->grain_scale, umap__gemm_rows, &c);
}

/* >>tune: the tuner's records and the sgemm autotuner -----------------------

   A record is (device, key, value), three strings without tabs or line
   breaks. The CPU's sgemm plans are records of the device umap_tuner_cpu
   names, key "sgemm tTATB mMC nNC kKC" (each size class the bit length of
   the size, so 300 and 500 share class 9), value "micro=NAME block=B
   grain=G". umap.h reads and writes them as a file; umap_vk.h keeps its
   calibration there. */
typedef struct umap__tune_record {
    char *device, *key, *value; /* one allocation, device first */
} umap__tune_record;

struct umap_tuner {
    umap_allocator alloc;
    umap_logger logger;
#ifndef UMAP_NO_THREADS
    umap__mutex mu;           /* records, dirty: a tuner may serve several pools */
#endif
    umap__tune_record *rec;
    int n, cap;
    int dirty;                /* changed since the last load or save */
    char cpu[320];            /* this CPU's device key */
    char *path;               /* the cache file umap.h loaded (its save's default) */
};

static void umap__tuner_lock(umap_tuner *t) {
#ifndef UMAP_NO_THREADS
    umap__mutex_lock(&t->mu);
#else
    (void)t;
#endif
}
static void umap__tuner_unlock(umap_tuner *t) {
#ifndef UMAP_NO_THREADS
    umap__mutex_unlock(&t->mu);
#else
    (void)t;
#endif
}

/* "cpu MODEL isa=ISA": the model name the OS reports (Linux's /proc/cpuinfo;
   elsewhere "unknown") and the micro-kernel the library would pick */
static void umap__tuner_cpu_key(char *out, size_t n) {
    char model[200] = "unknown", line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    size_t i;
    if (f) {
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
                const char *v = strchr(line, ':') + 1;
                while (*v == ' ') v++;
                snprintf(model, sizeof model, "%s", v);
                break;
            }
        fclose(f);
    }
    for (i = 0; model[i]; i++)
        if (model[i] == '\n' || model[i] == '\r' || model[i] == '\t') model[i] = model[i] == '\t' ? ' ' : '\0';
    snprintf(out, n, "cpu %s isa=%s", model, umap__micros[umap__micro_default()].name);
}

UMAP__FN umap_result umap_tuner_create(const umap_allocator *alloc, const umap_logger *logger, umap_tuner **out) {
    umap_tuner *t;
    umap_allocator a;
    if (!out) return UMAP_ERR_INVALID_ARGUMENT;
    *out = NULL;
    memset(&a, 0, sizeof a);
    if (alloc) a = *alloc;
    if (!(t = (umap_tuner *)umap__alloc(&a, sizeof *t))) return UMAP_ERR_OUT_OF_MEMORY;
    memset(t, 0, sizeof *t);
    t->alloc = a;
    if (logger) t->logger = *logger;
#ifndef UMAP_NO_THREADS
    if (!umap__mutex_init(&t->mu)) {
        umap__free(&a, t);
        return UMAP_ERR_THREAD;
    }
#endif
    umap__tuner_cpu_key(t->cpu, sizeof t->cpu);
    *out = t;
    return UMAP_OK;
}

static void umap__tuner_clear(umap_tuner *t) {
    int i;
    for (i = 0; i < t->n; i++) umap__free(&t->alloc, t->rec[i].device);
    umap__free(&t->alloc, t->rec);
    t->rec = NULL;
    t->n = t->cap = 0;
}

UMAP__FN void umap_tuner_free(umap_tuner *t) {
    if (!t) return;
    umap__tuner_clear(t);
    umap__free(&t->alloc, t->path);
#ifndef UMAP_NO_THREADS
    umap__mutex_destroy(&t->mu);
#endif
    umap__free(&t->alloc, t);
}

UMAP__FN const char *umap_tuner_cpu(const umap_tuner *t) { return t ? t->cpu : ""; }
UMAP__FN int umap_tuner_count(const umap_tuner *t) { return t ? t->n : 0; }

/* a field a record may hold: printable, no tab, not empty, bounded */
static int umap__tune_field_ok(const char *s, size_t max) {
    size_t i;
    if (!s || !s[0]) return 0;
    for (i = 0; s[i]; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f || i >= max) return 0;
    return 1;
}

UMAP__FN int umap_tuner_get(umap_tuner *t, const char *device, const char *key, char *value, size_t value_size) {
    int i, found = 0;
    if (!t || !device || !key) return 0;
    umap__tuner_lock(t);
    for (i = 0; i < t->n && !found; i++)
        if (!strcmp(t->rec[i].device, device) && !strcmp(t->rec[i].key, key)) {
            if (value && value_size) snprintf(value, value_size, "%s", t->rec[i].value);
            found = 1;
        }
    umap__tuner_unlock(t);
    return found;
}

UMAP__FN umap_result umap_tuner_set(umap_tuner *t, const char *device, const char *key, const char *value) {
    size_t ld, lk, lv;
    char *blob;
    int i;
    if (!t || !umap__tune_field_ok(device, 400) || !umap__tune_field_ok(key, 400) || !umap__tune_field_ok(value, 400))
        return UMAP_ERR_INVALID_ARGUMENT;
    ld = strlen(device) + 1; lk = strlen(key) + 1; lv = strlen(value) + 1;
    if (!(blob = (char *)umap__alloc(&t->alloc, ld + lk + lv))) return UMAP_ERR_OUT_OF_MEMORY;
    memcpy(blob, device, ld);
    memcpy(blob + ld, key, lk);
    memcpy(blob + ld + lk, value, lv);
    umap__tuner_lock(t);
    for (i = 0; i < t->n; i++)
        if (!strcmp(t->rec[i].device, device) && !strcmp(t->rec[i].key, key)) break;
    if (i == t->n && t->n == UMAP_TUNE_MAX_RECORDS) { /* full: the oldest goes, the rest keep their order */
        umap__free(&t->alloc, t->rec[0].device);
        memmove(t->rec, t->rec + 1, (size_t)(t->n - 1) * sizeof *t->rec);
        i = --t->n;
    }
    if (i == t->n && t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        umap__tune_record *r = (umap__tune_record *)umap__alloc(&t->alloc, (size_t)cap * sizeof *r);
        if (!r) {
            umap__tuner_unlock(t);
            umap__free(&t->alloc, blob);
            return UMAP_ERR_OUT_OF_MEMORY;
        }
        if (t->n) memcpy(r, t->rec, (size_t)t->n * sizeof *r);
        umap__free(&t->alloc, t->rec);
        t->rec = r;
        t->cap = cap;
    }
    if (i < t->n) umap__free(&t->alloc, t->rec[i].device);
    else t->n++;
    t->rec[i].device = blob;
    t->rec[i].key = blob + ld;
    t->rec[i].value = blob + ld + lk;
    t->dirty = 1;
    umap__tuner_unlock(t);
    return UMAP_OK;
}

UMAP__FN void umap_pool_set_tuner(umap_pool *pool, umap_tuner *t) {
    if (!pool) return;
    if (pool->tuner_release) pool->tuner_release(pool->tuner);
    pool->tuner = t;
    pool->tuner_release = NULL;
}

/* Products below this many multiply-adds run the default plan untimed: they
   take microseconds, which timing noise would swamp. */
#ifndef UMAP_TUNE_MIN_MACS
#define UMAP_TUNE_MIN_MACS ((int64_t)1 << 20)
#endif
/* a plan other than the default must beat it by this factor: equal plans
   would otherwise win by noise, and flip from run to run */
#define UMAP__TUNE_MARGIN 0.95

static int umap__bit_length(int64_t v) {
    int b = 0;
    while (v > 0) { b++; v >>= 1; }
    return b;
}

static void umap__gemm_tune_key(char *key, size_t n, int ta, int tb, int64_t M, int64_t N, int64_t K) {
    snprintf(key, n, "sgemm t%d%d m%d n%d k%d", ta ? 1 : 0, tb ? 1 : 0, umap__bit_length(M), umap__bit_length(N),
             umap__bit_length(K));
}

/* a record's value -> plan; 0 when it names no plan this CPU may use (a
   hand-edited or foreign value is ignored, never trusted) */
static int umap__gemm_plan_parse(const char *value, umap__gemm_plan *plan) {
    char name[32];
    int block, grain, i;
    umap__gemm_plan p;
    if (sscanf(value, "micro=%31s block=%d grain=%d", name, &block, &grain) != 3) return 0;
    for (i = 0; i < UMAP__N_GEMM_PLANS; i++)
        if (umap__gemm_plan_at(i, &p) && !strcmp(umap__micros[p.micro].name, name) && p.panel_block == block &&
            p.grain_scale == grain) {
            *plan = p;
            return 1;
        }
    return 0;
}

/* Times every plan this CPU may use on the caller's own product (C ends
   holding it), keeps the fastest in the tuner and returns it. Every plan's
   output is compared with the default's bit for bit: one that differs (a
   compiler that contracted one kernel and not another) is logged and never
   chosen. 0 when there was no memory for the comparison. */
static int umap__gemm_autotune(umap_tuner *t, umap_pool *pool, int ta, int tb, int64_t M, int64_t N, int64_t K,
                               const float *A, const float *B, float *C, float *workspace, umap__gemm_plan *best) {
    umap__gemm_plan plans[UMAP__N_GEMM_PLANS];
    double secs[UMAP__N_GEMM_PLANS], best_s;
    int ok[UMAP__N_GEMM_PLANS];
    size_t bytes;
    float *ref;
    char key[96], value[96];
    int i, rep, n = 0;
    *best = umap__gemm_default_plan();
    if (!umap__bytes2(M, N, sizeof(float), &bytes) || !(ref = (float *)umap__alloc(&t->alloc, bytes))) return 0;
    for (i = 0; i < UMAP__N_GEMM_PLANS; i++)
        if (umap__gemm_plan_at(i, &plans[n])) ok[n] = 1, secs[n++] = 0.0; /* plans[0]: the default */
    umap__sgemm_plan(pool, &plans[0], ta, tb, M, N, K, A, B, C, workspace); /* warm-up, and the bits to match */
    memcpy(ref, C, bytes);
    /* rounds over all plans, each plan's fastest round counts: other work
       on the machine then slows every plan alike instead of one of them */
    for (rep = 0; rep < 3; rep++)
        for (i = 0; i < n; i++) {
            double t0, dt;
            if (!ok[i]) continue;
            t0 = umap__now_s();
            umap__sgemm_plan(pool, &plans[i], ta, tb, M, N, K, A, B, C, workspace);
            dt = umap__now_s() - t0;
            if (rep == 0 || dt < secs[i]) secs[i] = dt;
            if (memcmp(C, ref, bytes) != 0) {
                umap__log(&t->logger, UMAP_LOG_WARN,
                          "tune: sgemm variant micro=%s block=%d grain=%d changes the bits; not used",
                          umap__micros[plans[i].micro].name, plans[i].panel_block, plans[i].grain_scale);
                ok[i] = 0;
            }
        }
    best_s = secs[0];
    for (i = 1; i < n; i++)
        if (ok[i] && secs[i] < best_s && secs[i] < secs[0] * UMAP__TUNE_MARGIN) best_s = secs[i], *best = plans[i];
    memcpy(C, ref, bytes);
    umap__free(&t->alloc, ref);
    umap__gemm_tune_key(key, sizeof key, ta, tb, M, N, K);
    snprintf(value, sizeof value, "micro=%s block=%d grain=%d", umap__micros[best->micro].name, best->panel_block,
             best->grain_scale);
    umap__log(&t->logger, UMAP_LOG_INFO, "tune: %s (%lld x %lld x %lld): %s, %.3f ms (default %.3f ms)", key,
              (long long)M, (long long)N, (long long)K, value, best_s * 1e3, secs[0] * 1e3);
    umap_tuner_set(t, t->cpu, key, value); /* out of memory: tuned again next time, nothing worse */
    return 1;
}

/* The portable kernel on the pool whatever the size; workspace holds
   umap__gemm_workspace(N, K) floats. Callers that want no BLAS threads
   woken (UMAP fit, whose training steps follow) call this directly. With a
   tuner on the pool, a product of a shape class the tuner has no plan for
   is timed under every plan first (see umap__gemm_autotune). */
static void umap__sgemm_pool(umap_pool *pool, int ta, int tb, int64_t M, int64_t N, int64_t K, const float *A,
                             const float *B, float *C, float *workspace) {
    umap__gemm_plan plan = umap__gemm_default_plan();
    umap_tuner *t = pool ? pool->tuner : NULL;
    if (t && (double)M * (double)N * (double)K >= (double)UMAP_TUNE_MIN_MACS) {
        char key[96], value[96];
        umap__gemm_tune_key(key, sizeof key, ta, tb, M, N, K);
        if (!umap_tuner_get(t, t->cpu, key, value, sizeof value) || !umap__gemm_plan_parse(value, &plan)) {
            if (umap__gemm_autotune(t, pool, ta, tb, M, N, K, A, B, C, workspace, &plan)) return;
        }
    }
    umap__sgemm_plan(pool, &plan, ta, tb, M, N, K, A, B, C, workspace);
}

/* the product under plan number `variant` of the table, for tests and the
   CLI's tune: 1 when it ran, 0 when this CPU may not use that plan */
UMAP__FN int umap_sgemm_variant(umap_pool *pool, int variant, int ta, int tb, int64_t M, int64_t N, int64_t K,
                                const float *A, const float *B, float *C, char *name, size_t name_size) {
    umap__gemm_plan p;
    float *ws;
    if (name && name_size) name[0] = '\0';
    if (!umap__gemm_plan_at(variant, &p) || M < 1 || N < 1 || K < 1 || !A || !B || !C) return 0;
    if (name && name_size)
        snprintf(name, name_size, "micro=%s block=%d grain=%d", umap__micros[p.micro].name, p.panel_block, p.grain_scale);
    if (!(ws = (float *)umap__alloc(NULL, (size_t)umap__gemm_workspace(N, K) * sizeof(float)))) return 0;
    umap__sgemm_plan(pool, &p, ta, tb, M, N, K, A, B, C, ws);
    umap__free(NULL, ws);
    return 1;
}

UMAP__FN int umap_sgemm_variant_count(void) { return UMAP__N_GEMM_PLANS; }

/* Tunes the shape class of an M x N x K product now (again, if the tuner has
   a plan for it), on seeded data. */
UMAP__FN umap_result umap_tuner_tune_sgemm(umap_tuner *t, umap_pool *pool, int ta, int tb, int64_t M, int64_t N,
                                           int64_t K) {
    size_t sa, sb, sc;
    float *A, *B, *C, *ws;
    int64_t i;
    umap__gemm_plan plan;
    umap_rng rng;
    umap_result r = UMAP_OK;
    if (!t || M < 1 || N < 1 || K < 1) return UMAP_ERR_INVALID_ARGUMENT;
    if (!umap__bytes2(M, K, 4, &sa) || !umap__bytes2(K, N, 4, &sb) || !umap__bytes2(M, N, 4, &sc))
        return UMAP_ERR_TOO_LARGE;
    A = (float *)umap__alloc(&t->alloc, sa);
    B = (float *)umap__alloc(&t->alloc, sb);
    C = (float *)umap__alloc(&t->alloc, sc);
    ws = (float *)umap__alloc(&t->alloc, (size_t)umap__gemm_workspace(N, K) * sizeof(float));
    if (!A || !B || !C || !ws) r = UMAP_ERR_OUT_OF_MEMORY;
    else {
        umap_rng_init(&rng, 0x7475u, 0);
        for (i = 0; i < M * K; i++) A[i] = umap_rng_uniform(&rng) - 0.5f;
        for (i = 0; i < K * N; i++) B[i] = umap_rng_uniform(&rng) - 0.5f;
        if (!umap__gemm_autotune(t, pool, ta, tb, M, N, K, A, B, C, ws, &plan)) r = UMAP_ERR_OUT_OF_MEMORY;
    }
    umap__free(&t->alloc, A);
    umap__free(&t->alloc, B);
    umap__free(&t->alloc, C);
    umap__free(&t->alloc, ws);
    return r;
}

static void umap__sgemm(umap_pool *pool, int ta, int tb, int64_t M, int64_t N, int64_t K, const float *A,
                        const float *B, float *C, float *workspace) {
#ifndef UMAP_NO_BLAS
    /* small products take the portable kernel when the caller has packing
       space (callers size it with umap__gemm_portable); else CBLAS */
    if (!umap__gemm_portable(M, N, K) || (!workspace && M < 2147483647 && N < 2147483647 && K < 2147483647)) {
        cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)M, (int)N,
                    (int)K, 1.0f, A, (int)(ta ? M : K), B, (int)(tb ? K : N), 0.0f, C, (int)N);
        return;
    }
#endif
    umap__sgemm_pool(pool, ta, tb, M, N, K, A, B, C, workspace);
}

/* >>knn (implementation) --------------------------------------------------- */

/* Resolved parameters of one call. */
typedef struct umap__knn_opts {
    int k, n_threads, tile_rows;
    umap_metric metric;
    float metric_p; /* minkowski's p, resolved (2 when the caller left 0) */
    const float *metric_v; /* seuclidean's V as the caller gave it, or NULL */
    umap_metric_fn metric_fn; /* custom's function, and what it is handed */
    void *metric_user_data;
    const double *col_w;   /* a COLUMNS metric's weights 1 / sqrt V (umap__knn_columns), else NULL */
    double col_w_max;      /* their largest */
    umap_knn_method method;
    umap_allocator alloc;
    umap_logger logger;
    umap_pool *pool; /* the caller's, or NULL */
    umap_knn_info *info;
    umap__err err;   /* into info->error_detail and the logger */
    umap_knn_progress_fn progress;
    void *progress_user_data;
    int64_t exact_threshold;  /* auto's switch, resolved */
    /* NN-Descent: delta resolved; 0 in the other three = chosen by n and k in umap__nndescent */
    uint64_t seed;
    float delta;
    int n_trees, max_iterations, max_candidates;
    int search_width; /* graph search: the walk's kept rows, resolved (>= k, <= n_base at the call) */
} umap__knn_opts;

/* rows per tile: the caller's, else 1024 up to 8192 rows (a 4 MiB tile
   stays warm in cache between sgemm and selection) and 2048 above (fewer,
   larger products) */
static int64_t umap__knn_tile(const umap__knn_opts *o, int64_t n) {
    if (o->tile_rows > 0) return o->tile_rows;
    return n <= 8192 ? 1024 : 2048;
}

static void umap__knn_resolve(const umap_knn_desc *d, umap_knn_info *scratch, umap__knn_opts *o) {
    memset(o, 0, sizeof *o);
    o->k = d && d->k ? d->k : 15;
    o->metric = d ? d->metric : UMAP_METRIC_EUCLIDEAN;
    o->metric_p = d && d->metric_p != 0.0f ? d->metric_p : 2.0f;
    o->metric_v = d ? d->metric_v : NULL;
    o->metric_fn = d ? d->metric_fn : NULL;
    o->metric_user_data = d ? d->metric_user_data : NULL;
    o->method = d ? d->method : UMAP_KNN_AUTO;
    o->n_threads = d ? d->n_threads : 0;
    o->tile_rows = d && d->tile_rows > 0 ? d->tile_rows : 0; /* 0: chosen by size, see umap__knn_tile */
    o->exact_threshold = d && d->exact_threshold > 0 ? d->exact_threshold : UMAP_KNN_EXACT_THRESHOLD;
    o->seed = d ? d->seed : 0;
    o->delta = d && d->delta > 0.0f ? d->delta : 0.001f;
    o->n_trees = d && d->n_trees > 0 ? d->n_trees : 0;
    o->max_iterations = d && d->max_iterations > 0 ? d->max_iterations : 0;
    o->max_candidates = d && d->max_candidates > 0 ? d->max_candidates : 0;
    o->search_width = d && d->search_width > 0 ? d->search_width : UMAP_KNN_GRAPH_WIDTH;
    if (o->search_width < o->k) o->search_width = o->k;
    if (d) {
        o->alloc = d->allocator; o->logger = d->logger; o->pool = d->pool;
        o->progress = d->progress; o->progress_user_data = d->progress_user_data;
    }
    o->info = d && d->info ? d->info : scratch;
    o->err.detail = o->info->error_detail;
    o->err.size = sizeof o->info->error_detail;
    o->err.log = &o->logger;
    memset(o->info, 0, sizeof *o->info);
    o->info->bad_row = -1;
}

/* the caller's progress hook; 1 = cancel (the error is recorded) */
static int umap__knn_progress(const umap__knn_opts *o, int64_t done, int64_t total, const char *units) {
    if (!o->progress || !o->progress(done, total, o->progress_user_data)) return 0;
    umap__fail(&o->err, UMAP_ERR_CANCELLED, "k-NN: cancelled by the progress callback after %lld of %lld %s",
                   (long long)done, (long long)total, units);
    return 1;
}

/* shape, pointer and finiteness checks shared by every entry point. The scan
   runs in waves of at most 64 fixed-size chunks, in order, so the reported
   row is the first bad one whatever the thread count. */
typedef struct umap__finite_ctx {
    const float *x;
    int64_t n, dim, chunk, first_task, first_bad[64];
    float maxabs[64];
} umap__finite_ctx;

static void umap__finite_task(void *ctx, int64_t t) {
    umap__finite_ctx *c = (umap__finite_ctx *)ctx;
    int64_t r0 = (c->first_task + t) * c->chunk, r1 = r0 + c->chunk < c->n ? r0 + c->chunk : c->n, r, j;
    float mx = 0.0f;
    c->first_bad[t] = -1;
    for (r = r0; r < r1; r++) {
        const float *row = c->x + r * c->dim;
        int bad = 0;
        for (j = 0; j < c->dim; j++) {
            float a = fabsf(row[j]);
            bad |= (row[j] - row[j]) != 0.0f; /* NaN for NaN and Inf */
            mx = a > mx ? a : mx;
        }
        if (bad) { c->first_bad[t] = r; break; }
    }
    c->maxabs[t] = mx;
}

enum { UMAP__DOMAIN_ANY, UMAP__DOMAIN_NONNEG, UMAP__DOMAIN_LATLON }; /* UMAP_METRIC_LIST's domain column */
static int umap__metric_domain(umap_metric m);

/* The metric's domain (UMAP_METRIC_LIST's domain column) on n finite rows
   of dim: the first row outside it, in row order, named in the error
   (*bad_row set); `what` names the rows ("data", "queries"). */
static umap_result umap__metric_domain_check(const umap__err *err, umap_metric m, const char *what, const float *x,
                                             int64_t n, int64_t dim, int64_t *bad_row) {
    const char *name = umap_metric_name(m);
    int64_t i;
    switch (umap__metric_domain(m)) {
    case UMAP__DOMAIN_NONNEG: /* square roots of shares: a negative value has none */
        for (i = 0; i < n * dim; i++)
            if (x[i] < 0.0f) {
                *bad_row = i / dim;
                return umap__fail(err, UMAP_ERR_INVALID_ARGUMENT, "%s: %s needs non-negative data: row %lld holds %g (column %lld)",
                                  what, name, (long long)(i / dim), (double)x[i], (long long)(i % dim));
            }
        return UMAP_OK;
    case UMAP__DOMAIN_LATLON: {
        /* float's pi/2 and 2 pi lie just above the real ones: the data's own
           rounding of them passes */
        const double lat_max = 1.5707963705062866, lon_max = 6.2831854820251465;
        if (dim != 2)
            return umap__fail(err, UMAP_ERR_INVALID_ARGUMENT,
                              "%s: %s takes rows of 2 columns (latitude, longitude in radians), not %lld", what, name,
                              (long long)dim);
        for (i = 0; i < n; i++) {
            double lat = x[2 * i], lon = x[2 * i + 1];
            if (fabs(lat) <= lat_max && fabs(lon) <= lon_max) continue;
            *bad_row = i;
            return umap__fail(err, UMAP_ERR_INVALID_ARGUMENT,
                              "%s: %s reads (latitude, longitude) in radians: row %lld holds (%g, %g), beyond "
                              "+-pi/2 or +-2 pi (degrees? multiply by pi/180)",
                              what, name, (long long)i, lat, lon);
        }
        return UMAP_OK;
    }
    default: return UMAP_OK;
    }
}

static umap_result umap__knn_check_data(const umap__knn_opts *o, umap_pool *pool, const char *what, const float *x,
                                        int64_t n, int64_t dim, float *maxabs) {
    umap__finite_ctx c;
    int64_t n_tasks, t, j;
    size_t bytes;
    float mx = 0.0f;
    if (!x) return umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT, "%s is NULL", what);
    if (n < 1 || dim < 1)
        return umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT, "%s has %lld rows of %lld columns: both must be >= 1", what,
                              (long long)n, (long long)dim);
    if (n > 2147483647 || dim > ((int64_t)1 << 40) / n || !umap__bytes2(n, dim, sizeof(float), &bytes))
        return umap__fail(&o->err, UMAP_ERR_TOO_LARGE, "%s: %lld x %lld is too large (rows < 2^31, rows*dim <= 2^40)",
                              what, (long long)n, (long long)dim);
    /* the exact search keeps up to 2k + 16 candidates per row (an index and
       a bound each); checked before the scan below reads any row */
    if (!umap__bytes2(n, 2 * (int64_t)o->k + 16, sizeof(float) + sizeof(int32_t), &bytes))
        return umap__fail(&o->err, UMAP_ERR_TOO_LARGE, "%s: %lld rows x (2k + 16 = %lld) candidates overflow the address space",
                              what, (long long)n, 2 * (long long)o->k + 16);
    c.x = x;
    c.n = n;
    c.dim = dim;
    c.chunk = 1 + 16384 / dim;
    n_tasks = (n + c.chunk - 1) / c.chunk;
    for (c.first_task = 0; c.first_task < n_tasks; c.first_task += 64) {
        int64_t wave = n_tasks - c.first_task < 64 ? n_tasks - c.first_task : 64;
        umap_pool_for(pool, wave, umap__finite_task, &c);
        for (t = 0; t < wave; t++) mx = c.maxabs[t] > mx ? c.maxabs[t] : mx;
        for (t = 0; t < wave; t++)
            if (c.first_bad[t] >= 0) {
                int64_t r = c.first_bad[t];
                for (j = 0; j < dim; j++)
                    if ((x[r * dim + j] - x[r * dim + j]) != 0.0f) break;
                o->info->bad_row = r;
                return umap__fail(&o->err, UMAP_ERR_NON_FINITE, "%s: row %lld holds NaN or Inf (column %lld)", what,
                                      (long long)r, (long long)j);
            }
    }
    if (maxabs && mx > *maxabs) *maxabs = mx;
    return umap__metric_domain_check(&o->err, o->metric, what, x, n, dim, &o->info->bad_row);
}

/* --- the metrics' kernels, four per metric (see UMAP_METRIC_LIST) ---
   umap__mf_NAME: the float "screen" value on the working copy, monotone in
     the distance (euclidean: the squared distance; minkowski: sum |x-y|^p;
     hamming: the count of differing coordinates), written with 16
     independent lanes in fixed-length loops that compilers vectorise; the
     lanes are summed in one fixed order, so any build of one machine gives
     the same bits;
   umap__md_NAME: the public distance in double, the reference the exact
     search ranks by;
   umap__mfin_NAME: the public distance from a screen value;
   umap__mterr_NAME: the rounding error of one coordinate's term in units
     of u = 2^-24, plus what a ratio of sums adds (the screen's relative
     error is then at most gamma_(dim + terr), see umap__metric_bound). */
#define UMAP__LANES16(acc, expr)                                                                \
    float acc[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, r_ = 0.0f;                \
    int64_t j = 0, jj;                                                                          \
    int l;                                                                                      \
    for (; j + 16 <= dim; j += 16)                                                              \
        for (l = 0; l < 16; l++) { jj = j + l; acc[l] += (expr); }                              \
    for (l = 8; l >= 1; l /= 2) { int q; for (q = 0; q < l; q++) acc[q] += acc[q + l]; }      \
    for (jj = j; jj < dim; jj++) r_ += (expr); /* the tail apart: acc stays in registers */     \
    r_ += acc[0]

static float umap__mf_euclidean(const float *a, const float *b, int64_t dim, float p) {
    UMAP__LANES16(s, (a[jj] - b[jj]) * (a[jj] - b[jj]));
    (void)p;
    return r_;
}
static float umap__mf_cosine(const float *a, const float *b, int64_t dim, float p) {
    UMAP__LANES16(s, a[jj] * b[jj]);
    (void)p;
    return 1.0f - r_;
}
static float umap__mf_correlation(const float *a, const float *b, int64_t dim, float p) {
    return umap__mf_cosine(a, b, dim, p); /* on the centred unit copy */
}
static float umap__mf_manhattan(const float *a, const float *b, int64_t dim, float p) {
    UMAP__LANES16(s, fabsf(a[jj] - b[jj]));
    (void)p;
    return r_;
}
static float umap__mf_chebyshev(const float *a, const float *b, int64_t dim, float p) {
    float m[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, d;
    int64_t j = 0;
    int l;
    (void)p;
    for (; j + 16 <= dim; j += 16)
        for (l = 0; l < 16; l++) {
            d = fabsf(a[j + l] - b[j + l]);
            m[l] = d > m[l] ? d : m[l];
        }
    for (; j < dim; j++) {
        d = fabsf(a[j] - b[j]);
        m[0] = d > m[0] ? d : m[0];
    }
    for (l = 1; l < 16; l++) m[0] = m[l] > m[0] ? m[l] : m[0];
    return m[0];
}
static float umap__mf_minkowski(const float *a, const float *b, int64_t dim, float p) {
    if (p == 1.0f) return umap__mf_manhattan(a, b, dim, p);
    if (p == 2.0f) return umap__mf_euclidean(a, b, dim, p);
    { /* the working copy is scaled to |x| < 1/2, so no term overflows */
        UMAP__LANES16(s, powf(fabsf(a[jj] - b[jj]), p));
        return r_;
    }
}
static float umap__mf_hamming(const float *a, const float *b, int64_t dim, float p) {
    UMAP__LANES16(s, a[jj] != b[jj] ? 1.0f : 0.0f);
    (void)p;
    return r_;
}
static float umap__mf_jaccard(const float *a, const float *b, int64_t dim, float p) {
    float any[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, both_r;
    (void)p;
    { /* both: coordinates nonzero in both rows; any: in either */
        UMAP__LANES16(both, (a[jj] != 0.0f && b[jj] != 0.0f) ? 1.0f : 0.0f);
        both_r = r_;
        for (j = 0; j + 16 <= dim; j += 16)
            for (l = 0; l < 16; l++) any[l] += (a[j + l] != 0.0f || b[j + l] != 0.0f) ? 1.0f : 0.0f;
        for (l = 8; l >= 1; l /= 2) { int q; for (q = 0; q < l; q++) any[q] += any[q + l]; }
        for (; j < dim; j++) any[0] += (a[j] != 0.0f || b[j] != 0.0f) ? 1.0f : 0.0f;
    }
    return any[0] > 0.0f ? (any[0] - both_r) / any[0] : 0.0f;
}
/* canberra's term; 0 where both coordinates are 0, as scipy and umap-learn */
static float umap__canberra_term(float a, float b) {
    float den = fabsf(a) + fabsf(b);
    return fabsf(a - b) / (den == 0.0f ? 1.0f : den); /* 0 / 0 is 0; the vector kernel's form */
}
static float umap__mf_canberra(const float *a, const float *b, int64_t dim, float p) {
    UMAP__LANES16(s, umap__canberra_term(a[jj], b[jj]));
    (void)p;
    return r_;
}
static float umap__mf_braycurtis(const float *a, const float *b, int64_t dim, float p) {
    float num;
    (void)p;
    {
        UMAP__LANES16(s, fabsf(a[jj] - b[jj]));
        num = r_;
    }
    {
        UMAP__LANES16(s, fabsf(a[jj] + b[jj]));
        return r_ > 0.0f ? num / r_ : 0.0f;
    }
}
static float umap__mf_seuclidean(const float *a, const float *b, int64_t dim, float p) {
    return umap__mf_euclidean(a, b, dim, p); /* on the copy divided by sqrt V */
}
static float umap__mf_hellinger(const float *a, const float *b, int64_t dim, float p) {
    return umap__mf_euclidean(a, b, dim, p); /* on the square-root copy: 2 (1 - the Bhattacharyya coefficient) */
}
/* dice = J / (2 - J) of jaccard's J = (A xor B) / (A or B): a rising
   function of it, so jaccard's screen (and its vector kernel) serves, and
   umap__mfin_dice maps it. russellrao counts on nonzero coordinates too. */
static float umap__mf_dice(const float *a, const float *b, int64_t dim, float p) {
    return umap__mf_jaccard(a, b, dim, p);
}
static float umap__mf_russellrao(const float *a, const float *b, int64_t dim, float p) {
    float both, either;
    (void)p;
    {
        UMAP__LANES16(s, (a[jj] != 0.0f && b[jj] != 0.0f) ? 1.0f : 0.0f);
        both = r_;
    }
    { /* A = B exactly when no coordinate is nonzero in one row alone */
        UMAP__LANES16(s, ((a[jj] != 0.0f) != (b[jj] != 0.0f)) ? 1.0f : 0.0f);
        either = r_;
    }
    return either == 0.0f ? 0.0f : (float)dim - both; /* the count; umap__mfin_russellrao divides */
}
/* haversine's h = sin^2(dlat/2) + cos lat1 cos lat2 sin^2(dlon/2), in
   [0, 1] and rising with the distance 2 asin(sqrt h): two coordinates,
   so double costs nothing, and every argument is a float or an exact
   float difference, so h's only error worth counting is the final
   rounding to float */
static double umap__haversine_h(const float *a, const float *b) {
    double s_lat = sin(0.5 * ((double)a[0] - b[0])), s_lon = sin(0.5 * ((double)a[1] - b[1]));
    return s_lat * s_lat + cos((double)a[0]) * cos((double)b[0]) * s_lon * s_lon;
}
static float umap__mf_haversine(const float *a, const float *b, int64_t dim, float p) {
    (void)dim;
    (void)p;
    return (float)umap__haversine_h(a, b);
}
#undef UMAP__LANES16

static double umap__md_euclidean(const float *a, const float *b, int64_t dim, double p) {
    double s = 0.0;
    int64_t j;
    (void)p;
    for (j = 0; j < dim; j++) {
        double d = (double)a[j] - b[j];
        s += d * d;
    }
    return sqrt(s);
}
static double umap__md_cosine(const float *a, const float *b, int64_t dim, double p) {
    double s = 0.0;
    int64_t j;
    (void)p;
    for (j = 0; j < dim; j++) s += (double)a[j] * b[j];
    return 1.0 - s; /* unit rows (a zero row: 1) */
}
static double umap__md_correlation(const float *a, const float *b, int64_t dim, double p) {
    return umap__md_cosine(a, b, dim, p); /* on the centred unit copy */
}
static double umap__md_manhattan(const float *a, const float *b, int64_t dim, double p) {
    double s = 0.0;
    int64_t j;
    (void)p;
    for (j = 0; j < dim; j++) s += fabs((double)a[j] - b[j]);
    return s;
}
static double umap__md_chebyshev(const float *a, const float *b, int64_t dim, double p) {
    double m = 0.0;
    int64_t j;
    (void)p;
    for (j = 0; j < dim; j++) m = fmax(m, fabs((double)a[j] - b[j]));
    return m;
}
static double umap__md_minkowski(const float *a, const float *b, int64_t dim, double p) {
    double m, s = 0.0;
    int64_t j;
    if (p == 1.0) return umap__md_manhattan(a, b, dim, p);
    if (p == 2.0) return umap__md_euclidean(a, b, dim, p);
    m = umap__md_chebyshev(a, b, dim, p); /* m (sum (|d| / m)^p)^(1/p): no overflow for any p */
    if (m == 0.0) return 0.0;
    for (j = 0; j < dim; j++) s += pow(fabs((double)a[j] - b[j]) / m, p);
    return m * pow(s, 1.0 / p);
}
static double umap__md_hamming(const float *a, const float *b, int64_t dim, double p) {
    int64_t j, c = 0;
    (void)p;
    for (j = 0; j < dim; j++) c += a[j] != b[j];
    return (double)c / (double)dim;
}
static double umap__md_jaccard(const float *a, const float *b, int64_t dim, double p) {
    int64_t j, any = 0, both = 0;
    (void)p;
    for (j = 0; j < dim; j++) {
        any += a[j] != 0.0f || b[j] != 0.0f;
        both += a[j] != 0.0f && b[j] != 0.0f;
    }
    return any ? (double)(any - both) / (double)any : 0.0; /* two empty sets: 0, as umap-learn */
}

static double umap__md_seuclidean(const float *a, const float *b, int64_t dim, double p) {
    return umap__md_euclidean(a, b, dim, p);
}
static double umap__md_hellinger(const float *a, const float *b, int64_t dim, double p) {
    return umap__md_euclidean(a, b, dim, p) * sqrt(0.5); /* on the square-root copy (equal rows: 0) */
}
static double umap__md_canberra(const float *a, const float *b, int64_t dim, double p) {
    double s = 0.0;
    int64_t j;
    (void)p;
    for (j = 0; j < dim; j++) {
        double den = fabs((double)a[j]) + fabs((double)b[j]);
        if (den > 0.0) s += fabs((double)a[j] - b[j]) / den;
    }
    return s;
}
static double umap__md_braycurtis(const float *a, const float *b, int64_t dim, double p) {
    double num = 0.0, den = 0.0;
    int64_t j;
    (void)p;
    for (j = 0; j < dim; j++) {
        num += fabs((double)a[j] - b[j]);
        den += fabs((double)a[j] + b[j]);
    }
    return den > 0.0 ? num / den : 0.0;
}
static double umap__md_dice(const float *a, const float *b, int64_t dim, double p) {
    int64_t j, both = 0, one = 0;
    (void)p;
    for (j = 0; j < dim; j++) {
        both += a[j] != 0.0f && b[j] != 0.0f;
        one += (a[j] != 0.0f) != (b[j] != 0.0f);
    }
    return one ? (double)one / (double)(2 * both + one) : 0.0;
}
static double umap__md_russellrao(const float *a, const float *b, int64_t dim, double p) {
    int64_t j, both = 0, one = 0;
    (void)p;
    for (j = 0; j < dim; j++) {
        both += a[j] != 0.0f && b[j] != 0.0f;
        one += (a[j] != 0.0f) != (b[j] != 0.0f);
    }
    return one ? (double)(dim - both) / (double)dim : 0.0;
}

static double umap__mfin_haversine(double s, int64_t dim, double p);
static double umap__md_haversine(const float *a, const float *b, int64_t dim, double p) {
    return umap__mfin_haversine(umap__haversine_h(a, b), dim, p);
}

static double umap__mfin_euclidean(double s, int64_t dim, double p) { (void)dim; (void)p; return sqrt(s > 0.0 ? s : 0.0); }
static double umap__mfin_cosine(double s, int64_t dim, double p) { (void)dim; (void)p; return s; }
static double umap__mfin_correlation(double s, int64_t dim, double p) { (void)dim; (void)p; return s; }
static double umap__mfin_manhattan(double s, int64_t dim, double p) { (void)dim; (void)p; return s; }
static double umap__mfin_chebyshev(double s, int64_t dim, double p) { (void)dim; (void)p; return s; }
static double umap__mfin_minkowski(double s, int64_t dim, double p) {
    (void)dim;
    return p == 1.0 ? s : p == 2.0 ? umap__mfin_euclidean(s, dim, p) : pow(s > 0.0 ? s : 0.0, 1.0 / p);
}
static double umap__mfin_seuclidean(double s, int64_t dim, double p) { return umap__mfin_euclidean(s, dim, p); }
static double umap__mfin_hamming(double s, int64_t dim, double p) { (void)p; return s / (double)dim; }
static double umap__mfin_jaccard(double s, int64_t dim, double p) { (void)dim; (void)p; return s; }
static double umap__mfin_hellinger(double s, int64_t dim, double p) { (void)dim; (void)p; return sqrt(s > 0.0 ? 0.5 * s : 0.0); }
static double umap__mfin_canberra(double s, int64_t dim, double p) { (void)dim; (void)p; return s; }
static double umap__mfin_braycurtis(double s, int64_t dim, double p) { (void)dim; (void)p; return s; }
static double umap__mfin_dice(double s, int64_t dim, double p) { (void)dim; (void)p; return s / (2.0 - s); }
static double umap__mfin_russellrao(double s, int64_t dim, double p) { (void)p; return s / (double)dim; }
static double umap__mfin_haversine(double s, int64_t dim, double p) { /* h may round past 1 at antipodes */
    (void)dim;
    (void)p;
    return 2.0 * asin(sqrt(s < 0.0 ? 0.0 : s > 1.0 ? 1.0 : s));
}

/* a term: a rounded difference (1 u), then squared / powered / divided */
static double umap__mterr_euclidean(double p, int64_t dim) { (void)p; (void)dim; return 3.0; }
static double umap__mterr_cosine(double p, int64_t dim) { (void)p; (void)dim; return 2.0; }
static double umap__mterr_correlation(double p, int64_t dim) { (void)p; (void)dim; return 2.0; }
static double umap__mterr_manhattan(double p, int64_t dim) { (void)p; (void)dim; return 1.0; }
static double umap__mterr_chebyshev(double p, int64_t dim) { (void)p; (void)dim; return 1.0; }
/* (1 + u)^p from the difference; then powf within 2 u, or for an integer
   p the products of binary powering (at most p roundings) */
static double umap__mterr_minkowski(double p, int64_t dim) { (void)dim; return 2.0 * p + 4.0; }
static double umap__mterr_seuclidean(double p, int64_t dim) { (void)p; (void)dim; return 3.0; }
static double umap__mterr_hamming(double p, int64_t dim) { (void)p; (void)dim; return 0.0; }
static double umap__mterr_jaccard(double p, int64_t dim) { (void)p; (void)dim; return 2.0; } /* the final division */
static double umap__mterr_hellinger(double p, int64_t dim) { (void)p; (void)dim; return 3.0; }
/* the difference and the sum (1 u each), the division */
static double umap__mterr_canberra(double p, int64_t dim) { (void)p; (void)dim; return 4.0; }
/* a ratio of two sums: the denominator's sum adds its own dim terms */
static double umap__mterr_braycurtis(double p, int64_t dim) { (void)p; return (double)dim + 4.0; }
static double umap__mterr_dice(double p, int64_t dim) { (void)p; (void)dim; return 2.0; }
static double umap__mterr_russellrao(double p, int64_t dim) { (void)p; (void)dim; return 0.0; } /* an exact count */
/* h in double, then one rounding to float (umap__haversine_h) */
static double umap__mterr_haversine(double p, int64_t dim) { (void)p; (void)dim; return 1.0; }
/* precomputed measures nothing (umap__knn_select reads the distances), so
   its row has no kernels, and every path that runs one is closed to it */
#define umap__mf_precomputed NULL
#define umap__md_precomputed NULL
#define umap__mfin_precomputed NULL
#define umap__mterr_precomputed NULL
/* custom's function needs its user data, which no kernel of this table takes:
   the searches call it through umap__mcall (below) */
#define umap__mf_custom NULL
#define umap__md_custom NULL
static double umap__mfin_custom(double s, int64_t dim, double p) { (void)dim; (void)p; return s; }
/* the caller's double, rounded once to float */
static double umap__mterr_custom(double p, int64_t dim) { (void)p; (void)dim; return 1.0; }

enum { UMAP__PREP_SCALE, UMAP__PREP_UNIT, UMAP__PREP_CENTRED_UNIT, UMAP__PREP_PNORM, UMAP__PREP_RATIO, UMAP__PREP_SQRT_L1, UMAP__PREP_COLUMNS, UMAP__PREP_NONE };
enum { UMAP__SCREEN_GRAM_L2, UMAP__SCREEN_GRAM_DOT, UMAP__SCREEN_DIRECT, UMAP__SCREEN_SELECT };

typedef struct umap__metric_info {
    const char *name;
    int prep, screen, binary;
    float apart; /* umap-learn's default disconnection distance; 0 = none */
    int domain;
    float (*screen_fn)(const float *a, const float *b, int64_t dim, float p);
    double (*ref)(const float *a, const float *b, int64_t dim, double p);
    double (*finish)(double s, int64_t dim, double p);
    double (*term_err)(double p, int64_t dim);
} umap__metric_info;

static const umap__metric_info umap__metrics[] = {
#define UMAP__X_METRIC_INFO(id, name, prep, screen, binary, apart, domain)                                        \
    {#name, UMAP__PREP_##prep, UMAP__SCREEN_##screen, binary, apart, UMAP__DOMAIN_##domain, umap__mf_##name,       \
     umap__md_##name, umap__mfin_##name, umap__mterr_##name},
    UMAP_METRIC_LIST(UMAP__X_METRIC_INFO)
#undef UMAP__X_METRIC_INFO
};
typedef char umap__metric_table_complete[sizeof umap__metrics / sizeof umap__metrics[0] == UMAP_METRIC_COUNT ? 1 : -1];

static int umap__metric_domain(umap_metric m) {
    return (int)m >= 0 && (int)m < (int)UMAP_METRIC_COUNT ? umap__metrics[m].domain : UMAP__DOMAIN_ANY;
}

UMAP__FN const char *umap_metric_name(umap_metric m) {
    return (int)m >= 0 && (int)m < (int)UMAP_METRIC_COUNT ? umap__metrics[m].name : "unknown";
}

UMAP__FN int umap_metric_from_name(const char *name, umap_metric *out) {
    int m;
    for (m = 0; name && m < (int)UMAP_METRIC_COUNT; m++)
        if (!strcmp(name, umap__metrics[m].name)) {
            if (out) *out = (umap_metric)m;
            return 1;
        }
    return 0;
}

UMAP__FN const char *umap_metric_names(char *buf, size_t size, const char *sep) {
    size_t at = 0;
    int m;
    if (!buf || size == 0) return "";
    buf[0] = 0;
    for (m = 0; m < (int)UMAP_METRIC_COUNT && at < size; m++)
        at += (size_t)snprintf(buf + at, size - at, "%s%s", m ? sep : "", umap__metrics[m].name);
    return buf;
}

/* The same screens with GNU vector extensions: 16 lanes in registers
   (four SSE vectors on plain x86-64, one zmm under target("avx512f"), the
   native width elsewhere), summed in the plain kernels' lane order. The
   CPU picks at run time, as the sgemm micro-kernel does; one machine
   always runs the same kernel, so results never depend on the thread
   count, and the exact search re-ranks in double whichever ran. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(UMAP_NO_CPU_DISPATCH)
#define UMAP__MV 1
/* v^ip by binary powering (at most 2 log2(ip) products: within p rounding
   steps, which umap__mterr_minkowski counts) */
static float umap__ipowf(float v, int ip) {
    float acc = 1.0f;
    for (; ip; ip >>= 1) {
        if (ip & 1) acc *= v;
        if (ip > 1) v *= v;
    }
    return acc;
}

typedef float umap__mv16 __attribute__((vector_size(64)));
typedef int32_t umap__mi16 __attribute__((vector_size(64)));
#define UMAP__MV_REDUCE(v, tail, out)                                                           \
    {                                                                                           \
        float l_[16];                                                                           \
        int w_, q_;                                                                             \
        memcpy(l_, &(v), sizeof l_);                                                            \
        for (w_ = 8; w_ >= 1; w_ /= 2)                                                          \
            for (q_ = 0; q_ < w_; q_++) l_[q_] += l_[q_ + w_];                                  \
        out = (tail) + l_[0];                                                                   \
    }
#define UMAP__MV_KERNELS(SUF, ATTR)                                                             \
    ATTR static float umap__mv_euclidean##SUF(const float *a, const float *b, int64_t dim, float p) { \
        umap__mv16 s = {0}, x, y;                                                               \
        float t = 0.0f, r;                                                                      \
        int64_t j = 0;                                                                          \
        (void)p;                                                                                \
        for (; j + 16 <= dim; j += 16) {                                                        \
            memcpy(&x, a + j, 64); memcpy(&y, b + j, 64);                                       \
            x -= y;                                                                             \
            s += x * x;                                                                         \
        }                                                                                       \
        for (; j < dim; j++) t += (a[j] - b[j]) * (a[j] - b[j]);                                \
        UMAP__MV_REDUCE(s, t, r)                                                                \
        return r;                                                                               \
    }                                                                                           \
    ATTR static float umap__mv_manhattan##SUF(const float *a, const float *b, int64_t dim, float p) { \
        umap__mv16 s = {0}, x, y;                                                               \
        umap__mi16 absmask = {0};                                                               \
        float t = 0.0f, r;                                                                      \
        int64_t j = 0;                                                                          \
        (void)p;                                                                                \
        absmask += 0x7fffffff;                                                                  \
        for (; j + 16 <= dim; j += 16) {                                                        \
            memcpy(&x, a + j, 64); memcpy(&y, b + j, 64);                                       \
            s += (umap__mv16)((umap__mi16)(x - y) & absmask);                                   \
        }                                                                                       \
        for (; j < dim; j++) t += fabsf(a[j] - b[j]);                                           \
        UMAP__MV_REDUCE(s, t, r)                                                                \
        return r;                                                                               \
    }                                                                                           \
    ATTR static float umap__mv_chebyshev##SUF(const float *a, const float *b, int64_t dim, float p) { \
        umap__mv16 s = {0}, x, y;                                                               \
        umap__mi16 absmask = {0}, gt;                                                           \
        float m[16], r = 0.0f;                                                                  \
        int64_t j = 0;                                                                          \
        int l;                                                                                  \
        (void)p;                                                                                \
        absmask += 0x7fffffff;                                                                  \
        for (; j + 16 <= dim; j += 16) {                                                        \
            memcpy(&x, a + j, 64); memcpy(&y, b + j, 64);                                       \
            x = (umap__mv16)((umap__mi16)(x - y) & absmask);                                    \
            gt = x > s;                                                                         \
            s = (umap__mv16)(((umap__mi16)x & gt) | ((umap__mi16)s & ~gt));                     \
        }                                                                                       \
        memcpy(m, &s, sizeof m);                                                                \
        for (l = 0; l < 16; l++) r = m[l] > r ? m[l] : r;                                       \
        for (; j < dim; j++) r = fabsf(a[j] - b[j]) > r ? fabsf(a[j] - b[j]) : r;               \
        return r;                                                                               \
    }                                                                                           \
    ATTR static float umap__mv_hamming##SUF(const float *a, const float *b, int64_t dim, float p) { \
        umap__mv16 x, y;                                                                        \
        umap__mi16 c = {0};                                                                     \
        int32_t l[16];                                                                          \
        int64_t j = 0, total = 0;                                                               \
        int q;                                                                                  \
        (void)p;                                                                                \
        for (; j + 16 <= dim; j += 16) { /* a lane counts to dim / 16 < 2^31 */              \
            memcpy(&x, a + j, 64); memcpy(&y, b + j, 64);                                       \
            c -= x != y;                                                                        \
        }                                                                                       \
        memcpy(l, &c, sizeof l);                                                                \
        for (q = 0; q < 16; q++) total += l[q];                                                 \
        for (; j < dim; j++) total += a[j] != b[j];                                             \
        return (float)total;                                                                    \
    }                                                                                           \
    /* the nonzero coordinates of both rows (*both) and of either (*any): the set metrics' counts */ \
    ATTR static void umap__mv_sets##SUF(const float *a, const float *b, int64_t dim, int64_t *both_out, \
                                        int64_t *any_out) {                                     \
        umap__mv16 x, y, z = {0};                                                               \
        umap__mi16 both = {0}, any = {0}, nx, ny;                                               \
        int32_t lb[16], la[16];                                                                 \
        int64_t j = 0, tb = 0, ta = 0;                                                          \
        int q;                                                                                  \
        for (; j + 16 <= dim; j += 16) {                                                        \
            memcpy(&x, a + j, 64); memcpy(&y, b + j, 64);                                       \
            nx = x != z;                                                                        \
            ny = y != z;                                                                        \
            both -= nx & ny;                                                                    \
            any -= nx | ny;                                                                     \
        }                                                                                       \
        memcpy(lb, &both, sizeof lb);                                                           \
        memcpy(la, &any, sizeof la);                                                            \
        for (q = 0; q < 16; q++) { tb += lb[q]; ta += la[q]; }                                  \
        for (; j < dim; j++) {                                                                  \
            tb += a[j] != 0.0f && b[j] != 0.0f;                                                 \
            ta += a[j] != 0.0f || b[j] != 0.0f;                                                 \
        }                                                                                       \
        *both_out = tb;                                                                         \
        *any_out = ta;                                                                          \
    }                                                                                           \
    ATTR static float umap__mv_jaccard##SUF(const float *a, const float *b, int64_t dim, float p) { \
        int64_t tb, ta;                                                                         \
        (void)p;                                                                                \
        umap__mv_sets##SUF(a, b, dim, &tb, &ta);                                                \
        return ta > 0 ? (float)(ta - tb) / (float)ta : 0.0f;                                    \
    }                                                                                           \
    /* canberra: a term's 0 / 0 is 0 (as the plain kernel's branch) by a denominator of 1 */  \
    ATTR static float umap__mv_canberra##SUF(const float *a, const float *b, int64_t dim, float p) { \
        umap__mv16 s = {0}, x, y, den, z = {0}, one = {0};                                      \
        umap__mi16 absmask = {0};                                                               \
        float t = 0.0f, r;                                                                      \
        int64_t j = 0;                                                                          \
        (void)p;                                                                                \
        absmask += 0x7fffffff;                                                                  \
        one += 1.0f;                                                                            \
        for (; j + 16 <= dim; j += 16) {                                                        \
            memcpy(&x, a + j, 64); memcpy(&y, b + j, 64);                                       \
            den = (umap__mv16)((umap__mi16)x & absmask) + (umap__mv16)((umap__mi16)y & absmask); \
            den += (umap__mv16)((umap__mi16)one & (den == z));                                  \
            s += (umap__mv16)((umap__mi16)(x - y) & absmask) / den;                             \
        }                                                                                       \
        for (; j < dim; j++) t += umap__canberra_term(a[j], b[j]);                              \
        UMAP__MV_REDUCE(s, t, r)                                                                \
        return r;                                                                               \
    }                                                                                           \
    ATTR static float umap__mv_braycurtis##SUF(const float *a, const float *b, int64_t dim, float p) { \
        umap__mv16 s = {0}, u = {0}, x, y;                                                      \
        umap__mi16 absmask = {0};                                                               \
        float t = 0.0f, tu = 0.0f, num, den;                                                    \
        int64_t j = 0;                                                                          \
        (void)p;                                                                                \
        absmask += 0x7fffffff;                                                                  \
        for (; j + 16 <= dim; j += 16) {                                                        \
            memcpy(&x, a + j, 64); memcpy(&y, b + j, 64);                                       \
            s += (umap__mv16)((umap__mi16)(x - y) & absmask);                                   \
            u += (umap__mv16)((umap__mi16)(x + y) & absmask);                                   \
        }                                                                                       \
        for (; j < dim; j++) { t += fabsf(a[j] - b[j]); tu += fabsf(a[j] + b[j]); }            \
        UMAP__MV_REDUCE(s, t, num)                                                              \
        UMAP__MV_REDUCE(u, tu, den)                                                             \
        return den > 0.0f ? num / den : 0.0f;                                                   \
    }                                                                                           \
    /* russellrao: dim - |A and B|, or 0 when A = B (no coordinate set in one row alone) */     \
    ATTR static float umap__mv_russellrao##SUF(const float *a, const float *b, int64_t dim, float p) { \
        int64_t tb, ta;                                                                         \
        (void)p;                                                                                \
        umap__mv_sets##SUF(a, b, dim, &tb, &ta);                                                \
        return ta == tb ? 0.0f : (float)(dim - tb);                                             \
    }                                                                                           \
    /* minkowski with an integer p (3 ... 64): |x - y|^p by binary powering, in lanes */        \
    ATTR static float umap__mv_minkowski_int##SUF(const float *a, const float *b, int64_t dim, float p) { \
        umap__mv16 s = {0}, x, y, acc, sq, one = {0};                                           \
        umap__mi16 absmask = {0};                                                               \
        float t = 0.0f, r;                                                                      \
        int64_t j = 0;                                                                          \
        int e, ip = (int)p;                                                                     \
        absmask += 0x7fffffff;                                                                  \
        one += 1.0f;                                                                            \
        for (; j + 16 <= dim; j += 16) {                                                        \
            memcpy(&x, a + j, 64); memcpy(&y, b + j, 64);                                       \
            sq = (umap__mv16)((umap__mi16)(x - y) & absmask);                                   \
            for (acc = one, e = ip; e; e >>= 1) {                                               \
                if (e & 1) acc *= sq;                                                           \
                if (e > 1) sq *= sq;                                                            \
            }                                                                                   \
            s += acc;                                                                           \
        }                                                                                       \
        for (; j < dim; j++) t += umap__ipowf(fabsf(a[j] - b[j]), ip);                          \
        UMAP__MV_REDUCE(s, t, r)                                                                \
        return r;                                                                               \
    }
UMAP__MV_KERNELS(_base, )
#ifdef UMAP__CPU_DISPATCH
UMAP__MV_KERNELS(_avx512, __attribute__((target("avx512f"))))
#endif
#undef UMAP__MV_KERNELS
#undef UMAP__MV_REDUCE
#endif

typedef float (*umap__metric_fn)(const float *a, const float *b, int64_t dim, float p);

/* the fastest kernel this CPU has for the metric's screen (and minkowski's
   p = 1, 2 by manhattan's and euclidean's) */
static umap__metric_fn umap__metric_kernel(umap_metric m, float p) {
    if (m == UMAP_METRIC_MINKOWSKI && p == 1.0f) m = UMAP_METRIC_MANHATTAN;
    if (m == UMAP_METRIC_MINKOWSKI && p == 2.0f) m = UMAP_METRIC_EUCLIDEAN;
#ifdef UMAP__MV
    {
#ifdef UMAP__CPU_DISPATCH
        const int wide = umap__cpu_has(UMAP__CPU_AVX512F);
#define UMAP__MV_PICK(name) return wide ? umap__mv_##name##_avx512 : umap__mv_##name##_base
#else
#define UMAP__MV_PICK(name) return umap__mv_##name##_base
#endif
        switch (m) {
        case UMAP_METRIC_EUCLIDEAN: UMAP__MV_PICK(euclidean);
        case UMAP_METRIC_MANHATTAN: UMAP__MV_PICK(manhattan);
        case UMAP_METRIC_CHEBYSHEV: UMAP__MV_PICK(chebyshev);
        case UMAP_METRIC_HAMMING: UMAP__MV_PICK(hamming);
        case UMAP_METRIC_JACCARD: UMAP__MV_PICK(jaccard);
        case UMAP_METRIC_DICE: UMAP__MV_PICK(jaccard); /* dice's screen is jaccard's (umap__mf_dice) */
        case UMAP_METRIC_CANBERRA: UMAP__MV_PICK(canberra);
        case UMAP_METRIC_BRAYCURTIS: UMAP__MV_PICK(braycurtis);
        case UMAP_METRIC_RUSSELLRAO: UMAP__MV_PICK(russellrao);
        case UMAP_METRIC_MINKOWSKI:
            if (p == floorf(p) && p <= 64.0f) UMAP__MV_PICK(minkowski_int);
            break;
        default: break;
        }
#undef UMAP__MV_PICK
    }
#endif
    return umap__metrics[m].screen_fn;
}


/* the DIRECT screen's error: |fl(s) - s| <= c1 s + c2, c1 = gamma_(dim +
   terms) with room for the float arithmetic of the bounds themselves
   (4 u), c2 for terms that underflow (minkowski's powers); a binary
   metric's counts are exact, so only its final rounding counts */
static void umap__metric_bound(umap_metric m, double p, int64_t dim, float *c1, float *c2) {
    double u = 1.0 / 16777216.0,
           sum_err = m == UMAP_METRIC_CUSTOM || (umap__metrics[m].binary && dim < (1 << 24)) ? 0.0 : (double)dim;
    double t = (sum_err + umap__metrics[m].term_err(p, dim) + 4.0) * u;
    *c1 = t < 0.5 ? (float)(1.01 * t / (1.0 - t)) : 1e30f; /* past that: every row a candidate, still exact */
    *c2 = ldexpf((float)dim, -140);
}

/* One metric as a search measures a pair: a built-in's kernels, or custom's
   function. Custom's distances are kept as the caller's double, except a
   NaN, an Inf or a value beyond float's range, kept as UMAP__CUSTOM_BAD:
   negative like a negative distance, so that each sorts before every true
   distance, the row's list keeps it, and umap__custom_check names the pair
   after the search. The screen (umap__mcall_screen) keeps a wrong value as
   0 instead: the screens' bounds hold for values >= 0, and at 0 the pair is
   always a candidate, measured again in double. */
#define UMAP__CUSTOM_BAD (-FLT_MAX)
typedef struct umap__mcall {
    umap_metric metric;
    float p;                /* minkowski's */
    umap__metric_fn screen; /* a built-in's fastest screen kernel (NULL for custom) */
    umap_metric_fn fn;      /* custom's, and its user data */
    void *user_data;
} umap__mcall;

static umap__mcall umap__mcall_make(umap_metric metric, float p, umap_metric_fn fn, void *user_data) {
    umap__mcall m;
    m.metric = metric;
    m.p = p;
    m.fn = metric == UMAP_METRIC_CUSTOM ? fn : NULL;
    m.user_data = user_data;
    m.screen = m.fn ? NULL : umap__metric_kernel(metric, p);
    return m;
}

static double umap__custom_dist(const umap__mcall *m, const float *a, const float *b, int64_t dim) {
    double v = m->fn(a, b, dim, m->user_data);
    if (v >= 0.0 && v <= FLT_MAX) return v;
    if (v < 0.0 && v > -FLT_MAX) return v < -FLT_MIN ? v : -FLT_MIN; /* still negative in float */
    return UMAP__CUSTOM_BAD;
}

/* the float screen value (a DIRECT metric's; custom's the distance itself) */
static float umap__mcall_screen(const umap__mcall *m, const float *a, const float *b, int64_t dim) {
    if (m->fn) {
        double v = umap__custom_dist(m, a, b, dim);
        return v >= 0.0 ? (float)v : 0.0f;
    }
    return m->screen(a, b, dim, m->p);
}

/* the public distance in double (on the working copy) */
static double umap__mcall_exact(const umap__mcall *m, const float *a, const float *b, int64_t dim) {
    return m->fn ? umap__custom_dist(m, a, b, dim) : umap__metrics[m->metric].ref(a, b, dim, (double)m->p);
}

/* rows scaled to unit length in double; zero rows stay zero. sqrt_l1
   (hellinger): each value divided by the row's sum, then its square root,
   which is a unit row too (the data was checked non-negative) */
typedef struct umap__norm_ctx {
    const float *x;
    float *out;
    int64_t dim;
    int centre;  /* subtract the row's mean first (correlation) */
    int sqrt_l1; /* hellinger's square roots of the row's shares */
} umap__norm_ctx;
static void umap__normalize_range(void *ctx, int64_t r0, int64_t r1) {
    const umap__norm_ctx *c = (const umap__norm_ctx *)ctx;
    int64_t r, j;
    for (r = r0; r < r1; r++) {
        const float *row = c->x + r * c->dim;
        float *o = c->out + r * c->dim;
        double s = 0.0, inv, mean = 0.0;
        if (c->sqrt_l1) {
            for (j = 0; j < c->dim; j++) s += row[j];
            inv = s > 0.0 ? 1.0 / s : 0.0;
            for (j = 0; j < c->dim; j++) o[j] = (float)sqrt((double)row[j] * inv);
            continue;
        }
        if (c->centre) {
            for (j = 0; j < c->dim; j++) mean += row[j];
            mean /= (double)c->dim;
        }
        for (j = 0; j < c->dim; j++) s += ((double)row[j] - mean) * ((double)row[j] - mean);
        /* a constant row (centred) is a zero row: distance 1 to every row */
        inv = s > 0.0 ? 1.0 / sqrt(s) : 0.0;
        for (j = 0; j < c->dim; j++) o[j] = (float)(((double)row[j] - mean) * inv);
    }
}

/* --- exact search: screening with a proven error bound, then re-ranking ---

   score s_ij = |y_j|^2 - 2 x_i.y_j (euclidean; |x_i|^2 is the same for the
   whole row) or -x_i.y_j (cosine, unit rows), with x.y from sgemm. Any
   summation order gives |fl(x.y) - x.y| <= gamma_d |x||y|, gamma_d =
   d u / (1 - d u), u = 2^-24, so |s - s_true| <= e_ij = c1 |x||y| + c2 |y|^2.
   Per row, U = the k-th smallest upper bound s + e seen so far; every j with
   lower bound s - e <= U is kept as a candidate. The true k nearest all have
   s_true <= U, so they are among the candidates; the candidates are then
   ranked by distances computed directly in double. */
typedef struct umap__knn_state {
    int k, cap;
    float *heap;          /* per row: max-heap of the k smallest upper bounds */
    int32_t *heap_n;
    float *cand_lb;       /* per row: up to cap candidates (lower bound, index) */
    int32_t *cand_idx, *cand_n;
    unsigned char *overflow;
} umap__knn_state;

static float umap__knn_threshold(const umap__knn_state *st, int64_t row) {
    return st->heap_n[row] == st->k ? st->heap[row * st->k] : INFINITY;
}

/* offer candidate j to row `row`: lb <= current threshold is already known */
static void umap__knn_offer(umap__knn_state *st, int64_t row, int32_t j, float lb, float ub) {
    float *h = st->heap + row * st->k;
    int32_t n = st->heap_n[row], c;
    float U;
    if (n < st->k) {
        /* sift up */
        int32_t i = n;
        while (i > 0 && h[(i - 1) / 2] < ub) { h[i] = h[(i - 1) / 2]; i = (i - 1) / 2; }
        h[i] = ub;
        st->heap_n[row] = n + 1;
    } else if (ub < h[0]) {
        int32_t i = 0;
        for (;;) {
            int32_t l = 2 * i + 1, r = l + 1, m = i;
            float mv = ub;
            if (l < n && h[l] > mv) { m = l; mv = h[l]; }
            if (r < n && h[r] > mv) m = r;
            if (m == i) break;
            h[i] = h[m];
            i = m;
        }
        h[i] = ub;
    }
    U = umap__knn_threshold(st, row);
    if (st->overflow[row] || lb > U) return;
    c = st->cand_n[row];
    if (c == st->cap) {
        /* drop what the tightened threshold rules out */
        float *L = st->cand_lb + row * st->cap;
        int32_t *ids = st->cand_idx + row * st->cap, w = 0, q;
        for (q = 0; q < c; q++)
            if (L[q] <= U) { L[w] = L[q]; ids[w] = ids[q]; w++; }
        c = w;
        if (c == st->cap) { st->overflow[row] = 1; st->cand_n[row] = c; return; }
    }
    st->cand_lb[row * st->cap + c] = lb;
    st->cand_idx[row * st->cap + c] = j;
    st->cand_n[row] = c + 1;
}

typedef struct umap__tile_ctx {
    umap__knn_state *st;
    const float *G;              /* rows I x cols J, leading dimension ldg */
    int64_t ldg, i0, ni, j0, nj;
    const float *qnorm;          /* |x| of query rows (global index) */
    const float *bnorm, *bnorm2; /* |y|, |y|^2 of base rows (global index) */
    float c1, c2;                /* the bound's constants (DIRECT: e = c1 s + c2) */
    int self, mode;              /* mode: the metric's UMAP__SCREEN_* */
    int64_t row_tasks, col_grain;
} umap__tile_ctx;

/* The bound of one score g (a tile entry): lb = g - e, ub = g + e in the
   DIRECT mode; the Gram modes hold the product and their e comes from the
   norms (see above). */
#define UMAP__DIRECT_LB(g, c1, c2) ((g) - ((c1) * (g) + (c2)))

/* query rows of the tile: row by row, lower bounds computed in one
   vectorisable pass, then a rarely taken branch */
static void umap__tile_rows(umap__tile_ctx *c, int64_t r0, int64_t r1) {
    float lbs[256];
    int64_t r, j, b;
    for (r = r0; r < r1; r++) {
        int64_t row = c->i0 + r;
        const float *g = c->G + r * c->ldg;
        float ax = c->c1 * c->qnorm[row];
        for (b = 0; b < c->nj; b += 256) {
            int64_t nb = c->nj - b < 256 ? c->nj - b : 256;
            const float *bn = c->bnorm + c->j0 + b, *bn2 = c->bnorm2 + c->j0 + b;
            float U, c1 = c->c1, c2 = c->c2;
            /* full chunks get a constant trip count, which gcc -O2 vectorises */
            if (c->mode == UMAP__SCREEN_DIRECT) {
                if (nb == 256) for (j = 0; j < 256; j++) lbs[j] = UMAP__DIRECT_LB(g[b + j], c1, c2);
                else for (j = 0; j < nb; j++) lbs[j] = UMAP__DIRECT_LB(g[b + j], c1, c2);
            } else if (c->mode == UMAP__SCREEN_GRAM_DOT) {
                if (nb == 256) for (j = 0; j < 256; j++) lbs[j] = -g[b + j] - ax * bn[j];
                else for (j = 0; j < nb; j++) lbs[j] = -g[b + j] - ax * bn[j];
            } else {
                if (nb == 256) for (j = 0; j < 256; j++) lbs[j] = (bn2[j] - 2.0f * g[b + j]) - (ax * bn[j] + c2 * bn2[j]);
                else for (j = 0; j < nb; j++) lbs[j] = (bn2[j] - 2.0f * g[b + j]) - (ax * bn[j] + c2 * bn2[j]);
            }
            U = umap__knn_threshold(c->st, row);
            for (j = 0; j < nb; j++) {
                int64_t col = c->j0 + b + j;
                if ((j & 15) == 0 && j + 16 <= nb) {
                    /* most groups of 16 hold no candidate: one branch for all */
                    int q, any = 0;
                    for (q = 0; q < 16; q++) any |= lbs[j + q] <= U;
                    if (!any) { j += 15; continue; }
                }
                if (lbs[j] <= U && !(c->self && col == row)) {
                    float ub;
                    if (c->mode == UMAP__SCREEN_DIRECT) ub = g[b + j] + (c1 * g[b + j] + c2);
                    else {
                        float e = ax * bn[j] + (c->mode == UMAP__SCREEN_GRAM_DOT ? 0.0f : c2 * bn2[j]);
                        ub = (lbs[j] + e) + e;
                    }
                    umap__knn_offer(c->st, row, (int32_t)col, lbs[j], ub);
                    U = umap__knn_threshold(c->st, row);
                }
            }
        }
    }
}

/* base rows of an off-diagonal self tile: the same tile read by columns,
   16 at a time, so each tile is computed once for both of its row blocks
   (every metric is symmetric, its float kernel included) */
static void umap__tile_cols(umap__tile_ctx *c, int64_t c0, int64_t c1) {
    int64_t col, i;
    const float k1 = c->c1, k2 = c->c2;
    for (col = c0; col < c1; col += 16) {
        int64_t w = c1 - col < 16 ? c1 - col : 16, q;
        float U[16], ay[16];
        for (q = 0; q < w; q++) {
            U[q] = umap__knn_threshold(c->st, c->j0 + col + q);
            ay[q] = k1 * c->bnorm[c->j0 + col + q];
        }
        for (i = 0; i < c->ni; i++) {
            const float *g = c->G + i * c->ldg + col;
            int64_t row_i = c->i0 + i;
            float xn = c->bnorm[row_i], xn2 = c->bnorm2[row_i];
            float lbs[16], c2x = k2 * xn2;
            int any = 0;
            if (w == 16) {
                if (c->mode == UMAP__SCREEN_DIRECT) for (q = 0; q < 16; q++) lbs[q] = UMAP__DIRECT_LB(g[q], k1, k2);
                else if (c->mode == UMAP__SCREEN_GRAM_DOT) for (q = 0; q < 16; q++) lbs[q] = -g[q] - ay[q] * xn;
                else for (q = 0; q < 16; q++) lbs[q] = (xn2 - 2.0f * g[q]) - (ay[q] * xn + c2x);
                for (q = 0; q < 16; q++) any |= lbs[q] <= U[q];
                if (!any) continue;
            } else
                for (q = 0; q < w; q++)
                    lbs[q] = c->mode == UMAP__SCREEN_DIRECT     ? UMAP__DIRECT_LB(g[q], k1, k2)
                             : c->mode == UMAP__SCREEN_GRAM_DOT ? -g[q] - ay[q] * xn
                                                                : (xn2 - 2.0f * g[q]) - (ay[q] * xn + c2x);
            for (q = 0; q < w; q++)
                if (lbs[q] <= U[q]) {
                    float ub;
                    if (c->mode == UMAP__SCREEN_DIRECT) ub = g[q] + (k1 * g[q] + k2);
                    else ub = lbs[q] + 2.0f * (ay[q] * xn + (c->mode == UMAP__SCREEN_GRAM_DOT ? 0.0f : k2 * xn2));
                    umap__knn_offer(c->st, c->j0 + col + q, (int32_t)row_i, lbs[q], ub);
                    U[q] = umap__knn_threshold(c->st, c->j0 + col + q);
                }
        }
    }
}

static void umap__tile_task(void *ctx, int64_t t) {
    umap__tile_ctx *c = (umap__tile_ctx *)ctx;
    if (t < c->row_tasks) {
        int64_t per = (c->ni + c->row_tasks - 1) / c->row_tasks, r0 = t * per;
        umap__tile_rows(c, r0, r0 + per < c->ni ? r0 + per : c->ni);
    } else {
        int64_t c0 = (t - c->row_tasks) * c->col_grain;
        umap__tile_cols(c, c0, c0 + c->col_grain < c->nj ? c0 + c->col_grain : c->nj);
    }
}

typedef struct umap__rank_ctx {
    const umap__knn_state *st;
    const float *q, *base;
    int64_t dim, n_base;
    umap__mcall m;
    int direct;              /* a DIRECT metric: m's screen, and its bound */
    float c1, c2;
    int self;
    int32_t *indices;
    float *distances;
    double *scratch_d;   /* per task: cap doubles */
    int32_t *scratch_i;  /* per task: cap ints */
    int64_t rows_per_task, n_rows;
} umap__rank_ctx;

/* (distance, index) order */
static int umap__pair_less(double da, int32_t ia, double db, int32_t ib) { return da < db || (da == db && ia < ib); }

/* keeps the k best (d, i) of a stream in a sorted array (insertion) */
static void umap__topk_push(double *d, int32_t *ix, int *n, int k, double dv, int32_t iv) {
    int p;
    if (*n == k && !umap__pair_less(dv, iv, d[k - 1], ix[k - 1])) return;
    p = *n < k ? (*n)++ : k - 1;
    while (p > 0 && umap__pair_less(dv, iv, d[p - 1], ix[p - 1])) { d[p] = d[p - 1]; ix[p] = ix[p - 1]; p--; }
    d[p] = dv;
    ix[p] = iv;
}

static void umap__rank_task(void *ctx, int64_t t) {
    const umap__rank_ctx *c = (const umap__rank_ctx *)ctx;
    const umap__knn_state *st = c->st;
    double *d = c->scratch_d + t * st->cap;
    int32_t *ix = c->scratch_i + t * st->cap;
    int64_t r0 = t * c->rows_per_task, r1 = r0 + c->rows_per_task < c->n_rows ? r0 + c->rows_per_task : c->n_rows, r;
    for (r = r0; r < r1; r++) {
        int n = 0, q;
        const float *x = c->q + r * c->dim;
        if (st->overflow[r] && c->direct) {
            /* the candidate buffer overflowed (ties): the row against every
               base row by the fast screen, twice: the k-th smallest upper
               bound U, then double distances of the rows whose lower bound
               does not exceed U (d[0..k) first holds a max-heap of bounds) */
            int64_t j;
            int h = 0, i, ch;
            for (j = 0; j < c->n_base; j++) {
                float sv, ub;
                if (c->self && j == r) continue;
                sv = umap__mcall_screen(&c->m, x, c->base + j * c->dim, c->dim);
                ub = sv + (c->c1 * sv + c->c2);
                if (h < st->k) { /* sift up */
                    for (i = h++; i > 0 && d[(i - 1) / 2] < ub; i = (i - 1) / 2) d[i] = d[(i - 1) / 2];
                    d[i] = ub;
                } else if (ub < d[0]) { /* replace the root, sift down */
                    for (i = 0;; i = ch) {
                        ch = 2 * i + 1;
                        if (ch >= h) break;
                        if (ch + 1 < h && d[ch + 1] > d[ch]) ch++;
                        if (!(d[ch] > ub)) break;
                        d[i] = d[ch];
                    }
                    d[i] = ub;
                }
            }
            {
                float U = (float)d[0];
                for (j = 0; j < c->n_base; j++) {
                    float sv;
                    if (c->self && j == r) continue;
                    sv = umap__mcall_screen(&c->m, x, c->base + j * c->dim, c->dim);
                    if (UMAP__DIRECT_LB(sv, c->c1, c->c2) <= U)
                        umap__topk_push(d, ix, &n, st->k,
                                        umap__mcall_exact(&c->m, x, c->base + j * c->dim, c->dim),
                                        (int32_t)j);
                }
            }
        } else if (st->overflow[r]) {
            /* the candidate buffer overflowed (extreme ties): search the row directly */
            int64_t j;
            for (j = 0; j < c->n_base; j++)
                if (!(c->self && j == r))
                    umap__topk_push(d, ix, &n, st->k, umap__mcall_exact(&c->m, x, c->base + j * c->dim, c->dim),
                                    (int32_t)j);
        } else {
            float U = umap__knn_threshold(st, r);
            const float *L = st->cand_lb + r * st->cap;
            const int32_t *ids = st->cand_idx + r * st->cap;
            for (q = 0; q < st->cand_n[r]; q++)
                if (L[q] <= U)
                    umap__topk_push(d, ix, &n, st->k,
                                    umap__mcall_exact(&c->m, x, c->base + (int64_t)ids[q] * c->dim, c->dim),
                                    ids[q]);
        }
        for (q = 0; q < st->k; q++) {
            if (c->indices) c->indices[r * st->k + q] = ix[q];
            if (c->distances) c->distances[r * st->k + q] = (float)d[q];
        }
    }
}

typedef struct umap__norms_ctx {
    const float *x;
    int64_t dim;
    float *norm, *norm2;
} umap__norms_ctx;
static void umap__norms_range(void *ctx, int64_t r0, int64_t r1) {
    const umap__norms_ctx *c = (const umap__norms_ctx *)ctx;
    int64_t r, j;
    for (r = r0; r < r1; r++) {
        double s = 0.0;
        for (j = 0; j < c->dim; j++) s += (double)c->x[r * c->dim + j] * c->x[r * c->dim + j];
        c->norm2[r] = (float)s;
        c->norm[r] = (float)sqrt(s);
    }
}

/* a DIRECT tile: G[r][j] = the metric's screen value of query row i0 + r
   and base row j0 + j, in blocks of 64 base rows that stay in cache while
   the task's rows pass over them */
typedef struct umap__direct_ctx {
    const float *q, *base;
    float *G;
    int64_t dim, i0, ni, j0, nj;
    const umap__mcall *m;
} umap__direct_ctx;
static void umap__direct_range(void *ctx, int64_t r0, int64_t r1) {
    const umap__direct_ctx *c = (const umap__direct_ctx *)ctx;
    int64_t jb, r, j;
    for (jb = 0; jb < c->nj; jb += 64) {
        int64_t je = jb + 64 < c->nj ? jb + 64 : c->nj;
        for (r = r0; r < r1; r++) {
            const float *x = c->q + (c->i0 + r) * c->dim;
            for (j = jb; j < je; j++) c->G[r * c->nj + j] = umap__mcall_screen(c->m, x, c->base + (c->j0 + j) * c->dim, c->dim);
        }
    }
}

/* The exact engine: queries q (nq rows) against base (nb rows), both the
   metric's working copies (umap__knn_prepare). self: q == base and row i
   never lists itself. */
static umap_result umap__knn_exact(const umap__knn_opts *o, umap_pool *pool, const float *q, int64_t nq,
                                   const float *base, int64_t nb, int64_t dim, int self, int32_t *indices,
                                   float *distances) {
    umap__knn_state st;
    umap__tile_ctx tc;
    umap__rank_ctx rc;
    umap__norms_ctx nc;
    const umap_allocator *a = &o->alloc;
    const umap__mcall mc = umap__mcall_make(o->metric, o->metric_p, o->metric_fn, o->metric_user_data);
    int64_t T = umap__knn_tile(o, nq > nb ? nq : nb), ti, tj, rank_tasks, tiles_total, tiles_done = 0;
    float *qnorm = NULL, *qnorm2 = NULL, *bnorm = NULL, *bnorm2 = NULL, *G = NULL, *ws = NULL;
    double u = 1.0 / 16777216.0, gamma = (double)dim * u / (1.0 - (double)dim * u);
    umap_result r = UMAP_OK;
    memset(&st, 0, sizeof st);
    st.k = o->k;
    st.cap = 2 * o->k + 16;
    int64_t Tq = T < nq ? T : nq, Tb = T < nb ? T : nb;
    st.heap = (float *)umap__alloc(a, (size_t)nq * (size_t)st.k * sizeof(float));
    st.heap_n = (int32_t *)umap__calloc(a, (size_t)nq, sizeof(int32_t));
    st.cand_lb = (float *)umap__alloc(a, (size_t)nq * (size_t)st.cap * sizeof(float));
    st.cand_idx = (int32_t *)umap__alloc(a, (size_t)nq * (size_t)st.cap * sizeof(int32_t));
    st.cand_n = (int32_t *)umap__calloc(a, (size_t)nq, sizeof(int32_t));
    st.overflow = (unsigned char *)umap__calloc(a, (size_t)nq, 1);
    qnorm = (float *)umap__alloc(a, (size_t)nq * sizeof(float));
    qnorm2 = (float *)umap__alloc(a, (size_t)nq * sizeof(float));
    bnorm = self ? qnorm : (float *)umap__alloc(a, (size_t)nb * sizeof(float));
    bnorm2 = self ? qnorm2 : (float *)umap__alloc(a, (size_t)nb * sizeof(float));
    G = (float *)umap__alloc(a, (size_t)Tq * (size_t)Tb * sizeof(float));
    if (umap__gemm_portable(Tq, Tb, dim)) ws = (float *)umap__alloc(a, (size_t)umap__gemm_workspace(Tb, dim) * sizeof(float));
    if (!st.heap || !st.heap_n || !st.cand_lb || !st.cand_idx || !st.cand_n || !st.overflow || !qnorm || !qnorm2 ||
        !bnorm || !bnorm2 || !G || (umap__gemm_portable(Tq, Tb, dim) && !ws)) {
        r = umap__fail(&o->err, UMAP_ERR_OUT_OF_MEMORY, "exact k-NN: out of memory (tile %lld x %lld)", (long long)Tq,
                           (long long)Tb);
        goto done;
    }
    nc.x = q; nc.dim = dim; nc.norm = qnorm; nc.norm2 = qnorm2;
    umap__parallel_range(pool, nq, 1 + 65536 / dim, umap__norms_range, &nc);
    if (!self) {
        nc.x = base; nc.norm = bnorm; nc.norm2 = bnorm2;
        umap__parallel_range(pool, nb, 1 + 65536 / dim, umap__norms_range, &nc);
    }
    memset(&tc, 0, sizeof tc);
    tc.st = &st;
    tc.G = G;
    tc.qnorm = qnorm; tc.bnorm = bnorm; tc.bnorm2 = bnorm2;
    tc.mode = umap__metrics[o->metric].screen;
    tc.self = self;
    /* bound constants: 2 gamma for the product, and room for every float
       rounding on the way to lb and ub (each at most u times a term the
       bound already counts); the 1.01 covers the rounding of e itself */
    tc.c1 = (float)(1.01 * (2.0 * gamma + 16.0 * u));
    tc.c2 = (float)(1.01 * 8.0 * u);
    if (tc.mode == UMAP__SCREEN_DIRECT) umap__metric_bound(o->metric, o->metric_p, dim, &tc.c1, &tc.c2);
    { /* the tiles to compute: a triangle of them for a self-search */
        int64_t rows_t = (nq + Tq - 1) / Tq, cols_t = (nb + Tb - 1) / Tb;
        tiles_total = self ? rows_t * (rows_t + 1) / 2 : rows_t * cols_t;
    }
    if (umap__knn_progress(o, 0, tiles_total, "tiles")) { r = UMAP_ERR_CANCELLED; goto done; }
    for (ti = 0; ti < nq; ti += Tq) {
        int64_t ni = nq - ti < Tq ? nq - ti : Tq;
        for (tj = self ? ti : 0; tj < nb; tj += Tb) {
            int64_t nj = nb - tj < Tb ? nb - tj : Tb;
            if (tc.mode == UMAP__SCREEN_DIRECT) {
                umap__direct_ctx dc;
                dc.q = q; dc.base = base; dc.G = G; dc.dim = dim; dc.i0 = ti; dc.ni = ni; dc.j0 = tj; dc.nj = nj;
                dc.m = &mc;
                umap__parallel_range(pool, ni, 16, umap__direct_range, &dc);
            } else
                umap__sgemm(pool, 0, 1, ni, nj, dim, q + ti * dim, base + tj * dim, G, ws);
            o->info->distance_evals += (double)ni * (double)nj;
            tc.ldg = nj;
            tc.i0 = ti; tc.ni = ni; tc.j0 = tj; tc.nj = nj;
            tc.row_tasks = (ni + 31) / 32;
            tc.col_grain = 64;
            umap_pool_for(pool, tc.row_tasks + (self && tj != ti ? (nj + tc.col_grain - 1) / tc.col_grain : 0),
                          umap__tile_task, &tc);
            tiles_done++;
        }
        if (umap__knn_progress(o, tiles_done, tiles_total, "tiles")) { r = UMAP_ERR_CANCELLED; goto done; }
    }
    /* re-rank the candidates by exact distances */
    rc.st = &st; rc.q = q; rc.base = base; rc.dim = dim; rc.n_base = nb; rc.m = mc; rc.self = self;
    rc.direct = tc.mode == UMAP__SCREEN_DIRECT;
    rc.c1 = tc.c1; rc.c2 = tc.c2;
    rc.indices = indices; rc.distances = distances;
    rc.rows_per_task = 64;
    rc.n_rows = nq;
    rank_tasks = (nq + rc.rows_per_task - 1) / rc.rows_per_task;
    rc.scratch_d = (double *)umap__alloc(a, (size_t)rank_tasks * (size_t)st.cap * sizeof(double));
    rc.scratch_i = (int32_t *)umap__alloc(a, (size_t)rank_tasks * (size_t)st.cap * sizeof(int32_t));
    if (!rc.scratch_d || !rc.scratch_i) {
        r = umap__fail(&o->err, UMAP_ERR_OUT_OF_MEMORY, "exact k-NN: out of memory");
    } else {
        int64_t i;
        umap_pool_for(pool, rank_tasks, umap__rank_task, &rc);
        for (i = 0; i < nq; i++) {
            o->info->rechecked_rows += st.overflow[i];
            o->info->distance_evals += st.overflow[i] ? (rc.direct ? 2.0 : 1.0) * (double)nb : (double)st.cand_n[i];
        }
    }
    umap__free(a, rc.scratch_d);
    umap__free(a, rc.scratch_i);
done:
    umap__free(a, st.heap); umap__free(a, st.heap_n); umap__free(a, st.cand_lb); umap__free(a, st.cand_idx);
    umap__free(a, st.cand_n); umap__free(a, st.overflow);
    if (!self) { umap__free(a, bnorm); umap__free(a, bnorm2); }
    umap__free(a, qnorm); umap__free(a, qnorm2); umap__free(a, G); umap__free(a, ws);
    return r;
}

/* >>nndescent ------------------------------------------------------------- */
/* NN-Descent (Dong, Moses and Li, 2011) in the shape pynndescent gives it
   (McInnes): a forest of random-projection trees seeds each row's heap with
   the rows that share its leaves, then rounds of local joins ("a neighbour of
   my neighbour is probably my neighbour") over sampled new/old candidate
   lists until a round changes at most delta * n * k heap entries.

   Results depend on the data and the seed only, never on the thread count:
   - every random choice is Philox keyed by (seed, a stream per purpose, a
     counter derived from the tree, row or round), never a shared sequence;
   - work is cut into tasks whose bounds depend on n only;
   - a heap is only ever changed by one task: leaves of one tree are disjoint,
     and the join writes update proposals (target, source, distance) to
     per-task buffers, filtered against the heaps as they stood before the
     chunk of rows; an apply step then gives each block of targets to one
     task, which applies the proposals in task order.
   Internally distances are the metric's screen values (squared euclidean,
   1 - dot for unit rows, sum |x - y|^p, ...: see umap__mf_manhattan);
   heaps order by (distance, index), so ties go to the smaller index.
   Heaps hold at least UMAP__NND_MIN_K entries (NN-Descent with k = 1 alone
   finds little) and rows beyond k are dropped at the end; up to
   UMAP__NND_SMALL rows, one leaf holds everything and the answer is exact.
   Speed: the join visits rows in the leaf order of the first tree, so
   consecutive rows share candidates and their data stays in cache, and
   computes one row against four at a time where the CPU has AVX-512. */

/* Streams of umap_philox: one per purpose, x = tree, round, ... */
static uint64_t umap__nnd_stream(uint32_t purpose, uint32_t x) {
    return ((uint64_t)0x6E6E64u << 40) | ((uint64_t)purpose << 32) | (uint64_t)x;
}

/* an rng at a fixed place: (stream, row) -> its own counter range */
static void umap__nnd_rng_at(umap_rng *r, uint64_t seed, uint64_t stream, int64_t row) {
    umap_rng_init(r, seed, stream);
    r->counter = (uint64_t)row << 32;
}

/* --- distance kernels: squared euclidean and dot product with four
   accumulators. On x86 with GCC/Clang they exist for AVX-512 and AVX2+FMA
   (intrinsics under target attributes) and SSE2 (vector extensions), and the
   CPU picks at run time as the sgemm micro-kernel does, so a plain -O2 build
   still gets wide vectors and FMA. One machine always runs the same kernel,
   so results do not depend on the thread count. Elsewhere: plain C with
   eight accumulators, which compilers vectorise. */
typedef float (*umap__nnd_fn)(const float *a, const float *b, int64_t dim);
typedef void (*umap__nnd_fn4)(const float *const *a, const float *b, int64_t dim, float *out);

#ifdef UMAP__CPU_DISPATCH
#include <immintrin.h>
#define UMAP__NND_X86 1
/* a horizontal sum; the zero-masked intrinsics because the plain ones (and
   _mm512_reduce_add_ps) expand to "undefined" vectors that GCC 12 flags
   with -Wuninitialized in C++ */
__attribute__((target("avx512f"))) static float umap__nnd_hsum512(__m512 v) {
    __m128 h;
    v = _mm512_add_ps(v, _mm512_maskz_shuffle_f32x4((__mmask16)0xFFFF, v, v, 0x4E));
    v = _mm512_add_ps(v, _mm512_maskz_shuffle_f32x4((__mmask16)0xFFFF, v, v, 0xB1));
    h = _mm512_maskz_extractf32x4_ps((__mmask8)0xF, v, 0);
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
    return _mm_cvtss_f32(h);
}
#define UMAP__NND_AVX512(NAME, DIFF)                                                                  \
    __attribute__((target("avx512f"))) static float NAME(const float *a, const float *b, int64_t dim) { \
        __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0, x0, x1, x2, x3;                 \
        int64_t j = 0;                                                                              \
        for (; j + 64 <= dim; j += 64) {                                                            \
            x0 = _mm512_loadu_ps(a + j); x1 = _mm512_loadu_ps(a + j + 16);                          \
            x2 = _mm512_loadu_ps(a + j + 32); x3 = _mm512_loadu_ps(a + j + 48);                     \
            if (DIFF) {                                                                             \
                x0 = _mm512_sub_ps(x0, _mm512_loadu_ps(b + j));                                     \
                x1 = _mm512_sub_ps(x1, _mm512_loadu_ps(b + j + 16));                                \
                x2 = _mm512_sub_ps(x2, _mm512_loadu_ps(b + j + 32));                                \
                x3 = _mm512_sub_ps(x3, _mm512_loadu_ps(b + j + 48));                                \
                s0 = _mm512_fmadd_ps(x0, x0, s0); s1 = _mm512_fmadd_ps(x1, x1, s1);                 \
                s2 = _mm512_fmadd_ps(x2, x2, s2); s3 = _mm512_fmadd_ps(x3, x3, s3);                 \
            } else {                                                                                \
                s0 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(b + j), s0);                               \
                s1 = _mm512_fmadd_ps(x1, _mm512_loadu_ps(b + j + 16), s1);                          \
                s2 = _mm512_fmadd_ps(x2, _mm512_loadu_ps(b + j + 32), s2);                          \
                s3 = _mm512_fmadd_ps(x3, _mm512_loadu_ps(b + j + 48), s3);                          \
            }                                                                                       \
        }                                                                                           \
        for (; j < dim; j += 16) { /* the rest, 16 at a time, the last one masked */                \
            __mmask16 m = dim - j >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (dim - j)) - 1u);  \
            x0 = _mm512_maskz_loadu_ps(m, a + j);                                                   \
            x1 = _mm512_maskz_loadu_ps(m, b + j);                                                   \
            if (DIFF) { x0 = _mm512_sub_ps(x0, x1); s0 = _mm512_fmadd_ps(x0, x0, s0); }             \
            else s0 = _mm512_fmadd_ps(x0, x1, s0);                                                  \
        }                                                                                           \
        return umap__nnd_hsum512(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));      \
    }
#define UMAP__NND_AVX2(NAME, DIFF)                                                                    \
    __attribute__((target("avx2,fma"))) static float NAME(const float *a, const float *b, int64_t dim) { \
        __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0, x0, x1, x2, x3;                 \
        __m128 h;                                                                                   \
        float r;                                                                                    \
        int64_t j = 0;                                                                              \
        for (; j + 32 <= dim; j += 32) {                                                            \
            x0 = _mm256_loadu_ps(a + j); x1 = _mm256_loadu_ps(a + j + 8);                           \
            x2 = _mm256_loadu_ps(a + j + 16); x3 = _mm256_loadu_ps(a + j + 24);                     \
            if (DIFF) {                                                                             \
                x0 = _mm256_sub_ps(x0, _mm256_loadu_ps(b + j));                                     \
                x1 = _mm256_sub_ps(x1, _mm256_loadu_ps(b + j + 8));                                 \
                x2 = _mm256_sub_ps(x2, _mm256_loadu_ps(b + j + 16));                                \
                x3 = _mm256_sub_ps(x3, _mm256_loadu_ps(b + j + 24));                                \
                s0 = _mm256_fmadd_ps(x0, x0, s0); s1 = _mm256_fmadd_ps(x1, x1, s1);                 \
                s2 = _mm256_fmadd_ps(x2, x2, s2); s3 = _mm256_fmadd_ps(x3, x3, s3);                 \
            } else {                                                                                \
                s0 = _mm256_fmadd_ps(x0, _mm256_loadu_ps(b + j), s0);                               \
                s1 = _mm256_fmadd_ps(x1, _mm256_loadu_ps(b + j + 8), s1);                           \
                s2 = _mm256_fmadd_ps(x2, _mm256_loadu_ps(b + j + 16), s2);                          \
                s3 = _mm256_fmadd_ps(x3, _mm256_loadu_ps(b + j + 24), s3);                          \
            }                                                                                       \
        }                                                                                           \
        for (; j + 8 <= dim; j += 8) {                                                              \
            x0 = _mm256_loadu_ps(a + j);                                                            \
            x1 = _mm256_loadu_ps(b + j);                                                            \
            if (DIFF) { x0 = _mm256_sub_ps(x0, x1); s0 = _mm256_fmadd_ps(x0, x0, s0); }             \
            else s0 = _mm256_fmadd_ps(x0, x1, s0);                                                  \
        }                                                                                           \
        s0 = _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3));                           \
        h = _mm_add_ps(_mm256_castps256_ps128(s0), _mm256_extractf128_ps(s0, 1));                   \
        h = _mm_add_ps(h, _mm_movehl_ps(h, h));                                                     \
        h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));                                                 \
        r = _mm_cvtss_f32(h);                                                                       \
        for (; j < dim; j++) r += DIFF ? (a[j] - b[j]) * (a[j] - b[j]) : a[j] * b[j];               \
        return r;                                                                                   \
    }
UMAP__NND_AVX512(umap__nnd_l2_avx512, 1)
UMAP__NND_AVX512(umap__nnd_dot_avx512, 0)
UMAP__NND_AVX2(umap__nnd_l2_avx2, 1)
UMAP__NND_AVX2(umap__nnd_dot_avx2, 0)
/* four rows a[0..3] against one row b, each sum in exactly the order of the
   one-row kernel (so the results are bit-identical to it): b streams from
   L2 once for four distances while the a rows stay in L1 */
#define UMAP__NND_ROW4(OP, g)                                                                         \
    {                                                                                                 \
        const float *ag = a##g + j;                                                                   \
        OP(t##g##0, _mm512_loadu_ps(ag), y0) OP(t##g##1, _mm512_loadu_ps(ag + 16), y1)                \
        OP(t##g##2, _mm512_loadu_ps(ag + 32), y2) OP(t##g##3, _mm512_loadu_ps(ag + 48), y3)           \
    }
#define UMAP__NND_OPD(acc, x, y) { __m512 d_ = _mm512_sub_ps(x, y); acc = _mm512_fmadd_ps(d_, d_, acc); }
#define UMAP__NND_OPP(acc, x, y) { acc = _mm512_fmadd_ps(x, y, acc); }
#define UMAP__NND_AVX512X4(NAME, OP, DIFF)                                                               \
    __attribute__((target("avx512f"))) static void NAME(const float *const *a, const float *b, int64_t dim, \
                                                        float *out) {                                    \
        const float *a0 = a[0], *a1 = a[1], *a2 = a[2], *a3 = a[3];                                      \
        __m512 t00 = _mm512_setzero_ps(), t01 = t00, t02 = t00, t03 = t00, t10 = t00, t11 = t00,          \
               t12 = t00, t13 = t00, t20 = t00, t21 = t00, t22 = t00, t23 = t00, t30 = t00, t31 = t00,    \
               t32 = t00, t33 = t00, y0, y1, y2, y3;                                                      \
        int64_t j = 0;                                                                                   \
        for (; j + 64 <= dim; j += 64) {                                                                 \
            y0 = _mm512_loadu_ps(b + j); y1 = _mm512_loadu_ps(b + j + 16);                               \
            y2 = _mm512_loadu_ps(b + j + 32); y3 = _mm512_loadu_ps(b + j + 48);                          \
            UMAP__NND_ROW4(OP, 0) UMAP__NND_ROW4(OP, 1) UMAP__NND_ROW4(OP, 2) UMAP__NND_ROW4(OP, 3)      \
        }                                                                                                \
        for (; j < dim; j += 16) {                                                                       \
            __mmask16 m = dim - j >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (dim - j)) - 1u);       \
            y0 = _mm512_maskz_loadu_ps(m, b + j);                                                        \
            OP(t00, _mm512_maskz_loadu_ps(m, a0 + j), y0) OP(t10, _mm512_maskz_loadu_ps(m, a1 + j), y0)  \
            OP(t20, _mm512_maskz_loadu_ps(m, a2 + j), y0) OP(t30, _mm512_maskz_loadu_ps(m, a3 + j), y0)  \
        }                                                                                                \
        out[0] = umap__nnd_hsum512(_mm512_add_ps(_mm512_add_ps(t00, t01), _mm512_add_ps(t02, t03)));     \
        out[1] = umap__nnd_hsum512(_mm512_add_ps(_mm512_add_ps(t10, t11), _mm512_add_ps(t12, t13)));     \
        out[2] = umap__nnd_hsum512(_mm512_add_ps(_mm512_add_ps(t20, t21), _mm512_add_ps(t22, t23)));     \
        out[3] = umap__nnd_hsum512(_mm512_add_ps(_mm512_add_ps(t30, t31), _mm512_add_ps(t32, t33)));     \
        (void)(DIFF);                                                                                    \
    }
UMAP__NND_AVX512X4(umap__nnd_l2x4_avx512, UMAP__NND_OPD, 1)
UMAP__NND_AVX512X4(umap__nnd_dotx4_avx512, UMAP__NND_OPP, 0)
#undef UMAP__NND_AVX512X4
#undef UMAP__NND_ROW4
#undef UMAP__NND_OPD
#undef UMAP__NND_OPP
#undef UMAP__NND_AVX512
#undef UMAP__NND_AVX2
#endif

#if defined(UMAP__NND_X86) || ((defined(__GNUC__) || defined(__clang__)) && !defined(UMAP_NO_CPU_DISPATCH))
/* SSE2 on x86, the native 16-byte vectors elsewhere: vector extensions */
typedef float umap__nnd_v4 __attribute__((vector_size(16)));
#define UMAP__NND_V4(NAME, DIFF)                                                                     \
    static float NAME(const float *a, const float *b, int64_t dim) {                                \
        umap__nnd_v4 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, x0, y0, x1, y1, x2, y2, x3, y3;        \
        float l[4], r;                                                                              \
        int64_t j = 0;                                                                              \
        for (; j + 16 <= dim; j += 16) {                                                            \
            memcpy(&x0, a + j, 16); memcpy(&y0, b + j, 16);                                         \
            memcpy(&x1, a + j + 4, 16); memcpy(&y1, b + j + 4, 16);                                 \
            memcpy(&x2, a + j + 8, 16); memcpy(&y2, b + j + 8, 16);                                 \
            memcpy(&x3, a + j + 12, 16); memcpy(&y3, b + j + 12, 16);                               \
            if (DIFF) {                                                                             \
                x0 -= y0; x1 -= y1; x2 -= y2; x3 -= y3;                                             \
                s0 += x0 * x0; s1 += x1 * x1; s2 += x2 * x2; s3 += x3 * x3;                         \
            } else {                                                                                \
                s0 += x0 * y0; s1 += x1 * y1; s2 += x2 * y2; s3 += x3 * y3;                         \
            }                                                                                       \
        }                                                                                           \
        s0 = (s0 + s1) + (s2 + s3);                                                                 \
        memcpy(l, &s0, sizeof l);                                                                   \
        r = (l[0] + l[2]) + (l[1] + l[3]);                                                          \
        for (; j < dim; j++) r += DIFF ? (a[j] - b[j]) * (a[j] - b[j]) : a[j] * b[j];               \
        return r;                                                                                   \
    }
UMAP__NND_V4(umap__nnd_l2_v4, 1)
UMAP__NND_V4(umap__nnd_dot_v4, 0)
#undef UMAP__NND_V4
static void umap__nnd_pick(int cosine, umap__nnd_fn *l2, umap__nnd_fn *dot, umap__nnd_fn4 *x4) {
    *x4 = NULL;
#ifdef UMAP__NND_X86
    if (umap__cpu_has(UMAP__CPU_AVX512F)) {
        *l2 = umap__nnd_l2_avx512;
        *dot = umap__nnd_dot_avx512;
        *x4 = cosine ? umap__nnd_dotx4_avx512 : umap__nnd_l2x4_avx512;
        return;
    }
    if (umap__cpu_has(UMAP__CPU_AVX2 | UMAP__CPU_FMA)) {
        *l2 = umap__nnd_l2_avx2;
        *dot = umap__nnd_dot_avx2;
        return;
    }
#else
    (void)cosine;
#endif
    *l2 = umap__nnd_l2_v4;
    *dot = umap__nnd_dot_v4;
}
#else
static float umap__nnd_l2_plain(const float *a, const float *b, int64_t dim) {
    float s[8] = {0, 0, 0, 0, 0, 0, 0, 0}, r;
    int64_t j = 0;
    int l;
    for (; j + 8 <= dim; j += 8)
        for (l = 0; l < 8; l++) s[l] += (a[j + l] - b[j + l]) * (a[j + l] - b[j + l]);
    r = ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]));
    for (; j < dim; j++) r += (a[j] - b[j]) * (a[j] - b[j]);
    return r;
}
static float umap__nnd_dot_plain(const float *a, const float *b, int64_t dim) {
    float s[8] = {0, 0, 0, 0, 0, 0, 0, 0}, r;
    int64_t j = 0;
    int l;
    for (; j + 8 <= dim; j += 8)
        for (l = 0; l < 8; l++) s[l] += a[j + l] * b[j + l];
    r = ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]));
    for (; j < dim; j++) r += a[j] * b[j];
    return r;
}
static void umap__nnd_pick(int cosine, umap__nnd_fn *l2, umap__nnd_fn *dot, umap__nnd_fn4 *x4) {
    (void)cosine;
    *x4 = NULL;
    *l2 = umap__nnd_l2_plain;
    *dot = umap__nnd_dot_plain;
}
#endif
#ifdef UMAP__NND_X86
#undef UMAP__NND_X86
#endif

/* --- per-row max-heaps of (distance, index, new flag) --- */

static int umap__nnd_less(float d1, int32_t i1, float d2, int32_t i2) { return d1 < d2 || (d1 == d2 && i1 < i2); }

static int umap__nnd_has(const int32_t *hi, int k, int32_t j) {
    int s;
    for (s = 0; s < k; s++)
        if (hi[s] == j) return 1;
    return 0;
}

/* Offers (d, j) to one row's heap of k entries: it goes in when it beats the
   worst entry (the root) and is not there yet. Empty slots are (inf, INT32_MAX),
   the largest possible entry. Returns 1 when the heap changed. */
static int umap__nnd_push(float *hd, int32_t *hi, uint8_t *hf, int k, float d, int32_t j, uint8_t flag) {
    int i = 0, c;
    if (!umap__nnd_less(d, j, hd[0], hi[0]) || umap__nnd_has(hi, k, j)) return 0;
    for (;;) {
        c = 2 * i + 1;
        if (c >= k) break;
        if (c + 1 < k && umap__nnd_less(hd[c], hi[c], hd[c + 1], hi[c + 1])) c++;
        if (!umap__nnd_less(d, j, hd[c], hi[c])) break;
        hd[i] = hd[c]; hi[i] = hi[c]; hf[i] = hf[c];
        i = c;
    }
    hd[i] = d; hi[i] = j; hf[i] = flag;
    return 1;
}

/* candidate lists: a bounded max-heap of (priority, index), no duplicates */
static void umap__nnd_cand_push(uint32_t *cp, int32_t *ci, int *cn, int mc, uint32_t p, int32_t j) {
    int i, c, n = *cn;
    if (n == mc && !(p < cp[0] || (p == cp[0] && j < ci[0]))) return;
    for (i = 0; i < n; i++)
        if (ci[i] == j) return;
    if (n < mc) { /* sift up */
        i = n;
        while (i > 0) {
            c = (i - 1) / 2;
            if (!(cp[c] < p || (cp[c] == p && ci[c] < j))) break;
            cp[i] = cp[c]; ci[i] = ci[c];
            i = c;
        }
        cp[i] = p; ci[i] = j;
        *cn = n + 1;
        return;
    }
    i = 0; /* replace the root, sift down */
    for (;;) {
        c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && (cp[c] < cp[c + 1] || (cp[c] == cp[c + 1] && ci[c] < ci[c + 1]))) c++;
        if (!(p < cp[c] || (p == cp[c] && j < ci[c]))) break;
        cp[i] = cp[c]; ci[i] = ci[c];
        i = c;
    }
    cp[i] = p; ci[i] = j;
}

/* an update the join proposes: give `src` at distance d to row `target` */
typedef struct umap__nnd_prop {
    int32_t target, src;
    float d;
} umap__nnd_prop;

/* one join task's proposals, raw and then grouped by target block */
typedef struct umap__nnd_buf {
    umap__nnd_prop *raw, *grouped;
    int32_t *cand; /* scratch: one row's candidates and their thresholds */
    float *thr;
    int64_t cap, count, evals;
    int overflow;
} umap__nnd_buf;

enum {
    UMAP__NND_TREE_BATCH = 8,     /* trees built at once (memory: 8 bytes per row each) */
    UMAP__NND_LEAF_GRAIN = 2048,  /* tree positions per seeding task */
    UMAP__NND_ROW_GRAIN = 256,    /* rows per task: fill, sampling, output */
    UMAP__NND_CHUNK = 4096,       /* rows joined before their proposals are applied */
    UMAP__NND_JOIN_GRAIN = 16,    /* rows per join task */
    UMAP__NND_STACK = 64,         /* tree stack; depth <= log2(n) + 1 */
    UMAP__NND_MIN_K = 10,         /* heaps keep at least this many: small k alone joins badly */
    UMAP__NND_SMALL = 1024,       /* up to this many rows, all pairs (exact) */
    UMAP__NND_SKETCH = 64         /* the trees split rows projected to this many dimensions */
};

/* sparse rows (>>sparse): their distance, and their sketch for the trees */
struct umap__sp_rows;
static double umap__sp_md(umap_metric m, double p, const struct umap__sp_rows *X, int64_t xi,
                          const struct umap__sp_rows *Y, int64_t yi);
static float *umap__sp_sketch(const struct umap__sp_rows *x, uint64_t seed, int64_t width, const umap_allocator *alloc,
                              umap_pool *pool);

typedef struct umap__nnd_state {
    const float *x;
    const struct umap__sp_rows *sp; /* sparse rows (then x is NULL): distances in double, public */
    int64_t n, dim;
    const float *tx;             /* the rows the trees split: x, or its sketch (UMAP__NND_SKETCH) */
    int64_t tdim;
    int k, k_out, mc, leaf_size; /* k: the heaps' size, k_out <= k the rows returned */
    int cosine;                  /* angular (cosine, correlation: 1 - dot on the unit copy) */
    umap_metric metric;
    float p;                     /* minkowski's */
    umap__mcall m;               /* DIRECT metrics' screen, custom's function */
    int direct;                  /* a DIRECT metric */
    int32_t *out_i;
    float *out_d;
    uint64_t seed;
    umap__nnd_fn l2, dot;
    umap__nnd_fn4 x4; /* four rows against one (NULL: none for this CPU) */
    /* heaps */
    float *hd;
    int32_t *hi;
    uint8_t *hf;
    /* trees of the current batch */
    int32_t *perm, *leaf_len, *order; /* order: rows in the leaf order of tree 0 */
    float *normals;
    int64_t tree0, slot, *leaf_evals;
    /* sampling */
    int iter;
    uint32_t *prio, *rev_prio, *cand_scratch;
    int64_t *rev_off;
    int32_t *rev_src, *new_c, *old_c, *new_n, *old_n;
    uint8_t *rev_new;
    int64_t *row_evals;
    /* join and apply */
    int64_t c0, c1, n_blocks, block_rows;
    int64_t *block_off; /* per join task: n_blocks + 1 offsets into grouped */
    int64_t *block_upd;
    umap__nnd_buf *bufs;
} umap__nnd_state;

/* distance in the internal convention, the metric's screen value: squared
   euclidean, 1 - dot, or the DIRECT metric's own (sum |x - y|^p, ...);
   custom's distance, a wrong one kept negative for umap__custom_check */
static float umap__nnd_dist(const umap__nnd_state *st, const float *a, const float *b) {
    if (st->direct) return st->m.fn ? (float)umap__custom_dist(&st->m, a, b, st->dim) : st->m.screen(a, b, st->dim, st->p);
    return st->cosine ? 1.0f - st->dot(a, b, st->dim) : st->l2(a, b, st->dim);
}
/* the same between rows p and q; sparse rows' is the public distance */
static float umap__nnd_dist_ij(const umap__nnd_state *st, int64_t p, int64_t q) {
    if (st->sp) return (float)umap__sp_md(st->metric, st->p, st->sp, p, st->sp, q);
    return umap__nnd_dist(st, st->x + p * st->dim, st->x + q * st->dim);
}

static void umap__nnd_prefetch_row(const float *x, int64_t dim) {
#if defined(__GNUC__) || defined(__clang__)
    int64_t j;
    for (j = 0; j < dim && j < 64; j += 16) __builtin_prefetch(x + j); /* the hardware streams the rest */
#else
    (void)x; (void)dim;
#endif
}

/* --- random-projection trees --- */

/* which side of the hyperplane (h, off) row r lies on; ties go by a coin */
static int umap__nnd_side(const umap__nnd_state *st, const float *h, float off, int32_t r, int random, umap_rng *rng) {
    float m;
    if (random) return (int)(umap_rng_u32(rng) & 1u);
    m = st->dot(h, st->tx + (int64_t)r * st->tdim, st->tdim) - off;
    if (m > 0.0f) return 1;
    if (m < 0.0f) return 0;
    return (int)(umap_rng_u32(rng) & 1u);
}

/* partitions perm[b, e) into side 1 then side 0; each row is looked at once */
static int32_t umap__nnd_partition(const umap__nnd_state *st, int32_t *perm, int32_t b, int32_t e, const float *h,
                                   float off, int random, umap_rng *rng) {
    int32_t lo = b, hi = e, t;
    while (lo < hi) {
        if (umap__nnd_side(st, h, off, perm[lo], random, rng)) { lo++; continue; }
        for (;;) {
            hi--;
            if (hi == lo) break;
            if (umap__nnd_side(st, h, off, perm[hi], random, rng)) {
                t = perm[lo]; perm[lo] = perm[hi]; perm[hi] = t;
                lo++;
                break;
            }
        }
    }
    return lo;
}

/* splits a node by the hyperplane halfway between two random rows (for the
   angular metrics, through the origin, normal to their difference; every
   other metric uses the euclidean split, a fine seed for a local search);
   both sides non-empty */
static int32_t umap__nnd_split(const umap__nnd_state *st, int32_t *perm, int32_t b, int32_t e, float *h,
                               umap_rng *rng) {
    int32_t size = e - b, il, ir, m;
    const float *xl, *xr;
    float off = 0.0f;
    int64_t j;
    il = (int32_t)umap_rng_below(rng, (uint32_t)size);
    ir = (int32_t)umap_rng_below(rng, (uint32_t)(size - 1));
    if (ir >= il) ir++;
    xl = st->tx + (int64_t)perm[b + il] * st->tdim;
    xr = st->tx + (int64_t)perm[b + ir] * st->tdim;
    for (j = 0; j < st->tdim; j++) h[j] = xl[j] - xr[j];
    if (!st->cosine) off = 0.5f * (st->dot(h, xl, st->tdim) + st->dot(h, xr, st->tdim));
    m = umap__nnd_partition(st, perm, b, e, h, off, 0, rng);
    if (m == b || m == e) m = umap__nnd_partition(st, perm, b, e, h, off, 1, rng);
    if (m == b || m == e) m = b + size / 2;
    return m;
}

/* builds tree tree0 + slot: perm holds the rows leaf by leaf, leaf_len[p] the
   length of the leaf starting at position p (0 elsewhere) */
static void umap__nnd_tree_task(void *ctx, int64_t slot) {
    const umap__nnd_state *st = (const umap__nnd_state *)ctx;
    int32_t n = (int32_t)st->n, leaf = st->leaf_size, b = 0, e = n, m, stack[2 * UMAP__NND_STACK];
    int32_t *perm = st->perm + slot * st->n, *len = st->leaf_len + slot * st->n;
    float *h = st->normals + slot * st->tdim;
    int sp = 0, split_a, split_b;
    umap_rng rng;
    int32_t i;
    umap_rng_init(&rng, st->seed, umap__nnd_stream(1, (uint32_t)(st->tree0 + slot)));
    for (i = 0; i < n; i++) { perm[i] = i; len[i] = 0; }
    if (n <= leaf) { len[0] = n; return; }
    for (;;) {
        m = umap__nnd_split(st, perm, b, e, h, &rng);
        split_a = m - b > leaf;
        split_b = e - m > leaf;
        if (!split_a) len[b] = m - b;
        if (!split_b) len[m] = e - m;
        if (split_a && split_b) { /* go on with the smaller child, keep the larger */
            if (m - b <= e - m) { stack[2 * sp] = m; stack[2 * sp + 1] = e; e = m; }
            else { stack[2 * sp] = b; stack[2 * sp + 1] = m; b = m; }
            sp++;
        } else if (split_a) {
            e = m;
        } else if (split_b) {
            b = m;
        } else {
            if (sp == 0) break;
            sp--;
            b = stack[2 * sp];
            e = stack[2 * sp + 1];
        }
    }
}

/* every pair inside each leaf starting in one range of positions */
static void umap__nnd_leaf_task(void *ctx, int64_t task) {
    umap__nnd_state *st = (umap__nnd_state *)ctx;
    const int32_t *perm = st->perm + st->slot * st->n, *len = st->leaf_len + st->slot * st->n;
    int64_t p0 = task * UMAP__NND_LEAF_GRAIN, p1 = p0 + UMAP__NND_LEAF_GRAIN;
    int64_t pos, evals = 0;
    if (p1 > st->n) p1 = st->n;
    int k = st->k, a, b, L;
    for (pos = p0; pos < p1; pos++) {
        const int32_t *ids = perm + pos;
        if (!(L = len[pos])) continue;
        for (a = 0; a < L; a++) {
            int32_t p = ids[a];
            int64_t op = (int64_t)p * k;
            for (b = a + 1; b < L; b++) {
                int32_t q = ids[b];
                int64_t oq = (int64_t)q * k;
                float d;
                if (umap__nnd_has(st->hi + op, k, q) && umap__nnd_has(st->hi + oq, k, p)) continue;
                d = umap__nnd_dist_ij(st, p, q);
                evals++;
                umap__nnd_push(st->hd + op, st->hi + op, st->hf + op, k, d, q, 1);
                umap__nnd_push(st->hd + oq, st->hi + oq, st->hf + oq, k, d, p, 1);
            }
        }
    }
    st->leaf_evals[task] += evals;
}

/* rows whose heap still has empty slots get random distinct rows */
static void umap__nnd_fill_task(void *ctx, int64_t task) {
    umap__nnd_state *st = (umap__nnd_state *)ctx;
    int64_t r0 = task * UMAP__NND_ROW_GRAIN, r1 = r0 + UMAP__NND_ROW_GRAIN < st->n ? r0 + UMAP__NND_ROW_GRAIN : st->n;
    int64_t i, evals = 0;
    int k = st->k;
    for (i = r0; i < r1; i++) {
        float *hd = st->hd + i * k;
        int32_t *hi = st->hi + i * k;
        uint8_t *hf = st->hf + i * k;
        umap_rng rng;
        if (hi[0] != INT32_MAX) continue;
        umap__nnd_rng_at(&rng, st->seed, umap__nnd_stream(2, 0), i);
        while (hi[0] == INT32_MAX) {
            int32_t j = (int32_t)umap_rng_below(&rng, (uint32_t)st->n);
            float d;
            if (j == i || umap__nnd_has(hi, k, j)) continue;
            d = umap__nnd_dist_ij(st, i, j);
            evals++;
            umap__nnd_push(hd, hi, hf, k, d, j, 1);
        }
    }
    st->row_evals[task] += evals;
}

/* --- sampling: each heap entry gets a random priority per round; each row
   keeps the max_candidates lowest-priority new and old entries of its own
   heap and of the heaps that hold it (the reverse edges) --- */

static void umap__nnd_prio_task(void *ctx, int64_t task) {
    umap__nnd_state *st = (umap__nnd_state *)ctx;
    int64_t r0 = task * UMAP__NND_ROW_GRAIN, r1 = r0 + UMAP__NND_ROW_GRAIN < st->n ? r0 + UMAP__NND_ROW_GRAIN : st->n;
    int64_t i;
    int s;
    for (i = r0; i < r1; i++) {
        umap_rng rng;
        umap__nnd_rng_at(&rng, st->seed, umap__nnd_stream(3, (uint32_t)st->iter), i);
        for (s = 0; s < st->k; s++) st->prio[i * st->k + s] = umap_rng_u32(&rng);
    }
}

/* reverse edges, grouped by target in order of source: counting sort */
static void umap__nnd_reverse(umap__nnd_state *st) {
    int64_t n = st->n, nk = st->n * st->k, e, i, sum = 0;
    int64_t *off = st->rev_off;
    for (i = 0; i <= n; i++) off[i] = 0;
    for (e = 0; e < nk; e++) off[st->hi[e] + 1]++;
    for (i = 0; i <= n; i++) { sum += off[i]; off[i] = sum; } /* off[j + 1] = end of j = start of j + 1 */
    for (i = 0; i < n; i++) {
        int s;
        for (s = 0; s < st->k; s++) {
            int64_t src = i * st->k + s, pos = off[st->hi[src]]++;
            st->rev_src[pos] = (int32_t)i;
            st->rev_prio[pos] = st->prio[src];
            st->rev_new[pos] = st->hf[src];
        }
    }
    for (i = n; i > 0; i--) off[i] = off[i - 1];
    off[0] = 0;
}

static void umap__nnd_sample_task(void *ctx, int64_t task) {
    umap__nnd_state *st = (umap__nnd_state *)ctx;
    int64_t r0 = task * UMAP__NND_ROW_GRAIN, r1 = r0 + UMAP__NND_ROW_GRAIN < st->n ? r0 + UMAP__NND_ROW_GRAIN : st->n;
    int64_t i, e;
    int k = st->k, mc = st->mc, s, c;
    uint32_t *np = st->cand_scratch + task * 2 * mc, *op = np + mc;
    for (i = r0; i < r1; i++) {
        int32_t *hi = st->hi + i * k, *nc = st->new_c + i * mc, *oc = st->old_c + i * mc;
        uint8_t *hf = st->hf + i * k;
        const uint32_t *pr = st->prio + i * k;
        int nn = 0, no = 0;
        for (s = 0; s < k; s++) {
            if (hf[s]) umap__nnd_cand_push(np, nc, &nn, mc, pr[s], hi[s]);
            else umap__nnd_cand_push(op, oc, &no, mc, pr[s], hi[s]);
        }
        for (e = st->rev_off[i]; e < st->rev_off[i + 1]; e++) {
            if (st->rev_new[e]) umap__nnd_cand_push(np, nc, &nn, mc, st->rev_prio[e], st->rev_src[e]);
            else umap__nnd_cand_push(op, oc, &no, mc, st->rev_prio[e], st->rev_src[e]);
        }
        /* entries sampled as new are old from now on */
        for (s = 0; s < k; s++)
            if (hf[s])
                for (c = 0; c < nn; c++)
                    if (nc[c] == hi[s]) { hf[s] = 0; break; }
        st->new_n[i] = nn;
        st->old_n[i] = no;
    }
}

/* --- local join of one task's rows: propose (p, q) and (q, p) for new-new
   and new-old pairs where the distance beats the target's current worst.
   Rows go in the leaf order of the first tree, so consecutive rows share
   candidates and their data stays in cache; the next row's candidates are
   prefetched while this row's pairs are computed. --- */
/* one candidate pair (a, b) of a row: its distance (computed here unless
   have_d) and the proposals it makes; 0 when the buffer is full */
static int umap__nnd_pair(const umap__nnd_state *st, const int32_t *cand, const float *thr, int a, int b, int have_d,
                          float d, umap__nnd_prop *raw, int64_t *cnt, int64_t cap, int64_t *evals) {
    int32_t p = cand[a], q = cand[b];
    if (p == q) return 1;
    if (!have_d) d = umap__nnd_dist_ij(st, p, q);
    ++*evals;
    if (d <= thr[a]) {
        if (*cnt == cap) return 0;
        raw[*cnt].target = p; raw[*cnt].src = q; raw[*cnt].d = d; ++*cnt;
    }
    if (d <= thr[b]) {
        if (*cnt == cap) return 0;
        raw[*cnt].target = q; raw[*cnt].src = p; raw[*cnt].d = d; ++*cnt;
    }
    return 1;
}

static void umap__nnd_join_task(void *ctx, int64_t task) {
    umap__nnd_state *st = (umap__nnd_state *)ctx;
    umap__nnd_buf *buf = st->bufs + task;
    int64_t r0 = st->c0 + task * UMAP__NND_JOIN_GRAIN, r1, i, pos, cnt = 0, cap = buf->cap, evals = 0, dim = st->dim;
    int64_t *boff = st->block_off + task * (st->n_blocks + 1), blk;
    int k = st->k, mc = st->mc, a, a0, b, c, m;
    umap__nnd_prop *raw = buf->raw;
    int32_t *cand = buf->cand;
    float *thr = buf->thr;
    r1 = r0 + UMAP__NND_JOIN_GRAIN < st->c1 ? r0 + UMAP__NND_JOIN_GRAIN : st->c1;
    for (pos = r0; pos < r1; pos++) {
        int nn, no;
        i = st->order[pos];
        nn = st->new_n[i];
        no = st->old_n[i];
        if (pos + 1 < st->n && st->x) { /* the next row's candidates */
            int64_t i2 = st->order[pos + 1];
            for (c = 0; c < st->new_n[i2]; c++)
                umap__nnd_prefetch_row(st->x + (int64_t)st->new_c[i2 * mc + c] * dim, dim);
            for (c = 0; c < st->old_n[i2]; c++)
                umap__nnd_prefetch_row(st->x + (int64_t)st->old_c[i2 * mc + c] * dim, dim);
        }
        m = nn + no;
        for (c = 0; c < m; c++) {
            cand[c] = c < nn ? st->new_c[i * mc + c] : st->old_c[i * mc + c - nn];
            thr[c] = st->hd[(int64_t)cand[c] * k];
        }
        for (a0 = 0; a0 < nn; a0 += 4) {
            int na = nn - a0 < 4 ? nn - a0 : 4;
            if (na == 4 && st->x4) { /* four rows at a time against every later candidate */
                const float *pa[4];
                float out[4];
                int g;
                for (g = 0; g < 4; g++) pa[g] = st->x + (int64_t)cand[a0 + g] * dim;
                for (a = a0; a < a0 + 3; a++)
                    for (b = a + 1; b < a0 + 4; b++)
                        if (!umap__nnd_pair(st, cand, thr, a, b, 0, 0.0f, raw, &cnt, cap, &evals)) goto overflow;
                for (b = a0 + 4; b < m; b++) {
                    st->x4(pa, st->x + (int64_t)cand[b] * dim, dim, out);
                    for (g = 0; g < 4; g++)
                        if (!umap__nnd_pair(st, cand, thr, a0 + g, b, 1, st->cosine ? 1.0f - out[g] : out[g], raw,
                                            &cnt, cap, &evals))
                            goto overflow;
                }
                continue;
            }
            for (a = a0; a < a0 + na; a++)
                for (b = a + 1; b < m; b++)
                    if (!umap__nnd_pair(st, cand, thr, a, b, 0, 0.0f, raw, &cnt, cap, &evals)) goto overflow;
        }
    }
    /* group by target block, keeping the order inside each block */
    for (blk = 0; blk <= st->n_blocks; blk++) boff[blk] = 0;
    for (i = 0; i < cnt; i++) boff[raw[i].target / st->block_rows + 1]++;
    for (blk = 0; blk < st->n_blocks; blk++) boff[blk + 1] += boff[blk];
    for (i = 0; i < cnt; i++) buf->grouped[boff[raw[i].target / st->block_rows]++] = raw[i];
    for (blk = st->n_blocks; blk > 0; blk--) boff[blk] = boff[blk - 1];
    boff[0] = 0;
    buf->count = cnt;
    buf->evals = evals;
    buf->overflow = 0;
    return;
overflow:
    buf->overflow = 1;
}

static void umap__nnd_apply_task(void *ctx, int64_t blk) {
    umap__nnd_state *st = (umap__nnd_state *)ctx;
    int64_t t, e, n_tasks = (st->c1 - st->c0 + UMAP__NND_JOIN_GRAIN - 1) / UMAP__NND_JOIN_GRAIN, upd = 0;
    int k = st->k;
    for (t = 0; t < n_tasks; t++) {
        const umap__nnd_buf *buf = st->bufs + t;
        const int64_t *boff = st->block_off + t * (st->n_blocks + 1);
        for (e = boff[blk]; e < boff[blk + 1]; e++) {
            const umap__nnd_prop *pr = buf->grouped + e;
            int64_t o = (int64_t)pr->target * k;
            upd += umap__nnd_push(st->hd + o, st->hi + o, st->hf + o, k, pr->d, pr->src, 1);
        }
    }
    st->block_upd[blk] += upd;
}

/* final rows: pop each heap into ascending order, keep the first k_out,
   convert to public distances and put ties (which the conversion can make)
   in index order */
static void umap__nnd_output_task(void *ctx, int64_t task) {
    umap__nnd_state *st = (umap__nnd_state *)ctx;
    int64_t r0 = task * UMAP__NND_ROW_GRAIN, r1 = r0 + UMAP__NND_ROW_GRAIN < st->n ? r0 + UMAP__NND_ROW_GRAIN : st->n;
    int64_t i;
    int k = st->k, m, c, j;
    for (i = r0; i < r1; i++) {
        float *hd = st->hd + i * k, *od = st->out_d + i * st->k_out;
        int32_t *hi = st->hi + i * k, *oi = st->out_i + i * st->k_out;
        for (m = k - 1; m > 0; m--) { /* heap sort: move the root to the end */
            float d = hd[m];
            int32_t x = hi[m];
            hd[m] = hd[0]; hi[m] = hi[0];
            j = 0;
            for (;;) {
                c = 2 * j + 1;
                if (c >= m) break;
                if (c + 1 < m && umap__nnd_less(hd[c], hi[c], hd[c + 1], hi[c + 1])) c++;
                if (!umap__nnd_less(d, x, hd[c], hi[c])) break;
                hd[j] = hd[c]; hi[j] = hi[c];
                j = c;
            }
            hd[j] = d; hi[j] = x;
        }
        for (m = 0; m < st->k_out; m++) { /* insertion: only equal public values move */
            float d = st->sp ? hd[m] : (float)umap__metrics[st->metric].finish(hd[m], st->dim, st->p);
            int32_t x = hi[m];
            for (j = m; j > 0 && umap__nnd_less(d, x, od[j - 1], oi[j - 1]); j--) {
                od[j] = od[j - 1];
                oi[j] = oi[j - 1];
            }
            od[j] = d; oi[j] = x;
        }
    }
}

static int64_t umap__nnd_tasks(int64_t n, int64_t grain) { return (n + grain - 1) / grain; }

/* grows the proposal buffers of the tasks that overflowed; 0 on failure */
static int umap__nnd_grow(umap__nnd_buf *bufs, int64_t n_tasks, const umap_allocator *alloc) {
    int64_t t;
    for (t = 0; t < n_tasks; t++) {
        umap__nnd_buf *b = bufs + t;
        umap__nnd_prop *raw, *grouped;
        int64_t cap;
        if (!b->overflow) continue;
        cap = 2 * b->cap;
        raw = (umap__nnd_prop *)umap__calloc(alloc, (size_t)cap, sizeof *raw);
        grouped = (umap__nnd_prop *)umap__calloc(alloc, (size_t)cap, sizeof *grouped);
        if (!raw || !grouped) {
            umap__free(alloc, raw);
            umap__free(alloc, grouped);
            return 0;
        }
        umap__free(alloc, b->raw);
        umap__free(alloc, b->grouped);
        b->raw = raw;
        b->grouped = grouped;
        b->cap = cap;
    }
    return 1;
}

static void umap__nnd_retry_task(void *ctx, int64_t task) {
    umap__nnd_state *st = (umap__nnd_state *)ctx;
    if (st->bufs[task].overflow) umap__nnd_join_task(ctx, task);
}

/* The trees' rows: x times a dim x UMAP__NND_SKETCH matrix of Gaussian
   draws (the seed's), by the portable sgemm, so the same on any thread
   count. A tree level reads every row; on wide data the full rows made
   the forest a large part of the search, and its leaves are only seeds
   that the joins refine in the full space, where a random projection
   keeps the rows' neighbourhoods well enough. */
static umap_result umap__nnd_sketch(umap__nnd_state *st, const umap_allocator *alloc, umap_pool *pool,
                                    float **out) {
    const int64_t S = UMAP__NND_SKETCH, n = st->n, dim = st->dim;
    float *proj = (float *)umap__alloc(alloc, (size_t)(dim * S) * sizeof(float));
    float *ws = (float *)umap__alloc(alloc, (size_t)umap__gemm_workspace(S, dim) * sizeof(float));
    float *sk = (float *)umap__alloc(alloc, (size_t)(n * S) * sizeof(float));
    umap_rng rng;
    int64_t i;
    if (!proj || !ws || !sk) {
        umap__free(alloc, proj); umap__free(alloc, ws); umap__free(alloc, sk);
        return UMAP_ERR_OUT_OF_MEMORY;
    }
    umap_rng_init(&rng, st->seed, umap__nnd_stream(4, 0));
    for (i = 0; i < dim * S; i++) proj[i] = umap_rng_normal(&rng);
    umap__sgemm_pool(pool, 0, 0, n, S, dim, st->x, proj, sk, ws);
    umap__free(alloc, proj);
    umap__free(alloc, ws);
    st->tx = *out = sk;
    st->tdim = S;
    return UMAP_OK;
}

static umap_result umap__nndescent(const umap__knn_opts *o, const float *data, const struct umap__sp_rows *sp,
                                   int64_t n, int64_t dim,
                                   uint64_t seed, int n_trees, int max_iterations, float delta, int max_candidates,
                                   umap_pool *pool, int32_t *indices, float *distances) {
    const umap_allocator *alloc = &o->alloc;
    umap_knn_info *info = o->info;
    int k = o->k; /* the search may widen it (UMAP__NND_MIN_K) */
    const umap_metric metric = o->metric;
    umap__nnd_state st;
    umap_result r = UMAP_OK;
    float *sketch = NULL;
    int64_t nk, t, i, n_join_tasks, batch;
    int64_t row_tasks = umap__nnd_tasks(n, UMAP__NND_ROW_GRAIN), leaf_tasks = umap__nnd_tasks(n, UMAP__NND_LEAF_GRAIN);
    double evals = 0.0;
    int it, iters_done = 0;

    memset(&st, 0, sizeof st);
    st.k_out = k;
    if (k < UMAP__NND_MIN_K) k = n - 1 < UMAP__NND_MIN_K ? (int)(n - 1) : (int)UMAP__NND_MIN_K;
    nk = n * (int64_t)k;
    st.leaf_size = k > 10 ? k : 10;
    if (n_trees <= 0) { /* 4 below 32k rows, one more per doubling, at most 12: the joins do most of the work */
        n_trees = 4;
        while (n_trees < 12 && ((int64_t)16384 << (n_trees - 3)) <= n) n_trees++;
    }
    if (max_iterations <= 0) {
        max_iterations = (int)(log((double)n) / log(2.0) + 0.5);
        if (max_iterations < 5) max_iterations = 5;
    }
    if (max_candidates <= 0) max_candidates = 2 * k < 60 ? 2 * k : 60;
    if ((int64_t)max_candidates > n - 1) max_candidates = (int)(n - 1);
    if (n <= UMAP__NND_SMALL) { /* one leaf holding every row: exact, no rounds needed */
        n_trees = 1;
        st.leaf_size = (int)n;
        max_iterations = 0;
    }

    n_join_tasks = umap__nnd_tasks(n < UMAP__NND_CHUNK ? n : (int64_t)UMAP__NND_CHUNK, UMAP__NND_JOIN_GRAIN);
    st.x = data; st.sp = sp; st.n = n; st.dim = dim; st.k = k; st.mc = max_candidates; st.seed = seed;
    st.cosine = umap__metrics[metric].screen == UMAP__SCREEN_GRAM_DOT;
    st.metric = metric;
    st.p = o->metric_p;
    umap__nnd_pick(st.cosine, &st.l2, &st.dot, &st.x4);
    if (umap__metrics[metric].screen == UMAP__SCREEN_DIRECT) {
        st.direct = 1;
        st.m = umap__mcall_make(metric, o->metric_p, o->metric_fn, o->metric_user_data);
        st.x4 = NULL; /* the four-row kernels know the Gram metrics only */
    }
    if (sp) st.x4 = NULL;
    st.block_rows = n / 64 > 1024 ? (n + 63) / 64 : 1024;
    st.n_blocks = umap__nnd_tasks(n, st.block_rows);

    st.hd = (float *)umap__alloc(alloc, (size_t)nk * sizeof(float));
    st.hi = (int32_t *)umap__alloc(alloc, (size_t)nk * sizeof(int32_t));
    st.hf = (uint8_t *)umap__alloc(alloc, (size_t)nk);
    st.row_evals = (int64_t *)umap__calloc(alloc, (size_t)row_tasks, sizeof(int64_t));
    st.leaf_evals = (int64_t *)umap__calloc(alloc, (size_t)leaf_tasks, sizeof(int64_t));
    batch = n_trees < UMAP__NND_TREE_BATCH ? n_trees : (int)UMAP__NND_TREE_BATCH;
    st.perm = (int32_t *)umap__alloc(alloc, (size_t)batch * (size_t)n * sizeof(int32_t));
    st.leaf_len = (int32_t *)umap__alloc(alloc, (size_t)batch * (size_t)n * sizeof(int32_t));
    st.tx = data;
    st.tdim = dim;
    if (sp && n > UMAP__NND_SMALL) { /* the trees split dense rows: the sparse rows' sketch */
        if (!(sketch = umap__sp_sketch(sp, seed, UMAP__NND_SKETCH, alloc, pool))) { r = UMAP_ERR_OUT_OF_MEMORY; goto done; }
        st.tx = sketch;
        st.tdim = UMAP__NND_SKETCH;
    } else if (!sp && dim > UMAP__NND_SKETCH && n > UMAP__NND_SMALL &&
               (r = umap__nnd_sketch(&st, alloc, pool, &sketch)) != UMAP_OK)
        goto done;
    st.normals = (float *)umap__alloc(alloc, (size_t)batch * (size_t)st.tdim * sizeof(float));
    st.order = (int32_t *)umap__alloc(alloc, (size_t)n * sizeof(int32_t));
    if (!st.order || !st.hd || !st.hi || !st.hf || !st.row_evals || !st.leaf_evals || !st.perm || !st.leaf_len ||
        !st.normals) {
        r = UMAP_ERR_OUT_OF_MEMORY;
        goto done;
    }
    for (i = 0; i < nk; i++) { st.hd[i] = INFINITY; st.hi[i] = INT32_MAX; st.hf[i] = 1; }

    /* 1. the forest, in batches: build the trees of a batch in parallel, then
       seed the heaps tree by tree, the leaves of one tree in parallel */
    for (st.tree0 = 0; st.tree0 < n_trees; st.tree0 += batch) {
        int64_t nb = n_trees - st.tree0 < batch ? n_trees - st.tree0 : batch;
        umap_pool_for(pool, nb, umap__nnd_tree_task, &st);
        for (st.slot = 0; st.slot < nb; st.slot++) umap_pool_for(pool, leaf_tasks, umap__nnd_leaf_task, &st);
        if (st.tree0 == 0) memcpy(st.order, st.perm, (size_t)n * sizeof(int32_t));
    }
    umap_pool_for(pool, row_tasks, umap__nnd_fill_task, &st);
    for (t = 0; t < leaf_tasks; t++) evals += (double)st.leaf_evals[t];
    umap__free(alloc, st.perm); st.perm = NULL;
    umap__free(alloc, st.leaf_len); st.leaf_len = NULL;
    umap__free(alloc, sketch); sketch = NULL;

    /* 2. NN-Descent rounds */
    st.prio = (uint32_t *)umap__alloc(alloc, (size_t)nk * sizeof(uint32_t));
    st.rev_prio = (uint32_t *)umap__alloc(alloc, (size_t)nk * sizeof(uint32_t));
    st.rev_src = (int32_t *)umap__alloc(alloc, (size_t)nk * sizeof(int32_t));
    st.rev_new = (uint8_t *)umap__alloc(alloc, (size_t)nk);
    st.rev_off = (int64_t *)umap__alloc(alloc, (size_t)(n + 1) * sizeof(int64_t));
    st.new_c = (int32_t *)umap__alloc(alloc, (size_t)n * (size_t)st.mc * sizeof(int32_t));
    st.old_c = (int32_t *)umap__alloc(alloc, (size_t)n * (size_t)st.mc * sizeof(int32_t));
    st.new_n = (int32_t *)umap__alloc(alloc, (size_t)n * sizeof(int32_t));
    st.old_n = (int32_t *)umap__alloc(alloc, (size_t)n * sizeof(int32_t));
    st.cand_scratch = (uint32_t *)umap__alloc(alloc, (size_t)row_tasks * 2 * (size_t)st.mc * sizeof(uint32_t));
    st.block_off = (int64_t *)umap__alloc(alloc, (size_t)n_join_tasks * (size_t)(st.n_blocks + 1) * sizeof(int64_t));
    st.block_upd = (int64_t *)umap__calloc(alloc, (size_t)st.n_blocks, sizeof(int64_t));
    st.bufs = (umap__nnd_buf *)umap__calloc(alloc, (size_t)n_join_tasks, sizeof(umap__nnd_buf));
    if (!st.prio || !st.rev_prio || !st.rev_src || !st.rev_new || !st.rev_off || !st.new_c || !st.old_c || !st.new_n ||
        !st.old_n || !st.cand_scratch || !st.block_off || !st.block_upd || !st.bufs) {
        r = UMAP_ERR_OUT_OF_MEMORY;
        goto done;
    }
    for (t = 0; t < n_join_tasks; t++) { /* first sizes; grown on demand */
        st.bufs[t].cand = (int32_t *)umap__alloc(alloc, 2 * (size_t)st.mc * sizeof(int32_t));
        st.bufs[t].thr = (float *)umap__alloc(alloc, 2 * (size_t)st.mc * sizeof(float));
        if (!st.bufs[t].cand || !st.bufs[t].thr) { r = UMAP_ERR_OUT_OF_MEMORY; goto done; }
        st.bufs[t].overflow = 1;
        st.bufs[t].cap = (int64_t)UMAP__NND_JOIN_GRAIN * st.mc;
    }
    if (!umap__nnd_grow(st.bufs, n_join_tasks, alloc)) { r = UMAP_ERR_OUT_OF_MEMORY; goto done; }
    for (t = 0; t < n_join_tasks; t++) st.bufs[t].overflow = 0;

    if (umap__knn_progress(o, 0, max_iterations, "rounds")) { r = UMAP_ERR_CANCELLED; goto done; }
    for (it = 0; it < max_iterations; it++) {
        int64_t upd = 0, blk;
        st.iter = it;
        umap_pool_for(pool, row_tasks, umap__nnd_prio_task, &st);
        umap__nnd_reverse(&st);
        umap_pool_for(pool, row_tasks, umap__nnd_sample_task, &st);
        for (blk = 0; blk < st.n_blocks; blk++) st.block_upd[blk] = 0;
        for (st.c0 = 0; st.c0 < n; st.c0 += UMAP__NND_CHUNK) {
            int64_t nt, any;
            st.c1 = st.c0 + UMAP__NND_CHUNK < n ? st.c0 + UMAP__NND_CHUNK : n;
            nt = umap__nnd_tasks(st.c1 - st.c0, UMAP__NND_JOIN_GRAIN);
            for (t = 0; t < nt; t++) st.bufs[t].overflow = 1; /* = still to run */
            for (;;) {
                umap_pool_for(pool, nt, umap__nnd_retry_task, &st);
                for (any = 0, t = 0; t < nt; t++) any |= st.bufs[t].overflow;
                if (!any) break;
                if (!umap__nnd_grow(st.bufs, nt, alloc)) { r = UMAP_ERR_OUT_OF_MEMORY; goto done; }
            }
            for (t = 0; t < nt; t++) evals += (double)st.bufs[t].evals;
            umap_pool_for(pool, st.n_blocks, umap__nnd_apply_task, &st);
        }
        for (blk = 0; blk < st.n_blocks; blk++) upd += st.block_upd[blk];
        iters_done = it + 1;
        if ((double)upd <= (double)delta * (double)n * (double)k) break; /* converged: the caller's next phase says so */
        if (umap__knn_progress(o, iters_done, max_iterations, "rounds")) { r = UMAP_ERR_CANCELLED; goto done; }
    }

    /* 3. ascending rows in the public convention */
    st.out_i = indices;
    st.out_d = distances;
    umap_pool_for(pool, row_tasks, umap__nnd_output_task, &st);
    for (t = 0; t < row_tasks; t++) evals += (double)st.row_evals[t];

done:
    if (info) {
        info->iterations = iters_done;
        info->distance_evals += evals;
    }
    umap__free(alloc, st.hd); umap__free(alloc, st.hi); umap__free(alloc, st.hf);
    umap__free(alloc, st.row_evals); umap__free(alloc, st.leaf_evals);
    umap__free(alloc, st.perm); umap__free(alloc, st.leaf_len); umap__free(alloc, st.normals);
    umap__free(alloc, st.order); umap__free(alloc, sketch);
    umap__free(alloc, st.prio); umap__free(alloc, st.rev_prio); umap__free(alloc, st.rev_src);
    umap__free(alloc, st.rev_new); umap__free(alloc, st.rev_off);
    umap__free(alloc, st.new_c); umap__free(alloc, st.old_c); umap__free(alloc, st.new_n); umap__free(alloc, st.old_n);
    umap__free(alloc, st.cand_scratch); umap__free(alloc, st.block_off); umap__free(alloc, st.block_upd);
    if (st.bufs)
        for (t = 0; t < n_join_tasks; t++) {
            umap__free(alloc, st.bufs[t].raw); umap__free(alloc, st.bufs[t].grouped);
            umap__free(alloc, st.bufs[t].cand); umap__free(alloc, st.bufs[t].thr);
        }
    umap__free(alloc, st.bufs);
    return r;
}

/* >>entry: umap_knn and umap_knn_query (checks, scaling, the method) ------------ */

static umap_result umap__knn_nndescent_dispatch(const umap__knn_opts *o, umap_pool *pool, const float *x,
                                                const struct umap__sp_rows *sp, int64_t n, int64_t dim,
                                                int32_t *indices, float *distances) {
    /* NN-Descent needs both outputs; borrow space for the one not wanted */
    int32_t *idx = indices;
    float *dist = distances;
    umap_result r;
    if (!idx) idx = (int32_t *)umap__alloc(&o->alloc, (size_t)n * (size_t)o->k * sizeof(int32_t));
    if (!dist) dist = (float *)umap__alloc(&o->alloc, (size_t)n * (size_t)o->k * sizeof(float));
    if (!idx || !dist) r = umap__fail(&o->err, UMAP_ERR_OUT_OF_MEMORY, "NN-Descent: out of memory");
    else {
        r = umap__nndescent(o, x, sp, n, dim, o->seed, o->n_trees, o->max_iterations, o->delta, o->max_candidates, pool,
                            idx, dist);
        if (r != UMAP_OK && !o->info->error_detail[0])
            umap__fail(&o->err, r, "NN-Descent failed: %s", umap_result_string(r));
    }
    if (idx != indices) umap__free(&o->alloc, idx);
    if (dist != distances) umap__free(&o->alloc, dist);
    return r;
}

/* --- precomputed: the data are the distances ---------------------------------
   Nothing is measured: each row's k smallest entries are selected, by
   (distance, index) as every search ranks, the row's own column left out
   in a self search. A matrix of something other than distances is an
   error naming its first bad entry in row order, whatever the threads:
   each band of rows keeps its own first, and the bands are read in order. */
#define UMAP__SELECT_BAND 64
/* symmetric to a relative 2^-16: the same distance computed in two orders
   differs by far less, another quantity by far more */
#define UMAP__SELECT_ASYMMETRY (1.0f / 65536.0f)

typedef struct umap__select_ctx {
    const float *x;
    int64_t n, cols; /* rows, and entries per row */
    int k, self; /* self: the n x n matrix, symmetric, its diagonal no neighbour */
    int32_t *idx;
    float *dist;
    int64_t *bad; /* per band: the first bad entry (row * cols + col), else -1 */
} umap__select_ctx;

static void umap__select_check_band(void *vctx, int64_t band) {
    const umap__select_ctx *c = (const umap__select_ctx *)vctx;
    int64_t r0 = band * UMAP__SELECT_BAND, r1 = r0 + UMAP__SELECT_BAND < c->n ? r0 + UMAP__SELECT_BAND : c->n, r, j;
    c->bad[band] = -1;
    for (r = r0; r < r1; r++)
        for (j = 0; j < c->cols; j++) { /* a pair is compared once, from its earlier row */
            float v = c->x[r * c->cols + j], w = c->self && j > r ? c->x[j * c->cols + r] : v;
            float big = v > w ? v : w;
            if (v < 0.0f || fabsf(v - w) > UMAP__SELECT_ASYMMETRY * big) {
                c->bad[band] = r * c->cols + j;
                return;
            }
        }
}

/* keeps (v, j) among a row's k smallest so far, od ascending (*count of
   them); columns come in increasing order, so a tie keeps the smaller,
   met first (the dense and the sparse selection both) */
static void umap__select_keep(float *od, int32_t *oi, int *count, int k, float v, int32_t j) {
    int at;
    if (*count == k && !(v < od[k - 1])) return;
    at = *count < k ? (*count)++ : k - 1;
    for (; at > 0 && v < od[at - 1]; at--) od[at] = od[at - 1], oi[at] = oi[at - 1];
    od[at] = v;
    oi[at] = j;
}

static void umap__select_range(void *vctx, int64_t r0, int64_t r1) {
    const umap__select_ctx *c = (const umap__select_ctx *)vctx;
    int64_t r, j;
    for (r = r0; r < r1; r++) {
        int count = 0;
        for (j = 0; j < c->cols; j++)
            if (!(c->self && j == r))
                umap__select_keep(c->dist + r * c->k, c->idx + r * c->k, &count, c->k, c->x[r * c->cols + j], (int32_t)j);
    }
}

/* x (n rows of cols entries, already checked finite) holds distances:
   none negative and, for a self search, the n x n matrix symmetric */
static umap_result umap__select_check(const umap__knn_opts *o, umap_pool *pool, const float *x, int64_t n,
                                      int64_t cols, int self) {
    umap__select_ctx c;
    int64_t bands = (n + UMAP__SELECT_BAND - 1) / UMAP__SELECT_BAND, b;
    umap_result r = UMAP_OK;
    if (self && cols != n)
        return umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT,
                          "precomputed: the distance matrix must be square (n x n): it has %lld rows of %lld columns",
                          (long long)n, (long long)cols);
    memset(&c, 0, sizeof c);
    c.x = x; c.n = n; c.cols = cols; c.self = self;
    if (!(c.bad = (int64_t *)umap__alloc(&o->alloc, (size_t)bands * sizeof(int64_t))))
        return umap__fail(&o->err, UMAP_ERR_OUT_OF_MEMORY, "precomputed: out of memory");
    umap_pool_for(pool, bands, umap__select_check_band, &c);
    for (b = 0; b < bands; b++)
        if (c.bad[b] >= 0) {
            int64_t i = c.bad[b] / cols, j = c.bad[b] % cols;
            o->info->bad_row = i;
            if (x[c.bad[b]] < 0.0f)
                r = umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT,
                               "precomputed: entry (%lld, %lld) is %g: distances cannot be negative", (long long)i,
                               (long long)j, (double)x[c.bad[b]]);
            else
                r = umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT,
                               "precomputed: the matrix is not symmetric: entry (%lld, %lld) is %.9g, (%lld, %lld) is "
                               "%.9g", (long long)i, (long long)j, (double)x[c.bad[b]], (long long)j, (long long)i,
                               (double)x[j * cols + i]);
            break;
        }
    umap__free(&o->alloc, c.bad);
    return r;
}

/* umap_knn / umap_knn_query for a precomputed metric: x holds n rows of
   cols distances, already checked finite; self: the n x n matrix */
static umap_result umap__knn_select(const umap__knn_opts *o, umap_pool *pool, const float *x, int64_t n, int64_t cols,
                                    int self, int32_t *indices, float *distances) {
    umap__select_ctx c;
    umap_result r;
    if (umap__knn_progress(o, 0, 1, "matrix")) return UMAP_ERR_CANCELLED;
    if ((r = umap__select_check(o, pool, x, n, cols, self)) != UMAP_OK) return r;
    memset(&c, 0, sizeof c);
    c.x = x; c.n = n; c.cols = cols; c.k = o->k; c.self = self;
    c.idx = indices ? indices : (int32_t *)umap__alloc(&o->alloc, (size_t)n * (size_t)o->k * sizeof(int32_t));
    c.dist = distances ? distances : (float *)umap__alloc(&o->alloc, (size_t)n * (size_t)o->k * sizeof(float));
    if (!c.idx || !c.dist) r = umap__fail(&o->err, UMAP_ERR_OUT_OF_MEMORY, "precomputed: out of memory");
    else umap__parallel_range(pool, n, 1 + 65536 / cols, umap__select_range, &c);
    if (c.idx != indices) umap__free(&o->alloc, c.idx);
    if (c.dist != distances) umap__free(&o->alloc, c.dist);
    o->info->method = UMAP_KNN_EXACT;
    o->info->distance_evals = 0.0;
    if (r == UMAP_OK && umap__knn_progress(o, 1, 1, "matrix")) r = UMAP_ERR_CANCELLED;
    return r;
}

/* a pool for one call, and the cosine copy of the data when needed */
static umap_result umap__knn_begin(const umap__knn_opts *o, umap_pool **pool) {
    umap_result r;
    if (o->pool) { *pool = o->pool; return UMAP_OK; }
    r = umap_pool_create(o->n_threads, &o->alloc, pool);
    if (r != UMAP_OK) return umap__fail(&o->err, r, "k-NN: cannot start %d threads", o->n_threads);
    return UMAP_OK;
}

/* Data of a SCALE metric is searched at the scale 2^-e when its largest
   magnitude lies outside [2^-40, 2^40]: squared norms (or sums of many
   differences) in float would overflow or underflow there. A PNORM metric
   (minkowski) is always searched with its largest magnitude in [1/4, 1/2),
   where |x - y|^p < 1 cannot overflow for any p. Powers of two scale
   exactly; distances are scaled back (umap__knn_dist_exponent), except a
   RATIO metric's, which the scale does not change. Returns e (0: no
   scaling). The other metrics normalise or compare values and need none. */
static int umap__knn_scale_exponent(const umap__knn_opts *o, float maxabs) {
    int e = 0, prep = umap__metrics[o->metric].prep;
    if (prep == UMAP__PREP_COLUMNS) { /* as SCALE, for the weighted copy's magnitudes (at most maxabs w_max) */
        double w = (double)maxabs * o->col_w_max;
        if (w == 0.0 || (w <= ldexp(1.0, 40) && w >= ldexp(1.0, -40))) return 0;
        frexp(w, &e);
        return e;
    }
    if ((prep != UMAP__PREP_SCALE && prep != UMAP__PREP_PNORM && prep != UMAP__PREP_RATIO) || maxabs == 0.0f) return 0;
    frexpf(maxabs, &e); /* maxabs = m 2^e, m in [0.5, 1) */
    if (prep == UMAP__PREP_PNORM) return e + 1;
    if (maxabs <= ldexpf(1.0f, 40) && maxabs >= ldexpf(1.0f, -40)) return 0;
    return e;
}

/* the scale 2^-e of the distances a search at the working scale 2^-e finds */
static int umap__knn_dist_exponent(const umap__knn_opts *o, int e) { /* COLUMNS: scaled as SCALE */
    return umap__metrics[o->metric].prep == UMAP__PREP_RATIO ? 0 : e;
}

typedef struct umap__scale_ctx {
    const float *x;
    float *out;
    const double *col_w; /* per-column weights (COLUMNS), or NULL */
    int64_t dim;
    int e;
} umap__scale_ctx;
static void umap__scale_range(void *ctx, int64_t r0, int64_t r1) {
    const umap__scale_ctx *c = (const umap__scale_ctx *)ctx;
    int64_t i, j;
    if (c->col_w) /* weight and scale in double: one rounding */
        for (i = r0; i < r1; i++)
            for (j = 0; j < c->dim; j++)
                c->out[i * c->dim + j] = (float)ldexp((double)c->x[i * c->dim + j] * c->col_w[j], -c->e);
    else
        for (i = r0 * c->dim; i < r1 * c->dim; i++) c->out[i] = ldexpf(c->x[i], -c->e);
}

/* seuclidean's V (d variances, as given or kept): each finite and >= 0,
   and some > 0; the first bad one named */
static umap_result umap__metric_v_check(const umap__err *err, const float *v, int64_t d) {
    int64_t j, kept = 0;
    for (j = 0; j < d; j++) {
        if (!(v[j] >= 0.0f && v[j] <= FLT_MAX))
            return umap__fail(err, UMAP_ERR_INVALID_ARGUMENT,
                              "metric_v[%lld] = %g: seuclidean's variances must be finite and >= 0 (0 leaves the "
                              "column out)", (long long)j, (double)v[j]);
        kept += v[j] > 0.0f;
    }
    if (!kept)
        return umap__fail(err, UMAP_ERR_INVALID_ARGUMENT, "seuclidean: every column's variance is 0: no distance to measure");
    return UMAP_OK;
}

/* A COLUMNS metric's weights 1 / sqrt V_j into o->col_w (and their largest
   into o->col_w_max) for a search whose base is x (n x dim, checked): V
   the caller's desc.metric_v, else x's sample variances (n - 1 in the
   denominator; 0 for one row), in double. V_j = 0 leaves column j out
   (weight 0); every column out is an error. *owned: the weights, for the
   caller to free (NULL for other metrics). */
static umap_result umap__knn_columns(umap__knn_opts *o, const float *x, int64_t n, int64_t dim, double **owned) {
    int64_t i, j;
    double *w, *mean;
    umap_result r;
    *owned = NULL;
    if (umap__metrics[o->metric].prep != UMAP__PREP_COLUMNS) return UMAP_OK;
    if (o->metric_v && (r = umap__metric_v_check(&o->err, o->metric_v, dim)) != UMAP_OK) return r;
    /* the weights, then the columns' means beside them (row by row: reads in memory order) */
    if (!(w = *owned = (double *)umap__calloc(&o->alloc, (size_t)(o->metric_v ? dim : 2 * dim), sizeof(double))))
        return umap__fail(&o->err, UMAP_ERR_OUT_OF_MEMORY, "k-NN: out of memory for %s's column weights",
                          umap_metric_name(o->metric));
    o->col_w = w;
    o->col_w_max = 0.0;
    if (o->metric_v) {
        for (j = 0; j < dim; j++) w[j] = o->metric_v[j];
    } else if (n > 1) { /* two passes: the means, then the squares about them */
        mean = w + dim;
        for (i = 0; i < n; i++)
            for (j = 0; j < dim; j++) mean[j] += x[i * dim + j];
        for (j = 0; j < dim; j++) mean[j] /= (double)n;
        for (i = 0; i < n; i++)
            for (j = 0; j < dim; j++) w[j] += ((double)x[i * dim + j] - mean[j]) * ((double)x[i * dim + j] - mean[j]);
        for (j = 0; j < dim; j++) w[j] /= (double)(n - 1);
    }
    for (j = 0; j < dim; j++) { /* V into 1 / sqrt V */
        w[j] = w[j] > 0.0 ? 1.0 / sqrt(w[j]) : 0.0;
        if (w[j] > o->col_w_max) o->col_w_max = w[j];
    }
    if (o->col_w_max == 0.0) /* the data's: every column constant */
        return umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT, "%s: every column's variance is 0 (constant columns): "
                          "no distance to measure", umap_metric_name(o->metric));
    return UMAP_OK;
}

/* the copy the search runs on (the metric's prep): normalised (cosine),
   centred and normalised (correlation), scaled (scale_e != 0), or none
   (*out = NULL: use x itself) */
static umap_result umap__knn_prepare(const umap__knn_opts *o, umap_pool *pool, const float *x, int64_t n, int64_t dim,
                                     int scale_e, float **out) {
    int prep = umap__metrics[o->metric].prep;
    int unit = prep == UMAP__PREP_UNIT || prep == UMAP__PREP_CENTRED_UNIT || prep == UMAP__PREP_SQRT_L1;
    *out = NULL; /* umap__knn_check_data checked the metric's domain (hellinger: non-negative) */
    if (!unit && scale_e == 0 && prep != UMAP__PREP_COLUMNS) return UMAP_OK;
    *out = (float *)umap__alloc(&o->alloc, (size_t)n * (size_t)dim * sizeof(float));
    if (!*out) return umap__fail(&o->err, UMAP_ERR_OUT_OF_MEMORY, "k-NN: out of memory for a working copy of the data");
    if (unit) {
        umap__norm_ctx c;
        c.x = x; c.out = *out; c.dim = dim; c.centre = prep == UMAP__PREP_CENTRED_UNIT;
        c.sqrt_l1 = prep == UMAP__PREP_SQRT_L1;
        umap__parallel_range(pool, n, 1 + 65536 / dim, umap__normalize_range, &c);
    } else {
        umap__scale_ctx c;
        c.x = x; c.out = *out; c.dim = dim; c.e = scale_e;
        c.col_w = prep == UMAP__PREP_COLUMNS ? o->col_w : NULL;
        umap__parallel_range(pool, n, 1 + 65536 / dim, umap__scale_range, &c);
    }
    return UMAP_OK;
}

/* Back from the working scale 2^-e to the data's own. A distance beyond
   float's range (data near FLT_MAX, far apart) cannot be returned: that is
   an error naming the row, never an Inf handed back as a result. */
static umap_result umap__knn_unscale(const umap__knn_opts *o, float *d, int64_t rows, int k, int e) {
    int64_t i, count = rows * k;
    e = umap__knn_dist_exponent(o, e);
    if (!d || e == 0) return UMAP_OK;
    for (i = 0; i < count; i++) {
        double v = ldexp((double)d[i], e);
        if (v > FLT_MAX)
            return umap__fail(&o->err, UMAP_ERR_TOO_LARGE,
                                  "row %lld: the distance to neighbour %d is %.4g, beyond float's range (%.4g); "
                                  "scale the data down (by 2^%d or more) and search again",
                                  (long long)(i / k), (int)(i % k) + 1, v, (double)FLT_MAX,
                                  (int)ceil(log2(v / FLT_MAX)));
        d[i] = (float)v;
    }
    return UMAP_OK;
}

/* custom: the first wrong distance a search kept, in row order, as the
   error naming its pair (a search keeps every wrong one it measured, see
   umap__mcall); d: n rows of k, idx their columns (NULL: the position) */
static umap_result umap__custom_check(const umap__knn_opts *o, const float *d, const int32_t *idx, int64_t n, int k,
                                      int self) {
    int64_t i;
    char what[48];
    if (o->metric != UMAP_METRIC_CUSTOM || !d) return UMAP_OK;
    for (i = 0; i < n * (int64_t)k && d[i] >= 0.0f; i++) continue;
    if (i == n * (int64_t)k) return UMAP_OK;
    if (d[i] == UMAP__CUSTOM_BAD) snprintf(what, sizeof what, "NaN, Inf or beyond float's range");
    else snprintf(what, sizeof what, "%g, below 0", (double)d[i]);
    return umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT,
                      "custom metric: the distance %s row %lld %s row %lld is %s; metric_fn must return finite "
                      "distances >= 0",
                      self ? "between" : "from query", (long long)(i / k), self ? "and" : "to base",
                      (long long)(idx ? idx[i] : i % k), what);
}

/* custom's searches keep the distances to check them: a buffer when the
   caller wants none (*owned, freed by the caller) */
static umap_result umap__custom_distances(const umap__knn_opts *o, int64_t n, float **distances, float **owned) {
    *owned = NULL;
    if (o->metric != UMAP_METRIC_CUSTOM || *distances || n <= 0) return UMAP_OK;
    if (!(*distances = *owned = (float *)umap__alloc(&o->alloc, (size_t)n * (size_t)o->k * sizeof(float))))
        return umap__fail(&o->err, UMAP_ERR_OUT_OF_MEMORY, "k-NN: out of memory");
    return UMAP_OK;
}

static umap_result umap__knn_check_common(const umap__knn_opts *o) {
    if ((int)o->metric < 0 || (int)o->metric >= (int)UMAP_METRIC_COUNT) {
        char names[256];
        return umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT, "unknown metric %d (the metrics: %s)", (int)o->metric,
                              umap_metric_names(names, sizeof names, ", "));
    }
    if (!(o->metric_p >= 1.0f && o->metric_p <= FLT_MAX))
        return umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT, "metric_p = %g: minkowski's p must be finite and >= 1",
                              (double)o->metric_p);
    if (o->metric_v && umap__metrics[o->metric].prep != UMAP__PREP_COLUMNS)
        return umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT, "metric_v is seuclidean's variances, and the metric is %s",
                          umap_metric_name(o->metric));
    if (o->metric == UMAP_METRIC_CUSTOM && !o->metric_fn)
        return umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT, "the custom metric needs its function: metric_fn is NULL (umap.h: a model loaded from a "
                          "file gets it from umap_model_set_metric_fn)");
    if (o->metric != UMAP_METRIC_CUSTOM && o->metric_fn)
        return umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT, "metric_fn is the custom metric's function, and the metric is %s",
                          umap_metric_name(o->metric));
    if (o->method != UMAP_KNN_AUTO && o->method != UMAP_KNN_EXACT && o->method != UMAP_KNN_NNDESCENT)
        return umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT, "unknown method %d", (int)o->method);
    if ((o->alloc.alloc_fn == NULL) != (o->alloc.free_fn == NULL))
        return umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT, "allocator: set both alloc_fn and free_fn, or neither");
    return UMAP_OK;
}

/* umap_knn; with scale_e, the distances stay at the search's working scale
   2^-*scale_e (see umap__knn_scale_exponent), where they cannot overflow.
   umap.h's fit reads them so: UMAP's fuzzy graph is the same at any scale. */
static umap_result umap__knn_self(const umap_knn_desc *desc, const float *data, int64_t n, int64_t dim,
                                  int32_t *indices, float *distances, int *scale_e) {
    umap__knn_opts o;
    umap_knn_info scratch;
    umap_pool *pool = NULL;
    float *normed = NULL, *own_d = NULL;
    double *col_w = NULL;
    umap_result r;
    float maxabs = 0.0f;
    int e;
    umap__knn_resolve(desc, &scratch, &o);
    if ((r = umap__knn_check_common(&o)) != UMAP_OK) return r;
    if (o.k < 1 || (n >= 1 && o.k >= n))
        return umap__fail(&o.err, UMAP_ERR_INVALID_ARGUMENT, "k = %d with %lld rows: need 1 <= k < n", o.k,
                              (long long)n);
    if ((r = umap__custom_distances(&o, n, &distances, &own_d)) != UMAP_OK) return r;
    if ((r = umap__knn_begin(&o, &pool)) != UMAP_OK) goto done;
    if ((r = umap__knn_check_data(&o, pool, "data", data, n, dim, &maxabs)) != UMAP_OK) goto done;
    if (umap__metrics[o.metric].screen == UMAP__SCREEN_SELECT) {
        r = umap__knn_select(&o, pool, data, n, dim, 1, indices, distances);
        if (r == UMAP_OK && scale_e) *scale_e = 0;
        goto done;
    }
    if ((r = umap__knn_columns(&o, data, n, dim, &col_w)) != UMAP_OK) goto done;
    e = umap__knn_scale_exponent(&o, maxabs);
    o.info->method = o.method == UMAP_KNN_AUTO ? (n <= o.exact_threshold ? UMAP_KNN_EXACT : UMAP_KNN_NNDESCENT)
                                               : o.method;
    if ((r = umap__knn_prepare(&o, pool, data, n, dim, e, &normed)) != UMAP_OK) goto done;
    if (o.info->method == UMAP_KNN_EXACT) {
        const float *x = normed ? normed : data;
        r = umap__knn_exact(&o, pool, x, n, x, n, dim, 1, indices, distances);
    } else {
        r = umap__knn_nndescent_dispatch(&o, pool, normed ? normed : data, NULL, n, dim, indices, distances);
    }
    if (r == UMAP_OK) r = umap__custom_check(&o, distances, indices, n, o.k, 1);
    if (r == UMAP_OK && scale_e) *scale_e = umap__knn_dist_exponent(&o, e);
    else if (r == UMAP_OK) r = umap__knn_unscale(&o, distances, n, o.k, e);
done:
    umap__free(&o.alloc, normed);
    umap__free(&o.alloc, own_d);
    umap__free(&o.alloc, col_w);
    if (pool != o.pool) umap_pool_free(pool);
    return r;
}

UMAP__FN umap_result umap_knn(const umap_knn_desc *desc, const float *data, int64_t n, int64_t dim, int32_t *indices,
                              float *distances) {
    return umap__knn_self(desc, data, n, dim, indices, distances, NULL);
}

/* umap_knn_query; with scale_e, the distances stay at the search's working
   scale 2^-*scale_e, as umap__knn_self leaves them (umap.h's transform
   reads them so: memberships are the same at any scale) */
static umap_result umap__knn_query(const umap_knn_desc *desc, const float *base, int64_t n_base, const float *queries,
                                   int64_t n_queries, int64_t dim, int32_t *indices, float *distances, int *scale_e) {
    umap__knn_opts o;
    umap_knn_info scratch;
    umap_pool *pool = NULL;
    float *nb = NULL, *nq = NULL, *own_d = NULL, maxabs = 0.0f;
    double *col_w = NULL;
    umap_result r;
    int e;
    umap__knn_resolve(desc, &scratch, &o);
    if ((r = umap__knn_check_common(&o)) != UMAP_OK) return r;
    if (o.k < 1 || (n_base >= 1 && o.k > n_base))
        return umap__fail(&o.err, UMAP_ERR_INVALID_ARGUMENT, "k = %d with %lld base rows: need 1 <= k <= n_base", o.k,
                              (long long)n_base);
    if (n_queries == 0 && queries) return UMAP_OK; /* an empty batch: nothing to do */
    if ((r = umap__custom_distances(&o, n_queries, &distances, &own_d)) != UMAP_OK) return r;
    if ((r = umap__knn_begin(&o, &pool)) != UMAP_OK) goto done;
    if (umap__metrics[o.metric].screen != UMAP__SCREEN_SELECT && /* precomputed reads the queries alone */
        (r = umap__knn_check_data(&o, pool, "base", base, n_base, dim, &maxabs)) != UMAP_OK)
        goto done;
    if ((r = umap__knn_check_data(&o, pool, "queries", queries, n_queries, dim, &maxabs)) != UMAP_OK) goto done;
    o.info->method = UMAP_KNN_EXACT;
    if (umap__metrics[o.metric].screen == UMAP__SCREEN_SELECT) {
        if (dim != n_base)
            r = umap__fail(&o.err, UMAP_ERR_INVALID_ARGUMENT,
                           "precomputed: each query row holds its distances to the %lld base rows, not %lld",
                           (long long)n_base, (long long)dim);
        else r = umap__knn_select(&o, pool, queries, n_queries, dim, 0, indices, distances);
        if (r == UMAP_OK && scale_e) *scale_e = 0;
        goto done;
    }
    if ((r = umap__knn_columns(&o, base, n_base, dim, &col_w)) != UMAP_OK) goto done;
    e = umap__knn_scale_exponent(&o, maxabs);
    if ((r = umap__knn_prepare(&o, pool, base, n_base, dim, e, &nb)) != UMAP_OK) goto done;
    if ((r = umap__knn_prepare(&o, pool, queries, n_queries, dim, e, &nq)) != UMAP_OK) goto done;
    r = umap__knn_exact(&o, pool, nq ? nq : queries, n_queries, nb ? nb : base, n_base, dim, 0, indices, distances);
    if (r == UMAP_OK) r = umap__custom_check(&o, distances, indices, n_queries, o.k, 0);
    if (r == UMAP_OK && scale_e) *scale_e = umap__knn_dist_exponent(&o, e);
    else if (r == UMAP_OK) r = umap__knn_unscale(&o, distances, n_queries, o.k, e);
done:
    umap__free(&o.alloc, nb);
    umap__free(&o.alloc, nq);
    umap__free(&o.alloc, own_d);
    umap__free(&o.alloc, col_w);
    if (pool != o.pool) umap_pool_free(pool);
    return r;
}

UMAP__FN umap_result umap_knn_query(const umap_knn_desc *desc, const float *base, int64_t n_base, const float *queries,
                                    int64_t n_queries, int64_t dim, int32_t *indices, float *distances) {
    return umap__knn_query(desc, base, n_base, queries, n_queries, dim, indices, distances, NULL);
}

/* >>sparse: umap_knn_rows and umap_knn_query_rows on CSR rows ---------------

   The exact search without densifying. Every supported metric splits over
   the columns: a pair's distance is a function of the two rows' own
   statistics (sum |x|^2, sum |x|, nonzero count, ...: UMAP__SP_* below)
   and of a sum over the columns both rows store, so one query row costs a
   walk over the base's columns (an inverted index, CSC) at its own
   nonzeros, then a pass over every base row. That pass bounds each
   distance: the sums run in double, whose rounding is at most c (|stat_x|
   + |stat_y|), c = 2.02 (nnz + 8) 2^-53, so the true k nearest all have a
   lower bound <= the k-th smallest upper bound; those candidates are
   measured directly in double (umap__sp_md), which gives the dense
   search's distances to the bit. Each query row is one task's alone: results never depend on
   the thread count. */
enum {
    UMAP__SP_L2,    /* sum (x - y)^2: stat sum x^2 (euclidean, seuclidean and hellinger on their copies) */
    UMAP__SP_DOT,   /* 1 - x.y on unit rows (cosine) */
    UMAP__SP_CORR,  /* 1 - (x.y - d mx my) / (sx sy): centred without centring the rows (correlation) */
    UMAP__SP_SUM,   /* sum f(x, y), f(0, 0) = 0: stat sum f(x, 0) (manhattan, minkowski, canberra) */
    UMAP__SP_BRAY,  /* braycurtis: two such sums, a ratio */
    UMAP__SP_COUNT, /* counts of nonzero columns (jaccard, dice, russellrao, hamming): exact */
    UMAP__SP_ALL,   /* no split (chebyshev): every pair measured */
    UMAP__SP_NONE   /* no sparse form (haversine, precomputed, custom) */
};

static int umap__sp_kind(umap_metric m) {
    switch (m) {
    case UMAP_METRIC_EUCLIDEAN: case UMAP_METRIC_SEUCLIDEAN: case UMAP_METRIC_HELLINGER: return UMAP__SP_L2;
    case UMAP_METRIC_COSINE: return UMAP__SP_DOT;
    case UMAP_METRIC_CORRELATION: return UMAP__SP_CORR;
    case UMAP_METRIC_MANHATTAN: case UMAP_METRIC_MINKOWSKI: case UMAP_METRIC_CANBERRA: return UMAP__SP_SUM;
    case UMAP_METRIC_BRAYCURTIS: return UMAP__SP_BRAY;
    case UMAP_METRIC_JACCARD: case UMAP_METRIC_DICE: case UMAP_METRIC_RUSSELLRAO: case UMAP_METRIC_HAMMING:
        return UMAP__SP_COUNT;
    case UMAP_METRIC_CHEBYSHEV: return UMAP__SP_ALL;
    default: return UMAP__SP_NONE;
    }
}

UMAP__FN umap_rows umap_rows_dense(const float *data, int64_t n, int64_t dim) {
    umap_rows r;
    memset(&r, 0, sizeof r);
    r.n = n; r.dim = dim; r.dense = data;
    return r;
}

UMAP__FN umap_rows umap_rows_csr(int64_t n, int64_t dim, const int64_t *indptr, const int32_t *indices,
                                 const float *values) {
    umap_rows r;
    memset(&r, 0, sizeof r);
    r.n = n; r.dim = dim; r.indptr = indptr; r.indices = indices; r.values = values;
    return r;
}

static int umap__rows_sparse(const umap_rows *r) { return r && !r->dense; }

/* A CSR's structure and values, in row order (the first bad entry named,
   whatever the threads: one pass), and the metric's domain; *maxabs grows
   to the largest stored magnitude. umap__csr_valid: and a metric with a
   sparse form (precomputed's is a graph of distances, its negative entries
   named by the selection, umap__sp_select). */
static umap_result umap__csr_structure(const umap__err *err, umap_metric metric, const char *what,
                                       const umap_rows *x, int64_t *bad_row, float *maxabs) {
    int64_t i, t;
    float mx = 0.0f;
    int nonneg = umap__metric_domain(metric) == UMAP__DOMAIN_NONNEG;
    if (!x->indptr) return umap__fail(err, UMAP_ERR_INVALID_ARGUMENT, "%s: a CSR's indptr is NULL", what);
    if (x->n < 1 || x->dim < 1)
        return umap__fail(err, UMAP_ERR_INVALID_ARGUMENT, "%s has %lld rows of %lld columns: both must be >= 1",
                          what, (long long)x->n, (long long)x->dim);
    if (x->n > 2147483647 || x->dim > 2147483647)
        return umap__fail(err, UMAP_ERR_TOO_LARGE, "%s: %lld x %lld is too large (rows and columns < 2^31)", what,
                          (long long)x->n, (long long)x->dim);
    if (x->indptr[0] != 0)
        return umap__fail(err, UMAP_ERR_INVALID_ARGUMENT, "%s: indptr[0] is %lld: a CSR's offsets start at 0",
                          what, (long long)x->indptr[0]);
    for (i = 0; i < x->n; i++)
        if (x->indptr[i + 1] < x->indptr[i] || x->indptr[i + 1] > ((int64_t)1 << 40)) {
            *bad_row = i;
            return umap__fail(err, UMAP_ERR_INVALID_ARGUMENT,
                              "%s: indptr[%lld] = %lld after indptr[%lld] = %lld: a CSR's offsets never decrease "
                              "(and stay below 2^40)", what, (long long)(i + 1), (long long)x->indptr[i + 1],
                              (long long)i, (long long)x->indptr[i]);
        }
    if (x->indptr[x->n] > 0 && (!x->indices || !x->values))
        return umap__fail(err, UMAP_ERR_INVALID_ARGUMENT, "%s: the CSR stores %lld values, and its %s is NULL",
                          what, (long long)x->indptr[x->n], !x->indices ? "indices" : "values");
    for (i = 0; i < x->n; i++)
        for (t = x->indptr[i]; t < x->indptr[i + 1]; t++) {
            int32_t c = x->indices[t];
            float v = x->values[t];
            const char *why = NULL;
            if (c < 0 || (int64_t)c >= x->dim) why = "out of range";
            else if (t > x->indptr[i] && c <= x->indices[t - 1]) why = c == x->indices[t - 1] ? "repeated" : "out of order";
            if (why) {
                *bad_row = i;
                return umap__fail(err, UMAP_ERR_INVALID_ARGUMENT,
                                  "%s: row %lld, stored entry %lld: column %d is %s (columns lie in [0, %lld), "
                                  "increasing within a row; scipy: X.sum_duplicates())", what, (long long)i,
                                  (long long)(t - x->indptr[i]), (int)c, why, (long long)x->dim);
            }
            if (!(fabsf(v) <= FLT_MAX)) {
                *bad_row = i;
                return umap__fail(err, UMAP_ERR_NON_FINITE, "%s: row %lld holds NaN or Inf (column %d)", what,
                                  (long long)i, (int)c);
            }
            if (nonneg && v < 0.0f) {
                *bad_row = i;
                return umap__fail(err, UMAP_ERR_INVALID_ARGUMENT,
                                  "%s: %s needs non-negative data: row %lld holds %g (column %d)", what,
                                  umap_metric_name(metric), (long long)i, (double)v, (int)c);
            }
            mx = fabsf(v) > mx ? fabsf(v) : mx;
        }
    if (mx > *maxabs) *maxabs = mx;
    return UMAP_OK;
}

static umap_result umap__csr_valid(const umap__err *err, umap_metric metric, const char *what, const umap_rows *x,
                                   int64_t *bad_row, float *maxabs) {
    if (umap__sp_kind(metric) == UMAP__SP_NONE && metric != UMAP_METRIC_PRECOMPUTED)
        return umap__fail(err, UMAP_ERR_INVALID_ARGUMENT, "%s: %s takes dense rows, not sparse ones", what,
                          umap_metric_name(metric));
    return umap__csr_structure(err, metric, what, x, bad_row, maxabs);
}

static umap_result umap__csr_check(const umap__knn_opts *o, const char *what, const umap_rows *x, float *maxabs) {
    return umap__csr_valid(&o->err, o->metric, what, x, &o->info->bad_row, maxabs);
}

/* The working copy of a CSR (the metric's prep on its stored values, as
   umap__knn_prepare does on dense rows) and each row's statistics, in
   double: s1 the metric's own (sum x^2, sum |x|, sum |x|^p, or the
   nonzero count); correlation's mean (s2) and centred norm (s3). */
typedef struct umap__sp_rows {
    int64_t n, dim, max_nnz;
    const int64_t *p;
    const int32_t *j;
    const float *v;
    float *owned;         /* the prepared values, or NULL (v is the caller's) */
    double *s1, *s2, *s3; /* per row (s2, s3: correlation's) */
} umap__sp_rows;

static void umap__sp_rows_free(const umap_allocator *a, umap__sp_rows *r) {
    umap__free(a, r->owned);
    umap__free(a, r->s1);
    umap__free(a, r->s2);
    umap__free(a, r->s3);
    memset(r, 0, sizeof *r);
}

/* f(x, 0) of a SUM metric, and its term f(x, y) */
static double umap__sp_term(umap_metric m, double p, double x, double y) {
    switch (m) {
    case UMAP_METRIC_MANHATTAN: return fabs(x - y);
    case UMAP_METRIC_CANBERRA: return fabs(x) + fabs(y) > 0.0 ? fabs(x - y) / (fabs(x) + fabs(y)) : 0.0;
    default: return pow(fabs(x - y), p); /* minkowski */
    }
}

typedef struct umap__sp_prep_ctx {
    const umap__knn_opts *o;
    const umap_rows *x;
    umap__sp_rows *w;
    int e, kind;
} umap__sp_prep_ctx;

static void umap__sp_prep_range(void *ctx, int64_t r0, int64_t r1) {
    const umap__sp_prep_ctx *c = (const umap__sp_prep_ctx *)ctx;
    const umap__knn_opts *o = c->o;
    umap__sp_rows *w = c->w;
    int prep = umap__metrics[o->metric].prep;
    double p = o->metric_p;
    int64_t i, t;
    for (i = r0; i < r1; i++) {
        int64_t b = w->p[i], end = w->p[i + 1];
        double s = 0.0, mean = 0.0, inv;
        if (w->owned) {
            float *out = w->owned;
            const float *v = c->x->values;
            if (prep == UMAP__PREP_UNIT || prep == UMAP__PREP_SQRT_L1) {
                for (t = b; t < end; t++) s += prep == UMAP__PREP_UNIT ? (double)v[t] * v[t] : (double)v[t];
                inv = s > 0.0 ? (prep == UMAP__PREP_UNIT ? 1.0 / sqrt(s) : 1.0 / s) : 0.0;
                for (t = b; t < end; t++)
                    out[t] = prep == UMAP__PREP_UNIT ? (float)((double)v[t] * inv) : (float)sqrt((double)v[t] * inv);
            } else if (prep == UMAP__PREP_COLUMNS) {
                for (t = b; t < end; t++) out[t] = (float)ldexp((double)v[t] * o->col_w[w->j[t]], -c->e);
            } else {
                for (t = b; t < end; t++) out[t] = ldexpf(v[t], -c->e);
            }
        }
        s = 0.0;
        switch (c->kind) {
        case UMAP__SP_L2: case UMAP__SP_DOT:
            for (t = b; t < end; t++) s += (double)w->v[t] * w->v[t];
            break;
        case UMAP__SP_CORR:
            for (t = b; t < end; t++) { s += (double)w->v[t] * w->v[t]; mean += w->v[t]; }
            mean /= (double)w->dim;
            w->s2[i] = mean;
            {
                double cs = (double)(w->dim - (end - b)) * mean * mean;
                for (t = b; t < end; t++) cs += ((double)w->v[t] - mean) * ((double)w->v[t] - mean);
                w->s3[i] = sqrt(cs);
            }
            break;
        case UMAP__SP_SUM:
            for (t = b; t < end; t++) s += umap__sp_term(o->metric, p, w->v[t], 0.0);
            break;
        case UMAP__SP_BRAY:
            for (t = b; t < end; t++) s += fabs((double)w->v[t]);
            break;
        case UMAP__SP_COUNT:
            for (t = b; t < end; t++) s += w->v[t] != 0.0f;
            break;
        default: break;
        }
        w->s1[i] = s;
    }
}

static umap_result umap__sp_prepare(const umap__knn_opts *o, umap_pool *pool, const umap_rows *x, int e,
                                    umap__sp_rows *w) {
    int prep = umap__metrics[o->metric].prep, kind = umap__sp_kind(o->metric);
    int64_t nnz = x->indptr[x->n], i;
    umap__sp_prep_ctx c;
    memset(w, 0, sizeof *w);
    w->n = x->n; w->dim = x->dim; w->p = x->indptr; w->j = x->indices; w->v = x->values;
    for (i = 0; i < x->n; i++)
        if (x->indptr[i + 1] - x->indptr[i] > w->max_nnz) w->max_nnz = x->indptr[i + 1] - x->indptr[i];
    if (prep == UMAP__PREP_UNIT || prep == UMAP__PREP_SQRT_L1 || prep == UMAP__PREP_COLUMNS || e != 0) {
        if (!(w->owned = (float *)umap__alloc(&o->alloc, (size_t)(nnz > 0 ? nnz : 1) * sizeof(float))))
            return umap__fail(&o->err, UMAP_ERR_OUT_OF_MEMORY, "k-NN: out of memory for a working copy of the data");
        w->v = w->owned;
    }
    w->s1 = (double *)umap__calloc(&o->alloc, (size_t)x->n, sizeof(double));
    if (kind == UMAP__SP_CORR) {
        w->s2 = (double *)umap__calloc(&o->alloc, (size_t)x->n, sizeof(double));
        w->s3 = (double *)umap__calloc(&o->alloc, (size_t)x->n, sizeof(double));
    }
    if (!w->s1 || (kind == UMAP__SP_CORR && (!w->s2 || !w->s3))) {
        umap__sp_rows_free(&o->alloc, w);
        return umap__fail(&o->err, UMAP_ERR_OUT_OF_MEMORY, "k-NN: out of memory for the rows' statistics");
    }
    c.o = o; c.x = x; c.w = w; c.e = e; c.kind = kind;
    umap__parallel_range(pool, x->n, 256, umap__sp_prep_range, &c);
    return UMAP_OK;
}

/* seuclidean's weights from a CSR: V as given, else the columns' sample
   variances over all n rows, the unstored zeros included */
static umap_result umap__sp_columns(umap__knn_opts *o, const umap_rows *x, double **owned) {
    int64_t i, t, dim = x->dim;
    double *w, *mean, *cnt;
    umap_result r;
    *owned = NULL;
    if (umap__metrics[o->metric].prep != UMAP__PREP_COLUMNS) return UMAP_OK;
    if (o->metric_v && (r = umap__metric_v_check(&o->err, o->metric_v, dim)) != UMAP_OK) return r;
    if (!(w = *owned = (double *)umap__calloc(&o->alloc, (size_t)(o->metric_v ? dim : 3 * dim), sizeof(double))))
        return umap__fail(&o->err, UMAP_ERR_OUT_OF_MEMORY, "k-NN: out of memory for %s's column weights",
                          umap_metric_name(o->metric));
    o->col_w = w;
    o->col_w_max = 0.0;
    if (o->metric_v) {
        for (i = 0; i < dim; i++) w[i] = o->metric_v[i];
    } else if (x->n > 1) {
        mean = w + dim;
        cnt = w + 2 * dim;
        for (t = 0; t < x->indptr[x->n]; t++) { mean[x->indices[t]] += x->values[t]; cnt[x->indices[t]] += 1.0; }
        for (i = 0; i < dim; i++) mean[i] /= (double)x->n;
        for (t = 0; t < x->indptr[x->n]; t++) {
            double d = (double)x->values[t] - mean[x->indices[t]];
            w[x->indices[t]] += d * d;
        }
        for (i = 0; i < dim; i++) w[i] = (w[i] + ((double)x->n - cnt[i]) * mean[i] * mean[i]) / (double)(x->n - 1);
    }
    for (i = 0; i < dim; i++) {
        w[i] = w[i] > 0.0 ? 1.0 / sqrt(w[i]) : 0.0;
        if (w[i] > o->col_w_max) o->col_w_max = w[i];
    }
    if (o->col_w_max == 0.0)
        return umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT, "%s: every column's variance is 0 (constant columns): "
                          "no distance to measure", umap_metric_name(o->metric));
    return UMAP_OK;
}

/* The trees' rows for sparse data (NN-Descent's sketch): each row times a
   dim x width matrix of random signs, the signs of column j drawn from
   the seed and j alone (Philox at counter j), so no dim x width matrix is
   stored or filled; sums in double, a row per task: the same on any
   thread count. Signs keep angles and distances as Gaussian draws do
   (Achlioptas), and the trees only seed the joins. */
typedef struct umap__sp_sketch_ctx {
    const umap__sp_rows *x;
    uint64_t seed;
    int64_t width;
    float *out;
} umap__sp_sketch_ctx;

static void umap__sp_sketch_range(void *ctx, int64_t r0, int64_t r1) {
    const umap__sp_sketch_ctx *c = (const umap__sp_sketch_ctx *)ctx;
    int64_t i, t, w;
    for (i = r0; i < r1; i++) {
        double acc[128] = {0};
        for (t = c->x->p[i]; t < c->x->p[i + 1]; t++) {
            uint32_t bits[4];
            double v = c->x->v[t];
            umap_philox(c->seed, umap__nnd_stream(5, 0), (uint64_t)c->x->j[t], bits);
            for (w = 0; w < c->width; w++) acc[w] += (bits[w >> 5] >> (w & 31)) & 1u ? v : -v;
        }
        for (w = 0; w < c->width; w++) c->out[i * c->width + w] = (float)acc[w];
    }
}

static float *umap__sp_sketch(const umap__sp_rows *x, uint64_t seed, int64_t width, const umap_allocator *alloc,
                              umap_pool *pool) {
    umap__sp_sketch_ctx c;
    UMAP_ASSERT(width <= 128);
    c.x = x; c.seed = seed; c.width = width;
    if (!(c.out = (float *)umap__alloc(alloc, (size_t)x->n * (size_t)width * sizeof(float)))) return NULL;
    umap__parallel_range(pool, x->n, 256, umap__sp_sketch_range, &c);
    return c.out;
}

/* the search: the base's columns (CSC), and per slot (one task of a wave)
   its accumulators and scratch */
typedef struct umap__sp_search {
    const umap__knn_opts *o;
    const umap__sp_rows *q, *b;
    int kind, self, k;
    double p, c; /* minkowski's p; the bound's factor */
    int64_t *col_p;
    int32_t *col_row;
    float *col_val;
    double *acc;     /* per slot: 2 nb (the second: braycurtis's) */
    double *top_d, *heap; /* per slot: k each */
    int32_t *top_i;
    double *evals;   /* per slot */
    int64_t row0, rows_per_task, slots;
    int32_t *indices;
    float *distances;
} umap__sp_search;

/* the screen value of a pair and its error bound (the screen is monotone
   in the distance: squared for L2) */
static void umap__sp_bound(const umap__sp_search *s, int64_t qi, int64_t bi, const double *acc, double *lo, double *hi) {
    const umap__sp_rows *q = s->q, *b = s->b;
    double v, e, sx = q->s1[qi], sy = b->s1[bi];
    switch (s->kind) {
    case UMAP__SP_L2: v = sx + sy + acc[bi]; e = s->c * (sx + sy); break;
    case UMAP__SP_DOT: v = 1.0 - acc[bi]; e = s->c * (sx + sy); break;
    case UMAP__SP_CORR: {
        double den = q->s3[qi] * b->s3[bi], d = (double)q->dim;
        if (den == 0.0) { v = 1.0; e = s->c; break; }
        v = 1.0 - (acc[bi] - d * q->s2[qi] * b->s2[bi]) / den;
        e = s->c * ((sqrt(sx * sy) + d * fabs(q->s2[qi] * b->s2[bi])) / den + 2.0);
        break;
    }
    case UMAP__SP_SUM: {
        double grow = s->o->metric == UMAP_METRIC_MINKOWSKI ? (s->p + 2.0) * (pow(2.0, s->p - 1.0) + 2.0) : 3.0;
        v = sx + sy + acc[bi];
        e = s->c * grow * (sx + sy);
        break;
    }
    case UMAP__SP_BRAY: {
        const double *acc2 = acc + b->n;
        double num = sx + sy + acc[bi], den = sx + sy + acc2[bi], E = 3.0 * s->c * (sx + sy);
        *lo = den + E > 0.0 ? (num - E > 0.0 ? num - E : 0.0) / (den + E) : 0.0;
        *hi = den - E > 0.0 ? (num + E) / (den - E) : INFINITY;
        return;
    }
    case UMAP__SP_COUNT: { /* acc: columns both rows hold nonzero (hamming: the differing count's correction) */
        double both = acc[bi], any = sx + sy - both, one = sx + sy - 2.0 * both, d = (double)q->dim;
        switch (s->o->metric) {
        case UMAP_METRIC_JACCARD: v = any > 0.0 ? (any - both) / any : 0.0; break;
        case UMAP_METRIC_DICE: v = one > 0.0 ? one / (2.0 * both + one) : 0.0; break;
        case UMAP_METRIC_RUSSELLRAO: v = one > 0.0 ? (d - both) / d : 0.0; break;
        default: v = (sx + sy + acc[bi]) / d; break; /* hamming */
        }
        e = 0.0;
        break;
    }
    default: *lo = 0.0; *hi = INFINITY; return; /* every pair measured */
    }
    *lo = v - e;
    *hi = v + e;
}

/* The walk over the union of two CSR rows' columns, in column order: BODY
   sees a and b, the two rows' values there (0 where a row stores none). */
#define UMAP__SP_UNION(X, xi, Y, yi, BODY)                                                        \
    do {                                                                                        \
        int64_t x_ = (X)->p[xi], xe_ = (X)->p[(xi) + 1], y_ = (Y)->p[yi], ye_ = (Y)->p[(yi) + 1]; \
        while (x_ < xe_ || y_ < ye_) {                                                          \
            int32_t cx_ = x_ < xe_ ? (X)->j[x_] : INT32_MAX, cy_ = y_ < ye_ ? (Y)->j[y_] : INT32_MAX; \
            float a = cx_ <= cy_ ? (X)->v[x_] : 0.0f, b = cy_ <= cx_ ? (Y)->v[y_] : 0.0f;       \
            x_ += cx_ <= cy_;                                                                   \
            y_ += cy_ <= cx_;                                                                   \
            BODY                                                                                \
        }                                                                                       \
    } while (0)

/* The distance of two working-copy rows in double: each dense kernel
   (umap__md_*) over the union of their columns, its terms in the same
   order (a column neither row stores adds an exact 0), so the same bits
   as on the dense rows; correlation from the rows' means and centred norms
   (centring would fill the rows), hamming and russellrao with the full
   width. */
static double umap__sp_md(umap_metric m, double p, const umap__sp_rows *X, int64_t xi, const umap__sp_rows *Y,
                          int64_t yi) {
    double s = 0.0, t = 0.0, d = (double)X->dim;
    int64_t any = 0, both = 0, one = 0, differ = 0;
    if (m == UMAP_METRIC_MINKOWSKI && p == 1.0) m = UMAP_METRIC_MANHATTAN;
    if (m == UMAP_METRIC_MINKOWSKI && p == 2.0) m = UMAP_METRIC_EUCLIDEAN;
    switch (m) {
    case UMAP_METRIC_EUCLIDEAN: case UMAP_METRIC_SEUCLIDEAN: case UMAP_METRIC_HELLINGER:
        UMAP__SP_UNION(X, xi, Y, yi, { double e = (double)a - b; s += e * e; });
        return m == UMAP_METRIC_HELLINGER ? sqrt(s) * sqrt(0.5) : sqrt(s);
    case UMAP_METRIC_COSINE:
        UMAP__SP_UNION(X, xi, Y, yi, { s += (double)a * b; });
        return 1.0 - s;
    case UMAP_METRIC_CORRELATION: {
        double mx = X->s2[xi], my = Y->s2[yi], den = X->s3[xi] * Y->s3[yi];
        int64_t u = 0;
        if (den == 0.0) return 1.0; /* a constant row, centred, is a zero row */
        UMAP__SP_UNION(X, xi, Y, yi, { s += ((double)a - mx) * ((double)b - my); u++; });
        return 1.0 - (s + (d - (double)u) * mx * my) / den;
    }
    case UMAP_METRIC_MANHATTAN:
        UMAP__SP_UNION(X, xi, Y, yi, { s += fabs((double)a - b); });
        return s;
    case UMAP_METRIC_CHEBYSHEV: case UMAP_METRIC_MINKOWSKI:
        UMAP__SP_UNION(X, xi, Y, yi, { t = fmax(t, fabs((double)a - b)); });
        if (m == UMAP_METRIC_CHEBYSHEV) return t;
        if (t == 0.0) return 0.0;
        UMAP__SP_UNION(X, xi, Y, yi, { s += pow(fabs((double)a - b) / t, p); });
        return t * pow(s, 1.0 / p);
    case UMAP_METRIC_CANBERRA:
        UMAP__SP_UNION(X, xi, Y, yi, {
            double den = fabs((double)a) + fabs((double)b);
            if (den > 0.0) s += fabs((double)a - b) / den;
        });
        return s;
    case UMAP_METRIC_BRAYCURTIS:
        UMAP__SP_UNION(X, xi, Y, yi, { s += fabs((double)a - b); t += fabs((double)a + b); });
        return t > 0.0 ? s / t : 0.0;
    default: /* the counting metrics */
        UMAP__SP_UNION(X, xi, Y, yi, {
            differ += a != b;
            any += a != 0.0f || b != 0.0f;
            both += a != 0.0f && b != 0.0f;
            one += (a != 0.0f) != (b != 0.0f);
        });
        switch (m) {
        case UMAP_METRIC_HAMMING: return (double)differ / d;
        case UMAP_METRIC_JACCARD: return any ? (double)(any - both) / (double)any : 0.0;
        case UMAP_METRIC_DICE: return one ? (double)one / (double)(2 * both + one) : 0.0;
        default: return one ? (d - (double)both) / d : 0.0; /* russellrao */
        }
    }
}

/* one query row: accumulate over its columns, bound every base row, keep
   the k smallest upper bounds, measure the rows whose lower bound is below
   them */
/* query row qi's sums over the columns it shares with each base row, into
   the slot's accumulators (umap__sp_bound reads them) */
static void umap__sp_accumulate(const umap__sp_search *s, int64_t slot, int64_t qi) {
    const umap__sp_rows *q = s->q, *b = s->b;
    double *acc = s->acc + slot * 2 * b->n, *acc2 = acc + b->n;
    int64_t t, u;
    umap_metric m = s->o->metric;
    for (t = q->p[qi]; t < q->p[qi + 1]; t++) {
        int32_t col = q->j[t];
        double xv = q->v[t];
        int64_t u0 = s->col_p[col], u1 = s->col_p[col + 1];
        switch (s->kind) {
        case UMAP__SP_L2: for (u = u0; u < u1; u++) acc[s->col_row[u]] -= 2.0 * xv * s->col_val[u]; break;
        case UMAP__SP_DOT: case UMAP__SP_CORR: for (u = u0; u < u1; u++) acc[s->col_row[u]] += xv * s->col_val[u]; break;
        case UMAP__SP_SUM:
            for (u = u0; u < u1; u++) {
                double yv = s->col_val[u];
                acc[s->col_row[u]] += umap__sp_term(m, s->p, xv, yv) - umap__sp_term(m, s->p, xv, 0.0) -
                                      umap__sp_term(m, s->p, 0.0, yv);
            }
            break;
        case UMAP__SP_BRAY:
            for (u = u0; u < u1; u++) {
                double yv = s->col_val[u];
                acc[s->col_row[u]] += fabs(xv - yv) - fabs(xv) - fabs(yv);
                acc2[s->col_row[u]] += fabs(xv + yv) - fabs(xv) - fabs(yv);
            }
            break;
        case UMAP__SP_COUNT:
            if (m == UMAP_METRIC_HAMMING)
                for (u = u0; u < u1; u++) {
                    double yv = s->col_val[u];
                    acc[s->col_row[u]] += (double)(xv != yv) - (double)(xv != 0.0) - (double)(yv != 0.0);
                }
            else if (xv != 0.0)
                for (u = u0; u < u1; u++) acc[s->col_row[u]] += s->col_val[u] != 0.0f;
            break;
        default: break;
        }
    }
}

static void umap__sp_row(umap__sp_search *s, int64_t slot, int64_t qi) {
    const umap__sp_rows *q = s->q, *b = s->b;
    double *acc = s->acc + slot * 2 * b->n, *acc2 = acc + b->n;
    double *top_d = s->top_d + slot * s->k, *heap = s->heap + slot * s->k, U, lo, hi;
    int32_t *top_i = s->top_i + slot * s->k;
    int64_t t, i;
    int nh = 0, nt = 0, k = s->k, h;
    umap_metric m = s->o->metric;
    umap__sp_accumulate(s, slot, qi);
    /* the k smallest upper bounds (a max-heap), then the candidates */
    for (i = 0; i < b->n; i++) {
        if (s->self && i == qi) continue;
        umap__sp_bound(s, qi, i, acc, &lo, &hi);
        if (nh < k) {
            for (h = nh++; h > 0 && heap[(h - 1) / 2] < hi; h = (h - 1) / 2) heap[h] = heap[(h - 1) / 2];
            heap[h] = hi;
        } else if (hi < heap[0]) { /* replace the largest, sift down */
            for (h = 0;;) {
                int l = 2 * h + 1, c = h;
                double cv = hi;
                if (l < k && heap[l] > cv) { c = l; cv = heap[l]; }
                if (l + 1 < k && heap[l + 1] > cv) c = l + 1;
                if (c == h) break;
                heap[h] = heap[c];
                h = c;
            }
            heap[h] = hi;
        }
    }
    U = nh == k ? heap[0] : INFINITY;
    for (i = 0; i < b->n; i++) {
        if (!(s->self && i == qi)) {
            umap__sp_bound(s, qi, i, acc, &lo, &hi);
            if (lo <= U) {
                umap__topk_push(top_d, top_i, &nt, k, umap__sp_md(m, s->p, q, qi, b, i), (int32_t)i);
                s->evals[slot] += 1.0;
            }
        }
        acc[i] = 0.0;
        acc2[i] = 0.0;
    }
    for (t = 0; t < k; t++) {
        if (s->indices) s->indices[qi * k + t] = top_i[t];
        if (s->distances) s->distances[qi * k + t] = (float)top_d[t];
    }
}

static void umap__sp_task(void *ctx, int64_t slot) {
    umap__sp_search *s = (umap__sp_search *)ctx;
    int64_t r0 = s->row0 + slot * s->rows_per_task, r1 = r0 + s->rows_per_task, i;
    if (r1 > s->q->n) r1 = s->q->n;
    for (i = r0; i < r1; i++) umap__sp_row(s, slot, i);
}

/* the search's state: the base's columns (CSC: each column's rows in
   order) and each slot's accumulators and k-lists */
static umap_result umap__sp_search_begin(umap__sp_search *s, const umap__knn_opts *o, umap_pool *pool,
                                         const umap__sp_rows *q, const umap__sp_rows *b, int self, int k) {
    const umap_allocator *a = &o->alloc;
    int64_t nnz = b->p[b->n], t, i, slots = umap_pool_threads(pool);
    size_t acc_bytes;
    memset(s, 0, sizeof *s);
    s->o = o; s->q = q; s->b = b; s->self = self; s->k = k; s->kind = umap__sp_kind(o->metric); s->p = o->metric_p;
    s->c = 2.02 * (double)(q->max_nnz + b->max_nnz + 8) * ldexp(1.0, -53);
    s->rows_per_task = 16;
    if (slots < 1) slots = 1;
    s->slots = slots;
    if (!umap__bytes2(slots, 2 * b->n, sizeof(double), &acc_bytes))
        return umap__fail(&o->err, UMAP_ERR_TOO_LARGE, "sparse k-NN: %lld base rows overflow the address space",
                          (long long)b->n);
    s->col_p = (int64_t *)umap__calloc(a, (size_t)b->dim + 1, sizeof(int64_t));
    s->col_row = (int32_t *)umap__alloc(a, (size_t)(nnz > 0 ? nnz : 1) * sizeof(int32_t));
    s->col_val = (float *)umap__alloc(a, (size_t)(nnz > 0 ? nnz : 1) * sizeof(float));
    s->acc = (double *)umap__calloc(a, (size_t)slots * 2 * (size_t)b->n, sizeof(double));
    s->top_d = (double *)umap__alloc(a, (size_t)slots * (size_t)k * sizeof(double));
    s->heap = (double *)umap__alloc(a, (size_t)slots * (size_t)k * sizeof(double));
    s->top_i = (int32_t *)umap__alloc(a, (size_t)slots * (size_t)k * sizeof(int32_t));
    s->evals = (double *)umap__calloc(a, (size_t)slots, sizeof(double));
    if (!s->col_p || !s->col_row || !s->col_val || !s->acc || !s->top_d || !s->heap || !s->top_i || !s->evals)
        return umap__fail(&o->err, UMAP_ERR_OUT_OF_MEMORY,
                          "sparse k-NN: out of memory (%lld base rows, %lld stored values)", (long long)b->n,
                          (long long)nnz);
    for (t = 0; t < nnz; t++) s->col_p[b->j[t] + 1]++;
    for (t = 0; t < b->dim; t++) s->col_p[t + 1] += s->col_p[t];
    for (i = 0; i < b->n; i++)
        for (t = b->p[i]; t < b->p[i + 1]; t++) {
            int64_t at = s->col_p[b->j[t]]++;
            s->col_row[at] = (int32_t)i;
            s->col_val[at] = b->v[t];
        }
    for (t = b->dim; t > 0; t--) s->col_p[t] = s->col_p[t - 1];
    s->col_p[0] = 0;
    return UMAP_OK;
}

static void umap__sp_search_end(umap__sp_search *s) {
    const umap_allocator *a = &s->o->alloc;
    umap__free(a, s->col_p); umap__free(a, s->col_row); umap__free(a, s->col_val); umap__free(a, s->acc);
    umap__free(a, s->top_d); umap__free(a, s->heap); umap__free(a, s->top_i);
    umap__free(a, s->evals);
}

/* the exact search of q's rows among b's (self: q is b, a row no neighbour
   of itself); distances at the working scale, as umap__knn_exact's */
static umap_result umap__sp_exact(const umap__knn_opts *o, umap_pool *pool, const umap__sp_rows *q,
                                  const umap__sp_rows *b, int self, int32_t *indices, float *distances) {
    umap__sp_search s;
    int64_t t, wave;
    umap_result r;
    if ((r = umap__sp_search_begin(&s, o, pool, q, b, self, o->k)) != UMAP_OK) goto done;
    s.indices = indices; s.distances = distances;
    if (umap__knn_progress(o, 0, q->n, "rows")) { r = UMAP_ERR_CANCELLED; goto done; }
    wave = s.slots * s.rows_per_task;
    for (s.row0 = 0; s.row0 < q->n; s.row0 += wave) {
        int64_t tasks = (q->n - s.row0 + s.rows_per_task - 1) / s.rows_per_task;
        umap_pool_for(pool, tasks < s.slots ? tasks : s.slots, umap__sp_task, &s);
        if (umap__knn_progress(o, s.row0 + wave < q->n ? s.row0 + wave : q->n, q->n, "rows")) {
            r = UMAP_ERR_CANCELLED;
            goto done;
        }
    }
    o->info->distance_evals += (double)q->n * (double)b->n;
    for (t = 0; t < s.slots; t++) o->info->distance_evals += s.evals[t];
done:
    umap__sp_search_end(&s);
    return r;
}

/* the sparse half of umap_knn_rows (base NULL) and umap_knn_query_rows */
/* precomputed's sparse form, a graph of distances: each row's stored
   entries are its candidates (its own column left out in a self search),
   and a pair it does not store is unknown, never a neighbour. Each row's k
   smallest, ties to the smaller column, as the dense selection picks; a
   negative entry, or a row storing fewer than k candidates, is an error
   naming it (checked in row order first, so whatever the threads). */
typedef struct umap__sp_select_ctx {
    const umap_rows *x;
    int k, self;
    int32_t *idx;
    float *dist;
} umap__sp_select_ctx;

static void umap__sp_select_range(void *vctx, int64_t r0, int64_t r1) {
    const umap__sp_select_ctx *c = (const umap__sp_select_ctx *)vctx;
    int64_t r, t;
    for (r = r0; r < r1; r++) {
        int count = 0;
        for (t = c->x->indptr[r]; t < c->x->indptr[r + 1]; t++)
            if (!(c->self && c->x->indices[t] == r))
                umap__select_keep(c->dist + r * c->k, c->idx + r * c->k, &count, c->k, c->x->values[t], c->x->indices[t]);
    }
}

static umap_result umap__sp_select(const umap__knn_opts *o, umap_pool *pool, const umap_rows *x, int self,
                                   int32_t *indices, float *distances) {
    umap__sp_select_ctx c;
    umap_result r = UMAP_OK;
    int64_t i, t;
    if (self && x->dim != x->n)
        return umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT,
                          "precomputed: a graph of distances between the %lld rows is %lld x %lld, not %lld x %lld",
                          (long long)x->n, (long long)x->n, (long long)x->n, (long long)x->n, (long long)x->dim);
    for (i = 0; i < x->n; i++) {
        int64_t stored = 0;
        for (t = x->indptr[i]; t < x->indptr[i + 1]; t++) {
            if (x->values[t] < 0.0f) {
                o->info->bad_row = i;
                return umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT,
                                  "precomputed: row %lld holds %g (column %d): distances are >= 0", (long long)i,
                                  (double)x->values[t], (int)x->indices[t]);
            }
            stored += !(self && x->indices[t] == i);
        }
        if (stored < o->k) {
            o->info->bad_row = i;
            return umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT,
                              "precomputed: row %lld stores %lld distances%s, fewer than k = %d: a sparse graph of "
                              "distances gives every row at least k candidates", (long long)i, (long long)stored,
                              self ? " to other rows" : "", o->k);
        }
    }
    if (umap__knn_progress(o, 0, 1, "graph")) return UMAP_ERR_CANCELLED;
    memset(&c, 0, sizeof c);
    c.x = x; c.k = o->k; c.self = self;
    c.idx = indices ? indices : (int32_t *)umap__alloc(&o->alloc, (size_t)x->n * (size_t)o->k * sizeof(int32_t));
    c.dist = distances ? distances : (float *)umap__alloc(&o->alloc, (size_t)x->n * (size_t)o->k * sizeof(float));
    if (!c.idx || !c.dist) r = umap__fail(&o->err, UMAP_ERR_OUT_OF_MEMORY, "precomputed: out of memory");
    else umap__parallel_range(pool, x->n, 256, umap__sp_select_range, &c);
    if (c.idx != indices) umap__free(&o->alloc, c.idx);
    if (c.dist != distances) umap__free(&o->alloc, c.dist);
    o->info->method = UMAP_KNN_EXACT;
    if (r == UMAP_OK && umap__knn_progress(o, 1, 1, "graph")) r = UMAP_ERR_CANCELLED;
    return r;
}

static umap_result umap__sp_knn(const umap_knn_desc *desc, const umap_rows *base, const umap_rows *queries,
                                int32_t *indices, float *distances, int *scale_e) {
    umap__knn_opts o;
    umap_knn_info scratch;
    umap_pool *pool = NULL;
    umap__sp_rows wb, wq;
    double *col_w = NULL;
    float maxabs = 0.0f;
    int self = base == NULL, e;
    const umap_rows *b = self ? queries : base;
    umap_result r;
    memset(&wb, 0, sizeof wb);
    memset(&wq, 0, sizeof wq);
    umap__knn_resolve(desc, &scratch, &o);
    if ((r = umap__knn_check_common(&o)) != UMAP_OK) return r;
    if (self ? o.k < 1 || (b->n >= 1 && o.k >= b->n) : o.k < 1 || (b->n >= 1 && o.k > b->n))
        return umap__fail(&o.err, UMAP_ERR_INVALID_ARGUMENT, "k = %d with %lld %srows: need 1 <= k %s n%s", o.k,
                          (long long)b->n, self ? "" : "base ", self ? "<" : "<=", self ? "" : "_base");
    if (!self && o.method == UMAP_KNN_NNDESCENT)
        return umap__fail(&o.err, UMAP_ERR_INVALID_ARGUMENT, "a query search is exact: method NN-Descent is for "
                          "umap_knn_rows");
    if (!self && queries->dim != b->dim)
        return umap__fail(&o.err, UMAP_ERR_INVALID_ARGUMENT, "queries have %lld columns, the base %lld",
                          (long long)queries->dim, (long long)b->dim);
    if ((r = umap__knn_begin(&o, &pool)) != UMAP_OK) return r;
    if ((r = umap__csr_check(&o, self ? "data" : "base", b, &maxabs)) != UMAP_OK) goto done;
    if (!self && (r = umap__csr_check(&o, "queries", queries, &maxabs)) != UMAP_OK) goto done;
    if (o.metric == UMAP_METRIC_PRECOMPUTED) { /* the rows are the distances: selected, nothing measured */
        if (!self && queries->dim != b->n)
            r = umap__fail(&o.err, UMAP_ERR_INVALID_ARGUMENT,
                           "precomputed: each query row holds its distances to the %lld base rows, not %lld",
                           (long long)b->n, (long long)queries->dim);
        else r = umap__sp_select(&o, pool, queries, self, indices, distances);
        if (r == UMAP_OK && scale_e) *scale_e = 0;
        goto done;
    }
    if ((r = umap__sp_columns(&o, b, &col_w)) != UMAP_OK) goto done;
    e = umap__knn_scale_exponent(&o, maxabs);
    if (!desc || desc->exact_threshold <= 0) o.exact_threshold = UMAP_KNN_SPARSE_EXACT_THRESHOLD;
    o.info->method = !self || o.method == UMAP_KNN_EXACT ? UMAP_KNN_EXACT
                     : o.method == UMAP_KNN_NNDESCENT || b->n > o.exact_threshold ? UMAP_KNN_NNDESCENT
                                                                                  : UMAP_KNN_EXACT;
    if ((r = umap__sp_prepare(&o, pool, b, e, &wb)) != UMAP_OK) goto done;
    if (!self && (r = umap__sp_prepare(&o, pool, queries, e, &wq)) != UMAP_OK) goto done;
    if (o.info->method == UMAP_KNN_NNDESCENT)
        r = umap__knn_nndescent_dispatch(&o, pool, NULL, &wb, b->n, b->dim, indices, distances);
    else
        r = umap__sp_exact(&o, pool, self ? &wb : &wq, &wb, self, indices, distances);
    if (r == UMAP_OK && scale_e) *scale_e = umap__knn_dist_exponent(&o, e);
    else if (r == UMAP_OK) r = umap__knn_unscale(&o, distances, queries->n, o.k, e);
done:
    umap__sp_rows_free(&o.alloc, &wb);
    umap__sp_rows_free(&o.alloc, &wq);
    umap__free(&o.alloc, col_w);
    if (pool != o.pool) umap_pool_free(pool);
    return r;
}

UMAP__FN umap_result umap_knn_rows(const umap_knn_desc *desc, const umap_rows *data, int32_t *indices,
                                   float *distances) {
    if (!data) return umap_knn(desc, NULL, 0, 0, indices, distances); /* its error names the NULL */
    if (!umap__rows_sparse(data)) return umap_knn(desc, data->dense, data->n, data->dim, indices, distances);
    return umap__sp_knn(desc, NULL, data, indices, distances, NULL);
}

UMAP__FN umap_result umap_knn_query_rows(const umap_knn_desc *desc, const umap_rows *base, const umap_rows *queries,
                                         int32_t *indices, float *distances) {
    const char *why = !base || !queries ? "base or queries is NULL"
                      : umap__rows_sparse(base) != umap__rows_sparse(queries)
                          ? "give the base and the queries in one form, both dense or both sparse"
                      : base->dim != queries->dim ? "the base and the queries differ in their columns"
                                                  : NULL;
    if (why) {
        umap__knn_opts o;
        umap_knn_info scratch;
        umap__knn_resolve(desc, &scratch, &o);
        return umap__fail(&o.err, UMAP_ERR_INVALID_ARGUMENT, "umap_knn_query_rows: %s", why);
    }
    if (!umap__rows_sparse(base))
        return umap_knn_query(desc, base->dense, base->n, queries->dense, queries->n, base->dim, indices, distances);
    return umap__sp_knn(desc, base, queries, indices, distances, NULL);
}

/* >>graph search: umap_knn_query_graph and its index --------------------------
   Best-first search as in HNSW's bottom layer: the `width` nearest rows met
   so far, each expanded once, nearest first: its neighbours in the base's
   own k-NN graph, made undirected, are measured once each; the walk stops
   when every kept row is expanded. (HNSW's separate queue of rows to
   expand adds nothing: a row pushed out of the kept ones is farther than
   all of them, so the queue would stop the walk when it came to it.) The
   kept rows are one sorted array, with an insertion a short move, where
   two binary heaps cost more than the distances on a narrow sketch. Each query is one sequential
   walk, so its result depends on its own seeds alone, never on the threads.
   The screen value orders the walk; the k kept rows nearest by it are then
   ranked by the metric in double, as the exact search ranks. */

typedef struct umap__gq_item {
    float d;
    int32_t i; /* the row: ties go to the smaller, whatever the index's layout */
    int32_t p; /* its position in the index (umap__gq_locality) */
} umap__gq_item;

static int umap__gq_before(umap__gq_item a, umap__gq_item b) { return a.d < b.d || (a.d == b.d && a.i < b.i); }

typedef struct umap__gq_ctx {
    const umap__knn_opts *o;
    const float *base, *queries;
    int64_t n_base, n_queries, dim;
    const int64_t *adj_at; /* undirected graph, CSR: row i's neighbours adj[adj_at[i] .. adj_at[i + 1]) */
    const int32_t *adj;
    const int32_t *seeds;
    const int64_t *order;  /* walk t is query order[t] (a caller's cache-friendly order); NULL: query t */
    int64_t batch;         /* walks per task */
    int64_t max_degree;    /* the most neighbours a row has in adj */
    /* the index's walk order (umap__gq_locality), or NULL both: base, adj_at,
       adj, pieces and seen are by position, the walk's items by row */
    const int32_t *row_of_pos, *pos_of_row;
    int n_seeds, width;
    const int32_t *pieces; /* a row of each connected piece of the graph, by position */
    int64_t n_pieces;
    umap__mcall m;         /* the metric, for custom's function */
    umap__nnd_fn fast;     /* NN-Descent's vector kernel for the walk's order, or NULL */
    int fast_dot;          /* fast is a dot product of unit rows (the screen is 1 - it) */
    int32_t *indices;
    float *distances;
    double *evals;         /* per task */
    int *failed;           /* per task: out of memory */
} umap__gq_ctx;

/* queries per task: at least this many, and about four tasks a thread, so
   that the seen arrays (a row each) are few */
#define UMAP__GQ_BATCH 64

/* one walk's state: the kept rows, nearest first, with which of them are
   still to expand (the first such at or after next); the seen rows
   (seen[i] == walk: row i was measured in this walk; one array for all
   the task's walks, so a new walk clears nothing) */
typedef struct umap__gq_walk {
    const umap__gq_ctx *c;
    const float *x;
    umap__gq_item *kept;
    uint8_t *open;
    int64_t n_kept, next;
    uint32_t *seen, walk;
    double evals;
} umap__gq_walk;

/* the screen value of x against the row at position p */
static float umap__gq_dist(const umap__gq_ctx *c, const float *x, int32_t p) {
    if (c->fast) {
        float f = c->fast(x, c->base + (int64_t)p * c->dim, c->dim);
        return c->fast_dot ? 1.0f - f : f;
    }
    if (c->m.fn) return umap__mcall_screen(&c->m, x, c->base + (int64_t)p * c->dim, c->dim);
    return umap__metrics[c->o->metric].screen_fn(x, c->base + (int64_t)p * c->dim, c->dim, c->o->metric_p);
}
/* the screen value for the walk's query of the row at position p */
static float umap__gq_screen(const umap__gq_walk *w, int32_t p) { return umap__gq_dist(w->c, w->x, p); }
static int32_t umap__gq_row(const umap__gq_ctx *c, int32_t p) { return c->row_of_pos ? c->row_of_pos[p] : p; }
static int32_t umap__gq_pos(const umap__gq_ctx *c, int32_t row) { return c->pos_of_row ? c->pos_of_row[row] : row; }

/* keeps the measured row v if it is among the width nearest so far
   (open: it is also to be expanded) */
static void umap__gq_keep(umap__gq_walk *w, umap__gq_item v, int open) {
    int64_t at = w->n_kept;
    if (w->n_kept == w->c->width) {
        if (!umap__gq_before(v, w->kept[w->n_kept - 1])) return;
        at--; /* the farthest makes room */
    }
    for (; at > 0 && umap__gq_before(v, w->kept[at - 1]); at--) {
        w->kept[at] = w->kept[at - 1];
        w->open[at] = w->open[at - 1];
    }
    w->kept[at] = v;
    w->open[at] = (uint8_t)open;
    if (w->n_kept < w->c->width) w->n_kept++;
    if (open && at < w->next) w->next = at;
}

/* measures the row at position p if it is new and keeps it as
   umap__gq_keep does */
static void umap__gq_offer(umap__gq_walk *w, int32_t p, int open) {
    umap__gq_item v;
    if (w->seen[p] == w->walk) return;
    w->seen[p] = w->walk;
    v.d = umap__gq_screen(w, p);
    v.i = umap__gq_row(w->c, p);
    v.p = p;
    w->evals += 1.0;
    umap__gq_keep(w, v, open);
}

static void umap__gq_task(void *ctx, int64_t task) {
    umap__gq_ctx *c = (umap__gq_ctx *)ctx;
    const umap__knn_opts *o = c->o;
    const umap_allocator *a = &o->alloc;
    int64_t q0 = task * c->batch, q1 = q0 + c->batch < c->n_queries ? q0 + c->batch : c->n_queries;
    int64_t t, q, i, n_new;
    umap__gq_walk w;
    double *ref = (double *)umap__alloc(a, (size_t)c->width * sizeof(double));
    umap__gq_item *fresh = (umap__gq_item *)umap__alloc(a, (size_t)(c->max_degree + 1) * sizeof(umap__gq_item));
    int32_t *fresh_at = (int32_t *)umap__alloc(a, (size_t)(c->max_degree + 1) * sizeof(int32_t));
    memset(&w, 0, sizeof w);
    w.c = c;
    w.kept = (umap__gq_item *)umap__alloc(a, (size_t)c->width * sizeof(umap__gq_item));
    w.open = (uint8_t *)umap__alloc(a, (size_t)c->width);
    w.seen = (uint32_t *)umap__calloc(a, (size_t)c->n_base, sizeof(uint32_t));
    if (!ref || !fresh || !fresh_at || !w.kept || !w.open || !w.seen) goto oom;
    for (t = q0; t < q1; t++) {
        int s, j, m;
        q = c->order ? c->order[t] : t;
        w.x = c->queries + q * c->dim;
        w.n_kept = w.next = 0;
        w.walk++; /* from 1: the array starts at 0 */
        for (s = 0; s < c->n_seeds; s++) {
            int32_t seed = c->seeds ? c->seeds[q * c->n_seeds + s] : (int32_t)((int64_t)s * c->n_base / c->n_seeds);
            if (seed >= 0 && seed < c->n_base) umap__gq_offer(&w, umap__gq_pos(c, seed), 1);
        }
        for (i = 0; i < c->n_pieces; i++) /* a row in every piece: none is out of the walk's reach */
            umap__gq_offer(&w, c->pieces[i], 1);
        for (;;) {
            int32_t up;
            int64_t e;
            while (w.next < w.n_kept && !w.open[w.next]) w.next++;
            if (w.next == w.n_kept) break; /* every kept row expanded: nothing nearer is left to reach */
            w.open[w.next] = 0;
            up = w.kept[w.next].p;
            /* the row's new neighbours first, then their distances with the reads
               in flight together, then the keeping in the same order: as
               offering them one by one, as the kept rows can only get nearer */
            for (e = c->adj_at[up], n_new = 0; e < c->adj_at[up + 1]; e++) {
                int32_t v = c->adj[e];
                if (w.seen[v] == w.walk) continue;
                w.seen[v] = w.walk;
                umap__nnd_prefetch_row(c->base + (int64_t)v * c->dim, c->dim);
                fresh_at[n_new++] = v;
            }
            for (j = 0; j < n_new; j++) {
                fresh[j].d = umap__gq_screen(&w, fresh_at[j]);
                fresh[j].i = umap__gq_row(c, fresh_at[j]);
                fresh[j].p = fresh_at[j];
            }
            w.evals += (double)n_new;
            for (j = 0; j < n_new; j++) umap__gq_keep(&w, fresh[j], 1);
        }
        /* fewer than k rows reachable from the seeds (a graph in pieces):
           this query is measured against every row */
        if (w.n_kept < o->k) /* by position: the kept rows do not depend on the order they are offered in */
            for (i = 0; i < c->n_base; i++) umap__gq_offer(&w, (int32_t)i, 0);
        /* the kept rows by the metric in double, nearest first (ties: the
           smaller index); insertion sort, width is small */
        m = (int)w.n_kept;
        for (j = 0; j < m; j++)
            ref[j] = umap__mcall_exact(&c->m, w.x, c->base + (int64_t)w.kept[j].p * c->dim, c->dim);
        for (j = 1; j < m; j++) {
            umap__gq_item v = w.kept[j];
            double rv = ref[j];
            int t = j - 1;
            while (t >= 0 && (ref[t] > rv || (ref[t] == rv && w.kept[t].i > v.i))) {
                w.kept[t + 1] = w.kept[t];
                ref[t + 1] = ref[t];
                t--;
            }
            w.kept[t + 1] = v;
            ref[t + 1] = rv;
        }
        for (j = 0; j < o->k; j++) {
            if (c->indices) c->indices[q * o->k + j] = w.kept[j].i;
            if (c->distances) c->distances[q * o->k + j] = (float)ref[j];
        }
    }
    c->evals[task] = w.evals;
    goto done;
oom:
    c->failed[task] = 1;
done:
    umap__free(a, w.kept);
    umap__free(a, w.open);
    umap__free(a, ref);
    umap__free(a, w.seen);
    umap__free(a, fresh);
    umap__free(a, fresh_at);
}

/* the k-NN graph made undirected: each row's own neighbours, then the rows
   that list it and that it does not list, in row order */
static umap_result umap__gq_adjacency(const umap__knn_opts *o, const int32_t *graph, int64_t n, int gk,
                                      int64_t **at_out, int32_t **adj_out) {
    const umap_allocator *a = &o->alloc;
    int64_t *at = (int64_t *)umap__calloc(a, (size_t)(n + 2), sizeof(int64_t)), i;
    int32_t *adj = NULL;
    int j, t;
    *at_out = NULL;
    *adj_out = NULL;
    if (!at) return UMAP_ERR_OUT_OF_MEMORY;
    for (i = 0; i < n; i++)
        for (j = 0; j < gk; j++) {
            int32_t v = graph[i * gk + j], listed = 0;
            if (v < 0) continue;
            at[i + 2]++;
            for (t = 0; t < gk && !listed; t++) listed = graph[(int64_t)v * gk + t] == (int32_t)i;
            if (!listed) at[v + 2]++;
        }
    for (i = 0; i < n; i++) at[i + 2] += at[i + 1];
    if (!(adj = (int32_t *)umap__alloc(a, (size_t)(at[n + 1] ? at[n + 1] : 1) * sizeof(int32_t)))) {
        umap__free(a, at);
        return UMAP_ERR_OUT_OF_MEMORY;
    }
    for (i = 0; i < n; i++) /* at[i + 1] is row i's next free slot */
        for (j = 0; j < gk; j++)
            if (graph[i * gk + j] >= 0) adj[at[i + 1]++] = graph[i * gk + j];
    for (i = 0; i < n; i++)
        for (j = 0; j < gk; j++) {
            int32_t v = graph[i * gk + j], listed = 0;
            if (v < 0) continue;
            for (t = 0; t < gk && !listed; t++) listed = graph[(int64_t)v * gk + t] == (int32_t)i;
            if (!listed) adj[at[v + 1]++] = (int32_t)i;
        }
    *at_out = at; /* at[i] .. at[i + 1]: row i's neighbours */
    *adj_out = adj;
    return UMAP_OK;
}

/* the smallest row of each connected piece of the undirected graph (a walk
   never leaves its piece, so each walk also starts in every piece) */
static umap_result umap__gq_pieces(const umap__knn_opts *o, const int64_t *at, const int32_t *adj, int64_t n,
                                   int32_t **out, int64_t *n_out) {
    const umap_allocator *a = &o->alloc;
    size_t bytes = (size_t)(n ? n : 1) * sizeof(int32_t);
    uint8_t *seen = (uint8_t *)umap__calloc(a, (size_t)(n ? n : 1), 1);
    int32_t *stack = (int32_t *)umap__alloc(a, bytes), *first = (int32_t *)umap__alloc(a, bytes);
    int64_t i, count = 0, top;
    *out = NULL;
    *n_out = 0;
    if (!seen || !stack || !first) {
        umap__free(a, seen);
        umap__free(a, stack);
        umap__free(a, first);
        return UMAP_ERR_OUT_OF_MEMORY;
    }
    for (i = 0; i < n; i++) {
        if (seen[i]) continue;
        first[count++] = (int32_t)i;
        seen[i] = 1;
        stack[0] = (int32_t)i;
        top = 1;
        while (top) {
            int32_t u = stack[--top];
            int64_t e;
            for (e = at[u]; e < at[u + 1]; e++)
                if (!seen[adj[e]]) {
                    seen[adj[e]] = 1;
                    stack[top++] = adj[e];
                }
        }
    }
    umap__free(a, seen);
    umap__free(a, stack);
    *out = first; /* the pieces' smallest rows, ascending */
    *n_out = count;
    return UMAP_OK;
}

/* the screen's kernel: the walk orders rows as NN-Descent does, by its
   vector kernels where the metric has one (this machine's rounding: the
   order may differ by the last bits between CPUs, the ranking in double
   does not) */
static void umap__gq_kernel(const umap__knn_opts *o, umap__gq_ctx *c) {
    umap__nnd_fn l2, dot;
    umap__nnd_fn4 x4;
    umap__nnd_pick(0, &l2, &dot, &x4);
    c->m = umap__mcall_make(o->metric, o->metric_p, o->metric_fn, o->metric_user_data);
    c->fast = NULL;
    c->fast_dot = 0;
    if (o->metric == UMAP_METRIC_EUCLIDEAN) c->fast = l2;
    else if (umap__metrics[o->metric].screen == UMAP__SCREEN_GRAM_DOT) c->fast = dot, c->fast_dot = 1;
}

/* --- umap_knn_graph_index ------------------------------------------------- */

struct umap_knn_graph_index {
    umap_allocator alloc;
    umap_metric metric;
    float metric_p;
    const float *base;    /* the caller's rows, not copied */
    float *work;          /* the metric's working copy of them (unit, scaled or weighted rows), or NULL: base */
    int64_t n_base, dim;
    float maxabs;         /* the largest magnitude its working scale was chosen for */
    int scale_e;          /* the working scale 2^-scale_e (umap__knn_scale_exponent) */
    double *col_w;        /* seuclidean: the column weights from the build (umap__knn_columns), or NULL */
    double col_w_max;
    int64_t *adj_at;      /* the graph made undirected (umap__gq_adjacency), by position; pruned
                             (umap__gq_prune) where the index was built so */
    int32_t *adj;
    int32_t *pieces;      /* a row of each connected piece, when there are several, by position */
    int64_t n_pieces;
    int64_t max_degree;   /* the most neighbours a row has in adj */
    /* Narrow rows are held in walk order (umap__gq_locality): the
       builder's layout, else a breadth-first order of the graph, so that a
       row's neighbours lie near it in memory and a walk reads few cache
       lines and pages. order[p] is the
       row at position p, position[row] its place; work, adj_at, adj and
       pieces are by position. NULL both: positions are rows. */
    int32_t *order, *position;
};

/* the rows' part of an index: the metric's working copy at the scale maxabs
   asks for, in walk order when the index has one */
static umap_result umap__gq_rows(const umap__knn_opts *o, umap_pool *pool, umap_knn_graph_index *g, float maxabs) {
    float *prepared = NULL;
    const float *src;
    int64_t p;
    umap_result r;
    g->scale_e = umap__knn_scale_exponent(o, maxabs);
    if ((r = umap__knn_prepare(o, pool, g->base, g->n_base, g->dim, g->scale_e, &prepared)) != UMAP_OK) return r;
    if (!g->order) {
        g->work = prepared;
        return UMAP_OK;
    }
    src = prepared ? prepared : g->base;
    g->work = (float *)umap__alloc(&o->alloc, (size_t)(g->n_base * g->dim) * sizeof(float));
    if (g->work)
        for (p = 0; p < g->n_base; p++)
            memcpy(g->work + p * g->dim, src + (int64_t)g->order[p] * g->dim, (size_t)g->dim * sizeof(float));
    umap__free(&o->alloc, prepared);
    return g->work ? UMAP_OK : umap__fail(&o->err, UMAP_ERR_OUT_OF_MEMORY, "graph search: out of memory for the rows");
}

/* Rows of up to this many floats are copied in walk order: a walk is a
   chain of dependent reads of short rows, and reads near the last one are
   cheaper. A wide row is long enough to hide where it starts, and its copy
   would cost as much as the rows. */
#ifndef UMAP__GQ_LOCAL_DIM
#define UMAP__GQ_LOCAL_DIM 64
#endif

/* g's walk order (the caller's layout when it gives one, a permutation of
   the rows: layout[p] is the row at position p; else breadth first from
   the smallest row of each piece, a row's neighbours in the graph's
   order), its adjacency and pieces renumbered by position; 0 = out of
   memory */
static int umap__gq_locality(const umap_allocator *a, umap_knn_graph_index *g, const int32_t *layout) {
    int64_t n = g->n_base, head = 0, tail = 0, s, e, p;
    int64_t *at = (int64_t *)umap__alloc(a, (size_t)(n + 2) * sizeof(int64_t));
    int32_t *adj = (int32_t *)umap__alloc(a, (size_t)(g->adj_at[n] ? g->adj_at[n] : 1) * sizeof(int32_t));
    g->order = (int32_t *)umap__alloc(a, (size_t)n * sizeof(int32_t));
    g->position = (int32_t *)umap__alloc(a, (size_t)n * sizeof(int32_t));
    if (!at || !adj || !g->order || !g->position) {
        umap__free(a, at);
        umap__free(a, adj);
        return 0;
    }
    for (s = 0; s < n; s++) g->position[s] = -1;
    for (s = 0; layout && s < n; s++) {
        g->order[s] = layout[s];
        g->position[layout[s]] = (int32_t)s;
    }
    for (s = 0; !layout && s < n; s++) {
        if (g->position[s] >= 0) continue;
        g->position[s] = (int32_t)tail;
        g->order[tail++] = (int32_t)s;
        while (head < tail) {
            int32_t u = g->order[head++];
            for (e = g->adj_at[u]; e < g->adj_at[u + 1]; e++)
                if (g->position[g->adj[e]] < 0) {
                    g->position[g->adj[e]] = (int32_t)tail;
                    g->order[tail++] = g->adj[e];
                }
        }
    }
    at[0] = 0;
    for (p = 0; p < n; p++) {
        int32_t u = g->order[p];
        at[p + 1] = at[p] + (g->adj_at[u + 1] - g->adj_at[u]);
        for (e = g->adj_at[u]; e < g->adj_at[u + 1]; e++) adj[at[p] + (e - g->adj_at[u])] = g->position[g->adj[e]];
    }
    at[n + 1] = at[n];
    for (p = 0; p < g->n_pieces; p++) g->pieces[p] = g->position[g->pieces[p]];
    umap__free(a, g->adj_at);
    umap__free(a, g->adj);
    g->adj_at = at;
    g->adj = adj;
    return 1;
}

/* the longest list of the CSR lists at[0..n] */
static int64_t umap__gq_max_degree(const int64_t *at, int64_t n) {
    int64_t i, most = 0;
    for (i = 0; i < n; i++)
        if (at[i + 1] - at[i] > most) most = at[i + 1] - at[i];
    return most;
}

/* Pruning an index's lists (umap__gq_build's prune) as HNSW and NSG
   select a row's neighbours, by the relative neighbourhood rule: the row's
   list nearest first, each neighbour dropped when one already kept is
   strictly nearer to it than the row is (a tie keeps it, so duplicates keep
   each other). What is dropped lies beyond a kept neighbour, whose own list
   is likely to hold it, so a walk still reaches it while measuring a few
   rows a step instead of the whole undirected list. A list shorter than
   UMAP__GQ_PRUNE_KEEP gets the nearest dropped ones back: the walk then
   misses fewer of the exact neighbours, for a few more rows measured. Each
   row is pruned alone from the rows' data: the lists depend on neither the
   threads nor the layout (distance ties go to the smaller row). */
#ifndef UMAP__GQ_PRUNE_KEEP
#define UMAP__GQ_PRUNE_KEEP 10
#endif
typedef struct umap__gq_prune_ctx {
    umap__gq_ctx c;     /* the screen's kernel and the rows, by position */
    const int64_t *at;  /* the lists, by position */
    int32_t *adj;       /* each list's kept neighbours moved to its front */
    int64_t *kept;      /* per position: how many */
    int64_t n, per_task, max_degree;
    int *failed;        /* per task: out of memory */
} umap__gq_prune_ctx;

static int umap__gq_compare(const void *a, const void *b) {
    return umap__gq_before(*(const umap__gq_item *)a, *(const umap__gq_item *)b)   ? -1
           : umap__gq_before(*(const umap__gq_item *)b, *(const umap__gq_item *)a) ? 1
                                                                                   : 0;
}

static void umap__gq_prune_task(void *vctx, int64_t task) {
    umap__gq_prune_ctx *pc = (umap__gq_prune_ctx *)vctx;
    const umap__gq_ctx *c = &pc->c;
    int64_t u0 = task * pc->per_task, u1 = u0 + pc->per_task < pc->n ? u0 + pc->per_task : pc->n, u;
    umap__gq_item *cand = (umap__gq_item *)umap__alloc(&c->o->alloc, (size_t)(pc->max_degree + 1) * sizeof *cand);
    if (!cand) {
        pc->failed[task] = 1;
        return;
    }
    for (u = u0; u < u1; u++) {
        int32_t *list = pc->adj + pc->at[u];
        const float *x = c->base + u * c->dim;
        int64_t m = pc->at[u + 1] - pc->at[u], t, q, kept = 0;
        for (t = 0; t < m; t++) {
            cand[t].d = umap__gq_dist(c, x, list[t]);
            cand[t].i = umap__gq_row(c, list[t]);
            cand[t].p = list[t];
        }
        qsort(cand, (size_t)m, sizeof *cand, umap__gq_compare); /* a hub's list may be long */
        for (t = 0; t < m; t++) {
            const float *y = c->base + (int64_t)cand[t].p * c->dim;
            for (q = 0; q < kept && !(umap__gq_dist(c, y, list[q]) < cand[t].d); q++) continue;
            if (q == kept) list[kept++] = cand[t].p;
            else cand[t].p = -1 - cand[t].p; /* dropped: marked */
        }
        for (t = 0; t < m && kept < UMAP__GQ_PRUNE_KEEP; t++) /* the nearest dropped ones back, in distance order */
            if (cand[t].p < 0) list[kept++] = -1 - cand[t].p;
        pc->kept[u] = kept;
    }
    umap__free(&c->o->alloc, cand);
}

/* g's lists pruned (umap__gq_prune_task), once its rows are in place */
static umap_result umap__gq_prune(const umap__knn_opts *o, umap_pool *pool, umap_knn_graph_index *g) {
    const umap_allocator *a = &o->alloc;
    umap__gq_prune_ctx pc;
    int64_t n = g->n_base, u, w, n_tasks;
    int32_t *adj;
    umap_result r = UMAP_OK;
    memset(&pc, 0, sizeof pc);
    pc.c.o = o;
    pc.c.base = g->work ? g->work : g->base;
    pc.c.dim = g->dim;
    pc.c.row_of_pos = g->order;
    umap__gq_kernel(o, &pc.c);
    pc.at = g->adj_at;
    pc.adj = g->adj;
    pc.n = n;
    pc.per_task = 1024;
    pc.max_degree = umap__gq_max_degree(g->adj_at, n);
    n_tasks = (n + pc.per_task - 1) / pc.per_task;
    pc.kept = (int64_t *)umap__alloc(a, (size_t)(n ? n : 1) * sizeof(int64_t));
    pc.failed = (int *)umap__calloc(a, (size_t)(n_tasks ? n_tasks : 1), sizeof(int));
    if (!pc.kept || !pc.failed) {
        r = UMAP_ERR_OUT_OF_MEMORY;
        goto done;
    }
    umap_pool_for(pool, n_tasks, umap__gq_prune_task, &pc);
    for (u = 0; u < n_tasks; u++)
        if (pc.failed[u]) r = UMAP_ERR_OUT_OF_MEMORY;
    if (r != UMAP_OK) goto done;
    for (u = 0, w = 0; u < n; u++) { /* the kept fronts moved together */
        int64_t from = g->adj_at[u];
        g->adj_at[u] = w;
        memmove(g->adj + w, g->adj + from, (size_t)pc.kept[u] * sizeof(int32_t));
        w += pc.kept[u];
    }
    g->adj_at[n] = g->adj_at[n + 1] = w;
    if ((adj = (int32_t *)umap__alloc(a, (size_t)(w ? w : 1) * sizeof(int32_t))) != NULL) { /* else the longer array */
        memcpy(adj, g->adj, (size_t)w * sizeof(int32_t));
        umap__free(a, g->adj);
        g->adj = adj;
    }
done:
    umap__free(a, pc.kept);
    umap__free(a, pc.failed);
    return r == UMAP_OK ? r : umap__fail(&o->err, r, "graph search: out of memory to prune the graph");
}

UMAP__FN void umap_knn_graph_index_free(umap_knn_graph_index *g) {
    umap_allocator a;
    if (!g) return;
    a = g->alloc;
    umap__free(&a, g->work);
    umap__free(&a, g->col_w);
    umap__free(&a, g->adj_at);
    umap__free(&a, g->adj);
    umap__free(&a, g->pieces);
    umap__free(&a, g->order);
    umap__free(&a, g->position);
    umap__free(&a, g);
}

/* umap_knn_graph_index_build after the options are resolved and the pool
   is up; maxabs: the largest magnitude the index must hold (the base's, or
   also a query set's); layout as in umap__gq_locality; prune: the lists
   pruned (umap__gq_prune) */
static umap_result umap__gq_build(const umap__knn_opts *o, umap_pool *pool, const float *base, int64_t n_base,
                                  int64_t dim, const int32_t *graph, int graph_k, const int32_t *layout, int prune,
                                  float maxabs, umap_knn_graph_index **out) {
    umap_knn_graph_index *g;
    umap__knn_opts weighted;
    umap_result r;
    int64_t i;
    *out = NULL;
    if (!graph || graph_k < 1)
        return umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT, "graph search: the base's k-NN graph is %s",
                              graph ? "empty (graph_k < 1)" : "NULL");
    for (i = 0; i < n_base * graph_k; i++)
        if (graph[i] < -1 || graph[i] >= n_base || graph[i] == i / graph_k)
            return umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT,
                                  "graph search: row %lld of the graph lists %ld (need -1, or another row in 0..%lld)",
                                  (long long)(i / graph_k), (long)graph[i], (long long)n_base - 1);
    if (!(g = (umap_knn_graph_index *)umap__calloc(&o->alloc, 1, sizeof *g)))
        return umap__fail(&o->err, UMAP_ERR_OUT_OF_MEMORY, "graph search: out of memory");
    g->alloc = o->alloc;
    g->metric = o->metric;
    g->metric_p = o->metric_p;
    g->base = base;
    g->n_base = n_base;
    g->dim = dim;
    g->maxabs = maxabs;
    weighted = *o; /* the index's own column weights (seuclidean), for its rows and every search's queries */
    if ((r = umap__knn_columns(&weighted, base, n_base, dim, &g->col_w)) != UMAP_OK) {
        umap_knn_graph_index_free(g);
        return r;
    }
    g->col_w_max = weighted.col_w_max;
    o = &weighted;
    if ((r = umap__gq_adjacency(o, graph, n_base, graph_k, &g->adj_at, &g->adj)) != UMAP_OK ||
        (r = umap__gq_pieces(o, g->adj_at, g->adj, n_base, &g->pieces, &g->n_pieces)) != UMAP_OK ||
        (dim <= UMAP__GQ_LOCAL_DIM && !umap__gq_locality(&o->alloc, g, layout))) {
        umap_knn_graph_index_free(g);
        return umap__fail(&o->err, UMAP_ERR_OUT_OF_MEMORY, "graph search: out of memory for the undirected graph");
    }
    if ((r = umap__gq_rows(o, pool, g, maxabs)) != UMAP_OK || (prune && (r = umap__gq_prune(o, pool, g)) != UMAP_OK)) {
        umap_knn_graph_index_free(g);
        return r;
    }
    g->max_degree = umap__gq_max_degree(g->adj_at, n_base);
    *out = g;
    return UMAP_OK;
}

/* the walks of n_queries rows (checked; qmax their largest magnitude) over
   g, in the order `order` gives (NULL: row order; the results do not
   depend on it); scale_e as in umap__knn_query */
static umap_result umap__gq_search(const umap__knn_opts *o, umap_pool *pool, const umap_knn_graph_index *g,
                                   const float *queries, int64_t n_queries, float qmax, const int32_t *seeds,
                                   int n_seeds, const int64_t *order, int32_t *indices, float *distances,
                                   int *scale_e) {
    umap_knn_graph_index rescaled;
    float *nq = NULL, *own_d = NULL;
    double *evals = NULL;
    int *failed = NULL;
    int64_t i, n_tasks;
    umap__gq_ctx c;
    umap_result r = UMAP_OK;
    umap__knn_opts weighted = *o; /* the index's column weights (seuclidean) for the queries */
    float both = qmax > g->maxabs ? qmax : g->maxabs;
    int e;
    weighted.col_w = g->col_w;
    weighted.col_w_max = g->col_w_max;
    o = &weighted;
    e = umap__knn_scale_exponent(o, both);
    if (e != g->scale_e) { /* queries beyond the index's working scale: the rows again at theirs */
        rescaled = *g; /* the graph shared, only its own work copy freed below */
        rescaled.work = NULL;
        g = &rescaled;
        if ((r = umap__gq_rows(o, pool, &rescaled, both)) != UMAP_OK) goto done;
    }
    o->info->method = UMAP_KNN_GRAPH;
    if ((r = umap__custom_distances(o, n_queries, &distances, &own_d)) != UMAP_OK) goto done;
    if ((r = umap__knn_prepare(o, pool, queries, n_queries, g->dim, e, &nq)) != UMAP_OK) goto done;
    memset(&c, 0, sizeof c);
    c.batch = (n_queries + 4 * umap_pool_threads(pool) - 1) / (4 * umap_pool_threads(pool));
    if (c.batch < UMAP__GQ_BATCH) c.batch = UMAP__GQ_BATCH;
    n_tasks = (n_queries + c.batch - 1) / c.batch;
    evals = (double *)umap__calloc(&o->alloc, (size_t)n_tasks, sizeof(double));
    failed = (int *)umap__calloc(&o->alloc, (size_t)n_tasks, sizeof(int));
    if (!evals || !failed) {
        r = umap__fail(&o->err, UMAP_ERR_OUT_OF_MEMORY, "graph search: out of memory");
        goto done;
    }
    c.o = o;
    c.base = g->work ? g->work : g->base;
    c.queries = nq ? nq : queries;
    c.n_base = g->n_base; c.n_queries = n_queries; c.dim = g->dim;
    c.adj_at = g->adj_at; c.adj = g->adj; c.max_degree = g->max_degree;
    c.row_of_pos = g->order; c.pos_of_row = g->position;
    c.seeds = seeds;
    c.order = order;
    c.pieces = g->pieces;
    c.n_pieces = g->n_pieces > 1 ? g->n_pieces : 0; /* one piece: any seed reaches it */
    c.n_seeds = seeds ? n_seeds : n_seeds ? n_seeds : UMAP_KNN_GRAPH_SEEDS;
    c.width = o->search_width > o->k ? o->search_width : o->k;
    if (c.width > g->n_base) c.width = (int)g->n_base;
    c.indices = indices; c.distances = distances;
    c.evals = evals; c.failed = failed;
    umap__gq_kernel(o, &c);
    umap_pool_for(pool, n_tasks, umap__gq_task, &c);
    for (i = 0; i < n_tasks; i++) {
        o->info->distance_evals += evals[i];
        if (failed[i] && r == UMAP_OK)
            r = umap__fail(&o->err, UMAP_ERR_OUT_OF_MEMORY, "graph search: out of memory for query %lld's walk",
                               (long long)(order ? order[i * c.batch] : i * c.batch));
    }
    if (r != UMAP_OK || (r = umap__custom_check(o, distances, indices, n_queries, o->k, 0)) != UMAP_OK) goto done;
    if (scale_e) *scale_e = umap__knn_dist_exponent(o, e);
    else r = umap__knn_unscale(o, distances, n_queries, o->k, e);
done:
    if (g == &rescaled) umap__free(&o->alloc, rescaled.work);
    umap__free(&o->alloc, nq);
    umap__free(&o->alloc, own_d);
    umap__free(&o->alloc, evals);
    umap__free(&o->alloc, failed);
    return r;
}

/* a metric whose rows can be walked between: every one but precomputed */
static umap_result umap__gq_walkable(const umap__knn_opts *o) {
    if (umap__metrics[o->metric].screen != UMAP__SCREEN_SELECT) return UMAP_OK;
    return umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT,
                      "graph search: a precomputed metric has no rows to walk between: umap_knn_query selects from "
                      "the queries' distances exactly");
}

/* the checks a search shares: the metric walkable, k against the base, the seeds */
static umap_result umap__gq_check(const umap__knn_opts *o, int64_t n_base, int64_t n_queries, const int32_t *seeds,
                                  int n_seeds) {
    int64_t i;
    umap_result r;
    if ((r = umap__gq_walkable(o)) != UMAP_OK) return r;
    if (o->k < 1 || (n_base >= 1 && o->k > n_base))
        return umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT, "k = %d with %lld base rows: need 1 <= k <= n_base", o->k,
                              (long long)n_base);
    if (seeds ? n_seeds < 1 : n_seeds < 0)
        return umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT, "graph search: n_seeds = %d: need >= 1 with seeds, >= 0 without",
                              n_seeds);
    for (i = 0; seeds && i < n_queries * n_seeds; i++)
        if (seeds[i] < -1 || seeds[i] >= n_base)
            return umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT,
                                  "graph search: query %lld's seed %ld is not -1 or a base row (0..%lld)",
                                  (long long)(i / n_seeds), (long)seeds[i], (long long)n_base - 1);
    return UMAP_OK;
}

/* umap_knn_graph_index_build; layout (NULL, or a permutation of the rows)
   as in umap__gq_locality, prune as in umap__gq_prune: umap.h lays a
   model's rows out in the order of their embedding, in which its walks run,
   and prunes their lists */
static umap_result umap__knn_graph_index_build(const umap_knn_desc *desc, const float *base, int64_t n_base,
                                               int64_t dim, const int32_t *graph, int graph_k, const int32_t *layout,
                                               int prune, umap_knn_graph_index **out) {
    umap__knn_opts o;
    umap_knn_info scratch;
    umap_pool *pool = NULL;
    float maxabs = 0.0f;
    umap_result r;
    umap__knn_resolve(desc, &scratch, &o);
    if (!out) return umap__fail(&o.err, UMAP_ERR_INVALID_ARGUMENT, "graph index: out is NULL");
    *out = NULL;
    if ((r = umap__knn_check_common(&o)) != UMAP_OK) return r;
    if ((r = umap__gq_walkable(&o)) != UMAP_OK) return r;
    if ((r = umap__knn_begin(&o, &pool)) != UMAP_OK) return r;
    if ((r = umap__knn_check_data(&o, pool, "base", base, n_base, dim, &maxabs)) == UMAP_OK)
        r = umap__gq_build(&o, pool, base, n_base, dim, graph, graph_k, layout, prune, maxabs, out);
    if (pool != o.pool) umap_pool_free(pool);
    return r;
}

UMAP__FN umap_result umap_knn_graph_index_build(const umap_knn_desc *desc, const float *base, int64_t n_base,
                                                int64_t dim, const int32_t *graph, int graph_k,
                                                umap_knn_graph_index **out) {
    return umap__knn_graph_index_build(desc, base, n_base, dim, graph, graph_k, NULL, 0, out);
}

/* umap_knn_graph_index_search, walking the queries in the order `order`
   gives (NULL: row order); scale_e as in umap__knn_query */
static umap_result umap__knn_index_search(const umap_knn_desc *desc, const umap_knn_graph_index *g,
                                          const float *queries, int64_t n_queries, const int32_t *seeds, int n_seeds,
                                          const int64_t *order, int32_t *indices, float *distances, int *scale_e) {
    umap__knn_opts o;
    umap_knn_info scratch;
    umap_pool *pool = NULL;
    float qmax = 0.0f;
    umap_result r;
    umap__knn_resolve(desc, &scratch, &o);
    if (!g) return umap__fail(&o.err, UMAP_ERR_INVALID_ARGUMENT, "graph search: the index is NULL");
    if ((r = umap__knn_check_common(&o)) != UMAP_OK) return r;
    if (o.metric != g->metric || (umap__metrics[o.metric].prep == UMAP__PREP_PNORM && o.metric_p != g->metric_p))
        return umap__fail(&o.err, UMAP_ERR_INVALID_ARGUMENT,
                              "graph search: the desc's metric is %s (p %g), the index's %s (p %g)",
                              umap_metric_name(o.metric), o.metric_p, umap_metric_name(g->metric), g->metric_p);
    if ((r = umap__gq_check(&o, g->n_base, n_queries, seeds, n_seeds)) != UMAP_OK) return r;
    if (n_queries == 0 && queries) return UMAP_OK;
    if ((r = umap__knn_begin(&o, &pool)) != UMAP_OK) return r;
    if ((r = umap__knn_check_data(&o, pool, "queries", queries, n_queries, g->dim, &qmax)) == UMAP_OK)
        r = umap__gq_search(&o, pool, g, queries, n_queries, qmax, seeds, n_seeds, order, indices, distances, scale_e);
    if (pool != o.pool) umap_pool_free(pool);
    return r;
}

UMAP__FN umap_result umap_knn_graph_index_search(const umap_knn_desc *desc, const umap_knn_graph_index *index,
                                                 const float *queries, int64_t n_queries, const int32_t *seeds,
                                                 int n_seeds, int32_t *indices, float *distances) {
    return umap__knn_index_search(desc, index, queries, n_queries, seeds, n_seeds, NULL, indices, distances, NULL);
}

UMAP__FN umap_result umap_knn_query_graph(const umap_knn_desc *desc, const float *base, int64_t n_base,
                                          const int32_t *graph, int graph_k, const float *queries, int64_t n_queries,
                                          int64_t dim, const int32_t *seeds, int n_seeds, int32_t *indices,
                                          float *distances) {
    umap__knn_opts o;
    umap_knn_info scratch;
    umap_pool *pool = NULL;
    umap_knn_graph_index *g = NULL;
    float maxabs = 0.0f, qmax = 0.0f;
    umap_result r;
    umap__knn_resolve(desc, &scratch, &o);
    if ((r = umap__knn_check_common(&o)) != UMAP_OK) return r;
    if ((r = umap__gq_check(&o, n_base, n_queries, seeds, n_seeds)) != UMAP_OK) return r;
    if (n_queries == 0 && queries) return UMAP_OK;
    if ((r = umap__knn_begin(&o, &pool)) != UMAP_OK) return r;
    if ((r = umap__knn_check_data(&o, pool, "base", base, n_base, dim, &maxabs)) == UMAP_OK &&
        (r = umap__knn_check_data(&o, pool, "queries", queries, n_queries, dim, &qmax)) == UMAP_OK &&
        (r = umap__gq_build(&o, pool, base, n_base, dim, graph, graph_k, NULL, 0, maxabs > qmax ? maxabs : qmax, &g)) ==
            UMAP_OK)
        r = umap__gq_search(&o, pool, g, queries, n_queries, qmax, seeds, n_seeds, NULL, indices, distances, NULL);
    umap_knn_graph_index_free(g);
    if (pool != o.pool) umap_pool_free(pool);
    return r;
}

/* >>pairwise: umap_pairwise ---------------------------------------------------- */

typedef struct umap__pairwise_ctx {
    const float *G, *norm2;
    float *out;
    int64_t n, i0, ni, j0, nj;
    int cosine;
    float l2_scale; /* the distance is sqrt(l2_scale |x - y|^2) */
} umap__pairwise_ctx;

/* tile rows [r0, r1) (in whole 16-row blocks) and their mirror, so out is
   exactly symmetric; the mirror is written 16 x 16 at a time to stay in cache */
static void umap__pairwise_range(void *ctx, int64_t r0, int64_t r1) {
    const umap__pairwise_ctx *c = (const umap__pairwise_ctx *)ctx;
    int64_t rb, jb, r, j;
    for (rb = r0; rb < r1; rb += 16)
        for (jb = 0; jb < c->nj; jb += 16) {
            int64_t re = rb + 16 < r1 ? rb + 16 : r1, je = jb + 16 < c->nj ? jb + 16 : c->nj;
            for (r = rb; r < re; r++) {
                int64_t i = c->i0 + r;
                for (j = jb; j < je; j++) {
                    int64_t col = c->j0 + j;
                    float g = c->G[r * c->nj + j], d;
                    if (col < i) continue;
                    if (c->cosine) d = col == i ? (c->norm2[i] > 0.0f ? 0.0f : 1.0f) : 1.0f - g;
                    else {
                        float d2 = c->norm2[i] + c->norm2[col] - 2.0f * g;
                        d = col == i ? 0.0f : sqrtf(d2 > 0.0f ? d2 * c->l2_scale : 0.0f);
                    }
                    c->out[i * c->n + col] = d;
                }
            }
            for (j = jb; j < je; j++) {
                int64_t col = c->j0 + j;
                for (r = rb; r < re; r++) {
                    int64_t i = c->i0 + r;
                    if (col > i) c->out[col * c->n + i] = c->out[i * c->n + col];
                }
            }
        }
}

/* a DIRECT metric's pairwise rows: each distance in double, once per pair */
typedef struct umap__pairwise_direct_ctx {
    const float *x;
    float *out;
    int64_t n, dim;
    umap__mcall m;
} umap__pairwise_direct_ctx;
static void umap__pairwise_direct_range(void *ctx, int64_t r0, int64_t r1) {
    const umap__pairwise_direct_ctx *c = (const umap__pairwise_direct_ctx *)ctx;
    int64_t i, j;
    for (i = r0; i < r1; i++)
        for (j = 0; j < c->n; j++)
            if (j >= i) c->out[i * c->n + j] = (float)umap__mcall_exact(&c->m, c->x + i * c->dim, c->x + j * c->dim, c->dim);
}
static void umap__pairwise_mirror_range(void *ctx, int64_t r0, int64_t r1) {
    const umap__pairwise_direct_ctx *c = (const umap__pairwise_direct_ctx *)ctx;
    int64_t i, j;
    for (i = r0; i < r1; i++)
        for (j = 0; j < i; j++) c->out[i * c->n + j] = c->out[j * c->n + i];
}

/* what both pairwise entries check and set up first: the options, an
   output, a matrix of n x n that fits, the pool */
static umap_result umap__pairwise_begin(const umap_knn_desc *desc, umap_knn_info *scratch, umap__knn_opts *o,
                                        int64_t n, const float *out, umap_pool **pool) {
    umap_result r;
    umap__knn_resolve(desc, scratch, o);
    if ((r = umap__knn_check_common(o)) != UMAP_OK) return r;
    if (!out) return umap__fail(&o->err, UMAP_ERR_INVALID_ARGUMENT, "pairwise: out is NULL");
    if (n > 65535) return umap__fail(&o->err, UMAP_ERR_TOO_LARGE, "pairwise: %lld rows make a too large n x n matrix",
                                     (long long)n);
    return umap__knn_begin(o, pool);
}

UMAP__FN umap_result umap_pairwise(const umap_knn_desc *desc, const float *data, int64_t n, int64_t dim, float *out) {
    umap__knn_opts o;
    umap_knn_info scratch;
    umap_pool *pool = NULL;
    float *normed = NULL, *G = NULL, *norm = NULL, *norm2 = NULL, *ws = NULL;
    double *col_w = NULL;
    umap_result r;
    int64_t T, ti, tj;
    float maxabs = 0.0f;
    int e;
    if ((r = umap__pairwise_begin(desc, &scratch, &o, n, out, &pool)) != UMAP_OK) return r;
    if ((r = umap__knn_check_data(&o, pool, "data", data, n, dim, &maxabs)) != UMAP_OK) goto done;
    if (umap__metrics[o.metric].screen == UMAP__SCREEN_SELECT) { /* the matrix itself, once checked */
        if ((r = umap__select_check(&o, pool, data, n, dim, 1)) == UMAP_OK)
            memcpy(out, data, (size_t)(n * n) * sizeof(float));
        goto done;
    }
    if ((r = umap__knn_columns(&o, data, n, dim, &col_w)) != UMAP_OK) goto done;
    e = umap__knn_scale_exponent(&o, maxabs);
    if ((r = umap__knn_prepare(&o, pool, data, n, dim, e, &normed)) != UMAP_OK) goto done;
    if (umap__metrics[o.metric].screen == UMAP__SCREEN_DIRECT) {
        umap__pairwise_direct_ctx dc;
        dc.x = normed ? normed : data; dc.out = out; dc.n = n; dc.dim = dim;
        dc.m = umap__mcall_make(o.metric, o.metric_p, o.metric_fn, o.metric_user_data);
        umap__parallel_range(pool, n, 16, umap__pairwise_direct_range, &dc);
        umap__parallel_range(pool, n, 64, umap__pairwise_mirror_range, &dc);
        o.info->distance_evals = (double)n * (double)(n + 1) / 2.0;
        o.info->method = UMAP_KNN_EXACT;
        if ((r = umap__custom_check(&o, out, NULL, n, (int)n, 1)) == UMAP_OK) r = umap__knn_unscale(&o, out, n, (int)n, e);
        goto done;
    }
    T = umap__knn_tile(&o, n);
    if (T > n) T = n;
    G = (float *)umap__alloc(&o.alloc, (size_t)T * (size_t)T * sizeof(float));
    norm = (float *)umap__alloc(&o.alloc, (size_t)n * sizeof(float));
    norm2 = (float *)umap__alloc(&o.alloc, (size_t)n * sizeof(float));
    if (umap__gemm_portable(T, T, dim)) ws = (float *)umap__alloc(&o.alloc, (size_t)umap__gemm_workspace(T, dim) * 4);
    if (!G || !norm || !norm2 || (umap__gemm_portable(T, T, dim) && !ws)) {
        r = umap__fail(&o.err, UMAP_ERR_OUT_OF_MEMORY, "pairwise: out of memory");
        goto done;
    }
    {
        const float *x = normed ? normed : data;
        umap__norms_ctx nc;
        umap__pairwise_ctx pc;
        nc.x = x; nc.dim = dim; nc.norm = norm; nc.norm2 = norm2;
        umap__parallel_range(pool, n, 1 + 65536 / dim, umap__norms_range, &nc);
        pc.norm2 = norm2; pc.out = out; pc.n = n; pc.cosine = umap__metrics[o.metric].screen == UMAP__SCREEN_GRAM_DOT; pc.G = G;
        pc.l2_scale = umap__metrics[o.metric].prep == UMAP__PREP_SQRT_L1 ? 0.5f : 1.0f; /* hellinger: |x - y|^2 / 2 */
        for (ti = 0; ti < n; ti += T)
            for (tj = ti; tj < n; tj += T) {
                pc.i0 = ti; pc.ni = n - ti < T ? n - ti : T;
                pc.j0 = tj; pc.nj = n - tj < T ? n - tj : T;
                umap__sgemm(pool, 0, 1, pc.ni, pc.nj, dim, x + ti * dim, x + tj * dim, G, ws);
                umap__parallel_range(pool, pc.ni, 64, umap__pairwise_range, &pc); /* 64: whole 16-row blocks */
            }
        o.info->distance_evals = (double)n * (double)(n + 1) / 2.0;
        o.info->method = UMAP_KNN_EXACT;
        r = umap__knn_unscale(&o, out, n, (int)n, e);
    }
done:
    umap__free(&o.alloc, normed); umap__free(&o.alloc, G); umap__free(&o.alloc, norm);
    umap__free(&o.alloc, norm2); umap__free(&o.alloc, ws); umap__free(&o.alloc, col_w);
    if (pool != o.pool) umap_pool_free(pool);
    return r;
}

typedef struct umap__sp_pairwise_ctx {
    const umap__sp_rows *x;
    float *out;
    umap_metric metric;
    double p;
} umap__sp_pairwise_ctx;
static void umap__sp_pairwise_range(void *ctx, int64_t r0, int64_t r1) {
    const umap__sp_pairwise_ctx *c = (const umap__sp_pairwise_ctx *)ctx;
    int64_t i, j, n = c->x->n;
    for (i = r0; i < r1; i++)
        for (j = i; j < n; j++) c->out[i * n + j] = (float)umap__sp_md(c->metric, c->p, c->x, i, c->x, j);
}

UMAP__FN umap_result umap_pairwise_rows(const umap_knn_desc *desc, const umap_rows *data, float *out) {
    umap__knn_opts o;
    umap_knn_info scratch;
    umap_pool *pool = NULL;
    umap__sp_rows w;
    double *col_w = NULL;
    float maxabs = 0.0f;
    int64_t n;
    int e = 0;
    umap_result r;
    if (!data) return umap_pairwise(desc, NULL, 0, 0, out); /* its error names the NULL */
    if (!umap__rows_sparse(data)) return umap_pairwise(desc, data->dense, data->n, data->dim, out);
    memset(&w, 0, sizeof w);
    n = data->n;
    if ((r = umap__pairwise_begin(desc, &scratch, &o, n, out, &pool)) != UMAP_OK) return r;
    if (o.metric == UMAP_METRIC_PRECOMPUTED) {
        if (pool != o.pool) umap_pool_free(pool);
        return umap__fail(&o.err, UMAP_ERR_INVALID_ARGUMENT,
                          "pairwise: a sparse graph of distances (precomputed) leaves the pairs it does not store "
                          "unknown; the n x n matrix needs them all");
    }
    if ((r = umap__csr_check(&o, "data", data, &maxabs)) == UMAP_OK && (r = umap__sp_columns(&o, data, &col_w)) == UMAP_OK &&
        (r = umap__sp_prepare(&o, pool, data, e = umap__knn_scale_exponent(&o, maxabs), &w)) == UMAP_OK) {
        umap__sp_pairwise_ctx c;
        umap__pairwise_direct_ctx mirror;
        c.x = &w; c.out = out; c.metric = o.metric; c.p = o.metric_p;
        umap__parallel_range(pool, n, 16, umap__sp_pairwise_range, &c);
        memset(&mirror, 0, sizeof mirror);
        mirror.out = out; mirror.n = n;
        umap__parallel_range(pool, n, 64, umap__pairwise_mirror_range, &mirror);
        o.info->distance_evals = (double)n * (double)(n + 1) / 2.0;
        o.info->method = UMAP_KNN_EXACT;
        r = umap__knn_unscale(&o, out, n, (int)n, e);
    }
    umap__sp_rows_free(&o.alloc, &w);
    umap__free(&o.alloc, col_w);
    if (pool != o.pool) umap_pool_free(pool);
    return r;
}

UMAP__FN umap_result umap_knn_pack(const int32_t *indices, const float *distances, int64_t n, int k, float *packed) {
    int64_t i;
    int j;
    if (!indices || !distances || !packed || n < 0 || k < 1 || n > ((int64_t)1 << 40) / (2 * k))
        return UMAP_ERR_INVALID_ARGUMENT;
    /* check first, so a failed call leaves packed untouched */
    for (i = 0; i < n * k; i++)
        if (indices[i] < 0 || indices[i] > (1 << 24)) return UMAP_ERR_TOO_LARGE; /* not exact as a float */
    for (i = 0; i < n; i++)
        for (j = 0; j < k; j++) {
            packed[i * 2 * k + j] = (float)indices[i * k + j];
            packed[i * 2 * k + k + j] = distances[i * k + j];
        }
    return UMAP_OK;
}

UMAP__FN umap_result umap_knn_unpack(const float *packed, int64_t n, int k, int32_t *indices, float *distances) {
    int64_t i;
    int j;
    if (!packed || n < 0 || k < 1 || n > ((int64_t)1 << 40) / (2 * k)) return UMAP_ERR_INVALID_ARGUMENT;
    for (i = 0; i < n; i++)
        for (j = 0; j < k; j++) {
            float v = packed[i * 2 * k + j];
            if (!(v >= 0.0f && v <= 16777216.0f) || v != (float)(int32_t)v) return UMAP_ERR_INVALID_ARGUMENT;
            if (indices) indices[i * k + j] = (int32_t)v;
            if (distances) distances[i * k + j] = packed[i * 2 * k + k + j];
        }
    return UMAP_OK;
}


#endif /* UMAP_KNN__IMPLEMENTED */
#endif /* UMAP_KNN_IMPLEMENTATION || UMAP_IMPLEMENTATION */

/*
MIT License

Copyright (c) 2026 the umap.h authors

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
*/
