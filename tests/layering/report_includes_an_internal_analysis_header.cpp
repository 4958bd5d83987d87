// Compiled as a report source is, by the test StageLibraries.InternalHeaderFailsToCompile: the
// report stage may include the analysis' public header and its EXPORTS, not its other internal headers.
#include "analyse/analysis.h"
#include "analyse/steps/steps.h"
