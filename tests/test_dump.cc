/* >>inspect: the pictures of each compiler stage (umap_program_svg), the
   diff between two stages (umap_program_diff, _diff_svg) and UMAP_DUMP,
   which writes all of them on every compile. */
#include <dirent.h>
#include <cerrno>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

/* A tiny XML well-formedness check, enough for what the library writes:
   one root element, balanced tags, quoted attributes, no raw '<' or bad
   '&' in text or attribute values. Returns "" or what is wrong. */
std::string xml_problem(const std::string &s, std::string *root_name) {
    std::vector<std::string> open;
    size_t i = 0, n = s.size();
    int roots = 0;
    auto entity_ok = [&](size_t at) {
        static const char *const known[] = {"&lt;", "&gt;", "&amp;", "&quot;", "&apos;"};
        for (const char *e : known)
            if (s.compare(at, std::strlen(e), e) == 0) return std::strlen(e);
        return (size_t)0;
    };
    auto is_name = [](char c) { return std::isalnum((unsigned char)c) || c == '-' || c == '_' || c == ':' || c == '.'; };
    if (s.compare(0, 5, "<?xml") == 0) {
        i = s.find("?>");
        if (i == std::string::npos) return "unterminated XML declaration";
        i += 2;
    }
    while (i < n) {
        if (s[i] == '&') {
            size_t len = entity_ok(i);
            if (!len) return "bad entity at byte " + std::to_string(i);
            i += len;
            continue;
        }
        if ((unsigned char)s[i] < 0x20 && s[i] != '\n' && s[i] != '\t' && s[i] != '\r')
            return "control byte at " + std::to_string(i);
        if (s[i] != '<') {
            if (open.empty() && !std::isspace((unsigned char)s[i])) return "text outside the root at " + std::to_string(i);
            i++;
            continue;
        }
        if (s.compare(i, 4, "<!--") == 0) {
            size_t e = s.find("-->", i);
            if (e == std::string::npos) return "unterminated comment";
            i = e + 3;
            continue;
        }
        if (s[i + 1] == '/') {
            size_t e = s.find('>', i);
            if (e == std::string::npos) return "unterminated end tag";
            std::string name = s.substr(i + 2, e - i - 2);
            if (open.empty() || open.back() != name) return "</" + name + "> closes " + (open.empty() ? "nothing" : open.back());
            open.pop_back();
            i = e + 1;
            continue;
        }
        size_t j = i + 1;
        while (j < n && is_name(s[j])) j++;
        std::string name = s.substr(i + 1, j - i - 1);
        if (name.empty()) return "'<' without a tag name at byte " + std::to_string(i);
        std::set<std::string> attrs;
        for (;;) {
            while (j < n && std::isspace((unsigned char)s[j])) j++;
            if (j >= n) return "unterminated tag <" + name;
            if (s[j] == '>' || s.compare(j, 2, "/>") == 0) break;
            size_t a = j;
            while (j < n && is_name(s[j])) j++;
            if (j == a || j >= n || s[j] != '=') return "bad attribute in <" + name + " at byte " + std::to_string(a);
            if (!attrs.insert(s.substr(a, j - a)).second) return "repeated attribute in <" + name;
            j++;
            if (j >= n || (s[j] != '"' && s[j] != '\'')) return "unquoted attribute in <" + name;
            char q = s[j++];
            while (j < n && s[j] != q) {
                if (s[j] == '<') return "'<' in an attribute of <" + name;
                if (s[j] == '&') {
                    size_t len = entity_ok(j);
                    if (!len) return "bad entity in an attribute of <" + name;
                    j += len;
                } else {
                    j++;
                }
            }
            if (j >= n) return "unterminated attribute in <" + name;
            j++;
        }
        if (open.empty()) {
            if (++roots > 1) return "a second root element <" + name;
            if (root_name) *root_name = name;
        }
        if (s[j] == '>') {
            open.push_back(name);
            i = j + 1;
        } else {
            i = j + 2;
        }
    }
    if (!open.empty()) return "<" + open.back() + "> is never closed";
    for (size_t at = 0; at < n;) { /* UTF-8, as the declaration says */
        unsigned char c = (unsigned char)s[at];
        size_t len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        if (!len || at + len > n) return "not UTF-8 at byte " + std::to_string(at);
        for (size_t k = 1; k < len; k++)
            if (((unsigned char)s[at + k] & 0xC0) != 0x80) return "not UTF-8 at byte " + std::to_string(at);
        at += len;
    }
    if (roots != 1) return "no root element";
    return "";
}

/* xmllint as a second opinion where the machine has it (no dependency) */
bool xmllint_accepts(const std::string &text, std::string *why) {
    if (std::system("command -v xmllint >/dev/null 2>&1") != 0) return true;
    char path[] = "/tmp/umap_dump_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return true;
    FILE *f = fdopen(fd, "w");
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    std::string cmd = std::string("xmllint --noout ") + path + " 2>&1";
    FILE *pipe = popen(cmd.c_str(), "r");
    std::string out;
    char buf[256];
    while (pipe && std::fgets(buf, sizeof buf, pipe)) out += buf;
    int rc = pipe ? pclose(pipe) : -1;
    std::remove(path);
    *why = out;
    return rc == 0;
}

void expect_valid_svg(const std::string &svg, const std::string &what) {
    std::string root;
    std::string problem = xml_problem(svg, &root);
    EXPECT_EQ(problem, "") << what;
    EXPECT_EQ(root, "svg") << what;
    std::string why;
    EXPECT_TRUE(xmllint_accepts(svg, &why)) << what << ": " << why;
}

size_t count(const std::string &s, const std::string &needle) {
    size_t k = 0;
    for (size_t at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1)) k++;
    return k;
}

/* A small MLP with its gradients, and something for every pass: a dead
   node, a repeated subexpression (CSE), x * 1 (simplify), a constant-only
   subtree (fold), elementwise chains (fusion). The input's name holds
   every character XML reserves. */
const char *const kOddName = "x<&>\"'";
/* a lambda (good UTF-8), then a byte that is no UTF-8 anywhere */
const char *const kOddUtf8 = "\xce\xbb\xff";
std::vector<umap_tensor *> build_mlp(umap_graph *g) {
    std::vector<float> cd = ut::uniform(6, 9, -0.5, 0.5);
    umap_tensor *x = umap_input(g, kOddName, umap_shape2(8, 5));
    umap_tensor *t = umap_input(g, "t", umap_shape2(8, 2));
    umap_tensor *w1 = umap_param(g, "w1", umap_shape2(5, 6));
    umap_tensor *b1 = umap_param(g, "b1", umap_shape1(6));
    umap_tensor *w2 = umap_param(g, "w2", umap_shape2(6, 2));
    umap_tensor *c = umap_constant(g, umap_shape1(6), cd.data());
    umap_tensor *k = umap_exp(g, umap_mul_scalar(g, c, 0.5f));
    umap_tensor *h = umap_tanh(g, umap_add(g, umap_add(g, umap_matmul(g, x, w1), b1), k));
    umap_tensor *s1 = umap_sigmoid(g, umap_mul_scalar(g, h, 2.0f));
    umap_tensor *s2 = umap_sigmoid(g, umap_mul_scalar(g, h, 2.0f));
    umap_tensor *z = umap_mul(g, umap_add(g, umap_mul(g, s1, h), s2), umap_scalar(g, 1.0f));
    umap_tensor *y = umap_matmul(g, z, w2);
    (void)umap_exp(g, y); /* dead: no output needs it */
    (void)umap_input(g, kOddUtf8, umap_shape1(3)); /* unused, so only in the built stage */
    umap_tensor *loss = umap_mean(g, umap_square(g, umap_sub(g, y, t)), UMAP_AXES_ALL, 0);
    umap_tensor *wrt[3] = {w1, b1, w2}, *gr[3] = {nullptr, nullptr, nullptr};
    EXPECT_EQ(umap_grad(g, loss, 3, wrt, gr), UMAP_OK) << umap_graph_error_detail(g);
    return {loss, gr[0], gr[1], gr[2]};
}

struct Mlp {
    ut::Graph g;
    ut::Program p;
    umap_program_stats stats;
    umap_result r;
    explicit Mlp(umap_compile_desc cd = ut::cdesc()) {
        std::memset(&stats, 0, sizeof stats);
        std::vector<umap_tensor *> o = build_mlp(g);
        r = umap_compile(g, (int)o.size(), o.data(), &cd, &p.p);
        EXPECT_EQ(r, UMAP_OK) << umap_result_string(r) << ": " << g.detail();
        umap_program_stats_get(p, &stats);
    }
};

const char *const kStages[UMAP_STAGE_COUNT] = {"built", "optimized", "fused"};

TEST(Dump, SvgOfEveryStageIsWellFormedAndDrawsEveryNode) {
    Mlp m;
    ASSERT_NE(m.p.p, nullptr);
    ASSERT_GT(m.stats.regions, 0) << "the MLP should fuse something";
    for (int s = 0; s < UMAP_STAGE_COUNT; s++) {
        umap_result r = UMAP_ERR_IO;
        std::string svg = ut::capture([&](FILE *f) { r = umap_program_svg(m.p, (umap_stage)s, f); });
        ASSERT_EQ(r, UMAP_OK) << kStages[s];
        expect_valid_svg(svg, kStages[s]);
        /* one box per node, each titled with its number and op */
        int n = m.stats.nodes[s];
        EXPECT_EQ(count(svg, "rx=\"4\""), (size_t)n) << kStages[s];
        for (int i = 0; i < n; i++)
            EXPECT_NE(svg.find("<title>%" + std::to_string(i) + " "), std::string::npos) << kStages[s] << " node %" << i;
        /* the odd name arrives escaped, never raw */
        if (s == UMAP_STAGE_BUILT) {
            EXPECT_NE(svg.find("x&lt;&amp;&gt;&quot;&apos;"), std::string::npos);
            EXPECT_NE(svg.find("&quot;\xce\xbb?&quot;"), std::string::npos) << "the lambda kept, the bad byte a '?'";
        }
        EXPECT_EQ(svg.find(kOddName), std::string::npos) << kStages[s];
    }
    /* the fused stage: kernels named in the boxes, one memory bar per kernel */
    std::string fused = ut::capture([&](FILE *f) { umap_program_svg(m.p, UMAP_STAGE_FUSED, f); });
    EXPECT_NE(fused.find("memory plan: arena " + std::to_string(m.stats.peak_bytes) + " bytes"), std::string::npos);
    EXPECT_EQ(count(fused, "bytes at arena+"), (size_t)m.stats.steps);
    EXPECT_EQ(count(fused, "\nin kernel "), (size_t)(m.stats.fused_nodes - m.stats.regions));
    /* the lanes draw a valid plan: no two buffers share bytes while both live */
    struct Bar {
        double x, y, w, h;
    };
    std::vector<Bar> bars;
    for (size_t at = fused.find("stroke-width=\"0.5\""); at != std::string::npos;
         at = fused.find("stroke-width=\"0.5\"", at + 1)) {
        size_t start = fused.rfind("<rect", at);
        Bar b;
        ASSERT_EQ(std::sscanf(fused.c_str() + start, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"", &b.x, &b.y,
                              &b.w, &b.h),
                  4);
        bars.push_back(b);
    }
    ASSERT_EQ(bars.size(), (size_t)m.stats.steps);
    for (size_t i = 0; i < bars.size(); i++)
        for (size_t j = i + 1; j < bars.size(); j++) {
            const Bar &a = bars[i], &b = bars[j];
            bool in_time = a.x < b.x + b.w - 0.5 && b.x < a.x + a.w - 0.5;
            bool in_memory = a.y < b.y + b.h - 0.5 && b.y < a.y + a.h - 0.5;
            EXPECT_FALSE(in_time && in_memory) << "bars " << i << " and " << j << " overlap";
        }
}

TEST(Dump, DiffNamesWhatEachPassDid) {
    Mlp m;
    ASSERT_NE(m.p.p, nullptr);
    /* built -> optimized: what left is dead or replaced, what stayed may be folded */
    std::string d1 = ut::capture([&](FILE *f) { umap_program_diff(m.p, UMAP_STAGE_BUILT, UMAP_STAGE_OPTIMIZED, f); });
    int dead = (int)count(d1, "\n  - dead "), replaced = (int)count(d1, "\n  - replaced ");
    EXPECT_GE(dead, 1) << d1;
    EXPECT_GE(replaced, 1) << d1; /* the repeated sigmoid, x * 1 */
    EXPECT_GE((int)count(d1, "\n  ~ folded "), 1) << d1;
    EXPECT_EQ(dead + replaced, m.stats.nodes[UMAP_STAGE_BUILT] - m.stats.nodes[UMAP_STAGE_OPTIMIZED]) << d1;
    EXPECT_LE(dead, m.stats.dce_removed) << d1;
    EXPECT_EQ(count(d1, " fused "), 0u) << d1;
    /* optimized -> fused: every op inside a fused region, none other */
    std::string d2 = ut::capture([&](FILE *f) { umap_program_diff(m.p, UMAP_STAGE_OPTIMIZED, UMAP_STAGE_FUSED, f); });
    EXPECT_EQ((int)count(d2, "\n  > fused "), m.stats.fused_nodes) << d2;
    EXPECT_NE(d2.find("in kernel"), std::string::npos) << d2;
    EXPECT_NE(d2.find("0 dead, 0 replaced, 0 folded, 0 rewritten, " + std::to_string(m.stats.fused_nodes) + " fused"),
              std::string::npos)
        << d2;
    /* a stage against itself: nothing happened */
    std::string d0 = ut::capture([&](FILE *f) { umap_program_diff(m.p, UMAP_STAGE_FUSED, UMAP_STAGE_FUSED, f); });
    EXPECT_EQ(count(d0, "\n  "), 0u) << d0;
    /* the SVG colours the same fates */
    for (int a = 0; a + 1 < UMAP_STAGE_COUNT; a++) {
        umap_result r = UMAP_ERR_IO;
        std::string svg =
            ut::capture([&](FILE *f) { r = umap_program_diff_svg(m.p, (umap_stage)a, (umap_stage)(a + 1), f); });
        ASSERT_EQ(r, UMAP_OK);
        expect_valid_svg(svg, std::string("diff from ") + kStages[a]);
        EXPECT_EQ(count(svg, "rx=\"4\""), (size_t)m.stats.nodes[a]);
    }
    std::string svg2 = ut::capture([&](FILE *f) { umap_program_diff_svg(m.p, UMAP_STAGE_OPTIMIZED, UMAP_STAGE_FUSED, f); });
    EXPECT_EQ((int)count(svg2, "\nfused: -&gt; %"), m.stats.fused_nodes);
}

TEST(Dump, EveryPassOffStillDrawsAndDiffs) {
    umap_compile_desc cd = ut::cdesc();
    cd.disable_passes = UMAP_PASS_FOLD | UMAP_PASS_SIMPLIFY | UMAP_PASS_CSE | UMAP_PASS_FUSE | UMAP_PASS_REUSE;
    Mlp m(cd);
    ASSERT_NE(m.p.p, nullptr);
    EXPECT_EQ(m.stats.regions, 0);
    for (int s = 0; s < UMAP_STAGE_COUNT; s++) {
        std::string svg = ut::capture([&](FILE *f) { EXPECT_EQ(umap_program_svg(m.p, (umap_stage)s, f), UMAP_OK); });
        expect_valid_svg(svg, std::string("no passes, ") + kStages[s]);
    }
    std::string d = ut::capture([&](FILE *f) { umap_program_diff(m.p, UMAP_STAGE_BUILT, UMAP_STAGE_FUSED, f); });
    EXPECT_EQ(count(d, "\n  > fused "), 0u) << d;
    EXPECT_EQ(count(d, "\n  ~ "), 0u) << "nothing folded or rewritten: " << d;
    EXPECT_EQ((int)count(d, "\n  - dead "), m.stats.nodes[UMAP_STAGE_BUILT] - m.stats.nodes[UMAP_STAGE_FUSED]) << d;
    /* backwards: the built stage's extra nodes are the ones added */
    std::string back = ut::capture([&](FILE *f) { umap_program_diff(m.p, UMAP_STAGE_FUSED, UMAP_STAGE_BUILT, f); });
    EXPECT_EQ((int)count(back, "\n  + added "), m.stats.nodes[UMAP_STAGE_BUILT] - m.stats.nodes[UMAP_STAGE_FUSED])
        << back;
    std::string svg =
        ut::capture([&](FILE *f) { EXPECT_EQ(umap_program_diff_svg(m.p, UMAP_STAGE_FUSED, UMAP_STAGE_BUILT, f), UMAP_OK); });
    expect_valid_svg(svg, "backwards diff");
    EXPECT_EQ(count(svg, "rx=\"4\""), (size_t)m.stats.nodes[UMAP_STAGE_BUILT]);
}

TEST(Dump, BadArgumentsAreErrors) {
    Mlp m;
    ASSERT_NE(m.p.p, nullptr);
    FILE *f = std::tmpfile();
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(umap_program_svg(nullptr, UMAP_STAGE_BUILT, f), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_program_svg(m.p, UMAP_STAGE_COUNT, f), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_program_svg(m.p, (umap_stage)-1, f), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_program_svg(m.p, UMAP_STAGE_BUILT, nullptr), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_program_diff(m.p, UMAP_STAGE_BUILT, UMAP_STAGE_COUNT, f), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_program_diff_svg(nullptr, UMAP_STAGE_BUILT, UMAP_STAGE_FUSED, f), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(std::ftell(f), 0L) << "nothing written on a bad argument";
    std::fclose(f);
}

/* sets UMAP_DUMP for one scope */
struct DumpEnv {
    explicit DumpEnv(const std::string &dir) { setenv("UMAP_DUMP", dir.c_str(), 1); }
    ~DumpEnv() { unsetenv("UMAP_DUMP"); }
};

struct TempDir {
    std::string path;
    TempDir() {
        char tmpl[] = "/tmp/umap_dump_dir_XXXXXX";
        const char *d = mkdtemp(tmpl);
        EXPECT_NE(d, nullptr);
        path = d ? d : "";
    }
    ~TempDir() {
        for (const std::string &f : files()) std::remove((path + "/" + f).c_str());
        rmdir((path + "/sub").c_str());
        rmdir(path.c_str());
    }
    std::vector<std::string> files(const std::string &under = "") const {
        std::vector<std::string> out;
        std::string dir = under.empty() ? path : path + "/" + under;
        DIR *d = opendir(dir.c_str());
        if (!d) return out;
        while (struct dirent *e = readdir(d))
            if (e->d_name[0] != '.') out.push_back((under.empty() ? "" : under + "/") + e->d_name);
        closedir(d);
        std::sort(out.begin(), out.end());
        return out;
    }
};

struct Warnings {
    std::vector<std::string> lines;
    static void log(umap_log_level level, const char *message, void *user) {
        if (level == UMAP_LOG_WARN) static_cast<Warnings *>(user)->lines.push_back(message);
    }
};

TEST(Dump, EnvWritesEveryStageAndDiffPerCompile) {
    TempDir tmp;
    std::string dir = tmp.path + "/sub"; /* made by the compile */
    DumpEnv env(dir);
    Warnings w;
    umap_compile_desc cd = ut::cdesc();
    cd.name = "mlp step/1"; /* a path separator must not escape the directory */
    cd.logger.log_fn = Warnings::log;
    cd.logger.user_data = &w;
    Mlp first(cd), second(cd);
    ASSERT_NE(first.p.p, nullptr);
    ASSERT_NE(second.p.p, nullptr);
    EXPECT_TRUE(w.lines.empty()) << w.lines[0];
    std::vector<std::string> files = tmp.files("sub");
    ASSERT_EQ(files.size(), 26u) << "13 files per compile";
    /* two compiles, two numbers, the same 13 names after them */
    std::string a = files[0].substr(4, 4), b = files[13].substr(4, 4);
    EXPECT_NE(a, b);
    for (int k = 0; k < 2; k++) {
        std::string prefix = "sub/" + (k ? b : a) + "-mlp_step_1-";
        std::vector<std::string> want;
        for (const char *s : kStages)
            for (const char *ext : {".txt", ".dot", ".svg"}) want.push_back(prefix + s + ext);
        for (const char *d : {"built-optimized", "optimized-fused"})
            for (const char *ext : {".diff.txt", ".diff.svg"}) want.push_back(prefix + d + ext);
        std::sort(want.begin(), want.end());
        std::vector<std::string> got(files.begin() + 13 * k, files.begin() + 13 * (k + 1));
        EXPECT_EQ(got, want);
    }
    /* each file holds what its name says */
    std::string p = tmp.path + "/sub/" + a + "-mlp_step_1-";
    EXPECT_EQ(ut::read_file(p + "built.txt").compare(0, 12, "stage built:"), 0);
    EXPECT_NE(ut::read_file(p + "fused.txt").find("fusion: "), std::string::npos) << "the fused stage's text has the fusion report";
    EXPECT_EQ(ut::read_file(p + "optimized.dot").compare(0, 7, "digraph"), 0);
    expect_valid_svg(ut::read_file(p + "fused.svg"), "dumped fused.svg");
    expect_valid_svg(ut::read_file(p + "optimized-fused.diff.svg"), "dumped diff svg");
    EXPECT_EQ((int)count(ut::read_file(p + "optimized-fused.diff.txt"), "\n  > fused "), first.stats.fused_nodes);
    for (const std::string &f : files) std::remove((tmp.path + "/" + f).c_str());
}

TEST(Dump, UnwritableDirWarnsAndCompiles) {
    TempDir tmp;
    std::string blocker = tmp.path + "/a_file";
    FILE *f = std::fopen(blocker.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
    DumpEnv env(blocker + "/dumps"); /* under a file: no directory can be made there, even by root */
    Warnings w;
    umap_compile_desc cd = ut::cdesc();
    cd.logger.log_fn = Warnings::log;
    cd.logger.user_data = &w;
    Mlp m(cd);
    EXPECT_EQ(m.r, UMAP_OK);
    ASSERT_NE(m.p.p, nullptr);
    ASSERT_EQ(w.lines.size(), 1u) << "one warning per compile";
    /* the file it could not write, and the OS's reason */
    EXPECT_EQ(w.lines[0].compare(0, 11 + blocker.size(), "UMAP_DUMP: " + blocker), 0) << w.lines[0];
    EXPECT_NE(w.lines[0].find(std::strerror(ENOTDIR)), std::string::npos) << w.lines[0];
    EXPECT_EQ(tmp.files(), std::vector<std::string>{"a_file"});
    /* and the program runs */
    std::vector<float> x = ut::uniform(40, 1, -1, 1), t = ut::uniform(16, 2, -1, 1), w1 = ut::uniform(30, 3, -1, 1),
                       b1 = ut::uniform(6, 4, -1, 1), w2 = ut::uniform(12, 5, -1, 1);
    EXPECT_EQ(umap_program_bind(m.p, kOddName, x.data(), 40), UMAP_OK);
    EXPECT_EQ(umap_program_bind(m.p, "t", t.data(), 16), UMAP_OK);
    EXPECT_EQ(umap_program_bind(m.p, "w1", w1.data(), 30), UMAP_OK);
    EXPECT_EQ(umap_program_bind(m.p, "b1", b1.data(), 6), UMAP_OK);
    EXPECT_EQ(umap_program_bind(m.p, "w2", w2.data(), 12), UMAP_OK);
    EXPECT_EQ(umap_program_run(m.p), UMAP_OK) << umap_program_error_detail(m.p);
}

/* every name in dir, the hidden ones (a staged temporary) too */
std::vector<std::string> all_names(const std::string &dir) {
    std::vector<std::string> out;
    DIR *d = opendir(dir.c_str());
    if (!d) return out;
    while (struct dirent *e = readdir(d))
        if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) out.push_back(e->d_name);
    closedir(d);
    std::sort(out.begin(), out.end());
    return out;
}

/* The dump's names are predictable (NNNN counts compiles), so anything
   may be waiting under them: a symlink planted there is replaced, never
   followed (its target stays as it was), and a FIFO is replaced, never
   written into (which blocked the compile for good). */
TEST(Dump, WhatIsPlantedUnderTheNamesIsReplacedNotFollowed) {
    TempDir probe, tmp;
    std::string dir = tmp.path + "/sub", victim = tmp.path + "/victim";
    ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
    {
        FILE *f = std::fopen(victim.c_str(), "w");
        ASSERT_NE(f, nullptr);
        std::fputs("precious", f);
        std::fclose(f);
    }
    int next;
    {   /* this compile's number tells the next one's */
        DumpEnv env(probe.path + "/sub");
        Mlp m;
        std::vector<std::string> files = probe.files("sub");
        ASSERT_EQ(files.size(), 13u);
        next = std::atoi(files[0].substr(4, 4).c_str()) + 1;
    }
    char id[16];
    std::snprintf(id, sizeof id, "%04d", next);
    std::vector<std::string> names, fifos;
    for (const char *s : kStages)
        for (const char *ext : {".txt", ".dot", ".svg"}) names.push_back(std::string(id) + "-program-" + s + ext);
    for (const char *d : {"built-optimized", "optimized-fused"})
        for (const char *ext : {".diff.txt", ".diff.svg"}) names.push_back(std::string(id) + "-program-" + d + ext);
    for (size_t i = 0; i < names.size(); i++) {
        std::string p = dir + "/" + names[i];
        if (i % 2) {
            ASSERT_EQ(mkfifo(p.c_str(), 0600), 0);
            fifos.push_back(p);
        } else {
            ASSERT_EQ(symlink(victim.c_str(), p.c_str()), 0);
        }
    }
    DumpEnv env(dir);
    Warnings w;
    umap_compile_desc cd = ut::cdesc();
    cd.name = nullptr; /* "program" */
    cd.logger.log_fn = Warnings::log;
    cd.logger.user_data = &w;
    EXPECT_TRUE(ut::returns_within(30, [&] { Mlp m(cd); }, fifos)) << "the dump waited on a planted FIFO";
    EXPECT_TRUE(w.lines.empty()) << w.lines[0];
    EXPECT_EQ(ut::read_file(victim), "precious") << "the dump wrote through a planted symlink";
    for (const std::string &n : names) {
        struct stat st;
        ASSERT_EQ(lstat((dir + "/" + n).c_str(), &st), 0) << n;
        EXPECT_TRUE(S_ISREG(st.st_mode) && st.st_size > 0) << n << " is not the dump's file";
    }
    EXPECT_EQ(all_names(dir).size(), names.size()) << "a staged temporary was left behind";
}

/* A full disk (a file size limit here) ends the dump with the file it
   could not write and the OS's reason, and leaves no file behind: no
   empty or cut file under a dump's name, no temporary. The compile goes
   on. */
TEST(Dump, AFullDiskLeavesNothingAndSaysWhy) {
    TempDir tmp;
    std::string dir = tmp.path + "/sub";
    ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
    DumpEnv env(dir);
    Warnings w;
    umap_compile_desc cd = ut::cdesc();
    cd.logger.log_fn = Warnings::log;
    cd.logger.user_data = &w;
    umap_result r;
    {
        ut::FileSizeLimit limit(64);
        if (!limit.ok()) GTEST_SKIP() << "no file size limit here";
        Mlp m(cd);
        r = m.r;
    }
    EXPECT_EQ(r, UMAP_OK);
    ASSERT_EQ(w.lines.size(), 1u) << "one warning: the dump stops at its first failure";
    EXPECT_EQ(w.lines[0].compare(0, 11 + dir.size(), "UMAP_DUMP: " + dir), 0) << w.lines[0];
    EXPECT_NE(w.lines[0].find(std::strerror(EFBIG)), std::string::npos) << w.lines[0];
    EXPECT_TRUE(all_names(dir).empty()) << all_names(dir)[0];
}

} // namespace
