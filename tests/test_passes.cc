/* >>passes >>plan: every pass keeps the results, and each one does what its
   counter says. */
#include <string>
#include <vector>

#include "test_util.h"

namespace {

const unsigned kAllPasses = UMAP_PASS_FOLD | UMAP_PASS_SIMPLIFY | UMAP_PASS_CSE | UMAP_PASS_FUSE | UMAP_PASS_REUSE;

struct Bind {
    const char *name;
    std::vector<float> data;
};

/* An MLP forward + backward with something for every pass: a constant-only
   subtree, x*1, x+0, neg(neg), a repeated subexpression, elementwise chains. */
std::vector<umap_tensor *> build_mixed(umap_graph *g, std::vector<Bind> *binds) {
    std::vector<float> c1d = ut::uniform(24, 100, -0.5, 0.5), c2d = ut::uniform(24, 101, -0.5, 0.5);
    umap_tensor *x = umap_input(g, "x", umap_shape2(32, 16));
    umap_tensor *t = umap_input(g, "t", umap_shape2(32, 3));
    umap_tensor *w1 = umap_param(g, "w1", umap_shape2(16, 24));
    umap_tensor *b1 = umap_param(g, "b1", umap_shape1(24));
    umap_tensor *w2 = umap_param(g, "w2", umap_shape2(24, 3));
    umap_tensor *c1 = umap_constant(g, umap_shape1(24), c1d.data());
    umap_tensor *c2 = umap_constant(g, umap_shape1(24), c2d.data());
    umap_tensor *k = umap_exp(g, umap_mul(g, c1, c2));
    umap_tensor *pre = umap_add(g, umap_add(g, umap_matmul(g, x, w1), b1), umap_mul(g, k, umap_scalar(g, 1.0f)));
    umap_tensor *h = umap_tanh(g, umap_add(g, pre, umap_scalar(g, 0.0f)));
    umap_tensor *e1 = umap_sigmoid(g, umap_mul_scalar(g, h, 2.0f));
    umap_tensor *e2 = umap_sigmoid(g, umap_mul_scalar(g, h, 2.0f));
    umap_tensor *z = umap_neg(g, umap_neg(g, umap_add(g, umap_mul(g, e1, h), e2)));
    umap_tensor *y = umap_matmul(g, z, w2);
    umap_tensor *loss = umap_mean(g, umap_square(g, umap_sub(g, y, t)), UMAP_AXES_ALL, 0);
    umap_tensor *wrt[3] = {w1, b1, w2}, *gr[3] = {nullptr, nullptr, nullptr};
    EXPECT_EQ(umap_grad(g, loss, 3, wrt, gr), UMAP_OK) << umap_graph_error_detail(g);
    if (binds) {
        binds->push_back({"x", ut::uniform(32 * 16, 1, -1, 1)});
        binds->push_back({"t", ut::uniform(32 * 3, 2, -1, 1)});
        binds->push_back({"w1", ut::uniform(16 * 24, 3, -0.5, 0.5)});
        binds->push_back({"b1", ut::uniform(24, 4, -0.2, 0.2)});
        binds->push_back({"w2", ut::uniform(24 * 3, 5, -0.5, 0.5)});
    }
    return {loss, y, gr[0], gr[1], gr[2]};
}

/* build with fn in a fresh graph, compile with some passes off, bind, run */
struct Compiled {
    ut::Graph g;
    ut::Program p;
    std::vector<Bind> binds;
    umap_program_stats stats;
    std::vector<std::vector<float>> outs;
    template <class F> Compiled(F build, unsigned disable, int n_threads = 1, bool run = true) {
        std::memset(&stats, 0, sizeof stats);
        std::vector<umap_tensor *> o = build((umap_graph *)g, &binds);
        umap_compile_desc cd = ut::cdesc(n_threads, disable);
        umap_result r = umap_compile(g, (int)o.size(), o.data(), &cd, &p.p);
        EXPECT_EQ(r, UMAP_OK) << umap_result_string(r) << ": " << g.detail();
        if (r != UMAP_OK) return;
        umap_program_stats_get(p, &stats);
        if (!run) return;
        for (Bind &b : binds)
            EXPECT_EQ(umap_program_bind(p, b.name, b.data.data(), (int64_t)b.data.size()), UMAP_OK) << b.name;
        r = umap_program_run(p);
        EXPECT_EQ(r, UMAP_OK) << umap_result_string(r) << ": " << p.detail();
        if (r != UMAP_OK) return;
        for (size_t i = 0; i < o.size(); i++) outs.push_back(ut::output(p, (int)i));
    }
};

std::string pass_name(unsigned f) {
    switch (f) {
    case UMAP_PASS_FOLD: return "FOLD";
    case UMAP_PASS_SIMPLIFY: return "SIMPLIFY";
    case UMAP_PASS_CSE: return "CSE";
    case UMAP_PASS_FUSE: return "FUSE";
    case UMAP_PASS_REUSE: return "REUSE";
    case 0: return "none";
    default: return "all";
    }
}

} // namespace

TEST(Passes, DisablingAnyPassKeepsResults) {
    Compiled ref(build_mixed, 0);
    ASSERT_EQ(ref.outs.size(), 5u);
    const unsigned configs[] = {UMAP_PASS_FOLD, UMAP_PASS_SIMPLIFY, UMAP_PASS_CSE, UMAP_PASS_FUSE, UMAP_PASS_REUSE,
                                kAllPasses};
    for (unsigned c : configs) {
        Compiled other(build_mixed, c);
        ASSERT_EQ(other.outs.size(), 5u) << pass_name(c);
        for (size_t i = 0; i < 5; i++) {
            if (c == UMAP_PASS_REUSE || c == UMAP_PASS_CSE)
                EXPECT_TRUE(ut::bitwise_equal(other.outs[i], ref.outs[i])) << "disabled " << pass_name(c) << ", output " << i;
            else
                EXPECT_TRUE(ut::all_close(other.outs[i], ref.outs[i], 1e-6, 1e-5)) << "disabled " << pass_name(c)
                                                                                  << ", output " << i;
        }
        EXPECT_GE(other.stats.nodes[UMAP_STAGE_OPTIMIZED], ref.stats.nodes[UMAP_STAGE_OPTIMIZED]) << pass_name(c);
    }
    EXPECT_GT(ref.stats.folded, 0);
    EXPECT_GT(ref.stats.simplified, 0);
    EXPECT_GT(ref.stats.cse_merged, 0);
    EXPECT_GT(ref.stats.regions, 0);
    EXPECT_LE(ref.stats.peak_bytes, ref.stats.unplanned_bytes);
    EXPECT_LE(ref.stats.nodes[UMAP_STAGE_OPTIMIZED], ref.stats.nodes[UMAP_STAGE_BUILT]);
    Compiled none(build_mixed, kAllPasses, 1, false);
    EXPECT_EQ(none.stats.folded, 0);
    EXPECT_EQ(none.stats.simplified, 0);
    EXPECT_EQ(none.stats.cse_merged, 0);
    EXPECT_EQ(none.stats.regions, 0);
    EXPECT_EQ(none.stats.fused_nodes, 0);
}

TEST(Passes, CseMergesIdenticalSubexpressions) {
    auto build = [](umap_graph *g, std::vector<Bind> *binds) -> std::vector<umap_tensor *> {
        umap_tensor *x = umap_input(g, "x", umap_shape2(8, 8));
        umap_tensor *a = umap_tanh(g, umap_mul(g, x, x));
        umap_tensor *b = umap_tanh(g, umap_mul(g, x, x));
        binds->push_back({"x", ut::uniform(64, 9, -1, 1)});
        return {umap_add(g, a, b)};
    };
    Compiled on(build, 0), off(build, UMAP_PASS_CSE);
    EXPECT_GE(on.stats.cse_merged, 1);
    EXPECT_EQ(off.stats.cse_merged, 0);
    EXPECT_LT(on.stats.nodes[UMAP_STAGE_OPTIMIZED], off.stats.nodes[UMAP_STAGE_OPTIMIZED]);
    ASSERT_EQ(on.outs.size(), 1u);
    ASSERT_EQ(off.outs.size(), 1u);
    EXPECT_TRUE(ut::bitwise_equal(on.outs[0], off.outs[0]));
    std::vector<double> ref(64);
    for (int i = 0; i < 64; i++) {
        double v = on.binds[0].data[(size_t)i];
        ref[(size_t)i] = 2 * std::tanh(v * v);
    }
    EXPECT_TRUE(ut::all_close(on.outs[0], ref, 1e-6, 1e-5));
}

TEST(Passes, DceRemovesUnusedBranch) {
    /* a branch no output reaches is removed, and counted */
    auto build = [](bool with_branch) {
        return [with_branch](umap_graph *g, std::vector<Bind> *binds) -> std::vector<umap_tensor *> {
            umap_tensor *x = umap_input(g, "x", umap_shape1(16));
            umap_tensor *y = umap_tanh(g, x);
            if (with_branch) {
                umap_tensor *unused = umap_exp(g, umap_mul(g, x, umap_sigmoid(g, x)));
                EXPECT_NE(unused, nullptr);
            }
            binds->push_back({"x", ut::uniform(16, 3, -1, 1)});
            return {y};
        };
    };
    Compiled with(build(true), 0), without(build(false), 0);
    EXPECT_GE(with.stats.dce_removed, without.stats.dce_removed + 3)
        << "dce_removed " << with.stats.dce_removed << " with an unused branch of 3 nodes, "
        << without.stats.dce_removed << " without";
    EXPECT_EQ(with.stats.nodes[UMAP_STAGE_OPTIMIZED], without.stats.nodes[UMAP_STAGE_OPTIMIZED]);
    EXPECT_EQ(with.stats.steps, without.stats.steps);
    ASSERT_EQ(with.outs.size(), 1u);
    ASSERT_EQ(without.outs.size(), 1u);
    EXPECT_TRUE(ut::bitwise_equal(with.outs[0], without.outs[0]));
}

TEST(Passes, DceRemovesNodesLeftDeadByRewrites) {
    /* folding c1 * c2 and simplifying x * 1 leave the old operands unused */
    static std::vector<float> c1d = ut::uniform(8, 17, -1, 1), c2d = ut::uniform(8, 18, -1, 1);
    auto build = [](umap_graph *g, std::vector<Bind> *binds) -> std::vector<umap_tensor *> {
        umap_tensor *x = umap_input(g, "x", umap_shape1(8));
        umap_tensor *c1 = umap_constant(g, umap_shape1(8), c1d.data());
        umap_tensor *c2 = umap_constant(g, umap_shape1(8), c2d.data());
        umap_tensor *y = umap_add(g, umap_mul(g, x, umap_scalar(g, 1.0f)), umap_exp(g, umap_mul(g, c1, c2)));
        binds->push_back({"x", ut::uniform(8, 19, -1, 1)});
        return {umap_tanh(g, y)};
    };
    Compiled on(build, 0), off(build, UMAP_PASS_FOLD | UMAP_PASS_SIMPLIFY);
    EXPECT_GE(on.stats.dce_removed, 3) << "c1, c2 and the scalar 1 are dead after the rewrites";
    EXPECT_EQ(off.stats.dce_removed, 0);
    ASSERT_EQ(on.outs.size(), 1u);
    ASSERT_EQ(off.outs.size(), 1u);
    EXPECT_TRUE(ut::all_close(on.outs[0], off.outs[0], 1e-6, 1e-6));
}

TEST(Passes, FoldTurnsConstantSubtreeIntoConst) {
    static std::vector<float> c1d = ut::uniform(4, 7, -1, 1), c2d = ut::uniform(4, 8, -1, 1);
    auto build = [](umap_graph *g, std::vector<Bind> *binds) -> std::vector<umap_tensor *> {
        umap_tensor *x = umap_input(g, "x", umap_shape1(4));
        umap_tensor *c1 = umap_constant(g, umap_shape1(4), c1d.data());
        umap_tensor *c2 = umap_constant(g, umap_shape1(4), c2d.data());
        binds->push_back({"x", ut::uniform(4, 9, -1, 1)});
        return {umap_add(g, x, umap_exp(g, umap_mul(g, c1, c2)))};
    };
    Compiled on(build, 0), off(build, UMAP_PASS_FOLD);
    EXPECT_GE(on.stats.folded, 1);
    EXPECT_EQ(off.stats.folded, 0);
    EXPECT_LT(on.stats.nodes[UMAP_STAGE_OPTIMIZED], off.stats.nodes[UMAP_STAGE_OPTIMIZED]);
    std::string d_on = ut::capture([&](FILE *f) { umap_program_dump(on.p, UMAP_STAGE_OPTIMIZED, f); });
    std::string d_off = ut::capture([&](FILE *f) { umap_program_dump(off.p, UMAP_STAGE_OPTIMIZED, f); });
    EXPECT_EQ(d_on.find("exp"), std::string::npos) << "folded program still computes exp:\n" << d_on;
    EXPECT_NE(d_off.find("exp"), std::string::npos) << d_off;
    EXPECT_NE(d_on.find("const"), std::string::npos) << d_on;
    ASSERT_EQ(on.outs.size(), 1u);
    std::vector<double> ref(4);
    for (int i = 0; i < 4; i++)
        ref[(size_t)i] = on.binds[0].data[(size_t)i] + std::exp((double)c1d[(size_t)i] * c2d[(size_t)i]);
    EXPECT_TRUE(ut::all_close(on.outs[0], ref, 1e-6, 1e-6));
    ASSERT_EQ(off.outs.size(), 1u);
    EXPECT_TRUE(ut::all_close(off.outs[0], ref, 1e-6, 1e-6));
}

TEST(Passes, SimplifyRemovesIdentities) {
    typedef umap_tensor *(*Rewrite)(umap_graph *, umap_tensor *);
    struct Case {
        const char *name;
        Rewrite fn;
        int min_simplified;
    };
    static const Case cases[] = {
        {"x*1 + 0",
         [](umap_graph *g, umap_tensor *x) { return umap_add(g, umap_mul(g, x, umap_scalar(g, 1.0f)), umap_scalar(g, 0.0f)); },
         2},
        {"1*x", [](umap_graph *g, umap_tensor *x) { return umap_mul(g, umap_full(g, umap_shape2(3, 4), 1.0f), x); }, 1},
        {"x-0", [](umap_graph *g, umap_tensor *x) { return umap_sub(g, x, umap_scalar(g, 0.0f)); }, 1},
        {"x/1", [](umap_graph *g, umap_tensor *x) { return umap_div(g, x, umap_scalar(g, 1.0f)); }, 1},
        {"neg(neg(x))", [](umap_graph *g, umap_tensor *x) { return umap_neg(g, umap_neg(g, x)); }, 1},
        {"mul_scalar(x,1)", [](umap_graph *g, umap_tensor *x) { return umap_mul_scalar(g, x, 1.0f); }, 1},
        {"add_scalar(x,0)", [](umap_graph *g, umap_tensor *x) { return umap_add_scalar(g, x, 0.0f); }, 1},
        {"reshape chain",
         [](umap_graph *g, umap_tensor *x) {
             return umap_reshape(g, umap_reshape(g, umap_reshape(g, x, umap_shape1(12)), umap_shape2(6, 2)), umap_shape2(3, 4));
         },
         1},
    };
    for (const Case &c : cases) {
        auto build = [&c](umap_graph *g, std::vector<Bind> *binds) -> std::vector<umap_tensor *> {
            umap_tensor *x = umap_input(g, "x", umap_shape2(3, 4));
            binds->push_back({"x", ut::uniform(12, 5, -1, 1)});
            return {umap_tanh(g, c.fn(g, x))};
        };
        Compiled on(build, 0), off(build, UMAP_PASS_SIMPLIFY);
        EXPECT_GE(on.stats.simplified, c.min_simplified) << c.name;
        EXPECT_EQ(off.stats.simplified, 0) << c.name;
        EXPECT_LT(on.stats.nodes[UMAP_STAGE_OPTIMIZED], off.stats.nodes[UMAP_STAGE_OPTIMIZED]) << c.name;
        ASSERT_EQ(on.outs.size(), 1u) << c.name;
        ASSERT_EQ(off.outs.size(), 1u) << c.name;
        std::vector<double> ref(12);
        for (int i = 0; i < 12; i++) ref[(size_t)i] = std::tanh((double)on.binds[0].data[(size_t)i]);
        EXPECT_TRUE(ut::all_close(on.outs[0], ref, 1e-6, 1e-6)) << c.name;
        EXPECT_TRUE(ut::all_close(off.outs[0], ref, 1e-6, 1e-6)) << c.name;
    }
}

TEST(Passes, FuseMergesElementwiseChain) {
    auto build = [](umap_graph *g, std::vector<Bind> *binds) -> std::vector<umap_tensor *> {
        umap_tensor *x = umap_input(g, "x", umap_shape2(64, 32));
        umap_tensor *b = umap_input(g, "b", umap_shape1(32));
        binds->push_back({"x", ut::uniform(64 * 32, 1, -1, 1)});
        binds->push_back({"b", ut::uniform(32, 2, -1, 1)});
        return {umap_tanh(g, umap_exp(g, umap_neg(g, umap_mul(g, umap_add(g, x, b), x))))};
    };
    Compiled on(build, 0), off(build, UMAP_PASS_FUSE);
    EXPECT_GE(on.stats.regions, 1);
    EXPECT_GE(on.stats.fused_nodes, 4);
    EXPECT_EQ(off.stats.regions, 0);
    EXPECT_EQ(off.stats.fused_nodes, 0);
    EXPECT_LT(on.stats.steps, off.stats.steps);
    EXPECT_GE(off.stats.steps, 5);
    ASSERT_EQ(on.outs.size(), 1u);
    ASSERT_EQ(off.outs.size(), 1u);
    std::vector<double> ref(64 * 32);
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 32; j++) {
            double x = on.binds[0].data[(size_t)(i * 32 + j)], b = on.binds[1].data[(size_t)j];
            ref[(size_t)(i * 32 + j)] = std::tanh(std::exp(-((x + b) * x)));
        }
    EXPECT_TRUE(ut::all_close(on.outs[0], ref, 1e-6, 1e-5));
    EXPECT_TRUE(ut::all_close(off.outs[0], ref, 1e-6, 1e-5));
    EXPECT_TRUE(ut::all_close(on.outs[0], off.outs[0], 1e-7, 1e-6));
    std::string rep = ut::capture([&](FILE *f) { umap_program_fusion_report(on.p, f); });
    EXPECT_FALSE(rep.empty());
}

TEST(Passes, MemoryPlanReusesBuffers) {
    auto build = [](umap_graph *g, std::vector<Bind> *binds) -> std::vector<umap_tensor *> {
        umap_tensor *x = umap_input(g, "x", umap_shape2(256, 32));
        umap_tensor *w1 = umap_param(g, "w1", umap_shape2(32, 64));
        umap_tensor *w2 = umap_param(g, "w2", umap_shape2(64, 64));
        umap_tensor *w3 = umap_param(g, "w3", umap_shape2(64, 2));
        umap_tensor *h1 = umap_relu(g, umap_matmul(g, x, w1));
        umap_tensor *h2 = umap_tanh(g, umap_matmul(g, h1, w2));
        umap_tensor *y = umap_matmul(g, h2, w3);
        umap_tensor *loss = umap_mean(g, umap_square(g, y), UMAP_AXES_ALL, 0);
        umap_tensor *wrt[3] = {w1, w2, w3}, *gr[3];
        EXPECT_EQ(umap_grad(g, loss, 3, wrt, gr), UMAP_OK);
        binds->push_back({"x", ut::uniform(256 * 32, 1, -1, 1)});
        binds->push_back({"w1", ut::uniform(32 * 64, 2, -0.3, 0.3)});
        binds->push_back({"w2", ut::uniform(64 * 64, 3, -0.3, 0.3)});
        binds->push_back({"w3", ut::uniform(64 * 2, 4, -0.3, 0.3)});
        return {loss, gr[0], gr[1], gr[2]};
    };
    Compiled on(build, 0), off(build, UMAP_PASS_REUSE);
    EXPECT_GT(on.stats.unplanned_bytes, 0);
    EXPECT_LT(on.stats.peak_bytes, on.stats.unplanned_bytes);
    EXPECT_GE(off.stats.peak_bytes, on.stats.peak_bytes);
    ASSERT_EQ(on.outs.size(), 4u);
    ASSERT_EQ(off.outs.size(), 4u);
    for (size_t i = 0; i < 4; i++) EXPECT_TRUE(ut::bitwise_equal(on.outs[i], off.outs[i])) << "output " << i;
}

TEST(Passes, DumpDotAndFusionReport) {
    Compiled c(build_mixed, 0, 1, false);
    ASSERT_NE(c.p.p, nullptr);
    for (int s = 0; s < UMAP_STAGE_COUNT; s++) {
        std::string dump = ut::capture([&](FILE *f) { umap_program_dump(c.p, (umap_stage)s, f); });
        EXPECT_FALSE(dump.empty()) << "dump of stage " << s;
        std::string dot = ut::capture([&](FILE *f) { umap_program_dot(c.p, (umap_stage)s, f); });
        size_t start = dot.find_first_not_of(" \t\r\n");
        ASSERT_NE(start, std::string::npos) << "empty DOT for stage " << s;
        EXPECT_EQ(dot.compare(start, 7, "digraph"), 0) << "DOT of stage " << s << " starts:\n" << dot.substr(0, 200);
        EXPECT_NE(dot.find("->"), std::string::npos) << "DOT without edges";
        size_t end = dot.find_last_not_of(" \t\r\n");
        EXPECT_EQ(dot[end], '}');
    }
    std::string rep = ut::capture([&](FILE *f) { umap_program_fusion_report(c.p, f); });
    EXPECT_FALSE(rep.empty());
    std::string gd = ut::capture([&](FILE *f) { umap_graph_dump(c.g, 0, nullptr, f); });
    EXPECT_FALSE(gd.empty());
    EXPECT_NE(gd.find("matmul"), std::string::npos);
    /* the built stage counts the nodes as built, later stages fewer */
    EXPECT_GE(c.stats.nodes[UMAP_STAGE_BUILT], c.stats.nodes[UMAP_STAGE_OPTIMIZED]);
    EXPECT_GE(c.stats.nodes[UMAP_STAGE_OPTIMIZED], c.stats.nodes[UMAP_STAGE_FUSED]);
    EXPECT_LE(c.stats.nodes[UMAP_STAGE_BUILT], umap_graph_node_count(c.g));
    EXPECT_GT(c.stats.steps, 0);
}

TEST(Passes, CompileWithEveryThreadCountAndPassSetAgrees) {
    Compiled ref(build_mixed, 0, 1);
    for (int nt : {2, 4})
        for (unsigned dis : {0u, kAllPasses}) {
            Compiled c(build_mixed, dis, nt);
            ASSERT_EQ(c.outs.size(), ref.outs.size());
            for (size_t i = 0; i < ref.outs.size(); i++)
                EXPECT_TRUE(ut::all_close(c.outs[i], ref.outs[i], 1e-6, 1e-5)) << nt << " threads, disable " << dis;
        }
}
