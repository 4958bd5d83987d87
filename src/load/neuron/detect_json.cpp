// Telling a Neuron profile from a Kineto trace by the keys of the JSON object, whatever their order.
#include <algorithm>
#include <array>

#include "load/neuron/neuron_reader.h"

namespace perfgate::neuron {
namespace {

// The full JSON's top-level sections (neuron-profile 2.14 to 2.33; 2.27 writes the 21 after
// "semaphore", in an order that differs from file to file); a Kineto trace has none of them. Any of
// them as the first key makes the file a Neuron profile, so the order does not matter.
constexpr std::array<std::string_view, 22> kSections = {
    "summary",      "instruction",     "dma",         "dma_throughput",      "pending_dma",
    "active_time",  "layer_summary",   "model_info",  "nc_mem_usage",        "metadata",
    "profile_info", "neff_header",     "warnings",    "semaphore",           "semaphore_update",
    "neff_node",    "dma_queues_info", "terminology", "summary_group_order", "instruction_usage",
    "ham",          "summary_groups"};

bool is_summary_metric(std::string_view key) {
  static constexpr std::array<std::string_view, 8> kEndings = {"_percent", "_time", "_count", "_bytes",
                                                               "_flops",   "_ns",   "_idx",   "_version"};
  return std::any_of(kEndings.begin(), kEndings.end(), [&](std::string_view e) { return key.ends_with(e); });
}

void skip_space(std::string_view s, std::size_t& i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) ++i;
}

// The key that starts at s[i] (a quote), or empty; i moves past the colon after it.
std::string_view read_key(std::string_view s, std::size_t& i) {
  skip_space(s, i);
  if (i >= s.size() || s[i] != '"') return {};
  std::size_t start = ++i;
  while (i < s.size() && s[i] != '"' && s[i] != '\\') ++i;
  if (i >= s.size() || s[i] != '"') return {};
  std::string_view key = s.substr(start, i - start);
  ++i;
  skip_space(s, i);
  if (i >= s.size() || s[i] != ':') return {};
  ++i;
  skip_space(s, i);
  return key;
}

// Past the scalar value at s[i] (a string, number, true, false, null); false where it is not one.
bool skip_scalar(std::string_view s, std::size_t& i) {
  if (i >= s.size()) return false;
  if (s[i] == '"') {
    for (++i; i < s.size() && s[i] != '"'; ++i)
      if (s[i] == '\\') ++i;
    if (i >= s.size()) return false;
    ++i;
  } else {
    std::size_t start = i;
    while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ' ' && s[i] != '\n' && s[i] != '\r' &&
           s[i] != '\t')
      ++i;
    if (i == start || i >= s.size()) return false;
  }
  skip_space(s, i);
  if (i < s.size() && s[i] == ',') {
    ++i;
    return true;
  }
  return false;
}

// Whether the object whose members start at s[i] has a summary metric's name among the keys the
// head holds (a bounded look-ahead over scalar members: the node's keys come in any order, and its
// first ones may be text such as instance_type).
bool has_summary_metric(std::string_view s, std::size_t i) {
  for (int member = 0; member < 256; ++member) {
    std::string_view key = read_key(s, i);
    if (key.empty()) return false;
    if (is_summary_metric(key)) return true;
    if (!skip_scalar(s, i)) return false;
  }
  return false;
}

bool is_section(std::string_view key) {
  return std::find(kSections.begin(), kSections.end(), key) != kSections.end();
}

// The keys neuron-profile writes in `metadata` (2.27, issue 54); a Kineto trace's metadata has none.
constexpr std::array<std::string_view, 8> kMetadataKeys = {
    "ntff_version",       "data_version",      "pe_clock_freq",      "ticks_per_nanosec",
    "first_hw_timestamp", "last_hw_timestamp", "num_physical_cores", "total_point_count"};

// Past a flat object (scalar members only) whose members start at s[i] and its '}'; false where a
// member is an object or an array, or the head ends first. `profiler_key`: whether a key of
// kMetadataKeys was among them.
bool skip_flat_object(std::string_view s, std::size_t& i, bool& profiler_key) {
  skip_space(s, i);
  for (int member = 0; member < 256 && i < s.size() && s[i] != '}'; ++member) {
    std::string_view key = read_key(s, i);
    if (key.empty() || i >= s.size() || s[i] == '{' || s[i] == '[') return false;
    profiler_key =
        profiler_key || std::find(kMetadataKeys.begin(), kMetadataKeys.end(), key) != kMetadataKeys.end();
    if (!skip_scalar(s, i) && (i >= s.size() || s[i] != '}')) return false;
  }
  if (i >= s.size() || s[i] != '}') return false;
  ++i;
  skip_space(s, i);
  return true;
}

// Past the ',' at s[i]; false where there is none.
bool skip_comma(std::string_view s, std::size_t& i) {
  if (i >= s.size() || s[i] != ',') return false;
  ++i;
  return true;
}

// "metadata" begins Kineto traces too (TraceLens's benchmark traces write their run's settings
// there, nested objects of 26 kB before traceEvents): it marks a Neuron profile only as the
// profiler writes it. neuron-profile 2.27 writes a list of one flat object of scalars
// (ntff_version, pe_clock_freq, ...: 7 of 117 real files began with it); a flat object followed by
// another of the profile's sections is read as Neuron too. A Kineto trace's metadata is an object.
bool neuron_metadata_first(std::string_view s, std::size_t i) {
  bool profiler_key = false;
  if (i < s.size() && s[i] == '[') {
    ++i;
    skip_space(s, i);
    if (i >= s.size() || s[i] != '{') return false;
    ++i;
    if (!skip_flat_object(s, i, profiler_key)) return false;
    if (profiler_key) return true;
    if (i >= s.size() || s[i] != ']') return false;
    ++i;
    skip_space(s, i);
    return skip_comma(s, i) && is_section(read_key(s, i));
  }
  if (i >= s.size() || s[i] != '{') return false;
  ++i;
  return skip_flat_object(s, i, profiler_key) && skip_comma(s, i) && is_section(read_key(s, i));
}

}  // namespace

ProfileJson detect_json(std::string_view head) {
  std::size_t i = 1;  // past '{'
  std::string_view key = read_key(head, i);
  if (key.empty()) return ProfileJson::None;
  if (key == "metadata") return neuron_metadata_first(head, i) ? ProfileJson::Full : ProfileJson::None;
  if (is_section(key)) return ProfileJson::Full;
  if (i >= head.size() || head[i] != '{') return ProfileJson::None;
  if (key.starts_with("n_")) return ProfileJson::Summary;
  return has_summary_metric(head, i + 1) ? ProfileJson::Summary : ProfileJson::None;
}

NeuronEngine engine_of_lane(std::string_view label) {
  auto starts = [&](std::string_view prefix) {
    if (label.size() < prefix.size()) return false;
    for (std::size_t k = 0; k < prefix.size(); ++k)
      if ((label[k] | 0x20) != prefix[k]) return false;
    return true;
  };
  if (starts("tensor")) return NeuronEngine::Tensor;
  if (starts("vector")) return NeuronEngine::Vector;
  if (starts("scalar")) return NeuronEngine::Scalar;
  if (starts("gpsimd")) return NeuronEngine::GpSimd;
  if (starts("sync")) return NeuronEngine::Sync;
  return NeuronEngine::Other;
}

}  // namespace perfgate::neuron
