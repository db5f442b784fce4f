// Contractions: dot_general (StableHLO dimension numbers) and NumPy matmul on top of it.
// Validate at the boundary (operands, dtype, dims, sizes) -> allocate the column-major result
// (or check the destination) -> the backend's dot_general. Every error names op "dot_general".
#include <algorithm>
#include <string>

#include "backend/backend.hpp"
#include "ops/inference.hpp"
#include "ops/validate.hpp"

namespace tensora {

namespace {

constexpr std::string_view kOp = "dot_general";
// matmul's own shape checks name it (its dtype check is dot_general's, which it runs on).
constexpr std::string_view kMatmul = "matmul";

std::string str(std::int64_t v) { return std::to_string(v); }

std::string list(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + str(v[i]);
  return s + "]";
}

// Operands, engine, one dtype, a numeric dtype: the checks every contraction makes first.
void check_operands(const Tensor& lhs, const Tensor& rhs, Engine& engine, SourceLocation where) {
  validate::operands(kOp, engine, {&lhs, &rhs}, where);
  infer::contraction_dtypes(kOp, lhs.dtype(), rhs.dtype(), where);
}

// Normalizes one dims list of `side` (rank `rank`); out of range or repeated dims throw.
std::vector<std::int64_t> normalize(const std::vector<std::int64_t>& dims, std::string_view field,
                                    std::string_view side, std::int64_t rank, SourceLocation where) {
  std::vector<std::int64_t> out;
  for (const std::int64_t d : dims) {
    const std::int64_t n = d < 0 ? d + rank : d;
    if (n < 0 || n >= rank) {
      const std::string valid = rank == 0 ? "none for a rank-0 operand" : str(-rank) + ".." + str(rank - 1);
      throw Error(ErrorKind::Validation, std::string(kOp),
                  std::string(field) + ": dim " + str(d) + " out of range for " + std::string(side) + " of rank " +
                      str(rank) + " (valid: " + valid + ")",
                  AxisOutOfRange{d, rank}, where);
    }
    if (std::find(out.begin(), out.end(), n) != out.end())
      check::fail_invalid(kOp, std::string(field) + ": dim " + str(n) + " appears twice in " + list(dims),
                          "config." + std::string(field), where);
    out.push_back(n);
  }
  return out;
}

struct Plan {
  backend::ContractionDims dims;
  Shape shape;
};

Plan plan(const Tensor& lhs, const Tensor& rhs, const DotGeneralConfig& c, SourceLocation where) {
  if (c.lhs_batch_dims.size() != c.rhs_batch_dims.size())
    check::fail_invalid(kOp,
                        "lhs_batch_dims " + list(c.lhs_batch_dims) + " and rhs_batch_dims " + list(c.rhs_batch_dims) +
                            " differ in length; batch dims pair up one to one",
                        "config.rhs_batch_dims", where);
  if (c.lhs_contracting_dims.size() != c.rhs_contracting_dims.size())
    check::fail_invalid(kOp,
                        "lhs_contracting_dims " + list(c.lhs_contracting_dims) + " and rhs_contracting_dims " +
                            list(c.rhs_contracting_dims) + " differ in length; contracting dims pair up one to one",
                        "config.rhs_contracting_dims", where);
  Plan p;
  auto& d = p.dims;
  d.lhs_batch = normalize(c.lhs_batch_dims, "lhs_batch_dims", "lhs", lhs.rank(), where);
  d.rhs_batch = normalize(c.rhs_batch_dims, "rhs_batch_dims", "rhs", rhs.rank(), where);
  d.lhs_contract = normalize(c.lhs_contracting_dims, "lhs_contracting_dims", "lhs", lhs.rank(), where);
  d.rhs_contract = normalize(c.rhs_contracting_dims, "rhs_contracting_dims", "rhs", rhs.rank(), where);
  auto overlap = [&](const std::vector<std::int64_t>& batch, const std::vector<std::int64_t>& contract,
                     std::string_view side) {
    for (const std::int64_t x : contract)
      if (std::find(batch.begin(), batch.end(), x) != batch.end())
        check::fail_invalid(kOp,
                            "dim " + str(x) + " of " + std::string(side) + " is both a batch dim and a contracting dim",
                            "config." + std::string(side) + "_contracting_dims", where);
  };
  overlap(d.lhs_batch, d.lhs_contract, "lhs");
  overlap(d.rhs_batch, d.rhs_contract, "rhs");
  auto sizes_match = [&](const std::vector<std::int64_t>& l, const std::vector<std::int64_t>& r, std::string_view what) {
    for (std::size_t i = 0; i < l.size(); ++i) {
      const std::int64_t ls = lhs.shape()[static_cast<std::size_t>(l[i])];
      const std::int64_t rs = rhs.shape()[static_cast<std::size_t>(r[i])];
      if (ls != rs)
        check::fail_shape(kOp,
                          std::string(what) + " dims differ in size: lhs dim " + str(l[i]) + " has size " + str(ls) +
                              ", rhs dim " + str(r[i]) + " has size " + str(rs) + " (lhs " + to_string(lhs.shape()) +
                              ", rhs " + to_string(rhs.shape()) + ")",
                          lhs.shape(), rhs.shape(), where);
    }
  };
  sizes_match(d.lhs_batch, d.rhs_batch, "batch");
  sizes_match(d.lhs_contract, d.rhs_contract, "contracting");
  auto free_dims = [](std::int64_t rank, const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
    std::vector<std::int64_t> f;
    for (std::int64_t i = 0; i < rank; ++i)
      if (std::find(a.begin(), a.end(), i) == a.end() && std::find(b.begin(), b.end(), i) == b.end()) f.push_back(i);
    return f;
  };
  d.lhs_free = free_dims(lhs.rank(), d.lhs_batch, d.lhs_contract);
  d.rhs_free = free_dims(rhs.rank(), d.rhs_batch, d.rhs_contract);
  for (auto x : d.lhs_batch) p.shape.push_back(lhs.shape()[static_cast<std::size_t>(x)]);
  for (auto x : d.lhs_free) p.shape.push_back(lhs.shape()[static_cast<std::size_t>(x)]);
  for (auto x : d.rhs_free) p.shape.push_back(rhs.shape()[static_cast<std::size_t>(x)]);
  check::valid_shape(kOp, p.shape, where);  // an outer product's element count must fit int64
  return p;
}

// [lowest, highest) byte addresses a view touches.
std::pair<const char*, const char*> span_of(const Tensor& t) {
  const char* base = static_cast<const char*>(t.element_ptr());
  std::int64_t lo = 0, hi = 0;
  for (std::size_t d = 0; d < t.shape().size(); ++d) {
    const std::int64_t reach = (t.shape()[d] - 1) * t.strides()[d];
    (reach < 0 ? lo : hi) += reach;
  }
  const auto e = static_cast<std::int64_t>(size_of(t.dtype()));
  return {base + lo * e, base + hi * e + e};
}

bool overlaps(const Tensor& a, const Tensor& b) {
  if (!a.shares_storage_with(b) || a.numel() == 0 || b.numel() == 0) return false;
  const auto [alo, ahi] = span_of(a);
  const auto [blo, bhi] = span_of(b);
  return alo < bhi && blo < ahi;
}

// Runs the contraction into dest; a destination that overlaps an operand gets the result
// through a fresh tensor (a product reads its inputs after writing outputs).
void run_into(const Tensor& lhs, const Tensor& rhs, const Plan& p, Engine& engine, const Tensor& dest,
              SourceLocation where) {
  validate::destination(kOp, dest, lhs.dtype(), p.shape, lhs.device(), {}, where);
  if (overlaps(dest, lhs) || overlaps(dest, rhs)) {
    const Tensor tmp = Tensor::empty(p.shape, lhs.dtype(), lhs.device(), where);
    engine.backend().dot_general(tmp, lhs, rhs, p.dims, engine);
    engine.backend().copy(dest, tmp, engine);
    return;
  }
  engine.backend().dot_general(dest, lhs, rhs, p.dims, engine);
}

// NumPy matmul as dot_general operands + config (1-D operands, broadcast batch dims).
struct MatmulForm {
  Tensor lhs, rhs;
  DotGeneralConfig config;
};

MatmulForm matmul_form(const Tensor& a, const Tensor& b, SourceLocation where) {
  const std::int64_t ra = a.rank(), rb = b.rank();
  if (ra == 0 || rb == 0)
    check::fail_invalid(kMatmul,
                        std::string("operands need rank >= 1, got a 0-d ") + (ra == 0 ? "lhs" : "rhs") +
                            "; use mul for a product with a scalar",
                        ra == 0 ? "lhs" : "rhs", where);
  // The contracted axes: the last of lhs, the first of a 1-D rhs or the second-to-last.
  const std::int64_t ka = a.shape().back();
  const std::int64_t kb = rb == 1 ? b.shape()[0] : b.shape()[static_cast<std::size_t>(rb - 2)];
  if (ka != kb)
    check::fail_shape(kMatmul,
                      "lhs " + to_string(a.shape()) + " and rhs " + to_string(b.shape()) +
                          " do not chain: the last axis of lhs has size " + str(ka) + ", the " +
                          (rb == 1 ? std::string("only") : std::string("second-to-last")) + " axis of rhs has size " +
                          str(kb),
                      a.shape(), b.shape(), where);
  if (ra == 1 || rb == 1) {
    // 1-D x anything: lhs free dims, then rhs free dims (the vector's axis is contracted).
    return {a, b, DotGeneralConfig{{}, {}, {ra - 1}, {rb == 1 ? 0 : rb - 2}}};
  }
  const Shape batch_a(a.shape().begin(), a.shape().end() - 2), batch_b(b.shape().begin(), b.shape().end() - 2);
  const Shape batch = batch_a == batch_b ? batch_a : broadcast_shapes(batch_a, batch_b, kMatmul, where);
  auto expand = [&](const Tensor& t) {
    if (static_cast<std::int64_t>(batch.size()) == t.rank() - 2 &&
        std::equal(batch.begin(), batch.end(), t.shape().begin()))
      return t;
    Shape s = batch;
    s.push_back(t.shape()[static_cast<std::size_t>(t.rank() - 2)]);
    s.push_back(t.shape().back());
    return t.broadcast_to(s, where);
  };
  const auto nb = static_cast<std::int64_t>(batch.size());
  std::vector<std::int64_t> bdims(static_cast<std::size_t>(nb));
  for (std::int64_t i = 0; i < nb; ++i) bdims[static_cast<std::size_t>(i)] = i;
  return {expand(a), expand(b), DotGeneralConfig{bdims, bdims, {nb + 1}, {nb}}};
}

}  // namespace

Tensor Tensor::dot_general(const Tensor& rhs, DotGeneralConfig config, Engine& engine, Loc where) const {
  check_operands(*this, rhs, engine, where);
  const Plan p = plan(*this, rhs, config, where);
  Tensor out = Tensor::empty(p.shape, dtype_, device_, where);
  engine.backend().dot_general(out, *this, rhs, p.dims, engine);
  return out;
}

void Tensor::dot_general_into(const Tensor& rhs, DotGeneralConfig config, Engine& engine, const Tensor& dest,
                              Loc where) const {
  check_operands(*this, rhs, engine, where);
  const Plan p = plan(*this, rhs, config, where);
  run_into(*this, rhs, p, engine, dest, where);
}

Tensor Tensor::matmul(const Tensor& rhs, Engine& engine, Loc where) const {
  check_operands(*this, rhs, engine, where);
  const MatmulForm f = matmul_form(*this, rhs, where);
  const Plan p = plan(f.lhs, f.rhs, f.config, where);
  Tensor out = Tensor::empty(p.shape, dtype_, device_, where);
  engine.backend().dot_general(out, f.lhs, f.rhs, p.dims, engine);
  return out;
}

void Tensor::dot_into(const Tensor& rhs, Engine& engine, const Tensor& dest, Loc where) const {
  check_operands(*this, rhs, engine, where);
  const MatmulForm f = matmul_form(*this, rhs, where);
  const Plan p = plan(f.lhs, f.rhs, f.config, where);
  run_into(f.lhs, f.rhs, p, engine, dest, where);
}

Tensor dot_general(const Tensor& lhs, const Tensor& rhs, DotGeneralConfig config, Engine& engine,
                   SourceLocation where) {
  return lhs.dot_general(rhs, std::move(config), engine, where);
}

Tensor matmul(const Tensor& lhs, const Tensor& rhs, Engine& engine, SourceLocation where) {
  return lhs.matmul(rhs, engine, where);
}

namespace infer {

void contraction_dtypes(std::string_view op, DType lhs, DType rhs, SourceLocation where) {
  check::same_dtype(op, lhs, rhs, where);
  if (lhs == DType::Bool)
    check::fail_unsupported_dtype(op, DType::Bool,
                                  "contractions need a numeric dtype; cast Bool operands to an integer or float "
                                  "dtype first",
                                  where);
}

Shape dot_general(const Tensor& lhs, const Tensor& rhs, const DotGeneralConfig& config, SourceLocation where) {
  return plan(lhs, rhs, config, where).shape;
}

MatmulForm matmul(const Tensor& lhs, const Tensor& rhs, SourceLocation where) {
  const tensora::MatmulForm f = matmul_form(lhs, rhs, where);
  (void)plan(f.lhs, f.rhs, f.config, where);
  return {f.lhs.shape(), f.rhs.shape(), f.config};
}

}  // namespace infer

}  // namespace tensora
