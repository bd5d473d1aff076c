/* test_densmap.cc - densMAP (config.densmap) and the local radii
   (config.output_dens): the refinement's density term against umap-learn's
   formulas worked here, the radii against their definition over
   umap_knn and umap_fuzzy_graph, what densMAP does on real data (fit and
   transform), the same bits for any thread count, and bad settings. */
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "test_knn_util.h"
#include "test_util.h"

namespace {

using ut::Model;

double pearson(const float *a, const float *b, int64_t n) {
    double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++)
        if (std::isfinite(a[i]) && std::isfinite(b[i])) ma += a[i], mb += b[i], m++;
    ma /= (double)m, mb /= (double)m;
    for (int64_t i = 0; i < n; i++)
        if (std::isfinite(a[i]) && std::isfinite(b[i]))
            sab += (a[i] - ma) * (b[i] - mb), saa += (a[i] - ma) * (a[i] - ma), sbb += (b[i] - mb) * (b[i] - mb);
    return sab / std::sqrt(saa * sbb);
}

/* umap-learn's log radii of rows x (n x d, euclidean), worked from the
   public pieces: umap_knn (k = n_neighbors - 1), umap_fuzzy_graph with
   default settings, log(1e-8 + sum mu D / sum mu), D squared or not */
std::vector<float> radii(const float *x, int64_t n, int64_t d, int n_neighbors, bool squared) {
    const int k = n_neighbors - 1;
    std::vector<int32_t> idx((size_t)(n * k));
    std::vector<float> dist((size_t)(n * k)), out((size_t)n, NAN);
    umap_knn_desc kd{};
    kd.k = k;
    kd.method = UMAP_KNN_EXACT;
    if (umap_knn(&kd, x, n, d, idx.data(), dist.data()) != UMAP_OK) {
        ADD_FAILURE() << "umap_knn failed";
        return out;
    }
    umap_config c = umap_config_default();
    c.n_neighbors = n_neighbors;
    umap_edge_list e;
    if (umap_fuzzy_graph(&c, idx.data(), dist.data(), n, k, &e) != UMAP_OK) {
        ADD_FAILURE() << "umap_fuzzy_graph failed";
        return out;
    }
    std::vector<double> sum((size_t)n, 0.0), mu((size_t)n, 0.0);
    for (int64_t t = 0; t < e.n_edges; t++) {
        const int32_t h = e.head[t], o = e.tail[t];
        double dd = -1;
        for (int j = 0; j < k && dd < 0; j++)
            if (idx[(size_t)(h * k + j)] == o) dd = dist[(size_t)(h * k + j)];
        for (int j = 0; j < k && dd < 0; j++)
            if (idx[(size_t)(o * k + j)] == h) dd = dist[(size_t)(o * k + j)];
        if (squared) dd *= dd;
        sum[(size_t)h] += e.weight[t] * dd, mu[(size_t)h] += e.weight[t];
        sum[(size_t)o] += e.weight[t] * dd, mu[(size_t)o] += e.weight[t];
    }
    umap_edge_list_free(&e);
    for (int64_t i = 0; i < n; i++)
        if (mu[(size_t)i] > 0) out[(size_t)i] = (float)std::log(1e-8 + sum[(size_t)i] / mu[(size_t)i]);
    return out;
}

/* 240 rows of 6 columns: three blobs of very different spreads */
std::vector<float> spreads(int64_t *n, int64_t *d) {
    *n = 240, *d = 6;
    std::vector<float> x = ut::uniform(*n * *d, 41, -1, 1);
    for (int64_t i = 0; i < *n; i++)
        for (int64_t j = 0; j < *d; j++) {
            const int blob = (int)(i % 3);
            x[(size_t)(i * *d + j)] = x[(size_t)(i * *d + j)] * (blob == 0 ? 0.2f : blob == 1 ? 1.0f : 4.0f) +
                                      (j == 0 ? 30.0f * (float)blob : 0.0f);
        }
    return x;
}

umap_config densmap_config() {
    umap_config c = ut::quick_config();
    c.densmap = 1;
    c.output_dens = 1;
    c.refine_epochs = 60;
    return c;
}

/* ------------------------------------------------- the term, worked by hand */

/* One epoch of the density term alone (no pull, no negatives) on a chain
   of five rows, every slot active: each row moves by umap-learn's update,
   worked here from layouts.py as it reads (its entries are both directions
   of every edge, and a sampled entry moves both its ends), at the
   refinement's rate. */
TEST(DensmapTerm, OneEpochIsUmapLearnsUpdate) {
    const int n = 5;
    const int64_t offset[6] = {0, 1, 3, 5, 7, 8};
    const int32_t nbr[8] = {1, 0, 2, 1, 3, 2, 4, 3};
    const uint32_t always[8] = {1u << 24, 1u << 24, 1u << 24, 1u << 24, 1u << 24, 1u << 24, 1u << 24, 1u << 24};
    const float R[n] = {1.2f, -0.7f, 0.4f, -1.5f, 0.6f};
    const float start[2 * n] = {0.0f, 0.0f, 0.8f, 0.1f, 1.3f, -0.4f, 2.9f, 0.2f, 3.3f, 0.9f};
    const uint64_t key = 0x5eedull;
    const float rate = 0.05f;
    const double a = 1.577, b = 0.895, lambda = 2.0, shift = 0.1;
    /* umap-learn: phi and the phi-weighted squared distance summed per row over its entries (each edge twice) */
    std::vector<std::pair<int, int>> entries;
    for (int i = 0; i < n; i++)
        for (int64_t s = offset[i]; s < offset[i + 1]; s++) entries.push_back({i, nbr[s]});
    auto d2_of = [&](int i, int j) {
        return std::pow((double)start[2 * i] - start[2 * j], 2) + std::pow((double)start[2 * i + 1] - start[2 * j + 1], 2);
    };
    std::vector<double> phi_sum(n, 0), re(n, 0);
    for (auto &e : entries) {
        double d2 = d2_of(e.first, e.second), phi = 1 / (1 + a * std::pow(d2, b));
        phi_sum[(size_t)e.first] += phi, phi_sum[(size_t)e.second] += phi;
        re[(size_t)e.first] += phi * d2, re[(size_t)e.second] += phi * d2;
    }
    double mean = 0, var = 0, cov = 0;
    for (int i = 0; i < n; i++) re[(size_t)i] = std::log(1e-8 + re[(size_t)i] / phi_sum[(size_t)i]), mean += re[(size_t)i] / n;
    for (int i = 0; i < n; i++) var += std::pow(re[(size_t)i] - mean, 2) / n, cov += re[(size_t)i] * R[i] / (n - 1);
    const double sd = std::sqrt(var + shift), mu_tot = (double)entries.size(); /* every weight 1 */
    std::vector<double> want(start, start + 2 * n);
    for (auto &e : entries) {
        const int j = e.first, k = e.second;
        const double d2 = d2_of(j, k), phi = 1 / (1 + a * std::pow(d2, b));
        const double dphi = a * b * std::pow(d2, b - 1) / (1 + a * std::pow(d2, b));
        const double drk = phi / phi_sum[(size_t)k] * ((1 - b * (1 - phi)) / std::exp(re[(size_t)k]) + dphi);
        const double drj = phi / phi_sum[(size_t)j] * ((1 - b * (1 - phi)) / std::exp(re[(size_t)j]) + dphi);
        const double wk = R[k] - cov * (re[(size_t)k] - mean) / (sd * sd), wj = R[j] - cov * (re[(size_t)j] - mean) / (sd * sd);
        const double g = lambda * mu_tot * (wk * drk + wj * drj) / (1.0 * sd) / n;
        for (int c = 0; c < 2; c++) {
            double step = std::max(-4.0, std::min(4.0, 2 * g * ((double)start[2 * j + c] - start[2 * k + c])));
            want[(size_t)(2 * j + c)] += rate * step;
            want[(size_t)(2 * k + c)] -= rate * step;
        }
    }
    umap_pool *pool = nullptr;
    ASSERT_EQ(umap_pool_create(1, nullptr, &pool), UMAP_OK);
    umap_refine_job job{};
    job.n = n; job.n_components = 2;
    job.offset = offset; job.nbr = nbr; job.active = always;
    job.negative_sample_rate = 0;
    job.a = (float)a; job.b = (float)b; job.gamma = 1.0f;
    job.attraction = 0.0f;
    job.n_epochs = 1; job.keys = &key; job.rates = &rate;
    job.dens_r = R; job.dens_lambda = (float)lambda; job.dens_var_shift = (float)shift; job.dens_from = 0;
    job.pool = pool;
    bool moved = false;
    for (int v = 0; v < umap_refine_variant_count(); v++) {
        float y[2 * n];
        char name[32];
        std::copy(start, start + 2 * n, y);
        job.y = y;
        if (!umap_refine_variant(v, &job, name, sizeof name)) continue; /* not in this build or CPU */
        for (int i = 0; i < 2 * n; i++) {
            EXPECT_NEAR(y[i], want[(size_t)i], 2e-4 * std::fabs(want[(size_t)i] - start[i]) + 1e-6) << name << ", value " << i;
            moved |= std::fabs(want[(size_t)i] - start[i]) > 1e-3;
        }
    }
    EXPECT_TRUE(moved) << "the case must move rows";
    /* from a later epoch on only: this one then has no term, and nothing moves */
    job.dens_from = 1;
    float y[2 * n];
    std::copy(start, start + 2 * n, y);
    job.y = y;
    ASSERT_EQ(umap_refine_variant(0, &job, nullptr, 0), 1);
    for (int i = 0; i < 2 * n; i++) EXPECT_EQ(y[i], start[i]);
    umap_pool_free(pool);
}

/* ------------------------------------------------------------ on a fit */

/* output_dens's radii are umap-learn's definition over the fit's own graph
   and over the embedding's, worked here from umap_knn and umap_fuzzy_graph */
TEST(DensmapFit, RadiiAreTheirDefinition) {
    int64_t n, d;
    std::vector<float> x = spreads(&n, &d);
    for (int densmap : {0, 1}) {
        umap_config c = densmap_config();
        c.densmap = densmap;
        c.knn_method = UMAP_KNN_EXACT;
        Model m;
        umap_fit_info info;
        c.info = &info;
        ASSERT_EQ(umap_fit(&c, x.data(), n, d, m.out()), UMAP_OK) << info.error_detail;
        const float *ro = nullptr, *re = nullptr;
        ASSERT_EQ(umap_model_local_radii(m.m, &ro, &re), n);
        std::vector<float> want_o = radii(x.data(), n, d, c.n_neighbors, true);
        std::vector<float> want_e = radii(umap_model_embedding(m.m), n, 2, c.n_neighbors, false);
        for (int64_t i = 0; i < n; i++) {
            EXPECT_NEAR(ro[i], want_o[(size_t)i], 1e-4) << "row " << i;
            EXPECT_NEAR(re[i], want_e[(size_t)i], 1e-4) << "row " << i;
        }
    }
    /* without output_dens the model holds none */
    umap_config c = densmap_config();
    c.output_dens = 0;
    Model m;
    ASSERT_EQ(umap_fit(&c, x.data(), n, d, m.out()), UMAP_OK);
    const float *ro = x.data(), *re = x.data();
    EXPECT_EQ(umap_model_local_radii(m.m, &ro, &re), 0);
    EXPECT_EQ(ro, nullptr);
    EXPECT_EQ(re, nullptr);
    EXPECT_EQ(umap_model_local_radii(nullptr, nullptr, nullptr), 0);
}

/* Blobs of 20x different spreads: densMAP keeps their radii apart in the
   embedding, where UMAP evens them out */
TEST(DensmapFit, KeepsTheBlobsSpreads) {
    int64_t n, d;
    std::vector<float> x = spreads(&n, &d);
    double corr[2];
    for (int densmap : {0, 1}) {
        umap_config c = densmap_config();
        c.densmap = densmap;
        Model m;
        ASSERT_EQ(umap_fit(&c, x.data(), n, d, m.out()), UMAP_OK);
        const float *ro, *re;
        ASSERT_EQ(umap_model_local_radii(m.m, &ro, &re), n);
        corr[densmap] = pearson(ro, re, n);
    }
    EXPECT_GT(corr[1], 0.8) << "UMAP's " << corr[0];
    EXPECT_GT(corr[1], corr[0] + 0.2);
}

/* the same bits for any thread count, and for the same seed twice */
TEST(DensmapFit, SameBitsForAnyThreadCount) {
    int64_t n, d;
    std::vector<float> x = spreads(&n, &d);
    std::vector<float> first;
    for (int threads : {1, 2, 3, 2}) {
        umap_config c = densmap_config();
        c.n_threads = threads;
        Model m;
        ASSERT_EQ(umap_fit(&c, x.data(), n, d, m.out()), UMAP_OK);
        std::vector<float> got(umap_model_embedding(m.m), umap_model_embedding(m.m) + n * 2);
        const float *ro, *re;
        ASSERT_EQ(umap_model_local_radii(m.m, &ro, &re), n);
        got.insert(got.end(), ro, ro + n);
        got.insert(got.end(), re, re + n);
        if (first.empty()) first = got;
        else EXPECT_TRUE(kt::bits_equal(got, first)) << threads << " threads";
    }
}

/* unique: every copy gets its distinct row's radii; the auto keep is none
   (transform is the encoder, which learnt the densMAP layout) */
TEST(DensmapFit, UniqueCopiesShareRadiiAndTheEncoderPlaces) {
    int64_t n, d;
    std::vector<float> x = spreads(&n, &d);
    x.insert(x.end(), x.begin(), x.begin() + 10 * d); /* rows 0..9 again */
    const int64_t rows = n + 10;
    umap_config c = densmap_config();
    c.unique = 1;
    c.keep_data = UMAP_AUTO;
    Model m;
    umap_fit_info info;
    c.info = &info;
    ASSERT_EQ(umap_fit(&c, x.data(), rows, d, m.out()), UMAP_OK) << info.error_detail;
    const float *ro, *re;
    ASSERT_EQ(umap_model_local_radii(m.m, &ro, &re), rows);
    for (int64_t i = 0; i < 10; i++) {
        EXPECT_EQ(ro[n + i], ro[i]);
        EXPECT_EQ(re[n + i], re[i]);
    }
    EXPECT_EQ(umap_model_config(m.m)->keep_data, UMAP_KEEP_NONE);
    EXPECT_EQ(umap_model_config(m.m)->densmap, 1);
}

/* the settings a densMAP fit refuses, each named */
TEST(DensmapFit, BadSettingsAreNamed) {
    int64_t n, d;
    std::vector<float> x = spreads(&n, &d);
    struct Case {
        const char *field;
        void (*set)(umap_config *);
    } cases[] = {
        {"refine_epochs", [](umap_config *c) { c->refine_epochs = 0; }},
        {"dens_lambda", [](umap_config *c) { c->dens_lambda = -1.0f; }},
        {"dens_frac", [](umap_config *c) { c->dens_frac = 1.5f; }},
        {"dens_var_shift", [](umap_config *c) { c->dens_var_shift = NAN; }},
        {"densmap", [](umap_config *c) { c->densmap = 2; }},
        {"keep_sample", [](umap_config *c) { c->keep_data = UMAP_AUTO, c->keep_sample = 100; }},
    };
    for (const Case &k : cases) {
        umap_config c = densmap_config();
        k.set(&c);
        umap_fit_info info;
        c.info = &info;
        Model m;
        EXPECT_EQ(umap_fit(&c, x.data(), n, d, m.out()), UMAP_ERR_INVALID_ARGUMENT) << k.field;
        EXPECT_EQ(m.m, nullptr);
        EXPECT_NE(std::string(info.error_detail).find(k.field), std::string::npos) << info.error_detail;
    }
}

/* densMAP's settings survive a model file, and the loaded model (which
   keeps no radii) transforms as the fitted one */
TEST(DensmapFit, ModelFileKeepsTheSettings) {
    int64_t n, d;
    std::vector<float> x = spreads(&n, &d);
    umap_config c = densmap_config();
    c.dens_lambda = 1.5f;
    c.dens_frac = 0.4f;
    c.dens_var_shift = 0.2f;
    Model m, back;
    ASSERT_EQ(umap_fit(&c, x.data(), n, d, m.out()), UMAP_OK);
    const std::string path = ::testing::TempDir() + "densmap_model.safetensors";
    std::remove(path.c_str());
    ASSERT_EQ(umap_save(m.m, path.c_str()), UMAP_OK);
    ASSERT_EQ(umap_load(path.c_str(), back.out(), nullptr, 0), UMAP_OK);
    std::remove(path.c_str());
    const umap_config *got = umap_model_config(back.m);
    EXPECT_EQ(got->densmap, 1);
    EXPECT_EQ(got->dens_lambda, 1.5f);
    EXPECT_EQ(got->dens_frac, 0.4f);
    EXPECT_EQ(got->dens_var_shift, 0.2f);
    EXPECT_EQ(umap_model_local_radii(back.m, nullptr, nullptr), 0);
    std::vector<float> a((size_t)(n * 2)), b((size_t)(n * 2));
    ASSERT_EQ(umap_transform(m.m, x.data(), n, d, a.data(), 2), UMAP_OK);
    ASSERT_EQ(umap_transform(back.m, x.data(), n, d, b.data(), 2), UMAP_OK);
    EXPECT_TRUE(kt::bits_equal(a, b));
}

/* ------------------------------------------------------------ real data */

/* Fashion-MNIST: densMAP's embedding keeps the data's local radii far
   better than UMAP's, for the training rows and for new rows the encoder
   places (measured among the new rows alone, so no training row helps);
   the margins are a regression's, docs/BENCHMARKS.md has the measures */
TEST(DensmapQuality, FashionMnistKeepsLocalRadiiInFitAndTransform) {
    const int64_t n = 3000, n_fit = 2400, n_new = n - n_fit;
    int64_t d = 0;
    std::vector<float> x;
    std::vector<int32_t> labels;
    if (!kt::fashion_mnist_t10k(n, &x, &d, &labels)) GTEST_SKIP() << "Fashion-MNIST not readable (Debian package dataset-fashion-mnist)";
    const float *held_out = x.data() + n_fit * d;
    std::vector<float> ro_new = radii(held_out, n_new, d, 15, true);
    double fit_corr[2], new_corr[2];
    for (int densmap : {0, 1}) {
        umap_config c = umap_config_default();
        c.n_threads = 2;
        c.densmap = densmap;
        c.output_dens = 1;
        Model m;
        umap_fit_info info;
        c.info = &info;
        ASSERT_EQ(umap_fit(&c, x.data(), n_fit, d, m.out()), UMAP_OK) << info.error_detail;
        const float *ro, *re;
        ASSERT_EQ(umap_model_local_radii(m.m, &ro, &re), n_fit);
        fit_corr[densmap] = pearson(ro, re, n_fit);
        std::vector<float> y((size_t)(n_new * 2));
        ASSERT_EQ(umap_transform(m.m, held_out, n_new, d, y.data(), 2), UMAP_OK);
        std::vector<float> re_new = radii(y.data(), n_new, 2, 15, false);
        new_corr[densmap] = pearson(ro_new.data(), re_new.data(), n_new);
    }
    RecordProperty("fit_corr_umap", std::to_string(fit_corr[0]));
    RecordProperty("fit_corr_densmap", std::to_string(fit_corr[1]));
    RecordProperty("new_corr_umap", std::to_string(new_corr[0]));
    RecordProperty("new_corr_densmap", std::to_string(new_corr[1]));
    EXPECT_GT(fit_corr[1], 0.7) << "UMAP's " << fit_corr[0];
    EXPECT_GT(fit_corr[1], fit_corr[0] + 0.2);
    EXPECT_GT(new_corr[1], 0.55) << "UMAP's " << new_corr[0];
    EXPECT_GT(new_corr[1], new_corr[0] + 0.2);
}

} // namespace
