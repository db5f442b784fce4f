// A fused elementwise program as the graph compiler describes it to a backend: a straight line
// of elementwise steps over one output shape. Only ops, operand slots, dtypes and the shape;
// how a backend runs it (blocking, scratch, vector code) is its own business, planned once per
// program and backend and kept in `plans`.
#pragma once

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "ops/elementwise_catalog.hpp"
#include "tensora/shape.hpp"

namespace tensora::backend {

class Backend;

// A backend's executable form of one program (its plan). Opaque to everyone else.
class FusedPlan {
 public:
  virtual ~FusedPlan() = default;
};

struct FusedStep {
  // Cast covers both convert and cast: the kernel is the same, the checks were made earlier.
  enum class Kind : std::uint8_t { Unary, Binary, Select, Cast };
  Kind kind;
  UnaryOp unary{};
  BinaryOp binary{};
  DType dtype;            // the step's result dtype
  std::vector<int> args;  // >= 0: an earlier step; < 0: external input -(arg + 1)
};

class FusedProgram {
 public:
  std::vector<FusedStep> steps;  // the last step is the result
  std::vector<DType> inputs;     // dtypes of the external inputs
  Shape shape;                   // the result's shape; inputs broadcast to it
  DType dtype = DType::F32;      // the result's dtype

  // The plan `backend` made for this program, made by `make()` on the first call. Thread-safe:
  // one program may run on several engines at once.
  template <class Make>
  const FusedPlan& plan(const Backend& backend, Make&& make) const {
    const std::lock_guard lock(plans_->mutex);
    for (const auto& [owner, p] : plans_->made)
      if (owner == &backend) return *p;
    plans_->made.emplace_back(&backend, make());
    return *plans_->made.back().second;
  }

 private:
  struct Plans {
    std::mutex mutex;
    std::vector<std::pair<const Backend*, std::unique_ptr<const FusedPlan>>> made;
  };
  std::shared_ptr<Plans> plans_ = std::make_shared<Plans>();
};

}  // namespace tensora::backend
