/* >>run >>cpu >>optim: running programs, determinism, every error path,
   custom ops and backends, reference values, Adam. */
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <dlfcn.h>

#include "test_util.h"

namespace {

/* y = sigmoid(tanh(x @ w1 + b1) @ w2 + b2) and a double-precision reference */
struct SmallMlp {
    int n = 8, d = 5, h = 7, o = 3;
    std::vector<float> x, w1, b1, w2, b2;
    SmallMlp() {
        x = ut::uniform(n * d, 1, -1, 1);
        w1 = ut::uniform(d * h, 2, -0.8, 0.8);
        b1 = ut::uniform(h, 3, -0.3, 0.3);
        w2 = ut::uniform(h * o, 4, -0.8, 0.8);
        b2 = ut::uniform(o, 5, -0.3, 0.3);
    }
    std::vector<double> reference() const {
        std::vector<double> y((size_t)(n * o));
        for (int i = 0; i < n; i++) {
            std::vector<double> hid((size_t)h);
            for (int j = 0; j < h; j++) {
                double s = b1[(size_t)j];
                for (int k = 0; k < d; k++) s += (double)x[(size_t)(i * d + k)] * w1[(size_t)(k * h + j)];
                hid[(size_t)j] = std::tanh(s);
            }
            for (int j = 0; j < o; j++) {
                double s = b2[(size_t)j];
                for (int k = 0; k < h; k++) s += hid[(size_t)k] * w2[(size_t)(k * o + j)];
                y[(size_t)(i * o + j)] = 1.0 / (1.0 + std::exp(-s));
            }
        }
        return y;
    }
};

/* forward + backward of an MLP big enough to be cut into many tasks */
struct BigMlp {
    ut::Graph g;
    std::vector<umap_tensor *> outs;
    std::vector<float> x, w1, b1, w2, t;
    BigMlp() {
        umap_tensor *tx = umap_input(g, "x", umap_shape2(512, 64));
        umap_tensor *tt = umap_input(g, "t", umap_shape2(512, 2));
        umap_tensor *tw1 = umap_param(g, "w1", umap_shape2(64, 128));
        umap_tensor *tb1 = umap_param(g, "b1", umap_shape1(128));
        umap_tensor *tw2 = umap_param(g, "w2", umap_shape2(128, 2));
        umap_tensor *hid = umap_relu(g, umap_add(g, umap_matmul(g, tx, tw1), tb1));
        umap_tensor *y = umap_matmul(g, hid, tw2);
        umap_tensor *loss = umap_mean(g, umap_square(g, umap_sub(g, y, tt)), UMAP_AXES_ALL, 0);
        umap_tensor *wrt[3] = {tw1, tb1, tw2}, *gr[3];
        EXPECT_EQ(umap_grad(g, loss, 3, wrt, gr), UMAP_OK) << g.detail();
        umap_tensor *big = umap_sum(g, umap_exp(g, umap_mul_scalar(g, hid, 0.1f)), UMAP_AXES_ALL, 0);
        umap_tensor *cols = umap_sum(g, hid, 1, 0);
        umap_tensor *rowmax = umap_reduce_max(g, hid, 2, 0);
        outs = {loss, gr[0], gr[1], gr[2], big, cols, rowmax, y};
        x = ut::uniform(512 * 64, 11, -1, 1);
        t = ut::uniform(512 * 2, 12, -1, 1);
        w1 = ut::uniform(64 * 128, 13, -0.2, 0.2);
        b1 = ut::uniform(128, 14, -0.1, 0.1);
        w2 = ut::uniform(128 * 2, 15, -0.2, 0.2);
    }
    std::vector<std::vector<float>> run(int n_threads, int repeats = 1) {
        ut::Program p;
        umap_compile_desc cd = ut::cdesc(n_threads);
        EXPECT_EQ(umap_compile(g, (int)outs.size(), outs.data(), &cd, &p.p), UMAP_OK) << g.detail();
        if (!p.p) return {};
        EXPECT_EQ(umap_program_bind(p, "x", x.data(), (int64_t)x.size()), UMAP_OK);
        EXPECT_EQ(umap_program_bind(p, "t", t.data(), (int64_t)t.size()), UMAP_OK);
        EXPECT_EQ(umap_program_bind(p, "w1", w1.data(), (int64_t)w1.size()), UMAP_OK);
        EXPECT_EQ(umap_program_bind(p, "b1", b1.data(), (int64_t)b1.size()), UMAP_OK);
        EXPECT_EQ(umap_program_bind(p, "w2", w2.data(), (int64_t)w2.size()), UMAP_OK);
        std::vector<std::vector<float>> r;
        for (int k = 0; k < repeats; k++) {
            EXPECT_EQ(umap_program_run(p), UMAP_OK) << p.detail();
            std::vector<std::vector<float>> cur;
            for (size_t i = 0; i < outs.size(); i++) cur.push_back(ut::output(p, (int)i));
            if (k == 0)
                r = cur;
            else
                for (size_t i = 0; i < outs.size(); i++)
                    EXPECT_TRUE(ut::bitwise_equal(cur[i], r[i])) << "run " << k << " output " << i;
        }
        return r;
    }
};

} // namespace

TEST(Run, SmallMlpMatchesDoubleReference) {
    SmallMlp m;
    ut::Graph g;
    umap_tensor *x = umap_input(g, "x", umap_shape2(m.n, m.d));
    umap_tensor *w1 = umap_param(g, "w1", umap_shape2(m.d, m.h));
    umap_tensor *b1 = umap_param(g, "b1", umap_shape1(m.h));
    umap_tensor *w2 = umap_param(g, "w2", umap_shape2(m.h, m.o));
    umap_tensor *b2 = umap_param(g, "b2", umap_shape1(m.o));
    umap_tensor *hid = umap_tanh(g, umap_add(g, umap_matmul(g, x, w1), b1));
    umap_tensor *y = umap_sigmoid(g, umap_add(g, umap_matmul(g, hid, w2), b2));
    ASSERT_NE(y, nullptr) << g.detail();
    for (int nt : {1, 2}) {
        ut::Program p;
        umap_compile_desc cd = ut::cdesc(nt);
        ASSERT_EQ(umap_compile(g, 1, &y, &cd, &p.p), UMAP_OK) << g.detail();
        ASSERT_EQ(umap_program_bind(p, "x", m.x.data(), (int64_t)m.x.size()), UMAP_OK);
        ASSERT_EQ(umap_program_bind(p, "w1", m.w1.data(), (int64_t)m.w1.size()), UMAP_OK);
        ASSERT_EQ(umap_program_bind(p, "b1", m.b1.data(), (int64_t)m.b1.size()), UMAP_OK);
        ASSERT_EQ(umap_program_bind_tensor(p, w2, m.w2.data()), UMAP_OK);
        ASSERT_EQ(umap_program_bind_tensor(p, b2, m.b2.data()), UMAP_OK);
        ASSERT_EQ(umap_program_run(p), UMAP_OK) << p.detail();
        umap_shape s;
        std::vector<float> got = ut::output(p, 0, &s);
        EXPECT_TRUE(ut::shape_eq(s, umap_shape2(m.n, m.o))) << ut::shape_str(s);
        EXPECT_TRUE(ut::all_close(got, m.reference(), 1e-5, 1e-5)) << nt << " threads";
    }
}

TEST(Run, MatmulVariantsMatchReference) {
    /* C = op(A) @ op(B) in every layout, batched and not, against doubles */
    const int B = 3, M = 5, K = 7, N = 4;
    std::vector<float> a = ut::uniform(B * M * K, 1, -1, 1), b = ut::uniform(B * K * N, 2, -1, 1);
    for (int batched_b = 0; batched_b < 2; batched_b++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++) {
                ut::Graph g;
                umap_tensor *ta_t = umap_param(g, "a", ta ? umap_shape3(B, K, M) : umap_shape3(B, M, K));
                umap_shape bs = batched_b ? (tb ? umap_shape3(B, N, K) : umap_shape3(B, K, N)) : (tb ? umap_shape2(N, K) : umap_shape2(K, N));
                umap_tensor *tb_t = umap_param(g, "b", bs);
                umap_tensor *c = umap_matmul_ex(g, ta_t, tb_t, ta, tb);
                ASSERT_NE(c, nullptr) << g.detail();
                ut::Program p;
                umap_compile_desc cd = ut::cdesc(2);
                ASSERT_EQ(umap_compile(g, 1, &c, &cd, &p.p), UMAP_OK);
                ASSERT_EQ(umap_program_bind(p, "a", a.data(), B * M * K), UMAP_OK);
                ASSERT_EQ(umap_program_bind(p, "b", b.data(), umap_shape_numel(bs)), UMAP_OK);
                ASSERT_EQ(umap_program_run(p), UMAP_OK);
                std::vector<double> ref((size_t)(B * M * N), 0.0);
                for (int bi = 0; bi < B; bi++)
                    for (int i = 0; i < M; i++)
                        for (int j = 0; j < N; j++) {
                            double s = 0;
                            for (int k = 0; k < K; k++) {
                                double av = ta ? a[(size_t)(bi * K * M + k * M + i)] : a[(size_t)(bi * M * K + i * K + k)];
                                size_t boff = batched_b ? (size_t)(bi * K * N) : 0;
                                double bv = tb ? b[boff + (size_t)(j * K + k)] : b[boff + (size_t)(k * N + j)];
                                s += av * bv;
                            }
                            ref[(size_t)(bi * M * N + i * N + j)] = s;
                        }
                EXPECT_TRUE(ut::all_close(ut::output(p, 0), ref, 1e-5, 1e-5))
                    << "batched_b " << batched_b << " trans_a " << ta << " trans_b " << tb;
            }
}

TEST(Run, LargeMatmulMatchesReference) {
    /* big enough for the threaded / blocked paths */
    const int M = 300, K = 129, N = 70;
    ut::Graph g;
    umap_tensor *a = umap_input(g, "a", umap_shape2(M, K)), *b = umap_input(g, "b", umap_shape2(K, N));
    umap_tensor *c = umap_matmul(g, a, b);
    std::vector<float> ad = ut::uniform(M * K, 3, -1, 1), bd = ut::uniform(K * N, 4, -1, 1);
    ut::Program p;
    umap_compile_desc cd = ut::cdesc(4);
    ASSERT_EQ(umap_compile(g, 1, &c, &cd, &p.p), UMAP_OK);
    ASSERT_EQ(umap_program_bind(p, "a", ad.data(), M * K), UMAP_OK);
    ASSERT_EQ(umap_program_bind(p, "b", bd.data(), K * N), UMAP_OK);
    ASSERT_EQ(umap_program_run(p), UMAP_OK);
    std::vector<double> ref((size_t)(M * N), 0.0);
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++)
            for (int j = 0; j < N; j++) ref[(size_t)(i * N + j)] += (double)ad[(size_t)(i * K + k)] * bd[(size_t)(k * N + j)];
    EXPECT_TRUE(ut::all_close(ut::output(p, 0), ref, 1e-4, 1e-5));
}

/* A product big enough for CBLAS (over UMAP_BLAS_MIN_MACS) still runs on the
   library's kernel by default, so its bits follow neither the pool's nor
   the BLAS's thread count: OpenBLAS sums in another order with 2 threads
   than with 1. Where the BLAS is OpenBLAS its thread count is varied too. */
TEST(Run, LargeProductBitsIgnoreTheBlasThreads) {
    const int M = 4096, K = 784, N = 64;
    ASSERT_GE((double)M * K * N, (double)((int64_t)1 << 26)); /* the default UMAP_BLAS_MIN_MACS */
    ut::Graph g;
    umap_tensor *a = umap_input(g, "a", umap_shape2(M, K)), *b = umap_input(g, "b", umap_shape2(K, N));
    umap_tensor *c = umap_matmul(g, a, b);
    std::vector<float> ad = ut::uniform(M * K, 5, -1, 1), bd = ut::uniform(K * N, 6, -1, 1);
    typedef void (*set_threads_fn)(int);
    typedef int (*get_threads_fn)(void);
    set_threads_fn set_blas_threads = (set_threads_fn)dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
    get_threads_fn get_blas_threads = (get_threads_fn)dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
    const int blas_threads_before = get_blas_threads ? get_blas_threads() : 0;
    auto run = [&](int pool_threads, int blas_threads, int use_blas) {
        if (set_blas_threads) set_blas_threads(blas_threads);
        ut::Program p;
        umap_compile_desc cd = ut::cdesc(pool_threads);
        cd.use_blas = use_blas;
        EXPECT_EQ(umap_compile(g, 1, &c, &cd, &p.p), UMAP_OK);
        EXPECT_EQ(umap_program_bind(p, "a", ad.data(), (int64_t)M * K), UMAP_OK);
        EXPECT_EQ(umap_program_bind(p, "b", bd.data(), (int64_t)K * N), UMAP_OK);
        EXPECT_EQ(umap_program_run(p), UMAP_OK);
        return ut::output(p, 0);
    };
    std::vector<float> ref = run(1, 1, 0);
    EXPECT_TRUE(ut::bitwise_equal(run(2, 1, 0), ref));
    EXPECT_TRUE(ut::bitwise_equal(run(1, 2, 0), ref)) << "the BLAS's threads changed a default program's bits";
    EXPECT_TRUE(ut::bitwise_equal(run(2, 2, 0), ref));
    /* use_blas 1: CBLAS where it is linked, the same product to rounding */
    std::vector<float> blas = run(2, 2, 1);
    std::vector<double> ref_d(ref.begin(), ref.end());
    EXPECT_TRUE(ut::all_close(blas, ref_d, 1e-4, 1e-4));
    if (set_blas_threads && blas_threads_before > 0) set_blas_threads(blas_threads_before);
}

TEST(Run, TwiceGivesSameBits) {
    BigMlp m;
    m.run(2, 3);
}

TEST(Run, DeterministicAcrossThreadCounts) {
    BigMlp m;
    std::vector<std::vector<float>> r1 = m.run(1), r2 = m.run(2), r4 = m.run(4);
    ASSERT_EQ(r1.size(), m.outs.size());
    ASSERT_EQ(r2.size(), r1.size());
    ASSERT_EQ(r4.size(), r1.size());
    for (size_t i = 0; i < r1.size(); i++) {
        EXPECT_TRUE(ut::bitwise_equal(r2[i], r1[i])) << "2 threads vs 1, output " << i;
        EXPECT_TRUE(ut::bitwise_equal(r4[i], r1[i])) << "4 threads vs 1, output " << i;
    }
}

TEST(Run, BindingIsZeroCopy) {
    ut::Graph g;
    umap_tensor *x = umap_input(g, "x", umap_shape1(3));
    umap_tensor *y = umap_mul_scalar(g, x, 2.0f);
    ut::Program p;
    umap_compile_desc cd = ut::cdesc(1);
    ASSERT_EQ(umap_compile(g, 1, &y, &cd, &p.p), UMAP_OK);
    float xd[3] = {1, 2, 3};
    ASSERT_EQ(umap_program_bind(p, "x", xd, 3), UMAP_OK);
    ASSERT_EQ(umap_program_run(p), UMAP_OK);
    EXPECT_EQ(ut::output(p, 0), (std::vector<float>{2, 4, 6}));
    xd[1] = 10;
    ASSERT_EQ(umap_program_run(p), UMAP_OK);
    EXPECT_EQ(ut::output(p, 0), (std::vector<float>{2, 20, 6}));
    float other[3] = {-1, -2, -3};
    ASSERT_EQ(umap_program_bind(p, "x", other, 3), UMAP_OK);
    ASSERT_EQ(umap_program_run(p), UMAP_OK);
    EXPECT_EQ(ut::output(p, 0), (std::vector<float>{-2, -4, -6}));
}

TEST(Run, OutputIsALeafOrAConstant) {
    ut::Graph g;
    umap_tensor *x = umap_input(g, "x", umap_shape2(2, 2));
    const float cd_[3] = {1, 2, 3};
    umap_tensor *c = umap_constant(g, umap_shape1(3), cd_);
    umap_tensor *f = umap_full(g, umap_shape1(2), 7.5f);
    umap_tensor *outs[4] = {x, c, f, x};
    ut::Program p;
    umap_compile_desc cd = ut::cdesc(1);
    ASSERT_EQ(umap_compile(g, 4, outs, &cd, &p.p), UMAP_OK) << g.detail();
    const float xd[4] = {1, 2, 3, 4};
    ASSERT_EQ(umap_program_bind(p, "x", xd, 4), UMAP_OK);
    ASSERT_EQ(umap_program_run(p), UMAP_OK);
    EXPECT_EQ(ut::output(p, 0), (std::vector<float>{1, 2, 3, 4}));
    EXPECT_EQ(ut::output(p, 1), (std::vector<float>{1, 2, 3}));
    EXPECT_EQ(ut::output(p, 2), (std::vector<float>{7.5f, 7.5f}));
    EXPECT_EQ(ut::output(p, 3), (std::vector<float>{1, 2, 3, 4}));
}

TEST(Run, TwoProgramsInTwoThreads) {
    BigMlp m;
    std::vector<std::vector<float>> ref = m.run(1);
    ut::Program p[2];
    for (int k = 0; k < 2; k++) {
        umap_compile_desc cd = ut::cdesc(2);
        ASSERT_EQ(umap_compile(m.g, (int)m.outs.size(), m.outs.data(), &cd, &p[k].p), UMAP_OK);
        ASSERT_EQ(umap_program_bind(p[k], "x", m.x.data(), (int64_t)m.x.size()), UMAP_OK);
        ASSERT_EQ(umap_program_bind(p[k], "t", m.t.data(), (int64_t)m.t.size()), UMAP_OK);
        ASSERT_EQ(umap_program_bind(p[k], "w1", m.w1.data(), (int64_t)m.w1.size()), UMAP_OK);
        ASSERT_EQ(umap_program_bind(p[k], "b1", m.b1.data(), (int64_t)m.b1.size()), UMAP_OK);
        ASSERT_EQ(umap_program_bind(p[k], "w2", m.w2.data(), (int64_t)m.w2.size()), UMAP_OK);
    }
    umap_result rr[2] = {UMAP_ERR_GRAPH, UMAP_ERR_GRAPH};
    std::thread th[2];
    for (int k = 0; k < 2; k++)
        th[k] = std::thread([&, k] {
            umap_result r = UMAP_OK;
            for (int i = 0; i < 5 && r == UMAP_OK; i++) r = umap_program_run(p[k]);
            rr[k] = r;
        });
    for (auto &t : th) t.join();
    for (int k = 0; k < 2; k++) {
        ASSERT_EQ(rr[k], UMAP_OK);
        for (size_t i = 0; i < ref.size(); i++) EXPECT_TRUE(ut::bitwise_equal(ut::output(p[k], (int)i), ref[i]));
    }
}

/* ---- errors ---------------------------------------------------------------- */

TEST(Errors, ShapeMismatchInBuilder) {
    ut::Graph g;
    umap_tensor *a = umap_input(g, "a", umap_shape2(3, 4));
    umap_tensor *b = umap_input(g, "b", umap_shape1(5));
    umap_tensor *ok = umap_tanh(g, a);
    ASSERT_NE(ok, nullptr);
    EXPECT_EQ(umap_graph_status(g), UMAP_OK);
    EXPECT_STREQ(umap_graph_error_detail(g), "");
    umap_tensor *bad = umap_add(g, a, b);
    EXPECT_EQ(bad, nullptr);
    EXPECT_EQ(umap_graph_status(g), UMAP_ERR_SHAPE);
    std::string d = umap_graph_error_detail(g);
    EXPECT_NE(d.find("add"), std::string::npos) << d;
    EXPECT_NE(d.find('3'), std::string::npos) << d;
    EXPECT_NE(d.find('4'), std::string::npos) << d;
    EXPECT_NE(d.find('5'), std::string::npos) << d;
    /* NULL propagates; the first error is kept */
    umap_tensor *later = umap_exp(g, bad);
    EXPECT_EQ(later, nullptr);
    EXPECT_EQ(umap_mul(g, later, a), nullptr);
    EXPECT_EQ(umap_graph_status(g), UMAP_ERR_SHAPE);
    EXPECT_EQ(std::string(umap_graph_error_detail(g)), d);
    umap_tensor *c = umap_input(g, "c", umap_shape1(7));
    EXPECT_EQ(umap_matmul(g, c, c), nullptr); /* a second, different error */
    EXPECT_EQ(std::string(umap_graph_error_detail(g)), d) << "the first error is kept";
    /* compile refuses a graph holding an error */
    ut::Program p;
    umap_compile_desc cd = ut::cdesc(1);
    umap_result r = umap_compile(g, 1, &ok, &cd, &p.p);
    EXPECT_NE(r, UMAP_OK);
    EXPECT_EQ(p.p, nullptr);
    /* until it is cleared */
    umap_graph_clear_error(g);
    EXPECT_EQ(umap_graph_status(g), UMAP_OK);
    EXPECT_STREQ(umap_graph_error_detail(g), "");
    EXPECT_EQ(umap_compile(g, 1, &ok, &cd, &p.p), UMAP_OK);
}

TEST(Errors, MatmulInnerDimMismatch) {
    ut::Graph g;
    umap_tensor *a = umap_input(g, "a", umap_shape2(3, 4));
    umap_tensor *b = umap_input(g, "b", umap_shape2(5, 2));
    EXPECT_EQ(umap_matmul(g, a, b), nullptr);
    EXPECT_EQ(umap_graph_status(g), UMAP_ERR_SHAPE);
    std::string d = umap_graph_error_detail(g);
    EXPECT_NE(d.find("matmul"), std::string::npos) << d;
    umap_graph_clear_error(g);
    EXPECT_EQ(umap_matmul_ex(g, a, b, 0, 1), nullptr) << "[3,4] @ [5,2]^T";
    EXPECT_EQ(umap_graph_status(g), UMAP_ERR_SHAPE);
    umap_graph_clear_error(g);
    EXPECT_NE(umap_matmul_ex(g, a, umap_input(g, "c", umap_shape2(2, 4)), 0, 1), nullptr) << g.detail();
    umap_graph_clear_error(g);
    umap_tensor *x3 = umap_input(g, "x3", umap_shape3(2, 3, 4)), *y3 = umap_input(g, "y3", umap_shape3(3, 4, 5));
    EXPECT_EQ(umap_matmul(g, x3, y3), nullptr) << "batch 2 vs 3";
    EXPECT_EQ(umap_graph_status(g), UMAP_ERR_SHAPE);
}

TEST(Errors, OtherBuilderErrors) {
    struct Case {
        const char *what;
        std::function<umap_tensor *(umap_graph *)> build;
        std::vector<umap_result> allowed;
    };
    const int bad_perm[2] = {0, 0};
    const std::vector<Case> cases = {
        {"reshape numel", [](umap_graph *g) { return umap_reshape(g, umap_input(g, "x", umap_shape2(2, 3)), umap_shape1(5)); }, {UMAP_ERR_SHAPE}},
        {"broadcast [3] to [4]", [](umap_graph *g) { return umap_broadcast(g, umap_input(g, "x", umap_shape1(3)), umap_shape1(4)); }, {UMAP_ERR_SHAPE}},
        {"broadcast to lower rank", [](umap_graph *g) { return umap_broadcast(g, umap_input(g, "x", umap_shape2(2, 3)), umap_shape1(3)); }, {UMAP_ERR_SHAPE}},
        {"concat mismatch",
         [](umap_graph *g) {
             umap_tensor *xs[2] = {umap_input(g, "x", umap_shape2(2, 3)), umap_input(g, "y", umap_shape2(2, 4))};
             return umap_concat(g, 2, xs, 0);
         },
         {UMAP_ERR_SHAPE}},
        {"concat rank mismatch",
         [](umap_graph *g) {
             umap_tensor *xs[2] = {umap_input(g, "x", umap_shape2(2, 3)), umap_input(g, "y", umap_shape1(3))};
             return umap_concat(g, 2, xs, 0);
         },
         {UMAP_ERR_SHAPE}},
        {"slice past the end", [](umap_graph *g) { return umap_slice(g, umap_input(g, "x", umap_shape1(4)), 0, 3, 2); }, {UMAP_ERR_SHAPE, UMAP_ERR_INVALID_ARGUMENT}},
        {"slice bad axis", [](umap_graph *g) { return umap_slice(g, umap_input(g, "x", umap_shape1(4)), 1, 0, 1); }, {UMAP_ERR_SHAPE, UMAP_ERR_INVALID_ARGUMENT}},
        {"permute not a permutation", [bad_perm](umap_graph *g) { return umap_permute(g, umap_input(g, "x", umap_shape2(2, 3)), bad_perm); }, {UMAP_ERR_SHAPE, UMAP_ERR_INVALID_ARGUMENT}},
        {"transpose of a vector", [](umap_graph *g) { return umap_transpose(g, umap_input(g, "x", umap_shape1(3))); }, {UMAP_ERR_SHAPE, UMAP_ERR_INVALID_ARGUMENT}},
        {"gather with f32 index", [](umap_graph *g) { return umap_gather(g, umap_input(g, "x", umap_shape2(4, 2)), umap_input(g, "i", umap_shape1(3))); }, {UMAP_ERR_DTYPE}},
        {"scatter_add with f32 index", [](umap_graph *g) { return umap_scatter_add(g, umap_input(g, "x", umap_shape2(4, 2)), umap_input(g, "i", umap_shape1(4)), 5); }, {UMAP_ERR_DTYPE}},
        {"scatter_add index shape", [](umap_graph *g) { return umap_scatter_add(g, umap_input(g, "x", umap_shape2(4, 2)), umap_input_i32(g, "i", umap_shape1(3)), 5); }, {UMAP_ERR_SHAPE}},
        {"add f32 + i32", [](umap_graph *g) { return umap_add(g, umap_input(g, "x", umap_shape1(3)), umap_input_i32(g, "i", umap_shape1(3))); }, {UMAP_ERR_DTYPE}},
        {"matmul of a vector", [](umap_graph *g) { return umap_matmul(g, umap_input(g, "x", umap_shape1(3)), umap_input(g, "y", umap_shape2(3, 2))); }, {UMAP_ERR_SHAPE}},
        {"negative dim", [](umap_graph *g) { return umap_input(g, "x", umap_shape2(-1, 3)); }, {UMAP_ERR_SHAPE, UMAP_ERR_INVALID_ARGUMENT}},
        {"constant without data", [](umap_graph *g) { return umap_constant(g, umap_shape1(3), nullptr); }, {UMAP_ERR_INVALID_ARGUMENT}},
        {"unary with a binary op", [](umap_graph *g) { return umap_unary(g, UMAP_OP_ADD, umap_input(g, "x", umap_shape1(3))); }, {UMAP_ERR_INVALID_ARGUMENT}},
        {"binary with a unary op", [](umap_graph *g) { return umap_binary(g, UMAP_OP_EXP, umap_input(g, "x", umap_shape1(3)), umap_input(g, "y", umap_shape1(3))); }, {UMAP_ERR_INVALID_ARGUMENT}},
    };
    for (const Case &c : cases) {
        ut::Graph g;
        umap_tensor *t = c.build(g);
        EXPECT_EQ(t, nullptr) << c.what;
        umap_result r = umap_graph_status(g);
        bool allowed = false;
        for (umap_result a : c.allowed) allowed |= r == a;
        EXPECT_TRUE(allowed) << c.what << ": status " << umap_result_string(r);
        EXPECT_GT(std::strlen(umap_graph_error_detail(g)), 0u) << c.what;
    }
}

TEST(Errors, BindAndRun) {
    ut::Graph g;
    umap_tensor *x = umap_input(g, "x", umap_shape2(2, 3));
    umap_tensor *w = umap_param(g, "w", umap_shape2(3, 2));
    umap_tensor *unused = umap_param(g, "unused", umap_shape1(4));
    ASSERT_NE(unused, nullptr);
    umap_tensor *y = umap_matmul(g, x, w);
    const float xd[6] = {1, 2, 3, 4, 5, 6}, wd[6] = {1, 0, 0, 1, 1, 1};
    umap_compile_desc cd = ut::cdesc(1);
    {
        ut::Program p;
        ASSERT_EQ(umap_compile(g, 1, &y, &cd, &p.p), UMAP_OK);
        EXPECT_EQ(umap_program_bind(p, "nope", xd, 6), UMAP_ERR_UNKNOWN_INPUT);
        EXPECT_EQ(umap_program_bind(p, "x", xd, 5), UMAP_ERR_SHAPE);
        EXPECT_EQ(umap_program_bind(p, "x", xd, 7), UMAP_ERR_SHAPE);
        /* a leaf no output needs may still be bound */
        const float ud[4] = {0, 0, 0, 0};
        EXPECT_EQ(umap_program_bind(p, "unused", ud, 4), UMAP_OK);
        EXPECT_EQ(umap_program_run(p), UMAP_ERR_MISSING_INPUT) << "nothing bound";
        EXPECT_EQ(umap_program_bind(p, "w", wd, 6), UMAP_OK);
        EXPECT_EQ(umap_program_run(p), UMAP_ERR_MISSING_INPUT);
        EXPECT_GT(std::strlen(umap_program_error_detail(p)), 0u);
        EXPECT_NE(std::string(umap_program_error_detail(p)).find('x'), std::string::npos)
            << "detail should name the input: " << umap_program_error_detail(p);
        EXPECT_EQ(umap_program_bind(p, "x", xd, 6), UMAP_OK);
        EXPECT_EQ(umap_program_run(p), UMAP_OK) << p.detail();
        EXPECT_EQ(ut::output(p, 0), (std::vector<float>{4, 5, 10, 11}));
        const float *d = nullptr;
        EXPECT_EQ(umap_program_output(p, 1, &d, nullptr), UMAP_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(umap_program_output(p, -1, &d, nullptr), UMAP_ERR_INVALID_ARGUMENT);
    }
    {
        ut::Program p;
        ASSERT_EQ(umap_compile(g, 1, &y, &cd, &p.p), UMAP_OK);
        EXPECT_EQ(umap_program_bind(p, "x", xd, 6), UMAP_OK);
        EXPECT_EQ(umap_program_run(p), UMAP_ERR_MISSING_PARAM);
        EXPECT_NE(std::string(umap_program_error_detail(p)).find('w'), std::string::npos) << umap_program_error_detail(p);
    }
}

TEST(Errors, NullArguments) {
    EXPECT_EQ(umap_graph_create(nullptr, nullptr), UMAP_ERR_INVALID_ARGUMENT);
    ut::Graph g;
    umap_tensor *x = umap_input(g, "x", umap_shape1(3));
    umap_tensor *y = umap_exp(g, x), *nul = nullptr;
    umap_program *p = nullptr;
    umap_compile_desc cd = ut::cdesc(1);
    /* a failed compile records its error in the graph: clear it between calls */
    EXPECT_EQ(umap_compile(nullptr, 1, &y, &cd, &p), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_compile(g, 1, &y, &cd, nullptr), UMAP_ERR_INVALID_ARGUMENT);
    umap_graph_clear_error(g);
    EXPECT_EQ(umap_compile(g, 1, nullptr, &cd, &p), UMAP_ERR_INVALID_ARGUMENT);
    umap_graph_clear_error(g);
    EXPECT_EQ(umap_compile(g, 0, &y, &cd, &p), UMAP_ERR_INVALID_ARGUMENT);
    umap_graph_clear_error(g);
    umap_result r = umap_compile(g, 1, &nul, &cd, &p);
    EXPECT_TRUE(r == UMAP_ERR_INVALID_ARGUMENT || r == UMAP_ERR_GRAPH) << umap_result_string(r);
    EXPECT_EQ(p, nullptr);
    umap_graph_clear_error(g);
    ut::Program prog;
    ASSERT_EQ(umap_compile(g, 1, &y, &cd, &prog.p), UMAP_OK);
    const float xd[3] = {0, 1, 2};
    EXPECT_EQ(umap_program_bind(nullptr, "x", xd, 3), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_program_bind(prog, nullptr, xd, 3), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_program_bind(prog, "x", nullptr, 3), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_program_bind_tensor(prog, nullptr, xd), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_program_bind_tensor(nullptr, x, xd), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_program_run(nullptr), UMAP_ERR_INVALID_ARGUMENT);
    const float *d = nullptr;
    EXPECT_EQ(umap_program_output(nullptr, 0, &d, nullptr), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_program_output(prog, 0, nullptr, nullptr), UMAP_ERR_INVALID_ARGUMENT);
    /* builders with a NULL graph or operand return NULL */
    EXPECT_EQ(umap_input(nullptr, "x", umap_shape1(3)), nullptr);
    EXPECT_EQ(umap_exp(nullptr, x), nullptr);
    EXPECT_EQ(umap_add(nullptr, x, x), nullptr);
    EXPECT_EQ(umap_add(g, x, nullptr), nullptr);
    EXPECT_EQ(umap_sum(g, nullptr, 1, 0), nullptr);
    EXPECT_EQ(umap_permute(g, x, nullptr), nullptr);
    EXPECT_EQ(umap_concat(g, 0, nullptr, 0), nullptr);
    EXPECT_EQ(umap_concat(g, 2, nullptr, 0), nullptr);
    EXPECT_EQ(umap_custom(g, nullptr, 1, &x, nullptr, 0), nullptr);
    EXPECT_NE(umap_graph_status(g), UMAP_OK);
    EXPECT_EQ(umap_gradcheck(nullptr, y, 1, &x, nullptr, 1, &x, nullptr, nullptr), UMAP_ERR_INVALID_ARGUMENT);
    /* frees and queries of NULL are harmless */
    umap_program_free(nullptr);
    umap_graph_free(nullptr);
    umap_program_stats st;
    umap_program_stats_get(nullptr, &st);
    std::string s = ut::capture([](FILE *f) {
        umap_program_dump(nullptr, UMAP_STAGE_BUILT, f);
        umap_program_dot(nullptr, UMAP_STAGE_BUILT, f);
        umap_program_fusion_report(nullptr, f);
    });
    (void)s;
    EXPECT_NE(umap_graph_error_detail(nullptr), nullptr);
    EXPECT_NE(umap_program_error_detail(nullptr), nullptr);
}

TEST(Errors, GatherIndexOutOfRange) {
    ut::Graph g;
    umap_tensor *x = umap_param(g, "x", umap_shape2(5, 3));
    umap_tensor *i = umap_input_i32(g, "i", umap_shape1(2));
    umap_tensor *y = umap_gather(g, x, i);
    ASSERT_NE(y, nullptr) << g.detail();
    std::vector<float> xd = ut::uniform(15, 1, -1, 1);
    ut::Program p;
    umap_compile_desc cd = ut::cdesc(1);
    ASSERT_EQ(umap_compile(g, 1, &y, &cd, &p.p), UMAP_OK);
    ASSERT_EQ(umap_program_bind(p, "x", xd.data(), 15), UMAP_OK);
    int32_t idx[2] = {0, 5};
    ASSERT_EQ(umap_program_bind(p, "i", idx, 2), UMAP_OK);
    EXPECT_EQ(umap_program_run(p), UMAP_ERR_INDEX_OUT_OF_RANGE);
    EXPECT_GT(std::strlen(umap_program_error_detail(p)), 0u);
    idx[1] = -1;
    EXPECT_EQ(umap_program_run(p), UMAP_ERR_INDEX_OUT_OF_RANGE);
    idx[1] = 4;
    ASSERT_EQ(umap_program_run(p), UMAP_OK) << "recovers once the index is fixed";
    std::vector<float> out = ut::output(p, 0);
    for (int k = 0; k < 3; k++) {
        EXPECT_EQ(out[(size_t)k], xd[(size_t)k]);
        EXPECT_EQ(out[(size_t)(3 + k)], xd[(size_t)(12 + k)]);
    }
}

TEST(Errors, ScatterAddIndexOutOfRange) {
    ut::Graph g;
    umap_tensor *s = umap_param(g, "s", umap_shape2(3, 2));
    umap_tensor *i = umap_input_i32(g, "i", umap_shape1(3));
    umap_tensor *y = umap_scatter_add(g, s, i, 4);
    ASSERT_NE(y, nullptr) << g.detail();
    const float sd[6] = {1, 2, 3, 4, 5, 6};
    ut::Program p;
    umap_compile_desc cd = ut::cdesc(1);
    ASSERT_EQ(umap_compile(g, 1, &y, &cd, &p.p), UMAP_OK);
    ASSERT_EQ(umap_program_bind(p, "s", sd, 6), UMAP_OK);
    int32_t idx[3] = {0, 4, 1};
    ASSERT_EQ(umap_program_bind(p, "i", idx, 3), UMAP_OK);
    EXPECT_EQ(umap_program_run(p), UMAP_ERR_INDEX_OUT_OF_RANGE);
    idx[1] = -3;
    EXPECT_EQ(umap_program_run(p), UMAP_ERR_INDEX_OUT_OF_RANGE);
    idx[1] = 0;
    ASSERT_EQ(umap_program_run(p), UMAP_OK);
    EXPECT_EQ(ut::output(p, 0), (std::vector<float>{4, 6, 5, 6, 0, 0, 0, 0}));
}

/* ---- custom ops ---------------------------------------------------------------- */

namespace {

umap_result scale_shape(const umap_custom_op *, int n_src, const umap_shape *ss, const umap_dtype *dts,
                        const int32_t *, int n_params, umap_shape *out, umap_dtype *odt) {
    if (n_src != 1 || n_params != 1) return UMAP_ERR_INVALID_ARGUMENT;
    if (dts[0] != UMAP_F32) return UMAP_ERR_DTYPE;
    *out = ss[0];
    *odt = UMAP_F32;
    return UMAP_OK;
}
struct ScaleCtx {
    const float *x;
    float *y;
    float s;
    int64_t n;
};
void scale_task(void *ctx, int64_t task) {
    ScaleCtx *c = (ScaleCtx *)ctx;
    int64_t lo = task * 64, hi = std::min(c->n, lo + 64);
    for (int64_t i = lo; i < hi; i++) c->y[i] = c->s * c->x[i];
}
umap_result scale_cpu(const umap_custom_op *, const umap_custom_call *call) {
    if (call->n_src != 1 || call->n_params != 1 || call->out_dtype != UMAP_F32) return UMAP_ERR_CUSTOM_OP;
    ScaleCtx c = {(const float *)call->src[0], (float *)call->out, (float)call->params[0],
                  umap_shape_numel(call->out_shape)};
    umap_pool_for(call->pool, (c.n + 63) / 64, scale_task, &c);
    return UMAP_OK;
}
umap_tensor *scale_grad(umap_graph *g, const umap_custom_op *op, umap_tensor *node, umap_tensor *grad_out, int src_index) {
    if (src_index != 0 || !node) return nullptr;
    /* d(s*x)/dx = s: the same op on the output gradient */
    return umap_custom(g, op, 1, &grad_out, (const int32_t *)op->user_data, 1);
}
const int32_t kScaleParams[1] = {3};
const umap_custom_op kScaleOp = {"scale", scale_shape, scale_cpu, scale_grad, const_cast<int32_t *>(kScaleParams)};
const umap_custom_op kScaleNoCpu = {"scale_nocpu", scale_shape, nullptr, scale_grad, const_cast<int32_t *>(kScaleParams)};
umap_result failing_cpu(const umap_custom_op *, const umap_custom_call *) { return UMAP_ERR_CUSTOM_OP; }
const umap_custom_op kFailingOp = {"failing", scale_shape, failing_cpu, nullptr, nullptr};
umap_tensor *wrong_grad(umap_graph *g, const umap_custom_op *, umap_tensor *, umap_tensor *grad_out, int) {
    return umap_mul_scalar(g, grad_out, 2.0f); /* should be 3 */
}
const umap_custom_op kScaleWrongGrad = {"scale_wrong_grad", scale_shape, scale_cpu, wrong_grad, nullptr};

} // namespace

TEST(Custom, ScaleOpRunsAndDifferentiates) {
    ut::Graph g;
    umap_tensor *x = umap_param(g, "x", umap_shape2(40, 7));
    umap_tensor *y = umap_custom(g, &kScaleOp, 1, &x, kScaleParams, 1);
    ASSERT_NE(y, nullptr) << g.detail();
    EXPECT_EQ(umap_tensor_op(y), UMAP_OP_CUSTOM);
    EXPECT_EQ(umap_tensor_custom_op(y), &kScaleOp);
    EXPECT_EQ(umap_tensor_src(y, 0), x);
    EXPECT_TRUE(ut::shape_eq(umap_tensor_shape(y), umap_shape2(40, 7)));
    umap_tensor *loss = umap_sum(g, umap_square(g, y), UMAP_AXES_ALL, 0), *gx = nullptr;
    ASSERT_EQ(umap_grad(g, loss, 1, &x, &gx), UMAP_OK) << g.detail();
    std::vector<float> xd = ut::uniform(280, 3, -1, 1);
    for (int nt : {1, 2}) {
        ut::Program p;
        umap_compile_desc cd = ut::cdesc(nt);
        umap_tensor *outs[2] = {y, gx};
        ASSERT_EQ(umap_compile(g, 2, outs, &cd, &p.p), UMAP_OK) << g.detail();
        ASSERT_EQ(umap_program_bind(p, "x", xd.data(), 280), UMAP_OK);
        ASSERT_EQ(umap_program_run(p), UMAP_OK) << p.detail();
        std::vector<float> yv = ut::output(p, 0), gv = ut::output(p, 1);
        for (int i = 0; i < 280; i++) {
            EXPECT_EQ(yv[(size_t)i], 3 * xd[(size_t)i]);
            EXPECT_FLOAT_EQ(gv[(size_t)i], 18 * xd[(size_t)i]); /* d/dx (3x)^2 */
        }
    }
    umap_tensor *w = umap_constant(g, umap_shape2(40, 7), ut::uniform(280, 9, -1, 1).data());
    umap_tensor *l2 = umap_sum(g, umap_mul(g, umap_tanh(g, y), w), UMAP_AXES_ALL, 0);
    void *vals[1] = {xd.data()};
    umap_gradcheck_report rep;
    umap_gradcheck_desc gd;
    std::memset(&gd, 0, sizeof gd);
    gd.atol = 1e-3f;
    gd.rtol = 2e-2f;
    EXPECT_EQ(umap_gradcheck(g, l2, 1, &x, vals, 1, &x, &gd, &rep), UMAP_OK)
        << "worst " << rep.worst_index << ": " << rep.worst_autodiff << " vs " << rep.worst_numeric;
}

TEST(Custom, OperandIsMadeContiguous) {
    ut::Graph g;
    umap_tensor *x = umap_input(g, "x", umap_shape2(2, 3));
    umap_tensor *xt = umap_transpose(g, x);
    umap_tensor *y = umap_custom(g, &kScaleOp, 1, &xt, kScaleParams, 1);
    ASSERT_NE(y, nullptr);
    ut::Program p;
    umap_compile_desc cd = ut::cdesc(1);
    ASSERT_EQ(umap_compile(g, 1, &y, &cd, &p.p), UMAP_OK);
    const float xd[6] = {1, 2, 3, 4, 5, 6};
    ASSERT_EQ(umap_program_bind(p, "x", xd, 6), UMAP_OK);
    ASSERT_EQ(umap_program_run(p), UMAP_OK);
    EXPECT_EQ(ut::output(p, 0), (std::vector<float>{3, 12, 6, 15, 9, 18}));
}

TEST(Custom, ShapeFnErrorIsReportedByBuilder) {
    ut::Graph g;
    umap_tensor *x = umap_input(g, "x", umap_shape1(3));
    EXPECT_EQ(umap_custom(g, &kScaleOp, 1, &x, nullptr, 0), nullptr);
    EXPECT_EQ(umap_graph_status(g), UMAP_ERR_INVALID_ARGUMENT);
    std::string d = umap_graph_error_detail(g);
    EXPECT_NE(d.find("scale"), std::string::npos) << "detail should name the custom op: " << d;
    umap_graph_clear_error(g);
    umap_tensor *i = umap_input_i32(g, "i", umap_shape1(3));
    EXPECT_EQ(umap_custom(g, &kScaleOp, 1, &i, kScaleParams, 1), nullptr);
    EXPECT_EQ(umap_graph_status(g), UMAP_ERR_DTYPE);
}

TEST(Custom, NoCpuKernelIsUnsupportedAtCompile) {
    ut::Graph g;
    umap_tensor *x = umap_input(g, "x", umap_shape1(3));
    umap_tensor *y = umap_custom(g, &kScaleNoCpu, 1, &x, kScaleParams, 1);
    ASSERT_NE(y, nullptr) << g.detail();
    ut::Program p;
    umap_compile_desc cd = ut::cdesc(1);
    EXPECT_EQ(umap_compile(g, 1, &y, &cd, &p.p), UMAP_ERR_UNSUPPORTED_OP);
    EXPECT_EQ(p.p, nullptr);
    std::string d = umap_graph_error_detail(g);
    EXPECT_NE(d.find("scale_nocpu"), std::string::npos) << "detail should name the op: " << d;
}

TEST(Custom, KernelErrorFailsTheRun) {
    ut::Graph g;
    umap_tensor *x = umap_input(g, "x", umap_shape1(3));
    umap_tensor *y = umap_custom(g, &kFailingOp, 1, &x, kScaleParams, 1);
    ut::Program p;
    umap_compile_desc cd = ut::cdesc(1);
    ASSERT_EQ(umap_compile(g, 1, &y, &cd, &p.p), UMAP_OK);
    const float xd[3] = {1, 2, 3};
    ASSERT_EQ(umap_program_bind(p, "x", xd, 3), UMAP_OK);
    EXPECT_EQ(umap_program_run(p), UMAP_ERR_CUSTOM_OP);
}

TEST(Custom, GradcheckCatchesAWrongGradient) {
    ut::Graph g;
    umap_tensor *x = umap_param(g, "x", umap_shape1(5));
    umap_tensor *y = umap_custom(g, &kScaleWrongGrad, 1, &x, kScaleParams, 1);
    umap_tensor *loss = umap_sum(g, umap_square(g, y), UMAP_AXES_ALL, 0);
    std::vector<float> xd = ut::uniform(5, 1, 0.5, 1);
    void *vals[1] = {xd.data()};
    umap_gradcheck_report rep;
    EXPECT_EQ(umap_gradcheck(g, loss, 1, &x, vals, 1, &x, nullptr, &rep), UMAP_ERR_GRADCHECK);
    EXPECT_EQ(rep.worst_wrt, 0);
    EXPECT_NEAR(rep.worst_autodiff / rep.worst_numeric, 2.0 / 3.0, 1e-2);
}

/* ---- custom backends ------------------------------------------------------------- */

namespace {

struct Counting {
    int runs = 0;
    bool reject_matmul = false;
};
int delegate_supports(const umap_backend *be, const umap_program *p, const umap_step *s) {
    Counting *c = (Counting *)be->user_data;
    if (c->reject_matmul && umap_step_op(s) == UMAP_OP_MATMUL) return 0;
    const umap_backend *cpu = umap_cpu_backend();
    return cpu->supports ? cpu->supports(cpu, p, s) : 1;
}
umap_result delegate_run(const umap_backend *be, umap_program *p, const umap_step *s) {
    ((Counting *)be->user_data)->runs++;
    const umap_backend *cpu = umap_cpu_backend();
    return cpu->run_step(cpu, p, s);
}

// A backend that hands each step to the CPU's, filled by member name.
umap_backend delegating(const char *name, Counting *cnt) {
    umap_backend be = umap_backend();
    be.name = name;
    be.supports = delegate_supports;
    be.run_step = delegate_run;
    be.user_data = cnt;
    return be;
}

} // namespace

TEST(Backend, SupportsRejectingMatmulIsUnsupportedOp) {
    Counting cnt;
    cnt.reject_matmul = true;
    umap_backend be = delegating("no-matmul", &cnt);
    ut::Graph g;
    umap_tensor *a = umap_input(g, "a", umap_shape2(2, 3)), *b = umap_param(g, "b", umap_shape2(3, 2));
    umap_tensor *y = umap_tanh(g, umap_matmul(g, a, b));
    umap_compile_desc cd = ut::cdesc(1);
    cd.backend = &be;
    ut::Program p;
    EXPECT_EQ(umap_compile(g, 1, &y, &cd, &p.p), UMAP_ERR_UNSUPPORTED_OP);
    EXPECT_EQ(p.p, nullptr);
    std::string d = umap_graph_error_detail(g);
    EXPECT_NE(d.find("matmul"), std::string::npos) << d;
}

TEST(Backend, DelegatingBackendRunsEveryStep) {
    Counting cnt;
    umap_backend be = delegating("delegate", &cnt);
    ASSERT_NE(umap_cpu_backend(), nullptr);
    ASSERT_NE(umap_cpu_backend()->run_step, nullptr);
    SmallMlp m;
    ut::Graph g;
    umap_tensor *x = umap_input(g, "x", umap_shape2(m.n, m.d));
    umap_tensor *w1 = umap_param(g, "w1", umap_shape2(m.d, m.h));
    umap_tensor *b1 = umap_param(g, "b1", umap_shape1(m.h));
    umap_tensor *w2 = umap_param(g, "w2", umap_shape2(m.h, m.o));
    umap_tensor *b2 = umap_param(g, "b2", umap_shape1(m.o));
    umap_tensor *y = umap_sigmoid(g, umap_add(g, umap_matmul(g, umap_tanh(g, umap_add(g, umap_matmul(g, x, w1), b1)), w2), b2));
    umap_compile_desc cd = ut::cdesc(1);
    cd.backend = &be;
    ut::Program p;
    ASSERT_EQ(umap_compile(g, 1, &y, &cd, &p.p), UMAP_OK) << g.detail();
    ASSERT_EQ(umap_program_bind(p, "x", m.x.data(), (int64_t)m.x.size()), UMAP_OK);
    ASSERT_EQ(umap_program_bind(p, "w1", m.w1.data(), (int64_t)m.w1.size()), UMAP_OK);
    ASSERT_EQ(umap_program_bind(p, "b1", m.b1.data(), (int64_t)m.b1.size()), UMAP_OK);
    ASSERT_EQ(umap_program_bind(p, "w2", m.w2.data(), (int64_t)m.w2.size()), UMAP_OK);
    ASSERT_EQ(umap_program_bind(p, "b2", m.b2.data(), (int64_t)m.b2.size()), UMAP_OK);
    ASSERT_EQ(umap_program_run(p), UMAP_OK) << p.detail();
    umap_program_stats st;
    umap_program_stats_get(p, &st);
    EXPECT_EQ(cnt.runs, st.steps);
    EXPECT_GE(cnt.runs, 2);
    EXPECT_TRUE(ut::all_close(ut::output(p, 0), m.reference(), 1e-5, 1e-5));
}

/* ---- profile ---------------------------------------------------------------------- */

TEST(Run, Profile) {
    ut::Graph g;
    umap_tensor *a = umap_input(g, "a", umap_shape2(16, 8)), *b = umap_param(g, "b", umap_shape2(8, 4));
    umap_tensor *y = umap_sum(g, umap_exp(g, umap_tanh(g, umap_matmul(g, a, b))), UMAP_AXES_ALL, 0);
    umap_compile_desc cd = ut::cdesc(1);
    cd.profile = 1;
    ut::Program p;
    ASSERT_EQ(umap_compile(g, 1, &y, &cd, &p.p), UMAP_OK);
    std::vector<float> ad = ut::uniform(128, 1, -1, 1), bd = ut::uniform(32, 2, -1, 1);
    ASSERT_EQ(umap_program_bind(p, "a", ad.data(), 128), UMAP_OK);
    ASSERT_EQ(umap_program_bind(p, "b", bd.data(), 32), UMAP_OK);
    for (int i = 0; i < 3; i++) ASSERT_EQ(umap_program_run(p), UMAP_OK);
    umap_profile pr;
    umap_program_profile(p, &pr);
    EXPECT_EQ(pr.runs, 3);
    EXPECT_EQ(pr.calls[UMAP_OP_MATMUL], 3);
    EXPECT_GE(pr.ms[UMAP_OP_MATMUL], 0.0);
    EXPECT_GE(pr.calls[UMAP_OP_SUM] + pr.region_calls, 3);
    umap_program_profile_reset(p);
    umap_program_profile(p, &pr);
    EXPECT_EQ(pr.runs, 0);
    EXPECT_EQ(pr.calls[UMAP_OP_MATMUL], 0);
}

/* ---- optimiser ------------------------------------------------------------------------ */

TEST(Optim, AdamMatchesHandComputedSteps) {
    const int n = 6;
    const double lr = 0.01, b1 = 0.8, b2 = 0.95, eps = 1e-6, wd = 0.1, scale = 0.5;
    std::vector<float> w = ut::uniform(n, 1, -1, 1), m(n, 0.0f), v(n, 0.0f);
    std::vector<double> rw(w.begin(), w.end()), rm(n, 0.0), rv(n, 0.0);
    umap_adam_desc d = {(float)lr, (float)b1, (float)b2, (float)eps, (float)wd};
    for (int t = 1; t <= 4; t++) {
        std::vector<float> g = ut::uniform(n, 10 + t, -2, 2);
        umap_adam_update(&d, t, w.data(), g.data(), m.data(), v.data(), n, (float)scale, nullptr);
        for (int i = 0; i < n; i++) {
            double gi = scale * g[(size_t)i];
            rm[(size_t)i] = b1 * rm[(size_t)i] + (1 - b1) * gi;
            rv[(size_t)i] = b2 * rv[(size_t)i] + (1 - b2) * gi * gi;
            double mh = rm[(size_t)i] / (1 - std::pow(b1, t)), vh = rv[(size_t)i] / (1 - std::pow(b2, t));
            rw[(size_t)i] -= lr * (mh / (std::sqrt(vh) + eps) + wd * rw[(size_t)i]);
        }
        EXPECT_TRUE(ut::all_close(m, rm, 1e-6, 1e-5)) << "m after step " << t;
        EXPECT_TRUE(ut::all_close(v, rv, 1e-6, 1e-5)) << "v after step " << t;
        EXPECT_TRUE(ut::all_close(w, rw, 1e-6, 1e-5)) << "w after step " << t;
    }
}

TEST(Optim, AdamDefaultsFirstStep) {
    /* the default desc (and NULL, the same): lr 1e-3, betas 0.9 and 0.999;
       the first step moves each weight by lr * sign(g) */
    const umap_adam_desc def = umap_adam_desc_default();
    EXPECT_EQ(def.lr, 1e-3f);
    EXPECT_EQ(def.beta1, 0.9f);
    EXPECT_EQ(def.beta2, 0.999f);
    EXPECT_EQ(def.eps, 1e-8f);
    EXPECT_EQ(def.weight_decay, 0.0f);
    for (const umap_adam_desc *d : {&def, (const umap_adam_desc *)nullptr}) {
        float w[4] = {1, 1, 1, 1}, g[4] = {0.5f, -2, 3, -0.1f}, m[4] = {0}, v[4] = {0};
        umap_adam_update(d, 1, w, g, m, v, 4, 1.0f, nullptr);
        const float want[4] = {0.999f, 1.001f, 0.999f, 1.001f};
        for (int i = 0; i < 4; i++) EXPECT_NEAR(w[i], want[i], 1e-6) << i;
        EXPECT_NEAR(m[0], 0.1f * 0.5f, 1e-7);
        EXPECT_NEAR(v[1], 0.001f * 4.0f, 1e-7);
    }
    umap_train_desc td = umap_train_desc_default();
    EXPECT_EQ(std::memcmp(&td.adam, &def, sizeof def), 0);
    EXPECT_EQ(td.n_params, 0);
    EXPECT_EQ(td.grad_clip, 0.0f);
}

TEST(Optim, AdamHonoursZeroBetas) {
    /* beta1 = 0 is a legal Adam setting (no momentum): m is the gradient and
       the step is RMSProp-like. With beta2 0.5 too, over three steps by hand:
       v = 0.5 v + 0.5 g^2, w -= lr * g / (sqrt(v / (1 - 0.5^t)) + eps).
       A zero-initialised desc is beta1 = beta2 = 0: m = g, v = g^2. */
    const double lr = 0.01, eps = 1e-8;
    umap_adam_desc d = umap_adam_desc_default();
    d.lr = (float)lr;
    d.beta1 = 0.0f;
    d.beta2 = 0.5f;
    std::vector<float> w = {1.0f, -0.5f, 0.25f}, m(3, 0.0f), v(3, 0.0f);
    std::vector<double> rw(w.begin(), w.end()), rv(3, 0.0);
    for (int t = 1; t <= 3; t++) {
        std::vector<float> g = ut::uniform(3, 20 + t, -2, 2);
        umap_adam_update(&d, t, w.data(), g.data(), m.data(), v.data(), 3, 1.0f, nullptr);
        for (int i = 0; i < 3; i++) {
            double gi = g[(size_t)i];
            rv[(size_t)i] = 0.5 * rv[(size_t)i] + 0.5 * gi * gi;
            rw[(size_t)i] -= lr * gi / (std::sqrt(rv[(size_t)i] / (1 - std::pow(0.5, t))) + eps);
            EXPECT_EQ(m[(size_t)i], g[(size_t)i]) << "beta1 0: m is this step's gradient, step " << t;
        }
        EXPECT_TRUE(ut::all_close(v, rv, 1e-6, 1e-5)) << "v after step " << t;
        EXPECT_TRUE(ut::all_close(w, rw, 1e-6, 1e-5)) << "w after step " << t;
    }
    umap_adam_desc zero;
    std::memset(&zero, 0, sizeof zero);
    float w0[2] = {1, 1}, g0[2] = {0.5f, -3}, m0[2] = {7, 7}, v0[2] = {7, 7};
    umap_adam_update(&zero, 5, w0, g0, m0, v0, 2, 1.0f, nullptr);
    EXPECT_EQ(m0[0], 0.5f);
    EXPECT_EQ(m0[1], -3.0f);
    EXPECT_EQ(v0[0], 0.25f);
    EXPECT_EQ(v0[1], 9.0f);
    EXPECT_NEAR(w0[0], 1 - 1e-3, 1e-6) << "lr 0 and eps 0 still mean their defaults";
    EXPECT_NEAR(w0[1], 1 + 1e-3, 1e-6);
}

TEST(Optim, AdamThreadedEqualsSerial) {
    const int64_t n = 100003;
    std::vector<float> g = ut::uniform(n, 3, -1, 1);
    std::vector<float> w1 = ut::uniform(n, 4, -1, 1), w2 = w1, m1(n, 0), m2(n, 0), v1(n, 0), v2(n, 0);
    umap_pool *pool = nullptr;
    ASSERT_EQ(umap_pool_create(2, nullptr, &pool), UMAP_OK);
    umap_adam_desc d = umap_adam_desc_default();
    d.weight_decay = 0.01f;
    for (int t = 1; t <= 3; t++) {
        umap_adam_update(&d, t, w1.data(), g.data(), m1.data(), v1.data(), n, 0.7f, nullptr);
        umap_adam_update(&d, t, w2.data(), g.data(), m2.data(), v2.data(), n, 0.7f, pool);
    }
    umap_pool_free(pool);
    EXPECT_TRUE(ut::bitwise_equal(w1, w2));
    EXPECT_TRUE(ut::bitwise_equal(m1, m2));
    EXPECT_TRUE(ut::bitwise_equal(v1, v2));
}

TEST(Optim, AdamFlushesUnderflowingMomentsToZeroAndKeepsNaN) {
    /* A moment that would fall below FLT_MIN is stored as 0 (subnormal
       arithmetic is a microcode assist on x86, and a weight whose gradient
       is 0 decays through subnormals for many steps); a NaN gradient still
       reaches m, v and the weight. 13 weights: the SIMD lanes and the scalar
       remainder, the tiny and the NaN cases in both. */
    const int n = 13;
    const float tiny = FLT_MIN * 1.05f; /* x 0.9 (beta1) or x 0.5 (beta2) is subnormal */
    umap_adam_desc d = umap_adam_desc_default();
    d.beta2 = 0.5f;
    std::vector<float> w(n, 1.0f), g(n, 0.25f), m(n, 0.0f), v(n, 0.0f);
    for (int i : {1, 12}) { g[(size_t)i] = 0.0f; m[(size_t)i] = -tiny; v[(size_t)i] = tiny; }
    for (int i : {2, 11}) g[(size_t)i] = NAN;
    umap_adam_update(&d, 3, w.data(), g.data(), m.data(), v.data(), n, 1.0f, nullptr);
    for (int i = 0; i < n; i++) {
        if (i == 1 || i == 12) {
            EXPECT_EQ(m[(size_t)i], 0.0f) << i;
            EXPECT_EQ(v[(size_t)i], 0.0f) << i;
            EXPECT_EQ(w[(size_t)i], 1.0f) << i << ": no gradient, no history, no move";
        } else if (i == 2 || i == 11) {
            EXPECT_TRUE(std::isnan(m[(size_t)i]) && std::isnan(v[(size_t)i]) && std::isnan(w[(size_t)i])) << i;
        } else {
            EXPECT_FLOAT_EQ(m[(size_t)i], 0.1f * 0.25f) << i;
            EXPECT_FLOAT_EQ(v[(size_t)i], 0.5f * 0.25f * 0.25f) << i;
            EXPECT_LT(w[(size_t)i], 1.0f) << i;
        }
    }
}

TEST(Optim, ProgramTrainStepIsAdamOnTheBoundBuffers) {
    /* loss = sum((a * x)^2) + sum(b^2): the program's train step must equal
       umap_adam_update with umap_grad_clip_scale, bit for bit, on the bound
       buffers themselves (the CPU keeps no copy) */
    ut::Graph g;
    umap_tensor *x = umap_input(g, "x", umap_shape1(5));
    umap_tensor *ps[2] = {umap_param(g, "a", umap_shape1(5)), umap_param(g, "b", umap_shape1(3))};
    umap_tensor *outs[3];
    outs[0] = umap_add(g, umap_sum(g, umap_square(g, umap_mul(g, ps[0], x)), 1u, 0), umap_sum(g, umap_square(g, ps[1]), 1u, 0));
    ASSERT_EQ(umap_grad(g, outs[0], 2, ps, outs + 1), UMAP_OK) << g.detail();
    ut::Program p;
    umap_compile_desc cd = ut::cdesc(1);
    ASSERT_EQ(umap_compile(g, 3, outs, &cd, &p.p), UMAP_OK) << g.detail();
    std::vector<float> xs = ut::uniform(5, 1, -2, 2), a = ut::uniform(5, 2, -1, 1), b = ut::uniform(3, 3, -1, 1);
    std::vector<float> ra = a, rb = b, ma(5, 0), va(5, 0), mb(3, 0), vb(3, 0);
    ASSERT_EQ(umap_program_bind(p, "x", xs.data(), 5), UMAP_OK);
    ASSERT_EQ(umap_program_bind(p, "a", a.data(), 5), UMAP_OK);
    ASSERT_EQ(umap_program_bind(p, "b", b.data(), 3), UMAP_OK);
    const char *names[2] = {"a", "b"};
    int grads[2] = {1, 2};
    umap_train_desc td = umap_train_desc_default();
    td.n_params = 2;
    td.params = names;
    td.grad_outputs = grads;
    td.adam.lr = 0.1f;
    td.adam.weight_decay = 0.05f;
    td.grad_clip = 1.0f;
    /* bad descriptions, each a clear error that leaves nothing attached */
    EXPECT_EQ(umap_program_train_attach(p, nullptr), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_program_train_step(p, 1, 1.0f), UMAP_ERR_INVALID_ARGUMENT) << "nothing attached";
    EXPECT_EQ(umap_program_train_store(p), UMAP_ERR_INVALID_ARGUMENT);
    {
        umap_train_desc bad = td;
        const char *unknown[2] = {"a", "nope"}, *twice[2] = {"a", "a"};
        int out_of_range[2] = {1, 3}, wrong_size[2] = {1, 1};
        bad.params = unknown;
        EXPECT_EQ(umap_program_train_attach(p, &bad), UMAP_ERR_UNKNOWN_INPUT);
        EXPECT_NE(std::string(p.detail()).find("nope"), std::string::npos) << p.detail();
        bad.params = twice;
        EXPECT_EQ(umap_program_train_attach(p, &bad), UMAP_ERR_INVALID_ARGUMENT);
        bad.params = names;
        bad.grad_outputs = out_of_range;
        EXPECT_EQ(umap_program_train_attach(p, &bad), UMAP_ERR_INVALID_ARGUMENT);
        bad.grad_outputs = wrong_size;
        EXPECT_EQ(umap_program_train_attach(p, &bad), UMAP_ERR_SHAPE) << "b's gradient is a's size";
        bad = td;
        bad.adam.beta1 = 1.0f;
        EXPECT_EQ(umap_program_train_attach(p, &bad), UMAP_ERR_INVALID_ARGUMENT);
        bad = td;
        bad.grad_clip = NAN;
        EXPECT_EQ(umap_program_train_attach(p, &bad), UMAP_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(umap_program_train_load(p), UMAP_ERR_INVALID_ARGUMENT) << "a failed attach leaves none";
    }
    ASSERT_EQ(umap_program_train_attach(p, &td), UMAP_OK) << p.detail();
    EXPECT_EQ(umap_program_train_step(p, 1, 1.0f), UMAP_ERR_INVALID_ARGUMENT) << "no run yet";
    umap_adam_desc ad = td.adam;
    for (int t = 1; t <= 4; t++) {
        ASSERT_EQ(umap_program_run(p), UMAP_OK) << p.detail();
        const std::vector<float> ga = ut::output(p, 1), gb = ut::output(p, 2);
        const float *gs[2] = {ga.data(), gb.data()};
        const int64_t sizes[2] = {5, 3};
        float scale = umap_grad_clip_scale(2, gs, sizes, td.grad_clip);
        float lr_scale = 1.0f - 0.2f * (float)(t - 1);
        if (t == 1) {
            EXPECT_LT(scale, 1.0f) << "the clip is exercised";
        }
        ad.lr = td.adam.lr * lr_scale;
        umap_adam_update(&ad, t, ra.data(), ga.data(), ma.data(), va.data(), 5, scale, nullptr);
        umap_adam_update(&ad, t, rb.data(), gb.data(), mb.data(), vb.data(), 3, scale, nullptr);
        ASSERT_EQ(umap_program_train_step(p, t, lr_scale), UMAP_OK) << p.detail();
        EXPECT_TRUE(ut::bitwise_equal(a, ra)) << "step " << t;
        EXPECT_TRUE(ut::bitwise_equal(b, rb)) << "step " << t;
    }
    EXPECT_EQ(umap_program_train_step(p, 0, 1.0f), UMAP_ERR_INVALID_ARGUMENT) << "steps count from 1";
    const std::vector<float> before = a;
    EXPECT_EQ(umap_program_train_step(p, 5, 0.0f), UMAP_OK);
    EXPECT_TRUE(ut::bitwise_equal(a, before)) << "lr_scale 0 skips the update";
    EXPECT_EQ(umap_program_train_store(p), UMAP_OK);
    EXPECT_EQ(umap_program_train_load(p), UMAP_OK);
}

TEST(Optim, GradClipScale) {
    const float a[2] = {3, 4}, b[1] = {12};
    const float *arrs[2] = {a, b};
    const int64_t sizes[2] = {2, 1};
    /* ||[3,4,12]|| = 13 */
    EXPECT_NEAR(umap_grad_clip_scale(2, arrs, sizes, 6.5f), 0.5f, 1e-6);
    EXPECT_NEAR(umap_grad_clip_scale(2, arrs, sizes, 1.3f), 0.1f, 1e-6);
    EXPECT_EQ(umap_grad_clip_scale(2, arrs, sizes, 13.0f), 1.0f);
    EXPECT_EQ(umap_grad_clip_scale(2, arrs, sizes, 20.0f), 1.0f);
    EXPECT_EQ(umap_grad_clip_scale(2, arrs, sizes, 0.0f), 1.0f);
    EXPECT_EQ(umap_grad_clip_scale(2, arrs, sizes, -1.0f), 1.0f);
    const float z[3] = {0, 0, 0};
    const float *za[1] = {z};
    const int64_t zs[1] = {3};
    EXPECT_EQ(umap_grad_clip_scale(1, za, zs, 1.0f), 1.0f) << "zero gradient: no scaling, no NaN";
}

/* ---- edge cases ------------------------------------------------------------------------- */

TEST(Edge, ZeroDimsAreRejectedCleanly) {
    /* leaves need dims >= 1: a zero dim is a builder error, not a crash later */
    ut::Graph g;
    EXPECT_EQ(umap_input(g, "x", umap_shape2(0, 3)), nullptr);
    umap_result r = umap_graph_status(g);
    EXPECT_TRUE(r == UMAP_ERR_SHAPE || r == UMAP_ERR_INVALID_ARGUMENT) << umap_result_string(r);
    EXPECT_NE(std::string(umap_graph_error_detail(g)).find("[0,3]"), std::string::npos) << g.detail();
    umap_graph_clear_error(g);
    umap_tensor *x = umap_input(g, "y", umap_shape1(4));
    EXPECT_EQ(umap_slice(g, x, 0, 1, 0), nullptr) << "empty slice";
    umap_graph_clear_error(g);
    EXPECT_EQ(umap_scatter_add(g, x, umap_input_i32(g, "i", umap_shape1(4)), 0), nullptr) << "n_rows 0";
}

TEST(Edge, LongChainCompilesAndDifferentiates) {
    /* thousands of nodes: no recursion limits in compile or autodiff */
    ut::Graph g;
    umap_tensor *x = umap_param(g, "x", umap_shape1(4));
    umap_tensor *y = x;
    const int n = 3000;
    for (int i = 0; i < n; i++) y = (i % 2) ? umap_add_scalar(g, y, 0.001f) : umap_mul_scalar(g, y, 0.999f);
    umap_tensor *loss = umap_sum(g, y, UMAP_AXES_ALL, 0), *gx = nullptr;
    ASSERT_EQ(umap_grad(g, loss, 1, &x, &gx), UMAP_OK) << g.detail();
    ut::Program p;
    umap_compile_desc cd = ut::cdesc(1);
    umap_tensor *outs[2] = {loss, gx};
    ASSERT_EQ(umap_compile(g, 2, outs, &cd, &p.p), UMAP_OK) << g.detail();
    const float xd[4] = {1, 2, 3, 4};
    ASSERT_EQ(umap_program_bind(p, "x", xd, 4), UMAP_OK);
    ASSERT_EQ(umap_program_run(p), UMAP_OK);
    double scale = std::pow(0.999, n / 2);
    for (float v : ut::output(p, 1)) EXPECT_NEAR(v, scale, 1e-4);
}

TEST(Edge, ManyThreadsFewTasks) {
    ut::Graph g;
    umap_tensor *x = umap_input(g, "x", umap_shape2(3, 2));
    umap_tensor *w = umap_param(g, "w", umap_shape2(2, 2));
    umap_tensor *y = umap_sum(g, umap_tanh(g, umap_matmul(g, x, w)), 1, 0);
    std::vector<float> xd = ut::uniform(6, 1, -1, 1), wd = ut::uniform(4, 2, -1, 1);
    std::vector<float> ref;
    for (int nt : {1, 7, 16}) {
        ut::Program p;
        umap_compile_desc cd = ut::cdesc(nt);
        ASSERT_EQ(umap_compile(g, 1, &y, &cd, &p.p), UMAP_OK);
        ASSERT_EQ(umap_program_bind(p, "x", xd.data(), 6), UMAP_OK);
        ASSERT_EQ(umap_program_bind(p, "w", wd.data(), 4), UMAP_OK);
        ASSERT_EQ(umap_program_run(p), UMAP_OK);
        std::vector<float> out = ut::output(p, 0);
        if (ref.empty()) ref = out;
        EXPECT_TRUE(ut::bitwise_equal(out, ref)) << nt << " threads";
    }
}

TEST(Edge, GradcheckWrtAnInput) {
    ut::Graph g;
    umap_tensor *x = umap_input(g, "x", umap_shape2(2, 3));
    umap_tensor *w = umap_param(g, "w", umap_shape2(3, 2));
    umap_tensor *unused = umap_param(g, "u", umap_shape1(2));
    umap_tensor *loss = umap_sum(g, umap_sigmoid(g, umap_matmul(g, x, w)), UMAP_AXES_ALL, 0);
    std::vector<float> xd = ut::uniform(6, 1, -1, 1), wd = ut::uniform(6, 2, -1, 1), ud = {1, 2};
    umap_tensor *leaves[3] = {x, w, unused};
    void *vals[3] = {xd.data(), wd.data(), ud.data()};
    umap_tensor *wrt[3] = {x, w, unused};
    umap_gradcheck_report r;
    EXPECT_EQ(umap_gradcheck(g, loss, 3, leaves, vals, 3, wrt, nullptr, &r), UMAP_OK);
    EXPECT_EQ(r.checked, 14);
    /* a wrt that is not among the leaves is an argument error */
    umap_tensor *lv2[1] = {w};
    void *v2[1] = {wd.data()};
    EXPECT_NE(umap_gradcheck(g, loss, 1, lv2, v2, 1, &x, nullptr, &r), UMAP_OK);
}

/* A compiled program owns copies of what it needs (leaf names and sizes,
   constants), so the graph may be freed before it. */
TEST(Run, ProgramOutlivesItsGraph) {
    umap_graph *g = nullptr;
    ASSERT_EQ(umap_graph_create(nullptr, &g), UMAP_OK);
    umap_tensor *x = umap_input(g, "x", umap_shape2(2, 3));
    float cdata[6] = {1, 2, 3, 4, 5, 6};
    umap_tensor *c = umap_constant(g, umap_shape2(2, 3), cdata);
    umap_tensor *y = umap_mul(g, umap_tanh(g, x), c);
    umap_program *p = nullptr;
    ASSERT_EQ(umap_compile(g, 1, &y, nullptr, &p), UMAP_OK);
    umap_graph_free(g);
    std::vector<float> xd = ut::uniform(6, 11, -1, 1);
    EXPECT_EQ(umap_program_bind(p, "nope", xd.data(), 6), UMAP_ERR_UNKNOWN_INPUT);
    EXPECT_EQ(umap_program_run(p), UMAP_ERR_MISSING_INPUT);
    ASSERT_EQ(umap_program_bind(p, "x", xd.data(), 6), UMAP_OK);
    ASSERT_EQ(umap_program_run(p), UMAP_OK);
    const float *out = nullptr;
    ASSERT_EQ(umap_program_output(p, 0, &out, nullptr), UMAP_OK);
    for (int i = 0; i < 6; i++) EXPECT_FLOAT_EQ(out[i], std::tanh(xd[(size_t)i]) * cdata[i]);
    FILE *f = tmpfile();
    ASSERT_NE(f, nullptr);
    for (int st = 0; st < UMAP_STAGE_COUNT; st++) {
        umap_program_dump(p, (umap_stage)st, f);
        umap_program_dot(p, (umap_stage)st, f);
    }
    umap_program_fusion_report(p, f);
    EXPECT_GT(ftell(f), 100);
    fclose(f);
    umap_program_free(p);
}

namespace {
struct CountingAllocator {
    long allocs = 0;
    static void *alloc(size_t size, void *ud) {
        ((CountingAllocator *)ud)->allocs++;
        return std::malloc(size);
    }
    static void release(void *p, void *) { std::free(p); }
};
} // namespace

/* The contract: run allocates on its first call only. Covers
   matmul (both sgemm paths), fused kernels, reductions, gather and scatter. */
TEST(Run, NoAllocationAfterFirstRun) {
    for (int nt : {1, 2}) {
        CountingAllocator ca;
        umap_graph_desc gd;
        std::memset(&gd, 0, sizeof gd);
        gd.allocator.alloc_fn = CountingAllocator::alloc;
        gd.allocator.free_fn = CountingAllocator::release;
        gd.allocator.user_data = &ca;
        umap_graph *g = nullptr;
        ASSERT_EQ(umap_graph_create(&gd, &g), UMAP_OK);
        umap_tensor *x = umap_input(g, "x", umap_shape2(64, 16));
        umap_tensor *idx = umap_input_i32(g, "idx", umap_shape1(32));
        umap_tensor *w1 = umap_param(g, "w1", umap_shape2(16, 24));
        umap_tensor *b1 = umap_param(g, "b1", umap_shape1(24));
        umap_tensor *w2 = umap_param(g, "w2", umap_shape2(24, 2));
        umap_tensor *rows = umap_gather(g, x, idx);
        umap_tensor *h = umap_relu(g, umap_add(g, umap_matmul(g, rows, w1), b1));
        umap_tensor *loss = umap_mean(g, umap_square(g, umap_matmul(g, h, w2)), UMAP_AXES_ALL, 0);
        umap_tensor *wrt[4] = {x, w1, b1, w2}, *grads[4];
        ASSERT_EQ(umap_grad(g, loss, 4, wrt, grads), UMAP_OK);
        umap_tensor *outs[5] = {loss, grads[0], grads[1], grads[2], grads[3]};
        umap_compile_desc cd = ut::cdesc(nt);
        umap_program *p = nullptr;
        ASSERT_EQ(umap_compile(g, 5, outs, &cd, &p), UMAP_OK) << umap_graph_error_detail(g);
        std::vector<float> xd = ut::uniform(64 * 16, 1, -1, 1), w1d = ut::uniform(16 * 24, 2, -1, 1),
                           b1d = ut::uniform(24, 3, -1, 1), w2d = ut::uniform(24 * 2, 4, -1, 1);
        std::vector<int32_t> id(32);
        for (int i = 0; i < 32; i++) id[(size_t)i] = (i * 7) % 64;
        ASSERT_EQ(umap_program_bind(p, "x", xd.data(), 64 * 16), UMAP_OK);
        ASSERT_EQ(umap_program_bind(p, "idx", id.data(), 32), UMAP_OK);
        ASSERT_EQ(umap_program_bind(p, "w1", w1d.data(), 16 * 24), UMAP_OK);
        ASSERT_EQ(umap_program_bind(p, "b1", b1d.data(), 24), UMAP_OK);
        ASSERT_EQ(umap_program_bind(p, "w2", w2d.data(), 24 * 2), UMAP_OK);
        ASSERT_EQ(umap_program_run(p), UMAP_OK);
        long after_first = ca.allocs;
        for (int r = 0; r < 5; r++) ASSERT_EQ(umap_program_run(p), UMAP_OK);
        EXPECT_EQ(ca.allocs, after_first) << "run allocated after its first call (threads " << nt << ")";
        umap_program_free(p);
        umap_graph_free(g);
    }
}
