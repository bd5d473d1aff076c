/* Shared helpers for the gtest suites: pure data generators, RAII owners for
   graphs and programs, and small comparison helpers. */
#ifndef UMAP_TEST_UTIL_H
#define UMAP_TEST_UTIL_H

#include <gtest/gtest.h>

#ifndef _WIN32 /* the file-size limit and the FIFOs: POSIX only */
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>
#define UT_POSIX 1
#endif

#include <chrono>
#include <functional>
#include <future>
#include <thread>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#ifdef _WIN32
#include <direct.h>
#include <io.h>
/* POSIX's mkdtemp for the suites' "/tmp/NAME_XXXXXX" directories; on
   Windows "/tmp" is a folder at the current drive's root */
inline char *mkdtemp(char *tmpl) {
    _mkdir("/tmp");
    if (_mktemp_s(tmpl, std::strlen(tmpl) + 1) != 0) return nullptr;
    return _mkdir(tmpl) == 0 ? tmpl : nullptr;
}
#endif

#include "umap.h"

namespace ut {

/* a small and quick fit config (milliseconds), shared by the fit and
   transform suites */
inline umap_config quick_config() {
    umap_config c = umap_config_default();
    c.n_neighbors = 10;
    c.n_epochs = 4;
    c.batch_size = 128;
    c.refine_epochs = 30;
    c.distill_epochs = 3;
    c.n_hidden = 2;
    c.hidden[0] = c.hidden[1] = 32;
    c.n_threads = 2;
    c.seed = 7;
    c.keep_data = UMAP_KEEP_NONE; /* the encoder alone, as these suites test it (the default keep: test_transform.cc) */
    return c;
}

/* owns a fitted or loaded model; out() frees the one held before */
struct Model {
    umap_model *m = nullptr;
    Model() = default;
    Model(const Model &) = delete;
    Model &operator=(const Model &) = delete;
    ~Model() { umap_model_free(m); }
    umap_model **out() {
        umap_model_free(m);
        m = nullptr;
        return &m;
    }
};

/* splitmix64: a pure function of its argument */
inline uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
/* uniform double in [0, 1), a pure function of (seed, i) */
inline double unit(uint64_t seed, uint64_t i) {
    return (double)(mix(mix(seed) ^ (i * 0xd1b54a32d192ed03ull)) >> 11) * (1.0 / 9007199254740992.0);
}
inline std::vector<float> uniform(int64_t n, uint64_t seed, double lo, double hi) {
    std::vector<float> v((size_t)n);
    for (int64_t i = 0; i < n; i++) v[(size_t)i] = (float)(lo + (hi - lo) * unit(seed, (uint64_t)i));
    return v;
}
/* magnitude in [lo, hi], random sign: away from kinks at zero */
inline std::vector<float> away_from_zero(int64_t n, uint64_t seed, double lo, double hi) {
    std::vector<float> v = uniform(n, seed, lo, hi);
    for (int64_t i = 0; i < n; i++)
        if (unit(seed + 7777, (uint64_t)i) < 0.5) v[(size_t)i] = -v[(size_t)i];
    return v;
}
/* n distinct values offset + step * k, k = 0..n-1, in a random order */
inline std::vector<float> distinct(int64_t n, uint64_t seed, double step, double offset) {
    std::vector<float> v((size_t)n);
    std::vector<int64_t> k((size_t)n);
    for (int64_t i = 0; i < n; i++) k[(size_t)i] = i;
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)(unit(seed, (uint64_t)i) * (double)(i + 1));
        if (j > i) j = i;
        std::swap(k[(size_t)i], k[(size_t)j]);
    }
    for (int64_t i = 0; i < n; i++) v[(size_t)i] = (float)(offset + step * (double)k[(size_t)i]);
    return v;
}
/* values from a grid offset + step * k with k random in [0, levels) */
inline std::vector<float> grid(int64_t n, uint64_t seed, double step, double offset, int levels) {
    std::vector<float> v((size_t)n);
    for (int64_t i = 0; i < n; i++) {
        int k = (int)(unit(seed, (uint64_t)i) * levels);
        if (k >= levels) k = levels - 1;
        v[(size_t)i] = (float)(offset + step * k);
    }
    return v;
}

inline std::string shape_str(umap_shape s) {
    std::string r = "[";
    for (int i = 0; i < s.rank; i++) {
        if (i) r += ",";
        r += std::to_string((long long)s.dim[i]);
    }
    return r + "]";
}
inline bool shape_eq(umap_shape a, umap_shape b) {
    if (a.rank != b.rank) return false;
    for (int i = 0; i < a.rank; i++)
        if (a.dim[i] != b.dim[i]) return false;
    return true;
}

struct Graph {
    umap_graph *g = nullptr;
    Graph() { EXPECT_EQ(umap_graph_create(nullptr, &g), UMAP_OK); }
    ~Graph() { umap_graph_free(g); }
    Graph(const Graph &) = delete;
    Graph &operator=(const Graph &) = delete;
    operator umap_graph *() const { return g; }
    std::string detail() const { return umap_graph_error_detail(g); }
};

struct Program {
    umap_program *p = nullptr;
    Program() {}
    ~Program() { umap_program_free(p); }
    Program(const Program &) = delete;
    Program &operator=(const Program &) = delete;
    operator umap_program *() const { return p; }
    void reset() {
        umap_program_free(p);
        p = nullptr;
    }
    std::string detail() const { return p ? umap_program_error_detail(p) : std::string("(no program)"); }
};

inline std::vector<float> output(umap_program *p, int i, umap_shape *shape = nullptr) {
    const float *d = nullptr;
    umap_shape s;
    std::memset(&s, 0, sizeof s);
    umap_result r = umap_program_output(p, i, &d, &s);
    EXPECT_EQ(r, UMAP_OK) << umap_result_string(r);
    if (shape) *shape = s;
    if (r != UMAP_OK || !d) return {};
    return std::vector<float>(d, d + umap_shape_numel(s));
}

/* compile desc with a thread count and disabled passes */
inline umap_compile_desc cdesc(int n_threads = 1, unsigned disable = 0) {
    umap_compile_desc d;
    std::memset(&d, 0, sizeof d);
    d.n_threads = n_threads;
    d.disable_passes = disable;
    return d;
}

/* |a - b| <= atol + rtol * |ref| for every element */
inline ::testing::AssertionResult all_close(const std::vector<float> &got, const std::vector<double> &ref,
                                            double atol, double rtol) {
    if (got.size() != ref.size())
        return ::testing::AssertionFailure() << "size " << got.size() << " vs " << ref.size();
    for (size_t i = 0; i < got.size(); i++) {
        double err = std::fabs((double)got[i] - ref[i]);
        if (!(err <= atol + rtol * std::fabs(ref[i])))
            return ::testing::AssertionFailure()
                   << "element " << i << ": got " << got[i] << ", expected " << ref[i] << " (err " << err << ")";
    }
    return ::testing::AssertionSuccess();
}
inline ::testing::AssertionResult all_close(const std::vector<float> &got, const std::vector<float> &ref, double atol,
                                            double rtol) {
    return all_close(got, std::vector<double>(ref.begin(), ref.end()), atol, rtol);
}
inline ::testing::AssertionResult bitwise_equal(const std::vector<float> &a, const std::vector<float> &b) {
    if (a.size() != b.size()) return ::testing::AssertionFailure() << "size " << a.size() << " vs " << b.size();
    for (size_t i = 0; i < a.size(); i++)
        if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0)
            return ::testing::AssertionFailure() << "element " << i << ": " << a[i] << " vs " << b[i];
    return ::testing::AssertionSuccess();
}

/* reads everything a writer function puts into a tmpfile */
template <class F> std::string capture(F write) {
    FILE *f = std::tmpfile();
    if (!f) return std::string();
    write(f);
    std::fflush(f);
    long n = std::ftell(f);
    std::string s(n > 0 ? (size_t)n : 0, '\0');
    std::rewind(f);
    if (n > 0) {
        size_t got = std::fread(&s[0], 1, (size_t)n, f);
        s.resize(got);
    }
    std::fclose(f);
    return s;
}

/* A graph's leaves and the data bound to them: params and f32 / i32 inputs,
   named p0, in1, idx2, ... in the order they are made. The data live in
   deques, so the pointers in values stay valid as leaves are added. */
struct Leaves {
    Graph g;
    std::deque<std::vector<float>> fdata;
    std::deque<std::vector<int32_t>> idata;
    std::vector<umap_tensor *> leaves;
    std::vector<void *> values;

    umap_tensor *param(umap_shape s, std::vector<float> d) {
        EXPECT_EQ((int64_t)d.size(), umap_shape_numel(s));
        std::string name = "p" + std::to_string(leaves.size());
        return add(umap_param(g, name.c_str(), s), std::move(d));
    }
    umap_tensor *input(umap_shape s, std::vector<float> d) {
        std::string name = "in" + std::to_string(leaves.size());
        return add(umap_input(g, name.c_str(), s), std::move(d));
    }
    umap_tensor *input_i32(umap_shape s, std::vector<int32_t> d) {
        std::string name = "idx" + std::to_string(leaves.size());
        umap_tensor *t = umap_input_i32(g, name.c_str(), s);
        idata.push_back(std::move(d));
        leaves.push_back(t);
        values.push_back(idata.back().data());
        return t;
    }

  private:
    umap_tensor *add(umap_tensor *t, std::vector<float> d) {
        fdata.push_back(std::move(d));
        leaves.push_back(t);
        values.push_back(fdata.back().data());
        return t;
    }
};

/* The allocator hook of a test allocator: any struct with static
   alloc(size, user_data) and release(ptr, user_data), user_data = self. */
template <class T> umap_allocator allocator_of(T *self) {
    umap_allocator a;
    a.alloc_fn = T::alloc;
    a.free_fn = T::release;
    a.user_data = self;
    return a;
}

#ifdef UT_POSIX
/* Sets a file size limit for this process and ignores SIGXFSZ, so writes
   past it fail with EFBIG; restores both when it goes. */
class FileSizeLimit {
  public:
    explicit FileSizeLimit(rlim_t bytes) {
        getrlimit(RLIMIT_FSIZE, &old_);
        old_handler_ = signal(SIGXFSZ, SIG_IGN);
        struct rlimit r = old_;
        r.rlim_cur = bytes;
        ok_ = setrlimit(RLIMIT_FSIZE, &r) == 0;
    }
    ~FileSizeLimit() {
        setrlimit(RLIMIT_FSIZE, &old_);
        signal(SIGXFSZ, old_handler_);
    }
    bool ok() const { return ok_; }

  private:
    struct rlimit old_;
    void (*old_handler_)(int);
    bool ok_;
};

/* Runs fn on a thread: true when it returned within seconds. A call that
   blocks on a FIFO is released when it did not, so a failing test ends
   instead of hanging: each of fifos gets a reader (which frees a writer
   blocked opening it, and is drained until fn returns) and a writer that
   closes at once (which frees a reader blocked opening it, at its end). */
inline bool returns_within(double seconds, std::function<void()> fn, const std::vector<std::string> &fifos) {
    std::packaged_task<void()> task(fn);
    std::future<void> done = task.get_future();
    std::thread th(std::move(task));
    bool in_time = done.wait_for(std::chrono::duration<double>(seconds)) == std::future_status::ready;
    if (!in_time) {
        std::vector<int> fds;
        for (const std::string &f : fifos) {
            fds.push_back(open(f.c_str(), O_RDONLY | O_NONBLOCK));
            int w = open(f.c_str(), O_WRONLY | O_NONBLOCK);
            if (w >= 0) close(w);
        }
        while (done.wait_for(std::chrono::milliseconds(10)) != std::future_status::ready) {
            char buf[65536];
            for (int fd : fds)
                if (fd >= 0) while (read(fd, buf, sizeof buf) > 0) {}
        }
        for (int fd : fds)
            if (fd >= 0) close(fd);
    }
    th.join();
    return in_time;
}
#endif

/* a whole file's bytes ("" when it cannot be read) */
inline std::string read_file(const std::string &path) {
    std::string s;
    FILE *f = std::fopen(path.c_str(), "rb");
    if (!f) return s;
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
    std::fclose(f);
    return s;
}

/* y = 2 x as a custom op (the kernel only: a test adds a gradient rule
   where it wants one) */
inline umap_result twice_shape(const umap_custom_op *, int n_src, const umap_shape *ss, const umap_dtype *dt,
                               const int32_t *, int, umap_shape *out, umap_dtype *odt) {
    if (n_src != 1 || dt[0] != UMAP_F32) return UMAP_ERR_INVALID_ARGUMENT;
    *out = ss[0];
    *odt = UMAP_F32;
    return UMAP_OK;
}
inline umap_result twice_cpu(const umap_custom_op *, const umap_custom_call *c) {
    const float *x = (const float *)c->src[0];
    float *y = (float *)c->out;
    for (int64_t i = 0; i < umap_shape_numel(c->out_shape); i++) y[i] = 2 * x[i];
    return UMAP_OK;
}

} // namespace ut

#endif
