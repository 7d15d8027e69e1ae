// Diagnostics shared by every stage of xtc: a source manager that owns the text of each input file
// and a diagnostics engine that prints `file:line:col: error: message`, the source line, a caret and
// `~~~` range underlining, with notes attached to their error. Columns are counted the way clang counts
// them (1-based, in bytes). When printed, tabs are expanded to the next multiple of 8 in both the source
// line and the caret line, and a multi-byte UTF-8 character takes one display column, so the caret lines
// up on a terminal. Diagnostics without a valid location print as `xtc: error: message`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>
#include <iosfwd>

namespace xtc {

// A position in a source file. `file` is interned by the SourceManager (shared, cheap to copy);
// line and col are 1-based; line == 0 means "no location" (e.g. a command-line error).
struct SourceLoc {
  std::shared_ptr<const std::string> file;
  uint32_t line = 0;
  uint32_t col = 0;
  bool valid() const { return file && line != 0; }
  bool operator==(const SourceLoc& o) const {
    return line == o.line && col == o.col && ((!file && !o.file) || (file && o.file && *file == *o.file));
  }
};

// A half-open range on one line, [begin, begin+length) in columns; length 0 means caret only.
struct SourceRange {
  SourceLoc begin;
  uint32_t length = 0;
};

// Owns the contents of every file a run reads, so diagnostics can show the offending line.
class SourceManager {
public:
  // Reads a file; returns false (and leaves `error` set) if it cannot be read.
  bool addFile(const std::string& path, std::string* error);
  // Registers in-memory text under a name (tests, stdin, the IR parser's input).
  void addBuffer(const std::string& name, std::string text);
  // The text of a registered file or nullptr.
  const std::string* text(const std::string& name) const;
  // The interned name used in SourceLoc::file.
  std::shared_ptr<const std::string> intern(const std::string& name);
  // Location of a byte offset in a registered file (1-based line/col; col counts bytes).
  SourceLoc locFromOffset(const std::string& name, size_t offset);
  // The text of line `line` (1-based) without its line terminator ("\n" or "\r\n").
  std::string_view lineText(const std::string& name, uint32_t line) const;

private:
  struct File {
    std::shared_ptr<const std::string> name;
    std::string text;
    std::vector<size_t> lineStarts;
    bool hasText = false;  // false for names only interned (no text registered)
  };
  File* find(const std::string& name);
  const File* find(const std::string& name) const;
  std::vector<std::unique_ptr<File>> files_;
};

// Remark: an optional report of what the compiler did or did not do (`--remarks`, as clang's -R):
// never an error, not counted, not promoted by -Werror.
enum class Severity { Note, Remark, Warning, Error };
enum class ColorMode { Auto, Always, Never };

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceRange range;
  std::string message;
  std::vector<Diagnostic> notes;  // printed right after their parent, in order
};

// Collects and prints diagnostics in the order they are reported (deterministic).
// Usage: diags.error(loc, "message").note(otherLoc, "defined here");
class DiagnosticEngine {
public:
  explicit DiagnosticEngine(SourceManager& sm, std::ostream& out);
  // Prints whatever is still pending.
  ~DiagnosticEngine();
  DiagnosticEngine(const DiagnosticEngine&) = delete;
  DiagnosticEngine& operator=(const DiagnosticEngine&) = delete;

  class Builder {
  public:
    Builder(DiagnosticEngine* e, size_t index) : engine_(e), index_(index) {}
    Builder& note(const SourceRange& range, std::string message);
    Builder& note(const SourceLoc& loc, std::string message) { return note(SourceRange{loc, 0}, std::move(message)); }
  private:
    DiagnosticEngine* engine_;
    size_t index_;
  };

  Builder error(const SourceRange& range, std::string message);
  Builder error(const SourceLoc& loc, std::string message) { return error(SourceRange{loc, 0}, std::move(message)); }
  Builder warning(const SourceRange& range, std::string message);
  Builder warning(const SourceLoc& loc, std::string message) { return warning(SourceRange{loc, 0}, std::move(message)); }
  Builder remark(const SourceLoc& loc, std::string message) { return report(Severity::Remark, SourceRange{loc, 0}, std::move(message)); }

  // Prints every diagnostic not printed yet (with its notes). Called by the driver at the end of each
  // stage, and by the destructor. Once the error limit is reached, the next report() or flush() prints
  // the pending diagnostics and `xtc: fatal error: too many errors emitted, stopping now
  // [-ferror-limit=]` (once); later reports are dropped.
  void flush();

  unsigned errorCount() const { return errors_; }
  unsigned warningCount() const { return warnings_; }
  bool hasErrors() const { return errors_ != 0; }
  // True once the error limit was reached; stages should stop early.
  bool limitReached() const { return errorLimit_ != 0 && errors_ >= errorLimit_; }

  void setErrorLimit(unsigned n) { errorLimit_ = n; }   // 0 = unlimited; default 20
  void setWarningsAsErrors(bool b) { werror_ = b; }
  void setRemarks(bool b) { remarks_ = b; }              // --remarks; without it remark() drops them
  bool remarksEnabled() const { return remarks_; }
  void setColor(ColorMode m);                           // Auto: colour only when `out` is a terminal
  bool colorEnabled() const { return color_; }
  SourceManager& sources() { return sm_; }
  // Every diagnostic accepted so far (printed or not), in report order; dropped ones (beyond the
  // error limit) are not included. Severity is the effective one (a warning under -Werror is an Error).
  const std::vector<Diagnostic>& diagnostics() const { return diags_; }

private:
  static constexpr size_t kDropped = static_cast<size_t>(-1);
  Builder report(Severity s, const SourceRange& range, std::string message);
  void addNote(size_t index, Diagnostic note);
  void print(const Diagnostic& d);
  void printOne(const Diagnostic& d);
  void printFatalLimit();
  SourceManager& sm_;
  std::ostream& out_;
  std::vector<Diagnostic> diags_;
  size_t printed_ = 0;  // diags_[0, printed_) are on `out_` already
  unsigned errors_ = 0, warnings_ = 0, errorLimit_ = 20;
  bool werror_ = false, color_ = false, limitNoted_ = false, remarks_ = false;
};

// Returns `auto|always|never` as a ColorMode; false if `text` is none of them.
bool parseColorMode(std::string_view text, ColorMode* mode);

}  // namespace xtc
