// einsum against a naive nested-loop reference, path quality, and errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <map>

#include "tensora/tensora.hpp"

namespace ta = tensora;
using ta::DType;
using ta::Tensor;
using ::testing::HasSubstr;

namespace {

ta::CpuEngine& engine() {
  static ta::CpuEngine e = ta::CpuEngine::serial();
  return e;
}

// Naive einsum over letter subscripts (with "->"), every label looped, in long double.
std::vector<long double> naive(const std::string& subs, const std::vector<Tensor>& ops, ta::Shape* out_shape) {
  const auto arrow = subs.find("->");
  std::vector<std::string> terms;
  std::string lhs = subs.substr(0, arrow), rhs = subs.substr(arrow + 2);
  for (std::size_t s = 0;;) {
    auto c = lhs.find(',', s);
    terms.push_back(lhs.substr(s, c == std::string::npos ? c : c - s));
    if (c == std::string::npos) break;
    s = c + 1;
  }
  std::map<char, std::int64_t> extent;
  std::vector<std::vector<double>> values;
  for (std::size_t k = 0; k < ops.size(); ++k) {
    for (std::size_t a = 0; a < terms[k].size(); ++a) {
      auto& e = extent[terms[k][a]];
      e = std::max(e, ops[k].shape()[a]);
    }
    values.push_back(ops[k].cast(DType::F64, engine()).to_vec<double>());
  }
  std::vector<char> labels;
  for (auto& [c, n] : extent) labels.push_back(c);
  out_shape->clear();
  for (char c : rhs) out_shape->push_back(extent[c]);
  std::vector<long double> out(static_cast<std::size_t>(ta::numel(*out_shape)), 0.0L);
  std::int64_t total = 1;
  for (char c : labels) total *= extent[c];
  // Arrays by letter, not maps: the loop runs millions of times in sanitizer builds.
  std::array<std::int64_t, 128> idx{}, ext{};
  for (char c : labels) ext[static_cast<unsigned char>(c)] = extent[c];
  for (std::int64_t flat = 0; flat < total; ++flat) {
    std::int64_t rest = flat;
    for (char c : labels) {
      idx[static_cast<unsigned char>(c)] = rest % ext[static_cast<unsigned char>(c)];
      rest /= ext[static_cast<unsigned char>(c)];
    }
    long double prod = 1;
    for (std::size_t k = 0; k < ops.size(); ++k) {
      std::int64_t off = 0, mul = 1;
      for (std::size_t a = 0; a < terms[k].size(); ++a) {
        const auto n = ops[k].shape()[a];
        off += (n == 1 ? 0 : idx[static_cast<unsigned char>(terms[k][a])]) * mul;  // extent 1 broadcasts
        mul *= n;
      }
      prod *= values[k][static_cast<std::size_t>(off)];
    }
    std::int64_t o = 0, mul = 1;
    for (char c : rhs) {
      o += idx[static_cast<unsigned char>(c)] * mul;
      mul *= ext[static_cast<unsigned char>(c)];
    }
    out[static_cast<std::size_t>(o)] += prod;
  }
  return out;
}

Tensor rnd(ta::Shape shape, std::uint64_t seed, DType dtype = DType::F64) {
  return Tensor::uniform(std::move(shape), seed, {ta::Device::cpu(), DType::F64}, -1, 1).cast(dtype, engine());
}

void expect_matches(const std::string& subs, const std::vector<Tensor>& ops, double tol = 1e-12) {
  SCOPED_TRACE(subs);
  ta::Shape shape;
  const auto want = naive(subs, ops, &shape);
  const Tensor got = ta::einsum(subs, ops, engine());
  ASSERT_EQ(got.shape(), shape);
  EXPECT_TRUE(got.is_contiguous()) << "einsum results are dense column-major";
  const auto g = got.cast(DType::F64, engine()).to_vec<double>();
  ASSERT_EQ(g.size(), want.size());
  for (std::size_t i = 0; i < g.size(); ++i)
    EXPECT_NEAR(g[i], static_cast<double>(want[i]), tol * (1 + std::fabs(static_cast<double>(want[i]))));
}

}  // namespace

TEST(Einsum, MatchesNaiveSumOnClassicForms) {
  expect_matches("ij,jk->ik", {rnd({3, 4}, 1), rnd({4, 5}, 2)});
  expect_matches("ij,jk->ki", {rnd({3, 4}, 1), rnd({4, 5}, 2)});
  expect_matches("ii->", {rnd({4, 4}, 3)});
  expect_matches("ii->i", {rnd({4, 4}, 3)});
  expect_matches("i,j->ij", {rnd({3}, 4), rnd({5}, 5)});
  expect_matches("ij->", {rnd({3, 4}, 6)});
  expect_matches("ij->ji", {rnd({3, 4}, 6)});
  expect_matches("ij->j", {rnd({3, 4}, 6)});
  expect_matches("bij,bjk->bik", {rnd({2, 3, 4}, 7), rnd({2, 4, 5}, 8)});
  expect_matches("abc,cbd->ad", {rnd({3, 4, 5}, 9), rnd({5, 4, 2}, 10)});
  expect_matches("iij,jk->ik", {rnd({3, 3, 4}, 11), rnd({4, 2}, 12)});
  expect_matches("ij,ij->ij", {rnd({3, 4}, 13), rnd({3, 4}, 14)});
  expect_matches("ij,ij->", {rnd({3, 4}, 13), rnd({3, 4}, 14)});
  expect_matches("ij,kl->ijkl", {rnd({2, 3}, 15), rnd({2, 2}, 16)});
  // Products large enough for the BLAS, the batch first and last, steps stored for the BLAS.
  expect_matches("bij,bjk->bik", {rnd({3, 90, 85}, 17), rnd({3, 85, 95}, 18)});
  expect_matches("jib,kjb->kib", {rnd({85, 90, 3}, 17), rnd({95, 85, 3}, 18)});
  expect_matches("bij,bjk->kbi", {rnd({2, 90, 85}, 19), rnd({2, 85, 95}, 20)});
}

TEST(Einsum, EllipsisAndBroadcasting) {
  const Tensor a = rnd({2, 3, 4}, 20), b = rnd({2, 4, 5}, 21);
  const Tensor got = ta::einsum("...ij,...jk->...ik", {a, b}, engine());
  const Tensor want = ta::einsum("bij,bjk->bik", {a, b}, engine());
  EXPECT_EQ(got.shape(), (ta::Shape{2, 3, 5}));
  EXPECT_EQ(got.to_vec<double>(), want.to_vec<double>());
  // Extent-1 axes broadcast against the other operand.
  expect_matches("ij,ij->ij", {rnd({1, 4}, 22), rnd({3, 4}, 23)});
  expect_matches("ij,jk->ik", {rnd({3, 1}, 24), rnd({4, 5}, 25)});
  // Ellipsis of different ranks broadcasts right-aligned, summed when the output drops it.
  const Tensor c = rnd({3, 2, 4}, 26), d = rnd({4}, 27);
  EXPECT_EQ(ta::einsum("...j,j->...", {c, d}, engine()).shape(), (ta::Shape{3, 2}));
  EXPECT_EQ(ta::einsum("...j,j->", {c, d}, engine()).shape(), ta::Shape{});
}

TEST(Einsum, SixOperandNetworkAndMatrixChain) {
  expect_matches("ab,bc,cd,de,ea,af->f",
                 {rnd({3, 4}, 30), rnd({4, 2}, 31), rnd({2, 5}, 32), rnd({5, 3}, 33), rnd({3, 3}, 34), rnd({3, 2}, 35)});
  expect_matches("ab,bc,cd,de,ef->af",
                 {rnd({4, 6}, 40), rnd({6, 3}, 41), rnd({3, 7}, 42), rnd({7, 2}, 43), rnd({2, 5}, 44)});
  expect_matches("ij,jk->ik", {rnd({3, 4}, 45, DType::F32), rnd({4, 5}, 46, DType::F32)}, 1e-5);
  expect_matches("ij,jk->ik", {rnd({3, 4}, 47, DType::C128), rnd({4, 5}, 48, DType::C128)});
}

TEST(Einsum, ProgrammaticLabelsMatchSubscripts) {
  const Tensor a = rnd({3, 4}, 50), b = rnd({4, 5}, 51);
  const Tensor got = ta::einsum({{100, 7}, {7, 3}}, {100, 3}, {a, b}, engine());
  EXPECT_EQ(got.to_vec<double>(), ta::einsum("ij,jk->ik", {a, b}, engine()).to_vec<double>());
}

TEST(Einsum, PathOfATenMatrixChainIsOptimal) {
  // Classic matrix-chain dynamic programming, independent of the planner.
  const std::vector<std::int64_t> dims = {30, 35, 15, 5, 10, 20, 25, 7, 40, 3, 12};
  const std::size_t n = dims.size() - 1;
  std::vector<std::vector<double>> best(n, std::vector<double>(n, 0));
  for (std::size_t len = 2; len <= n; ++len)
    for (std::size_t i = 0; i + len <= n; ++i) {
      const std::size_t j = i + len - 1;
      best[i][j] = INFINITY;
      for (std::size_t k = i; k < j; ++k)
        best[i][j] = std::min(best[i][j], best[i][k] + best[k + 1][j] +
                                              2.0 * static_cast<double>(dims[i] * dims[k + 1] * dims[j + 1]));
    }
  std::string subs;
  std::vector<ta::Shape> shapes;
  for (std::size_t m = 0; m < n; ++m) {
    subs += std::string(1, static_cast<char>('a' + m)) + static_cast<char>('a' + m + 1) + (m + 1 < n ? "," : "");
    shapes.push_back({dims[m], dims[m + 1]});
  }
  subs += std::string("->a") + static_cast<char>('a' + n);
  const ta::EinsumPath path = ta::einsum_path(subs, shapes);
  EXPECT_TRUE(path.optimal);
  EXPECT_EQ(path.steps.size(), n - 1);
  EXPECT_LE(path.flops, best[0][n - 1] * 1.01);
  EXPECT_LT(path.flops, path.naive_flops);
  EXPECT_THAT(path.to_string(), HasSubstr("step 0: contract"));
}

TEST(Einsum, PlannedPathCanBeReused) {
  const Tensor a = rnd({3, 4}, 60), b = rnd({4, 5}, 61), c = rnd({5, 2}, 62);
  const ta::EinsumPath path = ta::einsum_path("ij,jk,kl->il", {a, b, c});
  const Tensor once = ta::einsum(path, {a, b, c}, engine());
  EXPECT_EQ(once.to_vec<double>(), ta::einsum("ij,jk,kl->il", {a, b, c}, engine()).to_vec<double>());
  try {
    ta::einsum(path, {a, b, rnd({6, 2}, 63)}, engine());
    FAIL() << "no throw";
  } catch (const ta::Error& e) {
    EXPECT_EQ(e.kind(), ta::ErrorKind::Validation);
    EXPECT_THAT(e.what(), HasSubstr("operand 2"));
  }
}

TEST(Einsum, ManyOperandsUseTheGreedyPlanner) {
  std::string subs;
  std::vector<ta::Shape> shapes;
  for (int m = 0; m < 14; ++m) {
    subs += std::string(1, static_cast<char>('a' + m)) + static_cast<char>('a' + m + 1) + (m + 1 < 14 ? "," : "");
    shapes.push_back({2, 2});
  }
  subs += "->ao";
  const ta::EinsumPath path = ta::einsum_path(subs, shapes);
  EXPECT_FALSE(path.optimal);
  EXPECT_EQ(path.steps.size(), 13u);
}

TEST(Einsum, ErrorsNameTheSubscriptAndOperand) {
  const Tensor a = rnd({3, 4}, 70), b = rnd({5, 2}, 71);
  auto message = [&](auto&& f) {
    try {
      f();
    } catch (const ta::Error& e) {
      return std::string(e.what());
    }
    return std::string("no throw");
  };
  EXPECT_THAT(message([&] { ta::einsum("ij,jk", {a, b}, engine()); }), HasSubstr("missing '->'"));
  EXPECT_THAT(message([&] { ta::einsum("ij,jk->ik", {a, b}, engine()); }),
              HasSubstr("label 'j' has extent 4 in operand 0 ('ij') and 5 in operand 1 ('jk')"));
  EXPECT_THAT(message([&] { ta::einsum("ijk,jk->ik", {a, b}, engine()); }),
              HasSubstr("operand 0 has rank 2 but its subscript 'ijk' names 3 axes"));
  EXPECT_THAT(message([&] { ta::einsum("ij->iz", {a}, engine()); }),
              HasSubstr("output label 'z' in '->iz' does not appear in any input"));
  EXPECT_THAT(message([&] { ta::einsum("ij->ii", {a}, engine()); }), HasSubstr("appears twice"));
  EXPECT_THAT(message([&] { ta::einsum("i1,jk->ik", {a, b}, engine()); }),
              HasSubstr("invalid character '1' in subscript 'i1' of operand 0"));
  EXPECT_THAT(message([&] { ta::einsum("ij->ij", {a, b}, engine()); }), HasSubstr("1 subscripts in 'ij' for 2 operands"));
  EXPECT_THAT(message([&] { ta::einsum("ii->i", {a}, engine()); }), HasSubstr("repeated in operand 0 ('ii')"));
  EXPECT_THAT(message([&] { ta::einsum("ij,jk->ik", {a, rnd({4, 2}, 72, DType::F32)}, engine()); }),
              HasSubstr("einsum: dtype mismatch: expected F64, actual F32 (operand 1)"));
  try {
    ta::einsum("ij,jk->ik", {a, b}, engine());
  } catch (const ta::Error& e) {
    EXPECT_EQ(e.kind(), ta::ErrorKind::Validation);
    EXPECT_NE(std::get_if<ta::ShapeMismatch>(&e.detail()), nullptr);
  }
}
