/* test_inverse.cc - the decoder (config.decoder_epochs) and
   umap_inverse_transform: what it reconstructs on real data, that it
   leaves the fit alone, the same bits anywhere, model files, bad input. */
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

struct Decoded {
    umap_result r;
    std::vector<float> x;
    std::string detail;
};

Decoded inverse(const umap_model *m, const float *y, int64_t n, int threads) {
    Decoded o;
    char detail[256] = "";
    o.x.assign((size_t)(n * umap_model_n_features(m)), 0.0f);
    o.r = umap_inverse_transform(m, y, n, umap_model_n_components(m), o.x.data(), threads, detail, sizeof detail);
    o.detail = detail;
    return o;
}

double mean_sq(const float *a, const float *b, size_t count) {
    double s = 0;
    for (size_t i = 0; i < count; i++) s += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
    return s / (double)count;
}

/* 300 rows of 12 columns around three centres, as the Python suite's blobs */
std::vector<float> blobs(std::vector<int> *label) {
    const int n = 300, d = 12;
    std::vector<float> centre = ut::uniform(3 * d, 11, -6, 6), x((size_t)(n * d)), noise = ut::uniform(n * d, 12, -1, 1);
    label->resize(n);
    for (int i = 0; i < n; i++) {
        (*label)[(size_t)i] = i % 3;
        for (int j = 0; j < d; j++) x[(size_t)(i * d + j)] = centre[(size_t)((i % 3) * d + j)] + noise[(size_t)(i * d + j)];
    }
    return x;
}

umap_config decoder_config() {
    umap_config c = ut::quick_config();
    c.decoder_epochs = 40;
    return c;
}

class Decoder : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        x_ = blobs(&label_);
        umap_config c = decoder_config();
        umap_fit_info info;
        c.info = &info;
        ASSERT_EQ(umap_fit(&c, x_.data(), 300, 12, model_.out()), UMAP_OK) << info.error_detail;
        loss_ = info.decoder_loss;
    }
    static void TearDownTestSuite() { umap_model_free(*model_.out()); }
    static const float *emb() { return umap_model_embedding(model_.m); }
    static std::vector<float> x_;
    static std::vector<int> label_;
    static Model model_;
    static float loss_;
};
std::vector<float> Decoder::x_;
std::vector<int> Decoder::label_;
Model Decoder::model_;
float Decoder::loss_;

std::string saved(const umap_model *m, const char *ext) {
    const char *dir = std::getenv("TMPDIR");
    std::string p = std::string(dir && *dir ? dir : "/tmp") + "/umap_test_inverse_" + std::to_string((long)getpid()) + ext;
    EXPECT_EQ(umap_save(m, p.c_str()), UMAP_OK) << p;
    std::string bytes = ut::read_file(p);
    std::remove(p.c_str());
    return bytes;
}

} // namespace

/* ---------------------------------------------------------------- what it does */

TEST_F(Decoder, PlacesDecodeNearTheirOwnRows) {
    ASSERT_TRUE(umap_model_has_decoder(model_.m));
    Decoded back = inverse(model_.m, emb(), 300, 2);
    ASSERT_EQ(back.r, UMAP_OK) << back.detail;
    /* each row's place decodes nearest its own blob's centre, and far
       nearer its row than the column means are */
    std::vector<double> centre(3 * 12, 0.0), mean(12, 0.0);
    for (int i = 0; i < 300; i++)
        for (int j = 0; j < 12; j++) {
            centre[(size_t)(label_[(size_t)i] * 12 + j)] += x_[(size_t)(i * 12 + j)] / 100.0;
            mean[(size_t)j] += x_[(size_t)(i * 12 + j)] / 300.0;
        }
    int right = 0;
    double base = 0;
    for (int i = 0; i < 300; i++) {
        double best = 1e300;
        int at = -1;
        for (int k = 0; k < 3; k++) {
            double s = 0;
            for (int j = 0; j < 12; j++) s += std::pow(back.x[(size_t)(i * 12 + j)] - centre[(size_t)(k * 12 + j)], 2);
            if (s < best) best = s, at = k;
        }
        right += at == label_[(size_t)i];
        for (int j = 0; j < 12; j++) base += std::pow(x_[(size_t)(i * 12 + j)] - mean[(size_t)j], 2) / (300.0 * 12);
    }
    EXPECT_EQ(right, 300);
    EXPECT_LT(mean_sq(back.x.data(), x_.data(), x_.size()), 0.2 * base);
    EXPECT_GT(loss_, 0.0f);
}

TEST_F(Decoder, TheFitIsTheSameBitsWithAndWithoutIt) {
    umap_config c = ut::quick_config();
    Model plain;
    ASSERT_EQ(umap_fit(&c, x_.data(), 300, 12, plain.out()), UMAP_OK);
    EXPECT_FALSE(umap_model_has_decoder(plain.m));
    EXPECT_EQ(std::memcmp(umap_model_embedding(plain.m), emb(), 300 * 2 * sizeof(float)), 0);
    std::vector<float> a(600), b(600);
    ASSERT_EQ(umap_transform(plain.m, x_.data(), 300, 12, a.data(), 2), UMAP_OK);
    ASSERT_EQ(umap_transform(model_.m, x_.data(), 300, 12, b.data(), 2), UMAP_OK);
    EXPECT_EQ(a, b);
}

TEST_F(Decoder, SameBitsForAnyThreadCount) {
    Decoded want = inverse(model_.m, emb(), 300, 1);
    ASSERT_EQ(want.r, UMAP_OK);
    for (int threads : {2, 3, 8}) {
        umap_config c = decoder_config();
        c.n_threads = threads;
        Model other;
        ASSERT_EQ(umap_fit(&c, x_.data(), 300, 12, other.out()), UMAP_OK);
        Decoded got = inverse(other.m, emb(), 300, threads);
        ASSERT_EQ(got.r, UMAP_OK);
        EXPECT_TRUE(kt::bits_equal(got.x, want.x)) << threads << " threads";
    }
    /* past the threading threshold and across chunks: rows decode alone */
    std::vector<float> many;
    for (int rep = 0; rep < 20; rep++) many.insert(many.end(), emb(), emb() + 600);
    Decoded all = inverse(model_.m, many.data(), 6000, 2);
    ASSERT_EQ(all.r, UMAP_OK);
    for (int rep = 0; rep < 20; rep += 7)
        EXPECT_EQ(std::memcmp(all.x.data() + rep * 300 * 12, want.x.data(), want.x.size() * sizeof(float)), 0) << rep;
}

TEST_F(Decoder, ModelFilesKeepIt) {
    Decoded want = inverse(model_.m, emb(), 300, 2);
    for (const char *ext : {".safetensors", ".gguf"}) {
        std::string bytes = saved(model_.m, ext);
        ASSERT_FALSE(bytes.empty()) << ext;
        Model l;
        char detail[256] = "";
        ASSERT_EQ(umap_load_memory(bytes.data(), bytes.size(), nullptr, l.out(), detail, sizeof detail), UMAP_OK) << detail;
        EXPECT_TRUE(umap_model_has_decoder(l.m));
        EXPECT_EQ(umap_model_config(l.m)->decoder_epochs, 40);
        Decoded got = inverse(l.m, emb(), 300, 2);
        ASSERT_EQ(got.r, UMAP_OK) << got.detail;
        EXPECT_TRUE(kt::bits_equal(got.x, want.x)) << ext;
        /* a file with a decoder whose config says none trained it is refused by name */
        std::string claim = bytes;
        size_t at = claim.find("decoder_epochs");
        ASSERT_NE(at, std::string::npos);
        at = claim.find("40", at);
        ASSERT_NE(at, std::string::npos);
        claim.replace(at, 2, "0 ");
        EXPECT_EQ(umap_load_memory(claim.data(), claim.size(), nullptr, l.out(), detail, sizeof detail), UMAP_ERR_FORMAT);
        EXPECT_NE(std::string(detail).find("tensor 'decoder.0.weight' but umap.config's decoder_epochs is out of range"),
                  std::string::npos) << detail;
    }
}

TEST_F(Decoder, BadInputIsNamed) {
    std::vector<float> y(emb(), emb() + 20), out(10 * 12);
    char detail[256];
    y[7] = NAN;
    EXPECT_EQ(umap_inverse_transform(model_.m, y.data(), 10, 2, out.data(), 1, detail, sizeof detail), UMAP_ERR_NON_FINITE);
    EXPECT_STREQ(detail, "row 3 of the embedding holds NaN or Inf");
    y[7] = 1e30f; /* finite, but far past where the decoder's products stay in float */
    y[6] = -1e30f;
    umap_result r = umap_inverse_transform(model_.m, y.data(), 10, 2, out.data(), 1, detail, sizeof detail);
    if (r != UMAP_OK) {
        EXPECT_EQ(r, UMAP_ERR_NON_FINITE);
        EXPECT_NE(std::string(detail).find("row 3: the decoder's output is not finite"), std::string::npos) << detail;
    } else { /* or every output finite: never NaN or Inf with UMAP_OK */
        for (float v : out) EXPECT_TRUE(std::isfinite(v));
    }
    EXPECT_EQ(umap_inverse_transform(model_.m, y.data(), 10, 3, out.data(), 1, detail, sizeof detail), UMAP_ERR_SHAPE);
    EXPECT_NE(std::string(detail).find("the model embeds in 2"), std::string::npos) << detail;
    EXPECT_EQ(umap_inverse_transform(model_.m, nullptr, 10, 2, out.data(), 1, detail, sizeof detail),
              UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_inverse_transform(model_.m, y.data(), -1, 2, out.data(), 1, detail, sizeof detail),
              UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_inverse_transform(model_.m, y.data(), 0, 2, out.data(), 1, detail, sizeof detail), UMAP_OK);
    umap_config c = ut::quick_config();
    Model plain;
    ASSERT_EQ(umap_fit(&c, x_.data(), 300, 12, plain.out()), UMAP_OK);
    EXPECT_EQ(umap_inverse_transform(plain.m, emb(), 10, 2, out.data(), 1, detail, sizeof detail), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(detail).find("has no decoder: fit it with config.decoder_epochs > 0"), std::string::npos) << detail;
    c.decoder_epochs = -1;
    umap_fit_info info;
    c.info = &info;
    EXPECT_EQ(umap_fit(&c, x_.data(), 300, 12, plain.out()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("decoder_epochs"), std::string::npos) << info.error_detail;
}

namespace {
int cancel_in_decoder(const umap_progress *p, void *) { return !std::strcmp(p->phase, "decoder") && p->epoch > 0; }
} // namespace

TEST_F(Decoder, CancelledLeavesAModelWithoutOne) {
    umap_config c = decoder_config();
    umap_fit_info info;
    c.info = &info;
    c.progress = cancel_in_decoder;
    Model m;
    ASSERT_EQ(umap_fit(&c, x_.data(), 300, 12, m.out()), UMAP_ERR_CANCELLED);
    ASSERT_TRUE(m.m);
    EXPECT_EQ(info.stop_reason, UMAP_STOP_CANCELLED);
    EXPECT_FALSE(umap_model_has_decoder(m.m));
    EXPECT_EQ(umap_model_config(m.m)->decoder_epochs, 0);
    EXPECT_EQ(std::memcmp(umap_model_embedding(m.m), emb(), 600 * sizeof(float)), 0);
    std::string bytes = saved(m.m, ".gguf"); /* and its file loads as a model without one */
    Model l;
    char detail[256] = "";
    ASSERT_EQ(umap_load_memory(bytes.data(), bytes.size(), nullptr, l.out(), detail, sizeof detail), UMAP_OK) << detail;
    EXPECT_FALSE(umap_model_has_decoder(l.m));
}

TEST_F(Decoder, AllocationFailureAnywhereIsCleanAndLeakFree) {
    std::string f = saved(model_.m, ".gguf");
    kt::FailingAlloc count;
    umap_allocator a = count.hook();
    Model l;
    char detail[256];
    ASSERT_EQ(umap_load_memory(f.data(), f.size(), &a, l.out(), detail, sizeof detail), UMAP_OK) << detail;
    long before = count.attempts.load(), live = count.live.load();
    Decoded want = inverse(l.m, emb(), 300, 2);
    ASSERT_EQ(want.r, UMAP_OK);
    long total = count.attempts.load() - before;
    EXPECT_EQ(count.live.load(), live);
    ASSERT_GT(total, 3);
    for (long fail = 0; fail < total; fail++) {
        before = count.attempts.load();
        count.fail_after = before + fail;
        Decoded p = inverse(l.m, emb(), 300, 2);
        count.fail_after = -1;
        EXPECT_EQ(count.live.load(), live) << "leak when allocation " << fail << " fails";
        if (p.r == UMAP_OK) {
            EXPECT_TRUE(kt::bits_equal(p.x, want.x));
        } else {
            EXPECT_TRUE(p.r == UMAP_ERR_OUT_OF_MEMORY || p.r == UMAP_ERR_THREAD) << umap_result_string(p.r);
            EXPECT_FALSE(p.detail.empty());
        }
    }
}

/* ---------------------------------------------------------------- real data */

TEST(DecoderQuality, FashionMnistPlacesDecodeToTheirClass) {
    const int64_t n = 3000, n_fit = n * 5 / 6, n_new = n - n_fit;
    int64_t d = 0;
    std::vector<float> x;
    std::vector<int32_t> labels;
    if (!kt::fashion_mnist_t10k(n, &x, &d, &labels)) GTEST_SKIP() << "Fashion-MNIST not readable (Debian package dataset-fashion-mnist)";
    umap_config c = umap_config_default();
    c.n_threads = 2;
    c.decoder_epochs = 50;
    Model m;
    umap_fit_info info;
    c.info = &info;
    ASSERT_EQ(umap_fit(&c, x.data(), n_fit, d, m.out()), UMAP_OK) << info.error_detail;
    const float *held_out = x.data() + n_fit * d;
    std::vector<float> y((size_t)(n_new * 2));
    ASSERT_EQ(umap_transform(m.m, held_out, n_new, d, y.data(), 2), UMAP_OK);
    Decoded back = inverse(m.m, y.data(), n_new, 2);
    ASSERT_EQ(back.r, UMAP_OK) << back.detail;
    /* against the training columns' means: what a decoder that learnt nothing gives */
    std::vector<double> mean((size_t)d, 0.0);
    for (int64_t i = 0; i < n_fit; i++)
        for (int64_t j = 0; j < d; j++) mean[(size_t)j] += x[(size_t)(i * d + j)] / (double)n_fit;
    double base = 0;
    for (int64_t i = 0; i < n_new; i++)
        for (int64_t j = 0; j < d; j++) base += std::pow(held_out[i * d + j] - mean[(size_t)j], 2) / (double)(n_new * d);
    double mse = mean_sq(back.x.data(), held_out, back.x.size());
    /* 10-NN of each reconstruction among the real training rows: its class */
    int right = 0;
    for (int64_t i = 0; i < n_new; i++) {
        std::vector<std::pair<double, int32_t>> dist((size_t)n_fit);
        for (int64_t t = 0; t < n_fit; t++)
            dist[(size_t)t] = {mean_sq(back.x.data() + i * d, x.data() + t * d, (size_t)d), labels[(size_t)t]};
        std::partial_sort(dist.begin(), dist.begin() + 10, dist.end());
        int votes[10] = {0};
        for (int k = 0; k < 10; k++) votes[dist[(size_t)k].second]++;
        right += (int)(std::max_element(votes, votes + 10) - votes) == labels[(size_t)(n_fit + i)];
    }
    double acc = (double)right / (double)n_new;
    /* the floors sit two binomial standard errors of the accuracy below
       what docs/transform.md ("inverse_transform") measured */
    EXPECT_LT(mse, (n >= 3000 ? 0.42 : 0.45) * base) << "mse " << mse << ", means " << base;
    EXPECT_GT(acc, n >= 3000 ? 0.60 : 0.55);
    RecordProperty("mse_ratio", std::to_string(mse / base));
    RecordProperty("knn_accuracy", std::to_string(acc));
    std::printf("decoder: %.2f s, held-out mse %.5f (column means %.5f, ratio %.3f), 10-NN accuracy of the reconstructions %.3f\n",
                info.decoder_s, mse, base, mse / base, acc);
}
