// .npy encoding and decoding (NumPy's documented format: magic, version, little-endian header
// length, a Python dict literal padded with spaces to a 64-byte boundary and ended by '\n').
#include "ir/interpret/Npy.h"

#include "ir/interpret/Numeric.h"

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace xtc::interp {

using ir::ElemKind;

std::string npyDescr(ElemKind k) {
  switch (k) {
    case ElemKind::I1: return "|b1";
    case ElemKind::I8: return "|i1";
    case ElemKind::I16: return "<i2";
    case ElemKind::I32: return "<i4";
    case ElemKind::I64: case ElemKind::Index: return "<i8";
    case ElemKind::F16: return "<f2";
    case ElemKind::BF16: return "<u2";
    case ElemKind::F32: case ElemKind::TF32: return "<f4";
    case ElemKind::F64: return "<f8";
  }
  return "";
}

namespace {

bool descrToElem(const std::string& d, ElemKind& k) {
  // '=' is native order, which is little-endian on every machine xtc runs on.
  std::string s = d;
  if (!s.empty() && s[0] == '=') s[0] = '<';
  if (s == "|b1") k = ElemKind::I1;
  else if (s == "|i1") k = ElemKind::I8;
  else if (s == "<i2") k = ElemKind::I16;
  else if (s == "<i4") k = ElemKind::I32;
  else if (s == "<i8") k = ElemKind::I64;
  else if (s == "<f2") k = ElemKind::F16;
  else if (s == "<u2") k = ElemKind::BF16;
  else if (s == "<f4") k = ElemKind::F32;
  else if (s == "<f8") k = ElemKind::F64;
  else return false;
  return true;
}

// A tiny reader for the header dict, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
struct HeaderReader {
  const std::string& s;
  size_t p = 0;
  void ws() { while (p < s.size() && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n')) ++p; }
  bool eat(char c) { ws(); if (p < s.size() && s[p] == c) { ++p; return true; } return false; }
  bool str(std::string& out) {
    ws();
    if (p >= s.size() || (s[p] != '\'' && s[p] != '"')) return false;
    char q = s[p++];
    size_t e = s.find(q, p);
    if (e == std::string::npos) return false;
    out = s.substr(p, e - p);
    p = e + 1;
    return true;
  }
  bool word(std::string& out) {
    ws();
    size_t b = p;
    while (p < s.size() && std::isalnum(static_cast<unsigned char>(s[p]))) ++p;
    out = s.substr(b, p - b);
    return !out.empty();
  }
};

bool fail(std::string* error, std::string msg) {
  if (error) *error = std::move(msg);
  return false;
}

}  // namespace

std::string encodeNpy(const Buffer& b) {
  std::ostringstream dict;
  dict << "{'descr': '" << npyDescr(b.elem) << "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < b.shape.size(); ++i) dict << b.shape[i] << (b.shape.size() == 1 ? "," : (i + 1 < b.shape.size() ? ", " : ""));
  dict << "), }";
  std::string header = dict.str();
  // Version 1.0 has a 2-byte header length; pad so magic+version+length+header is a multiple of 64.
  bool v2 = header.size() + 1 + 10 > 65535;
  size_t prefix = v2 ? 12 : 10;
  size_t total = prefix + header.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  header.append(padded - total, ' ');
  header.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back(static_cast<char>(v2 ? 2 : 1));
  out.push_back(0);
  uint32_t len = static_cast<uint32_t>(header.size());
  out.push_back(static_cast<char>(len & 0xff));
  out.push_back(static_cast<char>((len >> 8) & 0xff));
  if (v2) {
    out.push_back(static_cast<char>((len >> 16) & 0xff));
    out.push_back(static_cast<char>((len >> 24) & 0xff));
  }
  out += header;
  out.append(reinterpret_cast<const char*>(b.bytes.data()), b.bytes.size());
  return out;
}

bool decodeNpy(const std::string& bytes, Buffer& out, std::string* error) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
    return fail(error, "not a .npy file (missing the \\x93NUMPY magic)");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t hlen, start;
  auto byteAt = [&](size_t i) { return static_cast<size_t>(static_cast<unsigned char>(bytes[i])); };
  if (major == 1) {
    hlen = byteAt(8) | (byteAt(9) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return fail(error, "truncated .npy header");
    hlen = byteAt(8) | (byteAt(9) << 8) | (byteAt(10) << 16) | (byteAt(11) << 24);
    start = 12;
  } else {
    return fail(error, "unsupported .npy format version " + std::to_string(major));
  }
  if (bytes.size() < start + hlen) return fail(error, "truncated .npy header");
  std::string header = bytes.substr(start, hlen);
  HeaderReader r{header};
  std::string descr;
  bool haveDescr = false, haveOrder = false, haveShape = false, fortran = false;
  std::vector<int64_t> shape;
  if (!r.eat('{')) return fail(error, "malformed .npy header: expected '{'");
  while (!r.eat('}')) {
    std::string key;
    if (!r.str(key) || !r.eat(':')) return fail(error, "malformed .npy header near offset " + std::to_string(r.p));
    if (key == "descr") {
      if (!r.str(descr)) return fail(error, "malformed .npy header: 'descr' is not a string (structured dtypes are not supported)");
      haveDescr = true;
    } else if (key == "fortran_order") {
      std::string w;
      if (!r.word(w) || (w != "True" && w != "False")) return fail(error, "malformed .npy header: bad 'fortran_order'");
      fortran = w == "True";
      haveOrder = true;
    } else if (key == "shape") {
      if (!r.eat('(')) return fail(error, "malformed .npy header: 'shape' is not a tuple");
      while (!r.eat(')')) {
        std::string w;
        if (!r.word(w)) return fail(error, "malformed .npy header: bad 'shape'");
        for (char c : w)
          if (!std::isdigit(static_cast<unsigned char>(c))) return fail(error, "malformed .npy header: bad dimension '" + w + "'");
        // Digits only, so the one failure left is a value past int64 (std::stoll threw: an internal error).
        errno = 0;
        long long d = std::strtoll(w.c_str(), nullptr, 10);
        if (errno == ERANGE) return fail(error, "the .npy dimension " + w + " is too large");
        shape.push_back(d);
        r.eat(',');
      }
      haveShape = true;
    } else {
      return fail(error, "malformed .npy header: unknown key '" + key + "'");
    }
    r.eat(',');
  }
  if (!haveDescr || !haveOrder || !haveShape) return fail(error, "malformed .npy header: missing 'descr', 'fortran_order' or 'shape'");
  ElemKind k;
  if (!descrToElem(descr, k)) {
    if (!descr.empty() && descr[0] == '>') return fail(error, "big-endian .npy data ('" + descr + "') is not supported");
    return fail(error, "unsupported .npy dtype '" + descr + "' (supported: |b1 |i1 <i2 <i4 <i8 <f2 <u2(bf16) <f4 <f8)");
  }
  // The data size the header asks for, checked against the file before allocating it: a shape whose
  // byte count overflows 64 bits had wrapped ("need 0"), and one past the host's memory was
  // "internal error: std::bad_alloc".
  uint64_t need = elemBytes(k);
  for (int64_t d : shape)
    if (__builtin_mul_overflow(need, static_cast<uint64_t>(d), &need))
      return fail(error, "the .npy shape is too large: its size in bytes does not fit in 64 bits");
  size_t dataStart = start + hlen;
  if (bytes.size() - dataStart != need)
    return fail(error, "the .npy data has " + std::to_string(bytes.size() - dataStart) + " bytes; shape and dtype need " +
                           std::to_string(need));
  Buffer b(k, shape);
  if (!fortran || shape.size() < 2) {
    std::memcpy(b.bytes.data(), bytes.data() + dataStart, b.bytes.size());
  } else {
    // Column-major data: element with index (i0..in) is at sum(i_d * prod(shape[0..d))).
    unsigned es = b.elemSize();
    int64_t n = b.numElements();
    std::vector<int64_t> idx(shape.size(), 0);
    for (int64_t lin = 0; lin < n; ++lin) {
      int64_t src = 0, mul = 1;
      for (size_t d = 0; d < shape.size(); ++d) { src += idx[d] * mul; mul *= shape[d]; }
      std::memcpy(b.at(lin), bytes.data() + dataStart + src * es, es);
      for (size_t d = shape.size(); d-- > 0;) {
        if (++idx[d] < shape[d]) break;
        idx[d] = 0;
      }
    }
  }
  if (k == ElemKind::I1)
    for (uint8_t& v : b.bytes) v = v ? 1 : 0;
  out = std::move(b);
  return true;
}

// "cannot open 'PATH'[ for writing]: REASON" (errno of the failed open, as for source files).
static std::string openError(const std::string& path, const char* what, int err) {
  return "cannot open '" + path + "'" + what + (err ? std::string(": ") + std::strerror(err) : std::string());
}

bool writeNpy(const std::string& path, const Buffer& b, std::string* error) {
  errno = 0;
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return fail(error, openError(path, " for writing", errno));
  std::string data = encodeNpy(b);
  f.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!f) return fail(error, "cannot write '" + path + "'");
  return true;
}

bool readNpy(const std::string& path, Buffer& out, std::string* error) {
  errno = 0;
  std::ifstream f(path, std::ios::binary);
  if (!f) return fail(error, openError(path, "", errno));
  std::ostringstream ss;
  ss << f.rdbuf();
  std::string e;
  if (!decodeNpy(ss.str(), out, &e)) return fail(error, path + ": " + e);
  return true;
}

}  // namespace xtc::interp
