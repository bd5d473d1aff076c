/* >>knn metrics: every metric of umap_knn.h's UMAP_METRIC_LIST through the
   exact search (self and query), NN-Descent, umap_pairwise, the model file
   (by name and the old integer form), transform, quality and the CLI,
   against a double reference written from each metric's definition
   (test_knn_util.h's kt::dist). */
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "test_knn_util.h"

namespace {

/* every metric measured between rows of any width by a definition of the
   rows alone: all but precomputed, whose data are the distances
   (tests/test_precomputed.cc), haversine, whose rows are 2 columns of
   latitude and longitude, and seuclidean, whose variances come from all
   the rows (the Haversine and Seuclidean tests at the end run those two
   through the same paths) */
std::vector<umap_metric> all_metrics() {
    std::vector<umap_metric> v;
    for (int m = 0; m < (int)UMAP_METRIC_COUNT; m++)
        if (m != UMAP_METRIC_PRECOMPUTED && m != UMAP_METRIC_HAVERSINE && m != UMAP_METRIC_SEUCLIDEAN)
            v.push_back((umap_metric)m);
    return v;
}

bool is_binary(umap_metric m) { return kt::binary_metric(m); }
using kt::for_metric;

/* the data a metric is tested on: clustered reals with duplicates and a
   zero row, or for the binary metrics 0/1 rows (jaccard: some nonzero
   values other than 1, which count as 1) with duplicates and an empty row */
std::vector<float> metric_data(umap_metric m, int64_t n, int64_t dim, uint64_t seed) {
    std::vector<float> x;
    if (is_binary(m)) {
        x.resize((size_t)(n * dim));
        for (int64_t i = 0; i < n; i++) {
            double density = 0.1 + 0.5 * ut::unit(seed + 1, (uint64_t)(i % 7));
            for (int64_t j = 0; j < dim; j++) {
                bool on = ut::unit(seed, (uint64_t)(i * dim + j)) < density;
                float v = on ? 1.0f : 0.0f;
                if (on && m != UMAP_METRIC_HAMMING && (i + j) % 5 == 0) v = -2.5f;
                x[(size_t)(i * dim + j)] = v;
            }
        }
    } else {
        x = for_metric(m, kt::clustered(n, dim, 5, 3, seed));
    }
    if (n > 12) {
        kt::copy_row(x, dim, 3, 10);
        kt::copy_row(x, dim, 3, 11);
        /* hellinger's zero row is at sqrt(1/2) |s_y| from row y, |s_y| = 1 in
           float rounding: no exact ties to check (Metrics.HellingerByHand) */
        if (m != UMAP_METRIC_HELLINGER) kt::zero_row(x, dim, 7);
    }
    return x;
}

struct Knn {
    std::vector<int32_t> idx;
    std::vector<float> d;
    umap_knn_info info;
    umap_result r = UMAP_ERR_GRAPH;
};

Knn run_knn(umap_knn_desc dsc, const std::vector<float> &x, int64_t n, int64_t dim) {
    Knn out;
    std::memset(&out.info, 0, sizeof out.info);
    out.idx.assign((size_t)(n * dsc.k), -7);
    out.d.assign((size_t)(n * dsc.k), -7.0f);
    dsc.info = &out.info;
    out.r = umap_knn(&dsc, x.data(), n, dim, out.idx.data(), out.d.data());
    return out;
}

std::string trace(umap_metric m, double p, int64_t n, int64_t dim, int k) {
    return std::string(umap_metric_name(m)) + (m == UMAP_METRIC_MINKOWSKI ? " p=" + std::to_string(p) : "") +
           " n=" + std::to_string(n) + " dim=" + std::to_string(dim) + " k=" + std::to_string(k);
}

} // namespace

TEST(Metrics, NamesRoundTripAndUnknownNamesFail) {
    const char *names[] = {"euclidean", "cosine",  "manhattan", "chebyshev",  "minkowski", "correlation", "hamming",
                           "jaccard",   "hellinger", "canberra", "braycurtis", "dice",      "russellrao", "precomputed",
                           "haversine", "seuclidean", "custom"};
    ASSERT_EQ((int)UMAP_METRIC_COUNT, 17);
    for (int m = 0; m < (int)UMAP_METRIC_COUNT; m++) {
        umap_metric got = UMAP_METRIC_COUNT;
        EXPECT_STREQ(umap_metric_name((umap_metric)m), names[m]);
        EXPECT_TRUE(umap_metric_from_name(names[m], &got)) << names[m];
        EXPECT_EQ(got, (umap_metric)m);
    }
    /* the old integer form of model files relies on these two */
    EXPECT_EQ((int)UMAP_METRIC_EUCLIDEAN, 0);
    EXPECT_EQ((int)UMAP_METRIC_COSINE, 1);
    umap_metric keep = UMAP_METRIC_COSINE;
    for (const char *bad : {"", "Euclidean", "l2", "mahalanobis", "manhattan "}) {
        EXPECT_FALSE(umap_metric_from_name(bad, &keep)) << "'" << bad << "'";
        EXPECT_EQ(keep, UMAP_METRIC_COSINE) << "a failed lookup leaves the output";
    }
    EXPECT_FALSE(umap_metric_from_name(nullptr, &keep));
    EXPECT_STREQ(umap_metric_name(UMAP_METRIC_COUNT), "unknown");
    EXPECT_STREQ(umap_metric_name((umap_metric)-1), "unknown");
    char buf[256];
    EXPECT_STREQ(umap_metric_names(buf, sizeof buf, "|"),
                 "euclidean|cosine|manhattan|chebyshev|minkowski|correlation|hamming|jaccard|hellinger|canberra|"
                 "braycurtis|dice|russellrao|precomputed|haversine|seuclidean|custom");
}

TEST(Metrics, ExactMatchesTheReferenceForEveryMetric) {
    struct Case {
        int64_t n, dim;
        int k, tile;
    };
    const Case cases[] = {{40, 3, 5, 16}, {200, 17, 10, 64}, {150, 64, 1, 0}, {90, 33, 12, 32}};
    for (umap_metric m : all_metrics())
        for (double p : m == UMAP_METRIC_MINKOWSKI ? std::vector<double>{1.0, 1.5, 2.0, 3.0, 7.5} : std::vector<double>{2.0})
            for (const Case &c : cases) {
                std::vector<float> x = metric_data(m, c.n, c.dim, 100 + (uint64_t)c.n + (uint64_t)m);
                umap_knn_desc dsc = kt::desc(c.k, m);
                dsc.metric_p = (float)p;
                dsc.tile_rows = c.tile;
                SCOPED_TRACE(trace(m, p, c.n, c.dim, c.k));
                Knn got = run_knn(dsc, x, c.n, c.dim);
                ASSERT_EQ(got.r, UMAP_OK) << got.info.error_detail;
                EXPECT_EQ(got.info.method, UMAP_KNN_EXACT);
                kt::Ref ref = kt::reference_self(m, x, c.n, c.dim, c.k, p);
                EXPECT_TRUE(kt::check_knn(got.idx, got.d, ref, m, x.data(), c.n, x.data(), c.dim, true, kt::Tol(), p));
            }
}

TEST(Metrics, MassiveTiesAreRecheckedAndStayExact) {
    /* 61 equal rows overflow the candidate buffer (2k + 16): those rows are
       searched again against every row, still by (distance, index) */
    const int64_t n = 150, dim = 6;
    const int k = 5;
    for (umap_metric m : all_metrics()) {
        std::vector<float> x = metric_data(m, n, dim, 61);
        for (int q = 0; q < 60; q++) kt::copy_row(x, dim, 20, 40 + q);
        umap_knn_desc dsc = kt::desc(k, m);
        dsc.metric_p = 2.5f;
        dsc.tile_rows = 64;
        SCOPED_TRACE(umap_metric_name(m));
        Knn got = run_knn(dsc, x, n, dim);
        ASSERT_EQ(got.r, UMAP_OK) << got.info.error_detail;
        EXPECT_GT(got.info.rechecked_rows, 0);
        kt::Ref ref = kt::reference_self(m, x, n, dim, k, 2.5);
        EXPECT_TRUE(kt::check_knn(got.idx, got.d, ref, m, x.data(), n, x.data(), dim, true, kt::Tol(), 2.5));
    }
}

TEST(Metrics, QueryAndPairwiseMatchTheReference) {
    const int64_t nb = 120, nq = 30, dim = 20;
    const int k = 7;
    for (umap_metric m : all_metrics()) {
        double p = m == UMAP_METRIC_MINKOWSKI ? 3.0 : 2.0;
        std::vector<float> base = metric_data(m, nb, dim, 7), q = metric_data(m, nq, dim, 8);
        SCOPED_TRACE(umap_metric_name(m));
        umap_knn_desc dsc = kt::desc(k, m);
        dsc.metric_p = (float)p;
        std::vector<int32_t> idx((size_t)(nq * k));
        std::vector<float> d((size_t)(nq * k));
        ASSERT_EQ(umap_knn_query(&dsc, base.data(), nb, q.data(), nq, dim, idx.data(), d.data()), UMAP_OK);
        kt::Ref ref = kt::reference(m, base.data(), nb, q.data(), nq, dim, k, false, p);
        EXPECT_TRUE(kt::check_knn(idx, d, ref, m, base.data(), nb, q.data(), dim, false, kt::Tol(), p));
        /* pairwise: every entry the reference distance, symmetric (euclidean
           and cosine, by the Gram trick, are test_knn's) */
        if (m == UMAP_METRIC_EUCLIDEAN || m == UMAP_METRIC_COSINE) continue;
        const int64_t n = 40;
        std::vector<float> D((size_t)(n * n));
        ASSERT_EQ(umap_pairwise(&dsc, base.data(), n, dim, D.data()), UMAP_OK);
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) {
                double want = kt::dist(m, &base[(size_t)(i * dim)], &base[(size_t)(j * dim)], dim, p);
                ASSERT_NEAR(D[(size_t)(i * n + j)], want, 2e-5 + 1e-5 * want) << i << "," << j;
                ASSERT_EQ(D[(size_t)(i * n + j)], D[(size_t)(j * n + i)]);
            }
    }
}

TEST(Metrics, MinkowskiOneAndTwoAreManhattanAndEuclidean) {
    const int64_t n = 300, dim = 24;
    const int k = 9;
    std::vector<float> x = kt::clustered(n, dim, 4, 3, 5);
    for (umap_knn_method method : {UMAP_KNN_EXACT, UMAP_KNN_NNDESCENT}) {
        for (int which = 0; which < 2; which++) {
            umap_knn_desc mk = kt::desc(k, UMAP_METRIC_MINKOWSKI, method);
            mk.metric_p = which ? 2.0f : 1.0f;
            umap_knn_desc ref = kt::desc(k, which ? UMAP_METRIC_EUCLIDEAN : UMAP_METRIC_MANHATTAN, method);
            Knn a = run_knn(mk, x, n, dim), b = run_knn(ref, x, n, dim);
            ASSERT_EQ(a.r, UMAP_OK) << a.info.error_detail;
            ASSERT_EQ(b.r, UMAP_OK) << b.info.error_detail;
            SCOPED_TRACE(std::string(which ? "p=2" : "p=1") + (method == UMAP_KNN_EXACT ? " exact" : " nndescent"));
            if (method == UMAP_KNN_EXACT) { /* the same exact answer, the same bits */
                EXPECT_TRUE(kt::bits_equal(a.idx, b.idx));
                EXPECT_TRUE(kt::bits_equal(a.d, b.d));
            } else { /* the same distances of whatever it found */
                for (size_t i = 0; i < a.d.size(); i++) {
                    int64_t row = (int64_t)(i / k);
                    double want = kt::dist(which ? UMAP_METRIC_EUCLIDEAN : UMAP_METRIC_MANHATTAN, &x[(size_t)(row * dim)],
                                           &x[(size_t)(a.idx[i] * dim)], dim);
                    ASSERT_NEAR(a.d[i], want, 1e-5 * want + 1e-6);
                }
            }
        }
    }
    /* and p = 3 is neither */
    umap_knn_desc p3 = kt::desc(k, UMAP_METRIC_MINKOWSKI);
    p3.metric_p = 3.0f;
    Knn c = run_knn(p3, x, n, dim), e = run_knn(kt::desc(k, UMAP_METRIC_EUCLIDEAN), x, n, dim);
    ASSERT_EQ(c.r, UMAP_OK);
    EXPECT_FALSE(kt::bits_equal(c.d, e.d));
}

TEST(Metrics, BadMetricOrPIsRefused) {
    const int64_t n = 30, dim = 4;
    std::vector<float> x = kt::clustered(n, dim, 2, 2, 3);
    std::vector<int32_t> idx((size_t)(n * 3));
    std::vector<float> d((size_t)(n * 3)), D((size_t)(n * n));
    for (float p : {0.5f, -1.0f, 0.999f, INFINITY, -INFINITY, NAN}) {
        umap_knn_info info;
        umap_knn_desc dsc = kt::desc(3, UMAP_METRIC_MINKOWSKI);
        dsc.metric_p = p;
        dsc.info = &info;
        EXPECT_EQ(umap_knn(&dsc, x.data(), n, dim, idx.data(), d.data()), UMAP_ERR_INVALID_ARGUMENT) << p;
        EXPECT_NE(std::string(info.error_detail).find("metric_p"), std::string::npos) << info.error_detail;
        EXPECT_EQ(umap_knn_query(&dsc, x.data(), n, x.data(), 2, dim, idx.data(), d.data()), UMAP_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(umap_pairwise(&dsc, x.data(), n, dim, D.data()), UMAP_ERR_INVALID_ARGUMENT);
        umap_config c = ut::quick_config();
        c.metric = UMAP_METRIC_MINKOWSKI;
        c.metric_p = p;
        ut::Model model;
        EXPECT_EQ(umap_fit(&c, x.data(), n, dim, model.out()), UMAP_ERR_INVALID_ARGUMENT) << p;
    }
    for (umap_metric m : all_metrics()) { /* NaN and Inf: refused in every metric, naming the row */
        std::vector<float> bad = x;
        bad[(size_t)(17 * dim + 2)] = m % 2 ? NAN : -INFINITY;
        umap_knn_info info;
        umap_knn_desc dsc = kt::desc(3, m, m % 3 ? UMAP_KNN_EXACT : UMAP_KNN_NNDESCENT);
        dsc.info = &info;
        EXPECT_EQ(umap_knn(&dsc, bad.data(), n, dim, idx.data(), d.data()), UMAP_ERR_NON_FINITE) << umap_metric_name(m);
        EXPECT_EQ(info.bad_row, 17);
    }
    umap_knn_info info;
    umap_knn_desc dsc = kt::desc(3, UMAP_METRIC_COUNT);
    dsc.info = &info;
    EXPECT_EQ(umap_knn(&dsc, x.data(), n, dim, idx.data(), d.data()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("jaccard"), std::string::npos) << "lists the metrics: "
                                                                                 << info.error_detail;
}

TEST(Metrics, ExactAndNNDescentIdenticalForOneTwoFourThreads) {
    const int64_t n = 1500, dim = 12; /* above NN-Descent's all-pairs size: real rounds */
    const int k = 8;
    for (umap_metric m : all_metrics()) {
        std::vector<float> x = metric_data(m, n, dim, 21);
        for (umap_knn_method method : {UMAP_KNN_EXACT, UMAP_KNN_NNDESCENT}) {
            Knn first;
            for (int th : {1, 2, 4}) {
                umap_knn_desc dsc = kt::desc(k, m, method);
                dsc.metric_p = 3.0f;
                dsc.n_threads = th;
                dsc.seed = 5;
                dsc.tile_rows = 256;
                Knn got = run_knn(dsc, x, n, dim);
                ASSERT_EQ(got.r, UMAP_OK) << got.info.error_detail;
                if (th == 1) { first = got; continue; }
                SCOPED_TRACE(std::string(umap_metric_name(m)) + (method == UMAP_KNN_EXACT ? " exact" : " nndescent") +
                             " threads " + std::to_string(th));
                EXPECT_TRUE(kt::bits_equal(first.idx, got.idx));
                EXPECT_TRUE(kt::bits_equal(first.d, got.d));
            }
        }
    }
}

TEST(Metrics, NNDescentRecallForEveryMetric) {
    const int64_t n = KT_SANITIZED ? 1500 : 3000, dim = 24;
    const int k = 10;
    for (umap_metric m : all_metrics()) {
        double p = m == UMAP_METRIC_MINKOWSKI ? 3.0 : 2.0;
        std::vector<float> x = is_binary(m) ? std::vector<float>() : for_metric(m, kt::clustered(n, dim, 12, 5, 77));
        if (is_binary(m)) { /* clusters of binary rows: a prototype with bits flipped */
            x.resize((size_t)(n * dim));
            for (int64_t i = 0; i < n; i++) {
                int64_t c = (int64_t)(ut::unit(78, (uint64_t)i) * 12);
                for (int64_t j = 0; j < dim; j++) {
                    bool bit = ut::unit(79, (uint64_t)(c * dim + j)) < 0.4;
                    if (ut::unit(80, (uint64_t)(i * dim + j)) < 0.1) bit = !bit;
                    x[(size_t)(i * dim + j)] = bit ? 1.0f : 0.0f;
                }
            }
        }
        umap_knn_desc ex = kt::desc(k, m, UMAP_KNN_EXACT), nd = kt::desc(k, m, UMAP_KNN_NNDESCENT);
        ex.metric_p = nd.metric_p = (float)p;
        Knn exact = run_knn(ex, x, n, dim), approx = run_knn(nd, x, n, dim);
        ASSERT_EQ(exact.r, UMAP_OK) << exact.info.error_detail;
        ASSERT_EQ(approx.r, UMAP_OK) << approx.info.error_detail;
        SCOPED_TRACE(umap_metric_name(m));
        EXPECT_EQ(approx.info.method, UMAP_KNN_NNDESCENT);
        EXPECT_GT(approx.info.iterations, 0);
        EXPECT_TRUE(kt::valid_knn(approx.idx, approx.d, n, k, m, x, dim, 1e-5, 1e-5, p));
        double rec = kt::recall(approx.idx, exact.d, n, k, m, x, dim, p);
        std::printf("      %s: NN-Descent recall@%d = %.4f (%d rounds)\n", umap_metric_name(m), k, rec,
                    approx.info.iterations);
        EXPECT_GE(rec, 0.95);
    }
}

/* --- the model: fit, save by name, load both formats and the old integer
   form, transform bit for bit --- */
namespace {

std::string slurp(const std::string &path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}
void spit(const std::string &path, const std::string &bytes) {
    std::ofstream f(path, std::ios::binary);
    f << bytes;
}

/* replaces the one occurrence of `from` by `to` (same length: offsets stay) */
bool patch_once(std::string &bytes, const std::string &from, const std::string &to) {
    size_t at = bytes.find(from);
    if (at == std::string::npos || bytes.find(from, at + 1) != std::string::npos || from.size() != to.size()) return false;
    bytes.replace(at, from.size(), to);
    return true;
}

std::vector<float> embed(const umap_model *m, const std::vector<float> &x, int64_t n, int64_t d) {
    std::vector<float> y((size_t)(n * umap_model_config(m)->n_components));
    char detail[256] = "";
    EXPECT_EQ(umap_transform_ex(m, x.data(), n, d, y.data(), 2, detail, sizeof detail), UMAP_OK) << detail;
    return y;
}

} // namespace

TEST(Metrics, ModelSavesTheMetricByNameAndTransformsTheSame) {
    const int64_t n = 300, d = 10, nq = 40;
    char tmpl[] = "/tmp/umap_metrics_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    const std::string dir = tmpl;
    for (umap_metric m : all_metrics()) {
        std::vector<float> x = metric_data(m, n, d, 31), q = metric_data(m, nq, d, 32);
        umap_config c = ut::quick_config();
        c.metric = m;
        c.metric_p = m == UMAP_METRIC_MINKOWSKI ? 3.0f : 2.0f;
        c.keep_data = 1; /* transform places rows among their nearest training rows: the metric matters */
        c.standardize = is_binary(m) ? 0 : 1;
        if (m == UMAP_METRIC_CUSTOM) c.metric_fn = kt::custom_metric, c.metric_user_data = kt::custom_scale();
        ut::Model fitted;
        ASSERT_EQ(umap_fit(&c, x.data(), n, d, fitted.out()), UMAP_OK) << umap_metric_name(m);
        std::vector<float> want = embed(fitted.m, q, nq, d);
        for (const char *ext : {".safetensors", ".gguf"}) {
            SCOPED_TRACE(std::string(umap_metric_name(m)) + ext);
            std::string path = dir + "/m" + ext;
            ASSERT_EQ(umap_save(fitted.m, path.c_str()), UMAP_OK);
            std::string bytes = slurp(path);
            std::string quoted = std::string(ext[1] == 's' ? "\\\"" : "\"") + umap_metric_name(m) +
                                 (ext[1] == 's' ? "\\\"" : "\"");
            EXPECT_NE(bytes.find("metric" + std::string(ext[1] == 's' ? "\\\"" : "\"") + ":" + quoted), std::string::npos)
                << "the config names the metric";
            ut::Model loaded;
            char detail[256] = "";
            ASSERT_EQ(umap_load(path.c_str(), loaded.out(), detail, sizeof detail), UMAP_OK) << detail;
            EXPECT_EQ(umap_model_config(loaded.m)->metric, m);
            EXPECT_EQ(umap_model_config(loaded.m)->metric_p, c.metric_p);
            if (m == UMAP_METRIC_CUSTOM) { /* the file names the metric: its function comes back by hand */
                std::vector<float> y((size_t)(nq * 2));
                EXPECT_EQ(umap_transform_ex(loaded.m, q.data(), nq, d, y.data(), 2, detail, sizeof detail),
                          UMAP_ERR_INVALID_ARGUMENT);
                EXPECT_NE(std::string(detail).find("umap_model_set_metric_fn"), std::string::npos) << detail;
                EXPECT_EQ(umap_model_set_metric_fn(fitted.m, nullptr, nullptr), UMAP_ERR_INVALID_ARGUMENT);
                ASSERT_EQ(umap_model_set_metric_fn(loaded.m, kt::custom_metric, kt::custom_scale()), UMAP_OK);
            } else {
                EXPECT_EQ(umap_model_set_metric_fn(loaded.m, kt::custom_metric, nullptr), UMAP_ERR_INVALID_ARGUMENT)
                    << "a built-in metric takes no function";
            }
            EXPECT_TRUE(kt::bits_equal(embed(loaded.m, q, nq, d), want));
            /* the old integer form (files written before names) */
            if (m == UMAP_METRIC_EUCLIDEAN || m == UMAP_METRIC_COSINE) {
                std::string old = bytes;
                ASSERT_TRUE(patch_once(old, quoted, (m == UMAP_METRIC_EUCLIDEAN ? "0" : "1") +
                                                         std::string(quoted.size() - 1, ' ')));
                spit(path, old);
                ASSERT_EQ(umap_load(path.c_str(), loaded.out(), detail, sizeof detail), UMAP_OK) << detail;
                EXPECT_EQ(umap_model_config(loaded.m)->metric, m);
                EXPECT_TRUE(kt::bits_equal(embed(loaded.m, q, nq, d), want));
            }
            /* an unknown name: a format error naming it */
            std::string bad = bytes, name = umap_metric_name(m);
            std::string wrong = quoted;
            wrong.replace(wrong.find(name), 1, "Q");
            ASSERT_TRUE(patch_once(bad, quoted, wrong));
            spit(path, bad);
            detail[0] = 0;
            EXPECT_EQ(umap_load(path.c_str(), loaded.out(), detail, sizeof detail), UMAP_ERR_FORMAT);
            EXPECT_NE(std::string(detail).find("Q" + name.substr(1)), std::string::npos) << detail;
        }
    }
    std::string rm = "rm -rf '" + dir + "'";
    EXPECT_EQ(system(rm.c_str()), 0);
}

namespace {
/* trustworthiness and recall from their definitions, in double: the data's
   neighbourhoods in metric m, the embedding's in euclidean */
void quality_reference(umap_metric m, double p, const std::vector<float> &x, int64_t n, int64_t d,
                       const std::vector<float> &y, int64_t dy, int k, double *trust, double *recall) {
    double pen = 0.0;
    int64_t hits = 0;
    for (int64_t i = 0; i < n; i++) {
        std::vector<std::pair<double, int64_t>> hd, ld;
        for (int64_t j = 0; j < n; j++) {
            if (j == i) continue;
            hd.push_back({kt::dist(m, &x[(size_t)(i * d)], &x[(size_t)(j * d)], d, p), j});
            ld.push_back({kt::dist(UMAP_METRIC_EUCLIDEAN, &y[(size_t)(i * dy)], &y[(size_t)(j * dy)], dy), j});
        }
        std::sort(hd.begin(), hd.end());
        std::sort(ld.begin(), ld.end());
        for (int t = 0; t < k; t++) {
            int64_t j = ld[(size_t)t].second;
            int64_t rank = 0;
            while (hd[(size_t)rank].second != j) rank++;
            if (rank < k) hits++;
            else pen += (double)(rank + 1 - k);
        }
    }
    *trust = 1.0 - 2.0 / ((double)n * k * (2.0 * n - 3.0 * k - 1.0)) * pen;
    *recall = (double)hits / ((double)n * k);
}
} // namespace

TEST(Metrics, QualityScoresInTheMetric) {
    const int64_t n = 200, d = 8, dy = 2;
    const int k = 10;
    std::vector<float> x = kt::clustered(n, d, 3, 3, 71), y((size_t)(n * dy));
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < dy; j++) y[(size_t)(i * dy + j)] = x[(size_t)(i * d + j)] + 0.3f * x[(size_t)(i * d + 5)];
    for (umap_metric m : all_metrics()) {
        if (is_binary(m)) continue; /* continuous data: hamming's and jaccard's ranks are all ties */
        umap_quality_desc qd;
        std::memset(&qd, 0, sizeof qd);
        qd.metric = m;
        qd.metric_p = 3.0f;
        qd.k = k;
        if (m == UMAP_METRIC_CUSTOM) qd.metric_fn = kt::custom_metric, qd.metric_user_data = kt::custom_scale();
        umap_quality q;
        std::vector<float> xm = for_metric(m, x);
        ASSERT_EQ(umap_quality_eval(&qd, xm.data(), n, d, y.data(), (int)dy, nullptr, &q), UMAP_OK);
        double trust, recall;
        quality_reference(m, 3.0, xm, n, d, y, dy, k, &trust, &recall);
        EXPECT_NEAR(q.trustworthiness, trust, 1e-9) << umap_metric_name(m);
        EXPECT_NEAR(q.knn_recall, recall, 1e-12) << umap_metric_name(m);
        std::printf("      %s: trustworthiness %.4f, recall %.4f\n", umap_metric_name(m), trust, recall);
    }
}

TEST(Metrics, FitAndQualityUseTheMetric) {
    const int64_t n = 300, d = 10;
    std::vector<float> x = kt::clustered(n, d, 4, 3, 41);
    umap_config c = ut::quick_config();
    c.metric = UMAP_METRIC_MINKOWSKI;
    c.metric_p = 2.0f;
    ut::Model a, b;
    ASSERT_EQ(umap_fit(&c, x.data(), n, d, a.out()), UMAP_OK);
    c.metric_p = 4.0f;
    ASSERT_EQ(umap_fit(&c, x.data(), n, d, b.out()), UMAP_OK);
    EXPECT_FALSE(kt::bits_equal(embed(a.m, x, n, d), embed(b.m, x, n, d))) << "metric_p changes the fit";
    /* quality: the data's neighbourhoods in the metric asked for; an
       embedding that is the data's first two columns keeps manhattan and
       euclidean neighbourhoods differently, and recall of the data itself
       (a 2-column set) is 1 in any metric */
    const int64_t d2 = 2;
    std::vector<float> x2((size_t)(n * d2));
    for (int64_t i = 0; i < n * d2; i++) x2[(size_t)i] = x[(size_t)i];
    for (umap_metric m : all_metrics()) {
        if (is_binary(m)) continue;
        umap_quality_desc qd;
        std::memset(&qd, 0, sizeof qd);
        qd.metric = m;
        qd.metric_p = 3.0f;
        qd.k = 10;
        if (m == UMAP_METRIC_CUSTOM) qd.metric_fn = kt::custom_metric, qd.metric_user_data = kt::custom_scale();
        umap_quality q;
        ASSERT_EQ(umap_quality_eval(&qd, for_metric(m, x).data(), n, d, x2.data(), (int)d2, nullptr, &q), UMAP_OK)
            << umap_metric_name(m);
        EXPECT_GT(q.trustworthiness, 0.0);
        EXPECT_LE(q.trustworthiness, 1.0);
        if (m == UMAP_METRIC_EUCLIDEAN) {
            ASSERT_EQ(umap_quality_eval(&qd, x2.data(), n, d2, x2.data(), (int)d2, nullptr, &q), UMAP_OK);
            EXPECT_DOUBLE_EQ(q.knn_recall, 1.0);
            EXPECT_DOUBLE_EQ(q.trustworthiness, 1.0);
        }
        if (m == UMAP_METRIC_MANHATTAN) { /* the same data, scored in manhattan against a euclidean embedding */
            ASSERT_EQ(umap_quality_eval(&qd, x2.data(), n, d2, x2.data(), (int)d2, nullptr, &q), UMAP_OK);
            EXPECT_LT(q.knn_recall, 1.0);
            EXPECT_LT(q.trustworthiness, 1.0);
        }
    }
    umap_quality_desc qd;
    std::memset(&qd, 0, sizeof qd);
    qd.metric = UMAP_METRIC_MINKOWSKI;
    qd.metric_p = 0.5f;
    umap_quality q;
    EXPECT_EQ(umap_quality_eval(&qd, x.data(), n, d, x2.data(), (int)d2, nullptr, &q), UMAP_ERR_INVALID_ARGUMENT);
}

/* --- the CLI --- */
namespace {
int run_cli(const std::string &args, std::string *err) {
    const char *p = getenv("UMAP_CLI");
    std::string bin = p && *p ? p : "build/umap";
    char tmpl[] = "/tmp/umap_metrics_err_XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0) return -1;
    close(fd);
    std::string cmd = "'" + bin + "' " + args + " > /dev/null 2> '" + tmpl + "'";
    int st = system(cmd.c_str());
    *err = slurp(tmpl);
    unlink(tmpl);
    return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
} // namespace

TEST(Metrics, CliKnnTakesEveryMetricByName) {
    const int64_t n = 60, dim = 5;
    const int k = 4;
    /* non-negative, so that every metric takes it (hellinger too) */
    std::vector<float> x = kt::for_metric(UMAP_METRIC_HELLINGER, kt::clustered(n, dim, 3, 2, 55));
    char tmpl[] = "/tmp/umap_metrics_cli_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    const std::string dir = tmpl, in = dir + "/x.f32", out = dir + "/i.i32", dout = dir + "/d.f32";
    spit(in, std::string((const char *)x.data(), x.size() * sizeof(float)));
    std::string err;
    for (umap_metric m : all_metrics()) {
        std::string args = "knn --input '" + in + "' --dim 5 --k 4 --method exact --quiet --output '" + out +
                           "' --distances '" + dout + "' --metric " + umap_metric_name(m);
        if (m == UMAP_METRIC_CUSTOM) { /* a C function: the program has none to call, and says so */
            EXPECT_EQ(run_cli(args, &err), 2);
            EXPECT_NE(err.find("metric_fn"), std::string::npos) << err;
            continue;
        }
        if (m == UMAP_METRIC_MINKOWSKI) args += " --metric-p 3";
        ASSERT_EQ(run_cli(args, &err), 0) << umap_metric_name(m) << ": " << err;
        std::string ib = slurp(out), db = slurp(dout);
        ASSERT_EQ(ib.size(), (size_t)(n * k * 4));
        std::vector<int32_t> idx((size_t)(n * k));
        std::vector<float> d((size_t)(n * k));
        std::memcpy(idx.data(), ib.data(), ib.size());
        std::memcpy(d.data(), db.data(), db.size());
        umap_knn_desc dsc = kt::desc(k, m);
        dsc.metric_p = m == UMAP_METRIC_MINKOWSKI ? 3.0f : 0.0f;
        Knn lib = run_knn(dsc, x, n, dim);
        ASSERT_EQ(lib.r, UMAP_OK);
        EXPECT_TRUE(kt::bits_equal(idx, lib.idx)) << umap_metric_name(m);
        EXPECT_TRUE(kt::bits_equal(d, lib.d)) << umap_metric_name(m);
    }
    /* a bad name or p is a usage error (status 2) that lists the names */
    EXPECT_EQ(run_cli("knn --input '" + in + "' --dim 5 --k 4 --output '" + out + "' --metric mahalanobis", &err), 2);
    EXPECT_NE(err.find("mahalanobis"), std::string::npos) << err;
    EXPECT_NE(err.find("jaccard"), std::string::npos) << err;
    EXPECT_EQ(run_cli("knn --input '" + in + "' --dim 5 --k 4 --output '" + out + "' --metric minkowski --metric-p 0.5",
                      &err),
              2);
    EXPECT_NE(err.find("--metric-p"), std::string::npos) << err;
    EXPECT_EQ(run_cli("eval --input '" + in + "' --dim 5 --embedding '" + in + "' --embedding-dim 5 --metric nope", &err),
              2);
    /* fit takes them too, and the model keeps them */
    const std::string model = dir + "/m.gguf";
    ASSERT_EQ(run_cli("fit --input '" + in + "' --dim 5 --k 8 --epochs 1 --refine-epochs 5 --distill-epochs 1 "
                      "--hidden 8 --metric minkowski --metric-p 3 --quiet --save '" + model + "'",
                      &err),
              0)
        << err;
    {
        ut::Model loaded;
        char detail[256] = "";
        ASSERT_EQ(umap_load(model.c_str(), loaded.out(), detail, sizeof detail), UMAP_OK) << detail;
        EXPECT_EQ(umap_model_config(loaded.m)->metric, UMAP_METRIC_MINKOWSKI);
        EXPECT_EQ(umap_model_config(loaded.m)->metric_p, 3.0f);
    }
    EXPECT_EQ(run_cli("fit --input '" + in + "' --dim 5 --metric cityblock --quiet --save '" + model + "'", &err), 2);
    EXPECT_NE(err.find("cityblock"), std::string::npos) << err;
    /* the help lists every metric */
    std::string out_help;
    {
        std::string bin = getenv("UMAP_CLI") && *getenv("UMAP_CLI") ? getenv("UMAP_CLI") : "build/umap";
        std::string cmd = "'" + bin + "' knn --help > '" + dir + "/help' 2>&1";
        (void)!system(cmd.c_str());
        out_help = slurp(dir + "/help");
    }
    for (umap_metric m : all_metrics())
        EXPECT_NE(out_help.find(umap_metric_name(m)), std::string::npos) << umap_metric_name(m) << " in " << out_help;
    EXPECT_NE(out_help.find("--metric-p"), std::string::npos);
    std::string rm = "rm -rf '" + dir + "'";
    EXPECT_EQ(system(rm.c_str()), 0);
}

TEST(Metrics, NewMetricsByHand) {
    /* umap-learn's definitions (umap/distances.py) worked by hand on two rows,
       x = (1, 0, 3) and y = (2, 2, 0), and a zero row z */
    const std::vector<float> x = {1, 0, 3, 2, 2, 0, 0, 0, 0};
    struct Case {
        umap_metric m;
        double xy, xz, zz;
    };
    const Case cases[] = {
        {UMAP_METRIC_CANBERRA, 1.0 / 3 + 1 + 1, 2.0, 0.0},        /* sum |x - y| / (|x| + |y|) */
        {UMAP_METRIC_BRAYCURTIS, 6.0 / 8, 1.0, 0.0},              /* sum |x - y| / sum |x + y| */
        {UMAP_METRIC_HELLINGER, std::sqrt(1 - std::sqrt(2.0) / 4), std::sqrt(0.5), 0.0},
        {UMAP_METRIC_DICE, 2.0 / (2 * 1 + 2), 1.0, 0.0},          /* (A xor B) / (2 |A and B| + (A xor B)) */
        {UMAP_METRIC_RUSSELLRAO, 2.0 / 3, 1.0, 0.0},              /* (dim - |A and B|) / dim */
    };
    for (const Case &c : cases) {
        umap_knn_desc d = kt::desc(1, c.m);
        std::vector<float> out(9, -1.0f);
        ASSERT_EQ(umap_pairwise(&d, x.data(), 3, 3, out.data()), UMAP_OK) << umap_metric_name(c.m);
        EXPECT_NEAR(out[1], c.xy, 1e-6) << umap_metric_name(c.m);
        EXPECT_NEAR(out[2], c.xz, 1e-6) << umap_metric_name(c.m);
        EXPECT_EQ(out[8], c.zz) << umap_metric_name(c.m);
        EXPECT_EQ(out[0], 0.0f) << umap_metric_name(c.m);
        /* the k-NN agrees with the matrix */
        std::vector<int32_t> idx(3);
        std::vector<float> dist(3);
        ASSERT_EQ(umap_knn(&d, x.data(), 3, 3, idx.data(), dist.data()), UMAP_OK);
        EXPECT_NEAR(dist[0], std::min(c.xy, c.xz), 1e-6) << umap_metric_name(c.m);
    }
}

TEST(Metrics, HellingerRefusesNegativeDataNamingIt) {
    std::vector<float> x = {1, 0, 3, 2, 2, 0, 0.5f, -0.25f, 1};
    umap_knn_info info;
    umap_knn_desc d = kt::desc(1, UMAP_METRIC_HELLINGER);
    d.info = &info;
    std::vector<int32_t> idx(3, -7);
    EXPECT_EQ(umap_knn(&d, x.data(), 3, 3, idx.data(), nullptr), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(info.bad_row, 2);
    EXPECT_NE(std::string(info.error_detail).find("row 2 holds -0.25 (column 1)"), std::string::npos)
        << info.error_detail;
    /* the other metrics take it */
    d.metric = UMAP_METRIC_CANBERRA;
    EXPECT_EQ(umap_knn(&d, x.data(), 3, 3, idx.data(), nullptr), UMAP_OK) << info.error_detail;
}

TEST(Metrics, CliTakesAPrecomputedMatrix) {
    const int64_t n = 80, dim = 5;
    std::vector<float> x = kt::clustered(n, dim, 3, 2, 56), dm((size_t)(n * n));
    umap_knn_desc pd = kt::desc(4, UMAP_METRIC_EUCLIDEAN);
    ASSERT_EQ(umap_pairwise(&pd, x.data(), n, dim, dm.data()), UMAP_OK);
    char tmpl[] = "/tmp/umap_metrics_pre_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    const std::string dir = tmpl, rows = dir + "/x.f32", mat = dir + "/d.f32", q = dir + "/q.f32", idx = dir + "/i.i32",
                      model = dir + "/m.gguf", placed = dir + "/y.f32";
    spit(rows, std::string((const char *)x.data(), x.size() * sizeof(float)));
    spit(mat, std::string((const char *)dm.data(), dm.size() * sizeof(float)));
    spit(q, std::string((const char *)dm.data(), (size_t)(10 * n) * sizeof(float)));
    std::string err, dims = " --dim " + std::to_string(n);
    /* the matrix's k-NN is the rows' euclidean one */
    ASSERT_EQ(run_cli("knn --input '" + mat + "'" + dims + " --k 4 --metric precomputed --quiet --output '" + idx + "'", &err), 0)
        << err;
    std::vector<int32_t> got((size_t)(n * 4));
    std::string ib = slurp(idx);
    ASSERT_EQ(ib.size(), got.size() * 4);
    std::memcpy(got.data(), ib.data(), ib.size());
    Knn want = run_knn(kt::desc(4, UMAP_METRIC_EUCLIDEAN), x, n, dim);
    EXPECT_EQ(got, want.idx);
    /* fit on the matrix, transform rows of distances to the training rows */
    ASSERT_EQ(run_cli("fit --input '" + mat + "'" + dims + " --k 8 --epochs 1 --refine-epochs 5 --distill-epochs 1 "
                      "--hidden 8 --input-dims 16 --metric precomputed --quiet --save '" + model + "'", &err), 0)
        << err;
    ASSERT_EQ(run_cli("transform --model '" + model + "' --input '" + q + "'" + dims + " --quiet --output '" + placed + "'", &err), 0)
        << err;
    std::string yb = slurp(placed);
    ASSERT_EQ(yb.size(), (size_t)(10 * 2 * 4));
    std::vector<float> y(20);
    std::memcpy(y.data(), yb.data(), yb.size());
    for (float v : y) EXPECT_TRUE(std::isfinite(v));
    /* the rows themselves are no distance matrix: refused, nothing written */
    const std::string none = dir + "/none.gguf";
    EXPECT_EQ(run_cli("fit --input '" + rows + "' --dim 5 --metric precomputed --quiet --save '" + none + "'", &err), 1);
    EXPECT_NE(err.find("n x n distance matrix, not 80 rows of 5 columns"), std::string::npos) << err;
    EXPECT_NE(access(none.c_str(), F_OK), 0);
    for (const std::string &f : {rows, mat, q, idx, model, placed}) unlink(f.c_str());
    rmdir(dir.c_str());
}

/* --- haversine: rows of (latitude, longitude) in radians --- */
namespace {

/* the model saved in both formats under dir and loaded back keeps its
   metric and places q (nq x d) to the same bits */
void expect_files_keep(const umap_model *m, const std::string &dir, const std::vector<float> &q, int64_t nq, int64_t d) {
    std::vector<float> want = embed(m, q, nq, d);
    for (const char *ext : {".safetensors", ".gguf"}) {
        SCOPED_TRACE(ext);
        std::string path = dir + "/m" + ext;
        ASSERT_EQ(umap_save(m, path.c_str()), UMAP_OK);
        ut::Model loaded;
        char detail[256] = "";
        ASSERT_EQ(umap_load(path.c_str(), loaded.out(), detail, sizeof detail), UMAP_OK) << detail;
        EXPECT_EQ(umap_model_config(loaded.m)->metric, umap_model_config(m)->metric);
        EXPECT_TRUE(kt::bits_equal(embed(loaded.m, q, nq, d), want));
        unlink(path.c_str());
    }
}

/* umap_quality_eval in metric m with k neighbours, no labels */
umap_result quality_in(umap_metric m, const float *x, int64_t n, int64_t d, const float *y, int dy, int k,
                       umap_quality *q) {
    umap_quality_desc qd;
    std::memset(&qd, 0, sizeof qd);
    qd.metric = m;
    qd.k = k;
    return umap_quality_eval(&qd, x, n, d, y, dy, nullptr, q);
}

/* clusters on the sphere, one of them straddling the antimeridian (its
   longitudes near +pi and -pi) and one on the north pole, with
   duplicates; longitudes wrapped into [-pi, pi) */
std::vector<float> sphere_rows(int64_t n, uint64_t seed) {
    const double centres[6][2] = {{0.3, 3.12}, {1.45, 0.0}, {-0.8, 1.0}, {0.0, -1.5}, {-1.2, -2.5}, {0.6, 0.2}};
    const double pi = 3.14159265358979323846;
    std::vector<float> x((size_t)(2 * n));
    for (int64_t i = 0; i < n; i++) {
        const double *c = centres[i % 6];
        double lat = c[0] + 0.16 * (ut::unit(seed, (uint64_t)(2 * i)) - 0.5);
        double lon = c[1] + 0.16 * (ut::unit(seed, (uint64_t)(2 * i + 1)) - 0.5);
        if (lat > pi / 2) { lat = pi - lat; lon += pi; } /* over the pole */
        lon = std::fmod(lon + 3 * pi, 2 * pi) - pi;
        x[(size_t)(2 * i)] = (float)lat;
        x[(size_t)(2 * i + 1)] = (float)lon;
    }
    if (n > 12) {
        kt::copy_row(x, 2, 3, 10);
        kt::copy_row(x, 2, 3, 11);
    }
    return x;
}

} // namespace

TEST(Metrics, HaversineByHand) {
    const float q = 1.5707963705062866f; /* float's pi/2, the pole */
    /* London, Paris (343.6 km apart on a sphere of radius 6371 km), a point
       on the equator, a quarter turn east of it, its antipode, the pole, and
       two points 0.02 radians of longitude apart across the antimeridian */
    const double deg = 3.14159265358979323846 / 180.0;
    const std::vector<float> x = {(float)(51.5074 * deg), (float)(-0.1278 * deg), (float)(48.8566 * deg),
                                  (float)(2.3522 * deg), 0.0f, 0.0f, 0.0f, q, 0.0f, 3.14159265f, q, 0.0f,
                                  0.5f, 3.13159265f, 0.5f, -3.13159265f};
    const int64_t n = 8;
    std::vector<float> D((size_t)(n * n));
    umap_knn_desc dsc = kt::desc(3, UMAP_METRIC_HAVERSINE);
    ASSERT_EQ(umap_pairwise(&dsc, x.data(), n, 2, D.data()), UMAP_OK);
    auto at = [&](int i, int j) { return (double)D[(size_t)(i * n + j)]; };
    EXPECT_NEAR(at(0, 1) * 6371.0, 343.6, 0.1);
    EXPECT_NEAR(at(2, 3), 1.5707963, 1e-6);  /* a quarter of the equator */
    EXPECT_NEAR(at(2, 4), 3.1415927, 1e-6);  /* antipodes: the rounding of h past 1 is clamped */
    EXPECT_NEAR(at(2, 5), 1.5707963, 1e-6);  /* equator to pole */
    EXPECT_NEAR(at(3, 5), 1.5707963, 1e-6);  /* any longitude at the pole */
    /* across the antimeridian, not around the parallel */
    EXPECT_NEAR(at(6, 7), 2 * std::asin(std::cos(0.5) * std::sin(3.14159265358979 - 3.13159265)), 1e-6);
    for (int64_t i = 0; i < n; i++) {
        EXPECT_EQ(at(i, i), 0.0);
        for (int64_t j = 0; j < n; j++) {
            EXPECT_EQ(at(i, j), at(j, i));
            EXPECT_NEAR(at(i, j), kt::dist(UMAP_METRIC_HAVERSINE, &x[(size_t)(2 * i)], &x[(size_t)(2 * j)], 2),
                        1e-6) << i << "," << j;
        }
    }
    /* the nearest neighbour of the point east of the antimeridian is the one west of it */
    std::vector<int32_t> idx((size_t)(n * 3));
    ASSERT_EQ(umap_knn(&dsc, x.data(), n, 2, idx.data(), nullptr), UMAP_OK);
    EXPECT_EQ(idx[(size_t)(6 * 3)], 7);
    EXPECT_EQ(idx[(size_t)(7 * 3)], 6);
}

TEST(Metrics, HaversineSearchesMatchTheReference) {
    /* exact self search, several tile sizes, against the double reference */
    for (int tile : {16, 64, 0}) {
        const int64_t n = 400;
        const int k = 10;
        std::vector<float> x = sphere_rows(n, 90 + (uint64_t)tile);
        umap_knn_desc dsc = kt::desc(k, UMAP_METRIC_HAVERSINE);
        dsc.tile_rows = tile;
        SCOPED_TRACE("tile " + std::to_string(tile));
        Knn got = run_knn(dsc, x, n, 2);
        ASSERT_EQ(got.r, UMAP_OK) << got.info.error_detail;
        kt::Ref ref = kt::reference_self(UMAP_METRIC_HAVERSINE, x, n, 2, k);
        EXPECT_TRUE(kt::check_knn(got.idx, got.d, ref, UMAP_METRIC_HAVERSINE, x.data(), n, x.data(), 2, true, kt::Tol()));
    }
    { /* queries among base rows; pairwise */
        const int64_t nb = 300, nq = 50;
        const int k = 7;
        std::vector<float> base = sphere_rows(nb, 91), qr = sphere_rows(nq, 92);
        umap_knn_desc dsc = kt::desc(k, UMAP_METRIC_HAVERSINE);
        std::vector<int32_t> idx((size_t)(nq * k));
        std::vector<float> d((size_t)(nq * k));
        ASSERT_EQ(umap_knn_query(&dsc, base.data(), nb, qr.data(), nq, 2, idx.data(), d.data()), UMAP_OK);
        kt::Ref ref = kt::reference(UMAP_METRIC_HAVERSINE, base.data(), nb, qr.data(), nq, 2, k, false);
        EXPECT_TRUE(kt::check_knn(idx, d, ref, UMAP_METRIC_HAVERSINE, base.data(), nb, qr.data(), 2, false, kt::Tol()));
    }
    /* NN-Descent: recall against the exact search, and the same bits for
       any thread count, as the exact search's */
    const int64_t n = 3000;
    const int k = 10;
    std::vector<float> x = sphere_rows(n, 93);
    Knn exact = run_knn(kt::desc(k, UMAP_METRIC_HAVERSINE, UMAP_KNN_EXACT), x, n, 2);
    ASSERT_EQ(exact.r, UMAP_OK) << exact.info.error_detail;
    for (umap_knn_method method : {UMAP_KNN_EXACT, UMAP_KNN_NNDESCENT}) {
        Knn first;
        for (int th : {1, 2, 4}) {
            umap_knn_desc dsc = kt::desc(k, UMAP_METRIC_HAVERSINE, method);
            dsc.n_threads = th;
            dsc.seed = 5;
            Knn got = run_knn(dsc, x, n, 2);
            ASSERT_EQ(got.r, UMAP_OK) << got.info.error_detail;
            SCOPED_TRACE(std::string(method == UMAP_KNN_EXACT ? "exact" : "nndescent") + " threads " + std::to_string(th));
            if (th > 1) {
                EXPECT_TRUE(kt::bits_equal(first.idx, got.idx));
                EXPECT_TRUE(kt::bits_equal(first.d, got.d));
                continue;
            }
            first = got;
            if (method == UMAP_KNN_EXACT) continue;
            EXPECT_TRUE(kt::valid_knn(got.idx, got.d, n, k, UMAP_METRIC_HAVERSINE, x, 2, 1e-5, 1e-5));
            double rec = kt::recall(got.idx, exact.d, n, k, UMAP_METRIC_HAVERSINE, x, 2);
            std::printf("      haversine: NN-Descent recall@%d = %.4f (%d rounds)\n", k, rec, got.info.iterations);
            EXPECT_GE(rec, 0.95);
        }
    }
}

TEST(Metrics, HaversineRefusesRowsThatAreNotLatitudeAndLongitude) {
    const int64_t n = 40;
    std::vector<float> x = sphere_rows(n, 94), D((size_t)(n * n));
    std::vector<int32_t> idx((size_t)(n * 3));
    umap_knn_info info;
    umap_knn_desc dsc = kt::desc(3, UMAP_METRIC_HAVERSINE);
    dsc.info = &info;
    auto detail_has = [&](const char *s) { return std::string(info.error_detail).find(s) != std::string::npos; };
    /* the poles and longitudes up to 2 pi, in float, are in */
    const float q = 1.5707963705062866f, tau = 6.2831854820251465f;
    std::vector<float> edges = x;
    edges[0] = q; edges[2] = -q; edges[3] = tau; edges[5] = -tau;
    EXPECT_EQ(umap_knn(&dsc, edges.data(), n, 2, idx.data(), nullptr), UMAP_OK) << info.error_detail;
    /* 3 columns */
    std::vector<float> three((size_t)(n * 3), 0.1f);
    EXPECT_EQ(umap_knn(&dsc, three.data(), n, 3, idx.data(), nullptr), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_TRUE(detail_has("2 columns")) << info.error_detail;
    /* degrees, a latitude past the pole, a longitude past 2 pi: the row named */
    for (int which = 0; which < 3; which++) {
        std::vector<float> bad = x;
        if (which == 0) for (float &v : bad) v *= 57.29578f;
        if (which == 1) bad[(size_t)(2 * 17)] = std::nextafter(q, 2.0f);
        if (which == 2) bad[(size_t)(2 * 17 + 1)] = -std::nextafter(tau, 7.0f);
        const int64_t row = which == 0 ? 0 : 17;
        for (umap_knn_method method : {UMAP_KNN_EXACT, UMAP_KNN_NNDESCENT}) {
            dsc.method = method;
            info.bad_row = -1;
            EXPECT_EQ(umap_knn(&dsc, bad.data(), n, 2, idx.data(), nullptr), UMAP_ERR_INVALID_ARGUMENT) << which;
            EXPECT_EQ(info.bad_row, row) << which;
            EXPECT_TRUE(detail_has(("row " + std::to_string(row) + " holds").c_str())) << info.error_detail;
            EXPECT_TRUE(detail_has("radians")) << info.error_detail;
        }
        dsc.method = UMAP_KNN_AUTO;
        /* as the queries or as the base */
        EXPECT_EQ(umap_knn_query(&dsc, x.data(), n, bad.data(), n, 2, idx.data(), nullptr), UMAP_ERR_INVALID_ARGUMENT);
        EXPECT_TRUE(detail_has("queries")) << info.error_detail;
        EXPECT_EQ(umap_knn_query(&dsc, bad.data(), n, x.data(), n, 2, idx.data(), nullptr), UMAP_ERR_INVALID_ARGUMENT);
        EXPECT_TRUE(detail_has("base")) << info.error_detail;
        EXPECT_EQ(umap_pairwise(&dsc, bad.data(), n, 2, D.data()), UMAP_ERR_INVALID_ARGUMENT);
        /* fit, transform and the quality score */
        umap_config c = ut::quick_config();
        c.metric = UMAP_METRIC_HAVERSINE;
        umap_fit_info fi;
        c.info = &fi;
        ut::Model m;
        EXPECT_EQ(umap_fit(&c, bad.data(), n, 2, m.out()), UMAP_ERR_INVALID_ARGUMENT) << which;
        EXPECT_NE(std::string(fi.error_detail).find("row " + std::to_string(row)), std::string::npos) << fi.error_detail;
        EXPECT_EQ(m.m, nullptr);
        umap_quality qual;
        EXPECT_EQ(quality_in(UMAP_METRIC_HAVERSINE, bad.data(), n, 2, x.data(), 2, 5, &qual), UMAP_ERR_INVALID_ARGUMENT);
    }
    umap_config c = ut::quick_config();
    c.metric = UMAP_METRIC_HAVERSINE;
    ut::Model m;
    ASSERT_EQ(umap_fit(&c, x.data(), n, 2, m.out()), UMAP_OK);
    std::vector<float> row = {0.5f, 120.0f}, y(2, -7.0f);
    char detail[256] = "";
    EXPECT_EQ(umap_transform_ex(m.m, row.data(), 1, 2, y.data(), 1, detail, sizeof detail), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(detail).find("row 0 holds (0.5, 120)"), std::string::npos) << detail;
    EXPECT_EQ(y[0], -7.0f) << "nothing written";
    c.metric = UMAP_METRIC_HAVERSINE;
    std::vector<float> wide((size_t)(n * 3), 0.25f);
    for (size_t i = 0; i < wide.size(); i++) wide[i] += 0.01f * (float)(i % 17);
    EXPECT_EQ(umap_fit(&c, wide.data(), n, 3, m.out()), UMAP_ERR_INVALID_ARGUMENT);
}

TEST(Metrics, HaversineFitTransformModelFilesAndCli) {
    const int64_t n = 600, nq = 60;
    std::vector<float> x = sphere_rows(n, 95), qr = sphere_rows(nq, 96);
    umap_config c = umap_config_default();
    c.metric = UMAP_METRIC_HAVERSINE;
    c.n_threads = 2;
    c.keep_data = 1; /* transform refines among the kept rows: their k-NN is haversine's */
    ut::Model fitted;
    ASSERT_EQ(umap_fit(&c, x.data(), n, 2, fitted.out()), UMAP_OK);
    std::vector<float> y = embed(fitted.m, x, n, 2);
    /* the cluster that straddles the antimeridian is one cluster in the
       embedding: its halves (longitude > 0 and < 0) are nearer each other
       than to any other cluster */
    auto centre = [&](int cluster, int side) {
        double s[2] = {0, 0};
        int64_t cnt = 0;
        for (int64_t i = 0; i < n; i++)
            if (i % 6 == cluster && (side == 0 || (side > 0) == (x[(size_t)(2 * i + 1)] > 0))) {
                s[0] += y[(size_t)(2 * i)];
                s[1] += y[(size_t)(2 * i + 1)];
                cnt++;
            }
        return std::vector<double>{s[0] / (double)cnt, s[1] / (double)cnt};
    };
    auto gap = [](const std::vector<double> &a, const std::vector<double> &b) { return std::hypot(a[0] - b[0], a[1] - b[1]); };
    double halves = gap(centre(0, 1), centre(0, -1)), nearest_other = 1e30;
    for (int other = 1; other < 6; other++) nearest_other = std::min(nearest_other, gap(centre(0, 0), centre(other, 0)));
    std::printf("      haversine: the antimeridian cluster's halves %.3f apart, the nearest other cluster %.3f\n", halves,
                nearest_other);
    EXPECT_LT(halves, 0.5 * nearest_other);
    umap_quality q;
    ASSERT_EQ(quality_in(UMAP_METRIC_HAVERSINE, x.data(), n, 2, y.data(), 2, 10, &q), UMAP_OK);
    std::printf("      haversine: trustworthiness %.4f\n", q.trustworthiness);
    EXPECT_GT(q.trustworthiness, 0.9);
    /* the model files keep the metric by name; transform gives the same bits */
    char tmpl[] = "/tmp/umap_metrics_hav_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    const std::string dir = tmpl;
    expect_files_keep(fitted.m, dir, qr, nq, 2);
    /* the umap program's k-NN: the library's bits */
    const std::string in = dir + "/x.f32", out = dir + "/i.i32", dout = dir + "/d.f32";
    spit(in, std::string((const char *)x.data(), x.size() * sizeof(float)));
    std::string err;
    ASSERT_EQ(run_cli("knn --input '" + in + "' --dim 2 --k 6 --metric haversine --quiet --output '" + out +
                      "' --distances '" + dout + "'", &err), 0)
        << err;
    Knn lib = run_knn(kt::desc(6, UMAP_METRIC_HAVERSINE), x, n, 2);
    ASSERT_EQ(lib.r, UMAP_OK);
    std::string ib = slurp(out), db = slurp(dout);
    ASSERT_EQ(ib.size(), lib.idx.size() * 4);
    EXPECT_EQ(std::memcmp(ib.data(), lib.idx.data(), ib.size()), 0);
    EXPECT_EQ(std::memcmp(db.data(), lib.d.data(), db.size()), 0);
    /* degrees: refused, naming the row, nothing written */
    std::vector<float> degrees = x;
    for (float &v : degrees) v *= 57.29578f;
    spit(in, std::string((const char *)degrees.data(), degrees.size() * sizeof(float)));
    unlink(out.c_str());
    EXPECT_EQ(run_cli("knn --input '" + in + "' --dim 2 --k 6 --metric haversine --quiet --output '" + out + "'", &err), 1);
    EXPECT_NE(err.find("radians"), std::string::npos) << err;
    EXPECT_NE(access(out.c_str(), F_OK), 0);
    std::string rm = "rm -rf '" + dir + "'";
    EXPECT_EQ(system(rm.c_str()), 0);
}

/* --- seuclidean: euclidean over columns divided by sqrt V --- */
namespace {

/* columns of very different scales, one of them constant */
std::vector<float> uneven_columns(int64_t n, int64_t dim, uint64_t seed) {
    std::vector<float> x = kt::clustered(n, dim, 5, 3, seed);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < dim; j++) {
            float &v = x[(size_t)(i * dim + j)];
            v = j == 2 ? 7.5f : v * std::pow(10.0f, (float)(j % 5) - 2.0f);
        }
    return x;
}

/* the copy the definition measures in euclidean: column j times
   1 / sqrt V_j in double (V the base's sample variances when v is empty),
   each product rounded once, as the library's working copy */
std::vector<float> divided(const std::vector<float> &x, int64_t n, int64_t dim, const std::vector<float> &base,
                           int64_t nb, std::vector<double> v = {}) {
    if (v.empty())
        for (int64_t j = 0; j < dim; j++) {
            double mean = 0, ss = 0;
            for (int64_t i = 0; i < nb; i++) mean += base[(size_t)(i * dim + j)];
            mean /= (double)nb;
            for (int64_t i = 0; i < nb; i++) ss += (base[(size_t)(i * dim + j)] - mean) * (base[(size_t)(i * dim + j)] - mean);
            v.push_back(ss / (double)(nb - 1));
        }
    std::vector<float> out(x.size());
    for (int64_t j = 0; j < dim; j++) {
        double w = v[(size_t)j] > 0 ? 1.0 / std::sqrt(v[(size_t)j]) : 0.0;
        for (int64_t i = 0; i < n; i++) out[(size_t)(i * dim + j)] = (float)((double)x[(size_t)(i * dim + j)] * w);
    }
    return out;
}

} // namespace

TEST(Metrics, SeuclideanIsEuclideanOverColumnsDividedBySqrtV) {
    const int64_t n = 500, dim = 9, nq = 40;
    const int k = 8;
    std::vector<float> x = uneven_columns(n, dim, 101), q = uneven_columns(nq, dim, 102);
    std::vector<float> xs = divided(x, n, dim, x, n);
    /* self: exact and NN-Descent, against euclidean on the divided copy;
       the constant column is left out (V = 0), and the distances are the
       definition's to float rounding */
    umap_knn_desc dsc = kt::desc(k, UMAP_METRIC_SEUCLIDEAN);
    Knn got = run_knn(dsc, x, n, dim);
    ASSERT_EQ(got.r, UMAP_OK) << got.info.error_detail;
    kt::Ref ref = kt::reference_self(UMAP_METRIC_EUCLIDEAN, xs, n, dim, k);
    EXPECT_TRUE(kt::check_knn(got.idx, got.d, ref, UMAP_METRIC_EUCLIDEAN, xs.data(), n, xs.data(), dim, true, kt::Tol()));
    for (int64_t i = 0; i < n; i += 37)
        for (int t = 0; t < k; t++) {
            int64_t j = got.idx[(size_t)(i * k + t)];
            double s2 = 0, mean[9] = {0}, var[9] = {0};
            for (int64_t c = 0; c < dim; c++) {
                for (int64_t r = 0; r < n; r++) mean[c] += x[(size_t)(r * dim + c)] / (double)n;
                for (int64_t r = 0; r < n; r++) var[c] += std::pow(x[(size_t)(r * dim + c)] - mean[c], 2) / (double)(n - 1);
                if (var[c] > 0) s2 += std::pow((double)x[(size_t)(i * dim + c)] - x[(size_t)(j * dim + c)], 2) / var[c];
            }
            ASSERT_NEAR(got.d[(size_t)(i * k + t)], std::sqrt(s2), 1e-5 * std::sqrt(s2) + 1e-6) << i << " " << j;
        }
    Knn nnd = run_knn(kt::desc(k, UMAP_METRIC_SEUCLIDEAN, UMAP_KNN_NNDESCENT), x, n, dim);
    ASSERT_EQ(nnd.r, UMAP_OK) << nnd.info.error_detail;
    EXPECT_GE(kt::recall(nnd.idx, got.d, n, k, UMAP_METRIC_EUCLIDEAN, xs, dim), 0.95);
    /* same bits for any thread count */
    for (umap_knn_method method : {UMAP_KNN_EXACT, UMAP_KNN_NNDESCENT}) {
        umap_knn_desc one = kt::desc(k, UMAP_METRIC_SEUCLIDEAN, method), four = one;
        one.n_threads = 1;
        four.n_threads = 4;
        Knn a = run_knn(one, x, n, dim), b = run_knn(four, x, n, dim);
        EXPECT_TRUE(kt::bits_equal(a.idx, b.idx));
        EXPECT_TRUE(kt::bits_equal(a.d, b.d));
    }
    /* a query: the base's variances divide the queries' columns too */
    std::vector<int32_t> idx((size_t)(nq * k));
    std::vector<float> d((size_t)(nq * k));
    ASSERT_EQ(umap_knn_query(&dsc, x.data(), n, q.data(), nq, dim, idx.data(), d.data()), UMAP_OK);
    std::vector<float> qs = divided(q, nq, dim, x, n);
    kt::Ref qref = kt::reference(UMAP_METRIC_EUCLIDEAN, xs.data(), n, qs.data(), nq, dim, k, false);
    EXPECT_TRUE(kt::check_knn(idx, d, qref, UMAP_METRIC_EUCLIDEAN, xs.data(), n, qs.data(), dim, false, kt::Tol()));
    /* the graph search walks the same metric */
    std::vector<int32_t> gidx((size_t)(nq * k));
    std::vector<float> gd((size_t)(nq * k));
    ASSERT_EQ(umap_knn_query_graph(&dsc, x.data(), n, got.idx.data(), k, q.data(), nq, dim, nullptr, 0, gidx.data(),
                                   gd.data()),
              UMAP_OK);
    int64_t hits = 0;
    for (int64_t i = 0; i < nq * k; i++) hits += std::find(idx.begin() + (i / k) * k, idx.begin() + (i / k + 1) * k, gidx[(size_t)i]) !=
                                              idx.begin() + (i / k + 1) * k;
    EXPECT_GE((double)hits / (double)(nq * k), 0.95);
    /* pairwise: the same distances */
    const int64_t np = 30;
    std::vector<float> D((size_t)(np * np));
    std::vector<float> xp(x.begin(), x.begin() + np * dim), xps = divided(xp, np, dim, xp, np);
    ASSERT_EQ(umap_pairwise(&dsc, xp.data(), np, dim, D.data()), UMAP_OK);
    for (int64_t i = 0; i < np; i++)
        for (int64_t j = 0; j < np; j++) {
            double want = kt::dist(UMAP_METRIC_EUCLIDEAN, &xps[(size_t)(i * dim)], &xps[(size_t)(j * dim)], dim);
            ASSERT_NEAR(D[(size_t)(i * np + j)], want, 2e-5 + 1e-5 * want) << i << "," << j;
        }
    /* the quality scores rank the data's neighbours the same way: as
       euclidean on the divided copy, with V given or the data's */
    {
        std::vector<float> y((size_t)(n * 2));
        for (int64_t i = 0; i < n; i++) {
            y[(size_t)(2 * i)] = xs[(size_t)(i * dim)] + 0.5f * xs[(size_t)(i * dim + 4)];
            y[(size_t)(2 * i + 1)] = xs[(size_t)(i * dim + 1)];
        }
        umap_quality got_q, want_q;
        ASSERT_EQ(quality_in(UMAP_METRIC_SEUCLIDEAN, x.data(), n, dim, y.data(), 2, 10, &got_q), UMAP_OK);
        ASSERT_EQ(quality_in(UMAP_METRIC_EUCLIDEAN, xs.data(), n, dim, y.data(), 2, 10, &want_q), UMAP_OK);
        EXPECT_NEAR(got_q.trustworthiness, want_q.trustworthiness, 1e-9);
        EXPECT_NEAR(got_q.knn_recall, want_q.knn_recall, 1e-12);
        EXPECT_LT(got_q.trustworthiness, 1.0);
    }
    /* V given: all ones is euclidean itself, bit for bit */
    std::vector<float> ones((size_t)dim, 1.0f);
    dsc.metric_v = ones.data();
    Knn unit = run_knn(dsc, x, n, dim), eu = run_knn(kt::desc(k, UMAP_METRIC_EUCLIDEAN), x, n, dim);
    ASSERT_EQ(unit.r, UMAP_OK) << unit.info.error_detail;
    EXPECT_TRUE(kt::bits_equal(unit.idx, eu.idx));
    EXPECT_TRUE(kt::bits_equal(unit.d, eu.d));
}

TEST(Metrics, SeuclideanRefusesBadVariances) {
    const int64_t n = 60, dim = 4;
    std::vector<float> x = uneven_columns(n, dim, 103);
    std::vector<int32_t> idx((size_t)(n * 3));
    umap_knn_info info;
    umap_knn_desc dsc = kt::desc(3, UMAP_METRIC_SEUCLIDEAN);
    dsc.info = &info;
    for (float bad : {-1.0f, NAN, INFINITY}) {
        std::vector<float> v = {1, 2, bad, 4};
        dsc.metric_v = v.data();
        EXPECT_EQ(umap_knn(&dsc, x.data(), n, dim, idx.data(), nullptr), UMAP_ERR_INVALID_ARGUMENT) << bad;
        EXPECT_NE(std::string(info.error_detail).find("metric_v[2]"), std::string::npos) << info.error_detail;
        umap_config c = ut::quick_config();
        c.metric = UMAP_METRIC_SEUCLIDEAN;
        c.metric_v = v.data();
        umap_fit_info fi;
        c.info = &fi;
        ut::Model m;
        EXPECT_EQ(umap_fit(&c, x.data(), n, dim, m.out()), UMAP_ERR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(fi.error_detail).find("metric_v[2]"), std::string::npos) << fi.error_detail;
    }
    std::vector<float> zeros((size_t)dim, 0.0f);
    dsc.metric_v = zeros.data();
    EXPECT_EQ(umap_knn(&dsc, x.data(), n, dim, idx.data(), nullptr), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("every column"), std::string::npos) << info.error_detail;
    /* constant data: every variance 0 */
    std::vector<float> flat((size_t)(n * dim), 3.0f);
    dsc.metric_v = nullptr;
    EXPECT_EQ(umap_knn(&dsc, flat.data(), n, dim, idx.data(), nullptr), UMAP_ERR_INVALID_ARGUMENT);
    /* V for another metric */
    std::vector<float> ones((size_t)dim, 1.0f);
    dsc.metric = UMAP_METRIC_EUCLIDEAN;
    dsc.metric_v = ones.data();
    EXPECT_EQ(umap_knn(&dsc, x.data(), n, dim, idx.data(), nullptr), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("seuclidean"), std::string::npos) << info.error_detail;
    umap_config c = ut::quick_config();
    c.metric_v = ones.data();
    char why[400] = "";
    EXPECT_EQ(umap_config_check(&c, n, dim, why, sizeof why), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(why).find("seuclidean"), std::string::npos) << why;
}

TEST(Metrics, SeuclideanModelKeepsItsVariances) {
    const int64_t n = 400, dim = 6, nq = 30;
    std::vector<float> x = uneven_columns(n, dim, 104), q = uneven_columns(nq, dim, 105);
    umap_config c = ut::quick_config();
    c.metric = UMAP_METRIC_SEUCLIDEAN;
    c.keep_data = 1; /* transform's neighbours among the kept rows are seuclidean's, with the fit's V */
    ut::Model fitted, ones_model;
    ASSERT_EQ(umap_fit(&c, x.data(), n, dim, fitted.out()), UMAP_OK);
    EXPECT_EQ(umap_model_config(fitted.m)->metric_v, nullptr) << "the caller's pointer is not kept";
    std::vector<float> want = embed(fitted.m, q, nq, dim);
    /* V given: another model */
    std::vector<float> ones((size_t)dim, 1.0f);
    c.metric_v = ones.data();
    ASSERT_EQ(umap_fit(&c, x.data(), n, dim, ones_model.out()), UMAP_OK);
    EXPECT_FALSE(kt::bits_equal(embed(ones_model.m, q, nq, dim), want));
    char tmpl[] = "/tmp/umap_metrics_se_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    const std::string dir = tmpl;
    expect_files_keep(fitted.m, dir, q, nq, dim);
    for (const char *ext : {".safetensors", ".gguf"}) { /* a variance that is not one: refused, naming the tensor */
        SCOPED_TRACE(ext);
        std::string path = dir + "/m" + ext;
        ut::Model loaded;
        char detail[256] = "";
        ASSERT_EQ(umap_save(ones_model.m, path.c_str()), UMAP_OK);
        std::string bytes = slurp(path), one(4, '\0'), neg(4, '\0');
        const float f1 = 1.0f, fneg = -1.0f;
        std::memcpy(&one[0], &f1, 4);
        std::memcpy(&neg[0], &fneg, 4);
        std::string ones_bytes, neg_bytes = neg;
        for (int64_t j = 0; j < dim; j++) ones_bytes += one;
        neg_bytes += std::string(ones_bytes, 4);
        ASSERT_TRUE(patch_once(bytes, ones_bytes, neg_bytes)) << "metric.v's bytes, once";
        spit(path, bytes);
        EXPECT_EQ(umap_load(path.c_str(), loaded.out(), detail, sizeof detail), UMAP_ERR_FORMAT);
        EXPECT_NE(std::string(detail).find("metric.v"), std::string::npos) << detail;
    }
    /* the umap program fits and searches with it */
    const std::string in = dir + "/x.f32", out = dir + "/i.i32", model = dir + "/m.gguf";
    spit(in, std::string((const char *)x.data(), x.size() * sizeof(float)));
    std::string err;
    ASSERT_EQ(run_cli("knn --input '" + in + "' --dim 6 --k 5 --metric seuclidean --quiet --output '" + out + "'", &err), 0)
        << err;
    Knn lib = run_knn(kt::desc(5, UMAP_METRIC_SEUCLIDEAN), x, n, dim);
    std::string ib = slurp(out);
    ASSERT_EQ(ib.size(), lib.idx.size() * 4);
    EXPECT_EQ(std::memcmp(ib.data(), lib.idx.data(), ib.size()), 0);
    ASSERT_EQ(run_cli("fit --input '" + in + "' --dim 6 --k 8 --epochs 1 --refine-epochs 5 --distill-epochs 1 --hidden 8 "
                      "--metric seuclidean --keep-data --quiet --save '" + model + "'", &err), 0)
        << err;
    /* --metric-v: the library's metric_v */
    const std::vector<float> v = {1.0f, 4.0f, 0.5f, 2.0f, 9.0f, 1.0f};
    const std::string vfile = dir + "/v.f32";
    spit(vfile, std::string((const char *)v.data(), v.size() * sizeof(float)));
    ASSERT_EQ(run_cli("knn --input '" + in + "' --dim 6 --k 5 --metric seuclidean --metric-v '" + vfile +
                      "' --quiet --output '" + out + "'", &err), 0)
        << err;
    umap_knn_desc vd = kt::desc(5, UMAP_METRIC_SEUCLIDEAN);
    vd.metric_v = v.data();
    Knn given = run_knn(vd, x, n, dim);
    ib = slurp(out);
    ASSERT_EQ(ib.size(), given.idx.size() * 4);
    EXPECT_EQ(std::memcmp(ib.data(), given.idx.data(), ib.size()), 0);
    EXPECT_FALSE(kt::bits_equal(given.idx, lib.idx)) << "V changes the neighbours";
    ASSERT_EQ(run_cli("fit --input '" + in + "' --dim 6 --k 8 --epochs 1 --refine-epochs 5 --distill-epochs 1 --hidden 8 "
                      "--metric seuclidean --metric-v '" + vfile + "' --quiet --save '" + model + "'", &err), 0)
        << err;
    EXPECT_EQ(run_cli("knn --input '" + in + "' --dim 6 --k 5 --metric cosine --metric-v '" + vfile + "' --quiet --output '" +
                      out + "'", &err), 1);
    EXPECT_NE(err.find("--metric-v is seuclidean's"), std::string::npos) << err;
    std::string rm = "rm -rf '" + dir + "'";
    EXPECT_EQ(system(rm.c_str()), 0);
}
