// einsum: parse subscripts, plan the pairwise order (exact DP over subsets, greedy beyond),
// and lower every step to views + sum + dot_general.
#include "tensora/einsum.hpp"

#include <algorithm>
#include <bitset>
#include <limits>
#include <map>
#include <ostream>
#include <sstream>

#include "ops/validate.hpp"
#include "core/tensor_internals.hpp"

namespace tensora {

namespace {

constexpr std::int64_t kEllipsisBase = 1 << 20;  // label ids of "..." axes (rightmost = base + m - 1)
constexpr std::size_t kMaxLabels = 128;
constexpr std::size_t kMaxExactOperands = 12;
using LabelSet = std::bitset<kMaxLabels>;

std::string label_text(std::int64_t id) {
  if (id >= kEllipsisBase) return "...[" + std::to_string(id - kEllipsisBase) + "]";
  if (id < 26) return std::string(1, static_cast<char>('a' + id));
  if (id < 52) return std::string(1, static_cast<char>('A' + id - 26));
  return "#" + std::to_string(id);
}

[[noreturn]] void fail(std::string message, SourceLocation where) {
  check::fail_invalid("einsum", std::move(message), "subscripts", where);
}

struct Spec {
  std::vector<std::vector<std::int64_t>> inputs;  // per operand, one id per axis (repeats allowed)
  std::vector<std::int64_t> output;
  std::vector<std::string> terms;  // the subscript text of each operand, for messages
};

// Parses "ij,jk->ik" against the operands' ranks.
Spec parse(std::string_view subscripts, const std::vector<std::int64_t>& ranks, SourceLocation where) {
  std::string text;
  for (char c : subscripts)
    if (c != ' ') text += c;
  const auto arrow = text.find("->");
  if (arrow == std::string::npos)
    fail("missing '->' in '" + std::string(subscripts) + "': the output must be explicit, e.g. 'ij,jk->ik'", where);
  const std::string lhs = text.substr(0, arrow), rhs = text.substr(arrow + 2);
  Spec spec;
  for (std::size_t start = 0;;) {
    const auto comma = lhs.find(',', start);
    spec.terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (spec.terms.size() != ranks.size())
    fail(std::to_string(spec.terms.size()) + " subscripts in '" + lhs + "' for " + std::to_string(ranks.size()) +
             " operands",
         where);
  // Letters and at most one "..." per term.
  struct Term {
    std::vector<std::int64_t> before, after;  // labels around the ellipsis
    bool ellipsis = false;
  };
  auto parse_term = [&](const std::string& term, const std::string& who) {
    Term t;
    for (std::size_t i = 0; i < term.size();) {
      const char c = term[i];
      if (c == '.') {
        if (term.compare(i, 3, "...") != 0 || t.ellipsis)
          fail("malformed '...' in subscript '" + term + "' of " + who, where);
        t.ellipsis = true;
        i += 3;
        continue;
      }
      std::int64_t id;
      if (c >= 'a' && c <= 'z') id = c - 'a';
      else if (c >= 'A' && c <= 'Z') id = 26 + (c - 'A');
      else fail("invalid character '" + std::string(1, c) + "' in subscript '" + term + "' of " + who, where);
      (t.ellipsis ? t.after : t.before).push_back(id);
      ++i;
    }
    return t;
  };
  std::vector<Term> terms;
  std::int64_t max_ellipsis = 0;
  for (std::size_t k = 0; k < spec.terms.size(); ++k) {
    const std::string who = "operand " + std::to_string(k);
    Term t = parse_term(spec.terms[k], who);
    const auto named = static_cast<std::int64_t>(t.before.size() + t.after.size());
    if ((!t.ellipsis && named != ranks[k]) || (t.ellipsis && named > ranks[k]))
      fail(who + " has rank " + std::to_string(ranks[k]) + " but its subscript '" + spec.terms[k] + "' names " +
               std::to_string(named) + " axes",
           where);
    if (t.ellipsis) max_ellipsis = std::max(max_ellipsis, ranks[k] - named);
    terms.push_back(std::move(t));
  }
  std::vector<bool> seen(52, false);
  for (std::size_t k = 0; k < terms.size(); ++k) {
    const Term& t = terms[k];
    std::vector<std::int64_t> labels = t.before;
    if (t.ellipsis) {
      const std::int64_t e = ranks[k] - static_cast<std::int64_t>(t.before.size() + t.after.size());
      for (std::int64_t i = 0; i < e; ++i) labels.push_back(kEllipsisBase + max_ellipsis - e + i);
    }
    labels.insert(labels.end(), t.after.begin(), t.after.end());
    for (auto id : labels)
      if (id < 52) seen[static_cast<std::size_t>(id)] = true;
    spec.inputs.push_back(std::move(labels));
  }
  const Term out = parse_term(rhs, "the output");
  spec.output = out.before;
  if (out.ellipsis)
    for (std::int64_t i = 0; i < max_ellipsis; ++i) spec.output.push_back(kEllipsisBase + i);
  spec.output.insert(spec.output.end(), out.after.begin(), out.after.end());
  for (std::size_t i = 0; i < spec.output.size(); ++i) {
    const auto id = spec.output[i];
    if (id < 52 && !seen[static_cast<std::size_t>(id)])
      fail("output label '" + label_text(id) + "' in '->" + rhs + "' does not appear in any input", where);
    if (std::count(spec.output.begin(), spec.output.end(), id) > 1)
      fail("output label '" + label_text(id) + "' appears twice in '->" + rhs + "'", where);
  }
  return spec;
}

// Extent per label: equal across operands, or 1 (which broadcasts).
std::map<std::int64_t, std::int64_t> label_extents(const Spec& spec, const std::vector<Shape>& shapes,
                                                   SourceLocation where) {
  std::map<std::int64_t, std::int64_t> extent;
  std::map<std::int64_t, std::size_t> from;  // operand that set a non-1 extent
  for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
    std::map<std::int64_t, std::int64_t> own;
    for (std::size_t a = 0; a < spec.inputs[k].size(); ++a) {
      const auto id = spec.inputs[k][a];
      const auto n = shapes[k][a];
      if (auto it = own.find(id); it != own.end() && it->second != n)
        check::fail_shape("einsum",
                          "label '" + label_text(id) + "' is repeated in operand " + std::to_string(k) + " ('" +
                              spec.terms[k] + "') with extents " + std::to_string(it->second) + " and " +
                              std::to_string(n) + "; a diagonal needs equal extents",
                          Shape{it->second}, Shape{n}, where);
      own[id] = n;
      auto [it, inserted] = extent.emplace(id, n);
      if (inserted) {
        from[id] = k;
      } else if (it->second != n && n != 1) {
        if (it->second != 1)
          check::fail_shape("einsum",
                            "label '" + label_text(id) + "' has extent " + std::to_string(it->second) +
                                " in operand " + std::to_string(from[id]) + " ('" + spec.terms[from[id]] +
                                "') and " + std::to_string(n) + " in operand " + std::to_string(k) + " ('" +
                                spec.terms[k] + "')",
                            Shape{it->second}, Shape{n}, where);
        it->second = n;
        from[id] = k;
      }
    }
  }
  for (auto id : spec.output) extent.emplace(id, 1);  // ellipsis axes no operand has
  return extent;
}

// ---- planning ---------------------------------------------------------------------------

struct Planner {
  std::vector<LabelSet> sets;  // unique labels per operand
  LabelSet output;
  std::vector<double> extent;  // per dense label index

  double product(const LabelSet& s) const {
    double p = 1;
    for (std::size_t i = 0; i < kMaxLabels; ++i)
      if (s[i]) p *= extent[i];
    return p;
  }
};

struct Plan {
  std::vector<std::pair<std::int64_t, std::int64_t>> steps;  // positions in the current list
  bool optimal = false;
};

// Exact: best[mask] over every split of the operands into two groups.
Plan plan_exact(const Planner& p) {
  const std::size_t n = p.sets.size();
  const std::size_t full = (std::size_t{1} << n) - 1;
  std::vector<LabelSet> in(full + 1);
  for (std::size_t m = 1; m <= full; ++m) {
    const std::size_t low = static_cast<std::size_t>(__builtin_ctzll(m));
    in[m] = in[m & (m - 1)] | p.sets[low];
  }
  auto kept = [&](std::size_t m) { return in[m] & (in[full & ~m] | p.output); };
  std::vector<double> best(full + 1, std::numeric_limits<double>::infinity());
  std::vector<std::size_t> split(full + 1, 0);
  for (std::size_t i = 0; i < n; ++i) best[std::size_t{1} << i] = 0;
  std::vector<LabelSet> kept_of(full + 1);
  for (std::size_t m = 1; m <= full; ++m) kept_of[m] = kept(m);
  for (std::size_t m = 1; m <= full; ++m) {
    if ((m & (m - 1)) == 0) continue;
    const std::size_t low = m & (~m + 1);
    // Submasks holding the lowest operand: each split counted once.
    for (std::size_t s = (m - 1) & m; s > 0; s = (s - 1) & m) {
      if (!(s & low)) continue;
      const std::size_t t = m ^ s;
      const double c = best[s] + best[t] + 2 * p.product(kept_of[s] | kept_of[t]);
      if (c < best[m]) {
        best[m] = c;
        split[m] = s;
      }
    }
  }
  // Emit steps in post-order over the chosen tree, tracking list positions.
  Plan plan;
  plan.optimal = true;
  std::vector<std::size_t> list;  // masks currently in the operand list
  for (std::size_t i = 0; i < n; ++i) list.push_back(std::size_t{1} << i);
  auto position = [&](std::size_t m) {
    return static_cast<std::int64_t>(std::find(list.begin(), list.end(), m) - list.begin());
  };
  auto emit = [&](auto&& self, std::size_t m) -> void {
    if ((m & (m - 1)) == 0) return;
    const std::size_t s = split[m], t = m ^ s;
    self(self, s);
    self(self, t);
    const auto a = position(s), b = position(t);
    plan.steps.emplace_back(a, b);
    list.erase(list.begin() + std::max(a, b));
    list.erase(list.begin() + std::min(a, b));
    list.push_back(m);
  };
  emit(emit, full);
  return plan;
}

// Greedy: repeatedly contract the pair with the cheapest step (ties: the smaller result).
Plan plan_greedy(const Planner& p) {
  Plan plan;
  std::vector<LabelSet> list = p.sets;
  while (list.size() > 1) {
    double best_cost = std::numeric_limits<double>::infinity(), best_size = 0;
    std::size_t bi = 0, bj = 1;
    for (std::size_t i = 0; i < list.size(); ++i)
      for (std::size_t j = i + 1; j < list.size(); ++j) {
        LabelSet others = p.output;
        for (std::size_t k = 0; k < list.size(); ++k)
          if (k != i && k != j) others |= list[k];
        const LabelSet both = list[i] | list[j];
        const double cost = p.product(both), size = p.product(both & others);
        if (cost < best_cost || (cost == best_cost && size < best_size)) {
          best_cost = cost;
          best_size = size;
          bi = i;
          bj = j;
        }
      }
    LabelSet others = p.output;
    for (std::size_t k = 0; k < list.size(); ++k)
      if (k != bi && k != bj) others |= list[k];
    const LabelSet result = (list[bi] | list[bj]) & others;
    plan.steps.emplace_back(static_cast<std::int64_t>(bi), static_cast<std::int64_t>(bj));
    list.erase(list.begin() + static_cast<std::ptrdiff_t>(bj));
    list.erase(list.begin() + static_cast<std::ptrdiff_t>(bi));
    list.push_back(result);
  }
  return plan;
}

EinsumPath make_path(const Spec& spec, const std::vector<Shape>& shapes, SourceLocation where) {
  const auto extents = label_extents(spec, shapes, where);
  if (extents.size() > kMaxLabels) fail("more than 128 distinct labels", where);
  std::map<std::int64_t, std::size_t> dense;
  for (const auto& [id, n] : extents) dense.emplace(id, dense.size());
  EinsumPath path;
  path.inputs = spec.inputs;
  path.output = spec.output;
  path.extents = extents;
  Planner p;
  p.extent.assign(dense.size(), 1);
  for (const auto& [id, n] : extents) {
    p.extent[dense[id]] = static_cast<double>(n);
  }
  LabelSet all;
  for (const auto& labels : spec.inputs) {
    LabelSet s;
    for (auto id : labels) s.set(dense[id]);
    p.sets.push_back(s);
    all |= s;
  }
  Shape output_dims;
  for (auto id : spec.output) {
    p.output.set(dense[id]);
    output_dims.push_back(extents.at(id));
  }
  check::valid_shape("einsum", output_dims, where);
  path.naive_flops = 2 * p.product(all | p.output);
  const Plan plan = p.sets.size() <= kMaxExactOperands ? plan_exact(p) : plan_greedy(p);
  path.optimal = plan.optimal;
  // Replay the plan to record each step's labels and cost.
  std::vector<LabelSet> list = p.sets;
  std::vector<std::vector<std::int64_t>> list_labels;
  for (const auto& labels : spec.inputs) list_labels.push_back(labels);
  std::vector<std::int64_t> id_of(dense.size());
  for (const auto& [id, d] : dense) id_of[d] = id;
  for (auto [a, b] : plan.steps) {
    LabelSet others = p.output;
    for (std::size_t k = 0; k < list.size(); ++k)
      if (k != static_cast<std::size_t>(a) && k != static_cast<std::size_t>(b)) others |= list[k];
    const LabelSet both = list[static_cast<std::size_t>(a)] | list[static_cast<std::size_t>(b)];
    const LabelSet result = both & others;
    EinsumPath::Step step{a, b, {}, 2 * p.product(both), 0};
    Shape dims;
    for (std::size_t d = 0; d < dense.size(); ++d)
      if (result[d]) {
        step.labels.push_back(id_of[d]);
        dims.push_back(extents.at(id_of[d]));
      }
    // An intermediate past int64 is refused here, when planning, not at its allocation.
    check::valid_shape("einsum", dims, where);
    step.result_size = numel(dims);
    path.flops += step.flops;
    path.largest_intermediate = std::max(path.largest_intermediate, step.result_size);
    list.erase(list.begin() + std::max(a, b));
    list.erase(list.begin() + std::min(a, b));
    list.push_back(result);
    path.steps.push_back(std::move(step));
  }
  return path;
}

std::vector<std::int64_t> ranks_of(const std::vector<Shape>& shapes) {
  std::vector<std::int64_t> r;
  for (const auto& s : shapes) r.push_back(static_cast<std::int64_t>(s.size()));
  return r;
}

// ---- execution --------------------------------------------------------------------------

struct Labeled {
  Tensor t;
  std::vector<std::int64_t> labels;  // one per axis, unique
};

std::int64_t extent_of(const EinsumPath& path, std::int64_t id) {
  const auto it = path.extents.find(id);
  return it == path.extents.end() ? 1 : it->second;
}

// Takes diagonals of repeated labels (a view with the summed stride) and broadcasts extent-1
// axes to the label's extent.
Labeled prepare(const Tensor& t, const std::vector<std::int64_t>& labels, const EinsumPath& path) {
  Shape shape;
  Strides strides;
  std::vector<std::int64_t> unique;
  for (std::size_t a = 0; a < labels.size(); ++a) {
    const auto it = std::find(unique.begin(), unique.end(), labels[a]);
    if (it != unique.end()) {
      strides[static_cast<std::size_t>(it - unique.begin())] += t.strides()[a];
      continue;
    }
    unique.push_back(labels[a]);
    shape.push_back(t.shape()[a]);
    strides.push_back(t.strides()[a]);
  }
  for (std::size_t a = 0; a < unique.size(); ++a) {
    const std::int64_t n = extent_of(path, unique[a]);
    if (shape[a] == 1 && n != 1) {
      shape[a] = n;
      strides[a] = 0;
    }
  }
  return {TensorInternals::restride(t, shape, strides, t.offset()), unique};
}

// Sums the axes whose labels are not in `keep`.
Labeled sum_out(Labeled x, const std::vector<std::int64_t>& keep, Engine& engine, SourceLocation where) {
  std::vector<std::int64_t> axes, labels;
  for (std::size_t a = 0; a < x.labels.size(); ++a) {
    if (std::find(keep.begin(), keep.end(), x.labels[a]) == keep.end()) axes.push_back(static_cast<std::int64_t>(a));
    else labels.push_back(x.labels[a]);
  }
  if (axes.empty()) return x;
  return {x.t.sum(axes, engine, where), labels};
}

std::vector<std::int64_t> labels_needed(const std::vector<Labeled>& list, std::size_t skip_a, std::size_t skip_b,
                                        const std::vector<std::int64_t>& output) {
  std::vector<std::int64_t> need = output;
  for (std::size_t k = 0; k < list.size(); ++k)
    if (k != skip_a && k != skip_b) need.insert(need.end(), list[k].labels.begin(), list[k].labels.end());
  return need;
}

bool contains(const std::vector<std::int64_t>& v, std::int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// One pairwise step as a dot_general into a result whose memory suits the BLAS: a result
// allocated by dot_general is column-major [batch, free...], so its batch axis would be the
// fastest one and every product strided. The step's result is stored instead in `final_order`
// (the einsum's output order, for the last step) or as [free..., batch...] (each product one
// column-major matrix) and handed to dot_general_into as a permuted view.
Labeled contract(const Labeled& a, const Labeled& b, const std::vector<std::int64_t>& need,
                 const std::vector<std::int64_t>* final_order, Engine& engine, SourceLocation where) {
  DotGeneralConfig config;
  std::vector<std::int64_t> labels, batch, free;
  Shape extents;
  for (std::size_t i = 0; i < a.labels.size(); ++i) {
    const auto it = std::find(b.labels.begin(), b.labels.end(), a.labels[i]);
    if (it == b.labels.end()) continue;
    const auto j = static_cast<std::int64_t>(it - b.labels.begin());
    if (contains(need, a.labels[i])) {
      config.lhs_batch_dims.push_back(static_cast<std::int64_t>(i));
      config.rhs_batch_dims.push_back(j);
      labels.push_back(a.labels[i]);
      batch.push_back(a.labels[i]);
      extents.push_back(a.t.shape()[i]);
    } else {
      config.lhs_contracting_dims.push_back(static_cast<std::int64_t>(i));
      config.rhs_contracting_dims.push_back(j);
    }
  }
  for (const Labeled* x : {&a, &b}) {
    const Labeled& other = x == &a ? b : a;
    for (std::size_t i = 0; i < x->labels.size(); ++i)
      if (!contains(other.labels, x->labels[i])) {
        labels.push_back(x->labels[i]);
        free.push_back(x->labels[i]);
        extents.push_back(x->t.shape()[i]);
      }
  }
  std::vector<std::int64_t> order = free;
  order.insert(order.end(), batch.begin(), batch.end());
  if (final_order != nullptr && final_order->size() == labels.size() &&
      std::is_permutation(labels.begin(), labels.end(), final_order->begin()))
    order = *final_order;
  Shape storage_shape;
  std::vector<std::int64_t> perm;
  for (auto id : order) storage_shape.push_back(extents[static_cast<std::size_t>(
                            std::find(labels.begin(), labels.end(), id) - labels.begin())]);
  for (auto id : labels) perm.push_back(static_cast<std::int64_t>(std::find(order.begin(), order.end(), id) - order.begin()));
  const Tensor result = Tensor::empty(storage_shape, a.t.dtype(), a.t.device(), where).permute(perm, where);
  a.t.dot_general_into(b.t, config, engine, result, where);
  return {result, labels};
}

Tensor run(const EinsumPath& path, const std::vector<Tensor>& operands, Engine& engine, SourceLocation where) {
  std::vector<Labeled> list;
  for (std::size_t k = 0; k < operands.size(); ++k) list.push_back(prepare(operands[k], path.inputs[k], path));
  // Labels that only one operand has and the output lacks are summed first.
  for (std::size_t k = 0; k < list.size(); ++k) list[k] = sum_out(list[k], labels_needed(list, k, k, path.output), engine, where);
  for (const auto& step : path.steps) {
    const auto a = static_cast<std::size_t>(step.lhs), b = static_cast<std::size_t>(step.rhs);
    const auto need = labels_needed(list, a, b, path.output);
    Labeled lhs = sum_out(list[a], [&] { auto n = need; n.insert(n.end(), list[b].labels.begin(), list[b].labels.end()); return n; }(), engine, where);
    Labeled rhs = sum_out(list[b], [&] { auto n = need; n.insert(n.end(), list[a].labels.begin(), list[a].labels.end()); return n; }(), engine, where);
    const bool last = list.size() == 2;
    Labeled result = contract(lhs, rhs, need, last ? &path.output : nullptr, engine, where);
    list.erase(list.begin() + static_cast<std::ptrdiff_t>(std::max(a, b)));
    list.erase(list.begin() + static_cast<std::ptrdiff_t>(std::min(a, b)));
    list.push_back(std::move(result));
  }
  Labeled last = sum_out(list.front(), path.output, engine, where);
  std::vector<std::int64_t> perm;
  for (auto id : path.output) {
    const auto it = std::find(last.labels.begin(), last.labels.end(), id);
    if (it == last.labels.end()) {
      // An ellipsis axis no operand has: extent 1.
      last.t = last.t.unsqueeze(last.t.rank(), where);
      last.labels.push_back(id);
      perm.push_back(last.t.rank() - 1);
    } else {
      perm.push_back(static_cast<std::int64_t>(it - last.labels.begin()));
    }
  }
  Tensor out = last.t.permute(perm, where);
  // A fresh, compact result even when no step ran (a view of an input would alias it).
  return out.shares_storage_with(operands.front()) || !out.is_contiguous() ? out.duplicate(where) : out;
}

void check_operands(const std::vector<Tensor>& operands, Engine& engine, SourceLocation where) {
  if (operands.empty()) fail("needs at least one operand", where);
  for (std::size_t k = 0; k < operands.size(); ++k) {
    validate::operands("einsum", engine, {&operands[k]}, where);
    if (operands[k].dtype() != operands[0].dtype())
      throw Error(ErrorKind::Validation, "einsum",
                  "dtype mismatch: expected " + std::string(name(operands[0].dtype())) + ", actual " +
                      std::string(name(operands[k].dtype())) + " (operand " + std::to_string(k) +
                      "); convert the operands to one dtype first",
                  DTypeMismatch{operands[0].dtype(), operands[k].dtype()}, where);
    if (!(operands[k].device() == operands[0].device()))
      check::fail_device_mismatch("einsum", operands[0].device(), operands[k].device(), where);
  }
}

std::vector<Shape> shapes_of(const std::vector<Tensor>& operands) {
  std::vector<Shape> s;
  for (const auto& t : operands) s.push_back(t.shape());
  return s;
}

}  // namespace

std::string EinsumPath::to_string() const {
  std::ostringstream os;
  os << *this;
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const EinsumPath& path) {
  auto text = [](const std::vector<std::int64_t>& labels) {
    std::string s;
    for (auto id : labels) s += label_text(id);
    return s;
  };
  os << "EinsumPath(" << (path.optimal ? "optimal" : "greedy") << "): ";
  for (std::size_t k = 0; k < path.inputs.size(); ++k) os << (k ? "," : "") << text(path.inputs[k]);
  os << "->" << text(path.output) << "\n  naive flops " << path.naive_flops << ", planned flops " << path.flops
     << ", largest intermediate " << path.largest_intermediate << " elements\n";
  for (std::size_t i = 0; i < path.steps.size(); ++i) {
    const auto& s = path.steps[i];
    os << "  step " << i << ": contract (" << s.lhs << ", " << s.rhs << ") -> " << text(s.labels) << "  flops "
       << s.flops << "\n";
  }
  return os;
}

EinsumPath einsum_path(std::string_view subscripts, const std::vector<Shape>& shapes, SourceLocation where) {
  return make_path(parse(subscripts, ranks_of(shapes), where), shapes, where);
}

EinsumPath einsum_path(std::string_view subscripts, const std::vector<Tensor>& operands, SourceLocation where) {
  return einsum_path(subscripts, shapes_of(operands), where);
}

Tensor einsum(std::string_view subscripts, std::vector<Tensor> operands, Engine& engine, SourceLocation where) {
  check_operands(operands, engine, where);
  const auto shapes = shapes_of(operands);
  return run(make_path(parse(subscripts, ranks_of(shapes), where), shapes, where), operands, engine, where);
}

Tensor einsum(const EinsumPath& path, std::vector<Tensor> operands, Engine& engine, SourceLocation where) {
  check_operands(operands, engine, where);
  if (operands.size() != path.inputs.size())
    fail("the path was planned for " + std::to_string(path.inputs.size()) + " operands, got " +
             std::to_string(operands.size()),
         where);
  for (std::size_t k = 0; k < operands.size(); ++k) {
    if (operands[k].rank() != static_cast<std::int64_t>(path.inputs[k].size()))
      fail("operand " + std::to_string(k) + " has rank " + std::to_string(operands[k].rank()) +
               " but the path expects " + std::to_string(path.inputs[k].size()),
           where);
    for (std::size_t a = 0; a < path.inputs[k].size(); ++a) {
      const auto n = extent_of(path, path.inputs[k][a]);
      if (operands[k].shape()[a] != n && operands[k].shape()[a] != 1)
        check::fail_shape("einsum",
                          "operand " + std::to_string(k) + " has shape " + to_string(operands[k].shape()) +
                              ", which does not match the planned extent " + std::to_string(n) + " of label '" +
                              label_text(path.inputs[k][a]) + "'",
                          Shape{n}, operands[k].shape(), where);
    }
  }
  return run(path, operands, engine, where);
}

Tensor einsum(std::vector<std::vector<std::int64_t>> input_labels, std::vector<std::int64_t> output_labels,
              std::vector<Tensor> operands, Engine& engine, SourceLocation where) {
  check_operands(operands, engine, where);
  if (input_labels.size() != operands.size())
    fail(std::to_string(input_labels.size()) + " label lists for " + std::to_string(operands.size()) + " operands",
         where);
  Spec spec;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    if (static_cast<std::int64_t>(input_labels[k].size()) != operands[k].rank())
      fail("operand " + std::to_string(k) + " has rank " + std::to_string(operands[k].rank()) + " but " +
               std::to_string(input_labels[k].size()) + " labels",
           where);
    for (auto id : input_labels[k])
      if (id < 0 || id >= kEllipsisBase) fail("label " + std::to_string(id) + " of operand " + std::to_string(k) + " is out of range", where);
    std::string term;
    for (auto id : input_labels[k]) term += label_text(id);
    spec.terms.push_back(term);
  }
  for (auto id : output_labels) {
    bool found = false;
    for (const auto& labels : input_labels) found = found || contains(labels, id);
    if (!found) fail("output label " + std::to_string(id) + " does not appear in any input", where);
    if (std::count(output_labels.begin(), output_labels.end(), id) > 1)
      fail("output label " + std::to_string(id) + " appears twice", where);
  }
  spec.inputs = std::move(input_labels);
  spec.output = std::move(output_labels);
  return run(make_path(spec, shapes_of(operands), where), operands, engine, where);
}

}  // namespace tensora
