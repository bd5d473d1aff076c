// The `umap` program end to end: fit / transform / knn / eval on files it
// reads and writes, and the exit status and message of each kind of failure.
//
// The program is run as a child process (build/umap by default; the UMAP_CLI
// environment variable names another). `make test` builds it first, so a
// missing binary is a failure, not a skip. umap_io.h's implementation lives
// in test_cli_io.cc; this file reads the program's outputs with it.
#include "test_util.h"
#include "cli/umap_io.h"
#define UMAP_DIGITS_IMPLEMENTATION /* only here: the drawn digits of `fit --synthetic` */
#include "cli/umap_digits.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

std::string cli_path() {
    const char *p = getenv("UMAP_CLI");
    return p && *p ? p : "build/umap";
}

// A scratch directory, removed with everything in it.
class Dir {
  public:
    Dir() {
        char tmpl[] = "/tmp/umap_cli_test_XXXXXX";
        const char *d = mkdtemp(tmpl);
        dir_ = d ? d : "";
    }
    ~Dir() {
        if (!dir_.empty()) {
            std::string cmd = "rm -rf '" + dir_ + "'";
            if (system(cmd.c_str()) != 0) fprintf(stderr, "could not remove %s\n", dir_.c_str());
        }
    }
    std::string operator/(const std::string &name) const { return dir_ + "/" + name; }
    bool ok() const { return !dir_.empty(); }

  private:
    std::string dir_;
};

struct CliRun {
    int status = -1; // the exit status, or -1 when it did not exit normally
    std::string out, err;
};

// Runs `umap ARGS` with stdout and stderr captured; env: VAR=value ... before it.
CliRun umap_run(const Dir &dir, const std::string &args, const std::string &env = "") {
    CliRun r;
    std::string cmd = env + " '" + cli_path() + "' " + args + " > '" + (dir / "stdout") + "' 2> '" + (dir / "stderr") + "'";
    int st = system(cmd.c_str());
    if (st != -1 && WIFEXITED(st)) r.status = WEXITSTATUS(st);
    r.out = ut::read_file(dir / "stdout");
    r.err = ut::read_file(dir / "stderr");
    return r;
}

// `umap eval` of dir/EMBEDDING against dir/x.csv with dir/y.csv's labels
// (k 10): its 10-NN accuracy, or -1 (with a test failure) when eval fails.
double eval_accuracy(const Dir &dir, const std::string &embedding, std::string *out = nullptr) {
    CliRun ev = umap_run(dir, "eval --input '" + (dir / "x.csv") + "' --embedding '" + (dir / embedding) +
                                  "' --labels '" + (dir / "y.csv") + "' --k 10");
    double acc = -1;
    size_t at = ev.out.find("10-NN accuracy");
    EXPECT_EQ(ev.status, 0) << ev.err;
    EXPECT_NE(at, std::string::npos) << ev.out;
    if (at != std::string::npos) {
        EXPECT_EQ(sscanf(ev.out.c_str() + at, "10-NN accuracy %lf", &acc), 1) << ev.out;
    }
    if (out) *out = ev.out;
    return acc;
}

// 4 Gaussian blobs in d dimensions as a CSV with a header, and the labels.
void write_blobs(const std::string &csv, const std::string &labels_csv, int64_t n, int64_t d,
                 std::vector<float> *x_out) {
    umap_rng rng;
    umap_rng_init(&rng, 7, 0);
    std::vector<float> x((size_t)(n * d));
    FILE *f = fopen(csv.c_str(), "w");
    FILE *l = fopen(labels_csv.c_str(), "w");
    ASSERT_TRUE(f && l);
    for (int64_t j = 0; j < d; j++) fprintf(f, "%sf%lld", j ? "," : "", (long long)j);
    fprintf(f, "\n");
    fprintf(l, "label\n");
    for (int64_t i = 0; i < n; i++) {
        int c = (int)(i % 4);
        for (int64_t j = 0; j < d; j++) {
            float v = (j % 4 == c ? 6.0f : 0.0f) + umap_rng_normal(&rng);
            x[(size_t)(i * d + j)] = v;
            fprintf(f, "%s%.9g", j ? "," : "", v);
        }
        fprintf(f, "\n");
        fprintf(l, "%d\n", c);
    }
    fclose(f);
    fclose(l);
    *x_out = x;
}

umap_io_matrix read_matrix(const std::string &path, int64_t raw_dim = 0) {
    umap_io_matrix m;
    char err[512];
    if (umap_io_read_matrix(path.c_str(), raw_dim, &m, err, sizeof err) != UMAP_IO_OK) {
        ADD_FAILURE() << err;
        memset(&m, 0, sizeof m);
    }
    return m;
}

bool same_bits(const umap_io_matrix &a, const umap_io_matrix &b) {
    return a.rows == b.rows && a.cols == b.cols && a.data && b.data &&
           memcmp(a.data, b.data, (size_t)(a.rows * a.cols) * sizeof(float)) == 0;
}

// Every name in the scratch directory but . and .. and the captured streams, sorted.
std::vector<std::string> listing(const Dir &dir) {
    std::vector<std::string> names;
    DIR *d = opendir((dir / ".").c_str());
    if (!d) return names;
    while (struct dirent *e = readdir(d)) {
        std::string name = e->d_name;
        if (name != "." && name != ".." && name != "stdout" && name != "stderr") names.push_back(name);
    }
    closedir(d);
    std::sort(names.begin(), names.end());
    return names;
}

void spit(const std::string &path, const std::string &bytes) {
    FILE *f = fopen(path.c_str(), "wb");
    ASSERT_TRUE(f != nullptr) << path;
    fwrite(bytes.data(), 1, bytes.size(), f);
    fclose(f);
}

// The unit of `ulimit -f` in /bin/sh (512 bytes in dash and POSIX mode, 1024
// in bash otherwise): a capped shell writes as much as the limit allows.
long ulimit_block(const Dir &dir) {
    std::string f = dir / "ulimit_probe";
    std::string cmd = "sh -c \"trap '' XFSZ; ulimit -f 2; head -c 8192 /dev/zero > '" + f + "'\" 2>/dev/null";
    if (system(cmd.c_str()) == -1) return 512;
    struct stat st;
    long block = stat(f.c_str(), &st) == 0 && st.st_size > 0 ? (long)st.st_size / 2 : 512;
    remove(f.c_str());
    return block;
}

class Cli : public ::testing::Test {
  protected:
    void SetUp() override {
        struct stat st;
        ASSERT_EQ(stat(cli_path().c_str(), &st), 0)
            << cli_path() << " is missing: `make test` builds it (or set UMAP_CLI)";
        ASSERT_TRUE(dir.ok());
        write_blobs(dir / "x.csv", dir / "y.csv", n, d, &x);
    }
    Dir dir;
    const int64_t n = 400, d = 8;
    std::vector<float> x;
};

} // namespace

TEST_F(Cli, FitWritesEverythingAndTransformReproducesTheEmbedding) {
    /* refine 0: the embedding is the encoder's output, so transform of the
       training rows by a model that keeps none must give it back bit for
       bit, through either format */
    const std::string common = "--input '" + (dir / "x.csv") + "' --labels '" + (dir / "y.csv") +
                               "' --k 10 --epochs 3 --refine-epochs 0 --seed 5 --threads 2 --keep-none";
    CliRun fit = umap_run(dir, "fit " + common + " --save '" + (dir / "m.safetensors") + "' --embedding '" +
                                (dir / "e.f32") + "' --svg '" + (dir / "p.svg") + "'");
    ASSERT_EQ(fit.status, 0) << fit.err;
    EXPECT_NE(fit.out.find("trustworthiness@15"), std::string::npos) << fit.out; /* labels -> quality line */
    EXPECT_NE(fit.out.find("400 rows x 8 features -> 2 dimensions"), std::string::npos) << fit.out;
    EXPECT_NE(fit.err.find("train"), std::string::npos) << "progress lines on stderr: " << fit.err;
    std::string svg = ut::read_file(dir / "p.svg");
    EXPECT_NE(svg.find("<svg"), std::string::npos);
    EXPECT_NE(svg.find("</svg>"), std::string::npos);
    EXPECT_GE(std::count(svg.begin(), svg.end(), '\n'), 400) << "one mark per point";

    umap_io_matrix e = read_matrix(dir / "e.f32", 2);
    ASSERT_EQ(e.rows, n);
    for (int64_t i = 0; i < 2 * n; i++) ASSERT_TRUE(std::isfinite(e.data[i]));

    CliRun tr = umap_run(dir, "transform --model '" + (dir / "m.safetensors") + "' --input '" + (dir / "x.csv") +
                               "' --output '" + (dir / "t.npy") + "' --quiet");
    ASSERT_EQ(tr.status, 0) << tr.err;
    EXPECT_EQ(tr.out, "");
    EXPECT_EQ(tr.err, "");
    umap_io_matrix t = read_matrix(dir / "t.npy");
    EXPECT_TRUE(same_bits(e, t)) << "transform(training rows) differs from the embedding";

    /* the same fit saved as GGUF transforms to the same bits (CSV output
       round-trips floats exactly) */
    CliRun fit2 = umap_run(dir, "fit " + common + " --save '" + (dir / "m.gguf") + "' --quiet");
    ASSERT_EQ(fit2.status, 0) << fit2.err;
    EXPECT_EQ(fit2.out, "");
    EXPECT_EQ(fit2.err, "");
    CliRun tr2 = umap_run(dir, "transform --model '" + (dir / "m.gguf") + "' --input '" + (dir / "x.csv") +
                                "' --output '" + (dir / "t.csv") + "' --quiet");
    ASSERT_EQ(tr2.status, 0) << tr2.err;
    umap_io_matrix t2 = read_matrix(dir / "t.csv");
    EXPECT_TRUE(same_bits(e, t2));

    /* eval of the written embedding: the blobs are separated */
    std::string ev_out;
    EXPECT_GE(eval_accuracy(dir, "t.npy", &ev_out), 0.95);
    EXPECT_NE(ev_out.find("trustworthiness"), std::string::npos);

    umap_io_matrix_free(&e);
    umap_io_matrix_free(&t);
    umap_io_matrix_free(&t2);
}

TEST_F(Cli, KnnMatchesBruteForce) {
    const int k = 5;
    CliRun r = umap_run(dir, "knn --input '" + (dir / "x.csv") + "' --k 5 --method exact --output '" +
                              (dir / "idx.npy") + "' --distances '" + (dir / "dist.npy") + "' --quiet");
    ASSERT_EQ(r.status, 0) << r.err;
    umap_io_matrix idx = read_matrix(dir / "idx.npy"), dist = read_matrix(dir / "dist.npy");
    ASSERT_EQ(idx.rows, n);
    ASSERT_EQ(idx.cols, k);
    ASSERT_EQ(dist.rows, n);
    for (int64_t i = 0; i < n; i++) {
        /* brute force in double, ties by index */
        std::vector<std::pair<double, int64_t>> all;
        for (int64_t j = 0; j < n; j++) {
            if (j == i) continue;
            double s = 0;
            for (int64_t c = 0; c < d; c++) {
                double t = (double)x[(size_t)(i * d + c)] - x[(size_t)(j * d + c)];
                s += t * t;
            }
            all.push_back({s, j});
        }
        std::partial_sort(all.begin(), all.begin() + k, all.end());
        for (int j = 0; j < k; j++) {
            ASSERT_EQ((int64_t)idx.data[i * k + j], all[(size_t)j].second) << "row " << i << " rank " << j;
            ASSERT_NEAR(dist.data[i * k + j], std::sqrt(all[(size_t)j].first), 1e-4);
        }
    }
    umap_io_matrix_free(&idx);
    umap_io_matrix_free(&dist);
}

TEST_F(Cli, FailuresSayWhatAndWhere) {
    const std::string in = " --input '" + (dir / "x.csv") + "'";
    /* usage errors: status 2, the offending option named */
    CliRun r = umap_run(dir, "fit" + in + " --k 1");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--k"), std::string::npos) << r.err;
    r = umap_run(dir, "fit" + in + " --bogus");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--bogus"), std::string::npos) << r.err;
    r = umap_run(dir, "fit");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--input"), std::string::npos) << r.err;
    r = umap_run(dir, "frobnicate");
    EXPECT_EQ(r.status, 2);
    r = umap_run(dir, "fit" + in + " --metric mahalanobis"); // umap-learn has it, this library does not
    EXPECT_EQ(r.status, 2);
    r = umap_run(dir, "fit" + in + " --hidden 10,x");
    EXPECT_EQ(r.status, 2);
    r = umap_run(dir, "fit" + in + " --device gpu");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--device"), std::string::npos) << r.err;
    r = umap_run(dir, "knn" + in + " --k 3 --device vulkan --method nndescent --output '" + (dir / "i.npy") + "'");
    EXPECT_EQ(r.status, 2) << "NN-Descent does not run on the GPU";

    /* a missing file: status 1, the file named */
    r = umap_run(dir, "fit --input '" + (dir / "nope.npy") + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("nope.npy"), std::string::npos) << r.err;

    /* a ragged CSV: the file and the line */
    {
        FILE *f = fopen((dir / "bad.csv").c_str(), "w");
        ASSERT_TRUE(f);
        fputs("a,b,c\n1,2,3\n4,5\n", f);
        fclose(f);
    }
    r = umap_run(dir, "fit --input '" + (dir / "bad.csv") + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("bad.csv:3"), std::string::npos) << r.err;

    /* NaN in the data: refused by the library, the row named */
    {
        std::string s = ut::read_file(dir / "x.csv");
        size_t line3 = s.find('\n', s.find('\n', s.find('\n') + 1) + 1) + 1; /* data row 2 */
        s.replace(line3, s.find(',', line3) - line3, "nan");
        FILE *f = fopen((dir / "nan.csv").c_str(), "w");
        ASSERT_TRUE(f);
        fputs(s.c_str(), f);
        fclose(f);
    }
    r = umap_run(dir, "fit --input '" + (dir / "nan.csv") + "' --quiet");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("row 2"), std::string::npos) << r.err;

    /* k >= n */
    r = umap_run(dir, "knn" + in + " --k 400 --output '" + (dir / "i.npy") + "' --quiet");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_FALSE(std::ifstream((dir / "i.npy").c_str()).good()) << "no output written on failure";

    /* transform with a model of another width; a truncated model */
    r = umap_run(dir, "fit" + in + " --epochs 1 --refine-epochs 0 --save '" + (dir / "m.gguf") + "' --quiet");
    ASSERT_EQ(r.status, 0) << r.err;
    {
        FILE *f = fopen((dir / "narrow.csv").c_str(), "w");
        ASSERT_TRUE(f);
        fputs("1,2,3\n4,5,6\n", f);
        fclose(f);
    }
    r = umap_run(dir, "transform --model '" + (dir / "m.gguf") + "' --input '" + (dir / "narrow.csv") +
                          "' --output '" + (dir / "o.npy") + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("8"), std::string::npos) << "names the expected width: " << r.err;
    {
        std::string m = ut::read_file(dir / "m.gguf");
        FILE *f = fopen((dir / "cut.gguf").c_str(), "wb");
        ASSERT_TRUE(f);
        fwrite(m.data(), 1, m.size() / 2, f);
        fclose(f);
    }
    r = umap_run(dir, "transform --model '" + (dir / "cut.gguf") + "' --input '" + (dir / "x.csv") +
                          "' --output '" + (dir / "o.npy") + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("cut.gguf"), std::string::npos) << r.err;

    /* eval with an embedding of the wrong length */
    r = umap_run(dir, "eval" + in + " --embedding '" + (dir / "narrow.csv") + "'");
    EXPECT_EQ(r.status, 1);
}

/* Bad outputs are refused before the data is read: nothing read, nothing
   fitted (no progress line), nothing written, the input untouched. */
TEST_F(Cli, OutputsThatCannotWorkAreRefusedBeforeAnyWork) {
    const std::string in = " --input '" + (dir / "x.csv") + "'";
    const std::string data = ut::read_file(dir / "x.csv");
    ASSERT_EQ(mkdir((dir / "sub").c_str(), 0755), 0);
    ASSERT_EQ(mkdir((dir / "out.npy").c_str(), 0755), 0);
    ASSERT_EQ(symlink((dir / "x.csv").c_str(), (dir / "alias.csv").c_str()), 0);
    spit(dir / "h.npy", "old");
    ASSERT_EQ(link((dir / "h.npy").c_str(), (dir / "h2.npy").c_str()), 0);
    struct Case {
        std::string args;
        int status;
        std::string says;
    };
    const std::vector<Case> cases = {
        /* outputs that coincide with an input or with each other */
        {"fit" + in + " --embedding '" + (dir / "x.csv") + "'", 2, "same file"},
        {"fit" + in + " --embedding '" + (dir / "sub/../x.csv") + "'", 2, "same file"},
        {"fit" + in + " --embedding '" + (dir / "alias.csv") + "'", 2, "same file"},
        {"fit" + in + " --labels '" + (dir / "y.csv") + "' --embedding '" + (dir / "y.csv") + "'", 2, "same file"},
        {"knn" + in + " --k 3 --output '" + (dir / "i.npy") + "' --distances '" + (dir / "sub/../i.npy") + "'", 2,
         "same file"},
        {"knn" + in + " --k 3 --output '" + (dir / "h.npy") + "' --distances '" + (dir / "h2.npy") + "'", 2,
         "same file"}, /* hard links */
        {"knn" + in + " --k 3 --output '" + (dir / "i.npy") + "' --distances '" + (dir / "./i.npy") + "'", 2,
         "same file"},
        {"transform --model '" + (dir / "x.csv") + "'" + in + " --output '" + (dir / "x.csv") + "'", 2, "same file"},
        /* wrong extensions: found now, not after the fit */
        {"fit" + in + " --save '" + (dir / "m.bin") + "'", 2, ".safetensors or .gguf"},
        {"fit" + in + " --save '" + (dir / "m.gguf") + "' --svg '" + (dir / "m.gguf") + "'", 2, ".svg"},
        {"fit" + in + " --svg '" + (dir / "p.png") + "'", 2, ".svg"},
        {"fit" + in + " --embedding '" + (dir / "e.txt") + "'", 2, "extension"},
        {"knn" + in + " --k 3 --output '" + (dir / "i.f32") + "'", 2, ".f32"},
        /* a plot of one component */
        {"fit" + in + " --n-components 1 --svg '" + (dir / "p.svg") + "'", 2, "two components"},
        /* directories: missing, or the output itself is one */
        {"fit" + in + " --embedding '" + (dir / "nodir/e.npy") + "'", 1, strerror(ENOENT)},
        {"knn" + in + " --k 3 --output '" + (dir / "out.npy") + "'", 1, "is a directory"},
        {"fit --input '" + (dir / "sub") + "'", 1, "is a directory"},
    };
    for (const Case &c : cases) {
        CliRun r = umap_run(dir, c.args);
        EXPECT_EQ(r.status, c.status) << c.args << "\n" << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << "\n" << r.err;
        EXPECT_EQ(r.err.find("umap: fit x.csv"), std::string::npos) << "started the fit: " << r.err;
        EXPECT_EQ(r.err.find("knn 0"), std::string::npos) << "started the work: " << r.err;
        EXPECT_TRUE(ut::read_file(dir / "x.csv") == data) << c.args;
    }
    EXPECT_EQ(listing(dir), (std::vector<std::string>{"alias.csv", "h.npy", "h2.npy", "out.npy", "sub", "x.csv", "y.csv"}))
        << "nothing written, no temporaries";
    EXPECT_EQ(ut::read_file(dir / "h.npy"), "old");
}

TEST_F(Cli, TransformRefusesAPlotOfOneComponentBeforeReadingTheData) {
    const std::string in = " --input '" + (dir / "x.csv") + "'";
    CliRun r = umap_run(dir, "fit" + in + " --n-components 1 --epochs 1 --refine-epochs 0 --quiet --save '" +
                                 (dir / "m1.gguf") + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    spit(dir / "p.svg", "old plot");
    r = umap_run(dir, "transform --model '" + (dir / "m1.gguf") + "' --input '" + (dir / "missing.csv") +
                          "' --output '" + (dir / "o.npy") + "' --svg '" + (dir / "p.svg") + "'");
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("two components"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("missing.csv"), std::string::npos) << "read the data first: " << r.err;
    EXPECT_EQ(ut::read_file(dir / "p.svg"), "old plot");
    EXPECT_EQ(listing(dir), (std::vector<std::string>{"m1.gguf", "p.svg", "x.csv", "y.csv"}));
}

TEST_F(Cli, UnwritableOutputDirectoryIsRefusedWithTheReason) {
    /* root ignores directory permissions: then a place root cannot create
       files in (sysfs, procfs), if this machine has one */
    std::string where;
    if (geteuid() != 0) {
        where = dir / "ro";
        ASSERT_EQ(mkdir(where.c_str(), 0555), 0);
    } else {
        for (const char *c : {"/sys", "/proc"}) {
            std::string probe = std::string(c) + "/umap_probe";
            FILE *f = fopen(probe.c_str(), "wbx");
            if (f) {
                fclose(f);
                remove(probe.c_str());
                continue;
            }
            where = c;
            break;
        }
        if (where.empty()) GTEST_SKIP() << "running as root with no directory root cannot write";
    }
    FILE *f = fopen((where + "/umap_probe2").c_str(), "wbx");
    ASSERT_TRUE(f == nullptr);
    const std::string reason = strerror(errno);
    CliRun r = umap_run(dir, "fit --input '" + (dir / "x.csv") + "' --embedding '" + (dir / "e.npy") + "' --save '" +
                                 where + "/m.gguf'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find(reason), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--save"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("umap: fit x.csv"), std::string::npos) << "started the fit: " << r.err;
}

/* A run that fails after some outputs were written leaves every existing
   target byte for byte, and no temporary behind. */
TEST_F(Cli, FailedRunLeavesEveryExistingOutputUntouched) {
    const std::string in = " --input '" + (dir / "x.csv") + "'";
    const long block = ulimit_block(dir);
    spit(dir / "e.npy", "old embedding");
    spit(dir / "m.gguf", "old model");
    spit(dir / "p.svg", "old plot");
    /* the embedding (3 KiB) fits under the limit, the model does not: the
       embedding was written first and must not be committed either */
    long blocks = 16384 / block;
    CliRun r = umap_run(dir, "fit" + in + " --epochs 1 --refine-epochs 0 --quiet --embedding '" + (dir / "e.npy") +
                                 "' --save '" + (dir / "m.gguf") + "' --svg '" + (dir / "p.svg") + "'",
                        "ulimit -f " + std::to_string(blocks) + ";");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find(strerror(EFBIG)), std::string::npos) << "the OS's reason: " << r.err;
    EXPECT_NE(r.err.find("m.gguf"), std::string::npos) << r.err;
    EXPECT_EQ(ut::read_file(dir / "e.npy"), "old embedding");
    EXPECT_EQ(ut::read_file(dir / "m.gguf"), "old model");
    EXPECT_EQ(ut::read_file(dir / "p.svg"), "old plot");
    EXPECT_EQ(listing(dir), (std::vector<std::string>{"e.npy", "m.gguf", "p.svg", "x.csv", "y.csv"}));

    /* the fit itself fails (NaN in the data): outputs valid, none touched */
    {
        std::string s = ut::read_file(dir / "x.csv");
        size_t line2 = s.find('\n') + 1;
        s.replace(line2, s.find(',', line2) - line2, "nan");
        spit(dir / "nan.csv", s);
    }
    r = umap_run(dir, "fit --input '" + (dir / "nan.csv") + "' --quiet --embedding '" + (dir / "e.npy") +
                          "' --svg '" + (dir / "p.svg") + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(ut::read_file(dir / "e.npy"), "old embedding");
    EXPECT_EQ(ut::read_file(dir / "p.svg"), "old plot");

    /* knn: the indices (.npy) fit, the distances (.csv, several times
       larger) do not: neither is replaced */
    spit(dir / "i.npy", "old indices");
    spit(dir / "d.csv", "old distances");
    CliRun ok = umap_run(dir, "knn" + in + " --k 10 --quiet --output '" + (dir / "i2.npy") + "'");
    ASSERT_EQ(ok.status, 0) << ok.err;
    struct stat st;
    ASSERT_EQ(stat((dir / "i2.npy").c_str(), &st), 0);
    remove((dir / "i2.npy").c_str());
    blocks = (long)st.st_size / block + 2;
    r = umap_run(dir, "knn" + in + " --k 10 --quiet --output '" + (dir / "i.npy") + "' --distances '" +
                          (dir / "d.csv") + "'",
                 "ulimit -f " + std::to_string(blocks) + ";");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find(strerror(EFBIG)), std::string::npos) << r.err;
    EXPECT_EQ(ut::read_file(dir / "i.npy"), "old indices");
    EXPECT_EQ(ut::read_file(dir / "d.csv"), "old distances");
    EXPECT_EQ(listing(dir),
              (std::vector<std::string>{"d.csv", "e.npy", "i.npy", "m.gguf", "nan.csv", "p.svg", "x.csv", "y.csv"}));
}

TEST_F(Cli, PlantedSymlinkBesideAnOutputIsNeitherFollowedNorDestroyed) {
    spit(dir / "victim", "precious");
    for (const char *name : {"m.gguf.tmp", "e.npy.tmp", "p.svg.tmp"})
        ASSERT_EQ(symlink((dir / "victim").c_str(), (dir / name).c_str()), 0);
    CliRun r = umap_run(dir, "fit --input '" + (dir / "x.csv") + "' --epochs 1 --refine-epochs 0 --quiet --save '" +
                                 (dir / "m.gguf") + "' --embedding '" + (dir / "e.npy") + "' --svg '" +
                                 (dir / "p.svg") + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(ut::read_file(dir / "victim"), "precious");
    for (const char *name : {"m.gguf.tmp", "e.npy.tmp", "p.svg.tmp"}) {
        char link[4096];
        ssize_t n = readlink((dir / name).c_str(), link, sizeof link);
        ASSERT_GT(n, 0) << name << " was removed";
        EXPECT_EQ(std::string(link, (size_t)n), dir / "victim");
    }
    EXPECT_EQ(listing(dir), (std::vector<std::string>{"e.npy", "e.npy.tmp", "m.gguf", "m.gguf.tmp", "p.svg",
                                                      "p.svg.tmp", "victim", "x.csv", "y.csv"}));
}

TEST_F(Cli, NewOutputsGetTheUmasksPermissions) {
    const std::string in = " --input '" + (dir / "x.csv") + "'";
    CliRun r = umap_run(dir, "knn" + in + " --k 3 --quiet --output '" + (dir / "a.npy") + "'", "umask 027;");
    ASSERT_EQ(r.status, 0) << r.err;
    r = umap_run(dir, "knn" + in + " --k 3 --quiet --output '" + (dir / "b.npy") + "'", "umask 022;");
    ASSERT_EQ(r.status, 0) << r.err;
    struct stat st;
    ASSERT_EQ(stat((dir / "a.npy").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0640u);
    ASSERT_EQ(stat((dir / "b.npy").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0644u);
}

/* a fit that worked exits 0 when only the optional summary cannot be had */
TEST_F(Cli, TinyFitWithLabelsSucceedsWithANote) {
    FILE *f = fopen((dir / "tiny.csv").c_str(), "w"), *l = fopen((dir / "tiny_y.csv").c_str(), "w");
    ASSERT_TRUE(f && l);
    for (int i = 0; i < 20; i++) {
        fprintf(f, "%d,%d,%g\n", i % 2, i % 3, 0.1 * i);
        fprintf(l, "%d\n", i % 2);
    }
    fclose(f);
    fclose(l);
    CliRun r = umap_run(dir, "fit --input '" + (dir / "tiny.csv") + "' --labels '" + (dir / "tiny_y.csv") +
                                 "' --k 5 --epochs 2 --embedding '" + (dir / "e.npy") + "'");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("no quality summary"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("too few"), std::string::npos) << "says why: " << r.err;
    EXPECT_NE(r.out.find("fit: 20 rows"), std::string::npos) << r.out;
    umap_io_matrix e = read_matrix(dir / "e.npy");
    EXPECT_EQ(e.rows, 20);
    umap_io_matrix_free(&e);
    /* eval on the same: an error, with what and why */
    r = umap_run(dir, "eval --input '" + (dir / "tiny.csv") + "' --embedding '" + (dir / "e.npy") + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("quality evaluation of"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("too few"), std::string::npos) << r.err;
}

TEST_F(Cli, MessagesCarryTheOsReason) {
    CliRun r = umap_run(dir, "fit --input '" + (dir / "missing.csv") + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find(strerror(ENOENT)), std::string::npos) << r.err;
    r = umap_run(dir, "transform --model '" + (dir / "missing.gguf") + "' --input '" + (dir / "x.csv") +
                          "' --output '" + (dir / "o.npy") + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find(strerror(ENOENT)), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("missing.gguf"), std::string::npos) << r.err;
    ASSERT_EQ(mkdir((dir / "m.gguf").c_str(), 0755), 0);
    r = umap_run(dir, "transform --model '" + (dir / "m.gguf") + "' --input '" + (dir / "x.csv") + "' --output '" +
                          (dir / "o.npy") + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
    /* no message repeats its result string as its detail */
    EXPECT_EQ(r.err.find("out of memory: out of memory"), std::string::npos) << r.err;
}

/* a CPU driver counts as a device here; Mesa's drivers keep a few small
   allocations past vkDestroyInstance, which the sanitized program would
   report as leaks (the Vulkan suite counts the library's own allocations) */
static const char *const kVulkanEnv = "UMAP_VK_ALLOW_CPU=1 ASAN_OPTIONS=detect_leaks=0";

TEST_F(Cli, DeviceChoiceAndFallback) {
    const std::string in = " --input '" + (dir / "x.csv") + "'";
    const std::string no_driver = "VK_ICD_FILENAMES=/nonexistent/icd.json VK_DRIVER_FILES=/nonexistent/icd.json";
    CliRun cpu = umap_run(dir, "knn" + in + " --k 6 --method exact --output '" + (dir / "cpu.npy") + "' --distances '" +
                                   (dir / "cpu_d.npy") + "' --quiet");
    ASSERT_EQ(cpu.status, 0) << cpu.err;
    /* vulkan without a driver: exit 1 and why; auto: the CPU, with a note */
    CliRun r = umap_run(dir, "knn" + in + " --k 6 --device vulkan --output '" + (dir / "v.npy") + "'", no_driver);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("--device vulkan"), std::string::npos) << r.err;
    r = umap_run(dir, "knn" + in + " --k 6 --device auto --method exact --output '" + (dir / "auto.npy") + "'", no_driver);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("the CPU it is"), std::string::npos) << r.err;
    EXPECT_EQ(ut::read_file(dir / "auto.npy"), ut::read_file(dir / "cpu.npy"));
    r = umap_run(dir, "devices", no_driver);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("devices"), std::string::npos) << r.err;
#ifdef UMAP_VULKAN
    r = umap_run(dir, "devices --calibrate", kVulkanEnv);
    if (r.status != 0 && !getenv("UMAP_TEST_REQUIRE_VULKAN")) GTEST_SKIP() << "no Vulkan device: " << r.err;
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("0  "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("GFLOP/s"), std::string::npos) << r.out;
    /* with a device (a CPU driver is allowed here): the same bytes as the CPU's exact search */
    r = umap_run(dir, "knn" + in + " --k 6 --device vulkan --output '" + (dir / "gpu.npy") + "' --distances '" +
                          (dir / "gpu_d.npy") + "'",
                 kVulkanEnv);
    if (r.status != 0 && !getenv("UMAP_TEST_REQUIRE_VULKAN")) GTEST_SKIP() << "no Vulkan device: " << r.err;
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("on the GPU"), std::string::npos) << r.out;
    EXPECT_EQ(ut::read_file(dir / "gpu.npy"), ut::read_file(dir / "cpu.npy"));
    EXPECT_EQ(ut::read_file(dir / "gpu_d.npy"), ut::read_file(dir / "cpu_d.npy"));
    /* fit with the k-NN and the training on the GPU: the blobs come apart as on the CPU */
    r = umap_run(dir, "fit" + in + " --labels '" + (dir / "y.csv") + "' --k 8 --epochs 4 --hidden 16,16 --seed 4 " +
                          "--device vulkan --embedding '" + (dir / "fg.npy") + "'",
                 kVulkanEnv);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("on the GPU"), std::string::npos) << r.out;
    double acc = -1;
    size_t at = r.out.find("10-NN accuracy");
    ASSERT_NE(at, std::string::npos) << r.out;
    ASSERT_EQ(sscanf(r.out.c_str() + at, "10-NN accuracy %lf", &acc), 1);
    EXPECT_GE(acc, 0.95) << r.out;
#endif
}

// --input-dims sets the encoder's fixed projection, kept in the model: the
// blobs have 8 columns, so 3 projects them and 0 (or 8 and more) does not.
TEST_F(Cli, InputDimsSetsTheProjection) {
    for (int p : {3, 0, 8}) {
        std::string model = dir / ("m" + std::to_string(p) + ".safetensors");
        CliRun r = umap_run(dir, "fit --input '" + (dir / "x.csv") + "' --save '" + model + "' --input-dims " +
                                     std::to_string(p) + " --epochs 1 --refine-epochs 5 --threads 1 --quiet");
        ASSERT_EQ(r.status, 0) << r.err;
        umap_model *m = nullptr;
        char detail[256] = "";
        ASSERT_EQ(umap_load(model.c_str(), &m, detail, sizeof detail), UMAP_OK) << detail;
        EXPECT_EQ(umap_model_config(m)->input_dims, p < 8 ? p : 0) << p;
        umap_model_free(m);
    }
    CliRun bad = umap_run(dir, "fit --input '" + (dir / "x.csv") + "' --embedding '" + (dir / "e.csv") + "' --input-dims -1");
    EXPECT_EQ(bad.status, 2) << bad.err;
}

// fit --keep-data keeps the training rows in the model, and transform then
// places new rows among them by default; --encoder-only gives the encoder's
// output, the same bits as a model fitted with --keep-none (keeping the
// data changes nothing in the fit).
TEST_F(Cli, KeepDataTransformsAmongTheTrainingRows) {
    const std::string common =
        "--input '" + (dir / "x.csv") + "' --k 10 --epochs 2 --refine-epochs 20 --seed 3 --threads 2 --quiet";
    ASSERT_EQ(umap_run(dir, "fit " + common + " --keep-data --save '" + (dir / "kept.gguf") + "'").status, 0);
    ASSERT_EQ(umap_run(dir, "fit " + common + " --keep-none --save '" + (dir / "plain.safetensors") + "'").status, 0);
    auto tr = [&](const std::string &model, const std::string &out, const std::string &extra) {
        return umap_run(dir, "transform --model '" + (dir / model) + "' --input '" + (dir / "x.csv") + "' --output '" +
                                 (dir / out) + "' --threads 2" + extra);
    };
    CliRun nb = tr("kept.gguf", "nb.npy", "");
    ASSERT_EQ(nb.status, 0) << nb.err;
    EXPECT_NE(nb.out.find("among the nearest training rows"), std::string::npos) << nb.out;
    CliRun enc = tr("kept.gguf", "enc.npy", " --encoder-only");
    ASSERT_EQ(enc.status, 0) << enc.err;
    EXPECT_NE(enc.out.find("the encoder"), std::string::npos) << enc.out;
    CliRun plain = tr("plain.safetensors", "plain.npy", " --quiet");
    ASSERT_EQ(plain.status, 0) << plain.err;
    CliRun few = tr("kept.gguf", "few.npy", " --transform-epochs 3 --quiet");
    ASSERT_EQ(few.status, 0) << few.err;
    CliRun exact = tr("kept.gguf", "exact.npy", " --exact-neighbors --quiet");
    ASSERT_EQ(exact.status, 0) << exact.err;
    umap_io_matrix a = read_matrix(dir / "nb.npy"), b = read_matrix(dir / "enc.npy"), c = read_matrix(dir / "plain.npy"),
                   f = read_matrix(dir / "few.npy"), e = read_matrix(dir / "exact.npy");
    EXPECT_TRUE(same_bits(b, c)) << "--encoder-only on a model with kept data is the encoder";
    EXPECT_FALSE(same_bits(a, b));
    EXPECT_FALSE(same_bits(a, f)) << "--transform-epochs changes the placement";
    /* the walk along the kept graph finds these blobs' neighbours exactly
       for nearly every row (where it does, the row gets the same place) */
    int64_t same_rows = 0;
    ASSERT_TRUE(a.rows == e.rows && a.cols == e.cols && a.data && e.data);
    for (int64_t i = 0; i < a.rows; i++)
        same_rows += memcmp(a.data + i * a.cols, e.data + i * e.cols, (size_t)a.cols * sizeof(float)) == 0;
    EXPECT_GE(same_rows, a.rows * 95 / 100) << "--exact-neighbors: the same neighbours, the same places"; /* 396 of 400 */
    umap_io_matrix_free(&e);
    umap_io_matrix_free(&a);
    umap_io_matrix_free(&b);
    umap_io_matrix_free(&c);
    umap_io_matrix_free(&f);
    /* the placed training rows keep the blobs apart */
    EXPECT_GE(eval_accuracy(dir, "nb.npy"), 0.95);
    /* options that cannot apply: usage errors, before any output */
    CliRun both = tr("kept.gguf", "x1.npy", " --encoder-only --transform-epochs 5");
    EXPECT_EQ(both.status, 2) << both.err;
    CliRun no_data = tr("plain.safetensors", "x2.npy", " --transform-epochs 5");
    EXPECT_EQ(no_data.status, 2) << no_data.err;
    EXPECT_NE(no_data.err.find("--keep-data"), std::string::npos) << no_data.err;
    CliRun bad = tr("kept.gguf", "x3.npy", " --transform-epochs -1");
    EXPECT_EQ(bad.status, 2) << bad.err;
    CliRun enc_exact = tr("kept.gguf", "x4.npy", " --encoder-only --exact-neighbors");
    EXPECT_EQ(enc_exact.status, 2) << enc_exact.err;
    EXPECT_NE(enc_exact.err.find("--exact-neighbors"), std::string::npos) << enc_exact.err;
    CliRun exact_plain = tr("plain.safetensors", "x5.npy", " --exact-neighbors");
    EXPECT_EQ(exact_plain.status, 2) << exact_plain.err;
    struct stat st;
    for (const char *name : {"x1.npy", "x2.npy", "x3.npy", "x4.npy", "x5.npy"})
        EXPECT_NE(stat((dir / name).c_str(), &st), 0) << name;
    /* --help names the options */
    EXPECT_NE(umap_run(dir, "fit --help").out.find("--keep-data"), std::string::npos);
    CliRun help = umap_run(dir, "transform --help");
    EXPECT_NE(help.out.find("--encoder-only"), std::string::npos);
    EXPECT_NE(help.out.find("--transform-epochs"), std::string::npos);
}

// fit --keep-sketch keeps what the encoder's first layer sees of the rows
// (here 4 principal axes) instead of the rows: a smaller file, and
// transform places new rows among the training rows by it.
TEST_F(Cli, KeepSketchTransformsAmongTheTrainingRows) {
    const std::string common = "--input '" + (dir / "x.csv") +
                               "' --k 10 --epochs 2 --refine-epochs 20 --seed 3 --threads 2 --quiet --input-dims 4";
    ASSERT_EQ(umap_run(dir, "fit " + common + " --keep-sketch --save '" + (dir / "sketch.gguf") + "'").status, 0);
    /* rows wider than the sketch's UMAP_SKETCH_DIMS axes: the sketch's file
       is the smaller (narrower rows are their own sketch) */
    std::vector<float> wide;
    write_blobs(dir / "w.csv", dir / "wy.csv", n, 2 * UMAP_SKETCH_DIMS, &wide);
    const std::string wide_common = "--input '" + (dir / "w.csv") + "' --k 10 --epochs 2 --refine-epochs 20 --quiet";
    ASSERT_EQ(umap_run(dir, "fit " + wide_common + " --keep-sketch --save '" + (dir / "ws.gguf") + "'").status, 0);
    ASSERT_EQ(umap_run(dir, "fit " + wide_common + " --keep-data --save '" + (dir / "wr.gguf") + "'").status, 0);
    struct stat ss, sr;
    ASSERT_EQ(stat((dir / "ws.gguf").c_str(), &ss), 0);
    ASSERT_EQ(stat((dir / "wr.gguf").c_str(), &sr), 0);
    /* n x S floats of sketch and 2S x S of axes in place of n x 2S of rows */
    const double S = UMAP_SKETCH_DIMS;
    EXPECT_NEAR((double)sr.st_size - (double)ss.st_size, 4.0 * ((double)n * S - 2.0 * S * S), 256.0);
    CliRun nb = umap_run(dir, "transform --model '" + (dir / "sketch.gguf") + "' --input '" + (dir / "x.csv") +
                                  "' --output '" + (dir / "sk.npy") + "' --threads 2");
    ASSERT_EQ(nb.status, 0) << nb.err;
    EXPECT_NE(nb.out.find("among the nearest training rows, by their sketch"), std::string::npos) << nb.out;
    EXPECT_GE(eval_accuracy(dir, "sk.npy"), 0.95);
    /* the rows or their sketch; the sketch is euclidean */
    CliRun both = umap_run(dir, "fit " + common + " --keep-sketch --keep-data --save '" + (dir / "b.gguf") + "'");
    EXPECT_EQ(both.status, 2) << both.err;
    EXPECT_NE(both.err.find("--keep-sketch"), std::string::npos) << both.err;
    CliRun cosine = umap_run(dir, "fit " + common + " --keep-sketch --metric cosine --save '" + (dir / "c.gguf") + "'");
    EXPECT_NE(cosine.status, 0);
    EXPECT_NE(cosine.err.find("euclidean"), std::string::npos) << cosine.err;
    EXPECT_NE(stat((dir / "b.gguf").c_str(), &ss), 0);
    EXPECT_NE(stat((dir / "c.gguf").c_str(), &ss), 0);
}

/* ---------------------------------------------------------------- fit --init, the graph and loss knobs, a given k-NN */

namespace {

/* the model file's config */
umap_config saved_config(const std::string &path) {
    umap_model *m = nullptr;
    char detail[256] = "";
    umap_config c = umap_config_default();
    EXPECT_EQ(umap_load(path.c_str(), &m, detail, sizeof detail), UMAP_OK) << detail;
    if (m) c = *umap_model_config(m);
    umap_model_free(m);
    return c;
}

void write_f32(const std::string &path, const std::vector<float> &v, int64_t rows, int64_t cols) {
    char err[512];
    ASSERT_EQ(umap_io_write_matrix(path.c_str(), v.data(), rows, cols, nullptr, err, sizeof err), UMAP_IO_OK) << err;
}

void write_i32(const std::string &path, const std::vector<int32_t> &v, int64_t rows, int64_t cols) {
    char err[512];
    ASSERT_EQ(umap_io_write_i32(path.c_str(), v.data(), rows, cols, err, sizeof err), UMAP_IO_OK) << err;
}

} // namespace

TEST_F(Cli, FitInitKinds) {
    const std::string common = "fit --input '" + (dir / "x.csv") + "' --k 10 --epochs 2 --refine-epochs 5 --seed 3 --threads 2 --quiet";
    auto run = [&](const std::string &extra, const std::string &name) {
        return umap_run(dir, common + " --embedding '" + (dir / (name + ".npy")) + "' --save '" + (dir / (name + ".gguf")) + "'" + extra);
    };
    CliRun pca = run("", "pca"), rnd = run(" --init random", "rnd"), nopca = run(" --no-pca", "nopca");
    /* spectral: on the blobs (4 components, each laid out on its own) and on
       blobs closer together (one component) */
    CliRun sblobs = umap_run(dir, "fit --input '" + (dir / "x.csv") + "' --k 10 --epochs 2 --refine-epochs 5 --init spectral");
    ASSERT_EQ(sblobs.status, 0) << sblobs.err;
    EXPECT_NE(sblobs.out.find("(spectral, "), std::string::npos) << sblobs.out;
    EXPECT_EQ(sblobs.err.find("warning"), std::string::npos) << sblobs.err;
    {
        std::vector<float> near(x);
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < d; j++)
                if (j % 4 == i % 4) near[(size_t)(i * d + j)] -= 5.0f; /* centres 1.4 apart, noise 1 */
        write_f32(dir / "near.npy", near, n, d);
    }
    CliRun spec = umap_run(dir, "fit --input '" + (dir / "near.npy") + "' --k 10 --epochs 2 --refine-epochs 5 --seed 3 "
                                "--threads 2 --init spectral --embedding '" + (dir / "spec.npy") + "' --save '" +
                                (dir / "spec.gguf") + "'");
    ASSERT_EQ(spec.status, 0) << spec.err;
    EXPECT_NE(spec.out.find("(spectral, "), std::string::npos) << spec.out;
    EXPECT_EQ(spec.err.find("warning"), std::string::npos) << spec.err;
    CliRun pnear = umap_run(dir, "fit --input '" + (dir / "near.npy") + "' --k 10 --epochs 2 --refine-epochs 5 --seed 3 "
                                 "--threads 2 --quiet --embedding '" + (dir / "pnear.npy") + "'");
    ASSERT_EQ(pnear.status, 0) << pnear.err;
    umap_io_matrix s1 = read_matrix(dir / "spec.npy"), s2 = read_matrix(dir / "pnear.npy");
    EXPECT_FALSE(same_bits(s1, s2)) << "spectral starts elsewhere than pca";
    umap_io_matrix_free(&s1);
    umap_io_matrix_free(&s2);
    EXPECT_EQ(spec.err.find("warning"), std::string::npos) << spec.err;
    for (const CliRun *r : {&pca, &rnd, &nopca}) ASSERT_EQ(r->status, 0) << r->err;
    EXPECT_EQ(saved_config(dir / "pca.gguf").init, UMAP_INIT_PCA);
    EXPECT_EQ(saved_config(dir / "spec.gguf").init, UMAP_INIT_SPECTRAL);
    EXPECT_EQ(saved_config(dir / "rnd.gguf").init, UMAP_INIT_RANDOM);
    umap_io_matrix a = read_matrix(dir / "pca.npy"), b = read_matrix(dir / "spec.npy"), c = read_matrix(dir / "rnd.npy"),
                   d2 = read_matrix(dir / "nopca.npy");
    EXPECT_FALSE(same_bits(a, c));
    EXPECT_TRUE(same_bits(c, d2)) << "--no-pca is --init random";
    /* FILE: another run's embedding as the start */
    CliRun from = run(" --init '" + (dir / "spec.npy") + "'", "from");
    ASSERT_EQ(from.status, 0) << from.err;
    EXPECT_EQ(saved_config(dir / "from.gguf").init, UMAP_INIT_COORDS);
    umap_io_matrix e = read_matrix(dir / "from.npy");
    EXPECT_FALSE(same_bits(e, a));
    EXPECT_FALSE(same_bits(e, b));
    /* bad starts: clear errors */
    std::vector<float> wrong((size_t)(n * 3), 1.0f), nan_at((size_t)(n * 2), 1.0f);
    nan_at[2 * 5 + 1] = NAN;
    write_f32(dir / "wrong.npy", wrong, n, 3);
    write_f32(dir / "nan.npy", nan_at, n, 2);
    write_f32(dir / "short.f32", nan_at, n - 1, 2);
    CliRun w = run(" --init '" + (dir / "wrong.npy") + "'", "w");
    EXPECT_EQ(w.status, 1);
    EXPECT_NE(w.err.find("400 x 3 coordinates; the data has 400 rows and --n-components is 2"), std::string::npos) << w.err;
    CliRun na = run(" --init '" + (dir / "nan.npy") + "'", "na");
    EXPECT_EQ(na.status, 1);
    EXPECT_NE(na.err.find("row 5, column 1 is nan: the coordinates must be finite"), std::string::npos) << na.err;
    CliRun sh = run(" --init '" + (dir / "short.f32") + "'", "sh");
    EXPECT_EQ(sh.status, 1);
    EXPECT_NE(sh.err.find("not a whole number of such rows"), std::string::npos) << sh.err;
    CliRun missing = run(" --init '" + (dir / "none.npy") + "'", "mi");
    EXPECT_EQ(missing.status, 1);
    EXPECT_NE(missing.err.find("none.npy"), std::string::npos) << missing.err;
    CliRun clash = run(" --init pca --no-pca", "cl");
    EXPECT_EQ(clash.status, 2);
    EXPECT_NE(clash.err.find("disagree"), std::string::npos) << clash.err;
    struct stat st;
    for (const char *name : {"w.npy", "na.npy", "sh.npy", "mi.npy", "cl.npy"}) EXPECT_NE(stat((dir / name).c_str(), &st), 0) << name;
    for (umap_io_matrix *m : {&a, &b, &c, &d2, &e}) umap_io_matrix_free(m);
    EXPECT_NE(umap_run(dir, "fit --help").out.find("--init pca|random|spectral|FILE"), std::string::npos);
}

TEST_F(Cli, InverseDecodesTheEmbeddingAndRefusesAModelWithoutADecoder) {
    const std::string common = "fit --input '" + (dir / "x.csv") + "' --k 10 --epochs 2 --refine-epochs 5 --seed 3 --threads 2 --quiet";
    ASSERT_EQ(umap_run(dir, common + " --decoder-epochs 20 --embedding '" + (dir / "e.npy") + "' --save '" +
                                (dir / "dec.gguf") + "'").status, 0);
    ASSERT_EQ(umap_run(dir, common + " --embedding '" + (dir / "plain.npy") + "' --save '" + (dir / "plain.gguf") + "'").status, 0);
    umap_io_matrix e = read_matrix(dir / "e.npy"), plain = read_matrix(dir / "plain.npy");
    EXPECT_TRUE(same_bits(e, plain)) << "the decoder moved the embedding";
    EXPECT_EQ(saved_config(dir / "dec.gguf").decoder_epochs, 20);
    CliRun r = umap_run(dir, "inverse --model '" + (dir / "dec.gguf") + "' --input '" + (dir / "e.npy") + "' --output '" +
                                 (dir / "back.npy") + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("inverse: " + std::to_string(n) + " places -> " + std::to_string(d) + " features"), std::string::npos) << r.out;
    umap_io_matrix back = read_matrix(dir / "back.npy");
    ASSERT_EQ(back.rows, n);
    ASSERT_EQ(back.cols, d);
    { /* the C API's bits */
        ut::Model m;
        char detail[256] = "";
        ASSERT_EQ(umap_load((dir / "dec.gguf").c_str(), m.out(), detail, sizeof detail), UMAP_OK) << detail;
        std::vector<float> want((size_t)(n * d));
        ASSERT_EQ(umap_inverse_transform(m.m, e.data, n, 2, want.data(), 1, detail, sizeof detail), UMAP_OK) << detail;
        EXPECT_EQ(std::memcmp(want.data(), back.data, want.size() * sizeof(float)), 0);
    }
    r = umap_run(dir, "inverse --model '" + (dir / "plain.gguf") + "' --input '" + (dir / "e.npy") + "' --output '" +
                          (dir / "none.npy") + "'");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("has no decoder: fit it with --decoder-epochs"), std::string::npos) << r.err;
    EXPECT_NE(access((dir / "none.npy").c_str(), F_OK), 0) << "a refused inverse wrote its output";
    r = umap_run(dir, "inverse --model '" + (dir / "dec.gguf") + "' --input '" + (dir / "x.csv") + "' --output '" +
                          (dir / "none.npy") + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("the model embeds in 2"), std::string::npos) << r.err;
    EXPECT_NE(access((dir / "none.npy").c_str(), F_OK), 0) << "a refused inverse wrote its output";
    umap_io_matrix_free(&e);
    umap_io_matrix_free(&plain);
    umap_io_matrix_free(&back);
}

/* --densmap and --radii: the radii as n x 2, the settings in the model;
   --radii onto the input, or densMAP without the refinement, is refused
   before any work, and nothing is written */
TEST_F(Cli, FitDensmapWritesTheRadii) {
    const std::string common = "fit --input '" + (dir / "x.csv") + "' --k 10 --epochs 2 --refine-epochs 20 --seed 3 --threads 2 --quiet";
    ASSERT_EQ(umap_run(dir, common + " --densmap --dens-lambda 1.5 --radii '" + (dir / "r.npy") + "' --save '" + (dir / "d.gguf") + "'")
                  .status,
              0);
    umap_io_matrix r = read_matrix(dir / "r.npy", 0);
    ASSERT_EQ(r.rows, n);
    ASSERT_EQ(r.cols, 2);
    for (int64_t i = 0; i < n; i++) {
        EXPECT_TRUE(std::isfinite(r.data[2 * i]) && std::isfinite(r.data[2 * i + 1])) << i;
        EXPECT_GT(r.data[2 * i], -40.0f) << i; /* log of a squared distance, not of 1e-8 */
    }
    umap_io_matrix_free(&r);
    ut::Model loaded;
    char detail[256] = "";
    ASSERT_EQ(umap_load((dir / "d.gguf").c_str(), loaded.out(), detail, sizeof detail), UMAP_OK) << detail;
    EXPECT_EQ(umap_model_config(loaded.m)->densmap, 1);
    EXPECT_EQ(umap_model_config(loaded.m)->dens_lambda, 1.5f);
    /* the radii onto the input: refused before the fit, the input as it was */
    const std::string input = ut::read_file(dir / "x.csv");
    CliRun onto = umap_run(dir, common + " --radii '" + (dir / "x.csv") + "'");
    EXPECT_EQ(onto.status, 2);
    EXPECT_NE(onto.err.find("--radii"), std::string::npos) << onto.err;
    EXPECT_EQ(ut::read_file(dir / "x.csv"), input);
    CliRun no_refine = umap_run(dir, common + " --densmap --refine-epochs 0 --radii '" + (dir / "r2.npy") + "'");
    EXPECT_NE(no_refine.status, 0);
    EXPECT_NE(no_refine.err.find("refine_epochs"), std::string::npos) << no_refine.err;
    struct stat st;
    EXPECT_NE(stat((dir / "r2.npy").c_str(), &st), 0) << "nothing written";
}

TEST_F(Cli, UpdateGrowsAModelAndRefusesWhatCannotWork) {
    /* the first 300 rows fitted, the last 100 added */
    write_f32(dir / "old.f32", std::vector<float>(x.begin(), x.begin() + 300 * d), 300, d);
    write_f32(dir / "new.f32", std::vector<float>(x.begin() + 300 * d, x.end()), 100, d);
    const std::string dim = " --dim " + std::to_string(d);
    const std::string fit = "fit --input '" + (dir / "old.f32") + "'" + dim + " --k 10 --epochs 2 --refine-epochs 20 --seed 3 --threads 2 --quiet";
    ASSERT_EQ(umap_run(dir, fit + " --keep-data --save '" + (dir / "rows.safetensors") + "' --embedding '" + (dir / "e0.f32") + "'").status, 0);
    ASSERT_EQ(umap_run(dir, fit + " --keep-none --save '" + (dir / "none.gguf") + "'").status, 0);
    const std::string upd = "update --input '" + (dir / "new.f32") + "'" + dim + " --threads 2";
    /* a model that keeps its rows: in place, the old rows where they were */
    CliRun r = umap_run(dir, upd + " --model '" + (dir / "rows.safetensors") + "' --save '" + (dir / "rows.safetensors") +
                                 "' --embedding '" + (dir / "e1.f32") + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("300 rows + 100 new -> 400"), std::string::npos) << r.out;
    umap_io_matrix e0 = read_matrix(dir / "e0.f32", 2), e1 = read_matrix(dir / "e1.f32", 2);
    ASSERT_EQ(e1.rows, 400);
    EXPECT_EQ(0, memcmp(e0.data, e1.data, (size_t)(300 * 2) * sizeof(float)));
    umap_io_matrix_free(&e0);
    umap_io_matrix_free(&e1);
    ut::Model grown;
    char detail[256] = "";
    ASSERT_EQ(umap_load((dir / "rows.safetensors").c_str(), grown.out(), detail, sizeof detail), UMAP_OK) << detail;
    EXPECT_EQ(umap_model_n_train(grown.m), 400);
    /* one that keeps none: refused before any work without --old, nothing written */
    r = umap_run(dir, upd + " --model '" + (dir / "none.gguf") + "' --save '" + (dir / "none2.gguf") + "'");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--old"), std::string::npos) << r.err;
    struct stat st;
    EXPECT_NE(stat((dir / "none2.gguf").c_str(), &st), 0);
    /* the wrong old rows: named, nothing written */
    r = umap_run(dir, upd + " --model '" + (dir / "none.gguf") + "' --old '" + (dir / "new.f32") + "' --save '" + (dir / "none2.gguf") + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("100 rows; the model"), std::string::npos) << r.err;
    EXPECT_NE(stat((dir / "none2.gguf").c_str(), &st), 0);
    r = umap_run(dir, upd + " --model '" + (dir / "none.gguf") + "' --old '" + (dir / "old.f32") + "' --save '" + (dir / "none2.gguf") + "'");
    EXPECT_EQ(r.status, 0) << r.err;
    /* an output onto an input, and a model name save cannot write */
    r = umap_run(dir, upd + " --model '" + (dir / "none2.gguf") + "' --old '" + (dir / "old.f32") + "' --save '" + (dir / "m.gguf") + "' --embedding '" + (dir / "old.f32") + "'");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("an output would overwrite an input"), std::string::npos) << r.err;
    r = umap_run(dir, upd + " --model '" + (dir / "none.gguf") + "' --old '" + (dir / "old.f32") + "' --save '" + (dir / "m.bin") + "'");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find(".safetensors or .gguf"), std::string::npos) << r.err;
}

TEST_F(Cli, FitUniqueGivesCopiesOnePlace) {
    /* x.csv's rows with row 3 copied onto rows 10 and 20 */
    std::vector<float> y = x;
    for (int64_t to : {10, 20})
        for (int64_t j = 0; j < d; j++) y[(size_t)(to * d + j)] = y[(size_t)(3 * d + j)];
    {
        FILE *f = fopen((dir / "dup.f32").c_str(), "wb");
        ASSERT_TRUE(f);
        ASSERT_EQ(fwrite(y.data(), sizeof(float), y.size(), f), y.size());
        fclose(f);
    }
    const std::string common = "fit --input '" + (dir / "dup.f32") + "' --dim " + std::to_string(d) +
                               " --k 10 --epochs 2 --refine-epochs 5 --seed 3 --threads 2 --quiet";
    ASSERT_EQ(umap_run(dir, common + " --unique --embedding '" + (dir / "u.f32") + "' --save '" + (dir / "u.gguf") + "'")
                  .status,
              0);
    ASSERT_EQ(umap_run(dir, common + " --embedding '" + (dir / "p.f32") + "'").status, 0);
    umap_io_matrix u = read_matrix(dir / "u.f32", 2), p = read_matrix(dir / "p.f32", 2);
    ASSERT_EQ(u.rows, n);
    for (int64_t r : {10, 20}) {
        EXPECT_EQ(std::memcmp(u.data + 3 * 2, u.data + r * 2, 2 * sizeof(float)), 0) << r;
        EXPECT_NE(std::memcmp(p.data + 3 * 2, p.data + r * 2, 2 * sizeof(float)), 0) << r;
    }
    umap_io_matrix_free(&u);
    umap_io_matrix_free(&p);
    ut::Model loaded;
    char detail[256] = "";
    ASSERT_EQ(umap_load((dir / "u.gguf").c_str(), loaded.out(), detail, sizeof detail), UMAP_OK) << detail;
    EXPECT_EQ(umap_model_config(loaded.m)->unique, 1);
}

TEST_F(Cli, FitGraphAndLossKnobs) {
    const std::string common = "fit --input '" + (dir / "x.csv") + "' --k 10 --epochs 2 --refine-epochs 5 --seed 3 --threads 2 --quiet";
    auto run = [&](const std::string &extra, const std::string &name) {
        return umap_run(dir, common + " --embedding '" + (dir / (name + ".npy")) + "' --save '" + (dir / (name + ".gguf")) + "'" + extra);
    };
    ASSERT_EQ(run("", "base").status, 0);
    umap_io_matrix base = read_matrix(dir / "base.npy");
    struct Knob {
        const char *args;
        std::function<bool(const umap_config &)> saved;
    };
    const Knob knobs[] = {
        {" --local-connectivity 2", [](const umap_config &c) { return c.local_connectivity == 2.0f; }},
        {" --bandwidth 2", [](const umap_config &c) { return c.bandwidth == 2.0f; }},
        {" --set-op-mix-ratio 0.25", [](const umap_config &c) { return c.set_op_mix_ratio == 0.25f; }},
        {" --disconnection-distance 3", [](const umap_config &c) { return c.disconnection_distance == 3.0f; }},
        {" --repulsion-strength 3", [](const umap_config &c) { return c.repulsion_strength == 3.0f; }},
        {" --negative-sample-rate 2", [](const umap_config &c) { return c.negative_sample_rate == 2; }},
        {" --a 1.5 --b 0.75", [](const umap_config &c) { return c.a == 1.5f && c.b == 0.75f; }},
    };
    int i = 0;
    for (const Knob &k : knobs) {
        std::string name = "k" + std::to_string(i++);
        CliRun r = run(k.args, name);
        ASSERT_EQ(r.status, 0) << k.args << ": " << r.err;
        EXPECT_TRUE(k.saved(saved_config(dir / (name + ".gguf")))) << k.args;
        umap_io_matrix e = read_matrix(dir / (name + ".npy"));
        EXPECT_FALSE(same_bits(e, base)) << k.args << " changed nothing";
        umap_io_matrix_free(&e);
    }
    umap_io_matrix_free(&base);
    const char *bad[][2] = {
        {" --local-connectivity 10", "--local-connectivity: local_connectivity = 10: must be at most n_neighbors - 1 = 9"},
        {" --local-connectivity -1", "--local-connectivity: '-1' is not in [0, "},
        {" --bandwidth 0", "--bandwidth: '0' is not in (0, 1000000)"},
        {" --set-op-mix-ratio 1.5", "--set-op-mix-ratio: '1.5' is not in [0, 1]"},
        {" --disconnection-distance -2", "--disconnection-distance: '-2' is not in (0, "},
        {" --repulsion-strength -2", "--repulsion-strength"},
        {" --negative-sample-rate 0", "--negative-sample-rate: '0' is not an integer in [1, 1000]"},
        {" --negative-sample-rate 1001", "--negative-sample-rate"},
        {" --a 1", "--a and --b come together"},
        {" --a 1 --b 9", "--b: '9' is not in [0.01, 8] or 0"},
        {" --a 0 --b 1", "--a: a = 0, b = 1: give neither"},
        {" --bandwidth nan", "--bandwidth: 'nan'"},
    };
    for (auto &b : bad) {
        CliRun r = run(b[0], "bad");
        EXPECT_EQ(r.status, 2) << b[0];
        EXPECT_NE(r.err.find(b[1]), std::string::npos) << b[0] << ": " << r.err;
    }
    struct stat st;
    EXPECT_NE(stat((dir / "bad.npy").c_str(), &st), 0);
    std::string help = umap_run(dir, "fit --help").out;
    for (const char *opt : {"--local-connectivity", "--bandwidth", "--set-op-mix-ratio", "--repulsion-strength",
                            "--negative-sample-rate", "--a X", "--b X", "--knn-indices", "--knn-distances"})
        EXPECT_NE(help.find(opt), std::string::npos) << opt;
}

TEST_F(Cli, FitWithAGivenKnn) {
    /* `umap knn`'s exact lists, then fit on them: the fit that searched itself */
    const std::string input = " --input '" + (dir / "x.csv") + "'";
    ASSERT_EQ(umap_run(dir, "knn" + input + " --k 9 --method exact --output '" + (dir / "i.npy") + "' --distances '" +
                                (dir / "d.npy") + "' --quiet").status, 0);
    ASSERT_EQ(umap_run(dir, "knn" + input + " --k 9 --method exact --output '" + (dir / "i.i32") + "' --distances '" +
                                (dir / "d.f32") + "' --quiet").status, 0);
    const std::string common = "fit" + input + " --epochs 2 --refine-epochs 5 --seed 3 --threads 2 --quiet";
    auto run = [&](const std::string &extra, const std::string &name) {
        return umap_run(dir, common + " --embedding '" + (dir / (name + ".npy")) + "' --save '" + (dir / (name + ".gguf")) + "'" + extra);
    };
    CliRun own = run(" --k 10 --knn exact", "own");
    CliRun given = run(" --knn-indices '" + (dir / "i.npy") + "' --knn-distances '" + (dir / "d.npy") + "'", "given");
    CliRun raw = run(" --knn-indices '" + (dir / "i.i32") + "' --knn-distances '" + (dir / "d.f32") + "' --k 10", "raw");
    for (const CliRun *r : {&own, &given, &raw}) ASSERT_EQ(r->status, 0) << r->err;
    umap_io_matrix a = read_matrix(dir / "own.npy"), b = read_matrix(dir / "given.npy"), c = read_matrix(dir / "raw.npy");
    EXPECT_TRUE(same_bits(a, b)) << "fit on umap knn's lists differs from fit's own exact search";
    EXPECT_TRUE(same_bits(a, c));
    EXPECT_EQ(saved_config(dir / "given.gguf").n_neighbors, 10);
    /* the models agree too: transform of the rows by either encoder */
    for (const char *m : {"own", "given"})
        ASSERT_EQ(umap_run(dir, std::string("transform --model '") + (dir / (std::string(m) + ".gguf")) + "'" + input +
                                    " --output '" + (dir / (std::string(m) + "_t.npy")) + "' --quiet").status, 0);
    umap_io_matrix ta = read_matrix(dir / "own_t.npy"), tb = read_matrix(dir / "given_t.npy");
    EXPECT_TRUE(same_bits(ta, tb));
    for (umap_io_matrix *m : {&a, &b, &c, &ta, &tb}) umap_io_matrix_free(m);

    /* bad lists: clear errors, nothing written */
    umap_io_matrix idx = read_matrix(dir / "i.npy"), dist = read_matrix(dir / "d.npy");
    ASSERT_EQ(idx.cols, 9);
    std::vector<int32_t> iv((size_t)(n * 9));
    for (size_t t = 0; t < iv.size(); t++) iv[t] = (int32_t)idx.data[t];
    std::vector<float> dv(dist.data, dist.data + n * 9);
    umap_io_matrix_free(&idx);
    umap_io_matrix_free(&dist);
    std::vector<int32_t> out_of_range = iv, self = iv;
    out_of_range[9 * 3 + 2] = (int32_t)n;
    self[9 * 7] = 7;
    std::vector<float> nan_d = dv, neg_d = dv, unsorted_d = dv;
    nan_d[9 * 4 + 1] = NAN;
    neg_d[9 * 6] = -1.0f;
    std::swap(unsorted_d[9 * 5], unsorted_d[9 * 5 + 3]); /* documented nearest first */
    write_i32(dir / "range.npy", out_of_range, n, 9);
    write_i32(dir / "self.csv", self, n, 9);
    write_i32(dir / "few.npy", iv, n - 1, 9);
    write_i32(dir / "narrow.npy", std::vector<int32_t>(iv.begin(), iv.begin() + n * 5), n, 5);
    write_f32(dir / "nan_d.npy", nan_d, n, 9);
    write_f32(dir / "neg_d.npy", neg_d, n, 9);
    write_f32(dir / "unsorted_d.npy", unsorted_d, n, 9);
    write_f32(dir / "few_d.npy", dv, n - 1, 9);
    const std::string I = " --knn-indices '", D = "' --knn-distances '";
    struct Bad {
        std::string args;
        int status;
        const char *want;
    } bad[] = {
        {I + (dir / "i.npy") + "'", 2, "--knn-indices and --knn-distances come together"},
        {" --knn-distances '" + (dir / "d.npy") + "'", 2, "come together"},
        {I + (dir / "range.npy") + D + (dir / "d.npy") + "'", 1, "row 3, column 2 is 400: indices must be integers in [0, 400)"},
        {I + (dir / "self.csv") + D + (dir / "d.npy") + "'", 1, "row 7, column 0 is 7: indices must be in [0, 400) and not the row itself"},
        {I + (dir / "few.npy") + D + (dir / "d.npy") + "'", 1, "399 x 9 indices, but the data has 400 rows"},
        {I + (dir / "narrow.npy") + D + (dir / "d.npy") + "'", 1, "400 x 5 indices, but the data has 400 rows and --knn-distances 9 columns"},
        {I + (dir / "i.npy") + D + (dir / "nan_d.npy") + "'", 1, "row 4, column 1 is nan: distances must be finite"},
        {I + (dir / "i.npy") + D + (dir / "neg_d.npy") + "'", 1, "row 6, column 0 is -1: distances must be >= 0"},
        {I + (dir / "i.npy") + D + (dir / "unsorted_d.npy") + "'", 1, "row 5 is not nearest first"},
        {I + (dir / "i.npy") + D + (dir / "few_d.npy") + "'", 1, "399 x 9 distances for 400 rows"},
        {I + (dir / "i.npy") + D + (dir / "d.npy") + "' --k 12", 2, "--k 12 but --knn-indices"},
        {I + (dir / "i.npy") + D + (dir / "d.npy") + "' --knn exact", 2, "--knn chooses fit's own search"},
        {I + (dir / "i.i32") + D + (dir / "few_d.npy") + "'", 1, "399 x 9 distances"},
    };
    for (const Bad &b : bad) {
        CliRun r = run(b.args, "bad");
        EXPECT_EQ(r.status, b.status) << b.args << ": " << r.err;
        EXPECT_NE(r.err.find(b.want), std::string::npos) << b.args << ": " << r.err;
    }
    struct stat st;
    EXPECT_NE(stat((dir / "bad.npy").c_str(), &st), 0);
}

/* --target: a supervised fit (labels with -1 for unknown, or values), its
   weight kept in the model; a missing, short or unreadable target is an
   error that names the file before any fit */
TEST_F(Cli, FitTargetSupervisesAndBadTargetsAreClearErrors) {
    const std::string common = "fit --input '" + (dir / "x.csv") + "' --k 10 --epochs 2 --refine-epochs 20 --seed 5 --threads 2";
    CliRun plain = umap_run(dir, common + " --embedding '" + (dir / "plain.npy") + "' --quiet");
    ASSERT_EQ(plain.status, 0) << plain.err;
    CliRun sup = umap_run(dir, common + " --target '" + (dir / "y.csv") + "' --target-weight 1 --save '" +
                                   (dir / "m.safetensors") + "' --embedding '" + (dir / "sup.npy") + "'");
    ASSERT_EQ(sup.status, 0) << sup.err;
    EXPECT_NE(sup.err.find("supervised by y.csv (categorical, target weight 1)"), std::string::npos) << sup.err;
    /* the config JSON is a string in the safetensors header: its quotes escaped */
    EXPECT_NE(ut::read_file(dir / "m.safetensors").find("target_weight\\\":1,"), std::string::npos);
    umap_io_matrix a = read_matrix(dir / "plain.npy"), b = read_matrix(dir / "sup.npy");
    EXPECT_FALSE(same_bits(a, b)) << "the target changes the fit";
    umap_io_matrix_free(&a);
    umap_io_matrix_free(&b);
    EXPECT_GE(eval_accuracy(dir, "sup.npy"), 0.95);
    /* semi-supervised: -1 marks unknown rows; values: a regression target */
    {
        FILE *f = fopen((dir / "semi.csv").c_str(), "w");
        ASSERT_NE(f, nullptr);
        for (int64_t i = 0; i < n; i++) fprintf(f, "%d\n", i % 3 == 0 ? (int)(i % 4) : -1);
        fclose(f);
    }
    CliRun semi = umap_run(dir, common + " --target '" + (dir / "semi.csv") + "' --quiet");
    EXPECT_EQ(semi.status, 0) << semi.err;
    CliRun reg = umap_run(dir, common + " --target '" + (dir / "y.csv") + "' --target-metric euclidean --quiet");
    EXPECT_EQ(reg.status, 0) << reg.err;
    /* bad targets: exit 1 naming the file and what is wrong */
    CliRun missing = umap_run(dir, common + " --target '" + (dir / "nope.csv") + "' --quiet");
    EXPECT_EQ(missing.status, 1);
    EXPECT_NE(missing.err.find("nope.csv"), std::string::npos) << missing.err;
    {
        FILE *f = fopen((dir / "short.csv").c_str(), "w");
        ASSERT_NE(f, nullptr);
        for (int64_t i = 0; i < n - 1; i++) fprintf(f, "%d\n", (int)(i % 4));
        fclose(f);
        f = fopen((dir / "bad.csv").c_str(), "w");
        ASSERT_NE(f, nullptr);
        for (int64_t i = 0; i < n; i++) fprintf(f, "%d\n", i == 7 ? -3 : (int)(i % 4));
        fclose(f);
    }
    CliRun short_target = umap_run(dir, common + " --target '" + (dir / "short.csv") + "' --quiet");
    EXPECT_EQ(short_target.status, 1);
    EXPECT_NE(short_target.err.find("399 labels for 400 rows"), std::string::npos) << short_target.err;
    CliRun short_values = umap_run(dir, common + " --target '" + (dir / "short.csv") + "' --target-metric cosine --quiet");
    EXPECT_EQ(short_values.status, 1);
    EXPECT_NE(short_values.err.find("399 rows of values for 400 rows"), std::string::npos) << short_values.err;
    CliRun bad = umap_run(dir, common + " --target '" + (dir / "bad.csv") + "' --quiet");
    EXPECT_EQ(bad.status, 1);
    EXPECT_NE(bad.err.find("row 7 has label -3"), std::string::npos) << bad.err;
    /* usage errors */
    CliRun weight = umap_run(dir, common + " --target '" + (dir / "y.csv") + "' --target-weight 1.5");
    EXPECT_EQ(weight.status, 2) << weight.err;
    CliRun metric = umap_run(dir, common + " --target '" + (dir / "y.csv") + "' --target-metric mahalanobis");
    EXPECT_EQ(metric.status, 2) << metric.err;
    CliRun stray_p = umap_run(dir, common + " --target '" + (dir / "y.csv") + "' --target-metric euclidean --target-metric-p 3");
    EXPECT_EQ(stray_p.status, 2) << stray_p.err;
    /* any metric for values, minkowski's p passed through: p 1 is manhattan, bit for bit */
    CliRun l1 = umap_run(dir, common + " --target '" + (dir / "y.csv") + "' --target-metric manhattan --quiet --embedding '" +
                                  (dir / "l1.npy") + "'");
    CliRun p1 = umap_run(dir, common + " --target '" + (dir / "y.csv") + "' --target-metric minkowski --target-metric-p 1 "
                                  "--quiet --embedding '" + (dir / "p1.npy") + "'");
    ASSERT_EQ(l1.status, 0) << l1.err;
    ASSERT_EQ(p1.status, 0) << p1.err;
    umap_io_matrix el1 = read_matrix(dir / "l1.npy"), ep1 = read_matrix(dir / "p1.npy");
    EXPECT_TRUE(same_bits(el1, ep1));
    umap_io_matrix_free(&el1);
    umap_io_matrix_free(&ep1);
    CliRun alone = umap_run(dir, common + " --target-weight 0.2");
    EXPECT_EQ(alone.status, 2) << alone.err;
    EXPECT_NE(alone.err.find("need --target"), std::string::npos) << alone.err;
    std::string help = umap_run(dir, "fit --help").out;
    for (const char *opt : {"--target FILE", "--target-metric", "--target-weight"})
        EXPECT_NE(help.find(opt), std::string::npos) << opt;
}

// A first-time user's run: no data, labels come with the drawn digits, and
// they are the shared generator's images (the demo's), row for row.
TEST_F(Cli, FitSyntheticDrawsTheDemosDigitsWithTheirLabels) {
    const int64_t rows = 600;
    const std::string knobs = " --epochs 3 --refine-epochs 40 --seed 3 --threads 2";
    CliRun fit = umap_run(dir, "fit --synthetic 600 --embedding '" + (dir / "syn.npy") + "' --svg '" +
                                   (dir / "syn.svg") + "'" + knobs);
    ASSERT_EQ(fit.status, 0) << fit.err;
    EXPECT_NE(fit.out.find("600 rows x 256 features -> 2 dimensions"), std::string::npos) << fit.out;
    size_t at = fit.out.find("10-NN accuracy");
    ASSERT_NE(at, std::string::npos) << "the labels come with the data: " << fit.out;
    double acc = 0;
    EXPECT_EQ(sscanf(fit.out.c_str() + at, "10-NN accuracy %lf", &acc), 1);
    EXPECT_GE(acc, 0.8) << "ten digits drawn apart stay apart: " << fit.out;
    std::string svg = ut::read_file(dir / "syn.svg");
    EXPECT_NE(svg.find("synthetic-digits"), std::string::npos) << "the plot's title names the data";

    /* the same images written to a file and fitted from it give the same bits */
    std::vector<float> img((size_t)(rows * UMAP_DIGITS_DIM));
    std::vector<int32_t> lab((size_t)rows);
    umap_digits_draw(rows, img.data(), lab.data());
    for (int64_t i = 0; i < rows; i++) ASSERT_EQ(lab[(size_t)i], (int32_t)(i % 10));
    spit(dir / "digits.f32", std::string((const char *)img.data(), img.size() * sizeof(float)));
    std::string ycsv = "label\n";
    for (int32_t l : lab) ycsv += std::to_string(l) + "\n";
    spit(dir / "digits_y.csv", ycsv);
    CliRun fit2 = umap_run(dir, "fit --input '" + (dir / "digits.f32") + "' --dim 256 --labels '" +
                                    (dir / "digits_y.csv") + "' --embedding '" + (dir / "file.npy") + "'" + knobs);
    ASSERT_EQ(fit2.status, 0) << fit2.err;
    umap_io_matrix a = read_matrix(dir / "syn.npy"), b = read_matrix(dir / "file.npy");
    EXPECT_TRUE(same_bits(a, b)) << "--synthetic 600 is umap_digits_draw's 600 images";
    umap_io_matrix_free(&a);
    umap_io_matrix_free(&b);

    /* what it refuses, before any work */
    CliRun both = umap_run(dir, "fit --synthetic 100 --input '" + (dir / "x.csv") + "'");
    EXPECT_EQ(both.status, 2);
    EXPECT_NE(both.err.find("--synthetic N draws the data and its labels"), std::string::npos) << both.err;
    CliRun with_labels = umap_run(dir, "fit --synthetic 100 --labels '" + (dir / "y.csv") + "'");
    EXPECT_EQ(with_labels.status, 2);
    CliRun zero = umap_run(dir, "fit --synthetic 0");
    EXPECT_EQ(zero.status, 2);
    EXPECT_NE(zero.err.find("--synthetic: '0' is not an integer in [1,"), std::string::npos) << zero.err;
    CliRun none = umap_run(dir, "fit --epochs 1");
    EXPECT_EQ(none.status, 2);
    EXPECT_NE(none.err.find("--input (or --synthetic N) is required"), std::string::npos) << none.err;
    std::string help = umap_run(dir, "fit --help").out;
    EXPECT_NE(help.find("--synthetic N"), std::string::npos);
    EXPECT_NE(umap_run(dir, "--help").out.find("umap fit --synthetic"), std::string::npos);
}

// --rows N keeps the first N rows of the input, whatever its format, and
// cuts the per-row files given with it the same way.
/* Sparse rows through the program: the 400 rows as svmlight text give the
   dense search's neighbours and quality scores, fit, and a transform of
   the training rows that reproduces the embedding; the Vulkan device and
   malformed text are refused, naming why. */
TEST_F(Cli, SparseInputFitsTransformsAndSearchesAsTheDenseRows) {
    std::string svm, y = ut::read_file(dir / "y.csv");
    std::vector<int> labels;
    for (size_t at = y.find('\n') + 1; at < y.size(); at = y.find('\n', at) + 1) labels.push_back(atoi(y.c_str() + at));
    ASSERT_EQ((int64_t)labels.size(), n);
    for (int64_t i = 0; i < n; i++) {
        char buf[64];
        svm += std::to_string(labels[(size_t)i]);
        for (int64_t j = 0; j < d; j++)
            if (x[(size_t)(i * d + j)] != 0.0f) {
                snprintf(buf, sizeof buf, " %lld:%.9g", (long long)j, (double)x[(size_t)(i * d + j)]);
                svm += buf;
            }
        svm += "\n";
    }
    spit(dir / "x.svm", svm);
    const std::string knn = "knn --k 5 --method exact --metric cosine --quiet --output ";
    CliRun dense = umap_run(dir, knn + "'" + (dir / "kd.npy") + "' --input '" + (dir / "x.csv") + "'");
    ASSERT_EQ(dense.status, 0) << dense.err;
    CliRun sparse = umap_run(dir, knn + "'" + (dir / "ks.npy") + "' --input '" + (dir / "x.svm") + "'");
    ASSERT_EQ(sparse.status, 0) << sparse.err;
    umap_io_matrix kd = read_matrix(dir / "kd.npy"), ks = read_matrix(dir / "ks.npy");
    EXPECT_TRUE(same_bits(kd, ks)) << "the sparse exact search finds the dense one's neighbours";
    umap_io_matrix_free(&kd);
    umap_io_matrix_free(&ks);

    /* fit (its quality summary from the sparse rows), then transform of the training rows */
    CliRun fit = umap_run(dir, "fit --input '" + (dir / "x.svm") + "' --labels '" + (dir / "x.svm") +
                                   "' --metric cosine --k 10 --epochs 2 --refine-epochs 0 --threads 2 --save '" +
                                   (dir / "m.safetensors") + "' --embedding '" + (dir / "e.npy") + "'");
    ASSERT_EQ(fit.status, 0) << fit.err;
    EXPECT_NE(fit.err.find("400 x 8 (sparse)"), std::string::npos) << fit.err;
    EXPECT_NE(fit.out.find("trustworthiness@15"), std::string::npos) << fit.out;
    CliRun tr = umap_run(dir, "transform --model '" + (dir / "m.safetensors") + "' --input '" + (dir / "x.svm") +
                                  "' --rows 50 --output '" + (dir / "t.npy") + "' --quiet");
    ASSERT_EQ(tr.status, 0) << tr.err;
    umap_io_matrix e = read_matrix(dir / "e.npy"), t = read_matrix(dir / "t.npy");
    ASSERT_EQ(t.rows, 50);
    e.rows = 50;
    EXPECT_TRUE(same_bits(e, t)) << "transform(training rows) differs from the embedding";
    umap_io_matrix_free(&e);
    umap_io_matrix_free(&t);
    /* a narrower svmlight file takes the model's width */
    spit(dir / "narrow.svm", "0 0:1.5 2:0.25\n1 1:2\n");
    CliRun narrow = umap_run(dir, "transform --model '" + (dir / "m.safetensors") + "' --input '" +
                                      (dir / "narrow.svm") + "' --output '" + (dir / "tn.npy") + "' --quiet");
    EXPECT_EQ(narrow.status, 0) << narrow.err;

    /* what is refused, and how */
    CliRun vk = umap_run(dir, "fit --input '" + (dir / "x.svm") + "' --device vulkan --quiet");
    EXPECT_EQ(vk.status, 2);
    EXPECT_NE(vk.err.find("sparse rows: the Vulkan backend takes dense rows"), std::string::npos) << vk.err;
    /* eval: the sparse rows score the embedding as the dense ones do (the same neighbours: the same recall) */
    CliRun evs = umap_run(dir, "eval --metric cosine --input '" + (dir / "x.svm") + "' --embedding '" + (dir / "e.npy") + "'");
    ASSERT_EQ(evs.status, 0) << evs.err;
    CliRun evd = umap_run(dir, "eval --metric cosine --input '" + (dir / "x.csv") + "' --embedding '" + (dir / "e.npy") + "'");
    ASSERT_EQ(evd.status, 0) << evd.err;
    size_t rs = evs.out.find("knn recall"), rd = evd.out.find("knn recall");
    ASSERT_NE(rs, std::string::npos) << evs.out;
    EXPECT_EQ(evs.out.substr(rs, 30), evd.out.substr(rd, 30));
    CliRun base = umap_run(dir, "knn --input '" + (dir / "x.csv") + "' --svmlight-base 1 --k 3 --output '" +
                                    (dir / "k.npy") + "'");
    EXPECT_EQ(base.status, 1);
    EXPECT_NE(base.err.find("is not svmlight text"), std::string::npos) << base.err;
    spit(dir / "bad.svm", "1 0:1 1:2\n2 4:1 3:1\n");
    CliRun bad = umap_run(dir, "fit --input '" + (dir / "bad.svm") + "' --quiet --save '" + (dir / "b.safetensors") + "'");
    EXPECT_EQ(bad.status, 1);
    EXPECT_NE(bad.err.find("bad.svm:2 (row 1): index 3 after 4"), std::string::npos) << bad.err;
    struct stat st;
    EXPECT_NE(stat((dir / "b.safetensors").c_str(), &st), 0) << "nothing written on failure";
}

/* A sparse graph of distances through the program: each row's 15 nearest
   euclidean distances as svmlight text fit with --metric precomputed, the
   model keeps the places, and transform reads the same kind of rows. */
TEST_F(Cli, SparseGraphOfDistancesFitsAndTransforms) {
    std::string svm;
    for (int64_t i = 0; i < n; i++) {
        std::vector<std::pair<double, int64_t>> row;
        for (int64_t j = 0; j < n; j++) {
            double s = 0;
            for (int64_t l = 0; l < d; l++) {
                double t = (double)x[(size_t)(i * d + l)] - x[(size_t)(j * d + l)];
                s += t * t;
            }
            row.push_back({std::sqrt(s), j});
        }
        std::sort(row.begin(), row.end());
        row.resize(16); /* its own entry and 15 others */
        std::sort(row.begin(), row.end(), [](const std::pair<double, int64_t> &a, const std::pair<double, int64_t> &b) {
            return a.second < b.second;
        });
        svm += "0";
        for (const auto &e : row) {
            char buf[64];
            snprintf(buf, sizeof buf, " %lld:%.9g", (long long)e.second, e.first);
            svm += buf;
        }
        svm += "\n";
    }
    spit(dir / "g.svm", svm);
    CliRun fit = umap_run(dir, "fit --input '" + (dir / "g.svm") + "' --dim 400 --metric precomputed --k 10 --epochs 2 "
                                   "--refine-epochs 20 --threads 2 --save '" + (dir / "g.safetensors") +
                                   "' --embedding '" + (dir / "ge.npy") + "'");
    ASSERT_EQ(fit.status, 0) << fit.err;
    EXPECT_NE(fit.err.find("400 x 400 (sparse)"), std::string::npos) << fit.err;
    EXPECT_NE(fit.out.find("the places of the 400 rows"), std::string::npos) << fit.out;
    CliRun tr = umap_run(dir, "transform --model '" + (dir / "g.safetensors") + "' --input '" + (dir / "g.svm") +
                                  "' --dim 400 --rows 50 --output '" + (dir / "gt.npy") + "' --quiet");
    ASSERT_EQ(tr.status, 0) << tr.err;
    umap_io_matrix t = read_matrix(dir / "gt.npy");
    EXPECT_EQ(t.rows, 50);
    umap_io_matrix_free(&t);
    /* dense rows are not such a model's */
    CliRun dense = umap_run(dir, "transform --model '" + (dir / "g.safetensors") + "' --input '" + (dir / "ge.npy") +
                                     "' --output '" + (dir / "gd.npy") + "' --quiet");
    EXPECT_NE(dense.status, 0);
}

TEST_F(Cli, RowsKeepsTheFirstRowsOfEveryInput) {
    const int64_t keep = 100;
    /* the first 100 rows as a raw .f32 file: knn of it equals knn --rows 100 of the CSV */
    spit(dir / "first.f32", std::string((const char *)x.data(), (size_t)(keep * d) * sizeof(float)));
    CliRun cut = umap_run(dir, "knn --input '" + (dir / "x.csv") + "' --rows 100 --k 5 --method exact --output '" +
                                   (dir / "cut.npy") + "' --quiet");
    ASSERT_EQ(cut.status, 0) << cut.err;
    CliRun first = umap_run(dir, "knn --input '" + (dir / "first.f32") + "' --dim 8 --k 5 --method exact --output '" +
                                     (dir / "first.npy") + "' --quiet");
    ASSERT_EQ(first.status, 0) << first.err;
    umap_io_matrix a = read_matrix(dir / "cut.npy"), b = read_matrix(dir / "first.npy");
    EXPECT_EQ(a.rows, keep);
    EXPECT_TRUE(same_bits(a, b));
    umap_io_matrix_free(&a);
    umap_io_matrix_free(&b);

    /* fit cuts the 400 labels with the data; eval cuts the embedding too */
    CliRun fit = umap_run(dir, "fit --input '" + (dir / "x.csv") + "' --labels '" + (dir / "y.csv") +
                                   "' --rows 100 --k 10 --epochs 2 --refine-epochs 20 --threads 2 --embedding '" +
                                   (dir / "e100.npy") + "'");
    ASSERT_EQ(fit.status, 0) << fit.err;
    EXPECT_NE(fit.out.find("100 rows x 8 features"), std::string::npos) << fit.out;
    EXPECT_NE(fit.out.find("10-NN accuracy"), std::string::npos) << fit.out;
    umap_io_matrix e = read_matrix(dir / "e100.npy");
    EXPECT_EQ(e.rows, keep);
    umap_io_matrix_free(&e);
    CliRun ev = umap_run(dir, "eval --input '" + (dir / "x.csv") + "' --rows 100 --embedding '" + (dir / "e100.npy") +
                                  "' --labels '" + (dir / "y.csv") + "' --k 10");
    EXPECT_EQ(ev.status, 0) << "the embedding of the 100 rows kept: " << ev.err;
    EXPECT_NE(ev.out.find("rows              100"), std::string::npos) << ev.out;
    spit(dir / "e50.f32", std::string(50 * 2 * sizeof(float), '\0'));
    CliRun ev50 = umap_run(dir, "eval --input '" + (dir / "x.csv") + "' --rows 100 --embedding '" + (dir / "e50.f32") +
                                    "' --k 10");
    EXPECT_EQ(ev50.status, 1) << "50 rows are neither the file's 400 nor the 100 kept: " << ev50.out;
    EXPECT_NE(ev50.err.find("50 rows, but"), std::string::npos) << ev50.err;
    EXPECT_NE(ev50.err.find("--rows keeps 100"), std::string::npos) << ev50.err;
    CliRun fit400 = umap_run(dir, "fit --input '" + (dir / "x.csv") + "' --k 10 --epochs 1 --refine-epochs 0 "
                                      "--threads 2 --quiet --embedding '" + (dir / "e400.npy") + "'");
    ASSERT_EQ(fit400.status, 0) << fit400.err;
    CliRun ev2 = umap_run(dir, "eval --input '" + (dir / "x.csv") + "' --rows 100 --embedding '" +
                                   (dir / "e400.npy") + "' --labels '" + (dir / "y.csv") + "' --k 10");
    EXPECT_EQ(ev2.status, 0) << ev2.err;
    EXPECT_NE(ev2.out.find("rows              100"), std::string::npos) << ev2.out;

    /* the labels still have to match the file's rows */
    std::string y100 = "label\n";
    for (int i = 0; i < 100; i++) y100 += "1\n";
    spit(dir / "y100.csv", y100);
    CliRun short_labels = umap_run(dir, "fit --input '" + (dir / "x.csv") + "' --labels '" + (dir / "y100.csv") +
                                            "' --rows 100 --epochs 1");
    EXPECT_EQ(short_labels.status, 1);
    EXPECT_NE(short_labels.err.find("100 labels for 400 rows"), std::string::npos) << short_labels.err;

    /* N beyond the rows, N < 1, and a k-NN file that indexes every row */
    CliRun over = umap_run(dir, "knn --input '" + (dir / "x.csv") + "' --rows 401 --k 5 --output '" +
                                    (dir / "o.npy") + "'");
    EXPECT_EQ(over.status, 1);
    EXPECT_NE(over.err.find("--rows 401: --input " + (dir / "x.csv") + " has only 400 rows"), std::string::npos)
        << over.err;
    EXPECT_FALSE(ut::read_file(dir / "o.npy").size()) << "no output after a refused input";
    for (const char *cmd : {"fit --input x", "transform --input x --model m --output o.npy",
                            "knn --input x --k 5 --output o.npy", "eval --input x --embedding e.npy"}) {
        CliRun zero = umap_run(dir, std::string(cmd) + " --rows 0");
        EXPECT_EQ(zero.status, 2) << cmd;
        EXPECT_NE(zero.err.find("--rows: '0' is not an integer in [1,"), std::string::npos) << cmd << ": " << zero.err;
        EXPECT_NE(umap_run(dir, std::string(cmd).substr(0, std::string(cmd).find(' ')) + " --help").out.find("--rows N"),
                  std::string::npos) << cmd;
    }
    CliRun knn_files = umap_run(dir, "fit --input '" + (dir / "x.csv") + "' --rows 100 --knn-indices '" +
                                         (dir / "cut.npy") + "' --knn-distances '" + (dir / "cut.npy") + "'");
    EXPECT_EQ(knn_files.status, 2);
    EXPECT_NE(knn_files.err.find("--rows cannot cut --knn-indices"), std::string::npos) << knn_files.err;
}

// --version: the header's version and the build's options, and the
// version macros agree with the header manual's last VERSION HISTORY entry.
TEST_F(Cli, VersionPrintsTheLibraryVersionAndTheBuild) {
    CliRun v = umap_run(dir, "--version");
    ASSERT_EQ(v.status, 0) << v.err;
    EXPECT_EQ(v.out.rfind(std::string("umap ") + UMAP_VERSION_STRING + " ", 0), 0u) << v.out;
    for (const char *line : {"\nsgemm ", "\nthreads ", "\nvulkan "})
        EXPECT_NE(v.out.find(line), std::string::npos) << line << " in " << v.out;
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", UMAP_VERSION_MAJOR, UMAP_VERSION_MINOR, UMAP_VERSION_PATCH);
    EXPECT_STREQ(want, UMAP_VERSION_STRING);
    std::string header = ut::read_file("umap.h");
    size_t hist = header.find("VERSION HISTORY"), end = header.find("*/", hist);
    ASSERT_NE(hist, std::string::npos);
    char last[32];
    snprintf(last, sizeof last, "\n   %d.%d  ", UMAP_VERSION_MAJOR, UMAP_VERSION_MINOR);
    size_t at = std::string::npos; /* the last line "   N.M  ..." before the comment ends */
    for (size_t p = header.find("\n   ", hist); p < end; p = header.find("\n   ", p + 1))
        if (isdigit((unsigned char)header[p + 4])) at = p;
    ASSERT_NE(at, std::string::npos);
    EXPECT_EQ(header.compare(at, strlen(last), last), 0)
        << "the last VERSION HISTORY entry is " << header.substr(at + 1, 10) << ", the macros say " << want;
    EXPECT_NE(umap_run(dir, "--help").out.find("--version"), std::string::npos);
}

/* The options a command's --help lists: "  --name ARG  help" (ARG absent for
   a flag), name and ARG one space apart, the help two or more spaces on. */
static std::vector<std::pair<std::string, std::string>> help_options(const std::string &help) {
    std::vector<std::pair<std::string, std::string>> opts;
    size_t at = 0;
    while ((at = help.find("\n  --", at)) != std::string::npos) {
        size_t start = at + 3, end = help.find("  ", start), eol = help.find('\n', start);
        if (end > eol) end = eol;
        std::string head = help.substr(start, end - start);
        size_t space = head.find(' ');
        opts.push_back({head.substr(0, space), space == std::string::npos ? "" : head.substr(space + 1)});
        at = start;
    }
    return opts;
}

TEST_F(Cli, EveryOptionInTheHelpParsesAndBadNumbersNameTheOption) {
    /* the options each command had before its table drove the parsing: none may go missing */
    const std::map<std::string, std::set<std::string>> expected = {
        {"fit",
         {"--input", "--synthetic", "--rows", "--dim", "--svmlight-base", "--labels", "--target", "--target-metric", "--target-metric-p",
          "--target-weight", "--save", "--embedding", "--svg", "--class-names", "--title", "--k", "--min-dist",
          "--spread", "--epochs", "--batch-size", "--lr", "--hidden", "--n-components", "--seed", "--threads", "--knn",
          "--metric", "--metric-p", "--metric-v", "--init", "--no-pca", "--knn-indices", "--knn-distances", "--local-connectivity",
          "--bandwidth", "--set-op-mix-ratio", "--disconnection-distance", "--repulsion-strength", "--negative-sample-rate", "--a", "--b",
          "--refine-epochs", "--refine-attraction", "--distill-epochs", "--decoder-epochs", "--input-dims", "--keep-data", "--keep-sketch", "--keep-sample", "--keep-none", "--no-standardize", "--unique", "--patience", "--densmap", "--dens-lambda", "--dens-frac", "--dens-var-shift", "--radii",
          "--timeout", "--device", "--quiet"}},
        {"transform",
         {"--model", "--input", "--dim", "--svmlight-base", "--rows", "--output", "--labels", "--svg", "--class-names", "--title",
          "--encoder-only", "--transform-epochs", "--exact-neighbors", "--threads", "--quiet"}},
        {"inverse", {"--model", "--input", "--dim", "--rows", "--output", "--threads", "--quiet"}},
        {"update",
         {"--model", "--input", "--old", "--dim", "--svmlight-base", "--save", "--embedding", "--refine-epochs",
          "--distill-epochs", "--threads", "--quiet"}},
        {"knn",
         {"--input", "--dim", "--svmlight-base", "--rows", "--k", "--output", "--distances", "--metric", "--metric-p", "--metric-v", "--method",
          "--device", "--seed", "--threads", "--quiet"}},
        {"eval",
         {"--input", "--dim", "--svmlight-base", "--embedding", "--embedding-dim", "--rows", "--labels", "--k", "--metric", "--metric-p", "--metric-v",
          "--queries", "--threads"}}};
    const std::set<std::string> numbers = {"N", "K", "X", "D", "S", "T", "C", "P", "W"};
    for (const auto &command : expected) {
        CliRun help = umap_run(dir, command.first + " --help");
        ASSERT_EQ(help.status, 0) << command.first << ": " << help.err;
        auto opts = help_options(help.out);
        std::set<std::string> listed;
        for (const auto &o : opts) listed.insert(o.first);
        EXPECT_EQ(listed, command.second) << command.first << " --help:\n" << help.out;
        EXPECT_EQ(listed.size(), opts.size()) << command.first << " lists an option twice";
        for (const auto &o : opts) {
            const std::string what = command.first + " " + o.first;
            /* every listed option is one the parser knows, with a value iff the help shows one */
            CliRun r = umap_run(dir, command.first + " " + o.first + (o.second.empty() ? "" : " @bad"));
            EXPECT_TRUE(r.status == 1 || r.status == 2) << what << ": " << r.err; /* 1: --input @bad: no such file */
            EXPECT_EQ(r.err.find("unknown option"), std::string::npos) << what << ": " << r.err;
            EXPECT_EQ(r.err.find("takes no value"), std::string::npos) << what << ": " << r.err;
            if (!o.second.empty()) {
                r = umap_run(dir, command.first + " " + o.first);
                EXPECT_NE(r.err.find(o.first + " needs a value"), std::string::npos) << what << ": " << r.err;
            } else {
                r = umap_run(dir, command.first + " " + o.first + "=1");
                EXPECT_NE(r.err.find(o.first + " takes no value"), std::string::npos) << what << ": " << r.err;
            }
            if (numbers.count(o.second)) { /* a number's error names the option and the value */
                r = umap_run(dir, command.first + " " + o.first + " @bad");
                EXPECT_NE(r.err.find(o.first + ": '@bad' is not"), std::string::npos) << what << ": " << r.err;
            }
        }
    }
    /* the defaults the help shows for config fields are the config's */
    std::string help = umap_run(dir, "fit --help").out;
    umap_config def = umap_config_default();
    for (auto want : {std::string("--k K               neighbours, counting the point itself (") +
                          std::to_string(def.n_neighbors) + ")",
                      std::string("(") + std::to_string(def.batch_size) + ")\n",
                      std::string("(") + std::to_string(def.negative_sample_rate) + ")\n"})
        EXPECT_NE(help.find(want), std::string::npos) << want << " in\n" << help;
}

/* The defects of one attack on the program's surfaces, each with the rule
   it broke: what fit accepts, transform and load accept (k >= 257, b =
   0.01, a = 1e30); a sample asked for is kept or refused, never dropped;
   the help shows no default the option refuses; a row that cannot be
   evaluated is named; no byte of a hostile model reaches the terminal. */
TEST_F(Cli, WhatFitAcceptsLoadsAndBadInputIsNamed) {
    const std::string input = " --input '" + (dir / "x.csv") + "'";
    const std::string quick = " --epochs 1 --refine-epochs 3 --seed 2 --threads 2 --quiet";
    for (const char *extra : {" --k 257", " --k 257 --keep-data", " --k 300 --keep-sketch", " --b 0.01 --a 1e30",
                              " --b 8 --a 1e-30"}) {
        CliRun f = umap_run(dir, "fit" + input + quick + extra + " --save '" + (dir / "m.safetensors") + "'");
        ASSERT_EQ(f.status, 0) << extra << ": " << f.err;
        CliRun t = umap_run(dir, "transform --model '" + (dir / "m.safetensors") + "'" + input + " --rows 20 --output '" +
                                     (dir / "t.npy") + "' --quiet");
        EXPECT_EQ(t.status, 0) << extra << ": the saved model does not transform: " << t.err;
    }
    CliRun r = umap_run(dir, "fit" + input + quick + " --keep-sample 100 --metric cosine");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--keep-sample: keep_sample = 100"), std::string::npos) << r.err;
    r = umap_run(dir, "fit" + input + quick + " --keep-sample 100 --n-components 3");
    EXPECT_EQ(r.status, 2) << "a sample asked for with 3 components is refused, not silently dropped";
    r = umap_run(dir, "fit" + input + quick + " --keep-sample 100 --metric cosine --keep-data --save '" +
                          (dir / "c.safetensors") + "'");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(saved_config(dir / "c.safetensors").keep_sample, 100);
    std::string help = umap_run(dir, "fit --help").out;
    size_t at = help.find("--keep-sample N");
    ASSERT_NE(at, std::string::npos);
    EXPECT_NE(help.substr(at, help.find("--keep-none") - at).find("(auto)"), std::string::npos) << help.substr(at, 400);
    EXPECT_EQ(help.find("(-1)"), std::string::npos) << "a default the option refuses";
    /* eval: the row that holds NaN */
    std::string emb = "x,y\n";
    for (int64_t i = 0; i < n; i++) emb += i == 123 ? "nan,1\n" : std::to_string(i % 7) + "," + std::to_string(i % 5) + "\n";
    spit(dir / "e.csv", emb);
    r = umap_run(dir, "eval" + input + " --embedding '" + (dir / "e.csv") + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("row 123 holds nan"), std::string::npos) << r.err;
    /* a model whose refusal quotes its own bytes: escaped on the terminal */
    std::string model = ut::read_file(dir / "m.safetensors");
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--) hlen = hlen << 8 | (unsigned char)model[(size_t)i];
    std::string header = model.substr(8, (size_t)hlen), data = model.substr(8 + (size_t)hlen);
    size_t v = header.find("\"umap.hidden\":\"");
    ASSERT_NE(v, std::string::npos);
    v += 15;
    header.replace(v, header.find('"', v) - v, "\\u001b[2J\\u00ff");
    while ((8 + header.size()) % 8) header += ' ';
    model.assign(8, '\0');
    for (int i = 0; i < 8; i++) model[(size_t)i] = (char)((uint64_t)header.size() >> (8 * i));
    model += header + data;
    spit(dir / "hostile.safetensors", model);
    r = umap_run(dir, "transform --model '" + (dir / "hostile.safetensors") + "'" + input + " --output '" +
                          (dir / "h.npy") + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("umap.hidden"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << "an escape byte of the file reached the terminal";
    EXPECT_NE(r.err.find("\\x1b"), std::string::npos) << r.err;
}

/* Every option name the program looks up by a string literal is one its
   commands list (`umap_cli__get` stops the program on a name it does not
   have, instead of reading a typo as "not given"). */
TEST_F(Cli, EveryOptionNameTheProgramLooksUpIsListed) {
    std::string src = ut::read_file("cli/umap.c");
    ASSERT_FALSE(src.empty()) << "cli/umap.c is read from the repository root";
    std::set<std::string> listed;
    for (const char *command : {"fit", "transform", "inverse", "update", "knn", "eval", "devices", "tune"}) {
        CliRun help = umap_run(dir, std::string(command) + " --help");
        ASSERT_EQ(help.status, 0) << command << ": " << help.err;
        for (size_t at = help.out.find("\n  --"); at != std::string::npos; at = help.out.find("\n  --", at + 1))
            listed.insert(help.out.substr(at + 3, help.out.find_first_of(" \n=", at + 3) - at - 3));
    }
    int looked_up = 0;
    for (const char *call : {"umap_cli__get(opts, \"", "umap_cli__get_int(opts, \""})
        for (size_t at = src.find(call); at != std::string::npos; at = src.find(call, at + 1)) {
            size_t from = at + std::strlen(call);
            std::string name = src.substr(from, src.find('"', from) - from);
            EXPECT_TRUE(listed.count(name)) << "cli/umap.c looks up " << name << ", which no command lists";
            looked_up++;
        }
    EXPECT_GT(looked_up, 60);
}
