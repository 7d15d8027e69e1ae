// .npy reading and writing. The reference files are written byte by byte following NumPy's format
// description (magic, version, header length, dict, space padding to 64 bytes, '\n', raw data).
#include "ir/interpret/Npy.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

using namespace xtc::interp;
using xtc::ir::ElemKind;

namespace {
// What numpy 1.x writes for np.save(f, np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)).
std::string numpyF32File() {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  std::string h = dict + std::string(128 - 10 - dict.size() - 1, ' ') + "\n";
  std::string s = std::string("\x93NUMPY\x01\x00", 8);
  s.push_back(static_cast<char>(h.size()));
  s.push_back(0);
  s += h;
  const float v[6] = {1, 2, 3, 4, 5, 6};
  s.append(reinterpret_cast<const char*>(v), sizeof v);
  return s;
}
}  // namespace

TEST(Npy, ReadsNumpyFile) {
  std::string f = numpyF32File();
  ASSERT_EQ(f.size(), 128u + 24u);
  Buffer b;
  std::string err;
  ASSERT_TRUE(decodeNpy(f, b, &err)) << err;
  EXPECT_EQ(b.elem, ElemKind::F32);
  EXPECT_EQ(b.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(b.getFloat(0), 1.0);
  EXPECT_EQ(b.getFloat(5), 6.0);
}

TEST(Npy, WritesTheSameBytesAsNumpy) {
  Buffer b(ElemKind::F32, {2, 3});
  for (int i = 0; i < 6; ++i) b.setFloat(i, i + 1);
  EXPECT_EQ(encodeNpy(b), numpyF32File());
}

TEST(Npy, FortranOrderAndVersion2AndBool) {
  // shape (2, 3) int32 in column-major order: memory holds a[0,0], a[1,0], a[0,1], ...
  std::string dict = "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }";
  std::string h = dict + std::string(128 - 12 - dict.size() - 1, ' ') + "\n";
  std::string s = std::string("\x93NUMPY\x02\x00", 8);
  s.push_back(static_cast<char>(h.size()));
  s.append(3, '\0');
  s += h;
  const int32_t v[6] = {1, 4, 2, 5, 3, 6};  // a = [[1,2,3],[4,5,6]]
  s.append(reinterpret_cast<const char*>(v), sizeof v);
  Buffer b;
  std::string err;
  ASSERT_TRUE(decodeNpy(s, b, &err)) << err;
  EXPECT_EQ(b.elem, ElemKind::I32);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(b.getInt(i), i + 1);

  std::string bd = "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }";
  std::string bh = bd + std::string(128 - 10 - bd.size() - 1, ' ') + "\n";
  std::string bs = std::string("\x93NUMPY\x01\x00", 8);
  bs.push_back(static_cast<char>(bh.size()));
  bs.push_back(0);
  bs += bh;
  bs += std::string("\x01\x00\x01", 3);
  ASSERT_TRUE(decodeNpy(bs, b, &err)) << err;
  EXPECT_EQ(b.elem, ElemKind::I1);
  EXPECT_EQ(b.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(b.getInt(0), 1);
  EXPECT_EQ(b.getInt(1), 0);
  EXPECT_EQ(encodeNpy(b), bs);
}

TEST(Npy, Bf16IsRawUint16) {
  Buffer b(ElemKind::BF16, {2});
  b.setFloat(0, 1.0);
  b.setFloat(1, -2.0);
  std::string s = encodeNpy(b);
  EXPECT_NE(s.find("'descr': '<u2'"), std::string::npos);
  // Raw data at the end: 0x3F80, 0xC000 little-endian.
  EXPECT_EQ(s.substr(s.size() - 4), std::string("\x80\x3F\x00\xC0", 4));
  Buffer r;
  std::string err;
  ASSERT_TRUE(decodeNpy(s, r, &err)) << err;
  EXPECT_EQ(r.elem, ElemKind::BF16);
  EXPECT_EQ(r.getFloat(1), -2.0);
}

TEST(Npy, RoundTripEveryType) {
  for (ElemKind k : {ElemKind::I1, ElemKind::I8, ElemKind::I16, ElemKind::I32, ElemKind::I64, ElemKind::F16,
                     ElemKind::BF16, ElemKind::F32, ElemKind::F64}) {
    Buffer b(k, {3, 1, 2});
    for (int i = 0; i < 6; ++i) b.setInt(i, (i % 2) ? i : -i / 2);
    if (k == ElemKind::I1) for (int i = 0; i < 6; ++i) b.setInt(i, i % 2);
    std::string path = ::testing::TempDir() + "/xtc_npy_" + std::to_string(static_cast<int>(k)) + ".npy";
    std::string err;
    ASSERT_TRUE(writeNpy(path, b, &err)) << err;
    Buffer r;
    ASSERT_TRUE(readNpy(path, r, &err)) << err;
    EXPECT_EQ(r.elem, k);
    EXPECT_EQ(r.shape, b.shape);
    EXPECT_EQ(r.bytes, b.bytes);
    std::string file = encodeNpy(b);
    EXPECT_EQ((file.size() - b.bytes.size()) % 64, 0u);
    std::remove(path.c_str());
  }
}

TEST(Npy, Errors) {
  Buffer b;
  std::string err;
  EXPECT_FALSE(decodeNpy("hello", b, &err));
  EXPECT_NE(err.find("magic"), std::string::npos);
  std::string f = numpyF32File();
  EXPECT_FALSE(decodeNpy(f.substr(0, f.size() - 4), b, &err));
  EXPECT_NE(err.find("bytes"), std::string::npos);
  std::string big = f;
  big.replace(big.find("<f4"), 3, ">f4");
  EXPECT_FALSE(decodeNpy(big, b, &err));
  EXPECT_NE(err.find("big-endian"), std::string::npos);
  EXPECT_FALSE(readNpy("/nonexistent/x.npy", b, &err));
}
