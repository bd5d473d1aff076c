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

// The place in the manual's list of the name that covers a marker: the
// longest one ("inspect" covers "inspect diff: ..."); -1 when none does.
int manual_place(const std::vector<std::string> &names, const std::string &marker) {
    int best = -1;
    for (size_t i = 0; i < names.size(); i++)
        if (covers(names[i], marker) && (best < 0 || names[i].size() > names[(size_t)best].size())) best = (int)i;
    return best;
}

struct Section {
    size_t line;        // where its marker stands (0-based)
    std::string marker; // the marker's first name
};

// The sections in file order: each marker line opens one, which runs to the
// next marker line or the end of the file.
std::vector<Section> sections_of(const std::vector<std::string> &lines) {
    std::vector<Section> out;
    for (size_t i = 0; i < lines.size(); i++) {
        std::vector<std::string> m = section_markers(std::vector<std::string>(1, lines[i]));
        for (const std::string &name : m) out.push_back(Section{i, name});
    }
    return out;
}

// How often the markers step back in the manual's order: 0 for a header
// that marks one half, 1 for one that marks the declarations and then the
// implementation, each in the manual's order.
int order_breaks(const std::vector<std::string> &names, const std::vector<Section> &secs) {
    int breaks = 0, last = -1;
    for (const Section &s : secs) {
        int at = manual_place(names, s.marker);
        if (at < last) breaks++;
        last = at;
    }
    return breaks;
}

const size_t kMaxSectionLines = 1500;

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

TEST(Manual, EveryHeadersSectionsFollowItsManualAndStayShort) {
    for (const char *h : {"umap_knn.h", "umap.h", "umap_vk.h"}) {
        std::vector<std::string> lines = lines_of(slurp(h));
        std::vector<std::string> names = listed_pieces(lines);
        std::vector<Section> secs = sections_of(lines);
        ASSERT_FALSE(secs.empty()) << h;
        EXPECT_LE(order_breaks(names, secs), 1)
            << h << ": the section markers are out of THE PIECES' order (declarations, then implementation)";
        for (size_t i = 0; i < secs.size(); i++) {
            size_t end = i + 1 < secs.size() ? secs[i + 1].line : lines.size();
            if (secs[i].marker.find("generated") != std::string::npos) continue; // data a tool writes
            EXPECT_LE(end - secs[i].line, kMaxSectionLines)
                << h << ": the section >>" << secs[i].marker << " (line " << secs[i].line + 1 << ") runs "
                << end - secs[i].line << " lines: split it, and list the new marker in THE PIECES";
        }
    }
}

TEST(Manual, TheOrderCheckCatchesAMarkerOutOfPlace) {
    std::vector<std::string> names = {"ir", "inspect", "umap", "graph"};
    std::vector<std::string> good = {"/* >>ir", "/* >>umap", "/* >>ir ---", "/* >>inspect diff: a", "/* >>umap", "/* >>graph"};
    std::vector<std::string> bad = {"/* >>ir", "/* >>umap", "/* >>ir ---", "/* >>graph", "/* >>inspect", "/* >>umap"};
    EXPECT_EQ(order_breaks(names, sections_of(good)), 1);
    EXPECT_EQ(order_breaks(names, sections_of(bad)), 2) << "graph before inspect in the implementation";
    EXPECT_EQ(manual_place(names, "inspect pictures: SVG"), 1);
    EXPECT_EQ(sections_of(good)[3].line, 3u);
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
