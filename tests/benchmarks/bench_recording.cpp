// The stored recording, alone: appending one output sample of W channels to a recording that
// grows from empty to N samples, in fresh memory every iteration (as a run does). Per sample:
// the copy of the row and the first touch of the memory it lands in.
//   - flat:      SampleTable, as Simulator::advanceTo uses it (room for the run reserved first);
//   - heap_rows: one std::vector<double> per sample (the layout before 2026-11-28), for reference.
// W = 96 (looping quadcopter) and 245 (6R arm); N = 2001 (a 10 s run at 5 ms) and 20001.
// Protocol and results: docs/BENCHMARKS.md, "Flat recording". Not in ctest.
#include <benchmark/benchmark.h>

#include <vector>

#include "sim/sample_table.h"

namespace {

std::vector<double> sampleRow(std::size_t width) {
  std::vector<double> row(width);
  for (std::size_t i = 0; i < width; ++i) row[i] = 0.5 + static_cast<double>(i);
  return row;
}

void flat(benchmark::State& st) {
  const auto width = static_cast<std::size_t>(st.range(0));
  const auto samples = static_cast<std::size_t>(st.range(1));
  std::vector<double> row = sampleRow(width);
  for (auto _ : st) {
    rbs::SampleTable table;
    table.reserve(samples, width);
    for (std::size_t k = 0; k < samples; ++k) {
      row[0] = static_cast<double>(k);
      table.push_back(row);
    }
    benchmark::DoNotOptimize(table.back().data());
  }
  st.SetItemsProcessed(st.iterations() * static_cast<long>(samples));
}

void heapRows(benchmark::State& st) {
  const auto width = static_cast<std::size_t>(st.range(0));
  const auto samples = static_cast<std::size_t>(st.range(1));
  std::vector<double> row = sampleRow(width);
  for (auto _ : st) {
    std::vector<std::vector<double>> table;
    for (std::size_t k = 0; k < samples; ++k) {
      row[0] = static_cast<double>(k);
      table.push_back(row);
    }
    benchmark::DoNotOptimize(table.back().data());
  }
  st.SetItemsProcessed(st.iterations() * static_cast<long>(samples));
}

BENCHMARK(flat)->ArgNames({"channels", "samples"})->ArgsProduct({{96, 245}, {2001, 20001}});
BENCHMARK(heapRows)->ArgNames({"channels", "samples"})->ArgsProduct({{96, 245}, {2001, 20001}});

}  // namespace
