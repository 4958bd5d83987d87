#include "load/kineto/fields.h"

namespace perfgate::kineto {

const char* field_label(Field field) {
  using namespace fields_detail;
  for (const auto& [name, f] : kTopLevel)
    if (f == field) return name.data();
  for (const auto& [name, f] : kEvent)
    if (f == field) return name.data();
  for (const auto& [name, f] : kArgs)
    if (f == field) return name.data();
  return "?";
}

}  // namespace perfgate::kineto
