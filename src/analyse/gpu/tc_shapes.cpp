#include "analyse/gpu/tc_shapes.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "analyse/ops/op_shapes.h"

namespace perfgate {
namespace {

struct Check {
  std::string dims;
  std::string misaligned;
};

void check(Check& c, const char* label, std::int64_t value) {
  c.dims += fmt::format("{}{}={}", c.dims.empty() ? "" : " ", label, value);
  if (value % 8 != 0) c.misaligned += fmt::format("{}{}", c.misaligned.empty() ? "" : ", ", label);
}

std::optional<Check> check_shapes(const Profile& p, ArgumentCache& args, const HostEvent& e) {
  const OpDetails& d = p.details(e);
  const auto& dims = args.dims(d.input_dims);
  Check c;
  if (auto g = gemm_shape(p.str(e.name), dims)) {
    check(c, "M", g->m);
    check(c, "N", g->n);
    check(c, "K", g->k);
    return c;
  }
  if (auto conv = conv_shape(p.str(e.name), dims, args.strings(d.concrete_inputs))) {
    check(c, "C", conv->in_channels);
    check(c, "K", conv->out_channels);
    return c;
  }
  return std::nullopt;
}

bool half_precision(std::string_view type) {
  Precision p = precision_of(type);
  return p == Precision::Fp16 || p == Precision::Bf16;
}

}  // namespace

TensorCoreShapeReport tensor_core_shapes(const Profile& p, const OpStats& stats, ArgumentCache& args) {
  TensorCoreShapeReport report;
  std::set<StringId> not_using_tc;
  std::map<std::pair<StringId, StringId>, ShapeFindingRow> rows;
  for (std::size_t e = 0; e < p.host_events.size(); ++e) {
    if (!stats.in_window(e) || !stats.bottom_eligible(e)) continue;
    TimeNs device = stats.total_device(e);
    if (device == 0 || stats.total_tc(e) > 0) continue;
    const HostEvent& h = p.host_events[e];
    not_using_tc.insert(h.name);
    const OpDetails& d = p.details(h);
    std::string_view type = first_tensor_type(args.strings(d.input_types));
    if (!half_precision(type)) continue;
    auto [it, inserted] = rows.try_emplace({h.name, d.input_dims});
    ShapeFindingRow& row = it->second;
    if (inserted) {
      std::optional<Check> c = check_shapes(p, args, h);
      row.op = std::string(p.str(h.name));
      row.input_shapes = std::string(p.str(d.input_dims));
      row.data_type = std::string(type);
      row.dims = c ? c->dims : "unknown";
      row.misaligned = c ? c->misaligned : "";
    }
    ++row.calls;
    row.device += device;
  }
  for (auto& [key, row] : rows) {
    if (!row.misaligned.empty()) ++report.misaligned;
    report.findings.push_back(std::move(row));
  }
  std::sort(report.findings.begin(), report.findings.end(),
            [](const ShapeFindingRow& a, const ShapeFindingRow& b) { return a.device > b.device; });
  report.ops_not_using_tc = not_using_tc.size();
  return report;
}

}  // namespace perfgate
