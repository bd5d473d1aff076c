/* >>base >>rng >>threads: result strings, Philox, the RNG helpers, the pool,
   and allocation failure everywhere. */
#include <atomic>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "test_util.h"

extern "C" int umap_test_c_smoke(void);

TEST(Base, HeaderWorksFromC) { EXPECT_EQ(umap_test_c_smoke(), 0) << "line of c_smoke.c that failed"; }

TEST(Base, ResultStringsNonEmptyAndDistinct) {
    std::set<std::string> seen;
    for (int r = 0; r < UMAP_RESULT_COUNT; r++) {
        const char *s = umap_result_string((umap_result)r);
        ASSERT_NE(s, nullptr) << "code " << r;
        EXPECT_GT(std::strlen(s), 0u) << "code " << r;
        EXPECT_TRUE(seen.insert(s).second) << "duplicate message '" << s << "' for code " << r;
    }
    EXPECT_STREQ(umap_result_string(UMAP_OK), "ok");
    /* out-of-range codes still give a string, not a crash */
    EXPECT_NE(umap_result_string(UMAP_RESULT_COUNT), nullptr);
    EXPECT_NE(umap_result_string((umap_result)-1), nullptr);
}

TEST(Base, OpNamesNonEmptyAndDistinct) {
    std::set<std::string> seen;
    for (int op = 0; op < UMAP_OP_COUNT; op++) {
        const char *s = umap_op_name((umap_op)op);
        ASSERT_NE(s, nullptr) << "op " << op;
        EXPECT_GT(std::strlen(s), 0u);
        EXPECT_TRUE(seen.insert(s).second) << "duplicate op name " << s;
    }
    EXPECT_STREQ(umap_op_name(UMAP_OP_MATMUL), "matmul");
    EXPECT_STREQ(umap_op_name(UMAP_OP_RMAX), "reduce_max");
}

TEST(Base, Shapes) {
    EXPECT_EQ(umap_shape0().rank, 0);
    EXPECT_EQ(umap_shape_numel(umap_shape0()), 1);
    EXPECT_EQ(umap_shape_numel(umap_shape1(7)), 7);
    EXPECT_EQ(umap_shape_numel(umap_shape2(3, 4)), 12);
    EXPECT_EQ(umap_shape_numel(umap_shape3(2, 3, 4)), 24);
    umap_shape s = umap_shape4(2, 3, 4, 5);
    EXPECT_EQ(s.rank, 4);
    EXPECT_EQ(s.dim[3], 5);
    EXPECT_EQ(umap_shape_numel(s), 120);
    EXPECT_EQ(umap_shape_numel(umap_shape2(0, 5)), 0);
}

/* ---- Philox ---------------------------------------------------------------- */

/* reference Philox4x32-10 straight from the Random123 description */
static void ref_philox(const uint32_t key_in[2], const uint32_t ctr_in[4], uint32_t out[4]) {
    uint32_t k0 = key_in[0], k1 = key_in[1];
    uint32_t c[4] = {ctr_in[0], ctr_in[1], ctr_in[2], ctr_in[3]};
    for (int r = 0; r < 10; r++) {
        if (r > 0) {
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        uint64_t p0 = (uint64_t)0xD2511F53u * c[0];
        uint64_t p1 = (uint64_t)0xCD9E8D57u * c[2];
        uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
        uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
        uint32_t n0 = hi1 ^ c[1] ^ k0, n1 = lo1, n2 = hi0 ^ c[3] ^ k1, n3 = lo0;
        c[0] = n0;
        c[1] = n1;
        c[2] = n2;
        c[3] = n3;
    }
    for (int i = 0; i < 4; i++) out[i] = c[i];
}

TEST(Philox, ReferenceMatchesRandom123Kat) {
    uint32_t key0[2] = {0, 0}, ctr0[4] = {0, 0, 0, 0}, out[4];
    ref_philox(key0, ctr0, out);
    EXPECT_EQ(out[0], 0x6627e8d5u);
    EXPECT_EQ(out[1], 0xe169c58du);
    EXPECT_EQ(out[2], 0xbc57ac4cu);
    EXPECT_EQ(out[3], 0x9b00dbd8u);
    uint32_t key1[2] = {0xffffffffu, 0xffffffffu}, ctr1[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
    ref_philox(key1, ctr1, out);
    EXPECT_EQ(out[0], 0x408f276du);
    EXPECT_EQ(out[1], 0x41c83b0eu);
    EXPECT_EQ(out[2], 0xa20bc7c6u);
    EXPECT_EQ(out[3], 0x6d5451fdu);
}

TEST(Philox, KnownAnswerZero) {
    uint32_t out[4] = {1, 2, 3, 4};
    umap_philox(0, 0, 0, out);
    EXPECT_EQ(out[0], 0x6627e8d5u);
    EXPECT_EQ(out[1], 0xe169c58du);
    EXPECT_EQ(out[2], 0xbc57ac4cu);
    EXPECT_EQ(out[3], 0x9b00dbd8u);
}

TEST(Philox, KnownAnswerAllOnes) {
    uint32_t out[4];
    umap_philox(0xffffffffffffffffull, 0xffffffffffffffffull, 0xffffffffffffffffull, out);
    EXPECT_EQ(out[0], 0x408f276du);
    EXPECT_EQ(out[1], 0x41c83b0eu);
    EXPECT_EQ(out[2], 0xa20bc7c6u);
    EXPECT_EQ(out[3], 0x6d5451fdu);
}

/* key = (seed low, seed high), counter = (counter low, counter high,
   stream low, stream high) */
TEST(Philox, WordLayoutMatchesReference) {
    for (uint64_t i = 0; i < 64; i++) {
        uint64_t seed = ut::mix(i), stream = ut::mix(i + 1000) >> (i % 64), counter = ut::mix(i + 2000) >> (i % 61);
        uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
        uint32_t ctr[4] = {(uint32_t)counter, (uint32_t)(counter >> 32), (uint32_t)stream, (uint32_t)(stream >> 32)};
        uint32_t want[4], got[4];
        ref_philox(key, ctr, want);
        umap_philox(seed, stream, counter, got);
        for (int k = 0; k < 4; k++)
            ASSERT_EQ(got[k], want[k]) << "seed " << seed << " stream " << stream << " counter " << counter;
    }
}

TEST(Rng, DeterministicPerSeedAndStream) {
    umap_rng a, b, c, d;
    umap_rng_init(&a, 42, 7);
    umap_rng_init(&b, 42, 7);
    umap_rng_init(&c, 42, 8);
    umap_rng_init(&d, 43, 7);
    int same_c = 0, same_d = 0;
    for (int i = 0; i < 1000; i++) {
        uint32_t x = umap_rng_u32(&a);
        ASSERT_EQ(x, umap_rng_u32(&b)) << "draw " << i;
        same_c += x == umap_rng_u32(&c);
        same_d += x == umap_rng_u32(&d);
    }
    EXPECT_LT(same_c, 3);
    EXPECT_LT(same_d, 3);
}

TEST(Rng, U32WordsComeFromPhilox) {
    /* every word drawn is a word of some Philox block of this (seed, stream) */
    umap_rng r;
    umap_rng_init(&r, 1234, 5);
    std::set<uint32_t> words;
    for (uint64_t ctr = 0; ctr < 64; ctr++) {
        uint32_t o[4];
        umap_philox(1234, 5, ctr, o);
        for (int k = 0; k < 4; k++) words.insert(o[k]);
    }
    for (int i = 0; i < 200; i++) EXPECT_TRUE(words.count(umap_rng_u32(&r))) << "draw " << i;
}

TEST(Rng, UniformRangeAndMoments) {
    umap_rng r;
    umap_rng_init(&r, 1, 0);
    const int n = 200000;
    double s = 0, s2 = 0;
    float lo = 1, hi = 0;
    for (int i = 0; i < n; i++) {
        float u = umap_rng_uniform(&r);
        ASSERT_GE(u, 0.0f);
        ASSERT_LT(u, 1.0f);
        lo = std::min(lo, u);
        hi = std::max(hi, u);
        s += u;
        s2 += (double)u * u;
    }
    double mean = s / n, var = s2 / n - mean * mean;
    EXPECT_NEAR(mean, 0.5, 0.005);
    EXPECT_NEAR(var, 1.0 / 12.0, 0.003);
    EXPECT_LT(lo, 0.001f);
    EXPECT_GT(hi, 0.999f);
}

TEST(Rng, BelowIsInRangeAndUnbiased) {
    umap_rng r;
    umap_rng_init(&r, 99, 3);
    for (int i = 0; i < 100; i++) EXPECT_EQ(umap_rng_below(&r, 1), 0u);
    const uint32_t k = 7;
    const int n = 140000;
    std::vector<int> count(k, 0);
    for (int i = 0; i < n; i++) {
        uint32_t x = umap_rng_below(&r, k);
        ASSERT_LT(x, k);
        count[x]++;
    }
    double chi2 = 0, e = (double)n / k;
    for (uint32_t i = 0; i < k; i++) chi2 += (count[i] - e) * (count[i] - e) / e;
    EXPECT_LT(chi2, 30.0) << "chi-square with 6 degrees of freedom";
    /* n just above 2^31: a modulo would put 2/3 of the mass below n/2... */
    const uint32_t big = 0x80000001u + 0x40000000u; /* 3 * 2^30 + 1 */
    int below_half = 0;
    for (int i = 0; i < 60000; i++) {
        uint32_t x = umap_rng_below(&r, big);
        ASSERT_LT(x, big);
        below_half += x < big / 2;
    }
    EXPECT_NEAR(below_half / 60000.0, 0.5, 0.015);
    /* n = 2^32 - 1 */
    for (int i = 0; i < 1000; i++) ASSERT_LT(umap_rng_below(&r, 0xffffffffu), 0xffffffffu);
}

TEST(Rng, NormalMoments) {
    umap_rng r;
    umap_rng_init(&r, 5, 11);
    const int n = 200000;
    double s = 0, s2 = 0, s4 = 0;
    int beyond3 = 0;
    for (int i = 0; i < n; i++) {
        float z = umap_rng_normal(&r);
        ASSERT_TRUE(std::isfinite(z));
        s += z;
        s2 += (double)z * z;
        s4 += (double)z * z * z * z;
        beyond3 += std::fabs(z) > 3;
    }
    double mean = s / n, var = s2 / n - mean * mean;
    EXPECT_NEAR(mean, 0.0, 0.01);
    EXPECT_NEAR(var, 1.0, 0.02);
    EXPECT_NEAR(s4 / n, 3.0, 0.1); /* kurtosis of a normal */
    EXPECT_NEAR(beyond3 / (double)n, 0.0027, 0.001);
}

/* ---- pool ------------------------------------------------------------------ */

struct PoolCtx {
    std::vector<std::atomic<int>> *hits;
};
static void pool_task(void *ctx, int64_t task) { (*((PoolCtx *)ctx)->hits)[(size_t)task]++; }

TEST(Pool, EveryTaskExactlyOnce) {
    for (int nt : {1, 2, 4}) {
        umap_pool *pool = nullptr;
        ASSERT_EQ(umap_pool_create(nt, nullptr, &pool), UMAP_OK);
        ASSERT_NE(pool, nullptr);
        EXPECT_EQ(umap_pool_threads(pool), nt);
        for (int64_t n_tasks : {0, 1, 2, 3, 5, 17, 1000, 4099}) {
            for (int rep = 0; rep < 3; rep++) {
                std::vector<std::atomic<int>> hits((size_t)n_tasks);
                for (auto &h : hits) h = 0;
                PoolCtx ctx = {&hits};
                umap_pool_for(pool, n_tasks, pool_task, &ctx);
                for (int64_t t = 0; t < n_tasks; t++)
                    ASSERT_EQ(hits[(size_t)t].load(), 1) << nt << " threads, " << n_tasks << " tasks, task " << t;
            }
        }
        umap_pool_free(pool);
    }
}

TEST(Pool, NullPoolRunsInline) {
    std::vector<std::atomic<int>> hits(100);
    for (auto &h : hits) h = 0;
    PoolCtx ctx = {&hits};
    umap_pool_for(nullptr, 100, pool_task, &ctx);
    for (auto &h : hits) EXPECT_EQ(h.load(), 1);
    umap_pool_free(nullptr); /* harmless */
}

TEST(Pool, AllCoresDefault) {
    umap_pool *pool = nullptr;
    ASSERT_EQ(umap_pool_create(0, nullptr, &pool), UMAP_OK);
    EXPECT_GE(umap_pool_threads(pool), 1);
    umap_pool_free(pool);
    EXPECT_EQ(umap_pool_create(2, nullptr, nullptr), UMAP_ERR_INVALID_ARGUMENT);
}

/* ---- allocation failure ----------------------------------------------------- */

struct FailingAllocator {
    std::atomic<long> attempts{0}, allocs{0}, frees{0};
    long fail_after = -1; /* allocation number (0-based) from which all fail; -1 never */
    static void *alloc(size_t size, void *ud) {
        FailingAllocator *f = (FailingAllocator *)ud;
        long k = f->attempts++;
        if (f->fail_after >= 0 && k >= f->fail_after) return nullptr;
        void *p = std::malloc(size ? size : 1);
        if (p) f->allocs++;
        return p;
    }
    static void release(void *p, void *ud) {
        if (!p) return;
        ((FailingAllocator *)ud)->frees++;
        std::free(p);
    }
    umap_allocator hook() { return ut::allocator_of(this); }
};

#define OK_OR_OOM(expr)                                                                                    \
    do {                                                                                                   \
        umap_result r_ = (expr);                                                                           \
        EXPECT_TRUE(r_ == UMAP_OK || r_ == UMAP_ERR_OUT_OF_MEMORY)                                         \
            << #expr << " gave " << umap_result_string(r_) << " with fail_after " << fa.fail_after;         \
        if (r_ != UMAP_OK) {                                                                               \
            result = r_;                                                                                   \
            goto cleanup;                                                                                  \
        }                                                                                                  \
    } while (0)

/* build a small MLP, differentiate, compile, bind, run; every step either
   works or reports out of memory */
static umap_result mlp_pipeline(FailingAllocator &fa, int n_threads, float *loss_out) {
    umap_result result = UMAP_OK;
    umap_graph *g = nullptr;
    umap_program *p = nullptr;
    umap_graph_desc gd;
    std::memset(&gd, 0, sizeof gd);
    gd.allocator = fa.hook();
    std::vector<float> x = ut::uniform(8 * 3, 1, -1, 1), w1 = ut::uniform(3 * 5, 2, -1, 1), b1 = ut::uniform(5, 3, -1, 1),
                       w2 = ut::uniform(5 * 2, 4, -1, 1);
    umap_tensor *tx, *tw1, *tb1, *tw2, *h, *y, *loss, *grads[3], *outs[4];
    umap_compile_desc cd = ut::cdesc(n_threads);
    OK_OR_OOM(umap_graph_create(&gd, &g));
    tx = umap_input(g, "x", umap_shape2(8, 3));
    tw1 = umap_param(g, "w1", umap_shape2(3, 5));
    tb1 = umap_param(g, "b1", umap_shape1(5));
    tw2 = umap_param(g, "w2", umap_shape2(5, 2));
    h = umap_tanh(g, umap_add(g, umap_matmul(g, tx, tw1), tb1));
    y = umap_matmul(g, h, tw2);
    loss = umap_mean(g, umap_square(g, y), UMAP_AXES_ALL, 0);
    if (!loss) {
        OK_OR_OOM(umap_graph_status(g));
        ADD_FAILURE() << "builder returned NULL but status is OK";
        result = UMAP_ERR_GRAPH;
        goto cleanup;
    }
    {
        umap_tensor *wrt[3] = {tw1, tb1, tw2};
        OK_OR_OOM(umap_grad(g, loss, 3, wrt, grads));
    }
    outs[0] = loss;
    outs[1] = grads[0];
    outs[2] = grads[1];
    outs[3] = grads[2];
    OK_OR_OOM(umap_compile(g, 4, outs, &cd, &p));
    OK_OR_OOM(umap_program_bind(p, "x", x.data(), (int64_t)x.size()));
    OK_OR_OOM(umap_program_bind(p, "w1", w1.data(), (int64_t)w1.size()));
    OK_OR_OOM(umap_program_bind(p, "b1", b1.data(), (int64_t)b1.size()));
    OK_OR_OOM(umap_program_bind(p, "w2", w2.data(), (int64_t)w2.size()));
    OK_OR_OOM(umap_program_run(p));
    OK_OR_OOM(umap_program_run(p));
    {
        const float *d = nullptr;
        OK_OR_OOM(umap_program_output(p, 0, &d, nullptr));
        *loss_out = d[0];
    }
cleanup:
    umap_program_free(p);
    umap_graph_free(g);
    return result;
}

static void alloc_failure_sweep(int n_threads) {
    FailingAllocator ref;
    float ref_loss = 0;
    ASSERT_EQ(mlp_pipeline(ref, n_threads, &ref_loss), UMAP_OK);
    ASSERT_GT(ref.allocs.load(), 0) << "the allocator hook is never called";
    ASSERT_EQ(ref.allocs.load(), ref.frees.load()) << "leak in the successful run";
    long total = ref.attempts.load();
    bool succeeded = false;
    for (long n = 0; n <= total + 1 && !::testing::Test::HasFailure(); n++) {
        FailingAllocator fa;
        fa.fail_after = n;
        float loss = 0;
        umap_result r = mlp_pipeline(fa, n_threads, &loss);
        EXPECT_EQ(fa.allocs.load(), fa.frees.load()) << "leak with fail_after " << n << " (result "
                                                     << umap_result_string(r) << ")";
        if (r == UMAP_OK) {
            succeeded = true;
            EXPECT_EQ(loss, ref_loss);
            break;
        }
        EXPECT_EQ(r, UMAP_ERR_OUT_OF_MEMORY);
    }
    EXPECT_TRUE(succeeded);
}

TEST(AllocFailure, EveryAllocationCanFailSingleThread) { alloc_failure_sweep(1); }
TEST(AllocFailure, EveryAllocationCanFailTwoThreads) { alloc_failure_sweep(2); }

TEST(AllocFailure, PoolCreate) {
    for (long n = 0; n < 64; n++) {
        FailingAllocator fa;
        fa.fail_after = n;
        umap_allocator a = fa.hook();
        umap_pool *pool = nullptr;
        umap_result r = umap_pool_create(3, &a, &pool);
        if (r == UMAP_OK) {
            umap_pool_free(pool);
            EXPECT_EQ(fa.allocs.load(), fa.frees.load());
            return;
        }
        EXPECT_EQ(r, UMAP_ERR_OUT_OF_MEMORY);
        EXPECT_EQ(fa.allocs.load(), fa.frees.load()) << "leak with fail_after " << n;
    }
    ADD_FAILURE() << "pool creation never succeeded";
}
