/* >>knn: umap_knn (exact and NN-Descent), umap_knn_query, umap_pairwise and
   the packed layout, against a naive double-precision reference; ties,
   duplicates, zero rows, tiling, determinism across thread counts, recall,
   info, every bad input, allocation failure. */
#include <cmath>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "test_knn_util.h"

namespace {

struct Knn {
    std::vector<int32_t> idx;
    std::vector<float> d;
    umap_knn_info info;
    umap_result r = UMAP_ERR_GRAPH;
};

Knn run_knn(umap_knn_desc dsc, const std::vector<float> &x, int64_t n, int64_t dim, bool want_idx = true,
            bool want_d = true) {
    Knn out;
    std::memset(&out.info, 0, sizeof out.info);
    int k = dsc.k > 0 ? dsc.k : 15; /* a bad k is refused before any write */
    if (want_idx) out.idx.assign((size_t)(n * k), -7);
    if (want_d) out.d.assign((size_t)(n * k), -7.0f);
    dsc.info = &out.info;
    out.r = umap_knn(&dsc, x.data(), n, dim, want_idx ? out.idx.data() : nullptr, want_d ? out.d.data() : nullptr);
    return out;
}

Knn run_query(umap_knn_desc dsc, const std::vector<float> &base, int64_t nb, const std::vector<float> &q, int64_t nq,
              int64_t dim) {
    Knn out;
    std::memset(&out.info, 0, sizeof out.info);
    out.idx.assign((size_t)(nq * dsc.k), -7);
    out.d.assign((size_t)(nq * dsc.k), -7.0f);
    dsc.info = &out.info;
    out.r = umap_knn_query(&dsc, base.data(), nb, q.data(), nq, dim, out.idx.data(), out.d.data());
    return out;
}

const char *metric_name(umap_metric m) { return m == UMAP_METRIC_COSINE ? "cosine" : "euclidean"; }

/* the reference check for self k-NN of x, with a trace of the case */
void expect_exact(umap_metric m, const std::vector<float> &x, int64_t n, int64_t dim, int k, int tile_rows,
                  int n_threads = 0) {
    umap_knn_desc dsc = kt::desc(k, m);
    dsc.tile_rows = tile_rows;
    dsc.n_threads = n_threads;
    Knn got = run_knn(dsc, x, n, dim);
    SCOPED_TRACE(std::string(metric_name(m)) + " n=" + std::to_string(n) + " dim=" + std::to_string(dim) +
                 " k=" + std::to_string(k) + " tile=" + std::to_string(tile_rows));
    ASSERT_EQ(got.r, UMAP_OK) << got.info.error_detail;
    EXPECT_STREQ(got.info.error_detail, "");
    EXPECT_EQ(got.info.method, UMAP_KNN_EXACT);
    EXPECT_EQ(got.info.bad_row, -1);
    EXPECT_GT(got.info.distance_evals, 0.0);
    kt::Ref ref = kt::reference_self(m, x, n, dim, k);
    EXPECT_TRUE(kt::check_knn(got.idx, got.d, ref, m, x.data(), n, x.data(), dim, true));
}

} // namespace

/* ---- exact search against the reference ---------------------------------- */

TEST(KnnExact, MatchesReferenceEuclidean) {
    const int64_t big = KT_SANITIZED ? 700 : 3000;
    struct Case {
        int64_t n, dim;
    } cases[] = {{2, 1}, {3, 3}, {17, 17}, {63, 3}, {64, 1}, {65, 100}, {130, 17}, {500, 100}, {big, 1}, {big, 3},
                 {big, 17}, {KT_SANITIZED ? 300 : 700, 100}};
    for (const Case &c : cases) {
        std::vector<float> x = ut::uniform(c.n * c.dim, (uint64_t)(c.n * 131 + c.dim), -1, 1);
        int k = c.n - 1 < 15 ? (int)c.n - 1 : 15;
        expect_exact(UMAP_METRIC_EUCLIDEAN, x, c.n, c.dim, k, 64);
        if (::testing::Test::HasFatalFailure()) return;
    }
}

TEST(KnnExact, MatchesReferenceCosineWithZeroRows) {
    const int64_t big = KT_SANITIZED ? 700 : 2000;
    struct Case {
        int64_t n, dim;
    } cases[] = {{2, 1}, {3, 3}, {40, 1}, {65, 17}, {130, 3}, {300, 100}, {big, 3}, {big, 17}};
    for (const Case &c : cases) {
        std::vector<float> x = ut::uniform(c.n * c.dim, (uint64_t)(c.n * 71 + c.dim), -1, 1);
        /* zero rows: distance exactly 1 to everything */
        for (int64_t r = 1; r < c.n; r += 7) kt::zero_row(x, c.dim, r);
        int k = c.n - 1 < 15 ? (int)c.n - 1 : 15;
        expect_exact(UMAP_METRIC_COSINE, x, c.n, c.dim, k, 64);
        if (::testing::Test::HasFatalFailure()) return;
    }
}

TEST(KnnExact, ZeroRowCosineNeighboursAreTheFirstIndices) {
    const int64_t n = 50, dim = 5;
    const int k = 6;
    std::vector<float> x = ut::uniform(n * dim, 5, -1, 1);
    kt::zero_row(x, dim, 0);
    kt::zero_row(x, dim, 3);
    Knn got = run_knn(kt::desc(k, UMAP_METRIC_COSINE), x, n, dim);
    ASSERT_EQ(got.r, UMAP_OK) << got.info.error_detail;
    /* a zero row: every distance is 1, so its neighbours are 1, 2, 4, 5, ... */
    const int32_t want0[k] = {1, 2, 3, 4, 5, 6}, want3[k] = {0, 1, 2, 4, 5, 6};
    for (int t = 0; t < k; t++) {
        EXPECT_EQ(got.idx[(size_t)t], want0[t]);
        EXPECT_EQ(got.d[(size_t)t], 1.0f);
        EXPECT_EQ(got.idx[(size_t)(3 * k + t)], want3[t]);
        EXPECT_EQ(got.d[(size_t)(3 * k + t)], 1.0f);
    }
}

TEST(KnnExact, KEqualsOneAndNMinusOne) {
    for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_COSINE}) {
        for (int64_t n : {2, 3, 64, 65, 200}) {
            std::vector<float> x = ut::uniform(n * 7, (uint64_t)n + 300, -1, 1);
            expect_exact(m, x, n, 7, 1, 64);
            expect_exact(m, x, n, 7, (int)n - 1, 64);
        }
        /* k = n - 1 with n a few tiles and a ragged last tile */
        std::vector<float> x = ut::uniform(130 * 3, 9, -1, 1);
        expect_exact(m, x, 130, 3, 129, 16);
    }
}

TEST(KnnExact, TileSizesGiveIdenticalResults) {
    const int64_t n = 333, dim = 9;
    const int k = 10;
    std::vector<float> x = ut::uniform(n * dim, 77, -2, 2);
    Knn ref = run_knn(kt::desc(k), x, n, dim);
    ASSERT_EQ(ref.r, UMAP_OK);
    for (int tile : {5, 7, 64, 100, 332, 333, 1000}) {
        umap_knn_desc dsc = kt::desc(k);
        dsc.tile_rows = tile;
        Knn got = run_knn(dsc, x, n, dim);
        ASSERT_EQ(got.r, UMAP_OK) << "tile " << tile << ": " << got.info.error_detail;
        EXPECT_TRUE(kt::bits_equal(got.idx, ref.idx)) << "tile " << tile;
        EXPECT_TRUE(kt::bits_equal(got.d, ref.d)) << "tile " << tile;
    }
    /* tiles of one and two rows */
    std::vector<float> y = ut::uniform(45 * 3, 78, -2, 2);
    for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_COSINE})
        for (int tile : {1, 2}) expect_exact(m, y, 45, 3, 6, tile);
}

TEST(KnnExact, DuplicatesTieByIndexAtDistanceZero) {
    const int64_t n = 600, dim = 6;
    const int k = 15;
    for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_COSINE}) {
        std::vector<float> x = ut::uniform(n * dim, 31, -1, 1);
        /* three points, each copied many times, scattered over the rows:
           far more copies than k (the candidate buffer overflows) */
        std::vector<int64_t> origin((size_t)n, -1);
        for (int64_t r = 0; r < n; r++) {
            int64_t src = r % 4 == 0 ? 5 : r % 9 == 0 ? 11 : r % 25 == 1 ? 2 : -1;
            if (src >= 0 && src != r) kt::copy_row(x, dim, src, r);
            origin[(size_t)r] = src;
        }
        umap_knn_desc dsc = kt::desc(k, m);
        dsc.tile_rows = 64;
        Knn got = run_knn(dsc, x, n, dim);
        ASSERT_EQ(got.r, UMAP_OK) << got.info.error_detail;
        kt::Ref ref = kt::reference_self(m, x, n, dim, k);
        EXPECT_TRUE(kt::check_knn(got.idx, got.d, ref, m, x.data(), n, x.data(), dim, true)) << metric_name(m);
        /* every copy of row 5: its neighbours are the k smallest other copies */
        std::vector<int32_t> copies;
        for (int64_t r = 0; r < n; r++)
            if (r == 5 || origin[(size_t)r] == 5) copies.push_back((int32_t)r);
        ASSERT_GT(copies.size(), (size_t)(2 * k + 20));
        for (int32_t r : copies) {
            std::vector<int32_t> want;
            for (int32_t c : copies)
                if (c != r && (int)want.size() < k) want.push_back(c);
            for (int t = 0; t < k; t++) {
                ASSERT_EQ(got.idx[(size_t)(r * k + t)], want[(size_t)t]) << metric_name(m) << " row " << r << " rank " << t;
                if (m == UMAP_METRIC_EUCLIDEAN) EXPECT_EQ(got.d[(size_t)(r * k + t)], 0.0f);
                else EXPECT_LE(std::fabs(got.d[(size_t)(r * k + t)]), 1e-6f);
            }
        }
    }
}

TEST(KnnExact, AllRowsIdentical) {
    const int64_t n = 150, dim = 4;
    const int k = 20;
    std::vector<float> x((size_t)(n * dim));
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < dim; j++) x[(size_t)(i * dim + j)] = 0.25f * (float)(j + 1);
    for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_COSINE}) {
        umap_knn_desc dsc = kt::desc(k, m);
        dsc.tile_rows = 32;
        Knn got = run_knn(dsc, x, n, dim);
        ASSERT_EQ(got.r, UMAP_OK) << got.info.error_detail;
        for (int64_t i = 0; i < n; i++)
            for (int t = 0; t < k; t++) {
                int32_t want = t < i ? t : t + 1;
                ASSERT_EQ(got.idx[(size_t)(i * k + t)], want) << metric_name(m) << " row " << i << " rank " << t;
                EXPECT_LE(std::fabs(got.d[(size_t)(i * k + t)]), m == UMAP_METRIC_EUCLIDEAN ? 0.0f : 1e-6f);
            }
    }
}

TEST(KnnExact, ClusteredData) {
    /* near neighbours are close compared with the norms: the screening
       bound has to keep them */
    const int64_t n = KT_SANITIZED ? 500 : 1500, dim = 30;
    std::vector<float> x = kt::clustered(n, dim, 10, 4, 8);
    for (int64_t i = 0; i < n * dim; i++) x[(size_t)i] += 100.0f; /* far from the origin */
    for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_COSINE}) expect_exact(m, x, n, dim, 15, 128);
}

TEST(KnnExact, OneOutputMayBeNull) {
    const int64_t n = 300, dim = 5;
    std::vector<float> x = ut::uniform(n * dim, 41, -1, 1);
    for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_COSINE}) {
        umap_knn_desc dsc = kt::desc(9, m);
        dsc.tile_rows = 64;
        Knn both = run_knn(dsc, x, n, dim);
        Knn only_idx = run_knn(dsc, x, n, dim, true, false);
        Knn only_d = run_knn(dsc, x, n, dim, false, true);
        ASSERT_EQ(both.r, UMAP_OK);
        ASSERT_EQ(only_idx.r, UMAP_OK) << only_idx.info.error_detail;
        ASSERT_EQ(only_d.r, UMAP_OK) << only_d.info.error_detail;
        EXPECT_TRUE(kt::bits_equal(both.idx, only_idx.idx));
        EXPECT_TRUE(kt::bits_equal(both.d, only_d.d));
    }
}

TEST(KnnExact, ZeroDescMeansDefaults) {
    const int64_t n = 100, dim = 3;
    std::vector<float> x = ut::uniform(n * dim, 43, -1, 1);
    umap_knn_desc dsc;
    std::memset(&dsc, 0, sizeof dsc);
    Knn got = run_knn(dsc, x, n, dim); /* k = 15, euclidean, auto -> exact */
    ASSERT_EQ(got.r, UMAP_OK) << got.info.error_detail;
    EXPECT_EQ(got.info.method, UMAP_KNN_EXACT);
    kt::Ref ref = kt::reference_self(UMAP_METRIC_EUCLIDEAN, x, n, dim, 15);
    EXPECT_TRUE(kt::check_knn(got.idx, got.d, ref, UMAP_METRIC_EUCLIDEAN, x.data(), n, x.data(), dim, true));
}

TEST(KnnExact, LargeOffsetsAndScales) {
    /* values far from zero and of very different sizes per column */
    const int64_t n = 400, dim = 8;
    std::vector<float> x = ut::uniform(n * dim, 47, -1, 1);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < dim; j++) x[(size_t)(i * dim + j)] = x[(size_t)(i * dim + j)] * std::pow(10.0f, (float)j - 3) + 1000.0f;
    for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_COSINE}) expect_exact(m, x, n, dim, 12, 64);
}

TEST(KnnExact, ExtremeMagnitudesAreExactOrRefused) {
    /* finite data whose distances are representable floats (up to ~1e20)
       but whose squares overflow a float: the answer must be right, or the
       call must refuse with a code and a message; never OK with a wrong
       answer. Tiny values (1e-30) must simply work. */
    const float four[4 * 2] = {1e20f, 0, 2e20f, 0, 0, 1e20f, -1e20f, -1e20f};
    struct Case {
        std::vector<float> x;
        int64_t n, dim;
        bool must_work;
    } cases[] = {{std::vector<float>(four, four + 8), 4, 2, false},
                 {ut::uniform(300 * 5, 3, -1e19, 1e19), 300, 5, false},
                 {ut::uniform(300 * 5, 3, -1e-30, 1e-30), 300, 5, true}};
    for (const Case &c : cases) {
        const int k = 2;
        for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_COSINE}) {
            char what[96];
            std::snprintf(what, sizeof what, "%s n=%lld |x[0]|=%g", metric_name(m), (long long)c.n, std::fabs(c.x[0]));
            SCOPED_TRACE(what);
            kt::Ref ref = kt::reference_self(m, c.x, c.n, c.dim, k);
            for (umap_knn_method method : {UMAP_KNN_EXACT, UMAP_KNN_NNDESCENT}) {
                Knn got = run_knn(kt::desc(k, m, method), c.x, c.n, c.dim);
                if (got.r != UMAP_OK) {
                    EXPECT_FALSE(c.must_work) << umap_result_string(got.r);
                    EXPECT_TRUE(got.r == UMAP_ERR_TOO_LARGE || got.r == UMAP_ERR_NON_FINITE ||
                                got.r == UMAP_ERR_INVALID_ARGUMENT)
                        << umap_result_string(got.r);
                    EXPECT_STRNE(got.info.error_detail, "");
                    continue;
                }
                if (method == UMAP_KNN_EXACT)
                    EXPECT_TRUE(kt::check_knn(got.idx, got.d, ref, m, c.x.data(), c.n, c.x.data(), c.dim, true)) << "exact";
                else
                    EXPECT_TRUE(kt::valid_knn(got.idx, got.d, c.n, k, m, c.x, c.dim, 1e-5, 1e-6)) << "NN-Descent";
            }
            std::vector<float> D((size_t)(c.n * c.n));
            umap_knn_desc dsc = kt::desc(0, m);
            umap_knn_info info;
            dsc.info = &info;
            umap_result r = umap_pairwise(&dsc, c.x.data(), c.n, c.dim, D.data());
            if (r != UMAP_OK) {
                EXPECT_FALSE(c.must_work) << umap_result_string(r);
                EXPECT_STRNE(info.error_detail, "");
                continue;
            }
            std::string first_bad;
            for (int64_t i = 0; i < c.n && first_bad.empty(); i++)
                for (int64_t j = 0; j < c.n && first_bad.empty(); j++) {
                    if (i == j) continue;
                    double want = kt::dist(m, &c.x[(size_t)(i * c.dim)], &c.x[(size_t)(j * c.dim)], c.dim);
                    float g = D[(size_t)(i * c.n + j)];
                    /* loose: the Gram trick, but finite and the right size */
                    if (!(std::isfinite(g) && std::fabs(g - want) <= 1e-2 * want + (m == UMAP_METRIC_COSINE ? 2e-5 : 0))) {
                        char buf[128];
                        std::snprintf(buf, sizeof buf, "%lld,%lld: %g vs %g", (long long)i, (long long)j, (double)g, want);
                        first_bad = buf;
                    }
                }
            EXPECT_TRUE(first_bad.empty()) << "pairwise " << first_bad;
        }
    }
}

/* ---- query ---------------------------------------------------------------- */

TEST(KnnQuery, MatchesReference) {
    for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_COSINE}) {
        struct Case {
            int64_t nb, nq, dim;
            int k;
        } cases[] = {{1, 5, 3, 1}, {2, 1, 1, 2}, {50, 70, 17, 50}, {130, 65, 3, 15}, {700, 300, 100, 10}, {1000, 129, 17, 1}};
        for (const Case &c : cases) {
            SCOPED_TRACE(std::string(metric_name(m)) + " nb=" + std::to_string(c.nb) + " nq=" + std::to_string(c.nq) +
                         " dim=" + std::to_string(c.dim) + " k=" + std::to_string(c.k));
            std::vector<float> base = ut::uniform(c.nb * c.dim, (uint64_t)c.nb + 500, -1, 1);
            std::vector<float> q = ut::uniform(c.nq * c.dim, (uint64_t)c.nq + 900, -1, 1);
            /* some queries are copies of base rows: found at distance 0 (not excluded) */
            for (int64_t r = 0; r < c.nq; r += 3)
                for (int64_t j = 0; j < c.dim; j++) q[(size_t)(r * c.dim + j)] = base[(size_t)((r % c.nb) * c.dim + j)];
            if (m == UMAP_METRIC_COSINE && c.nb > 2) kt::zero_row(base, c.dim, 1);
            if (m == UMAP_METRIC_COSINE && c.nq > 2) kt::zero_row(q, c.dim, 2);
            umap_knn_desc dsc = kt::desc(c.k, m);
            dsc.tile_rows = 64;
            Knn got = run_query(dsc, base, c.nb, q, c.nq, c.dim);
            ASSERT_EQ(got.r, UMAP_OK) << got.info.error_detail;
            EXPECT_EQ(got.info.method, UMAP_KNN_EXACT);
            kt::Ref ref = kt::reference(m, base.data(), c.nb, q.data(), c.nq, c.dim, c.k, false);
            EXPECT_TRUE(kt::check_knn(got.idx, got.d, ref, m, base.data(), c.nb, q.data(), c.dim, false));
        }
    }
}

TEST(KnnQuery, QueryOfTheBaseItselfFindsEachRowFirst) {
    const int64_t n = 200, dim = 6;
    const int k = 5;
    std::vector<float> x = ut::uniform(n * dim, 51, -1, 1);
    Knn got = run_query(kt::desc(k), x, n, x, n, dim);
    ASSERT_EQ(got.r, UMAP_OK) << got.info.error_detail;
    Knn self = run_knn(kt::desc(k - 1), x, n, dim);
    ASSERT_EQ(self.r, UMAP_OK);
    for (int64_t i = 0; i < n; i++) {
        EXPECT_EQ(got.idx[(size_t)(i * k)], i);
        EXPECT_EQ(got.d[(size_t)(i * k)], 0.0f);
        for (int t = 1; t < k; t++) {
            EXPECT_EQ(got.idx[(size_t)(i * k + t)], self.idx[(size_t)(i * (k - 1) + t - 1)]);
            EXPECT_EQ(got.d[(size_t)(i * k + t)], self.d[(size_t)(i * (k - 1) + t - 1)]);
        }
    }
}

/* ---- pairwise ------------------------------------------------------------- */

TEST(KnnPairwise, MatchesReference) {
    for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_COSINE}) {
        for (int64_t n : {1, 2, 65, 150}) {
            const int64_t dim = n == 150 ? 100 : 7;
            std::vector<float> x = ut::uniform(n * dim, (uint64_t)n + 11, -1, 1);
            if (n > 3) kt::copy_row(x, dim, 0, 3);
            if (n > 7 && m == UMAP_METRIC_COSINE) kt::zero_row(x, dim, 7);
            umap_knn_desc dsc = kt::desc(0, m);
            dsc.tile_rows = 64;
            umap_knn_info info;
            dsc.info = &info;
            std::vector<float> D((size_t)(n * n), -7.0f);
            ASSERT_EQ(umap_pairwise(&dsc, x.data(), n, dim, D.data()), UMAP_OK) << info.error_detail;
            for (int64_t i = 0; i < n; i++)
                for (int64_t j = 0; j < n; j++) {
                    float g = D[(size_t)(i * n + j)];
                    ASSERT_EQ(std::memcmp(&g, &D[(size_t)(j * n + i)], sizeof g), 0)
                        << metric_name(m) << " not symmetric at " << i << "," << j;
                    const float *a = &x[(size_t)(i * dim)], *b = &x[(size_t)(j * dim)];
                    if (i == j) {
                        bool zero = m == UMAP_METRIC_COSINE && i == 7 && n > 7;
                        EXPECT_EQ(g, zero ? 1.0f : 0.0f) << metric_name(m) << " diagonal " << i;
                        continue;
                    }
                    double ref = kt::dist(m, a, b, dim);
                    if (m == UMAP_METRIC_EUCLIDEAN) {
                        /* the Gram trick loses precision for close points:
                           compare squared distances relative to the norms */
                        double na = 0, nb = 0;
                        for (int64_t t = 0; t < dim; t++) {
                            na += (double)a[t] * a[t];
                            nb += (double)b[t] * b[t];
                        }
                        EXPECT_LE(std::fabs((double)g * g - ref * ref), 1e-5 * (na + nb) + 1e-12)
                            << "n=" << n << " " << i << "," << j << ": " << g << " vs " << ref;
                        EXPECT_GE(g, 0.0f);
                    } else {
                        EXPECT_NEAR(g, ref, 2e-5) << "n=" << n << " " << i << "," << j;
                    }
                }
        }
    }
}

TEST(KnnPairwise, DeterministicAcrossThreadsAndTiles) {
    const int64_t n = 300, dim = 20;
    std::vector<float> x = ut::uniform(n * dim, 61, -1, 1);
    for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_COSINE}) {
        std::vector<float> ref;
        for (int th : {1, 2, 4}) {
            umap_knn_desc dsc = kt::desc(0, m);
            dsc.n_threads = th;
            dsc.tile_rows = 64;
            std::vector<float> D((size_t)(n * n));
            ASSERT_EQ(umap_pairwise(&dsc, x.data(), n, dim, D.data()), UMAP_OK);
            if (ref.empty()) ref = D;
            else EXPECT_TRUE(kt::bits_equal(D, ref)) << metric_name(m) << " threads " << th;
        }
    }
}

/* ---- determinism ---------------------------------------------------------- */

TEST(KnnDeterminism, ExactIdenticalForOneTwoFourThreads) {
    const int64_t n = KT_SANITIZED ? 600 : 1500, dim = 17;
    std::vector<float> x = kt::clustered(n, dim, 8, 3, 71);
    for (int64_t r = 0; r < n; r += 10) kt::copy_row(x, dim, 3, r); /* ties too */
    for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_COSINE}) {
        Knn ref;
        for (int th : {1, 2, 4}) {
            umap_knn_desc dsc = kt::desc(15, m);
            dsc.n_threads = th;
            dsc.tile_rows = 64;
            Knn got = run_knn(dsc, x, n, dim);
            ASSERT_EQ(got.r, UMAP_OK) << got.info.error_detail;
            if (th == 1) {
                ref = got;
                continue;
            }
            EXPECT_TRUE(kt::bits_equal(got.idx, ref.idx)) << metric_name(m) << " threads " << th;
            EXPECT_TRUE(kt::bits_equal(got.d, ref.d)) << metric_name(m) << " threads " << th;
        }
        /* and the query path */
        std::vector<float> q = ut::uniform(100 * dim, 72, -3, 3);
        Knn qref;
        for (int th : {1, 2, 4}) {
            umap_knn_desc dsc = kt::desc(15, m);
            dsc.n_threads = th;
            dsc.tile_rows = 64;
            Knn got = run_query(dsc, x, n, q, 100, dim);
            ASSERT_EQ(got.r, UMAP_OK) << got.info.error_detail;
            if (th == 1) {
                qref = got;
                continue;
            }
            EXPECT_TRUE(kt::bits_equal(got.idx, qref.idx)) << metric_name(m) << " query, threads " << th;
            EXPECT_TRUE(kt::bits_equal(got.d, qref.d)) << metric_name(m) << " query, threads " << th;
        }
    }
}

TEST(KnnDeterminism, NNDescentIdenticalForOneTwoFourThreads) {
    const int64_t n = KT_SANITIZED ? 1200 : 2000, dim = 20; /* above 1024: real rounds */
    std::vector<float> x = kt::clustered(n, dim, 10, 5, 81);
    for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_COSINE}) {
        Knn ref;
        for (int th : {1, 2, 4}) {
            umap_knn_desc dsc = kt::desc(10, m, UMAP_KNN_NNDESCENT);
            dsc.n_threads = th;
            dsc.seed = 1234;
            Knn got = run_knn(dsc, x, n, dim);
            ASSERT_EQ(got.r, UMAP_OK) << got.info.error_detail;
            EXPECT_EQ(got.info.method, UMAP_KNN_NNDESCENT);
            if (th == 1) {
                ref = got;
                EXPECT_TRUE(kt::valid_knn(got.idx, got.d, n, 10, m, x, dim)) << metric_name(m);
                continue;
            }
            EXPECT_TRUE(kt::bits_equal(got.idx, ref.idx)) << metric_name(m) << " threads " << th;
            EXPECT_TRUE(kt::bits_equal(got.d, ref.d)) << metric_name(m) << " threads " << th;
            EXPECT_EQ(got.info.iterations, ref.info.iterations);
        }
        /* the same seed again: the same result; another seed: still valid */
        umap_knn_desc dsc = kt::desc(10, m, UMAP_KNN_NNDESCENT);
        dsc.seed = 1234;
        Knn again = run_knn(dsc, x, n, dim);
        EXPECT_TRUE(kt::bits_equal(again.idx, ref.idx));
        dsc.seed = 0; /* 0 is a valid seed */
        Knn other = run_knn(dsc, x, n, dim);
        ASSERT_EQ(other.r, UMAP_OK) << other.info.error_detail;
        EXPECT_TRUE(kt::valid_knn(other.idx, other.d, n, 10, m, x, dim));
    }
}

TEST(KnnDeterminism, CallerPoolGivesTheSameResults) {
    /* desc.pool: n_threads is ignored, the pool survives every call (also
       failing ones) and can be reused */
    const int64_t n = 1300, dim = 12;
    std::vector<float> x = kt::clustered(n, dim, 6, 3, 83);
    std::vector<float> q = ut::uniform(50 * dim, 84, -3, 3);
    umap_pool *pool = nullptr;
    ASSERT_EQ(umap_pool_create(3, nullptr, &pool), UMAP_OK);
    for (int round = 0; round < 2; round++) {
        for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_COSINE}) {
            for (umap_knn_method method : {UMAP_KNN_EXACT, UMAP_KNN_NNDESCENT}) {
                umap_knn_desc one = kt::desc(10, m, method);
                one.n_threads = 1;
                one.tile_rows = 128;
                one.seed = 3;
                umap_knn_desc withpool = one;
                withpool.n_threads = 2; /* ignored */
                withpool.pool = pool;
                Knn a = run_knn(one, x, n, dim), b = run_knn(withpool, x, n, dim);
                ASSERT_EQ(a.r, UMAP_OK) << a.info.error_detail;
                ASSERT_EQ(b.r, UMAP_OK) << b.info.error_detail;
                EXPECT_TRUE(kt::bits_equal(a.idx, b.idx)) << metric_name(m) << " method " << method;
                EXPECT_TRUE(kt::bits_equal(a.d, b.d)) << metric_name(m) << " method " << method;
            }
            umap_knn_desc one = kt::desc(7, m);
            one.n_threads = 1;
            umap_knn_desc withpool = one;
            withpool.pool = pool;
            Knn a = run_query(one, x, n, q, 50, dim), b = run_query(withpool, x, n, q, 50, dim);
            ASSERT_EQ(b.r, UMAP_OK) << b.info.error_detail;
            EXPECT_TRUE(kt::bits_equal(a.idx, b.idx));
            EXPECT_TRUE(kt::bits_equal(a.d, b.d));
            std::vector<float> Da((size_t)(200 * 200)), Db((size_t)(200 * 200));
            ASSERT_EQ(umap_pairwise(&one, x.data(), 200, dim, Da.data()), UMAP_OK);
            ASSERT_EQ(umap_pairwise(&withpool, x.data(), 200, dim, Db.data()), UMAP_OK);
            EXPECT_TRUE(kt::bits_equal(Da, Db));
        }
        /* a failing call leaves the pool alone */
        std::vector<float> bad = x;
        bad[(size_t)(5 * dim)] = NAN;
        umap_knn_desc d = kt::desc(5);
        d.pool = pool;
        Knn f = run_knn(d, bad, n, dim);
        EXPECT_EQ(f.r, UMAP_ERR_NON_FINITE);
        d.k = -1;
        Knn g = run_knn(d, x, n, dim, true, false);
        EXPECT_EQ(g.r, UMAP_ERR_INVALID_ARGUMENT);
    }
    EXPECT_EQ(umap_pool_threads(pool), 3);
    umap_pool_free(pool);
}

/* ---- NN-Descent quality ---------------------------------------------------- */

namespace {

void expect_recall(const std::vector<float> &x, int64_t n, int64_t dim, umap_metric m, double bound, const char *what) {
    const int k = 15;
    Knn exact = run_knn(kt::desc(k, m, UMAP_KNN_EXACT), x, n, dim);
    ASSERT_EQ(exact.r, UMAP_OK) << exact.info.error_detail;
    umap_knn_desc dsc = kt::desc(k, m, UMAP_KNN_NNDESCENT);
    dsc.seed = 42;
    Knn nnd = run_knn(dsc, x, n, dim);
    ASSERT_EQ(nnd.r, UMAP_OK) << nnd.info.error_detail;
    EXPECT_EQ(nnd.info.method, UMAP_KNN_NNDESCENT);
    EXPECT_GT(nnd.info.iterations, 0);
    EXPECT_GT(nnd.info.distance_evals, 0.0);
    EXPECT_TRUE(kt::valid_knn(nnd.idx, nnd.d, n, k, m, x, dim, 1e-5, 1e-5)) << what;
    double rec = kt::recall(nnd.idx, exact.d, n, k, m, x, dim);
    std::printf("      %s (%s, n=%lld, dim=%lld): NN-Descent recall@%d = %.4f, %d rounds, %.3g distance evals "
                "(exact: %.3g)\n",
                what, metric_name(m), (long long)n, (long long)dim, k, rec, nnd.info.iterations,
                nnd.info.distance_evals, exact.info.distance_evals);
    EXPECT_GE(rec, bound) << what << " " << metric_name(m);
    /* it did less work than brute force would on n^2/2 pairs */
    if (n >= 2000) {
        EXPECT_LT(nnd.info.distance_evals, 0.5 * (double)n * (double)n) << what;
    }
}

} // namespace

TEST(KnnNNDescent, RecallOnGaussianMixture) {
    const int64_t n = KT_SANITIZED ? 2000 : 5000, dim = 50;
    std::vector<float> x = kt::clustered(n, dim, 20, 8, 91);
    expect_recall(x, n, dim, UMAP_METRIC_EUCLIDEAN, 0.95, "gaussian mixture");
    expect_recall(x, n, dim, UMAP_METRIC_COSINE, 0.95, "gaussian mixture");
}

TEST(KnnNNDescent, RecallOnFashionMnist) {
    const char *path = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz";
    const int64_t n = KT_SANITIZED ? 1500 : 5000;
    int64_t dim = 0;
    std::vector<float> x = kt::read_idx_images(path, n, &dim);
    if (x.empty()) GTEST_SKIP() << path << " not readable (Debian package dataset-fashion-mnist)";
    ASSERT_EQ(dim, 784);
    /* the bound of the issue is 0.95; the header quotes recall@15 >= 0.99
       on Fashion-MNIST subsets, so hold it to that */
    expect_recall(x, n, dim, UMAP_METRIC_EUCLIDEAN, 0.99, "fashion-mnist");
    if (!KT_SANITIZED) expect_recall(x, n, dim, UMAP_METRIC_COSINE, 0.99, "fashion-mnist");
}

TEST(KnnNNDescent, EdgeCases) {
    /* k = n - 1: the only right answer is everything */
    for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_COSINE}) {
        for (int64_t n : {2, 3, 10, 40}) {
            const int64_t dim = 4;
            std::vector<float> x = ut::uniform(n * dim, (uint64_t)n + 100, -1, 1);
            int k = (int)n - 1;
            Knn got = run_knn(kt::desc(k, m, UMAP_KNN_NNDESCENT), x, n, dim);
            ASSERT_EQ(got.r, UMAP_OK) << metric_name(m) << " n=" << n << ": " << got.info.error_detail;
            kt::Ref ref = kt::reference_self(m, x, n, dim, k);
            EXPECT_TRUE(kt::check_knn(got.idx, got.d, ref, m, x.data(), n, x.data(), dim, true))
                << metric_name(m) << " n=" << n;
        }
    }
    /* small n, small k: exact answer expected in practice */
    {
        const int64_t n = 60, dim = 3;
        std::vector<float> x = ut::uniform(n * dim, 7, -1, 1);
        Knn got = run_knn(kt::desc(5, UMAP_METRIC_EUCLIDEAN, UMAP_KNN_NNDESCENT), x, n, dim);
        ASSERT_EQ(got.r, UMAP_OK) << got.info.error_detail;
        EXPECT_TRUE(kt::valid_knn(got.idx, got.d, n, 5, UMAP_METRIC_EUCLIDEAN, x, dim));
    }
    /* many duplicates and zero rows */
    for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_COSINE}) {
        const int64_t n = 1500, dim = 8;
        std::vector<float> x = kt::clustered(n, dim, 5, 2, 13);
        for (int64_t r = 0; r < n; r += 3) kt::copy_row(x, dim, 1, r);
        if (m == UMAP_METRIC_COSINE)
            for (int64_t r = 2; r < n; r += 17) kt::zero_row(x, dim, r);
        Knn got = run_knn(kt::desc(10, m, UMAP_KNN_NNDESCENT), x, n, dim);
        ASSERT_EQ(got.r, UMAP_OK) << metric_name(m) << ": " << got.info.error_detail;
        EXPECT_TRUE(kt::valid_knn(got.idx, got.d, n, 10, m, x, dim, 1e-5, 1e-5)) << metric_name(m);
        Knn exact = run_knn(kt::desc(10, m), x, n, dim);
        ASSERT_EQ(exact.r, UMAP_OK);
        double rec = kt::recall(got.idx, exact.d, n, 10, m, x, dim);
        EXPECT_GE(rec, 0.9) << metric_name(m);
    }
    /* the rounds with a large k, and with k = 1 */
    for (int k : {1, 40}) {
        const int64_t n = 1200, dim = 6;
        std::vector<float> x = kt::clustered(n, dim, 6, 3, 15);
        Knn got = run_knn(kt::desc(k, UMAP_METRIC_EUCLIDEAN, UMAP_KNN_NNDESCENT), x, n, dim);
        ASSERT_EQ(got.r, UMAP_OK) << "k " << k << ": " << got.info.error_detail;
        EXPECT_TRUE(kt::valid_knn(got.idx, got.d, n, k, UMAP_METRIC_EUCLIDEAN, x, dim)) << "k " << k;
        Knn exact = run_knn(kt::desc(k), x, n, dim);
        ASSERT_EQ(exact.r, UMAP_OK);
        EXPECT_GE(kt::recall(got.idx, exact.d, n, k, UMAP_METRIC_EUCLIDEAN, x, dim), 0.95) << "k " << k;
    }
    /* one output only */
    {
        const int64_t n = 1500, dim = 5;
        std::vector<float> x = kt::clustered(n, dim, 4, 2, 17);
        umap_knn_desc dsc = kt::desc(8, UMAP_METRIC_EUCLIDEAN, UMAP_KNN_NNDESCENT);
        dsc.seed = 9;
        Knn both = run_knn(dsc, x, n, dim);
        Knn only_idx = run_knn(dsc, x, n, dim, true, false);
        Knn only_d = run_knn(dsc, x, n, dim, false, true);
        ASSERT_EQ(both.r, UMAP_OK) << both.info.error_detail;
        ASSERT_EQ(only_idx.r, UMAP_OK) << only_idx.info.error_detail;
        ASSERT_EQ(only_d.r, UMAP_OK) << only_d.info.error_detail;
        EXPECT_TRUE(kt::bits_equal(both.idx, only_idx.idx));
        EXPECT_TRUE(kt::bits_equal(both.d, only_d.d));
    }
}

/* ---- info ------------------------------------------------------------------ */

TEST(KnnInfo, MethodResolvedAndWorkCounted) {
    const int64_t n = 300, dim = 6;
    std::vector<float> x = kt::clustered(n, dim, 4, 3, 19);
    /* auto, small n: exact */
    Knn a = run_knn(kt::desc(10, UMAP_METRIC_EUCLIDEAN, UMAP_KNN_AUTO), x, n, dim);
    ASSERT_EQ(a.r, UMAP_OK) << a.info.error_detail;
    EXPECT_EQ(a.info.method, UMAP_KNN_EXACT);
    EXPECT_GT(a.info.distance_evals, 0.0);
    EXPECT_EQ(a.info.bad_row, -1);
    EXPECT_STREQ(a.info.error_detail, "");
    /* explicit methods are reported as given (NN-Descent on few rows may
       need no rounds) */
    Knn e = run_knn(kt::desc(10, UMAP_METRIC_COSINE, UMAP_KNN_EXACT), x, n, dim);
    ASSERT_EQ(e.r, UMAP_OK);
    EXPECT_EQ(e.info.method, UMAP_KNN_EXACT);
    Knn f = run_knn(kt::desc(10, UMAP_METRIC_COSINE, UMAP_KNN_NNDESCENT), x, n, dim);
    ASSERT_EQ(f.r, UMAP_OK) << f.info.error_detail;
    EXPECT_EQ(f.info.method, UMAP_KNN_NNDESCENT);
    EXPECT_GE(f.info.iterations, 0);
    EXPECT_GT(f.info.distance_evals, 0.0);

    /* enough rows for NN-Descent to run rounds */
    const int64_t n2 = 1500;
    std::vector<float> y = kt::clustered(n2, dim, 6, 3, 20);
    /* auto at exactly the threshold: exact; above it: NN-Descent */
    umap_knn_desc dsc = kt::desc(10, UMAP_METRIC_EUCLIDEAN, UMAP_KNN_AUTO);
    dsc.exact_threshold = n2;
    Knn b = run_knn(dsc, y, n2, dim);
    ASSERT_EQ(b.r, UMAP_OK);
    EXPECT_EQ(b.info.method, UMAP_KNN_EXACT);
    EXPECT_EQ(b.info.iterations, 0);
    dsc.exact_threshold = n2 - 1;
    for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_COSINE}) {
        dsc.metric = m;
        Knn c = run_knn(dsc, y, n2, dim);
        ASSERT_EQ(c.r, UMAP_OK) << c.info.error_detail;
        EXPECT_EQ(c.info.method, UMAP_KNN_NNDESCENT) << metric_name(m);
        EXPECT_GT(c.info.iterations, 0) << metric_name(m);
        EXPECT_GT(c.info.distance_evals, 0.0) << metric_name(m);
        EXPECT_EQ(c.info.bad_row, -1);
        EXPECT_STREQ(c.info.error_detail, "");
    }
    /* max_iterations is honoured */
    umap_knn_desc g = kt::desc(10, UMAP_METRIC_EUCLIDEAN, UMAP_KNN_NNDESCENT);
    g.max_iterations = 1;
    g.delta = 1e-9f; /* would run on */
    Knn h = run_knn(g, y, n2, dim);
    ASSERT_EQ(h.r, UMAP_OK) << h.info.error_detail;
    EXPECT_EQ(h.info.iterations, 1);
    EXPECT_TRUE(kt::valid_knn(h.idx, h.d, n2, 10, UMAP_METRIC_EUCLIDEAN, y, dim));
    /* the default threshold: 300 rows are below it */
    static_assert(UMAP_KNN_EXACT_THRESHOLD >= 300, "threshold");
}

TEST(KnnInfo, ErrorDetailClearedBySuccess) {
    std::vector<float> x = ut::uniform(20 * 2, 3, -1, 1);
    umap_knn_info info;
    umap_knn_desc dsc = kt::desc(-1);
    dsc.info = &info;
    std::vector<int32_t> idx(20 * 5);
    EXPECT_EQ(umap_knn(&dsc, x.data(), 20, 2, idx.data(), nullptr), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_STRNE(info.error_detail, "");
    dsc.k = 5;
    EXPECT_EQ(umap_knn(&dsc, x.data(), 20, 2, idx.data(), nullptr), UMAP_OK);
    EXPECT_STREQ(info.error_detail, "");
    EXPECT_EQ(info.bad_row, -1);
}

TEST(KnnInfo, LoggerHearsErrors) {
    struct Sink {
        int errors = 0;
        std::string last;
        static void log(umap_log_level level, const char *msg, void *ud) {
            Sink *s = (Sink *)ud;
            if (level == UMAP_LOG_ERROR) {
                s->errors++;
                s->last = msg;
            }
        }
    } sink;
    std::vector<float> x = ut::uniform(20 * 2, 3, -1, 1);
    umap_knn_desc dsc = kt::desc(50);
    dsc.logger.log_fn = Sink::log;
    dsc.logger.user_data = &sink;
    std::vector<int32_t> idx(20 * 50);
    EXPECT_EQ(umap_knn(&dsc, x.data(), 20, 2, idx.data(), nullptr), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_GE(sink.errors, 1);
    EXPECT_FALSE(sink.last.empty());
}

/* ---- bad input -------------------------------------------------------------- */

namespace {

/* every failure: the code, and a message in info */
::testing::AssertionResult fails_with(umap_result want, umap_result got, const umap_knn_info &info) {
    if (got != want)
        return ::testing::AssertionFailure() << "got " << umap_result_string(got) << ", want "
                                             << umap_result_string(want) << " (" << info.error_detail << ")";
    if (want != UMAP_OK && info.error_detail[0] == '\0') return ::testing::AssertionFailure() << "no error_detail";
    return ::testing::AssertionSuccess();
}

} // namespace

TEST(KnnErrors, BadK) {
    const int64_t n = 10, dim = 3;
    std::vector<float> x = ut::uniform(n * dim, 1, -1, 1);
    std::vector<int32_t> idx(1000);
    std::vector<float> d(1000);
    umap_knn_info info;
    for (int k : {-1, -100, (int)n, (int)n + 1, 1 << 30}) {
        for (umap_knn_method method : {UMAP_KNN_AUTO, UMAP_KNN_EXACT, UMAP_KNN_NNDESCENT}) {
            umap_knn_desc dsc = kt::desc(k, UMAP_METRIC_EUCLIDEAN, method);
            dsc.info = &info;
            EXPECT_TRUE(fails_with(UMAP_ERR_INVALID_ARGUMENT, umap_knn(&dsc, x.data(), n, dim, idx.data(), d.data()), info))
                << "k = " << k << " method " << method;
        }
        umap_knn_desc dsc = kt::desc(k);
        dsc.info = &info;
        if (k != (int)n) { /* k = n_base is fine for queries */
            EXPECT_TRUE(fails_with(UMAP_ERR_INVALID_ARGUMENT,
                                   umap_knn_query(&dsc, x.data(), n, x.data(), 2, dim, idx.data(), d.data()), info))
                << "query k = " << k;
        }
    }
    /* one row: no k works */
    umap_knn_desc dsc = kt::desc(1);
    dsc.info = &info;
    EXPECT_TRUE(fails_with(UMAP_ERR_INVALID_ARGUMENT, umap_knn(&dsc, x.data(), 1, dim, idx.data(), d.data()), info));
    /* k = 0 in a desc is the default 15: fine with 16 rows, too many for 15 */
    std::vector<float> y = ut::uniform(16 * dim, 2, -1, 1);
    dsc.k = 0;
    EXPECT_EQ(umap_knn(&dsc, y.data(), 16, dim, idx.data(), d.data()), UMAP_OK) << info.error_detail;
    EXPECT_TRUE(fails_with(UMAP_ERR_INVALID_ARGUMENT, umap_knn(&dsc, y.data(), 15, dim, idx.data(), d.data()), info));
}

TEST(KnnErrors, BadShapesAndPointers) {
    const int64_t n = 10, dim = 3;
    std::vector<float> x = ut::uniform(n * dim, 1, -1, 1);
    std::vector<int32_t> idx(1000);
    std::vector<float> d(1000), D(1000);
    umap_knn_info info;
    umap_knn_desc dsc = kt::desc(3);
    dsc.info = &info;
    const umap_result bad = UMAP_ERR_INVALID_ARGUMENT;
    EXPECT_TRUE(fails_with(bad, umap_knn(&dsc, x.data(), n, 0, idx.data(), d.data()), info)) << "dim 0";
    EXPECT_TRUE(fails_with(bad, umap_knn(&dsc, x.data(), n, -3, idx.data(), d.data()), info)) << "dim < 0";
    EXPECT_TRUE(fails_with(bad, umap_knn(&dsc, x.data(), 0, dim, idx.data(), d.data()), info)) << "n 0";
    EXPECT_TRUE(fails_with(bad, umap_knn(&dsc, x.data(), -5, dim, idx.data(), d.data()), info)) << "n < 0";
    EXPECT_TRUE(fails_with(bad, umap_knn(&dsc, nullptr, n, dim, idx.data(), d.data()), info)) << "data NULL";
    /* both outputs NULL: nothing to write. Accept either a refusal or a no-op. */
    {
        umap_result r = umap_knn(&dsc, x.data(), n, dim, nullptr, nullptr);
        EXPECT_TRUE(r == UMAP_OK || r == bad) << umap_result_string(r);
    }
    /* query */
    EXPECT_TRUE(fails_with(bad, umap_knn_query(&dsc, nullptr, n, x.data(), 2, dim, idx.data(), d.data()), info));
    EXPECT_TRUE(fails_with(bad, umap_knn_query(&dsc, x.data(), n, nullptr, 2, dim, idx.data(), d.data()), info));
    EXPECT_TRUE(fails_with(bad, umap_knn_query(&dsc, x.data(), n, x.data(), 2, 0, idx.data(), d.data()), info));
    EXPECT_TRUE(fails_with(bad, umap_knn_query(&dsc, x.data(), 0, x.data(), 2, dim, idx.data(), d.data()), info));
    EXPECT_TRUE(fails_with(bad, umap_knn_query(&dsc, x.data(), n, x.data(), -1, dim, idx.data(), d.data()), info));
    {
        /* no queries: nothing to do, or a refusal */
        umap_result r = umap_knn_query(&dsc, x.data(), n, x.data(), 0, dim, idx.data(), d.data());
        EXPECT_TRUE(r == UMAP_OK || r == bad) << umap_result_string(r);
    }
    /* pairwise */
    EXPECT_TRUE(fails_with(bad, umap_pairwise(&dsc, x.data(), n, dim, nullptr), info)) << "out NULL";
    EXPECT_TRUE(fails_with(bad, umap_pairwise(&dsc, nullptr, n, dim, D.data()), info));
    EXPECT_TRUE(fails_with(bad, umap_pairwise(&dsc, x.data(), 0, dim, D.data()), info));
    EXPECT_TRUE(fails_with(bad, umap_pairwise(&dsc, x.data(), n, 0, D.data()), info));
    /* bad enums and a half-set allocator */
    umap_knn_desc e = dsc;
    e.metric = UMAP_METRIC_COUNT;
    EXPECT_TRUE(fails_with(bad, umap_knn(&e, x.data(), n, dim, idx.data(), d.data()), info)) << "metric";
    EXPECT_TRUE(fails_with(bad, umap_pairwise(&e, x.data(), n, dim, D.data()), info)) << "metric";
    e = dsc;
    e.method = (umap_knn_method)9;
    EXPECT_TRUE(fails_with(bad, umap_knn(&e, x.data(), n, dim, idx.data(), d.data()), info)) << "method";
    e = dsc;
    kt::FailingAlloc fa;
    e.allocator.alloc_fn = kt::FailingAlloc::alloc;
    e.allocator.user_data = &fa;
    EXPECT_TRUE(fails_with(bad, umap_knn(&e, x.data(), n, dim, idx.data(), d.data()), info)) << "alloc_fn only";
}

TEST(KnnErrors, NonFiniteNamesTheFirstBadRow) {
    const float bads[] = {NAN, INFINITY, -INFINITY};
    for (float b : bads) {
        /* small: one chunk */
        {
            const int64_t n = 60, dim = 5;
            std::vector<float> x = ut::uniform(n * dim, 3, -1, 1);
            x[(size_t)(50 * dim + 2)] = b;
            x[(size_t)(37 * dim + 4)] = b;
            for (umap_knn_method method : {UMAP_KNN_EXACT, UMAP_KNN_NNDESCENT, UMAP_KNN_AUTO}) {
                for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_COSINE}) {
                    Knn got = run_knn(kt::desc(5, m, method), x, n, dim);
                    EXPECT_TRUE(fails_with(UMAP_ERR_NON_FINITE, got.r, got.info)) << b;
                    EXPECT_EQ(got.info.bad_row, 37) << b;
                    EXPECT_NE(std::string(got.info.error_detail).find("37"), std::string::npos) << got.info.error_detail;
                }
            }
            umap_knn_info info;
            umap_knn_desc dsc = kt::desc(3);
            dsc.info = &info;
            std::vector<float> D((size_t)(n * n));
            EXPECT_TRUE(fails_with(UMAP_ERR_NON_FINITE, umap_pairwise(&dsc, x.data(), n, dim, D.data()), info));
            EXPECT_EQ(info.bad_row, 37);
            /* query: in the base, and in the queries */
            std::vector<float> clean = ut::uniform(n * dim, 4, -1, 1);
            std::vector<int32_t> idx((size_t)(n * 3));
            EXPECT_TRUE(fails_with(UMAP_ERR_NON_FINITE,
                                   umap_knn_query(&dsc, x.data(), n, clean.data(), n, dim, idx.data(), nullptr), info));
            EXPECT_EQ(info.bad_row, 37);
            EXPECT_TRUE(fails_with(UMAP_ERR_NON_FINITE,
                                   umap_knn_query(&dsc, clean.data(), n, x.data(), n, dim, idx.data(), nullptr), info));
            EXPECT_EQ(info.bad_row, 37);
            EXPECT_NE(std::string(info.error_detail).find("37"), std::string::npos) << info.error_detail;
        }
        /* large and threaded: the first bad row, not the first one found */
        {
            const int64_t n = KT_SANITIZED ? 6000 : 20000, dim = 50;
            std::vector<float> x = ut::uniform(n * dim, 5, -1, 1);
            int64_t rows[] = {n - 1, n / 2 + 3, n / 3 + 1};
            for (int64_t r : rows) x[(size_t)(r * dim + r % dim)] = b;
            for (int th : {1, 4}) {
                umap_knn_desc dsc = kt::desc(5);
                dsc.n_threads = th;
                Knn got = run_knn(dsc, x, n, dim, true, false);
                EXPECT_TRUE(fails_with(UMAP_ERR_NON_FINITE, got.r, got.info));
                EXPECT_EQ(got.info.bad_row, n / 3 + 1) << "threads " << th;
                EXPECT_NE(std::string(got.info.error_detail).find(std::to_string(n / 3 + 1)), std::string::npos)
                    << got.info.error_detail;
            }
        }
    }
    /* the largest finite float is fine */
    {
        const int64_t n = 10, dim = 2;
        std::vector<float> x = ut::uniform(n * dim, 6, -1, 1);
        x[3] = 3.0e38f;
        Knn got = run_knn(kt::desc(3), x, n, dim);
        EXPECT_NE(got.r, UMAP_ERR_NON_FINITE);
    }
}

TEST(KnnErrors, SizesThatOverflowAreRejectedBeforeAnyRead) {
    /* a tiny buffer stands for a huge matrix: the call must refuse from the
       sizes alone (ASan would catch a read past it) */
    std::vector<float> tiny(16, 0.5f);
    std::vector<int32_t> idx(16);
    std::vector<float> d(16);
    umap_knn_info info;
    umap_knn_desc dsc = kt::desc(3);
    dsc.info = &info;
    const int64_t huge[][2] = {{(int64_t)1 << 33, (int64_t)1 << 33},  /* n*dim overflows int64 */
                               {(int64_t)1 << 62, 4},                 /* n*dim*4 overflows */
                               {(int64_t)3 << 30, 1},                 /* n beyond int32 indices */
                               {4, (int64_t)1 << 61},                 /* dim alone */
                               {(int64_t)1 << 40, (int64_t)1 << 30},
                               {(int64_t)1 << 20, (int64_t)1 << 30}}; /* no overflow, but 2^50 floats */
    for (const auto &h : huge) {
        int64_t n = h[0], dim = h[1];
        umap_result r = umap_knn(&dsc, tiny.data(), n, dim, idx.data(), d.data());
        EXPECT_TRUE(r == UMAP_ERR_TOO_LARGE || r == UMAP_ERR_INVALID_ARGUMENT)
            << n << " x " << dim << ": " << umap_result_string(r);
        EXPECT_STRNE(info.error_detail, "");
        dsc.method = UMAP_KNN_NNDESCENT;
        r = umap_knn(&dsc, tiny.data(), n, dim, idx.data(), d.data());
        EXPECT_TRUE(r == UMAP_ERR_TOO_LARGE || r == UMAP_ERR_INVALID_ARGUMENT)
            << "NN-Descent " << n << " x " << dim << ": " << umap_result_string(r);
        dsc.method = UMAP_KNN_EXACT;
        r = umap_knn_query(&dsc, tiny.data(), n, tiny.data(), 2, dim, idx.data(), d.data());
        EXPECT_TRUE(r == UMAP_ERR_TOO_LARGE || r == UMAP_ERR_INVALID_ARGUMENT)
            << "query base " << n << " x " << dim << ": " << umap_result_string(r);
        if (dim <= 4) { /* a base of 4 x dim that tiny really holds, then too many queries */
            r = umap_knn_query(&dsc, tiny.data(), 4, tiny.data(), n, dim, idx.data(), d.data());
            EXPECT_TRUE(r == UMAP_ERR_TOO_LARGE || r == UMAP_ERR_INVALID_ARGUMENT)
                << "query queries " << n << " x " << dim << ": " << umap_result_string(r);
        }
        r = umap_pairwise(&dsc, tiny.data(), n, dim, d.data());
        EXPECT_TRUE(r == UMAP_ERR_TOO_LARGE || r == UMAP_ERR_INVALID_ARGUMENT)
            << "pairwise " << n << " x " << dim << ": " << umap_result_string(r);
        EXPECT_STRNE(info.error_detail, "");
    }
    /* pairwise: the n x n output itself is too large */
    umap_result r = umap_pairwise(&dsc, tiny.data(), (int64_t)1 << 32, 1, d.data());
    EXPECT_TRUE(r == UMAP_ERR_TOO_LARGE || r == UMAP_ERR_INVALID_ARGUMENT) << umap_result_string(r);
}

/* ---- allocation failure ------------------------------------------------------ */

namespace {

/* runs call(allocator) with every allocation failing from number 0, 1, ...
   until it succeeds: each run returns OK or OUT_OF_MEMORY, frees all it
   took, and the successful one gives the reference result */
template <class Call> void sweep_alloc_failures(const char *what, Call call, long dense = 1L << 30) {
    kt::FailingAlloc counting;
    std::vector<float> want;
    umap_knn_info info;
    ASSERT_EQ(call(counting.hook(), &info, &want), UMAP_OK) << what << ": " << info.error_detail;
    ASSERT_GT(counting.attempts.load(), 0) << what << ": the allocator hook is never called";
    ASSERT_EQ(counting.live.load(), 0) << what << ": leak in the successful run";
    long total = counting.attempts.load();
    bool succeeded = false;
    /* every fail_after, or (past `dense` allocations) the first and last
       `dense` and about 16 evenly spaced between */
    long stride = total > 3 * dense ? (total - 2 * dense) / 16 + 1 : 1;
    for (long fail_after = 0; fail_after <= total + 1; fail_after += (fail_after >= dense && fail_after < total - dense) ? stride : 1) {
        kt::FailingAlloc fa;
        fa.fail_after = fail_after;
        std::vector<float> got;
        umap_result r = call(fa.hook(), &info, &got);
        EXPECT_EQ(fa.live.load(), 0) << what << ": leak with fail_after " << fail_after << " ("
                                     << umap_result_string(r) << ")";
        if (r == UMAP_OK) {
            succeeded = true;
            EXPECT_TRUE(kt::bits_equal(got, want)) << what << " fail_after " << fail_after;
            break;
        }
        EXPECT_EQ(r, UMAP_ERR_OUT_OF_MEMORY) << what << " fail_after " << fail_after << ": " << info.error_detail;
        EXPECT_STRNE(info.error_detail, "") << what << " fail_after " << fail_after;
        if (::testing::Test::HasFailure()) return;
    }
    EXPECT_TRUE(succeeded) << what;
}

} // namespace

namespace {

void knn_alloc_sweep(umap_knn_method method, int64_t n, long dense) {
    const int64_t dim = 6;
    const int k = 5;
    std::vector<float> x = kt::clustered(n, dim, 3, 2, 23);
    for (int th : {1, 2}) {
        for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_COSINE}) {
            {
                for (int which = 0; which < 3; which++) { /* both outputs, indices only, distances only */
                    if (n > 1000 && (which == 1 || (th == 2 && m == UMAP_METRIC_COSINE))) continue; /* time */
                    std::string what = std::string(metric_name(m)) + (method == UMAP_KNN_EXACT ? " exact" : " nndescent") +
                                       " threads " + std::to_string(th) + " outputs " + std::to_string(which);
                    sweep_alloc_failures(what.c_str(), [&](umap_allocator a, umap_knn_info *info, std::vector<float> *out) {
                        umap_knn_desc dsc = kt::desc(k, m, method);
                        dsc.n_threads = th;
                        dsc.tile_rows = 64;
                        dsc.seed = 5;
                        dsc.allocator = a;
                        dsc.info = info;
                        std::vector<int32_t> idx((size_t)(n * k));
                        std::vector<float> d((size_t)(n * k));
                        umap_result r = umap_knn(&dsc, x.data(), n, dim, which != 2 ? idx.data() : nullptr,
                                                 which != 1 ? d.data() : nullptr);
                        out->clear();
                        for (int32_t v : idx) out->push_back((float)v);
                        out->insert(out->end(), d.begin(), d.end());
                        return r;
                    }, dense);
                    if (::testing::Test::HasFailure()) return;
                }
            }
        }
    }
}

} // namespace

TEST(KnnAllocFailure, EveryAllocationCanFailExact) { knn_alloc_sweep(UMAP_KNN_EXACT, 150, 1L << 30); }
/* up to 1024 rows NN-Descent compares all pairs; above, it builds trees and
   runs rounds (hundreds of allocations: sampled) */
TEST(KnnAllocFailure, EveryAllocationCanFailNNDescentAllPairs) { knn_alloc_sweep(UMAP_KNN_NNDESCENT, 150, 1L << 30); }
TEST(KnnAllocFailure, EveryAllocationCanFailNNDescentRounds) {
    knn_alloc_sweep(UMAP_KNN_NNDESCENT, 1100, KT_SANITIZED ? 12 : 24);
}

TEST(KnnAllocFailure, QueryAndPairwise) {
    const int64_t n = 90, nq = 70, dim = 5;
    const int k = 4;
    std::vector<float> x = ut::uniform(n * dim, 29, -1, 1), q = ut::uniform(nq * dim, 30, -1, 1);
    for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_COSINE}) {
        sweep_alloc_failures("query", [&](umap_allocator a, umap_knn_info *info, std::vector<float> *out) {
            umap_knn_desc dsc = kt::desc(k, m);
            dsc.tile_rows = 32;
            dsc.n_threads = 2;
            dsc.allocator = a;
            dsc.info = info;
            std::vector<int32_t> idx((size_t)(nq * k));
            std::vector<float> d((size_t)(nq * k));
            umap_result r = umap_knn_query(&dsc, x.data(), n, q.data(), nq, dim, idx.data(), d.data());
            out->assign(d.begin(), d.end());
            for (int32_t v : idx) out->push_back((float)v);
            return r;
        });
        sweep_alloc_failures("pairwise", [&](umap_allocator a, umap_knn_info *info, std::vector<float> *out) {
            umap_knn_desc dsc = kt::desc(0, m);
            dsc.tile_rows = 32;
            dsc.n_threads = 2;
            dsc.allocator = a;
            dsc.info = info;
            out->assign((size_t)(n * n), 0.0f);
            return umap_pairwise(&dsc, x.data(), n, dim, out->data());
        });
    }
}

/* ---- packed layout -------------------------------------------------------------- */

TEST(KnnPack, RoundTrip) {
    const int64_t n = 200, dim = 4;
    const int k = 7;
    std::vector<float> x = ut::uniform(n * dim, 37, -1, 1);
    Knn got = run_knn(kt::desc(k), x, n, dim);
    ASSERT_EQ(got.r, UMAP_OK);
    std::vector<float> packed((size_t)(n * 2 * k), -1.0f);
    ASSERT_EQ(umap_knn_pack(got.idx.data(), got.d.data(), n, k, packed.data()), UMAP_OK);
    for (int64_t i = 0; i < n; i++)
        for (int t = 0; t < k; t++) {
            EXPECT_EQ(packed[(size_t)(i * 2 * k + t)], (float)got.idx[(size_t)(i * k + t)]);
            EXPECT_EQ(packed[(size_t)(i * 2 * k + k + t)], got.d[(size_t)(i * k + t)]);
        }
    std::vector<int32_t> idx2((size_t)(n * k), -1);
    std::vector<float> d2((size_t)(n * k), -1.0f);
    ASSERT_EQ(umap_knn_unpack(packed.data(), n, k, idx2.data(), d2.data()), UMAP_OK);
    EXPECT_TRUE(kt::bits_equal(idx2, got.idx));
    EXPECT_TRUE(kt::bits_equal(d2, got.d));
    /* either output of unpack may be NULL */
    std::vector<int32_t> idx3((size_t)(n * k), -1);
    std::vector<float> d3((size_t)(n * k), -1.0f);
    EXPECT_EQ(umap_knn_unpack(packed.data(), n, k, idx3.data(), nullptr), UMAP_OK);
    EXPECT_EQ(umap_knn_unpack(packed.data(), n, k, nullptr, d3.data()), UMAP_OK);
    EXPECT_TRUE(kt::bits_equal(idx3, got.idx));
    EXPECT_TRUE(kt::bits_equal(d3, got.d));
    /* large indices (below 2^24) survive the float column */
    std::vector<int32_t> big = {0, 1, (1 << 24) - 1, (1 << 24) - 2, 12345678, 9999999};
    std::vector<float> bd = {0.f, 1.5f, 2.f, 3.25f, 1e-30f, 7.f};
    std::vector<float> bp(12);
    ASSERT_EQ(umap_knn_pack(big.data(), bd.data(), 2, 3, bp.data()), UMAP_OK);
    std::vector<int32_t> big2(6);
    std::vector<float> bd2(6);
    ASSERT_EQ(umap_knn_unpack(bp.data(), 2, 3, big2.data(), bd2.data()), UMAP_OK);
    EXPECT_TRUE(kt::bits_equal(big2, big));
    EXPECT_TRUE(kt::bits_equal(bd2, bd));
}

TEST(KnnPack, BadArguments) {
    std::vector<int32_t> idx = {0, 1, 2, 3};
    std::vector<float> d = {0.f, 1.f, 2.f, 3.f}, packed(8, -1.0f);
    const umap_result bad = UMAP_ERR_INVALID_ARGUMENT;
    EXPECT_EQ(umap_knn_pack(nullptr, d.data(), 2, 2, packed.data()), bad);
    EXPECT_EQ(umap_knn_pack(idx.data(), nullptr, 2, 2, packed.data()), bad);
    EXPECT_EQ(umap_knn_pack(idx.data(), d.data(), 2, 2, nullptr), bad);
    EXPECT_EQ(umap_knn_pack(idx.data(), d.data(), -1, 2, packed.data()), bad);
    EXPECT_EQ(umap_knn_pack(idx.data(), d.data(), 2, 0, packed.data()), bad);
    EXPECT_EQ(umap_knn_pack(idx.data(), d.data(), 2, -2, packed.data()), bad);
    EXPECT_EQ(umap_knn_pack(idx.data(), d.data(), (int64_t)1 << 62, 2, packed.data()), bad);
    /* indices a float cannot hold exactly, or negative */
    std::vector<int32_t> neg = {0, -1, 2, 3}, huge = {0, (1 << 24) + 1, 2, 3};
    umap_result r = umap_knn_pack(neg.data(), d.data(), 2, 2, packed.data());
    EXPECT_TRUE(r == UMAP_ERR_TOO_LARGE || r == bad) << umap_result_string(r);
    r = umap_knn_pack(huge.data(), d.data(), 2, 2, packed.data());
    EXPECT_TRUE(r == UMAP_ERR_TOO_LARGE || r == bad) << umap_result_string(r);
    /* unpack */
    ASSERT_EQ(umap_knn_pack(idx.data(), d.data(), 2, 2, packed.data()), UMAP_OK);
    std::vector<int32_t> oi(4);
    std::vector<float> od(4);
    EXPECT_EQ(umap_knn_unpack(nullptr, 2, 2, oi.data(), od.data()), bad);
    EXPECT_EQ(umap_knn_unpack(packed.data(), -1, 2, oi.data(), od.data()), bad);
    EXPECT_EQ(umap_knn_unpack(packed.data(), 2, 0, oi.data(), od.data()), bad);
    EXPECT_EQ(umap_knn_unpack(packed.data(), (int64_t)1 << 62, 2, oi.data(), od.data()), bad);
    for (float v : {-1.0f, 0.5f, NAN, INFINITY, 3.0e9f}) {
        std::vector<float> p = packed;
        p[5] = v; /* row 1, index column 1 */
        r = umap_knn_unpack(p.data(), 2, 2, oi.data(), od.data());
        EXPECT_TRUE(r == bad || r == UMAP_ERR_TOO_LARGE) << "index " << v << ": " << umap_result_string(r);
    }
}

/* ---- the graph op against umap_knn, with ties ------------------------------------ */

TEST(KnnOpTies, ForwardBreaksTiesLikeUmapKnn) {
    /* duplicates and zero rows: the op and umap_knn agree on the tie order */
    const int64_t n = 40, dim = 3;
    const int k = 6;
    std::vector<float> x = ut::uniform(n * dim, 39, -1, 1);
    for (int64_t r = 0; r < n; r += 4) kt::copy_row(x, dim, 2, r);
    for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_COSINE}) {
        std::vector<float> xm = x;
        if (m == UMAP_METRIC_COSINE) {
            kt::zero_row(xm, dim, 5);
            kt::zero_row(xm, dim, 9);
        }
        ut::Graph g;
        umap_tensor *xt = umap_input(g, "x", umap_shape2(n, dim));
        umap_tensor *packed =
            m == UMAP_METRIC_EUCLIDEAN ? umap_knn_graph(g, umap_pairwise_euclidean(g, xt), k) : umap_knn_cosine(g, xt, k);
        ASSERT_NE(packed, nullptr) << g.detail();
        umap_program *p = nullptr;
        ASSERT_EQ(umap_compile(g, 1, &packed, nullptr, &p), UMAP_OK) << g.detail();
        ut::Program owner;
        owner.p = p;
        ASSERT_EQ(umap_program_bind(p, "x", xm.data(), n * dim), UMAP_OK);
        ASSERT_EQ(umap_program_run(p), UMAP_OK) << owner.detail();
        std::vector<float> got = ut::output(p, 0);
        ASSERT_EQ((int64_t)got.size(), n * 2 * k);
        std::vector<int32_t> idx((size_t)(n * k));
        std::vector<float> dd((size_t)(n * k));
        ASSERT_EQ(umap_knn_unpack(got.data(), n, k, idx.data(), dd.data()), UMAP_OK);
        Knn ref = run_knn(kt::desc(k, m), xm, n, dim);
        ASSERT_EQ(ref.r, UMAP_OK);
        /* the op ranks float distances from the Gram trick: exact ties
           (copies, zero rows) must come out in index order like umap_knn */
        for (int64_t i = 0; i < n; i++) {
            bool is_copy = i % 4 == 0 || i == 2;
            bool is_zero = m == UMAP_METRIC_COSINE && (i == 5 || i == 9);
            if (!is_copy && !is_zero) continue;
            for (int t = 0; t < k; t++)
                EXPECT_EQ(idx[(size_t)(i * k + t)], ref.idx[(size_t)(i * k + t)])
                    << metric_name(m) << " row " << i << " rank " << t;
        }
    }
}

/* ---- search along a k-NN graph (umap_knn_query_graph) ------------------------------ */

namespace {

/* the base's exact self k-NN graph, and queries from the same clusters */
struct GraphCase {
    int64_t n = 1200, nq = 240, dim = 24;
    int gk = 10;
    std::vector<float> base, queries;
    std::vector<int32_t> graph;
    GraphCase(umap_metric m, uint64_t seed, int graph_k = 10) : gk(graph_k) {
        if (m == UMAP_METRIC_HAVERSINE) dim = 2; /* latitude, longitude */
        std::vector<float> all = kt::for_metric(m, kt::clustered(n + nq, dim, 6, 4, seed));
        if (kt::binary_metric(m))
            for (float &v : all) v = v > 0.3f ? 1.0f : 0.0f;
        base.assign(all.begin(), all.begin() + n * dim);
        queries.assign(all.begin() + n * dim, all.end());
        graph.resize((size_t)(n * gk));
        umap_knn_desc d = kt::desc(gk, m);
        EXPECT_EQ(umap_knn(&d, base.data(), n, dim, graph.data(), nullptr), UMAP_OK);
    }
};

struct GraphResult {
    umap_result r;
    std::vector<int32_t> idx;
    std::vector<float> d;
    umap_knn_info info;
};

GraphResult graph_query(const GraphCase &g, umap_knn_desc dsc, const int32_t *seeds = nullptr, int n_seeds = 0) {
    GraphResult out;
    dsc.info = &out.info;
    out.idx.assign((size_t)(g.nq * dsc.k), -7);
    out.d.assign((size_t)(g.nq * dsc.k), -7.0f);
    out.r = umap_knn_query_graph(&dsc, g.base.data(), g.n, g.graph.data(), g.gk, g.queries.data(), g.nq, g.dim, seeds,
                                 n_seeds, out.idx.data(), out.d.data());
    return out;
}

/* fraction of the listed rows within the exact k-th distance; every listed
   distance must be the row's true distance */
double graph_recall(const GraphCase &g, umap_metric m, const GraphResult &got, int k, double p = 2.0) {
    kt::Ref ref = kt::reference(m, g.base.data(), g.n, g.queries.data(), g.nq, g.dim, k, false, p);
    int64_t hit = 0;
    for (int64_t i = 0; i < g.nq; i++)
        for (int t = 0; t < k; t++) {
            int32_t j = got.idx[(size_t)(i * k + t)];
            EXPECT_TRUE(j >= 0 && j < g.n) << "query " << i << " lists " << j;
            if (j < 0 || j >= g.n) return 0.0;
            double truth = kt::dist(m, &g.queries[(size_t)(i * g.dim)], &g.base[(size_t)(j * g.dim)], g.dim, p);
            EXPECT_NEAR(got.d[(size_t)(i * k + t)], truth, 1e-6 + 1e-5 * truth) << "query " << i << " rank " << t;
            if (t) {
                EXPECT_LE(got.d[(size_t)(i * k + t - 1)], got.d[(size_t)(i * k + t)]) << "query " << i;
            }
            hit += truth <= ref.d[(size_t)(i * k + k - 1)] * (1 + 1e-6) + 1e-7;
        }
    return (double)hit / (double)(g.nq * k);
}

} // namespace

TEST(KnnGraph, EveryMetricFindsTheNeighboursForAFractionOfTheWork) {
    for (int mi = 0; mi < (int)UMAP_METRIC_COUNT; mi++) {
        umap_metric m = (umap_metric)mi;
        if (m == UMAP_METRIC_PRECOMPUTED) continue; /* no rows to walk: refused (test_precomputed.cc) */
        if (m == UMAP_METRIC_SEUCLIDEAN) continue;  /* its V comes from the base: Metrics.Seuclidean* walk it */
        GraphCase g(m, 71);
        umap_knn_desc dsc = kt::desc(8, m);
        dsc.metric_p = m == UMAP_METRIC_MINKOWSKI ? 3.0f : 0.0f;
        dsc.search_width = 48;
        GraphResult got = graph_query(g, dsc);
        ASSERT_EQ(got.r, UMAP_OK) << umap_metric_name(m) << ": " << got.info.error_detail;
        EXPECT_EQ(got.info.method, UMAP_KNN_GRAPH);
        /* the six clusters make six pieces of the graph: each walk starts in
           each. Measured: 1.000 for every metric but hamming and jaccard
           (0.89 and 0.88: on 0/1 rows most distances tie, and the walk's
           frontier is flat) */
        bool binary = kt::binary_metric(m);
        EXPECT_GE(graph_recall(g, m, got, 8, m == UMAP_METRIC_MINKOWSKI ? 3.0 : 2.0), binary ? 0.85 : 0.99)
            << umap_metric_name(m);
        /* the walk measures a fraction of the rows an exact query would */
        EXPECT_LT(got.info.distance_evals, 0.6 * (double)(g.n * g.nq)) << umap_metric_name(m);
    }
}

TEST(KnnGraph, WiderWalksComeCloser) {
    GraphCase g(UMAP_METRIC_EUCLIDEAN, 72);
    umap_knn_desc dsc = kt::desc(10);
    double last_recall = 0, last_evals = 0;
    for (int width : {10, 20, 80}) {
        dsc.search_width = width;
        GraphResult got = graph_query(g, dsc);
        ASSERT_EQ(got.r, UMAP_OK) << got.info.error_detail;
        double rc = graph_recall(g, UMAP_METRIC_EUCLIDEAN, got, 10);
        EXPECT_GE(rc, last_recall) << width;
        EXPECT_GT(got.info.distance_evals, last_evals) << width;
        last_recall = rc;
        last_evals = got.info.distance_evals;
    }
    EXPECT_GE(last_recall, 0.999);
}

TEST(KnnGraph, SameBitsForAnyThreadCountAndPool) {
    GraphCase g(UMAP_METRIC_COSINE, 73);
    umap_knn_desc dsc = kt::desc(7, UMAP_METRIC_COSINE);
    dsc.n_threads = 1;
    GraphResult one = graph_query(g, dsc);
    ASSERT_EQ(one.r, UMAP_OK) << one.info.error_detail;
    for (int threads : {2, 3, 0}) {
        dsc.n_threads = threads;
        GraphResult got = graph_query(g, dsc);
        ASSERT_EQ(got.r, UMAP_OK);
        EXPECT_TRUE(kt::bits_equal(got.idx, one.idx)) << threads;
        EXPECT_TRUE(kt::bits_equal(got.d, one.d)) << threads;
        EXPECT_EQ(got.info.distance_evals, one.info.distance_evals) << threads;
    }
    umap_pool *pool = nullptr;
    ASSERT_EQ(umap_pool_create(2, nullptr, &pool), UMAP_OK);
    dsc.pool = pool;
    GraphResult pooled = graph_query(g, dsc);
    umap_pool_free(pool);
    ASSERT_EQ(pooled.r, UMAP_OK);
    EXPECT_TRUE(kt::bits_equal(pooled.idx, one.idx));
}

TEST(KnnGraph, SeedsStartTheWalkAndUnseededQueriesSearchEveryRow) {
    GraphCase g(UMAP_METRIC_EUCLIDEAN, 74);
    const int k = 6;
    kt::Ref ref = kt::reference(UMAP_METRIC_EUCLIDEAN, g.base.data(), g.n, g.queries.data(), g.nq, g.dim, k, false);
    umap_knn_desc dsc = kt::desc(k);
    /* the true nearest row as the only seed: the walk starts at the answer */
    std::vector<int32_t> seeds((size_t)g.nq);
    for (int64_t i = 0; i < g.nq; i++) seeds[(size_t)i] = ref.idx[(size_t)(i * k)];
    GraphResult got = graph_query(g, dsc, seeds.data(), 1);
    ASSERT_EQ(got.r, UMAP_OK) << got.info.error_detail;
    EXPECT_GE(graph_recall(g, UMAP_METRIC_EUCLIDEAN, got, k), 0.99);
    /* a graph in one piece (a chain) and no seed at all (-1): nothing is
       reached, every row is measured, and the answer is the exact one */
    GraphCase chain(UMAP_METRIC_EUCLIDEAN, 74);
    chain.gk = 1;
    chain.graph.assign((size_t)chain.n, 0);
    for (int64_t i = 0; i < chain.n; i++) chain.graph[(size_t)i] = (int32_t)(i + 1 < chain.n ? i + 1 : i - 1);
    std::vector<int32_t> none((size_t)(2 * g.nq), -1);
    got = graph_query(chain, dsc, none.data(), 2);
    ASSERT_EQ(got.r, UMAP_OK) << got.info.error_detail;
    EXPECT_TRUE(kt::check_knn(got.idx, got.d, ref, UMAP_METRIC_EUCLIDEAN, g.base.data(), g.n, g.queries.data(), g.dim,
                              false));
    EXPECT_GE(got.info.distance_evals, (double)(g.n * g.nq));
}

TEST(KnnGraph, BadArgumentsAreNamed) {
    GraphCase g(UMAP_METRIC_EUCLIDEAN, 75);
    umap_knn_desc dsc = kt::desc(5);
    auto expect_error = [&](const GraphCase &c, umap_knn_desc d, const int32_t *seeds, int n_seeds, umap_result want,
                            const char *words) {
        GraphResult got = graph_query(c, d, seeds, n_seeds);
        EXPECT_EQ(got.r, want) << words << ": " << got.info.error_detail;
        EXPECT_NE(std::string(got.info.error_detail).find(words), std::string::npos) << got.info.error_detail;
    };
    GraphCase bad = g;
    bad.graph[(size_t)(17 * bad.gk + 3)] = (int32_t)bad.n;
    expect_error(bad, dsc, nullptr, 0, UMAP_ERR_INVALID_ARGUMENT, "row 17");
    bad = g;
    bad.graph[(size_t)(9 * bad.gk)] = 9; /* itself */
    expect_error(bad, dsc, nullptr, 0, UMAP_ERR_INVALID_ARGUMENT, "row 9");
    bad = g;
    bad.gk = 0;
    expect_error(bad, dsc, nullptr, 0, UMAP_ERR_INVALID_ARGUMENT, "graph_k");
    std::vector<int32_t> seeds((size_t)g.nq, 0);
    seeds[33] = -2;
    expect_error(g, dsc, seeds.data(), 1, UMAP_ERR_INVALID_ARGUMENT, "query 33");
    expect_error(g, dsc, seeds.data(), 0, UMAP_ERR_INVALID_ARGUMENT, "n_seeds");
    umap_knn_desc big = kt::desc((int)g.n + 1);
    expect_error(g, big, nullptr, 0, UMAP_ERR_INVALID_ARGUMENT, "k = ");
    bad = g;
    bad.queries[(size_t)(12 * bad.dim + 1)] = NAN;
    expect_error(bad, dsc, nullptr, 0, UMAP_ERR_NON_FINITE, "row 12");
    std::vector<int32_t> idx((size_t)(g.nq * 5));
    umap_knn_info info;
    dsc.info = &info;
    EXPECT_EQ(umap_knn_query_graph(&dsc, g.base.data(), g.n, nullptr, g.gk, g.queries.data(), g.nq, g.dim, nullptr, 0,
                                   idx.data(), nullptr),
              UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("NULL"), std::string::npos) << info.error_detail;
    /* desc.method cannot ask for the graph: it names a search, not a kind of result */
    umap_knn_desc as_method = kt::desc(5, UMAP_METRIC_EUCLIDEAN, UMAP_KNN_GRAPH);
    EXPECT_EQ(umap_knn(&as_method, g.base.data(), g.n, g.dim, idx.data(), nullptr), UMAP_ERR_INVALID_ARGUMENT);
}

TEST(KnnAllocFailure, GraphQuery) {
    GraphCase g(UMAP_METRIC_CORRELATION, 76);
    g.nq = 150; /* three tasks of 64 */
    sweep_alloc_failures("graph query", [&](umap_allocator a, umap_knn_info *info, std::vector<float> *out) {
        umap_knn_desc dsc = kt::desc(5, UMAP_METRIC_CORRELATION);
        dsc.n_threads = 2;
        dsc.allocator = a;
        dsc.info = info;
        std::vector<int32_t> idx((size_t)(g.nq * 5));
        std::vector<float> d((size_t)(g.nq * 5));
        umap_result r = umap_knn_query_graph(&dsc, g.base.data(), g.n, g.graph.data(), g.gk, g.queries.data(), g.nq,
                                             g.dim, nullptr, 0, idx.data(), d.data());
        out->assign(d.begin(), d.end());
        for (int32_t v : idx) out->push_back((float)v);
        return r;
    });
}

/* the index built once gives the one-call search's bits, for every query set,
   from several threads at once; queries far beyond the base's scale are
   searched at theirs */
TEST(KnnGraphIndex, SearchesGiveTheOneCallBitsFromAnyThread) {
    for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_COSINE, UMAP_METRIC_MANHATTAN}) {
        GraphCase g(m, 81);
        umap_knn_desc dsc = kt::desc(7, m);
        dsc.n_threads = 2;
        umap_knn_graph_index *index = nullptr;
        ASSERT_EQ(umap_knn_graph_index_build(&dsc, g.base.data(), g.n, g.dim, g.graph.data(), g.gk, &index), UMAP_OK);
        GraphResult want = graph_query(g, dsc);
        ASSERT_EQ(want.r, UMAP_OK) << want.info.error_detail;
        auto search = [&](const std::vector<float> &queries, int threads, GraphResult *out) {
            umap_knn_desc s = dsc;
            s.n_threads = threads;
            s.info = &out->info;
            out->idx.assign((size_t)(g.nq * s.k), -7);
            out->d.assign((size_t)(g.nq * s.k), -7.0f);
            out->r = umap_knn_graph_index_search(&s, index, queries.data(), g.nq, nullptr, 0, out->idx.data(),
                                                 out->d.data());
        };
        GraphResult a, b, c;
        std::thread t1([&] { search(g.queries, 1, &a); });
        std::thread t2([&] { search(g.queries, 2, &b); });
        t1.join();
        t2.join();
        for (const GraphResult *got : {&a, &b}) {
            ASSERT_EQ(got->r, UMAP_OK) << got->info.error_detail;
            EXPECT_TRUE(kt::bits_equal(got->idx, want.idx)) << umap_metric_name(m);
            EXPECT_TRUE(kt::bits_equal(got->d, want.d)) << umap_metric_name(m);
            EXPECT_EQ(got->info.distance_evals, want.info.distance_evals);
        }
        /* euclidean queries 2^60 times the base's scale: their squares would
           overflow at the index's scale, so the search rescales */
        if (m == UMAP_METRIC_EUCLIDEAN) {
            GraphCase far = g;
            for (float &v : far.queries) v = ldexpf(v, 60);
            GraphResult one = graph_query(far, dsc);
            ASSERT_EQ(one.r, UMAP_OK) << one.info.error_detail;
            search(far.queries, 2, &c);
            ASSERT_EQ(c.r, UMAP_OK) << c.info.error_detail;
            EXPECT_TRUE(kt::bits_equal(c.idx, one.idx));
            EXPECT_TRUE(kt::bits_equal(c.d, one.d));
            for (float v : c.d) EXPECT_TRUE(std::isfinite(v) && v > 1e17f) << v;
        }
        umap_knn_graph_index_free(index);
    }
}

extern "C" int umap_test_graph_layout_search(umap_metric metric, const float *base, int64_t n, int64_t dim,
                                             const int32_t *graph, int graph_k, const int32_t *layout, int prune,
                                             int n_threads, const float *queries, int64_t n_queries, int k,
                                             int32_t *indices, float *distances, double *evals);

/* the internal index build's layout and pruning (umap.h's model index) */
GraphResult graph_layout_query(const GraphCase &g, umap_metric m, int k, const std::vector<int32_t> *layout, int prune,
                               int n_threads, double *evals = nullptr) {
    GraphResult out;
    out.idx.assign((size_t)(g.nq * k), -7);
    out.d.assign((size_t)(g.nq * k), -7.0f);
    out.r = (umap_result)umap_test_graph_layout_search(m, g.base.data(), g.n, g.dim, g.graph.data(), g.gk,
                                                       layout ? layout->data() : nullptr, prune, n_threads,
                                                       g.queries.data(), g.nq, k, out.idx.data(), out.d.data(), evals);
    return out;
}

/* Where the index keeps its rows, and the threads that prune its lists,
   never change a bit of what a search returns, pruned or not */
TEST(KnnGraphIndex, RowLayoutNeverChangesTheResult) {
    GraphCase g(UMAP_METRIC_EUCLIDEAN, 91);
    const int k = 7;
    std::vector<int32_t> identity((size_t)g.n), reversed((size_t)g.n), shuffled((size_t)g.n);
    for (int64_t i = 0; i < g.n; i++) identity[(size_t)i] = (int32_t)i, reversed[(size_t)i] = (int32_t)(g.n - 1 - i);
    shuffled = identity;
    for (int64_t i = g.n - 1; i > 0; i--) std::swap(shuffled[(size_t)i], shuffled[(size_t)(ut::unit(93, (uint64_t)i) * (double)(i + 1))]);
    const std::vector<int32_t> *layouts[] = {nullptr, &identity, &reversed, &shuffled};
    for (int prune = 0; prune < 2; prune++) {
        umap_knn_desc dsc = kt::desc(k, UMAP_METRIC_EUCLIDEAN);
        dsc.n_threads = 1;
        GraphResult want = prune ? graph_layout_query(g, UMAP_METRIC_EUCLIDEAN, k, nullptr, 1, 1) : graph_query(g, dsc);
        ASSERT_EQ(want.r, UMAP_OK) << want.info.error_detail;
        for (const std::vector<int32_t> *layout : layouts)
            for (int threads : {1, 3}) {
                GraphResult got = graph_layout_query(g, UMAP_METRIC_EUCLIDEAN, k, layout, prune, threads);
                ASSERT_EQ(got.r, UMAP_OK);
                const char *which = layout == &shuffled ? "shuffled" : layout ? "identity or reversed" : "own order";
                EXPECT_TRUE(kt::bits_equal(got.idx, want.idx)) << which << ", prune " << prune << ", threads " << threads;
                EXPECT_TRUE(kt::bits_equal(got.d, want.d)) << which << ", prune " << prune << ", threads " << threads;
            }
    }
}

/* Pruned lists (the relative neighbourhood rule) find the neighbours the
   whole undirected graph finds, measuring fewer rows */
TEST(KnnGraphIndex, PrunedListsFindTheNeighboursMeasuringFewerRows) {
    for (umap_metric m : {UMAP_METRIC_EUCLIDEAN, UMAP_METRIC_COSINE, UMAP_METRIC_MANHATTAN}) {
        GraphCase g(m, 95, 15); /* as a model keeps it with the default n_neighbors */
        const int k = 15;
        double evals_all = 0, evals_pruned = 0;
        GraphResult all = graph_layout_query(g, m, k, nullptr, 0, 2, &evals_all);
        GraphResult pruned = graph_layout_query(g, m, k, nullptr, 1, 2, &evals_pruned);
        ASSERT_EQ(all.r, UMAP_OK);
        ASSERT_EQ(pruned.r, UMAP_OK);
        double recall_all = graph_recall(g, m, all, k), recall_pruned = graph_recall(g, m, pruned, k);
        EXPECT_GE(recall_pruned, 0.98) << umap_metric_name(m);
        EXPECT_GE(recall_pruned, recall_all - 0.01) << umap_metric_name(m);
        EXPECT_LT(evals_pruned, 0.8 * evals_all) << umap_metric_name(m); /* measured: 0.77 */
    }
}

TEST(KnnGraphIndex, BadArgumentsAreNamed) {
    GraphCase g(UMAP_METRIC_EUCLIDEAN, 82);
    umap_knn_desc dsc = kt::desc(5);
    umap_knn_info info;
    dsc.info = &info;
    umap_knn_graph_index *index = nullptr;
    GraphCase bad = g;
    bad.graph[(size_t)(21 * bad.gk + 2)] = -3;
    EXPECT_EQ(umap_knn_graph_index_build(&dsc, bad.base.data(), bad.n, bad.dim, bad.graph.data(), bad.gk, &index),
              UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(index, nullptr);
    EXPECT_NE(std::string(info.error_detail).find("row 21"), std::string::npos) << info.error_detail;
    bad = g;
    bad.base[(size_t)(5 * bad.dim)] = INFINITY;
    EXPECT_EQ(umap_knn_graph_index_build(&dsc, bad.base.data(), bad.n, bad.dim, bad.graph.data(), bad.gk, &index),
              UMAP_ERR_NON_FINITE);
    EXPECT_NE(std::string(info.error_detail).find("row 5"), std::string::npos) << info.error_detail;
    EXPECT_EQ(umap_knn_graph_index_build(&dsc, g.base.data(), g.n, g.dim, g.graph.data(), g.gk, nullptr),
              UMAP_ERR_INVALID_ARGUMENT);
    ASSERT_EQ(umap_knn_graph_index_build(&dsc, g.base.data(), g.n, g.dim, g.graph.data(), g.gk, &index), UMAP_OK);
    std::vector<int32_t> idx((size_t)(g.nq * 5));
    umap_knn_desc cos = kt::desc(5, UMAP_METRIC_COSINE);
    cos.info = &info;
    EXPECT_EQ(umap_knn_graph_index_search(&cos, index, g.queries.data(), g.nq, nullptr, 0, idx.data(), nullptr),
              UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("metric"), std::string::npos) << info.error_detail;
    umap_knn_desc big = kt::desc((int)g.n + 1);
    big.info = &info;
    EXPECT_EQ(umap_knn_graph_index_search(&big, index, g.queries.data(), g.nq, nullptr, 0, idx.data(), nullptr),
              UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_knn_graph_index_search(&dsc, nullptr, g.queries.data(), g.nq, nullptr, 0, idx.data(), nullptr),
              UMAP_ERR_INVALID_ARGUMENT);
    std::vector<float> q = g.queries;
    q[(size_t)(3 * g.dim + 4)] = NAN;
    EXPECT_EQ(umap_knn_graph_index_search(&dsc, index, q.data(), g.nq, nullptr, 0, idx.data(), nullptr),
              UMAP_ERR_NON_FINITE);
    EXPECT_NE(std::string(info.error_detail).find("row 3"), std::string::npos) << info.error_detail;
    umap_knn_graph_index_free(index);
    umap_knn_graph_index_free(nullptr);
}

TEST(KnnAllocFailure, GraphIndex) {
    GraphCase g(UMAP_METRIC_CORRELATION, 83);
    g.nq = 150;
    sweep_alloc_failures("graph index", [&](umap_allocator a, umap_knn_info *info, std::vector<float> *out) {
        umap_knn_desc dsc = kt::desc(5, UMAP_METRIC_CORRELATION);
        dsc.n_threads = 2;
        dsc.allocator = a;
        dsc.info = info;
        std::vector<int32_t> idx((size_t)(g.nq * 5));
        std::vector<float> d((size_t)(g.nq * 5));
        umap_knn_graph_index *index = nullptr;
        umap_result r = umap_knn_graph_index_build(&dsc, g.base.data(), g.n, g.dim, g.graph.data(), g.gk, &index);
        if (r == UMAP_OK)
            r = umap_knn_graph_index_search(&dsc, index, g.queries.data(), g.nq, nullptr, 0, idx.data(), d.data());
        umap_knn_graph_index_free(index);
        out->assign(d.begin(), d.end());
        for (int32_t v : idx) out->push_back((float)v);
        return r;
    });
}
