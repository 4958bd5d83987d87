// perfgate-bench: load + analysis throughput and peak memory of the perfgate binary.
//
//   perfgate-bench [--perfgate PATH] [--runs N] [--scale K,...] [--threads T,...] [--ranks R] TRACE...
//
// For each trace it prepares a plain .json and a .json.gz copy (and, for each --scale K above 1, a
// trace made of K time-shifted copies of it), runs `perfgate analyze FILE -q --threads T` N times
// after one warm-up for each T of --threads (default 1,2,0: one thread, two, and perfgate's own
// choice, shown as "default"), and prints the median wall
// time and CPU time (user + system), MB/s of JSON text (uncompressed bytes, also for .json.gz) per
// wall second and per CPU second, and the child's peak resident memory (getrusage), with its ratio
// to the JSON size. A .sqlite trace (an nsys export), a .xplane.pb and a .pickle (a memory snapshot) are
// measured as they are. Beside each
// plain .json it measures a bare parse: Boost.JSON's basic_parser with a handler that does nothing, over the
// same bytes in the same 64 KiB pieces and with the same options, in this process (median CPU time of the
// runs); "CPU/bare" is perfgate's CPU time over it. With
// --ranks R it also analyses a run folder of R copies of the .json.gz (rank-0 ... rank-R-1), whose
// peak RSS shows what a run holds per worker. With --merge-ranks R it writes R copies that state
// ranks 0 ... R-1 of R (distributedInfo rewritten), a partial report of each (analyze --partial),
// then times `perfgate merge` of the R partials with the JSON and HTML reports (median of --runs),
// and prints its peak RSS, the partials' size per rank and the reports' sizes.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <boost/json.hpp>
#include <boost/json/basic_parser_impl.hpp>

#include "bench/noop_handler.h"
#include "render/json_writer.h"

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

struct Options {
  std::string perfgate = "build/perfgate";
  int runs = 5;
  std::vector<int> scales = {1};
  std::vector<unsigned> threads = {1, 2, 0};
  int ranks = 0;
  int merge_ranks = 0;
  std::vector<std::string> traces;
};

std::string read_maybe_gzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");  // reads plain files too
  if (!f) throw std::runtime_error("cannot open " + path);
  std::string out;
  std::vector<char> buffer(1 << 20);
  int n = 0;
  while ((n = gzread(f, buffer.data(), static_cast<unsigned>(buffer.size()))) > 0)
    out.append(buffer.data(), static_cast<std::size_t>(n));
  gzclose(f);
  return out;
}

void write_plain(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

void write_gzip(const std::string& path, const std::string& text) {
  gzFile f = gzopen(path.c_str(), "wb6");
  for (std::size_t off = 0; off < text.size(); off += 1 << 24)
    gzwrite(f, text.data() + off, static_cast<unsigned>(std::min<std::size_t>(1 << 24, text.size() - off)));
  gzclose(f);
}

// --- scaled traces: K copies of the events, each shifted past the previous in time and ids ----

void write_value(std::string& out, const json::value& v);

void write_number(std::string& out, double d) {
  out += std::fabs(d) >= 1e15 ? fmt::format("{:.3f}", d) : fmt::format("{}", d);
}

void write_value(std::string& out, const json::value& v) {
  switch (v.kind()) {
    case json::kind::object: {
      out += '{';
      bool first = true;
      for (const auto& [k, item] : v.as_object()) {
        if (!first) out += ',';
        first = false;
        perfgate::append_json_string(out, k);
        out += ':';
        write_value(out, item);
      }
      out += '}';
      break;
    }
    case json::kind::array: {
      out += '[';
      bool first = true;
      for (const auto& item : v.as_array()) {
        if (!first) out += ',';
        first = false;
        write_value(out, item);
      }
      out += ']';
      break;
    }
    case json::kind::string:
      perfgate::append_json_string(out, v.as_string());
      break;
    case json::kind::int64:
      out += std::to_string(v.as_int64());
      break;
    case json::kind::uint64:
      out += std::to_string(v.as_uint64());
      break;
    case json::kind::double_:
      write_number(out, v.as_double());
      break;
    case json::kind::bool_:
      out += v.as_bool() ? "true" : "false";
      break;
    case json::kind::null:
      out += "null";
      break;
  }
}

void shift_number(json::value& v, double by) {
  if (v.is_int64())
    v = v.as_int64() + static_cast<std::int64_t>(by);
  else if (v.is_uint64())
    v = v.as_uint64() + static_cast<std::uint64_t>(by);
  else if (v.is_double())
    v = v.as_double() + by;
}

std::string scaled_trace(const std::string& text, int copies) {
  json::value doc = json::parse(text);
  json::array& events = doc.as_object()["traceEvents"].as_array();
  double lo = 1e300, hi = -1e300;
  for (const auto& e : events) {
    const auto* ts = e.as_object().if_contains("ts");
    if (!ts || !ts->is_number()) continue;
    double t = ts->to_number<double>();
    double d = e.as_object().contains("dur") ? e.as_object().at("dur").to_number<double>() : 0;
    lo = std::min(lo, t);
    hi = std::max(hi, t + d);
  }
  double span = hi - lo + 1000;
  constexpr double kIdOffset = 1e9;
  std::string out = "{\"traceEvents\":[";
  bool first = true;
  for (int k = 0; k < copies; ++k) {
    for (const auto& original : events) {
      json::value e = original;
      auto& o = e.as_object();
      if (o.contains("ts")) shift_number(o["ts"], k * span);
      if (o.contains("id")) shift_number(o["id"], k * kIdOffset);
      if (auto* args = o.if_contains("args"); args && args->is_object()) {
        for (const char* key : {"External id", "external id", "correlation"})
          if (args->as_object().contains(key)) shift_number(args->as_object()[key], k * kIdOffset);
      }
      if (auto* name = o.if_contains("name"); name && name->is_string()) {
        std::string n(name->as_string());
        if (n.rfind("ProfilerStep#", 0) == 0)
          o["name"] = fmt::format("ProfilerStep#{}", std::stoll(n.substr(13)) + k * 100000);
      }
      if (!first) out += ",\n";
      first = false;
      write_value(out, e);
    }
  }
  out += "]";
  for (const auto& [key, value] : doc.as_object()) {
    if (key == "traceEvents") continue;
    out += ',';
    perfgate::append_json_string(out, key);
    out += ':';
    write_value(out, value);
  }
  out += "}\n";
  return out;
}

// --- measuring ------------------------------------------------------------------------------
//
// A child's peak RSS (getrusage) includes what it inherited from the process that forked it, and
// this program holds whole traces in memory. So a launcher is forked at start-up, while this
// process is still small, and every measured run is forked from it.

struct Run {
  double seconds = 0;
  double cpu_seconds = 0;  // user + system
  long max_rss_kb = 0;
  int exit_code = 0;
};

class Launcher {
 public:
  Launcher() {
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0) throw std::runtime_error("pipe");
    pid_ = fork();
    if (pid_ == 0) {
      close(to_child[1]);
      close(from_child[0]);
      serve(to_child[0], from_child[1]);
      _exit(0);
    }
    close(to_child[0]);
    close(from_child[1]);
    requests_ = to_child[1];
    replies_ = from_child[0];
  }
  ~Launcher() {
    close(requests_);
    waitpid(pid_, nullptr, 0);
  }

  Run run(const std::string& perfgate, const std::string& file, unsigned threads) {
    std::string request = perfgate + '\n' + file + '\n' + std::to_string(threads) + '\n';
    if (write(requests_, request.data(), request.size()) != static_cast<ssize_t>(request.size()))
      throw std::runtime_error("launcher write");
    Run r;
    if (read(replies_, &r, sizeof r) != static_cast<ssize_t>(sizeof r))
      throw std::runtime_error("launcher read");
    return r;
  }

 private:
  static void serve(int requests, int replies) {
    FILE* in = fdopen(requests, "r");
    char perfgate[4096], file[4096], threads[32];
    while (std::fgets(perfgate, sizeof perfgate, in) && std::fgets(file, sizeof file, in) &&
           std::fgets(threads, sizeof threads, in)) {
      perfgate[std::strcspn(perfgate, "\n")] = 0;
      file[std::strcspn(file, "\n")] = 0;
      threads[std::strcspn(threads, "\n")] = 0;
      Run r = run_once(perfgate, file, threads);
      if (write(replies, &r, sizeof r) != static_cast<ssize_t>(sizeof r)) break;
    }
  }

  static Run run_once(const char* perfgate, const char* file, const char* threads) {
    auto start = std::chrono::steady_clock::now();
    pid_t pid = fork();
    if (pid == 0) {
      int devnull = open("/dev/null", O_WRONLY);
      dup2(devnull, STDOUT_FILENO);
      execl(perfgate, perfgate, "analyze", file, "-q", "--no-progress", "--threads", threads,
            static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = 0;
    rusage usage{};
    wait4(pid, &status, 0, &usage);
    Run r;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    auto seconds = [](const timeval& t) {
      return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    };
    r.cpu_seconds = seconds(usage.ru_utime) + seconds(usage.ru_stime);
    r.max_rss_kb = usage.ru_maxrss;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
  }

  pid_t pid_ = -1;
  int requests_ = -1;
  int replies_ = -1;
};

// --- the bare parse: a handler that accepts everything and keeps nothing (bench/noop_handler.h) --

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

// Median CPU seconds of parsing `text` with the no-op handler, as perfgate's reader feeds its parser.
double bare_parse_seconds(const std::string& text, int runs) {
  json::parse_options options;
  options.max_depth = 64;
  options.allow_trailing_commas = true;
  options.allow_invalid_utf8 = true;
  std::vector<double> times;
  for (int i = 0; i < runs + 1; ++i) {
    json::basic_parser<NoOpHandler> parser(options);
    double start = process_cpu_seconds();
    boost::system::error_code ec;
    for (std::size_t off = 0; off < text.size() && !ec; off += 64 * 1024) {
      std::size_t n = std::min<std::size_t>(64 * 1024, text.size() - off);
      parser.write_some(off + n < text.size(), text.data() + off, n, ec);
    }
    if (ec) throw std::runtime_error("bare parse: " + ec.message());
    if (i > 0) times.push_back(process_cpu_seconds() - start);  // the first run warms the caches
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// A file's size, or a folder's files' sizes added up (symbolic links followed).
std::uint64_t bytes_on_disk(const std::string& path) {
  if (!fs::is_directory(path)) return fs::file_size(path);
  std::uint64_t total = 0;
  for (const auto& e : fs::directory_iterator(path)) total += fs::file_size(e.path());
  return total;
}

void measure_with(Launcher& launcher, const Options& o, const std::string& label, const std::string& file,
                  std::uint64_t json_bytes, std::optional<double> bare_seconds, unsigned threads) {
  launcher.run(o.perfgate, file, threads);  // warm-up: page cache, dynamic loader
  std::vector<double> times, cpu;
  long rss = 0;
  for (int i = 0; i < o.runs; ++i) {
    Run r = launcher.run(o.perfgate, file, threads);
    if (r.exit_code != 0) {
      std::printf("%-44s perfgate exited with %d\n", label.c_str(), r.exit_code);
      return;
    }
    times.push_back(r.seconds);
    cpu.push_back(r.cpu_seconds);
    rss = std::max(rss, r.max_rss_kb);
  }
  std::sort(times.begin(), times.end());
  std::sort(cpu.begin(), cpu.end());
  double median = times[times.size() / 2], median_cpu = cpu[cpu.size() / 2];
  double json_mb = static_cast<double>(json_bytes) / 1e6;
  double rss_mb = static_cast<double>(rss) * 1024 / 1e6;
  std::string bare = bare_seconds ? fmt::format("{:8.3f} {:8.2f}", *bare_seconds, median_cpu / *bare_seconds)
                                  : fmt::format("{:>8} {:>8}", "", "");
  std::string threads_text = threads == 0 ? "default" : std::to_string(threads);
  std::printf("%-44s %7s %9.1f %9.1f %8.3f %8.3f %9.0f %9.0f %9.1f %7.3f %s\n", label.c_str(),
              threads_text.c_str(), json_mb, static_cast<double>(bytes_on_disk(file)) / 1e6, median,
              median_cpu, json_mb / median, json_mb / median_cpu, rss_mb, rss_mb / json_mb, bare.c_str());
  std::fflush(stdout);
}

void measure(Launcher& launcher, const Options& o, const std::string& label, const std::string& file,
             std::uint64_t json_bytes, std::optional<double> bare_seconds) {
  for (unsigned threads : o.threads)
    measure_with(launcher, o, label, file, json_bytes, bare_seconds, threads);
}

// --- merging partial reports ----------------------------------------------------------------

// A command run to its end: wall time, CPU time and peak RSS (its output thrown away).
Run run_command(const std::vector<std::string>& args) {
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, STDOUT_FILENO);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  Run r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.cpu_seconds = seconds(usage.ru_utime) + seconds(usage.ru_stime);
  r.max_rss_kb = usage.ru_maxrss;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// The trace stating rank `rank` of `world_size` where it has a distributedInfo object.
std::string as_rank(const std::string& text, int rank, int world_size) {
  std::size_t at = text.find("\"distributedInfo\"");
  if (at == std::string::npos) return text;
  std::size_t end = text.find('}', at);
  std::string info = text.substr(at, end - at);
  auto set = [&](const std::string& key, int value) {
    std::size_t k = info.find("\"" + key + "\"");
    if (k == std::string::npos) return;
    std::size_t v = info.find_first_of("-0123456789", info.find(':', k));
    std::size_t v_end = info.find_first_not_of("0123456789", v + 1);
    info.replace(v, v_end - v, std::to_string(value));
  };
  set("rank", rank);
  set("world_size", world_size);
  return text.substr(0, at) + info + text.substr(end);
}

void measure_merge(const Options& o, const std::string& label, const std::string& text, const fs::path& dir) {
  fs::path ranks = dir / "merge-ranks", parts = dir / "merge-parts";
  fs::create_directories(ranks);
  fs::create_directories(parts);
  std::uint64_t part_bytes = 0;
  for (int r = 0; r < o.merge_ranks; ++r) {
    std::string file = (ranks / fmt::format("rank-{}.json.gz", r)).string();
    std::string part = (parts / fmt::format("rank-{}.pgp", r)).string();
    write_gzip(file, as_rank(text, r, o.merge_ranks));
    if (run_command({o.perfgate, "analyze", file, "-q", "--threads", "1", "--partial", part}).exit_code != 0)
      throw std::runtime_error("analyze --partial failed on " + file);
    part_bytes += fs::file_size(part);
    fs::remove(file);
  }
  std::string json_out = (dir / "merged.json").string(), html_out = (dir / "merged.html").string();
  std::vector<std::string> merge = {o.perfgate, "merge",  parts.string(), "-q",     "--fail-on",
                                    "never",    "--json", json_out,       "--html", html_out};
  std::vector<double> times, cpu;
  long rss = 0;
  for (int i = 0; i < o.runs; ++i) {
    Run r = run_command(merge);
    if (r.exit_code != 0) throw std::runtime_error(fmt::format("merge exited with {}", r.exit_code));
    times.push_back(r.seconds);
    cpu.push_back(r.cpu_seconds);
    rss = std::max(rss, r.max_rss_kb);
  }
  std::sort(times.begin(), times.end());
  std::sort(cpu.begin(), cpu.end());
  std::printf(
      "merge of %d partials of %s: %.3f s wall, %.3f s CPU (median of %d), peak RSS %.1f MB; partials "
      "%.1f kB per rank; JSON report %.1f MB, HTML page %.2f MB\n",
      o.merge_ranks, label.c_str(), times[times.size() / 2], cpu[cpu.size() / 2], o.runs,
      static_cast<double>(rss) * 1024 / 1e6, static_cast<double>(part_bytes) / o.merge_ranks / 1e3,
      static_cast<double>(fs::file_size(json_out)) / 1e6, static_cast<double>(fs::file_size(html_out)) / 1e6);
  std::fflush(stdout);
  fs::remove_all(ranks);
  fs::remove_all(parts);
}

template <typename T>
std::vector<T> number_list(const std::string& text) {
  std::vector<T> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(static_cast<T>(std::stoul(item)));
  if (out.empty()) throw std::runtime_error("empty list: " + text);
  return out;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return std::string(argv[++i]);
    };
    if (a == "--perfgate")
      o.perfgate = value();
    else if (a == "--runs")
      o.runs = std::max(1, std::stoi(value()));
    else if (a == "--scale")
      o.scales = number_list<int>(value());
    else if (a == "--threads")
      o.threads = number_list<unsigned>(value());
    else if (a == "--ranks")
      o.ranks = std::max(0, std::stoi(value()));
    else if (a == "--merge-ranks")
      o.merge_ranks = std::max(0, std::stoi(value()));
    else if (a == "-h" || a == "--help")
      throw std::runtime_error("help");
    else
      o.traces.push_back(a);
  }
  if (o.traces.empty()) throw std::runtime_error("name at least one trace");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  Launcher launcher;  // first, while this process is small
  Options o;
  try {
    o = parse(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "%s\nusage: perfgate-bench [--perfgate PATH] [--runs N] [--scale K,...] [--threads T,...] "
                 "[--ranks R] [--merge-ranks R] TRACE...\n",
                 e.what());
    return 2;
  }
  fs::path dir = fs::temp_directory_path() / fmt::format("perfgate-bench-{}", getpid());
  fs::create_directories(dir);
  std::printf("%-44s %7s %9s %9s %8s %8s %9s %9s %9s %7s %8s %8s\n", "input", "threads", "JSON MB", "file MB",
              "wall s", "CPU s", "MB/s wall", "MB/s CPU", "RSS MB", "RSS/JSON", "bare s", "CPU/bare");
  for (const auto& trace : o.traces) {
    // An nsys export, an XSpace profile (JAX, TensorFlow) or a PyTorch memory snapshot (.pickle,
    // perfgate-make-snapshot writes one of any size) as it is: its size on disk stands for
    // "JSON MB" (so MB/s compares with a JSON trace's only per byte read, not per event).
    if (trace.ends_with(".sqlite") || trace.ends_with(".xplane.pb") || trace.ends_with(".pickle")) {
      measure(launcher, o, fs::path(trace).filename().string(), trace, bytes_on_disk(trace), std::nullopt);
      continue;
    }
    std::string base = fs::path(trace).filename().string();
    for (std::string_view ext : {".gz", ".json"})
      if (base.ends_with(ext)) base.resize(base.size() - ext.size());
    struct Prepared {
      std::string label;
      std::uint64_t bytes = 0;
      double bare_seconds = 0;
    };
    std::vector<Prepared> prepared;
    {
      std::string text = read_maybe_gzip(trace);
      auto prepare = [&](const std::string& label, const std::string& content) {
        std::string stem = (dir / label).string();
        write_plain(stem + ".json", content);
        write_gzip(stem + ".json.gz", content);
        prepared.push_back({label, content.size(), bare_parse_seconds(content, o.runs)});
      };
      for (int scale : o.scales)
        prepare(scale == 1 ? base : fmt::format("{}_x{}", base, scale),
                scale == 1 ? text : scaled_trace(text, scale));
      if (o.merge_ranks > 0) measure_merge(o, base, text, dir);
    }
    for (const auto& [label, bytes, bare] : prepared) {
      std::string stem = (dir / label).string();
      measure(launcher, o, label + " (.json)", stem + ".json", bytes, bare);
      measure(launcher, o, label + " (.json.gz)", stem + ".json.gz", bytes, std::nullopt);
      if (o.ranks > 0 && label == base) {
        fs::path folder = dir / fmt::format("{}_{}ranks", label, o.ranks);
        fs::create_directories(folder);
        for (int r = 0; r < o.ranks; ++r)
          fs::create_symlink(stem + ".json.gz", folder / fmt::format("rank-{}.json.gz", r));
        measure(launcher, o, fmt::format("{} ({} ranks, .json.gz)", label, o.ranks), folder.string(),
                bytes * static_cast<std::uint64_t>(o.ranks), std::nullopt);
        fs::remove_all(folder);
      }
      fs::remove(stem + ".json");
      fs::remove(stem + ".json.gz");
    }
  }
  fs::remove_all(dir);
  return 0;
}
