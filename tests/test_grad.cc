/* >>gradcheck: every differentiable op against 4-point finite differences,
   at several shapes, with broadcasting and non-contiguous operands. */
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

/* One graph, its leaves and their data; check() reduces a result to a scalar
   with a random weighting and runs umap_gradcheck over every wrt. */
struct GradCase : ut::Leaves {
    std::vector<umap_tensor *> wrt;
    uint64_t seed;

    explicit GradCase(uint64_t s = 1) : seed(s * 1000003u) {}

    umap_tensor *param(umap_shape s, std::vector<float> d, bool differentiate = true) {
        umap_tensor *t = Leaves::param(s, std::move(d));
        if (differentiate) wrt.push_back(t);
        return t;
    }
    /* random data in [lo, hi] */
    umap_tensor *rand_param(umap_shape s, double lo = -1.5, double hi = 1.5) {
        return param(s, ut::uniform(umap_shape_numel(s), seed++, lo, hi));
    }

    ::testing::AssertionResult check(umap_tensor *y, float atol = 1e-3f, float rtol = 2e-2f, float eps = 0) {
        if (!y)
            return ::testing::AssertionFailure() << "builder returned NULL: " << umap_result_string(umap_graph_status(g))
                                                 << ": " << g.detail();
        umap_shape s = umap_tensor_shape(y);
        int64_t n = umap_shape_numel(s);
        std::vector<float> w = ut::away_from_zero(n, seed++, 0.3, 1.2);
        umap_tensor *c = umap_constant(g, s, w.data());
        umap_tensor *loss = umap_sum(g, umap_mul(g, y, c), UMAP_AXES_ALL, 0);
        if (!loss) return ::testing::AssertionFailure() << "loss builder failed: " << g.detail();
        if (umap_shape_numel(umap_tensor_shape(loss)) != 1)
            return ::testing::AssertionFailure() << "loss shape " << ut::shape_str(umap_tensor_shape(loss));
        std::deque<std::vector<float>> before = fdata;
        umap_gradcheck_desc d;
        std::memset(&d, 0, sizeof d);
        d.eps = eps;
        d.atol = atol;
        d.rtol = rtol;
        d.n_threads = 1;
        umap_gradcheck_report r;
        std::memset(&r, 0, sizeof r);
        umap_result res = umap_gradcheck(g, loss, (int)leaves.size(), leaves.data(), values.data(), (int)wrt.size(),
                                         wrt.data(), &d, &r);
        for (size_t i = 0; i < fdata.size(); i++)
            if (std::memcmp(fdata[i].data(), before[i].data(), fdata[i].size() * sizeof(float)) != 0)
                return ::testing::AssertionFailure() << "gradcheck did not restore the data of leaf " << i;
        if (res != UMAP_OK)
            return ::testing::AssertionFailure()
                   << umap_result_string(res) << " | y " << ut::shape_str(s) << " | worst wrt " << r.worst_wrt
                   << " index " << r.worst_index << ": autodiff " << r.worst_autodiff << " numeric "
                   << r.worst_numeric << " | max abs " << r.max_abs_err << " max rel " << r.max_rel_err
                   << " | checked " << r.checked << " | graph: " << g.detail();
        int64_t expect_checked = 0;
        for (umap_tensor *t : wrt) expect_checked += umap_shape_numel(umap_tensor_shape(t));
        if (r.checked != expect_checked)
            return ::testing::AssertionFailure() << "report.checked " << r.checked << ", expected " << expect_checked;
        return ::testing::AssertionSuccess();
    }
};

enum Domain { ANY, POS, AWAY, LOG1P_DOM, EXP_ARG };

std::vector<float> gen(Domain d, int64_t n, uint64_t seed) {
    switch (d) {
    case POS: return ut::uniform(n, seed, 0.4, 2.0);
    case AWAY: return ut::away_from_zero(n, seed, 0.15, 1.5);
    case LOG1P_DOM: return ut::uniform(n, seed, -0.5, 2.0);
    case EXP_ARG: return ut::uniform(n, seed, -1.5, 1.0);
    default: return ut::uniform(n, seed, -1.5, 1.5);
    }
}

typedef umap_tensor *(*UnaryFn)(umap_graph *, umap_tensor *);
struct UnaryOp {
    const char *name;
    umap_op op;
    UnaryFn fn;
    Domain dom;
};
const UnaryOp kUnary[] = {
    {"neg", UMAP_OP_NEG, umap_neg, ANY},          {"exp", UMAP_OP_EXP, umap_exp, EXP_ARG},
    {"log", UMAP_OP_LOG, umap_log, POS},          {"log1p", UMAP_OP_LOG1P, umap_log1p, LOG1P_DOM},
    {"sqrt", UMAP_OP_SQRT, umap_sqrt, POS},       {"reciprocal", UMAP_OP_RECIP, umap_recip, POS},
    {"abs", UMAP_OP_ABS, umap_abs, AWAY},         {"relu", UMAP_OP_RELU, umap_relu, AWAY},
    {"sigmoid", UMAP_OP_SIGMOID, umap_sigmoid, ANY}, {"tanh", UMAP_OP_TANH, umap_tanh, ANY},
    {"square", UMAP_OP_SQUARE, umap_square, ANY}, {"sign", UMAP_OP_SIGN, umap_sign, AWAY},
};

class UnaryGrad : public ::testing::TestWithParam<UnaryOp> {};

TEST_P(UnaryGrad, ContiguousShapes) {
    const UnaryOp &u = GetParam();
    const umap_shape shapes[] = {umap_shape0(), umap_shape1(7), umap_shape2(3, 4), umap_shape3(2, 3, 4),
                                 umap_shape4(2, 1, 3, 2)};
    uint64_t k = 0;
    for (umap_shape s : shapes) {
        GradCase c(++k);
        umap_tensor *x = c.param(s, gen(u.dom, umap_shape_numel(s), k));
        umap_tensor *y = u.fn(c.g, x);
        ASSERT_NE(y, nullptr) << c.g.detail();
        EXPECT_EQ(umap_tensor_op(y), u.op);
        EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(y), s));
        EXPECT_TRUE(c.check(y)) << u.name << " at " << ut::shape_str(s);
    }
    /* the generic builder too */
    GradCase c(99);
    umap_tensor *x = c.param(umap_shape2(2, 5), gen(u.dom, 10, 99));
    EXPECT_TRUE(c.check(umap_unary(c.g, u.op, x))) << u.name << " via umap_unary";
}

TEST_P(UnaryGrad, NonContiguousOperands) {
    const UnaryOp &u = GetParam();
    {
        GradCase c(11);
        const int perm[3] = {2, 0, 1};
        umap_tensor *x = c.param(umap_shape3(2, 3, 4), gen(u.dom, 24, 11));
        EXPECT_TRUE(c.check(u.fn(c.g, umap_permute(c.g, x, perm)))) << u.name << " of permute";
    }
    {
        GradCase c(12);
        umap_tensor *x = c.param(umap_shape2(3, 5), gen(u.dom, 15, 12));
        EXPECT_TRUE(c.check(u.fn(c.g, umap_transpose(c.g, x)))) << u.name << " of transpose";
    }
    {
        GradCase c(13);
        umap_tensor *x = c.param(umap_shape2(3, 6), gen(u.dom, 18, 13));
        EXPECT_TRUE(c.check(u.fn(c.g, umap_slice(c.g, x, 1, 2, 3)))) << u.name << " of slice";
    }
    {
        GradCase c(14);
        umap_tensor *x = c.param(umap_shape2(3, 1), gen(u.dom, 3, 14));
        EXPECT_TRUE(c.check(u.fn(c.g, umap_broadcast(c.g, x, umap_shape2(3, 4))))) << u.name << " of broadcast";
    }
    {
        /* a chain of the op (a fused region) */
        GradCase c(15);
        umap_tensor *x = c.param(umap_shape2(4, 3), gen(u.dom, 12, 15));
        umap_tensor *y = umap_add(c.g, umap_mul_scalar(c.g, u.fn(c.g, x), 0.5f), umap_tanh(c.g, x));
        EXPECT_TRUE(c.check(y)) << u.name << " in a chain";
    }
}

INSTANTIATE_TEST_SUITE_P(Ops, UnaryGrad, ::testing::ValuesIn(kUnary),
                         [](const ::testing::TestParamInfo<UnaryOp> &i) { return std::string(i.param.name); });

typedef umap_tensor *(*BinaryFn)(umap_graph *, umap_tensor *, umap_tensor *);
struct BinaryOp {
    const char *name;
    umap_op op;
    BinaryFn fn;
    int kind; /* 0 any/any, 1 any/away-from-zero, 2 pos/any (pow), 3 interleaved grids (max/min) */
};
const BinaryOp kBinary[] = {
    {"add", UMAP_OP_ADD, umap_add, 0}, {"sub", UMAP_OP_SUB, umap_sub, 0}, {"mul", UMAP_OP_MUL, umap_mul, 0},
    {"div", UMAP_OP_DIV, umap_div, 1}, {"pow", UMAP_OP_POW, umap_pow, 2}, {"max", UMAP_OP_MAX, umap_max, 3},
    {"min", UMAP_OP_MIN, umap_min, 3},
};

std::vector<float> gen_a(int kind, int64_t n, uint64_t seed) {
    if (kind == 2) return ut::uniform(n, seed, 0.5, 2.0);
    if (kind == 3) return ut::grid(n, seed, 0.2, -1.0, 11); /* -1.0 .. 1.0 step 0.2 */
    return ut::uniform(n, seed, -1.5, 1.5);
}
std::vector<float> gen_b(int kind, int64_t n, uint64_t seed) {
    if (kind == 1) return ut::away_from_zero(n, seed, 0.5, 2.0);
    if (kind == 3) return ut::grid(n, seed, 0.2, -0.9, 10); /* -0.9 .. 0.9: always 0.1 from a */
    return ut::uniform(n, seed, -1.5, 1.5);
}

class BinaryGrad : public ::testing::TestWithParam<BinaryOp> {};

TEST_P(BinaryGrad, BroadcastShapes) {
    const BinaryOp &b = GetParam();
    const umap_shape pairs[][2] = {
        {umap_shape2(3, 4), umap_shape2(3, 4)}, {umap_shape2(3, 4), umap_shape1(4)},
        {umap_shape1(4), umap_shape2(3, 4)},    {umap_shape3(2, 1, 3), umap_shape3(1, 4, 1)},
        {umap_shape0(), umap_shape2(3, 2)},     {umap_shape2(3, 2), umap_shape0()},
        {umap_shape2(4, 1), umap_shape1(3)},    {umap_shape4(2, 3, 1, 2), umap_shape3(3, 4, 1)},
        {umap_shape1(5), umap_shape1(5)},       {umap_shape0(), umap_shape0()},
    };
    uint64_t k = 0;
    for (auto &p : pairs) {
        GradCase c(++k);
        umap_tensor *a = c.param(p[0], gen_a(b.kind, umap_shape_numel(p[0]), 2 * k));
        umap_tensor *bb = c.param(p[1], gen_b(b.kind, umap_shape_numel(p[1]), 2 * k + 1));
        umap_tensor *y = b.fn(c.g, a, bb);
        ASSERT_NE(y, nullptr) << b.name << " " << ut::shape_str(p[0]) << " " << ut::shape_str(p[1]) << ": "
                              << c.g.detail();
        EXPECT_EQ(umap_tensor_op(y), b.op);
        EXPECT_TRUE(c.check(y)) << b.name << " " << ut::shape_str(p[0]) << " op " << ut::shape_str(p[1]);
    }
    GradCase c(77);
    umap_tensor *a = c.param(umap_shape2(2, 3), gen_a(b.kind, 6, 1));
    umap_tensor *bb = c.param(umap_shape1(3), gen_b(b.kind, 3, 2));
    EXPECT_TRUE(c.check(umap_binary(c.g, b.op, a, bb))) << b.name << " via umap_binary";
}

TEST_P(BinaryGrad, NonContiguousOperands) {
    const BinaryOp &b = GetParam();
    {
        GradCase c(21);
        umap_tensor *a = c.param(umap_shape2(4, 3), gen_a(b.kind, 12, 1));
        umap_tensor *bb = c.param(umap_shape1(4), gen_b(b.kind, 4, 2));
        EXPECT_TRUE(c.check(b.fn(c.g, umap_transpose(c.g, a), bb))) << b.name << ": transpose [4,3] op [4]";
    }
    {
        GradCase c(22);
        const int perm[3] = {1, 2, 0};
        umap_tensor *a = c.param(umap_shape3(4, 2, 3), gen_a(b.kind, 24, 3));
        umap_tensor *bb = c.param(umap_shape2(3, 1), gen_b(b.kind, 3, 4));
        EXPECT_TRUE(c.check(b.fn(c.g, umap_permute(c.g, a, perm), bb))) << b.name << ": permute op [3,1]";
    }
    {
        GradCase c(23);
        umap_tensor *a = c.param(umap_shape2(3, 6), gen_a(b.kind, 18, 5));
        umap_tensor *bb = c.param(umap_shape2(5, 4), gen_b(b.kind, 20, 6));
        EXPECT_TRUE(c.check(b.fn(c.g, umap_slice(c.g, a, 1, 1, 4), umap_slice(c.g, bb, 0, 2, 3))))
            << b.name << ": slice op slice";
    }
    {
        /* both operands views of the same param */
        GradCase c(24);
        umap_tensor *a = c.param(umap_shape2(4, 4), b.kind == 3 ? ut::distinct(16, 7, 0.1, -0.8) : gen_a(b.kind == 1 ? 2 : b.kind, 16, 7));
        EXPECT_TRUE(c.check(b.fn(c.g, a, umap_transpose(c.g, a)))) << b.name << ": a op transpose(a)";
    }
}

INSTANTIATE_TEST_SUITE_P(Ops, BinaryGrad, ::testing::ValuesIn(kBinary),
                         [](const ::testing::TestParamInfo<BinaryOp> &i) { return std::string(i.param.name); });

} // namespace

TEST(Grad, SameOperandTwice) {
    GradCase c;
    umap_tensor *x = c.rand_param(umap_shape2(3, 4));
    EXPECT_TRUE(c.check(umap_mul(c.g, x, x)));
    GradCase d;
    umap_tensor *y = d.rand_param(umap_shape1(5));
    EXPECT_TRUE(d.check(umap_add(d.g, umap_mul(d.g, y, umap_exp(d.g, y)), umap_sub(d.g, y, umap_square(d.g, y)))));
}

TEST(Grad, ScalarHelpers) {
    GradCase c;
    umap_tensor *x = c.rand_param(umap_shape2(3, 4));
    EXPECT_TRUE(c.check(umap_add_scalar(c.g, umap_mul_scalar(c.g, x, -2.5f), 0.75f)));
    GradCase d;
    umap_tensor *y = d.rand_param(umap_shape1(4));
    EXPECT_TRUE(d.check(umap_mul(d.g, y, umap_full(d.g, umap_shape2(3, 4), 1.5f))));
    GradCase e;
    umap_tensor *z = e.rand_param(umap_shape2(2, 2));
    EXPECT_TRUE(e.check(umap_div(e.g, umap_scalar(e.g, 2.0f), umap_add_scalar(e.g, umap_square(e.g, z), 1.0f))));
}

TEST(Grad, Select) {
    {
        GradCase c(1);
        const float cond[3] = {1, 0, 1};
        umap_tensor *cn = umap_constant(c.g, umap_shape2(3, 1), cond);
        umap_tensor *a = c.rand_param(umap_shape2(3, 4));
        umap_tensor *b = c.rand_param(umap_shape1(4));
        EXPECT_TRUE(c.check(umap_select(c.g, cn, a, b))) << "cond [3,1], a [3,4], b [4]";
    }
    {
        GradCase c(2);
        umap_tensor *cn = c.input(umap_shape2(3, 4), ut::grid(12, 5, 1.0, 0.0, 2));
        umap_tensor *a = c.rand_param(umap_shape0());
        umap_tensor *b = c.rand_param(umap_shape2(3, 4));
        EXPECT_TRUE(c.check(umap_select(c.g, cn, a, b))) << "cond input [3,4], a scalar, b [3,4]";
    }
    {
        /* cond from a comparison of the operands themselves: relu-like */
        GradCase c(3);
        umap_tensor *a = c.param(umap_shape2(4, 3), ut::away_from_zero(12, 9, 0.2, 1.5));
        umap_tensor *zero = umap_scalar(c.g, 0.0f);
        EXPECT_TRUE(c.check(umap_select(c.g, umap_gt(c.g, a, zero), a, umap_mul_scalar(c.g, a, 0.1f))))
            << "leaky relu by select(gt(a, 0), a, 0.1a)";
    }
    {
        GradCase c(4);
        const int perm[2] = {1, 0};
        umap_tensor *cn = c.input(umap_shape2(4, 3), ut::grid(12, 6, 1.0, 0.0, 2));
        umap_tensor *a = c.rand_param(umap_shape2(3, 4));
        umap_tensor *b = c.rand_param(umap_shape2(3, 4));
        EXPECT_TRUE(c.check(umap_select(c.g, umap_permute(c.g, cn, perm), umap_transpose(c.g, umap_transpose(c.g, a)), b)));
    }
}

TEST(Grad, ComparisonsPassNoGradient) {
    /* x * (x > 0.3) + (x <= y) ... : comparisons are piecewise constant */
    const umap_op cmp[] = {UMAP_OP_LT, UMAP_OP_LE, UMAP_OP_GT, UMAP_OP_GE, UMAP_OP_EQ, UMAP_OP_NE};
    for (umap_op op : cmp) {
        GradCase c(op);
        umap_tensor *x = c.param(umap_shape2(3, 4), ut::grid(12, 3, 0.2, -1.0, 11));
        umap_tensor *y = c.param(umap_shape1(4), ut::grid(4, 4, 0.2, -0.9, 10));
        umap_tensor *m = umap_binary(c.g, op, x, y);
        EXPECT_TRUE(c.check(umap_mul(c.g, m, umap_add(c.g, x, y)))) << umap_op_name(op);
    }
}

TEST(Grad, Clamp) {
    /* values at least 0.1 away from lo = -0.5 and hi = 0.5 */
    const float pool[] = {-1.2f, -0.9f, -0.7f, -0.3f, -0.1f, 0.05f, 0.25f, 0.38f, 0.62f, 0.8f, 1.3f};
    std::vector<float> v(24);
    for (size_t i = 0; i < v.size(); i++) v[i] = pool[(size_t)(ut::unit(5, i) * 11) % 11];
    {
        GradCase c(1);
        umap_tensor *x = c.param(umap_shape2(4, 6), v);
        EXPECT_TRUE(c.check(umap_clamp(c.g, x, -0.5f, 0.5f)));
    }
    {
        GradCase c(2);
        const int perm[3] = {2, 1, 0};
        umap_tensor *x = c.param(umap_shape3(2, 3, 4), v);
        EXPECT_TRUE(c.check(umap_clamp(c.g, umap_permute(c.g, x, perm), -0.5f, 0.5f)));
    }
}

/* ---- reductions ------------------------------------------------------------ */

typedef umap_tensor *(*ReduceFn)(umap_graph *, umap_tensor *, unsigned, int);

static void reduce_cases(ReduceFn fn, const char *name, bool distinct_values) {
    const unsigned masks3[] = {1, 2, 4, 3, 5, 6, 7, UMAP_AXES_ALL};
    uint64_t k = 0;
    for (unsigned m : masks3)
        for (int keep = 0; keep < 2; keep++) {
            GradCase c(++k);
            std::vector<float> d = distinct_values ? ut::distinct(24, k, 0.1, -1.2) : ut::uniform(24, k, -1.5, 1.5);
            umap_tensor *x = c.param(umap_shape3(2, 3, 4), d);
            umap_tensor *y = fn(c.g, x, m, keep);
            ASSERT_NE(y, nullptr) << name << " mask " << m << " keep " << keep << ": " << c.g.detail();
            umap_shape s = umap_tensor_shape(y);
            if (keep) {
                const int64_t dims[3] = {2, 3, 4};
                EXPECT_EQ(s.rank, 3);
                for (int a = 0; a < 3; a++) EXPECT_EQ(s.dim[a], (m >> a) & 1 ? 1 : dims[a]);
            } else {
                int r = 0;
                for (int a = 0; a < 3; a++) r += !((m >> a) & 1);
                EXPECT_EQ(s.rank, r) << name << " mask " << m;
            }
            EXPECT_TRUE(c.check(y)) << name << " [2,3,4] mask " << m << " keepdims " << keep;
        }
    const unsigned masks4[] = {8, 9, 0xA, 0xE};
    for (unsigned m : masks4) {
        GradCase c(++k);
        std::vector<float> d = distinct_values ? ut::distinct(24, k, 0.1, -1.2) : ut::uniform(24, k, -1.5, 1.5);
        umap_tensor *x = c.param(umap_shape4(2, 3, 2, 2), d);
        EXPECT_TRUE(c.check(fn(c.g, x, m, 0))) << name << " [2,3,2,2] mask " << m;
    }
    {
        GradCase c(++k);
        std::vector<float> d = distinct_values ? ut::distinct(24, k, 0.1, -1.2) : ut::uniform(24, k, -1.5, 1.5);
        const int perm[3] = {2, 0, 1};
        umap_tensor *x = c.param(umap_shape3(2, 3, 4), d);
        EXPECT_TRUE(c.check(fn(c.g, umap_permute(c.g, x, perm), 2, 1))) << name << " of permute, mask 2";
    }
    {
        GradCase c(++k);
        std::vector<float> d = distinct_values ? ut::distinct(7, k, 0.1, -0.3) : ut::uniform(7, k, -1.5, 1.5);
        umap_tensor *x = c.param(umap_shape1(7), d);
        EXPECT_TRUE(c.check(fn(c.g, x, 1, 0))) << name << " rank 1";
    }
    {
        GradCase c(++k);
        std::vector<float> d = distinct_values ? ut::distinct(40, k, 0.05, -1.0) : ut::uniform(40, k, -1.5, 1.5);
        umap_tensor *x = c.param(umap_shape2(8, 5), d);
        /* reduce then broadcast back: softmax-like normalisation */
        umap_tensor *r = fn(c.g, x, 2, 1);
        EXPECT_TRUE(c.check(umap_sub(c.g, x, r))) << name << " x - reduce(x, keepdims)";
    }
}

TEST(Grad, Sum) { reduce_cases(umap_sum, "sum", false); }
TEST(Grad, Mean) { reduce_cases(umap_mean, "mean", false); }
TEST(Grad, ReduceMax) { reduce_cases(umap_reduce_max, "reduce_max", true); }

TEST(Grad, LogSumExp) {
    GradCase c;
    umap_tensor *x = c.param(umap_shape2(5, 6), ut::distinct(30, 3, 0.1, -1.5));
    umap_tensor *m = umap_reduce_max(c.g, x, 2, 1);
    umap_tensor *lse = umap_add(c.g, umap_log(c.g, umap_sum(c.g, umap_exp(c.g, umap_sub(c.g, x, m)), 2, 1)), m);
    EXPECT_TRUE(c.check(umap_sub(c.g, x, lse)));
}

/* ---- shape ops ------------------------------------------------------------- */

TEST(Grad, Reshape) {
    const umap_shape targets[] = {umap_shape2(6, 4), umap_shape1(24), umap_shape3(4, 3, 2), umap_shape4(1, 2, 12, 1)};
    uint64_t k = 0;
    for (umap_shape s : targets) {
        GradCase c(++k);
        umap_tensor *x = c.rand_param(umap_shape3(2, 3, 4));
        EXPECT_TRUE(c.check(umap_reshape(c.g, x, s))) << "reshape to " << ut::shape_str(s);
    }
    {
        GradCase c(++k);
        const int perm[3] = {2, 0, 1};
        umap_tensor *x = c.rand_param(umap_shape3(2, 3, 4));
        EXPECT_TRUE(c.check(umap_reshape(c.g, umap_permute(c.g, x, perm), umap_shape2(8, 3)))) << "reshape of permute";
    }
    {
        GradCase c(++k);
        umap_tensor *x = c.rand_param(umap_shape1(1));
        EXPECT_TRUE(c.check(umap_reshape(c.g, x, umap_shape0()))) << "[1] to scalar";
    }
    {
        GradCase c(++k);
        umap_tensor *x = c.rand_param(umap_shape2(6, 4));
        EXPECT_TRUE(c.check(umap_reshape(c.g, umap_reshape(c.g, umap_tanh(c.g, x), umap_shape1(24)), umap_shape2(3, 8))))
            << "reshape chain";
    }
}

TEST(Grad, Permute) {
    const int perms3[][3] = {{0, 1, 2}, {2, 0, 1}, {1, 2, 0}, {0, 2, 1}, {2, 1, 0}};
    uint64_t k = 0;
    for (auto &p : perms3) {
        GradCase c(++k);
        umap_tensor *x = c.rand_param(umap_shape3(2, 3, 4));
        umap_tensor *y = umap_permute(c.g, x, p);
        ASSERT_NE(y, nullptr);
        umap_shape s = umap_tensor_shape(y);
        const int64_t dims[3] = {2, 3, 4};
        for (int i = 0; i < 3; i++) EXPECT_EQ(s.dim[i], dims[p[i]]);
        EXPECT_TRUE(c.check(y)) << "perm " << p[0] << p[1] << p[2];
    }
    {
        GradCase c(++k);
        const int p[4] = {3, 1, 0, 2};
        umap_tensor *x = c.rand_param(umap_shape4(2, 3, 2, 5));
        EXPECT_TRUE(c.check(umap_permute(c.g, x, p))) << "4-d";
    }
    {
        GradCase c(++k);
        const int p1[3] = {2, 0, 1}, p2[3] = {1, 0, 2};
        umap_tensor *x = c.rand_param(umap_shape3(2, 3, 4));
        EXPECT_TRUE(c.check(umap_permute(c.g, umap_permute(c.g, x, p1), p2))) << "permute of permute";
    }
}

TEST(Grad, Transpose) {
    {
        GradCase c(1);
        umap_tensor *x = c.rand_param(umap_shape2(3, 5));
        umap_tensor *y = umap_transpose(c.g, x);
        ASSERT_NE(y, nullptr);
        EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(y), umap_shape2(5, 3)));
        EXPECT_TRUE(c.check(y));
    }
    {
        GradCase c(2);
        umap_tensor *x = c.rand_param(umap_shape3(2, 3, 4));
        umap_tensor *y = umap_transpose(c.g, x);
        ASSERT_NE(y, nullptr);
        EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(y), umap_shape3(2, 4, 3)));
        EXPECT_TRUE(c.check(y));
    }
}

TEST(Grad, Broadcast) {
    const umap_shape pairs[][2] = {{umap_shape2(3, 1), umap_shape2(3, 4)},
                                   {umap_shape1(4), umap_shape3(2, 3, 4)},
                                   {umap_shape0(), umap_shape2(2, 2)},
                                   {umap_shape3(1, 3, 1), umap_shape3(2, 3, 4)},
                                   {umap_shape2(2, 3), umap_shape2(2, 3)},
                                   {umap_shape2(1, 3), umap_shape4(2, 2, 4, 3)}};
    uint64_t k = 0;
    for (auto &p : pairs) {
        GradCase c(++k);
        umap_tensor *x = c.rand_param(p[0]);
        umap_tensor *y = umap_broadcast(c.g, x, p[1]);
        ASSERT_NE(y, nullptr) << c.g.detail();
        EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(y), p[1]));
        EXPECT_TRUE(c.check(y)) << ut::shape_str(p[0]) << " -> " << ut::shape_str(p[1]);
    }
}

TEST(Grad, Slice) {
    struct S {
        int axis;
        int64_t start, len;
    };
    const S cases[] = {{0, 1, 2}, {1, 2, 3}, {2, 0, 6}, {2, 5, 1}, {0, 0, 4}, {1, 0, 1}};
    uint64_t k = 0;
    for (const S &s : cases) {
        GradCase c(++k);
        umap_tensor *x = c.rand_param(umap_shape3(4, 5, 6));
        umap_tensor *y = umap_slice(c.g, x, s.axis, s.start, s.len);
        ASSERT_NE(y, nullptr) << c.g.detail();
        EXPECT_EQ(umap_tensor_shape(y).dim[s.axis], s.len);
        EXPECT_TRUE(c.check(y)) << "axis " << s.axis << " start " << s.start << " len " << s.len;
    }
    {
        GradCase c(++k);
        umap_tensor *x = c.rand_param(umap_shape2(6, 5));
        /* two overlapping slices of one tensor: gradients add */
        umap_tensor *a = umap_slice(c.g, x, 0, 0, 4), *b = umap_slice(c.g, x, 0, 2, 4);
        EXPECT_TRUE(c.check(umap_mul(c.g, a, b))) << "overlapping slices";
    }
    {
        GradCase c(++k);
        umap_tensor *x = c.rand_param(umap_shape2(5, 6));
        EXPECT_TRUE(c.check(umap_slice(c.g, umap_transpose(c.g, x), 0, 1, 3))) << "slice of transpose";
    }
}

TEST(Grad, Concat) {
    {
        GradCase c(1);
        umap_tensor *xs[2] = {c.rand_param(umap_shape2(2, 3)), c.rand_param(umap_shape2(4, 3))};
        umap_tensor *y = umap_concat(c.g, 2, xs, 0);
        ASSERT_NE(y, nullptr) << c.g.detail();
        EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(y), umap_shape2(6, 3)));
        EXPECT_TRUE(c.check(y));
    }
    {
        GradCase c(2);
        umap_tensor *xs[3] = {c.rand_param(umap_shape2(2, 3)), c.rand_param(umap_shape2(2, 1)),
                              c.rand_param(umap_shape2(2, 2))};
        umap_tensor *y = umap_concat(c.g, 3, xs, 1);
        ASSERT_NE(y, nullptr) << c.g.detail();
        EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(y), umap_shape2(2, 6)));
        EXPECT_TRUE(c.check(y));
    }
    {
        GradCase c(3);
        const int perm[3] = {1, 0, 2};
        umap_tensor *a = c.rand_param(umap_shape3(3, 2, 4));
        umap_tensor *xs[2] = {umap_permute(c.g, a, perm), c.rand_param(umap_shape3(2, 3, 2))};
        EXPECT_TRUE(c.check(umap_concat(c.g, 2, xs, 2))) << "permuted operand, axis 2";
    }
    {
        GradCase c(4);
        umap_tensor *a = c.rand_param(umap_shape2(2, 3));
        umap_tensor *xs[3] = {a, umap_exp(c.g, a), a};
        EXPECT_TRUE(c.check(umap_concat(c.g, 3, xs, 0))) << "the same operand twice";
    }
    {
        GradCase c(5);
        umap_tensor *xs[1] = {c.rand_param(umap_shape1(5))};
        EXPECT_TRUE(c.check(umap_concat(c.g, 1, xs, 0))) << "one operand";
    }
}

/* ---- matmul ---------------------------------------------------------------- */

TEST(Grad, Matmul2D) {
    {
        GradCase c(1);
        umap_tensor *a = c.rand_param(umap_shape2(3, 4)), *b = c.rand_param(umap_shape2(4, 5));
        umap_tensor *y = umap_matmul(c.g, a, b);
        ASSERT_NE(y, nullptr);
        EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(y), umap_shape2(3, 5)));
        EXPECT_TRUE(c.check(y));
    }
    {
        GradCase c(2);
        umap_tensor *a = c.rand_param(umap_shape2(1, 7)), *b = c.rand_param(umap_shape2(7, 1));
        EXPECT_TRUE(c.check(umap_matmul(c.g, a, b))) << "[1,7]@[7,1]";
    }
    {
        GradCase c(3);
        umap_tensor *a = c.rand_param(umap_shape2(33, 17)), *b = c.rand_param(umap_shape2(17, 9));
        EXPECT_TRUE(c.check(umap_matmul(c.g, a, b))) << "odd sizes";
    }
}

TEST(Grad, MatmulTransposeFlags) {
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            GradCase c(10 + 2 * ta + tb);
            umap_tensor *a = c.rand_param(ta ? umap_shape2(4, 3) : umap_shape2(3, 4));
            umap_tensor *b = c.rand_param(tb ? umap_shape2(5, 4) : umap_shape2(4, 5));
            umap_tensor *y = umap_matmul_ex(c.g, a, b, ta, tb);
            ASSERT_NE(y, nullptr) << c.g.detail();
            EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(y), umap_shape2(3, 5)));
            EXPECT_TRUE(c.check(y)) << "trans_a " << ta << " trans_b " << tb;
        }
}

TEST(Grad, MatmulNonContiguousOperands) {
    {
        GradCase c(1);
        umap_tensor *a = c.rand_param(umap_shape2(4, 3)), *b = c.rand_param(umap_shape2(5, 4));
        EXPECT_TRUE(c.check(umap_matmul(c.g, umap_transpose(c.g, a), umap_transpose(c.g, b)))) << "transposed views";
    }
    {
        GradCase c(2);
        umap_tensor *a = c.rand_param(umap_shape2(3, 8)), *b = c.rand_param(umap_shape2(6, 5));
        EXPECT_TRUE(c.check(umap_matmul(c.g, umap_slice(c.g, a, 1, 2, 4), umap_slice(c.g, b, 0, 1, 4)))) << "slices";
    }
    {
        GradCase c(3);
        const int perm[3] = {1, 0, 2};
        umap_tensor *a = c.rand_param(umap_shape3(3, 2, 4)), *b = c.rand_param(umap_shape2(4, 5));
        EXPECT_TRUE(c.check(umap_matmul(c.g, umap_permute(c.g, a, perm), b))) << "permuted batch";
    }
    {
        GradCase c(4);
        umap_tensor *a = c.rand_param(umap_shape2(4, 4));
        EXPECT_TRUE(c.check(umap_matmul(c.g, a, a))) << "a @ a";
        GradCase d(5);
        umap_tensor *x = d.rand_param(umap_shape2(3, 4));
        EXPECT_TRUE(d.check(umap_matmul_ex(d.g, x, x, 0, 1))) << "x @ x^T";
    }
}

TEST(Grad, MatmulBatched) {
    {
        GradCase c(1);
        umap_tensor *a = c.rand_param(umap_shape3(2, 3, 4)), *b = c.rand_param(umap_shape2(4, 5));
        umap_tensor *y = umap_matmul(c.g, a, b);
        ASSERT_NE(y, nullptr) << c.g.detail();
        EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(y), umap_shape3(2, 3, 5)));
        EXPECT_TRUE(c.check(y)) << "[B,M,K]@[K,N]";
    }
    {
        GradCase c(2);
        umap_tensor *a = c.rand_param(umap_shape3(3, 3, 4)), *b = c.rand_param(umap_shape3(3, 4, 2));
        umap_tensor *y = umap_matmul(c.g, a, b);
        ASSERT_NE(y, nullptr) << c.g.detail();
        EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(y), umap_shape3(3, 3, 2)));
        EXPECT_TRUE(c.check(y)) << "[B,M,K]@[B,K,N]";
    }
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            GradCase c(10 + 2 * ta + tb);
            umap_tensor *a = c.rand_param(ta ? umap_shape3(2, 4, 3) : umap_shape3(2, 3, 4));
            umap_tensor *b = c.rand_param(tb ? umap_shape3(2, 5, 4) : umap_shape3(2, 4, 5));
            EXPECT_TRUE(c.check(umap_matmul_ex(c.g, a, b, ta, tb))) << "batched trans_a " << ta << " trans_b " << tb;
            GradCase d(20 + 2 * ta + tb);
            umap_tensor *a2 = d.rand_param(ta ? umap_shape3(2, 4, 3) : umap_shape3(2, 3, 4));
            umap_tensor *b2 = d.rand_param(tb ? umap_shape2(5, 4) : umap_shape2(4, 5));
            EXPECT_TRUE(d.check(umap_matmul_ex(d.g, a2, b2, ta, tb))) << "[B,M,K]@[K,N] trans_a " << ta << " trans_b " << tb;
        }
}

/* ---- gather / scatter_add ---------------------------------------------------- */

TEST(Grad, Gather) {
    {
        GradCase c(1);
        const int32_t idx[4] = {5, 0, 2, 5};
        umap_tensor *x = c.rand_param(umap_shape2(6, 3));
        umap_tensor *i = umap_constant_i32(c.g, umap_shape1(4), idx);
        umap_tensor *y = umap_gather(c.g, x, i);
        ASSERT_NE(y, nullptr) << c.g.detail();
        EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(y), umap_shape2(4, 3)));
        EXPECT_TRUE(c.check(y)) << "constant index with repeats";
    }
    {
        GradCase c(2);
        const int32_t idx[6] = {1, 1, 3, 0, 2, 1};
        umap_tensor *x = c.rand_param(umap_shape2(4, 3));
        umap_tensor *y = umap_gather(c.g, x, umap_constant_i32(c.g, umap_shape2(2, 3), idx));
        ASSERT_NE(y, nullptr) << c.g.detail();
        EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(y), umap_shape3(2, 3, 3)));
        EXPECT_TRUE(c.check(y)) << "rank-2 index";
    }
    {
        GradCase c(3);
        umap_tensor *x = c.rand_param(umap_shape1(5));
        umap_tensor *i = c.input_i32(umap_shape1(4), {4, 4, 0, 3});
        umap_tensor *y = umap_gather(c.g, x, i);
        ASSERT_NE(y, nullptr) << c.g.detail();
        EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(y), umap_shape1(4)));
        EXPECT_TRUE(c.check(y)) << "rank-1 x, index input";
    }
    {
        GradCase c(4);
        umap_tensor *x = c.rand_param(umap_shape3(6, 2, 2));
        umap_tensor *i = c.input_i32(umap_shape1(3), {2, 5, 2});
        EXPECT_TRUE(c.check(umap_gather(c.g, x, i))) << "rank-3 x";
    }
    {
        /* UMAP-like: distance between gathered rows of an embedding */
        GradCase c(5);
        umap_tensor *emb = c.rand_param(umap_shape2(7, 2));
        umap_tensor *hd = c.input_i32(umap_shape1(5), {0, 1, 2, 6, 3});
        umap_tensor *tl = c.input_i32(umap_shape1(5), {1, 2, 6, 4, 0});
        umap_tensor *d = umap_sub(c.g, umap_gather(c.g, emb, hd), umap_gather(c.g, emb, tl));
        umap_tensor *d2 = umap_sum(c.g, umap_square(c.g, d), 2, 0);
        EXPECT_TRUE(c.check(umap_log1p(c.g, d2))) << "log1p of squared distance";
    }
}

TEST(Grad, ScatterAdd) {
    {
        GradCase c(1);
        const int32_t idx[4] = {1, 3, 1, 0};
        umap_tensor *src = c.rand_param(umap_shape2(4, 3));
        umap_tensor *y = umap_scatter_add(c.g, src, umap_constant_i32(c.g, umap_shape1(4), idx), 5);
        ASSERT_NE(y, nullptr) << c.g.detail();
        EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(y), umap_shape2(5, 3)));
        EXPECT_TRUE(c.check(y)) << "constant index";
    }
    {
        GradCase c(2);
        umap_tensor *src = c.rand_param(umap_shape3(2, 2, 3));
        umap_tensor *i = c.input_i32(umap_shape2(2, 2), {2, 0, 2, 2});
        umap_tensor *y = umap_scatter_add(c.g, src, i, 3);
        ASSERT_NE(y, nullptr) << c.g.detail();
        EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(y), umap_shape2(3, 3)));
        EXPECT_TRUE(c.check(y)) << "rank-2 index input";
    }
    {
        GradCase c(3);
        umap_tensor *src = c.rand_param(umap_shape1(4));
        umap_tensor *i = c.input_i32(umap_shape1(4), {5, 5, 0, 2});
        umap_tensor *y = umap_scatter_add(c.g, src, i, 6);
        ASSERT_NE(y, nullptr) << c.g.detail();
        EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(y), umap_shape1(6)));
        EXPECT_TRUE(c.check(y)) << "rank-1";
    }
    {
        GradCase c(4);
        umap_tensor *x = c.rand_param(umap_shape2(5, 2));
        umap_tensor *i = c.input_i32(umap_shape1(6), {0, 4, 4, 2, 1, 0});
        EXPECT_TRUE(c.check(umap_scatter_add(c.g, umap_tanh(c.g, umap_gather(c.g, x, i)), i, 5))) << "scatter of gather";
    }
}

/* ---- composites ---------------------------------------------------------------- */

TEST(Grad, MlpLoss) {
    GradCase c(3);
    umap_tensor *x = c.input(umap_shape2(6, 4), ut::uniform(24, 1, -1, 1));
    umap_tensor *w1 = c.param(umap_shape2(4, 8), ut::uniform(32, 2, -0.7, 0.7));
    umap_tensor *b1 = c.param(umap_shape1(8), ut::uniform(8, 3, -0.2, 0.2));
    umap_tensor *w2 = c.param(umap_shape2(8, 2), ut::uniform(16, 4, -0.7, 0.7));
    umap_tensor *h = umap_tanh(c.g, umap_add(c.g, umap_matmul(c.g, x, w1), b1));
    umap_tensor *y = umap_matmul(c.g, h, w2);
    umap_tensor *loss = umap_mean(c.g, umap_square(c.g, y), UMAP_AXES_ALL, 0);
    EXPECT_TRUE(c.check(loss));
}

TEST(Grad, TolerancesAreUsed) {
    /* loose tolerances accept, absurdly tight ones on a curved function fail with UMAP_ERR_GRADCHECK */
    GradCase c(4);
    umap_tensor *x = c.param(umap_shape1(4), ut::uniform(4, 3, 0.5, 1.5));
    umap_tensor *loss = umap_sum(c.g, umap_exp(c.g, umap_mul_scalar(c.g, x, 3.0f)), UMAP_AXES_ALL, 0);
    umap_gradcheck_desc d;
    std::memset(&d, 0, sizeof d);
    d.eps = 0.2f;
    d.atol = 1e-9f;
    d.rtol = 1e-9f;
    umap_gradcheck_report r;
    EXPECT_EQ(umap_gradcheck(c.g, loss, 1, c.leaves.data(), c.values.data(), 1, c.wrt.data(), &d, &r), UMAP_ERR_GRADCHECK);
    EXPECT_GT(r.max_abs_err, 0.0);
    d.max_checks = 2;
    d.eps = 0;
    d.atol = 1e-2f;
    d.rtol = 1e-2f;
    EXPECT_EQ(umap_gradcheck(c.g, loss, 1, c.leaves.data(), c.values.data(), 1, c.wrt.data(), &d, &r), UMAP_OK);
    EXPECT_EQ(r.checked, 2);
    /* NULL desc = defaults, NULL report allowed */
    EXPECT_EQ(umap_gradcheck(c.g, loss, 1, c.leaves.data(), c.values.data(), 1, c.wrt.data(), nullptr, nullptr), UMAP_OK);
    umap_gradcheck_desc def = umap_gradcheck_desc_default();
    EXPECT_EQ(def.eps, 1e-2f);
    EXPECT_EQ(def.atol, 1e-3f);
    EXPECT_EQ(def.rtol, 1e-2f);
    EXPECT_EQ(umap_gradcheck(c.g, loss, 1, c.leaves.data(), c.values.data(), 1, c.wrt.data(), &def, &r), UMAP_OK);
    /* zero tolerances are honoured (no longer "default"): a curved function's
       differences are not exact, so a zero-initialised desc fails */
    std::memset(&d, 0, sizeof d);
    EXPECT_EQ(umap_gradcheck(c.g, loss, 1, c.leaves.data(), c.values.data(), 1, c.wrt.data(), &d, &r), UMAP_ERR_GRADCHECK);
    d = def;
    d.atol = -1e-3f;
    EXPECT_EQ(umap_gradcheck(c.g, loss, 1, c.leaves.data(), c.values.data(), 1, c.wrt.data(), &d, &r),
              UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(umap_graph_error_detail(c.g)).find("tolerances must be >= 0"), std::string::npos)
        << umap_graph_error_detail(c.g);
}
