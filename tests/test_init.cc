/* Initialisation: the sparse spectral solver against a dense reference,
   fit's init kinds (random, pca, spectral, coords) and their effect on the
   encoder's start, the fallbacks, thread-count independence, and the init
   in model files (by name, and the old pca_init field). */
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>

#include "test_knn_util.h"
#include "test_util.h"

namespace {

struct Graph {
    int64_t n = 0;
    std::vector<int32_t> head, tail;
    std::vector<float> weight;
    void edge(int64_t a, int64_t b, double w) {
        head.push_back((int32_t)a);
        tail.push_back((int32_t)b);
        weight.push_back((float)w);
    }
};

/* a ring with uneven weights and weak chords: a connected graph whose
   smallest Laplacian eigenvalues are distinct */
Graph ring(int64_t n, uint64_t seed) {
    Graph g;
    g.n = n;
    for (int64_t i = 0; i < n; i++) {
        g.edge(i, (i + 1) % n, 0.5 + ut::unit(seed, (uint64_t)i));
        if (i % 3 == 0) g.edge(i, (i + 7) % n, 0.2 * ut::unit(seed + 1, (uint64_t)i));
    }
    return g;
}

/* two cliques of m nodes; joined by one weak edge unless `apart` */
Graph two_cliques(int64_t m, bool apart) {
    Graph g;
    g.n = 2 * m;
    for (int side = 0; side < 2; side++)
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = i + 1; j < m; j++) g.edge(side * m + i, side * m + j, 1.0);
    if (!apart) g.edge(0, m, 0.01);
    return g;
}

/* the dense reference: the normalised Laplacian in double, every
   eigenpair by cyclic Jacobi, ascending */
void dense_laplacian_eig(const Graph &g, std::vector<double> *values, std::vector<double> *vectors) {
    const int64_t n = g.n;
    std::vector<double> w((size_t)(n * n), 0.0), deg((size_t)n, 0.0), v((size_t)(n * n), 0.0);
    for (size_t e = 0; e < g.head.size(); e++) {
        w[(size_t)(g.head[e] * n + g.tail[e])] += g.weight[e];
        w[(size_t)(g.tail[e] * n + g.head[e])] += g.weight[e];
        deg[(size_t)g.head[e]] += g.weight[e];
        deg[(size_t)g.tail[e]] += g.weight[e];
    }
    std::vector<double> a((size_t)(n * n));
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++)
            a[(size_t)(i * n + j)] = (i == j ? 1.0 : 0.0) - w[(size_t)(i * n + j)] / std::sqrt(deg[(size_t)i] * deg[(size_t)j]);
    for (int64_t i = 0; i < n; i++) v[(size_t)(i * n + i)] = 1.0;
    for (int sweep = 0; sweep < 60; sweep++) {
        double off = 0.0;
        for (int64_t p = 0; p < n; p++)
            for (int64_t q = p + 1; q < n; q++) off += a[(size_t)(p * n + q)] * a[(size_t)(p * n + q)];
        if (off < 1e-26) break;
        for (int64_t p = 0; p < n; p++)
            for (int64_t q = p + 1; q < n; q++) {
                double apq = a[(size_t)(p * n + q)];
                if (std::fabs(apq) < 1e-300) continue;
                double th = (a[(size_t)(q * n + q)] - a[(size_t)(p * n + p)]) / (2 * apq);
                double t = (th >= 0 ? 1.0 : -1.0) / (std::fabs(th) + std::sqrt(th * th + 1));
                double c = 1 / std::sqrt(t * t + 1), s = t * c;
                for (int64_t k = 0; k < n; k++) {
                    double x = a[(size_t)(k * n + p)], y = a[(size_t)(k * n + q)];
                    a[(size_t)(k * n + p)] = c * x - s * y;
                    a[(size_t)(k * n + q)] = s * x + c * y;
                }
                for (int64_t k = 0; k < n; k++) {
                    double x = a[(size_t)(p * n + k)], y = a[(size_t)(q * n + k)];
                    a[(size_t)(p * n + k)] = c * x - s * y;
                    a[(size_t)(q * n + k)] = s * x + c * y;
                }
                for (int64_t k = 0; k < n; k++) {
                    double x = v[(size_t)(k * n + p)], y = v[(size_t)(k * n + q)];
                    v[(size_t)(k * n + p)] = c * x - s * y;
                    v[(size_t)(k * n + q)] = s * x + c * y;
                }
            }
    }
    std::vector<int64_t> order((size_t)n);
    for (int64_t i = 0; i < n; i++) order[(size_t)i] = i;
    std::sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return a[(size_t)(x * n + x)] < a[(size_t)(y * n + y)]; });
    values->resize((size_t)n);
    vectors->resize((size_t)(n * n));
    for (int64_t j = 0; j < n; j++) {
        (*values)[(size_t)j] = a[(size_t)(order[(size_t)j] * n + order[(size_t)j])];
        for (int64_t i = 0; i < n; i++) (*vectors)[(size_t)(j * n + i)] = v[(size_t)(i * n + order[(size_t)j])];
    }
}

struct Layout {
    umap_result r;
    umap_spectral_desc desc;
    std::vector<float> out;
    std::vector<double> values;
};

Layout layout(const Graph &g, int c, int n_threads, double tol = 0, int max_iter = 0) {
    Layout l;
    memset(&l.desc, 0, sizeof l.desc);
    l.desc.n_threads = n_threads;
    l.desc.seed = 5;
    l.desc.tol = tol;
    l.desc.max_iter = max_iter;
    l.out.assign((size_t)(g.n * c), 0.0f);
    l.values.assign((size_t)c, 0.0);
    l.r = umap_spectral_layout(&l.desc, g.n, g.head.data(), g.tail.data(), g.weight.data(), (int64_t)g.head.size(), c,
                               l.out.data(), l.values.data());
    return l;
}

TEST(SpectralLayout, MatchesADenseReference) {
    for (int which = 0; which < 2; which++) {
        Graph g = which ? two_cliques(30, false) : ring(150, 3);
        const int c = 3;
        std::vector<double> values, vectors;
        dense_laplacian_eig(g, &values, &vectors);
        ASSERT_NEAR(values[0], 0.0, 1e-9);
        Layout l = layout(g, c, 2, 1e-9);
        ASSERT_EQ(l.r, UMAP_OK) << l.desc.detail;
        ASSERT_EQ(l.desc.found, 1) << l.desc.detail;
        EXPECT_GT(l.desc.iterations, 0);
        for (int j = 0; j < c; j++) {
            EXPECT_NEAR(l.values[(size_t)j], values[(size_t)j + 1], 1e-7) << which << " eigenvalue " << j;
            double dot = 0.0, norm = 0.0;
            for (int64_t i = 0; i < g.n; i++) {
                dot += l.out[(size_t)(i * c + j)] * vectors[(size_t)((j + 1) * g.n + i)];
                norm += (double)l.out[(size_t)(i * c + j)] * l.out[(size_t)(i * c + j)];
            }
            if (which && j > 0) continue; /* the cliques' next eigenvalues repeat: only the Fiedler vector is unique */
            EXPECT_NEAR(std::fabs(dot), 1.0, 1e-5) << which << " eigenvector " << j;
            EXPECT_NEAR(norm, 1.0, 1e-5);
        }
        if (which) { /* the Fiedler vector tells the cliques apart */
            for (int64_t i = 1; i < 30; i++) {
                EXPECT_GT(l.out[(size_t)(i * c)] * l.out[0], 0.0f);
                EXPECT_LT(l.out[(size_t)((30 + i) * c)] * l.out[0], 0.0f);
            }
        }
    }
}

TEST(SpectralLayout, TheSameForAnyThreadCount) {
    Graph g = ring(9000, 11); /* three 4096-row chunks, several row ranges */
    Layout a = layout(g, 2, 1, 1e-3, 40), b = layout(g, 2, 3, 1e-3, 40);
    ASSERT_EQ(a.r, UMAP_OK);
    ASSERT_EQ(b.r, UMAP_OK);
    EXPECT_EQ(a.desc.found, b.desc.found);
    EXPECT_EQ(a.desc.iterations, b.desc.iterations);
    EXPECT_TRUE(kt::bits_equal(a.out, b.out));
}

TEST(SpectralLayout, NoLayoutIsSaidNeverGarbage) {
    { /* disconnected */
        Graph g = two_cliques(10, true);
        Layout l = layout(g, 2, 1);
        ASSERT_EQ(l.r, UMAP_OK);
        EXPECT_EQ(l.desc.found, 0);
        EXPECT_NE(std::string(l.desc.detail).find("2 connected components"), std::string::npos) << l.desc.detail;
        for (float v : l.out) EXPECT_EQ(v, 0.0f); /* untouched */
    }
    { /* not converged within the cap */
        Graph g = ring(500, 2);
        Layout l = layout(g, 2, 1, 1e-12, 2);
        ASSERT_EQ(l.r, UMAP_OK);
        EXPECT_EQ(l.desc.found, 0);
        EXPECT_EQ(l.desc.iterations, 2);
        EXPECT_NE(std::string(l.desc.detail).find("did not converge"), std::string::npos) << l.desc.detail;
    }
    { /* too few nodes for the components */
        Graph g = two_cliques(2, false); /* 4 nodes: 3 eigenvectors beside the trivial one */
        Layout l = layout(g, 4, 1);
        ASSERT_EQ(l.r, UMAP_OK);
        EXPECT_EQ(l.desc.found, 0);
        EXPECT_NE(std::string(l.desc.detail).find("too few"), std::string::npos) << l.desc.detail;
    }
    { /* bad edges are errors */
        Graph g = ring(10, 1);
        g.weight[3] = -1.0f;
        EXPECT_EQ(layout(g, 2, 1).r, UMAP_ERR_INVALID_ARGUMENT);
        g = ring(10, 1);
        g.tail[2] = 10;
        Layout l = layout(g, 2, 1);
        EXPECT_EQ(l.r, UMAP_ERR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(l.desc.detail).find("edge 2"), std::string::npos) << l.desc.detail;
    }
}

/* ------------------------------------------------------------ fit's init */

/* n points on a ring in columns 0, 1 (radius 1) beside 6 columns of wide
   noise (std 3): without standardising, PCA sees the noise, while the
   caller's k-NN (the ring's neighbours) makes the fuzzy graph a ring */
struct RingData {
    int64_t n = 2000, d = 8;
    int k = 10;
    std::vector<float> x, dist, coords;
    std::vector<int32_t> idx;
    RingData() {
        x.resize((size_t)(n * d));
        coords.resize((size_t)(n * 2));
        for (int64_t i = 0; i < n; i++) {
            double th = 6.283185307179586 * (double)i / (double)n;
            x[(size_t)(i * d)] = (float)std::cos(th);
            x[(size_t)(i * d + 1)] = (float)std::sin(th);
            for (int64_t j = 2; j < d; j++) x[(size_t)(i * d + j)] = (float)(6.0 * (ut::unit(9, (uint64_t)(i * d + j)) - 0.5) * 1.7);
            coords[(size_t)(2 * i)] = (float)(4.0 * std::cos(th));
            coords[(size_t)(2 * i + 1)] = (float)(4.0 * std::sin(th));
            for (int j = 0; j < k; j++) { /* i +- 1, i +- 2, ... */
                int64_t step = j / 2 + 1, nb = j % 2 ? (i + n - step) % n : (i + step) % n;
                idx.push_back((int32_t)nb);
                dist.push_back((float)(step * 6.283185307179586 / (double)n));
            }
        }
    }
};

umap_config start_config(umap_init init) {
    umap_config c = ut::quick_config();
    c.standardize = 0;
    c.init = init;
    c.refine_epochs = 0;
    c.timeout_s = 1e-9; /* one training step: the embedding is the warm-started encoder */
    c.batch_size = 64;  /* 157 warm-start steps (5 passes) */
    return c;
}

struct Start {
    umap_result r;
    umap_fit_info info;
    std::vector<float> emb;
};

Start start(umap_config c, const RingData &rd, int n_threads = 2) {
    Start s;
    ut::Model m;
    c.info = &s.info;
    c.n_threads = n_threads;
    s.r = umap_fit_knn(&c, rd.x.data(), rd.n, rd.d, rd.idx.data(), rd.dist.data(), rd.k, m.out());
    if (m.m) s.emb.assign(umap_model_embedding(m.m), umap_model_embedding(m.m) + rd.n * 2);
    return s;
}

/* mean distance between ring neighbours over the mean distance between all pairs */
double neighbour_ratio(const std::vector<float> &e, int64_t n) {
    double near = 0.0, all = 0.0;
    for (int64_t i = 0; i < n; i++) {
        int64_t j = (i + 1) % n, o = (i * 7919 + 13) % n;
        near += std::hypot(e[(size_t)(2 * i)] - e[(size_t)(2 * j)], e[(size_t)(2 * i + 1)] - e[(size_t)(2 * j + 1)]);
        all += std::hypot(e[(size_t)(2 * i)] - e[(size_t)(2 * o)], e[(size_t)(2 * i + 1)] - e[(size_t)(2 * o + 1)]);
    }
    return near / all;
}

TEST(FitInit, EachKindStartsWhereItSays) {
    RingData rd;
    Start pca = start(start_config(UMAP_INIT_PCA), rd), rnd = start(start_config(UMAP_INIT_RANDOM), rd),
          spec = start(start_config(UMAP_INIT_SPECTRAL), rd);
    umap_config cc = start_config(UMAP_INIT_COORDS);
    cc.init_coords = rd.coords.data();
    Start coords = start(cc, rd);
    for (const Start *s : {&pca, &rnd, &spec, &coords}) {
        ASSERT_EQ(s->r, UMAP_OK) << s->info.error_detail;
        EXPECT_EQ(s->info.stop_reason, UMAP_STOP_TIMEOUT);
        EXPECT_EQ(s->info.steps, 1);
    }
    EXPECT_EQ(pca.info.init_used, UMAP_INIT_PCA);
    EXPECT_EQ(rnd.info.init_used, UMAP_INIT_RANDOM);
    EXPECT_EQ(spec.info.init_used, UMAP_INIT_SPECTRAL);
    EXPECT_EQ(coords.info.init_used, UMAP_INIT_COORDS);
    EXPECT_GT(spec.info.spectral_iterations, 0);
    EXPECT_EQ(pca.info.spectral_iterations, 0);
    /* the graph's ring: spectral and the caller's ring coordinates lay it out,
       PCA (the wide noise) and random weights do not */
    double r_spec = neighbour_ratio(spec.emb, rd.n), r_coords = neighbour_ratio(coords.emb, rd.n);
    double r_pca = neighbour_ratio(pca.emb, rd.n), r_rnd = neighbour_ratio(rnd.emb, rd.n);
    EXPECT_LT(r_spec, 0.3) << r_spec << " " << r_coords << " " << r_pca << " " << r_rnd;
    EXPECT_LT(r_coords, 0.3);
    EXPECT_GT(r_pca, 0.6);
    EXPECT_GT(r_rnd, 0.6);
    { /* coords: the encoder's start approximates the given coordinates */
        double err = 0.0, var = 0.0;
        for (size_t i = 0; i < rd.coords.size(); i++) {
            err += (coords.emb[i] - rd.coords[i]) * (coords.emb[i] - rd.coords[i]);
            var += rd.coords[i] * rd.coords[i];
        }
        EXPECT_LT(err / var, 0.1) << "relative squared error";
    }
    { /* spectral: scaled as PCA's target, the first coordinate's std near 3 */
        double m = 0.0, v = 0.0;
        for (int64_t i = 0; i < rd.n; i++) m += spec.emb[(size_t)(2 * i)];
        m /= (double)rd.n;
        for (int64_t i = 0; i < rd.n; i++) v += (spec.emb[(size_t)(2 * i)] - m) * (spec.emb[(size_t)(2 * i)] - m);
        double sd = std::sqrt(v / (double)rd.n);
        EXPECT_GT(sd, 1.5);
        EXPECT_LT(sd, 4.5);
    }
}

TEST(FitInit, SpectralTheSameForAnyThreadCount) {
    RingData rd;
    umap_config c = ut::quick_config();
    c.init = UMAP_INIT_SPECTRAL;
    Start a = start(c, rd, 1), b = start(c, rd, 3);
    ASSERT_EQ(a.r, UMAP_OK) << a.info.error_detail;
    ASSERT_EQ(b.r, UMAP_OK);
    EXPECT_EQ(a.info.init_used, UMAP_INIT_SPECTRAL);
    EXPECT_TRUE(kt::bits_equal(a.emb, b.emb));
}

TEST(FitInit, ProgressNamesTheWarmStart) {
    RingData rd;
    struct Phases {
        std::string seen;
        static int fn(const umap_progress *p, void *user) {
            ((Phases *)user)->seen += std::string(p->phase) + ",";
            return 0;
        }
    };
    const std::pair<umap_init, const char *> cases[] = {
        {UMAP_INIT_PCA, "pca,"}, {UMAP_INIT_SPECTRAL, "init,"}, {UMAP_INIT_RANDOM, nullptr}};
    for (const auto &k : cases) {
        Phases ph;
        umap_config c = ut::quick_config();
        c.init = k.first;
        c.progress = Phases::fn;
        c.progress_user_data = &ph;
        ASSERT_EQ(start(c, rd).r, UMAP_OK);
        for (const char *name : {"pca,", "init,"}) {
            bool want = k.second && !strcmp(k.second, name);
            EXPECT_EQ(ph.seen.find(std::string(",") + name) != std::string::npos, want) << name << " in " << ph.seen;
        }
    }
}

struct Log {
    std::string text;
    static void fn(umap_log_level, const char *msg, void *user) { ((Log *)user)->text += std::string(msg) + "\n"; }
};

TEST(FitInit, SpectralLaysOutEachComponentOnItsOwn) {
    /* two clusters far apart: no k-NN edge joins them */
    const int64_t n = 400, d = 4, half = n / 2;
    std::vector<float> x((size_t)(n * d));
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < d; j++)
            x[(size_t)(i * d + j)] = (float)((i < half ? 0.0 : 1000.0) + ut::unit(4, (uint64_t)(i * d + j)));
    Log log;
    umap_config c = start_config(UMAP_INIT_SPECTRAL);
    c.standardize = 1;
    c.logger.log_fn = Log::fn;
    c.logger.user_data = &log;
    umap_fit_info info;
    c.info = &info;
    ut::Model m, ref;
    ASSERT_EQ(umap_fit(&c, x.data(), n, d, m.out()), UMAP_OK) << info.error_detail;
    EXPECT_EQ(info.init_used, UMAP_INIT_SPECTRAL);
    EXPECT_GT(info.spectral_iterations, 0);
    EXPECT_NE(log.text.find("2 connected components, each laid out on its own"), std::string::npos) << log.text;
    /* the start keeps the components apart: each within half the distance between their places */
    const float *e = umap_model_embedding(m.m);
    double mean[2][2] = {{0, 0}, {0, 0}}, reach[2] = {0, 0};
    for (int64_t i = 0; i < n; i++)
        for (int j = 0; j < 2; j++) mean[i >= half][j] += e[2 * i + j] / (double)half;
    double apart = std::hypot(mean[0][0] - mean[1][0], mean[0][1] - mean[1][1]);
    for (int64_t i = 0; i < n; i++)
        reach[i >= half] = std::max(reach[i >= half], std::hypot(e[2 * i] - mean[i >= half][0], e[2 * i + 1] - mean[i >= half][1]));
    EXPECT_GT(apart, 0.0);
    EXPECT_LT(reach[0] + reach[1], apart) << "the components' starts overlap";
    std::vector<float> a(e, e + 2 * n);
    { /* the same for another thread count */
        umap_config c3 = c;
        c3.n_threads = 3;
        c3.info = nullptr;
        ASSERT_EQ(umap_fit(&c3, x.data(), n, d, ref.out()), UMAP_OK);
        std::vector<float> b(umap_model_embedding(ref.m), umap_model_embedding(ref.m) + 2 * n);
        EXPECT_TRUE(kt::bits_equal(a, b));
    }
    /* not PCA's start */
    c.init = UMAP_INIT_PCA;
    c.info = nullptr;
    ASSERT_EQ(umap_fit(&c, x.data(), n, d, ref.out()), UMAP_OK);
    std::vector<float> b(umap_model_embedding(ref.m), umap_model_embedding(ref.m) + 2 * n);
    EXPECT_FALSE(kt::bits_equal(a, b));
}

TEST(FitInit, SpectralFallsBackToPcaWithAWarning) {
    /* two components at the same place: the same rows twice, each copy's
       k-NN lists inside it (the caller's) */
    RingData rd;
    const int64_t n = 2 * rd.n;
    std::vector<float> x(rd.x);
    x.insert(x.end(), rd.x.begin(), rd.x.end());
    std::vector<int32_t> idx(rd.idx);
    for (int32_t v : rd.idx) idx.push_back(v + (int32_t)rd.n);
    std::vector<float> dist(rd.dist);
    dist.insert(dist.end(), rd.dist.begin(), rd.dist.end());
    Log log;
    umap_config c = ut::quick_config();
    c.init = UMAP_INIT_SPECTRAL;
    c.logger.log_fn = Log::fn;
    c.logger.user_data = &log;
    umap_fit_info info;
    c.info = &info;
    ut::Model m, ref;
    ASSERT_EQ(umap_fit_knn(&c, x.data(), n, rd.d, idx.data(), dist.data(), rd.k, m.out()), UMAP_OK) << info.error_detail;
    EXPECT_EQ(info.init_used, UMAP_INIT_PCA);
    EXPECT_NE(log.text.find("two of them at the same principal coordinates; PCA instead"), std::string::npos) << log.text;
    /* the fallback is PCA's start exactly */
    c.init = UMAP_INIT_PCA;
    c.info = nullptr;
    ASSERT_EQ(umap_fit_knn(&c, x.data(), n, rd.d, idx.data(), dist.data(), rd.k, ref.out()), UMAP_OK);
    std::vector<float> a(umap_model_embedding(m.m), umap_model_embedding(m.m) + 2 * n),
        b(umap_model_embedding(ref.m), umap_model_embedding(ref.m) + 2 * n);
    EXPECT_TRUE(kt::bits_equal(a, b));
}

TEST(FitInit, BadInitArgumentsAreClearErrors) {
    RingData rd;
    struct Case {
        const char *want;
        umap_init init;
        const float *coords;
    };
    std::vector<float> nan_coords = rd.coords;
    nan_coords[2 * 17 + 1] = std::nanf("");
    const Case cases[] = {
        {"init is coords but init_coords is NULL", UMAP_INIT_COORDS, nullptr},
        {"init_coords is set but init is pca", UMAP_INIT_PCA, rd.coords.data()},
        {"init_coords: row 17 holds NaN", UMAP_INIT_COORDS, nan_coords.data()},
        {"init = 4: must be one of pca, random, spectral, coords", UMAP_INIT_COUNT, nullptr}, // the one past the last, a value of the enum
    };
    for (const Case &k : cases) {
        umap_config c = ut::quick_config();
        c.init = k.init;
        c.init_coords = k.coords;
        Start s = start(c, rd);
        EXPECT_EQ(s.r, UMAP_ERR_INVALID_ARGUMENT) << k.want;
        EXPECT_NE(std::string(s.info.error_detail).find(k.want), std::string::npos) << s.info.error_detail;
    }
}

TEST(InitNames, OneTable) {
    for (int i = 0; i < UMAP_INIT_COUNT; i++) {
        umap_init back;
        ASSERT_TRUE(umap_init_from_name(umap_init_name((umap_init)i), &back));
        EXPECT_EQ((int)back, i);
    }
    umap_init x;
    EXPECT_FALSE(umap_init_from_name("pcaa", &x));
    EXPECT_FALSE(umap_init_from_name(nullptr, &x));
    EXPECT_STREQ(umap_init_name((umap_init)17), "?");
}

/* ------------------------------------------------------------ model files */

std::string temp_dir() {
    static std::string dir;
    if (dir.empty()) {
        char tmpl[] = "/tmp/umap_init_XXXXXX";
        const char *d = mkdtemp(tmpl);
        dir = d ? d : "/tmp";
    }
    return dir;
}

std::string slurp(const std::string &p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

TEST(InitModelFile, SavedByNameAndLoaded) {
    RingData rd;
    for (umap_init init : {UMAP_INIT_RANDOM, UMAP_INIT_SPECTRAL, UMAP_INIT_COORDS}) {
        umap_config c = ut::quick_config();
        c.init = init;
        if (init == UMAP_INIT_COORDS) c.init_coords = rd.coords.data();
        ut::Model m;
        ASSERT_EQ(umap_fit_knn(&c, rd.x.data(), rd.n, rd.d, rd.idx.data(), rd.dist.data(), rd.k, m.out()), UMAP_OK);
        EXPECT_EQ(umap_model_config(m.m)->init_coords, nullptr); /* the caller's, not kept */
        for (const char *ext : {".safetensors", ".gguf"}) {
            std::string p = temp_dir() + "/m" + umap_init_name(init) + ext;
            ASSERT_EQ(umap_save(m.m, p.c_str()), UMAP_OK);
            std::string want = std::string("init") + (ext[1] == 's' ? "\\\":\\\"" : "\":\"") + umap_init_name(init);
            EXPECT_NE(slurp(p).find(want), std::string::npos) << p << " lacks " << want;
            ut::Model l;
            char detail[256];
            ASSERT_EQ(umap_load(p.c_str(), l.out(), detail, sizeof detail), UMAP_OK) << detail;
            EXPECT_EQ(umap_model_config(l.m)->init, init) << ext;
            EXPECT_EQ(umap_model_config(l.m)->init_coords, nullptr);
        }
    }
}

/* the fuzz seeds were written before umap_init ("pca_init":1): they load as
   PCA; and before refine_attraction: they place new rows with the pull
   their fit had, 1 */
TEST(InitModelFile, FilesFromBeforeUmapInitLoad) {
    for (const char *p : {"fuzz/corpus/seed0.gguf", "fuzz/corpus/seed0.safetensors"}) {
        ASSERT_NE(slurp(p).find("pca_init"), std::string::npos) << p << " (run the tests from the repository root)";
        ut::Model l;
        char detail[256] = "";
        ASSERT_EQ(umap_load(p, l.out(), detail, sizeof detail), UMAP_OK) << p << ": " << detail;
        EXPECT_EQ(umap_model_config(l.m)->init, UMAP_INIT_PCA) << p;
        ASSERT_EQ(slurp(p).find("refine_attraction"), std::string::npos) << p;
        EXPECT_EQ(umap_model_config(l.m)->refine_attraction, 1.0f) << p;
    }
}

/* a file written before umap_init carries "pca_init": 1 or 0 */
TEST(InitModelFile, OldPcaInitField) {
    RingData rd;
    struct Case {
        umap_init saved;
        const char *field, *old_field;
        umap_init want;
    } cases[] = {
        {UMAP_INIT_PCA, "\"init\":\"pca\"", "\"pca_init\":0", UMAP_INIT_RANDOM},
        {UMAP_INIT_RANDOM, "\"init\":\"random\"", "\"pca_init\":1   ", UMAP_INIT_PCA},
        {UMAP_INIT_RANDOM, "\"init\":\"random\"", "\"init\":\"rand0m\"", (umap_init)UMAP_INIT_COUNT}, /* unknown: an error */
    };
    for (const Case &k : cases) {
        umap_config c = ut::quick_config();
        c.init = k.saved;
        ut::Model m;
        ASSERT_EQ(umap_fit_knn(&c, rd.x.data(), rd.n, rd.d, rd.idx.data(), rd.dist.data(), rd.k, m.out()), UMAP_OK);
        std::string p = temp_dir() + "/old.gguf";
        ASSERT_EQ(umap_save(m.m, p.c_str()), UMAP_OK);
        std::string bytes = slurp(p);
        size_t at = bytes.find(k.field);
        ASSERT_NE(at, std::string::npos);
        ASSERT_EQ(strlen(k.field), strlen(k.old_field)); /* the same length: the string's size stands */
        bytes.replace(at, strlen(k.field), k.old_field);
        ut::Model l;
        char detail[256] = "";
        umap_result r = umap_load_memory(bytes.data(), bytes.size(), nullptr, l.out(), detail, sizeof detail);
        if ((int)k.want == UMAP_INIT_COUNT) {
            EXPECT_EQ(r, UMAP_ERR_FORMAT);
            EXPECT_NE(std::string(detail).find("init 'rand0m' is not one of"), std::string::npos) << detail;
            continue;
        }
        ASSERT_EQ(r, UMAP_OK) << detail;
        EXPECT_EQ(umap_model_config(l.m)->init, k.want) << k.old_field;
    }
}

} // namespace
