// Progress through every long phase: the k-NN searches report their work
// units (exact: tiles, NN-Descent: rounds) through umap_knn_desc.progress,
// fit forwards them as its "knn" phase and reports "pca", "refine" and
// "distill" as they go; a non-zero return cancels each one cleanly.
#include "test_util.h"

#include <string>
#include <vector>

namespace {

struct KnnCalls {
    std::vector<std::pair<int64_t, int64_t>> seen;
    int cancel_at = -1; /* cancel on this call (0-based), or never */
};

int knn_progress(int64_t done, int64_t total, void *user) {
    KnnCalls *c = (KnnCalls *)user;
    c->seen.push_back(std::make_pair(done, total));
    return (int)c->seen.size() - 1 == c->cancel_at;
}

void knn_run(umap_knn_method method, KnnCalls &calls, umap_result *r, std::string *detail) {
    const int64_t n = 3000, d = 8;
    std::vector<float> x = ut::uniform(n * d, 41, -1, 1);
    std::vector<int32_t> idx((size_t)(n * 10));
    std::vector<float> dist((size_t)(n * 10));
    umap_knn_info info;
    umap_knn_desc k = {};
    k.k = 10;
    k.method = method;
    k.tile_rows = 512; /* several tiles at this size */
    k.n_threads = 2;
    k.info = &info;
    k.progress = knn_progress;
    k.progress_user_data = &calls;
    *r = umap_knn(&k, x.data(), n, d, idx.data(), dist.data());
    *detail = info.error_detail;
}

void expect_counts_up(const KnnCalls &c) {
    ASSERT_GE(c.seen.size(), 2u);
    EXPECT_EQ(c.seen.front().first, 0);
    for (size_t i = 1; i < c.seen.size(); i++) {
        EXPECT_GT(c.seen[i].first, c.seen[i - 1].first);
        EXPECT_EQ(c.seen[i].second, c.seen[0].second);
        EXPECT_LE(c.seen[i].first, c.seen[i].second);
    }
}

/* a search whose callback returns non-zero on call `at` (0-based) stops
   there: UMAP_ERR_CANCELLED, no call after it, and a detail holding `says` */
void expect_cancels_at(umap_knn_method method, int at, const char *says) {
    KnnCalls cut;
    umap_result r;
    std::string detail;
    cut.cancel_at = at;
    knn_run(method, cut, &r, &detail);
    EXPECT_EQ(r, UMAP_ERR_CANCELLED);
    EXPECT_EQ(cut.seen.size(), (size_t)at + 1);
    EXPECT_NE(detail.find(says), std::string::npos) << detail;
}

TEST(Progress, ExactKnnReportsTilesAndCancels) {
    KnnCalls all;
    umap_result r;
    std::string detail;
    knn_run(UMAP_KNN_EXACT, all, &r, &detail);
    ASSERT_EQ(r, UMAP_OK) << detail;
    expect_counts_up(all);
    EXPECT_EQ(all.seen.back().first, all.seen.back().second); /* every tile done */
    EXPECT_EQ(all.seen.back().second, 6 * 7 / 2);              /* a triangle of 6 x 6 tiles of 512 rows */
    expect_cancels_at(UMAP_KNN_EXACT, 2, "cancelled");
}

TEST(Progress, NNDescentReportsRoundsAndCancels) {
    KnnCalls all;
    umap_result r;
    std::string detail;
    knn_run(UMAP_KNN_NNDESCENT, all, &r, &detail);
    ASSERT_EQ(r, UMAP_OK) << detail;
    expect_counts_up(all);
    expect_cancels_at(UMAP_KNN_NNDESCENT, 1, "rounds"); /* after the first round */
}

struct FitCalls {
    std::vector<std::string> phase;
    std::vector<int> epoch, n_epochs;
    std::string cancel_phase;
    int cancel_epoch = 0;
};

int fit_progress(const umap_progress *p, void *user) {
    FitCalls *c = (FitCalls *)user;
    c->phase.push_back(p->phase);
    c->epoch.push_back(p->epoch);
    c->n_epochs.push_back(p->n_epochs);
    return c->cancel_phase == p->phase && p->epoch >= c->cancel_epoch;
}

/* the last (epoch, n_epochs) a phase reported, and how many reports it made */
struct Seen {
    int reports = 0, epoch = -1, n_epochs = -1;
};
Seen seen(const FitCalls &c, const std::string &phase) {
    Seen s;
    for (size_t i = 0; i < c.phase.size(); i++)
        if (c.phase[i] == phase) {
            s.reports++;
            s.epoch = c.epoch[i];
            s.n_epochs = c.n_epochs[i];
        }
    return s;
}

umap_result fit(FitCalls &calls, umap_model **m, umap_fit_info *info) {
    const int64_t n = 600, d = 6;
    static std::vector<float> x = ut::uniform(n * d, 42, -1, 1);
    umap_config c = umap_config_default();
    c.n_neighbors = 10;
    c.n_epochs = 2;
    c.refine_epochs = 40;
    c.distill_epochs = 4;
    c.seed = 9;
    c.n_threads = 1;
    c.progress = fit_progress;
    c.progress_user_data = &calls;
    c.info = info;
    return umap_fit(&c, x.data(), n, d, m);
}

TEST(Progress, FitReportsEveryLongPhaseAsItGoes) {
    FitCalls calls;
    umap_model *m = nullptr;
    umap_fit_info info;
    ASSERT_EQ(fit(calls, &m, &info), UMAP_OK) << info.error_detail;
    umap_model_free(m);
    Seen knn = seen(calls, "knn"), pca = seen(calls, "pca"), refine = seen(calls, "refine"),
         distill = seen(calls, "distill");
    EXPECT_GE(knn.reports, 3);
    EXPECT_EQ(knn.epoch, knn.n_epochs);
    EXPECT_GT(knn.n_epochs, 0);
    EXPECT_GE(pca.reports, 3);
    EXPECT_EQ(pca.epoch, pca.n_epochs);
    EXPECT_GE(refine.reports, 10);
    EXPECT_EQ(refine.n_epochs, 40);
    EXPECT_GE(distill.reports, 3);
    EXPECT_EQ(distill.epoch, distill.n_epochs);
    const int64_t batch = umap_config_default().batch_size;
    EXPECT_EQ(distill.n_epochs, (4 * 600 + batch - 1) / batch); /* distill_epochs passes of default batches */
}

TEST(Progress, CancellingTheDistillationKeepsAUsableModel) {
    FitCalls calls;
    calls.cancel_phase = "distill";
    calls.cancel_epoch = 1;
    umap_model *m = nullptr;
    umap_fit_info info;
    EXPECT_EQ(fit(calls, &m, &info), UMAP_ERR_CANCELLED);
    ASSERT_NE(m, nullptr) << "a cancelled fit keeps its model";
    EXPECT_EQ(info.stop_reason, UMAP_STOP_CANCELLED);
    const float *e = umap_model_embedding(m);
    for (int64_t i = 0; i < 600 * 2; i++) ASSERT_TRUE(std::isfinite(e[i]));
    umap_model_free(m);
    FitCalls knn_cut;
    knn_cut.cancel_phase = "knn";
    knn_cut.cancel_epoch = 1;
    EXPECT_EQ(fit(knn_cut, &m, &info), UMAP_ERR_CANCELLED);
    EXPECT_EQ(m, nullptr) << "cancelled before there is anything to keep";
    EXPECT_NE(std::string(info.error_detail).find("cancelled"), std::string::npos) << info.error_detail;
}

} // namespace
