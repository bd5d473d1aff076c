/* Sparse rows (umap_knn.h's >>sparse): umap_knn_rows and umap_knn_query_rows
   on CSR rows against the dense search on the same matrix (the same bits,
   correlation within rounding), for every metric that takes sparse rows;
   the same bits for any thread count; memory that grows with the
   nonzeros, not n x dim; and a clear error, naming the row and entry, for
   every malformed CSR. */
#include <string>
#include <unistd.h>
#include <vector>

#include "test_knn_util.h"

namespace {

/* a CSR and the dense matrix it stands for */
struct Csr {
    int64_t n = 0, dim = 0;
    std::vector<int64_t> indptr;
    std::vector<int32_t> indices;
    std::vector<float> values;
    umap_rows rows() const { return umap_rows_csr(n, dim, indptr.data(), indices.data(), values.data()); }
};

/* a dense row's nonzeros appended to c as its next row */
void push_row(Csr &c, const std::vector<float> &row) {
    for (size_t j = 0; j < row.size(); j++)
        if (row[j] != 0.0f) {
            c.indices.push_back((int32_t)j);
            c.values.push_back(row[j]);
        }
    c.indptr.push_back((int64_t)c.values.size());
}

/* the stored entries of a dense matrix: its nonzeros, plus a stored zero
   in every 9th row's first column (scipy keeps explicit zeros) */
Csr to_csr(const std::vector<float> &x, int64_t n, int64_t dim) {
    Csr c;
    c.n = n;
    c.dim = dim;
    c.indptr.push_back(0);
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = 0; j < dim; j++) {
            float v = x[(size_t)(i * dim + j)];
            if (v != 0.0f || (i % 9 == 4 && j == 0)) {
                c.indices.push_back((int32_t)j);
                c.values.push_back(v);
            }
        }
        c.indptr.push_back((int64_t)c.values.size());
    }
    return c;
}

/* sparse data for a metric: most entries 0, rows of varied density, two
   duplicate rows and an empty one (hellinger: non-negative, no empty row;
   binary metrics: 0/1 with some other nonzero values) */
std::vector<float> sparse_data(umap_metric m, int64_t n, int64_t dim, uint64_t seed) {
    std::vector<float> x((size_t)(n * dim), 0.0f);
    for (int64_t i = 0; i < n; i++) {
        double density = 0.05 + 0.3 * ut::unit(seed + 1, (uint64_t)(i % 11));
        for (int64_t j = 0; j < dim; j++) {
            if (ut::unit(seed, (uint64_t)(i * dim + j)) >= density) continue;
            double v = kt::binary_metric(m) ? ((i + j) % 5 == 0 ? -2.5 : 1.0)
                                            : kt::normal(seed + 2, (uint64_t)(i * dim + j)) + (double)(j % 3);
            if (m == UMAP_METRIC_HELLINGER) v = std::fabs(v) + 0.01;
            x[(size_t)(i * dim + j)] = (float)v;
        }
    }
    if (n > 12) {
        kt::copy_row(x, dim, 3, 10);
        kt::copy_row(x, dim, 3, 11);
        if (m != UMAP_METRIC_HELLINGER) kt::zero_row(x, dim, 7);
    }
    return x;
}

std::vector<umap_metric> sparse_metrics() {
    std::vector<umap_metric> v;
    for (int m = 0; m < (int)UMAP_METRIC_COUNT; m++)
        if (m != UMAP_METRIC_PRECOMPUTED && m != UMAP_METRIC_HAVERSINE && m != UMAP_METRIC_CUSTOM)
            v.push_back((umap_metric)m);
    return v;
}

struct Result {
    umap_result r = UMAP_ERR_GRAPH;
    std::vector<int32_t> idx;
    std::vector<float> d;
    umap_knn_info info;
};

Result self_knn(umap_knn_desc desc, const umap_rows &rows) {
    Result out;
    std::memset(&out.info, 0, sizeof out.info);
    out.idx.assign((size_t)(rows.n * desc.k), -7);
    out.d.assign((size_t)(rows.n * desc.k), -7.0f);
    desc.info = &out.info;
    out.r = umap_knn_rows(&desc, &rows, out.idx.data(), out.d.data());
    return out;
}

Result query_knn(umap_knn_desc desc, const umap_rows &base, const umap_rows &queries) {
    Result out;
    std::memset(&out.info, 0, sizeof out.info);
    out.idx.assign((size_t)(queries.n * desc.k), -7);
    out.d.assign((size_t)(queries.n * desc.k), -7.0f);
    desc.info = &out.info;
    out.r = umap_knn_query_rows(&desc, &base, &queries, out.idx.data(), out.d.data());
    return out;
}

/* sparse == dense: the same bits, or for correlation (computed without
   centring) distances within 1e-6 and the same rows wherever they are not
   that close to a tie */
::testing::AssertionResult same_search(umap_metric m, const Result &dense, const Result &sparse, int k) {
    if (dense.r != UMAP_OK || sparse.r != UMAP_OK)
        return ::testing::AssertionFailure() << "dense " << dense.info.error_detail << " / sparse "
                                             << sparse.info.error_detail;
    if (m != UMAP_METRIC_CORRELATION) {
        auto a = kt::bits_equal(dense.idx, sparse.idx);
        if (!a) return a << " (indices)";
        return kt::bits_equal(dense.d, sparse.d) << " (distances)";
    }
    for (size_t i = 0; i < dense.d.size(); i++) {
        if (std::fabs(dense.d[i] - sparse.d[i]) > 1e-6f)
            return ::testing::AssertionFailure() << "entry " << i << ": " << dense.d[i] << " vs " << sparse.d[i];
        size_t row = i / (size_t)k, t = i % (size_t)k;
        bool near_tie = (t > 0 && dense.d[i] - dense.d[i - 1] < 2e-6f) ||
                        (t + 1 < (size_t)k && dense.d[i + 1] - dense.d[i] < 2e-6f);
        if (!near_tie && dense.idx[i] != sparse.idx[i])
            return ::testing::AssertionFailure() << "row " << row << " rank " << t << ": " << dense.idx[i] << " vs "
                                                 << sparse.idx[i];
    }
    return ::testing::AssertionSuccess();
}

} // namespace

TEST(SparseKnn, EqualsTheDenseSearchForEveryMetric) {
    const int64_t n = 160, nq = 37, dim = 70;
    const int k = 8;
    for (umap_metric m : sparse_metrics()) {
        for (float p : {0.0f, 1.5f, 3.0f}) {
            if (p != 0.0f && m != UMAP_METRIC_MINKOWSKI) continue;
            SCOPED_TRACE(std::string(umap_metric_name(m)) + " p=" + std::to_string(p));
            std::vector<float> x = sparse_data(m, n, dim, 11), q = sparse_data(m, nq, dim, 12);
            Csr cx = to_csr(x, n, dim), cq = to_csr(q, nq, dim);
            umap_knn_desc desc = kt::desc(k, m);
            desc.metric_p = p;
            umap_rows dx = umap_rows_dense(x.data(), n, dim), dq = umap_rows_dense(q.data(), nq, dim);
            Result a = self_knn(desc, dx), b = self_knn(desc, cx.rows());
            EXPECT_TRUE(same_search(m, a, b, k)) << "self";
            EXPECT_EQ(b.info.method, UMAP_KNN_EXACT);
            Result qa = query_knn(desc, dx, dq), qb = query_knn(desc, cx.rows(), cq.rows());
            EXPECT_TRUE(same_search(m, qa, qb, k)) << "query";
        }
    }
}

/* seuclidean's variances from the sparse columns (unstored zeros counted)
   equal the dense ones within rounding; given ones, the same bits */
TEST(SparseKnn, SeuclideanVariancesFromTheColumns) {
    const int64_t n = 120, dim = 40;
    const int k = 6;
    std::vector<float> x = sparse_data(UMAP_METRIC_SEUCLIDEAN, n, dim, 5);
    Csr c = to_csr(x, n, dim);
    std::vector<float> v((size_t)dim);
    for (int64_t j = 0; j < dim; j++) v[(size_t)j] = 0.5f + (float)(j % 4);
    v[3] = 0.0f; /* column 3 left out */
    umap_knn_desc desc = kt::desc(k, UMAP_METRIC_SEUCLIDEAN);
    Result a = self_knn(desc, umap_rows_dense(x.data(), n, dim)), b = self_knn(desc, c.rows());
    ASSERT_EQ(a.r, UMAP_OK);
    ASSERT_EQ(b.r, UMAP_OK) << b.info.error_detail;
    for (size_t i = 0; i < a.d.size(); i++) EXPECT_NEAR(a.d[i], b.d[i], 1e-5f * (1.0f + a.d[i])) << i;
    desc.metric_v = v.data();
    a = self_knn(desc, umap_rows_dense(x.data(), n, dim));
    b = self_knn(desc, c.rows());
    EXPECT_TRUE(same_search(UMAP_METRIC_SEUCLIDEAN, a, b, k));
}

/* magnitudes near float's ends go through the same scaling as dense rows */
TEST(SparseKnn, ExtremeMagnitudesMatchTheDenseSearch) {
    const int64_t n = 60, dim = 30;
    const int k = 5;
    for (float scale : {1e-30f, 1e30f}) {
        for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_MANHATTAN, UMAP_METRIC_MINKOWSKI, UMAP_METRIC_COSINE}) {
            SCOPED_TRACE(std::string(umap_metric_name(m)) + " scale " + std::to_string(scale));
            std::vector<float> x = sparse_data(m, n, dim, 21);
            for (float &v : x) v *= scale;
            Csr c = to_csr(x, n, dim);
            umap_knn_desc desc = kt::desc(k, m);
            desc.metric_p = m == UMAP_METRIC_MINKOWSKI ? 4.0f : 0.0f;
            EXPECT_TRUE(same_search(m, self_knn(desc, umap_rows_dense(x.data(), n, dim)), self_knn(desc, c.rows()), k));
        }
    }
}

TEST(SparseKnn, SameBitsForOneTwoThreeThreads) {
    const int64_t n = 300, dim = 90;
    const int k = 10;
    for (umap_metric m : {UMAP_METRIC_COSINE, UMAP_METRIC_JACCARD, UMAP_METRIC_BRAYCURTIS}) {
        std::vector<float> x = sparse_data(m, n, dim, 3);
        Csr c = to_csr(x, n, dim);
        umap_knn_desc desc = kt::desc(k, m);
        desc.n_threads = 1;
        Result one = self_knn(desc, c.rows());
        ASSERT_EQ(one.r, UMAP_OK);
        for (int t : {2, 3}) {
            desc.n_threads = t;
            Result more = self_knn(desc, c.rows());
            EXPECT_TRUE(kt::bits_equal(one.idx, more.idx)) << umap_metric_name(m) << " threads " << t;
            EXPECT_TRUE(kt::bits_equal(one.d, more.d)) << umap_metric_name(m) << " threads " << t;
        }
    }
}

/* NN-Descent on sparse rows: its distances are the exact ones of the pairs
   it finds, its recall high on clustered rows, its bits the same for any
   thread count; auto takes it above the sparse threshold */
TEST(SparseKnn, NNDescentFindsTheNeighboursWithExactDistances) {
    const int64_t n = KT_SANITIZED ? 1500 : 3000, dim = 400;
    const int k = 10;
    /* 30 topics, each row 12 to 40 words of its topic's vocabulary, some shared words */
    Csr c;
    c.n = n;
    c.dim = dim;
    c.indptr.push_back(0);
    for (int64_t i = 0; i < n; i++) {
        std::vector<float> row((size_t)dim, 0.0f);
        int64_t words = 12 + (i * 7) % 29;
        for (int64_t w = 0; w < words; w++) {
            double u = ut::unit(31, (uint64_t)(i * 64 + w));
            int64_t col = w % 4 == 3 ? 360 + (int64_t)(40 * u * u) : (i % 30) * 12 + (int64_t)(12 * u);
            row[(size_t)col] += 1.0f;
        }
        push_row(c, row);
    }
    for (umap_metric m : {UMAP_METRIC_COSINE, UMAP_METRIC_MANHATTAN}) {
        SCOPED_TRACE(umap_metric_name(m));
        Result exact = self_knn(kt::desc(k, m, UMAP_KNN_EXACT), c.rows());
        umap_knn_desc desc = kt::desc(k, m, UMAP_KNN_AUTO);
        desc.exact_threshold = n - 1;
        desc.seed = 5;
        desc.n_threads = 1;
        Result one = self_knn(desc, c.rows());
        ASSERT_EQ(one.r, UMAP_OK) << one.info.error_detail;
        EXPECT_EQ(one.info.method, UMAP_KNN_NNDESCENT);
        desc.n_threads = 3;
        Result three = self_knn(desc, c.rows());
        EXPECT_TRUE(kt::bits_equal(one.idx, three.idx));
        EXPECT_TRUE(kt::bits_equal(one.d, three.d));
        /* recall by distance (ties make the rows themselves ambiguous) */
        int64_t hit = 0;
        for (int64_t i = 0; i < n; i++)
            for (int t = 0; t < k; t++) {
                size_t at = (size_t)(i * k + t);
                hit += one.d[at] <= exact.d[(size_t)(i * k + k - 1)];
                /* a reported distance is that pair's exact one */
                size_t e = (size_t)(i * k);
                for (int u = 0; u < k; u++) {
                    if (exact.idx[e + (size_t)u] == one.idx[at]) {
                        EXPECT_EQ(exact.d[e + (size_t)u], one.d[at]);
                    }
                }
            }
        EXPECT_GT((double)hit / (double)(n * k), 0.97);
    }
}

/* ten million columns, a few stored per row: the dense form would be 8 GB;
   the search holds the nonzeros and per-row state */
TEST(SparseKnn, MemoryGrowsWithTheNonzerosNotTheWidth) {
    const int64_t n = 200, dim = 10000000;
    const int k = 5;
    Csr c;
    c.n = n;
    c.dim = dim;
    c.indptr.push_back(0);
    for (int64_t i = 0; i < n; i++) {
        for (int t = 0; t < 6; t++) {
            c.indices.push_back((int32_t)((i % 20) * 400000 + t * 1000 + (int64_t)(ut::unit(9, (uint64_t)(i % 20)) * 900)));
            c.values.push_back(1.0f + (float)t);
        }
        c.indptr.push_back((int64_t)c.values.size());
    }
    struct Peak {
        std::atomic<long long> now{0}, peak{0};
        static void *alloc(size_t size, void *ud) {
            Peak *p = (Peak *)ud;
            size_t *b = (size_t *)std::malloc(size + 16);
            if (!b) return nullptr;
            b[0] = size;
            long long v = p->now += (long long)size;
            long long old = p->peak.load();
            while (v > old && !p->peak.compare_exchange_weak(old, v)) {}
            return b + 2;
        }
        static void release(void *q, void *ud) {
            if (!q) return;
            size_t *b = (size_t *)q - 2;
            ((Peak *)ud)->now -= (long long)b[0];
            std::free(b);
        }
    } peak;
    umap_knn_desc desc = kt::desc(k, UMAP_METRIC_COSINE);
    desc.n_threads = 2;
    desc.allocator.alloc_fn = Peak::alloc;
    desc.allocator.free_fn = Peak::release;
    desc.allocator.user_data = &peak;
    Result r = self_knn(desc, c.rows());
    ASSERT_EQ(r.r, UMAP_OK) << r.info.error_detail;
    /* the columns' offsets (8 bytes a column) are the one term in dim */
    EXPECT_LT(peak.peak.load(), 8 * dim + (1 << 20)) << "peak bytes";
    for (int64_t i = 0; i < n; i++) { /* rows of one residue mod 20 are equal: those are the nearest */
        EXPECT_EQ(r.idx[(size_t)(i * k)] % 20, i % 20) << "row " << i;
        EXPECT_NEAR(r.d[(size_t)(i * k)], 0.0f, 1e-6f) << "row " << i;
    }
}

TEST(SparseKnn, MalformedCsrIsRefusedNamingTheEntry) {
    const int64_t n = 6, dim = 5;
    std::vector<float> x = sparse_data(UMAP_METRIC_EUCLIDEAN, n, dim, 1);
    for (int64_t j = 0; j < dim; j++) x[(size_t)(2 * dim + j)] = 1.0f + (float)j; /* row 2 holds all 5 columns */
    const Csr good = to_csr(x, n, dim);
    struct Case {
        const char *what;
        void (*edit)(Csr &);
        const char *expect;
        umap_result code;
        int64_t bad_row;
    };
    const Case cases[] = {
        {"unsorted", [](Csr &c) { std::swap(c.indices[(size_t)c.indptr[2]], c.indices[(size_t)c.indptr[2] + 1]); },
         "row 2, stored entry 1: column 0 is out of order", UMAP_ERR_INVALID_ARGUMENT, 2},
        {"repeated", [](Csr &c) { c.indices[(size_t)c.indptr[2] + 1] = c.indices[(size_t)c.indptr[2]]; },
         "row 2, stored entry 1: column 0 is repeated", UMAP_ERR_INVALID_ARGUMENT, 2},
        {"out of range", [](Csr &c) { c.indices[(size_t)c.indptr[2] + 4] = 5; },
         "row 2, stored entry 4: column 5 is out of range", UMAP_ERR_INVALID_ARGUMENT, 2},
        {"negative column", [](Csr &c) { c.indices[(size_t)c.indptr[2]] = -1; },
         "row 2, stored entry 0: column -1 is out of range", UMAP_ERR_INVALID_ARGUMENT, 2},
        {"NaN", [](Csr &c) { c.values[(size_t)c.indptr[2] + 3] = std::nanf(""); }, "row 2 holds NaN or Inf (column 3)",
         UMAP_ERR_NON_FINITE, 2},
        {"Inf", [](Csr &c) { c.values[(size_t)c.indptr[2]] = INFINITY; }, "row 2 holds NaN or Inf (column 0)",
         UMAP_ERR_NON_FINITE, 2},
        {"indptr decreasing", [](Csr &c) { c.indptr[3] = c.indptr[2] - 1; }, "indptr[3] =", UMAP_ERR_INVALID_ARGUMENT, 2},
        {"indptr start", [](Csr &c) { c.indptr[0] = 1; }, "indptr[0] is 1", UMAP_ERR_INVALID_ARGUMENT, -1},
    };
    for (const Case &cs : cases) {
        SCOPED_TRACE(cs.what);
        Csr c = good;
        cs.edit(c);
        Result r = self_knn(kt::desc(2), c.rows());
        EXPECT_EQ(r.r, cs.code);
        EXPECT_NE(std::string(r.info.error_detail).find(cs.expect), std::string::npos) << r.info.error_detail;
        if (cs.bad_row >= 0) {
            EXPECT_EQ(r.info.bad_row, cs.bad_row);
        }
        for (int32_t v : r.idx) EXPECT_EQ(v, -7) << "an output was written";
        /* the queries of a search are checked as well, under their own name */
        Result q = query_knn(kt::desc(2), good.rows(), c.rows());
        EXPECT_EQ(q.r, cs.code);
        EXPECT_NE(std::string(q.info.error_detail).find("queries: "), std::string::npos) << q.info.error_detail;
    }
}

TEST(SparseKnn, WhatSparseRowsCannotDoIsRefused) {
    const int64_t n = 8, dim = 4;
    std::vector<float> x = sparse_data(UMAP_METRIC_HELLINGER, n, dim, 2);
    Csr c = to_csr(x, n, dim);
    auto err = [](const Result &r) { return std::string(r.info.error_detail); };
    /* the metric's domain */
    Csr neg = c;
    neg.values[(size_t)neg.indptr[4]] = -1.0f;
    Result r = self_knn(kt::desc(2, UMAP_METRIC_HELLINGER), neg.rows());
    EXPECT_EQ(r.r, UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(err(r).find("hellinger needs non-negative data: row 4"), std::string::npos) << err(r);
    /* metrics with no sparse form */
    for (umap_metric m : {UMAP_METRIC_HAVERSINE, UMAP_METRIC_CUSTOM}) {
        r = self_knn(kt::desc(2, m), c.rows());
        EXPECT_EQ(r.r, UMAP_ERR_INVALID_ARGUMENT);
        EXPECT_NE(err(r).find("takes dense rows, not sparse ones"), std::string::npos) << err(r);
    }
    /* precomputed's sparse form is a graph of distances, n x n (test_precomputed.cc) */
    r = self_knn(kt::desc(2, UMAP_METRIC_PRECOMPUTED), c.rows());
    EXPECT_NE(err(r).find("a graph of distances between the 8 rows is 8 x 8"), std::string::npos) << err(r);
    /* NN-Descent, k, NULLs, the two forms mixed, widths that differ */
    r = query_knn(kt::desc(2, UMAP_METRIC_EUCLIDEAN, UMAP_KNN_NNDESCENT), c.rows(), c.rows());
    EXPECT_NE(err(r).find("a query search is exact"), std::string::npos) << err(r);
    r = self_knn(kt::desc((int)n), c.rows());
    EXPECT_NE(err(r).find("need 1 <= k < n"), std::string::npos) << err(r);
    Csr null_indices = c;
    umap_rows rows = null_indices.rows();
    rows.indices = nullptr;
    r = self_knn(kt::desc(2), rows);
    EXPECT_NE(err(r).find("its indices is NULL"), std::string::npos) << err(r);
    umap_rows dense = umap_rows_dense(x.data(), n, dim);
    r = query_knn(kt::desc(2), dense, c.rows());
    EXPECT_NE(err(r).find("both dense or both sparse"), std::string::npos) << err(r);
    Csr narrow = to_csr(x, n, dim);
    narrow.dim = dim + 1;
    r = query_knn(kt::desc(2), c.rows(), narrow.rows());
    EXPECT_NE(err(r).find("differ in their columns"), std::string::npos) << err(r);
    /* an empty matrix */
    Csr empty;
    empty.indptr.push_back(0);
    r = self_knn(kt::desc(2), empty.rows());
    EXPECT_NE(err(r).find("0 rows of 0 columns"), std::string::npos) << err(r);
}

/* every allocation of the exact search and of NN-Descent (its sketch
   included: above 1024 rows) failing in turn */
TEST(SparseKnn, OutOfMemoryAnywhereFailsCleanly) {
    for (umap_knn_method method : {UMAP_KNN_EXACT, UMAP_KNN_NNDESCENT}) {
        const int64_t n = method == UMAP_KNN_EXACT ? 40 : 1100, dim = 12;
        std::vector<float> x = sparse_data(UMAP_METRIC_CORRELATION, n, dim, 4);
        Csr c = to_csr(x, n, dim);
        kt::FailingAlloc count;
        umap_knn_desc desc = kt::desc(3, UMAP_METRIC_CORRELATION, method);
        desc.n_threads = 2;
        desc.allocator = count.hook();
        ASSERT_EQ(self_knn(desc, c.rows()).r, UMAP_OK);
        long total = count.attempts.load();
        ASSERT_GT(total, 3);
        for (long f = 0; f < total; f++) {
            kt::FailingAlloc failing;
            failing.fail_after = f;
            desc.allocator = failing.hook();
            Result r = self_knn(desc, c.rows());
            EXPECT_EQ(r.r, UMAP_ERR_OUT_OF_MEMORY) << "allocation " << f;
            EXPECT_EQ(failing.live.load(), 0) << "allocation " << f << ": leaked";
        }
    }
}

/* ---- umap_fit_rows and umap_transform_rows on sparse rows ---------------- */

namespace {

/* documents: `topics` topics, each row 15 to 60 words, two in five from
   its topic's vocabulary, the rest from words every topic shares; counts */
Csr topic_docs(int64_t n, int64_t dim, int topics, uint64_t seed, std::vector<int32_t> *labels) {
    Csr c;
    c.n = n;
    c.dim = dim;
    c.indptr.push_back(0);
    const int64_t shared = dim / 5, vocab = (dim - shared) / topics;
    for (int64_t i = 0; i < n; i++) {
        int topic = (int)(ut::unit(seed, (uint64_t)(7 * i)) * topics);
        std::vector<float> row((size_t)dim, 0.0f);
        int64_t words = 15 + (int64_t)(45 * ut::unit(seed + 1, (uint64_t)i));
        for (int64_t w = 0; w < words; w++) {
            double u = ut::unit(seed + 2, (uint64_t)(i * 64 + w));
            int64_t col = w % 5 >= 2 ? dim - shared + (int64_t)(shared * u * u) : topic * vocab + (int64_t)(vocab * u * u);
            row[(size_t)col] += 1.0f;
        }
        push_row(c, row);
        if (labels) labels->push_back(topic);
    }
    return c;
}

std::vector<float> densify(const Csr &c) {
    std::vector<float> x((size_t)(c.n * c.dim), 0.0f);
    for (int64_t i = 0; i < c.n; i++)
        for (int64_t t = c.indptr[(size_t)i]; t < c.indptr[(size_t)i + 1]; t++)
            x[(size_t)(i * c.dim + c.indices[(size_t)t])] = c.values[(size_t)t];
    return x;
}

/* the quality test's config: the defaults; the others' a quick fit */
umap_config sparse_config(umap_metric m, bool quick = true) {
    umap_config cfg = quick ? ut::quick_config() : umap_config_default();
    cfg.metric = m;
    cfg.seed = 3;
    cfg.n_threads = 2;
    cfg.keep_data = UMAP_AUTO;
    return cfg;
}

} // namespace

/* a fit of sparse documents that never densifies them: topics apart in
   the embedding, as well as a fit of the same rows given dense; the
   model then places sparse rows as it places the same rows dense */
TEST(SparseFitQuality, TopicsComeApartAsFromTheDenseRows) {
    const int64_t n = 1200, dim = 2000;
    std::vector<int32_t> labels;
    Csr c = topic_docs(n, dim, 12, 41, &labels);
    std::vector<float> x = densify(c);
    for (umap_metric m : {UMAP_METRIC_COSINE, UMAP_METRIC_HELLINGER}) {
        SCOPED_TRACE(umap_metric_name(m));
        umap_config cfg = sparse_config(m, false);
        umap_fit_info info;
        cfg.info = &info;
        umap_model *sparse = nullptr, *dense = nullptr;
        umap_rows rows = c.rows();
        ASSERT_EQ(umap_fit_rows(&cfg, &rows, &sparse), UMAP_OK) << info.error_detail;
        EXPECT_EQ(info.knn.method, UMAP_KNN_EXACT);
        ASSERT_EQ(umap_fit(&cfg, x.data(), n, dim, &dense), UMAP_OK) << info.error_detail;
        umap_quality_desc qd;
        std::memset(&qd, 0, sizeof qd);
        qd.metric = m;
        umap_quality qs, qdn;
        ASSERT_EQ(umap_quality_eval(&qd, x.data(), n, dim, umap_model_embedding(sparse), 2, labels.data(), &qs), UMAP_OK);
        ASSERT_EQ(umap_quality_eval(&qd, x.data(), n, dim, umap_model_embedding(dense), 2, labels.data(), &qdn), UMAP_OK);
        EXPECT_GT(qs.knn_accuracy, 0.9);
        /* the same scores from the sparse rows themselves */
        umap_quality qsr;
        ASSERT_EQ(umap_quality_eval_rows(&qd, &rows, umap_model_embedding(sparse), 2, labels.data(), &qsr), UMAP_OK);
        EXPECT_EQ(qsr.knn_recall, qs.knn_recall);
        EXPECT_EQ(qsr.knn_accuracy, qs.knn_accuracy);
        EXPECT_NEAR(qsr.trustworthiness, qs.trustworthiness, 2e-3);
        EXPECT_GT(qs.trustworthiness, qdn.trustworthiness - 0.01);
        EXPECT_GT(qs.knn_accuracy, qdn.knn_accuracy - 0.02);
        /* the sparse model places sparse rows as the same rows dense */
        const int64_t nq = 300;
        Csr head = c;
        head.n = nq;
        head.indptr.resize((size_t)nq + 1);
        umap_rows q = head.rows();
        std::vector<float> a((size_t)(nq * 2)), b((size_t)(nq * 2));
        umap_transform_desc td;
        std::memset(&td, 0, sizeof td);
        td.mode = UMAP_TRANSFORM_ENCODER;
        ASSERT_EQ(umap_transform_rows(sparse, &td, &q, a.data()), UMAP_OK);
        ASSERT_EQ(umap_transform_with(sparse, &td, x.data(), nq, dim, b.data()), UMAP_OK);
        for (size_t i = 0; i < a.size(); i++) EXPECT_NEAR(a[i], b[i], 1e-3f * (1.0f + std::fabs(b[i]))) << i;
        umap_model_free(sparse);
        umap_model_free(dense);
    }
}

TEST(SparseFit, SameBitsForOneAndThreeThreads) {
    const int64_t n = 300, dim = 500;
    Csr c = topic_docs(n, dim, 6, 7, nullptr);
    umap_rows rows = c.rows();
    umap_model *m1 = nullptr, *m3 = nullptr;
    umap_config cfg = sparse_config(UMAP_METRIC_COSINE);
    cfg.n_threads = 1;
    ASSERT_EQ(umap_fit_rows(&cfg, &rows, &m1), UMAP_OK);
    cfg.n_threads = 3;
    ASSERT_EQ(umap_fit_rows(&cfg, &rows, &m3), UMAP_OK);
    std::vector<float> e1(umap_model_embedding(m1), umap_model_embedding(m1) + n * 2);
    std::vector<float> e3(umap_model_embedding(m3), umap_model_embedding(m3) + n * 2);
    EXPECT_TRUE(kt::bits_equal(e1, e3));
    umap_model_free(m1);
    umap_model_free(m3);
}

/* no projection (d <= input_dims): the rows are densified, and the fit is
   the dense fit's to the bit */
TEST(SparseFit, NarrowRowsFitAsTheirDenseForm) {
    const int64_t n = 200, dim = 40;
    Csr c = topic_docs(n, dim, 4, 9, nullptr);
    std::vector<float> x = densify(c);
    umap_rows rows = c.rows();
    umap_model *a = nullptr, *b = nullptr;
    umap_config cfg = sparse_config(UMAP_METRIC_EUCLIDEAN);
    cfg.keep_data = UMAP_KEEP_NONE;
    ASSERT_EQ(umap_fit_rows(&cfg, &rows, &a), UMAP_OK);
    ASSERT_EQ(umap_fit(&cfg, x.data(), n, dim, &b), UMAP_OK);
    std::vector<float> ea(umap_model_embedding(a), umap_model_embedding(a) + n * 2);
    std::vector<float> eb(umap_model_embedding(b), umap_model_embedding(b) + n * 2);
    EXPECT_TRUE(kt::bits_equal(ea, eb));
    umap_model_free(a);
    umap_model_free(b);
}

TEST(SparseFit, WhatASparseFitRefusesIsNamed) {
    const int64_t n = 200, dim = 400;
    Csr c = topic_docs(n, dim, 4, 5, nullptr);
    umap_fit_info info;
    umap_config cfg = sparse_config(UMAP_METRIC_COSINE);
    cfg.info = &info;
    umap_model *m = nullptr;
    umap_rows rows = c.rows();
    cfg.keep_data = UMAP_KEEP_ROWS;
    EXPECT_EQ(umap_fit_rows(&cfg, &rows, &m), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("keep_data = rows with sparse rows"), std::string::npos)
        << info.error_detail;
    EXPECT_EQ(m, nullptr);
    cfg.keep_data = UMAP_AUTO;
    Csr bad = c;
    bad.values[(size_t)bad.indptr[17] + 1] = std::nanf("");
    rows = bad.rows();
    EXPECT_EQ(umap_fit_rows(&cfg, &rows, &m), UMAP_ERR_NON_FINITE);
    EXPECT_NE(std::string(info.error_detail).find("row 17 holds NaN"), std::string::npos) << info.error_detail;
    rows = c.rows();
    ASSERT_EQ(umap_fit_rows(&cfg, &rows, &m), UMAP_OK) << info.error_detail;
    /* transform: the width, NEIGHBORS, a CSR defect */
    char detail[256];
    umap_transform_desc td;
    std::memset(&td, 0, sizeof td);
    td.detail = detail;
    td.detail_size = sizeof detail;
    std::vector<float> out((size_t)(n * 2), -7.0f);
    Csr wide = c;
    wide.dim = dim + 1;
    umap_rows q = wide.rows();
    EXPECT_EQ(umap_transform_rows(m, &td, &q, out.data()), UMAP_ERR_SHAPE);
    EXPECT_NE(std::string(detail).find("rows of 401 features, the model was fitted on 400"), std::string::npos) << detail;
    q = c.rows();
    td.mode = UMAP_TRANSFORM_NEIGHBORS;
    EXPECT_EQ(umap_transform_rows(m, &td, &q, out.data()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(detail).find("placed by the encoder"), std::string::npos) << detail;
    td.mode = UMAP_TRANSFORM_AUTO;
    Csr unsorted = c;
    std::swap(unsorted.indices[(size_t)unsorted.indptr[5]], unsorted.indices[(size_t)unsorted.indptr[5] + 1]);
    q = unsorted.rows();
    EXPECT_EQ(umap_transform_rows(m, &td, &q, out.data()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(detail).find("row 5, stored entry 1"), std::string::npos) << detail;
    for (float v : out) EXPECT_EQ(v, -7.0f) << "an output was written";
    /* and the model file round trip places sparse rows the same */
    char tmpl[] = "/tmp/umap_sparse_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    std::string path = std::string(tmpl) + "/m.safetensors";
    ASSERT_EQ(umap_save(m, path.c_str()), UMAP_OK);
    umap_model *back = nullptr;
    ASSERT_EQ(umap_load(path.c_str(), &back, nullptr, 0), UMAP_OK);
    std::vector<float> a((size_t)(n * 2)), b((size_t)(n * 2));
    q = c.rows();
    ASSERT_EQ(umap_transform_rows(m, nullptr, &q, a.data()), UMAP_OK);
    ASSERT_EQ(umap_transform_rows(back, nullptr, &q, b.data()), UMAP_OK);
    EXPECT_TRUE(kt::bits_equal(a, b));
    std::remove(path.c_str());
    rmdir(tmpl);
    umap_model_free(back);
    umap_model_free(m);
}

/* quality on sparse rows: the dense rows' scores, without densifying; the
   same neighbours, so the same recall and accuracy, and trustworthiness
   within rounding (a near tie may rank the other way in double than in
   the dense kernels' float) */
TEST(SparseQuality, ScoresAreTheDenseRowsScoresForEveryMetric) {
    const int64_t n = 160, dim = 40;
    std::vector<float> emb = ut::uniform(n * 2, 77, -1.0, 1.0);
    std::vector<int32_t> labels((size_t)n);
    for (int64_t i = 0; i < n; i++) labels[(size_t)i] = (int32_t)(i % 4);
    for (umap_metric m : sparse_metrics()) {
        SCOPED_TRACE(umap_metric_name(m));
        std::vector<float> x = sparse_data(m, n, dim, 23);
        /* hellinger: rows with disjoint columns are all at distance 1, ties
           whose order is the last bit's; one shared column parts them */
        if (m == UMAP_METRIC_HELLINGER)
            for (int64_t i = 0; i < n; i++) x[(size_t)(i * dim)] = 0.3f + 0.01f * (float)(i % 17);
        Csr c = to_csr(x, n, dim);
        umap_rows rows = c.rows();
        for (int64_t queries : {(int64_t)0, (int64_t)37}) {
            umap_quality_desc qd;
            std::memset(&qd, 0, sizeof qd);
            qd.metric = m;
            qd.metric_p = m == UMAP_METRIC_MINKOWSKI ? 3.0f : 0.0f;
            qd.n_queries = queries;
            qd.n_threads = 2;
            umap_quality dense, sparse;
            ASSERT_EQ(umap_quality_eval(&qd, x.data(), n, dim, emb.data(), 2, labels.data(), &dense), UMAP_OK);
            ASSERT_EQ(umap_quality_eval_rows(&qd, &rows, emb.data(), 2, labels.data(), &sparse), UMAP_OK);
            EXPECT_EQ(sparse.knn_recall, dense.knn_recall);
            EXPECT_EQ(sparse.knn_accuracy, dense.knn_accuracy);
            EXPECT_NEAR(sparse.trustworthiness, dense.trustworthiness, 2e-3);
            EXPECT_LT(sparse.trustworthiness, 0.9) << "a random embedding: many intruders to rank";
            /* the same bits for any thread count */
            umap_quality one;
            qd.n_threads = 1;
            ASSERT_EQ(umap_quality_eval_rows(&qd, &rows, emb.data(), 2, labels.data(), &one), UMAP_OK);
            EXPECT_EQ(one.trustworthiness, sparse.trustworthiness);
        }
    }
    /* a malformed CSR is the k-NN's error; k >= n is refused */
    std::vector<float> x = sparse_data(UMAP_METRIC_EUCLIDEAN, n, dim, 23);
    Csr bad = to_csr(x, n, dim);
    std::swap(bad.indices[1], bad.indices[2]);
    umap_rows rows = bad.rows();
    umap_quality q;
    EXPECT_EQ(umap_quality_eval_rows(nullptr, &rows, emb.data(), 2, nullptr, &q), UMAP_ERR_INVALID_ARGUMENT);
    Csr good = to_csr(x, n, dim);
    rows = good.rows();
    umap_quality_desc qd;
    std::memset(&qd, 0, sizeof qd);
    qd.k = (int)n;
    EXPECT_EQ(umap_quality_eval_rows(&qd, &rows, emb.data(), 2, nullptr, &q), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_quality_eval_rows(nullptr, nullptr, emb.data(), 2, nullptr, &q), UMAP_ERR_INVALID_ARGUMENT);
}

/* the n x n matrix of sparse rows: the dense rows' (the same bits where
   the dense matrix is measured pair by pair; the Gram metrics' dense
   matrix comes from a product, so within its rounding) */
TEST(SparseKnn, PairwiseEqualsTheDenseMatrix) {
    const int64_t n = 70, dim = 30;
    for (umap_metric m : sparse_metrics()) {
        SCOPED_TRACE(umap_metric_name(m));
        std::vector<float> x = sparse_data(m, n, dim, 91);
        Csr c = to_csr(x, n, dim);
        umap_rows rows = c.rows();
        umap_knn_desc d;
        std::memset(&d, 0, sizeof d);
        d.metric = m;
        d.metric_p = m == UMAP_METRIC_MINKOWSKI ? 3.0f : 0.0f;
        d.n_threads = 2;
        std::vector<float> dense((size_t)(n * n), -1.0f), sparse((size_t)(n * n), -1.0f);
        ASSERT_EQ(umap_pairwise(&d, x.data(), n, dim, dense.data()), UMAP_OK);
        ASSERT_EQ(umap_pairwise_rows(&d, &rows, sparse.data()), UMAP_OK);
        bool gram = m == UMAP_METRIC_EUCLIDEAN || m == UMAP_METRIC_COSINE || m == UMAP_METRIC_CORRELATION ||
                    m == UMAP_METRIC_HELLINGER || m == UMAP_METRIC_SEUCLIDEAN;
        if (!gram) {
            EXPECT_TRUE(kt::bits_equal(dense, sparse));
        } else {
            for (size_t i = 0; i < dense.size(); i++)
                ASSERT_NEAR(sparse[i], dense[i], 1e-4f * (1.0f + std::fabs(dense[i]))) << "entry " << i;
        }
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < i; j++) ASSERT_EQ(sparse[(size_t)(i * n + j)], sparse[(size_t)(j * n + i)]);
        d.n_threads = 1;
        std::vector<float> one((size_t)(n * n));
        ASSERT_EQ(umap_pairwise_rows(&d, &rows, one.data()), UMAP_OK);
        EXPECT_TRUE(kt::bits_equal(one, sparse)) << "the same bits for any thread count";
    }
    std::vector<float> x = sparse_data(UMAP_METRIC_EUCLIDEAN, n, dim, 91);
    Csr bad = to_csr(x, n, dim);
    bad.indices[3] = (int32_t)dim;
    umap_rows rows = bad.rows();
    umap_knn_desc d;
    umap_knn_info info;
    std::memset(&d, 0, sizeof d);
    d.info = &info;
    std::vector<float> out((size_t)(n * n));
    EXPECT_EQ(umap_pairwise_rows(&d, &rows, out.data()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("out of range"), std::string::npos) << info.error_detail;
}

/* unique on sparse rows: identical rows (a stored zero is the zero it
   stands for) found on the stored entries, the distinct ones fitted as
   sparse rows, every copy given its row's place; without an input
   projection the dense unique fit's bits */
TEST(SparseFit, UniqueGivesEveryCopyOnePlace) {
    Csr c = topic_docs(240, 500, 6, 17, nullptr);
    /* copies: row 5 twice, row 17 once, and row 40 once with a stored zero added */
    auto append = [&c](int64_t row, bool stored_zero) {
        int64_t b = c.indptr[(size_t)row], e = c.indptr[(size_t)row + 1];
        bool zero_done = !stored_zero;
        for (int64_t t = b; t < e; t++) {
            if (!zero_done && c.indices[(size_t)t] > 0 && (t == b || c.indices[(size_t)t - 1] + 1 < c.indices[(size_t)t])) {
                c.indices.push_back(c.indices[(size_t)t] - 1);
                c.values.push_back(0.0f);
                zero_done = true;
            }
            c.indices.push_back(c.indices[(size_t)t]);
            c.values.push_back(c.values[(size_t)t]);
        }
        c.indptr.push_back((int64_t)c.values.size());
        c.n++;
        return zero_done;
    };
    const int64_t original = c.n;
    ASSERT_TRUE(append(5, false));
    ASSERT_TRUE(append(17, false));
    ASSERT_TRUE(append(5, false));
    ASSERT_TRUE(append(40, true)) << "the copy of row 40 holds a stored zero";
    const int64_t copies[][2] = {{original, 5}, {original + 1, 17}, {original + 2, 5}, {original + 3, 40}};
    umap_rows rows = c.rows();
    umap_config cfg = sparse_config(UMAP_METRIC_COSINE);
    cfg.unique = 1;
    umap_fit_info info;
    cfg.info = &info;
    umap_model *m = nullptr;
    ASSERT_EQ(umap_fit_rows(&cfg, &rows, &m), UMAP_OK) << info.error_detail;
    ASSERT_EQ(umap_model_n_train(m), c.n);
    const float *e = umap_model_embedding(m);
    for (auto &cp : copies)
        for (int k = 0; k < 2; k++)
            EXPECT_EQ(e[cp[0] * 2 + k], e[cp[1] * 2 + k]) << "row " << cp[0] << " is a copy of row " << cp[1];
    EXPECT_NE(e[0], e[2]);
    umap_model_free(m);

    /* narrow rows (no input projection): the dense unique fit to the bit */
    Csr narrow = topic_docs(200, 40, 4, 23, nullptr);
    std::vector<float> x = densify(narrow);
    std::vector<float> xd(x);
    for (int64_t j = 0; j < 40; j++) xd.push_back(x[(size_t)(7 * 40 + j)]); /* one more copy of row 7 */
    Csr nd = to_csr(xd, 201, 40);
    umap_rows nr = nd.rows();
    umap_model *a = nullptr, *b = nullptr;
    ASSERT_EQ(umap_fit_rows(&cfg, &nr, &a), UMAP_OK) << info.error_detail;
    ASSERT_EQ(umap_fit(&cfg, xd.data(), 201, 40, &b), UMAP_OK) << info.error_detail;
    std::vector<float> ea(umap_model_embedding(a), umap_model_embedding(a) + 402),
        eb(umap_model_embedding(b), umap_model_embedding(b) + 402);
    EXPECT_TRUE(kt::bits_equal(ea, eb));
    EXPECT_EQ(ea[200 * 2], ea[7 * 2]);
    umap_model_free(a);
    umap_model_free(b);

    /* a malformed CSR is named before any row is compared */
    std::swap(c.indices[1], c.indices[2]);
    rows = c.rows();
    EXPECT_EQ(umap_fit_rows(&cfg, &rows, &m), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("out of order"), std::string::npos) << info.error_detail;
    EXPECT_EQ(m, nullptr);
}
