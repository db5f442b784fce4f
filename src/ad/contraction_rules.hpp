// AD rules of the contractions. dot_general and einsum share one rule over integer labels:
// the cotangent of operand i is the einsum of the output cotangent with the other operands
// (conjugated) onto operand i's labels.
#pragma once

#include <algorithm>

#include "ad/builder.hpp"
#include "tensora/error.hpp"

namespace tensora::ad {

// matmul of operands of rank >= 2 (eager lifts 1-D operands first); batch axes broadcast.
struct MatmulRule {
  template <class B, class V = typename B::Value>
  static V mT(B& b, const V& x) {
    const auto r = static_cast<std::int64_t>(b.shape(x).size());
    Axes p(static_cast<std::size_t>(r));
    std::iota(p.begin(), p.end(), 0);
    std::swap(p[static_cast<std::size_t>(r - 1)], p[static_cast<std::size_t>(r - 2)]);
    return b.permute(x, p);
  }
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool* needs) const {
    if (needs[0]) gin[0] = sum_to(b, b.matmul(g, mT(b, b.conj(a.in[1]))), b.shape(a.in[0]));
    if (needs[1]) gin[1] = sum_to(b, b.matmul(mT(b, b.conj(a.in[0])), g), b.shape(a.in[1]));
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    return b.binary(BinaryOp::Add, b.matmul(t[0], a.in[1]), b.matmul(a.in[0], t[1]));
  }
};

// Removes repeated labels from one operand's labels (ii, iij) by calling
// take_diagonal(p, q) for each repeated pair at positions p < q; like diagonal(0, p, q), the
// diagonal axis goes last. The einsum rule then only sees distinct labels and the diagonal's own
// rule carries the cotangent back. Returns whether anything was taken.
template <class TakeDiagonal>
bool take_repeated_labels(Labels& labels, TakeDiagonal&& take_diagonal) {
  bool taken = false;
  for (bool found = true; found;) {
    found = false;
    for (std::size_t p = 0; p < labels.size() && !found; ++p)
      for (std::size_t q = p + 1; q < labels.size() && !found; ++q)
        if (labels[p] == labels[q]) {
          const std::int64_t label = labels[p];
          take_diagonal(static_cast<std::int64_t>(p), static_cast<std::int64_t>(q));
          labels.erase(labels.begin() + static_cast<std::ptrdiff_t>(q));
          labels.erase(labels.begin() + static_cast<std::ptrdiff_t>(p));
          labels.push_back(label);
          found = taken = true;
        }
  }
  return taken;
}

struct EinsumRule {
  std::vector<Labels> inputs;
  Labels output;

  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool* needs) const {
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (!needs[i]) continue;
      const Labels& want = inputs[i];
      Labels sorted = want;
      std::sort(sorted.begin(), sorted.end());
      if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
        throw Error(
            ErrorKind::Unsupported, "einsum",
            "the gradient of an operand with a repeated label (a diagonal) is not implemented; "
            "take the diagonal with diagonal() first");
      std::vector<Labels> labels{output};
      std::vector<V> ops{g};
      for (std::size_t j = 0; j < inputs.size(); ++j) {
        if (j == i) continue;
        labels.push_back(inputs[j]);
        ops.push_back(b.conj(a.in[j]));
      }
      // Labels only operand i has were summed away: broadcast over them afterwards.
      Labels have, target_shape_labels;
      for (auto l : want) {
        const bool seen = std::any_of(labels.begin(), labels.end(), [&](const Labels& ls) {
          return std::find(ls.begin(), ls.end(), l) != ls.end();
        });
        if (seen) have.push_back(l);
      }
      V r = b.einsum(labels, have, ops);
      const Shape in = b.shape(a.in[i]);
      Shape kept(in.size(), 1);
      std::size_t k = 0;
      for (std::size_t d = 0; d < want.size(); ++d) {
        if (k < have.size() && have[k] == want[d]) kept[d] = b.shape(r)[k++];
      }
      r = b.reshape(r, kept);
      // Extent-1 axes of operand i that broadcast in the forward sum back.
      r = sum_to(b, r, kept_ones(kept, in));
      gin[i] = b.broadcast_to(r, in);
    }
  }
  // `kept` with extents summed to 1 where the input has extent 1.
  static Shape kept_ones(Shape kept, const Shape& in) {
    for (std::size_t d = 0; d < kept.size(); ++d)
      if (in[d] == 1) kept[d] = 1;
    return kept;
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    V total;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      std::vector<V> ops(a.in.begin(), a.in.end());
      ops[i] = t[i];
      V term = b.einsum(inputs, output, ops);
      total = i == 0 ? term : b.binary(BinaryOp::Add, total, term);
    }
    return total;
  }
};

}  // namespace tensora::ad
