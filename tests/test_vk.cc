// umap_vk.h: device choice, the clean answer without a driver, and exact
// k-NN on the GPU against the CPU's exact search, bit for bit, with the
// validation layer on (any validation error fails the test).
//
// CI runs this on Mesa's lavapipe (a CPU Vulkan driver) and sets
// UMAP_TEST_REQUIRE_VULKAN=1, so a missing device fails there; elsewhere a
// machine without any Vulkan driver skips the device tests and says why.
#include "umap_vk.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <functional>

#include "test_knn_util.h"

#ifndef UMAP_VULKAN
TEST(Vulkan, BuiltWithoutUmapVulkanSaysSo) {
    umap_vk *vk = reinterpret_cast<umap_vk *>(1);
    char why[128];
    EXPECT_EQ(umap_vk_create(nullptr, &vk, why, sizeof why), UMAP_ERR_NO_DEVICE);
    EXPECT_EQ(vk, nullptr);
    EXPECT_STREQ(why, "built without UMAP_VULKAN");
}
#else

namespace {

bool vulkan_required() {
    const char *v = getenv("UMAP_TEST_REQUIRE_VULKAN");
    return v && *v && strcmp(v, "0") != 0;
}

struct VkCtx {
    umap_vk *vk = nullptr;
    std::string why;
    std::vector<std::string> errors;
    std::string log; /* every message, errors too */
    explicit VkCtx(int64_t max_binding_bytes = 0, int staging = 0) {
        umap_vk_desc d;
        memset(&d, 0, sizeof d);
        d.allow_cpu = 1;
        d.validation = 1;
        d.max_binding_bytes = max_binding_bytes;
        d.staging = staging;
        d.logger.log_fn = [](umap_log_level level, const char *msg, void *ud) {
            VkCtx *c = (VkCtx *)ud;
            if (level == UMAP_LOG_ERROR) c->errors.push_back(msg);
            c->log += std::string(msg) + "\n";
        };
        d.logger.user_data = this;
        char buf[512];
        if (umap_vk_create(&d, &vk, buf, sizeof buf) != UMAP_OK) why = buf;
    }
    VkCtx(const VkCtx &) = delete; /* the logger points at this one */
    VkCtx &operator=(const VkCtx &) = delete;
    ~VkCtx() { umap_vk_free(vk); }
};

/* bindings of these many bytes put the MLP step's program (71 KB) and the
   training loop's in windows, some steps through the scratch area */
#define UMAP_VK_TEST_STEP_WINDOW 40960
#define UMAP_VK_TEST_TRAIN_WINDOW 20480

#define NEED_DEVICE(ctx)                                                                          \
    do {                                                                                          \
        if (!(ctx).vk) {                                                                          \
            if (vulkan_required()) FAIL() << "no Vulkan device: " << (ctx).why;                   \
            GTEST_SKIP() << "no Vulkan device here (" << (ctx).why << ")";                        \
        }                                                                                         \
    } while (0)

std::string joined(const std::vector<std::string> &v) {
    std::string s;
    for (auto &m : v) s += m + "\n";
    return s;
}

} // namespace


TEST(Vulkan, NoDriverIsACleanNoDevice) {
    /* the loader finds no driver: a clear UMAP_ERR_NO_DEVICE, nothing leaked
       (the sanitizer build checks that), and the CPU path still works */
    /* both names the loader reads (VK_DRIVER_FILES, newer, wins over VK_ICD_FILENAMES) */
    const char *const names[2] = {"VK_ICD_FILENAMES", "VK_DRIVER_FILES"};
    std::string saved[2];
    bool had[2];
    for (int i = 0; i < 2; i++) {
        const char *old = getenv(names[i]);
        had[i] = old != nullptr;
        saved[i] = old ? old : "";
        setenv(names[i], "/nonexistent/icd.json", 1);
    }
    umap_vk_desc d;
    memset(&d, 0, sizeof d);
    d.allow_cpu = 1;
    umap_vk *vk = nullptr;
    char why[512] = "";
    umap_result r = umap_vk_create(&d, &vk, why, sizeof why);
    for (int i = 0; i < 2; i++) {
        if (had[i]) setenv(names[i], saved[i].c_str(), 1);
        else unsetenv(names[i]);
    }
    EXPECT_EQ(r, UMAP_ERR_NO_DEVICE) << why;
    EXPECT_EQ(vk, nullptr);
    EXPECT_STRNE(why, "");
    std::vector<float> x = kt::clustered(50, 4, 3, 2, 1);
    std::vector<int32_t> idx(50 * 3);
    umap_knn_desc kd = kt::desc(3);
    EXPECT_EQ(umap_knn(&kd, x.data(), 50, 4, idx.data(), nullptr), UMAP_OK);
}

TEST(Vulkan, DeviceChoice) {
    int count = -1;
    char why[512] = "";
    umap_result r = umap_vk_devices(nullptr, 0, &count, why, sizeof why);
    if (r != UMAP_OK && !vulkan_required()) GTEST_SKIP() << why;
    ASSERT_EQ(r, UMAP_OK) << why;
    ASSERT_GE(count, 1);
    std::vector<umap_vk_device_info> infos((size_t)count);
    ASSERT_EQ(umap_vk_devices(infos.data(), count, &count, why, sizeof why), UMAP_OK);
    for (auto &i : infos) EXPECT_GT(i.max_binding_bytes, 0) << i.name;
    /* an index past the end is NO_DEVICE, with the count in the message */
    umap_vk_desc d;
    memset(&d, 0, sizeof d);
    d.pick = UMAP_VK_PICK_INDEX;
    d.index = count;
    umap_vk *vk = nullptr;
    EXPECT_EQ(umap_vk_create(&d, &vk, why, sizeof why), UMAP_ERR_NO_DEVICE);
    EXPECT_NE(std::string(why).find("device(s) found"), std::string::npos) << why;
    /* an explicit index takes that device, CPU or not */
    d.index = infos[0].index;
    ASSERT_EQ(umap_vk_create(&d, &vk, why, sizeof why), UMAP_OK) << why;
    umap_vk_device_info got;
    ASSERT_EQ(umap_vk_device(vk, &got), UMAP_OK);
    EXPECT_STREQ(got.name, infos[0].name);
    umap_vk_free(vk);
    /* auto never takes a CPU implementation unless allowed */
    bool only_cpu = true;
    for (auto &i : infos) only_cpu &= i.type == UMAP_VK_DEVICE_CPU;
    if (only_cpu && !getenv("UMAP_VK_ALLOW_CPU") && !getenv("UMAP_VK_DEVICE")) {
        memset(&d, 0, sizeof d);
        EXPECT_EQ(umap_vk_create(&d, &vk, why, sizeof why), UMAP_ERR_NO_DEVICE);
        EXPECT_NE(std::string(why).find("allow_cpu"), std::string::npos) << why;
    }
    /* bad descriptors */
    memset(&d, 0, sizeof d);
    d.max_binding_bytes = -1;
    EXPECT_EQ(umap_vk_create(&d, &vk, why, sizeof why), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_vk_create(nullptr, nullptr, why, sizeof why), UMAP_ERR_INVALID_ARGUMENT);
}

TEST(Vulkan, KnnEqualsTheExactCpuSearch) {
    struct Case {
        int64_t n, dim;
        int k;
        umap_metric metric;
        int64_t max_binding; /* 0 = the device's; small = many windows */
        int dups;            /* rows copied onto others */
    };
    const std::vector<Case> cases = {
        {300, 16, 10, UMAP_METRIC_EUCLIDEAN, 0, 0},
        {300, 16, 10, UMAP_METRIC_COSINE, 0, 0},
        {257, 3, 1, UMAP_METRIC_EUCLIDEAN, 0, 0},         /* k = 1, a ragged last workgroup */
        {40, 7, 39, UMAP_METRIC_EUCLIDEAN, 0, 0},         /* k = n - 1: everything listed */
        {500, 50, 15, UMAP_METRIC_EUCLIDEAN, 4096, 0},    /* 20 rows a window: 25 x 25 window pairs */
        {500, 50, 15, UMAP_METRIC_COSINE, 8192, 0},
        {400, 8, 15, UMAP_METRIC_EUCLIDEAN, 0, 60},       /* 61 equal rows: ties by index, those rows rechecked */
        {200, 33, 20, UMAP_METRIC_EUCLIDEAN, 0, 0},
        {300, 16, 10, UMAP_METRIC_CORRELATION, 0, 0},     /* the device screens the centred unit copy */
        {500, 50, 15, UMAP_METRIC_CORRELATION, 8192, 0},
        {300, 16, 10, UMAP_METRIC_HELLINGER, 0, 30},      /* euclidean on the square-root copy, its root / sqrt 2 */
        {300, 16, 10, UMAP_METRIC_MANHATTAN, 0, 0},       /* no Gram screen: the CPU's search, the same bits */
        {260, 9, 250, UMAP_METRIC_MINKOWSKI, 0, 0},       /* ... and k beyond the device's lists */
        {200, 12, 7, UMAP_METRIC_CHEBYSHEV, 0, 60},
        {150, 150, 9, UMAP_METRIC_PRECOMPUTED, 0, 0},     /* the rows' distances: the CPU's selection */
        {300, 2, 10, UMAP_METRIC_HAVERSINE, 0, 0},        /* (latitude, longitude): the CPU's search */
        {300, 16, 10, UMAP_METRIC_SEUCLIDEAN, 0, 0},      /* the device screens the copy divided by sqrt V */
        {300, 16, 10, UMAP_METRIC_CUSTOM, 0, 30},         /* the caller's function: the CPU's search */
    };
    /* the windowed cases run with staging (device-only windows, copies at
       offsets of one staging buffer) and mapped; the rest as the device chooses */
    VkCtx small_ctx(4096, 1), mid_ctx(8192, -1), ctx;
    NEED_DEVICE(ctx);
    for (const Case &c : cases) {
        SCOPED_TRACE("n " + std::to_string(c.n) + " dim " + std::to_string(c.dim) + " k " + std::to_string(c.k) +
                     " " + umap_metric_name(c.metric) + " binding " +
                     std::to_string(c.max_binding));
        std::vector<float> x = kt::for_metric(c.metric, kt::clustered(c.n, c.dim, 4, 3, (uint64_t)(c.n + c.dim)));
        for (int q = 0; q < c.dups; q++) kt::copy_row(x, c.dim, 0, 100 + q);
        if (c.metric == UMAP_METRIC_COSINE || c.metric == UMAP_METRIC_CORRELATION)
            kt::zero_row(x, c.dim, 7); /* distance 1 to everything */
        if (c.metric == UMAP_METRIC_PRECOMPUTED) { /* the matrix of x's euclidean distances (dim = n) */
            std::vector<float> dm((size_t)(c.n * c.n));
            umap_knn_desc pd = kt::desc(c.k, UMAP_METRIC_EUCLIDEAN);
            ASSERT_EQ(umap_pairwise(&pd, x.data(), c.n, c.dim, dm.data()), UMAP_OK);
            x = dm;
        }
        umap_knn_desc kd = kt::desc(c.k, c.metric);
        kd.metric_p = 3.0f;
        std::vector<int32_t> ci((size_t)(c.n * c.k)), gi((size_t)(c.n * c.k));
        std::vector<float> cd((size_t)(c.n * c.k)), gd((size_t)(c.n * c.k));
        ASSERT_EQ(umap_knn(&kd, x.data(), c.n, c.dim, ci.data(), cd.data()), UMAP_OK);
        umap_knn_info info;
        kd.info = &info;
        VkCtx &use = c.max_binding == 4096 ? small_ctx : c.max_binding == 8192 ? mid_ctx : ctx;
        ASSERT_EQ(umap_vk_knn(use.vk, &kd, x.data(), c.n, c.dim, gi.data(), gd.data()), UMAP_OK) << info.error_detail;
        EXPECT_EQ(gi, ci);
        EXPECT_TRUE(kt::bits_equal(gd, cd));
        if (c.dups) EXPECT_GT(info.rechecked_rows, 0) << "61 equal rows overflow a list of k + 16";
        else EXPECT_LT(info.rechecked_rows, c.n / 10);
        EXPECT_EQ(umap_vk_validation_errors(use.vk), 0) << joined(use.errors);
    }
    EXPECT_TRUE(ctx.errors.empty()) << joined(ctx.errors);
}

/* umap_knn_desc.progress on the device: 2 stages (the device's screening,
   the host's proof), reported before, between and after; a non-zero
   return cancels with UMAP_ERR_CANCELLED */
TEST(Vulkan, KnnReportsItsStagesAndCancels) {
    VkCtx ctx;
    NEED_DEVICE(ctx);
    struct Calls {
        std::vector<std::pair<int64_t, int64_t>> seen;
        int cancel_at = -1;
    };
    const int64_t n = 300, dim = 16;
    std::vector<float> x = kt::clustered(n, dim, 4, 3, 5);
    std::vector<int32_t> idx((size_t)(n * 10));
    std::vector<float> dist((size_t)(n * 10));
    umap_knn_info info;
    umap_knn_desc kd = kt::desc(10, UMAP_METRIC_EUCLIDEAN);
    kd.info = &info;
    kd.progress = [](int64_t done, int64_t total, void *ud) {
        Calls *c = (Calls *)ud;
        c->seen.push_back(std::make_pair(done, total));
        return (int)c->seen.size() - 1 == c->cancel_at ? 1 : 0;
    };
    Calls all;
    kd.progress_user_data = &all;
    ASSERT_EQ(umap_vk_knn(ctx.vk, &kd, x.data(), n, dim, idx.data(), dist.data()), UMAP_OK) << info.error_detail;
    const std::vector<std::pair<int64_t, int64_t>> stages = {{0, 2}, {1, 2}, {2, 2}};
    EXPECT_EQ(all.seen, stages);
    Calls cut;
    cut.cancel_at = 1; /* after the device's screening */
    kd.progress_user_data = &cut;
    EXPECT_EQ(umap_vk_knn(ctx.vk, &kd, x.data(), n, dim, idx.data(), dist.data()), UMAP_ERR_CANCELLED);
    EXPECT_EQ(cut.seen.size(), 2u);
    EXPECT_NE(std::string(info.error_detail).find("cancelled"), std::string::npos) << info.error_detail;
    EXPECT_EQ(umap_vk_validation_errors(ctx.vk), 0) << joined(ctx.errors);
}

TEST(Vulkan, KnnExtremeMagnitudesStayExact) {
    VkCtx ctx;
    NEED_DEVICE(ctx);
    for (double scale : {1e-30, 1e30}) {
        std::vector<float> x = kt::clustered(150, 6, 3, 2, 9);
        for (float &v : x) v = (float)(v * scale);
        umap_knn_desc kd = kt::desc(5);
        std::vector<int32_t> ci(150 * 5), gi(150 * 5);
        std::vector<float> cd(150 * 5), gd(150 * 5);
        ASSERT_EQ(umap_knn(&kd, x.data(), 150, 6, ci.data(), cd.data()), UMAP_OK);
        ASSERT_EQ(umap_vk_knn(ctx.vk, &kd, x.data(), 150, 6, gi.data(), gd.data()), UMAP_OK);
        EXPECT_EQ(gi, ci) << scale;
        EXPECT_TRUE(kt::bits_equal(gd, cd)) << scale;
    }
    EXPECT_EQ(umap_vk_validation_errors(ctx.vk), 0) << joined(ctx.errors);
}

TEST(Vulkan, KnnAt16384RowsIsExact) {
    /* the size: n = 16384 in one window. On lavapipe this also
       checks the dispatch chunking (its loop limiter cut a whole-window
       dispatch after about 11,000 data rows, silently) */
    VkCtx ctx;
    NEED_DEVICE(ctx);
    const int64_t n = 16384, d = 4;
    std::vector<float> x = kt::clustered(n, d, 40, 1, 17);
    umap_knn_desc kd = kt::desc(15);
    kd.method = UMAP_KNN_EXACT;
    std::vector<int32_t> ci((size_t)n * 15), gi((size_t)n * 15);
    std::vector<float> cd((size_t)n * 15), gd((size_t)n * 15);
    ASSERT_EQ(umap_knn(&kd, x.data(), n, d, ci.data(), cd.data()), UMAP_OK);
    ASSERT_EQ(umap_vk_knn(ctx.vk, &kd, x.data(), n, d, gi.data(), gd.data()), UMAP_OK);
    EXPECT_EQ(gi, ci);
    EXPECT_TRUE(kt::bits_equal(gd, cd));
    EXPECT_EQ(umap_vk_validation_errors(ctx.vk), 0) << joined(ctx.errors);
}

TEST(Vulkan, KnnBadInput) {
    VkCtx ctx;
    NEED_DEVICE(ctx);
    std::vector<float> x = kt::clustered(100, 4, 2, 2, 3);
    std::vector<int32_t> idx(100 * 300);
    std::vector<float> dd(100 * 300);
    umap_knn_info info;
    umap_knn_desc kd = kt::desc(5);
    kd.info = &info;
    x[37 * 4 + 2] = NAN;
    EXPECT_EQ(umap_vk_knn(ctx.vk, &kd, x.data(), 100, 4, idx.data(), dd.data()), UMAP_ERR_NON_FINITE);
    EXPECT_EQ(info.bad_row, 37);
    x[37 * 4 + 2] = 0.0f;
    kd.k = 100;
    EXPECT_EQ(umap_vk_knn(ctx.vk, &kd, x.data(), 100, 4, idx.data(), dd.data()), UMAP_ERR_INVALID_ARGUMENT);
    std::vector<float> big = kt::clustered(300, 4, 2, 2, 3);
    kd.k = 241;
    EXPECT_EQ(umap_vk_knn(ctx.vk, &kd, big.data(), 300, 4, idx.data(), dd.data()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("240"), std::string::npos) << info.error_detail;
    kd.k = 5;
    EXPECT_EQ(umap_vk_knn(nullptr, &kd, x.data(), 100, 4, idx.data(), dd.data()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_vk_knn(ctx.vk, &kd, nullptr, 100, 4, idx.data(), dd.data()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_vk_knn(ctx.vk, &kd, x.data(), 100, 0, idx.data(), dd.data()), UMAP_ERR_INVALID_ARGUMENT);
    /* after errors the context still works */
    EXPECT_EQ(umap_vk_knn(ctx.vk, &kd, x.data(), 100, 4, idx.data(), dd.data()), UMAP_OK);
    EXPECT_EQ(umap_vk_validation_errors(ctx.vk), 0) << joined(ctx.errors);
}

TEST(Vulkan, AllocationFailureAnywhereIsCleanAndLeakFree) {
    /* host allocations fail one after another, in the context and in the
       search: every call returns OK or an error, nothing leaks (our memory:
       the counting allocator; Vulkan objects: the validation layer reports
       any left at vkDestroyDevice, caught by the logger below) */
    std::vector<std::string> errors;
    umap_vk_desc d;
    memset(&d, 0, sizeof d);
    d.allow_cpu = 1;
    d.validation = 1;
    d.logger.log_fn = [](umap_log_level level, const char *msg, void *ud) {
        if (level == UMAP_LOG_ERROR && strstr(msg, "validation")) ((std::vector<std::string> *)ud)->push_back(msg);
    };
    d.logger.user_data = &errors;
    umap_vk *probe = nullptr;
    char why[512];
    if (umap_vk_create(&d, &probe, why, sizeof why) != UMAP_OK) {
        if (vulkan_required()) FAIL() << why;
        GTEST_SKIP() << why;
    }
    umap_vk_free(probe);
    const int64_t n = 90, dim = 5;
    std::vector<float> x = kt::clustered(n, dim, 3, 2, 4);
    std::vector<int32_t> idx((size_t)(n * 4));
    std::vector<float> dd((size_t)(n * 4));
    bool completed = false;
    for (long fail_after = 0; !completed && fail_after <= 500; fail_after++) {
        kt::FailingAlloc fa;
        fa.fail_after = fail_after;
        d.allocator = fa.hook();
        umap_vk *vk = nullptr;
        umap_result r = umap_vk_create(&d, &vk, why, sizeof why);
        bool done = false;
        if (r == UMAP_OK) {
            umap_knn_desc kd = kt::desc(4);
            kd.allocator = fa.hook();
            r = umap_vk_knn(vk, &kd, x.data(), n, dim, idx.data(), dd.data());
            EXPECT_TRUE(r == UMAP_OK || r == UMAP_ERR_OUT_OF_MEMORY) << fail_after << ": " << umap_result_string(r);
            done = r == UMAP_OK;
            umap_vk_free(vk);
        } else {
            EXPECT_EQ(vk, nullptr) << fail_after;
        }
        EXPECT_EQ(fa.live.load(), 0) << "leak with allocation " << fail_after << " failing";
        completed = done;
    }
    EXPECT_TRUE(completed) << "no run succeeded within 500 allocations";
    EXPECT_TRUE(errors.empty()) << joined(errors);
}

/* ---- the compiler backend (eager mode) against the CPU backend ---------- */

namespace {

struct Leaf {
    std::string name;
    std::vector<float> f;
    std::vector<int32_t> i; /* an i32 input when non-empty */
};

umap_tensor *P_(std::vector<umap_tensor *> &params, umap_graph *g, const char *name, umap_shape shape) {
    umap_tensor *t = umap_param(g, name, shape);
    params.push_back(t);
    return t;
}

double nmse(const std::vector<float> &got, const std::vector<float> &ref) {
    double num = 0, den = 0;
    for (size_t q = 0; q < ref.size(); q++) {
        double d = (double)got[q] - ref[q];
        num += d * d;
        den += (double)ref[q] * ref[q];
    }
    return den > 0 ? num / den : num;
}

/* builds the graph on the CPU and on the Vulkan backend in each mode, runs
   each twice (the second time with the float leaves scaled by 0.9, bound
   from other memory: re-submission must see new values), and compares every
   output (and, with grads, the gradient of the first output, a scalar, with
   respect to every param) by normalised mean squared error */
void expect_parity(const char *what, umap_vk *vk, const std::vector<Leaf> &leaves,
                   const std::function<std::vector<umap_tensor *>(umap_graph *, std::vector<umap_tensor *> &)> &build,
                   double bound = 1e-10, bool grads = false) {
    SCOPED_TRACE(what);
    const umap_vk_mode modes[] = {UMAP_VK_EAGER, UMAP_VK_LAZY, UMAP_VK_COMPILED};
    std::vector<std::vector<float>> outs[4][2];
    std::vector<Leaf> scaled = leaves;
    for (Leaf &l : scaled)
        for (float &v : l.f) v *= 0.9f;
    for (int side = 0; side < 4; side++) {
        ut::Graph g;
        std::vector<umap_tensor *> params;
        std::vector<umap_tensor *> o = build(g, params);
        ASSERT_EQ(umap_graph_status(g), UMAP_OK) << g.detail();
        if (grads) {
            std::vector<umap_tensor *> gs(params.size());
            ASSERT_EQ(umap_grad(g, o[0], (int)params.size(), params.data(), gs.data()), UMAP_OK) << g.detail();
            o.insert(o.end(), gs.begin(), gs.end());
        }
        umap_compile_desc cd = ut::cdesc(1);
        cd.backend = side ? umap_vk_backend_mode(vk, modes[side - 1]) : nullptr;
        ut::Program p;
        ASSERT_EQ(umap_compile(g, (int)o.size(), o.data(), &cd, &p.p), UMAP_OK) << g.detail();
        for (int run = 0; run < 2; run++) {
            for (const Leaf &l : run ? scaled : leaves) {
                umap_result r = l.i.empty() ? umap_program_bind(p, l.name.c_str(), l.f.data(), (int64_t)l.f.size())
                                            : umap_program_bind(p, l.name.c_str(), l.i.data(), (int64_t)l.i.size());
                ASSERT_EQ(r, UMAP_OK) << l.name << ": " << p.detail();
            }
            ASSERT_EQ(umap_program_run(p), UMAP_OK) << p.detail();
            for (size_t q = 0; q < o.size(); q++) outs[side][run].push_back(ut::output(p, (int)q));
        }
    }
    for (int side = 1; side < 4; side++)
        for (int run = 0; run < 2; run++)
            for (size_t q = 0; q < outs[0][run].size(); q++) {
                ASSERT_EQ(outs[side][run][q].size(), outs[0][run][q].size());
                EXPECT_LE(nmse(outs[side][run][q], outs[0][run][q]), bound)
                    << "mode " << (int)modes[side - 1] << ", run " << run << ", output " << q;
            }
}

} // namespace

TEST(VulkanBackend, EveryOpMatchesTheCpu) {
    VkCtx ctx;
    NEED_DEVICE(ctx);
    umap_vk *vk = ctx.vk;
    const std::vector<float> pos = ut::uniform(60, 1, 0.5, 2.0), any = ut::uniform(60, 2, -2.0, 2.0),
                             b15 = ut::uniform(15, 3, -1.0, 1.0), weights = ut::uniform(60, 4, 0.5, 1.5);
    /* every unary op, forward and backward, on [3,4,5] */
    const umap_op unary[] = {UMAP_OP_NEG, UMAP_OP_EXP, UMAP_OP_LOG, UMAP_OP_LOG1P, UMAP_OP_SQRT, UMAP_OP_RECIP,
                             UMAP_OP_ABS, UMAP_OP_RELU, UMAP_OP_SIGMOID, UMAP_OP_TANH, UMAP_OP_SQUARE, UMAP_OP_SIGN};
    for (umap_op op : unary) {
        const bool positive = op == UMAP_OP_LOG || op == UMAP_OP_SQRT || op == UMAP_OP_RECIP || op == UMAP_OP_LOG1P;
        /* the loss weighs f(w) by an input c, not by w: sum(recip(w) * w)
           has the gradient 0 everywhere, so both sides would be rounding
           noise (NVIDIA's division rounds differently: NMSE 0.75 of noise) */
        expect_parity(umap_op_name(op), vk, {{"w", positive ? pos : any, {}}, {"c", weights, {}}},
                      [&](umap_graph *g, std::vector<umap_tensor *> &P) {
                          umap_tensor *w = P_(P, g, "w", umap_shape3(3, 4, 5));
                          umap_tensor *c = umap_input(g, "c", umap_shape3(3, 4, 5));
                          return std::vector<umap_tensor *>{umap_sum(g, umap_mul(g, umap_unary(g, op, w), c), 7u, 0),
                                                            umap_unary(g, op, w)};
                      },
                      1e-10, true);
    }
    /* every binary op with broadcasting, forward and backward */
    const umap_op binary[] = {UMAP_OP_ADD, UMAP_OP_SUB, UMAP_OP_MUL, UMAP_OP_DIV, UMAP_OP_POW, UMAP_OP_MAX,
                              UMAP_OP_MIN, UMAP_OP_LT, UMAP_OP_LE, UMAP_OP_GT, UMAP_OP_GE, UMAP_OP_EQ, UMAP_OP_NE};
    for (umap_op op : binary) {
        expect_parity(umap_op_name(op), vk, {{"wa", pos, {}}, {"wb", b15, {}}},
                      [&](umap_graph *g, std::vector<umap_tensor *> &P) {
                          umap_tensor *a = P_(P, g, "wa", umap_shape3(4, 3, 5));
                          umap_tensor *b = P_(P, g, "wb", umap_shape2(3, 5));
                          umap_tensor *y = umap_binary(g, op, a, b);
                          return std::vector<umap_tensor *>{umap_sum(g, umap_mul(g, y, a), 7u, 0), y};
                      },
                      1e-10, true);
    }
    expect_parity("select, clamp, scalars", vk, {{"x", any, {}}, {"y", pos, {}}}, [&](umap_graph *g, std::vector<umap_tensor *> &) {
        umap_tensor *x = umap_input(g, "x", umap_shape2(6, 10)), *y = umap_input(g, "y", umap_shape2(6, 10));
        return std::vector<umap_tensor *>{umap_select(g, umap_gt(g, x, umap_scalar(g, 0.3f)), x, y),
                                          umap_clamp(g, x, -0.5f, 0.75f),
                                          umap_add_scalar(g, umap_mul_scalar(g, x, 3.0f), -1.0f),
                                          umap_full(g, umap_shape2(3, 7), 2.5f)};
    });
    for (unsigned axes = 1; axes < 8; axes++)
        expect_parity(("reductions, axes " + std::to_string(axes)).c_str(), vk, {{"x", any, {}}}, [&](umap_graph *g, std::vector<umap_tensor *> &) {
            umap_tensor *x = umap_input(g, "x", umap_shape3(3, 4, 5));
            return std::vector<umap_tensor *>{umap_sum(g, x, axes, 0), umap_mean(g, x, axes, 1),
                                              umap_reduce_max(g, x, axes, 0)};
        });
    /* long reductions: a workgroup per output (and past lavapipe's loop limit) */
    expect_parity("long reductions", vk, {{"x", ut::uniform(3 * 70000, 16, -1, 1), {}}}, [&](umap_graph *g, std::vector<umap_tensor *> &) {
        umap_tensor *x = umap_input(g, "x", umap_shape2(3, 70000));
        return std::vector<umap_tensor *>{umap_sum(g, x, 2u, 0), umap_mean(g, x, 3u, 0), umap_reduce_max(g, x, 2u, 1),
                                          umap_sum(g, x, 1u, 0)};
    });
    expect_parity("data movement", vk, {{"x", any, {}}, {"y", b15, {}}}, [&](umap_graph *g, std::vector<umap_tensor *> &) {
        umap_tensor *x = umap_input(g, "x", umap_shape3(3, 4, 5)), *y = umap_input(g, "y", umap_shape2(3, 5));
        const int perm[3] = {2, 0, 1};
        umap_tensor *parts[3] = {umap_slice(g, x, 1, 1, 2), umap_reshape(g, y, umap_shape3(3, 1, 5)),
                                 umap_slice(g, x, 1, 0, 1)};
        return std::vector<umap_tensor *>{umap_permute(g, x, perm), umap_transpose(g, y),
                                          umap_broadcast(g, y, umap_shape3(2, 3, 5)), umap_slice(g, x, 2, 1, 3),
                                          umap_concat(g, 3, parts, 1), umap_reshape(g, x, umap_shape2(12, 5))};
    });
    const std::vector<float> m1 = ut::uniform(2 * 7 * 9, 4, -1, 1), m2 = ut::uniform(2 * 9 * 33, 5, -1, 1);
    expect_parity("matmul", vk, {{"wa", m1, {}}, {"wb", m2, {}}},
                  [&](umap_graph *g, std::vector<umap_tensor *> &P) {
                      umap_tensor *a = P_(P, g, "wa", umap_shape3(2, 7, 9));
                      umap_tensor *b = P_(P, g, "wb", umap_shape3(2, 9, 33));
                      umap_tensor *a2 = umap_reshape(g, a, umap_shape2(14, 9));
                      umap_tensor *b2 = umap_slice(g, umap_reshape(g, b, umap_shape2(18, 33)), 0, 0, 9);
                      umap_tensor *y = umap_matmul(g, a, b);
                      return std::vector<umap_tensor *>{umap_sum(g, umap_square(g, y), 7u, 0), y,
                                                        umap_matmul_ex(g, a2, a2, 0, 1),
                                                        umap_matmul_ex(g, b2, b2, 1, 0), umap_matmul(g, a2, b2)};
                  },
                  1e-10, true);
    /* products with enough 64 x 64 tiles for the register-blocked variant:
       ragged edges, K not a multiple of 16, every transpose, batches */
    const std::vector<float> ak = ut::uniform(520 * 33, 12, -1, 1), bk = ut::uniform(33 * 520, 13, -1, 1),
                             a3 = ut::uniform(3 * 300 * 40, 14, -1, 1), b3 = ut::uniform(3 * 40 * 300, 15, -1, 1);
    expect_parity("matmul, 64 x 64 tiles", vk, {{"a", ak, {}}, {"at", bk, {}}, {"a3", a3, {}}, {"b3", b3, {}}},
                  [&](umap_graph *g, std::vector<umap_tensor *> &) {
                      umap_tensor *a = umap_input(g, "a", umap_shape2(520, 33)), *at = umap_input(g, "at", umap_shape2(33, 520));
                      umap_tensor *x3 = umap_input(g, "a3", umap_shape3(3, 300, 40)), *y3 = umap_input(g, "b3", umap_shape3(3, 40, 300));
                      return std::vector<umap_tensor *>{umap_matmul_ex(g, a, at, 0, 0), umap_matmul_ex(g, at, at, 1, 0),
                                                        umap_matmul_ex(g, a, a, 0, 1), umap_matmul_ex(g, at, a, 1, 1),
                                                        umap_matmul(g, x3, y3)};
                  });
    const std::vector<int32_t> idx = {3, 0, 3, 5, 1, 3, 0, 2};
    expect_parity("gather, scatter_add", vk, {{"w", ut::uniform(6 * 4, 6, -1, 1), {}}, {"idx", {}, idx}},
                  [&](umap_graph *g, std::vector<umap_tensor *> &P) {
                      umap_tensor *w = P_(P, g, "w", umap_shape2(6, 4));
                      umap_tensor *i = umap_input_i32(g, "idx", umap_shape1(8));
                      umap_tensor *y = umap_gather(g, w, i);
                      return std::vector<umap_tensor *>{umap_sum(g, umap_square(g, y), 3u, 0), y,
                                                        umap_scatter_add(g, y, i, 9)};
                  },
                  1e-10, true);
    EXPECT_EQ(umap_vk_validation_errors(vk), 0) << joined(ctx.errors);
}

namespace {

/* the shape of UMAP's step: gather rows, two ReLU layers, squared
   distances, a log1p loss; every gradient compared */
void expect_mlp_step_parity(umap_vk *vk) {
    std::vector<int32_t> rows(64);
    for (int q = 0; q < 64; q++) rows[(size_t)q] = (q * 37) % 200;
    expect_parity("mlp step", vk,
                  {{"x", ut::uniform(200 * 16, 7, -1, 1), {}}, {"rows", {}, rows},
                   {"w1", ut::uniform(16 * 32, 8, -0.4, 0.4), {}}, {"w1b", ut::uniform(32, 9, -0.1, 0.1), {}},
                   {"w2", ut::uniform(32 * 2, 10, -0.4, 0.4), {}}},
                  [&](umap_graph *g, std::vector<umap_tensor *> &P) {
                      umap_tensor *x = umap_input(g, "x", umap_shape2(200, 16));
                      umap_tensor *r = umap_input_i32(g, "rows", umap_shape1(64));
                      umap_tensor *w1 = P_(P, g, "w1", umap_shape2(16, 32));
                      umap_tensor *b1 = P_(P, g, "w1b", umap_shape1(32));
                      umap_tensor *w2 = P_(P, g, "w2", umap_shape2(32, 2));
                      umap_tensor *h = umap_relu(g, umap_add(g, umap_matmul(g, umap_gather(g, x, r), w1), b1));
                      umap_tensor *z = umap_matmul(g, h, w2);
                      umap_tensor *d2 = umap_sum(g, umap_square(g, umap_sub(g, umap_slice(g, z, 0, 0, 32),
                                                                            umap_slice(g, z, 0, 32, 32))),
                                                 2u, 0);
                      return std::vector<umap_tensor *>{umap_mean(g, umap_log1p(g, d2), 1u, 0), z};
                  },
                  1e-9, true);
}

} // namespace

TEST(VulkanBackend, AnMlpTrainingStepMatchesTheCpu) {
    /* the resident modes with mapped device memory and with device-only
       memory plus staging */
    for (int staging : {-1, 1}) {
        SCOPED_TRACE(staging > 0 ? "staging" : "mapped");
        VkCtx ctx(0, staging);
        NEED_DEVICE(ctx);
        expect_mlp_step_parity(ctx.vk);
        EXPECT_EQ(umap_vk_validation_errors(ctx.vk), 0) << joined(ctx.errors);
    }
}

namespace {

/* Trains a small MLP for a few Adam steps through umap_program_train_* on
   one backend (NULL: the CPU) and returns the stored weights, the last loss
   and whether the bound weights stayed untouched until the store. The
   sequence covers clipping, weight decay, a decaying rate, two steps in a
   row without a run between, and a load after the host rewrote them. */
struct TrainResult {
    std::vector<float> w;
    float loss = 0;
    bool untouched_until_store = true;
};

TrainResult train_mlp(const umap_backend *be) {
    TrainResult res;
    ut::Graph g;
    umap_tensor *x = umap_input(g, "x", umap_shape2(120, 12));
    umap_tensor *r = umap_input_i32(g, "rows", umap_shape1(48));
    umap_tensor *params[3] = {umap_param(g, "w1", umap_shape2(12, 24)), umap_param(g, "b1", umap_shape1(24)),
                              umap_param(g, "w2", umap_shape2(24, 2))};
    umap_tensor *h = umap_relu(g, umap_add(g, umap_matmul(g, umap_gather(g, x, r), params[0]), params[1]));
    umap_tensor *z = umap_matmul(g, h, params[2]);
    umap_tensor *d2 = umap_sum(g, umap_square(g, umap_sub(g, umap_slice(g, z, 0, 0, 24), umap_slice(g, z, 0, 24, 24))), 2u, 0);
    umap_tensor *outs[4];
    outs[0] = umap_mean(g, umap_log1p(g, d2), 1u, 0);
    EXPECT_EQ(umap_grad(g, outs[0], 3, params, outs + 1), UMAP_OK) << g.detail();
    umap_compile_desc cd = ut::cdesc(1);
    cd.backend = be;
    ut::Program p;
    EXPECT_EQ(umap_compile(g, 4, outs, &cd, &p.p), UMAP_OK) << g.detail();
    if (!p.p) return res;
    std::vector<float> xs = ut::uniform(120 * 12, 21, -1, 1);
    std::vector<float> w = ut::uniform(12 * 24 + 24 + 24 * 2, 22, -0.5, 0.5);
    const std::vector<float> w0 = w;
    std::vector<int32_t> rows(48);
    float *w1 = w.data(), *b1 = w1 + 12 * 24, *w2 = b1 + 24;
    EXPECT_EQ(umap_program_bind(p, "x", xs.data(), 120 * 12), UMAP_OK);
    EXPECT_EQ(umap_program_bind(p, "rows", rows.data(), 48), UMAP_OK);
    EXPECT_EQ(umap_program_bind(p, "w1", w1, 12 * 24), UMAP_OK);
    EXPECT_EQ(umap_program_bind(p, "b1", b1, 24), UMAP_OK);
    EXPECT_EQ(umap_program_bind(p, "w2", w2, 24 * 2), UMAP_OK);
    const char *names[3] = {"w1", "b1", "w2"};
    const int grads[3] = {1, 2, 3};
    umap_train_desc td = umap_train_desc_default();
    td.n_params = 3;
    td.params = names;
    td.grad_outputs = grads;
    td.adam.lr = 0.05f;
    td.adam.weight_decay = 0.01f;
    td.grad_clip = 0.2f;
    EXPECT_EQ(umap_program_train_attach(p, &td), UMAP_OK) << p.detail();
    EXPECT_EQ(umap_program_train_step(p, 1, 1.0f), UMAP_ERR_INVALID_ARGUMENT); /* no gradients yet */
    int64_t t = 0;
    for (int run = 0; run < 8; run++) {
        for (int q = 0; q < 48; q++) rows[(size_t)q] = (int32_t)((q * 37 + run * 11) % 120);
        EXPECT_EQ(umap_program_run(p), UMAP_OK) << p.detail();
        res.loss = ut::output(p, 0)[0];
        EXPECT_EQ(umap_program_train_step(p, ++t, 1.0f - 0.1f * (float)run), UMAP_OK) << p.detail();
        if (run == 3) { /* same gradients again, no run between */
            EXPECT_EQ(umap_program_train_step(p, ++t, 0.5f), UMAP_OK) << p.detail();
        }
        if (run == 5) {
            if (be) res.untouched_until_store = w == w0;
            EXPECT_EQ(umap_program_train_store(p), UMAP_OK) << p.detail();
            for (float &v : w) v *= 0.5f; /* the host rewrites them: a load sends them (and zeroes the moments) */
            EXPECT_EQ(umap_program_train_load(p), UMAP_OK) << p.detail();
            t = 0;
        }
    }
    EXPECT_EQ(umap_program_train_store(p), UMAP_OK) << p.detail();
    res.w = w;
    return res;
}

} // namespace

TEST(VulkanBackend, AdamOnTheDeviceMatchesTheCpu) {
    const TrainResult cpu = train_mlp(nullptr);
    ASSERT_FALSE(cpu.w.empty());
    for (int staging : {-1, 1}) {
        SCOPED_TRACE(staging > 0 ? "staging" : "mapped");
        VkCtx ctx(0, staging);
        NEED_DEVICE(ctx);
        for (umap_vk_mode mode : {UMAP_VK_EAGER, UMAP_VK_LAZY, UMAP_VK_COMPILED}) {
            SCOPED_TRACE((int)mode);
            const TrainResult gpu = train_mlp(umap_vk_backend_mode(ctx.vk, mode));
            ASSERT_EQ(gpu.w.size(), cpu.w.size());
            EXPECT_LE(nmse(gpu.w, cpu.w), 1e-9);
            EXPECT_NEAR(gpu.loss, cpu.loss, 1e-4 * std::fabs(cpu.loss));
            /* eager mode trains the host's buffers; the resident modes keep them on the device */
            EXPECT_EQ(gpu.untouched_until_store, mode != UMAP_VK_EAGER);
        }
        EXPECT_EQ(umap_vk_validation_errors(ctx.vk), 0) << joined(ctx.errors);
    }
}

TEST(VulkanBackend, ProgramsLargerThanOneBindingRunInWindows) {
    /* bindings far smaller than the programs: each step binds only its own
       operands' span, and steps whose operands lie further apart than one
       binding go through the scratch area. Everything matches the CPU, in
       every mode, mapped and staged, training included. */
    const TrainResult cpu = train_mlp(nullptr);
    for (int staging : {-1, 1}) {
        SCOPED_TRACE(staging > 0 ? "staging" : "mapped");
        VkCtx ctx(UMAP_VK_TEST_STEP_WINDOW, staging), train_ctx(UMAP_VK_TEST_TRAIN_WINDOW, staging);
        NEED_DEVICE(ctx);
        NEED_DEVICE(train_ctx);
        expect_mlp_step_parity(ctx.vk);
        for (umap_vk_mode mode : {UMAP_VK_LAZY, UMAP_VK_COMPILED}) {
            SCOPED_TRACE((int)mode);
            const TrainResult gpu = train_mlp(umap_vk_backend_mode(train_ctx.vk, mode));
            ASSERT_EQ(gpu.w.size(), cpu.w.size());
            EXPECT_LE(nmse(gpu.w, cpu.w), 1e-9);
            EXPECT_NEAR(gpu.loss, cpu.loss, 1e-4 * std::fabs(cpu.loss));
        }
        for (VkCtx *c : {&ctx, &train_ctx}) { /* both kinds of window were used */
            EXPECT_NE(c->log.find("runs in windows"), std::string::npos) << c->log;
            EXPECT_EQ(c->log.find(" 0 of its "), std::string::npos) << c->log;
            EXPECT_EQ(umap_vk_validation_errors(c->vk), 0) << joined(c->errors);
        }
    }
}

namespace {

/* a refinement job over a ring graph: every row joined to its 6 nearest
   ring neighbours, each slot with its own chance; keys and rates as the
   core makes them (any values would do: both sides read the same job) */
struct RefineJob {
    std::vector<int64_t> offset;
    std::vector<int32_t> nbr;
    std::vector<uint32_t> chance;
    std::vector<uint64_t> keys;
    std::vector<float> rates, y;
    umap_refine_job job;
    RefineJob(int64_t n, int c, int epochs) {
        memset(&job, 0, sizeof job);
        offset.push_back(0);
        for (int64_t i = 0; i < n; i++) {
            for (int64_t dlt : {-3, -2, -1, 1, 2, 3}) {
                nbr.push_back((int32_t)((i + dlt + n) % n));
                chance.push_back((uint32_t)((i * 7919 + (dlt + 3) * 104729) % 16777216));
            }
            offset.push_back((int64_t)nbr.size());
        }
        for (int e = 0; e < epochs; e++) {
            keys.push_back(0x9e3779b97f4a7c15ull * (uint64_t)(e + 1) ^ 0x5bd1e995ull);
            rates.push_back(0.25f * (1.0f - (float)e / (float)epochs));
        }
        y = ut::uniform(n * c, 31, -5.0, 5.0);
        for (int64_t q = 0; q < c; q++) y[(size_t)(5 * c + q)] = y[(size_t)(9 * c + q)]; /* two coincident rows */
        job.n = n;
        job.n_components = c;
        job.offset = offset.data();
        job.nbr = nbr.data();
        job.active = chance.data();
        job.negative_sample_rate = 5;
        job.a = 1.577f;
        job.b = 0.895f;
        job.gamma = 1.0f;
        job.attraction = 0.5f;
        job.n_epochs = epochs;
        job.report_every = epochs / 20 + 1; /* as the core asks */
        job.keys = keys.data();
        job.rates = rates.data();
        job.y = y.data();
    }
};

} // namespace

TEST(VulkanBackend, RefinementOnTheDeviceMatchesTheHost) {
    /* the device's refiner against the host's refinement on the same job:
       the same draws and the same arithmetic, equal up to rounding; odd and
       even epoch counts (the result in either buffer), 2 and 3 components,
       a cancel from the progress report, and what it declines */
    VkCtx ctx;
    NEED_DEVICE(ctx);
    const umap_refiner *gpu = umap_vk_refiner(ctx.vk);
    ASSERT_NE(gpu, nullptr);
    ASSERT_NE(gpu->refine, nullptr);
    for (int c : {2, 3})
        for (int epochs : {7, 12}) {
            SCOPED_TRACE(std::to_string(c) + " components, " + std::to_string(epochs) + " epochs");
            RefineJob a(700, c, epochs), b(700, c, epochs);
            const std::vector<float> start = a.y;
            ASSERT_EQ(umap_refine_host(&a.job), UMAP_OK);
            ASSERT_EQ(gpu->refine(gpu, &b.job), UMAP_OK);
            EXPECT_GT(nmse(a.y, start), 1e-4) << "the refinement moved nothing";
            EXPECT_LE(nmse(b.y, a.y), 1e-9);
        }
    { /* a cancel at the report before epoch 4 (reports come every 30 / 20 + 1 = 2 epochs) leaves
         the rows of 4 epochs, as a job of those 4 (the same keys and rates) gives */
        RefineJob a(300, 2, 30), b(300, 2, 30), four(300, 2, 30);
        four.job.n_epochs = 4;
        ASSERT_EQ(umap_refine_host(&four.job), UMAP_OK);
        a.job.report = b.job.report = +[](void *, int epoch, int) { return epoch >= 4 ? 1 : 0; };
        EXPECT_EQ(umap_refine_host(&a.job), UMAP_ERR_CANCELLED);
        EXPECT_EQ(gpu->refine(gpu, &b.job), UMAP_ERR_CANCELLED);
        EXPECT_EQ(a.y, four.y);
        EXPECT_LE(nmse(b.y, a.y), 1e-9);
    }
    { /* more components than the kernel holds: declined, the core runs it on the host */
        RefineJob wide(50, 9, 3);
        EXPECT_EQ(gpu->refine(gpu, &wide.job), UMAP_ERR_UNSUPPORTED_OP);
    }
    { /* densMAP's epochs (no kernel runs its term): declined too, as long as one is in the job */
        RefineJob dens(50, 2, 6);
        const std::vector<float> r((size_t)50, 0.5f);
        dens.job.dens_r = r.data();
        dens.job.dens_lambda = 2.0f;
        dens.job.dens_from = 4;
        EXPECT_EQ(gpu->refine(gpu, &dens.job), UMAP_ERR_UNSUPPORTED_OP);
        dens.job.dens_from = 6;
        EXPECT_EQ(gpu->refine(gpu, &dens.job), UMAP_OK);
    }
    EXPECT_EQ(umap_vk_validation_errors(ctx.vk), 0) << joined(ctx.errors);
}

TEST(VulkanBackend, OpsWithoutAKernelFailAtCompile) {
    VkCtx ctx;
    NEED_DEVICE(ctx);
    ut::Graph g;
    umap_tensor *x = umap_input(g, "x", umap_shape2(20, 3));
    umap_tensor *k = umap_knn_graph(g, umap_pairwise_euclidean(g, x), 4);
    ASSERT_NE(k, nullptr) << g.detail();
    umap_compile_desc cd = ut::cdesc(1);
    cd.backend = umap_vk_backend(ctx.vk);
    ut::Program p;
    EXPECT_EQ(umap_compile(g, 1, &k, &cd, &p.p), UMAP_ERR_UNSUPPORTED_OP);
    EXPECT_NE(g.detail().find("vulkan"), std::string::npos) << g.detail();
    EXPECT_EQ(umap_vk_backend(nullptr), nullptr);
}

/* umap_vk_fit reads the device's k-NN at its working scale, as umap_fit
   reads the CPU's: data near FLT_MAX (distances beyond float) fits to a
   finite embedding there too, and the search reports as fit's knn phase.
   keep_data goes through it as through umap_fit: the rows are kept, and
   transform places rows among them (on the CPU), finite too. */
TEST(VulkanBackend, FitTakesDataNearFltMaxAndReportsItsSearch) {
    VkCtx ctx;
    NEED_DEVICE(ctx);
    const int64_t n = 240, d = 5;
    std::vector<float> x((size_t)(n * d));
    for (int64_t i = 0; i < (int64_t)x.size(); i++) x[(size_t)i] = kt::normal(12, (uint64_t)i) < 0 ? -3.3e38f : 3.3e38f;
    std::vector<std::pair<int, int>> knn_reports;
    umap_config c = umap_config_default();
    umap_fit_info info;
    c.info = &info;
    c.n_threads = 1;
    c.n_epochs = 2;
    c.n_hidden = 2; /* a tiny net: eager mode on lavapipe is slow */
    c.hidden[0] = c.hidden[1] = 8;
    c.init = UMAP_INIT_RANDOM;
    c.refine_epochs = 0;
    c.progress = [](const umap_progress *p, void *ud) {
        if (!strcmp(p->phase, "knn")) ((std::vector<std::pair<int, int>> *)ud)->push_back(std::make_pair(p->epoch, p->n_epochs));
        return 0;
    };
    c.progress_user_data = &knn_reports;
    c.keep_data = 1;
    umap_model *m = nullptr;
    ASSERT_EQ(umap_vk_fit(ctx.vk, &c, x.data(), n, d, &m), UMAP_OK) << info.error_detail;
    const float *e = umap_model_embedding(m);
    for (int64_t i = 0; i < n * 2; i++) ASSERT_TRUE(std::isfinite(e[i])) << i;
    EXPECT_EQ(umap_model_config(m)->keep_data, 1);
    std::vector<float> y((size_t)(2 * 20));
    char detail[256] = "";
    ASSERT_EQ(umap_transform_ex(m, x.data(), 20, d, y.data(), 1, detail, sizeof detail), UMAP_OK) << detail;
    for (float v : y) ASSERT_TRUE(std::isfinite(v));
    umap_model_free(m);
    ASSERT_GE(knn_reports.size(), 3u);
    EXPECT_EQ(knn_reports[0], std::make_pair(0, 2));
    EXPECT_EQ(knn_reports[2], std::make_pair(2, 2));
    EXPECT_EQ(umap_vk_validation_errors(ctx.vk), 0) << joined(ctx.errors);
}

TEST(VulkanBackend, FitTrainsOnTheDevice) {
    /* umap_fit with the training step compiled for the Vulkan backend: the
       same quality as on the CPU (not the same bits: float sums on the GPU
       run in another order). Kept tiny: eager mode on lavapipe is slow. */
    VkCtx ctx;
    NEED_DEVICE(ctx);
    const int64_t n = 240, d = 8;
    std::vector<float> x((size_t)(n * d));
    std::vector<int32_t> labels((size_t)n);
    for (int64_t i = 0; i < n; i++) {
        labels[(size_t)i] = (int32_t)(i % 4);
        for (int64_t j = 0; j < d; j++)
            x[(size_t)(i * d + j)] = (j % 4 == i % 4 ? 5.0f : 0.0f) + (float)kt::normal(11, (uint64_t)(i * d + j));
    }
    umap_quality q[2];
    float loss[2];
    for (int side = 0; side < 2; side++) {
        umap_config c = umap_config_default();
        umap_fit_info info;
        c.info = &info;
        c.n_threads = 1;
        c.n_epochs = 10;
        c.n_hidden = 2; /* a tiny net: eager mode on lavapipe is slow */
        c.hidden[0] = c.hidden[1] = 16;
        c.init = UMAP_INIT_RANDOM;
        c.refine_epochs = 0;
        c.backend = side ? umap_vk_backend(ctx.vk) : nullptr;
        umap_model *m = nullptr;
        ASSERT_EQ(umap_fit(&c, x.data(), n, d, &m), UMAP_OK) << info.error_detail;
        umap_quality_desc qd;
        memset(&qd, 0, sizeof qd);
        ASSERT_EQ(umap_quality_eval(&qd, x.data(), n, d, umap_model_embedding(m), 2, labels.data(), &q[side]), UMAP_OK);
        loss[side] = info.final_loss;
        umap_model_free(m);
    }
    EXPECT_NEAR(loss[1], loss[0], 0.05 * loss[0]);
    { /* transform on the device = transform on the CPU, up to rounding */
        umap_config c = umap_config_default();
        c.n_threads = 1;
        c.n_epochs = 2;
        c.refine_epochs = 0;
        c.keep_data = UMAP_KEEP_NONE; /* umap_transform is then the encoder, as umap_vk_transform is */
        umap_model *m = nullptr;
        ASSERT_EQ(umap_fit(&c, x.data(), n, d, &m), UMAP_OK);
        std::vector<float> cpu((size_t)(2 * n)), gpu((size_t)(2 * n));
        ASSERT_EQ(umap_transform(m, x.data(), n, d, cpu.data(), 1), UMAP_OK);
        ASSERT_EQ(umap_vk_transform(ctx.vk, m, x.data(), n, d, gpu.data()), UMAP_OK);
        EXPECT_LE(nmse(gpu, cpu), 1e-10);
        EXPECT_EQ(umap_vk_transform(ctx.vk, m, x.data(), n, d - 1, gpu.data()), UMAP_ERR_SHAPE);
        std::vector<float> bad = x;
        bad[5] = NAN;
        EXPECT_EQ(umap_vk_transform(ctx.vk, m, bad.data(), n, d, gpu.data()), UMAP_ERR_NON_FINITE);
        EXPECT_EQ(umap_vk_transform(nullptr, m, x.data(), n, d, gpu.data()), UMAP_ERR_INVALID_ARGUMENT);
        umap_model_free(m);
    }
    EXPECT_GE(q[1].trustworthiness, q[0].trustworthiness - 0.02);
    EXPECT_GE(q[1].knn_accuracy, q[0].knn_accuracy - 0.03) << "cpu " << q[0].knn_accuracy;
    EXPECT_GE(q[0].knn_accuracy, 0.9);
    { /* with the refinement, which runs on the device too: twice, the same bits */
        std::vector<float> emb[2];
        for (int run = 0; run < 2; run++) {
            umap_config c = umap_config_default();
            umap_fit_info info;
            c.info = &info;
            c.n_threads = 1 + run;
            c.n_epochs = 3;
            c.n_hidden = 2; /* a tiny net: eager mode on lavapipe is slow */
            c.hidden[0] = c.hidden[1] = 16;
            c.refine_epochs = 15;
            c.distill_epochs = 2;
            c.backend = umap_vk_backend(ctx.vk);
            c.refiner = umap_vk_refiner(ctx.vk);
            umap_model *m = nullptr;
            ASSERT_EQ(umap_fit(&c, x.data(), n, d, &m), UMAP_OK) << info.error_detail;
            EXPECT_EQ(info.refine_device, 1);
            emb[run].assign(umap_model_embedding(m), umap_model_embedding(m) + 2 * n);
            umap_model_free(m);
        }
        EXPECT_EQ(emb[0], emb[1]);
    }
    EXPECT_EQ(umap_vk_validation_errors(ctx.vk), 0) << joined(ctx.errors);
}

TEST(VulkanBackend, ProgramsShareAContext) {
    /* a compiled program's recorded commands survive other work on the same
       context (another program, eager steps, k-NN) and programs freed in any
       order release cleanly */
    VkCtx ctx;
    NEED_DEVICE(ctx);
    std::vector<float> xa = ut::uniform(8 * 5, 21, -1, 1), xb = ut::uniform(8 * 5, 22, -1, 1);
    auto build = [](umap_graph *g) {
        umap_tensor *x = umap_input(g, "x", umap_shape2(8, 5));
        return umap_sum(g, umap_exp(g, umap_matmul_ex(g, x, x, 0, 1)), 1u, 0);
    };
    ut::Graph g1, g2;
    umap_tensor *y1 = build(g1), *y2 = build(g2);
    umap_compile_desc cd = ut::cdesc(1), cpu = ut::cdesc(1);
    cd.backend = umap_vk_backend_mode(ctx.vk, UMAP_VK_COMPILED);
    ut::Program p1, p2, pe, ref;
    ASSERT_EQ(umap_compile(g1, 1, &y1, &cd, &p1.p), UMAP_OK);
    ASSERT_EQ(umap_compile(g2, 1, &y2, &cd, &p2.p), UMAP_OK);
    cd.backend = umap_vk_backend_mode(ctx.vk, UMAP_VK_EAGER);
    ASSERT_EQ(umap_compile(g2, 1, &y2, &cd, &pe.p), UMAP_OK);
    ASSERT_EQ(umap_compile(g1, 1, &y1, &cpu, &ref.p), UMAP_OK);
    ASSERT_EQ(umap_program_bind(p1, "x", xa.data(), 40), UMAP_OK);
    ASSERT_EQ(umap_program_bind(p2, "x", xb.data(), 40), UMAP_OK);
    ASSERT_EQ(umap_program_bind(pe, "x", xb.data(), 40), UMAP_OK);
    ASSERT_EQ(umap_program_bind(ref, "x", xa.data(), 40), UMAP_OK);
    ASSERT_EQ(umap_program_run(ref), UMAP_OK);
    const std::vector<float> want = ut::output(ref, 0);
    std::vector<float> kx = kt::clustered(50, 3, 2, 2, 5);
    std::vector<int32_t> ki(50 * 3);
    umap_knn_desc kd = kt::desc(3);
    for (int round = 0; round < 3; round++) {
        ASSERT_EQ(umap_program_run(p1), UMAP_OK) << p1.detail();
        EXPECT_LE(nmse(ut::output(p1, 0), want), 1e-10) << "round " << round;
        ASSERT_EQ(umap_program_run(round == 1 ? pe : p2), UMAP_OK);
        if (round == 2) {
            ASSERT_EQ(umap_vk_knn(ctx.vk, &kd, kx.data(), 50, 3, ki.data(), nullptr), UMAP_OK);
        }
    }
    p2.reset(); /* freed while p1 holds the recording: nothing of p1's is touched */
    ASSERT_EQ(umap_program_run(p1), UMAP_OK);
    EXPECT_LE(nmse(ut::output(p1, 0), want), 1e-10);
    EXPECT_EQ(umap_vk_validation_errors(ctx.vk), 0) << joined(ctx.errors);
}

TEST(VulkanBackend, ModesAndTheirErrors) {
    VkCtx ctx;
    NEED_DEVICE(ctx);
    EXPECT_EQ(umap_vk_backend_mode(ctx.vk, (umap_vk_mode)9), nullptr);
    EXPECT_STREQ(umap_vk_backend(ctx.vk)->name, "vulkan (lazy)") << "lazy is the default";
    /* an index out of range: the CPU's error, in every mode, before the device runs */
    for (umap_vk_mode mode : {UMAP_VK_EAGER, UMAP_VK_LAZY, UMAP_VK_COMPILED}) {
        ut::Graph g;
        umap_tensor *x = umap_input(g, "x", umap_shape2(4, 3));
        umap_tensor *i = umap_input_i32(g, "i", umap_shape1(3));
        umap_tensor *y = umap_gather(g, x, i);
        umap_compile_desc cd = ut::cdesc(1);
        cd.backend = umap_vk_backend_mode(ctx.vk, mode);
        ut::Program p;
        ASSERT_EQ(umap_compile(g, 1, &y, &cd, &p.p), UMAP_OK);
        std::vector<float> xs(12, 1.0f);
        std::vector<int32_t> bad = {0, 4, 1};
        umap_program_bind(p, "x", xs.data(), 12);
        umap_program_bind(p, "i", bad.data(), 3);
        EXPECT_EQ(umap_program_run(p), UMAP_ERR_INDEX_OUT_OF_RANGE) << (int)mode;
        EXPECT_NE(p.detail().find("outside [0, 4)"), std::string::npos) << p.detail();
        bad[1] = 3; /* and then it runs */
        EXPECT_EQ(umap_program_run(p), UMAP_OK) << p.detail();
    }
    /* a step whose own operands exceed one binding is refused with its name and the sizes */
    VkCtx small(4096);
    NEED_DEVICE(small);
    for (umap_vk_mode mode : {UMAP_VK_EAGER, UMAP_VK_LAZY, UMAP_VK_COMPILED}) {
        ut::Graph g;
        umap_tensor *x = umap_input(g, "x", umap_shape2(40, 40));
        umap_tensor *y = umap_sum(g, umap_matmul_ex(g, x, x, 0, 1), 2u, 0);
        std::vector<float> xs(1600, 0.5f);
        umap_compile_desc cd = ut::cdesc(1);
        cd.backend = umap_vk_backend_mode(small.vk, mode);
        ut::Program p;
        ASSERT_EQ(umap_compile(g, 1, &y, &cd, &p.p), UMAP_OK);
        umap_program_bind(p, "x", xs.data(), 1600);
        EXPECT_EQ(umap_program_run(p), UMAP_ERR_TOO_LARGE) << (int)mode;
        EXPECT_NE(p.detail().find("matmul"), std::string::npos) << p.detail();
        if (mode != UMAP_VK_EAGER) { EXPECT_NE(p.detail().find("one binding holds 4096"), std::string::npos) << p.detail(); }
    }
}

TEST(VulkanBackend, CalibrationMeasuresAndDecides) {
    VkCtx ctx;
    NEED_DEVICE(ctx);
    umap_vk_calibration c;
    ASSERT_EQ(umap_vk_calibrate(ctx.vk, &c), UMAP_OK);
    umap_vk_device_info dev;
    umap_vk_device(ctx.vk, &dev);
    EXPECT_STREQ(c.device_name, dev.name);
    EXPECT_GT(c.gpu_gflops, 0.0);
    EXPECT_GT(c.cpu_gflops, 0.0);
    EXPECT_GT(c.transfer_gbps, 0.0);
    EXPECT_GT(c.dispatch_us, 0.0);
    /* the model: a tiny job stays on the CPU (latency), and the decision
       follows the measured throughputs */
    EXPECT_EQ(umap_vk_prefer(&c, 1e3, 16, 1), 0);
    umap_vk_calibration fast = c, slow = c;
    fast.gpu_gflops = 1000 * c.cpu_gflops;
    fast.transfer_gbps = 1e3;
    slow.gpu_gflops = c.cpu_gflops / 10;
    EXPECT_EQ(umap_vk_prefer(&fast, 1e12, 1e6, 10), 1);
    EXPECT_EQ(umap_vk_prefer(&slow, 1e12, 1e6, 10), 0);
    EXPECT_EQ(umap_vk_prefer(nullptr, 1e12, 0, 0), 0);
    EXPECT_EQ(umap_vk_calibrate(nullptr, &c), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_vk_validation_errors(ctx.vk), 0) << joined(ctx.errors);
}

#endif /* UMAP_VULKAN */
