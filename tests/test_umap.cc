/* Parametric UMAP: fit, transform, model files, config fields, bad input,
   quality on real data. */
#include <atomic>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <unistd.h>

#include "test_knn_util.h"
#include "test_util.h"

namespace {

/* n points around n_clusters well separated centres in d dimensions */
std::vector<float> blobs(int64_t n, int64_t d, int n_clusters, uint64_t seed, std::vector<int32_t> *labels = nullptr) {
    std::vector<float> x((size_t)(n * d));
    if (labels) labels->resize((size_t)n);
    for (int64_t i = 0; i < n; i++) {
        int c = (int)(i % n_clusters);
        if (labels) (*labels)[(size_t)i] = c;
        for (int64_t j = 0; j < d; j++) {
            double centre = 6.0 * ut::unit(seed + (uint64_t)c * 977u, (uint64_t)j);
            double u1 = ut::unit(seed + 1, (uint64_t)(i * d + j)) + 1e-12, u2 = ut::unit(seed + 2, (uint64_t)(i * d + j));
            x[(size_t)(i * d + j)] = (float)(centre + 0.5 * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307 * u2));
        }
    }
    return x;
}

using ut::Model;
using ut::quick_config;

struct Fit {
    umap_result r;
    umap_fit_info info;
    std::vector<float> emb;
};

Fit fit(umap_config c, const std::vector<float> &x, int64_t n, int64_t d, Model *keep = nullptr) {
    Fit f;
    Model local;
    Model *m = keep ? keep : &local;
    c.info = &f.info;
    f.r = umap_fit(&c, x.data(), n, d, m->out());
    if (m->m) {
        const float *e = umap_model_embedding(m->m);
        f.emb.assign(e, e + n * umap_model_n_components(m->m));
    }
    return f;
}

std::string temp_path(const char *name) {
    static std::string dir;
    if (dir.empty()) {
        char tmpl[] = "/tmp/umap_test_XXXXXX";
        const char *d = mkdtemp(tmpl);
        dir = d ? d : "/tmp";
    }
    return dir + "/" + name;
}

} // namespace

/* ---------------------------------------------------------------- quality */

TEST(UmapFit, FashionMnistQuality) {
    const int64_t n = KT_SANITIZED ? 1000 : 3000;
    int64_t d = 0;
    std::vector<float> x;
    std::vector<int32_t> labels;
    if (!kt::fashion_mnist_t10k(n, &x, &d, &labels)) GTEST_SKIP() << "Fashion-MNIST not readable (Debian package dataset-fashion-mnist)";
    umap_config c = umap_config_default();
    c.n_threads = 2;
    Model m;
    Fit f = fit(c, x, n, d, &m);
    ASSERT_EQ(f.r, UMAP_OK) << f.info.error_detail;
    umap_quality q;
    umap_quality_desc qd{};
    qd.n_threads = 2;
    ASSERT_EQ(umap_quality_eval(&qd, x.data(), n, d, f.emb.data(), 2, labels.data(), &q), UMAP_OK);
    /* measured 3000 rows: trustworthiness 0.980, 10-NN accuracy 0.761, recall 0.43;
       the encoder on the same rows 0.963, 0.714 (1000 rows: 0.977, 0.712,
       0.52; 0.971, 0.678) (uwot and umap-learn on 10,000 rows: 0.978,
       0.77); the bounds catch a regression of a few points */
    EXPECT_GE(q.trustworthiness, n >= 3000 ? 0.965 : 0.95);
    EXPECT_GE(q.knn_accuracy, n >= 3000 ? 0.71 : 0.66);
    EXPECT_GE(q.knn_recall, 0.2);
    /* the encoder carries the embedding to new rows */
    std::vector<float> y((size_t)(n * 2));
    ASSERT_EQ(umap_transform(m.m, x.data(), n, d, y.data(), 2), UMAP_OK);
    umap_quality qt;
    ASSERT_EQ(umap_quality_eval(&qd, x.data(), n, d, y.data(), 2, labels.data(), &qt), UMAP_OK);
    EXPECT_GE(qt.trustworthiness, 0.93);
    EXPECT_GE(qt.knn_accuracy, 0.64);
}

TEST(UmapFit, SeparatesBlobs) {
    std::vector<int32_t> labels;
    const int64_t n = 600, d = 12;
    std::vector<float> x = blobs(n, d, 5, 3, &labels);
    Fit f = fit(quick_config(), x, n, d);
    ASSERT_EQ(f.r, UMAP_OK) << f.info.error_detail;
    umap_quality q;
    ASSERT_EQ(umap_quality_eval(nullptr, x.data(), n, d, f.emb.data(), 2, labels.data(), &q), UMAP_OK);
    EXPECT_GE(q.knn_accuracy, 0.99);
    EXPECT_GE(q.trustworthiness, 0.9);
    EXPECT_EQ(f.info.stop_reason, UMAP_STOP_EPOCHS);
    EXPECT_EQ(f.info.epochs_run, 4);
    EXPECT_GT(f.info.n_edges, n * 5);
    EXPECT_NEAR(f.info.a, 1.577, 0.01);
    EXPECT_NEAR(f.info.b, 0.895, 0.01);
}

TEST(UmapFit, CurveParametersMatchUmapLearn) {
    /* umap-learn's find_ab_params: (0.1, 1) -> 1.5769, 0.8951; (0.01, 1) -> 1.8956, 0.8006 */
    std::vector<float> x = blobs(200, 4, 2, 1);
    umap_config c = quick_config();
    c.n_epochs = 1;
    c.refine_epochs = 0;
    Fit f = fit(c, x, 200, 4);
    ASSERT_EQ(f.r, UMAP_OK);
    EXPECT_NEAR(f.info.a, 1.5769, 2e-3);
    EXPECT_NEAR(f.info.b, 0.8951, 2e-3);
    c.min_dist = 0.01f;
    f = fit(c, x, 200, 4);
    EXPECT_NEAR(f.info.a, 1.8956, 2e-3);
    EXPECT_NEAR(f.info.b, 0.8006, 2e-3);
}

extern "C" int umap_test_smooth(const float *dist, int64_t n, int k, float local_connectivity, float target, float *w);

/* Each row's memberships sum to their target (log2 k, as transform asks)
   whatever the scale of its distances, with or without rho, in the few
   steps of the safeguarded Newton search; rows of duplicates (no distance
   beyond rho, where no sigma meets the target) get memberships of 1. */
TEST(UmapFit, MembershipsMeetTheirTargetAtAnyScale) {
    const int k = 15;
    const float target = (float)std::log2((double)k);
    for (double scale : {1e-30, 1e-6, 1.0, 3.7, 1e6, 1e30}) {
        std::vector<float> rows;
        for (int shape = 0; shape < 4; shape++) {
            for (int j = 0; j < k; j++) {
                double v = shape == 0 ? 1.0 + j : shape == 1 ? 1.0 + 0.001 * j : shape == 2 ? (j == 0 ? 0.0 : 1.0 + j * j)
                                                                                          : ut::unit(41, (uint64_t)j);
                rows.push_back((float)(scale * v));
            }
            std::sort(rows.end() - k, rows.end());
        }
        const int64_t n = (int64_t)rows.size() / k;
        rows.insert(rows.end(), (size_t)k, 0.0f); /* duplicates */
        for (float lc : {0.0f, 1.0f}) {
            std::vector<float> w(rows.size(), -1.0f);
            ASSERT_TRUE(umap_test_smooth(rows.data(), n + 1, k, lc, target, w.data()));
            for (int64_t i = 0; i < n; i++) {
                double sum = 0.0;
                for (int j = 0; j < k; j++) {
                    EXPECT_TRUE(w[(size_t)(i * k + j)] > 0.0f && w[(size_t)(i * k + j)] <= 1.0f) << "row " << i;
                    sum += w[(size_t)(i * k + j)];
                }
                EXPECT_NEAR(sum, target, 1e-4) << "scale " << scale << ", row " << i << ", local_connectivity " << lc;
            }
            for (int j = 0; j < k; j++) EXPECT_EQ(w[(size_t)(n * k + j)], 1.0f);
        }
    }
}

/* ---------------------------------------------------------------- transform */

extern "C" int umap_test_scalar_fit_place(const umap_config *config, const float *data, int64_t n, int64_t d,
                                          const float *new_rows, int64_t n_new, float *embedding, float *placed);

/* The SIMD loops (x86-64: the refinement's, Adam's) against
   tests/impl_scalar.c's copy of the implementation built with UMAP_NO_SIMD:
   the same bits for fit (its training and refinement) and transform's
   placement, including the negative-sample counts that leave lanes empty
   and an edge count that fills a batch. */
TEST(UmapRefine, SimdGivesTheScalarBits) {
    const int64_t n = 700, n_new = 90, d = 9;
    std::vector<float> x = blobs(n + n_new, d, 6, 21);
    for (int64_t j = 0; j < d; j++) x[(size_t)(5 * d + j)] = x[(size_t)(4 * d + j)]; /* a duplicate: coincident points */
    std::vector<float> train(x.begin(), x.begin() + n * d), fresh(x.begin() + n * d, x.end());
    for (int neg : {1, 5, 7, 95}) {
        umap_config c = quick_config();
        c.keep_data = 1;
        c.negative_sample_rate = neg;
        c.refine_epochs = 20;
        std::vector<float> emb_s((size_t)(n * 2)), placed_s((size_t)(n_new * 2)), placed((size_t)(n_new * 2));
        ASSERT_EQ(umap_test_scalar_fit_place(&c, train.data(), n, d, fresh.data(), n_new, emb_s.data(), placed_s.data()),
                  UMAP_OK) << "negative_sample_rate " << neg;
        Model m;
        Fit f = fit(c, train, n, d, &m);
        ASSERT_EQ(f.r, UMAP_OK) << f.info.error_detail;
        EXPECT_TRUE(kt::bits_equal(f.emb, emb_s)) << "fit's refinement, negative_sample_rate " << neg;
        umap_transform_desc td{};
        td.mode = UMAP_TRANSFORM_NEIGHBORS;
        ASSERT_EQ(umap_transform_with(m.m, &td, fresh.data(), n_new, d, placed.data()), UMAP_OK);
        EXPECT_TRUE(kt::bits_equal(placed, placed_s)) << "transform's placement, negative_sample_rate " << neg;
    }
}

extern "C" int umap_test_push_field_lanes(int n, int *n_off);

/* The placement's push field looked up eight places at a time (AVX2)
   against the scalar lookup, bit for bit, with places off the grid (the
   far branch) in some lanes and not others, and NaN places. */
TEST(UmapRefine, PushFieldLanesGiveTheScalarBits) {
    int n_off = 0;
    const int n = 4096, differ = umap_test_push_field_lanes(n, &n_off);
    if (differ < 0) GTEST_SKIP() << "no AVX2 lookup in this build or on this CPU";
    EXPECT_EQ(differ, 0);
    EXPECT_GT(n_off, n / 5) << "the far branch must be in the draws";
    EXPECT_LT(n_off, n - n / 5) << "and the grid too";
}

/* Every refinement kernel this build and CPU have, against the scalar loop,
   on a job drawn here: the SIMD paths are tested on each machine, whichever
   one fit and transform pick there (SimdGivesTheScalarBits covers only
   that one). Coincident rows, inactive edges, a row with no edges, and a
   negative count too large for one batch (the scalar loop for every kernel)
   are in the draws, and densMAP's last epochs in two of the runs. */
TEST(UmapRefine, EveryKernelGivesTheScalarBits) {
    const int64_t n = 400;
    const int epochs = 6;
    std::vector<int64_t> offset((size_t)n + 1, 0);
    std::vector<int32_t> nbr;
    std::vector<uint32_t> active;
    for (int64_t i = 0; i < n; i++) {
        int degree = i == 7 ? 0 : 3 + (int)(ut::unit(31, (uint64_t)i) * 30.0);
        for (int e = 0; e < degree; e++) {
            uint64_t at = (uint64_t)nbr.size();
            nbr.push_back((int32_t)(ut::unit(32, at) * (double)n) % (int32_t)n);
            double u = ut::unit(33, at);
            active.push_back(u < 0.2 ? 0u : (uint32_t)(u * 16777216.0));
        }
        offset[(size_t)i + 1] = (int64_t)nbr.size();
    }
    std::vector<float> start((size_t)(n * 2));
    for (size_t j = 0; j < start.size(); j++) start[j] = (float)(20.0 * ut::unit(34, j) - 10.0);
    for (int64_t i = 10; i < 20; i++) start[(size_t)(2 * i)] = start[0], start[(size_t)(2 * i + 1)] = start[1];
    std::vector<uint64_t> keys((size_t)epochs);
    std::vector<float> rates((size_t)epochs);
    for (int ep = 0; ep < epochs; ep++) keys[(size_t)ep] = 0x9e3779b97f4a7c15ull * (uint64_t)(ep + 1), rates[(size_t)ep] = 1.0f - 0.1f * (float)ep;
    umap_pool *pool = nullptr;
    ASSERT_EQ(umap_pool_create(2, nullptr, &pool), UMAP_OK);
    int simd_ran = 0;
    const std::vector<float> dens_r = ut::uniform(n, 35, -2, 2);
    for (int neg : {1, 5, 7, 95}) {
        umap_refine_job job{};
        job.n = n; job.n_components = 2;
        job.offset = offset.data(); job.nbr = nbr.data(); job.active = active.data();
        job.negative_sample_rate = neg;
        job.a = 1.577f; job.b = 0.895f; job.gamma = 1.0f;
        job.attraction = neg == 5 ? 2.0f : 0.5f; /* umap-learn's weight, and the default */
        job.n_epochs = epochs; job.keys = keys.data(); job.rates = rates.data();
        if (neg == 5 || neg == 95)
            job.dens_r = dens_r.data(), job.dens_lambda = 2.0f, job.dens_var_shift = 0.1f, job.dens_from = epochs / 2;
        job.pool = pool;
        std::vector<float> scalar = start;
        job.y = scalar.data();
        char name[32];
        ASSERT_EQ(umap_refine_variant(0, &job, name, sizeof name), 1);
        EXPECT_STREQ(name, "scalar");
        EXPECT_FALSE(kt::bits_equal(scalar, start)) << "the epochs moved nothing";
        for (int v = 1; v < umap_refine_variant_count(); v++) {
            std::vector<float> y = start;
            job.y = y.data();
            if (!umap_refine_variant(v, &job, name, sizeof name)) continue; /* not in this build or CPU */
            simd_ran++;
            EXPECT_TRUE(kt::bits_equal(y, scalar)) << name << ", negative_sample_rate " << neg;
        }
    }
    umap_pool_free(pool);
    EXPECT_EQ(umap_refine_variant(umap_refine_variant_count(), nullptr, nullptr, 0), 0);
#if defined(__SSE2__)
    EXPECT_GT(simd_ran, 0) << "an SSE2 build runs at least the SSE2 rows";
#endif
}

/* refine_attraction weighs each clipped pull and nothing else: two rows
   joined by an edge in both directions, no negatives, one epoch at step 1,
   move by attraction x the clipped pull in every kernel (0 leaves them). */
TEST(UmapRefine, AttractionWeighsThePull) {
    const int64_t offset[3] = {0, 1, 2};
    const int32_t nbr[2] = {1, 0};
    const uint32_t always[2] = {1u << 24, 1u << 24};
    const uint64_t key = 0x1234567ull;
    const float rate = 1.0f;
    umap_pool *pool = nullptr;
    ASSERT_EQ(umap_pool_create(1, nullptr, &pool), UMAP_OK);
    umap_refine_job job{};
    job.n = 2; job.n_components = 2;
    job.offset = offset; job.nbr = nbr; job.active = always;
    job.negative_sample_rate = 0;
    job.a = 1.577f; job.b = 0.895f; job.gamma = 1.0f;
    job.n_epochs = 1; job.keys = &key; job.rates = &rate;
    job.pool = pool;
    /* the pull of one row on the other, 0.3 apart in x: below the clip */
    const float d2 = 0.09f, pb = std::pow(d2, job.b);
    const float pull = 2.0f * job.a * job.b * pb / (d2 * (job.a * pb + 1.0f)) * 0.3f;
    for (int v = 0; v < umap_refine_variant_count(); v++)
        for (float w : {0.0f, 0.5f, 1.0f, 2.0f}) {
            float y[4] = {0.0f, 1.0f, 0.3f, 1.0f};
            char name[32];
            job.attraction = w;
            job.y = y;
            if (!umap_refine_variant(v, &job, name, sizeof name)) continue; /* not in this build or CPU */
            EXPECT_NEAR(y[0], w * pull, 1e-4f * pull) << name << ", attraction " << w;
            EXPECT_NEAR(y[2], 0.3f - w * pull, 1e-4f * pull) << name << ", attraction " << w;
            EXPECT_EQ(y[1], 1.0f);
            EXPECT_EQ(y[3], 1.0f);
        }
    umap_pool_free(pool);
}

TEST(UmapTransform, TrainingRowsGiveTheEmbedding) {
    const int64_t n = 500, d = 10;
    std::vector<float> x = blobs(n, d, 4, 5);
    umap_config c = quick_config();
    c.refine_epochs = 0; /* the embedding IS the encoder's output */
    Model m;
    Fit f = fit(c, x, n, d, &m);
    ASSERT_EQ(f.r, UMAP_OK);
    std::vector<float> y((size_t)(n * 2));
    ASSERT_EQ(umap_transform(m.m, x.data(), n, d, y.data(), 1), UMAP_OK);
    EXPECT_TRUE(kt::bits_equal(y, f.emb));
    /* refined: the encoder is distilled onto the embedding; close, not equal */
    c.refine_epochs = 50;
    c.distill_epochs = 20;
    f = fit(c, x, n, d, &m);
    ASSERT_EQ(f.r, UMAP_OK);
    ASSERT_EQ(umap_transform(m.m, x.data(), n, d, y.data(), 1), UMAP_OK);
    double se = 0, sv = 0, mean[2] = {0, 0};
    for (int64_t i = 0; i < n; i++)
        for (int c2 = 0; c2 < 2; c2++) mean[c2] += f.emb[(size_t)(2 * i + c2)] / (double)n;
    for (int64_t i = 0; i < 2 * n; i++) {
        se += (y[(size_t)i] - f.emb[(size_t)i]) * (y[(size_t)i] - f.emb[(size_t)i]);
        sv += (f.emb[(size_t)i] - mean[i % 2]) * (f.emb[(size_t)i] - mean[i % 2]);
    }
    /* 0.13 to 0.16 over seeds 1 to 7 */
    EXPECT_LT(std::sqrt(se / sv), 0.2) << "transform(train) strays from the embedding";
    /* rows one at a time agree with a batch to float rounding */
    std::vector<float> one(2);
    for (int64_t i = 0; i < n; i += 97) {
        ASSERT_EQ(umap_transform(m.m, x.data() + i * d, 1, d, one.data(), 1), UMAP_OK);
        EXPECT_NEAR(one[0], y[(size_t)(2 * i)], 1e-3 * (1 + std::fabs(one[0])));
        EXPECT_NEAR(one[1], y[(size_t)(2 * i + 1)], 1e-3 * (1 + std::fabs(one[1])));
    }
}

extern "C" int umap_test_push_field(const float *embedding, int64_t n, float a, float b, float gamma, const float *at,
                                    int64_t n_at, float *push);

/* The push a 2-D model's placement reads from its grid against the mean
   push of every training row, summed here in double: in the clusters,
   between them, at their edge and far outside (where the grid hands over
   to the centroid). Three clusters of unequal size and spread. */
TEST(UmapTransform, PushFieldIsTheMeanPush) {
    const float a = 1.577f, b = 0.895f, gamma = 1.0f;
    const int64_t n = 3000;
    std::vector<float> emb((size_t)(2 * n));
    const double cx[3] = {0.0, 9.0, 3.0}, cy[3] = {0.0, 1.0, 8.0}, spread[3] = {1.0, 2.5, 0.4};
    for (int64_t i = 0; i < n; i++) {
        int k = i % 5 == 0 ? 2 : (int)(i % 2);
        double u = ut::unit(41, (uint64_t)i), v = ut::unit(42, (uint64_t)i), r = spread[k] * std::sqrt(-2.0 * std::log(u + 1e-12));
        emb[(size_t)(2 * i)] = (float)(cx[k] + r * std::cos(6.283185307 * v));
        emb[(size_t)(2 * i + 1)] = (float)(cy[k] + r * std::sin(6.283185307 * v));
    }
    std::vector<float> at = {0.5f, 0.2f, 9.5f, 2.0f, 3.0f, 8.1f, 4.5f, 4.0f, 12.0f, -3.0f, -4.0f, 6.0f, 40.0f, 35.0f, -200.0f, 10.0f};
    for (int t = 0; t < 64; t++) /* and points spread over the whole area */
        at.push_back((float)(30.0 * ut::unit(43, (uint64_t)t) - 10.0)), at.push_back((float)(30.0 * ut::unit(44, (uint64_t)t) - 10.0));
    const int64_t m = (int64_t)at.size() / 2;
    std::vector<float> push((size_t)(2 * m));
    ASSERT_EQ(umap_test_push_field(emb.data(), n, a, b, gamma, at.data(), m, push.data()), 1);
    double worst = 0.0;
    for (int64_t t = 0; t < m; t++) {
        double ex[2] = {0.0, 0.0};
        for (int64_t i = 0; i < n; i++) {
            double vx = at[(size_t)(2 * t)] - emb[(size_t)(2 * i)], vy = at[(size_t)(2 * t + 1)] - emb[(size_t)(2 * i + 1)];
            double d2 = vx * vx + vy * vy;
            if (!(d2 > 0)) continue;
            double coef = 2.0 * gamma * b / ((0.001 + d2) * (a * std::pow(d2, b) + 1.0));
            ex[0] += std::max(-4.0, std::min(4.0, coef * vx)) / (double)n;
            ex[1] += std::max(-4.0, std::min(4.0, coef * vy)) / (double)n;
        }
        double err = std::hypot(push[(size_t)(2 * t)] - ex[0], push[(size_t)(2 * t + 1)] - ex[1]), size = std::hypot(ex[0], ex[1]);
        /* the grid reads the mean push to within a fifth of its size (a few per cent
           inside the clusters), or a few times the clip's 1/n share where the pushes cancel */
        EXPECT_LT(err, 0.2 * size + 8.0 / (double)n) << "at (" << at[(size_t)(2 * t)] << ", " << at[(size_t)(2 * t + 1)]
                                                       << "): grid " << push[(size_t)(2 * t)] << ", " << push[(size_t)(2 * t + 1)]
                                                       << ", mean " << ex[0] << ", " << ex[1];
        worst = std::max(worst, err / (size + 8.0 / (double)n));
    }
    RecordProperty("worst_relative_error", std::to_string(worst));
}

/* A 2-D model places a row by the expected step, with no draws: the same
   row gets the same bits wherever it stands in the call. */
TEST(UmapTransform, NeighborsPlaceARowTheSameAnywhereInTheCall) {
    const int64_t n = 600, n_new = 40, d = 8;
    std::vector<float> x = blobs(n + n_new, d, 4, 23);
    std::vector<float> train(x.begin(), x.begin() + n * d), fresh(x.begin() + n * d, x.end()), reversed(fresh.size());
    for (int64_t i = 0; i < n_new; i++)
        std::copy(fresh.begin() + i * d, fresh.begin() + (i + 1) * d, reversed.begin() + (n_new - 1 - i) * d);
    umap_config c = quick_config();
    c.keep_data = 1;
    Model m;
    ASSERT_EQ(fit(c, train, n, d, &m).r, UMAP_OK);
    umap_transform_desc td{};
    td.mode = UMAP_TRANSFORM_NEIGHBORS;
    td.epochs = 50; /* auto epochs depend on the call's size; fixed here */
    std::vector<float> y((size_t)(2 * n_new)), yr((size_t)(2 * n_new)), one(2);
    ASSERT_EQ(umap_transform_with(m.m, &td, fresh.data(), n_new, d, y.data()), UMAP_OK);
    ASSERT_EQ(umap_transform_with(m.m, &td, reversed.data(), n_new, d, yr.data()), UMAP_OK);
    for (int64_t i = 0; i < n_new; i++) {
        EXPECT_EQ(std::memcmp(&y[(size_t)(2 * i)], &yr[(size_t)(2 * (n_new - 1 - i))], 2 * sizeof(float)), 0) << "row " << i;
    }
}

TEST(UmapTransform, BadInput) {
    const int64_t n = 300, d = 8;
    std::vector<float> x = blobs(n, d, 3, 9);
    Model m;
    ASSERT_EQ(fit(quick_config(), x, n, d, &m).r, UMAP_OK);
    std::vector<float> y(2 * 10);
    EXPECT_EQ(umap_transform(m.m, x.data(), 10, d + 1, y.data(), 1), UMAP_ERR_SHAPE);
    EXPECT_EQ(umap_transform(m.m, x.data(), 10, d - 1, y.data(), 1), UMAP_ERR_SHAPE);
    std::vector<float> bad(x.begin(), x.begin() + 10 * d);
    bad[(size_t)(3 * d + 2)] = NAN;
    EXPECT_EQ(umap_transform(m.m, bad.data(), 10, d, y.data(), 1), UMAP_ERR_NON_FINITE);
    bad[(size_t)(3 * d + 2)] = INFINITY;
    EXPECT_EQ(umap_transform(m.m, bad.data(), 10, d, y.data(), 1), UMAP_ERR_NON_FINITE);
    EXPECT_EQ(umap_transform(nullptr, x.data(), 10, d, y.data(), 1), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_transform(m.m, nullptr, 10, d, y.data(), 1), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_transform(m.m, x.data(), 0, d, y.data(), 1), UMAP_OK);
}

TEST(UmapTransform, TwoThreadsShareOneModel) {
    const int64_t n = 400, d = 10;
    std::vector<float> x = blobs(n, d, 4, 11);
    Model m;
    ASSERT_EQ(fit(quick_config(), x, n, d, &m).r, UMAP_OK);
    std::vector<float> ref((size_t)(n * 2)), a((size_t)(n * 2)), b((size_t)(n * 2));
    ASSERT_EQ(umap_transform(m.m, x.data(), n, d, ref.data(), 1), UMAP_OK);
    umap_result ra = UMAP_ERR_GRAPH, rb = UMAP_ERR_GRAPH;
    std::thread t1([&] { for (int i = 0; i < 5; i++) ra = umap_transform(m.m, x.data(), n, d, a.data(), 2); });
    std::thread t2([&] { for (int i = 0; i < 5; i++) rb = umap_transform(m.m, x.data(), n, d, b.data(), 1); });
    t1.join();
    t2.join();
    EXPECT_EQ(ra, UMAP_OK);
    EXPECT_EQ(rb, UMAP_OK);
    EXPECT_TRUE(kt::bits_equal(a, ref));
    EXPECT_TRUE(kt::bits_equal(b, ref));
}

/* ---------------------------------------------------------------- determinism */

/* Batches of 128 edges run as one program whose ops share the threads;
   384 as three shards of 128 side by side (and more shards than threads at
   2), whose gradients are averaged in shard order. */
TEST(UmapFit, SameSeedSameResultForAnyThreadCount) {
    const int64_t n = 700, d = 20;
    std::vector<float> x = blobs(n, d, 6, 13);
    for (int batch : {128, 384}) {
        umap_config c = quick_config();
        c.input_dims = 8; /* the projection path too */
        c.batch_size = batch;
        c.n_threads = 1;
        Fit f1 = fit(c, x, n, d);
        ASSERT_EQ(f1.r, UMAP_OK) << f1.info.error_detail;
        for (int t : {2, 4}) {
            c.n_threads = t;
            Fit ft = fit(c, x, n, d);
            ASSERT_EQ(ft.r, UMAP_OK);
            EXPECT_TRUE(kt::bits_equal(f1.emb, ft.emb)) << t << " threads, batch " << batch;
        }
        c.seed = 8;
        Fit other = fit(c, x, n, d);
        EXPECT_FALSE(kt::bits_equal(f1.emb, other.emb)) << "batch " << batch;
    }
}

TEST(UmapFit, TwoModelsInTwoThreads) {
    const int64_t n = 400, d = 10;
    std::vector<float> x = blobs(n, d, 4, 17), y = blobs(n, d, 3, 18);
    Fit rx = fit(quick_config(), x, n, d), ry = fit(quick_config(), y, n, d);
    Fit ax, ay;
    std::thread t1([&] { ax = fit(quick_config(), x, n, d); });
    std::thread t2([&] { ay = fit(quick_config(), y, n, d); });
    t1.join();
    t2.join();
    EXPECT_TRUE(kt::bits_equal(ax.emb, rx.emb));
    EXPECT_TRUE(kt::bits_equal(ay.emb, ry.emb));
}

TEST(UmapFit, CallersNeighbourListGivesTheSameModel) {
    const int64_t n = 500, d = 10;
    std::vector<float> x = blobs(n, d, 4, 19);
    umap_config c = quick_config();
    Fit ref = fit(c, x, n, d);
    ASSERT_EQ(ref.r, UMAP_OK);
    int k = c.n_neighbors - 1;
    std::vector<int32_t> idx((size_t)(n * k));
    std::vector<float> dist((size_t)(n * k));
    umap_knn_desc kd{};
    kd.k = k;
    ASSERT_EQ(umap_knn(&kd, x.data(), n, d, idx.data(), dist.data()), UMAP_OK);
    Model m;
    umap_fit_info info;
    c.info = &info;
    ASSERT_EQ(umap_fit_knn(&c, x.data(), n, d, idx.data(), dist.data(), k, m.out()), UMAP_OK) << info.error_detail;
    std::vector<float> e(umap_model_embedding(m.m), umap_model_embedding(m.m) + n * 2);
    EXPECT_TRUE(kt::bits_equal(e, ref.emb));
    /* a bad list is refused, naming the row */
    idx[(size_t)(7 * k + 2)] = 7; /* itself */
    EXPECT_EQ(umap_fit_knn(&c, x.data(), n, d, idx.data(), dist.data(), k, m.out()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("row 7"), std::string::npos) << info.error_detail;
    idx[(size_t)(7 * k + 2)] = (int32_t)n;
    EXPECT_EQ(umap_fit_knn(&c, x.data(), n, d, idx.data(), dist.data(), k, m.out()), UMAP_ERR_INVALID_ARGUMENT);
    idx[(size_t)(7 * k + 2)] = 3;
    dist[5] = NAN;
    EXPECT_EQ(umap_fit_knn(&c, x.data(), n, d, idx.data(), dist.data(), k, m.out()), UMAP_ERR_INVALID_ARGUMENT);
    dist[5] = dist[4];
    EXPECT_EQ(umap_fit_knn(&c, x.data(), n, d, nullptr, dist.data(), k, m.out()), UMAP_ERR_INVALID_ARGUMENT);
    /* nearest first, as documented: the graph reads a row's first distance as its nearest */
    std::swap(dist[(size_t)(11 * k)], dist[(size_t)(11 * k + 3)]);
    EXPECT_EQ(umap_fit_knn(&c, x.data(), n, d, idx.data(), dist.data(), k, m.out()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("row 11 is not nearest first"), std::string::npos) << info.error_detail;
    EXPECT_EQ(m.m, nullptr);
}

/* ---------------------------------------------------------------- bad input */

TEST(UmapFit, BadInputReturnsItsCode) {
    const int64_t n = 200, d = 6;
    std::vector<float> x = blobs(n, d, 3, 23);
    umap_config c = quick_config();
    Model m;
    umap_fit_info info;
    c.info = &info;
    auto run = [&](const std::vector<float> &data, int64_t rows, int64_t cols) {
        return umap_fit(&c, data.data(), rows, cols, m.out());
    };
    std::vector<float> bad = x;
    bad[(size_t)(41 * d + 3)] = NAN;
    EXPECT_EQ(run(bad, n, d), UMAP_ERR_NON_FINITE);
    EXPECT_NE(std::string(info.error_detail).find("row 41"), std::string::npos) << info.error_detail;
    bad[(size_t)(41 * d + 3)] = -INFINITY;
    EXPECT_EQ(run(bad, n, d), UMAP_ERR_NON_FINITE);
    /* n <= k */
    EXPECT_EQ(run(x, 9, d), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(run(x, 1, d), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(run(x, 0, d), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(run(x, n, 0), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_fit(&c, nullptr, n, d, m.out()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_fit(&c, x.data(), n, d, nullptr), UMAP_ERR_INVALID_ARGUMENT);
    /* n == k works: everyone is everyone's neighbour */
    c.n_neighbors = 10;
    EXPECT_EQ(run(x, 10, d), UMAP_OK) << info.error_detail;
    /* constant columns are ignored (counted); all constant is refused */
    std::vector<float> cc = x;
    for (int64_t i = 0; i < n; i++) cc[(size_t)(i * d + 2)] = 5.0f;
    EXPECT_EQ(run(cc, n, d), UMAP_OK) << info.error_detail;
    EXPECT_EQ(info.n_constant_columns, 1);
    std::vector<float> flat((size_t)(n * d), 1.0f);
    EXPECT_EQ(run(flat, n, d), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("constant"), std::string::npos);
    /* duplicate points are fine */
    std::vector<float> dup = x;
    for (int64_t i = 0; i < n / 2; i++)
        std::memcpy(&dup[(size_t)((n / 2 + i) * d)], &dup[(size_t)(i * d)], (size_t)d * sizeof(float));
    EXPECT_EQ(run(dup, n, d), UMAP_OK) << info.error_detail;
    for (float v : std::vector<float>(umap_model_embedding(m.m), umap_model_embedding(m.m) + 2 * n))
        ASSERT_TRUE(std::isfinite(v));
    /* every config check */
    const std::vector<std::function<void(umap_config &)>> bad_configs = {
        [](umap_config &k) { k.n_components = 0; },   [](umap_config &k) { k.n_components = 65; },
        [](umap_config &k) { k.n_neighbors = 1; },    [](umap_config &k) { k.metric = UMAP_METRIC_COUNT; },
        [](umap_config &k) { k.knn_method = (umap_knn_method)9; },
        [](umap_config &k) { k.local_connectivity = -1; }, [](umap_config &k) { k.bandwidth = 0; },
        [](umap_config &k) { k.set_op_mix_ratio = 1.5f; }, [](umap_config &k) { k.spread = 0; },
        [](umap_config &k) { k.min_dist = 2; },        [](umap_config &k) { k.a = 1; },
        [](umap_config &k) { k.repulsion_strength = -1; }, [](umap_config &k) { k.negative_sample_rate = 0; },
        [](umap_config &k) { k.n_hidden = 9; },       [](umap_config &k) { k.hidden[1] = 0; },
        [](umap_config &k) { k.batch_size = 0; },     [](umap_config &k) { k.n_epochs = -1; },
        [](umap_config &k) { k.learning_rate = 0; },  [](umap_config &k) { k.learning_rate = NAN; },
        [](umap_config &k) { k.beta1 = 1; },          [](umap_config &k) { k.beta2 = -0.1f; },
        [](umap_config &k) { k.adam_eps = 0; },       [](umap_config &k) { k.weight_decay = -1; },
        [](umap_config &k) { k.grad_clip = -1; },     [](umap_config &k) { k.patience = -1; },
        [](umap_config &k) { k.min_delta = 1; },      [](umap_config &k) { k.min_desired_loss = NAN; },
        [](umap_config &k) { k.timeout_s = -1; },     [](umap_config &k) { k.refine_epochs = -2; },
        [](umap_config &k) { k.refine_rate = 0; },    [](umap_config &k) { k.distill_epochs = -2; },
        [](umap_config &k) { k.refine_attraction = -2; }, [](umap_config &k) { k.refine_attraction = NAN; },
        [](umap_config &k) { k.input_dims = -1; },
    };
    for (size_t i = 0; i < bad_configs.size(); i++) {
        c = quick_config();
        c.info = &info;
        bad_configs[i](c);
        EXPECT_EQ(run(x, n, d), UMAP_ERR_INVALID_ARGUMENT) << "bad config " << i << ": " << info.error_detail;
        EXPECT_STRNE(info.error_detail, "") << "bad config " << i;
        EXPECT_EQ(m.m, nullptr);
    }
}

TEST(UmapFit, AllocationFailureAnywhereIsCleanAndLeakFree) {
    const int64_t n = 120, d = 6;
    std::vector<float> x = blobs(n, d, 3, 29);
    umap_config c = quick_config();
    c.n_epochs = 1;
    c.refine_epochs = 2;
    c.distill_epochs = 1;
    c.n_threads = 1;
    kt::FailingAlloc count;
    c.allocator = count.hook();
    Model m;
    ASSERT_EQ(umap_fit(&c, x.data(), n, d, m.out()), UMAP_OK);
    long total = count.attempts.load();
    umap_model_free(m.m);
    m.m = nullptr;
    EXPECT_EQ(count.live.load(), 0);
    ASSERT_GT(total, 10);
    long step = KT_SANITIZED ? 7 : 1;
    for (long fail = 0; fail < total; fail += step) {
        kt::FailingAlloc fa;
        fa.fail_after = fail;
        c.allocator = fa.hook();
        umap_result r = umap_fit(&c, x.data(), n, d, m.out());
        if (r == UMAP_OK) {
            umap_model_free(m.m);
            m.m = nullptr;
        } else {
            EXPECT_EQ(r, UMAP_ERR_OUT_OF_MEMORY) << "failing allocation " << fail;
            EXPECT_EQ(m.m, nullptr);
        }
        EXPECT_EQ(fa.live.load(), 0) << "leak when allocation " << fail << " fails";
    }
}

/* ---------------------------------------------------------------- stop rules */

namespace {
struct ProgressLog {
    std::vector<std::string> phases;
    std::vector<float> losses;
    int cancel_at_epoch = -1;
    static int fn(const umap_progress *p, void *ud) {
        ProgressLog *l = (ProgressLog *)ud;
        l->phases.push_back(p->phase);
        if (std::string(p->phase) == "train") {
            l->losses.push_back(p->loss);
            EXPECT_LE(p->best_loss, p->loss);
            EXPECT_GE(p->elapsed_s, 0.0);
            if (p->epoch == l->cancel_at_epoch) return 1;
        }
        return 0;
    }
};
} // namespace

TEST(UmapFit, ProgressAndCancel) {
    const int64_t n = 300, d = 8;
    std::vector<float> x = blobs(n, d, 3, 31);
    umap_config c = quick_config();
    ProgressLog log;
    c.progress = ProgressLog::fn;
    c.progress_user_data = &log;
    Model m;
    Fit f = fit(c, x, n, d, &m);
    ASSERT_EQ(f.r, UMAP_OK);
    EXPECT_EQ(log.losses.size(), 4u);
    for (const char *ph : {"knn", "graph", "pca", "train", "embed", "refine"})
        EXPECT_NE(std::find(log.phases.begin(), log.phases.end(), ph), log.phases.end()) << ph;
    /* cancel after epoch 2: a usable model with the best weights so far */
    ProgressLog stop;
    stop.cancel_at_epoch = 2;
    c.progress_user_data = &stop;
    c.n_epochs = 10;
    f = fit(c, x, n, d, &m);
    EXPECT_EQ(f.r, UMAP_ERR_CANCELLED);
    EXPECT_EQ(f.info.stop_reason, UMAP_STOP_CANCELLED);
    EXPECT_EQ(f.info.epochs_run, 2);
    ASSERT_NE(m.m, nullptr);
    std::vector<float> y((size_t)(2 * n));
    EXPECT_EQ(umap_transform(m.m, x.data(), n, d, y.data(), 1), UMAP_OK);
}

TEST(UmapFit, StopRules) {
    const int64_t n = 300, d = 8;
    std::vector<float> x = blobs(n, d, 3, 37);
    umap_config c = quick_config();
    c.n_epochs = 50;
    c.patience = 1;
    c.min_delta = 0.9f; /* no epoch improves by 90%: stops after patience epochs */
    Fit f = fit(c, x, n, d);
    EXPECT_EQ(f.r, UMAP_OK);
    EXPECT_EQ(f.info.stop_reason, UMAP_STOP_PATIENCE);
    EXPECT_EQ(f.info.epochs_run, 2);
    c.patience = 0;
    c.min_desired_loss = 100.0f; /* met after the first epoch */
    f = fit(c, x, n, d);
    EXPECT_EQ(f.info.stop_reason, UMAP_STOP_MIN_LOSS);
    EXPECT_EQ(f.info.epochs_run, 1);
    c.min_desired_loss = 0;
    c.n_epochs = 100000;
    c.timeout_s = 0.2;
    f = fit(c, x, n, d);
    EXPECT_EQ(f.r, UMAP_OK);
    EXPECT_EQ(f.info.stop_reason, UMAP_STOP_TIMEOUT);
    EXPECT_LT(f.info.train_s, 5.0);
    EXPECT_LT(f.info.epochs_run, 100000);
}

TEST(UmapFit, DivergedLossKeepsTheBestWeights) {
    const int64_t n = 300, d = 8;
    std::vector<float> x = blobs(n, d, 3, 41);
    for (float &v : x) v *= 1e20f; /* unnormalised, the encoder's distances overflow */
    umap_config c = quick_config();
    c.standardize = 0;
    c.n_epochs = 5;
    Model m;
    Fit f = fit(c, x, n, d, &m);
    ASSERT_EQ(f.r, UMAP_ERR_NON_FINITE) << f.info.error_detail;
    EXPECT_EQ(f.info.stop_reason, UMAP_STOP_NON_FINITE);
    ASSERT_NE(m.m, nullptr);
    std::vector<float> y((size_t)(2 * n));
    ASSERT_EQ(umap_transform(m.m, x.data(), n, d, y.data(), 1), UMAP_OK);
    for (float v : y) ASSERT_TRUE(std::isfinite(v));
}

/* ---------------------------------------------------------------- every field is wired */

TEST(UmapConfig, EveryFieldHasItsEffect) {
    const int64_t n = 400, d = 12;
    std::vector<float> x = blobs(n, d, 4, 43);
    const umap_config base = quick_config();
    Fit ref = fit(base, x, n, d);
    ASSERT_EQ(ref.r, UMAP_OK);
    struct Case {
        const char *field;
        std::function<void(umap_config &)> set;
    };
    /* each of these changes the embedding */
    const std::vector<Case> changes = {
        {"n_neighbors", [](umap_config &c) { c.n_neighbors = 6; }},
        {"metric", [](umap_config &c) { c.metric = UMAP_METRIC_COSINE; }},
        {"local_connectivity", [](umap_config &c) { c.local_connectivity = 2.0f; }},
        {"bandwidth", [](umap_config &c) { c.bandwidth = 0.5f; }},
        {"set_op_mix_ratio", [](umap_config &c) { c.set_op_mix_ratio = 0.3f; }},
        {"min_dist", [](umap_config &c) { c.min_dist = 0.5f; }},
        {"spread", [](umap_config &c) { c.spread = 2.0f; }},
        {"a,b", [](umap_config &c) { c.a = 1.0f; c.b = 1.0f; }},
        {"repulsion_strength", [](umap_config &c) { c.repulsion_strength = 2.0f; }},
        {"negative_sample_rate", [](umap_config &c) { c.negative_sample_rate = 2; }},
        {"n_hidden", [](umap_config &c) { c.n_hidden = 1; }},
        {"hidden", [](umap_config &c) { c.hidden[0] = 16; }},
        {"standardize", [](umap_config &c) { c.standardize = 0; }},
        {"input_dims", [](umap_config &c) { c.input_dims = 6; }},
        {"init random", [](umap_config &c) { c.init = UMAP_INIT_RANDOM; }},
        {"init spectral", [](umap_config &c) { c.init = UMAP_INIT_SPECTRAL; }},
        {"refine_epochs", [](umap_config &c) { c.refine_epochs = 0; }},
        {"refine_rate", [](umap_config &c) { c.refine_rate = 0.05f; }},
        {"refine_attraction", [](umap_config &c) { c.refine_attraction = 2.0f; }},
        {"batch_size", [](umap_config &c) { c.batch_size = 64; }},
        {"n_epochs", [](umap_config &c) { c.n_epochs = 2; }},
        {"learning_rate", [](umap_config &c) { c.learning_rate = 1e-3f; }},
        {"beta1", [](umap_config &c) { c.beta1 = 0.5f; }},
        {"beta2", [](umap_config &c) { c.beta2 = 0.9f; }},
        {"adam_eps", [](umap_config &c) { c.adam_eps = 1e-1f; }},
        {"weight_decay", [](umap_config &c) { c.weight_decay = 0.1f; }},
        {"grad_clip", [](umap_config &c) { c.grad_clip = 1e-3f; }},
        {"seed", [](umap_config &c) { c.seed = 99; }},
    };
    for (const Case &k : changes) {
        umap_config c = base;
        k.set(c);
        Fit f = fit(c, x, n, d);
        ASSERT_EQ(f.r, UMAP_OK) << k.field << ": " << f.info.error_detail;
        EXPECT_FALSE(kt::bits_equal(f.emb, ref.emb)) << k.field << " changed nothing";
    }
    { /* n_components: the embedding's width */
        umap_config c = base;
        c.n_components = 3;
        Model m;
        Fit f = fit(c, x, n, d, &m);
        ASSERT_EQ(f.r, UMAP_OK);
        EXPECT_EQ(umap_model_n_components(m.m), 3);
        EXPECT_EQ(f.emb.size(), (size_t)(3 * n));
    }
    { /* distill_epochs: moves the encoder (transform), not the embedding */
        umap_config c = base;
        Model m0, m1;
        Fit f0 = fit(c, x, n, d, &m0);
        c.distill_epochs = 0;
        Fit f1 = fit(c, x, n, d, &m1);
        EXPECT_TRUE(kt::bits_equal(f0.emb, f1.emb)) << f1.info.error_detail;
        std::vector<float> y0((size_t)(2 * n)), y1((size_t)(2 * n));
        umap_transform(m0.m, x.data(), n, d, y0.data(), 1);
        umap_transform(m1.m, x.data(), n, d, y1.data(), 1);
        EXPECT_FALSE(kt::bits_equal(y0, y1));
    }
    { /* decoder_epochs: trains the decoder, not the embedding; more passes, another decoder */
        umap_config c = base;
        std::vector<float> back[2];
        for (int i = 0; i < 2; i++) {
            Model m;
            c.decoder_epochs = 700 + 700 * i; /* past the floor of steps: the passes decide */
            Fit f = fit(c, x, n, d, &m);
            ASSERT_EQ(f.r, UMAP_OK) << f.info.error_detail;
            EXPECT_TRUE(kt::bits_equal(f.emb, ref.emb));
            back[i].resize((size_t)(n * d));
            ASSERT_EQ(umap_inverse_transform(m.m, f.emb.data(), n, 2, back[i].data(), 1, nullptr, 0), UMAP_OK);
        }
        EXPECT_FALSE(kt::bits_equal(back[0], back[1]));
    }
    { /* knn_method: which search ran */
        umap_config c = base;
        c.knn_method = UMAP_KNN_NNDESCENT;
        Fit f = fit(c, x, n, d);
        EXPECT_EQ(f.info.knn.method, UMAP_KNN_NNDESCENT);
        c.knn_method = UMAP_KNN_EXACT;
        f = fit(c, x, n, d);
        EXPECT_EQ(f.info.knn.method, UMAP_KNN_EXACT);
    }
    { /* n_threads, pool and backend never change the result */
        umap_config c = base;
        c.n_threads = 3;
        EXPECT_TRUE(kt::bits_equal(fit(c, x, n, d).emb, ref.emb));
        umap_pool *pool = nullptr;
        ASSERT_EQ(umap_pool_create(2, nullptr, &pool), UMAP_OK);
        c.pool = pool;
        EXPECT_TRUE(kt::bits_equal(fit(c, x, n, d).emb, ref.emb));
        umap_pool_free(pool);
        c = base;
        c.backend = umap_cpu_backend();
        EXPECT_TRUE(kt::bits_equal(fit(c, x, n, d).emb, ref.emb));
    }
    { /* logger: hears about constant columns */
        std::vector<float> cc = x;
        for (int64_t i = 0; i < n; i++) cc[(size_t)(i * d)] = 1.0f;
        umap_config c = base;
        std::vector<std::string> msgs;
        c.logger.log_fn = [](umap_log_level, const char *msg, void *ud) {
            ((std::vector<std::string> *)ud)->push_back(msg);
        };
        c.logger.user_data = &msgs;
        ASSERT_EQ(fit(c, cc, n, d).r, UMAP_OK);
        bool heard = false;
        for (auto &s : msgs) heard |= s.find("constant") != std::string::npos;
        EXPECT_TRUE(heard);
    }
    { /* allocator: every allocation goes through it */
        umap_config c = base;
        kt::FailingAlloc fa;
        c.allocator = fa.hook();
        Model m;
        Fit f = fit(c, x, n, d, &m);
        EXPECT_TRUE(kt::bits_equal(f.emb, ref.emb));
        EXPECT_GT(fa.attempts.load(), 10);
        EXPECT_GT(fa.live.load(), 0); /* the model */
        umap_model_free(m.m);
        m.m = nullptr;
        EXPECT_EQ(fa.live.load(), 0);
    }
    /* progress, progress_user_data, patience, min_delta, min_desired_loss,
       timeout_s, info: see ProgressAndCancel and StopRules; keep_data (the
       same fit, transform among the training rows): test_transform.cc */
}

/* ---------------------------------------------------------------- model files */

TEST(UmapModelFile, SaveLoadTransformIsBitIdentical) {
    const int64_t n = 500, d = 16;
    std::vector<float> x = blobs(n, d, 4, 47), xt = blobs(100, d, 4, 48);
    for (int proj : {0, 6}) {
        umap_config c = quick_config();
        c.input_dims = proj;
        c.standardize = proj ? 1 : 0;
        Model m;
        ASSERT_EQ(fit(c, x, n, d, &m).r, UMAP_OK);
        std::vector<float> ref((size_t)(2 * 100));
        ASSERT_EQ(umap_transform(m.m, xt.data(), 100, d, ref.data(), 1), UMAP_OK);
        for (const char *ext : {".safetensors", ".gguf"}) {
            std::string path = temp_path((std::string("model") + std::to_string(proj) + ext).c_str());
            ASSERT_EQ(umap_save(m.m, path.c_str()), UMAP_OK) << path;
            Model l;
            char detail[256];
            ASSERT_EQ(umap_load(path.c_str(), l.out(), detail, sizeof detail), UMAP_OK) << detail;
            EXPECT_EQ(umap_model_n_features(l.m), d);
            EXPECT_EQ(umap_model_n_train(l.m), n);
            EXPECT_EQ(umap_model_n_components(l.m), 2);
            EXPECT_EQ(umap_model_embedding(l.m), nullptr);
            EXPECT_EQ(umap_model_config(l.m)->seed, c.seed);
            EXPECT_EQ(umap_model_config(l.m)->n_neighbors, c.n_neighbors);
            EXPECT_FLOAT_EQ(umap_model_config(l.m)->min_dist, c.min_dist);
            std::vector<float> y((size_t)(2 * 100));
            ASSERT_EQ(umap_transform(l.m, xt.data(), 100, d, y.data(), 1), UMAP_OK);
            EXPECT_TRUE(kt::bits_equal(y, ref)) << ext;
            /* the format comes from the bytes, not the name */
            std::string renamed = path + ".bin";
            ASSERT_EQ(std::rename(path.c_str(), renamed.c_str()), 0);
            ASSERT_EQ(umap_load(renamed.c_str(), l.out(), detail, sizeof detail), UMAP_OK) << detail;
            std::remove(renamed.c_str());
        }
    }
}

TEST(UmapModelFile, BadPathsAndTruncation) {
    const int64_t n = 200, d = 8;
    std::vector<float> x = blobs(n, d, 3, 53);
    Model m;
    ASSERT_EQ(fit(quick_config(), x, n, d, &m).r, UMAP_OK);
    EXPECT_EQ(umap_save(m.m, temp_path("model.txt").c_str()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_save(m.m, "/nonexistent-dir/model.gguf"), UMAP_ERR_IO);
    Model l;
    char detail[256];
    EXPECT_EQ(umap_load("/nonexistent-dir/model.gguf", l.out(), detail, sizeof detail), UMAP_ERR_IO);
    EXPECT_NE(std::string(detail).find("nonexistent"), std::string::npos);
    for (const char *ext : {".safetensors", ".gguf"}) {
        std::string path = temp_path((std::string("trunc") + ext).c_str());
        ASSERT_EQ(umap_save(m.m, path.c_str()), UMAP_OK);
        FILE *f = std::fopen(path.c_str(), "rb");
        ASSERT_NE(f, nullptr);
        std::vector<unsigned char> bytes(1 << 20);
        bytes.resize(std::fread(bytes.data(), 1, bytes.size(), f));
        std::fclose(f);
        ASSERT_GT(bytes.size(), 100u);
        /* every truncation is refused with a reason */
        for (size_t len = 0; len < bytes.size(); len += (len < 512 ? 1 : 61)) {
            umap_result r = umap_load_memory(bytes.data(), len, nullptr, l.out(), detail, sizeof detail);
            EXPECT_TRUE(r == UMAP_ERR_FORMAT || r == UMAP_ERR_TOO_LARGE) << ext << " cut at " << len << ": " << umap_result_string(r);
            EXPECT_STRNE(detail, "") << ext << " cut at " << len;
            EXPECT_EQ(l.m, nullptr);
        }
        ASSERT_EQ(umap_load_memory(bytes.data(), bytes.size(), nullptr, l.out(), detail, sizeof detail), UMAP_OK);
        /* a saved model is replaced only by a complete new file */
        EXPECT_EQ(umap_save(m.m, path.c_str()), UMAP_OK);
    }
}

/* ---------------------------------------------------------------- quality metrics */

TEST(UmapQuality, KnownValues) {
    const int64_t n = 300, d = 2;
    std::vector<float> x = ut::uniform(n * d, 5, -1, 1);
    std::vector<int32_t> labels((size_t)n);
    for (int64_t i = 0; i < n; i++) labels[(size_t)i] = x[(size_t)(2 * i)] > 0;
    umap_quality q;
    umap_quality_desc qd{};
    /* the data as its own embedding: perfect */
    ASSERT_EQ(umap_quality_eval(&qd, x.data(), n, d, x.data(), 2, labels.data(), &q), UMAP_OK);
    EXPECT_DOUBLE_EQ(q.trustworthiness, 1.0);
    EXPECT_DOUBLE_EQ(q.knn_recall, 1.0);
    EXPECT_GT(q.knn_accuracy, 0.9);
    /* a random embedding: trustworthiness near 0.5, recall near k/n */
    std::vector<float> r = ut::uniform(n * 2, 77, -1, 1);
    ASSERT_EQ(umap_quality_eval(&qd, x.data(), n, d, r.data(), 2, nullptr, &q), UMAP_OK);
    EXPECT_NEAR(q.trustworthiness, 0.5, 0.05);
    EXPECT_LT(q.knn_recall, 0.15);
    EXPECT_EQ(q.knn_accuracy, -1.0);
    /* a subset of queries estimates the whole */
    qd.n_queries = 100;
    umap_quality qs;
    ASSERT_EQ(umap_quality_eval(&qd, x.data(), n, d, r.data(), 2, nullptr, &qs), UMAP_OK);
    EXPECT_NEAR(qs.trustworthiness, q.trustworthiness, 0.05);
    /* bad arguments */
    qd.k = (int)n;
    EXPECT_EQ(umap_quality_eval(&qd, x.data(), n, d, r.data(), 2, nullptr, &q), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_quality_eval(nullptr, nullptr, n, d, r.data(), 2, nullptr, &q), UMAP_ERR_INVALID_ARGUMENT);
}

TEST(UmapQuality, TrustworthinessMatchesItsDefinition) {
    /* brute-force Venna & Kaski on a small set */
    const int64_t n = 60, d = 5;
    const int k = 5;
    std::vector<float> x = ut::uniform(n * d, 3, -1, 1), y = ut::uniform(n * 2, 4, -1, 1);
    for (int64_t i = 0; i < n; i++) y[(size_t)(2 * i)] += x[(size_t)(i * d)] * 2; /* some structure */
    auto ranks = [&](const std::vector<float> &v, int64_t dim, int64_t i) {
        std::vector<std::pair<double, int64_t>> o;
        for (int64_t j = 0; j < n; j++) {
            if (j == i) continue;
            double s = 0;
            for (int64_t c = 0; c < dim; c++) s += (double)(v[(size_t)(i * dim + c)] - v[(size_t)(j * dim + c)]) * (v[(size_t)(i * dim + c)] - v[(size_t)(j * dim + c)]);
            o.push_back({s, j});
        }
        std::sort(o.begin(), o.end());
        std::vector<int64_t> rank((size_t)n, 0);
        for (size_t r = 0; r < o.size(); r++) rank[(size_t)o[r].second] = (int64_t)r + 1;
        return rank;
    };
    double sum = 0;
    for (int64_t i = 0; i < n; i++) {
        std::vector<int64_t> rh = ranks(x, d, i), rl = ranks(y, 2, i);
        for (int64_t j = 0; j < n; j++)
            if (j != i && rl[(size_t)j] <= k && rh[(size_t)j] > k) sum += (double)(rh[(size_t)j] - k);
    }
    double expect = 1.0 - 2.0 / (n * k * (2.0 * n - 3.0 * k - 1.0)) * sum;
    umap_quality q;
    umap_quality_desc qd{};
    qd.k = k;
    ASSERT_EQ(umap_quality_eval(&qd, x.data(), n, d, y.data(), 2, nullptr, &q), UMAP_OK);
    EXPECT_NEAR(q.trustworthiness, expect, 1e-9);
}

/* ------------------------------------------------- disconnection_distance */

TEST(UmapDisconnection, FarRowsLoseTheirEdgesAndAreListed) {
    const int64_t n = 400, d = 6;
    std::vector<float> x = blobs(n, d, 4, 21);
    /* two rows far from everything and from each other */
    for (int64_t j = 0; j < d; j++) {
        x[(size_t)(17 * d + j)] = 1000.0f + (float)j;
        x[(size_t)(250 * d + j)] = -1000.0f - (float)j;
    }
    umap_config c = quick_config();
    c.disconnection_distance = 100.0f;
    Model m;
    Fit f = fit(c, x, n, d, &m);
    ASSERT_EQ(f.r, UMAP_OK) << f.info.error_detail;
    /* what was dropped: every k-NN entry of the two rows, and no other (the
       blobs' rows are within 100 of their neighbours) */
    const int k = c.n_neighbors - 1;
    std::vector<int32_t> idx((size_t)(n * k));
    std::vector<float> dist((size_t)(n * k));
    umap_knn_desc kd = kt::desc(k, UMAP_METRIC_EUCLIDEAN);
    ASSERT_EQ(umap_knn(&kd, x.data(), n, d, idx.data(), dist.data()), UMAP_OK);
    int64_t far = 0;
    for (float v : dist) far += v >= 100.0f;
    EXPECT_EQ(f.info.n_dropped_edges, far);
    EXPECT_EQ(far, 2 * k);
    EXPECT_EQ(f.info.n_disconnected, 2);
    int64_t count = -1;
    const int64_t *rows = umap_model_disconnected(m.m, &count);
    ASSERT_EQ(count, 2);
    ASSERT_NE(rows, nullptr);
    EXPECT_EQ(rows[0], 17);
    EXPECT_EQ(rows[1], 250);
    /* the encoder still places them: no NaN (umap-learn's) */
    for (float v : f.emb) ASSERT_TRUE(std::isfinite(v));
    EXPECT_FLOAT_EQ(umap_model_config(m.m)->disconnection_distance, 100.0f);
    /* without it, nothing is dropped and nothing listed */
    Model plain;
    Fit g = fit(quick_config(), x, n, d, &plain);
    ASSERT_EQ(g.r, UMAP_OK);
    EXPECT_EQ(g.info.n_dropped_edges, 0);
    EXPECT_EQ(g.info.n_disconnected, 0);
    EXPECT_EQ(umap_model_disconnected(plain.m, &count), nullptr);
    EXPECT_EQ(count, 0);
}

TEST(UmapDisconnection, AutoIsUmapLearnsDefaultAndFilesKeepIt) {
    const int64_t n = 200, d = 5;
    std::vector<float> x = blobs(n, d, 3, 5);
    struct Case {
        umap_metric m;
        float want;
    };
    for (Case cs : {Case{UMAP_METRIC_EUCLIDEAN, 0.0f}, Case{UMAP_METRIC_COSINE, 2.0f},
                    Case{UMAP_METRIC_CORRELATION, 2.0f}, Case{UMAP_METRIC_MANHATTAN, 0.0f}}) {
        umap_config c = quick_config();
        EXPECT_EQ(c.disconnection_distance, (float)UMAP_AUTO);
        c.metric = cs.m;
        c.keep_data = UMAP_KEEP_NONE;
        Model m;
        Fit f = fit(c, x, n, d, &m);
        ASSERT_EQ(f.r, UMAP_OK) << f.info.error_detail;
        EXPECT_EQ(umap_model_config(m.m)->disconnection_distance, cs.want) << umap_metric_name(cs.m);
        const std::string path = temp_path("disconnect.safetensors");
        unlink(path.c_str());
        ASSERT_EQ(umap_save(m.m, path.c_str()), UMAP_OK);
        Model back;
        char detail[256] = "";
        ASSERT_EQ(umap_load(path.c_str(), back.out(), detail, sizeof detail), UMAP_OK) << detail;
        EXPECT_EQ(umap_model_config(back.m)->disconnection_distance, cs.want) << umap_metric_name(cs.m);
    }
}

TEST(UmapDisconnection, DroppingEveryEdgeIsAClearError) {
    const int64_t n = 120, d = 4;
    std::vector<float> x = blobs(n, d, 2, 9);
    umap_config c = quick_config();
    c.disconnection_distance = 1e-6f;
    Fit f = fit(c, x, n, d);
    EXPECT_EQ(f.r, UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(f.info.error_detail).find("disconnection_distance dropped every k-NN edge"),
              std::string::npos)
        << f.info.error_detail;
    c.disconnection_distance = -1.5f; /* neither positive nor UMAP_AUTO */
    f = fit(c, x, n, d);
    EXPECT_EQ(f.r, UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(f.info.error_detail).find("disconnection_distance"), std::string::npos)
        << f.info.error_detail;
}

/* ------------------------------------------------------------------ unique */

namespace {
/* blobs with rows 5, 40 and 77 copies of row 3, and row 100 of row 101 */
std::vector<float> with_copies(int64_t n, int64_t d, uint64_t seed) {
    std::vector<float> x = blobs(n, d, 4, seed);
    for (int64_t to : {5, 40, 77}) kt::copy_row(x, d, 3, to);
    kt::copy_row(x, d, 101, 100);
    x[(size_t)(100 * d)] = 0.0f; /* -0 is 0: still copies */
    x[(size_t)(101 * d)] = -0.0f;
    return x;
}
bool same_place(const std::vector<float> &e, int c, int64_t a, int64_t b) {
    return std::memcmp(&e[(size_t)(a * c)], &e[(size_t)(b * c)], (size_t)c * sizeof(float)) == 0;
}
} // namespace

TEST(UmapUnique, CopiesGetOnePlace) {
    const int64_t n = 300, d = 6;
    std::vector<float> x = with_copies(n, d, 31);
    umap_config c = quick_config();
    Model plain;
    Fit f0 = fit(c, x, n, d, &plain);
    ASSERT_EQ(f0.r, UMAP_OK) << f0.info.error_detail;
    EXPECT_FALSE(same_place(f0.emb, 2, 3, 5)) << "without unique, copies land apart (the issue's three places)";
    c.unique = 1;
    Model m;
    Fit f = fit(c, x, n, d, &m);
    ASSERT_EQ(f.r, UMAP_OK) << f.info.error_detail;
    ASSERT_EQ((int64_t)f.emb.size(), n * 2);
    EXPECT_EQ(umap_model_n_train(m.m), n);
    for (int64_t r : {5, 40, 77}) EXPECT_TRUE(same_place(f.emb, 2, 3, r)) << r;
    EXPECT_TRUE(same_place(f.emb, 2, 100, 101));
    EXPECT_FALSE(same_place(f.emb, 2, 3, 4));
    for (float v : f.emb) ASSERT_TRUE(std::isfinite(v));
    EXPECT_EQ(umap_model_config(m.m)->unique, 1);
    /* the same fit as of the distinct rows alone, placed back */
    std::vector<float> distinct;
    std::vector<int64_t> from;
    for (int64_t i = 0; i < n; i++) {
        if (i == 5 || i == 40 || i == 77 || i == 101) continue; /* later copies (101: of row 100) */
        distinct.insert(distinct.end(), x.begin() + i * d, x.begin() + (i + 1) * d);
        from.push_back(i);
    }
    Fit g = fit(quick_config(), distinct, (int64_t)from.size(), d);
    ASSERT_EQ(g.r, UMAP_OK);
    for (size_t q = 0; q < from.size(); q++)
        ASSERT_EQ(std::memcmp(&g.emb[q * 2], &f.emb[(size_t)from[q] * 2], 2 * sizeof(float)), 0) << from[q];
    /* transform places every copy alike too, and the model saves and loads */
    std::vector<float> out((size_t)(n * 2));
    ASSERT_EQ(umap_transform(m.m, x.data(), n, d, out.data(), 0), UMAP_OK);
    EXPECT_TRUE(same_place(out, 2, 3, 40));
    const std::string path = temp_path("unique.safetensors");
    unlink(path.c_str());
    ASSERT_EQ(umap_save(m.m, path.c_str()), UMAP_OK);
    Model back;
    char detail[256] = "";
    ASSERT_EQ(umap_load(path.c_str(), back.out(), detail, sizeof detail), UMAP_OK) << detail;
    std::vector<float> out2((size_t)(n * 2));
    ASSERT_EQ(umap_transform(back.m, x.data(), n, d, out2.data(), 0), UMAP_OK);
    EXPECT_EQ(out, out2);
}

TEST(UmapUnique, TargetsInitAndThreadsFollowTheFirstCopy) {
    const int64_t n = 240, d = 5;
    std::vector<float> x = with_copies(n, d, 8);
    std::vector<int32_t> labels((size_t)n);
    for (int64_t i = 0; i < n; i++) labels[(size_t)i] = (int32_t)(i % 3);
    std::vector<float> coords((size_t)(n * 2));
    for (int64_t i = 0; i < n * 2; i++) coords[(size_t)i] = (float)ut::unit(4, (uint64_t)i);
    umap_target t = umap_target();
    t.labels = labels.data();
    umap_config c = quick_config();
    c.unique = 1;
    c.target = &t;
    c.init = UMAP_INIT_COORDS;
    c.init_coords = coords.data();
    c.n_threads = 1;
    Fit a = fit(c, x, n, d);
    ASSERT_EQ(a.r, UMAP_OK) << a.info.error_detail;
    c.n_threads = 2;
    Fit b = fit(c, x, n, d);
    ASSERT_EQ(b.r, UMAP_OK);
    EXPECT_TRUE(kt::bits_equal(a.emb, b.emb)) << "the same bits for any thread count";
    EXPECT_TRUE(same_place(a.emb, 2, 3, 77));
    /* the caller's k-NN lists name rows as given: refused */
    umap_model *m = nullptr;
    std::vector<int32_t> idx((size_t)n, 0);
    std::vector<float> dist((size_t)n, 1.0f);
    umap_fit_info info;
    c.info = &info;
    EXPECT_EQ(umap_fit_knn(&c, x.data(), n, d, idx.data(), dist.data(), 1, &m), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(m, nullptr);
    EXPECT_NE(std::string(info.error_detail).find("unique"), std::string::npos) << info.error_detail;
}

TEST(UmapUnique, TooFewDistinctRowsAndNaNNameTheRows) {
    const int64_t n = 50, d = 3;
    std::vector<float> x((size_t)(n * d), 1.0f);
    for (int64_t i = 0; i < 4; i++) x[(size_t)(i * d)] = (float)i; /* 4 distinct rows */
    umap_config c = quick_config();
    c.unique = 1;
    Fit f = fit(c, x, n, d);
    EXPECT_EQ(f.r, UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(f.info.error_detail).find("unique (4 distinct rows of 50)"), std::string::npos)
        << f.info.error_detail;
    x[(size_t)(33 * d + 1)] = NAN;
    f = fit(c, x, n, d);
    EXPECT_EQ(f.r, UMAP_ERR_NON_FINITE);
    EXPECT_NE(std::string(f.info.error_detail).find("row 33"), std::string::npos) << f.info.error_detail;
}

TEST(UmapUnique, RowsAreNamedAsTheCallerNumbersThem) {
    /* rows 5, 40, 77 copy row 3: the distinct rows after them are numbered
       lower, but errors, warnings and the disconnected list give the
       caller's numbers */
    const int64_t n = 300, d = 6;
    std::vector<float> x = with_copies(n, d, 13);
    for (float &v : x) v = std::fabs(v);
    x[(size_t)(200 * d + 2)] = -0.5f;
    umap_config c = quick_config();
    c.unique = 1;
    c.metric = UMAP_METRIC_HELLINGER;
    Fit f = fit(c, x, n, d);
    EXPECT_EQ(f.r, UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(f.info.error_detail).find("row 200 holds -0.5 (column 2)"), std::string::npos)
        << f.info.error_detail;
    /* a far row after the copies, and a copy of it: both disconnected */
    x = with_copies(n, d, 13);
    for (int64_t j = 0; j < d; j++) x[(size_t)(150 * d + j)] = x[(size_t)(151 * d + j)] = 900.0f + (float)j;
    c = quick_config();
    c.unique = 1;
    c.disconnection_distance = 100.0f;
    std::vector<std::string> said;
    c.logger.log_fn = [](umap_log_level level, const char *msg, void *ud) {
        if (level == UMAP_LOG_WARN) static_cast<std::vector<std::string> *>(ud)->push_back(msg);
    };
    c.logger.user_data = &said;
    Model m;
    f = fit(c, x, n, d, &m);
    ASSERT_EQ(f.r, UMAP_OK) << f.info.error_detail;
    int64_t count = 0;
    const int64_t *rows = umap_model_disconnected(m.m, &count);
    ASSERT_EQ(count, 2);
    EXPECT_EQ(rows[0], 150);
    EXPECT_EQ(rows[1], 151);
    EXPECT_EQ(f.info.n_disconnected, 2);
    ASSERT_EQ(said.size(), 1u);
    EXPECT_NE(said[0].find("rows 150, 151"), std::string::npos) << said[0];
}

