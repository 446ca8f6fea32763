#include "sim/sample_table.h"

#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace rbs::detail {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kLargeBlock = std::size_t{1} << 20;
std::size_t roundedToHugePages(std::size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }
}  // namespace

void* allocateSampleBlock(std::size_t bytes) {
  if (bytes < kLargeBlock) return ::operator new(bytes);
  const std::size_t size = roundedToHugePages(bytes);
  void* p = std::aligned_alloc(kHugePage, size);
  if (!p) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
  madvise(p, size, MADV_HUGEPAGE);  // a hint: without huge pages the block works as well
#endif
  return p;
}

void freeSampleBlock(void* p, std::size_t bytes) noexcept {
  if (bytes < kLargeBlock)
    ::operator delete(p);
  else
    std::free(p);
}

}  // namespace rbs::detail
