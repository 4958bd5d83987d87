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
ReportCell when_bytes(const RooflineRow& r, ReportCell cell) {
  return r.bytes_known && !r.family.empty() ? cell : ReportCell{};
}
ReportCell rate(double amount, TimeNs ns, double unit) {
  return ns > 0 ? ReportCell{amount / (static_cast<double>(ns) / 1e9) / unit} : ReportCell{};
}
std::string roofline_bound(const RooflineRow& r) {
  return r.compute_ps >= r.memory_ps ? "compute" : "memory";
}
// What would bring the op nearer its roofline: fusing a memory-bound elementwise op, a lower
// precision for an FP32 matrix op, dims that are multiples of 8 for a half-precision one off Tensor
// Cores, the shape or backend of a fused attention op.
std::string roofline_remedy(const RooflineRow& r) {
  if (r.family.empty() || !r.has_roofline) return "";
  // An XLA op is matrix work where MFU counts it (a convolution or dot, docs/metrics.md "XLA ops").
  bool matrix = r.family == "gemm" || r.family == "conv" || r.family == "attention" ||
                r.family == "counted" || r.family == "moe" || r.family == "serving_attention" ||
                (r.family == "xla" && r.counted_in_mfu);
  if (matrix && r.misaligned) return "alignment";
  if (!matrix && roofline_bound(r) == "memory") return "fusion";
  // FP32 matrix work: a 16-bit type halves the bytes and runs on Tensor Cores, whichever bound.
  if (matrix && (r.precision == "fp32" || r.precision == "tf32")) return "precision";
  // A fused attention kernel (the attention model covers only SDPA's fused ops) below its roofline.
  if (r.family == "attention") return "attention";
  return "";
}

constexpr std::array<Column<RooflineRow>, 23> kRooflineColumns = {{
    {"name", "", "Op name", [](const RooflineRow& r) { return ReportCell{r.name}; }},
    {"input_dims", "", "Input Dims as the trace writes them",
     [](const RooflineRow& r) { return text(r.input_dims); }},
    {"input_types", "", "Input type as the trace writes them",
     [](const RooflineRow& r) { return text(r.input_types); }},
    {"model", "",
     "The performance model (rules: op_models); unmodelled: no model, or shapes that do not say enough",
     [](const RooflineRow& r) {
       return ReportCell{r.family.empty() ? std::string("unmodelled") : r.family};
     }},
    {"precision", "",
     "Matrix ops: the precision whose peak the FLOPs compare with, the one their kernels ran in where the "
     "kernel names say (rules: kernel_precisions), else the input type (TF32 for FP32 Tensor-Core-eligible "
     "ops); other ops: their input type (compared with the FP32 vector rate, FP64 for doubles)",
     [](const RooflineRow& r) { return text(r.precision); }},
    {"calls", "count", "Calls made during the window's steps",
     [](const RooflineRow& r) { return count(r.calls); }},
    {"kernel_us", "us",
     "GPU time of the kernels, memcpy and memset the calls launched (with their callees'); unmodelled rows: "
     "their own",
     [](const RooflineRow& r) { return us(r.kernel_ns); }},
    {"kernel_us_mean", "us", "kernel_us per call",
     [](const RooflineRow& r) { return mean_us(r.kernel_ns, r.calls); }},
    {"kernel_us_min", "us", "The shortest call's", [](const RooflineRow& r) { return us(r.kernel_min_ns); }},
    {"kernel_us_max", "us", "The longest call's", [](const RooflineRow& r) { return us(r.kernel_max_ns); }},
    {"flop", "flop",
     "FLOPs of one call: MFU's count where it counts the op (the trace's own, else the shape formulas), else "
     "the model's",
     [](const RooflineRow& r) { return when_modelled(r, per_call(static_cast<double>(r.flop), r.calls)); }},
    {"bytes", "bytes", "Bytes one call reads and writes by the model (each tensor once)",
     [](const RooflineRow& r) { return when_bytes(r, per_call(static_cast<double>(r.bytes), r.calls)); }},
    {"flop_per_byte", "flop/byte", "Arithmetic intensity: flop / bytes",
     [](const RooflineRow& r) {
       return r.bytes > 0 ? when_bytes(r, static_cast<double>(r.flop) / static_cast<double>(r.bytes))
                          : ReportCell{};
     }},
    {"tflops", "TFLOP/s", "Achieved: flop x calls / kernel_us",
     [](const RooflineRow& r) {
       return when_modelled(r, rate(static_cast<double>(r.flop), r.kernel_ns, 1e12));
     }},
    {"tb_per_s", "TB/s", "Achieved: bytes x calls / kernel_us",
     [](const RooflineRow& r) {
       return when_bytes(r, rate(static_cast<double>(r.bytes), r.kernel_ns, 1e12));
     }},
    {"peak_tflops", "TFLOP/s",
     "The compute ceiling at the op's precision (rules: gpu_peaks); none for an elementwise op measured "
     "against the memory ceiling alone",
     [](const RooflineRow& r) { return r.peak_tflops > 0 ? when_roofline(r, r.peak_tflops) : ReportCell{}; }},
    {"memory_tb_per_s", "TB/s",
     "The memory ceiling: the GPU's memory bandwidth (rules: gpu_peaks memory_gbps)",
     [](const RooflineRow& r) { return when_roofline(r, r.memory_gbps / 1000.0); }},
    {"bound", "", "compute or memory: the larger of flop / peak and bytes / memory bandwidth",
     [](const RooflineRow& r) { return when_roofline(r, roofline_bound(r)); }},
    {"roofline_us", "us", "The calls' time at the roofline: the larger of the two, summed over calls",
     [](const RooflineRow& r) { return when_roofline(r, static_cast<double>(r.roofline_ps) / 1e6); }},
    {"roofline_pct", "%", "% of roofline: roofline_us / kernel_us",
     [](const RooflineRow& r) {
       return r.kernel_ns > 0 ? when_roofline(r, static_cast<double>(r.roofline_ps) / 10.0 /
                                                     static_cast<double>(r.kernel_ns))
                              : ReportCell{};
     }},
    {"saving_us", "us",
     "kernel_us - roofline_us: the time reaching the roofline would save (the table's order)",
     [](const RooflineRow& r) {
       return when_roofline(r, std::max(0.0, static_cast<double>(r.kernel_ns) / 1000.0 -
                                                 static_cast<double>(r.roofline_ps) / 1e6));
     }},
    {"counted_in_mfu", "", "true where compute.flops (MFU) counts these FLOPs",
     [](const RooflineRow& r) { return when_modelled(r, r.counted_in_mfu); }},
    {"remedy", "",
     "fusion (a memory-bound elementwise op), precision (an FP32 or TF32 matrix op), alignment (a "
     "half-precision matrix op off Tensor Cores with K or N, or channels, not a multiple of 8), attention (a "
     "fused attention op: head dimension, sequence length, backend), or empty",
     [](const RooflineRow& r) { return text(roofline_remedy(r)); }},
}};

}  // namespace

ReportTable roofline_table(const char* name, const char* title, const char* description,
                           const std::vector<RooflineRow>& rows) {
  return make_table(name, title, description, kRooflineColumns, rows);
}

}  // namespace perfgate
