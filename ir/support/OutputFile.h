// Atomic output files: everything xtc writes goes to a temporary file in the destination's folder and
// is renamed over the destination only on commit, so a failed or interrupted run never leaves a
// partial or stale-looking output behind.
#pragma once

#include <fstream>
#include <string>
#include <string_view>

namespace xtc {

class DiagnosticEngine;

class OutputFile {
public:
  // Creates the temporary file next to `path` ("-" means standard output, written directly).
  // Check ok() / error() before writing.
  explicit OutputFile(std::string path);
  // Aborts (deletes the temporary file) unless commit() succeeded.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  bool ok() const { return error_.empty(); }
  // "cannot write 'PATH': REASON" once something failed.
  const std::string& error() const { return error_; }
  const std::string& path() const { return path_; }
  // The temporary file's name (empty for "-" or after commit/abort).
  const std::string& tempPath() const { return temp_; }

  std::ostream& stream();
  void write(std::string_view bytes) { stream().write(bytes.data(), static_cast<std::streamsize>(bytes.size())); }

  // Flushes, closes and renames the temporary file over `path`. Returns false (error() set) on failure,
  // in which case nothing is left behind.
  bool commit();
  // Removes the temporary file; `path` is untouched. Idempotent.
  void abort();
  // The usual end of a stage: commit if `diags` saw no error, else abort. A failure to commit is
  // reported to `diags` as an error. Returns true if the file was written.
  bool keepIf(DiagnosticEngine& diags);

private:
  std::string path_, temp_, error_;
  std::ofstream file_;
  bool toStdout_ = false, done_ = false;
};

// Writes `bytes` to `path` atomically. On failure returns false and sets `error`.
bool writeFileAtomically(const std::string& path, std::string_view bytes, std::string* error);

}  // namespace xtc
