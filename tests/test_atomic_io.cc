/* >>output: umap_output (umap.h) and the writers that go through it
   (umap_save, umap_io_write_*, umap_svg_write). What must hold:
   - nothing planted beside the target is followed or destroyed: a symlink
     at PATH.tmp (the name the old umap_save used) still points where it did,
     and the file it points to is unchanged;
   - a write that fails (a file size limit: RLIMIT_FSIZE with SIGXFSZ
     ignored, so write() says EFBIG) leaves an existing target byte for byte,
     the error carries the OS's reason, and no temporary is left;
   - discard leaves nothing; a directory target is refused with EISDIR;
   - a new file gets 0666 & ~umask, like fopen, not mkstemp's 0600;
   - a special file (/dev/null) is written directly, never replaced.
   umap_io.h's implementation lives in test_cli_io.cc; umap_svg.h's is
   compiled here, static. */
#include "test_util.h"

#include "cli/umap_io.h"
#define UMAP_SVG_IMPLEMENTATION
#define UMAP_SVG_STATIC
#include "cli/umap_svg.h"

#include <dirent.h>
#include <sys/stat.h>
#ifdef _WIN32
#include <direct.h>
#else
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void spit(const std::string &path, const std::string &bytes) {
    FILE *f = std::fopen(path.c_str(), "wb");
    ASSERT_TRUE(f != nullptr) << path;
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
}

/* every name in a directory but . and .., sorted */
std::vector<std::string> listing(const std::string &dir) {
    std::vector<std::string> names;
    DIR *d = opendir(dir.c_str());
    if (!d) return names;
    while (struct dirent *e = readdir(d))
        if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") names.push_back(e->d_name);
    closedir(d);
    std::sort(names.begin(), names.end());
    return names;
}

int make_dir(const std::string &path, int mode) {
#ifdef _WIN32
    (void)mode;
    return _mkdir(path.c_str());
#else
    return mkdir(path.c_str(), (mode_t)mode);
#endif
}

/* a directory and everything in it */
void remove_tree(const std::string &dir) {
    for (const std::string &name : listing(dir)) {
        std::string path = dir + "/" + name;
        if (std::remove(path.c_str()) != 0) remove_tree(path);
    }
#ifdef _WIN32
    _rmdir(dir.c_str());
#else
    rmdir(dir.c_str());
#endif
}

class AtomicIo : public ::testing::Test {
  protected:
    void SetUp() override {
        const char *t = std::getenv("TMPDIR");
        std::string tmpl = std::string(t && *t ? t : "/tmp") + "/umap_atomic_XXXXXX";
        std::vector<char> buf(tmpl.begin(), tmpl.end());
        buf.push_back(0);
        ASSERT_TRUE(mkdtemp(buf.data()) != nullptr);
        dir_ = buf.data();
    }
    void TearDown() override {
        if (dir_.empty()) return;
        remove_tree(dir_);
        struct stat st;
        if (stat(dir_.c_str(), &st) == 0) std::fprintf(stderr, "could not remove %s\n", dir_.c_str());
    }
    std::string at(const std::string &name) const { return dir_ + "/" + name; }

    /* a tiny fitted model, for umap_save */
    static umap_model *model() {
        static std::vector<float> x = ut::uniform(60 * 4, 5, -1.0, 1.0);
        umap_config c = umap_config_default();
        c.n_neighbors = 5;
        c.n_epochs = 1;
        c.refine_epochs = 0;
        c.distill_epochs = 0;
        c.init = UMAP_INIT_RANDOM;
        c.n_threads = 1;
        umap_model *m = nullptr;
        EXPECT_EQ(umap_fit(&c, x.data(), 60, 4, &m), UMAP_OK);
        return m;
    }
    std::string dir_;
};

} // namespace

/* Windows has no unprivileged symlinks, no file-size limits, no umask or
   /dev/null: there the tests up to the #endif do not apply */
#ifdef UT_POSIX
TEST_F(AtomicIo, PlantedSymlinkAtTmpIsNeitherFollowedNorDestroyed) {
    /* the old umap_save wrote PATH.tmp through whatever was there */
    umap_model *m = model();
    ASSERT_TRUE(m != nullptr);
    const std::string victim = at("victim"), target = at("m.gguf");
    spit(victim, "precious");
    ASSERT_EQ(symlink(victim.c_str(), (target + ".tmp").c_str()), 0);
    ASSERT_EQ(umap_save(m, target.c_str()), UMAP_OK);
    EXPECT_EQ(ut::read_file(victim), "precious") << "the save wrote through a planted symlink";
    char link[4096];
    ssize_t n = readlink((target + ".tmp").c_str(), link, sizeof link);
    ASSERT_GT(n, 0) << "the planted symlink was removed";
    EXPECT_EQ(std::string(link, (size_t)n), victim);
    umap_model *back = nullptr;
    char detail[256];
    EXPECT_EQ(umap_load(target.c_str(), &back, detail, sizeof detail), UMAP_OK) << detail;
    umap_model_free(back);
    /* the same for every writer: the link and its file stay, nothing else appears */
    const float xy[8] = {0, 0, 1, 1, 2, 0, 3, 1};
    char err[1024];
    const std::string npy = at("e.npy"), svg = at("p.svg");
    ASSERT_EQ(symlink(victim.c_str(), (npy + ".tmp").c_str()), 0);
    ASSERT_EQ(symlink(victim.c_str(), (svg + ".tmp").c_str()), 0);
    EXPECT_EQ(umap_io_write_matrix(npy.c_str(), xy, 4, 2, nullptr, err, sizeof err), UMAP_IO_OK) << err;
    EXPECT_EQ(umap_svg_write(svg.c_str(), xy, 4, nullptr, nullptr, 0, "t", err, sizeof err), 0) << err;
    EXPECT_EQ(ut::read_file(victim), "precious");
    std::vector<std::string> want = {"e.npy", "e.npy.tmp", "m.gguf", "m.gguf.tmp", "p.svg", "p.svg.tmp", "victim"};
    EXPECT_EQ(listing(dir_), want);
    umap_model_free(m);
}

TEST_F(AtomicIo, FailedWriteKeepsTheTargetByteForByte) {
    umap_model *m = model();
    ASSERT_TRUE(m != nullptr);
    const std::string model_path = at("m.safetensors"), npy = at("e.npy"), svg = at("p.svg"), raw = at("r.bin");
    ASSERT_EQ(umap_save(m, model_path.c_str()), UMAP_OK);
    const std::string old_model = ut::read_file(model_path);
    spit(npy, "old embedding");
    spit(svg, "old plot");
    spit(raw, "old bytes");
    std::vector<float> big(20000 * 2, 0.5f);
    char err[1024];
    {
        ut::FileSizeLimit limit(4096);
        ASSERT_TRUE(limit.ok());
        EXPECT_EQ(umap_save(m, model_path.c_str()), UMAP_ERR_IO);
        umap_io_result r = umap_io_write_matrix(npy.c_str(), big.data(), 20000, 2, nullptr, err, sizeof err);
        EXPECT_NE(r, UMAP_IO_OK);
        EXPECT_NE(std::string(err).find(std::strerror(EFBIG)), std::string::npos) << err;
        EXPECT_EQ(umap_svg_write(svg.c_str(), big.data(), 20000, nullptr, nullptr, 0, "t", err, sizeof err), -1);
        EXPECT_NE(std::string(err).find(std::strerror(EFBIG)), std::string::npos) << err;
        umap_output o;
        ASSERT_EQ(umap_output_open(&o, raw.c_str()), UMAP_OK) << o.error;
        std::string chunk(100000, 'x');
        std::fwrite(chunk.data(), 1, chunk.size(), o.file);
        EXPECT_EQ(umap_output_commit(&o), UMAP_ERR_IO);
        EXPECT_NE(std::string(o.error).find(std::strerror(EFBIG)), std::string::npos) << o.error;
        EXPECT_NE(std::string(o.error).find(raw), std::string::npos) << "names the file: " << o.error;
        umap_output_discard(&o); /* harmless after a failure */
    }
    EXPECT_TRUE(ut::read_file(model_path) == old_model) << "a failed save changed the existing model";
    EXPECT_EQ(ut::read_file(npy), "old embedding");
    EXPECT_EQ(ut::read_file(svg), "old plot");
    EXPECT_EQ(ut::read_file(raw), "old bytes");
    EXPECT_EQ(listing(dir_), (std::vector<std::string>{"e.npy", "m.safetensors", "p.svg", "r.bin"}))
        << "temporaries left behind";
    umap_model_free(m);
}

TEST_F(AtomicIo, UnwritableDirectoryIsRefusedWithTheReason) {
    /* root ignores directory permissions: then a place root cannot create
       files in (sysfs, procfs), if this machine has one */
    std::string where;
    if (geteuid() != 0) {
        where = at("ro");
        ASSERT_EQ(make_dir(where, 0555), 0);
    } else {
        const char *const candidates[] = {"/sys", "/proc"};
        for (const char *c : candidates) {
            std::string probe = std::string(c) + "/umap_probe";
            FILE *f = std::fopen(probe.c_str(), "wbx");
            if (f) {
                std::fclose(f);
                std::remove(probe.c_str());
                continue;
            }
            where = c;
            break;
        }
        if (where.empty()) GTEST_SKIP() << "running as root with no directory root cannot write";
    }
    errno = 0;
    std::string probe = where + "/umap_probe2";
    FILE *f = std::fopen(probe.c_str(), "wbx");
    ASSERT_TRUE(f == nullptr);
    std::string reason = std::strerror(errno);
    umap_output o;
    EXPECT_EQ(umap_output_open(&o, (where + "/x.npy").c_str()), UMAP_ERR_IO);
    EXPECT_NE(std::string(o.error).find(reason), std::string::npos) << o.error;
}

TEST_F(AtomicIo, NewFilesGetFopensPermissions) {
    const mode_t old = umask(027);
    umap_output o;
    const std::string a = at("a.csv"), b = at("b.csv");
    EXPECT_EQ(umap_output_open(&o, a.c_str()), UMAP_OK);
    EXPECT_EQ(umap_output_commit(&o), UMAP_OK) << o.error;
    umask(022);
    EXPECT_EQ(umap_output_open(&o, b.c_str()), UMAP_OK);
    EXPECT_EQ(umap_output_commit(&o), UMAP_OK) << o.error;
    umask(old);
    struct stat st;
    ASSERT_EQ(stat(a.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0640u);
    ASSERT_EQ(stat(b.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST_F(AtomicIo, SpecialFilesAreWrittenNotReplaced) {
    struct stat before, after;
    ASSERT_EQ(stat("/dev/null", &before), 0);
    umap_output o;
    ASSERT_EQ(umap_output_open(&o, "/dev/null"), UMAP_OK) << o.error;
    std::fputs("into the void", o.file);
    EXPECT_EQ(umap_output_commit(&o), UMAP_OK) << o.error;
    ASSERT_EQ(stat("/dev/null", &after), 0);
    EXPECT_TRUE(S_ISCHR(after.st_mode));
    EXPECT_EQ(before.st_rdev, after.st_rdev);
    EXPECT_EQ(before.st_ino, after.st_ino);
}
#endif

TEST_F(AtomicIo, ExistingFileAtTmpSurvivesAndTempNamesDiffer) {
    const std::string target = at("out.csv");
    spit(target + ".tmp", "someone else's");
    umap_output a, b;
    ASSERT_EQ(umap_output_open(&a, target.c_str()), UMAP_OK) << a.error;
    ASSERT_EQ(umap_output_open(&b, target.c_str()), UMAP_OK) << b.error;
    EXPECT_EQ(listing(dir_).size(), 3u) << "two temporaries of their own beside the planted file";
    std::fputs("first", a.file);
    std::fputs("second", b.file);
    EXPECT_EQ(umap_output_commit(&a), UMAP_OK) << a.error;
    EXPECT_EQ(umap_output_commit(&b), UMAP_OK) << b.error;
    EXPECT_EQ(ut::read_file(target), "second");
    EXPECT_EQ(ut::read_file(target + ".tmp"), "someone else's");
    EXPECT_EQ(listing(dir_), (std::vector<std::string>{"out.csv", "out.csv.tmp"}));
}

TEST_F(AtomicIo, FinishedButUncommittedOrDiscardedLeavesNothing) {
    const std::string target = at("keep.npy");
    spit(target, "old");
    umap_output o;
    ASSERT_EQ(umap_output_open(&o, target.c_str()), UMAP_OK) << o.error;
    std::fputs("new", o.file);
    ASSERT_EQ(umap_output_finish(&o), UMAP_OK) << o.error;
    EXPECT_EQ(ut::read_file(target), "old") << "finish must not touch the target";
    umap_output_discard(&o);
    umap_output_discard(&o); /* twice: harmless */
    EXPECT_EQ(ut::read_file(target), "old");
    EXPECT_EQ(listing(dir_), std::vector<std::string>{"keep.npy"});
    umap_output zero;
    std::memset(&zero, 0, sizeof zero);
    umap_output_discard(&zero); /* a zeroed one too */
}

TEST_F(AtomicIo, RefusesDirectoriesAndMissingDirectoriesWithTheReason) {
    umap_output o;
    EXPECT_EQ(umap_output_open(&o, dir_.c_str()), UMAP_ERR_IO);
    EXPECT_NE(std::string(o.error).find(std::strerror(EISDIR)), std::string::npos) << o.error;
    EXPECT_EQ(umap_output_open(&o, at("no/such/dir/x.npy").c_str()), UMAP_ERR_IO);
    EXPECT_NE(std::string(o.error).find(std::strerror(ENOENT)), std::string::npos) << o.error;
    EXPECT_EQ(umap_output_open(&o, (dir_ + "/").c_str()), UMAP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(umap_output_open(&o, ""), UMAP_ERR_INVALID_ARGUMENT);
    char err[1024];
    const float xy[4] = {0, 0, 1, 1};
    EXPECT_NE(umap_io_write_matrix(dir_.c_str(), xy, 2, 2, nullptr, err, sizeof err), UMAP_IO_OK);
    /* a directory named like an output file */
    ASSERT_EQ(make_dir(at("d.npy"), 0755), 0);
    EXPECT_NE(umap_io_write_matrix(at("d.npy").c_str(), xy, 2, 2, nullptr, err, sizeof err), UMAP_IO_OK);
    EXPECT_NE(std::string(err).find(std::strerror(EISDIR)), std::string::npos) << err;
    EXPECT_EQ(listing(dir_), std::vector<std::string>{"d.npy"});
    /* reading a directory says so */
    umap_io_matrix mat;
    EXPECT_NE(umap_io_read_matrix(dir_.c_str(), 0, &mat, err, sizeof err), UMAP_IO_OK);
    EXPECT_NE(std::string(err).find("is a directory"), std::string::npos) << err;
    umap_model *m = nullptr;
    char detail[512];
    EXPECT_EQ(umap_load(dir_.c_str(), &m, detail, sizeof detail), UMAP_ERR_IO);
    EXPECT_NE(std::string(detail).find(std::strerror(EISDIR)), std::string::npos) << detail;
    EXPECT_EQ(umap_load(at("missing.gguf").c_str(), &m, detail, sizeof detail), UMAP_ERR_IO);
    EXPECT_NE(std::string(detail).find(std::strerror(ENOENT)), std::string::npos) << detail;
}
