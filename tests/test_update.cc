/* test_update.cc - umap_update (continued training): the old rows keep
   their places and the new rows land among their own kind, a new kind
   apart; the model afterwards is a model like any other (transform, files,
   a second update); the rows as kept or as given give the same bits, as
   any thread count does; sparse rows; bad input named with the model left
   as it was; and on Fashion-MNIST, the new rows' quality against a refit. */
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "test_knn_util.h"
#include "test_util.h"

namespace {

using ut::Model;

/* n rows of d columns in `blobs` tight blobs (row i in blob i % blobs),
   blob b centred at 10 b on every column, from seed */
std::vector<float> blob_rows(int64_t n, int64_t d, int blobs, int first_blob, uint64_t seed) {
    std::vector<float> x = ut::uniform(n * d, seed, -1, 1);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < d; j++) x[(size_t)(i * d + j)] += 10.0f * (float)(first_blob + i % blobs);
    return x;
}

umap_config update_config() {
    umap_config c = ut::quick_config();
    c.keep_data = UMAP_KEEP_ROWS;
    return c;
}

std::vector<float> embedding_of(const umap_model *m) {
    const float *y = umap_model_embedding(m);
    return std::vector<float>(y, y + umap_model_n_train(m) * umap_model_n_components(m));
}

double dist2(const std::vector<float> &y, int64_t i, int64_t j) {
    return std::hypot((double)y[(size_t)(2 * i)] - y[(size_t)(2 * j)], (double)y[(size_t)(2 * i + 1)] - y[(size_t)(2 * j + 1)]);
}

/* the label of each of the rows [from, n) by a vote of its k nearest
   among the rows [0, from) in the embedding (2 components) */
std::vector<int> vote(const float *y, int64_t from, int64_t n, const std::vector<int> &label, int k) {
    std::vector<int> out;
    for (int64_t i = from; i < n; i++) {
        std::vector<std::pair<float, int>> d;
        for (int64_t j = 0; j < from; j++) {
            float dx = y[2 * i] - y[2 * j], dy = y[2 * i + 1] - y[2 * j + 1];
            d.push_back({dx * dx + dy * dy, label[(size_t)j]});
        }
        std::partial_sort(d.begin(), d.begin() + k, d.end());
        std::vector<int> count(16, 0);
        for (int t = 0; t < k; t++) count[(size_t)d[(size_t)t].second]++;
        out.push_back((int)(std::max_element(count.begin(), count.end()) - count.begin()));
    }
    return out;
}

TEST(Update, OldRowsStayNewRowsJoinTheirBlobsAndANewBlobStandsApart) {
    const int64_t n_old = 600, d = 8;
    std::vector<float> old_x = blob_rows(n_old, d, 3, 0, 1);
    /* 150 new rows of the three blobs, then 150 of a fourth */
    std::vector<float> new_x = blob_rows(150, d, 3, 0, 2), fourth = blob_rows(150, d, 1, 3, 3);
    new_x.insert(new_x.end(), fourth.begin(), fourth.end());
    const int64_t n_new = 300;
    umap_config c = update_config();
    Model m;
    ASSERT_EQ(umap_fit(&c, old_x.data(), n_old, d, m.out()), UMAP_OK);
    std::vector<float> before = embedding_of(m.m);
    std::vector<float> enc_before((size_t)(n_old * 2));
    umap_transform_desc enc{};
    enc.mode = UMAP_TRANSFORM_ENCODER;
    ASSERT_EQ(umap_transform_with(m.m, &enc, old_x.data(), n_old, d, enc_before.data()), UMAP_OK);

    umap_fit_info info;
    umap_update_desc ud{};
    ud.info = &info;
    /* the new kind starts beside the old blob nearest it (where transform
       puts rows unlike any it knows) and must walk out: quick_config's
       refine epochs are too few for that */
    ud.refine_epochs = 100;
    umap_rows nr = umap_rows_dense(new_x.data(), n_new, d);
    ASSERT_EQ(umap_update(m.m, &ud, &nr), UMAP_OK) << info.error_detail;
    ASSERT_EQ(umap_model_n_train(m.m), n_old + n_new);
    std::vector<float> after = embedding_of(m.m);
    EXPECT_EQ(0, std::memcmp(before.data(), after.data(), before.size() * sizeof(float))) << "an old row moved";
    for (float v : after) ASSERT_TRUE(std::isfinite(v));

    std::vector<int> label((size_t)(n_old + n_new));
    for (int64_t i = 0; i < n_old; i++) label[(size_t)i] = (int)(i % 3);
    for (int64_t i = 0; i < n_new; i++) label[(size_t)(n_old + i)] = i < 150 ? (int)(i % 3) : 3;
    /* the new rows of the old blobs: among their blob's old rows */
    std::vector<int> got = vote(after.data(), n_old, n_old + 150, label, 10);
    int right = 0;
    for (int64_t i = 0; i < 150; i++) right += got[(size_t)i] == label[(size_t)(n_old + i)];
    EXPECT_GE(right, 147) << "of 150 new rows landed among their own blob";
    /* the fourth blob: nearer its own rows than any old row is to it */
    double spread = 0, gap = 1e30;
    for (int64_t i = n_old + 150; i < n_old + n_new; i++) {
        double own = 1e30;
        for (int64_t j = n_old + 150; j < n_old + n_new; j++)
            if (j != i) own = std::min(own, dist2(after, i, j));
        spread = std::max(spread, own);
        for (int64_t j = 0; j < n_old; j++)
            gap = std::min(gap, dist2(after, i, j));
    }
    EXPECT_GT(gap, spread) << "the new blob touches the old ones";

    /* the encoder, distilled again, places the old rows about where it did */
    std::vector<float> enc_after((size_t)(n_old * 2));
    ASSERT_EQ(umap_transform_with(m.m, &enc, old_x.data(), n_old, d, enc_after.data()), UMAP_OK);
    std::vector<double> moved;
    double lo[2] = {1e30, 1e30}, hi[2] = {-1e30, -1e30};
    for (int64_t i = 0; i < n_old; i++) {
        moved.push_back(std::hypot((double)enc_after[(size_t)(2 * i)] - enc_before[(size_t)(2 * i)],
                                   (double)enc_after[(size_t)(2 * i + 1)] - enc_before[(size_t)(2 * i + 1)]));
        for (int k = 0; k < 2; k++) lo[k] = std::min(lo[k], (double)before[2 * i + k]), hi[k] = std::max(hi[k], (double)before[2 * i + k]);
    }
    std::sort(moved.begin(), moved.end());
    const double extent = std::max(hi[0] - lo[0], hi[1] - lo[1]);
    EXPECT_LT(moved[moved.size() / 2], 0.05 * extent) << "the encoder's median move, of the layout's extent " << extent;

    /* a model like any other: transform, a file, a second update */
    std::vector<float> y((size_t)(10 * 2));
    EXPECT_EQ(umap_transform(m.m, new_x.data(), 10, d, y.data(), 1), UMAP_OK);
    std::vector<float> more = blob_rows(30, d, 3, 0, 4);
    umap_rows mr = umap_rows_dense(more.data(), 30, d);
    ASSERT_EQ(umap_update(m.m, &ud, &mr), UMAP_OK) << info.error_detail;
    EXPECT_EQ(umap_model_n_train(m.m), n_old + n_new + 30);
    EXPECT_EQ(0, std::memcmp(after.data(), umap_model_embedding(m.m), after.size() * sizeof(float)));
}

TEST(Update, RowsKeptOrGivenAndAnyThreadCountGiveTheSameBits) {
    const int64_t n_old = 400, d = 6;
    std::vector<float> old_x = blob_rows(n_old, d, 4, 0, 11), new_x = blob_rows(120, d, 4, 0, 12);
    umap_rows orows = umap_rows_dense(old_x.data(), n_old, d), nrows = umap_rows_dense(new_x.data(), 120, d);
    std::vector<float> first, first_params;
    for (int run = 0; run < 4; run++) {
        umap_config c = update_config();
        Model m;
        ASSERT_EQ(umap_fit(&c, old_x.data(), n_old, d, m.out()), UMAP_OK);
        umap_update_desc ud{};
        ud.n_threads = run == 3 ? 1 : run + 1;
        if (run == 3) ud.old_rows = &orows; /* as given, not as kept */
        ASSERT_EQ(umap_update(m.m, &ud, &nrows), UMAP_OK);
        std::vector<float> y = embedding_of(m.m), enc((size_t)(50 * 2));
        umap_transform_desc td{};
        td.mode = UMAP_TRANSFORM_ENCODER;
        ASSERT_EQ(umap_transform_with(m.m, &td, new_x.data(), 50, d, enc.data()), UMAP_OK);
        y.insert(y.end(), enc.begin(), enc.end());
        if (run == 0) first = y;
        else EXPECT_EQ(0, std::memcmp(first.data(), y.data(), y.size() * sizeof(float))) << "run " << run;
    }
}

TEST(Update, AModelThatKeepsNoRowsTakesThemAndOneFromAFileToo) {
    const int64_t n_old = 300, d = 6;
    std::vector<float> old_x = blob_rows(n_old, d, 3, 0, 21), new_x = blob_rows(90, d, 3, 0, 22);
    umap_rows orows = umap_rows_dense(old_x.data(), n_old, d), nrows = umap_rows_dense(new_x.data(), 90, d);
    umap_config c = ut::quick_config(); /* keep_data NONE */
    Model m;
    ASSERT_EQ(umap_fit(&c, old_x.data(), n_old, d, m.out()), UMAP_OK);
    umap_fit_info info;
    umap_update_desc ud{};
    ud.info = &info;
    EXPECT_EQ(umap_update(m.m, &ud, &nrows), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("desc.old_rows"), std::string::npos) << info.error_detail;
    EXPECT_EQ(umap_model_n_train(m.m), n_old);
    ud.old_rows = &orows;
    ASSERT_EQ(umap_update(m.m, &ud, &nrows), UMAP_OK) << info.error_detail;
    EXPECT_EQ(umap_model_n_train(m.m), n_old + 90);

    /* a file keeps no embedding without the rows: the encoder places the old rows */
    char dir[] = "/tmp/umap_update_test_XXXXXX";
    ASSERT_TRUE(mkdtemp(dir));
    const std::string path = std::string(dir) + "/m.safetensors";
    ASSERT_EQ(umap_save(m.m, path.c_str()), UMAP_OK);
    Model loaded;
    char why[256];
    ASSERT_EQ(umap_load(path.c_str(), loaded.out(), why, sizeof why), UMAP_OK) << why;
    std::remove(path.c_str());
    rmdir(dir);
    ASSERT_EQ(umap_model_embedding(loaded.m), nullptr);
    std::vector<float> all = old_x;
    all.insert(all.end(), new_x.begin(), new_x.end());
    std::vector<float> more = blob_rows(60, d, 3, 0, 23);
    umap_rows arows = umap_rows_dense(all.data(), n_old + 90, d), mrows = umap_rows_dense(more.data(), 60, d);
    std::vector<float> enc((size_t)((n_old + 90) * 2));
    ASSERT_EQ(umap_transform(loaded.m, all.data(), n_old + 90, d, enc.data(), 2), UMAP_OK);
    ud.old_rows = &arows;
    ASSERT_EQ(umap_update(loaded.m, &ud, &mrows), UMAP_OK) << info.error_detail;
    EXPECT_EQ(0, std::memcmp(enc.data(), umap_model_embedding(loaded.m), enc.size() * sizeof(float)));
}

TEST(Update, SparseRows) {
    const int64_t n_old = 300, d = 40;
    /* blobs of rows with 5 nonzeros each, on the blob's own columns */
    auto csr = [&](int64_t n, uint64_t seed, std::vector<int64_t> *ip, std::vector<int32_t> *ix, std::vector<float> *v) {
        ip->assign(1, 0);
        for (int64_t i = 0; i < n; i++) {
            const int blob = (int)(i % 4);
            for (int t = 0; t < 5; t++) {
                ix->push_back(blob * 10 + 2 * t + (ut::unit(seed, (uint64_t)(i * 5 + t)) < 0.5 ? 0 : 1));
                v->push_back((float)(0.5 + ut::unit(seed + 1, (uint64_t)(i * 5 + t))));
            }
            ip->push_back((int64_t)ix->size());
        }
    };
    std::vector<int64_t> oip, nip;
    std::vector<int32_t> oix, nix;
    std::vector<float> ov, nv;
    csr(n_old, 31, &oip, &oix, &ov);
    csr(80, 32, &nip, &nix, &nv);
    umap_rows orows = umap_rows_csr(n_old, d, oip.data(), oix.data(), ov.data());
    umap_rows nrows = umap_rows_csr(80, d, nip.data(), nix.data(), nv.data());
    for (int input_dims : {8, 0}) { /* projected from the stored values; densified */
        umap_config c = ut::quick_config();
        c.metric = UMAP_METRIC_COSINE;
        c.input_dims = input_dims;
        Model m;
        ASSERT_EQ(umap_fit_rows(&c, &orows, m.out()), UMAP_OK);
        std::vector<float> before = embedding_of(m.m);
        umap_fit_info info;
        umap_update_desc ud{};
        ud.info = &info;
        /* dense old rows with sparse new ones: one form */
        std::vector<float> dense_old((size_t)(n_old * d), 0.0f);
        umap_rows drows = umap_rows_dense(dense_old.data(), n_old, d);
        ud.old_rows = &drows;
        EXPECT_EQ(umap_update(m.m, &ud, &nrows), UMAP_ERR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(info.error_detail).find("one form"), std::string::npos) << info.error_detail;
        ud.old_rows = &orows;
        ASSERT_EQ(umap_update(m.m, &ud, &nrows), UMAP_OK) << info.error_detail;
        ASSERT_EQ(umap_model_n_train(m.m), n_old + 80);
        EXPECT_EQ(0, std::memcmp(before.data(), umap_model_embedding(m.m), before.size() * sizeof(float)));
        std::vector<int> label((size_t)(n_old + 80));
        for (int64_t i = 0; i < n_old + 80; i++) label[(size_t)i] = (int)((i < n_old ? i : i - n_old) % 4);
        std::vector<int> got = vote(umap_model_embedding(m.m), n_old, n_old + 80, label, 10);
        int right = 0;
        for (int64_t i = 0; i < 80; i++) right += got[(size_t)i] == label[(size_t)(n_old + i)];
        EXPECT_GE(right, 76) << "input_dims " << input_dims;
    }
}

int count_calls(const umap_progress *, void *ud) { return ++*(int *)ud > 3; }

TEST(Update, BadInputIsNamedAndTheModelIsAsItWas) {
    const int64_t n_old = 300, d = 6;
    std::vector<float> old_x = blob_rows(n_old, d, 3, 0, 41), new_x = blob_rows(60, d, 3, 0, 42);
    umap_config c = update_config();
    Model m;
    ASSERT_EQ(umap_fit(&c, old_x.data(), n_old, d, m.out()), UMAP_OK);
    const std::vector<float> before = embedding_of(m.m);
    std::vector<float> enc_before((size_t)(n_old * 2));
    ASSERT_EQ(umap_transform(m.m, old_x.data(), n_old, d, enc_before.data(), 1), UMAP_OK);
    auto unchanged = [&]() {
        std::vector<float> enc((size_t)(n_old * 2));
        EXPECT_EQ(umap_model_n_train(m.m), n_old);
        EXPECT_EQ(0, std::memcmp(before.data(), umap_model_embedding(m.m), before.size() * sizeof(float)));
        EXPECT_EQ(umap_transform(m.m, old_x.data(), n_old, d, enc.data(), 1), UMAP_OK);
        EXPECT_EQ(0, std::memcmp(enc_before.data(), enc.data(), enc.size() * sizeof(float)));
    };
    umap_fit_info info;
    umap_update_desc ud{};
    ud.info = &info;
    auto expect = [&](umap_result want, const umap_rows *rows, const char *words) {
        EXPECT_EQ(umap_update(m.m, &ud, rows), want) << words;
        EXPECT_NE(std::string(info.error_detail).find(words), std::string::npos) << info.error_detail;
        unchanged();
    };
    std::vector<float> bad = new_x;
    bad[(size_t)(17 * d + 2)] = NAN;
    umap_rows b = umap_rows_dense(bad.data(), 60, d);
    expect(UMAP_ERR_NON_FINITE, &b, "new rows: row 17 holds NaN");
    umap_rows narrow = umap_rows_dense(new_x.data(), 60, d - 1);
    expect(UMAP_ERR_INVALID_ARGUMENT, &narrow, "the model's 6 columns");
    umap_rows none = umap_rows_dense(new_x.data(), 0, d);
    expect(UMAP_ERR_INVALID_ARGUMENT, &none, "at least 1 row");
    EXPECT_EQ(umap_update(m.m, &ud, nullptr), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_update(nullptr, &ud, &b), UMAP_ERR_INVALID_ARGUMENT);
    umap_rows good = umap_rows_dense(new_x.data(), 60, d), short_old = umap_rows_dense(old_x.data(), n_old - 1, d);
    ud.old_rows = &short_old;
    expect(UMAP_ERR_INVALID_ARGUMENT, &good, "old_rows: 299 rows; the model was fitted on 300");
    ud.old_rows = nullptr;
    ud.refine_epochs = -1;
    expect(UMAP_ERR_INVALID_ARGUMENT, &good, "refine_epochs = -1");
    ud.refine_epochs = 0;
    int calls = 0;
    ud.progress = count_calls;
    ud.progress_user_data = &calls;
    expect(UMAP_ERR_CANCELLED, &good, "cancelled");
    ud.progress = nullptr;
    /* and then it still updates */
    ASSERT_EQ(umap_update(m.m, &ud, &good), UMAP_OK) << info.error_detail;
    EXPECT_EQ(umap_model_n_train(m.m), n_old + 60);
}

/* the decoder goes on from its weights over all rows: the new rows' places
   decode about as near their rows as the old rows' do */
TEST(Update, TheDecoderContinues) {
    const int64_t n_old = 300, n_new = 100, d = 6;
    std::vector<float> old_x = blob_rows(n_old, d, 3, 0, 61), new_x = blob_rows(n_new, d, 3, 0, 62);
    umap_config c = update_config();
    c.decoder_epochs = 1; /* its fewest steps, UMAP_DECODER_MIN_STEPS */
    Model m;
    ASSERT_EQ(umap_fit(&c, old_x.data(), n_old, d, m.out()), UMAP_OK);
    umap_rows nr = umap_rows_dense(new_x.data(), n_new, d);
    umap_fit_info info;
    umap_update_desc ud{};
    ud.info = &info;
    ASSERT_EQ(umap_update(m.m, &ud, &nr), UMAP_OK) << info.error_detail;
    ASSERT_TRUE(umap_model_has_decoder(m.m));
    std::vector<float> back((size_t)((n_old + n_new) * d));
    ASSERT_EQ(umap_inverse_transform(m.m, umap_model_embedding(m.m), n_old + n_new, 2, back.data(), 2, nullptr, 0), UMAP_OK);
    double err[2] = {0, 0};
    for (int64_t i = 0; i < n_old + n_new; i++)
        for (int64_t j = 0; j < d; j++) {
            const float x = i < n_old ? old_x[(size_t)(i * d + j)] : new_x[(size_t)((i - n_old) * d + j)];
            err[i >= n_old] += (back[(size_t)(i * d + j)] - x) * (back[(size_t)(i * d + j)] - x);
        }
    err[0] /= (double)(n_old * d), err[1] /= (double)(n_new * d);
    EXPECT_LT(err[1], 2.0 * err[0] + 0.05) << "the new rows' squared error per value, against the old rows' " << err[0];
    EXPECT_LT(err[0], 1.0) << "the blobs lie 10 apart: a decoder that learnt nothing errs by far more";
}

TEST(Update, PrecomputedIsRefused) {
    const int64_t n = 60;
    std::vector<float> x = blob_rows(n, 3, 3, 0, 51), dm((size_t)(n * n));
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) dm[(size_t)(i * n + j)] = (float)kt::dist(UMAP_METRIC_EUCLIDEAN, &x[(size_t)(i * 3)], &x[(size_t)(j * 3)], 3);
    umap_config c = ut::quick_config();
    c.metric = UMAP_METRIC_PRECOMPUTED;
    Model m;
    ASSERT_EQ(umap_fit(&c, dm.data(), n, n, m.out()), UMAP_OK);
    umap_fit_info info;
    umap_update_desc ud{};
    ud.info = &info;
    umap_rows r = umap_rows_dense(dm.data(), 5, n);
    EXPECT_EQ(umap_update(m.m, &ud, &r), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(info.error_detail).find("precomputed"), std::string::npos) << info.error_detail;
}

/* Fashion-MNIST: 2,500 rows fitted, 500 more added. The new rows' quality
   against a refit of all 3,000, and the time against it. */
TEST(UpdateQuality, FashionMnistNewRowsAsGoodAsARefit) {
    const int64_t n = 3000, n_old = 2500, n_new = n - n_old;
    int64_t d = 0;
    std::vector<float> x;
    std::vector<int32_t> labels;
    if (!kt::fashion_mnist_t10k(n, &x, &d, &labels)) GTEST_SKIP() << "Fashion-MNIST not readable (Debian package dataset-fashion-mnist)";
    umap_config c = umap_config_default();
    c.n_threads = 2;
    c.keep_data = UMAP_KEEP_ROWS;
    Model grown, refit;
    ASSERT_EQ(umap_fit(&c, x.data(), n_old, d, grown.out()), UMAP_OK);
    umap_fit_info info, refit_info;
    umap_update_desc ud{};
    ud.n_threads = 2;
    ud.info = &info;
    umap_rows nr = umap_rows_dense(x.data() + n_old * d, n_new, d);
    ASSERT_EQ(umap_update(grown.m, &ud, &nr), UMAP_OK) << info.error_detail;
    c.info = &refit_info;
    ASSERT_EQ(umap_fit(&c, x.data(), n, d, refit.out()), UMAP_OK);
    umap_quality_desc qd{};
    qd.n_queries = 0;
    umap_quality q_grown, q_refit;
    /* the new rows among all: their neighbourhoods in the whole embedding */
    ASSERT_EQ(umap_quality_eval(&qd, x.data(), n, d, umap_model_embedding(grown.m), 2, labels.data(), &q_grown), UMAP_OK);
    ASSERT_EQ(umap_quality_eval(&qd, x.data(), n, d, umap_model_embedding(refit.m), 2, labels.data(), &q_refit), UMAP_OK);
    /* the new rows alone: their neighbourhoods among each other */
    umap_quality n_grown, n_refit;
    ASSERT_EQ(umap_quality_eval(&qd, x.data() + n_old * d, n_new, d, umap_model_embedding(grown.m) + n_old * 2, 2,
                                labels.data() + n_old, &n_grown), UMAP_OK);
    ASSERT_EQ(umap_quality_eval(&qd, x.data() + n_old * d, n_new, d, umap_model_embedding(refit.m) + n_old * 2, 2,
                                labels.data() + n_old, &n_refit), UMAP_OK);
    RecordProperty("trust_new_update", std::to_string(n_grown.trustworthiness));
    RecordProperty("trust_new_refit", std::to_string(n_refit.trustworthiness));
    EXPECT_GT(n_grown.trustworthiness, n_refit.trustworthiness - 0.01);
    EXPECT_GT(n_grown.knn_accuracy, n_refit.knn_accuracy - 0.03);
    RecordProperty("trust_update", std::to_string(q_grown.trustworthiness));
    RecordProperty("trust_refit", std::to_string(q_refit.trustworthiness));
    RecordProperty("update_s", std::to_string(info.total_s));
    RecordProperty("refit_s", std::to_string(refit_info.total_s));
    EXPECT_GT(q_grown.trustworthiness, q_refit.trustworthiness - 0.01);
    EXPECT_GT(q_grown.knn_accuracy, q_refit.knn_accuracy - 0.02);
}

} // namespace
