/* >>autodiff: reverse mode details, forward mode (jvp) and Hessian-vector
   products against finite differences, and the error cases. */
#include <string>
#include <vector>

#include "test_util.h"

namespace {

/* y = tanh(x @ w1 + b1) @ w2, s = sum(y * y) */
struct Mlp {
    ut::Graph g;
    umap_tensor *x, *w1, *b1, *w2, *y, *s;
    std::vector<float> xd, w1d, b1d, w2d;
    Mlp() {
        x = umap_input(g, "x", umap_shape2(6, 3));
        w1 = umap_param(g, "w1", umap_shape2(3, 5));
        b1 = umap_param(g, "b1", umap_shape1(5));
        w2 = umap_param(g, "w2", umap_shape2(5, 2));
        umap_tensor *h = umap_tanh(g, umap_add(g, umap_matmul(g, x, w1), b1));
        y = umap_matmul(g, h, w2);
        s = umap_sum(g, umap_square(g, y), UMAP_AXES_ALL, 0);
        xd = ut::uniform(18, 1, -1, 1);
        w1d = ut::uniform(15, 2, -1, 1);
        b1d = ut::uniform(5, 3, -0.5, 0.5);
        w2d = ut::uniform(10, 4, -1, 1);
    }
    umap_tensor *wrt(int i) const { return i == 0 ? w1 : i == 1 ? b1 : w2; }
    const std::vector<float> &wdata(int i) const { return i == 0 ? w1d : i == 1 ? b1d : w2d; }
    static const char *wname(int i) { return i == 0 ? "w1" : i == 1 ? "b1" : "w2"; }
};

/* 4-point central difference of outputs of p along dir, moving the three
   weight buffers bound to p */
std::vector<std::vector<double>> fd_along(umap_program *p, int n_out, std::vector<float> *bufs,
                                          const std::vector<float> *base, const std::vector<float> *dir, int n_buf,
                                          double h) {
    const double ks[4] = {-2, -1, 1, 2}, cs[4] = {1, -8, 8, -1};
    std::vector<std::vector<double>> acc((size_t)n_out);
    for (int k = 0; k < 4; k++) {
        for (int b = 0; b < n_buf; b++)
            for (size_t i = 0; i < bufs[b].size(); i++)
                bufs[b][i] = (float)((double)base[b][i] + ks[k] * h * (double)dir[b][i]);
        EXPECT_EQ(umap_program_run(p), UMAP_OK);
        for (int o = 0; o < n_out; o++) {
            std::vector<float> v = ut::output(p, o);
            if (acc[(size_t)o].empty()) acc[(size_t)o].assign(v.size(), 0.0);
            for (size_t i = 0; i < v.size(); i++) acc[(size_t)o][i] += cs[k] * (double)v[i] / (12 * h);
        }
    }
    for (int b = 0; b < n_buf; b++) bufs[b] = base[b];
    return acc;
}

} // namespace

TEST(Jvp, MatchesFiniteDifferencesOfForward) {
    Mlp m;
    umap_tensor *tans[3];
    std::vector<float> td[3];
    for (int i = 0; i < 3; i++) {
        std::string n = std::string("t_") + Mlp::wname(i);
        tans[i] = umap_input(m.g, n.c_str(), umap_tensor_shape(m.wrt(i)));
        td[i] = ut::uniform(umap_shape_numel(umap_tensor_shape(m.wrt(i))), 10 + i, -1, 1);
    }
    umap_tensor *outs[2] = {m.y, m.s}, *wrt[3] = {m.w1, m.b1, m.w2}, *jt[2] = {nullptr, nullptr};
    ASSERT_EQ(umap_jvp(m.g, 2, outs, 3, wrt, tans, jt), UMAP_OK) << m.g.detail();
    ASSERT_NE(jt[0], nullptr);
    ASSERT_NE(jt[1], nullptr);
    EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(jt[0]), umap_tensor_shape(m.y)));
    EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(jt[1]), umap_tensor_shape(m.s)));

    ut::Program pj;
    umap_tensor *jouts[2] = {jt[0], jt[1]};
    umap_compile_desc cd = ut::cdesc(1);
    ASSERT_EQ(umap_compile(m.g, 2, jouts, &cd, &pj.p), UMAP_OK) << m.g.detail();
    ASSERT_EQ(umap_program_bind(pj, "x", m.xd.data(), 18), UMAP_OK);
    for (int i = 0; i < 3; i++) {
        ASSERT_EQ(umap_program_bind(pj, Mlp::wname(i), m.wdata(i).data(), (int64_t)m.wdata(i).size()), UMAP_OK);
        std::string n = std::string("t_") + Mlp::wname(i);
        ASSERT_EQ(umap_program_bind(pj, n.c_str(), td[i].data(), (int64_t)td[i].size()), UMAP_OK);
    }
    ASSERT_EQ(umap_program_run(pj), UMAP_OK) << pj.detail();
    std::vector<float> jy = ut::output(pj, 0), js = ut::output(pj, 1);

    ut::Program pf;
    ASSERT_EQ(umap_compile(m.g, 2, outs, &cd, &pf.p), UMAP_OK);
    std::vector<float> bufs[3] = {m.w1d, m.b1d, m.w2d}, base[3] = {m.w1d, m.b1d, m.w2d};
    ASSERT_EQ(umap_program_bind(pf, "x", m.xd.data(), 18), UMAP_OK);
    for (int i = 0; i < 3; i++)
        ASSERT_EQ(umap_program_bind(pf, Mlp::wname(i), bufs[i].data(), (int64_t)bufs[i].size()), UMAP_OK);
    auto fd = fd_along(pf, 2, bufs, base, td, 3, 1e-2);
    EXPECT_TRUE(ut::all_close(jy, fd[0], 2e-3, 1e-2)) << "tangent of y";
    EXPECT_TRUE(ut::all_close(js, fd[1], 2e-3, 1e-2)) << "tangent of s";
}

TEST(Jvp, WrtAnInputAndLinearExactness) {
    /* y = x @ w is linear in x: the tangent is t @ w */
    ut::Graph g;
    umap_tensor *x = umap_input(g, "x", umap_shape2(3, 4));
    umap_tensor *w = umap_param(g, "w", umap_shape2(4, 2));
    umap_tensor *t = umap_input(g, "t", umap_shape2(3, 4));
    umap_tensor *y = umap_matmul(g, x, w);
    umap_tensor *unrelated = umap_exp(g, w);
    umap_tensor *outs[2] = {y, unrelated}, *jt[2];
    ASSERT_EQ(umap_jvp(g, 2, outs, 1, &x, &t, jt), UMAP_OK) << g.detail();
    std::vector<float> xd = ut::uniform(12, 1, -1, 1), wd = ut::uniform(8, 2, -1, 1), tdd = ut::uniform(12, 3, -1, 1);
    ut::Program p;
    umap_compile_desc cd = ut::cdesc(1);
    ASSERT_EQ(umap_compile(g, 2, jt, &cd, &p.p), UMAP_OK) << g.detail();
    ASSERT_EQ(umap_program_bind(p, "x", xd.data(), 12), UMAP_OK);
    ASSERT_EQ(umap_program_bind(p, "w", wd.data(), 8), UMAP_OK);
    ASSERT_EQ(umap_program_bind(p, "t", tdd.data(), 12), UMAP_OK);
    ASSERT_EQ(umap_program_run(p), UMAP_OK) << p.detail();
    std::vector<double> ref(6, 0.0);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 4; k++) ref[(size_t)(i * 2 + j)] += (double)tdd[(size_t)(i * 4 + k)] * wd[(size_t)(k * 2 + j)];
    EXPECT_TRUE(ut::all_close(ut::output(p, 0), ref, 1e-5, 1e-5));
    umap_shape s;
    std::vector<float> zero = ut::output(p, 1, &s);
    EXPECT_TRUE(ut::shape_eq(s, umap_shape2(4, 2))) << ut::shape_str(s);
    for (float v : zero) EXPECT_EQ(v, 0.0f) << "an output that does not depend on wrt has a zero tangent";
}

TEST(Hvp, MatchesFiniteDifferencesOfGradient) {
    Mlp m;
    umap_tensor *target = umap_input(m.g, "target", umap_shape2(6, 2));
    umap_tensor *loss = umap_mean(m.g, umap_square(m.g, umap_sub(m.g, m.y, target)), UMAP_AXES_ALL, 0);
    std::vector<float> tgt = ut::uniform(12, 20, -1, 1);
    umap_tensor *wrt[3] = {m.w1, m.b1, m.w2}, *v[3], *hv[3], *gr[3];
    std::vector<float> vd[3];
    for (int i = 0; i < 3; i++) {
        std::string n = std::string("v_") + Mlp::wname(i);
        v[i] = umap_input(m.g, n.c_str(), umap_tensor_shape(m.wrt(i)));
        vd[i] = ut::uniform(umap_shape_numel(umap_tensor_shape(m.wrt(i))), 30 + i, -1, 1);
    }
    ASSERT_EQ(umap_hvp(m.g, loss, 3, wrt, v, hv), UMAP_OK) << m.g.detail();
    ASSERT_EQ(umap_grad(m.g, loss, 3, wrt, gr), UMAP_OK) << m.g.detail();
    for (int i = 0; i < 3; i++) EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(hv[i]), umap_tensor_shape(m.wrt(i))));

    umap_compile_desc cd = ut::cdesc(1);
    ut::Program ph;
    ASSERT_EQ(umap_compile(m.g, 3, hv, &cd, &ph.p), UMAP_OK) << m.g.detail();
    ASSERT_EQ(umap_program_bind(ph, "x", m.xd.data(), 18), UMAP_OK);
    ASSERT_EQ(umap_program_bind(ph, "target", tgt.data(), 12), UMAP_OK);
    for (int i = 0; i < 3; i++) {
        ASSERT_EQ(umap_program_bind(ph, Mlp::wname(i), m.wdata(i).data(), (int64_t)m.wdata(i).size()), UMAP_OK);
        std::string n = std::string("v_") + Mlp::wname(i);
        ASSERT_EQ(umap_program_bind(ph, n.c_str(), vd[i].data(), (int64_t)vd[i].size()), UMAP_OK);
    }
    ASSERT_EQ(umap_program_run(ph), UMAP_OK) << ph.detail();

    ut::Program pg;
    ASSERT_EQ(umap_compile(m.g, 3, gr, &cd, &pg.p), UMAP_OK);
    std::vector<float> bufs[3] = {m.w1d, m.b1d, m.w2d}, base[3] = {m.w1d, m.b1d, m.w2d};
    ASSERT_EQ(umap_program_bind(pg, "x", m.xd.data(), 18), UMAP_OK);
    ASSERT_EQ(umap_program_bind(pg, "target", tgt.data(), 12), UMAP_OK);
    for (int i = 0; i < 3; i++)
        ASSERT_EQ(umap_program_bind(pg, Mlp::wname(i), bufs[i].data(), (int64_t)bufs[i].size()), UMAP_OK);
    auto fd = fd_along(pg, 3, bufs, base, vd, 3, 1e-2);
    for (int i = 0; i < 3; i++)
        EXPECT_TRUE(ut::all_close(ut::output(ph, i), fd[(size_t)i], 2e-3, 2e-2)) << "hv for " << Mlp::wname(i);
}

TEST(Hvp, QuadraticFormIsExact) {
    /* loss = 0.5 x^T A x with A symmetric: H = A, so hv = A v for every x */
    ut::Graph g;
    const float A[16] = {2, 1, 0, -1, 1, 3, 1, 0, 0, 1, 4, 2, -1, 0, 2, 5};
    umap_tensor *x = umap_param(g, "x", umap_shape2(4, 1));
    umap_tensor *a = umap_constant(g, umap_shape2(4, 4), A);
    umap_tensor *loss = umap_mul_scalar(g, umap_sum(g, umap_mul(g, x, umap_matmul(g, a, x)), UMAP_AXES_ALL, 0), 0.5f);
    umap_tensor *v = umap_input(g, "v", umap_shape2(4, 1));
    umap_tensor *hv = nullptr;
    ASSERT_EQ(umap_hvp(g, loss, 1, &x, &v, &hv), UMAP_OK) << g.detail();
    ut::Program p;
    umap_compile_desc cd = ut::cdesc(1);
    ASSERT_EQ(umap_compile(g, 1, &hv, &cd, &p.p), UMAP_OK) << g.detail();
    const float vd[4] = {1, -2, 0.5f, 3};
    ASSERT_EQ(umap_program_bind(p, "v", vd, 4), UMAP_OK);
    for (int trial = 0; trial < 2; trial++) {
        std::vector<float> xd = ut::uniform(4, 40 + trial, -2, 2);
        ASSERT_EQ(umap_program_bind(p, "x", xd.data(), 4), UMAP_OK);
        ASSERT_EQ(umap_program_run(p), UMAP_OK) << p.detail();
        std::vector<double> ref(4, 0.0);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) ref[(size_t)i] += (double)A[i * 4 + j] * vd[j];
        EXPECT_TRUE(ut::all_close(ut::output(p, 0), ref, 1e-5, 1e-6)) << "trial " << trial;
    }
}

TEST(Hvp, DiagonalHessian) {
    /* loss = sum(c * x^2) + sum(x): H = diag(2c) */
    ut::Graph g;
    std::vector<float> c = ut::uniform(12, 5, -2, 2), xd = ut::uniform(12, 6, -1, 1), vd = ut::uniform(12, 7, -1, 1);
    umap_tensor *x = umap_param(g, "x", umap_shape2(3, 4));
    umap_tensor *ct = umap_constant(g, umap_shape2(3, 4), c.data());
    umap_tensor *loss = umap_add(g, umap_sum(g, umap_mul(g, ct, umap_square(g, x)), UMAP_AXES_ALL, 0),
                                 umap_sum(g, x, UMAP_AXES_ALL, 0));
    umap_tensor *v = umap_input(g, "v", umap_shape2(3, 4)), *hv = nullptr;
    ASSERT_EQ(umap_hvp(g, loss, 1, &x, &v, &hv), UMAP_OK) << g.detail();
    ut::Program p;
    umap_compile_desc cd = ut::cdesc(1);
    ASSERT_EQ(umap_compile(g, 1, &hv, &cd, &p.p), UMAP_OK);
    ASSERT_EQ(umap_program_bind(p, "x", xd.data(), 12), UMAP_OK);
    ASSERT_EQ(umap_program_bind(p, "v", vd.data(), 12), UMAP_OK);
    ASSERT_EQ(umap_program_run(p), UMAP_OK);
    std::vector<double> ref(12);
    for (int i = 0; i < 12; i++) ref[(size_t)i] = 2.0 * c[(size_t)i] * vd[(size_t)i];
    EXPECT_TRUE(ut::all_close(ut::output(p, 0), ref, 1e-6, 1e-5));
}

TEST(Grad, AccumulatesOverUses) {
    /* loss = sum(x * x + x + exp(0) * x): d/dx = 2x + 2 */
    ut::Graph g;
    umap_tensor *x = umap_param(g, "x", umap_shape1(5));
    umap_tensor *loss = umap_sum(g, umap_add(g, umap_add(g, umap_mul(g, x, x), x), x), UMAP_AXES_ALL, 0);
    umap_tensor *gx = nullptr;
    ASSERT_EQ(umap_grad(g, loss, 1, &x, &gx), UMAP_OK) << g.detail();
    ut::Program p;
    umap_compile_desc cd = ut::cdesc(1);
    ASSERT_EQ(umap_compile(g, 1, &gx, &cd, &p.p), UMAP_OK);
    const float xd[5] = {-2, -0.5f, 0, 1, 3.25f};
    ASSERT_EQ(umap_program_bind(p, "x", xd, 5), UMAP_OK);
    ASSERT_EQ(umap_program_run(p), UMAP_OK);
    std::vector<float> gv = ut::output(p, 0);
    ASSERT_EQ(gv.size(), 5u);
    for (int i = 0; i < 5; i++) EXPECT_FLOAT_EQ(gv[(size_t)i], 2 * xd[i] + 2);
}

TEST(Grad, UnrelatedWrtGetsZero) {
    ut::Graph g;
    umap_tensor *x = umap_param(g, "x", umap_shape1(4));
    umap_tensor *z = umap_param(g, "z", umap_shape2(3, 2));
    umap_tensor *loss = umap_sum(g, umap_square(g, x), UMAP_AXES_ALL, 0);
    umap_tensor *wrt[2] = {x, z}, *gr[2] = {nullptr, nullptr};
    ASSERT_EQ(umap_grad(g, loss, 2, wrt, gr), UMAP_OK) << g.detail();
    ASSERT_NE(gr[1], nullptr);
    EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(gr[1]), umap_shape2(3, 2))) << ut::shape_str(umap_tensor_shape(gr[1]));
    ut::Program p;
    umap_compile_desc cd = ut::cdesc(1);
    ASSERT_EQ(umap_compile(g, 2, gr, &cd, &p.p), UMAP_OK) << g.detail();
    const float xd[4] = {1, 2, 3, 4};
    ASSERT_EQ(umap_program_bind(p, "x", xd, 4), UMAP_OK);
    /* z is not needed by anything: running without binding it is fine */
    ASSERT_EQ(umap_program_run(p), UMAP_OK) << p.detail();
    std::vector<float> g0 = ut::output(p, 0), g1 = ut::output(p, 1);
    ASSERT_EQ(g0.size(), 4u);
    for (int i = 0; i < 4; i++) EXPECT_EQ(g0[(size_t)i], 2 * xd[i]);
    ASSERT_EQ(g1.size(), 6u);
    for (float v : g1) EXPECT_EQ(v, 0.0f);
}

TEST(Grad, WrtAnIntermediateNode) {
    ut::Graph g;
    umap_tensor *x = umap_param(g, "x", umap_shape1(3));
    umap_tensor *h = umap_tanh(g, x);
    umap_tensor *loss = umap_sum(g, umap_square(g, h), UMAP_AXES_ALL, 0);
    umap_tensor *gh = nullptr;
    ASSERT_EQ(umap_grad(g, loss, 1, &h, &gh), UMAP_OK) << g.detail();
    ut::Program p;
    umap_compile_desc cd = ut::cdesc(1);
    umap_tensor *outs[2] = {h, gh};
    ASSERT_EQ(umap_compile(g, 2, outs, &cd, &p.p), UMAP_OK);
    const float xd[3] = {-1, 0.25f, 2};
    ASSERT_EQ(umap_program_bind(p, "x", xd, 3), UMAP_OK);
    ASSERT_EQ(umap_program_run(p), UMAP_OK);
    std::vector<float> hv = ut::output(p, 0), gv = ut::output(p, 1);
    for (int i = 0; i < 3; i++) EXPECT_FLOAT_EQ(gv[(size_t)i], 2 * hv[(size_t)i]);
}

TEST(Grad, OneElementLossOfAnyRank) {
    ut::Graph g;
    umap_tensor *x = umap_param(g, "x", umap_shape2(2, 3));
    umap_tensor *l1 = umap_sum(g, x, UMAP_AXES_ALL, 1); /* [1,1] */
    ASSERT_NE(l1, nullptr);
    EXPECT_EQ(umap_shape_numel(umap_tensor_shape(l1)), 1);
    umap_tensor *gx = nullptr;
    EXPECT_EQ(umap_grad(g, l1, 1, &x, &gx), UMAP_OK) << g.detail();
    EXPECT_NE(gx, nullptr);
}

TEST(Grad, NonScalarLossIsAnError) {
    ut::Graph g;
    umap_tensor *x = umap_param(g, "x", umap_shape2(4, 2));
    umap_tensor *y = umap_exp(g, x);
    umap_tensor *gx = nullptr;
    umap_result r = umap_grad(g, y, 1, &x, &gx);
    EXPECT_TRUE(r == UMAP_ERR_SHAPE || r == UMAP_ERR_INVALID_ARGUMENT) << umap_result_string(r);
    umap_graph_clear_error(g);
    umap_tensor *v = umap_input(g, "v", umap_shape2(4, 2)), *hv = nullptr;
    r = umap_hvp(g, y, 1, &x, &v, &hv);
    EXPECT_TRUE(r == UMAP_ERR_SHAPE || r == UMAP_ERR_INVALID_ARGUMENT) << umap_result_string(r);
}

TEST(Jvp, TangentShapeMismatchIsAnError) {
    ut::Graph g;
    umap_tensor *x = umap_param(g, "x", umap_shape2(4, 2));
    umap_tensor *y = umap_exp(g, x);
    umap_tensor *t = umap_input(g, "t", umap_shape2(2, 4)), *jt = nullptr;
    umap_result r = umap_jvp(g, 1, &y, 1, &x, &t, &jt);
    EXPECT_TRUE(r == UMAP_ERR_SHAPE || r == UMAP_ERR_INVALID_ARGUMENT) << umap_result_string(r);
}

TEST(Grad, NullArguments) {
    ut::Graph g;
    umap_tensor *x = umap_param(g, "x", umap_shape1(3));
    umap_tensor *loss = umap_sum(g, x, UMAP_AXES_ALL, 0), *gx = nullptr;
    EXPECT_EQ(umap_grad(nullptr, loss, 1, &x, &gx), UMAP_ERR_INVALID_ARGUMENT);
    umap_graph_clear_error(g);
    EXPECT_EQ(umap_grad(g, nullptr, 1, &x, &gx), UMAP_ERR_INVALID_ARGUMENT);
    umap_graph_clear_error(g);
    EXPECT_EQ(umap_grad(g, loss, 1, nullptr, &gx), UMAP_ERR_INVALID_ARGUMENT);
    umap_graph_clear_error(g);
    EXPECT_EQ(umap_grad(g, loss, 1, &x, nullptr), UMAP_ERR_INVALID_ARGUMENT);
    umap_graph_clear_error(g);
    umap_tensor *nul = nullptr;
    EXPECT_EQ(umap_grad(g, loss, 1, &nul, &gx), UMAP_ERR_INVALID_ARGUMENT);
    umap_graph_clear_error(g);
    EXPECT_EQ(umap_jvp(nullptr, 1, &loss, 1, &x, &x, &gx), UMAP_ERR_INVALID_ARGUMENT);
    umap_graph_clear_error(g);
    EXPECT_EQ(umap_hvp(nullptr, loss, 1, &x, &x, &gx), UMAP_ERR_INVALID_ARGUMENT);
    umap_graph_clear_error(g);
}

/* a custom op with a kernel but no gradient rule */
static const umap_custom_op kTwiceNoGrad = {"twice_nograd", ut::twice_shape, ut::twice_cpu, nullptr, nullptr};

TEST(Grad, CustomOpWithoutGradFnIsNotDifferentiable) {
    ut::Graph g;
    umap_tensor *x = umap_param(g, "x", umap_shape1(3));
    umap_tensor *y = umap_custom(g, &kTwiceNoGrad, 1, &x, nullptr, 0);
    ASSERT_NE(y, nullptr) << g.detail();
    umap_tensor *loss = umap_sum(g, y, UMAP_AXES_ALL, 0), *gx = nullptr;
    /* the forward compiles and runs */
    ut::Program p;
    umap_compile_desc cd = ut::cdesc(1);
    ASSERT_EQ(umap_compile(g, 1, &loss, &cd, &p.p), UMAP_OK) << g.detail();
    const float xd[3] = {1, 2, 3};
    ASSERT_EQ(umap_program_bind(p, "x", xd, 3), UMAP_OK);
    ASSERT_EQ(umap_program_run(p), UMAP_OK);
    EXPECT_EQ(ut::output(p, 0)[0], 12.0f);
    EXPECT_EQ(umap_grad(g, loss, 1, &x, &gx), UMAP_ERR_NOT_DIFFERENTIABLE);
    EXPECT_NE(std::string(umap_graph_error_detail(g)), "");
}
