// Implementation of the source manager and the clang-style diagnostics engine declared in
// Diagnostics.h: line tables, caret/range rendering (tabs expanded to 8, UTF-8 aware), notes,
// colours, the error limit and -Werror.
#include "ir/support/Diagnostics.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <ostream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace xtc {

namespace {

constexpr unsigned kTabStop = 8;

// ANSI escapes matching clang's choices: bold locations and messages, bold red errors, bold magenta
// warnings, bold black (grey) notes, bold green carets.
constexpr const char* kReset = "\033[0m";
constexpr const char* kBold = "\033[1m";
constexpr const char* kRed = "\033[0;1;31m";
constexpr const char* kMagenta = "\033[0;1;35m";
constexpr const char* kNoteColor = "\033[0;1;30m";
constexpr const char* kGreen = "\033[0;1;32m";
constexpr const char* kBlue = "\033[0;1;34m";

void computeLineStarts(const std::string& text, std::vector<size_t>& starts) {
  starts.clear();
  starts.push_back(0);
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts.push_back(i + 1);
}

bool isUtf8Continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The line as it is shown (tabs expanded, other control characters as spaces) and, for every byte
// offset 0..size, the display column (0-based) at which that byte starts. A UTF-8 character takes one
// column; its continuation bytes share the column of its first byte.
struct RenderedLine {
  std::string shown;
  std::vector<unsigned> column;  // size = line.size() + 1
};

RenderedLine renderLine(std::string_view line) {
  RenderedLine r;
  r.column.reserve(line.size() + 1);
  unsigned col = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    if (isUtf8Continuation(c)) {
      r.column.push_back(col == 0 ? 0 : col - 1);
      r.shown.push_back(static_cast<char>(c));
      continue;
    }
    r.column.push_back(col);
    if (c == '\t') {
      unsigned next = (col / kTabStop + 1) * kTabStop;
      r.shown.append(next - col, ' ');
      col = next;
    } else if (c < 0x20 || c == 0x7F) {
      r.shown.push_back(' ');
      ++col;
    } else {
      r.shown.push_back(static_cast<char>(c));
      ++col;
    }
  }
  r.column.push_back(col);
  return r;
}

const char* severityLabel(Severity s) {
  switch (s) {
    case Severity::Note: return "note: ";
    case Severity::Remark: return "remark: ";
    case Severity::Warning: return "warning: ";
    case Severity::Error: return "error: ";
  }
  return "error: ";
}

const char* severityColor(Severity s) {
  switch (s) {
    case Severity::Note: return kNoteColor;
    case Severity::Remark: return kBlue;
    case Severity::Warning: return kMagenta;
    case Severity::Error: return kRed;
  }
  return kRed;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// SourceManager

SourceManager::File* SourceManager::find(const std::string& name) {
  for (auto& f : files_)
    if (*f->name == name) return f.get();
  return nullptr;
}

const SourceManager::File* SourceManager::find(const std::string& name) const {
  for (const auto& f : files_)
    if (*f->name == name) return f.get();
  return nullptr;
}

bool SourceManager::addFile(const std::string& path, std::string* error) {
  auto fail = [&](int err) {
    if (error) *error = "cannot open '" + path + "': " + std::strerror(err);
    return false;
  };
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return fail(err);
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return fail(EISDIR);
  }
  std::string text;
  if (S_ISREG(st.st_mode) && st.st_size > 0) text.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return fail(err);
    }
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  addBuffer(path, std::move(text));
  return true;
}

void SourceManager::addBuffer(const std::string& name, std::string text) {
  File* f = find(name);
  if (!f) {
    files_.push_back(std::make_unique<File>());
    f = files_.back().get();
    f->name = std::make_shared<const std::string>(name);
  }
  f->text = std::move(text);
  f->hasText = true;
  computeLineStarts(f->text, f->lineStarts);
}

const std::string* SourceManager::text(const std::string& name) const {
  const File* f = find(name);
  return f && f->hasText ? &f->text : nullptr;
}

std::shared_ptr<const std::string> SourceManager::intern(const std::string& name) {
  if (File* f = find(name)) return f->name;
  files_.push_back(std::make_unique<File>());
  File* f = files_.back().get();
  f->name = std::make_shared<const std::string>(name);
  f->hasText = false;
  return f->name;
}

SourceLoc SourceManager::locFromOffset(const std::string& name, size_t offset) {
  SourceLoc loc;
  loc.file = intern(name);
  const File* f = find(name);
  if (!f || !f->hasText) return loc;
  offset = std::min(offset, f->text.size());
  auto it = std::upper_bound(f->lineStarts.begin(), f->lineStarts.end(), offset);
  size_t lineIndex = static_cast<size_t>(it - f->lineStarts.begin()) - 1;
  loc.line = static_cast<uint32_t>(lineIndex + 1);
  loc.col = static_cast<uint32_t>(offset - f->lineStarts[lineIndex] + 1);
  return loc;
}

std::string_view SourceManager::lineText(const std::string& name, uint32_t line) const {
  const File* f = find(name);
  if (!f || !f->hasText || line == 0 || line > f->lineStarts.size()) return {};
  size_t begin = f->lineStarts[line - 1];
  size_t end = line < f->lineStarts.size() ? f->lineStarts[line] : f->text.size();
  std::string_view v(f->text.data() + begin, end - begin);
  if (!v.empty() && v.back() == '\n') v.remove_suffix(1);
  if (!v.empty() && v.back() == '\r') v.remove_suffix(1);
  return v;
}

// ---------------------------------------------------------------------------------------------
// DiagnosticEngine

bool parseColorMode(std::string_view text, ColorMode* mode) {
  if (text == "auto") *mode = ColorMode::Auto;
  else if (text == "always") *mode = ColorMode::Always;
  else if (text == "never") *mode = ColorMode::Never;
  else return false;
  return true;
}

DiagnosticEngine::DiagnosticEngine(SourceManager& sm, std::ostream& out) : sm_(sm), out_(out) {
  setColor(ColorMode::Auto);
}

DiagnosticEngine::~DiagnosticEngine() { flush(); }

void DiagnosticEngine::setColor(ColorMode m) {
  switch (m) {
    case ColorMode::Always: color_ = true; break;
    case ColorMode::Never: color_ = false; break;
    case ColorMode::Auto: {
      // Only the standard streams have a file descriptor we can ask; anything else is not a terminal.
      int fd = -1;
      if (&out_ == &std::cerr || &out_ == &std::clog) fd = STDERR_FILENO;
      else if (&out_ == &std::cout) fd = STDOUT_FILENO;
      const char* term = std::getenv("TERM");
      bool dumb = term && std::strcmp(term, "dumb") == 0;
      color_ = fd >= 0 && ::isatty(fd) == 1 && !dumb;
      break;
    }
  }
}

DiagnosticEngine::Builder& DiagnosticEngine::Builder::note(const SourceRange& range, std::string message) {
  Diagnostic n;
  n.severity = Severity::Note;
  n.range = range;
  n.message = std::move(message);
  engine_->addNote(index_, std::move(n));
  return *this;
}

DiagnosticEngine::Builder DiagnosticEngine::error(const SourceRange& range, std::string message) {
  return report(Severity::Error, range, std::move(message));
}

DiagnosticEngine::Builder DiagnosticEngine::warning(const SourceRange& range, std::string message) {
  return report(Severity::Warning, range, std::move(message));
}

DiagnosticEngine::Builder DiagnosticEngine::report(Severity s, const SourceRange& range, std::string message) {
  if (limitReached()) {
    // Everything after the limit is dropped; the fatal line is printed once.
    flush();
    return Builder(this, kDropped);
  }
  if (s == Severity::Remark && !remarks_) return Builder(this, kDropped);
  if (s == Severity::Warning && werror_) {
    s = Severity::Error;
    message += " [-Werror]";
  }
  Diagnostic d;
  d.severity = s;
  d.range = range;
  d.message = std::move(message);
  diags_.push_back(std::move(d));
  if (s == Severity::Error) ++errors_;
  else if (s == Severity::Warning) ++warnings_;
  return Builder(this, diags_.size() - 1);
}

void DiagnosticEngine::addNote(size_t index, Diagnostic note) {
  if (index == kDropped || index >= diags_.size()) return;
  diags_[index].notes.push_back(std::move(note));
  // The parent was already flushed: print the late note right away so it is not lost.
  if (index < printed_) {
    printOne(diags_[index].notes.back());
    out_.flush();
  }
}

void DiagnosticEngine::flush() {
  for (; printed_ < diags_.size(); ++printed_) print(diags_[printed_]);
  if (limitReached() && !limitNoted_) {
    limitNoted_ = true;
    printFatalLimit();
  }
  out_.flush();
}

void DiagnosticEngine::print(const Diagnostic& d) {
  printOne(d);
  for (const Diagnostic& n : d.notes) printOne(n);
}

void DiagnosticEngine::printFatalLimit() {
  if (color_) out_ << kBold;
  out_ << "xtc: ";
  if (color_) out_ << kRed;
  out_ << "fatal error: ";
  if (color_) out_ << kReset << kBold;
  out_ << "too many errors emitted, stopping now [-ferror-limit=]";
  if (color_) out_ << kReset;
  out_ << '\n';
}

void DiagnosticEngine::printOne(const Diagnostic& d) {
  const SourceLoc& loc = d.range.begin;
  const bool located = loc.valid();
  if (color_) out_ << kBold;
  if (located) {
    out_ << *loc.file << ':' << loc.line << ':';
    if (loc.col != 0) out_ << loc.col << ':';
    out_ << ' ';
  } else {
    out_ << "xtc: ";
  }
  if (color_) out_ << severityColor(d.severity);
  out_ << severityLabel(d.severity);
  if (color_) out_ << kReset;
  // clang prints error and warning text in bold, note text plain.
  if (color_ && d.severity != Severity::Note) out_ << kBold;
  out_ << d.message;
  if (color_ && d.severity != Severity::Note) out_ << kReset;
  out_ << '\n';

  if (!located || loc.col == 0 || !sm_.text(*loc.file)) return;
  std::string_view line = sm_.lineText(*loc.file, loc.line);
  RenderedLine r = renderLine(line);
  // Columns past the end of the line (e.g. "expected ';'" at the end) put the caret just after it.
  size_t begin = std::min<size_t>(loc.col - 1, line.size());
  size_t end = std::min<size_t>(begin + d.range.length, line.size());
  unsigned caretCol = r.column[begin];
  unsigned endCol = std::max(caretCol + 1, r.column[end]);

  out_ << r.shown << '\n';
  std::string caret(caretCol, ' ');
  caret.push_back('^');
  if (endCol > caretCol + 1) caret.append(endCol - caretCol - 1, '~');
  if (color_) out_ << kGreen;
  out_ << caret;
  if (color_) out_ << kReset;
  out_ << '\n';
}

}  // namespace xtc
