// The metric catalog's table, from its rows in perfgate/metric_catalog.def (which names the sources
// below), and the look-ups by id and by name.
#include <algorithm>
#include <array>

#include "common/metrics.h"

namespace perfgate {
namespace {

constexpr std::string_view kPlugin = "TensorBoard plugin";
constexpr std::string_view kDlprof = "DLProf";
constexpr std::string_view kPerfgate = "perfgate";
constexpr std::string_view kHta = "HTA";
constexpr std::string_view kNsys = "nsys analyze";
constexpr std::string_view kPyprof = "PyProf";
constexpr std::string_view kTraceLens = "TraceLens and XProf's roofline";
constexpr std::string_view kSagemaker = "SageMaker Debugger";
constexpr std::string_view kNcclTests = "nccl-tests";
constexpr std::string_view kNeuron = "Neuron Device Viewer";
constexpr std::string_view kXprof = "XProf";
constexpr std::string_view kMemoryViz = "PyTorch MemoryViz (torch/cuda/_memory_viz.py)";
constexpr std::string_view kMemoryVizAndStats =
    "PyTorch MemoryViz (torch/cuda/_memory_viz.py), torch.cuda.memory_stats";
constexpr std::string_view kPytorchOom = "PyTorch's CUDA out-of-memory message";

constexpr MetricInfo kCatalog[] = {
#define PERFGATE_METRIC(id, name, label, unit, definition, source) {name, label, unit, definition, source},
#include "perfgate/metric_catalog.def"
#undef PERFGATE_METRIC
};
static_assert(std::size(kCatalog) == kMetricCount);

}  // namespace

std::span<const MetricInfo> metric_catalog() {
  return kCatalog;
}

const MetricInfo& metric_info(Metric metric) {
  return kCatalog[metric_position(metric)];
}

// A history of many runs resolves every metric's name of every run: by binary search over the
// names in order, not a walk of the catalog.
std::optional<Metric> metric_id(std::string_view name) {
  static const std::array<Metric, kMetricCount> by_name = [] {
    std::array<Metric, kMetricCount> ids{};
    for (std::size_t i = 0; i < kMetricCount; ++i) ids[i] = static_cast<Metric>(i);
    std::sort(ids.begin(), ids.end(), [](Metric a, Metric b) { return metric_name(a) < metric_name(b); });
    return ids;
  }();
  auto it = std::lower_bound(by_name.begin(), by_name.end(), name,
                             [](Metric m, std::string_view n) { return metric_name(m) < n; });
  if (it == by_name.end() || metric_name(*it) != name) return std::nullopt;
  return *it;
}

}  // namespace perfgate
