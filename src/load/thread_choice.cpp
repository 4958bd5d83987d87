// The default thread count (--threads 0), issue 77: threads that cost nothing when they cannot help.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "load/load.h"

namespace perfgate {

unsigned default_threads(std::uint64_t input_bytes, unsigned allowed_cores, double load) {
  if (allowed_cores <= 1 || input_bytes < kSmallInputBytes) return 1;
  double free_cores = static_cast<double>(allowed_cores) - std::max(0.0, load);
  long threads = std::lround(free_cores);
  return static_cast<unsigned>(std::clamp<long>(threads, 1, allowed_cores));
}

CoreState core_state() {
  CoreState state;
  cpu_set_t set;
  CPU_ZERO(&set);
  // The affinity mask (taskset, a container's cpuset), which hardware_concurrency() does not see.
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    state.allowed = static_cast<unsigned>(std::max(1, CPU_COUNT(&set)));
  else
    state.allowed = std::max(1u, std::thread::hardware_concurrency());
  double average[1];
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  // The 1-minute load average is the whole machine's: the allowed cores' share of it.
  if (getloadavg(average, 1) == 1 && online > 0)
    state.load = average[0] * std::min(1.0, static_cast<double>(state.allowed) / static_cast<double>(online));
  return state;
}

namespace {

std::uint64_t text_bytes_of(const InputFile& input) {
  if (input.held || !input.path.ends_with(".gz") || input.bytes < 18) return input.bytes;
  // A gzip member's trailer ends with its text's size modulo 2^32: a hint, never a limit.
  std::ifstream file(input.path, std::ios::binary);
  unsigned char size[4] = {};
  if (!file.seekg(-4, std::ios::end) || !file.read(reinterpret_cast<char*>(size), 4)) return input.bytes;
  std::uint64_t inflated = size[0] | size[1] << 8 | size[2] << 16 | std::uint64_t{size[3]} << 24;
  return std::max(input.bytes, inflated);
}

}  // namespace

std::uint64_t text_bytes(const std::vector<InputFile>& inputs) {
  std::uint64_t sum = 0;
  for (const InputFile& i : inputs) sum += text_bytes_of(i);
  return sum;
}

}  // namespace perfgate
