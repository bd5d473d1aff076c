/* test_precomputed.cc - metric "precomputed": the data are the distances.
   The k-NN selects from the given rows (self, query, pairwise; bad
   matrices refused by entry), and fit, transform, quality and the model
   files take an n x n matrix and rows of distances to the training rows,
   as umap-learn's metric="precomputed" does; fit, transform and the model
   files also take a sparse graph of distances (each row's nearest). */
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "test_knn_util.h"
#include "test_util.h"

namespace {

using ut::Model;

/* n x n euclidean distances between the rows of x (n x d), in double */
std::vector<float> distances(const std::vector<float> &x, int64_t n, int64_t d, const std::vector<float> &y,
                             int64_t m) {
    std::vector<float> out((size_t)(m * n));
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = 0;
            for (int64_t l = 0; l < d; l++) {
                double t = (double)y[(size_t)(i * d + l)] - x[(size_t)(j * d + l)];
                s += t * t;
            }
            out[(size_t)(i * n + j)] = (float)std::sqrt(s);
        }
    return out;
}

struct Lists {
    umap_result r = UMAP_ERR_GRAPH;
    std::vector<int32_t> idx;
    std::vector<float> d;
    umap_knn_info info;
    std::string detail() const { return info.error_detail; }
};

Lists self_knn(const std::vector<float> &x, int64_t n, int64_t dim, umap_metric metric, int k, int threads = 2,
               umap_knn_method method = UMAP_KNN_EXACT) {
    Lists o;
    umap_knn_desc dsc = kt::desc(k, metric);
    dsc.method = method;
    dsc.n_threads = threads;
    std::memset(&o.info, 0, sizeof o.info);
    dsc.info = &o.info;
    o.idx.assign((size_t)(n * k), -7);
    o.d.assign((size_t)(n * k), -7.0f);
    o.r = umap_knn(&dsc, x.data(), n, dim, o.idx.data(), o.d.data());
    return o;
}

/* a k-NN graph of distances as scipy stores one: each of `rows` rows of
   `full` (rows x cols) keeps its `keep` nearest columns (and its own, when
   self) and, with far_step, every far_step-th column from i % 7, in
   increasing columns */
struct Graph {
    std::vector<int64_t> ptr;
    std::vector<int32_t> ind;
    std::vector<float> val;
    int64_t rows = 0, cols = 0;
    umap_rows csr() const { return umap_rows_csr(rows, cols, ptr.data(), ind.data(), val.data()); }
};

Graph nearest_graph(const std::vector<float> &full, int64_t rows, int64_t cols, int keep, bool self,
                    int far_step = 0) {
    Graph g;
    g.rows = rows;
    g.cols = cols;
    g.ptr.assign(1, 0);
    for (int64_t i = 0; i < rows; i++) {
        std::vector<int32_t> order((size_t)cols);
        for (int32_t j = 0; j < (int32_t)cols; j++) order[(size_t)j] = j;
        std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
            return full[(size_t)(i * cols + a)] < full[(size_t)(i * cols + b)];
        });
        std::vector<int32_t> kept(order.begin(), order.begin() + keep + (self ? 1 : 0));
        for (int32_t far = (int32_t)(i % 7); far_step && far < (int32_t)cols; far += far_step) kept.push_back(far);
        std::sort(kept.begin(), kept.end());
        kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
        for (int32_t j : kept) g.ind.push_back(j), g.val.push_back(full[(size_t)(i * cols + j)]);
        g.ptr.push_back((int64_t)g.ind.size());
    }
    return g;
}

/* how many of the nq new rows (places y) land in their cluster: their 10
   nearest training places (emb, n rows) vote, the clusters as
   kt::clustered(n + nq, ..., 3 clusters, ..., seed) draws them */
int placed_in_cluster(const std::vector<float> &y, const float *emb, int64_t n, int64_t nq, uint64_t seed) {
    auto cluster = [seed](int64_t i) { return std::min(2, (int)(ut::unit(seed + 3, (uint64_t)i) * 3)); };
    int right = 0;
    for (int64_t i = 0; i < nq; i++) {
        std::vector<std::pair<float, int>> near((size_t)n);
        for (int64_t t = 0; t < n; t++) {
            float dx = y[(size_t)(2 * i)] - emb[2 * t], dy = y[(size_t)(2 * i + 1)] - emb[2 * t + 1];
            near[(size_t)t] = {dx * dx + dy * dy, cluster(t)};
        }
        std::partial_sort(near.begin(), near.begin() + 10, near.end());
        int votes[3] = {0, 0, 0};
        for (int t = 0; t < 10; t++) votes[near[(size_t)t].second]++;
        right += (int)(std::max_element(votes, votes + 3) - votes) == cluster(n + i);
    }
    return right;
}

/* a model file's path under $TMPDIR (else /tmp), this process's own */
std::string model_path(const char *stem, const char *ext) {
    const char *dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/" + stem + std::to_string((long)getpid()) + ext;
}

} // namespace

TEST(Precomputed, SelectsWhatTheEuclideanSearchFinds) {
    const int64_t n = 300, d = 9;
    std::vector<float> x = kt::clustered(n, d, 4, 3, 5);
    std::vector<float> dm = distances(x, n, d, x, n);
    Lists want = self_knn(x, n, d, UMAP_METRIC_EUCLIDEAN, 10);
    ASSERT_EQ(want.r, UMAP_OK) << want.detail();
    for (umap_knn_method method : {UMAP_KNN_AUTO, UMAP_KNN_EXACT, UMAP_KNN_NNDESCENT})
        for (int threads : {1, 2, 4}) {
            Lists got = self_knn(dm, n, n, UMAP_METRIC_PRECOMPUTED, 10, threads, method);
            ASSERT_EQ(got.r, UMAP_OK) << got.detail();
            EXPECT_EQ(got.info.method, UMAP_KNN_EXACT) << "a selection is exact whatever was asked";
            EXPECT_EQ(got.idx, want.idx) << "method " << method << ", threads " << threads;
            for (size_t i = 0; i < got.d.size(); i++) ASSERT_NEAR(got.d[i], want.d[i], 1e-5f * (1 + want.d[i])) << i;
        }
    /* the query form: rows of distances to the base rows */
    std::vector<float> q = kt::clustered(40, d, 4, 3, 6), dq = distances(x, n, d, q, 40);
    std::vector<int32_t> wi(40 * 7), gi(40 * 7);
    std::vector<float> wd(40 * 7), gd(40 * 7);
    umap_knn_desc e = kt::desc(7, UMAP_METRIC_EUCLIDEAN), p = kt::desc(7, UMAP_METRIC_PRECOMPUTED);
    ASSERT_EQ(umap_knn_query(&e, x.data(), n, q.data(), 40, d, wi.data(), wd.data()), UMAP_OK);
    ASSERT_EQ(umap_knn_query(&p, x.data(), n, dq.data(), 40, n, gi.data(), gd.data()), UMAP_OK);
    EXPECT_EQ(gi, wi);
}

TEST(Precomputed, TiesGoToTheSmallerIndexAndTheDiagonalIsNeverANeighbour) {
    /* four points: 0 and 1 both at 1 from 2, 3 far; a nonzero diagonal */
    const float dm[16] = {5, 2, 1, 9,  //
                          2, 5, 1, 9,  //
                          1, 1, 5, 9,  //
                          9, 9, 9, 0};
    std::vector<float> m(dm, dm + 16);
    Lists got = self_knn(m, 4, 4, UMAP_METRIC_PRECOMPUTED, 2);
    ASSERT_EQ(got.r, UMAP_OK) << got.detail();
    EXPECT_EQ(got.idx, (std::vector<int32_t>{2, 1, 2, 0, 0, 1, 0, 1}));
    EXPECT_EQ(got.d, (std::vector<float>{1, 2, 1, 2, 1, 1, 9, 9}));
    /* pairwise hands the checked matrix back */
    std::vector<float> out(16, -1.0f);
    umap_knn_desc dsc = kt::desc(2, UMAP_METRIC_PRECOMPUTED);
    ASSERT_EQ(umap_pairwise(&dsc, m.data(), 4, 4, out.data()), UMAP_OK);
    EXPECT_EQ(out, m);
}

/* umap-learn's sparse precomputed input: a graph of distances, each row's
   stored entries its candidates; the k-NN selects from them */
TEST(Precomputed, SparseGraphOfDistancesSelectsFromItsStoredEntries) {
    const int64_t n = 200, d = 6, nq = 30;
    const int k = 8, kept = 20;
    std::vector<float> x = kt::clustered(n + nq, d, 4, 3, 9);
    std::vector<float> base(x.begin(), x.begin() + n * d), q(x.begin() + n * d, x.end());
    std::vector<float> dm = distances(base, n, d, base, n), dq = distances(base, n, d, q, nq);
    /* each row keeps its own diagonal entry, its `kept` nearest and a few far
       rows, in increasing columns, as scipy stores them: what a k-NN graph of
       distances holds */
    Graph gr = nearest_graph(dm, n, n, kept, true, 37), gqr = nearest_graph(dq, nq, n, kept, false, 37);
    const std::vector<int64_t> &ptr = gr.ptr, &qptr = gqr.ptr;
    const std::vector<int32_t> &ind = gr.ind, &qind = gqr.ind;
    const std::vector<float> &val = gr.val, &qval = gqr.val;
    umap_rows g = umap_rows_csr(n, n, ptr.data(), ind.data(), val.data());
    umap_rows gq = umap_rows_csr(nq, n, qptr.data(), qind.data(), qval.data());
    Lists dense = self_knn(dm, n, n, UMAP_METRIC_PRECOMPUTED, k);
    ASSERT_EQ(dense.r, UMAP_OK) << dense.detail();
    for (int threads : {1, 3}) {
        std::vector<int32_t> idx((size_t)(n * k));
        std::vector<float> dist((size_t)(n * k));
        umap_knn_desc dsc = kt::desc(k, UMAP_METRIC_PRECOMPUTED, UMAP_KNN_NNDESCENT);
        dsc.n_threads = threads;
        ASSERT_EQ(umap_knn_rows(&dsc, &g, idx.data(), dist.data()), UMAP_OK);
        EXPECT_EQ(idx, dense.idx) << "the k nearest are stored: the dense matrix's selection";
        EXPECT_TRUE(kt::bits_equal(dist, dense.d));
    }
    std::vector<int32_t> qi((size_t)(nq * k)), wi((size_t)(nq * k));
    std::vector<float> qd((size_t)(nq * k)), wd((size_t)(nq * k));
    umap_knn_desc p = kt::desc(k, UMAP_METRIC_PRECOMPUTED);
    ASSERT_EQ(umap_knn_query(&p, nullptr, n, dq.data(), nq, n, wi.data(), wd.data()), UMAP_OK);
    ASSERT_EQ(umap_knn_query_rows(&p, &g, &gq, qi.data(), qd.data()), UMAP_OK);
    EXPECT_EQ(qi, wi);
    EXPECT_TRUE(kt::bits_equal(qd, wd));

    /* what such a graph cannot be: each refusal names the row */
    umap_knn_info info;
    umap_knn_desc bad = kt::desc(40, UMAP_METRIC_PRECOMPUTED); /* more than row 0 stores: its kept nearest and a few far ones */
    bad.info = &info;
    std::vector<int32_t> idx((size_t)(n * 40));
    EXPECT_EQ(umap_knn_rows(&bad, &g, idx.data(), nullptr), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("row 0 stores"), std::string::npos) << info.error_detail;
    EXPECT_NE(std::string(info.error_detail).find("fewer than k = 40"), std::string::npos) << info.error_detail;
    EXPECT_EQ(info.bad_row, 0);
    bad.k = k;
    std::vector<float> neg = val;
    neg[(size_t)ptr[5] + 2] = -1.0f;
    umap_rows gn = umap_rows_csr(n, n, ptr.data(), ind.data(), neg.data());
    EXPECT_EQ(umap_knn_rows(&bad, &gn, idx.data(), nullptr), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("row 5 holds -1"), std::string::npos) << info.error_detail;
    umap_rows wide = umap_rows_csr(n, n + 1, ptr.data(), ind.data(), val.data());
    EXPECT_EQ(umap_knn_rows(&bad, &wide, idx.data(), nullptr), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("is 200 x 200, not 200 x 201"), std::string::npos)
        << info.error_detail;
    std::vector<float> all((size_t)(n * n));
    EXPECT_EQ(umap_pairwise_rows(&bad, &g, all.data()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("leaves the pairs it does not store unknown"), std::string::npos)
        << info.error_detail;
    /* quality ranks every pair, which the graph leaves unknown */
    std::vector<float> emb((size_t)(n * 2));
    umap_quality_desc qdesc;
    std::memset(&qdesc, 0, sizeof qdesc);
    qdesc.metric = UMAP_METRIC_PRECOMPUTED;
    umap_quality quality;
    EXPECT_EQ(umap_quality_eval_rows(&qdesc, &g, emb.data(), 2, nullptr, &quality), UMAP_ERR_INVALID_ARGUMENT);
}

TEST(Precomputed, BadMatricesAreRefusedByEntry) {
    const int64_t n = 50;
    std::vector<float> x = kt::clustered(n, 4, 2, 3, 8), dm = distances(x, n, 4, x, n);
    struct Case {
        const char *what;
        int64_t rows, cols;
        int64_t at; /* entry changed, -1 none */
        float value;
        const char *says;
    } cases[] = {
        {"not square", n, n - 1, -1, 0, "must be square (n x n): it has 50 rows of 49 columns"},
        {"negative", n, n, 3 * n + 17, -0.5f, "entry (3, 17) is -0.5: distances cannot be negative"},
        {"asymmetric", n, n, 4 * n + 9, 1e3f, "not symmetric: entry (4, 9) is 1000"},
        {"NaN", n, n, 6 * n + 2, NAN, "row 6 holds NaN or Inf (column 2)"},
        {"Inf", n, n, 7 * n + 1, INFINITY, "row 7 holds NaN or Inf (column 1)"},
    };
    for (const Case &c : cases) {
        std::vector<float> m = dm;
        if (c.at >= 0) m[(size_t)c.at] = c.value;
        Lists got = self_knn(m, c.rows, c.cols, UMAP_METRIC_PRECOMPUTED, 5);
        EXPECT_NE(got.r, UMAP_OK) << c.what;
        EXPECT_NE(got.detail().find(c.says), std::string::npos) << c.what << ": " << got.detail();
        std::vector<float> out((size_t)(n * n));
        umap_knn_desc dsc = kt::desc(5, UMAP_METRIC_PRECOMPUTED);
        if (c.rows == c.cols) {
            EXPECT_NE(umap_pairwise(&dsc, m.data(), n, n, out.data()), UMAP_OK) << c.what;
        }
    }
    /* rounding-level asymmetry is the caller's arithmetic, not an error */
    std::vector<float> m = dm;
    m[(size_t)(4 * n + 9)] = std::nextafter(m[(size_t)(9 * n + 4)], 1e9f);
    EXPECT_EQ(self_knn(m, n, n, UMAP_METRIC_PRECOMPUTED, 5).r, UMAP_OK);
    /* a query row is as wide as the base has rows, and never negative */
    umap_knn_desc dsc = kt::desc(5, UMAP_METRIC_PRECOMPUTED);
    umap_knn_info info;
    std::memset(&info, 0, sizeof info);
    dsc.info = &info;
    std::vector<int32_t> idx(10 * 5);
    EXPECT_EQ(umap_knn_query(&dsc, x.data(), n, dm.data(), 10, 4, idx.data(), nullptr), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("distances to the 50 base rows, not 4"), std::string::npos)
        << info.error_detail;
    std::vector<float> q(dm.begin(), dm.begin() + 10 * n);
    q[(size_t)(2 * n + 30)] = -1.0f;
    EXPECT_EQ(umap_knn_query(&dsc, x.data(), n, q.data(), 10, n, idx.data(), nullptr), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("entry (2, 30) is -1"), std::string::npos) << info.error_detail;
    /* no rows to walk between */
    std::vector<int32_t> graph((size_t)(n * 5), 0);
    EXPECT_EQ(umap_knn_query_graph(&dsc, x.data(), n, graph.data(), 5, dm.data(), 10, n, nullptr, 0, idx.data(), nullptr),
              UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("umap_knn_query"), std::string::npos) << info.error_detail;
    umap_knn_graph_index *g = nullptr;
    EXPECT_EQ(umap_knn_graph_index_build(&dsc, dm.data(), n, n, graph.data(), 5, &g), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(g, nullptr);
}

TEST(Precomputed, FitRefusesWhatADistanceMatrixCannotBe) {
    const int64_t n = 120;
    std::vector<float> x = kt::clustered(n, 5, 3, 3, 9), dm = distances(x, n, 5, x, n);
    struct Case {
        const char *says;
        void (*set)(umap_config &);
        int64_t cols;
    } cases[] = {
        {"the n x n distance matrix, not 120 rows of 5 columns", [](umap_config &) {}, 5},
        {"unique with metric precomputed", [](umap_config &c) { c.unique = 1; }, n},
        {"keep_data = UMAP_KEEP_SKETCH finds neighbours by euclidean distance", [](umap_config &c) { c.keep_data = UMAP_KEEP_SKETCH; },
         n},
        {"keep_sample = 50 with metric precomputed", [](umap_config &c) { c.keep_data = UMAP_KEEP_ROWS; c.keep_sample = 50; },
         n},
    };
    for (const Case &t : cases) {
        umap_config c = ut::quick_config();
        c.metric = UMAP_METRIC_PRECOMPUTED;
        t.set(c);
        umap_fit_info info;
        c.info = &info;
        Model m;
        EXPECT_EQ(umap_fit(&c, t.cols == n ? dm.data() : x.data(), n, t.cols, m.out()), UMAP_ERR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(info.error_detail).find(t.says), std::string::npos) << info.error_detail;
        EXPECT_EQ(m.m, nullptr);
    }
    /* an asymmetric matrix fails in the k-NN, naming the entry */
    std::vector<float> bad = dm;
    bad[(size_t)(10 * n + 11)] += 5.0f;
    umap_config c = ut::quick_config();
    c.metric = UMAP_METRIC_PRECOMPUTED;
    umap_fit_info info;
    c.info = &info;
    Model m;
    EXPECT_EQ(umap_fit(&c, bad.data(), n, n, m.out()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("entry (10, 11)"), std::string::npos) << info.error_detail;
    /* the target's values are rows, not distances */
    std::vector<float> values((size_t)n, 1.0f);
    umap_target t;
    std::memset(&t, 0, sizeof t);
    t.values = values.data();
    t.values_dim = 1;
    t.metric = UMAP_METRIC_PRECOMPUTED;
    umap_config s = ut::quick_config();
    s.target = &t;
    s.info = &info;
    EXPECT_EQ(umap_fit(&s, x.data(), n, 5, m.out()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("target: metric precomputed"), std::string::npos) << info.error_detail;
}

TEST(Precomputed, ModelFilesKeepTheMetricAndTransformReadsDistanceRows) {
    const int64_t n = 400, d = 8;
    std::vector<float> x = kt::clustered(n, d, 4, 3, 10), dm = distances(x, n, d, x, n);
    umap_config c = ut::quick_config();
    c.metric = UMAP_METRIC_PRECOMPUTED;
    c.input_dims = 32; /* landmarks: 32 of the 400 columns */
    Model m;
    ASSERT_EQ(umap_fit(&c, dm.data(), n, n, m.out()), UMAP_OK);
    EXPECT_EQ(umap_model_config(m.m)->metric, UMAP_METRIC_PRECOMPUTED);
    EXPECT_EQ(umap_model_n_features(m.m), n);
    std::vector<float> q = kt::clustered(50, d, 4, 3, 11), dq = distances(x, n, d, q, 50), y(100), y1(100), back(100);
    ASSERT_EQ(umap_transform(m.m, dq.data(), 50, n, y.data(), 2), UMAP_OK);
    ASSERT_EQ(umap_transform(m.m, dq.data(), 50, n, y1.data(), 1), UMAP_OK);
    EXPECT_TRUE(kt::bits_equal(y, y1));
    EXPECT_NE(umap_transform(m.m, q.data(), 50, d, y1.data(), 2), UMAP_OK) << "rows of the data, not distances";
    for (const char *ext : {".safetensors", ".gguf"}) {
        std::string path = model_path("umap_test_precomputed_", ext);
        ASSERT_EQ(umap_save(m.m, path.c_str()), UMAP_OK);
        Model loaded;
        char detail[256] = "";
        ASSERT_EQ(umap_load(path.c_str(), loaded.out(), detail, sizeof detail), UMAP_OK) << ext << ": " << detail;
        EXPECT_EQ(umap_model_config(loaded.m)->metric, UMAP_METRIC_PRECOMPUTED);
        ASSERT_EQ(umap_transform(loaded.m, dq.data(), 50, n, back.data(), 2), UMAP_OK);
        EXPECT_TRUE(kt::bits_equal(y, back)) << ext;
        std::remove(path.c_str());
    }
    /* the same seed, the same bits, for any thread count */
    c.n_threads = 1;
    Model one;
    ASSERT_EQ(umap_fit(&c, dm.data(), n, n, one.out()), UMAP_OK);
    ASSERT_EQ(umap_transform(one.m, dq.data(), 50, n, y1.data(), 2), UMAP_OK);
    EXPECT_TRUE(kt::bits_equal(y, y1));
}

/* Fashion-MNIST's euclidean distances given as a matrix, and as a sparse
   graph of each row's 30 nearest: the encoder on landmark distances, and
   on the graph's memberships, embeds as trustworthily as the euclidean one
   on the rows' principal axes, and new rows given by their distances to
   the training rows (all of them, or their nearest) land in their class
   as often. */
TEST(PrecomputedQuality, FashionMnistDistancesEmbedAsTheRowsDo) {
    const int64_t n = 3000, n_fit = n * 5 / 6, n_new = n - n_fit;
    int64_t d = 0;
    std::vector<float> x;
    std::vector<int32_t> labels;
    if (!kt::fashion_mnist_t10k(n, &x, &d, &labels)) GTEST_SKIP() << "Fashion-MNIST not readable (Debian package dataset-fashion-mnist)";
    std::vector<float> train(x.begin(), x.begin() + n_fit * d), fresh(x.begin() + n_fit * d, x.end());
    std::vector<float> dm((size_t)(n_fit * n_fit));
    umap_knn_desc pd = kt::desc(15, UMAP_METRIC_EUCLIDEAN);
    ASSERT_EQ(umap_pairwise(&pd, train.data(), n_fit, d, dm.data()), UMAP_OK);
    std::vector<float> dq = distances(train, n_fit, d, fresh, n_new);
    Graph g = nearest_graph(dm, n_fit, n_fit, 30, true), gq = nearest_graph(dq, n_new, n_fit, 30, false);
    umap_rows graph = g.csr(), graph_q = gq.csr();
    umap_config c = umap_config_default();
    c.n_threads = 2;
    /* the encoders side by side: euclidean's default keeps a sketch to
       refine transform by (docs/transform.md), which a precomputed model
       cannot search */
    c.keep_data = UMAP_KEEP_NONE;
    double trust[5], acc[5];
    for (int pre = 0; pre < 5; pre++) { /* euclidean, the matrix, the graph; the last two placing new rows among
                                           the training places (the precomputed default) instead of by the encoder */
        c.metric = pre ? UMAP_METRIC_PRECOMPUTED : UMAP_METRIC_EUCLIDEAN;
        c.keep_data = pre >= 3 ? UMAP_AUTO : UMAP_KEEP_NONE;
        Model m;
        umap_fit_info info;
        c.info = &info;
        umap_rows rows = pre == 0 ? umap_rows_dense(train.data(), n_fit, d)
                         : pre % 2 == 1 ? umap_rows_dense(dm.data(), n_fit, n_fit) : graph;
        umap_rows fresh_rows = pre == 0 ? umap_rows_dense(fresh.data(), n_new, d)
                               : pre % 2 == 1 ? umap_rows_dense(dq.data(), n_new, n_fit) : graph_q;
        ASSERT_EQ(umap_fit_rows(&c, &rows, m.out()), UMAP_OK) << info.error_detail;
        std::vector<float> emb((size_t)(n_fit * 2)), y((size_t)(n_new * 2));
        umap_transform_desc td;
        std::memset(&td, 0, sizeof td);
        td.n_threads = 2;
        td.mode = UMAP_TRANSFORM_ENCODER; /* the training rows by the encoder, as the encoders are compared */
        ASSERT_EQ(umap_transform_rows(m.m, &td, &rows, emb.data()), UMAP_OK);
        td.mode = UMAP_TRANSFORM_AUTO;
        if (pre >= 3) std::memcpy(emb.data(), umap_model_embedding(m.m), emb.size() * sizeof(float));
        ASSERT_EQ(umap_transform_rows(m.m, &td, &fresh_rows, y.data()), UMAP_OK);
        umap_quality_desc qd;
        std::memset(&qd, 0, sizeof qd);
        qd.n_threads = 2;
        umap_quality q, qm;
        ASSERT_EQ(umap_quality_eval(&qd, train.data(), n_fit, d, emb.data(), 2, labels.data(), &q), UMAP_OK);
        if (pre == 1) { /* scored on the matrix, the quality is the rows' */
            qd.metric = UMAP_METRIC_PRECOMPUTED;
            ASSERT_EQ(umap_quality_eval(&qd, dm.data(), n_fit, n_fit, emb.data(), 2, labels.data(), &qm), UMAP_OK);
            EXPECT_NEAR(qm.trustworthiness, q.trustworthiness, 1e-6);
            EXPECT_EQ(qm.knn_recall, q.knn_recall);
        }
        trust[pre] = q.trustworthiness;
        /* the new rows' 10-NN class among the training places */
        int right = 0;
        for (int64_t i = 0; i < n_new; i++) {
            std::vector<std::pair<float, int32_t>> near((size_t)n_fit);
            for (int64_t t = 0; t < n_fit; t++) {
                float a = y[(size_t)(2 * i)] - emb[(size_t)(2 * t)], b = y[(size_t)(2 * i + 1)] - emb[(size_t)(2 * t + 1)];
                near[(size_t)t] = {a * a + b * b, labels[(size_t)t]};
            }
            std::partial_sort(near.begin(), near.begin() + 10, near.end());
            int votes[10] = {0};
            for (int k = 0; k < 10; k++) votes[near[(size_t)k].second]++;
            right += (int)(std::max_element(votes, votes + 10) - votes) == labels[(size_t)(n_fit + i)];
        }
        acc[pre] = (double)right / (double)n_new;
        std::printf("%s: trustworthiness %.4f, new rows' 10-NN accuracy %.3f, fit %.2f s\n",
                    pre == 0 ? "euclidean" : pre == 1 ? "precomputed matrix" : pre == 2 ? "precomputed graph"
                    : pre == 3 ? "precomputed matrix, among the places" : "precomputed graph, among the places",
                    trust[pre], acc[pre], info.total_s);
    }
    /* measured about equal (docs/fit.md, "Precomputed distances"); the
       margins are the spread of seeds, the floors two binomial standard
       errors below */
    for (int pre = 1; pre < 3; pre++) {
        EXPECT_GT(trust[pre], trust[0] - (n >= 3000 ? 0.01 : 0.02)) << pre;
        EXPECT_GT(acc[pre], acc[0] - 0.05) << pre;
        EXPECT_GT(trust[pre], 0.94) << pre;
        EXPECT_GT(acc[pre], n >= 3000 ? 0.58 : 0.50) << pre;
    }
    RecordProperty("trustworthiness", std::to_string(trust[1]));
    RecordProperty("new_row_accuracy", std::to_string(acc[1]));
    for (int pre = 3; pre < 5; pre++) /* the places beat the encoders' placement, as umap-learn's transform does */
        EXPECT_GT(acc[pre], acc[pre - 2]) << pre;
    RecordProperty("graph_trustworthiness", std::to_string(trust[2]));
    RecordProperty("graph_new_row_accuracy", std::to_string(acc[2]));
}

/* A sparse graph of distances fits and transforms: the encoder reads each
   row's memberships (umap.h, umap__graph_input), the same bits for any
   thread count and after a model file; what such a model cannot take is
   refused, naming why. */
TEST(Precomputed, SparseGraphOfDistancesFitsAndTransforms) {
    const int64_t n = 300, d = 6, nq = 40;
    const int keep = 15;
    std::vector<float> x = kt::clustered(n + nq, d, 3, 3, 12);
    std::vector<float> base(x.begin(), x.begin() + n * d), q(x.begin() + n * d, x.end());
    std::vector<float> dm = distances(base, n, d, base, n), dq = distances(base, n, d, q, nq);
    Graph g = nearest_graph(dm, n, n, keep, true), gq = nearest_graph(dq, nq, n, keep, false);
    Graph nodiag = g; /* the same graph without its diagonal */
    nodiag.ind.clear(), nodiag.val.clear(), nodiag.ptr.assign(1, 0);
    for (int64_t i = 0; i < n; i++) {
        for (int64_t t = g.ptr[(size_t)i]; t < g.ptr[(size_t)i + 1]; t++)
            if (g.ind[(size_t)t] != i) nodiag.ind.push_back(g.ind[(size_t)t]), nodiag.val.push_back(g.val[(size_t)t]);
        nodiag.ptr.push_back((int64_t)nodiag.ind.size());
    }
    umap_rows rows = g.csr(), queries = gq.csr(), rows_nd = nodiag.csr();
    umap_config c = ut::quick_config();
    c.metric = UMAP_METRIC_PRECOMPUTED;
    umap_fit_info info;
    c.info = &info;
    Model m, one, nd;
    ASSERT_EQ(umap_fit_rows(&c, &rows, m.out()), UMAP_OK) << info.error_detail;
    c.n_threads = 1;
    ASSERT_EQ(umap_fit_rows(&c, &rows, one.out()), UMAP_OK) << info.error_detail;
    ASSERT_EQ(umap_fit_rows(&c, &rows_nd, nd.out()), UMAP_OK) << info.error_detail;
    std::vector<float> e2(umap_model_embedding(m.m), umap_model_embedding(m.m) + n * 2);
    std::vector<float> e1(umap_model_embedding(one.m), umap_model_embedding(one.m) + n * 2);
    std::vector<float> end(umap_model_embedding(nd.m), umap_model_embedding(nd.m) + n * 2);
    EXPECT_TRUE(kt::bits_equal(e2, e1)) << "the same seed, the same bits, for any thread count";
    EXPECT_TRUE(kt::bits_equal(e2, end)) << "a row's own entry is its membership 1, stored or not";
    /* the clusters stay apart: the map is the data's */
    umap_quality_desc qd;
    std::memset(&qd, 0, sizeof qd);
    umap_quality qual;
    ASSERT_EQ(umap_quality_eval(&qd, base.data(), n, d, e2.data(), 2, nullptr, &qual), UMAP_OK);
    EXPECT_GT(qual.trustworthiness, 0.85);
    /* new rows by their nearest training rows' distances */
    std::vector<float> y((size_t)(nq * 2)), y1((size_t)(nq * 2)), back((size_t)(nq * 2));
    char detail[512] = "";
    umap_transform_desc td;
    std::memset(&td, 0, sizeof td);
    td.detail = detail;
    td.detail_size = sizeof detail;
    td.n_threads = 2;
    ASSERT_EQ(umap_transform_rows(m.m, &td, &queries, y.data()), UMAP_OK) << detail;
    td.n_threads = 1;
    ASSERT_EQ(umap_transform_rows(m.m, &td, &queries, y1.data()), UMAP_OK) << detail;
    EXPECT_TRUE(kt::bits_equal(y, y1));
    /* a new row lands in its cluster */
    EXPECT_GE(placed_in_cluster(y, e2.data(), n, nq, 12), nq * 85 / 100);
    for (const char *ext : {".safetensors", ".gguf"}) {
        std::string path = model_path("umap_test_graph_", ext);
        ASSERT_EQ(umap_save(m.m, path.c_str()), UMAP_OK);
        Model loaded;
        ASSERT_EQ(umap_load(path.c_str(), loaded.out(), detail, sizeof detail), UMAP_OK) << ext << ": " << detail;
        td.n_threads = 2;
        ASSERT_EQ(umap_transform_rows(loaded.m, &td, &queries, back.data()), UMAP_OK) << detail;
        EXPECT_TRUE(kt::bits_equal(y, back)) << ext;
        std::remove(path.c_str());
    }
    /* what a graph model cannot take */
    EXPECT_EQ(umap_transform_with(m.m, &td, dq.data(), nq, n, y1.data()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(detail).find("fitted on a sparse graph of distances"), std::string::npos) << detail;
    Graph thin = nearest_graph(dq, nq, n, 3, false);
    umap_rows thin_rows = thin.csr();
    EXPECT_EQ(umap_transform_rows(m.m, &td, &thin_rows, y1.data()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(detail).find("row 0 stores 3 distances, fewer than k = 9"), std::string::npos) << detail;
    std::vector<float> neg = gq.val;
    neg[(size_t)gq.ptr[4] + 1] = -2.0f;
    umap_rows neg_rows = umap_rows_csr(nq, n, gq.ptr.data(), gq.ind.data(), neg.data());
    EXPECT_EQ(umap_transform_rows(m.m, &td, &neg_rows, y1.data()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(detail).find("row 4 holds -2"), std::string::npos) << detail;
    /* a dense matrix's model takes dense rows */
    Model dense;
    c.input_dims = 16;
    ASSERT_EQ(umap_fit(&c, dm.data(), n, n, dense.out()), UMAP_OK) << info.error_detail;
    EXPECT_EQ(umap_transform_rows(dense.m, &td, &queries, y1.data()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(detail).find("fitted on the dense distance matrix"), std::string::npos) << detail;
    /* and fit says what a graph cannot be fitted with */
    struct Case {
        const char *says;
        void (*set)(umap_config &);
    } cases[] = {
        {"input_dims = 0 with a sparse graph of distances", [](umap_config &k) { k.input_dims = 0; }},
        {"decoder_epochs = 5 with a sparse graph of distances", [](umap_config &k) { k.decoder_epochs = 5; }},
        {"row 0 stores 15 distances to other rows, fewer than k = 19", [](umap_config &k) { k.n_neighbors = 20; }},
    };
    for (const Case &t : cases) {
        umap_config b = ut::quick_config();
        b.metric = UMAP_METRIC_PRECOMPUTED;
        b.info = &info;
        t.set(b);
        Model no;
        EXPECT_EQ(umap_fit_rows(&b, &rows, no.out()), UMAP_ERR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(info.error_detail).find(t.says), std::string::npos) << info.error_detail;
        EXPECT_EQ(no.m, nullptr);
    }
    umap_rows wide = umap_rows_csr(n, n + 1, g.ptr.data(), g.ind.data(), g.val.data());
    Model no;
    EXPECT_EQ(umap_fit_rows(&c, &wide, no.out()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("n x n distance matrix"), std::string::npos) << info.error_detail;
}

/* A precomputed model keeps its training places (keep_data's default):
   transform then places each new row among its nearest training rows'
   places, found in the row's own distances, dense or a graph's, as
   umap-learn's transform does; the same bits for any thread count and
   after a model file, which keeps the places alone. */
TEST(Precomputed, NewRowsArePlacedAmongTheTrainingPlacesByTheirOwnDistances) {
    const int64_t n = 300, d = 6, nq = 40;
    std::vector<float> x = kt::clustered(n + nq, d, 3, 3, 14);
    std::vector<float> base(x.begin(), x.begin() + n * d), q(x.begin() + n * d, x.end());
    std::vector<float> dm = distances(base, n, d, base, n), dq = distances(base, n, d, q, nq);
    Graph g = nearest_graph(dm, n, n, 15, true), gq = nearest_graph(dq, nq, n, 15, false);
    umap_rows train_rows[2] = {umap_rows_dense(dm.data(), n, n), g.csr()};
    umap_rows new_rows[2] = {umap_rows_dense(dq.data(), nq, n), gq.csr()};
    for (int graph = 0; graph < 2; graph++) {
        SCOPED_TRACE(graph ? "a graph of distances" : "the distance matrix");
        umap_config c = ut::quick_config();
        c.metric = UMAP_METRIC_PRECOMPUTED;
        c.keep_data = UMAP_AUTO;
        c.input_dims = 16;
        umap_fit_info info;
        c.info = &info;
        Model m;
        ASSERT_EQ(umap_fit_rows(&c, &train_rows[graph], m.out()), UMAP_OK) << info.error_detail;
        EXPECT_EQ(umap_model_config(m.m)->keep_data, UMAP_KEEP_ROWS) << "the places, the default";
        EXPECT_EQ(umap_model_config(m.m)->keep_sample, 0);
        std::vector<float> y((size_t)(nq * 2)), y1((size_t)(nq * 2)), enc((size_t)(nq * 2)), back((size_t)(nq * 2));
        char detail[512] = "";
        umap_transform_desc td;
        std::memset(&td, 0, sizeof td);
        td.detail = detail;
        td.detail_size = sizeof detail;
        td.n_threads = 2;
        ASSERT_EQ(umap_transform_rows(m.m, &td, &new_rows[graph], y.data()), UMAP_OK) << detail;
        td.n_threads = 1;
        ASSERT_EQ(umap_transform_rows(m.m, &td, &new_rows[graph], y1.data()), UMAP_OK) << detail;
        EXPECT_TRUE(kt::bits_equal(y, y1)) << "the same bits for any thread count";
        td.mode = UMAP_TRANSFORM_ENCODER;
        ASSERT_EQ(umap_transform_rows(m.m, &td, &new_rows[graph], enc.data()), UMAP_OK) << detail;
        EXPECT_FALSE(kt::bits_equal(y, enc)) << "the default is the places', not the encoder's";
        td.mode = UMAP_TRANSFORM_AUTO;
        /* each new row lands in its cluster */
        EXPECT_GE(placed_in_cluster(y, umap_model_embedding(m.m), n, nq, 14), nq - 1);
        for (const char *ext : {".safetensors", ".gguf"}) {
            std::string path = model_path("umap_test_places_", ext);
            ASSERT_EQ(umap_save(m.m, path.c_str()), UMAP_OK);
            Model loaded;
            ASSERT_EQ(umap_load(path.c_str(), loaded.out(), detail, sizeof detail), UMAP_OK) << ext << ": " << detail;
            EXPECT_EQ(umap_model_config(loaded.m)->keep_data, UMAP_KEEP_ROWS);
            td.n_threads = 2;
            ASSERT_EQ(umap_transform_rows(loaded.m, &td, &new_rows[graph], back.data()), UMAP_OK) << detail;
            EXPECT_TRUE(kt::bits_equal(y, back)) << ext;
            std::remove(path.c_str());
        }
        /* the neighbours mode without places is refused, naming the keep */
        Model none;
        c.keep_data = UMAP_KEEP_NONE;
        ASSERT_EQ(umap_fit_rows(&c, &train_rows[graph], none.out()), UMAP_OK) << info.error_detail;
        td.mode = UMAP_TRANSFORM_NEIGHBORS;
        EXPECT_EQ(umap_transform_rows(none.m, &td, &new_rows[graph], y1.data()), UMAP_ERR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(detail).find("kept none"), std::string::npos) << detail;
    }
    /* a graph's new row needs n_neighbors stored distances among the places */
    umap_config c = ut::quick_config();
    c.metric = UMAP_METRIC_PRECOMPUTED;
    c.keep_data = UMAP_AUTO;
    Model m;
    ASSERT_EQ(umap_fit_rows(&c, &train_rows[1], m.out()), UMAP_OK);
    Graph thin = nearest_graph(dq, nq, n, 9, false);
    umap_rows thin_rows = thin.csr();
    std::vector<float> y((size_t)(nq * 2));
    char detail[512] = "";
    umap_transform_desc td;
    std::memset(&td, 0, sizeof td);
    td.detail = detail;
    td.detail_size = sizeof detail;
    EXPECT_EQ(umap_transform_rows(m.m, &td, &thin_rows, y.data()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(detail).find("row 0 stores 9 distances, fewer than k = 10"), std::string::npos) << detail;
}
