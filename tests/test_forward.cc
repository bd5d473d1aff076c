/* >>cpu: forward values of every op against plain double-precision
   references, including broadcasting, odd sizes and views. */
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

/* index into `in` (broadcast against `out`, aligned right) of out element flat */
int64_t bidx(umap_shape out, int64_t flat, umap_shape in) {
    int64_t idx[UMAP_MAX_RANK] = {0, 0, 0, 0};
    for (int d = out.rank - 1; d >= 0; d--) {
        idx[d] = flat % out.dim[d];
        flat /= out.dim[d];
    }
    int64_t r = 0;
    int off = out.rank - in.rank;
    for (int d = 0; d < in.rank; d++) r = r * in.dim[d] + (in.dim[d] == 1 ? 0 : idx[d + off]);
    return r;
}
umap_shape bshape(umap_shape a, umap_shape b) {
    umap_shape o;
    std::memset(&o, 0, sizeof o);
    o.rank = std::max(a.rank, b.rank);
    for (int i = 0; i < o.rank; i++) {
        int ia = i - (o.rank - a.rank), ib = i - (o.rank - b.rank);
        int64_t da = ia >= 0 ? a.dim[ia] : 1, db = ib >= 0 ? b.dim[ib] : 1;
        o.dim[i] = std::max(da, db);
    }
    return o;
}

struct Eval {
    ut::Graph g;
    ut::Program p;
    std::vector<std::pair<std::string, const void *>> binds;
    std::vector<int64_t> numels;
    umap_tensor *in(const char *name, umap_shape s, const std::vector<float> &d) {
        binds.push_back({name, d.data()});
        numels.push_back(umap_shape_numel(s));
        return umap_input(g, name, s);
    }
    umap_tensor *in_i32(const char *name, umap_shape s, const std::vector<int32_t> &d) {
        binds.push_back({name, d.data()});
        numels.push_back(umap_shape_numel(s));
        return umap_input_i32(g, name, s);
    }
    std::vector<std::vector<float>> run(std::vector<umap_tensor *> outs, int n_threads = 2) {
        for (umap_tensor *t : outs)
            if (!t) {
                ADD_FAILURE() << "builder failed: " << g.detail();
                return {};
            }
        umap_compile_desc cd = ut::cdesc(n_threads);
        umap_result r = umap_compile(g, (int)outs.size(), outs.data(), &cd, &p.p);
        EXPECT_EQ(r, UMAP_OK) << g.detail();
        if (r != UMAP_OK) return {};
        for (size_t i = 0; i < binds.size(); i++)
            EXPECT_EQ(umap_program_bind(p, binds[i].first.c_str(), binds[i].second, numels[i]), UMAP_OK) << binds[i].first;
        r = umap_program_run(p);
        EXPECT_EQ(r, UMAP_OK) << p.detail();
        if (r != UMAP_OK) return {};
        std::vector<std::vector<float>> res;
        for (size_t i = 0; i < outs.size(); i++) {
            umap_shape s;
            res.push_back(ut::output(p, (int)i, &s));
            EXPECT_TRUE(ut::shape_eq(s, umap_tensor_shape(outs[i])))
                << "output " << i << ": " << ut::shape_str(s) << " vs " << ut::shape_str(umap_tensor_shape(outs[i]));
        }
        return res;
    }
};

struct UnaryRef {
    umap_op op;
    double (*f)(double);
    double lo, hi;
};
double r_neg(double x) { return -x; }
double r_exp(double x) { return std::exp(x); }
double r_log(double x) { return std::log(x); }
double r_log1p(double x) { return std::log1p(x); }
double r_sqrt(double x) { return std::sqrt(x); }
double r_recip(double x) { return 1 / x; }
double r_abs(double x) { return std::fabs(x); }
double r_relu(double x) { return x > 0 ? x : 0; }
double r_sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
double r_tanh(double x) { return std::tanh(x); }
double r_square(double x) { return x * x; }
double r_sign(double x) { return x > 0 ? 1 : x < 0 ? -1 : 0; }

} // namespace

TEST(Forward, UnaryOps) {
    const UnaryRef ops[] = {
        {UMAP_OP_NEG, r_neg, -3, 3},          {UMAP_OP_EXP, r_exp, -20, 20},       {UMAP_OP_LOG, r_log, 1e-3, 100},
        {UMAP_OP_LOG1P, r_log1p, -0.9, 10},   {UMAP_OP_SQRT, r_sqrt, 0, 50},       {UMAP_OP_RECIP, r_recip, 0.1, 10},
        {UMAP_OP_ABS, r_abs, -3, 3},          {UMAP_OP_RELU, r_relu, -3, 3},       {UMAP_OP_SIGMOID, r_sigmoid, -30, 30},
        {UMAP_OP_TANH, r_tanh, -10, 10},      {UMAP_OP_SQUARE, r_square, -3, 3},   {UMAP_OP_SIGN, r_sign, -3, 3},
    };
    for (const UnaryRef &u : ops) {
        for (umap_shape s : {umap_shape1(37), umap_shape2(3, 50), umap_shape0()}) {
            Eval e;
            int64_t n = umap_shape_numel(s);
            std::vector<float> x = ut::uniform(n, (uint64_t)u.op, u.lo, u.hi);
            if (n > 3 && (u.op == UMAP_OP_SIGN || u.op == UMAP_OP_RELU || u.op == UMAP_OP_ABS)) x[2] = 0.0f;
            umap_tensor *t = e.in("x", s, x);
            auto r = e.run({umap_unary(e.g, u.op, t)});
            ASSERT_EQ(r.size(), 1u) << umap_op_name(u.op);
            std::vector<double> ref((size_t)n);
            for (int64_t i = 0; i < n; i++) ref[(size_t)i] = u.f(x[(size_t)i]);
            EXPECT_TRUE(ut::all_close(r[0], ref, 1e-6, 2e-6)) << umap_op_name(u.op) << " " << ut::shape_str(s);
        }
    }
}

TEST(Forward, SigmoidAndExpExtremes) {
    Eval e;
    std::vector<float> x = {-100, -50, -20, 0, 20, 50, 100, 88};
    umap_tensor *t = e.in("x", umap_shape1(8), x);
    auto r = e.run({umap_sigmoid(e.g, t), umap_tanh(e.g, t), umap_log1p(e.g, umap_exp(e.g, umap_mul_scalar(e.g, t, -1)))});
    ASSERT_EQ(r.size(), 3u);
    for (size_t i = 0; i < 8; i++) {
        EXPECT_TRUE(std::isfinite(r[0][i])) << x[i];
        EXPECT_NEAR(r[0][i], 1 / (1 + std::exp(-(double)x[i])), 1e-6) << x[i];
        EXPECT_NEAR(r[1][i], std::tanh((double)x[i]), 1e-6) << x[i];
    }
}

TEST(Forward, BinaryOpsBroadcast) {
    struct B {
        umap_op op;
        std::function<double(double, double)> f;
    };
    const B ops[] = {
        {UMAP_OP_ADD, [](double a, double b) { return a + b; }},
        {UMAP_OP_SUB, [](double a, double b) { return a - b; }},
        {UMAP_OP_MUL, [](double a, double b) { return a * b; }},
        {UMAP_OP_DIV, [](double a, double b) { return a / b; }},
        {UMAP_OP_POW, [](double a, double b) { return std::pow(a, b); }},
        {UMAP_OP_MAX, [](double a, double b) { return std::max(a, b); }},
        {UMAP_OP_MIN, [](double a, double b) { return std::min(a, b); }},
        {UMAP_OP_LT, [](double a, double b) { return (double)(a < b); }},
        {UMAP_OP_LE, [](double a, double b) { return (double)(a <= b); }},
        {UMAP_OP_GT, [](double a, double b) { return (double)(a > b); }},
        {UMAP_OP_GE, [](double a, double b) { return (double)(a >= b); }},
        {UMAP_OP_EQ, [](double a, double b) { return (double)(a == b); }},
        {UMAP_OP_NE, [](double a, double b) { return (double)(a != b); }},
    };
    const umap_shape pairs[][2] = {{umap_shape2(3, 4), umap_shape2(3, 4)}, {umap_shape2(3, 4), umap_shape1(4)},
                                   {umap_shape3(2, 1, 3), umap_shape3(1, 4, 1)}, {umap_shape0(), umap_shape2(3, 2)},
                                   {umap_shape2(5, 1), umap_shape0()}, {umap_shape1(33), umap_shape1(33)},
                                   {umap_shape4(2, 3, 1, 5), umap_shape2(4, 1)}};
    for (const B &b : ops)
        for (auto &p : pairs) {
            Eval e;
            int64_t na = umap_shape_numel(p[0]), nb = umap_shape_numel(p[1]);
            /* values on a small grid so comparisons see ties; positive for pow and div */
            std::vector<float> a = ut::grid(na, 1, 0.5, 0.5, 5), bb = ut::grid(nb, 2, 0.5, 0.5, 5);
            umap_tensor *ta = e.in("a", p[0], a), *tb = e.in("b", p[1], bb);
            auto r = e.run({umap_binary(e.g, b.op, ta, tb)});
            ASSERT_EQ(r.size(), 1u) << umap_op_name(b.op);
            umap_shape o = bshape(p[0], p[1]);
            std::vector<double> ref((size_t)umap_shape_numel(o));
            for (int64_t i = 0; i < (int64_t)ref.size(); i++)
                ref[(size_t)i] = b.f(a[(size_t)bidx(o, i, p[0])], bb[(size_t)bidx(o, i, p[1])]);
            EXPECT_TRUE(ut::all_close(r[0], ref, 1e-6, 2e-6))
                << umap_op_name(b.op) << " " << ut::shape_str(p[0]) << " " << ut::shape_str(p[1]);
        }
}

TEST(Forward, SelectAndClamp) {
    Eval e;
    std::vector<float> c = {1, 0, 2, 0}, a = ut::uniform(12, 1, -2, 2), b = ut::uniform(3, 2, -2, 2);
    umap_tensor *tc = e.in("c", umap_shape2(4, 1), c), *ta = e.in("a", umap_shape2(4, 3), a), *tb = e.in("b", umap_shape1(3), b);
    auto r = e.run({umap_select(e.g, tc, ta, tb), umap_clamp(e.g, ta, -0.5f, 1.0f)});
    ASSERT_EQ(r.size(), 2u);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++) {
            EXPECT_EQ(r[0][(size_t)(i * 3 + j)], c[(size_t)i] != 0 ? a[(size_t)(i * 3 + j)] : b[(size_t)j]);
            EXPECT_EQ(r[1][(size_t)(i * 3 + j)], std::min(1.0f, std::max(-0.5f, a[(size_t)(i * 3 + j)])));
        }
}

TEST(Forward, Reductions) {
    const int64_t D[3] = {3, 4, 5};
    std::vector<float> x = ut::uniform(60, 3, -2, 2);
    for (unsigned m = 1; m <= 7; m++)
        for (int keep = 0; keep < 2; keep++) {
            Eval e;
            umap_tensor *t = e.in("x", umap_shape3(3, 4, 5), x);
            auto r = e.run({umap_sum(e.g, t, m, keep), umap_mean(e.g, t, m, keep), umap_reduce_max(e.g, t, m, keep)});
            ASSERT_EQ(r.size(), 3u) << "mask " << m;
            /* output index: the kept axes in order */
            int64_t od[3];
            for (int a = 0; a < 3; a++) od[a] = (m >> a) & 1 ? 1 : D[a];
            int64_t on = od[0] * od[1] * od[2];
            std::vector<double> s((size_t)on, 0.0), mx((size_t)on, -1e300);
            int64_t cnt = 60 / on;
            for (int64_t i = 0; i < 3; i++)
                for (int64_t j = 0; j < 4; j++)
                    for (int64_t k = 0; k < 5; k++) {
                        int64_t oi = ((m & 1) ? 0 : i) * od[1] * od[2] + ((m & 2) ? 0 : j) * od[2] + ((m & 4) ? 0 : k);
                        double v = x[(size_t)(i * 20 + j * 5 + k)];
                        s[(size_t)oi] += v;
                        mx[(size_t)oi] = std::max(mx[(size_t)oi], v);
                    }
            std::vector<double> mean(s);
            for (double &v : mean) v /= (double)cnt;
            EXPECT_TRUE(ut::all_close(r[0], s, 1e-5, 1e-5)) << "sum mask " << m << " keep " << keep;
            EXPECT_TRUE(ut::all_close(r[1], mean, 1e-5, 1e-5)) << "mean mask " << m << " keep " << keep;
            EXPECT_TRUE(ut::all_close(r[2], mx, 0, 0)) << "reduce_max mask " << m << " keep " << keep;
        }
}

/* a reduced block between kept axes, with more outputs than one task takes
   (256): tasks start inside a block's row and rows wider than a task; each
   output is its column summed in order in double, so the bits are exact */
TEST(Forward, MiddleAxisReductionsSplitAcrossTasks) {
    const int64_t shapes[2][3] = {{700, 3, 7}, {3, 60, 300}};
    for (const auto &D : shapes) {
        const int64_t n = D[0] * D[1] * D[2], on = D[0] * D[2];
        std::vector<float> x = ut::uniform(n, 11, -2, 2);
        Eval e;
        umap_tensor *t = e.in("x", umap_shape3(D[0], D[1], D[2]), x);
        auto r = e.run({umap_sum(e.g, t, 1u << 1, 0), umap_mean(e.g, t, 1u << 1, 0), umap_reduce_max(e.g, t, 1u << 1, 0)}, 2);
        ASSERT_EQ(r.size(), 3u);
        std::vector<float> s((size_t)on), mean((size_t)on), mx((size_t)on);
        for (int64_t i = 0; i < D[0]; i++)
            for (int64_t k = 0; k < D[2]; k++) {
                double acc = 0.0;
                float m = -INFINITY;
                for (int64_t j = 0; j < D[1]; j++) {
                    float v = x[(size_t)((i * D[1] + j) * D[2] + k)];
                    acc += v;
                    m = std::max(m, v);
                }
                s[(size_t)(i * D[2] + k)] = (float)acc;
                mean[(size_t)(i * D[2] + k)] = (float)(acc / (double)D[1]);
                mx[(size_t)(i * D[2] + k)] = m;
            }
        EXPECT_TRUE(ut::bitwise_equal(r[0], s)) << D[0] << "x" << D[1] << "x" << D[2];
        EXPECT_TRUE(ut::bitwise_equal(r[1], mean));
        EXPECT_TRUE(ut::bitwise_equal(r[2], mx));
    }
}

TEST(Forward, LargeSumIsAccurate) {
    const int64_t n = 1 << 20;
    std::vector<float> x = ut::uniform(n, 5, 0.0, 0.2);
    double ref = 0;
    for (float v : x) ref += v;
    Eval e;
    umap_tensor *t = e.in("x", umap_shape2(1024, 1024), x);
    auto r = e.run({umap_sum(e.g, t, UMAP_AXES_ALL, 0), umap_mean(e.g, t, UMAP_AXES_ALL, 0)}, 2);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_NEAR(r[0][0], ref, 1e-4 * ref);
    EXPECT_NEAR(r[1][0], ref / n, 1e-4 * ref / n);
}

TEST(Forward, ShapeOps) {
    std::vector<float> x(24);
    for (int i = 0; i < 24; i++) x[(size_t)i] = (float)i;
    Eval e;
    umap_tensor *t = e.in("x", umap_shape3(2, 3, 4), x);
    const int perm[3] = {2, 0, 1};
    umap_tensor *pm = umap_permute(e.g, t, perm);                              /* [4,2,3] */
    umap_tensor *tr = umap_transpose(e.g, t);                                  /* [2,4,3] */
    umap_tensor *sl = umap_slice(e.g, t, 2, 1, 2);                             /* [2,3,2] */
    umap_tensor *rs = umap_reshape(e.g, pm, umap_shape2(8, 3));                /* copy of a view */
    umap_tensor *bc = umap_broadcast(e.g, umap_slice(e.g, t, 0, 1, 1), umap_shape3(3, 3, 4));
    umap_tensor *cs[2] = {sl, umap_slice(e.g, t, 2, 0, 1)};
    umap_tensor *cc = umap_concat(e.g, 2, cs, 2);                              /* [2,3,3] */
    auto r = e.run({pm, tr, sl, rs, bc, cc});
    ASSERT_EQ(r.size(), 6u);
    auto X = [&](int i, int j, int k) { return x[(size_t)(i * 12 + j * 4 + k)]; };
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 2; b++)
            for (int c = 0; c < 3; c++) {
                EXPECT_EQ(r[0][(size_t)(a * 6 + b * 3 + c)], X(b, c, a));
                EXPECT_EQ(r[3][(size_t)(a * 6 + b * 3 + c)], X(b, c, a));
            }
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 4; k++)
            for (int j = 0; j < 3; j++) EXPECT_EQ(r[1][(size_t)(i * 12 + k * 3 + j)], X(i, j, k));
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 2; k++) EXPECT_EQ(r[2][(size_t)(i * 6 + j * 2 + k)], X(i, j, k + 1));
    for (int b = 0; b < 3; b++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 4; k++) EXPECT_EQ(r[4][(size_t)(b * 12 + j * 4 + k)], X(1, j, k));
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            EXPECT_EQ(r[5][(size_t)(i * 9 + j * 3 + 0)], X(i, j, 1));
            EXPECT_EQ(r[5][(size_t)(i * 9 + j * 3 + 1)], X(i, j, 2));
            EXPECT_EQ(r[5][(size_t)(i * 9 + j * 3 + 2)], X(i, j, 0));
        }
}

TEST(Forward, GatherAndScatterAdd) {
    Eval e;
    std::vector<float> x = {0, 1, 10, 11, 20, 21, 30, 31};
    std::vector<int32_t> idx = {3, 0, 3, 2, 1, 1};
    umap_tensor *tx = e.in("x", umap_shape2(4, 2), x);
    umap_tensor *ti = e.in_i32("i", umap_shape2(2, 3), idx);
    umap_tensor *ga = umap_gather(e.g, tx, ti); /* [2,3,2] */
    std::vector<float> src = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    umap_tensor *ts = e.in("s", umap_shape3(2, 3, 2), src);
    umap_tensor *sc = umap_scatter_add(e.g, ts, ti, 5); /* [5,2] */
    auto r = e.run({ga, sc});
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0], (std::vector<float>{30, 31, 0, 1, 30, 31, 20, 21, 10, 11, 10, 11}));
    /* rows: 3 <- (1,2)+(5,6); 0 <- (3,4); 2 <- (7,8); 1 <- (9,10)+(11,12); 4 <- 0 */
    EXPECT_EQ(r[1], (std::vector<float>{3, 4, 20, 22, 7, 8, 6, 8, 0, 0}));
}

TEST(Forward, ScatterAddManyDuplicatesDeterministic) {
    /* many rows into few: the result must not depend on the thread count */
    const int n = 20000;
    std::vector<float> src = ut::uniform(n * 4, 8, -1, 1);
    std::vector<int32_t> idx(n);
    for (int i = 0; i < n; i++) idx[(size_t)i] = (int32_t)(ut::mix((uint64_t)i) % 7);
    std::vector<std::vector<float>> res;
    for (int nt : {1, 2, 4}) {
        Eval e;
        umap_tensor *ts = e.in("s", umap_shape2(n, 4), src);
        umap_tensor *ti = e.in_i32("i", umap_shape1(n), idx);
        auto r = e.run({umap_scatter_add(e.g, ts, ti, 7)}, nt);
        ASSERT_EQ(r.size(), 1u);
        res.push_back(r[0]);
    }
    std::vector<double> ref(28, 0.0);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 4; k++) ref[(size_t)(idx[(size_t)i] * 4 + k)] += src[(size_t)(i * 4 + k)];
    EXPECT_TRUE(ut::all_close(res[0], ref, 1e-3, 1e-4));
    EXPECT_TRUE(ut::bitwise_equal(res[1], res[0]));
    EXPECT_TRUE(ut::bitwise_equal(res[2], res[0]));
}
