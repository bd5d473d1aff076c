/* The op list (UMAP_OP_LIST) against the implementation: every op gets a
   tiny graph of its own, and the test checks what the list and the Vulkan
   header declare about it:
   - the builder made a node of that op with the list's arity;
   - the CPU backend compiles and runs it;
   - reverse mode: a source declared differentiable passes finite
     differences, a source declared zero gets exactly zero (not an error);
   - forward mode: the tangent agrees with the reverse gradient
     (<c, J v> == <J^T c, v>), and a custom op has none (an error);
   - Vulkan: an op outside UMAP_VK_CPU_ONLY_OPS compiles on the device and
     matches the CPU; one inside is refused (UMAP_ERR_UNSUPPORTED_OP).
   A new op without a builder case below fails the test, so adding an op
   means deciding all of the above. Also here: the errors a missing rule
   gives, and the chosen semantics of differentiating through a comparison. */
#include <cstdlib>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "test_util.h"
#include "umap_vk.h"

namespace {

/* y = 2 x, with a gradient rule: the CUSTOM row's stand-in */
umap_tensor *twice_grad(umap_graph *g, const umap_custom_op *, umap_tensor *, umap_tensor *dy, int) {
    return umap_mul_scalar(g, dy, 2.0f);
}
const umap_custom_op kTwice = {"test.twice", ut::twice_shape, ut::twice_cpu, twice_grad, nullptr};
const umap_custom_op kTwiceNoGrad = {"test.twice_nograd", ut::twice_shape, ut::twice_cpu, nullptr, nullptr};

/* one op's graph: its leaves with data, and the node */
struct OpCase : ut::Leaves {
    umap_tensor *y = nullptr;
    uint64_t seed = 11;

    umap_tensor *uparam(umap_shape s, double lo = -1.5, double hi = 1.5) {
        return param(s, ut::uniform(umap_shape_numel(s), seed++, lo, hi));
    }
    umap_result bind(umap_program *p) {
        for (size_t i = 0; i < leaves.size(); i++) {
            umap_result r = umap_program_bind_tensor(p, leaves[i], values[i]);
            if (r != UMAP_OK) return r;
        }
        return UMAP_OK;
    }
    /* the sources of y, in order */
    std::vector<umap_tensor *> srcs() const {
        std::vector<umap_tensor *> s;
        for (int i = 0; y && umap_tensor_src(y, i); i++) s.push_back(umap_tensor_src(y, i));
        return s;
    }
};

/* Builds op's graph, with data away from the op's kinks and ties (finite
   differences step 1e-2 relative). nullptr: the test has no case for op. */
std::unique_ptr<OpCase> build(umap_op op) {
    std::unique_ptr<OpCase> c(new OpCase);
    OpCase &k = *c;
    const umap_shape s34 = umap_shape2(3, 4);
    switch (op) {
    case UMAP_OP_INPUT: k.y = k.input(s34, ut::uniform(12, 1, -1, 1)); break;
    case UMAP_OP_PARAM: k.y = k.uparam(s34); break;
    case UMAP_OP_CONST: {
        std::vector<float> d = ut::uniform(12, 2, -1, 1);
        k.y = umap_constant(k.g, s34, d.data());
        break;
    }
    case UMAP_OP_FILL: k.y = umap_full(k.g, s34, 0.75f); break;
    /* unary: positive where the function needs it, away from 0 at kinks */
    case UMAP_OP_LOG: case UMAP_OP_SQRT: case UMAP_OP_LOG1P:
        k.y = umap_unary(k.g, op, k.uparam(s34, 0.4, 2.0));
        break;
    case UMAP_OP_RECIP: case UMAP_OP_ABS: case UMAP_OP_SIGN: case UMAP_OP_RELU:
        k.y = umap_unary(k.g, op, k.param(s34, ut::away_from_zero(12, k.seed++, 0.2, 1.5)));
        break;
    case UMAP_OP_NEG: case UMAP_OP_EXP: case UMAP_OP_SIGMOID: case UMAP_OP_TANH: case UMAP_OP_SQUARE:
        k.y = umap_unary(k.g, op, k.uparam(s34));
        break;
    /* binary, [3,4] with a broadcast [4]; no ties closer than 0.125 */
    case UMAP_OP_ADD: case UMAP_OP_SUB: case UMAP_OP_MUL: case UMAP_OP_MAX: case UMAP_OP_MIN: case UMAP_OP_LT:
    case UMAP_OP_LE: case UMAP_OP_GT: case UMAP_OP_GE: case UMAP_OP_EQ: case UMAP_OP_NE: {
        umap_tensor *a = k.param(s34, ut::distinct(12, k.seed++, 0.25, -1.5));
        umap_tensor *b = k.param(umap_shape1(4), ut::distinct(4, k.seed++, 0.5, -1.375));
        k.y = umap_binary(k.g, op, a, b);
        break;
    }
    case UMAP_OP_DIV: case UMAP_OP_POW: {
        umap_tensor *a = k.uparam(s34, 0.4, 2.0);
        umap_tensor *b = k.param(umap_shape1(4), ut::away_from_zero(4, k.seed++, 0.3, 1.5));
        k.y = umap_binary(k.g, op, a, b);
        break;
    }
    case UMAP_OP_SELECT: {
        umap_tensor *cond = k.param(s34, ut::grid(12, k.seed++, 1.0, 0.0, 2));
        k.y = umap_select(k.g, cond, k.uparam(s34), k.uparam(umap_shape1(4)));
        break;
    }
    case UMAP_OP_CLAMP: /* values at least 0.1 from both bounds */
        k.y = umap_clamp(k.g, k.param(s34, ut::distinct(12, k.seed++, 0.25, -1.4)), -0.5f, 0.7f);
        break;
    case UMAP_OP_SUM: k.y = umap_sum(k.g, k.uparam(s34), 2u, 0); break;
    case UMAP_OP_MEAN: k.y = umap_mean(k.g, k.uparam(s34), 1u, 1); break;
    case UMAP_OP_RMAX: k.y = umap_reduce_max(k.g, k.param(s34, ut::distinct(12, k.seed++, 0.25, -1.5)), 2u, 0); break;
    case UMAP_OP_RESHAPE: k.y = umap_reshape(k.g, k.uparam(s34), umap_shape2(2, 6)); break;
    case UMAP_OP_PERMUTE: k.y = umap_transpose(k.g, k.uparam(s34)); break;
    case UMAP_OP_BROADCAST: k.y = umap_broadcast(k.g, k.uparam(umap_shape2(1, 4)), s34); break;
    case UMAP_OP_SLICE: k.y = umap_slice(k.g, k.uparam(s34), 1, 1, 2); break;
    case UMAP_OP_CONCAT: {
        umap_tensor *xs[2] = {k.uparam(s34), k.uparam(umap_shape2(2, 4))};
        k.y = umap_concat(k.g, 2, xs, 0);
        break;
    }
    case UMAP_OP_MATMUL: k.y = umap_matmul(k.g, k.uparam(s34), k.uparam(umap_shape2(4, 2))); break;
    case UMAP_OP_GATHER: { /* a repeated index: its rows' gradients add up */
        umap_tensor *x = k.uparam(umap_shape2(5, 4));
        k.y = umap_gather(k.g, x, k.input_i32(umap_shape1(3), {4, 0, 4}));
        break;
    }
    case UMAP_OP_SCATTER_ADD: {
        umap_tensor *src = k.uparam(s34);
        k.y = umap_scatter_add(k.g, src, k.input_i32(umap_shape1(3), {4, 0, 4}), 5);
        break;
    }
    case UMAP_OP_CUSTOM: {
        umap_tensor *x = k.uparam(s34);
        k.y = umap_custom(k.g, &kTwice, 1, &x, nullptr, 0);
        break;
    }
    default: return nullptr;
    }
    return c;
}

std::vector<umap_op> all_ops() {
    std::vector<umap_op> v;
    for (int i = 0; i < UMAP_OP_COUNT; i++) v.push_back((umap_op)i);
    return v;
}

umap_op_info info(umap_op op) {
    umap_op_info i;
    EXPECT_EQ(umap_op_info_get(op, &i), UMAP_OK);
    return i;
}

/* compiles outs on a backend (NULL: CPU), binds every leaf and runs */
::testing::AssertionResult run(OpCase &c, const std::vector<umap_tensor *> &outs, const umap_backend *be,
                               ut::Program &p) {
    umap_compile_desc cd = ut::cdesc(1);
    cd.backend = be;
    umap_result r = umap_compile(c.g, (int)outs.size(), outs.data(), &cd, &p.p);
    if (r != UMAP_OK) return ::testing::AssertionFailure() << "compile: " << umap_result_string(r) << ": " << c.g.detail();
    if ((r = c.bind(p)) != UMAP_OK) return ::testing::AssertionFailure() << "bind: " << umap_result_string(r);
    if ((r = umap_program_run(p)) != UMAP_OK)
        return ::testing::AssertionFailure() << "run: " << umap_result_string(r) << ": " << p.detail();
    return ::testing::AssertionSuccess();
}

/* loss = sum(y * weights), the weights fixed and away from zero */
umap_tensor *weighted_loss(OpCase &c, umap_tensor *y) {
    umap_shape s = umap_tensor_shape(y);
    std::vector<float> w = ut::away_from_zero(umap_shape_numel(s), 99, 0.3, 1.2);
    return umap_sum(c.g, umap_mul(c.g, y, umap_constant(c.g, s, w.data())), UMAP_AXES_ALL, 0);
}

TEST(OpTable, InfoIsTheList) {
    for (umap_op op : all_ops()) {
        SCOPED_TRACE(umap_op_name(op));
        umap_op_info i = info(op);
        EXPECT_STREQ(i.name, umap_op_name(op));
        EXPECT_GE(i.arity, -1);
        EXPECT_LE(i.arity, UMAP_MAX_SRC);
        /* a zero-gradient bit only for a source the op has */
        if (i.arity >= 0 && i.zero_grad != ~0u) {
            EXPECT_EQ(i.zero_grad >> i.arity, 0u);
        }
        EXPECT_EQ(i.custom_grad, op == UMAP_OP_CUSTOM ? 1 : 0);
    }
    umap_op_info i;
    EXPECT_EQ(umap_op_info_get(UMAP_OP_COUNT, &i), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_op_info_get((umap_op)-1, &i), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_op_info_get(UMAP_OP_ADD, nullptr), UMAP_ERR_INVALID_ARGUMENT);
}

TEST(OpTable, EveryOpHasABuilderWithTheListedArity) {
    for (umap_op op : all_ops()) {
        SCOPED_TRACE(umap_op_name(op));
        std::unique_ptr<OpCase> c = build(op);
        ASSERT_TRUE(c) << "tests/test_op_table.cc has no builder case for op '" << umap_op_name(op)
                       << "': add one (see ADDING AN OP in umap.h)";
        ASSERT_NE(c->y, nullptr) << c->g.detail();
        EXPECT_EQ(umap_tensor_op(c->y), op);
        int n = (int)c->srcs().size(), arity = info(op).arity;
        if (arity >= 0) EXPECT_EQ(n, arity);
        else EXPECT_LE(n, UMAP_MAX_SRC);
    }
}

TEST(OpTable, EveryOpRunsOnTheCpu) {
    for (umap_op op : all_ops()) {
        SCOPED_TRACE(umap_op_name(op));
        std::unique_ptr<OpCase> c = build(op);
        ASSERT_TRUE(c && c->y) << "no builder case";
        ut::Program p;
        ASSERT_TRUE(run(*c, {c->y}, nullptr, p));
        for (float v : ut::output(p, 0)) EXPECT_TRUE(std::isfinite(v));
    }
}

/* reverse mode against the declared contract: D sources pass finite
   differences, zero-gradient sources get exactly zero */
TEST(OpTable, EveryOpHasItsDeclaredReverseRules) {
    for (umap_op op : all_ops()) {
        SCOPED_TRACE(umap_op_name(op));
        umap_op_info in = info(op);
        std::unique_ptr<OpCase> c = build(op);
        ASSERT_TRUE(c && c->y) << "no builder case";
        std::vector<umap_tensor *> src = c->srcs(), diff, zero;
        for (size_t j = 0; j < src.size(); j++) {
            if (umap_tensor_dtype(src[j]) != UMAP_F32) {
                /* only indices are i32, and they are declared zero */
                EXPECT_TRUE(in.zero_grad & (1u << j)) << "an i32 source " << j << " not declared zero";
                continue;
            }
            ASSERT_EQ(umap_tensor_op(src[j]), UMAP_OP_PARAM) << "the builder cases feed params";
            ((in.zero_grad & (1u << j)) ? zero : diff).push_back(src[j]);
        }
        if (src.empty()) continue; /* a leaf: nothing flows through it */
        umap_tensor *loss = weighted_loss(*c, c->y);
        if (!diff.empty()) {
            umap_gradcheck_desc d;
            std::memset(&d, 0, sizeof d);
            d.atol = 1e-3f;
            d.rtol = 2e-2f;
            d.n_threads = 1;
            umap_gradcheck_report r;
            std::memset(&r, 0, sizeof r);
            EXPECT_EQ(umap_gradcheck(c->g, loss, (int)c->leaves.size(), c->leaves.data(), c->values.data(),
                                     (int)diff.size(), diff.data(), &d, &r),
                      UMAP_OK)
                << c->g.detail() << " | worst wrt " << r.worst_wrt << " index " << r.worst_index << ": autodiff "
                << r.worst_autodiff << " numeric " << r.worst_numeric;
        }
        if (!zero.empty()) {
            std::vector<umap_tensor *> grads(zero.size());
            ASSERT_EQ(umap_grad(c->g, loss, (int)zero.size(), zero.data(), grads.data()), UMAP_OK) << c->g.detail();
            ut::Program p;
            ASSERT_TRUE(run(*c, grads, nullptr, p));
            for (size_t j = 0; j < zero.size(); j++)
                for (float v : ut::output(p, (int)j)) EXPECT_EQ(v, 0.0f) << "declared-zero source " << j;
        }
    }
}

/* forward mode: <c, J v> must equal sum_j <d(loss)/d(src_j), v_j>, every f32
   source given a tangent (the declared-zero ones must drop theirs) */
TEST(OpTable, EveryOpHasItsDeclaredForwardRules) {
    for (umap_op op : all_ops()) {
        SCOPED_TRACE(umap_op_name(op));
        umap_op_info in = info(op);
        std::unique_ptr<OpCase> c = build(op);
        ASSERT_TRUE(c && c->y) << "no builder case";
        std::vector<umap_tensor *> wrt, tan;
        for (umap_tensor *s : c->srcs())
            if (umap_tensor_dtype(s) == UMAP_F32) {
                umap_shape sh = umap_tensor_shape(s);
                std::vector<float> v = ut::uniform(umap_shape_numel(sh), 7 + wrt.size(), -1, 1);
                wrt.push_back(s);
                tan.push_back(umap_constant(c->g, sh, v.data()));
            }
        if (wrt.empty()) continue;
        umap_tensor *jv = nullptr;
        umap_result r = umap_jvp(c->g, 1, &c->y, (int)wrt.size(), wrt.data(), tan.data(), &jv);
        if (in.custom_grad) { /* a custom op has no forward rule: loud */
            EXPECT_EQ(r, UMAP_ERR_NOT_DIFFERENTIABLE);
            EXPECT_NE(c->g.detail().find(umap_tensor_custom_op(c->y)->name), std::string::npos) << c->g.detail();
            continue;
        }
        ASSERT_EQ(r, UMAP_OK) << c->g.detail();
        umap_tensor *loss = weighted_loss(*c, c->y);
        std::vector<umap_tensor *> grads(wrt.size());
        ASSERT_EQ(umap_grad(c->g, loss, (int)wrt.size(), wrt.data(), grads.data()), UMAP_OK) << c->g.detail();
        umap_tensor *lhs = weighted_loss(*c, jv), *rhs = nullptr;
        for (size_t j = 0; j < wrt.size(); j++) {
            umap_tensor *t = umap_sum(c->g, umap_mul(c->g, grads[j], tan[j]), UMAP_AXES_ALL, 0);
            rhs = rhs ? umap_add(c->g, rhs, t) : t;
        }
        ut::Program p;
        ASSERT_TRUE(run(*c, {lhs, rhs}, nullptr, p));
        float a = ut::output(p, 0)[0], b = ut::output(p, 1)[0];
        EXPECT_NEAR(a, b, 1e-4 * (1 + std::fabs(b))) << "jvp and vjp disagree";
    }
}

#ifdef UMAP_VULKAN
bool vulkan_required() {
    const char *v = getenv("UMAP_TEST_REQUIRE_VULKAN");
    return v && *v && strcmp(v, "0") != 0;
}
#endif

/* every op outside UMAP_VK_CPU_ONLY_OPS compiles on the device and matches
   the CPU; every op inside it is refused by name */
TEST(OpTable, EveryOpHasAVulkanKernelOrIsListedCpuOnly) {
    EXPECT_EQ(umap_vk_op_cpu_only(UMAP_OP_CUSTOM), 1); /* host callbacks: data, with or without a device */
#ifndef UMAP_VULKAN
    GTEST_SKIP() << "built without UMAP_VULKAN";
#else
    umap_vk_desc d;
    std::memset(&d, 0, sizeof d);
    d.allow_cpu = 1;
    umap_vk *vk = nullptr;
    char why[256] = "";
    if (umap_vk_create(&d, &vk, why, sizeof why) != UMAP_OK) {
        if (vulkan_required()) FAIL() << "no Vulkan device: " << why;
        GTEST_SKIP() << "no Vulkan device here (" << why << ")";
    }
    for (umap_op op : all_ops()) {
        SCOPED_TRACE(umap_op_name(op));
        std::unique_ptr<OpCase> c = build(op);
        ASSERT_TRUE(c && c->y) << "no builder case";
        ut::Program cpu, dev;
        ASSERT_TRUE(run(*c, {c->y}, nullptr, cpu));
        if (umap_vk_op_cpu_only(op)) {
            umap_compile_desc cd = ut::cdesc(1);
            cd.backend = umap_vk_backend(vk);
            EXPECT_EQ(umap_compile(c->g, 1, &c->y, &cd, &dev.p), UMAP_ERR_UNSUPPORTED_OP);
            EXPECT_NE(c->g.detail().find("no kernel"), std::string::npos) << c->g.detail();
            continue;
        }
        EXPECT_TRUE(run(*c, {c->y}, umap_vk_backend(vk), dev));
        if (dev.p) {
            EXPECT_TRUE(ut::all_close(ut::output(dev, 0), ut::output(cpu, 0), 1e-5, 1e-4));
        }
    }
    umap_vk_free(vk);
#endif
}

/* ---- the errors a missing rule gives, and what is not an error */

TEST(OpTable, GradThroughAnOpWithoutRuleFailsNamingIt) {
    {
        ut::Graph g;
        umap_tensor *x = umap_param(g, "x", umap_shape1(3));
        umap_tensor *loss = umap_sum(g, umap_custom(g, &kTwiceNoGrad, 1, &x, nullptr, 0), UMAP_AXES_ALL, 0), *gx;
        ASSERT_NE(loss, nullptr) << g.detail();
        EXPECT_EQ(umap_grad(g, loss, 1, &x, &gx), UMAP_ERR_NOT_DIFFERENTIABLE);
        EXPECT_EQ(umap_graph_status(g), UMAP_ERR_NOT_DIFFERENTIABLE);
        EXPECT_NE(g.detail().find("test.twice_nograd"), std::string::npos) << g.detail();
    }
    { /* hvp is built on grad: the same error */
        ut::Graph g;
        umap_tensor *x = umap_param(g, "x", umap_shape1(3));
        umap_tensor *loss = umap_sum(g, umap_square(g, umap_custom(g, &kTwiceNoGrad, 1, &x, nullptr, 0)),
                                     UMAP_AXES_ALL, 0);
        umap_tensor *v = umap_full(g, umap_shape1(3), 1.0f), *hv;
        EXPECT_EQ(umap_hvp(g, loss, 1, &x, &v, &hv), UMAP_ERR_NOT_DIFFERENTIABLE);
        EXPECT_NE(g.detail().find("test.twice_nograd"), std::string::npos) << g.detail();
    }
    { /* hvp through a custom op WITH grad_fn: its forward-mode rule is missing */
        ut::Graph g;
        umap_tensor *x = umap_param(g, "x", umap_shape1(3));
        umap_tensor *loss = umap_sum(g, umap_square(g, umap_custom(g, &kTwice, 1, &x, nullptr, 0)), UMAP_AXES_ALL, 0);
        umap_tensor *v = umap_full(g, umap_shape1(3), 1.0f), *hv;
        EXPECT_EQ(umap_hvp(g, loss, 1, &x, &v, &hv), UMAP_ERR_NOT_DIFFERENTIABLE);
        EXPECT_NE(g.detail().find("forward-mode"), std::string::npos) << g.detail();
    }
    { /* gradcheck is built on grad too */
        ut::Graph g;
        umap_tensor *x = umap_param(g, "x", umap_shape1(3));
        umap_tensor *loss = umap_sum(g, umap_custom(g, &kTwiceNoGrad, 1, &x, nullptr, 0), UMAP_AXES_ALL, 0);
        float xd[3] = {1, 2, 3};
        void *vals[1] = {xd};
        EXPECT_EQ(umap_gradcheck(g, loss, 1, &x, vals, 1, &x, nullptr, nullptr), UMAP_ERR_NOT_DIFFERENTIABLE);
    }
}

TEST(OpTable, AnOpWithoutRuleOffTheGradientsPathIsFine) {
    ut::Graph g;
    umap_tensor *in = umap_input(g, "in", umap_shape1(3)), *p = umap_param(g, "p", umap_shape1(3));
    umap_tensor *loss = umap_sum(g, umap_mul(g, umap_custom(g, &kTwiceNoGrad, 1, &in, nullptr, 0), p), UMAP_AXES_ALL, 0);
    umap_tensor *gp = nullptr;
    ASSERT_EQ(umap_grad(g, loss, 1, &p, &gp), UMAP_OK) << g.detail();
    ut::Program prog;
    umap_compile_desc cd = ut::cdesc(1);
    ASSERT_EQ(umap_compile(g, 1, &gp, &cd, &prog.p), UMAP_OK) << g.detail();
    const float ind[3] = {1, 2, 3}, pd[3] = {0, 0, 0};
    ASSERT_EQ(umap_program_bind(prog, "in", ind, 3), UMAP_OK);
    ASSERT_EQ(umap_program_bind(prog, "p", pd, 3), UMAP_OK);
    ASSERT_EQ(umap_program_run(prog), UMAP_OK);
    EXPECT_TRUE(ut::all_close(ut::output(prog, 0), std::vector<float>{2, 4, 6}, 0, 0));
}

/* The chosen semantics (umap.h, DIFFERENTIATION): a comparison is
   piecewise constant, so a param reached only through one has a zero
   gradient, as in PyTorch and JAX: not an error. */
TEST(OpTable, DifferentiatingThroughAComparisonIsZeroNotAnError) {
    ut::Graph g;
    umap_tensor *x = umap_param(g, "x", umap_shape1(4)), *t = umap_param(g, "t", umap_shape1(4));
    /* loss = sum(lt(x, t) * x + sign(t)) */
    umap_tensor *loss =
        umap_sum(g, umap_add(g, umap_mul(g, umap_lt(g, x, t), x), umap_sign(g, t)), UMAP_AXES_ALL, 0);
    umap_tensor *wrt[2] = {x, t}, *grads[2] = {nullptr, nullptr}, *tans[2], *jv = nullptr;
    ASSERT_EQ(umap_grad(g, loss, 2, wrt, grads), UMAP_OK) << g.detail();
    tans[0] = umap_full(g, umap_shape1(4), 0.0f);
    tans[1] = umap_full(g, umap_shape1(4), 1.0f); /* moves only t */
    ASSERT_EQ(umap_jvp(g, 1, &loss, 2, wrt, tans, &jv), UMAP_OK) << g.detail();
    ut::Program p;
    umap_compile_desc cd = ut::cdesc(1);
    umap_tensor *outs[3] = {grads[0], grads[1], jv};
    ASSERT_EQ(umap_compile(g, 3, outs, &cd, &p.p), UMAP_OK) << g.detail();
    const float xd[4] = {1, -2, 3, 0.5f}, td[4] = {2, -3, 1, 1};
    ASSERT_EQ(umap_program_bind(p, "x", xd, 4), UMAP_OK);
    ASSERT_EQ(umap_program_bind(p, "t", td, 4), UMAP_OK);
    ASSERT_EQ(umap_program_run(p), UMAP_OK);
    EXPECT_TRUE(ut::all_close(ut::output(p, 0), std::vector<float>{1, 0, 0, 1}, 0, 0)); /* lt(x, t) */
    EXPECT_TRUE(ut::all_close(ut::output(p, 1), std::vector<float>{0, 0, 0, 0}, 0, 0));
    EXPECT_TRUE(ut::all_close(ut::output(p, 2), std::vector<float>{0}, 0, 0));
}

} // namespace
