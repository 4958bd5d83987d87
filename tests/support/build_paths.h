// Where the sources are and where the build put perfgate and the tests' tools. Defined in one file
// that CMake generates (tests/CMakeLists.txt), not as -D flags on every test object: a flag with a
// checkout's absolute path made ccache miss every test object of a clean checkout in a new folder
// (CI's), about 160 compiles twice a run. Every test object sees these through `-include`.
#pragma once

namespace perfgate::test_paths {
const char* source_dir();
const char* perfgate_binary();
const char* make_example();
const char* make_large_trace();
}  // namespace perfgate::test_paths
