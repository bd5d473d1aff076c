// Extreme but finite data never gives NaN or Inf with success: every entry
// point (fit, transform, the k-NN searches, the CLI) returns a finite result
// or an error that names the row, and never a success exit with a broken
// result. The data sets: a column of subnormal values (its std underflows a
// float, 1/std would be Inf), values near FLT_MAX (differences and squared
// distances overflow), and new rows far outside the training range.
#include "test_util.h"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

const int64_t kRows = 240, kCols = 5;

bool all_finite(const float *x, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if (!std::isfinite(x[i])) return false;
    return true;
}

/* a small fit: the point is finiteness, not quality */
umap_config small_config() {
    umap_config c = umap_config_default();
    c.n_neighbors = 8;
    c.n_epochs = 2;
    c.refine_epochs = 20;
    c.distill_epochs = 2;
    c.seed = 5;
    c.n_threads = 1;
    return c;
}

std::vector<float> gaussian_rows(uint64_t seed) { return ut::uniform(kRows * kCols, seed, -1.0, 1.0); }

/* every value +-3.3e38: x - mean and every distance overflow float */
std::vector<float> near_flt_max() {
    std::vector<float> x = gaussian_rows(21);
    for (float &v : x) v = v < 0 ? -3.3e38f : 3.3e38f;
    return x;
}

struct Fitted {
    umap_result r;
    umap_model *m = nullptr;
    umap_fit_info info;
    ~Fitted() { umap_model_free(m); }
};

void fit(Fitted &f, const std::vector<float> &x, umap_config c = small_config()) {
    c.info = &f.info;
    f.r = umap_fit(&c, x.data(), kRows, kCols, &f.m);
}

TEST(ExtremeData, SubnormalColumnIsTreatedAsConstant) {
    std::vector<float> x = gaussian_rows(20);
    for (int64_t i = 0; i < kRows; i++) x[(size_t)(i * kCols + 2)] = (float)(i % 3 + 1) * 1e-40f;
    Fitted f;
    fit(f, x);
    ASSERT_EQ(f.r, UMAP_OK) << f.info.error_detail;
    EXPECT_EQ(f.info.n_constant_columns, 1);
    EXPECT_TRUE(all_finite(umap_model_embedding(f.m), kRows * 2));
    std::vector<float> y((size_t)(kRows * 2));
    ASSERT_EQ(umap_transform(f.m, x.data(), kRows, kCols, y.data(), 1), UMAP_OK);
    EXPECT_TRUE(all_finite(y.data(), kRows * 2));
    /* the model saves and loads: its stats are those of a constant column */
    std::string path = ::testing::TempDir() + "umap_extreme_subnormal.safetensors";
    ASSERT_EQ(umap_save(f.m, path.c_str()), UMAP_OK);
    umap_model *back = nullptr;
    char detail[256] = "";
    ASSERT_EQ(umap_load(path.c_str(), &back, detail, sizeof detail), UMAP_OK) << detail;
    std::vector<float> y2((size_t)(kRows * 2));
    EXPECT_EQ(umap_transform(back, x.data(), kRows, kCols, y2.data(), 1), UMAP_OK);
    EXPECT_EQ(y, y2);
    umap_model_free(back);
    std::remove(path.c_str());
}

TEST(ExtremeData, EveryColumnSubnormalIsAClearError) {
    std::vector<float> x = gaussian_rows(22);
    for (float &v : x) v *= 1e-39f;
    Fitted f;
    fit(f, x);
    EXPECT_EQ(f.r, UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(f.m, nullptr);
    EXPECT_NE(std::string(f.info.error_detail).find("FLT_MIN"), std::string::npos) << f.info.error_detail;
}

TEST(ExtremeData, ValuesNearFltMaxFitToAFiniteEmbedding) {
    std::vector<float> x = near_flt_max();
    Fitted f;
    fit(f, x);
    ASSERT_EQ(f.r, UMAP_OK) << f.info.error_detail;
    ASSERT_TRUE(all_finite(umap_model_embedding(f.m), kRows * 2));
    std::vector<float> y((size_t)(kRows * 2));
    ASSERT_EQ(umap_transform(f.m, x.data(), kRows, kCols, y.data(), 1), UMAP_OK);
    EXPECT_TRUE(all_finite(y.data(), kRows * 2));
    /* the scale does not change the fuzzy graph: the same rows divided by
       2^120 (exact) fit to the same number of edges */
    std::vector<float> small = x;
    for (float &v : small) v = std::ldexp(v, -120);
    Fitted g;
    fit(g, small);
    ASSERT_EQ(g.r, UMAP_OK) << g.info.error_detail;
    EXPECT_EQ(f.info.n_edges, g.info.n_edges);
}

TEST(ExtremeData, KnnRefusesDistancesBeyondFloat) {
    std::vector<float> x = near_flt_max();
    std::vector<int32_t> idx((size_t)(kRows * 5));
    std::vector<float> dist((size_t)(kRows * 5));
    umap_knn_info info;
    umap_knn_desc d = {};
    d.k = 5;
    d.n_threads = 1;
    d.info = &info;
    for (umap_knn_method method : {UMAP_KNN_EXACT, UMAP_KNN_NNDESCENT}) {
        d.method = method;
        EXPECT_EQ(umap_knn(&d, x.data(), kRows, kCols, idx.data(), dist.data()), UMAP_ERR_TOO_LARGE) << method;
        EXPECT_EQ(std::string(info.error_detail).rfind("row ", 0), 0u) << info.error_detail;
    }
    d.method = UMAP_KNN_AUTO;
    /* a query row at +3.3e38 everywhere, base rows at -3.3e38 everywhere */
    std::vector<float> base(10 * kCols, -3.3e38f), query(kCols, 3.3e38f);
    EXPECT_EQ(umap_knn_query(&d, base.data(), 10, query.data(), 1, kCols, idx.data(), dist.data()), UMAP_ERR_TOO_LARGE);
    EXPECT_EQ(std::string(info.error_detail).rfind("row 0:", 0), 0u) << info.error_detail;
    std::vector<float> full((size_t)(kRows * kRows));
    EXPECT_EQ(umap_pairwise(&d, x.data(), kRows, kCols, full.data()), UMAP_ERR_TOO_LARGE);
    /* indices alone cannot overflow: asked for without distances they are fine */
    EXPECT_EQ(umap_knn(&d, x.data(), kRows, kCols, idx.data(), nullptr), UMAP_OK) << info.error_detail;
    /* an eighth of the magnitude fits: distances up to 2 * 4.1e37 * sqrt(5) */
    for (float &v : x) v *= 0.125f;
    ASSERT_EQ(umap_knn(&d, x.data(), kRows, kCols, idx.data(), dist.data()), UMAP_OK) << info.error_detail;
    EXPECT_TRUE(all_finite(dist.data(), kRows * 5));
}

TEST(ExtremeData, TransformNamesTheRowWhoseOutputOverflows) {
    std::vector<float> x = gaussian_rows(23);
    Fitted f;
    fit(f, x);
    ASSERT_EQ(f.r, UMAP_OK) << f.info.error_detail;
    std::vector<float> fresh = gaussian_rows(24);
    for (int64_t j = 0; j < kCols; j++) fresh[(size_t)(7 * kCols + j)] = j % 2 ? -3e38f : 3e38f;
    std::vector<float> y((size_t)(kRows * 2));
    char detail[256] = "";
    /* the encoder's output overflows */
    umap_transform_desc td;
    memset(&td, 0, sizeof td);
    td.mode = UMAP_TRANSFORM_ENCODER;
    td.n_threads = 1;
    td.detail = detail;
    td.detail_size = sizeof detail;
    EXPECT_EQ(umap_transform_with(f.m, &td, fresh.data(), kRows, kCols, y.data()), UMAP_ERR_NON_FINITE);
    EXPECT_EQ(std::string(detail).rfind("row 7:", 0), 0u) << detail;
    /* the default model places the row among its nearest kept rows, as
       the peers do: a finite place for every row */
    ASSERT_EQ(umap_transform(f.m, fresh.data(), kRows, kCols, y.data(), 1), UMAP_OK);
    EXPECT_TRUE(all_finite(y.data(), kRows * 2));
    /* an input row holding NaN is named the same way */
    fresh = gaussian_rows(24);
    fresh[(size_t)(11 * kCols + 3)] = NAN;
    EXPECT_EQ(umap_transform_ex(f.m, fresh.data(), kRows, kCols, y.data(), 1, detail, sizeof detail), UMAP_ERR_NON_FINITE);
    EXPECT_EQ(std::string(detail), "row 11 of the data holds NaN or Inf");
}

TEST(ExtremeData, CurveParametersStayInTheirRange) {
    std::vector<float> x = gaussian_rows(25);
    umap_config c = small_config();
    c.a = 1e35f;
    c.b = 1.0f;
    Fitted f1;
    fit(f1, x, c);
    EXPECT_EQ(f1.r, UMAP_ERR_INVALID_ARGUMENT);
    c.a = 1.0f;
    c.b = 20.0f;
    Fitted f2;
    fit(f2, x, c);
    EXPECT_EQ(f2.r, UMAP_ERR_INVALID_ARGUMENT);
    /* a spread so small that the fitted a leaves the range: refused before training */
    c = small_config();
    c.spread = 1e-20f;
    c.min_dist = 0.0f;
    Fitted f3;
    fit(f3, x, c);
    EXPECT_EQ(f3.r, UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(f3.info.error_detail).find("spread"), std::string::npos) << f3.info.error_detail;
}

/* ---- the CLI: exit status and outputs ---------------------------------- */

std::string cli() {
    const char *p = getenv("UMAP_CLI");
    return p && *p ? p : "build/umap";
}

int run(const std::string &args, std::string *err) {
    std::string errfile = ::testing::TempDir() + "umap_extreme_stderr.txt";
    int st = system((cli() + " " + args + " >/dev/null 2>'" + errfile + "'").c_str());
    if (err) {
        err->clear();
        if (FILE *f = fopen(errfile.c_str(), "rb")) {
            char buf[4096];
            size_t n;
            while ((n = fread(buf, 1, sizeof buf, f)) > 0) err->append(buf, n);
            fclose(f);
        }
    }
    std::remove(errfile.c_str());
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void write_csv(const std::string &path, const std::vector<float> &x, int64_t cols) {
    FILE *f = fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    for (size_t i = 0; i < x.size(); i++) fprintf(f, "%.9g%c", (double)x[i], (int64_t)(i + 1) % cols ? ',' : '\n');
    fclose(f);
}

bool csv_all_finite(const std::string &path, size_t *count) {
    FILE *f = fopen(path.c_str(), "r");
    if (!f) return false;
    char tok[128];
    *count = 0;
    bool ok = true;
    while (fscanf(f, " %127[^,\n]", tok) == 1) {
        char *end;
        double v = strtod(tok, &end);
        if (end != tok) {
            (*count)++;
            ok = ok && std::isfinite(v);
        }
        fscanf(f, "%*[,\n]");
    }
    fclose(f);
    return ok;
}

TEST(ExtremeData, CliNeverExitsZeroWithANonFiniteResult) {
    std::string dir = ::testing::TempDir() + "umap_extreme_cli_" + std::to_string((long long)getpid()) + "/";
    ASSERT_EQ(system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str()), 0);
    std::vector<float> x = near_flt_max();
    write_csv(dir + "maxed.csv", x, kCols);
    std::string err;
    /* knn: distances beyond float are an error naming the row, and nothing is written */
    EXPECT_EQ(run("knn --input " + dir + "maxed.csv --k 5 --output " + dir + "i.csv --distances " + dir + "d.csv --quiet", &err), 1);
    EXPECT_NE(err.find("row "), std::string::npos) << err;
    EXPECT_NE(access((dir + "d.csv").c_str(), F_OK), 0);
    /* fit and transform: finite outputs, exit 0 */
    ASSERT_EQ(run("fit --input " + dir + "maxed.csv --embedding " + dir + "e.csv --save " + dir +
                      "m.safetensors --epochs 2 --threads 1 --quiet", &err), 0) << err;
    size_t count = 0;
    EXPECT_TRUE(csv_all_finite(dir + "e.csv", &count));
    EXPECT_EQ(count, (size_t)(kRows * 2));
    ASSERT_EQ(run("transform --model " + dir + "m.safetensors --input " + dir + "maxed.csv --output " + dir + "t.csv --quiet", &err), 0) << err;
    EXPECT_TRUE(csv_all_finite(dir + "t.csv", &count));
    EXPECT_EQ(count, (size_t)(kRows * 2));
    /* a model of ordinary data, new rows far outside its range: exit 1, the row named */
    std::vector<float> g = gaussian_rows(26);
    write_csv(dir + "g.csv", g, kCols);
    ASSERT_EQ(run("fit --input " + dir + "g.csv --save " + dir + "g.safetensors --epochs 2 --threads 1 --quiet", &err), 0) << err;
    std::vector<float> far = gaussian_rows(27);
    for (int64_t j = 0; j < kCols; j++) far[(size_t)(3 * kCols + j)] = j % 2 ? -3e38f : 3e38f;
    write_csv(dir + "far.csv", far, kCols);
    EXPECT_EQ(run("transform --model " + dir + "g.safetensors --input " + dir + "far.csv --output " + dir + "f.csv --encoder-only --quiet", &err), 1);
    EXPECT_NE(err.find("row 3:"), std::string::npos) << err;
    EXPECT_NE(access((dir + "f.csv").c_str(), F_OK), 0);
    /* placed among the kept rows (the default model's transform), the row is finite */
    ASSERT_EQ(run("transform --model " + dir + "g.safetensors --input " + dir + "far.csv --output " + dir + "f.csv --quiet", &err), 0) << err;
    EXPECT_TRUE(csv_all_finite(dir + "f.csv", &count));
    /* one row convention: the reader and the library both name row 3 (0-based)
       of a CSV whose header is line 1, so row 3 is line 5 */
    {
        FILE *f = fopen((dir + "nan.csv").c_str(), "w");
        ASSERT_NE(f, nullptr);
        fprintf(f, "a,b\n1,2\n3,4\n5,6\nnan,8\n");
        for (int i = 0; i < 30; i++) fprintf(f, "%d,%d\n", i, i * i % 7);
        fclose(f);
        f = fopen((dir + "bad.csv").c_str(), "w");
        ASSERT_NE(f, nullptr);
        fprintf(f, "a,b\n1,2\n3,4\n5,6\n7,x\n9,10\n");
        fclose(f);
    }
    EXPECT_EQ(run("fit --input " + dir + "nan.csv --embedding " + dir + "n.csv --quiet", &err), 1);
    EXPECT_NE(err.find("row 3 of the data holds NaN or Inf"), std::string::npos) << err;
    EXPECT_NE(run("fit --input " + dir + "bad.csv --embedding " + dir + "n.csv --quiet", &err), 0);
    EXPECT_NE(err.find("bad.csv:5 (row 3): field 2 is not a number"), std::string::npos) << err;
    EXPECT_EQ(system(("rm -rf '" + dir + "'").c_str()), 0);
}

} // namespace
