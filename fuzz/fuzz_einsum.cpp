// The einsum subscript parser and contraction planner (docs/testing.md). The first bytes give
// the operand shapes (up to 16 operands: the exact planner for up to 12, the greedy one beyond;
// extents from 0 to 2^62), the rest is the subscript string, any bytes. einsum_path must throw
// a tensora::Error or return a plan that is valid: one label list per operand of its rank,
// extents that match the shapes (or broadcast from 1), steps that name operands of the current
// list, a last step that leaves the output's labels, sizes that are the exact products. Small
// plans are also run, on the serial and the 3-thread engine (the same bits), and checked
// against a nested loop over every label.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tensora/tensora.hpp"

namespace {

namespace ta = tensora;

[[noreturn]] void fail(const std::string& what, const std::string& subscripts) {
  std::fprintf(stderr, "fuzz_einsum: '%s': %s\n", subscripts.c_str(), what.c_str());
  std::abort();
}

constexpr std::int64_t kExtents[] = {1, 2, 3, 0, 1, 2, 4, 5, std::int64_t{1} << 20, std::int64_t{1} << 31,
                                     std::int64_t{1} << 40, std::int64_t{1} << 62};

void check_plan(const ta::EinsumPath& path, const std::vector<ta::Shape>& shapes, const std::string& text) {
  if (path.inputs.size() != shapes.size()) fail("one label list per operand", text);
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    if (path.inputs[k].size() != shapes[k].size()) fail("labels of operand " + std::to_string(k), text);
    for (std::size_t a = 0; a < shapes[k].size(); ++a) {
      const auto it = path.extents.find(path.inputs[k][a]);
      if (it == path.extents.end()) fail("a label without extent", text);
      if (shapes[k][a] != it->second && shapes[k][a] != 1) fail("an extent that does not match", text);
    }
  }
  std::set<std::int64_t> out(path.output.begin(), path.output.end());
  if (out.size() != path.output.size()) fail("a repeated output label", text);
  for (auto id : path.output)
    if (!path.extents.count(id)) fail("an output label without extent", text);
  std::vector<std::vector<std::int64_t>> list = path.inputs;
  if (shapes.size() > 1 && path.steps.size() != shapes.size() - 1) fail("n - 1 steps", text);
  std::int64_t largest = 0;
  for (const auto& step : path.steps) {
    const auto n = static_cast<std::int64_t>(list.size());
    if (step.lhs < 0 || step.rhs < 0 || step.lhs >= n || step.rhs >= n || step.lhs == step.rhs)
      fail("a step names operands outside the list", text);
    std::set<std::int64_t> have(list[static_cast<std::size_t>(step.lhs)].begin(), list[static_cast<std::size_t>(step.lhs)].end());
    have.insert(list[static_cast<std::size_t>(step.rhs)].begin(), list[static_cast<std::size_t>(step.rhs)].end());
    std::int64_t size = 1;
    for (auto id : step.labels) {
      if (!have.count(id)) fail("a step result has a label neither operand has", text);
      size *= path.extents.at(id);
    }
    if (size != step.result_size) fail("a step's result_size is not the product of its extents", text);
    if (!(step.flops >= 0)) fail("negative or NaN flops", text);
    largest = std::max(largest, size);
    list.erase(list.begin() + std::max(step.lhs, step.rhs));
    list.erase(list.begin() + std::min(step.lhs, step.rhs));
    list.push_back(step.labels);
  }
  if (largest != path.largest_intermediate) fail("largest_intermediate", text);
  if (list.size() != 1) fail("the steps do not leave one operand", text);
  // One operand has no steps: its diagonal and sums are taken when it runs.
  if (!path.steps.empty())
    for (auto id : list[0])
      if (!out.count(id)) fail("the last step keeps a label the output does not have", text);
}

// sum over every label of prod_k x_k[labels of k], for the output's labels.
std::vector<double> nested_loop(const ta::EinsumPath& path, const std::vector<ta::Shape>& shapes,
                                const std::vector<std::vector<double>>& xs) {
  std::vector<std::int64_t> ids;
  for (const auto& [id, n] : path.extents) ids.push_back(id);
  std::map<std::int64_t, std::int64_t> at;
  for (auto id : ids) at[id] = 0;
  std::int64_t out_size = 1;
  for (auto id : path.output) out_size *= path.extents.at(id);
  std::vector<double> out(static_cast<std::size_t>(out_size), 0.0);
  for (auto id : ids)
    if (path.extents.at(id) == 0) return out;  // an empty sum
  for (;;) {
    double term = 1;
    for (std::size_t k = 0; k < shapes.size(); ++k) {
      std::int64_t flat = 0, stride = 1;  // column-major, broadcast axes read index 0
      for (std::size_t a = 0; a < shapes[k].size(); ++a) {
        flat += (shapes[k][a] == 1 ? 0 : at[path.inputs[k][a]]) * stride;
        stride *= shapes[k][a];
      }
      term *= xs[k][static_cast<std::size_t>(flat)];
    }
    std::int64_t o = 0, stride = 1;
    for (auto id : path.output) {
      o += at[id] * stride;
      stride *= path.extents.at(id);
    }
    out[static_cast<std::size_t>(o)] += term;
    std::size_t i = 0;
    for (; i < ids.size(); ++i) {
      if (++at[ids[i]] < path.extents.at(ids[i])) break;
      at[ids[i]] = 0;
    }
    if (i == ids.size()) break;
  }
  return out;
}

void run_small(const ta::EinsumPath& path, const std::vector<ta::Shape>& shapes, const std::string& text) {
  static auto serial = ta::CpuEngine::serial();
  static auto threads = ta::CpuEngine::parallel(3);
  std::vector<ta::Tensor> operands;
  std::vector<std::vector<double>> xs;
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    std::vector<double> v(static_cast<std::size_t>(ta::numel(shapes[k])));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 7 + k * 3) % 5) - 2;  // exact
    operands.push_back(ta::Tensor::from_vec_col_major(shapes[k], v));
    xs.push_back(std::move(v));
  }
  const ta::Tensor got = ta::einsum(text, operands, serial);
  const ta::Tensor again = ta::einsum(path, operands, threads);
  const auto want = nested_loop(path, shapes, xs);
  const auto a = got.to_vec<double>(), b = again.to_vec<double>();
  if (a != b) fail("serial and 3-thread results differ", text);
  if (a.size() != want.size()) fail("result size", text);
  for (std::size_t i = 0; i < a.size(); ++i)  // small integers: every order of summation is exact
    if (a[i] != want[i]) fail("element " + std::to_string(i) + " differs from the nested loop", text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::size_t at = 0;
  auto next = [&]() -> std::uint8_t { return at < size ? data[at++] : 0; };
  std::vector<ta::Shape> shapes(1 + next() % 16);
  bool small = true;
  for (auto& s : shapes) {
    s.resize(next() % 5);
    for (auto& x : s) {
      x = kExtents[next() % std::size(kExtents)];
      small = small && x <= 5;
    }
  }
  const std::string text(reinterpret_cast<const char*>(data) + at, size - at);
  ta::EinsumPath path;
  try {
    path = ta::einsum_path(text, shapes);
  } catch (const ta::Error&) {
    return 0;  // any other exception escapes and is reported
  }
  check_plan(path, shapes, text);
  if (small && path.naive_flops <= 2e5 && shapes.size() <= 6) run_small(path, shapes, text);
  return 0;
}
