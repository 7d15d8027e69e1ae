// Implementation of OutputFile: mkstemp in the destination folder, permissions like a plain new
// file (0666 & ~umask), rename() on commit, unlink() on abort or destruction.
#include "ir/support/OutputFile.h"

#include "ir/support/Diagnostics.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace xtc {

namespace {

std::string describe(const std::string& path, int err) {
  return "cannot write '" + path + "': " + std::strerror(err);
}

mode_t currentUmask() {
  mode_t m = ::umask(0);
  ::umask(m);
  return m;
}

}  // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  if (path_ == "-") {
    toStdout_ = true;
    return;
  }
  std::string::size_type slash = path_.rfind('/');
  std::string dir = slash == std::string::npos ? std::string() : path_.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? path_ : path_.substr(slash + 1);
  std::string pattern = dir + "." + base + ".tmp-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  int fd = ::mkstemp(buf.data());
  if (fd < 0) {
    error_ = describe(path_, errno);
    return;
  }
  ::fchmod(fd, 0666 & ~currentUmask());
  ::close(fd);
  temp_ = buf.data();
  file_.open(temp_, std::ios::binary | std::ios::trunc);
  if (!file_) {
    error_ = describe(path_, errno ? errno : EIO);
    ::unlink(temp_.c_str());
    temp_.clear();
  }
}

OutputFile::~OutputFile() {
  if (!done_) abort();
}

std::ostream& OutputFile::stream() {
  if (toStdout_) return std::cout;
  return file_;
}

bool OutputFile::commit() {
  if (done_) return ok();
  done_ = true;
  if (toStdout_) {
    std::cout.flush();
    if (!std::cout) error_ = describe(path_, EIO);
    return ok();
  }
  if (!ok()) return false;
  file_.flush();
  bool good = static_cast<bool>(file_);
  file_.close();
  good = good && !file_.fail();
  if (!good) {
    error_ = describe(path_, errno ? errno : EIO);
    ::unlink(temp_.c_str());
    temp_.clear();
    return false;
  }
  if (::rename(temp_.c_str(), path_.c_str()) != 0) {
    error_ = describe(path_, errno);
    ::unlink(temp_.c_str());
    temp_.clear();
    return false;
  }
  temp_.clear();
  return true;
}

void OutputFile::abort() {
  done_ = true;
  if (file_.is_open()) file_.close();
  if (!temp_.empty()) {
    ::unlink(temp_.c_str());
    temp_.clear();
  }
}

bool OutputFile::keepIf(DiagnosticEngine& diags) {
  if (diags.hasErrors()) {
    abort();
    return false;
  }
  if (!commit()) {
    diags.error(SourceLoc{}, error_);
    return false;
  }
  return true;
}

bool writeFileAtomically(const std::string& path, std::string_view bytes, std::string* error) {
  OutputFile out(path);
  if (out.ok()) out.write(bytes);
  if (out.ok() && out.commit()) return true;
  if (error) *error = out.error();
  out.abort();
  return false;
}

}  // namespace xtc
