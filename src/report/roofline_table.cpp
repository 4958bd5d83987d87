// The roofline table's columns: per-call values are the totals over the calls divided by the calls.
#include "report/roofline_table.h"

#include "report/report_cells.h"
#include "report/table_columns.h"

namespace perfgate {
namespace {

double per_call(double total, std::uint64_t calls) {
  return calls > 0 ? total / static_cast<double>(calls) : 0;
}
ReportCell when_modelled(const RooflineRow& r, ReportCell cell) {
  return r.family.empty() ? ReportCell{} : cell;
}
ReportCell when_roofline(const RooflineRow& r, ReportCell cell) {
  return r.has_roofline && !r.family.empty() ? cell : ReportCell{};
}
// A row above its roofline (report invariant roofline.row_at_most_peak): its roofline figures are
// withheld, the report's warnings say why.
ReportCell when_reached(const RooflineRow& r, ReportCell cell) {
  return r.withheld ? ReportCell{} : when_roofline(r, std::move(cell));
}
ReportCell when_bytes(const RooflineRow& r, ReportCell cell) {
  return r.bytes_known && !r.family.empty() ? cell : ReportCell{};
}
ReportCell rate(double amount, TimeNs ns, double unit) {
  return ns > 0 ? ReportCell{amount / (static_cast<double>(ns) / 1e9) / unit} : ReportCell{};
}
std::string roofline_bound(const RooflineRow& r) {
  return r.compute_ps >= r.memory_ps ? "compute" : "memory";
}
// A transfer row's copies (issue 91): their bytes counted once, against the host link.
ReportCell when_transfer(const RooflineRow& r, ReportCell cell) {
  return r.host_transfer ? cell : ReportCell{};
}
ReportCell when_link(const RooflineRow& r, ReportCell cell) {
  return r.host_transfer && r.link_gbps > 0 ? cell : ReportCell{};
}
std::string host_memory(const RooflineRow& r) {
  if (r.pinned_copies > 0 && r.pageable_copies > 0) return "pinned and pageable";
  if (r.pageable_copies > 0) return "pageable";
  return r.pinned_copies > 0 ? "pinned" : "";
}
// The operands of a row's input dims as the trace writes them, "[[16,5185,64],[16,64,5185]]": one
// list of sizes per operand (empty for a scalar).
std::vector<std::vector<std::int64_t>> operand_dims(std::string_view text) {
  std::vector<std::vector<std::int64_t>> out;
  int depth = 0;
  std::int64_t number = -1;
  for (char c : text) {
    if (c == '[') {
      if (++depth == 2) out.emplace_back();
    } else if (c >= '0' && c <= '9') {
      number = (number < 0 ? 0 : number * 10) + (c - '0');
    } else {
      if (number >= 0 && depth == 2) out.back().push_back(number);
      number = -1;
      if (c == ']') --depth;
    }
  }
  return out;
}

// Attention written as matmuls and a softmax (issue 72, item 2): a batched matmul that makes the
// [B, S, S] scores from [B, S, d] x [B, d, S], or reads them against [B, S, d], or a softmax over
// them; S at least 512 and d at most 256, a head's. SDPA never writes the scores.
bool unfused_attention(const RooflineRow& r) {
  constexpr std::int64_t kMinSequence = 512;
  constexpr std::int64_t kMaxHeadDim = 256;
  std::vector<std::vector<std::int64_t>> dims = operand_dims(r.input_dims);
  auto last2 = [](const std::vector<std::int64_t>& d, std::int64_t& rows, std::int64_t& cols) {
    if (d.size() < 3) return false;
    rows = d[d.size() - 2];
    cols = d[d.size() - 1];
    return true;
  };
  std::int64_t m = 0, k = 0, k2 = 0, n = 0;
  if (r.name == "aten::_softmax" || r.name == "aten::softmax" || r.name == "aten::_safe_softmax")
    return !dims.empty() && last2(dims[0], m, n) && m == n && m >= kMinSequence;
  std::size_t a = r.name == "aten::baddbmm" ? 1 : 0;  // baddbmm(input, batch1, batch2)
  if (r.name != "aten::bmm" && r.name != "aten::baddbmm" && r.name != "aten::matmul") return false;
  if (dims.size() < a + 2 || !last2(dims[a], m, k) || !last2(dims[a + 1], k2, n) || k != k2) return false;
  bool scores = m == n && m >= kMinSequence && k <= kMaxHeadDim;    // Q x K^T
  bool weighted = m == k && k >= kMinSequence && n <= kMaxHeadDim;  // P x V
  return scores || weighted;
}

// What would bring the op nearer its roofline: fusing a memory-bound elementwise op, a lower
// precision for an FP32 matrix op, dims that are multiples of 8 for a half-precision one off Tensor
// Cores, the shape or backend of a fused attention op, SDPA for attention written as matmuls.
std::string roofline_remedy(const RooflineRow& r) {
  // A host-device copy: pinned memory, non_blocking, prefetch, fewer bytes (issue 89), not fusion;
  // from pageable memory, pinning it first.
  if (r.host_transfer) return r.pageable_copies > 0 ? "pinned-memory" : "transfer";
  if (r.family.empty() || !r.has_roofline) return "";
  // An XLA op is matrix work where MFU counts it (a convolution or dot, docs/metrics.md "XLA ops").
  bool matrix = r.family == "gemm" || r.family == "conv" || r.family == "attention" ||
                r.family == "counted" || r.family == "moe" || r.family == "serving_attention" ||
                (r.family == "xla" && r.counted_in_mfu);
  if (unfused_attention(r)) return "unfused-attention";
  if (matrix && r.misaligned) return "alignment";
  if (!matrix && roofline_bound(r) == "memory") return "fusion";
  // FP32 matrix work: a 16-bit type halves the bytes and runs on Tensor Cores, whichever bound.
  if (matrix && (r.precision == "fp32" || r.precision == "tf32")) return "precision";
  // A fused attention kernel (the attention model covers only SDPA's fused ops) below its roofline.
  if (r.family == "attention") return "attention";
  return "";
}

constexpr std::array<Column<RooflineRow>, 27> kRooflineCells = {{
    {"name", [](const RooflineRow& r) { return ReportCell{r.name}; }},
    {"input_dims", [](const RooflineRow& r) { return text(r.input_dims); }},
    {"input_types", [](const RooflineRow& r) { return text(r.input_types); }},
    {"model",
     [](const RooflineRow& r) {
       return ReportCell{r.family.empty() ? std::string("unmodelled") : r.family};
     }},
    {"precision", [](const RooflineRow& r) { return text(r.precision); }},
    {"calls", [](const RooflineRow& r) { return count(r.calls); }},
    {"kernel_us", [](const RooflineRow& r) { return us(r.kernel_ns); }},
    {"kernel_us_mean", [](const RooflineRow& r) { return mean_us(r.kernel_ns, r.calls); }},
    {"kernel_us_min", [](const RooflineRow& r) { return us(r.kernel_min_ns); }},
    {"kernel_us_max", [](const RooflineRow& r) { return us(r.kernel_max_ns); }},
    {"flop",
     [](const RooflineRow& r) { return when_modelled(r, per_call(static_cast<double>(r.flop), r.calls)); }},
    {"bytes",
     [](const RooflineRow& r) {
       if (r.host_transfer) return ReportCell{per_call(static_cast<double>(r.copy_bytes), r.transfer_calls)};
       return when_bytes(r, per_call(static_cast<double>(r.bytes), r.calls));
     }},
    {"flop_per_byte",
     [](const RooflineRow& r) {
       return r.bytes > 0 && !r.host_transfer
                  ? when_bytes(r, static_cast<double>(r.flop) / static_cast<double>(r.bytes))
                  : ReportCell{};
     }},
    {"tflops",
     [](const RooflineRow& r) {
       return when_modelled(r, rate(static_cast<double>(r.flop), r.kernel_ns, 1e12));
     }},
    {"tb_per_s",
     [](const RooflineRow& r) {
       if (r.host_transfer) return rate(static_cast<double>(r.copy_bytes), r.copy_ns, 1e12);
       return when_bytes(r, rate(static_cast<double>(r.bytes), r.kernel_ns, 1e12));
     }},
    {"peak_tflops",
     [](const RooflineRow& r) { return r.peak_tflops > 0 ? when_roofline(r, r.peak_tflops) : ReportCell{}; }},
    {"memory_tb_per_s", [](const RooflineRow& r) { return when_roofline(r, r.memory_gbps / 1000.0); }},
    {"bound",
     [](const RooflineRow& r) {
       return r.host_transfer ? ReportCell{std::string("host link")} : when_roofline(r, roofline_bound(r));
     }},
    {"roofline_us",
     [](const RooflineRow& r) { return when_reached(r, static_cast<double>(r.roofline_ps) / 1e6); }},
    // A row with host transfers among its calls: part of its time is the host link's, which no
    // ceiling bounds, so neither the share of the roofline nor a saving is stated (issue 91).
    {"roofline_pct",
     [](const RooflineRow& r) {
       return r.kernel_ns > 0 && !r.host_transfer ? when_reached(r, r.roofline_pct()) : ReportCell{};
     }},
    {"saving_us",
     [](const RooflineRow& r) {
       if (r.host_transfer) return ReportCell{};
       return when_reached(r, std::max(0.0, static_cast<double>(r.kernel_ns) / 1000.0 -
                                                static_cast<double>(r.roofline_ps) / 1e6));
     }},
    {"host_link", [](const RooflineRow& r) { return when_link(r, r.link); }},
    {"host_link_gb_per_s", [](const RooflineRow& r) { return when_link(r, r.link_gbps); }},
    {"host_link_share_pct",
     [](const RooflineRow& r) {
       return r.link_withheld || r.copy_ns <= 0 ? ReportCell{} : when_link(r, r.host_link_share_pct());
     }},
    {"host_memory", [](const RooflineRow& r) { return when_transfer(r, text(host_memory(r))); }},
    {"counted_in_mfu", [](const RooflineRow& r) { return when_modelled(r, r.counted_in_mfu); }},
    {"remedy", [](const RooflineRow& r) { return text(roofline_remedy(r)); }},
}};

}  // namespace

ReportTable roofline_table(Table table, const std::vector<RooflineRow>& rows) {
  static constexpr auto kWorker = declared<Table::Roofline>(kRooflineCells);
  static constexpr auto kRun = declared<Table::RunRoofline>(kRooflineCells);
  return make_table(table == Table::RunRoofline ? kRun : kWorker, rows);
}

}  // namespace perfgate
