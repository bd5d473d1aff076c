/* Supervised and semi-supervised fit (umap_config.target): the graph's
   intersection with labels and with values against umap-learn's formulas
   on graphs small enough to work out by hand, target_weight's effect, the
   checks of bad targets, the model files, and held-out quality on
   Fashion-MNIST. */
#include <cmath>
#include <cstring>
#include <string>
#include <unistd.h>

#include "test_knn_util.h"
#include "test_util.h"

namespace {

struct Edge {
    int head, tail;
    double weight;
};

/* umap_fuzzy_graph as a vector (empty with a test failure when it fails) */
std::vector<Edge> graph(umap_config c, const std::vector<int32_t> &idx, const std::vector<float> &dist, int64_t n, int k,
                        umap_result expect = UMAP_OK, std::string *detail = nullptr) {
    umap_fit_info info;
    umap_edge_list e;
    c.info = &info;
    std::vector<Edge> out;
    umap_result r = umap_fuzzy_graph(&c, idx.data(), dist.data(), n, k, &e);
    EXPECT_EQ(r, expect) << info.error_detail;
    if (detail) *detail = info.error_detail;
    if (r != UMAP_OK) return out;
    for (int64_t i = 0; i < e.n_edges; i++) out.push_back({e.head[i], e.tail[i], e.weight[i]});
    EXPECT_EQ(info.n_edges, e.n_edges);
    umap_edge_list_free(&e);
    return out;
}

double weight_of(const std::vector<Edge> &g, int a, int b) {
    for (const Edge &e : g)
        if ((e.head == a && e.tail == b) || (e.head == b && e.tail == a)) return e.weight;
    return 0.0;
}

/* The chain 0 - 1 - 2 - 3 as a caller's 1-NN (0 -> 1, 1 -> 2, 2 -> 3,
   3 -> 2): with one neighbour every membership is exactly 1, so each of the
   three edges has weight 1 and the intersections below can be worked out
   by hand. */
const std::vector<int32_t> kChainIdx = {1, 2, 3, 2};
const std::vector<float> kChainDist = {1, 1, 1, 1};

umap_config chain_config() {
    umap_config c = umap_config_default();
    c.n_threads = 1;
    return c;
}

} // namespace

/* ------------------------------------------------------------ the graphs */

TEST(Supervised, ChainUnsupervisedHasUnitWeights) {
    std::vector<Edge> g = graph(chain_config(), kChainIdx, kChainDist, 4, 1);
    ASSERT_EQ(g.size(), 3u);
    for (const Edge &e : g) EXPECT_EQ(e.weight, 1.0);
}

/* umap-learn's fast_intersection (unknown_dist 1, far_dist 2.5 / (1 - w)),
   then reset_local_connectivity: rows divided by their largest weight, the
   fuzzy union of the two directions */
TEST(Supervised, LabelIntersectionMatchesUmapLearnByHand) {
    const std::vector<int32_t> labels = {0, 0, 1, -1};
    umap_target t;
    std::memset(&t, 0, sizeof t);
    t.labels = labels.data();
    umap_config c = chain_config();
    c.target = &t;
    for (double w : {0.0, 0.5, 0.8}) {
        c.target_weight = (float)w;
        std::vector<Edge> g = graph(c, kChainIdx, kChainDist, 4, 1);
        ASSERT_EQ(g.size(), 3u) << w;
        const double far = 2.5 / (1.0 - w);
        /* {0,1} same label: 1, the largest of rows 0 and 1. {2,3}: exp(-1),
           the largest of row 3, and of row 2 (its other edge, {1,2}, crosses
           labels: exp(-far) < exp(-1)): normalised to 1. {1,2}: exp(-far)
           divided by row 1's 1 and row 2's exp(-1). */
        const double a = std::exp(-far), b = std::exp(-far) / std::exp(-1.0);
        EXPECT_NEAR(weight_of(g, 0, 1), 1.0, 1e-6) << w;
        EXPECT_NEAR(weight_of(g, 2, 3), 1.0, 1e-6) << w;
        EXPECT_NEAR(weight_of(g, 1, 2), a + b - a * b, 1e-6 * (a + b)) << w;
    }
    /* weight 1: exp(-1e12) = 0, the edge between labels is dropped */
    c.target_weight = 1.0f;
    std::vector<Edge> g = graph(c, kChainIdx, kChainDist, 4, 1);
    ASSERT_EQ(g.size(), 2u);
    EXPECT_EQ(weight_of(g, 1, 2), 0.0);
    EXPECT_NEAR(weight_of(g, 0, 1), 1.0, 1e-6);
    EXPECT_NEAR(weight_of(g, 2, 3), 1.0, 1e-6);
}

/* umap-learn's general_simplicial_set_intersection with the values' own
   1-NN graph: values 0, 10, 11, 1 pair 0 with 3 and 1 with 2 (memberships
   1, both directions). The data's edges {0,1} and {2,3} are not in it (the
   target's side: right_min = min(max(1 / 2, 1e-8), 1e-4) = 1e-4); the
   target's {0,3} is not in the data (left_min = max(1 / 2, 1e-8) = 0.5). */
TEST(Supervised, ValuesIntersectionMatchesUmapLearnByHand) {
    const std::vector<float> values = {0, 10, 11, 1};
    umap_target t;
    std::memset(&t, 0, sizeof t);
    t.values = values.data();
    t.values_dim = 1;
    t.n_neighbors = 2; /* the point and one neighbour */
    umap_config c = chain_config();
    c.target = &t;
    for (double w : {0.25, 0.5, 0.75}) {
        c.target_weight = (float)w;
        auto mix = [w](double l, double r) { return w < 0.5 ? l * std::pow(r, w / (1 - w)) : std::pow(l, (1 - w) / w) * r; };
        std::vector<Edge> g = graph(c, kChainIdx, kChainDist, 4, 1);
        ASSERT_EQ(g.size(), 4u) << w;
        /* the data's edges first, in their order, then the target's own */
        EXPECT_EQ(g[3].head, 0);
        EXPECT_EQ(g[3].tail, 3);
        const double only_data = mix(1.0, 1e-4), both = mix(1.0, 1.0), only_target = mix(0.5, 1.0);
        /* rows 0 and 3: max(only_data, only_target); rows 1 and 2: both */
        const double m03 = std::max(only_data, only_target), m12 = both;
        auto uni = [](double a, double b) { return a + b - a * b; };
        EXPECT_NEAR(weight_of(g, 1, 2), uni(both / m12, both / m12), 1e-6) << w;
        EXPECT_NEAR(weight_of(g, 0, 3), uni(only_target / m03, only_target / m03), 1e-6) << w;
        const double x = uni(only_data / m03, only_data / m12);
        EXPECT_NEAR(weight_of(g, 0, 1), x, 1e-5 * x) << w;
        EXPECT_NEAR(weight_of(g, 2, 3), x, 1e-5 * x) << w;
    }
    /* the extremes: 0 keeps the data's edges at full weight and the
       target's own at left_min's share; 1 the target's edges */
    c.target_weight = 0.0f;
    std::vector<Edge> g0 = graph(c, kChainIdx, kChainDist, 4, 1);
    EXPECT_NEAR(weight_of(g0, 0, 1), 1.0, 1e-6);
    EXPECT_NEAR(weight_of(g0, 0, 3), 0.75, 1e-6); /* 0.5 of row 0's 1, twice: 0.5 + 0.5 - 0.25 */
    c.target_weight = 1.0f;
    std::vector<Edge> g1 = graph(c, kChainIdx, kChainDist, 4, 1);
    EXPECT_NEAR(weight_of(g1, 0, 3), 1.0, 1e-6);
    EXPECT_NEAR(weight_of(g1, 0, 1), 2e-4 - 1e-8, 1e-9);
}

/* larger graphs: the same edges and weights whatever the thread count,
   the labels acting between labelled rows (all of them, or a tenth), and
   a regression target acting as the labels do */
TEST(Supervised, GraphDeterministicAndLabelsActWhereKnown) {
    const int64_t n = 1200, d = 16;
    const int k = 9;
    std::vector<float> x((size_t)(n * d));
    std::vector<int32_t> labels((size_t)n), partial((size_t)n);
    for (int64_t i = 0; i < n; i++) {
        labels[(size_t)i] = (int32_t)(i % 6);
        partial[(size_t)i] = ut::unit(3, (uint64_t)i) < 0.1 ? labels[(size_t)i] : -1;
        for (int64_t j = 0; j < d; j++) /* overlapping classes: the data alone mixes them */
            x[(size_t)(i * d + j)] = (float)((j == i % 6 ? 1.0 : 0.0) + 1.5 * ut::unit(4, (uint64_t)(i * d + j)));
    }
    std::vector<int32_t> idx((size_t)(n * k));
    std::vector<float> dist((size_t)(n * k));
    umap_knn_desc kd;
    std::memset(&kd, 0, sizeof kd);
    kd.k = k;
    kd.n_threads = 2;
    ASSERT_EQ(umap_knn(&kd, x.data(), n, d, idx.data(), dist.data()), UMAP_OK);
    /* the share of the graph's weight between different classes */
    auto cross = [&](const std::vector<Edge> &g) {
        double all = 0, between = 0;
        for (const Edge &e : g) {
            all += e.weight;
            if (labels[(size_t)e.head] != labels[(size_t)e.tail]) between += e.weight;
        }
        return between / all;
    };
    umap_config c = umap_config_default();
    umap_target t;
    std::memset(&t, 0, sizeof t);
    c.target = &t;
    /* the same among the edges whose two ends are labelled in `partial` */
    auto cross_labelled = [&](const std::vector<Edge> &g) {
        double all = 0, between = 0;
        for (const Edge &e : g) {
            if (partial[(size_t)e.head] < 0 || partial[(size_t)e.tail] < 0) continue;
            all += e.weight;
            if (labels[(size_t)e.head] != labels[(size_t)e.tail]) between += e.weight;
        }
        return between / all;
    };
    double share[3], share_labelled[3];
    const std::vector<int32_t> *which[3] = {nullptr, &partial, &labels};
    for (int s = 0; s < 3; s++) {
        c.target = which[s] ? &t : nullptr;
        t.labels = which[s] ? which[s]->data() : nullptr;
        c.n_threads = 1;
        std::vector<Edge> g1 = graph(c, idx, dist, n, k);
        c.n_threads = 3;
        std::vector<Edge> g3 = graph(c, idx, dist, n, k);
        ASSERT_EQ(g1.size(), g3.size());
        for (size_t i = 0; i < g1.size(); i++) {
            ASSERT_EQ(g1[i].head, g3[i].head);
            ASSERT_EQ(g1[i].tail, g3[i].tail);
            ASSERT_EQ(g1[i].weight, g3[i].weight);
            ASSERT_GT(g1[i].weight, 0.0);
            ASSERT_LE(g1[i].weight, 1.0 + 1e-6);
        }
        share[s] = cross(g1);
        share_labelled[s] = cross_labelled(g1);
    }
    /* measured 0.398 (none), 0.400 (10% labelled), 0.04 (all). A tenth of
       the labels leaves the graph's share about as it was, as umap-learn's
       formula does: 99% of the edges have an unlabelled end, all scaled by
       exp(-1) alike, which the rows' normalisation undoes. Between two
       labelled rows the labels act fully. */
    EXPECT_GT(share[0], 0.3);
    EXPECT_NEAR(share[1], share[0], 0.05);
    EXPECT_LT(share[2], share[0] - 0.3);
    EXPECT_GT(share_labelled[0], 0.3);
    EXPECT_LT(share_labelled[1], 0.1);
    /* weight 1 with every label: no edge between classes survives */
    c.target = &t;
    t.labels = labels.data();
    c.target_weight = 1.0f;
    EXPECT_EQ(cross(graph(c, idx, dist, n, k)), 0.0);
    /* a regression target (the class as a value) pulls the same way, and
       is as deterministic */
    std::vector<float> values((size_t)n);
    for (int64_t i = 0; i < n; i++) values[(size_t)i] = (float)labels[(size_t)i] + 0.01f * (float)ut::unit(5, (uint64_t)i);
    t.labels = nullptr;
    t.values = values.data();
    t.values_dim = 1;
    c.target_weight = 0.5f;
    c.n_threads = 1;
    std::vector<Edge> v1 = graph(c, idx, dist, n, k);
    c.n_threads = 2;
    std::vector<Edge> v2 = graph(c, idx, dist, n, k);
    ASSERT_EQ(v1.size(), v2.size());
    for (size_t i = 0; i < v1.size(); i++) ASSERT_EQ(v1[i].weight, v2[i].weight);
    EXPECT_LT(cross(v1), share[0] - 0.3);
}

TEST(Supervised, BadTargetsAreClearErrors) {
    const int64_t n = 4;
    std::vector<int32_t> bad_labels = {0, 1, -2, 0};
    std::vector<float> bad_values = {0, 1, NAN, 2};
    std::vector<float> values = {0, 1, 2, 3};
    std::vector<int32_t> labels = {0, 1, 1, 0};
    umap_target t;
    umap_config c = chain_config();
    c.target = &t;
    std::string why;
    std::memset(&t, 0, sizeof t);
    t.labels = bad_labels.data();
    graph(c, kChainIdx, kChainDist, n, 1, UMAP_ERR_INVALID_ARGUMENT, &why);
    EXPECT_NE(why.find("row 2 has label -2"), std::string::npos) << why;
    std::memset(&t, 0, sizeof t);
    t.values = bad_values.data();
    t.values_dim = 1;
    graph(c, kChainIdx, kChainDist, n, 1, UMAP_ERR_NON_FINITE, &why);
    EXPECT_NE(why.find("row 2 of the values"), std::string::npos) << why;
    t.values = values.data();
    t.values_dim = 0;
    graph(c, kChainIdx, kChainDist, n, 1, UMAP_ERR_INVALID_ARGUMENT, &why);
    EXPECT_NE(why.find("values_dim"), std::string::npos) << why;
    t.values_dim = 1;
    t.n_neighbors = 5; /* more than the rows */
    graph(c, kChainIdx, kChainDist, n, 1, UMAP_ERR_INVALID_ARGUMENT, &why);
    EXPECT_NE(why.find("n_neighbors"), std::string::npos) << why;
    t.n_neighbors = 0;
    t.labels = labels.data();
    graph(c, kChainIdx, kChainDist, n, 1, UMAP_ERR_INVALID_ARGUMENT, &why);
    EXPECT_NE(why.find("not both"), std::string::npos) << why;
    std::memset(&t, 0, sizeof t);
    graph(c, kChainIdx, kChainDist, n, 1, UMAP_ERR_INVALID_ARGUMENT, &why);
    EXPECT_NE(why.find("neither"), std::string::npos) << why;
    t.labels = labels.data();
    for (float w : {-0.1f, 1.5f, NAN}) {
        c.target_weight = w;
        graph(c, kChainIdx, kChainDist, n, 1, UMAP_ERR_INVALID_ARGUMENT, &why);
        EXPECT_NE(why.find("target_weight"), std::string::npos) << why;
    }
    /* fit checks the same before any work */
    std::vector<float> x(40);
    for (size_t i = 0; i < x.size(); i++) x[i] = (float)ut::unit(1, i);
    umap_config f = ut::quick_config();
    umap_fit_info info;
    f.info = &info;
    f.n_neighbors = 3;
    f.target = &t;
    t.labels = bad_labels.data();
    ut::Model m;
    EXPECT_EQ(umap_fit(&f, x.data(), 4, 10, m.out()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(m.m, nullptr);
    EXPECT_NE(std::string(info.error_detail).find("row 2 has label -2"), std::string::npos) << info.error_detail;
    f.target = nullptr;
    f.target_weight = 2.0f;
    EXPECT_EQ(umap_fit(&f, x.data(), 4, 10, m.out()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("target_weight"), std::string::npos) << info.error_detail;
}

/* target_weight is part of the model's config in both formats; the target
   itself is not kept (transform takes none) */
TEST(Supervised, ModelFilesKeepTargetWeight) {
    const int64_t n = 300, d = 6;
    std::vector<float> x((size_t)(n * d));
    std::vector<int32_t> labels((size_t)n);
    for (int64_t i = 0; i < n; i++) {
        labels[(size_t)i] = (int32_t)(i % 3);
        for (int64_t j = 0; j < d; j++)
            x[(size_t)(i * d + j)] = (float)((j == i % 3 ? 4.0 : 0.0) + ut::unit(8, (uint64_t)(i * d + j)));
    }
    umap_target t;
    std::memset(&t, 0, sizeof t);
    t.labels = labels.data();
    umap_config c = ut::quick_config();
    umap_fit_info info;
    c.info = &info;
    c.target = &t;
    c.target_weight = 0.3f;
    ut::Model m;
    ASSERT_EQ(umap_fit(&c, x.data(), n, d, m.out()), UMAP_OK) << info.error_detail;
    EXPECT_EQ(umap_model_config(m.m)->target, nullptr);
    EXPECT_EQ(umap_model_config(m.m)->target_weight, 0.3f);
    EXPECT_EQ(umap_model_config(m.m)->refine_attraction, 1.0f) << "auto pulls labels together as before";
    /* umap_fit_knn takes the target as well: with fit's own exact k-NN it
       builds the same graph */
    {
        const int k = c.n_neighbors - 1;
        std::vector<int32_t> idx((size_t)(n * k));
        std::vector<float> dist((size_t)(n * k));
        umap_knn_desc kd;
        std::memset(&kd, 0, sizeof kd);
        kd.k = k;
        kd.method = UMAP_KNN_EXACT;
        ASSERT_EQ(umap_knn(&kd, x.data(), n, d, idx.data(), dist.data()), UMAP_OK);
        umap_fit_info info_knn;
        umap_config ck = c;
        ck.info = &info_knn;
        ut::Model mk;
        ASSERT_EQ(umap_fit_knn(&ck, x.data(), n, d, idx.data(), dist.data(), k, mk.out()), UMAP_OK) << info_knn.error_detail;
        EXPECT_EQ(info_knn.n_edges, info.n_edges);
        std::vector<float> sup(umap_model_embedding(mk.m), umap_model_embedding(mk.m) + n * 2);
        ck.target = nullptr;
        ASSERT_EQ(umap_fit_knn(&ck, x.data(), n, d, idx.data(), dist.data(), k, mk.out()), UMAP_OK) << info_knn.error_detail;
        std::vector<float> unsup(umap_model_embedding(mk.m), umap_model_embedding(mk.m) + n * 2);
        EXPECT_EQ(umap_model_config(mk.m)->refine_attraction, 0.5f) << "auto without a target";
        EXPECT_FALSE(ut::bitwise_equal(sup, unsup)) << "the target changes umap_fit_knn's fit";
    }
    char dir[] = "/tmp/umap_supervised_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    for (const char *ext : {".safetensors", ".gguf"}) {
        std::string path = std::string(dir) + "/m" + ext;
        ASSERT_EQ(umap_save(m.m, path.c_str()), UMAP_OK);
        ut::Model back;
        char detail[256];
        ASSERT_EQ(umap_load(path.c_str(), back.out(), detail, sizeof detail), UMAP_OK) << detail;
        EXPECT_EQ(umap_model_config(back.m)->target_weight, 0.3f) << ext;
        EXPECT_EQ(umap_model_config(back.m)->refine_attraction, 1.0f) << ext;
        EXPECT_EQ(umap_model_config(back.m)->target, nullptr);
        std::vector<float> a((size_t)(n * 2)), b((size_t)(n * 2));
        ASSERT_EQ(umap_transform(m.m, x.data(), n, d, a.data(), 1), UMAP_OK);
        ASSERT_EQ(umap_transform(back.m, x.data(), n, d, b.data(), 1), UMAP_OK);
        EXPECT_TRUE(ut::bitwise_equal(a, b)) << ext;
        unlink(path.c_str());
    }
    rmdir(dir);
}

/* ------------------------------------------------------------ quality */

/* Fit on 2,000 Fashion-MNIST rows with labels (all, half, a tenth, none;
   and the labels as a regression target), place 1,000 held-out rows among
   the training rows (keep_data: umap-learn's transform), score 10-NN
   accuracy among the held-out rows and among the training rows. */
TEST(SupervisedQuality, FashionMnistLabelsImproveHeldOutAccuracy) {
    const int64_t n = 3000, n_fit = 2000, n_new = n - n_fit;
    int64_t d = 0;
    std::vector<float> x;
    std::vector<int32_t> labels;
    if (!kt::fashion_mnist_t10k(n, &x, &d, &labels)) GTEST_SKIP() << "Fashion-MNIST not readable (Debian package dataset-fashion-mnist)";
    std::vector<int32_t> half(labels.begin(), labels.begin() + n_fit), tenth = half;
    for (int64_t i = 0; i < n_fit; i++) {
        double u = ut::unit(11, (uint64_t)i);
        if (u >= 0.5) half[(size_t)i] = -1;
        if (u >= 0.1) tenth[(size_t)i] = -1;
    }
    std::vector<float> values((size_t)n_fit);
    for (int64_t i = 0; i < n_fit; i++) values[(size_t)i] = (float)labels[(size_t)i];
    const float *held_out = x.data() + n_fit * d;
    struct Score {
        double held_out = -1, train = -1;
    };
    auto score = [&](const int32_t *target_labels, const float *target_values, uint64_t seed = 7) {
        Score s;
        umap_config c = ut::quick_config();
        c.seed = seed;
        c.refine_epochs = 100;
        c.keep_data = 1;
        umap_target t;
        std::memset(&t, 0, sizeof t);
        t.labels = target_labels;
        t.values = target_values;
        t.values_dim = target_values ? 1 : 0;
        c.target = target_labels || target_values ? &t : nullptr;
        umap_fit_info info;
        c.info = &info;
        ut::Model m;
        EXPECT_EQ(umap_fit(&c, x.data(), n_fit, d, m.out()), UMAP_OK) << info.error_detail;
        if (!m.m) return s;
        std::vector<float> y((size_t)(n_new * 2));
        EXPECT_EQ(umap_transform(m.m, held_out, n_new, d, y.data(), 2), UMAP_OK);
        umap_quality_desc qd;
        std::memset(&qd, 0, sizeof qd);
        qd.n_threads = 2;
        umap_quality q, qt;
        EXPECT_EQ(umap_quality_eval(&qd, held_out, n_new, d, y.data(), 2, labels.data() + n_fit, &q), UMAP_OK);
        EXPECT_EQ(umap_quality_eval(&qd, x.data(), n_fit, d, umap_model_embedding(m.m), 2, labels.data(), &qt), UMAP_OK);
        s.held_out = q.knn_accuracy;
        s.train = qt.knn_accuracy;
        return s;
    };
    const Score none = score(nullptr, nullptr), all = score(labels.data(), nullptr), semi = score(half.data(), nullptr),
                few = score(tenth.data(), nullptr), regression = score(nullptr, values.data());
    /* the held-out rows' gain moves with the fit's draws by about 0.01: a
       second seed beside it */
    const Score none2 = score(nullptr, nullptr, 8), all2 = score(labels.data(), nullptr, 8);
    printf("10-NN accuracy, held out / training rows: no target %.3f / %.3f, labels %.3f / %.3f, half of them "
           "%.3f / %.3f, a tenth %.3f / %.3f, labels as values %.3f / %.3f; seed 8: no target %.3f, labels %.3f\n",
           none.held_out, none.train, all.held_out, all.train, semi.held_out, semi.train, few.held_out, few.train,
           regression.held_out, regression.train, none2.held_out, all2.held_out);
    /* measured: held out 0.710 and 0.705 without a target, 0.730 and
       0.742 with labels (seeds 7 and 8); training rows 0.751 -> 0.953,
       with half the labels 0.776. A tenth
       of the labels moves little, as in umap-learn (0.660 -> 0.671 held
       out, on these rows with its defaults). The targets' fits pull with
       refine_attraction 1 (auto with a target); at 0.5 they measured
       0.720 held out, 0.944 and 0.773 on the training rows: the labels
       act through the pull. */
    EXPECT_GT(all.held_out + all2.held_out, none.held_out + none2.held_out + 2 * 0.02);
    EXPECT_GT(all.train, none.train + 0.15);
    EXPECT_GT(semi.train, none.train + 0.015);
    EXPECT_LT(semi.train, all.train - 0.1);
    EXPECT_GT(few.held_out, none.held_out - 0.03);
    EXPECT_LT(few.held_out, all.held_out);
    EXPECT_GT(regression.train, none.train + 0.1);
}
