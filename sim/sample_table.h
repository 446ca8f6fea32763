// SampleTable: the recorded samples of all channels in one contiguous block, one row per sample.
//
// A recording grows by one row per output sample for as long as a run lasts. A heap row per
// sample (vector<vector<double>>) cost a malloc and a fresh page per sample and made the stored
// recording the largest cost of a cheap plant (docs/BENCHMARKS.md, "Flat recording"); one block
// with a fixed row stride grows by amortized doubling and costs a copy of the row.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace rbs {

namespace detail {
/// Allocates large blocks (≥ 1 MB) 2 MB-aligned, whole 2 MB pages, and asks Linux for
/// transparent huge pages there: a recording is written once, front to back, and with 4 kB pages
/// every 4 kB of it costs a page fault (measured 10 µs each in a virtual machine, more than the
/// sample itself). Small blocks come from operator new as usual.
void* allocateSampleBlock(std::size_t bytes);
void freeSampleBlock(void* p, std::size_t bytes) noexcept;

template <class T>
struct SampleBlockAllocator {
  using value_type = T;
  SampleBlockAllocator() = default;
  template <class U>
  SampleBlockAllocator(const SampleBlockAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(allocateSampleBlock(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { freeSampleBlock(p, n * sizeof(T)); }
  friend bool operator==(const SampleBlockAllocator&, const SampleBlockAllocator&) { return true; }
};
}  // namespace detail

class SampleTable {
 public:
  SampleTable() = default;
  /// Rows given as lists (tests, small tables): all of the same width.
  SampleTable(std::initializer_list<std::initializer_list<double>> rows) {
    for (const auto& row : rows) push_back(std::span<const double>(row.begin(), row.size()));
  }

  /// Number of rows (samples).
  std::size_t size() const { return width_ == 0 ? rows_ : data_.size() / width_; }
  bool empty() const { return size() == 0; }
  /// Values per row (channels). Set by the first row of an empty table.
  std::size_t width() const { return width_; }

  std::span<const double> operator[](std::size_t k) const { return {data_.data() + k * width_, width_}; }
  std::span<double> operator[](std::size_t k) { return {data_.data() + k * width_, width_}; }
  std::span<const double> front() const { return (*this)[0]; }
  std::span<const double> back() const { return (*this)[size() - 1]; }

  /// Appends a row. The first row of an empty table sets the width; later rows must match it.
  void push_back(std::span<const double> row) {
    if (empty()) {
      width_ = row.size();
      data_.clear();
      rows_ = 0;
    } else if (row.size() != width_) {
      throw std::invalid_argument("SampleTable: a row of " + std::to_string(row.size()) + " values in a table of " +
                                  std::to_string(width_) + " channels");
    }
    data_.insert(data_.end(), row.begin(), row.end());
    if (width_ == 0) ++rows_;
  }
  void push_back(const std::vector<double>& row) { push_back(std::span<const double>(row)); }
  /// Appends every row of `other` (same width, or any width if this table is empty).
  void append(const SampleTable& other) {
    if (&other == this) {
      const SampleTable copy = other;
      append(copy);
      return;
    }
    for (std::size_t k = 0; k < other.size(); ++k) push_back(other[k]);
  }
  /// Drops the n oldest rows (n ≤ size). O(size): callers drop in chunks.
  void dropOldest(std::size_t n) {
    if (width_ == 0) {
      rows_ -= std::min(n, rows_);
      return;
    }
    data_.erase(data_.begin(), data_.begin() + static_cast<std::ptrdiff_t>(std::min(n, size()) * width_));
  }
  /// Removes all rows (keeps the storage for the next run).
  void clear() {
    data_.clear();
    rows_ = 0;
  }
  /// Room for `rows` rows of `width` values in all, without reallocation. Grows at least to twice
  /// the current capacity, so that reserving a little more before each of many slices stays
  /// amortized O(1) per row.
  void reserve(std::size_t rows, std::size_t width) {
    const std::size_t n = rows * width;
    if (n > data_.capacity()) data_.reserve(std::max(n, 2 * data_.capacity()));
  }

  /// Random-access iteration over the rows (each a span).
  class const_iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = std::span<const double>;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = std::span<const double>;
    const_iterator() = default;
    const_iterator(const SampleTable* table, std::size_t k) : table_(table), k_(k) {}
    std::span<const double> operator*() const { return (*table_)[k_]; }
    std::span<const double> operator[](difference_type d) const { return (*table_)[k_ + d]; }
    const_iterator& operator++() { ++k_; return *this; }
    const_iterator operator++(int) { const_iterator old = *this; ++k_; return old; }
    const_iterator& operator--() { --k_; return *this; }
    const_iterator& operator+=(difference_type d) { k_ += d; return *this; }
    const_iterator operator+(difference_type d) const { return {table_, k_ + d}; }
    difference_type operator-(const const_iterator& o) const {
      return static_cast<difference_type>(k_) - static_cast<difference_type>(o.k_);
    }
    bool operator==(const const_iterator& o) const { return k_ == o.k_; }
    auto operator<=>(const const_iterator& o) const { return k_ <=> o.k_; }

   private:
    const SampleTable* table_ = nullptr;
    std::size_t k_ = 0;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

  /// Same rows, value for value (NaN ≠ NaN, as for vectors of doubles).
  friend bool operator==(const SampleTable& a, const SampleTable& b) {
    return a.size() == b.size() && (a.empty() || (a.width_ == b.width_ && a.data_ == b.data_));
  }

 private:
  std::vector<double, detail::SampleBlockAllocator<double>> data_;  ///< row k at [k·width, (k+1)·width)
  std::size_t width_ = 0;
  std::size_t rows_ = 0;      ///< row count while the width is 0 (rows without channels)
};

}  // namespace rbs
