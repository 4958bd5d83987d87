// Compiled as a rules source is, by the test StageLibraries.InternalHeaderFailsToCompile: the
// rules may include the analysis' public header and its EXPORTS, not its other internal headers.
#include "analyse/steps.h"
#include "perfgate/analysis.h"
