// Kernel autotuning (umap_knn.h >>tune, umap.h >>tune-cache, umap_vk.h's
// cached calibration): every sgemm variant gives the same bits, a tuner at
// first use changes nothing but speed, the cache file round-trips, a bad
// or foreign cache is ignored with a warning, UMAP_TUNE and `umap tune`
// write it, and a Vulkan calibration is read back instead of measured.
#include "umap_vk.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "test_util.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

struct Product {
    int ta, tb;
    int64_t M, N, K;
};

std::vector<float> random_floats(size_t n, uint64_t seed) {
    umap_rng rng;
    umap_rng_init(&rng, seed, 0);
    std::vector<float> v(n);
    for (float &x : v) x = umap_rng_normal(&rng);
    return v;
}

bool same_bits(const std::vector<float> &a, const std::vector<float> &b) {
    return a.size() == b.size() && memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// the log lines a tuner writes, for checking its warnings
struct Log {
    std::vector<std::string> warnings, infos;
    static void fn(umap_log_level level, const char *msg, void *user) {
        Log *l = static_cast<Log *>(user);
        (level <= UMAP_LOG_WARN ? l->warnings : l->infos).push_back(msg);
    }
    umap_logger logger() {
        umap_logger g;
        memset(&g, 0, sizeof g);
        g.log_fn = fn;
        g.user_data = this;
        return g;
    }
};

class TempDir {
  public:
    TempDir() {
        char tmpl[] = "/tmp/umap_tune_test_XXXXXX";
        const char *d = mkdtemp(tmpl);
        dir_ = d ? d : "";
    }
    ~TempDir() {
        if (!dir_.empty()) {
            std::string cmd = "rm -rf '" + dir_ + "'";
            if (system(cmd.c_str()) != 0) fprintf(stderr, "could not remove %s\n", dir_.c_str());
        }
    }
    std::string operator/(const std::string &name) const { return dir_ + "/" + name; }

  private:
    std::string dir_;
};

std::string read_all(const std::string &path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

void write_all(const std::string &path, const std::string &text) {
    std::ofstream f(path, std::ios::binary);
    f << text;
}

// C = op(A) op(B) of p under variant v; false when this CPU may not use v
bool run_variant(umap_pool *pool, int v, const Product &p, std::vector<float> *c, std::string *name = nullptr) {
    std::vector<float> a = random_floats((size_t)(p.M * p.K), 1), b = random_floats((size_t)(p.K * p.N), 2);
    char buf[96];
    c->assign((size_t)(p.M * p.N), -1.0f);
    int ran = umap_sgemm_variant(pool, v, p.ta, p.tb, p.M, p.N, p.K, a.data(), b.data(), c->data(), buf, sizeof buf);
    if (name) *name = buf;
    return ran != 0;
}

// a compiled x @ w of n x k by k x m, run once on the pool: the product the
// CPU backend sends to the portable sgemm (with the tuner, if the pool has one)
std::vector<float> compiled_matmul(umap_pool *pool, int64_t n, int64_t k, int64_t m) {
    umap_graph *g = nullptr;
    umap_program *prog = nullptr;
    umap_compile_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.pool = pool;
    EXPECT_EQ(umap_graph_create(nullptr, &g), UMAP_OK);
    umap_tensor *x = umap_input(g, "x", umap_shape2(n, k));
    umap_tensor *w = umap_input(g, "w", umap_shape2(k, m));
    umap_tensor *y = umap_matmul(g, x, w);
    std::vector<float> xs = random_floats((size_t)(n * k), 3), ws = random_floats((size_t)(k * m), 4);
    std::vector<float> out((size_t)(n * m));
    EXPECT_EQ(umap_compile(g, 1, &y, &cd, &prog), UMAP_OK);
    EXPECT_EQ(umap_program_bind(prog, "x", xs.data(), n * k), UMAP_OK);
    EXPECT_EQ(umap_program_bind(prog, "w", ws.data(), k * m), UMAP_OK);
    EXPECT_EQ(umap_program_run(prog), UMAP_OK);
    const float *y_data = nullptr;
    umap_shape y_shape;
    EXPECT_EQ(umap_program_output(prog, 0, &y_data, &y_shape), UMAP_OK);
    if (y_data) memcpy(out.data(), y_data, out.size() * sizeof(float));
    umap_program_free(prog);
    umap_graph_free(g);
    return out;
}

const int64_t kN = 300, kK = 200, kM = 100; // 6M multiply-adds: past UMAP_TUNE_MIN_MACS
const char *kKey = "sgemm t00 m9 n7 k8";     // its shape class (bit lengths of 300, 100, 200)

} // namespace

TEST(Tune, EverySgemmVariantGivesTheSameBits) {
    // edges on purpose: M not a multiple of 6, N not of 16, tiny and long K
    const Product products[] = {{0, 0, 97, 83, 61},  {1, 0, 64, 200, 33},  {0, 1, 131, 47, 129},
                                {1, 1, 50, 50, 300}, {0, 0, 7, 1, 1000},   {0, 0, 400, 130, 5},
                                {0, 1, 256, 784, 64}, {1, 0, 100, 100, 1024}};
    umap_pool *pool = nullptr;
    ASSERT_EQ(umap_pool_create(2, nullptr, &pool), UMAP_OK);
    int usable = 0;
    for (int v = 0; v < umap_sgemm_variant_count(); v++) usable += umap_sgemm_variant(pool, v, 0, 0, 1, 1, 1,
        std::vector<float>(1, 1.0f).data(), std::vector<float>(1, 1.0f).data(), std::vector<float>(1).data(), nullptr, 0);
    EXPECT_GE(usable, 6) << "the blocking and grain variants run on any CPU";
    for (const Product &p : products) {
        std::vector<float> ref, c;
        ASSERT_TRUE(run_variant(pool, 0, p, &ref)) << "variant 0 (the default) always runs";
        // the default against a plain double-free float reference: it is a product at all
        std::vector<float> a = random_floats((size_t)(p.M * p.K), 1), b = random_floats((size_t)(p.K * p.N), 2);
        double worst = 0;
        for (int64_t i = 0; i < p.M; i++)
            for (int64_t j = 0; j < p.N; j++) {
                double s = 0;
                for (int64_t k = 0; k < p.K; k++)
                    s += (double)a[(size_t)(p.ta ? k * p.M + i : i * p.K + k)] *
                         (double)b[(size_t)(p.tb ? j * p.K + k : k * p.N + j)];
                worst = std::max(worst, std::fabs(s - ref[(size_t)(i * p.N + j)]));
            }
        EXPECT_LT(worst, 1e-3) << p.M << "x" << p.N << "x" << p.K;
        for (int v = 1; v < umap_sgemm_variant_count(); v++) {
            std::string name;
            if (!run_variant(pool, v, p, &c, &name)) continue;
            EXPECT_TRUE(same_bits(ref, c)) << name << " on " << p.ta << p.tb << " " << p.M << "x" << p.N << "x" << p.K;
            std::vector<float> inline_c; // and with no pool: the task cut does not matter either
            ASSERT_TRUE(run_variant(nullptr, v, p, &inline_c));
            EXPECT_TRUE(same_bits(ref, inline_c)) << name << " inline";
        }
    }
    umap_pool_free(pool);
}

// The last rows of a product (M not a multiple of the micro-kernel's 6) go
// through the micro-kernel on a zero-padded copy, K in slices: they must be
// the bits the same rows get inside a full group of a taller product.
TEST(Tune, TheLastRowsHaveTheBitsOfAFullGroup) {
    const int64_t K = 1000, N = 37, M = 100, M_full = 102; // rows 96..99: a tail of 4 in M, a full group in M_full
    std::vector<float> b = random_floats((size_t)(K * N), 6), big = random_floats((size_t)(M_full * K), 5);
    umap_pool *pool = nullptr;
    ASSERT_EQ(umap_pool_create(2, nullptr, &pool), UMAP_OK);
    for (int ta = 0; ta < 2; ta++) {
        // A of M_full rows, and the same first M rows alone, stored as op(A) needs
        std::vector<float> a_full((size_t)(M_full * K)), a((size_t)(M * K));
        for (int64_t i = 0; i < M_full; i++)
            for (int64_t k = 0; k < K; k++) {
                float v = big[(size_t)(i * K + k)];
                a_full[(size_t)(ta ? k * M_full + i : i * K + k)] = v;
                if (i < M) a[(size_t)(ta ? k * M + i : i * K + k)] = v;
            }
        std::vector<float> c((size_t)(M * N)), c_full((size_t)(M_full * N));
        ASSERT_TRUE(umap_sgemm_variant(pool, 0, ta, 0, M, N, K, a.data(), b.data(), c.data(), nullptr, 0));
        ASSERT_TRUE(umap_sgemm_variant(pool, 0, ta, 0, M_full, N, K, a_full.data(), b.data(), c_full.data(), nullptr, 0));
        std::vector<float> tail(c.begin() + 96 * N, c.end()), group(c_full.begin() + 96 * N, c_full.begin() + M * N);
        EXPECT_TRUE(same_bits(tail, group)) << "ta " << ta;
        EXPECT_TRUE(same_bits(std::vector<float>(c.begin(), c.begin() + 96 * N),
                              std::vector<float>(c_full.begin(), c_full.begin() + 96 * N)));
    }
    umap_pool_free(pool);
}

TEST(Tune, FirstUseTunesOnceAndKeepsTheBits) {
    umap_pool *plain = nullptr, *tuned = nullptr;
    umap_tuner *t = nullptr;
    Log log;
    umap_logger lg = log.logger();
    ASSERT_EQ(umap_pool_create(2, nullptr, &plain), UMAP_OK);
    ASSERT_EQ(umap_pool_create(2, nullptr, &tuned), UMAP_OK);
    ASSERT_EQ(umap_tuner_create(nullptr, &lg, &t), UMAP_OK);
    umap_pool_set_tuner(tuned, t);
    std::vector<float> want = compiled_matmul(plain, kN, kK, kM);
    std::vector<float> first = compiled_matmul(tuned, kN, kK, kM); // times every variant
    EXPECT_TRUE(same_bits(want, first));
    EXPECT_EQ(umap_tuner_count(t), 1);
    char value[128];
    ASSERT_TRUE(umap_tuner_get(t, umap_tuner_cpu(t), kKey, value, sizeof value));
    EXPECT_EQ(strncmp(value, "micro=", 6), 0) << value;
    size_t infos = log.infos.size();
    EXPECT_GE(infos, 1u);
    std::vector<float> again = compiled_matmul(tuned, kN, kK, kM); // the record: no timing
    EXPECT_TRUE(same_bits(want, again));
    EXPECT_EQ(umap_tuner_count(t), 1);
    EXPECT_EQ(log.infos.size(), infos) << "tuned again";
    EXPECT_TRUE(log.warnings.empty()) << log.warnings[0];
    // a small product is not timed (noise would pick)
    compiled_matmul(tuned, 20, 20, 20);
    EXPECT_EQ(umap_tuner_count(t), 1);
    umap_pool_free(tuned);
    umap_pool_free(plain);
    umap_tuner_free(t);
}

TEST(Tune, ARecordNamingNoUsableVariantIsRetunedNotTrusted) {
    umap_pool *plain = nullptr, *tuned = nullptr;
    umap_tuner *t = nullptr;
    ASSERT_EQ(umap_pool_create(2, nullptr, &plain), UMAP_OK);
    ASSERT_EQ(umap_pool_create(2, nullptr, &tuned), UMAP_OK);
    ASSERT_EQ(umap_tuner_create(nullptr, nullptr, &t), UMAP_OK);
    for (const char *bad : {"micro=evil block=0 grain=1", "micro=avx2 block=3 grain=1", "micro=avx512 block=0 grain=99",
                            "nonsense"}) {
        ASSERT_EQ(umap_tuner_set(t, umap_tuner_cpu(t), kKey, bad), UMAP_OK);
        umap_pool_set_tuner(tuned, t);
        EXPECT_TRUE(same_bits(compiled_matmul(plain, kN, kK, kM), compiled_matmul(tuned, kN, kK, kM))) << bad;
        char value[128];
        ASSERT_TRUE(umap_tuner_get(t, umap_tuner_cpu(t), kKey, value, sizeof value));
        EXPECT_STRNE(value, bad) << "the bad record was replaced by a measured one";
    }
    umap_pool_free(tuned);
    umap_pool_free(plain);
    umap_tuner_free(t);
}

TEST(Tune, CacheRoundTrip) {
    TempDir dir;
    std::string path = dir / "sub/tune.txt"; // the directory is made
    umap_tuner *t = nullptr, *u = nullptr;
    umap_pool *pool = nullptr;
    char why[700], value[128];
    ASSERT_EQ(umap_tuner_create(nullptr, nullptr, &t), UMAP_OK);
    ASSERT_EQ(umap_pool_create(1, nullptr, &pool), UMAP_OK);
    ASSERT_EQ(umap_tuner_tune_sgemm(t, pool, 0, 0, kN, kM, kK), UMAP_OK);
    ASSERT_EQ(umap_tuner_set(t, "vulkan Some GPU vendor=0x10de", "calibration on x", "gpu_gflops=1"), UMAP_OK);
    ASSERT_EQ(umap_tuner_save(t, path.c_str(), why, sizeof why), UMAP_OK) << why;
    std::string text = read_all(path);
    EXPECT_EQ(text.compare(0, 18, "umap-tune-cache 1\n"), 0) << text;
    EXPECT_NE(text.find(std::string("library ") + UMAP_VERSION_STRING + "\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\nend 2\n"), std::string::npos) << text;
    ASSERT_EQ(umap_tuner_create(nullptr, nullptr, &u), UMAP_OK);
    ASSERT_EQ(umap_tuner_load(u, path.c_str()), UMAP_OK);
    EXPECT_EQ(umap_tuner_count(u), 2);
    char want[128];
    ASSERT_TRUE(umap_tuner_get(t, umap_tuner_cpu(t), kKey, want, sizeof want));
    ASSERT_TRUE(umap_tuner_get(u, umap_tuner_cpu(u), kKey, value, sizeof value));
    EXPECT_STREQ(value, want);
    ASSERT_TRUE(umap_tuner_get(u, "vulkan Some GPU vendor=0x10de", "calibration on x", value, sizeof value));
    EXPECT_STREQ(value, "gpu_gflops=1");
    // save without a path: the loaded one; the same bytes again
    ASSERT_EQ(umap_tuner_save(u, nullptr, why, sizeof why), UMAP_OK) << why;
    EXPECT_EQ(read_all(path), text);
    // a missing file is an empty tuner, no warning
    Log log;
    umap_logger lg = log.logger();
    umap_tuner *e = nullptr;
    ASSERT_EQ(umap_tuner_create(nullptr, &lg, &e), UMAP_OK);
    EXPECT_EQ(umap_tuner_load(e, (dir / "none.txt").c_str()), UMAP_OK);
    EXPECT_EQ(umap_tuner_count(e), 0);
    EXPECT_TRUE(log.warnings.empty());
    // fields a record may not hold
    EXPECT_EQ(umap_tuner_set(e, "a\tb", "k", "v"), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_tuner_set(e, "a", "k\n", "v"), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_tuner_set(e, "a", "k", ""), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_tuner_set(e, "a", "k", std::string(500, 'x').c_str()), UMAP_ERR_INVALID_ARGUMENT);
    umap_tuner_free(e);
    umap_tuner_free(u);
    umap_tuner_free(t);
    umap_pool_free(pool);
}

TEST(Tune, CorruptCacheIsIgnoredWithAWarning) {
    TempDir dir;
    std::string path = dir / "tune.txt";
    std::string head = std::string("umap-tune-cache 1\nlibrary ") + UMAP_VERSION_STRING + "\n";
    std::string rec = "cpu X\tsgemm t00 m9 n7 k8\tmicro=avx2 block=0 grain=1\n";
    std::string good = head + rec + "end 1\n";
    const std::string bad[] = {
        "",                                             // empty
        "\x7f" "ELF\x02\x01\x01 garbage\n",             // not a cache
        good.substr(0, good.size() - 7),                // truncated: no end line
        good.substr(0, good.size() - 1),                // truncated inside the end line (no newline)
        good.substr(0, 30),                             // truncated in the library line
        head + rec + "end 2\n",                         // a count that disagrees
        head + rec + "end 1\nmore\n",                   // lines after the end
        head + "no tabs here\nend 1\n",                 // not DEVICE<TAB>KEY<TAB>VALUE
        head + "a\tb\tc\td\nend 1\n",                   // one tab too many
        head + "a\t\tc\nend 1\n",                       // an empty key
        head + std::string(5000, 'a') + "\tk\tv\nend 1\n", // an overlong line
        head + std::string("a\tk\tv\x01\nend 1\n"),       // a control character
        head + std::string("a\tk\tv", 5) + std::string(1, '\0') + "x\nend 1\n", // a NUL inside
    };
    int i = 0;
    for (const std::string &text : bad) {
        write_all(path, text);
        Log log;
        umap_logger lg = log.logger();
        umap_tuner *t = nullptr;
        ASSERT_EQ(umap_tuner_create(nullptr, &lg, &t), UMAP_OK);
        EXPECT_EQ(umap_tuner_load(t, path.c_str()), UMAP_OK) << "case " << i;
        EXPECT_EQ(umap_tuner_count(t), 0) << "case " << i;
        ASSERT_EQ(log.warnings.size(), 1u) << "case " << i;
        EXPECT_NE(log.warnings[0].find("ignored"), std::string::npos) << log.warnings[0];
        umap_tuner_free(t);
        i++;
    }
    // the good one loads
    write_all(path, good);
    umap_tuner *t = nullptr;
    ASSERT_EQ(umap_tuner_create(nullptr, nullptr, &t), UMAP_OK);
    EXPECT_EQ(umap_tuner_load(t, path.c_str()), UMAP_OK);
    EXPECT_EQ(umap_tuner_count(t), 1);
    umap_tuner_free(t);
}

TEST(Tune, OtherVersionOrDeviceIsNotUsed) {
    TempDir dir;
    std::string path = dir / "tune.txt";
    // another library version: the whole file is ignored, with a warning naming both
    write_all(path, "umap-tune-cache 1\nlibrary 0.0.1\ncpu X\tk\tv\nend 1\n");
    Log log;
    umap_logger lg = log.logger();
    umap_tuner *t = nullptr;
    ASSERT_EQ(umap_tuner_create(nullptr, &lg, &t), UMAP_OK);
    EXPECT_EQ(umap_tuner_load(t, path.c_str()), UMAP_OK);
    EXPECT_EQ(umap_tuner_count(t), 0);
    ASSERT_EQ(log.warnings.size(), 1u);
    EXPECT_NE(log.warnings[0].find("0.0.1"), std::string::npos) << log.warnings[0];
    umap_tuner_free(t);
    // another CPU's record for the same shape: kept, never used (this CPU times its own)
    std::string other = "cpu Some Other CPU isa=sse2";
    write_all(path, std::string("umap-tune-cache 1\nlibrary ") + UMAP_VERSION_STRING + "\n" + other + "\t" + kKey +
                        "\tmicro=sse2 block=0 grain=1\nend 1\n");
    ASSERT_EQ(umap_tuner_create(nullptr, nullptr, &t), UMAP_OK);
    ASSERT_EQ(umap_tuner_load(t, path.c_str()), UMAP_OK);
    ASSERT_EQ(umap_tuner_count(t), 1);
    ASSERT_STRNE(umap_tuner_cpu(t), other.c_str());
    umap_pool *plain = nullptr, *tuned = nullptr;
    ASSERT_EQ(umap_pool_create(2, nullptr, &plain), UMAP_OK);
    ASSERT_EQ(umap_pool_create(2, nullptr, &tuned), UMAP_OK);
    umap_pool_set_tuner(tuned, t);
    EXPECT_TRUE(same_bits(compiled_matmul(plain, kN, kK, kM), compiled_matmul(tuned, kN, kK, kM)));
    EXPECT_EQ(umap_tuner_count(t), 2) << "this CPU's record beside the other's";
    char why[700];
    ASSERT_EQ(umap_tuner_save(t, nullptr, why, sizeof why), UMAP_OK) << why;
    EXPECT_NE(read_all(path).find(other + "\t" + kKey), std::string::npos) << "the other CPU's record is kept";
    umap_pool_free(tuned);
    umap_pool_free(plain);
    umap_tuner_free(t);
}

TEST(Tune, DefaultPathFollowsXdgThenHome) {
    char buf[1024];
    std::string old_xdg = getenv("XDG_CACHE_HOME") ? getenv("XDG_CACHE_HOME") : "";
    std::string old_home = getenv("HOME") ? getenv("HOME") : "";
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    setenv("HOME", "/h", 1);
    ASSERT_EQ(umap_tuner_default_path(buf, sizeof buf), UMAP_OK);
    EXPECT_STREQ(buf, "/x/cache/umap/tune.txt");
    setenv("XDG_CACHE_HOME", "relative", 1); // invalid by the XDG spec: ignored
    ASSERT_EQ(umap_tuner_default_path(buf, sizeof buf), UMAP_OK);
    EXPECT_STREQ(buf, "/h/.cache/umap/tune.txt");
    unsetenv("XDG_CACHE_HOME");
    ASSERT_EQ(umap_tuner_default_path(buf, sizeof buf), UMAP_OK);
    EXPECT_STREQ(buf, "/h/.cache/umap/tune.txt");
    EXPECT_EQ(umap_tuner_default_path(buf, 5), UMAP_ERR_TOO_LARGE);
    if (old_xdg.empty()) unsetenv("XDG_CACHE_HOME");
    else setenv("XDG_CACHE_HOME", old_xdg.c_str(), 1);
    if (old_home.empty()) unsetenv("HOME");
    else setenv("HOME", old_home.c_str(), 1);
}

TEST(Tune, EnvironmentTurnsItOnForTheLibrarysOwnPools) {
    TempDir dir;
    std::string path = dir / "env.txt";
    std::vector<float> want = compiled_matmul(nullptr, kN, kK, kM); // UMAP_TUNE unset: no file
    struct stat st;
    EXPECT_NE(stat(path.c_str(), &st), 0);
    setenv("UMAP_TUNE", path.c_str(), 1);
    std::vector<float> got = compiled_matmul(nullptr, kN, kK, kM); // the program's own pool, tuned, saved at its end
    unsetenv("UMAP_TUNE");
    EXPECT_TRUE(same_bits(want, got));
    std::string text = read_all(path);
    EXPECT_NE(text.find(std::string("\t") + kKey + "\tmicro="), std::string::npos) << text;
    EXPECT_NE(text.find("end 1\n"), std::string::npos) << text;
    setenv("UMAP_TUNE", "0", 1); // off
    remove(path.c_str());
    compiled_matmul(nullptr, kN, kK, kM);
    unsetenv("UMAP_TUNE");
    EXPECT_NE(stat(path.c_str(), &st), 0);
}

TEST(Tune, CliTuneWritesTheCache) {
    const char *cli = getenv("UMAP_CLI");
    std::string bin = cli && *cli ? cli : "build/umap";
    struct stat st;
    if (stat(bin.c_str(), &st) != 0) GTEST_SKIP() << bin << " is not built";
    TempDir dir;
    std::string path = dir / "cli.txt";
    std::string cmd = "'" + bin + "' tune --cache '" + path + "' --dim 32 --threads 2 --no-vulkan --quiet 2> '" +
                      (dir / "err") + "'";
    int status = system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << read_all(dir / "err");
    umap_tuner *t = nullptr;
    ASSERT_EQ(umap_tuner_create(nullptr, nullptr, &t), UMAP_OK);
    ASSERT_EQ(umap_tuner_load(t, path.c_str()), UMAP_OK);
    EXPECT_GE(umap_tuner_count(t), 3) << read_all(path);
    umap_tuner_free(t);
    // a bad option is a usage error naming it
    cmd = "'" + bin + "' tune --dim 0 --cache '" + path + "' 2> '" + (dir / "err") + "'";
    status = system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 2);
    EXPECT_NE(read_all(dir / "err").find("--dim"), std::string::npos) << read_all(dir / "err");
}

#ifdef UMAP_VULKAN
TEST(Tune, VulkanCalibrationIsReadBackFromTheCache) {
    setenv("UMAP_VK_ALLOW_CPU", "1", 0); // lavapipe counts here
    umap_vk *vk = nullptr;
    char why[512];
    if (umap_vk_create(nullptr, &vk, why, sizeof why) != UMAP_OK) GTEST_SKIP() << "no Vulkan device here (" << why << ")";
    TempDir dir;
    std::string path = dir / "vk.txt";
    umap_tuner *t = nullptr, *u = nullptr;
    umap_vk_calibration first, again;
    int measured = -1;
    ASSERT_EQ(umap_tuner_create(nullptr, nullptr, &t), UMAP_OK);
    ASSERT_EQ(umap_vk_calibrate_cached(vk, t, 0, &first, &measured), UMAP_OK);
    EXPECT_EQ(measured, 1);
    EXPECT_GT(first.gpu_gflops, 0);
    ASSERT_EQ(umap_tuner_save(t, path.c_str(), why, sizeof why), UMAP_OK) << why;
    // another run: from the file, to the same doubles, not measured
    ASSERT_EQ(umap_tuner_create(nullptr, nullptr, &u), UMAP_OK);
    ASSERT_EQ(umap_tuner_load(u, path.c_str()), UMAP_OK);
    ASSERT_EQ(umap_vk_calibrate_cached(vk, u, 0, &again, &measured), UMAP_OK);
    EXPECT_EQ(measured, 0);
    EXPECT_EQ(again.gpu_gflops, first.gpu_gflops);
    EXPECT_EQ(again.transfer_gbps, first.transfer_gbps);
    EXPECT_EQ(again.dispatch_us, first.dispatch_us);
    EXPECT_EQ(again.cpu_gflops, first.cpu_gflops);
    EXPECT_STREQ(again.device_name, first.device_name);
    // the record is keyed by the device's name and driver version
    std::string text = read_all(path);
    umap_vk_device_info info;
    ASSERT_EQ(umap_vk_device(vk, &info), UMAP_OK);
    char driver[32];
    snprintf(driver, sizeof driver, "driver=0x%08x", (unsigned)info.driver_version);
    EXPECT_NE(text.find(std::string("vulkan ") + info.name), std::string::npos) << text;
    EXPECT_NE(text.find(driver), std::string::npos) << text;
    // a record that does not read is measured again, never used
    std::string device = text.substr(text.find("vulkan "));
    device = device.substr(0, device.find('\t'));
    std::string key = text.substr(text.find("\tcalibration on ") + 1);
    key = key.substr(0, key.find('\t'));
    ASSERT_EQ(umap_tuner_set(u, device.c_str(), key.c_str(), "gpu_gflops=-1 transfer_gbps=1 dispatch_us=1 cpu_gflops=1"),
              UMAP_OK);
    ASSERT_EQ(umap_vk_calibrate_cached(vk, u, 0, &again, &measured), UMAP_OK);
    EXPECT_EQ(measured, 1);
    EXPECT_GT(again.gpu_gflops, 0);
    umap_tuner_free(u);
    umap_tuner_free(t);
    umap_vk_free(vk);
}
#endif

/* The writer and the reader share the cap: a cache that is full gains a
   record in a run by evicting its oldest one, and what is saved loads
   whole (a file past the cap was refused by the next load, whole). */
TEST(Tune, AFullCacheEvictsAndStaysLoadable) {
    TempDir dir;
    std::string path = dir / "tune.txt";
    umap_tuner *t = nullptr, *u = nullptr;
    char why[700], value[64];
    ASSERT_EQ(umap_tuner_create(nullptr, nullptr, &t), UMAP_OK);
    for (int i = 0; i < UMAP_TUNE_MAX_RECORDS; i++)
        ASSERT_EQ(umap_tuner_set(t, "cpu X", ("key " + std::to_string(i)).c_str(), "v"), UMAP_OK);
    ASSERT_EQ(umap_tuner_count(t), UMAP_TUNE_MAX_RECORDS);
    ASSERT_EQ(umap_tuner_save(t, path.c_str(), why, sizeof why), UMAP_OK) << why;
    ASSERT_EQ(umap_tuner_set(t, "cpu X", "key 0", "w"), UMAP_OK); /* an update takes no room */
    ASSERT_EQ(umap_tuner_count(t), UMAP_TUNE_MAX_RECORDS);
    ASSERT_EQ(umap_tuner_set(t, "cpu X", "one more", "v"), UMAP_OK); /* the run learns something new */
    EXPECT_EQ(umap_tuner_count(t), UMAP_TUNE_MAX_RECORDS);
    EXPECT_FALSE(umap_tuner_get(t, "cpu X", "key 0", value, sizeof value)) << "the oldest record goes";
    EXPECT_TRUE(umap_tuner_get(t, "cpu X", "one more", value, sizeof value));
    ASSERT_EQ(umap_tuner_save(t, path.c_str(), why, sizeof why), UMAP_OK) << why;
    Log log;
    umap_logger lg = log.logger();
    ASSERT_EQ(umap_tuner_create(nullptr, &lg, &u), UMAP_OK);
    ASSERT_EQ(umap_tuner_load(u, path.c_str()), UMAP_OK);
    EXPECT_TRUE(log.warnings.empty()) << log.warnings[0];
    EXPECT_EQ(umap_tuner_count(u), UMAP_TUNE_MAX_RECORDS) << "the saved cache loads whole";
    EXPECT_TRUE(umap_tuner_get(u, "cpu X", "one more", value, sizeof value));
    umap_tuner_free(u);
    umap_tuner_free(t);
}

/* The cache's name is the library's choice, not the caller's: a FIFO
   planted there neither blocks the load nor the save (the save replaces
   it), a symlink there is replaced, not followed, and a name that is a
   directory says which. */
TEST(Tune, WhatIsPlantedAtTheCachePathIsNeitherFollowedNorWaitedOn) {
    TempDir dir;
    std::string fifo = dir / "fifo.txt", link = dir / "link.txt", victim = dir / "victim";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    {
        FILE *f = fopen(victim.c_str(), "w");
        ASSERT_NE(f, nullptr);
        fputs("precious", f);
        fclose(f);
    }
    ASSERT_EQ(symlink(victim.c_str(), link.c_str()), 0);
    umap_tuner *t = nullptr;
    Log log;
    umap_logger lg = log.logger();
    char why[700];
    ASSERT_EQ(umap_tuner_create(nullptr, &lg, &t), UMAP_OK);
    ASSERT_EQ(umap_tuner_set(t, "cpu X", "k", "v"), UMAP_OK);
    umap_result r = UMAP_ERR_GRAPH;
    EXPECT_TRUE(ut::returns_within(10, [&] { r = umap_tuner_load(t, fifo.c_str()); }, {fifo})) << "the load waited on a FIFO";
    EXPECT_EQ(r, UMAP_OK);
    ASSERT_FALSE(log.warnings.empty());
    EXPECT_NE(log.warnings.back().find("not a regular file"), std::string::npos) << log.warnings.back();
    EXPECT_TRUE(ut::returns_within(10, [&] { r = umap_tuner_save(t, fifo.c_str(), why, sizeof why); }, {fifo}))
        << "the save wrote into a FIFO";
    EXPECT_EQ(r, UMAP_OK) << why;
    struct stat st;
    ASSERT_EQ(lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISREG(st.st_mode)) << "the FIFO was replaced by the cache";
    ASSERT_EQ(umap_tuner_save(t, link.c_str(), why, sizeof why), UMAP_OK) << why;
    EXPECT_EQ(read_all(victim), "precious") << "the save wrote through a planted symlink";
    ASSERT_EQ(lstat(link.c_str(), &st), 0);
    EXPECT_TRUE(S_ISREG(st.st_mode));
    /* UMAP_TUNE=dir/: the message names it (it said "(null)") */
    std::string slash = dir / "";
    EXPECT_NE(umap_tuner_save(t, slash.c_str(), why, sizeof why), UMAP_OK);
    EXPECT_EQ(std::string(why).compare(0, slash.size(), slash), 0) << why;
    umap_tuner_free(t);
}
