// Finite-difference and JVP/VJP checks of the reduction, contraction and structural AD rules.
#include <random>

#include "test_eager_check.hpp"

namespace {

using namespace eager_test;
using ta::EagerSession;
using ta::EagerTensor;
using Xs = std::vector<EagerTensor>;

TEST(EagerGradReductions, MatchFiniteDifferences) {
  const ta::Tensor x = rnd({3, 4}, 21, 0.5, 1.5);
  const ta::Tensor xt = rnd({4, 3}, 22, 0.5, 1.5).transpose();
  for (const auto& in : {x, xt}) {
    check_gradients("sum all", [](EagerSession& s, const Xs& v) { return s.sum(v[0]); }, {in});
    check_gradients("sum axis 1 keepdims",
                    [](EagerSession& s, const Xs& v) {
                      return s.sum(v[0], {1}, {true, 0});
                    },
                    {in});
    check_gradients("mean axis 0", [](EagerSession& s, const Xs& v) { return s.mean(v[0], {0}); },
                    {in});
    check_gradients("prod axis -1", [](EagerSession& s, const Xs& v) { return s.prod(v[0], {-1}); },
                    {in});
    check_gradients("max axis 0", [](EagerSession& s, const Xs& v) { return s.max(v[0], {0}); },
                    {in});
    check_gradients("min all", [](EagerSession& s, const Xs& v) { return s.min(v[0]); }, {in});
    check_gradients("var ddof 1",
                    [](EagerSession& s, const Xs& v) {
                      return s.var(v[0], {1}, {false, 1});
                    },
                    {in});
    check_gradients("std all", [](EagerSession& s, const Xs& v) { return s.std(v[0]); }, {in});
    check_gradients("logsumexp axis 1",
                    [](EagerSession& s, const Xs& v) { return s.logsumexp(v[0], {1}); }, {in});
    check_gradients("cumsum axis 1", [](EagerSession& s, const Xs& v) { return s.cumsum(v[0], 1); },
                    {in});
    check_gradients("cumprod axis 0",
                    [](EagerSession& s, const Xs& v) { return s.cumprod(v[0], 0); }, {in});
  }
}

TEST(EagerGradReductions, MaxTiesSplitEvenly) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  auto x = rt.variable_from(ta::Tensor::from_vec_col_major<double>({4}, {3, 1, 3, 3}));
  rt.with_eager_session(e, [&](EagerSession& s) { s.max(x).backward(); });
  const auto g = x.grad().to_vec<double>();
  EXPECT_NEAR(g[0], 1.0 / 3, 1e-15);
  EXPECT_EQ(g[1], 0.0);
  EXPECT_NEAR(g[3], 1.0 / 3, 1e-15);
}

TEST(EagerGradContractions, MatchFiniteDifferences) {
  auto mm = [](EagerSession& s, const Xs& v) { return s.matmul(v[0], v[1]); };
  check_gradients("matmul", mm, {rnd({2, 3}, 31), rnd({3, 4}, 32)});
  check_gradients("matmul transposed", mm,
                  {rnd({3, 2}, 33).transpose(), rnd({4, 3}, 34).transpose()});
  check_gradients("matmul batch broadcast", mm, {rnd({2, 2, 3}, 35), rnd({3, 2}, 36)});
  check_gradients("matmul vec-mat", mm, {rnd({3}, 37), rnd({3, 2}, 38)});
  check_gradients("matmul vec-vec", mm, {rnd({3}, 39), rnd({3}, 40)});
  check_gradients("dot_general batch",
                  [](EagerSession& s, const Xs& v) {
                    return s.dot_general(v[0], v[1], ta::DotGeneralConfig{{0}, {2}, {2}, {0}});
                  },
                  {rnd({2, 3, 4}, 41), rnd({4, 5, 2}, 42)});
  check_gradients("einsum",
                  [](EagerSession& s, const Xs& v) {
                    return s.einsum("ij,jk,k->i", {v[0], v[1], v[2]});
                  },
                  {rnd({2, 3}, 43), rnd({3, 4}, 44), rnd({4}, 45)});
  check_gradients("einsum summed label",
                  [](EagerSession& s, const Xs& v) {
                    return s.einsum("ijk,j->j", {v[0], v[1]});
                  },
                  {rnd({2, 3, 2}, 46), rnd({3}, 47)});
  check_gradients("einsum repeated labels (trace and diagonal)",
                  [](EagerSession& s, const Xs& v) {
                    return s.einsum("iij,jk,kk->ik", {v[0], v[1], v[2]});
                  },
                  {rnd({3, 3, 2}, 48), rnd({2, 4}, 49), rnd({4, 4}, 50)});
}

TEST(EagerGradStructural, ViewsMatchFiniteDifferences) {
  const ta::Tensor x = rnd({2, 3, 4}, 51);
  check_gradients("reshape",
                  [](EagerSession& s, const Xs& v) {
                    return s.reshape(v[0], {4, 6});
                  },
                  {x});
  check_gradients("permute",
                  [](EagerSession& s, const Xs& v) {
                    return s.permute(v[0], {2, 0, 1});
                  },
                  {x});
  check_gradients("transpose", [](EagerSession& s, const Xs& v) { return s.transpose(v[0]); }, {x});
  check_gradients("transpose pair",
                  [](EagerSession& s, const Xs& v) { return s.transpose(v[0], 0, -1); }, {x});
  check_gradients("broadcast_to",
                  [](EagerSession& s, const Xs& v) {
                    return s.broadcast_to(v[0], {2, 2, 3, 4});
                  },
                  {rnd({2, 1, 4}, 52)});
  check_gradients("slice", [](EagerSession& s, const Xs& v) { return s.slice(v[0], 2, 1, 3); },
                  {x});
  check_gradients("slice step",
                  [](EagerSession& s, const Xs& v) {
                    return s.slice(v[0], -1, std::nullopt, std::nullopt, -2);
                  },
                  {x});
  check_gradients("squeeze/unsqueeze",
                  [](EagerSession& s, const Xs& v) { return s.unsqueeze(s.squeeze(v[0], {1}), 0); },
                  {rnd({2, 1, 3}, 53)});
  check_gradients("reverse",
                  [](EagerSession& s, const Xs& v) {
                    return s.reverse(v[0], {0, 2});
                  },
                  {x});
  check_gradients("pad",
                  [](EagerSession& s, const Xs& v) {
                    return s.pad(v[0], {{1, 0}, {0, 2}, {0, 0}});
                  },
                  {x});
  // Edge and reflect padding gather input positions; corners repeat along both axes.
  check_gradients("pad edge",
                  [](EagerSession& s, const Xs& v) {
                    return s.pad(v[0], {{2, 1}, {0, 3}, {1, 0}}, {ta::PadMode::Edge, 0});
                  },
                  {x});
  check_gradients("pad reflect",
                  [](EagerSession& s, const Xs& v) {
                    return s.pad(v[0], {{1, 1}, {2, 0}, {0, 0}}, {ta::PadMode::Reflect, 0});
                  },
                  {x});
  check_gradients("concat",
                  [](EagerSession& s, const Xs& v) {
                    return s.concat({v[0], v[1]}, 1);
                  },
                  {rnd({2, 3}, 54), rnd({2, 2}, 55)});
  check_gradients("stack",
                  [](EagerSession& s, const Xs& v) {
                    return s.stack({v[0], v[1]}, -1);
                  },
                  {rnd({2, 3}, 56), rnd({2, 3}, 57)});
  check_gradients("split",
                  [](EagerSession& s, const Xs& v) {
                    const auto p = s.split(v[0], {1, 3}, 2);
                    return s.add(s.mul(p[0], 2.0), s.sum(p[1], {2}, {true, 0}));
                  },
                  {x});
  check_gradients("tril", [](EagerSession& s, const Xs& v) { return s.tril(v[0], 0); },
                  {rnd({3, 3}, 58)});
  check_gradients("triu", [](EagerSession& s, const Xs& v) { return s.triu(v[0], 1); },
                  {rnd({2, 3, 4}, 59)});
  check_gradients("diagonal",
                  [](EagerSession& s, const Xs& v) { return s.diagonal(v[0], 1, 0, 2); }, {x});
  check_gradients("diagonal below",
                  [](EagerSession& s, const Xs& v) { return s.diagonal(v[0], -1, 2, 1); }, {x});
  check_gradients("embed_diag", [](EagerSession& s, const Xs& v) { return s.embed_diag(v[0], -1); },
                  {rnd({2, 3}, 60)});
}

TEST(EagerGradStructural, IndexingMatchesFiniteDifferences) {
  const auto idx = ta::Tensor::from_vec_col_major<std::int64_t>({2, 2}, {0, 2, 2, -1});
  check_gradients(
      "take_along_axis",
      [idx](EagerSession& s, const Xs& v) { return s.take_along_axis(v[0], s.constant(idx), 1); },
      {rnd({2, 3}, 61)});
  check_gradients(
      "gather broadcast",
      [](EagerSession& s, const Xs& v) {
        return s.gather(
            v[0], s.constant(ta::Tensor::from_vec_col_major<std::int64_t>({1, 3}, {1, 1, 0})), 1);
      },
      {rnd({2, 3}, 62)});
  check_gradients("index_select",
                  [](EagerSession& s, const Xs& v) {
                    return s.index_select(
                        v[0], 0,
                        s.constant(ta::Tensor::from_ints(
                            {2, 0, 2}, ta::TensorOptions(ta::Device::cpu(0), ta::DType::I64))));
                  },
                  {rnd({3, 2}, 63)});
  check_gradients(
      "scatter_add",
      [](EagerSession& s, const Xs& v) {
        const auto i = ta::Tensor::from_vec_col_major<std::int64_t>({2, 2}, {0, 1, 0, 2});
        return s.scatter_add(v[0], 1, s.constant(i), v[1]);
      },
      {rnd({2, 3}, 64), rnd({2, 3}, 65)});
}

}  // namespace

namespace {

// Random ranks, extents (1 to 4) and axis sets for the other families, on column-major and
// transposed inputs.
TEST(EagerGradRandomShapes, ReductionsContractionsAndViews) {
  std::mt19937 rng(77);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 10; ++trial) {
    const int rank = pick(1, 3);
    ta::Shape shape;
    for (int d = 0; d < rank; ++d) shape.push_back(pick(1, 4));
    std::vector<std::int64_t> axes;
    for (int d = 0; d < rank; ++d)
      if (pick(0, 1) == 1) axes.push_back(pick(0, 1) == 1 ? d : d - rank);  // some negative
    if (axes.empty()) axes.push_back(0);
    const bool keep = pick(0, 1) == 1;
    const auto seed = static_cast<std::uint64_t>(700 + trial);
    ta::Tensor x = rnd(shape, seed, 0.5, 1.5);
    if (rank >= 2 && pick(0, 1) == 1) {  // the same logical shape through a transposed view
      ta::Shape swapped = shape;
      std::swap(swapped[0], swapped[1]);
      x = rnd(swapped, seed, 0.5, 1.5).transpose(0, 1);
    }
    const std::string tag = " trial " + std::to_string(trial);
    check_gradients("sum" + tag, [=](EagerSession& s, const Xs& v) { return s.sum(v[0], axes, {keep, 0}); }, {x});
    check_gradients("mean" + tag, [=](EagerSession& s, const Xs& v) { return s.mean(v[0], axes, {keep, 0}); }, {x});
    check_gradients("max" + tag, [=](EagerSession& s, const Xs& v) { return s.max(v[0], axes, {keep, 0}); }, {x});
    check_gradients("logsumexp" + tag,
                    [=](EagerSession& s, const Xs& v) { return s.logsumexp(v[0], axes, {keep, 0}); }, {x});
    check_gradients("prod" + tag, [=](EagerSession& s, const Xs& v) { return s.prod(v[0], axes, {keep, 0}); }, {x});
    check_gradients("reverse + cumsum" + tag,
                    [=](EagerSession& s, const Xs& v) { return s.cumsum(s.reverse(v[0], axes), axes[0]); }, {x});
    // A batched product with random extents: [b, m, k] x [b, k, n] with b broadcast from 1.
    const std::int64_t b = pick(1, 3), m = pick(1, 4), k = pick(1, 4), n = pick(1, 4);
    check_gradients("matmul" + tag, [](EagerSession& s, const Xs& v) { return s.matmul(v[0], v[1]); },
                    {rnd({b, m, k}, seed + 50), rnd({pick(0, 1) == 1 ? b : 1, k, n}, seed + 51)});
  }
}

}  // namespace
