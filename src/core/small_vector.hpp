// A vector of trivially copyable values that keeps its first N inline and moves to the heap
// only past them: per-call descriptors (an FFT's axes and lengths) are short, and two heap
// allocations and frees per call were a measurable part of a 1024-point transform.
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <type_traits>
#include <vector>

namespace tensora {

template <class T, std::size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T> && N > 0);

 public:
  SmallVector() = default;
  SmallVector(std::initializer_list<T> values) {
    for (const T& v : values) push_back(v);
  }
  // Copies touch the heap list only when it is in use (std::vector's own copy of an empty
  // list costs as much as the whole inline part: a descriptor is copied on every call).
  SmallVector(const SmallVector& other) : inline_(other.inline_), size_(other.size_) {
    if (!other.heap_.empty()) heap_ = other.heap_;
  }
  SmallVector& operator=(const SmallVector& other) {
    inline_ = other.inline_;
    size_ = other.size_;
    if (!other.heap_.empty() || !heap_.empty()) heap_ = other.heap_;
    return *this;
  }
  SmallVector(SmallVector&&) noexcept = default;
  SmallVector& operator=(SmallVector&&) noexcept = default;
  ~SmallVector() = default;

  void push_back(const T& v) {
    if (heap_.empty() && size_ < N) {
      inline_[size_++] = v;
      return;
    }
    if (heap_.empty()) heap_.assign(inline_.begin(), inline_.end());  // the first value past N
    heap_.push_back(v);
    ++size_;
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T* data() const { return heap_.empty() ? inline_.data() : heap_.data(); }
  T* data() { return heap_.empty() ? inline_.data() : heap_.data(); }
  const T& operator[](std::size_t i) const { return data()[i]; }
  T& operator[](std::size_t i) { return data()[i]; }
  const T& back() const { return data()[size_ - 1]; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }

  friend bool operator==(const SmallVector& a, const SmallVector& b) {
    if (a.size_ != b.size_) return false;
    for (std::size_t i = 0; i < a.size_; ++i)
      if (!(a[i] == b[i])) return false;
    return true;
  }

 private:
  std::array<T, N> inline_{};
  std::vector<T> heap_;  // every value once there are more than N, else empty
  std::size_t size_ = 0;
};

}  // namespace tensora
