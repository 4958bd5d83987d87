// Compiled as a renderer's source is, by the test StageLibraries.BackwardIncludeFailsToCompile:
// a renderer that includes the analysis (a backward include) must fail to compile.
#include "analyse/analysis.h"
