// perfgate-make-snapshot: a seeded synthetic PyTorch memory snapshot of any size, for measuring the
// streamed snapshot reader (docs/performance.md, "Memory snapshots").
//
//   perfgate-make-snapshot OUT SIZE [--seed N]     SIZE: bytes, or with K, M, G (2^10, 2^20, 2^30)
//
// Writes OUT as it is made (tests/support/synthetic_snapshot.h: protocol 4, keys and shared frames
// fetched from the memo as Python's pickler writes them) and prints what it wrote as one JSON line:
// bytes, actions, segments, reserved, allocated at the end and the peak allocated, which
// `perfgate analyze OUT` must report.
#include <cstdio>
#include <fstream>
#include <string>

#include "support/synthetic_snapshot.h"

int main(int argc, char** argv) {
  if (argc != 3 && !(argc == 5 && std::string(argv[3]) == "--seed")) {
    std::fprintf(stderr, "usage: perfgate-make-snapshot OUT SIZE [--seed N]\n");
    return 2;
  }
  std::string size_text = argv[2];
  std::uint64_t scale = 1;
  if (!size_text.empty() && (size_text.back() == 'K' || size_text.back() == 'M' || size_text.back() == 'G')) {
    scale = std::uint64_t{1} << (size_text.back() == 'K' ? 10 : size_text.back() == 'M' ? 20 : 30);
    size_text.pop_back();
  }
  std::uint64_t size = 0, seed = argc == 5 ? std::stoull(argv[4]) : 60;
  try {
    size = std::stoull(size_text) * scale;
  } catch (const std::exception&) {
    std::fprintf(stderr, "perfgate-make-snapshot: %s is not a size\n", argv[2]);
    return 2;
  }
  std::ofstream out(argv[1], std::ios::binary);
  if (!out) {
    std::fprintf(stderr, "perfgate-make-snapshot: cannot write %s\n", argv[1]);
    return 2;
  }
  perfgate::test::SyntheticSnapshotFacts f = perfgate::test::SyntheticSnapshotWriter(out).write(size, seed);
  out.close();
  std::printf(
      "{\"bytes\": %llu, \"actions\": %llu, \"segments\": %llu, \"reserved\": %llu, \"allocated\": %llu, "
      "\"peak\": %llu}\n",
      static_cast<unsigned long long>(f.bytes), static_cast<unsigned long long>(f.actions),
      static_cast<unsigned long long>(f.segments), static_cast<unsigned long long>(f.reserved),
      static_cast<unsigned long long>(f.allocated), static_cast<unsigned long long>(f.peak));
  return out.fail() ? 1 : 0;
}
