/* k-NN as graph ops: umap.knn / umap.knn_backward and the pairwise builders,
   checked against umap_knn / umap_pairwise and by finite differences. */
#include "test_util.h"

namespace {

std::vector<float> run1(umap_graph *g, umap_tensor *out, const char *name, const std::vector<float> &x) {
    umap_program *p = nullptr;
    std::vector<float> r;
    EXPECT_EQ(umap_compile(g, 1, &out, nullptr, &p), UMAP_OK) << umap_graph_error_detail(g);
    if (!p) return r;
    EXPECT_EQ(umap_program_bind(p, name, x.data(), (int64_t)x.size()), UMAP_OK);
    EXPECT_EQ(umap_program_run(p), UMAP_OK);
    const float *d = nullptr;
    umap_shape s;
    EXPECT_EQ(umap_program_output(p, 0, &d, &s), UMAP_OK);
    r.assign(d, d + umap_shape_numel(s));
    umap_program_free(p);
    return r;
}

} // namespace

TEST(KnnOps, PairwiseBuildersMatchUmapPairwise) {
    const int n = 37, d = 5;
    std::vector<float> x = ut::uniform(n * d, 21, -1, 1);
    for (int j = 0; j < d; j++) x[(size_t)(3 * d + j)] = x[(size_t)j];   /* row 3 duplicates row 0 */
    for (int j = 0; j < d; j++) x[(size_t)(7 * d + j)] = 0.0f;           /* row 7 is zero */
    for (int m = 0; m < 2; m++) {
        ut::Graph g;
        umap_tensor *xt = umap_input(g, "x", umap_shape2(n, d));
        umap_tensor *D = m == 0 ? umap_pairwise_euclidean(g, xt) : umap_pairwise_cosine(g, xt);
        std::vector<float> got = run1(g, D, "x", x);
        std::vector<float> ref((size_t)n * n);
        umap_knn_desc desc;
        std::memset(&desc, 0, sizeof desc);
        desc.metric = m == 0 ? UMAP_METRIC_EUCLIDEAN : UMAP_METRIC_COSINE;
        ASSERT_EQ(umap_pairwise(&desc, x.data(), n, d, ref.data()), UMAP_OK);
        ASSERT_EQ(got.size(), ref.size());
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (i != j) {
                    EXPECT_NEAR(got[(size_t)(i * n + j)], ref[(size_t)(i * n + j)], 2e-5) << m << " " << i << "," << j;
                }
        if (m == 0) {
            EXPECT_EQ(got[(size_t)3], 0.0f) << "rows 0 and 3 coincide: euclidean distance exactly 0";
        }
    }
}

TEST(KnnOps, KnnOpMatchesUmapKnn) {
    const int n = 60, d = 4, k = 7;
    std::vector<float> x = ut::uniform(n * d, 22, -1, 1);
    for (int m = 0; m < 2; m++) {
        ut::Graph g;
        umap_tensor *xt = umap_input(g, "x", umap_shape2(n, d));
        umap_tensor *packed = m == 0 ? umap_knn_graph(g, umap_pairwise_euclidean(g, xt), k) : umap_knn_cosine(g, xt, k);
        ASSERT_NE(packed, nullptr) << umap_graph_error_detail(g);
        EXPECT_EQ(umap_tensor_shape(packed).dim[1], 2 * k);
        std::vector<float> got = run1(g, packed, "x", x);
        std::vector<int32_t> idx((size_t)n * k);
        std::vector<float> dist((size_t)n * k);
        umap_knn_desc desc;
        std::memset(&desc, 0, sizeof desc);
        desc.k = k;
        desc.metric = m == 0 ? UMAP_METRIC_EUCLIDEAN : UMAP_METRIC_COSINE;
        desc.method = UMAP_KNN_EXACT;
        ASSERT_EQ(umap_knn(&desc, x.data(), n, d, idx.data(), dist.data()), UMAP_OK);
        std::vector<float> ref((size_t)n * 2 * k);
        ASSERT_EQ(umap_knn_pack(idx.data(), dist.data(), n, k, ref.data()), UMAP_OK);
        for (int i = 0; i < n; i++)
            for (int q = 0; q < k; q++) {
                EXPECT_EQ(got[(size_t)(i * 2 * k + q)], ref[(size_t)(i * 2 * k + q)]) << "row " << i << " rank " << q;
                EXPECT_NEAR(got[(size_t)(i * 2 * k + k + q)], ref[(size_t)(i * 2 * k + k + q)], 2e-5);
            }
    }
}

/* data away from the op's kinks: in every row the k-th and (k+1)-th
   neighbour distances differ by at least `gap`, so the finite-difference
   steps never change a neighbour set */
static std::vector<float> knn_data_with_gap(int n, int d, int k, umap_metric m, double gap) {
    for (uint64_t seed = 100;; seed++) {
        std::vector<float> x = ut::uniform(n * d, seed, -1, 1);
        std::vector<float> dist((size_t)n * (k + 1));
        umap_knn_desc desc;
        std::memset(&desc, 0, sizeof desc);
        desc.k = k + 1;
        desc.metric = m;
        desc.method = UMAP_KNN_EXACT;
        if (umap_knn(&desc, x.data(), n, d, nullptr, dist.data()) != UMAP_OK) continue;
        bool ok = true;
        for (int i = 0; i < n && ok; i++) ok = dist[(size_t)(i * (k + 1) + k)] - dist[(size_t)(i * (k + 1) + k - 1)] >= gap;
        if (ok) return x;
    }
}

TEST(KnnOps, KnnOpGradient) {
    /* one weight per row: the loss does not care about the order inside a
       row's neighbour set, only about the set, which the data keeps stable */
    const int n = 12, d = 3, k = 4;
    for (int m = 0; m < 2; m++) {
        ut::Graph g;
        umap_tensor *x = umap_param(g, "x", umap_shape2(n, d));
        umap_tensor *packed = m == 0 ? umap_knn_graph(g, umap_pairwise_euclidean(g, x), k) : umap_knn_cosine(g, x, k);
        umap_tensor *dists = umap_slice(g, packed, 1, k, k);
        std::vector<float> w = ut::uniform(n, 23, 0.5, 1.5);
        umap_tensor *loss = umap_sum(g, umap_mul(g, dists, umap_constant(g, umap_shape2(n, 1), w.data())), UMAP_AXES_ALL, 0);
        std::vector<float> xd =
            knn_data_with_gap(n, d, k, m == 0 ? UMAP_METRIC_EUCLIDEAN : UMAP_METRIC_COSINE, m == 0 ? 0.02 : 0.005);
        umap_tensor *leaves[1] = {x};
        void *vals[1] = {xd.data()};
        umap_gradcheck_desc gd;
        std::memset(&gd, 0, sizeof gd);
        gd.eps = 1e-3f;
        gd.atol = 2e-3f;
        gd.rtol = 1e-2f;
        umap_gradcheck_report rep;
        EXPECT_EQ(umap_gradcheck(g, loss, 1, leaves, vals, 1, leaves, &gd, &rep), UMAP_OK)
            << "metric " << m << ": " << umap_graph_error_detail(g) << " max abs " << rep.max_abs_err;
    }
}

TEST(KnnOps, BackwardScattersIntoPairwise) {
    /* d loss / d D through the op directly: D is a param */
    const int n = 9, k = 3;
    ut::Graph g;
    umap_tensor *D = umap_param(g, "D", umap_shape2(n, n));
    umap_tensor *packed = umap_knn_graph(g, D, k);
    umap_tensor *loss = umap_sum(g, umap_square(g, umap_slice(g, packed, 1, k, k)), UMAP_AXES_ALL, 0);
    std::vector<float> Dd = ut::distinct(n * n, 25, 0.11, 0.5);
    umap_tensor *leaves[1] = {D};
    void *vals[1] = {Dd.data()};
    umap_gradcheck_report rep;
    EXPECT_EQ(umap_gradcheck(g, loss, 1, leaves, vals, 1, leaves, nullptr, &rep), UMAP_OK) << umap_graph_error_detail(g);
}

TEST(KnnOps, BadArguments) {
    ut::Graph g;
    umap_tensor *D = umap_input(g, "D", umap_shape2(5, 5));
    EXPECT_EQ(umap_knn_graph(g, D, 5), nullptr); /* k >= n */
    EXPECT_NE(umap_graph_status(g), UMAP_OK);
    umap_graph_clear_error(g);
    umap_tensor *R = umap_input(g, "R", umap_shape2(5, 4));
    EXPECT_EQ(umap_knn_graph(g, R, 2), nullptr); /* not square */
    umap_graph_clear_error(g);
    EXPECT_EQ(umap_pairwise_euclidean(g, umap_input(g, "v", umap_shape1(4))), nullptr);
}
