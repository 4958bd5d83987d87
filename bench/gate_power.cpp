// perfgate-gate-power: how often the step-time gate fails, warns, is inconclusive or passes on
// variants of a real trace, as a CI user would meet them (docs/rules.md, "Power").
//
//   perfgate-gate-power [--pairs N] [--history K] [--noise 1,3,8] [--run-noise P] [--steps N]
//                       [--real-history] [--slowdown 0,5,10,20] TRACE...
//
// A variant scales every window step's duration by N(1, noise), by one factor N(1, run noise) for
// all its steps (one run slower than another as a whole, as CI machines are), and by 1 + slowdown.
// The timeline is stretched piecewise, step by step, so every event inside a step keeps its place
// in it: nesting, correlation and launch order stay as recorded. With --steps N the analysis keeps
// the window's first N steps (a short run: 3 steps, the first of them possibly a warm-up). Each pair
// analyses a candidate variant against one baseline variant, and against a history of K baseline
// variants: pooled in memory, or with --real-history recorded into a temporary SQLite history and
// read back as `analyze --baseline history.db` reads it; the table counts the regression.step-time
// rule's outcomes with the default rules.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>

#include "analyse/analysis.h"
#include "baseline/baseline.h"
#include "engine/analyse_profiles.h"
#include "engine/engine.h"
#include "gate/gate.h"
#include "gate/rules.h"
#include "history/history.h"
#include "load/load.h"
#include "report/build_report.h"
#include "report_model/report.h"

namespace {

using namespace perfgate;

struct Options {
  std::size_t pairs = 30;
  std::size_t history = 10;
  std::vector<double> noise_pct = {1, 3, 8};
  std::vector<double> slowdown_pct = {0, 5, 10, 20};
  double run_noise_pct = 0;  // one factor for all the steps of a variant
  std::size_t steps = 0;     // the window's first N steps; 0: all
  bool real_history = false;
  std::uint64_t seed = 2026;
  std::vector<std::string> traces;
};

std::vector<double> numbers(const std::string& text) {
  std::vector<double> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stod(item));
  return out;
}

// Every time of a profile, as recorded, so that each variant starts from the original.
class TimelineStretcher {
 public:
  TimelineStretcher(Profile& p, const std::vector<Step>& steps) : p_(p) {
    for (const Step& s : steps)
      if (s.in_window) bounds_.push_back({s.start, s.end});
    for (const auto& e : p.host_events) host_.push_back({e.start, e.end});
    for (const auto& e : p.runtime_calls) runtime_.push_back({e.start, e.end});
    for (const auto& e : p.gpu_activities) gpu_.push_back({e.start, e.end});
    for (const auto& e : p.gpu_ranges) ranges_.push_back({e.start, e.end});
    for (const auto& m : p.memory_samples) memory_.push_back(m.time);
    for (const auto& l : p.forward_backward_links) links_.push_back({l.forward_start, l.backward_start});
    profiler_ = {p.info.profiler_start, p.info.profiler_end};
  }
  std::size_t steps() const { return bounds_.size(); }

  // Step i of the window lasts factors[i] times as long; time outside steps shifts with them.
  void apply(const std::vector<double>& factors) {
    map_.clear();
    TimeNs offset = 0;
    for (std::size_t i = 0; i < bounds_.size(); ++i) {
      auto [start, end] = bounds_[i];
      TimeNs stretched = std::llround(static_cast<double>(end - start) * factors[i]);
      map_.push_back({start, end, start + offset, factors[i], offset + stretched - (end - start)});
      offset += stretched - (end - start);
    }
    auto apply_to = [&](auto& events, const auto& original) {
      for (std::size_t i = 0; i < events.size(); ++i) {
        events[i].start = at(original[i].first);
        events[i].end = at(original[i].second);
      }
    };
    apply_to(p_.host_events, host_);
    apply_to(p_.runtime_calls, runtime_);
    apply_to(p_.gpu_activities, gpu_);
    apply_to(p_.gpu_ranges, ranges_);
    for (std::size_t i = 0; i < memory_.size(); ++i) p_.memory_samples[i].time = at(memory_[i]);
    for (std::size_t i = 0; i < links_.size(); ++i) {
      p_.forward_backward_links[i].forward_start = at(links_[i].first);
      p_.forward_backward_links[i].backward_start = at(links_[i].second);
    }
    p_.info.profiler_start = at(profiler_.first);
    p_.info.profiler_end = at(profiler_.second);
  }

 private:
  struct Piece {
    TimeNs start, end, new_start;
    double factor;
    TimeNs offset_after;  // the shift of times after this step
  };
  TimeNs at(TimeNs t) const {
    TimeNs shift = 0;
    for (const Piece& s : map_) {
      if (t < s.start) return t + shift;
      if (t <= s.end) return s.new_start + std::llround(static_cast<double>(t - s.start) * s.factor);
      shift = s.offset_after;
    }
    return t + shift;
  }

  Profile& p_;
  std::vector<std::pair<TimeNs, TimeNs>> bounds_, host_, runtime_, gpu_, ranges_, links_;
  std::pair<TimeNs, TimeNs> profiler_;
  std::vector<TimeNs> memory_;
  std::vector<Piece> map_;
};

struct Counts {
  std::size_t fail = 0, warn = 0, inconclusive = 0, pass = 0, other = 0;
  void add(FindingStatus s) {
    (s == FindingStatus::Fail           ? fail
     : s == FindingStatus::Warn         ? warn
     : s == FindingStatus::Inconclusive ? inconclusive
     : s == FindingStatus::Pass         ? pass
                                        : other)++;
  }
  std::size_t total() const { return fail + warn + inconclusive + pass + other; }
};

class VariantMaker {
 public:
  VariantMaker(const std::string& path, const RuleBook& book, std::size_t steps)
      : run_(load_run({path})), book_(book), inputs_(run_.inputs) {
    if (run_.workers.size() != 1) throw std::runtime_error(path + ": give single-worker traces");
    WorkerAnalysis first = analyse_profile(run_.workers[0], book.knowledge, {});
    stretcher_ = std::make_unique<TimelineStretcher>(run_.workers[0], first.steps.steps);
    if (steps > 0) keep_first_steps(first.steps.steps, steps, path);
  }
  std::size_t steps() const { return stretcher_->steps(); }
  std::size_t analysed_steps() const { return analysed_steps_ ? analysed_steps_ : steps(); }

  ReportModel report(const std::vector<double>& factors) {
    stretcher_->apply(factors);
    std::vector<WorkerAnalysis> workers;
    workers.push_back(analyse_profile(run_.workers[0], book_.knowledge, options_));
    return build_report(report_inputs(inputs_), combine_workers(std::move(workers)), book_.rules.sources, {});
  }

 private:
  // The analysis window from the first of the window's steps to the n-th (by step number, as
  // --iter-start and --iter-stop give it).
  void keep_first_steps(const std::vector<Step>& all, std::size_t n, const std::string& path) {
    std::vector<const Step*> window;
    for (const Step& s : all)
      if (s.in_window) window.push_back(&s);
    if (window.size() < n || !window.front()->number || !window[n - 1]->number)
      throw std::runtime_error(fmt::format("{}: fewer than {} numbered window steps", path, n));
    options_.window.iter_start = *window.front()->number;
    options_.window.iter_stop = *window[n - 1]->number;
    analysed_steps_ = n;
  }

  LoadedRun run_;
  const RuleBook& book_;
  std::vector<InputFile> inputs_;
  std::unique_ptr<TimelineStretcher> stretcher_;
  AnalysisOptions options_;
  std::size_t analysed_steps_ = 0;
};

// The baseline `analyze --baseline history.db` gates against: the reports recorded into a new
// SQLite history (branch main), then its last runs read back and pooled. The file is removed.
Baseline recorded_history_baseline(const std::vector<ReportModel>& reports) {
  static std::size_t made = 0;
  std::filesystem::path db = std::filesystem::temp_directory_path() /
                             fmt::format("perfgate-gate-power-{}-{}.db", ::getpid(), made++);
  {
    std::unique_ptr<HistoryStore> store = open_history(db.string(), HistoryAccess::Record);
    for (std::size_t i = 0; i < reports.size(); ++i)
      store->record(history_run_of(reports[i], RunLabels{"main", fmt::format("c{}", i), {}}, utc_now()));
  }
  HistoryBaselines chosen;
  {
    std::unique_ptr<HistoryStore> store = open_history(db.string(), HistoryAccess::Read);
    chosen = history_baselines(*store, "main", gpu_names(reports.front()), reports.size());
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db.string() + suffix);
  if (chosen.runs.size() != reports.size())
    throw std::runtime_error(fmt::format("the history gave {} of {} runs: {}", chosen.runs.size(),
                                         reports.size(), chosen.skip_reason));
  return combine_baselines(std::move(chosen.runs));
}

FindingStatus step_time_status(ReportModel report, const RuleSet& rules, const Baseline& baseline) {
  apply_gate(report, rules, &baseline, GateOptions{});
  for (const ReportFinding& f : report.findings)
    if (f.id == "regression.step-time") {
      if (std::getenv("PERFGATE_POWER_VERBOSE"))
        fmt::print(stderr, "{}: {}\n", finding_status_name(f.status), f.reason);
      return f.status;
    }
  return FindingStatus::Skipped;
}

void run_trace(const std::string& path, const Options& o, const RuleBook& book) {
  const RuleSet& rules = book.rules;
  VariantMaker maker(path, book, o.steps);
  std::size_t n = maker.steps();
  // (noise, slowdown, baselines) -> outcomes
  std::map<std::tuple<double, double, std::size_t>, Counts> table;
  for (double noise : o.noise_pct) {
    std::mt19937_64 rng(o.seed + static_cast<std::uint64_t>(noise * 1000));
    std::normal_distribution<double> step_noise(1.0, noise / 100), run_noise(1.0, o.run_noise_pct / 100);
    auto factors = [&](double slowdown) {
      std::vector<double> f(n);
      double run = o.run_noise_pct > 0 ? std::max(0.2, run_noise(rng)) : 1.0;
      for (double& x : f) x = std::max(0.2, step_noise(rng)) * run * (1 + slowdown / 100);
      return f;
    };
    for (std::size_t pair = 0; pair < o.pairs; ++pair) {
      std::vector<ReportModel> reports;
      std::vector<Baseline> history;
      for (std::size_t k = 0; k < std::max<std::size_t>(1, o.history); ++k) {
        reports.push_back(maker.report(factors(0)));
        history.push_back(baseline_from_report(reports.back(), "variant", "report"));
      }
      Baseline single = history.front();
      Baseline pooled = o.real_history ? recorded_history_baseline(reports) : combine_baselines(history);
      for (double slowdown : o.slowdown_pct) {
        ReportModel candidate = maker.report(factors(slowdown));
        table[{noise, slowdown, 1}].add(step_time_status(candidate, rules, single));
        if (o.history > 1)
          table[{noise, slowdown, o.history}].add(step_time_status(candidate, rules, pooled));
      }
    }
  }
  std::string name = path.substr(path.find_last_of('/') + 1);
  for (const auto& [key, counts] : table) {
    auto [noise, slowdown, baselines] = key;
    const auto& c = counts;
    std::string history = baselines == 1   ? "1 run"
                          : o.real_history ? fmt::format("{} runs (SQLite history)", baselines)
                                           : fmt::format("{} runs", baselines);
    fmt::print("| {} ({} steps) | {} | {:.0f}% | {:.1f}% | +{:.0f}% | {}/{} | {}/{} | {}/{} | {}/{} |\n",
               name, maker.analysed_steps(), history, noise, o.run_noise_pct, slowdown, c.fail, c.total(),
               c.warn, c.total(), c.inconclusive, c.total(), c.pass, c.total());
  }
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--pairs")
      o.pairs = std::stoul(next());
    else if (a == "--history")
      o.history = std::stoul(next());
    else if (a == "--noise")
      o.noise_pct = numbers(next());
    else if (a == "--slowdown")
      o.slowdown_pct = numbers(next());
    else if (a == "--run-noise")
      o.run_noise_pct = std::stod(next());
    else if (a == "--steps")
      o.steps = std::stoul(next());
    else if (a == "--real-history")
      o.real_history = true;
    else if (a == "--seed")
      o.seed = std::stoull(next());
    else
      o.traces.push_back(a);
  }
  if (o.traces.empty()) throw std::runtime_error("give at least one trace");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options o = parse(argc, argv);
    RuleBook book = load_rule_book({});
    fmt::print(
        "| trace (steps) | baseline | step noise | run noise | true slowdown | fail | warn | inconclusive | "
        "pass |\n");
    fmt::print("|---|---|---|---|---|---|---|---|---|\n");
    for (const std::string& t : o.traces) run_trace(t, o, book);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "perfgate-gate-power: %s\n", e.what());
    return 2;
  }
}
