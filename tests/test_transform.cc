/* transform's modes (umap_transform_with): the encoder, and the placement of
   new rows among their nearest training rows for a model fitted with
   config.keep_data: every row, their sketch, or (the default) the sketch of
   a sample. Quality against the encoder on real data, the same bits for
   any thread count and after a model file round trip, errors, hostile
   files holding the kept data, allocation failure, and training rows
   landing on their own embedding. */
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "test_knn_util.h"
#include "test_util.h"

namespace {

using ut::Model;

/* ut::quick_config, keeping the training rows or not */
umap_config quick_config(int keep_data) {
    umap_config c = ut::quick_config();
    c.keep_data = keep_data;
    return c;
}

struct Placed {
    umap_result r = UMAP_ERR_GRAPH;
    std::string detail;
    std::vector<float> y;
};

Placed transform(const umap_model *m, const float *x, int64_t n, umap_transform_mode mode, int n_threads = 1,
                 int epochs = 0, int exact_neighbors = 0) {
    Placed p;
    char detail[512];
    std::memset(detail, 0x55, sizeof detail);
    umap_transform_desc td;
    std::memset(&td, 0, sizeof td);
    td.mode = mode;
    td.epochs = epochs;
    td.exact_neighbors = exact_neighbors;
    td.n_threads = n_threads;
    td.detail = detail;
    td.detail_size = sizeof detail;
    p.y.assign((size_t)(n * umap_model_n_components(m)), 0.0f);
    p.r = umap_transform_with(m, &td, x, n, umap_model_n_features(m), p.y.data());
    p.detail = detail;
    return p;
}

std::string tmp_path(const char *ext) {
    const char *dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/umap_test_transform_" + std::to_string((long)getpid()) + ext;
}

std::string saved(const umap_model *m, const char *ext) {
    std::string p = tmp_path(ext);
    EXPECT_EQ(umap_save(m, p.c_str()), UMAP_OK) << p;
    std::string bytes = ut::read_file(p);
    std::remove(p.c_str());
    return bytes;
}

/* one model with kept data, fitted once: the tests that only read it share it */
class Neighbors : public ::testing::Test {
  protected:
    static const int64_t kTrain = 600, kNew = 300, kCols = 12;
    static std::vector<float> x_;  /* kTrain training rows, then kNew new ones */
    static umap_model *kept_, *plain_; /* the same fit with and without keep_data */

    static void SetUpTestSuite() {
        x_ = kt::clustered(kTrain + kNew, kCols, 5, 3, 17);
        umap_config c = quick_config(1);
        ASSERT_EQ(umap_fit(&c, x_.data(), kTrain, kCols, &kept_), UMAP_OK);
        c.keep_data = 0;
        ASSERT_EQ(umap_fit(&c, x_.data(), kTrain, kCols, &plain_), UMAP_OK);
    }
    static void TearDownTestSuite() {
        umap_model_free(kept_);
        umap_model_free(plain_);
        kept_ = plain_ = nullptr;
    }
    void SetUp() override {
        ASSERT_NE(kept_, nullptr);
        ASSERT_NE(plain_, nullptr);
    }
    static const float *new_rows() { return x_.data() + kTrain * kCols; }
};
std::vector<float> Neighbors::x_;
umap_model *Neighbors::kept_ = nullptr;
umap_model *Neighbors::plain_ = nullptr;

/* the rms distance between two placements a and b of the same rows, as a
   part of the spread of m's training embedding (2-D: its rms distance
   from its centroid) */
double rms_apart(const umap_model *m, const std::vector<float> &a, const std::vector<float> &b) {
    const int64_t n = umap_model_n_train(m);
    const float *e = umap_model_embedding(m);
    double mean[2] = {0, 0}, spread = 0, apart = 0;
    for (int64_t i = 0; i < n; i++)
        for (int c = 0; c < 2; c++) mean[c] += e[2 * i + c] / (double)n;
    for (int64_t i = 0; i < n; i++)
        for (int c = 0; c < 2; c++) spread += (e[2 * i + c] - mean[c]) * (e[2 * i + c] - mean[c]) / (double)n;
    for (size_t j = 0; j < a.size(); j++) apart += (a[j] - b[j]) * (a[j] - b[j]);
    return std::sqrt(apart / (double)(a.size() / 2)) / std::sqrt(spread);
}

} // namespace

/* ---------------------------------------------------------------- quality */

TEST(TransformQuality, FashionMnistNeighborsBeatTheEncoder) {
    const int64_t n = 3000, n_fit = n * 5 / 6, n_new = n - n_fit;
    int64_t d = 0;
    std::vector<float> x;
    std::vector<int32_t> labels;
    if (!kt::fashion_mnist_t10k(n, &x, &d, &labels)) GTEST_SKIP() << "Fashion-MNIST not readable (Debian package dataset-fashion-mnist)";
    umap_config c = umap_config_default();
    c.n_threads = 2;
    c.keep_data = 1;
    Model m;
    umap_fit_info info;
    c.info = &info;
    ASSERT_EQ(umap_fit(&c, x.data(), n_fit, d, m.out()), UMAP_OK) << info.error_detail;
    const float *held_out = x.data() + n_fit * d;
    Placed enc = transform(m.m, held_out, n_new, UMAP_TRANSFORM_ENCODER, 2);
    Placed nb = transform(m.m, held_out, n_new, UMAP_TRANSFORM_NEIGHBORS, 2);
    ASSERT_EQ(enc.r, UMAP_OK) << enc.detail;
    ASSERT_EQ(nb.r, UMAP_OK) << nb.detail;
    /* scored among the held-out rows alone */
    umap_quality_desc qd;
    std::memset(&qd, 0, sizeof qd);
    qd.n_threads = 2;
    umap_quality qe, qn;
    ASSERT_EQ(umap_quality_eval(&qd, held_out, n_new, d, enc.y.data(), 2, labels.data() + n_fit, &qe), UMAP_OK);
    ASSERT_EQ(umap_quality_eval(&qd, held_out, n_new, d, nb.y.data(), 2, labels.data() + n_fit, &qn), UMAP_OK);
    /* measured, fit on 2500 rows, 500 held out: encoder trustworthiness
       0.954, 10-NN accuracy 0.660; neighbours 0.962, 0.668 (over seeds
       0-4 the encoder averages 0.950 / 0.640, the neighbours 0.964 /
       0.661); 833 + 167 rows (the sanitizer builds' size): encoder 0.940,
       0.617; neighbours 0.952, 0.647. With two hidden layers of 100:
       encoder 0.945, 0.668 (seeds 0-4: 0.947 / 0.647); neighbours 0.963,
       0.650.
       Trustworthiness separates the two ways every time; a 10-NN accuracy
       over a few hundred rows moves by a few hundredths with the seed
       (binomial noise), so the ways' accuracies are compared within two
       standard errors of it, and the floors catch a regression of a few
       points. */
    const double acc_noise = 2.0 * std::sqrt(0.65 * 0.35 / (double)n_new);
    EXPECT_GT(qn.trustworthiness, qe.trustworthiness);
    EXPECT_GE(qn.knn_accuracy, qe.knn_accuracy - acc_noise);
    EXPECT_GE(qn.trustworthiness, n >= 3000 ? 0.95 : 0.925);
    EXPECT_GE(qn.knn_accuracy, n >= 3000 ? 0.64 : 0.61);
    EXPECT_GE(qe.trustworthiness, n >= 3000 ? 0.935 : 0.92);
    EXPECT_GE(qe.knn_accuracy, n >= 3000 ? 0.63 : 0.57);
    /* AUTO is the neighbours on a model that kept its data */
    Placed autom = transform(m.m, held_out, n_new, UMAP_TRANSFORM_AUTO, 2);
    ASSERT_EQ(autom.r, UMAP_OK);
    EXPECT_TRUE(kt::bits_equal(autom.y, nb.y));
    /* the same fit keeping the sketch (48 of 784 dimensions, the rows' own
       leading axes): its neighbours place the rows as well as the rows do.
       Measured on an AVX-512 machine (2500 + 500), trust and accuracy:
       encoder 0.944, 0.630; rows 0.961, 0.654; sketch 0.962, 0.668 (the
       z-scored sketch on the encoder's 64 axes, an earlier build: encoder
       0.954, 0.660; rows 0.962, 0.668; sketch 0.964, 0.684; 833 + 167:
       0.940, 0.617; 0.952, 0.647; 0.953, 0.647) */
    c.keep_data = UMAP_KEEP_SKETCH;
    Model ms;
    ASSERT_EQ(umap_fit(&c, x.data(), n_fit, d, ms.out()), UMAP_OK) << info.error_detail;
    Placed sk = transform(ms.m, held_out, n_new, UMAP_TRANSFORM_AUTO, 2);
    ASSERT_EQ(sk.r, UMAP_OK) << sk.detail;
    umap_quality qs;
    ASSERT_EQ(umap_quality_eval(&qd, held_out, n_new, d, sk.y.data(), 2, labels.data() + n_fit, &qs), UMAP_OK);
    EXPECT_GT(qs.trustworthiness, qe.trustworthiness);
    EXPECT_GE(qs.trustworthiness, qn.trustworthiness - (n >= 3000 ? 0.005 : 0.01));
    EXPECT_GE(qs.knn_accuracy, qn.knn_accuracy - acc_noise);
    EXPECT_GE(qs.trustworthiness, n >= 3000 ? 0.95 : 0.925);
    EXPECT_GE(qs.knn_accuracy, n >= 3000 ? 0.64 : 0.61);
    /* the default: the sketch of a sample (here a third of the rows, as
       16,384 of Fashion-MNIST's 60,000 are a quarter) */
    c.keep_data = UMAP_AUTO;
    c.keep_sample = (int)(n_fit / 3);
    Model md;
    ASSERT_EQ(umap_fit(&c, x.data(), n_fit, d, md.out()), UMAP_OK) << info.error_detail;
    Placed dp = transform(md.m, held_out, n_new, UMAP_TRANSFORM_AUTO, 2);
    ASSERT_EQ(dp.r, UMAP_OK) << dp.detail;
    umap_quality qdft;
    ASSERT_EQ(umap_quality_eval(&qd, held_out, n_new, d, dp.y.data(), 2, labels.data() + n_fit, &qdft), UMAP_OK);
    /* measured (2500 + 500, the AVX-512 machine): 0.964, 0.672, beside the
       sketch of every row's 0.962, 0.668 */
    EXPECT_GT(qdft.trustworthiness, qe.trustworthiness);
    EXPECT_GE(qdft.trustworthiness, qs.trustworthiness - (n >= 3000 ? 0.005 : 0.01));
    EXPECT_GE(qdft.knn_accuracy, qs.knn_accuracy - acc_noise);
    EXPECT_GE(qdft.trustworthiness, n >= 3000 ? 0.95 : 0.925);
    EXPECT_GE(qdft.knn_accuracy, n >= 3000 ? 0.64 : 0.61);
}

/* ---------------------------------------------------------------- determinism */

TEST_F(Neighbors, SameBitsForAnyThreadCount) {
    Placed one = transform(kept_, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, 1);
    ASSERT_EQ(one.r, UMAP_OK) << one.detail;
    for (float v : one.y) ASSERT_TRUE(std::isfinite(v));
    for (int threads : {2, 3, 0}) {
        Placed p = transform(kept_, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, threads);
        ASSERT_EQ(p.r, UMAP_OK) << p.detail;
        EXPECT_TRUE(kt::bits_equal(p.y, one.y)) << threads << " threads";
    }
    /* umap_transform is AUTO: the neighbours here, the encoder on a model without kept data */
    std::vector<float> y((size_t)(2 * kNew));
    ASSERT_EQ(umap_transform(kept_, new_rows(), kNew, kCols, y.data(), 2), UMAP_OK);
    EXPECT_TRUE(kt::bits_equal(y, one.y));
    Placed enc = transform(plain_, new_rows(), kNew, UMAP_TRANSFORM_ENCODER);
    ASSERT_EQ(umap_transform(plain_, new_rows(), kNew, kCols, y.data(), 2), UMAP_OK);
    EXPECT_TRUE(kt::bits_equal(y, enc.y));
    EXPECT_FALSE(kt::bits_equal(enc.y, one.y));
}

TEST_F(Neighbors, KeepDataChangesNothingInTheFit) {
    /* the same embedding and the same encoder: keep_data only adds a copy */
    std::vector<float> a(umap_model_embedding(kept_), umap_model_embedding(kept_) + 2 * kTrain);
    std::vector<float> b(umap_model_embedding(plain_), umap_model_embedding(plain_) + 2 * kTrain);
    EXPECT_TRUE(kt::bits_equal(a, b));
    EXPECT_TRUE(kt::bits_equal(transform(kept_, new_rows(), kNew, UMAP_TRANSFORM_ENCODER).y,
                               transform(plain_, new_rows(), kNew, UMAP_TRANSFORM_ENCODER).y));
    EXPECT_EQ(umap_model_config(kept_)->keep_data, 1);
    EXPECT_EQ(umap_model_config(plain_)->keep_data, 0);
}

TEST_F(Neighbors, EpochsMoveTheRows) {
    Placed auto_epochs = transform(kept_, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS);
    Placed thirty = transform(kept_, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, 1, 30);
    Placed hundred = transform(kept_, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, 1, 100);
    Placed one = transform(kept_, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, 1, 1);
    ASSERT_EQ(one.r, UMAP_OK) << one.detail;
    EXPECT_TRUE(kt::bits_equal(auto_epochs.y, thirty.y)) << "a 2-D model's auto is 30 steps of the expected descent";
    EXPECT_FALSE(kt::bits_equal(one.y, thirty.y));
    /* the same descent in finer steps: 100 land where 30 put the rows, to a
       small part of the training embedding's spread */
    EXPECT_LT(rms_apart(kept_, thirty.y, hundred.y), 0.01);
}

/* ---------------------------------------------------------------- training rows */

TEST_F(Neighbors, TrainingRowsLandOnTheirOwnEmbedding) {
    /* a training row's nearest training row is itself (distance 0, the
       strongest membership): it starts next to its own place and the epochs
       keep it there */
    Placed p = transform(kept_, x_.data(), kTrain, UMAP_TRANSFORM_NEIGHBORS, 2);
    ASSERT_EQ(p.r, UMAP_OK) << p.detail;
    const float *e = umap_model_embedding(kept_);
    double mean[2] = {0, 0}, var = 0;
    for (int64_t i = 0; i < kTrain; i++)
        for (int c = 0; c < 2; c++) mean[c] += e[2 * i + c] / (double)kTrain;
    for (int64_t i = 0; i < kTrain; i++)
        for (int c = 0; c < 2; c++) var += (e[2 * i + c] - mean[c]) * (e[2 * i + c] - mean[c]) / (double)kTrain;
    /* near: its own place among the few training places nearest to it */
    int64_t within[3] = {0, 0, 0}; /* own place ranked 1st, in the first 3, in the first 10 */
    double se = 0;
    for (int64_t i = 0; i < kTrain; i++) {
        const float *yi = &p.y[(size_t)(2 * i)];
        double own = std::hypot(yi[0] - e[2 * i], yi[1] - e[2 * i + 1]);
        int64_t closer = 0;
        for (int64_t j = 0; j < kTrain; j++)
            closer += j != i && std::hypot(yi[0] - e[2 * j], yi[1] - e[2 * j + 1]) < own;
        within[0] += closer < 1;
        within[1] += closer < 3;
        within[2] += closer < 10;
        se += own * own;
    }
    /* measured: own place nearest for 62 % of the rows, in the first 3 for
       96 %, in the first 10 for all; rms distance 0.015 of the spread */
    EXPECT_GE(within[1], kTrain * 9 / 10);
    EXPECT_GE(within[2], kTrain * 98 / 100);
    EXPECT_LT(std::sqrt(se / kTrain / var), 0.05);
}

/* ---------------------------------------------------------------- errors */

TEST_F(Neighbors, NeighborsNeedKeptData) {
    Placed p = transform(plain_, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS);
    EXPECT_EQ(p.r, UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(p.detail.find("keep_data"), std::string::npos) << p.detail;
    /* and a fitted model without kept data still has its embedding; a loaded one has none */
    EXPECT_NE(umap_model_embedding(plain_), nullptr);
    Model l;
    std::string f = saved(plain_, ".safetensors");
    char detail[256];
    ASSERT_EQ(umap_load_memory(f.data(), f.size(), nullptr, l.out(), detail, sizeof detail), UMAP_OK) << detail;
    EXPECT_EQ(umap_model_embedding(l.m), nullptr);
    EXPECT_EQ(umap_model_config(l.m)->keep_data, 0);
    EXPECT_EQ(transform(l.m, new_rows(), 5, UMAP_TRANSFORM_NEIGHBORS).r, UMAP_ERR_INVALID_ARGUMENT);
}

TEST_F(Neighbors, BadArgumentsAndRowsAreNamed) {
    Placed p = transform(kept_, new_rows(), 10, (umap_transform_mode)7);
    EXPECT_EQ(p.r, UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(p.detail.find("mode"), std::string::npos) << p.detail;
    for (int epochs : {-1, 100001}) {
        p = transform(kept_, new_rows(), 10, UMAP_TRANSFORM_NEIGHBORS, 1, epochs);
        EXPECT_EQ(p.r, UMAP_ERR_INVALID_ARGUMENT) << epochs;
        EXPECT_NE(p.detail.find("epochs"), std::string::npos) << p.detail;
    }
    std::vector<float> bad(new_rows(), new_rows() + 10 * kCols);
    bad[(size_t)(4 * kCols + 3)] = NAN;
    p = transform(kept_, bad.data(), 10, UMAP_TRANSFORM_NEIGHBORS);
    EXPECT_EQ(p.r, UMAP_ERR_NON_FINITE);
    EXPECT_NE(p.detail.find("row 4"), std::string::npos) << p.detail;
    std::vector<float> y(2);
    EXPECT_EQ(umap_transform_with(kept_, nullptr, new_rows(), 0, kCols, y.data()), UMAP_OK);
    EXPECT_EQ(umap_transform_with(kept_, nullptr, new_rows(), 1, kCols + 1, y.data()), UMAP_ERR_SHAPE);
    EXPECT_EQ(umap_transform_with(nullptr, nullptr, new_rows(), 1, kCols, y.data()), UMAP_ERR_INVALID_ARGUMENT);
    /* one row alone, far outside the data: a finite place */
    std::vector<float> far((size_t)kCols, 1e30f);
    p = transform(kept_, far.data(), 1, UMAP_TRANSFORM_NEIGHBORS);
    ASSERT_EQ(p.r, UMAP_OK) << p.detail;
    EXPECT_TRUE(std::isfinite(p.y[0]) && std::isfinite(p.y[1]));
}

TEST(TransformExtreme, DataNearFltMaxIsPlacedFinite) {
    /* the search's distances stay at its working scale (beyond float at the
       data's own), as in fit: the memberships do not depend on the scale */
    const int64_t n = 200, d = 5;
    std::vector<float> x((size_t)(n * d));
    for (int64_t i = 0; i < (int64_t)x.size(); i++) x[(size_t)i] = kt::normal(12, (uint64_t)i) < 0 ? -3.3e38f : 3.3e38f;
    umap_config c = quick_config(1);
    Model m;
    umap_fit_info info;
    c.info = &info;
    ASSERT_EQ(umap_fit(&c, x.data(), n, d, m.out()), UMAP_OK) << info.error_detail;
    Placed p = transform(m.m, x.data(), n, UMAP_TRANSFORM_NEIGHBORS, 2);
    ASSERT_EQ(p.r, UMAP_OK) << p.detail;
    for (float v : p.y) ASSERT_TRUE(std::isfinite(v));
}

namespace {

/* every allocation of a kept-data transform, failed in turn: a clean error
   and no leak, or the same bits (the model's allocator serves transform:
   the model is loaded from its file with a failing one) */
void expect_clean_allocation_failures(const umap_model *model, const float *rows, int64_t n) {
    std::string f = saved(model, ".gguf");
    kt::FailingAlloc count;
    umap_allocator a = count.hook();
    Model l;
    char detail[256];
    ASSERT_EQ(umap_load_memory(f.data(), f.size(), &a, l.out(), detail, sizeof detail), UMAP_OK) << detail;
    long before = count.attempts.load(), live = count.live.load();
    Placed want = transform(l.m, rows, n, UMAP_TRANSFORM_NEIGHBORS, 2);
    ASSERT_EQ(want.r, UMAP_OK) << want.detail;
    long total = count.attempts.load() - before;
    EXPECT_EQ(count.live.load(), live);
    ASSERT_GT(total, 5);
    for (long fail = 0; fail < total; fail++) {
        count.fail_after = before + fail;
        Placed p = transform(l.m, rows, n, UMAP_TRANSFORM_NEIGHBORS, 2);
        count.fail_after = -1;
        EXPECT_EQ(count.live.load(), live) << "leak when allocation " << fail << " fails";
        if (p.r == UMAP_OK) {
            EXPECT_TRUE(kt::bits_equal(p.y, want.y));
        } else {
            EXPECT_TRUE(p.r == UMAP_ERR_OUT_OF_MEMORY || p.r == UMAP_ERR_THREAD) << umap_result_string(p.r);
            EXPECT_FALSE(p.detail.empty());
        }
        before = count.attempts.load();
    }
}

} // namespace

TEST_F(Neighbors, AllocationFailureAnywhereIsCleanAndLeakFree) {
    expect_clean_allocation_failures(kept_, new_rows(), kNew);
}

/* ---------------------------------------------------------------- model files */

TEST_F(Neighbors, ModelFilesKeepTheTrainingData) {
    Placed want = transform(kept_, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, 2);
    ASSERT_EQ(want.r, UMAP_OK);
    std::vector<float> emb(umap_model_embedding(kept_), umap_model_embedding(kept_) + 2 * kTrain);
    for (const char *ext : {".safetensors", ".gguf"}) {
        std::string f = saved(kept_, ext), plain = saved(plain_, ext);
        /* the kept rows and embedding are what the file adds */
        EXPECT_GE(f.size(), plain.size() + 4 * (size_t)(kTrain * (kCols + 2))) << ext;
        Model l;
        char detail[256];
        ASSERT_EQ(umap_load_memory(f.data(), f.size(), nullptr, l.out(), detail, sizeof detail), UMAP_OK) << detail;
        EXPECT_EQ(umap_model_config(l.m)->keep_data, 1);
        ASSERT_NE(umap_model_embedding(l.m), nullptr);
        const float *le = umap_model_embedding(l.m);
        EXPECT_TRUE(kt::bits_equal(std::vector<float>(le, le + 2 * kTrain), emb)) << ext;
        Placed got = transform(l.m, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, 1);
        ASSERT_EQ(got.r, UMAP_OK) << got.detail;
        EXPECT_TRUE(kt::bits_equal(got.y, want.y)) << ext;
        EXPECT_TRUE(kt::bits_equal(transform(l.m, new_rows(), kNew, UMAP_TRANSFORM_ENCODER).y,
                                   transform(kept_, new_rows(), kNew, UMAP_TRANSFORM_ENCODER).y));
        /* saved again and loaded: a fixed point (the first load fills in
           resolved config values, so the first save may differ in its text) */
        std::string again = saved(l.m, ext);
        Model l2;
        ASSERT_EQ(umap_load_memory(again.data(), again.size(), nullptr, l2.out(), detail, sizeof detail), UMAP_OK);
        EXPECT_TRUE(saved(l2.m, ext) == again) << ext;
    }
}

namespace {

/* safetensors: the header text, the data, and a file built from both */
std::string st_header(const std::string &f) {
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--) n = n << 8 | (unsigned char)f[(size_t)i];
    return f.substr(8, (size_t)n);
}
std::string st_build(std::string header, const std::string &data) {
    while ((8 + header.size()) % 8) header += ' ';
    std::string out(8, '\0');
    uint64_t n = header.size();
    for (int i = 0; i < 8; i++) out[(size_t)i] = (char)(n >> (8 * i));
    return out + header + data;
}
std::string st_data(const std::string &f) { return f.substr(8 + st_header(f).size()); }
std::string st_replace(const std::string &f, const std::string &from, const std::string &to) {
    std::string h = st_header(f);
    size_t at = h.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at == std::string::npos) return f;
    return st_build(h.replace(at, from.size(), to), st_data(f));
}
/* where a tensor's bytes begin in the file */
size_t st_offset(const std::string &f, const std::string &name) {
    std::string h = st_header(f);
    size_t at = h.find("\"" + name + "\":{");
    at = h.find("\"data_offsets\":[", at) + 16;
    return 8 + h.size() + (size_t)std::strtoull(h.c_str() + at, nullptr, 10);
}
void put_f32(std::string &f, size_t at, float v) { std::memcpy(&f[at], &v, 4); }

/* GGUF: where tensor `name`'s info starts (its u64 name length) */
size_t gguf_info(const std::string &f, const std::string &name) {
    std::string pat(8, '\0');
    for (int i = 0; i < 8; i++) pat[(size_t)i] = (char)((uint64_t)name.size() >> (8 * i));
    return f.find(pat + name);
}

struct Refused {
    umap_result r;
    std::string detail;
    bool leaked;
};
Refused load(const std::string &bytes) {
    kt::FailingAlloc count;
    umap_allocator a = count.hook();
    umap_model *m = nullptr;
    char detail[512] = "";
    Refused out;
    out.r = umap_load_memory(bytes.data(), bytes.size(), &a, &m, detail, sizeof detail);
    out.detail = detail;
    if (m) umap_model_free(m);
    out.leaked = count.live.load() != 0;
    return out;
}

} // namespace

#define EXPECT_REFUSED(bytes, words)                                                                     \
    do {                                                                                                 \
        Refused rf_ = load(bytes);                                                                       \
        EXPECT_EQ(rf_.r, UMAP_ERR_FORMAT) << rf_.detail;                                                 \
        EXPECT_NE(rf_.detail.find(words), std::string::npos) << "detail '" << rf_.detail << "' lacks '" \
                                                             << (words) << "'";                          \
        EXPECT_FALSE(rf_.leaked);                                                                        \
    } while (0)

TEST_F(Neighbors, HostileFilesWithKeptData) {
    const std::string st = saved(kept_, ".safetensors"), gg = saved(kept_, ".gguf");
    ASSERT_EQ(load(st).r, UMAP_OK);
    ASSERT_EQ(load(gg).r, UMAP_OK);
    const std::string rows = std::to_string(kTrain), cols = std::to_string(kCols);
    /* safetensors: a shape of the same size but not the metadata's */
    EXPECT_REFUSED(st_replace(st, "\"shape\":[" + rows + "," + cols + "]", "\"shape\":[" + std::to_string(kTrain / 2) +
                                                                            "," + std::to_string(2 * kCols) + "]"),
                   "train.data");
    EXPECT_REFUSED(st_replace(st, "\"umap.n_train\":\"" + rows + "\"",
                              "\"umap.n_train\":\"" + std::to_string(kTrain + 1) + "\""),
                   "train.data");
    {   /* NaN and Inf in the embedding, NaN in the rows */
        std::string f = st;
        put_f32(f, st_offset(st, "train.embedding") + 4 * 7, NAN);
        EXPECT_REFUSED(f, "train.embedding");
        f = st;
        put_f32(f, st_offset(st, "train.embedding") + 4 * (2 * kTrain - 1), -INFINITY);
        EXPECT_REFUSED(f, "train.embedding");
        f = st;
        put_f32(f, st_offset(st, "train.data") + 4 * 5, NAN);
        EXPECT_REFUSED(f, "train.data");
    }
    {   /* finite, but spanning more than float holds: the placement's grid
           would overflow (a fuzzer's find) */
        std::string f = st;
        put_f32(f, st_offset(st, "train.embedding") + 4 * 2, -3e38f);
        put_f32(f, st_offset(st, "train.embedding") + 4 * 4, 3e38f);
        Refused rf = load(f);
        EXPECT_EQ(rf.r, UMAP_ERR_NON_FINITE) << rf.detail;
        EXPECT_NE(rf.detail.find("too wide"), std::string::npos) << rf.detail;
        EXPECT_FALSE(rf.leaked);
    }
    /* one of the two: renamed away, or gone with its bytes (with the graph
       after it, the last tensor) */
    EXPECT_REFUSED(st_replace(st, "\"train.data\"", "\"train.dat0\""), "without");
    EXPECT_REFUSED(st_replace(st, "\"train.embedding\"", "\"train.embeddin0\""), "without");
    {
        std::string h = st_header(st);
        size_t at = h.find(",\"train.embedding\":{"), end = h.find('}', h.find(",\"train.knn\":{")) + 1;
        ASSERT_NE(at, std::string::npos);
        h.erase(at, end - at);
        std::string data = st_data(st);
        data.resize(st_offset(st, "train.embedding") - 8 - st_header(st).size());
        EXPECT_REFUSED(st_build(h, data), "without 'train.embedding'");
    }
    /* the config fields the placement reads, out of fit's ranges */
    EXPECT_REFUSED(st_replace(st, "\\\"negative_sample_rate\\\":5", "\\\"negative_sample_rate\\\":2000000000"),
                   "negative_sample_rate");
    EXPECT_REFUSED(st_replace(st, "\\\"n_neighbors\\\":10", "\\\"n_neighbors\\\":1"), "n_neighbors");
    /* GGUF: the kept k-NN graph is the last tensor, so its last indices end the file */
    {
        std::string f = gg;
        int32_t beyond = (int32_t)kTrain;
        std::memcpy(&f[f.size() - 4 * 3], &beyond, 4);
        EXPECT_REFUSED(f, "train.knn");
        f = gg;
        size_t at = gguf_info(f, "train.data");
        ASSERT_NE(at, std::string::npos);
        f[at + 8 + 9] = '0'; /* train.dat0 */
        EXPECT_REFUSED(f, "without");
        f = gg;
        /* ne = {d, n_train} (fastest first): swapped, the same size in the other shape */
        size_t ne0 = at + 8 + 10 + 4;
        std::string a = f.substr(ne0, 8), b = f.substr(ne0 + 8, 8);
        f.replace(ne0, 8, b);
        f.replace(ne0 + 8, 8, a);
        EXPECT_REFUSED(f, "train.data");
    }
}

/* ---------------------------------------------------------------- the kept k-NN graph */

TEST_F(Neighbors, TheWalkFindsWhatTheExactSearchFinds) {
    /* a row's place depends on its neighbours and its draws alone, so a row
       whose walk found the exact neighbours gets the exact search's bits */
    Placed walk = transform(kept_, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, 2);
    Placed exact = transform(kept_, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, 2, 0, 1);
    ASSERT_EQ(walk.r, UMAP_OK) << walk.detail;
    ASSERT_EQ(exact.r, UMAP_OK) << exact.detail;
    int64_t same = 0;
    for (int64_t i = 0; i < kNew; i++)
        same += std::memcmp(&walk.y[(size_t)(2 * i)], &exact.y[(size_t)(2 * i)], 2 * sizeof(float)) == 0;
    /* the model's index prunes its lists, so the walk misses a neighbour
       now and then, for one nearly as near (measured: 298 of 300 rows
       exact, the rest 0.001 of the spread apart in rms) */
    EXPECT_GE(same, kNew * 95 / 100);
    EXPECT_LT(rms_apart(kept_, walk.y, exact.y), 0.005);
}

/* the walks run in the order of where the encoder puts the rows, not in the
   call's: a call of thousands of rows (drawn around the training rows, many
   walk tasks on each thread) still gives most rows the neighbours the
   exact search finds, the rest nearly as near ones, and the same bits for
   any thread count */
TEST_F(Neighbors, WalksInEmbeddingOrderGiveEachRowItsOwn) {
    const int64_t n = 4096 + 517;
    std::vector<float> rows((size_t)(n * kCols));
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < kCols; j++)
            rows[(size_t)(i * kCols + j)] = x_[(size_t)((i * 7 % kTrain) * kCols + j)] + 0.05f * kt::normal(31, (uint64_t)(i * kCols + j));
    Placed walk = transform(kept_, rows.data(), n, UMAP_TRANSFORM_NEIGHBORS, 2, 5);
    Placed one = transform(kept_, rows.data(), n, UMAP_TRANSFORM_NEIGHBORS, 1, 5);
    Placed exact = transform(kept_, rows.data(), n, UMAP_TRANSFORM_NEIGHBORS, 2, 5, 1);
    ASSERT_EQ(walk.r, UMAP_OK) << walk.detail;
    ASSERT_EQ(one.r, UMAP_OK) << one.detail;
    ASSERT_EQ(exact.r, UMAP_OK) << exact.detail;
    EXPECT_TRUE(kt::bits_equal(walk.y, one.y));
    int64_t same = 0;
    for (int64_t i = 0; i < n; i++)
        same += std::memcmp(&walk.y[(size_t)(2 * i)], &exact.y[(size_t)(2 * i)], 2 * sizeof(float)) == 0;
    EXPECT_GE(same, n * 95 / 100); /* measured: 4,603 of 4,613 */
    EXPECT_LT(rms_apart(kept_, walk.y, exact.y), 0.005);
}

TEST_F(Neighbors, ModelFilesKeepTheGraphAndOlderFilesSearchExactly) {
    const std::string st = saved(kept_, ".safetensors"), gg = saved(kept_, ".gguf");
    std::string h = st_header(st);
    EXPECT_NE(h.find("\"train.knn\":{\"dtype\":\"I32\",\"shape\":[" + std::to_string(kTrain) + ","), std::string::npos)
        << h;
    ASSERT_NE(gguf_info(gg, "train.knn"), std::string::npos);
    /* hostile graphs: an index beyond the rows, a row listing itself, the
       wrong dtype here and there */
    {
        std::string f = st;
        int32_t v = (int32_t)kTrain;
        std::memcpy(&f[st_offset(st, "train.knn") + 4 * 5], &v, 4);
        EXPECT_REFUSED(f, "train.knn");
        f = st;
        v = 3;
        std::memcpy(&f[st_offset(st, "train.knn") + 4 * (3 * (size_t)umap_model_config(kept_)->n_neighbors - 3)], &v,
                    4);
        EXPECT_REFUSED(f, "row 3 lists 3");
        v = -2; /* -1 is "none" (an edge the disconnection distance dropped) */
        f = st;
        std::memcpy(&f[st_offset(st, "train.knn")], &v, 4);
        EXPECT_REFUSED(f, "train.knn");
    }
    EXPECT_REFUSED(st_replace(st, "\"train.knn\":{\"dtype\":\"I32\"", "\"train.knn\":{\"dtype\":\"F32\""),
                   "expected I32");
    EXPECT_REFUSED(st_replace(st, "\"train.data\":{\"dtype\":\"F32\"", "\"train.data\":{\"dtype\":\"I32\""),
                   "expected F32");
    EXPECT_REFUSED(st_replace(st, "\"layers.0.bias\":{\"dtype\":\"F32\"", "\"layers.0.bias\":{\"dtype\":\"I64\""),
                   "only F32 and I32");
    {   /* a file from before the graph was kept: the same model, found by the exact search */
        size_t at = h.find(",\"train.knn\":{"), end = h.find('}', at) + 1;
        ASSERT_NE(at, std::string::npos);
        std::string old_h = h;
        old_h.erase(at, end - at);
        std::string data = st_data(st);
        data.resize(st_offset(st, "train.knn") - 8 - h.size());
        Model l;
        char detail[256];
        std::string f = st_build(old_h, data);
        ASSERT_EQ(umap_load_memory(f.data(), f.size(), nullptr, l.out(), detail, sizeof detail), UMAP_OK) << detail;
        Placed got = transform(l.m, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, 2);
        ASSERT_EQ(got.r, UMAP_OK) << got.detail;
        EXPECT_TRUE(kt::bits_equal(got.y, transform(kept_, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, 2, 0, 1).y));
    }
}

/* ---------------------------------------------------------------- the sketch (UMAP_KEEP_SKETCH) */

namespace {

/* one fit keeping the sketch, one the rows, of rows wide enough for the
   encoder to project them (kCols > input_dims) and for the sketch to keep
   fewer axes than columns (kCols > kSketch) */
class Sketch : public ::testing::Test {
  protected:
    static const int64_t kTrain = 600, kNew = 300, kCols = 72, kDims = 8, kSketch = UMAP_SKETCH_DIMS;
    static std::vector<float> x_;
    static umap_model *sketch_, *rows_;

    static void SetUpTestSuite() {
        x_ = kt::clustered(kTrain + kNew, kCols, 5, 3, 23);
        umap_config c = quick_config(UMAP_KEEP_SKETCH);
        c.input_dims = (int)kDims;
        ASSERT_EQ(umap_fit(&c, x_.data(), kTrain, kCols, &sketch_), UMAP_OK);
        c.keep_data = UMAP_KEEP_ROWS;
        ASSERT_EQ(umap_fit(&c, x_.data(), kTrain, kCols, &rows_), UMAP_OK);
    }
    static void TearDownTestSuite() {
        umap_model_free(sketch_);
        umap_model_free(rows_);
        sketch_ = rows_ = nullptr;
    }
    void SetUp() override {
        ASSERT_NE(sketch_, nullptr);
        ASSERT_NE(rows_, nullptr);
    }
    static const float *new_rows() { return x_.data() + kTrain * kCols; }
    /* how far the rows y land from where ref puts them: the mean distance
       per coordinate over ref's larger extent */
    static double mean_gap(const std::vector<float> &ref, const std::vector<float> &y) {
        double lo[2] = {1e30, 1e30}, hi[2] = {-1e30, -1e30}, gap = 0.0;
        for (int64_t i = 0; i < kNew; i++)
            for (int c = 0; c < 2; c++) {
                float v = ref[(size_t)(2 * i + c)];
                lo[c] = std::min(lo[c], (double)v);
                hi[c] = std::max(hi[c], (double)v);
                gap += std::fabs(v - y[(size_t)(2 * i + c)]) / kNew;
            }
        return gap / std::max(hi[0] - lo[0], hi[1] - lo[1]);
    }
};
std::vector<float> Sketch::x_;
umap_model *Sketch::sketch_ = nullptr;
umap_model *Sketch::rows_ = nullptr;

} // namespace

TEST_F(Sketch, TheFitIsTheSameAndTheFileKeepsTheSketchInsteadOfTheRows) {
    EXPECT_EQ(umap_model_config(sketch_)->keep_data, UMAP_KEEP_SKETCH);
    std::vector<float> a(umap_model_embedding(sketch_), umap_model_embedding(sketch_) + 2 * kTrain);
    std::vector<float> b(umap_model_embedding(rows_), umap_model_embedding(rows_) + 2 * kTrain);
    EXPECT_TRUE(kt::bits_equal(a, b));
    EXPECT_TRUE(kt::bits_equal(transform(sketch_, new_rows(), kNew, UMAP_TRANSFORM_ENCODER).y,
                               transform(rows_, new_rows(), kNew, UMAP_TRANSFORM_ENCODER).y));
    std::string s = saved(sketch_, ".safetensors"), r = saved(rows_, ".safetensors");
    EXPECT_NE(st_header(s).find("\"train.sketch\""), std::string::npos);
    EXPECT_NE(st_header(s).find("\"train.sketch_axes\""), std::string::npos);
    EXPECT_EQ(st_header(s).find("\"train.data\""), std::string::npos);
    /* kTrain x kSketch floats and kCols x kSketch of axes where the rows
       file holds kTrain x kCols (the headers differ by the axes' entry) */
    EXPECT_NEAR((double)r.size() - (double)s.size(), 4.0 * (kTrain * (kCols - kSketch) - kCols * kSketch), 160.0);
}

TEST_F(Sketch, IsTheCentredRowsOnTheirOwnPrincipalAxes) {
    /* orthonormal axes, the kept sketch the rows centred by the model's
       mean (not scaled) on them, and its distances those of the rows as
       far as the leading axes reach: the nearest kept row by the sketch is
       the nearest row for most rows */
    std::string f = saved(sketch_, ".safetensors");
    auto floats = [&](const char *name, int64_t count) {
        std::vector<float> v((size_t)count);
        std::memcpy(v.data(), &f[st_offset(f, name)], (size_t)count * 4);
        return v;
    };
    std::vector<float> axes = floats("train.sketch_axes", kCols * kSketch), mean = floats("norm.mean", kCols),
                       kept = floats("train.sketch", kTrain * kSketch);
    for (int64_t a = 0; a < kSketch; a++)
        for (int64_t b = 0; b < kSketch; b++) {
            double dot = 0.0;
            for (int64_t j = 0; j < kCols; j++) dot += (double)axes[(size_t)(j * kSketch + a)] * axes[(size_t)(j * kSketch + b)];
            ASSERT_NEAR(dot, a == b ? 1.0 : 0.0, 1e-4) << a << " " << b;
        }
    double worst = 0.0, scale = 0.0;
    for (int64_t i = 0; i < kTrain; i++)
        for (int64_t c = 0; c < kSketch; c++) {
            double want = 0.0;
            for (int64_t j = 0; j < kCols; j++)
                want += ((double)x_[(size_t)(i * kCols + j)] - mean[(size_t)j]) * axes[(size_t)(j * kSketch + c)];
            worst = std::max(worst, std::fabs(want - kept[(size_t)(i * kSketch + c)]));
            scale = std::max(scale, std::fabs(want));
        }
    EXPECT_LT(worst, 1e-4 * scale);
    auto nearest = [&](const float *rows, int64_t w, int64_t i) {
        int64_t best = -1;
        double bd = 0.0;
        for (int64_t o = 0; o < kTrain; o++) {
            double d = 0.0;
            for (int64_t j = 0; j < w && o != i; j++) {
                double t = (double)rows[i * w + j] - rows[o * w + j];
                d += t * t;
            }
            if (o != i && (best < 0 || d < bd)) best = o, bd = d;
        }
        return best;
    };
    int64_t same = 0;
    for (int64_t i = 0; i < kTrain; i += 3) same += nearest(kept.data(), kSketch, i) == nearest(x_.data(), kCols, i);
    EXPECT_GE(same, kTrain / 3 * 95 / 100); /* measured: 200 of 200 */
}

TEST_F(Sketch, PlacesByTheSketchWithTheSameBitsAnywhere) {
    Placed two = transform(sketch_, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, 2);
    Placed one = transform(sketch_, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, 1);
    Placed autom = transform(sketch_, new_rows(), kNew, UMAP_TRANSFORM_AUTO, 2);
    Placed exact = transform(sketch_, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, 2, 0, 1);
    Placed rows = transform(rows_, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, 2);
    ASSERT_EQ(two.r, UMAP_OK) << two.detail;
    ASSERT_EQ(exact.r, UMAP_OK) << exact.detail;
    ASSERT_EQ(rows.r, UMAP_OK) << rows.detail;
    EXPECT_TRUE(kt::bits_equal(two.y, one.y));
    EXPECT_TRUE(kt::bits_equal(two.y, autom.y));
    /* the walk along the graph finds what the exact search of the sketch
       finds for nearly every row, and the sketch's neighbours are not the
       rows' (the sketch keeps kSketch of kCols dimensions) but lie close:
       each new row lands near where the rows model puts it */
    int64_t same = 0;
    for (int64_t i = 0; i < kNew; i++)
        same += std::memcmp(&two.y[(size_t)(2 * i)], &exact.y[(size_t)(2 * i)], 2 * sizeof(float)) == 0;
    EXPECT_GE(same, kNew * 90 / 100); /* measured: 296 of 300 (284 with the z-scored sketch) */
    EXPECT_FALSE(kt::bits_equal(two.y, rows.y));
    /* measured: 0.02 % of the layout's extent on average (1.7 % with the
       z-scored sketch, before its own axes) */
    EXPECT_LT(mean_gap(rows.y, two.y), 0.01);
}

TEST_F(Sketch, ModelFilesRoundTrip) {
    Placed want = transform(sketch_, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, 2);
    Placed want_exact = transform(sketch_, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, 2, 0, 1);
    ASSERT_EQ(want.r, UMAP_OK) << want.detail;
    for (const char *ext : {".safetensors", ".gguf"}) {
        std::string f = saved(sketch_, ext);
        Model l;
        char detail[256];
        ASSERT_EQ(umap_load_memory(f.data(), f.size(), nullptr, l.out(), detail, sizeof detail), UMAP_OK) << detail;
        EXPECT_EQ(umap_model_config(l.m)->keep_data, UMAP_KEEP_SKETCH) << ext;
        EXPECT_TRUE(kt::bits_equal(transform(l.m, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, 1).y, want.y)) << ext;
        EXPECT_TRUE(kt::bits_equal(transform(l.m, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, 2, 0, 1).y, want_exact.y))
            << ext;
        /* saved again and loaded: a fixed point */
        std::string again = saved(l.m, ext);
        Model l2;
        ASSERT_EQ(umap_load_memory(again.data(), again.size(), nullptr, l2.out(), detail, sizeof detail), UMAP_OK)
            << detail;
        EXPECT_TRUE(saved(l2.m, ext) == again) << ext;
    }
}

TEST_F(Sketch, AllocationFailureAnywhereIsCleanAndLeakFree) {
    expect_clean_allocation_failures(sketch_, new_rows(), kNew);
}

TEST_F(Sketch, BadInputIsNamed) {
    /* the sketch is euclidean: another metric keeps the rows */
    umap_config c = quick_config(UMAP_KEEP_SKETCH);
    c.metric = UMAP_METRIC_COSINE;
    umap_fit_info info;
    c.info = &info;
    Model m;
    EXPECT_EQ(umap_fit(&c, x_.data(), kTrain, kCols, m.out()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("UMAP_KEEP_ROWS"), std::string::npos) << info.error_detail;
    c = quick_config(3);
    c.info = &info;
    EXPECT_EQ(umap_fit(&c, x_.data(), kTrain, kCols, m.out()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("keep_data = 3"), std::string::npos) << info.error_detail;
    /* a new row whose sketch is too large for float (every column 3e38,
       signed as the first axis is, so that the row's coordinate there sums
       past FLT_MAX): named, not placed */
    std::string f = saved(sketch_, ".safetensors");
    std::vector<float> axes((size_t)(kCols * kSketch)), x(new_rows(), new_rows() + 10 * kCols);
    std::memcpy(axes.data(), &f[st_offset(f, "train.sketch_axes")], axes.size() * 4);
    double l1 = 0.0;
    for (int64_t j = 0; j < kCols; j++) {
        float a = axes[(size_t)(j * kSketch)];
        x[(size_t)(6 * kCols + j)] = a < 0 ? -3e38f : 3e38f;
        l1 += std::fabs(a);
    }
    ASSERT_GT(l1, 1.2); /* a unit axis over kCols columns, not a single column */
    Placed p = transform(sketch_, x.data(), 10, UMAP_TRANSFORM_NEIGHBORS, 2);
    EXPECT_EQ(p.r, UMAP_ERR_NON_FINITE);
    EXPECT_NE(p.detail.find("row 6"), std::string::npos) << p.detail;
    std::copy(new_rows() + 6 * kCols, new_rows() + 7 * kCols, x.begin() + 6 * kCols);
    EXPECT_EQ(transform(sketch_, x.data(), 10, UMAP_TRANSFORM_NEIGHBORS, 2).r, UMAP_OK);
}

TEST_F(Sketch, HostileFilesWithTheSketch) {
    const std::string st = saved(sketch_, ".safetensors"), rows = saved(rows_, ".safetensors");
    ASSERT_EQ(load(st).r, UMAP_OK);
    const std::string n = std::to_string(kTrain), dims = std::to_string(kSketch);
    /* a sketch of another shape than its axes call for, NaN in it, a
       sketch in a model of another metric, the sketch called the rows, and
       both (the rows file with its embedding renamed to a sketch of the
       rows' width: the rows and a sketch) */
    EXPECT_REFUSED(st_replace(st, "\"shape\":[" + n + "," + dims + "]",
                              "\"shape\":[" + std::to_string(kTrain / 2) + "," + std::to_string(2 * kSketch) + "]"),
                   "train.sketch");
    std::string f = st;
    put_f32(f, st_offset(st, "train.sketch") + 4 * 11, NAN);
    EXPECT_REFUSED(f, "train.sketch");
    EXPECT_REFUSED(st_replace(st, "\\\"metric\\\":\\\"euclidean\\\"", "\\\"metric\\\":\\\"cosine\\\""), "euclidean");
    EXPECT_REFUSED(st_replace(st, "\"train.sketch\"", "\"train.data\""), "without 'train.sketch'");
    EXPECT_REFUSED(st_replace(rows, "\"train.embedding\"", "\"train.sketch\""), "rows or their sketch");
    /* axes of another width than the sketch's, and NaN in them */
    const std::string cols = std::to_string(kCols), sk = std::to_string(kSketch);
    EXPECT_REFUSED(st_replace(st, "\"shape\":[" + cols + "," + sk + "]", "\"shape\":[" + cols + "," + std::to_string(kSketch - 1) + "]"),
                   "train.sketch");
    f = st;
    put_f32(f, st_offset(st, "train.sketch_axes") + 4 * 5, NAN);
    EXPECT_REFUSED(f, "train.sketch_axes");
}

TEST_F(Sketch, FilesFromBeforeTheAxesSearchTheEncodersInput) {
    /* Before its own axes the sketch was the rows as the encoder's first
       layer sees them (z-scored, on input.projection's axes), as wide as
       that input, and a file ended before train.sketch_axes. Such a file,
       made here from a fit whose encoder input is as wide as the sketch,
       loads, and its new rows are searched in that space: they land near
       where the rows model of the same fit puts them. */
    umap_config c = quick_config(UMAP_KEEP_SKETCH);
    c.input_dims = (int)kSketch;
    Model with_axes, rows, old;
    ASSERT_EQ(umap_fit(&c, x_.data(), kTrain, kCols, with_axes.out()), UMAP_OK);
    c.keep_data = UMAP_KEEP_ROWS;
    ASSERT_EQ(umap_fit(&c, x_.data(), kTrain, kCols, rows.out()), UMAP_OK);
    const std::string st = saved(with_axes.m, ".safetensors");
    std::string h = st_header(st), data = st_data(st);
    size_t at = h.find(",\"train.sketch_axes\":{"), end = h.find('}', at) + 1;
    ASSERT_NE(at, std::string::npos);
    h.erase(at, end - at);
    data.resize(st_offset(st, "train.sketch_axes") - 8 - st_header(st).size()); /* the last tensor */
    std::string f = st_build(h, data);
    std::vector<float> mean((size_t)kCols), sd((size_t)kCols), proj((size_t)(kCols * kSketch));
    std::memcpy(mean.data(), &st[st_offset(st, "norm.mean")], mean.size() * 4);
    std::memcpy(sd.data(), &st[st_offset(st, "norm.std")], sd.size() * 4);
    std::memcpy(proj.data(), &st[st_offset(st, "input.projection")], proj.size() * 4);
    for (int64_t i = 0; i < kTrain; i++)
        for (int64_t q = 0; q < kSketch; q++) {
            double v = 0.0;
            for (int64_t j = 0; j < kCols; j++)
                v += ((double)x_[(size_t)(i * kCols + j)] - mean[(size_t)j]) / sd[(size_t)j] * proj[(size_t)(j * kSketch + q)];
            put_f32(f, st_offset(f, "train.sketch") + (size_t)(4 * (i * kSketch + q)), (float)v);
        }
    char detail[256];
    ASSERT_EQ(umap_load_memory(f.data(), f.size(), nullptr, old.out(), detail, sizeof detail), UMAP_OK) << detail;
    EXPECT_EQ(umap_model_config(old.m)->keep_data, UMAP_KEEP_SKETCH);
    Placed walk = transform(old.m, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, 2);
    Placed exact = transform(old.m, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, 2, 0, 1);
    Placed by_rows = transform(rows.m, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, 2);
    Placed by_axes = transform(with_axes.m, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, 2);
    ASSERT_EQ(walk.r, UMAP_OK) << walk.detail;
    ASSERT_EQ(exact.r, UMAP_OK) << exact.detail;
    ASSERT_EQ(by_rows.r, UMAP_OK) << by_rows.detail;
    EXPECT_FALSE(kt::bits_equal(walk.y, by_axes.y)); /* another space, other neighbours */
    EXPECT_LT(mean_gap(by_rows.y, walk.y), 0.02); /* measured: 0.5 % */
    EXPECT_LT(mean_gap(by_rows.y, exact.y), 0.02);
}

/* ---------------------------------------------------------------- the default: a kept sample */

namespace {

/* A default model (keep_data UMAP_AUTO) that keeps the sketch of a sample
   of kKept of its kTrain rows, and the same fit keeping the sketch of
   every row. */
class Sample : public ::testing::Test {
  protected:
    static const int64_t kTrain = 900, kNew = 300, kCols = 12, kKept = 300;
    static std::vector<float> x_;
    static umap_model *sample_, *all_;

    static umap_config config(int keep_sample) {
        umap_config c = ut::quick_config();
        c.keep_data = UMAP_AUTO;
        c.keep_sample = keep_sample;
        return c;
    }
    static void SetUpTestSuite() {
        x_ = kt::clustered(kTrain + kNew, kCols, 5, 3, 29);
        umap_config c = config(kKept);
        ASSERT_EQ(umap_fit(&c, x_.data(), kTrain, kCols, &sample_), UMAP_OK);
        c = config(UMAP_AUTO); /* the default's sample is larger than these rows: all are kept */
        ASSERT_EQ(umap_fit(&c, x_.data(), kTrain, kCols, &all_), UMAP_OK);
    }
    static void TearDownTestSuite() {
        umap_model_free(sample_);
        umap_model_free(all_);
        sample_ = all_ = nullptr;
    }
    void SetUp() override {
        ASSERT_NE(sample_, nullptr);
        ASSERT_NE(all_, nullptr);
    }
    static const float *new_rows() { return x_.data() + kTrain * kCols; }
};
std::vector<float> Sample::x_;
umap_model *Sample::sample_ = nullptr;
umap_model *Sample::all_ = nullptr;

/* the trustworthiness of the rows x placed at y, among themselves */
double trust_of(const umap_model *m, const std::vector<float> &y, const float *x, int64_t n, int64_t d) {
    umap_quality_desc qd;
    std::memset(&qd, 0, sizeof qd);
    qd.n_threads = 2;
    umap_quality q;
    EXPECT_EQ(umap_quality_eval(&qd, x, n, d, y.data(), umap_model_n_components(m), nullptr, &q), UMAP_OK);
    return q.trustworthiness;
}

} // namespace

TEST_F(Sample, TheDefaultKeepsTheSketchOfASample) {
    const umap_config *c = umap_model_config(sample_);
    EXPECT_EQ(c->keep_data, UMAP_KEEP_SKETCH);
    EXPECT_EQ(c->keep_sample, (int)kKept);
    EXPECT_EQ(umap_model_n_train(sample_), (int64_t)kTrain);
    ASSERT_NE(umap_model_embedding(sample_), nullptr); /* the fit's embedding: every row's */
    /* all rows kept when the sample would hold them all */
    EXPECT_EQ(umap_model_config(all_)->keep_data, UMAP_KEEP_SKETCH);
    EXPECT_EQ(umap_model_config(all_)->keep_sample, 0);
    /* the fit is the same either way: keeping changes nothing in it */
    std::vector<float> a(umap_model_embedding(sample_), umap_model_embedding(sample_) + 2 * kTrain);
    std::vector<float> b(umap_model_embedding(all_), umap_model_embedding(all_) + 2 * kTrain);
    EXPECT_TRUE(kt::bits_equal(a, b));
    /* the same fit with keep_data UMAP_KEEP_SKETCH keeps every row: the same bits as the default here */
    umap_config s = ut::quick_config();
    s.keep_data = UMAP_KEEP_SKETCH;
    Model m;
    ASSERT_EQ(umap_fit(&s, x_.data(), kTrain, kCols, m.out()), UMAP_OK);
    EXPECT_EQ(umap_model_config(m.m)->keep_sample, 0);
    EXPECT_TRUE(kt::bits_equal(transform(m.m, new_rows(), kNew, UMAP_TRANSFORM_AUTO, 2).y,
                               transform(all_, new_rows(), kNew, UMAP_TRANSFORM_AUTO, 2).y));
}

TEST_F(Sample, PlacesNewRowsAsAllRowsDoWithTheSameBitsAnywhere) {
    Placed one = transform(sample_, new_rows(), kNew, UMAP_TRANSFORM_AUTO, 1);
    ASSERT_EQ(one.r, UMAP_OK) << one.detail;
    for (int threads : {2, 3, 0}) {
        Placed p = transform(sample_, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, threads);
        ASSERT_EQ(p.r, UMAP_OK) << p.detail;
        EXPECT_TRUE(kt::bits_equal(p.y, one.y)) << threads << " threads";
    }
    /* a row's place depends on the row alone: placed in parts, the same bits */
    Placed head = transform(sample_, new_rows(), kNew / 3, UMAP_TRANSFORM_AUTO, 2);
    Placed tail = transform(sample_, new_rows() + kNew / 3 * kCols, kNew - kNew / 3, UMAP_TRANSFORM_AUTO, 2);
    head.y.insert(head.y.end(), tail.y.begin(), tail.y.end());
    EXPECT_TRUE(kt::bits_equal(head.y, one.y));
    /* the same seed, the same sample: the same bits from a second fit */
    umap_config c = config(kKept);
    c.n_threads = 1;
    Model again;
    ASSERT_EQ(umap_fit(&c, x_.data(), kTrain, kCols, again.out()), UMAP_OK);
    EXPECT_TRUE(kt::bits_equal(transform(again.m, new_rows(), kNew, UMAP_TRANSFORM_AUTO, 2).y, one.y));
    /* a third of the rows place new ones about as well as all of them
       (trustworthiness among the new rows; the real data's comparison with
       the encoder: TransformQuality) */
    Placed all = transform(all_, new_rows(), kNew, UMAP_TRANSFORM_AUTO, 2);
    double t_sample = trust_of(sample_, one.y, new_rows(), kNew, kCols);
    double t_all = trust_of(all_, all.y, new_rows(), kNew, kCols);
    EXPECT_GE(t_sample, t_all - 0.01);
}

TEST_F(Sample, AllocationFailureAnywhereIsCleanAndLeakFree) {
    expect_clean_allocation_failures(sample_, new_rows(), kNew);
}

TEST_F(Sample, ModelFilesKeepTheSampleAndNotTheEmbedding) {
    Placed want = transform(sample_, new_rows(), kNew, UMAP_TRANSFORM_AUTO, 2);
    ASSERT_EQ(want.r, UMAP_OK);
    umap_config none = ut::quick_config();
    Model plain;
    ASSERT_EQ(umap_fit(&none, x_.data(), kTrain, kCols, plain.out()), UMAP_OK);
    for (const char *ext : {".safetensors", ".gguf"}) {
        std::string f = saved(sample_, ext), full = saved(all_, ext), enc = saved(plain.m, ext);
        /* kKept rows' sketch, places and graph: a third of what every row's take */
        EXPECT_LT(f.size() - enc.size(), (full.size() - enc.size()) / 2) << ext;
        Model l;
        char detail[256];
        ASSERT_EQ(umap_load_memory(f.data(), f.size(), nullptr, l.out(), detail, sizeof detail), UMAP_OK) << detail;
        EXPECT_EQ(umap_model_n_train(l.m), (int64_t)kTrain);
        EXPECT_EQ(umap_model_embedding(l.m), nullptr) << "a file keeps the sample's places, not the training embedding";
        EXPECT_EQ(umap_model_config(l.m)->keep_data, UMAP_KEEP_SKETCH);
        EXPECT_EQ(umap_model_config(l.m)->keep_sample, (int)kKept);
        Placed got = transform(l.m, new_rows(), kNew, UMAP_TRANSFORM_AUTO, 1);
        ASSERT_EQ(got.r, UMAP_OK) << got.detail;
        EXPECT_TRUE(kt::bits_equal(got.y, want.y)) << ext;
        std::string again = saved(l.m, ext);
        Model l2;
        ASSERT_EQ(umap_load_memory(again.data(), again.size(), nullptr, l2.out(), detail, sizeof detail), UMAP_OK);
        EXPECT_TRUE(saved(l2.m, ext) == again) << ext;
    }
}

TEST_F(Sample, HostileFilesWithASample) {
    const std::string st = saved(sample_, ".safetensors");
    ASSERT_EQ(load(st).r, UMAP_OK);
    const std::string kept = std::to_string(kKept);
    /* more kept rows than trained, none, not a number, or a count the tensors do not have */
    EXPECT_REFUSED(st_replace(st, "\"umap.n_kept\":\"" + kept + "\"", "\"umap.n_kept\":\"" + std::to_string(kTrain + 1) + "\""),
                   "umap.n_kept");
    EXPECT_REFUSED(st_replace(st, "\"umap.n_kept\":\"" + kept + "\"", "\"umap.n_kept\":\"0\""), "umap.n_kept");
    EXPECT_REFUSED(st_replace(st, "\"umap.n_kept\":\"" + kept + "\"", "\"umap.n_kept\":\"x\""), "umap.n_kept");
    EXPECT_REFUSED(st_replace(st, "\"umap.n_kept\":\"" + kept + "\"", "\"umap.n_kept\":\"" + std::to_string(kKept - 1) + "\""),
                   "train.sketch");
    /* without the count the tensors are read as every row's: refused, not misread */
    EXPECT_REFUSED(st_replace(st, "\"umap.n_kept\"", "\"umap.n_kepT\""), "train.sketch");
    /* a count beside no kept rows */
    umap_config none = ut::quick_config();
    Model plain;
    ASSERT_EQ(umap_fit(&none, x_.data(), kTrain, kCols, plain.out()), UMAP_OK);
    const std::string p = saved(plain.m, ".safetensors");
    EXPECT_REFUSED(st_replace(p, "\"umap.n_train\":", "\"umap.n_kept\":\"10\",\"umap.n_train\":"), "umap.n_kept");
    /* the sample's graph indexes the sample: a row beyond it is refused */
    std::string f = st;
    int32_t beyond = (int32_t)kKept;
    std::memcpy(&f[st_offset(st, "train.knn") + 4 * 5], &beyond, 4);
    EXPECT_REFUSED(f, "train.knn");
}

TEST(SampleConfig, BadSamplesAndOtherMetrics) {
    std::vector<float> x = kt::clustered(200, 6, 3, 3, 31);
    umap_config c = ut::quick_config();
    c.keep_data = UMAP_AUTO;
    for (int bad : {-5, 1, 9}) { /* below n_neighbors (10) */
        c.keep_sample = bad;
        Model m;
        umap_fit_info info;
        c.info = &info;
        EXPECT_EQ(umap_fit(&c, x.data(), 200, 6, m.out()), UMAP_ERR_INVALID_ARGUMENT) << bad;
        EXPECT_NE(std::string(info.error_detail).find("keep_sample"), std::string::npos) << info.error_detail;
    }
    c.info = nullptr;
    /* the sample's graph has n_neighbors - 1 neighbours a row at the smallest sample */
    c.keep_sample = 10;
    Model small;
    ASSERT_EQ(umap_fit(&c, x.data(), 200, 6, small.out()), UMAP_OK);
    Placed p = transform(small.m, x.data(), 200, UMAP_TRANSFORM_AUTO, 2);
    ASSERT_EQ(p.r, UMAP_OK) << p.detail;
    for (float v : p.y) ASSERT_TRUE(std::isfinite(v));
    /* the rows themselves with a sample: UMAP_KEEP_ROWS and keep_sample */
    c.keep_data = UMAP_KEEP_ROWS;
    c.keep_sample = 50;
    Model rows;
    ASSERT_EQ(umap_fit(&c, x.data(), 200, 6, rows.out()), UMAP_OK);
    EXPECT_EQ(umap_model_config(rows.m)->keep_sample, 50);
    Placed pr = transform(rows.m, x.data(), 200, UMAP_TRANSFORM_NEIGHBORS, 2);
    ASSERT_EQ(pr.r, UMAP_OK) << pr.detail;
    /* other metrics keep nothing by default: a sketch is euclidean */
    c.keep_data = UMAP_AUTO;
    c.keep_sample = UMAP_AUTO;
    c.metric = UMAP_METRIC_COSINE;
    Model cos;
    ASSERT_EQ(umap_fit(&c, x.data(), 200, 6, cos.out()), UMAP_OK);
    EXPECT_EQ(umap_model_config(cos.m)->keep_data, UMAP_KEEP_NONE);
    Placed pc = transform(cos.m, x.data(), 200, UMAP_TRANSFORM_AUTO, 2);
    Placed pe = transform(cos.m, x.data(), 200, UMAP_TRANSFORM_ENCODER, 2);
    EXPECT_TRUE(kt::bits_equal(pc.y, pe.y));
}

/* A precomputed model's files: a graph of distances says umap.input =
   "graph" and names its axes input.graph_axes; the places are kept alone.
   What cannot be such a file is refused, naming the key. */
TEST(PrecomputedFiles, HostileFilesOfAGraphModel) {
    const int64_t n = 60;
    std::vector<float> x = kt::clustered(n, 4, 2, 2, 31), dm((size_t)(n * n));
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = 0;
            for (int l = 0; l < 4; l++) s += std::pow((double)x[(size_t)(i * 4 + l)] - x[(size_t)(j * 4 + l)], 2);
            dm[(size_t)(i * n + j)] = (float)std::sqrt(s);
        }
    std::vector<int64_t> ptr(1, 0);
    std::vector<int32_t> ind;
    std::vector<float> val;
    for (int64_t i = 0; i < n; i++) { /* each row's 12 nearest, its own included, in increasing columns */
        std::vector<int32_t> order((size_t)n);
        for (int32_t j = 0; j < (int32_t)n; j++) order[(size_t)j] = j;
        std::stable_sort(order.begin(), order.end(),
                         [&](int32_t a, int32_t b) { return dm[(size_t)(i * n + a)] < dm[(size_t)(i * n + b)]; });
        std::sort(order.begin(), order.begin() + 12);
        for (int t = 0; t < 12; t++) ind.push_back(order[(size_t)t]), val.push_back(dm[(size_t)(i * n + order[(size_t)t])]);
        ptr.push_back((int64_t)ind.size());
    }
    umap_rows g = umap_rows_csr(n, n, ptr.data(), ind.data(), val.data());
    umap_config c = ut::quick_config();
    c.metric = UMAP_METRIC_PRECOMPUTED;
    c.keep_data = UMAP_AUTO;
    c.input_dims = 8;
    Model m;
    ASSERT_EQ(umap_fit_rows(&c, &g, m.out()), UMAP_OK);
    const std::string st = saved(m.m, ".safetensors");
    ASSERT_EQ(load(st).r, UMAP_OK);
    EXPECT_REFUSED(st_replace(st, "\"umap.input\":\"graph\"", "\"umap.input\":\"grapf\""), "umap.input is 'grapf'");
    /* read as rows, the memberships' axes would be taken for distances' landmarks */
    EXPECT_REFUSED(st_replace(st, "\"umap.input\":\"graph\"", "\"umap.input\":\"rows\""), "input.projection");
    EXPECT_REFUSED(st_replace(st, "\"input.graph_axes\"", "\"input.projection\""), "input.graph_axes");
    EXPECT_REFUSED(st_replace(st, "\\\"metric\\\":\\\"precomputed\\\"", "\\\"metric\\\":\\\"euclidean\\\""), "needs metric precomputed");
    /* the places are every row's, and nothing else */
    EXPECT_REFUSED(st_replace(st, "\"umap.input\":\"graph\"", "\"umap.input\":\"graph\",\"umap.n_kept\":\"30\""),
                   "no umap.n_kept");
    /* a matrix's model keeps its places alone too */
    Model dense;
    ASSERT_EQ(umap_fit(&c, dm.data(), n, n, dense.out()), UMAP_OK);
    const std::string ds = saved(dense.m, ".safetensors");
    ASSERT_EQ(load(ds).r, UMAP_OK);
    EXPECT_EQ(ds.find("train.data"), std::string::npos);
    EXPECT_REFUSED(st_replace(ds, "\\\"metric\\\":\\\"precomputed\\\"", "\\\"metric\\\":\\\"euclidean\\\""), "train.embedding");
}

/* ---------------------------------------------------------------- the graphs: fit's and the new rows' */

TEST_F(Neighbors, TheNewRowsGraphIsThePlacements) {
    const int k = umap_model_transform_k(kept_);
    EXPECT_EQ(k, umap_model_config(kept_)->n_neighbors);
    EXPECT_EQ(umap_model_n_kept(kept_), int64_t(kTrain));
    EXPECT_EQ(umap_model_transform_k(plain_), 0);
    EXPECT_EQ(umap_model_n_kept(plain_), 0);
    std::vector<int32_t> idx((size_t)(kNew * k), -7);
    std::vector<float> w((size_t)(kNew * k), -1.0f), y((size_t)(kNew * 2));
    char detail[512] = "";
    umap_transform_desc td;
    std::memset(&td, 0, sizeof td);
    td.mode = UMAP_TRANSFORM_NEIGHBORS;
    td.exact_neighbors = 1;
    td.n_threads = 2;
    td.detail = detail;
    td.detail_size = sizeof detail;
    td.graph_indices = idx.data();
    td.graph_weights = w.data();
    ASSERT_EQ(umap_transform_with(kept_, &td, new_rows(), kNew, kCols, y.data()), UMAP_OK) << detail;
    /* the places are those of a call without the graph */
    EXPECT_TRUE(kt::bits_equal(y, transform(kept_, new_rows(), kNew, UMAP_TRANSFORM_NEIGHBORS, 1, 0, 1).y));
    /* each row's k nearest training rows, as the exact search lists them */
    umap_knn_desc kd;
    std::memset(&kd, 0, sizeof kd);
    kd.k = k;
    kd.metric = UMAP_METRIC_EUCLIDEAN;
    std::vector<int32_t> want((size_t)(kNew * k));
    std::vector<float> want_d((size_t)(kNew * k));
    ASSERT_EQ(umap_knn_query(&kd, x_.data(), kTrain, new_rows(), kNew, kCols, want.data(), want_d.data()), UMAP_OK);
    EXPECT_EQ(idx, want);
    /* memberships: nearest strongest, each row's summing to log2(k) (the
       smooth search's target with bandwidth 1) */
    for (int64_t i = 0; i < kNew; i++) {
        double sum = 0;
        for (int j = 0; j < k; j++) {
            const float v = w[(size_t)(i * k + j)];
            ASSERT_TRUE(v > 0.0f && v <= 1.0f) << i << " " << j << " " << v;
            if (j) {
                EXPECT_LE(v, w[(size_t)(i * k + j - 1)]) << "row " << i;
            }
            sum += v;
        }
        EXPECT_NEAR(sum, std::log2((double)k), 1e-3 * std::log2((double)k)) << "row " << i;
    }
    /* the encoder places rows without a graph: refused, as on a model that keeps no rows */
    td.mode = UMAP_TRANSFORM_ENCODER;
    EXPECT_EQ(umap_transform_with(kept_, &td, new_rows(), kNew, kCols, y.data()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(detail).find("graph_indices"), std::string::npos) << detail;
    td.mode = UMAP_TRANSFORM_AUTO;
    EXPECT_EQ(umap_transform_with(plain_, &td, new_rows(), kNew, kCols, y.data()), UMAP_ERR_INVALID_ARGUMENT);
}

TEST(FitGraph, IsTheFuzzyGraphFitTrainedOn) {
    const int64_t n = 400, d = 8;
    std::vector<float> x = kt::clustered(n, d, 4, 3, 5);
    umap_config c = ut::quick_config();
    const int k = c.n_neighbors - 1;
    umap_knn_desc kd;
    std::memset(&kd, 0, sizeof kd);
    kd.k = k;
    kd.method = UMAP_KNN_EXACT;
    std::vector<int32_t> idx((size_t)(n * k));
    std::vector<float> dist((size_t)(n * k));
    ASSERT_EQ(umap_knn(&kd, x.data(), n, d, idx.data(), dist.data()), UMAP_OK);
    /* the caller's k-NN: the graph is umap_fuzzy_graph's of it, edge for edge */
    umap_edge_list want, got, own;
    ASSERT_EQ(umap_fuzzy_graph(&c, idx.data(), dist.data(), n, k, &want), UMAP_OK);
    umap_fit_info info;
    c.info = &info;
    c.graph = &got;
    ut::Model m;
    ASSERT_EQ(umap_fit_knn(&c, x.data(), n, d, idx.data(), dist.data(), k, m.out()), UMAP_OK) << info.error_detail;
    ASSERT_EQ(got.n_edges, want.n_edges);
    EXPECT_EQ(got.n_nodes, n);
    EXPECT_EQ(want.n_nodes, n);
    EXPECT_EQ(got.n_edges, info.n_edges);
    EXPECT_EQ(std::memcmp(got.head, want.head, (size_t)got.n_edges * sizeof(int32_t)), 0);
    EXPECT_EQ(std::memcmp(got.tail, want.tail, (size_t)got.n_edges * sizeof(int32_t)), 0);
    EXPECT_EQ(std::memcmp(got.weight, want.weight, (size_t)got.n_edges * sizeof(float)), 0);
    /* fit's own k-NN: a graph over every row, and the model's bits as without it */
    c.graph = &own;
    ut::Model with, without;
    ASSERT_EQ(umap_fit(&c, x.data(), n, d, with.out()), UMAP_OK) << info.error_detail;
    EXPECT_EQ(own.n_nodes, n);
    EXPECT_EQ(own.n_edges, info.n_edges);
    for (int64_t e = 0; e < own.n_edges; e++) {
        ASSERT_TRUE(own.head[e] != own.tail[e] && own.weight[e] > 0.0f && own.weight[e] <= 1.0f) << e;
    }
    c.graph = nullptr;
    ASSERT_EQ(umap_fit(&c, x.data(), n, d, without.out()), UMAP_OK);
    EXPECT_TRUE(kt::bits_equal(std::vector<float>(umap_model_embedding(with.m), umap_model_embedding(with.m) + 2 * n),
                               std::vector<float>(umap_model_embedding(without.m),
                                                  umap_model_embedding(without.m) + 2 * n)));
    umap_edge_list_free(&want);
    umap_edge_list_free(&got);
    umap_edge_list_free(&own);
    /* no model, no graph: the list comes back empty */
    c.graph = &got;
    got.n_edges = 123;
    c.n_neighbors = 1;
    EXPECT_EQ(umap_fit(&c, x.data(), n, d, m.out()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(got.n_edges, 0);
    EXPECT_EQ(got.head, nullptr);
    /* unique: over the distinct rows */
    c.n_neighbors = 10;
    c.unique = 1;
    std::vector<float> copies(x);
    std::copy(x.begin(), x.begin() + 50 * d, copies.begin() + 50 * d); /* rows 50..99 repeat rows 0..49 */
    ASSERT_EQ(umap_fit(&c, copies.data(), n, d, m.out()), UMAP_OK) << info.error_detail;
    EXPECT_EQ(got.n_nodes, n - 50);
    umap_edge_list_free(&got);
    /* update: over the old rows and the new */
    c.unique = 0;
    c.graph = nullptr;
    c.keep_data = UMAP_KEEP_ROWS;
    ASSERT_EQ(umap_fit(&c, x.data(), n - 100, d, m.out()), UMAP_OK) << info.error_detail;
    umap_update_desc ud;
    std::memset(&ud, 0, sizeof ud);
    ud.graph = &got;
    ud.info = &info;
    umap_rows more = umap_rows_dense(x.data() + (n - 100) * d, 100, d);
    ASSERT_EQ(umap_update(m.m, &ud, &more), UMAP_OK) << info.error_detail;
    EXPECT_EQ(got.n_nodes, n);
    EXPECT_EQ(got.n_edges, info.n_edges);
    umap_edge_list_free(&got);
}
