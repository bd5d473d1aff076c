// umap_vk.h: device choice, the clean answer without a driver, and exact
// k-NN on the GPU against the CPU's exact search, bit for bit, with the
// validation layer on (any validation error fails the test).
//
// CI runs this on Mesa's lavapipe (a CPU Vulkan driver) and sets
// UMAP_TEST_REQUIRE_VULKAN=1, so a missing device fails there; elsewhere a
// machine without any Vulkan driver skips the device tests and says why.
#include "umap_vk.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

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
    explicit VkCtx(int64_t max_binding_bytes = 0) {
        umap_vk_desc d;
        memset(&d, 0, sizeof d);
        d.allow_cpu = 1;
        d.validation = 1;
        d.max_binding_bytes = max_binding_bytes;
        d.logger.log_fn = [](umap_log_level level, const char *msg, void *ud) {
            if (level == UMAP_LOG_ERROR) ((std::vector<std::string> *)ud)->push_back(msg);
        };
        d.logger.user_data = &errors;
        char buf[512];
        if (umap_vk_create(&d, &vk, buf, sizeof buf) != UMAP_OK) why = buf;
    }
    ~VkCtx() { umap_vk_free(vk); }
};

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
    const char *old = getenv("VK_ICD_FILENAMES");
    std::string saved = old ? old : "";
    setenv("VK_ICD_FILENAMES", "/nonexistent/icd.json", 1);
    umap_vk_desc d;
    memset(&d, 0, sizeof d);
    d.allow_cpu = 1;
    umap_vk *vk = nullptr;
    char why[512] = "";
    umap_result r = umap_vk_create(&d, &vk, why, sizeof why);
    if (old) setenv("VK_ICD_FILENAMES", saved.c_str(), 1);
    else unsetenv("VK_ICD_FILENAMES");
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
    };
    VkCtx small_ctx(4096), mid_ctx(8192), ctx;
    NEED_DEVICE(ctx);
    for (const Case &c : cases) {
        SCOPED_TRACE("n " + std::to_string(c.n) + " dim " + std::to_string(c.dim) + " k " + std::to_string(c.k) +
                     (c.metric == UMAP_METRIC_COSINE ? " cosine" : " euclidean") + " binding " +
                     std::to_string(c.max_binding));
        std::vector<float> x = kt::clustered(c.n, c.dim, 4, 3, (uint64_t)(c.n + c.dim));
        for (int q = 0; q < c.dups; q++) kt::copy_row(x, c.dim, 0, 100 + q);
        if (c.metric == UMAP_METRIC_COSINE) kt::zero_row(x, c.dim, 7); /* distance 1 to everything */
        umap_knn_desc kd = kt::desc(c.k, c.metric);
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
    for (long fail_after = 0;; fail_after++) {
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
        if (done || fail_after > 500) break;
    }
    EXPECT_TRUE(errors.empty()) << joined(errors);
}

#endif /* UMAP_VULKAN */
