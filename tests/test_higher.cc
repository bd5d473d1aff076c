/* Second derivatives (gradcheck of a gradient: the backward rules must
   themselves be differentiable) and forward-mode tangents, op by op. */
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

struct OpCase {
    const char *name;
    std::vector<umap_shape> shapes;
    std::function<std::vector<float>(int, int64_t)> gen; /* (param index, numel) */
    std::function<umap_tensor *(umap_graph *, const std::vector<umap_tensor *> &)> build;
    bool smooth; /* second derivative continuous (checked by second-order test) */
};

std::vector<float> anyv(int i, int64_t n) { return ut::uniform(n, 100 + i, -1.2, 1.2); }
std::vector<float> posv(int i, int64_t n) { return ut::uniform(n, 200 + i, 0.5, 2.0); }
std::vector<float> awayv(int i, int64_t n) { return ut::away_from_zero(n, 300 + i, 0.2, 1.2); }
std::vector<float> distv(int i, int64_t n) { return ut::distinct(n, 400 + i, 0.1, -0.05 * (double)n + 0.05 * i); }

typedef std::vector<umap_tensor *> T;
const std::vector<OpCase> &cases() {
    static const std::vector<OpCase> c = {
        {"neg", {umap_shape2(3, 4)}, anyv, [](umap_graph *g, const T &p) { return umap_neg(g, p[0]); }, true},
        {"exp", {umap_shape2(3, 4)}, anyv, [](umap_graph *g, const T &p) { return umap_exp(g, p[0]); }, true},
        {"log", {umap_shape2(3, 4)}, posv, [](umap_graph *g, const T &p) { return umap_log(g, p[0]); }, true},
        {"log1p", {umap_shape2(3, 4)}, posv, [](umap_graph *g, const T &p) { return umap_log1p(g, p[0]); }, true},
        {"sqrt", {umap_shape2(3, 4)}, posv, [](umap_graph *g, const T &p) { return umap_sqrt(g, p[0]); }, true},
        {"reciprocal", {umap_shape2(3, 4)}, posv, [](umap_graph *g, const T &p) { return umap_recip(g, p[0]); }, true},
        {"abs", {umap_shape2(3, 4)}, awayv, [](umap_graph *g, const T &p) { return umap_abs(g, p[0]); }, true},
        {"relu", {umap_shape2(3, 4)}, awayv, [](umap_graph *g, const T &p) { return umap_relu(g, p[0]); }, true},
        {"sigmoid", {umap_shape2(3, 4)}, anyv, [](umap_graph *g, const T &p) { return umap_sigmoid(g, p[0]); }, true},
        {"tanh", {umap_shape2(3, 4)}, anyv, [](umap_graph *g, const T &p) { return umap_tanh(g, p[0]); }, true},
        {"square", {umap_shape2(3, 4)}, anyv, [](umap_graph *g, const T &p) { return umap_square(g, p[0]); }, true},
        {"sign", {umap_shape2(3, 4)}, awayv, [](umap_graph *g, const T &p) { return umap_sign(g, p[0]); }, true},
        {"add", {umap_shape2(3, 4), umap_shape1(4)}, anyv, [](umap_graph *g, const T &p) { return umap_add(g, p[0], p[1]); }, true},
        {"sub", {umap_shape2(3, 1), umap_shape1(4)}, anyv, [](umap_graph *g, const T &p) { return umap_sub(g, p[0], p[1]); }, true},
        {"mul", {umap_shape2(3, 4), umap_shape1(4)}, anyv, [](umap_graph *g, const T &p) { return umap_mul(g, p[0], p[1]); }, true},
        {"div", {umap_shape2(3, 4), umap_shape1(4)}, posv, [](umap_graph *g, const T &p) { return umap_div(g, p[0], p[1]); }, true},
        {"pow", {umap_shape2(3, 4), umap_shape1(4)}, posv, [](umap_graph *g, const T &p) { return umap_pow(g, p[0], p[1]); }, true},
        {"max", {umap_shape2(3, 4), umap_shape2(3, 4)},
         [](int i, int64_t n) { return i == 0 ? ut::grid(n, 7, 0.2, -1.0, 11) : ut::grid(n, 8, 0.2, -0.9, 10); },
         [](umap_graph *g, const T &p) { return umap_max(g, p[0], p[1]); }, true},
        {"min", {umap_shape2(3, 4), umap_shape1(4)},
         [](int i, int64_t n) { return i == 0 ? ut::grid(n, 7, 0.2, -1.0, 11) : ut::grid(n, 8, 0.2, -0.9, 10); },
         [](umap_graph *g, const T &p) { return umap_min(g, p[0], p[1]); }, true},
        {"select", {umap_shape2(3, 4), umap_shape1(4)}, anyv,
         [](umap_graph *g, const T &p) {
             const float c[3] = {1, 0, 1};
             return umap_select(g, umap_constant(g, umap_shape2(3, 1), c), p[0], p[1]);
         }, true},
        {"clamp", {umap_shape2(3, 4)}, [](int, int64_t n) { return ut::grid(n, 9, 0.3, -1.05, 8); },
         [](umap_graph *g, const T &p) { return umap_clamp(g, p[0], -0.5f, 0.5f); }, true},
        {"sum", {umap_shape3(2, 3, 4)}, anyv, [](umap_graph *g, const T &p) { return umap_sum(g, p[0], 5, 0); }, true},
        {"sum_keep", {umap_shape3(2, 3, 4)}, anyv, [](umap_graph *g, const T &p) { return umap_sum(g, p[0], 2, 1); }, true},
        {"mean", {umap_shape3(2, 3, 4)}, anyv, [](umap_graph *g, const T &p) { return umap_mean(g, p[0], 6, 1); }, true},
        {"reduce_max", {umap_shape3(2, 3, 4)}, distv, [](umap_graph *g, const T &p) { return umap_reduce_max(g, p[0], 4, 0); }, true},
        {"reshape", {umap_shape3(2, 3, 4)}, anyv, [](umap_graph *g, const T &p) { return umap_reshape(g, p[0], umap_shape2(4, 6)); }, true},
        {"permute", {umap_shape3(2, 3, 4)}, anyv,
         [](umap_graph *g, const T &p) {
             const int perm[3] = {2, 0, 1};
             return umap_permute(g, p[0], perm);
         }, true},
        {"transpose", {umap_shape2(3, 5)}, anyv, [](umap_graph *g, const T &p) { return umap_transpose(g, p[0]); }, true},
        {"broadcast", {umap_shape2(3, 1)}, anyv, [](umap_graph *g, const T &p) { return umap_broadcast(g, p[0], umap_shape3(2, 3, 4)); }, true},
        {"slice", {umap_shape2(4, 5)}, anyv, [](umap_graph *g, const T &p) { return umap_slice(g, p[0], 1, 1, 3); }, true},
        {"concat", {umap_shape2(2, 3), umap_shape2(2, 2)}, anyv,
         [](umap_graph *g, const T &p) {
             umap_tensor *xs[2] = {p[0], p[1]};
             return umap_concat(g, 2, xs, 1);
         }, true},
        {"matmul", {umap_shape2(3, 4), umap_shape2(4, 2)}, anyv, [](umap_graph *g, const T &p) { return umap_matmul(g, p[0], p[1]); }, true},
        {"matmul_tt", {umap_shape3(2, 4, 3), umap_shape3(2, 2, 4)}, anyv,
         [](umap_graph *g, const T &p) { return umap_matmul_ex(g, p[0], p[1], 1, 1); }, true},
        {"gather", {umap_shape2(5, 3)}, anyv,
         [](umap_graph *g, const T &p) {
             const int32_t idx[4] = {4, 1, 1, 0};
             return umap_gather(g, p[0], umap_constant_i32(g, umap_shape1(4), idx));
         }, true},
        {"scatter_add", {umap_shape2(4, 3)}, anyv,
         [](umap_graph *g, const T &p) {
             const int32_t idx[4] = {2, 0, 2, 1};
             return umap_scatter_add(g, p[0], umap_constant_i32(g, umap_shape1(4), idx), 4);
         }, true},
    };
    return c;
}

struct OpGraph {
    ut::Graph g;
    std::deque<std::vector<float>> data;
    std::vector<umap_tensor *> params;
    std::vector<void *> values;
    umap_tensor *y = nullptr;
    explicit OpGraph(const OpCase &c) {
        for (size_t i = 0; i < c.shapes.size(); i++) {
            std::string n = "p" + std::to_string(i);
            params.push_back(umap_param(g, n.c_str(), c.shapes[i]));
            data.push_back(c.gen((int)i, umap_shape_numel(c.shapes[i])));
            values.push_back(data.back().data());
        }
        y = c.build(g, params);
    }
};

class HigherOrder : public ::testing::TestWithParam<OpCase> {};

} // namespace

/* loss2 = sum_i <grad_i(loss), c_i> with loss = <y, w>, y = op(x) nested
   in a smooth outer function so second derivatives are non-trivial */
TEST_P(HigherOrder, GradientOfGradient) {
    const OpCase &c = GetParam();
    OpGraph s(c);
    ASSERT_NE(s.y, nullptr) << s.g.detail();
    int64_t n = umap_shape_numel(umap_tensor_shape(s.y));
    std::vector<float> w = ut::away_from_zero(n, 5, 0.3, 1.0);
    umap_tensor *outer = umap_tanh(s.g, umap_mul_scalar(s.g, s.y, 0.7f));
    umap_tensor *loss = umap_sum(s.g, umap_mul(s.g, outer, umap_constant(s.g, umap_tensor_shape(s.y), w.data())), UMAP_AXES_ALL, 0);
    std::vector<umap_tensor *> gr(s.params.size());
    ASSERT_EQ(umap_grad(s.g, loss, (int)s.params.size(), s.params.data(), gr.data()), UMAP_OK) << s.g.detail();
    umap_tensor *loss2 = nullptr;
    for (size_t i = 0; i < gr.size(); i++) {
        umap_shape gs = umap_tensor_shape(gr[i]);
        std::vector<float> ci = ut::away_from_zero(umap_shape_numel(gs), 50 + i, 0.3, 1.0);
        umap_tensor *term = umap_sum(s.g, umap_mul(s.g, gr[i], umap_constant(s.g, gs, ci.data())), UMAP_AXES_ALL, 0);
        loss2 = loss2 ? umap_add(s.g, loss2, term) : term;
    }
    ASSERT_NE(loss2, nullptr) << s.g.detail();
    umap_gradcheck_desc d;
    std::memset(&d, 0, sizeof d);
    d.atol = 2e-3f;
    d.rtol = 3e-2f;
    d.n_threads = 1;
    umap_gradcheck_report r;
    std::memset(&r, 0, sizeof r);
    umap_result res = umap_gradcheck(s.g, loss2, (int)s.params.size(), s.params.data(), s.values.data(),
                                     (int)s.params.size(), s.params.data(), &d, &r);
    EXPECT_EQ(res, UMAP_OK) << c.name << ": worst wrt " << r.worst_wrt << " index " << r.worst_index << " autodiff "
                            << r.worst_autodiff << " numeric " << r.worst_numeric << " | " << s.g.detail();
}

TEST_P(HigherOrder, JvpMatchesFiniteDifferences) {
    const OpCase &c = GetParam();
    OpGraph s(c);
    ASSERT_NE(s.y, nullptr) << s.g.detail();
    std::vector<umap_tensor *> tans;
    std::deque<std::vector<float>> td;
    for (size_t i = 0; i < s.params.size(); i++) {
        umap_shape ps = umap_tensor_shape(s.params[i]);
        td.push_back(ut::uniform(umap_shape_numel(ps), 70 + i, -1, 1));
        tans.push_back(umap_constant(s.g, ps, td.back().data()));
    }
    umap_tensor *jt = nullptr;
    ASSERT_EQ(umap_jvp(s.g, 1, &s.y, (int)s.params.size(), s.params.data(), tans.data(), &jt), UMAP_OK) << s.g.detail();
    ASSERT_NE(jt, nullptr);
    ut::Program p;
    umap_compile_desc cd = ut::cdesc(1);
    umap_tensor *outs[2] = {jt, s.y};
    ASSERT_EQ(umap_compile(s.g, 2, outs, &cd, &p.p), UMAP_OK) << s.g.detail();
    std::vector<std::vector<float>> bufs(s.data.begin(), s.data.end());
    for (size_t i = 0; i < s.params.size(); i++)
        ASSERT_EQ(umap_program_bind_tensor(p, s.params[i], bufs[i].data()), UMAP_OK);
    ASSERT_EQ(umap_program_run(p), UMAP_OK) << p.detail();
    std::vector<float> jv = ut::output(p, 0);
    const double h = 1e-2, ks[4] = {-2, -1, 1, 2}, cs[4] = {1, -8, 8, -1};
    std::vector<double> fd(jv.size(), 0.0);
    for (int k = 0; k < 4; k++) {
        for (size_t i = 0; i < bufs.size(); i++)
            for (size_t j = 0; j < bufs[i].size(); j++) bufs[i][j] = (float)(s.data[i][j] + ks[k] * h * td[i][j]);
        ASSERT_EQ(umap_program_run(p), UMAP_OK);
        std::vector<float> yv = ut::output(p, 1);
        ASSERT_EQ(yv.size(), fd.size());
        for (size_t j = 0; j < yv.size(); j++) fd[j] += cs[k] * yv[j] / (12 * h);
    }
    EXPECT_TRUE(ut::all_close(jv, fd, 2e-3, 1e-2)) << c.name;
}

INSTANTIATE_TEST_SUITE_P(Ops, HigherOrder, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<OpCase> &i) { return std::string(i.param.name); });
