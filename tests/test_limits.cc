/* >>config limits: one set of limits for fit, the model files and the
   front ends. The config's table (umap_config_fields) is walked row by
   row: each row's bounds, the values just past them, the values of other
   types a file or a caller may hold there (1.5 for an int, 1e39 for a
   float, a name that is no metric), and for every one of them

   - fit's verdict (a fit that the first progress report cancels: it has
     passed every check by then),
   - umap_config_check's, on the rows the model file has,
   - the loader's, of the file with that value in its umap.config,

   must be the same; a refusal names the field; and a value that loads
   survives save -> load -> save bit for bit (the file is a fixed point).
   Then real fits at the extremes of the ranges save models that load as
   they were saved, and a file cannot ask transform for more work than the
   rows it holds. */
#include <unistd.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

const int64_t kRows = 300, kCols = 6;

std::string tmp_path(const char *ext) {
    const char *dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/umap_test_limits_" + std::to_string((long)getpid()) + ext;
}

/* a model's file bytes in the format ext picks */
std::string saved(const umap_model *m, const char *ext = ".safetensors") {
    std::string p = tmp_path(ext);
    char detail[512];
    EXPECT_EQ(umap_save_ex(m, p.c_str(), detail, sizeof detail), UMAP_OK) << detail;
    std::string bytes = ut::read_file(p);
    std::remove(p.c_str());
    return bytes;
}

struct Loaded {
    umap_result r = UMAP_ERR_GRAPH;
    umap_model *m = nullptr;
    std::string detail;
    Loaded() = default;
    Loaded(const Loaded &) = delete;
    Loaded &operator=(const Loaded &) = delete;
    ~Loaded() { umap_model_free(m); }
};
void load(const std::string &bytes, Loaded *out) {
    char detail[512] = "";
    out->r = umap_load_memory(bytes.data(), bytes.size(), nullptr, &out->m, detail, sizeof detail);
    out->detail = detail;
}

/* safetensors: the header's JSON text and the data after it; and back */
std::string st_header(const std::string &f) {
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--) n = n << 8 | (unsigned char)f[(size_t)i];
    return f.substr(8, (size_t)n);
}
std::string st_build(std::string header, const std::string &f) {
    std::string data = f.substr(8 + st_header(f).size());
    while (header.back() == ' ') header.pop_back();
    while ((8 + header.size()) % 8) header += ' ';
    std::string out(8, '\0');
    uint64_t n = header.size();
    for (int i = 0; i < 8; i++) out[(size_t)i] = (char)(n >> (8 * i));
    return out + header + data;
}

/* a metadata value: the JSON string's body at key, decoded (the config's
   JSON escapes only quotes and backslashes) and back */
size_t meta_at(const std::string &h, const std::string &key, size_t *end) {
    size_t at = h.find("\"" + key + "\":\"");
    EXPECT_NE(at, std::string::npos) << key;
    at += key.size() + 4;
    size_t e = at;
    while (e < h.size() && h[e] != '"') e += h[e] == '\\' ? 2 : 1;
    *end = e;
    return at;
}
std::string meta_get(const std::string &f, const std::string &key) {
    std::string h = st_header(f), out;
    size_t end, at = meta_at(h, key, &end);
    for (size_t i = at; i < end; i++) out += h[i] == '\\' ? h[++i] : h[i];
    return out;
}
std::string meta_set(const std::string &f, const std::string &key, const std::string &value) {
    std::string h = st_header(f), enc;
    for (char ch : value) {
        if (ch == '"' || ch == '\\') enc += '\\';
        enc += ch;
    }
    size_t end, at = meta_at(h, key, &end);
    return st_build(h.replace(at, end - at, enc), f);
}

/* the file with "field":text in its umap.config (text: a JSON value) */
std::string with_config(const std::string &f, const std::string &field, const std::string &text) {
    std::string json = meta_get(f, "umap.config");
    size_t at = json.find("\"" + field + "\":");
    EXPECT_NE(at, std::string::npos) << field;
    at += field.size() + 3;
    size_t end = json[at] == '"' ? json.find('"', at + 1) + 1 : json.find_first_of(",}", at);
    return meta_set(f, "umap.config", json.replace(at, end - at, text));
}

/* a row's value in a config, and a value stored as the row's type stores it */
double get(const umap_config_field &row, const umap_config &c) {
    const char *p = (const char *)&c + row.offset;
    switch (row.type) {
    case UMAP_FIELD_FLOAT: return *(const float *)(const void *)p;
    case UMAP_FIELD_DOUBLE: return *(const double *)(const void *)p;
    default: return *(const int *)(const void *)p; /* enums are ints here (libumap.c checks it) */
    }
}
void set(const umap_config_field &row, umap_config *c, double v) {
    char *p = (char *)c + row.offset;
    switch (row.type) {
    case UMAP_FIELD_FLOAT: *(float *)(void *)p = std::fabs(v) > FLT_MAX ? (float)std::copysign(INFINITY, v) : (float)v; break;
    case UMAP_FIELD_DOUBLE: *(double *)(void *)p = v; break;
    default: *(int *)(void *)p = (int)v; break;
    }
}
/* a caller can set v in the row's field (a float field takes anything, past
   float as inf; an int field whole numbers of int's range) */
bool settable(const umap_config_field &row, double v) {
    if (std::isnan(v)) return false;
    if (row.type == UMAP_FIELD_FLOAT || row.type == UMAP_FIELD_DOUBLE) return true;
    return v == std::floor(v) && v >= -2147483648.0 && v <= 2147483647.0;
}

bool same_bits(const umap_config_field &row, const umap_config &a, const umap_config &b) {
    size_t size = row.type == UMAP_FIELD_DOUBLE ? sizeof(double) : row.type == UMAP_FIELD_FLOAT ? sizeof(float) : sizeof(int);
    return std::memcmp((const char *)&a + row.offset, (const char *)&b + row.offset, size) == 0;
}

std::string fmt(const char *f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

/* A value to try in a row: as a file holds it (text, a JSON value), and as
   a caller would set it (value; NAN where no number of the type is meant,
   and then the name for the enums kept by name). */
struct Probe {
    std::string text;
    double value;
};

std::vector<Probe> probes(const umap_config_field &row) {
    std::vector<Probe> out;
    auto num = [&](double v, const char *f) { /* a file holds numbers JSON can write */
        if (std::isfinite(v)) out.push_back({fmt(f, v), v});
    };
    switch (row.type) {
    case UMAP_FIELD_METRIC:
        for (int i = (int)row.lo; i <= (int)row.hi; i++)
            out.push_back({std::string("\"") + umap_metric_name((umap_metric)i) + "\"", (double)i});
        out.push_back({"\"nope\"", NAN});
        out.push_back({"1", 1}); /* files from before names: 0 euclidean, 1 cosine */
        break;
    case UMAP_FIELD_INIT:
        for (int i = (int)row.lo; i <= (int)row.hi; i++)
            out.push_back({std::string("\"") + umap_init_name((umap_init)i) + "\"", (double)i});
        out.push_back({"\"rand0m\"", NAN});
        break;
    case UMAP_FIELD_INT:
    case UMAP_FIELD_KNN_METHOD:
        for (double v : {row.lo - 1, row.lo, row.lo + 1, row.hi - 1, row.hi, row.hi + 1, -1.0, 0.0, 1.0}) num(v, "%.0f");
        out.push_back({"1.5", 1.5});
        break;
    case UMAP_FIELD_FLOAT: {
        float lo = (float)row.lo, hi = (float)row.hi;
        for (float v : {lo, hi, std::nextafter(lo, -INFINITY), std::nextafter(lo, INFINITY), std::nextafter(hi, -INFINITY)})
            num(v, "%.9g");
        if (hi < FLT_MAX) num(std::nextafter(hi, INFINITY), "%.9g");
        num(row.lo, "%.17g"); /* the bound as the table writes it: 0.01 admits the float 0.01f */
        num(row.hi, "%.17g");
        for (double v : {0.0, -1.0, 1e39, -1e39, 3.4028236e38}) num(v, "%.9g");
        break;
    }
    case UMAP_FIELD_DOUBLE:
        for (double v : {row.lo, row.hi, std::nextafter(row.lo, -INFINITY), 0.5, -1.0}) num(v, "%.17g");
        out.push_back({"1e309", INFINITY}); /* beyond double: strtod's inf */
        break;
    }
    return out;
}

/* the smallest fit that runs every phase (milliseconds at 300 rows) */
umap_config tiny_config(int n_neighbors) {
    umap_config c = ut::quick_config();
    c.n_neighbors = n_neighbors;
    c.n_epochs = 1;
    c.refine_epochs = 3;
    c.distill_epochs = 1;
    c.init = UMAP_INIT_RANDOM;
    c.n_threads = 1;
    return c;
}

class ConfigLimits : public ::testing::Test {
  protected:
    static umap_model *model_;
    static std::string file_;
    static std::vector<float> x_;

    static void SetUpTestSuite() {
        x_ = ut::uniform(kRows * kCols, 5, -1.0, 1.0);
        umap_config c = tiny_config(5);
        c.keep_data = UMAP_KEEP_SKETCH; /* a sample with its own graph: n_neighbors is held to the kept rows */
        c.keep_sample = 40;
        ASSERT_EQ(umap_fit(&c, x_.data(), kRows, kCols, &model_), UMAP_OK);
        file_ = saved(model_);
    }
    static void TearDownTestSuite() {
        umap_model_free(model_);
        model_ = nullptr;
    }

    /* fit's verdict on a config: OK when every check passed (the first
       progress report cancels the fit before any work) */
    static umap_result fit_verdict(const umap_config &c, std::string *detail) {
        umap_config f = c;
        umap_fit_info info;
        umap_model *m = nullptr;
        f.info = &info;
        f.progress = [](const umap_progress *, void *) { return 1; };
        f.n_threads = 1;
        umap_result r = umap_fit(&f, x_.data(), kRows, kCols, &m);
        umap_model_free(m);
        *detail = info.error_detail;
        return r == UMAP_ERR_CANCELLED ? UMAP_OK : r;
    }
};
umap_model *ConfigLimits::model_ = nullptr;
std::string ConfigLimits::file_;
std::vector<float> ConfigLimits::x_;

TEST_F(ConfigLimits, FitTheCheckAndTheLoaderAgreeOnEveryValueOfEveryRow) {
    int n_rows = 0, n_probes = 0, n_loaded = 0;
    const umap_config_field *rows = umap_config_fields(&n_rows);
    Loaded base;
    load(file_, &base);
    ASSERT_EQ(base.r, UMAP_OK) << base.detail;
    const umap_config c0 = *umap_model_config(base.m);
    ASSERT_GE(n_rows, 30);
    for (int i = 0; i < n_rows; i++) {
        const umap_config_field &row = rows[i];
        for (const Probe &p : probes(row)) {
            SCOPED_TRACE(std::string(row.name) + " = " + p.text);
            n_probes++;
            /* the caller's side: the row, then every rule, on the file's rows */
            umap_config c = c0;
            bool row_ok = !std::isnan(p.value) && umap_config_field_accepts(&row, p.value);
            char why[512] = "";
            if (row_ok) set(row, &c, p.value);
            bool want = row_ok && umap_config_check(&c, kRows, kCols, why, sizeof why) == UMAP_OK;
            /* fit, with the value as a caller would set it */
            if (settable(row, p.value)) {
                umap_config fc = c0;
                std::vector<float> coords((size_t)(kRows * fc.n_components), 0.5f);
                set(row, &fc, p.value);
                if (fc.init == UMAP_INIT_COORDS) fc.init_coords = coords.data(); /* fit's argument with the value */
                std::string detail;
                umap_result r = fit_verdict(fc, &detail);
                EXPECT_EQ(r == UMAP_OK, want) << detail;
                if (r != UMAP_OK) {
                    EXPECT_NE(detail.find(row.name), std::string::npos) << "the refusal names the field: " << detail;
                }
            }
            /* the loader, with the value in the file */
            Loaded l;
            load(with_config(file_, row.name, p.text), &l);
            if (row.flags & UMAP_FIELD_SHAPE) { /* the file's shapes decide it: what the config says is not read */
                ASSERT_EQ(l.r, UMAP_OK) << l.detail;
                EXPECT_TRUE(same_bits(row, *umap_model_config(l.m), c0));
                continue;
            }
            /* fit resolves UMAP_AUTO and saves what ran: a file holding it was written by no fit */
            if ((row.flags & UMAP_FIELD_AUTO) && p.value == UMAP_AUTO) want = false;
            EXPECT_EQ(l.r == UMAP_OK, want) << l.detail << (want ? "" : " / the check said: ") << why;
            if (l.r != UMAP_OK) {
                EXPECT_EQ(l.r, UMAP_ERR_FORMAT);
                EXPECT_NE(l.detail.find(row.name), std::string::npos) << "the refusal names the field: " << l.detail;
                continue;
            }
            /* it loads as the value, and saves and loads again as the same bits */
            n_loaded++;
            EXPECT_TRUE(same_bits(row, *umap_model_config(l.m), c)) << get(row, *umap_model_config(l.m));
            std::string again = saved(l.m);
            Loaded l2;
            load(again, &l2);
            ASSERT_EQ(l2.r, UMAP_OK) << l2.detail;
            EXPECT_TRUE(same_bits(row, *umap_model_config(l2.m), c));
            EXPECT_TRUE(saved(l2.m) == again) << "save -> load -> save is not a fixed point";
        }
    }
    EXPECT_GT(n_loaded, n_probes / 4) << "the walk must load values too, not only refuse them";
}

/* The curve's a and b are the file's umap.a and umap.b: a float the
   library wrote (0.00999999978 for b = 0.01) loads, as does the decimal
   a person writes; past the bounds, or past float, is refused. */
TEST_F(ConfigLimits, CurveParametersRoundTripAtTheirBounds) {
    struct Case {
        const char *key, *text;
        bool loads;
    };
    const Case cases[] = {
        {"umap.b", "0.01", true},           {"umap.b", "0.00999999978", true}, {"umap.b", "8", true},
        {"umap.b", "0.0099", false},        {"umap.b", "8.001", false},         {"umap.a", "1e30", true},
        {"umap.a", "1.00000002e+30", true}, {"umap.a", "1e-30", true},          {"umap.a", "1.1e30", false},
        {"umap.a", "1e39", false},          {"umap.a", "inf", false},           {"umap.a", "nan", false},
        {"umap.a", "0", false},
    };
    for (const Case &k : cases) {
        SCOPED_TRACE(std::string(k.key) + " = " + k.text);
        Loaded l;
        load(meta_set(file_, k.key, k.text), &l);
        ASSERT_EQ(l.r == UMAP_OK, k.loads) << l.detail;
        if (!k.loads) {
            EXPECT_NE(l.detail.find(k.key), std::string::npos) << l.detail;
            continue;
        }
        std::string again = saved(l.m);
        Loaded l2;
        load(again, &l2);
        ASSERT_EQ(l2.r, UMAP_OK) << l2.detail;
        EXPECT_EQ(umap_model_config(l2.m)->a, umap_model_config(l.m)->a);
        EXPECT_EQ(umap_model_config(l2.m)->b, umap_model_config(l.m)->b);
        EXPECT_TRUE(saved(l2.m) == again);
    }
}

/* Real fits at the ends of the ranges (the cheap ends: a fit of 300 rows
   in a few milliseconds each): each saves a model that loads with the
   config it was fitted with, bit for bit, in both formats, and saving the
   loaded model writes the same bytes. */
TEST_F(ConfigLimits, FitsAtTheExtremesSaveModelsThatLoadAsSaved) {
    struct Case {
        const char *what;
        void (*edit)(umap_config *);
    };
    const Case cases[] = {
        {"n_neighbors 257 (train.knn of 256 columns)", [](umap_config *c) { c->n_neighbors = 257; c->keep_data = UMAP_AUTO; }},
        {"n_neighbors 257, the rows kept", [](umap_config *c) { c->n_neighbors = 257; c->keep_data = UMAP_KEEP_ROWS; }},
        {"n_neighbors = keep_sample", [](umap_config *c) { c->n_neighbors = 30; c->keep_data = UMAP_KEEP_SKETCH; c->keep_sample = 30; }},
        {"n_neighbors = n", [](umap_config *c) { c->n_neighbors = (int)kRows; c->keep_data = UMAP_KEEP_SKETCH; }},
        {"b = 0.01, a = 1e30", [](umap_config *c) { c->a = 1e30f; c->b = 0.01f; }},
        {"a = 1e-30, b = 8", [](umap_config *c) { c->a = 1e-30f; c->b = 8.0f; }},
        {"the stop rules at their ends", [](umap_config *c) {
             c->timeout_s = DBL_MAX; c->min_desired_loss = -FLT_MAX; c->patience = 2147483647;
             c->grad_clip = std::nextafter(1e30f, 0.0f); c->min_delta = std::nextafter(1.0f, 0.0f); }},
        {"the smallest rates", [](umap_config *c) {
             c->learning_rate = FLT_MIN; c->refine_rate = FLT_MIN; c->adam_eps = FLT_MIN; c->beta1 = 0; c->beta2 = 0; }},
        {"the graph's ends", [](umap_config *c) {
             c->local_connectivity = (float)(c->n_neighbors - 1); c->set_op_mix_ratio = 0; c->bandwidth = 1e-6f;
             c->min_dist = 1.0f; c->spread = 1.0f; c->negative_sample_rate = 1000; c->repulsion_strength = 0; }},
        {"no standardisation, no refinement, one-row batches", [](umap_config *c) {
             c->standardize = 0; c->refine_epochs = 0; c->distill_epochs = 0; c->batch_size = 1; c->n_epochs = 1; }},
        {"every metric name: chebyshev, seed 2^64 - 1", [](umap_config *c) {
             c->metric = UMAP_METRIC_CHEBYSHEV; c->keep_data = UMAP_KEEP_ROWS; c->seed = ~(uint64_t)0; }},
        {"minkowski p large, knn nndescent", [](umap_config *c) {
             c->metric = UMAP_METRIC_MINKOWSKI; c->metric_p = 64.0f; c->knn_method = UMAP_KNN_NNDESCENT; }},
        {"the encoder's ends", [](umap_config *c) {
             c->n_hidden = 0; c->n_components = 1; c->target_weight = 1; c->weight_decay = 999.0f;
             c->refine_attraction = std::nextafter(1000.0f, 0.0f); c->decoder_epochs = 1; }},
    };
    for (const Case &k : cases) {
        SCOPED_TRACE(k.what);
        umap_config c = tiny_config(8);
        k.edit(&c);
        umap_fit_info info;
        c.info = &info;
        ut::Model m;
        umap_result r = umap_fit(&c, x_.data(), kRows, kCols, m.out());
        ASSERT_TRUE(r == UMAP_OK || r == UMAP_ERR_NON_FINITE) << umap_result_string(r) << ": " << info.error_detail;
        ASSERT_NE(m.m, nullptr);
        const umap_config *fc = umap_model_config(m.m);
        for (const char *ext : {".safetensors", ".gguf"}) {
            std::string f = saved(m.m, ext);
            Loaded l;
            load(f, &l);
            ASSERT_EQ(l.r, UMAP_OK) << ext << ": " << l.detail;
            int n_rows = 0;
            const umap_config_field *rows = umap_config_fields(&n_rows);
            for (int i = 0; i < n_rows; i++)
                EXPECT_TRUE(same_bits(rows[i], *umap_model_config(l.m), *fc))
                    << ext << ": " << rows[i].name << " fitted " << get(rows[i], *fc) << ", loaded "
                    << get(rows[i], *umap_model_config(l.m));
            EXPECT_EQ(umap_model_config(l.m)->seed, fc->seed);
            EXPECT_TRUE(saved(l.m, ext) == f) << ext << ": the loaded model saves other bytes than the fitted one";
            std::vector<float> y((size_t)(2 * umap_model_n_components(l.m)));
            EXPECT_EQ(umap_transform(l.m, x_.data(), 2, kCols, y.data(), 1), UMAP_OK);
        }
    }
}

/* Values fit refuses that it once accepted and wrote into a file no reader
   took (timeout_s = inf wrote "inf", which is not JSON), and values a
   file once turned into inf. */
TEST_F(ConfigLimits, NonFiniteAndOutOfFloatValuesAreRefusedByName) {
    struct Case {
        const char *field;
        void (*edit)(umap_config *);
    };
    const Case cases[] = {
        {"timeout_s", [](umap_config *c) { c->timeout_s = INFINITY; }},
        {"min_desired_loss", [](umap_config *c) { c->min_desired_loss = INFINITY; }},
        {"min_desired_loss", [](umap_config *c) { c->min_desired_loss = -INFINITY; }},
        {"adam_eps", [](umap_config *c) { c->adam_eps = INFINITY; }},
        {"grad_clip", [](umap_config *c) { c->grad_clip = INFINITY; }},
        {"metric_p", [](umap_config *c) { c->metric_p = NAN; }},
    };
    for (const Case &k : cases) {
        umap_config c = ut::quick_config();
        k.edit(&c);
        std::string detail;
        EXPECT_EQ(fit_verdict(c, &detail), UMAP_ERR_INVALID_ARGUMENT) << k.field;
        EXPECT_EQ(detail.compare(0, std::strlen(k.field) + 3, std::string(k.field) + " = "), 0) << detail;
    }
    for (const char *field : {"learning_rate", "min_dist", "spread", "beta1", "target_weight", "metric_p"}) {
        Loaded l;
        load(with_config(file_, field, "1e39"), &l);
        EXPECT_EQ(l.r, UMAP_ERR_FORMAT) << field << " = 1e39 loaded (as inf?)";
        EXPECT_NE(l.detail.find(std::string(field) + " = 1e+39"), std::string::npos) << l.detail;
    }
}

/* A file's fields against each other and against what it holds: a new
   row's neighbours are among the kept rows (n_neighbors <= kept rows), and
   as many as a kept row had in the kept graph, whatever n_neighbors says:
   the graph's size, which is in the file, bounds what transform does. */
TEST_F(ConfigLimits, AFileCannotAskTransformForMoreThanItHolds) {
    const int64_t n_new = 50;
    std::vector<float> q = ut::uniform(n_new * kCols, 77, -1.0, 1.0), want((size_t)(n_new * 2)), got(want.size());
    ASSERT_EQ(umap_transform(model_, q.data(), n_new, kCols, want.data(), 1), UMAP_OK);
    for (const char *k : {"2147483647", "1000", "301", "41"}) {
        Loaded l;
        load(with_config(file_, "n_neighbors", k), &l);
        EXPECT_EQ(l.r, UMAP_ERR_FORMAT) << "n_neighbors " << k << " with 40 kept rows loaded";
        EXPECT_NE(l.detail.find("n_neighbors"), std::string::npos) << l.detail;
    }
    Loaded l;
    load(with_config(file_, "n_neighbors", "40"), &l); /* as many as it keeps: loads */
    ASSERT_EQ(l.r, UMAP_OK) << l.detail;
    ASSERT_EQ(umap_transform(l.m, q.data(), n_new, kCols, got.data(), 1), UMAP_OK);
    EXPECT_TRUE(ut::bitwise_equal(got, want)) << "transform used more neighbours than the kept graph gives a row";
    /* the kept graph as wide as the file makes it, and no wider than its rows */
    EXPECT_EQ(umap_model_config(l.m)->keep_sample, 40);
}

/* The program checks its options against the same rows before it reads
   any data, and names the option. */
TEST(ConfigLimitsApi, TheRangeTextAndTheCheckNameTheField) {
    int n = 0;
    const umap_config_field *rows = umap_config_fields(&n);
    char range[256], why[512];
    for (int i = 0; i < n; i++) {
        umap_config_field_range(&rows[i], range, sizeof range);
        EXPECT_GT(std::strlen(range), 5u) << rows[i].name;
        EXPECT_TRUE(rows[i].lo <= rows[i].hi) << rows[i].name;
    }
    umap_config c = umap_config_default();
    EXPECT_EQ(umap_config_check(&c, 0, 0, why, sizeof why), UMAP_OK) << why;
    EXPECT_EQ(umap_config_check(nullptr, 100, 10, why, sizeof why), UMAP_OK) << why;
    c.n_neighbors = 200;
    EXPECT_EQ(umap_config_check(&c, 0, 0, why, sizeof why), UMAP_OK) << "the rows are not known yet";
    EXPECT_EQ(umap_config_check(&c, 100, 10, why, sizeof why), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(why).find("n_neighbors = 200"), std::string::npos) << why;
    c = umap_config_default();
    c.b = 0.01f;
    c.a = 1e30f;
    EXPECT_EQ(umap_config_check(&c, 0, 0, why, sizeof why), UMAP_OK) << "the float 0.01f passes the bound 0.01: " << why;
    c.metric = UMAP_METRIC_COSINE;
    c.keep_sample = 100; /* keep_data auto keeps nothing with cosine: a sample asked for is not silently dropped */
    EXPECT_EQ(umap_config_check(&c, 0, 0, why, sizeof why), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(why).find("keep_sample = 100"), std::string::npos) << why;
    c.keep_data = UMAP_KEEP_ROWS;
    EXPECT_EQ(umap_config_check(&c, 0, 0, why, sizeof why), UMAP_OK) << why;
}

} // namespace
