// AD rules of the structural and indexing ops. Views and copies are linear, so each JVP applies
// the op to the tangent and each VJP applies the adjoint (the inverse move, or a scatter).
#pragma once

#include <numeric>

#include "ad/builder.hpp"

namespace tensora::ad {

struct ReshapeRule {  // also squeeze / unsqueeze
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool*) const {
    gin[0] = b.reshape(g, b.shape(a.in[0]));
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    return b.reshape(t[0], b.shape(a.out));
  }
};

struct PermuteRule {  // also transpose
  Axes axes;          // normalized
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>&, const V& g, std::span<V> gin, const bool*) const {
    Axes inverse(axes.size());
    for (std::size_t i = 0; i < axes.size(); ++i)
      inverse[static_cast<std::size_t>(axes[i])] = static_cast<std::int64_t>(i);
    gin[0] = b.permute(g, inverse);
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>&, std::span<const V> t) const {
    return b.permute(t[0], axes);
  }
};

struct BroadcastRule {
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool*) const {
    gin[0] = sum_to(b, g, b.shape(a.in[0]));
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    return b.broadcast_to(t[0], b.shape(a.out));
  }
};

// Adds g into zeros of `shape` at `positions` along `axis` (the adjoint of selecting them).
template <class B, class V = typename B::Value>
V scatter_positions(B& b, const V& g, std::int64_t axis, const V& positions, const Shape& shape) {
  const Shape gs = b.shape(g);
  Shape idx_shape(gs.size(), 1);
  idx_shape[static_cast<std::size_t>(axis)] = gs[static_cast<std::size_t>(axis)];
  const V idx = b.broadcast_to(b.reshape(positions, idx_shape), gs);
  return b.scatter_add(b.zeros(shape, b.dtype(g)), axis, idx, g);
}

struct SliceRule {
  std::int64_t axis;  // normalized
  std::optional<std::int64_t> start, stop;
  std::int64_t step;
  std::vector<std::int64_t> positions;  // the selected input coordinates along axis

  // The rule of x.slice(axis, start, stop, step) for an input extent `n` along the normalized
  // axis: Python's slice normalization gives the input coordinates that were taken.
  static SliceRule of(std::int64_t axis, std::int64_t n, std::optional<std::int64_t> start,
                      std::optional<std::int64_t> stop, std::int64_t step) {
    auto clampi = [](std::int64_t v, std::int64_t lo, std::int64_t hi) { return std::max(lo, std::min(v, hi)); };
    std::int64_t b, e;
    if (step > 0) {
      b = start ? clampi(*start < 0 ? *start + n : *start, 0, n) : 0;
      e = stop ? clampi(*stop < 0 ? *stop + n : *stop, 0, n) : n;
    } else {
      b = start ? clampi(*start < 0 ? *start + n : *start, -1, n - 1) : n - 1;
      e = stop ? clampi(*stop < 0 ? *stop + n : *stop, -1, n - 1) : -1;
    }
    std::vector<std::int64_t> taken;
    for (std::int64_t i = b; step > 0 ? i < e : i > e; i += step) taken.push_back(i);
    return SliceRule{axis, start, stop, step, std::move(taken)};
  }

  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool*) const {
    const Shape in = b.shape(a.in[0]);
    if (step == 1 && !positions.empty()) {
      Widths w(in.size(), {0, 0});
      w[static_cast<std::size_t>(axis)] = {
          positions.front(), in[static_cast<std::size_t>(axis)] - positions.back() - 1};
      gin[0] = b.pad(g, w);
    } else {
      gin[0] = scatter_positions(b, g, axis, b.indices(positions), in);
    }
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>&, std::span<const V> t) const {
    return b.slice(t[0], axis, start, stop, step);
  }
};

struct ReverseRule {
  Axes axes;
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>&, const V& g, std::span<V> gin, const bool*) const {
    gin[0] = b.reverse(g, axes);
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>&, std::span<const V> t) const {
    return b.reverse(t[0], axes);
  }
};

// Constant-mode pad: the cotangent of the input is the unpadded middle.
struct PadRule {
  Widths widths;
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool*) const {
    const Shape in = b.shape(a.in[0]);
    V r = g;
    for (std::size_t d = 0; d < in.size(); ++d) {
      if (widths[d].first == 0 && widths[d].second == 0) continue;
      r = b.slice(r, static_cast<std::int64_t>(d), widths[d].first, widths[d].first + in[d], 1);
    }
    gin[0] = r;
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>&, std::span<const V> t) const {
    return b.pad(t[0], widths);
  }
};

// Edge / Reflect pad: along each padded axis the result gathers input positions (edge:
// clamped, reflect: mirrored without repeating the edge), so the cotangent scatter-adds back
// along the same indices. Axes are independent, so the order of the axes does not matter.
struct GatherPadRule {
  Widths widths;
  bool reflect;

  std::vector<std::int64_t> sources(std::int64_t n, std::int64_t lo, std::int64_t hi) const {
    std::vector<std::int64_t> src(static_cast<std::size_t>(lo + n + hi));
    for (std::int64_t j = 0; j < lo + n + hi; ++j) {
      std::int64_t p = j - lo;
      if (reflect) p = p < 0 ? -p : (p >= n ? 2 * (n - 1) - p : p);
      else p = std::clamp<std::int64_t>(p, 0, n - 1);
      src[static_cast<std::size_t>(j)] = p;
    }
    return src;
  }
  // The index tensor of axis d for an operand of `shape` (extent along d: the padded one).
  template <class B, class V = typename B::Value>
  V index(B& b, std::size_t d, std::int64_t n, const Shape& shape) const {
    Shape line(shape.size(), 1);
    line[d] = shape[d];
    return b.broadcast_to(b.reshape(b.indices(sources(n, widths[d].first, widths[d].second)), line), shape);
  }
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool*) const {
    const Shape in = b.shape(a.in[0]);
    V r = g;
    for (std::size_t d = 0; d < in.size(); ++d) {
      if (widths[d].first == 0 && widths[d].second == 0) continue;
      Shape target = b.shape(r);
      const V idx = index(b, d, in[d], target);
      target[d] = in[d];
      r = b.scatter_add(b.zeros(target, b.dtype(g)), static_cast<std::int64_t>(d), idx, r);
    }
    gin[0] = r;
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    const Shape in = b.shape(a.in[0]);
    V r = t[0];
    for (std::size_t d = 0; d < in.size(); ++d) {
      if (widths[d].first == 0 && widths[d].second == 0) continue;
      Shape target = b.shape(r);
      target[d] = in[d] + widths[d].first + widths[d].second;
      r = b.take_along_axis(r, index(b, d, in[d], target), static_cast<std::int64_t>(d));
    }
    return r;
  }
};

struct ConcatRule {   // also stack (concat of unsqueezed inputs)
  std::int64_t axis;  // normalized
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool* needs) const {
    std::int64_t at = 0;
    for (std::size_t i = 0; i < a.in.size(); ++i) {
      const std::int64_t n = b.shape(a.in[i])[static_cast<std::size_t>(axis)];
      if (needs[i]) gin[i] = b.slice(g, axis, at, at + n, 1);
      at += n;
    }
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>&, std::span<const V> t) const {
    return b.concat(std::vector<V>(t.begin(), t.end()), axis);
  }
};

// take_along_axis(x, idx): inputs (x, idx). The cotangent scatters back; broadcast axes of x sum.
struct TakeAlongAxisRule {
  std::int64_t axis;  // normalized
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool*) const {
    const Shape gs = b.shape(g);
    Shape target = gs;
    target[static_cast<std::size_t>(axis)] = b.shape(a.in[0])[static_cast<std::size_t>(axis)];
    const V idx = b.broadcast_to(a.in[1], gs);
    gin[0] = sum_to(b, b.scatter_add(b.zeros(target, b.dtype(g)), axis, idx, g), b.shape(a.in[0]));
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    return b.take_along_axis(t[0], a.in[1], axis);
  }
};

// index_select(x, axis, idx): inputs (x, idx).
struct IndexSelectRule {
  std::int64_t axis;  // normalized
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool*) const {
    gin[0] = scatter_positions(b, g, axis, a.in[1], b.shape(a.in[0]));
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    return b.index_select(t[0], axis, a.in[1]);
  }
};

// scatter_add(x, axis, idx, src): inputs (x, idx, src). Only the idx-shaped block of src is read.
struct ScatterAddRule {
  std::int64_t axis;  // normalized
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool* needs) const {
    if (needs[0]) gin[0] = g;
    if (!needs[2]) return;
    const Shape is = b.shape(a.in[1]);
    const Shape ss = b.shape(a.in[2]);
    V r = g;
    for (std::size_t d = 0; d < is.size(); ++d) {
      if (static_cast<std::int64_t>(d) != axis && b.shape(r)[d] != is[d])
        r = b.slice(r, static_cast<std::int64_t>(d), 0, is[d], 1);
    }
    r = b.take_along_axis(r, a.in[1], axis);
    Widths w(ss.size(), {0, 0});
    bool padded = false;
    for (std::size_t d = 0; d < ss.size(); ++d) {
      w[d].second = ss[d] - is[d];
      padded = padded || w[d].second != 0;
    }
    gin[2] = padded ? b.pad(r, w) : r;
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    return b.scatter_add(t[0], axis, a.in[1], t[2]);
  }
};

struct TriangleRule {
  bool lower;
  std::int64_t k;
  template <class B, class V = typename B::Value>
  V apply(B& b, const V& x) const {
    return lower ? b.tril(x, k) : b.triu(x, k);
  }
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>&, const V& g, std::span<V> gin, const bool*) const {
    gin[0] = apply(b, g);
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>&, std::span<const V> t) const {
    return apply(b, t[0]);
  }
};

struct DiagonalRule {
  std::int64_t offset, axis1, axis2;  // normalized axes
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool*) const {
    const Shape in = b.shape(a.in[0]);
    const auto rank = static_cast<std::int64_t>(in.size());
    // embed_diag makes square (L + |offset|) matrices; cut or pad them to the input's extents.
    V e = b.embed_diag(g, offset);
    const std::int64_t want[2] = {in[static_cast<std::size_t>(axis1)],
                                  in[static_cast<std::size_t>(axis2)]};
    for (int j = 0; j < 2; ++j) {
      const std::int64_t ax = rank - 2 + j;
      const std::int64_t have = b.shape(e)[static_cast<std::size_t>(ax)];
      if (have > want[j]) e = b.slice(e, ax, 0, want[j], 1);
      if (have < want[j]) {
        Widths w(static_cast<std::size_t>(rank), {0, 0});
        w[static_cast<std::size_t>(ax)].second = want[j] - have;
        e = b.pad(e, w);
      }
    }
    // e has the other axes in order, then axis1, axis2: move them back.
    Axes order;  // order[k] = input axis held by e's axis k
    for (std::int64_t d = 0; d < rank; ++d)
      if (d != axis1 && d != axis2) order.push_back(d);
    order.push_back(axis1);
    order.push_back(axis2);
    Axes perm(static_cast<std::size_t>(rank));
    for (std::size_t k = 0; k < order.size(); ++k)
      perm[static_cast<std::size_t>(order[k])] = static_cast<std::int64_t>(k);
    gin[0] = b.permute(e, perm);
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>&, std::span<const V> t) const {
    return b.diagonal(t[0], offset, axis1, axis2);
  }
};

struct EmbedDiagRule {
  std::int64_t offset;
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>&, const V& g, std::span<V> gin, const bool*) const {
    gin[0] = b.diagonal(g, offset, -2, -1);
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>&, std::span<const V> t) const {
    return b.embed_diag(t[0], offset);
  }
};

}  // namespace tensora::ad
