// Unit tests for ir/support: SourceManager, the clang-style DiagnosticEngine (carets with tabs and
// UTF-8, ranges, notes, error limit, colours, -Werror, remarks, no-location errors, CRLF) and OutputFile
// (atomic writes; nothing left behind on abort).
#include "ir/support/Diagnostics.h"
#include "ir/support/OutputFile.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

namespace xtc {
namespace {

// One engine printing into a string, with a file "t.xt" holding `text`.
struct Fixture {
  explicit Fixture(std::string text) : diags(sm, out) {
    sm.addBuffer("t.xt", std::move(text));
  }
  SourceLoc at(uint32_t line, uint32_t col) { return SourceLoc{sm.intern("t.xt"), line, col}; }
  std::string flushed() {
    diags.flush();
    return out.str();
  }
  SourceManager sm;
  std::ostringstream out;
  DiagnosticEngine diags;
};

int countOf(const std::string& haystack, const std::string& needle) {
  int n = 0;
  for (size_t p = haystack.find(needle); p != std::string::npos; p = haystack.find(needle, p + 1)) ++n;
  return n;
}

TEST(Diagnostics, ErrorWithCaret) {
  Fixture f("kernel k() {\n  x = foo(1)\n}\n");
  f.diags.error(f.at(2, 7), "unknown function 'foo'");
  EXPECT_EQ(f.flushed(),
            "t.xt:2:7: error: unknown function 'foo'\n"
            "  x = foo(1)\n"
            "      ^\n");
  EXPECT_EQ(f.diags.errorCount(), 1u);
}

TEST(Diagnostics, RangeIsUnderlined) {
  Fixture f("  x = foo(1)\n");
  f.diags.error(SourceRange{f.at(1, 7), 6}, "bad call");
  EXPECT_EQ(f.flushed(),
            "t.xt:1:7: error: bad call\n"
            "  x = foo(1)\n"
            "      ^~~~~~\n");
}

TEST(Diagnostics, RangeIsClippedAtEndOfLine) {
  Fixture f("abc\ndef\n");
  f.diags.error(SourceRange{f.at(1, 2), 50}, "too long");
  EXPECT_EQ(f.flushed(), "t.xt:1:2: error: too long\nabc\n ^~\n");
}

TEST(Diagnostics, CaretPastEndOfLine) {
  Fixture f("x = 1\n");
  f.diags.error(f.at(1, 6), "expected ';'");
  EXPECT_EQ(f.flushed(), "t.xt:1:6: error: expected ';'\nx = 1\n     ^\n");
}

TEST(Diagnostics, TabsAreExpandedInBothLines) {
  // Byte column 2 is 'x' after a leading tab: it is displayed at column 9.
  Fixture f("\tx = 1\n");
  f.diags.error(f.at(1, 2), "here");
  EXPECT_EQ(f.flushed(), "t.xt:1:2: error: here\n        x = 1\n        ^\n");
}

TEST(Diagnostics, TabInTheMiddleAndRangeAcrossIt) {
  // "ab\tcd": the tab at byte 3 expands to columns 3..8, 'c' sits at display column 9.
  Fixture f("ab\tcd\n");
  f.diags.error(f.at(1, 4), "c");
  f.diags.error(SourceRange{f.at(1, 2), 3}, "b to c");  // 'b', tab, 'c'
  EXPECT_EQ(f.flushed(),
            "t.xt:1:4: error: c\nab      cd\n        ^\n"
            "t.xt:1:2: error: b to c\nab      cd\n ^~~~~~~~\n");
}

TEST(Diagnostics, Utf8CharactersTakeOneColumn) {
  // "é" and "→" are 2 and 3 bytes. 'y' is byte column 8 but display column 5.
  std::string line = "\xC3\xA9 \xE2\x86\x92 y + 1";
  Fixture f(line + "\n");
  f.diags.error(f.at(1, 8), "unknown name 'y'");
  EXPECT_EQ(f.flushed(), "t.xt:1:8: error: unknown name 'y'\n" + line + "\n    ^\n");
}

TEST(Diagnostics, Utf8RangeCountsCodePoints) {
  // Range over "é →" (6 bytes, 3 display columns) starting at byte 1.
  std::string line = "\xC3\xA9 \xE2\x86\x92 y";
  Fixture f(line + "\n");
  f.diags.warning(SourceRange{f.at(1, 1), 6}, "w");
  EXPECT_EQ(f.flushed(), "t.xt:1:1: warning: w\n" + line + "\n^~~\n");
}

TEST(Diagnostics, NotesFollowTheirErrorWithTheirOwnCaret) {
  Fixture f("#a = wg_map<sg_layout = [8, 4]>\nt = load_tile(x) : tile<8x8xf32, #a>\n");
  f.diags.error(SourceRange{f.at(2, 35), 2}, "wg_map does not divide the tile")
      .note(SourceRange{f.at(1, 6), 6}, "wg_map defined here")
      .note(SourceLoc{}, "sg_layout * sg_data must divide the shape");
  f.diags.warning(f.at(2, 1), "unused value");
  EXPECT_EQ(f.flushed(),
            "t.xt:2:35: error: wg_map does not divide the tile\n"
            "t = load_tile(x) : tile<8x8xf32, #a>\n"
            "                                  ^~\n"
            "t.xt:1:6: note: wg_map defined here\n"
            "#a = wg_map<sg_layout = [8, 4]>\n"
            "     ^~~~~~\n"
            "xtc: note: sg_layout * sg_data must divide the shape\n"
            "t.xt:2:1: warning: unused value\n"
            "t = load_tile(x) : tile<8x8xf32, #a>\n"
            "^\n");
  ASSERT_EQ(f.diags.diagnostics().size(), 2u);
  EXPECT_EQ(f.diags.diagnostics()[0].notes.size(), 2u);
  EXPECT_EQ(f.diags.warningCount(), 1u);
}

TEST(Diagnostics, ReportOrderIsKept) {
  Fixture f("a\nb\nc\n");
  f.diags.error(f.at(3, 1), "third line first");
  f.diags.warning(f.at(1, 1), "then the first");
  f.diags.error(f.at(2, 1), "then the second");
  std::string s = f.flushed();
  size_t p3 = s.find("t.xt:3:1"), p1 = s.find("t.xt:1:1"), p2 = s.find("t.xt:2:1");
  ASSERT_NE(p3, std::string::npos);
  ASSERT_NE(p1, std::string::npos);
  ASSERT_NE(p2, std::string::npos);
  EXPECT_LT(p3, p1);
  EXPECT_LT(p1, p2);
}

TEST(Diagnostics, DestructorPrintsWhatIsPending) {
  SourceManager sm;
  std::ostringstream out;
  {
    DiagnosticEngine diags(sm, out);
    diags.error(SourceLoc{}, "reported but never flushed");
    EXPECT_EQ(out.str(), "");
  }
  EXPECT_EQ(out.str(), "xtc: error: reported but never flushed\n");
}

TEST(Diagnostics, NoteAddedAfterFlushIsStillPrinted) {
  Fixture f("x\n");
  auto builder = f.diags.error(f.at(1, 1), "e");
  f.diags.flush();
  builder.note(SourceLoc{}, "late note");
  EXPECT_EQ(f.flushed(), "t.xt:1:1: error: e\nx\n^\nxtc: note: late note\n");
}

TEST(Diagnostics, NoLocation) {
  Fixture f("");
  f.diags.error(SourceLoc{}, "cannot open 'missing.xt': No such file or directory");
  EXPECT_EQ(f.flushed(), "xtc: error: cannot open 'missing.xt': No such file or directory\n");
}

TEST(Diagnostics, LocationInAFileWithoutTextPrintsNoSnippet) {
  Fixture f("");
  f.diags.error(SourceLoc{f.sm.intern("other.xt"), 4, 2}, "m");
  EXPECT_EQ(f.flushed(), "other.xt:4:2: error: m\n");
}

TEST(Diagnostics, CrlfLinesLoseTheirCarriageReturn) {
  Fixture f("first\r\nsecond line\r\nthird");
  SourceLoc loc = f.sm.locFromOffset("t.xt", 7 + 7);  // the 'l' of "line"
  EXPECT_EQ(loc.line, 2u);
  EXPECT_EQ(loc.col, 8u);
  EXPECT_EQ(f.sm.lineText("t.xt", 2), "second line");
  EXPECT_EQ(f.sm.lineText("t.xt", 3), "third");
  EXPECT_EQ(f.sm.lineText("t.xt", 4), "");
  f.diags.error(SourceRange{loc, 4}, "here");
  std::string s = f.flushed();
  EXPECT_EQ(s, "t.xt:2:8: error: here\nsecond line\n       ^~~~\n");
  EXPECT_EQ(s.find('\r'), std::string::npos);
}

TEST(Diagnostics, ErrorLimitStopsAndSaysSoOnce) {
  Fixture f("x\n");
  f.diags.setErrorLimit(3);
  for (int i = 0; i < 6; ++i) f.diags.error(SourceLoc{}, "e" + std::to_string(i)).note(SourceLoc{}, "n");
  f.diags.warning(SourceLoc{}, "late warning");
  std::string s = f.flushed();
  f.diags.flush();  // a second flush prints nothing new
  EXPECT_EQ(f.out.str(), s);
  EXPECT_EQ(countOf(s, "xtc: error: "), 3);
  EXPECT_EQ(countOf(s, "xtc: note: n"), 3);
  EXPECT_EQ(countOf(s, "too many errors emitted, stopping now [-ferror-limit=]"), 1);
  EXPECT_EQ(s.find("e3"), std::string::npos);
  EXPECT_EQ(s.find("late warning"), std::string::npos);
  EXPECT_TRUE(s.ends_with("xtc: fatal error: too many errors emitted, stopping now [-ferror-limit=]\n"));
  EXPECT_TRUE(f.diags.limitReached());
  EXPECT_EQ(f.diags.errorCount(), 3u);
}

TEST(Diagnostics, DefaultErrorLimitIs20AndZeroMeansNone) {
  Fixture f("");
  for (int i = 0; i < 25; ++i) f.diags.error(SourceLoc{}, "e");
  EXPECT_EQ(f.diags.errorCount(), 20u);
  Fixture g("");
  g.diags.setErrorLimit(0);
  for (int i = 0; i < 25; ++i) g.diags.error(SourceLoc{}, "e");
  EXPECT_EQ(g.diags.errorCount(), 25u);
  EXPECT_FALSE(g.diags.limitReached());
  EXPECT_EQ(g.flushed().find("fatal"), std::string::npos);
}

TEST(Diagnostics, WarningsAsErrors) {
  Fixture f("x\n");
  f.diags.setWarningsAsErrors(true);
  f.diags.warning(f.at(1, 1), "unused value");
  EXPECT_EQ(f.flushed(), "t.xt:1:1: error: unused value [-Werror]\nx\n^\n");
  EXPECT_EQ(f.diags.errorCount(), 1u);
  EXPECT_EQ(f.diags.warningCount(), 0u);
  EXPECT_TRUE(f.diags.hasErrors());
}

TEST(Diagnostics, RemarksOnlyWithTheOptionNeverCountedOrPromoted) {
  Fixture f("x\n");
  f.diags.setWarningsAsErrors(true);
  f.diags.remark(f.at(1, 1), "dropped without --remarks");
  EXPECT_EQ(f.flushed(), "");
  f.diags.setRemarks(true);
  f.diags.remark(f.at(1, 1), "loop compiled op by op").note(f.at(1, 1), "why");
  EXPECT_EQ(f.flushed(), "t.xt:1:1: remark: loop compiled op by op\nx\n^\nt.xt:1:1: note: why\nx\n^\n");
  EXPECT_EQ(f.diags.errorCount(), 0u);
  EXPECT_EQ(f.diags.warningCount(), 0u);
  EXPECT_FALSE(f.diags.hasErrors());
}

TEST(Diagnostics, WarningsAloneAreNotErrors) {
  Fixture f("x\n");
  f.diags.warning(f.at(1, 1), "unused value");
  EXPECT_FALSE(f.diags.hasErrors());
  EXPECT_EQ(f.diags.warningCount(), 1u);
}

TEST(Diagnostics, NoColourWhenNotATerminal) {
  Fixture f("x\n");
  f.diags.setColor(ColorMode::Auto);  // an ostringstream is never a terminal
  EXPECT_FALSE(f.diags.colorEnabled());
  f.diags.error(f.at(1, 1), "e");
  EXPECT_EQ(f.flushed().find('\033'), std::string::npos);
}

TEST(Diagnostics, ColourWhenAlways) {
  Fixture f("x\n");
  f.diags.setColor(ColorMode::Always);
  f.diags.error(f.at(1, 1), "e").note(f.at(1, 1), "n");
  f.diags.warning(f.at(1, 1), "w");
  std::string s = f.flushed();
  EXPECT_NE(s.find("\033[1mt.xt:1:1: \033[0;1;31merror: \033[0m\033[1me\033[0m\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\033[0;1;35mwarning: "), std::string::npos);
  EXPECT_NE(s.find("\033[0;1;30mnote: "), std::string::npos);
  EXPECT_NE(s.find("\033[0;1;32m^\033[0m"), std::string::npos);
  f.diags.setColor(ColorMode::Never);
  EXPECT_FALSE(f.diags.colorEnabled());
}

TEST(Diagnostics, ParseColorMode) {
  ColorMode m = ColorMode::Never;
  EXPECT_TRUE(parseColorMode("always", &m));
  EXPECT_EQ(m, ColorMode::Always);
  EXPECT_TRUE(parseColorMode("auto", &m));
  EXPECT_EQ(m, ColorMode::Auto);
  EXPECT_FALSE(parseColorMode("sometimes", &m));
}

TEST(SourceManager, LocationsFromOffsets) {
  SourceManager sm;
  sm.addBuffer("a.xt", "ab\ncd\n\nz");
  SourceLoc l = sm.locFromOffset("a.xt", 4);
  EXPECT_EQ(l.line, 2u);
  EXPECT_EQ(l.col, 2u);
  EXPECT_EQ(*l.file, "a.xt");
  EXPECT_EQ(sm.locFromOffset("a.xt", 6).line, 3u);
  SourceLoc z = sm.locFromOffset("a.xt", 7);
  EXPECT_EQ(z.line, 4u);
  EXPECT_EQ(z.col, 1u);
  SourceLoc end = sm.locFromOffset("a.xt", 100);  // clamped to the end of the text
  EXPECT_EQ(end.line, 4u);
  EXPECT_EQ(end.col, 2u);
  EXPECT_EQ(sm.intern("a.xt").get(), l.file.get());
  EXPECT_FALSE(sm.locFromOffset("unknown.xt", 0).valid());
  EXPECT_EQ(sm.text("unknown.xt"), nullptr);
}

// A fresh empty folder for file tests, removed (with everything left in it) at the end.
class TempDir {
public:
  TempDir() {
    std::string pattern = ::testing::TempDir() + "xtc-unit-XXXXXX";
    path_ = ::mkdtemp(pattern.data()) ? pattern : std::string();
  }
  ~TempDir() {
    for (const std::string& e : entries()) ::unlink((path_ + "/" + e).c_str());
    ::rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    if (DIR* d = ::opendir(path_.c_str())) {
      while (dirent* e = ::readdir(d))
        if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") names.push_back(e->d_name);
      ::closedir(d);
    }
    return names;
  }

private:
  std::string path_;
};

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

TEST(SourceManager, MissingFileAndDirectory) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  SourceManager sm;
  std::string err;
  EXPECT_FALSE(sm.addFile(dir.path() + "/missing.xt", &err));
  EXPECT_EQ(err, "cannot open '" + dir.path() + "/missing.xt': No such file or directory");
  EXPECT_FALSE(sm.addFile(dir.path(), &err));
  EXPECT_EQ(err, "cannot open '" + dir.path() + "': Is a directory");
  ASSERT_TRUE(writeFileAtomically(dir.path() + "/k.xt", "line1\nline2\n", &err)) << err;
  EXPECT_TRUE(sm.addFile(dir.path() + "/k.xt", &err));
  EXPECT_EQ(sm.lineText(dir.path() + "/k.xt", 2), "line2");
}

TEST(OutputFile, CommitWritesAndLeavesNoTemporary) {
  TempDir dir;
  std::string path = dir.path() + "/out.spv";
  {
    OutputFile out(path);
    ASSERT_TRUE(out.ok()) << out.error();
    out.write("hello");
    EXPECT_FALSE(exists(path));  // not visible before commit
    EXPECT_TRUE(exists(out.tempPath()));
    EXPECT_TRUE(out.commit()) << out.error();
  }
  EXPECT_EQ(readAll(path), "hello");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.spv"});
}

TEST(OutputFile, AbortLeavesNothingAndKeepsTheOldFile) {
  TempDir dir;
  std::string fresh = dir.path() + "/fresh.spv";
  std::string old = dir.path() + "/old.spv";
  std::string err;
  ASSERT_TRUE(writeFileAtomically(old, "previous", &err)) << err;
  {
    OutputFile a(fresh);
    a.write("partial");
    a.abort();
    OutputFile b(old);
    b.write("partial");
    // b is destroyed without commit: same as abort.
  }
  EXPECT_FALSE(exists(fresh));
  EXPECT_EQ(readAll(old), "previous");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"old.spv"});
}

TEST(OutputFile, KeepIfCommitsOnlyWithoutErrors) {
  TempDir dir;
  SourceManager sm;
  std::ostringstream log;
  DiagnosticEngine diags(sm, log);
  std::string good = dir.path() + "/good.spv", bad = dir.path() + "/bad.spv";
  {
    OutputFile out(good);
    out.write("ok");
    diags.warning(SourceLoc{}, "only a warning");
    EXPECT_TRUE(out.keepIf(diags));
  }
  EXPECT_EQ(readAll(good), "ok");
  {
    OutputFile out(bad);
    out.write("half");
    diags.error(SourceLoc{}, "semantic error");
    EXPECT_FALSE(out.keepIf(diags));
  }
  EXPECT_FALSE(exists(bad));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"good.spv"});
}

TEST(OutputFile, UnwritableFolderIsAnError) {
  TempDir dir;
  std::string path = dir.path() + "/no/such/folder/out.spv";
  std::string err;
  EXPECT_FALSE(writeFileAtomically(path, "x", &err));
  EXPECT_EQ(err, "cannot write '" + path + "': No such file or directory");
  SourceManager sm;
  std::ostringstream log;
  DiagnosticEngine diags(sm, log);
  OutputFile out(path);
  EXPECT_FALSE(out.ok());
  EXPECT_FALSE(out.keepIf(diags));
  diags.flush();
  EXPECT_EQ(log.str(), "xtc: error: cannot write '" + path + "': No such file or directory\n");
}

}  // namespace
}  // namespace xtc
