// The run's collectives across ranks (analyse/communication/collective_matching.h) as report tables:
// bandwidth by group, type and size; each rank's transfer and synchronizing time; the ranks that arrive last.
#include <algorithm>
#include <array>

#include "perfgate/analysis.h"
#include "report/report_cells.h"
#include "report/run_tables.h"
#include "report/table_columns.h"

namespace perfgate {
namespace {

// A size row with the n its bus bandwidth uses: the group size, else the ranks it was matched on.
struct SizeRow {
  const CollectiveSizeRow* row;
  std::int64_t n;
  std::optional<double> algbw() const {  // bytes per ns = GB/s
    if (row->bytes == 0 || row->transfer <= 0) return std::nullopt;
    return static_cast<double>(row->bytes) * static_cast<double>(row->collectives) /
           static_cast<double>(row->transfer);
  }
};

ReportCell optional(std::optional<double> v) {
  return v ? ReportCell{*v} : ReportCell{};
}

constexpr std::array<Column<SizeRow>, 12> kSizeColumns = {{
    {"process_group", "", "Process group (\"Process Group Name\"); empty where the trace records none",
     [](const SizeRow& r) { return ReportCell{r.row->group}; }},
    {"collective", "",
     "all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce, send_recv, barrier",
     [](const SizeRow& r) { return ReportCell{std::string(collective_type_name(r.row->type))}; }},
    {"group_size", "count",
     "n of the bus bandwidth: the group size (\"Group size\", else the world size), "
     "else the ranks matched",
     [](const SizeRow& r) { return ReportCell{r.n}; }},
    {"bytes", "bytes", "Message size, nccl-tests' S: the larger of the input and the output of a rank",
     [](const SizeRow& r) { return ReportCell{static_cast<double>(r.row->bytes)}; }},
    {"collectives", "count", "Collectives of this size timed on 2 ranks or more",
     [](const SizeRow& r) { return count(r.row->collectives); }},
    {"ranks", "count", "The most ranks one of them was timed on",
     [](const SizeRow& r) { return ReportCell{static_cast<std::int64_t>(r.row->ranks)}; }},
    {"transfer_us", "us",
     "Data transfer: sum of each collective's shortest duration on any rank (its latency)",
     [](const SizeRow& r) { return us(r.row->transfer); }},
    {"wait_us", "us", "Synchronizing: sum over ranks of (duration - the collective's shortest duration)",
     [](const SizeRow& r) { return us(r.row->wait); }},
    {"arrival_spread_us", "us", "Sum of (latest start - earliest start) over the collectives",
     [](const SizeRow& r) { return us(r.row->late); }},
    {"mean_transfer_us", "us", "transfer_us per collective",
     [](const SizeRow& r) {
       return ReportCell{static_cast<double>(r.row->transfer) / 1000.0 /
                         static_cast<double>(r.row->collectives)};
     }},
    {"algorithm_bandwidth_gbps", "GB/s", "nccl-tests' algbw: bytes x collectives / transfer_us",
     [](const SizeRow& r) { return optional(r.algbw()); }},
    {"bus_bandwidth_gbps", "GB/s",
     "nccl-tests' busbw: algbw x 2(n-1)/n (all_reduce), (n-1)/n (all_gather, reduce_scatter, all_to_all), 1 "
     "(broadcast, reduce, send_recv)",
     [](const SizeRow& r) {
       std::optional<double> f = bus_bandwidth_factor(r.row->type, r.n);
       std::optional<double> a = r.algbw();
       return f && a ? ReportCell{*a * *f} : ReportCell{};
     }},
}};

struct RankRow {
  const RankCommunicationRow* row;
  const std::string* worker;
  std::int64_t rank;
  std::uint64_t matched_in_run;  // collectives matched in the run
};

ReportCell rank_worker(const RankRow& r) {
  return ReportCell{*r.worker};
}
ReportCell rank_id(const RankRow& r) {
  return ReportCell{r.rank};
}

constexpr std::array<Column<RankRow>, 10> kRankColumns = {{
    {"worker", "", "Worker (trace file)", rank_worker},
    {"rank", "count", "Rank (distributedInfo, else worker index)", rank_id},
    {"collectives", "count", "Collectives issued in the window",
     [](const RankRow& r) { return count(r.row->collectives); }},
    {"matched", "count", "Of those, timed here and on another rank",
     [](const RankRow& r) { return count(r.row->matched); }},
    {"communication_us", "us", "Duration of its timed collectives (kernels; on the host for CPU collectives)",
     [](const RankRow& r) { return us(r.row->duration); }},
    {"transfer_us", "us", "Data transfer: the collectives' shortest durations on any rank",
     [](const RankRow& r) { return us(r.row->transfer); }},
    {"wait_us", "us", "Synchronizing: communication_us - transfer_us, waiting for the other ranks",
     [](const RankRow& r) { return us(r.row->wait); }},
    {"wait_pct", "%", "wait_us / communication_us",
     [](const RankRow& r) { return pct(r.row->wait, r.row->duration); }},
    {"late_arrival_us", "us", "Sum of (latest start - its start): how long the last rank kept it waiting",
     [](const RankRow& r) { return us(r.row->late); }},
    {"last_arrivals", "count", "Matched collectives in which it started last",
     [](const RankRow& r) { return count(r.row->last_arrivals); }},
}};

constexpr std::array<Column<RankRow>, 6> kStragglerColumns = {{
    {"worker", "", "Worker (trace file)", rank_worker},
    {"rank", "count", "Rank (distributedInfo, else worker index)", rank_id},
    {"last_arrivals", "count", "Matched collectives in which it started last",
     [](const RankRow& r) { return count(r.row->last_arrivals); }},
    {"last_pct", "%", "last_arrivals / the run's matched collectives",
     [](const RankRow& r) {
       return r.matched_in_run ? ReportCell{100.0 * static_cast<double>(r.row->last_arrivals) /
                                            static_cast<double>(r.matched_in_run)}
                               : ReportCell{};
     }},
    {"delay_us", "us", "Sum, where it started last, of its start - the next-to-last rank's start",
     [](const RankRow& r) { return us(r.row->delay); }},
    {"mean_delay_us", "us", "delay_us per last arrival",
     [](const RankRow& r) { return mean_us(r.row->delay, r.row->last_arrivals); }},
}};

std::vector<RankRow> rank_rows(const RunAnalysis& analysis, const std::vector<std::int64_t>& ranks) {
  std::vector<RankRow> rows;
  for (const RankCommunicationRow& r : analysis.collectives.ranks)
    if (r.worker < analysis.workers.size() && r.worker < ranks.size())
      rows.push_back({&r, &analysis.workers[r.worker].worker, ranks[r.worker], analysis.collectives.matched});
  return rows;
}

}  // namespace

std::vector<ReportTable> collective_tables(const RunAnalysis& analysis,
                                           const std::vector<std::int64_t>& ranks) {
  const RunCollectives& c = analysis.collectives;
  std::vector<SizeRow> sizes;
  for (const CollectiveSizeRow& r : c.by_size)
    sizes.push_back({&r, r.group_size > 0 ? r.group_size : static_cast<std::int64_t>(r.ranks)});
  std::vector<RankRow> rows = rank_rows(analysis, ranks);
  std::vector<RankRow> late;
  std::copy_if(rows.begin(), rows.end(), std::back_inserter(late),
               [](const RankRow& r) { return r.row->last_arrivals > 0; });
  std::stable_sort(late.begin(), late.end(), [](const RankRow& a, const RankRow& b) {
    return a.row->last_arrivals > b.row->last_arrivals;
  });
  return {make_table(
              "collective_bandwidth", "Collectives across ranks",
              "The run's collectives matched across ranks (process group, step, order of issue), by group, "
              "type and size, most transfer time first",
              kSizeColumns, sizes),
          make_table("rank_communication", "Communication by rank",
                     "Each rank's collective time split into data transfer and synchronizing (waiting)",
                     kRankColumns, rows),
          make_table("stragglers", "Stragglers", "The ranks that started collectives last, most often first",
                     kStragglerColumns, late)};
}

}  // namespace perfgate
