/* Random graphs through every pass set and thread count; CSE must not merge
   nodes that differ only in a parameter; folding of every op family. */
#include <algorithm>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

const unsigned kAll = UMAP_PASS_FOLD | UMAP_PASS_SIMPLIFY | UMAP_PASS_CSE | UMAP_PASS_FUSE | UMAP_PASS_REUSE;

/* A random DAG over shapes that all broadcast to [5,7]. Pure function of seed. */
struct RandomGraph {
    ut::Graph g;
    std::vector<umap_tensor *> outs;
    std::vector<std::vector<float>> data;
    std::vector<std::string> names;
    RandomGraph(uint64_t seed) {
        const umap_shape in_shapes[4] = {umap_shape2(5, 7), umap_shape1(7), umap_shape2(5, 1), umap_shape2(5, 7)};
        std::vector<umap_tensor *> pool;
        uint64_t k = 0;
        auto rnd = [&](int n) { return (int)(ut::unit(seed, k++) * n) % n; };
        for (int i = 0; i < 4; i++) {
            names.push_back("in" + std::to_string(i));
            data.push_back(ut::uniform(umap_shape_numel(in_shapes[i]), seed * 10 + i, -1.5, 1.5));
            pool.push_back(i == 3 ? umap_param(g, names.back().c_str(), in_shapes[i])
                                  : umap_input(g, names.back().c_str(), in_shapes[i]));
        }
        std::vector<float> cd = ut::uniform(7, seed * 10 + 9, -1, 1);
        pool.push_back(umap_constant(g, umap_shape1(7), cd.data()));
        pool.push_back(umap_scalar(g, (float)(ut::unit(seed, 999) * 2 - 1)));
        int n_ops = 8 + rnd(12);
        for (int i = 0; i < n_ops; i++) {
            umap_tensor *a = pool[(size_t)rnd((int)pool.size())];
            umap_tensor *b = pool[(size_t)rnd((int)pool.size())];
            umap_tensor *t = nullptr;
            switch (rnd(9)) {
            case 0: {
                const umap_op u[] = {UMAP_OP_NEG, UMAP_OP_TANH, UMAP_OP_SIGMOID, UMAP_OP_SQUARE, UMAP_OP_ABS, UMAP_OP_RELU};
                t = umap_unary(g, u[rnd(6)], a);
                break;
            }
            case 1: t = umap_exp(g, umap_tanh(g, a)); break;
            case 2: t = umap_log1p(g, umap_square(g, a)); break;
            case 3:
            case 4: {
                const umap_op bo[] = {UMAP_OP_ADD, UMAP_OP_SUB, UMAP_OP_MUL, UMAP_OP_MAX, UMAP_OP_MIN, UMAP_OP_GT};
                t = umap_binary(g, bo[rnd(6)], a, b);
                break;
            }
            case 5: t = umap_div(g, a, umap_add_scalar(g, umap_square(g, b), 1.0f)); break;
            case 6: {
                /* reduce with keepdims over an axis of a [5,7] version */
                umap_tensor *full = umap_add(g, a, umap_full(g, umap_shape2(5, 7), 0.0f));
                unsigned ax = 1u << rnd(2);
                int which = rnd(3);
                t = which == 0 ? umap_sum(g, full, ax, 1) : which == 1 ? umap_mean(g, full, ax, 1) : umap_reduce_max(g, full, ax, 1);
                break;
            }
            case 7: t = umap_select(g, umap_gt(g, a, b), a, umap_mul_scalar(g, b, 0.5f)); break;
            case 8: t = umap_clamp(g, umap_mul_scalar(g, a, 1.0f), -0.5f, 0.75f); break;
            }
            if (!t) break;
            pool.push_back(t);
        }
        outs.push_back(pool.back());
        outs.push_back(pool[pool.size() - 2]);
        outs.push_back(pool[(size_t)(6 + rnd((int)pool.size() - 6))]);
        /* a gradient too, through whatever was built */
        umap_tensor *loss = umap_sum(g, umap_mul(g, pool.back(), umap_full(g, umap_shape2(5, 7), 0.5f)), UMAP_AXES_ALL, 0);
        umap_tensor *gp = nullptr;
        umap_tensor *p3 = pool[3];
        if (loss && umap_grad(g, loss, 1, &p3, &gp) == UMAP_OK) outs.push_back(gp);
    }
    std::vector<std::vector<float>> run(unsigned disable, int n_threads) {
        for (umap_tensor *t : outs)
            if (!t) {
                ADD_FAILURE() << g.detail();
                return {};
            }
        ut::Program p;
        umap_compile_desc cd = ut::cdesc(n_threads, disable);
        umap_result r = umap_compile(g, (int)outs.size(), outs.data(), &cd, &p.p);
        EXPECT_EQ(r, UMAP_OK) << g.detail();
        if (r != UMAP_OK) return {};
        for (size_t i = 0; i < names.size(); i++)
            EXPECT_EQ(umap_program_bind(p, names[i].c_str(), data[i].data(), (int64_t)data[i].size()), UMAP_OK);
        r = umap_program_run(p);
        EXPECT_EQ(r, UMAP_OK) << p.detail();
        std::vector<std::vector<float>> res;
        for (size_t i = 0; i < outs.size(); i++) res.push_back(ut::output(p, (int)i));
        return res;
    }
};

} // namespace

TEST(Fuzz, RandomGraphsAgreeAcrossPassesAndThreads) {
    for (uint64_t seed = 1; seed <= 400; seed++) {
        RandomGraph rg(seed);
        auto ref = rg.run(kAll, 1);
        ASSERT_FALSE(ref.empty()) << "seed " << seed;
        const unsigned configs[] = {0, UMAP_PASS_FOLD, UMAP_PASS_SIMPLIFY, UMAP_PASS_CSE, UMAP_PASS_FUSE, UMAP_PASS_REUSE};
        for (unsigned c : configs) {
            auto got = rg.run(c, 1);
            ASSERT_EQ(got.size(), ref.size()) << "seed " << seed;
            for (size_t i = 0; i < ref.size(); i++)
                EXPECT_TRUE(ut::all_close(got[i], ref[i], 1e-5, 1e-5)) << "seed " << seed << " disable " << c << " output " << i;
        }
        auto ref0 = rg.run(0, 1);
        for (int nt : {2, 3}) {
            auto got = rg.run(0, nt);
            ASSERT_EQ(got.size(), ref0.size());
            for (size_t i = 0; i < ref0.size(); i++)
                EXPECT_TRUE(ut::bitwise_equal(got[i], ref0[i])) << "seed " << seed << " threads " << nt << " output " << i;
        }
        if (HasFailure()) {
            umap_graph_dump(rg.g, (int)rg.outs.size(), rg.outs.data(), stdout);
            break;
        }
    }
}

TEST(Fuzz, CseKeepsNodesThatDifferInAParameter) {
    ut::Graph g;
    std::vector<float> xd = ut::uniform(16, 1, -2, 2), cube = ut::uniform(27, 2, -1, 1);
    umap_tensor *x = umap_input(g, "x", umap_shape2(4, 4));
    umap_tensor *c3 = umap_input(g, "c3", umap_shape3(3, 3, 3));
    umap_tensor *y = umap_input(g, "y", umap_shape2(4, 4)); /* same shape, another leaf */
    const float k1[4] = {1, 2, 3, 4}, k2[4] = {1, 2, 3, 5};
    const int32_t i1[2] = {0, 1}, i2[2] = {0, 2}, fwd[4] = {0, 1, 2, 3}, rev[4] = {3, 2, 1, 0};
    const int p1[3] = {1, 2, 0}, p2[3] = {2, 0, 1};
    std::vector<umap_tensor *> outs = {
        umap_slice(g, x, 0, 0, 2),          umap_slice(g, x, 0, 1, 2),          umap_slice(g, x, 1, 0, 2),
        umap_clamp(g, x, -1, 1),            umap_clamp(g, x, -1, 0.5f),         umap_clamp(g, x, -0.5f, 1),
        umap_sum(g, x, 1, 0),               umap_sum(g, x, 2, 0),               umap_mean(g, x, 1, 0),
        umap_reduce_max(g, x, 1, 0),        umap_reduce_max(g, x, 2, 0),        umap_sum(g, x, 1, 1),
        umap_mul_scalar(g, x, 2),           umap_mul_scalar(g, x, 3),           umap_add_scalar(g, x, 2),
        umap_add(g, x, umap_constant(g, umap_shape1(4), k1)), umap_add(g, x, umap_constant(g, umap_shape1(4), k2)),
        umap_add(g, x, umap_full(g, umap_shape1(4), 1.0f)),   umap_add(g, x, umap_full(g, umap_shape1(4), 2.0f)),
        umap_permute(g, c3, p1),            umap_permute(g, c3, p2),
        umap_gather(g, x, umap_constant_i32(g, umap_shape1(2), i1)),
        umap_gather(g, x, umap_constant_i32(g, umap_shape1(2), i2)),
        umap_scatter_add(g, x, umap_constant_i32(g, umap_shape1(4), fwd), 4),
        umap_scatter_add(g, x, umap_constant_i32(g, umap_shape1(4), rev), 4),
        umap_matmul_ex(g, x, x, 0, 0),      umap_matmul_ex(g, x, x, 1, 0),      umap_matmul_ex(g, x, x, 0, 1),
        umap_reshape(g, x, umap_shape2(2, 8)), umap_reshape(g, x, umap_shape2(8, 2)),
        umap_exp(g, x),                     umap_exp(g, y),                     umap_sub(g, x, y),
        umap_sub(g, y, x),                  umap_div(g, x, umap_add_scalar(g, umap_square(g, y), 1)),
        umap_pow(g, umap_abs(g, x), umap_scalar(g, 2.0f)), umap_pow(g, umap_abs(g, x), umap_scalar(g, 3.0f)),
        umap_lt(g, x, y), umap_le(g, x, y), umap_gt(g, x, y), umap_ge(g, x, y), umap_eq(g, x, x), umap_ne(g, x, x),
    };
    for (size_t i = 0; i < outs.size(); i++) ASSERT_NE(outs[i], nullptr) << i << ": " << g.detail();
    std::vector<float> yd = ut::uniform(16, 3, -2, 2);
    std::vector<std::vector<float>> res[2];
    for (int k = 0; k < 2; k++) {
        ut::Program p;
        umap_compile_desc cd = ut::cdesc(1, k ? kAll : 0u);
        ASSERT_EQ(umap_compile(g, (int)outs.size(), outs.data(), &cd, &p.p), UMAP_OK) << g.detail();
        ASSERT_EQ(umap_program_bind(p, "x", xd.data(), 16), UMAP_OK);
        ASSERT_EQ(umap_program_bind(p, "y", yd.data(), 16), UMAP_OK);
        ASSERT_EQ(umap_program_bind(p, "c3", cube.data(), 27), UMAP_OK);
        ASSERT_EQ(umap_program_run(p), UMAP_OK) << p.detail();
        for (size_t i = 0; i < outs.size(); i++) res[k].push_back(ut::output(p, (int)i));
    }
    for (size_t i = 0; i < outs.size(); i++)
        EXPECT_TRUE(ut::all_close(res[0][i], res[1][i], 1e-6, 1e-6)) << "output " << i << " (" << umap_op_name(umap_tensor_op(outs[i])) << ")";
    /* spot checks against the definition */
    EXPECT_EQ(res[0][1][0], xd[4]);
    EXPECT_EQ(res[0][2][1], xd[1]);
    EXPECT_EQ(res[0][13][0], 3 * xd[0]);
    EXPECT_EQ(res[0][16][3], xd[3] + 5);
    EXPECT_EQ(res[0][18][0], xd[0] + 2);
    EXPECT_EQ(res[0][22][4], xd[8]);
    EXPECT_EQ(res[0][24][0], xd[12]);
    EXPECT_EQ(res[0][41][0], 1.0f);
    EXPECT_EQ(res[0][42][0], 0.0f);
}

TEST(Fuzz, FoldEveryOpFamily) {
    /* constant-only subtrees of each op family, folded and not */
    auto build = [](umap_graph *g) -> std::vector<umap_tensor *> {
        static std::vector<float> a = ut::uniform(12, 1, 0.5, 1.5), b = ut::uniform(12, 2, -1, 1);
        static const int32_t idx[3] = {2, 0, 2};
        umap_tensor *ca = umap_constant(g, umap_shape2(3, 4), a.data());
        umap_tensor *cb = umap_constant(g, umap_shape2(4, 3), b.data());
        umap_tensor *ci = umap_constant_i32(g, umap_shape1(3), idx);
        umap_tensor *x = umap_input(g, "x", umap_shape2(3, 3));
        const int perm[2] = {1, 0};
        umap_tensor *parts[2] = {ca, umap_transpose(g, cb)};
        std::vector<umap_tensor *> c = {
            umap_matmul(g, ca, cb),
            umap_sum(g, umap_log(g, ca), 1, 0),
            umap_reduce_max(g, cb, 2, 1),
            umap_permute(g, ca, perm),
            umap_slice(g, ca, 1, 1, 2),
            umap_concat(g, 2, parts, 0),
            umap_gather(g, ca, ci),
            umap_scatter_add(g, umap_slice(g, ca, 0, 0, 3), ci, 4),
            umap_select(g, umap_gt(g, cb, umap_scalar(g, 0)), cb, umap_neg(g, cb)),
            umap_pow(g, ca, umap_scalar(g, 1.5f)),
            umap_broadcast(g, umap_mean(g, ca, 1, 1), umap_shape2(3, 4)),
            umap_reshape(g, ca, umap_shape1(12)),
        };
        std::vector<umap_tensor *> outs;
        for (umap_tensor *t : c) outs.push_back(t);
        outs.push_back(umap_add(g, x, umap_matmul(g, ca, cb)));
        return outs;
    };
    std::vector<float> xd = ut::uniform(9, 5, -1, 1);
    std::vector<std::vector<float>> res[2];
    int folded = 0;
    for (int k = 0; k < 2; k++) {
        ut::Graph g;
        std::vector<umap_tensor *> outs = build(g);
        for (size_t i = 0; i < outs.size(); i++) ASSERT_NE(outs[i], nullptr) << i << ": " << g.detail();
        ut::Program p;
        umap_compile_desc cd = ut::cdesc(1, k ? (unsigned)UMAP_PASS_FOLD : 0u);
        ASSERT_EQ(umap_compile(g, (int)outs.size(), outs.data(), &cd, &p.p), UMAP_OK) << g.detail();
        umap_program_stats st;
        umap_program_stats_get(p, &st);
        if (k == 0) folded = st.folded;
        ASSERT_EQ(umap_program_bind(p, "x", xd.data(), 9), UMAP_OK);
        ASSERT_EQ(umap_program_run(p), UMAP_OK) << p.detail();
        for (size_t i = 0; i < outs.size(); i++) res[k].push_back(ut::output(p, (int)i));
    }
    EXPECT_GE(folded, 10);
    for (size_t i = 0; i < res[0].size(); i++)
        EXPECT_TRUE(ut::all_close(res[0][i], res[1][i], 1e-6, 1e-5)) << "output " << i;
}
