// The headers' manuals against their own code: each header's list of
// pieces names every `>>` section marker of the file and nothing else, and
// each manual says how to extend it (an op, a metric, a kernel). Reads the
// headers from the repository root, where `make test` runs the suites.
#include <dirent.h>
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string slurp(const std::string &path) {
    std::ifstream f(path.c_str(), std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::vector<std::string> lines_of(const std::string &text) {
    std::vector<std::string> out;
    std::stringstream ss(text);
    std::string line;
    while (std::getline(ss, line)) out.push_back(line);
    return out;
}

// The names of the list under "THE PIECES": lines "   >>name  what it is"
// up to the end of the comment; a name ends at two spaces.
std::vector<std::string> listed_pieces(const std::vector<std::string> &lines) {
    std::vector<std::string> names;
    size_t i = 0;
    while (i < lines.size() && lines[i].find("THE PIECES") == std::string::npos) i++;
    for (; i < lines.size() && lines[i].find("*/") == std::string::npos; i++) {
        const std::string &l = lines[i];
        size_t at = l.find_first_not_of(' ');
        if (at == std::string::npos || l.compare(at, 2, ">>") != 0) continue;
        size_t end = l.find("  ", at);
        names.push_back(l.substr(at + 2, end == std::string::npos ? std::string::npos : end - at - 2));
    }
    return names;
}

// Every section marker: a comment line "/* >>..." or "// >>...", each `>>`
// on it (one line may open two sections), as the text after the `>>`.
std::vector<std::string> section_markers(const std::vector<std::string> &lines) {
    std::vector<std::string> out;
    for (const std::string &l : lines) {
        if (l.compare(0, 5, "/* >>") != 0 && l.compare(0, 5, "// >>") != 0) continue;
        for (size_t at = l.find(">>"); at != std::string::npos; at = l.find(">>", at + 2))
            if (at + 2 < l.size() && std::isalpha((unsigned char)l[at + 2])) out.push_back(l.substr(at + 2));
    }
    return out;
}

// A listed name covers a marker that starts with it and goes on with no
// letter ("modelfile" covers "modelfile-json: ..." and "modelfile: ...").
bool covers(const std::string &name, const std::string &marker) {
    return marker.compare(0, name.size(), name) == 0 &&
           (marker.size() == name.size() || !std::isalpha((unsigned char)marker[name.size()]));
}

void expect_pieces_match_markers(const std::string &header) {
    std::vector<std::string> lines = lines_of(slurp(header));
    ASSERT_GT(lines.size(), 100u) << header << " not found: the suites run from the repository root";
    std::vector<std::string> names = listed_pieces(lines), markers = section_markers(lines);
    ASSERT_FALSE(names.empty()) << header << ": no THE PIECES list";
    for (const std::string &m : markers) {
        bool found = false;
        for (const std::string &n : names) found = found || covers(n, m);
        EXPECT_TRUE(found) << header << ": the marker >>" << m << " is not in THE PIECES";
    }
    for (const std::string &n : names) {
        bool found = false;
        for (const std::string &m : markers) found = found || covers(n, m);
        EXPECT_TRUE(found) << header << ": THE PIECES lists >>" << n << ", which no section marker opens";
    }
}

} // namespace

TEST(Manual, EveryHeadersPiecesNameEverySectionMarker) {
    for (const char *h : {"umap_knn.h", "umap.h", "umap_vk.h"}) expect_pieces_match_markers(h);
}

TEST(Manual, TheMatcherCatchesAMissingOrStaleEntry) {
    std::vector<std::string> lines = {"   THE PIECES", "   >>ir         nodes", "   >>gone       stale", "*/",
                                      "/* >>ir ---", "/* >>passes / >>plan ---", "x = y >> 2;"};
    std::vector<std::string> names = listed_pieces(lines), markers = section_markers(lines);
    ASSERT_EQ(names, (std::vector<std::string>{"ir", "gone"}));
    ASSERT_EQ(markers.size(), 3u) << "a shift in code is no marker";
    EXPECT_TRUE(covers("ir", markers[0]));
    EXPECT_TRUE(covers("passes", markers[1]));
    EXPECT_TRUE(covers("plan", markers[2]));
    EXPECT_FALSE(covers("pass", markers[1])) << "a name is a whole word";
    EXPECT_TRUE(covers("modelfile", "modelfile-json: a reader"));
}

TEST(Manual, EachManualSaysHowToExtendIt) {
    EXPECT_NE(slurp("umap.h").find("ADDING AN OP"), std::string::npos);
    EXPECT_NE(slurp("umap_knn.h").find("ADDING A METRIC"), std::string::npos);
    EXPECT_NE(slurp("umap_vk.h").find("ADDING A KERNEL"), std::string::npos);
}

/* Every file the project writes goes through umap_output (staged, created
   exclusively, links never followed): the only fopen for writing in the
   headers and the programs (cli/, scripts/, examples/, bench/) is
   umap_output's own, in umap.h's >>output section. A new writer that calls fopen(path, "w") fails here. */
TEST(Manual, EveryFileWrittenGoesThroughTheStagedOutput) {
    std::vector<std::string> files = {"umap_knn.h", "umap.h", "umap_vk.h"};
    for (const char *dir : {"cli", "scripts", "examples", "bench"})
        if (DIR *d = opendir(dir)) {
            while (struct dirent *e = readdir(d)) {
                std::string n = e->d_name;
                if (n.size() > 2 && (n.compare(n.size() - 2, 2, ".c") == 0 || n.compare(n.size() - 2, 2, ".h") == 0))
                    files.push_back(std::string(dir) + "/" + n);
            }
            closedir(d);
        }
    ASSERT_GE(files.size(), 14u) << "the programs are read from the repository root";
    int writers = 0;
    for (const std::string &f : files) {
        std::vector<std::string> lines = lines_of(slurp(f));
        ASSERT_FALSE(lines.empty()) << f;
        bool in_output = false;
        for (size_t i = 0; i < lines.size(); i++) {
            const std::string &l = lines[i];
            if (l.find("/* >>") != std::string::npos) in_output = l.find(">>output: staged files") != std::string::npos;
            for (size_t at = l.find("fopen("); at != std::string::npos; at = l.find("fopen(", at + 1)) {
                size_t q = l.find(", \"", at);
                if (q == std::string::npos) continue; /* prose, or a mode not written in place */
                std::string mode = l.substr(q + 3, l.find('"', q + 3) - q - 3);
                if (mode.find_first_of("wa+") == std::string::npos) continue;
                EXPECT_TRUE(f == "umap.h" && in_output) << f << ":" << i + 1 << ": writes a file with fopen(..., \"" << mode
                                                       << "\"): use umap_output_open (or _open_new)";
                writers++;
            }
        }
    }
    EXPECT_EQ(writers, 2) << "umap_output's two: a special file written in place, and the staged temporary";
}
