// The run's collectives across ranks (analyse/communication/collective_matching.h) as report tables:
// bandwidth by group, type and size; each rank's transfer and synchronizing time; the ranks that arrive last.
#include <algorithm>
#include <array>

#include "analyse/analysis.h"
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

constexpr auto kSizeColumns = declared<Table::CollectiveBandwidth>(std::array<Column<SizeRow>, 12>{{
    {"process_group", [](const SizeRow& r) { return ReportCell{r.row->group}; }},
    {"collective", [](const SizeRow& r) { return ReportCell{std::string(collective_type_name(r.row->type))}; }},
    {"group_size", [](const SizeRow& r) { return ReportCell{r.n}; }},
    {"bytes", [](const SizeRow& r) { return ReportCell{static_cast<double>(r.row->bytes)}; }},
    {"collectives", [](const SizeRow& r) { return count(r.row->collectives); }},
    {"ranks", [](const SizeRow& r) { return ReportCell{static_cast<std::int64_t>(r.row->ranks)}; }},
    {"transfer_us", [](const SizeRow& r) { return us(r.row->transfer); }},
    {"wait_us", [](const SizeRow& r) { return us(r.row->wait); }},
    {"arrival_spread_us", [](const SizeRow& r) { return us(r.row->late); }},
    {"mean_transfer_us", [](const SizeRow& r) {
       return ReportCell{static_cast<double>(r.row->transfer) / 1000.0 /
                         static_cast<double>(r.row->collectives)};
     }},
    {"algorithm_bandwidth_gbps", [](const SizeRow& r) { return optional(r.algbw()); }},
    {"bus_bandwidth_gbps", [](const SizeRow& r) {
       std::optional<double> f = bus_bandwidth_factor(r.row->type, r.n);
       std::optional<double> a = r.algbw();
       return f && a ? ReportCell{*a * *f} : ReportCell{};
     }},
}});

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

constexpr auto kRankColumns = declared<Table::RankCommunication>(std::array<Column<RankRow>, 10>{{
    {"worker", rank_worker},
    {"rank", rank_id},
    {"collectives", [](const RankRow& r) { return count(r.row->collectives); }},
    {"matched", [](const RankRow& r) { return count(r.row->matched); }},
    {"communication_us", [](const RankRow& r) { return us(r.row->duration); }},
    {"transfer_us", [](const RankRow& r) { return us(r.row->transfer); }},
    {"wait_us", [](const RankRow& r) { return us(r.row->wait); }},
    {"wait_pct", [](const RankRow& r) { return pct(r.row->wait, r.row->duration); }},
    {"late_arrival_us", [](const RankRow& r) { return us(r.row->late); }},
    {"last_arrivals", [](const RankRow& r) { return count(r.row->last_arrivals); }},
}});

constexpr auto kStragglerColumns = declared<Table::Stragglers>(std::array<Column<RankRow>, 6>{{
    {"worker", rank_worker},
    {"rank", rank_id},
    {"last_arrivals", [](const RankRow& r) { return count(r.row->last_arrivals); }},
    {"last_pct",
     [](const RankRow& r) {
       return r.matched_in_run ? ReportCell{100.0 * static_cast<double>(r.row->last_arrivals) /
                                            static_cast<double>(r.matched_in_run)}
                               : ReportCell{};
     }},
    {"delay_us", [](const RankRow& r) { return us(r.row->delay); }},
    {"mean_delay_us", [](const RankRow& r) { return mean_us(r.row->delay, r.row->last_arrivals); }},
}});

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
  return {make_table(kSizeColumns, sizes), make_table(kRankColumns, rows),
          make_table(kStragglerColumns, late)};
}

}  // namespace perfgate
