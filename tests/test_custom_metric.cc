/* >>knn custom metric: the caller's C function (UMAP_METRIC_CUSTOM). The
   metric suites (test_metrics.cc, test_knn.cc) run it through every search
   with the rest of the list (kt::custom_metric); here: what a wrong
   function gets (an error naming the pair, in every search and in fit),
   a function that computes a built-in gives the built-in's fit, the same
   bits for any thread count, and a model that grows or loads with it. */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

#include "test_knn_util.h"

namespace {

/* rows whose first column is the row's number, so that a function can
   tell a pair by the values it is handed */
std::vector<float> numbered_rows(int64_t n, int64_t dim, uint64_t seed) {
    std::vector<float> x = kt::clustered(n, dim, 3, 2, seed);
    for (int64_t i = 0; i < n; i++) x[(size_t)(i * dim)] = (float)i;
    return x;
}

/* kt::custom_metric, but the pair (3, 7) gets *(double *)user_data */
extern "C" double wrong_for_3_7(const float *a, const float *b, int64_t dim, void *user_data) {
    if ((a[0] == 3.0f && b[0] == 7.0f) || (a[0] == 7.0f && b[0] == 3.0f)) return *(const double *)user_data;
    return kt::custom_metric(a, b, dim, kt::custom_scale());
}

/* euclidean, as umap_knn.h's double reference computes it */
extern "C" double euclidean_by_hand(const float *a, const float *b, int64_t dim, void *user_data) {
    double s = 0.0;
    (void)user_data;
    for (int64_t j = 0; j < dim; j++) {
        double d = (double)a[j] - b[j];
        s += d * d;
    }
    return std::sqrt(s);
}

std::vector<float> embed(const umap_model *m, const std::vector<float> &x, int64_t n, int64_t d) {
    std::vector<float> y((size_t)(n * umap_model_config(m)->n_components));
    char detail[256] = "";
    EXPECT_EQ(umap_transform_ex(m, x.data(), n, d, y.data(), 2, detail, sizeof detail), UMAP_OK) << detail;
    return y;
}

umap_config custom_config() {
    umap_config c = ut::quick_config();
    c.metric = UMAP_METRIC_CUSTOM;
    c.metric_fn = kt::custom_metric;
    c.metric_user_data = kt::custom_scale();
    c.keep_data = UMAP_KEEP_ROWS;
    return c;
}

} // namespace

TEST(CustomMetric, WrongDistancesAreErrorsNamingThePair) {
    const int64_t n = 40, dim = 6;
    std::vector<float> x = numbered_rows(n, dim, 3);
    std::vector<int32_t> idx((size_t)(n * 4));
    std::vector<float> d((size_t)(n * 4)), all((size_t)(n * n));
    struct Wrong {
        double value;
        const char *says;
    } wrongs[] = {{NAN, "NaN, Inf or beyond float's range"},
                  {-INFINITY, "NaN, Inf or beyond float's range"},
                  {INFINITY, "NaN, Inf or beyond float's range"},
                  {1e300, "NaN, Inf or beyond float's range"},
                  {-2.0, "is -2, below 0"},
                  {-1e-300, "below 0"}};
    for (const Wrong &w : wrongs) {
        double value = w.value;
        SCOPED_TRACE(w.value);
        for (umap_knn_method method : {UMAP_KNN_EXACT, UMAP_KNN_NNDESCENT}) {
            umap_knn_info info;
            umap_knn_desc desc = kt::desc(4, UMAP_METRIC_CUSTOM, method);
            desc.metric_fn = wrong_for_3_7;
            desc.metric_user_data = &value;
            desc.info = &info;
            /* the pair is far apart, yet a wrong value is never lost among the rest */
            EXPECT_EQ(umap_knn(&desc, x.data(), n, dim, idx.data(), d.data()), UMAP_ERR_INVALID_ARGUMENT);
            EXPECT_NE(std::string(info.error_detail).find("between row 3 and row 7"), std::string::npos)
                << info.error_detail;
            EXPECT_NE(std::string(info.error_detail).find(w.says), std::string::npos) << info.error_detail;
            /* without distances asked for */
            EXPECT_EQ(umap_knn(&desc, x.data(), n, dim, idx.data(), nullptr), UMAP_ERR_INVALID_ARGUMENT);
        }
        umap_knn_info info;
        umap_knn_desc desc = kt::desc(4, UMAP_METRIC_CUSTOM);
        desc.metric_fn = wrong_for_3_7;
        desc.metric_user_data = &value;
        desc.info = &info;
        EXPECT_EQ(umap_knn_query(&desc, x.data(), n, x.data() + 3 * dim, 1, dim, idx.data(), d.data()),
                  UMAP_ERR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(info.error_detail).find("from query row 0 to base row 7"), std::string::npos)
            << info.error_detail;
        EXPECT_EQ(umap_pairwise(&desc, x.data(), n, dim, all.data()), UMAP_ERR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(info.error_detail).find("between row 3 and row 7"), std::string::npos)
            << info.error_detail;
        /* fit: the same error, and no model */
        umap_config c = custom_config();
        c.metric_fn = wrong_for_3_7;
        c.metric_user_data = &value;
        umap_fit_info fi;
        c.info = &fi;
        umap_model *m = nullptr;
        EXPECT_EQ(umap_fit(&c, x.data(), n, dim, &m), UMAP_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(m, nullptr);
        EXPECT_NE(std::string(fi.error_detail).find("between row 3 and row 7"), std::string::npos) << fi.error_detail;
    }
}

TEST(CustomMetric, FunctionAndMetricGoTogether) {
    const int64_t n = 30, dim = 4;
    std::vector<float> x = numbered_rows(n, dim, 5);
    std::vector<int32_t> idx((size_t)(n * 3));
    umap_knn_info info;
    umap_knn_desc desc = kt::desc(3, UMAP_METRIC_CUSTOM);
    desc.metric_fn = nullptr;
    desc.info = &info;
    EXPECT_EQ(umap_knn(&desc, x.data(), n, dim, idx.data(), nullptr), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("metric_fn is NULL"), std::string::npos) << info.error_detail;
    desc = kt::desc(3, UMAP_METRIC_MANHATTAN);
    desc.metric_fn = kt::custom_metric;
    desc.info = &info;
    EXPECT_EQ(umap_knn(&desc, x.data(), n, dim, idx.data(), nullptr), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("the metric is manhattan"), std::string::npos) << info.error_detail;
    umap_config c = custom_config();
    umap_fit_info fi;
    c.info = &fi;
    c.metric_fn = nullptr;
    ut::Model m;
    EXPECT_EQ(umap_fit(&c, x.data(), n, dim, m.out()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(fi.error_detail).find("metric_fn is NULL"), std::string::npos) << fi.error_detail;
    c = ut::quick_config();
    c.metric_fn = kt::custom_metric;
    c.info = &fi;
    EXPECT_EQ(umap_fit(&c, x.data(), n, dim, m.out()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(fi.error_detail).find("the metric is euclidean"), std::string::npos) << fi.error_detail;
    /* a target's values take a built-in metric */
    std::vector<float> values(x.begin(), x.begin() + n);
    umap_target t;
    std::memset(&t, 0, sizeof t);
    t.values = values.data();
    t.values_dim = 1;
    t.metric = UMAP_METRIC_CUSTOM;
    c = ut::quick_config();
    c.target = &t;
    c.info = &fi;
    EXPECT_EQ(umap_fit(&c, x.data(), n, dim, m.out()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(fi.error_detail).find("target: metric custom"), std::string::npos) << fi.error_detail;
}

TEST(CustomMetric, EuclideanByHandFitsAsEuclideanDoes) {
    const int64_t n = 400, d = 12;
    std::vector<float> x = kt::clustered(n, d, 4, 3, 17);
    umap_config c = ut::quick_config();
    c.keep_data = UMAP_KEEP_ROWS;
    ut::Model builtin, custom;
    ASSERT_EQ(umap_fit(&c, x.data(), n, d, builtin.out()), UMAP_OK);
    c.metric = UMAP_METRIC_CUSTOM;
    c.metric_fn = euclidean_by_hand;
    ASSERT_EQ(umap_fit(&c, x.data(), n, d, custom.out()), UMAP_OK);
    EXPECT_TRUE(kt::bits_equal(std::vector<float>(umap_model_embedding(builtin.m), umap_model_embedding(builtin.m) + n * 2),
                               std::vector<float>(umap_model_embedding(custom.m), umap_model_embedding(custom.m) + n * 2)))
        << "the same distances make the same graph and the same fit";
    EXPECT_TRUE(kt::bits_equal(embed(builtin.m, x, n, d), embed(custom.m, x, n, d)));
}

TEST(CustomMetric, SameBitsForAnyThreadCount) {
    const int64_t n = 9000, d = 8; /* above the exact threshold: NN-Descent */
    std::vector<float> x = kt::clustered(n, d, 5, 3, 23);
    std::vector<float> first;
    for (int threads : {1, 2, 3}) {
        umap_config c = custom_config();
        c.n_threads = threads;
        c.refine_epochs = 5;
        c.n_epochs = 1;
        c.distill_epochs = 1;
        ut::Model m;
        umap_fit_info fi;
        c.info = &fi;
        ASSERT_EQ(umap_fit(&c, x.data(), n, d, m.out()), UMAP_OK) << fi.error_detail;
        std::vector<float> y(umap_model_embedding(m.m), umap_model_embedding(m.m) + n * 2);
        if (first.empty()) first = y;
        else EXPECT_TRUE(kt::bits_equal(first, y)) << threads << " threads";
    }
}

TEST(CustomMetric, ModelsLoadAndGrowWithTheFunction) {
    const int64_t n = 300, more = 60, d = 10;
    std::vector<float> x = kt::clustered(n + more, d, 4, 3, 29);
    umap_config c = custom_config();
    ut::Model m;
    ASSERT_EQ(umap_fit(&c, x.data(), n, d, m.out()), UMAP_OK);
    /* the file keeps the name; a loaded model transforms by its encoder
       alone until it gets the function back */
    char tmpl[] = "/tmp/umap_custom_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    const std::string path = std::string(tmpl) + "/m.safetensors";
    ASSERT_EQ(umap_save(m.m, path.c_str()), UMAP_OK);
    ut::Model loaded;
    char detail[256] = "";
    ASSERT_EQ(umap_load(path.c_str(), loaded.out(), detail, sizeof detail), UMAP_OK) << detail;
    EXPECT_EQ(umap_model_config(loaded.m)->metric, UMAP_METRIC_CUSTOM);
    EXPECT_EQ(umap_model_config(loaded.m)->metric_fn, nullptr);
    umap_rows grow = umap_rows_dense(x.data() + n * d, more, d);
    umap_fit_info fi;
    umap_update_desc ud;
    std::memset(&ud, 0, sizeof ud);
    ud.info = &fi;
    EXPECT_EQ(umap_update(loaded.m, &ud, &grow), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(fi.error_detail).find("umap_model_set_metric_fn"), std::string::npos) << fi.error_detail;
    ASSERT_EQ(umap_model_set_metric_fn(loaded.m, kt::custom_metric, kt::custom_scale()), UMAP_OK);
    std::vector<float> q(x.begin() + n * d, x.end());
    EXPECT_TRUE(kt::bits_equal(embed(loaded.m, q, more, d), embed(m.m, q, more, d)));
    /* update: the grown model's neighbours are the function's too */
    ASSERT_EQ(umap_update(m.m, &ud, &grow), UMAP_OK) << fi.error_detail;
    EXPECT_EQ(umap_model_n_train(m.m), n + more);
    std::remove(path.c_str());
    rmdir(tmpl);
}
