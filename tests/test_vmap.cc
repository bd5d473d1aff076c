/* umap_vmap against running the graph once per example.
   - Every op of the op list has cases below (a new op without one fails
     OpTable-style: adding an op means deciding its batching rule), and each
     case is batched over every non-empty subset of its leaves, so each rule
     meets batched and shared sources in every combination; the batched
     result must equal the per-example runs.
   - Per-example gradients: vmap of umap_grad's nodes for a small MLP
     against central finite differences of the loss, computed here in
     double precision.
   - The errors: a custom op on the batched path (UMAP_ERR_NOT_BATCHABLE,
     the op named), a batched form past UMAP_MAX_RANK, bad arguments. */
#include <functional>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

const int64_t kB = 3; /* examples per batch */

/* one op's graph: leaves (f32 or i32), the data of example b of each, and
   the node */
struct Case {
    struct Leaf {
        umap_tensor *t;
        bool i32;
        double lo, hi; /* f32: uniform in [lo, hi]; i32: indices in [0, hi) */
        int levels;    /* f32 > 0: values on a grid of that many levels (ties, for eq) */
    };
    ut::Graph g;
    std::vector<Leaf> leaves;
    umap_tensor *y = nullptr;

    umap_tensor *f32(umap_shape s, double lo = -1.5, double hi = 1.5, int levels = 0) {
        std::string name = "p" + std::to_string(leaves.size());
        leaves.push_back({umap_param(g, name.c_str(), s), false, lo, hi, levels});
        return leaves.back().t;
    }
    umap_tensor *input(umap_shape s) {
        std::string name = "in" + std::to_string(leaves.size());
        leaves.push_back({umap_input(g, name.c_str(), s), false, -1.5, 1.5, 0});
        return leaves.back().t;
    }
    umap_tensor *idx(umap_shape s, int32_t n_rows) {
        std::string name = "idx" + std::to_string(leaves.size());
        leaves.push_back({umap_input_i32(g, name.c_str(), s), true, 0, (double)n_rows, 0});
        return leaves.back().t;
    }
    /* example b's data of leaf l (4 bytes per element) */
    std::vector<uint32_t> data(size_t l, int64_t b) const {
        const Leaf &f = leaves[l];
        int64_t n = umap_shape_numel(umap_tensor_shape(f.t));
        uint64_t seed = 1000 * (l + 1) + (uint64_t)b;
        std::vector<uint32_t> out((size_t)n);
        for (int64_t i = 0; i < n; i++) {
            double u = ut::unit(seed, (uint64_t)i);
            if (f.i32) {
                int32_t k = (int32_t)(u * f.hi);
                std::memcpy(&out[(size_t)i], &k, 4);
            } else {
                float v = f.levels > 0 ? (float)(f.lo + (f.hi - f.lo) * (double)(int)(u * f.levels) / (f.levels - 1))
                                       : (float)(f.lo + (f.hi - f.lo) * u);
                std::memcpy(&out[(size_t)i], &v, 4);
            }
        }
        return out;
    }
};

using Builder = std::function<void(Case &)>;

umap_shape s34() { return umap_shape2(3, 4); }

/* The cases of one op; empty: the test has none (a failure, except for
   CUSTOM, whose lack of a rule is tested on its own). */
std::vector<Builder> cases(umap_op op) {
    std::vector<Builder> v;
    switch (op) {
    case UMAP_OP_INPUT: v.push_back([](Case &c) { c.y = c.input(s34()); }); break;
    case UMAP_OP_PARAM: v.push_back([](Case &c) { c.y = c.f32(s34()); }); break;
    case UMAP_OP_CONST: /* depends on no batched leaf: the same for every example */
        v.push_back([](Case &c) {
            std::vector<float> d = ut::uniform(12, 5, -1, 1);
            c.f32(umap_shape1(2));
            c.y = umap_constant(c.g, s34(), d.data());
        });
        break;
    case UMAP_OP_FILL:
        v.push_back([](Case &c) {
            c.f32(umap_shape1(2));
            c.y = umap_full(c.g, s34(), 0.75f);
        });
        break;
    case UMAP_OP_CLAMP:
        v.push_back([](Case &c) { c.y = umap_clamp(c.g, c.f32(s34()), -0.5f, 0.7f); });
        break;
    case UMAP_OP_SELECT:
        v.push_back([](Case &c) {
            umap_tensor *cond = c.f32(s34(), 0, 1, 2);
            c.y = umap_select(c.g, cond, c.f32(s34()), c.f32(umap_shape1(4)));
        });
        v.push_back([](Case &c) { /* the result's rank from the condition */
            umap_tensor *cond = c.f32(umap_shape3(2, 3, 4), 0, 1, 2);
            c.y = umap_select(c.g, cond, c.f32(umap_shape1(4)), c.f32(umap_shape2(3, 1)));
        });
        break;
    case UMAP_OP_SUM:
        v.push_back([](Case &c) { c.y = umap_sum(c.g, c.f32(s34()), 2u, 0); });
        v.push_back([](Case &c) { c.y = umap_sum(c.g, c.f32(umap_shape3(2, 3, 4)), UMAP_AXES_ALL, 0); });
        break;
    case UMAP_OP_MEAN:
        v.push_back([](Case &c) { c.y = umap_mean(c.g, c.f32(s34()), 1u, 1); });
        v.push_back([](Case &c) { c.y = umap_mean(c.g, c.f32(umap_shape3(2, 3, 4)), 5u, 0); });
        break;
    case UMAP_OP_RMAX:
        v.push_back([](Case &c) { c.y = umap_reduce_max(c.g, c.f32(s34()), 2u, 0); });
        v.push_back([](Case &c) { c.y = umap_reduce_max(c.g, c.f32(umap_shape3(2, 3, 4)), UMAP_AXES_ALL, 1); });
        break;
    case UMAP_OP_RESHAPE:
        v.push_back([](Case &c) { c.y = umap_reshape(c.g, c.f32(s34()), umap_shape3(2, 2, 3)); });
        v.push_back([](Case &c) { c.y = umap_reshape(c.g, c.f32(umap_shape1(1)), umap_shape0()); });
        break;
    case UMAP_OP_PERMUTE:
        v.push_back([](Case &c) { c.y = umap_transpose(c.g, c.f32(s34())); });
        v.push_back([](Case &c) {
            const int perm[3] = {2, 0, 1};
            c.y = umap_permute(c.g, c.f32(umap_shape3(2, 3, 4)), perm);
        });
        break;
    case UMAP_OP_BROADCAST:
        v.push_back([](Case &c) { c.y = umap_broadcast(c.g, c.f32(umap_shape2(1, 4)), s34()); });
        v.push_back([](Case &c) { c.y = umap_broadcast(c.g, c.f32(umap_shape1(4)), umap_shape3(2, 3, 4)); });
        v.push_back([](Case &c) { c.y = umap_broadcast(c.g, c.f32(umap_shape0()), umap_shape1(3)); });
        break;
    case UMAP_OP_SLICE:
        v.push_back([](Case &c) { c.y = umap_slice(c.g, c.f32(s34()), 1, 1, 2); });
        v.push_back([](Case &c) { c.y = umap_slice(c.g, c.f32(s34()), 0, 0, 2); });
        break;
    case UMAP_OP_CONCAT:
        v.push_back([](Case &c) {
            umap_tensor *xs[2] = {c.f32(s34()), c.f32(umap_shape2(2, 4))};
            c.y = umap_concat(c.g, 2, xs, 0);
        });
        v.push_back([](Case &c) {
            umap_tensor *xs[3] = {c.f32(umap_shape2(3, 1)), c.f32(umap_shape2(3, 2)), c.f32(umap_shape2(3, 3))};
            c.y = umap_concat(c.g, 3, xs, 1);
        });
        break;
    case UMAP_OP_MATMUL: {
        /* shapes of a and b and the transposes: 2-D, batched 3-D, and the
           mixes the builder takes */
        struct MM { umap_shape a, b; int ta, tb; };
        const MM mms[] = {
            {umap_shape2(3, 4), umap_shape2(4, 2), 0, 0},       {umap_shape2(4, 3), umap_shape2(2, 4), 1, 1},
            {umap_shape2(3, 4), umap_shape2(2, 4), 0, 1},       {umap_shape3(2, 3, 4), umap_shape3(2, 4, 2), 0, 0},
            {umap_shape3(2, 4, 3), umap_shape2(4, 2), 1, 0},    {umap_shape2(3, 4), umap_shape3(2, 4, 2), 0, 0},
            {umap_shape2(4, 3), umap_shape3(2, 2, 4), 1, 1},
        };
        for (const MM &m : mms)
            v.push_back([m](Case &c) { c.y = umap_matmul_ex(c.g, c.f32(m.a), c.f32(m.b), m.ta, m.tb); });
        break;
    }
    case UMAP_OP_GATHER:
        v.push_back([](Case &c) {
            umap_tensor *x = c.f32(umap_shape2(5, 4));
            c.y = umap_gather(c.g, x, c.idx(umap_shape1(3), 5));
        });
        v.push_back([](Case &c) {
            umap_tensor *x = c.f32(umap_shape1(5));
            c.y = umap_gather(c.g, x, c.idx(umap_shape2(2, 3), 5));
        });
        break;
    case UMAP_OP_SCATTER_ADD:
        v.push_back([](Case &c) {
            umap_tensor *src = c.f32(s34());
            c.y = umap_scatter_add(c.g, src, c.idx(umap_shape1(3), 5), 5);
        });
        v.push_back([](Case &c) {
            umap_tensor *src = c.f32(umap_shape2(2, 3));
            c.y = umap_scatter_add(c.g, src, c.idx(umap_shape2(2, 3), 4), 4);
        });
        break;
    case UMAP_OP_CUSTOM: break;
    default: {
        umap_op_info info;
        EXPECT_EQ(umap_op_info_get(op, &info), UMAP_OK);
        if (info.arity == 1) { /* unary elementwise, at rank 2 and 3 */
            bool positive = op == UMAP_OP_LOG || op == UMAP_OP_SQRT || op == UMAP_OP_LOG1P;
            double lo = positive ? 0.4 : -1.5, hi = positive ? 2.0 : 1.5;
            v.push_back([op, lo, hi](Case &c) { c.y = umap_unary(c.g, op, c.f32(s34(), lo, hi)); });
            v.push_back([op, lo, hi](Case &c) { c.y = umap_unary(c.g, op, c.f32(umap_shape3(2, 3, 4), lo, hi)); });
        } else if (info.arity == 2) { /* binary, broadcasting both ways; a > 0 (pow, div) */
            int levels = op >= UMAP_OP_LT && op <= UMAP_OP_NE ? 3 : 0;
            v.push_back([op, levels](Case &c) {
                umap_tensor *a = c.f32(s34(), 0.4, 2.0, levels);
                c.y = umap_binary(c.g, op, a, c.f32(umap_shape1(4), 0.5, 1.5, levels));
            });
            v.push_back([op, levels](Case &c) {
                umap_tensor *a = c.f32(umap_shape1(4), 0.4, 2.0, levels);
                c.y = umap_binary(c.g, op, a, c.f32(umap_shape3(2, 1, 4), 0.5, 1.5, levels));
            });
        }
        break;
    }
    }
    return v;
}

/* Builds the case, batches the leaves in mask over kB examples, and checks
   that example b of the batched result is the graph run on example b. */
::testing::AssertionResult batched_equals_per_example(const Builder &build, unsigned mask) {
    Case c;
    build(c);
    if (!c.y) return ::testing::AssertionFailure() << "builder: " << c.g.detail();
    std::vector<umap_tensor *> ins, bins;
    std::vector<std::vector<uint32_t>> batch_data;
    for (size_t l = 0; l < c.leaves.size(); l++) {
        if (!(mask & (1u << l))) continue;
        umap_tensor *t = c.leaves[l].t;
        umap_shape s = umap_tensor_shape(t), bs = s;
        bs.rank = s.rank + 1;
        bs.dim[0] = kB;
        for (int k = 0; k < s.rank; k++) bs.dim[k + 1] = s.dim[k];
        std::string name = "batch" + std::to_string(l);
        ins.push_back(t);
        bins.push_back(c.leaves[l].i32 ? umap_input_i32(c.g, name.c_str(), bs) : umap_input(c.g, name.c_str(), bs));
        std::vector<uint32_t> all;
        for (int64_t b = 0; b < kB; b++) {
            std::vector<uint32_t> d = c.data(l, b);
            all.insert(all.end(), d.begin(), d.end());
        }
        batch_data.push_back(all);
    }
    umap_tensor *yb = nullptr;
    umap_result r = umap_vmap(c.g, (int)ins.size(), ins.data(), bins.data(), 1, &c.y, &yb);
    if (r != UMAP_OK) return ::testing::AssertionFailure() << "vmap: " << umap_result_string(r) << ": " << c.g.detail();
    umap_shape want = umap_tensor_shape(c.y), got = umap_tensor_shape(yb);
    if (got.rank != want.rank + 1 || got.dim[0] != kB)
        return ::testing::AssertionFailure() << "batched shape " << ut::shape_str(got) << " for " << ut::shape_str(want);

    /* the batched run: batched leaves get all examples, the others example 0 */
    std::vector<std::vector<uint32_t>> shared;
    for (size_t l = 0; l < c.leaves.size(); l++) shared.push_back(c.data(l, 0));
    umap_compile_desc cd = ut::cdesc(1);
    ut::Program pb;
    if ((r = umap_compile(c.g, 1, &yb, &cd, &pb.p)) != UMAP_OK)
        return ::testing::AssertionFailure() << "compile batched: " << umap_result_string(r) << ": " << c.g.detail();
    for (size_t l = 0; l < c.leaves.size(); l++) umap_program_bind_tensor(pb, c.leaves[l].t, shared[l].data());
    for (size_t i = 0; i < bins.size(); i++) umap_program_bind_tensor(pb, bins[i], batch_data[i].data());
    if ((r = umap_program_run(pb)) != UMAP_OK)
        return ::testing::AssertionFailure() << "run batched: " << umap_result_string(r) << ": " << pb.detail();
    std::vector<float> batched = ut::output(pb, 0);

    /* one run per example */
    ut::Program p1;
    if ((r = umap_compile(c.g, 1, &c.y, &cd, &p1.p)) != UMAP_OK)
        return ::testing::AssertionFailure() << "compile: " << umap_result_string(r);
    size_t per = (size_t)umap_shape_numel(want);
    for (int64_t b = 0; b < kB; b++) {
        std::vector<std::vector<uint32_t>> d;
        for (size_t l = 0; l < c.leaves.size(); l++) d.push_back(mask & (1u << l) ? c.data(l, b) : shared[l]);
        for (size_t l = 0; l < c.leaves.size(); l++) umap_program_bind_tensor(p1, c.leaves[l].t, d[l].data());
        if ((r = umap_program_run(p1)) != UMAP_OK)
            return ::testing::AssertionFailure() << "run example " << b << ": " << umap_result_string(r);
        std::vector<float> one = ut::output(p1, 0);
        std::vector<float> slice(batched.begin() + (ptrdiff_t)(b * per), batched.begin() + (ptrdiff_t)((b + 1) * per));
        ::testing::AssertionResult close = ut::all_close(slice, one, 1e-6, 1e-5);
        if (!close) return close << " (example " << b << ")";
    }
    return ::testing::AssertionSuccess();
}

TEST(Vmap, EveryOpWithARuleMatchesPerExampleRuns) {
    int n_checked = 0;
    for (int i = 0; i < UMAP_OP_COUNT; i++) {
        umap_op op = (umap_op)i;
        SCOPED_TRACE(umap_op_name(op));
        std::vector<Builder> v = cases(op);
        if (op == UMAP_OP_CUSTOM) continue; /* no rule: Vmap.CustomOpOnThePathIsAnError */
        ASSERT_FALSE(v.empty()) << "no vmap case for op '" << umap_op_name(op)
                                << "': add its batching rule (umap__vmap_rule) and a case here";
        for (size_t k = 0; k < v.size(); k++) {
            Case probe;
            v[k](probe);
            unsigned n_leaves = (unsigned)probe.leaves.size();
            ASSERT_GE(n_leaves, 1u);
            for (unsigned mask = 1; mask < (1u << n_leaves); mask++, n_checked++)
                EXPECT_TRUE(batched_equals_per_example(v[k], mask)) << "case " << k << ", batched leaves mask " << mask;
        }
    }
    EXPECT_GT(n_checked, 2 * UMAP_OP_COUNT);
    std::printf("vmap: %d batchings checked against per-example runs\n", n_checked);
}

/* y = 2 x with a gradient but, as every custom op, no batching rule */
const umap_custom_op kTwice = {"test.twice", ut::twice_shape, ut::twice_cpu, nullptr, nullptr};

TEST(Vmap, CustomOpOnThePathIsAnError) {
    ut::Graph g;
    umap_tensor *x = umap_input(g, "x", umap_shape1(4));
    umap_tensor *y = umap_exp(g, umap_custom(g, &kTwice, 1, &x, nullptr, 0));
    umap_tensor *xb = umap_input(g, "xb", umap_shape2(kB, 4)), *yb = nullptr;
    EXPECT_EQ(umap_vmap(g, 1, &x, &xb, 1, &y, &yb), UMAP_ERR_NOT_BATCHABLE);
    EXPECT_EQ(umap_graph_status(g), UMAP_ERR_NOT_BATCHABLE);
    EXPECT_NE(g.detail().find("test.twice"), std::string::npos) << g.detail();
    EXPECT_NE(g.detail().find("batching rule"), std::string::npos) << g.detail();
    EXPECT_STRNE(umap_result_string(UMAP_ERR_NOT_BATCHABLE), "");
}

TEST(Vmap, CustomOpOffThePathIsShared) {
    /* the custom op reads only a weight: one value for every example */
    ut::Graph g;
    umap_tensor *w = umap_param(g, "w", umap_shape1(4)), *x = umap_input(g, "x", umap_shape1(4));
    umap_tensor *y = umap_mul(g, x, umap_custom(g, &kTwice, 1, &w, nullptr, 0));
    umap_tensor *xb = umap_input(g, "xb", umap_shape2(2, 4)), *yb = nullptr;
    ASSERT_EQ(umap_vmap(g, 1, &x, &xb, 1, &y, &yb), UMAP_OK) << g.detail();
    ut::Program p;
    umap_compile_desc cd = ut::cdesc(1);
    ASSERT_EQ(umap_compile(g, 1, &yb, &cd, &p.p), UMAP_OK) << g.detail();
    const float wv[4] = {1, 2, 3, 4}, xv[8] = {1, 1, 1, 1, -1, 0, 1, 2};
    ASSERT_EQ(umap_program_bind_tensor(p, w, wv), UMAP_OK);
    ASSERT_EQ(umap_program_bind_tensor(p, xb, xv), UMAP_OK);
    ASSERT_EQ(umap_program_run(p), UMAP_OK) << p.detail();
    EXPECT_TRUE(ut::bitwise_equal(ut::output(p, 0), {2, 4, 6, 8, -2, 0, 6, 16}));
}

TEST(Vmap, BatchedRankPastTheLimitIsAShapeError) {
    ut::Graph g;
    umap_tensor *x = umap_input(g, "x", umap_shape3(2, 3, 4));
    umap_tensor *y = umap_broadcast(g, x, umap_shape4(5, 2, 3, 4));
    umap_tensor *xb = umap_input(g, "xb", umap_shape4(kB, 2, 3, 4)), *yb = nullptr;
    EXPECT_EQ(umap_vmap(g, 1, &x, &xb, 1, &y, &yb), UMAP_ERR_SHAPE);
    EXPECT_NE(g.detail().find("broadcast"), std::string::npos) << g.detail();
    EXPECT_NE(g.detail().find("UMAP_MAX_RANK"), std::string::npos) << g.detail();
}

TEST(Vmap, ABatchTooLargeForTheDiagonalMaskIsAnError) {
    /* gather with batched rows and index needs a B x B mask: 2^42 elements */
    const int64_t B = (int64_t)1 << 21;
    ut::Graph g;
    umap_tensor *x = umap_param(g, "x", umap_shape2(5, 4)), *idx = umap_input_i32(g, "idx", umap_shape1(3));
    umap_tensor *y = umap_gather(g, x, idx), *yb = nullptr;
    umap_tensor *ins[2] = {x, idx};
    umap_tensor *bins[2] = {umap_input(g, "xb", umap_shape3(B, 5, 4)), umap_input_i32(g, "ib", umap_shape2(B, 3))};
    EXPECT_EQ(umap_vmap(g, 2, ins, bins, 1, &y, &yb), UMAP_ERR_TOO_LARGE);
    EXPECT_NE(g.detail().find("too large"), std::string::npos) << g.detail();
}

TEST(Vmap, BadArgumentsAreErrors) {
    ut::Graph g;
    umap_tensor *x = umap_input(g, "x", umap_shape1(4)), *y = umap_exp(g, x), *yb = nullptr;
    umap_tensor *wrong = umap_input(g, "wrong", umap_shape2(kB, 5));
    umap_tensor *i32 = umap_input_i32(g, "i32", umap_shape2(kB, 4));
    EXPECT_EQ(umap_vmap(g, 1, &x, &wrong, 1, &y, &yb), UMAP_ERR_SHAPE);
    EXPECT_NE(g.detail().find("batched_ins[0]"), std::string::npos) << g.detail();
    umap_graph_clear_error(g);
    EXPECT_EQ(umap_vmap(g, 1, &x, &i32, 1, &y, &yb), UMAP_ERR_SHAPE) << "another dtype";
    umap_graph_clear_error(g);
    EXPECT_EQ(umap_vmap(g, 0, &x, &wrong, 1, &y, &yb), UMAP_ERR_INVALID_ARGUMENT);
    umap_graph_clear_error(g);
    EXPECT_EQ(umap_vmap(g, 1, &x, &wrong, 1, &y, nullptr), UMAP_ERR_INVALID_ARGUMENT);
    umap_graph_clear_error(g);
    EXPECT_EQ(umap_vmap(nullptr, 1, &x, &wrong, 1, &y, &yb), UMAP_ERR_INVALID_ARGUMENT);
    /* a graph with an earlier error is refused */
    umap_reshape(g, x, umap_shape1(5));
    umap_tensor *xb = umap_input(g, "xb", umap_shape2(kB, 4));
    EXPECT_EQ(umap_vmap(g, 1, &x, &xb, 1, &y, &yb), UMAP_ERR_GRAPH);
}

/* ---- per-example gradients of a small MLP -------------------------------
   loss(x, t) = sum((tanh(x W1 + b1) W2 - t)^2), x [1, D], t [1, O] */
const int kD = 3, kH = 5, kO = 2;

double mlp_loss(const std::vector<double> &w1, const std::vector<double> &b1, const std::vector<double> &w2,
                const float *x, const float *t) {
    double loss = 0, h[kH];
    for (int j = 0; j < kH; j++) {
        double s = b1[(size_t)j];
        for (int i = 0; i < kD; i++) s += (double)x[i] * w1[(size_t)(i * kH + j)];
        h[j] = std::tanh(s);
    }
    for (int o = 0; o < kO; o++) {
        double s = -(double)t[o];
        for (int j = 0; j < kH; j++) s += h[j] * w2[(size_t)(j * kO + o)];
        loss += s * s;
    }
    return loss;
}

TEST(Vmap, PerExampleGradientsOfAnMlpMatchFiniteDifferences) {
    const int64_t B = 4;
    ut::Graph g;
    umap_tensor *x = umap_input(g, "x", umap_shape2(1, kD)), *t = umap_input(g, "t", umap_shape2(1, kO));
    umap_tensor *w1 = umap_param(g, "w1", umap_shape2(kD, kH)), *b1 = umap_param(g, "b1", umap_shape1(kH));
    umap_tensor *w2 = umap_param(g, "w2", umap_shape2(kH, kO));
    umap_tensor *h = umap_tanh(g, umap_add(g, umap_matmul(g, x, w1), b1));
    umap_tensor *loss = umap_sum(g, umap_square(g, umap_sub(g, umap_matmul(g, h, w2), t)), UMAP_AXES_ALL, 0);
    umap_tensor *wrt[3] = {w1, b1, w2}, *grads[3], *pex[3];
    ASSERT_EQ(umap_grad(g, loss, 3, wrt, grads), UMAP_OK) << g.detail();
    umap_tensor *ins[2] = {x, t};
    umap_tensor *bins[2] = {umap_input(g, "xb", umap_shape3(B, 1, kD)), umap_input(g, "tb", umap_shape3(B, 1, kO))};
    ASSERT_EQ(umap_vmap(g, 2, ins, bins, 3, grads, pex), UMAP_OK) << g.detail();
    EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(pex[0]), umap_shape3(B, kD, kH)));
    EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(pex[1]), umap_shape2(B, kH)));
    EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(pex[2]), umap_shape3(B, kH, kO)));

    std::vector<float> w1v = ut::uniform(kD * kH, 1, -1, 1), b1v = ut::uniform(kH, 2, -0.5, 0.5),
                       w2v = ut::uniform(kH * kO, 3, -1, 1), xv = ut::uniform(B * kD, 4, -1.5, 1.5),
                       tv = ut::uniform(B * kO, 5, -1, 1);
    ut::Program p;
    umap_compile_desc cd = ut::cdesc(2);
    ASSERT_EQ(umap_compile(g, 3, pex, &cd, &p.p), UMAP_OK) << g.detail();
    ASSERT_EQ(umap_program_bind_tensor(p, w1, w1v.data()), UMAP_OK);
    ASSERT_EQ(umap_program_bind_tensor(p, b1, b1v.data()), UMAP_OK);
    ASSERT_EQ(umap_program_bind_tensor(p, w2, w2v.data()), UMAP_OK);
    ASSERT_EQ(umap_program_bind_tensor(p, bins[0], xv.data()), UMAP_OK);
    ASSERT_EQ(umap_program_bind_tensor(p, bins[1], tv.data()), UMAP_OK);
    ASSERT_EQ(umap_program_run(p), UMAP_OK) << p.detail();

    /* central differences in double, per example and weight */
    std::vector<std::vector<double>> w = {std::vector<double>(w1v.begin(), w1v.end()),
                                          std::vector<double>(b1v.begin(), b1v.end()),
                                          std::vector<double>(w2v.begin(), w2v.end())};
    const double eps = 1e-5;
    for (int k = 0; k < 3; k++) {
        std::vector<float> got = ut::output(p, k);
        size_t per = w[(size_t)k].size();
        ASSERT_EQ(got.size(), (size_t)B * per);
        for (int64_t b = 0; b < B; b++) {
            std::vector<double> fd(per);
            for (size_t j = 0; j < per; j++) {
                std::vector<std::vector<double>> wp = w, wm = w;
                wp[(size_t)k][j] += eps;
                wm[(size_t)k][j] -= eps;
                fd[j] = (mlp_loss(wp[0], wp[1], wp[2], &xv[(size_t)(b * kD)], &tv[(size_t)(b * kO)]) -
                         mlp_loss(wm[0], wm[1], wm[2], &xv[(size_t)(b * kD)], &tv[(size_t)(b * kO)])) / (2 * eps);
            }
            std::vector<float> mine(got.begin() + (ptrdiff_t)(b * per), got.begin() + (ptrdiff_t)((b + 1) * per));
            EXPECT_TRUE(ut::all_close(mine, fd, 1e-4, 1e-3)) << "weight " << k << ", example " << b;
        }
    }
    /* the same bits with another thread count */
    ut::Program p2;
    umap_compile_desc cd2 = ut::cdesc(1);
    ASSERT_EQ(umap_compile(g, 3, pex, &cd2, &p2.p), UMAP_OK) << g.detail();
    umap_tensor *leaves[5] = {w1, b1, w2, bins[0], bins[1]};
    const float *vals[5] = {w1v.data(), b1v.data(), w2v.data(), xv.data(), tv.data()};
    for (int k = 0; k < 5; k++) ASSERT_EQ(umap_program_bind_tensor(p2, leaves[k], vals[k]), UMAP_OK);
    ASSERT_EQ(umap_program_run(p2), UMAP_OK) << p2.detail();
    for (int k = 0; k < 3; k++) EXPECT_TRUE(ut::bitwise_equal(ut::output(p, k), ut::output(p2, k))) << "output " << k;
    /* the examples differ: a per-example gradient is not the batch's */
    std::vector<float> g0 = ut::output(p, 0);
    EXPECT_FALSE(ut::all_close(std::vector<float>(g0.begin(), g0.begin() + kD * kH),
                               std::vector<float>(g0.begin() + kD * kH, g0.begin() + 2 * kD * kH), 1e-3, 0));
}

} // namespace
