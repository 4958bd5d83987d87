// libpq, loaded when a PostgreSQL history is opened rather than when perfgate starts: Debian's
// libpq pulls in libssl, libcrypto, Kerberos and LDAP, which every run would otherwise map (see
// render/xlsx/xlsx_library.h for the same reason). The types and constants come from the headers.
#pragma once

#include <libpq-fe.h>

#include <string>

namespace perfgate::history {

// clang-format off
#define PERFGATE_LIBPQ_FUNCTIONS(X)                                                                  \
  X(PQconnectdbParams) X(PQstatus) X(PQerrorMessage) X(PQfinish) X(PQsetNoticeProcessor)         \
  X(PQexecParams) X(PQresultStatus) X(PQresultErrorMessage) X(PQresultErrorField) X(PQclear)      \
  X(PQntuples) X(PQnfields) X(PQgetvalue) X(PQgetlength) X(PQgetisnull) X(PQftype)             \
  X(PQconninfoParse) X(PQconninfoFree) X(PQfreemem)
// clang-format on

struct LibpqLibrary {
#define PERFGATE_LIBPQ_MEMBER(name) decltype(&::name) name = nullptr;
  PERFGATE_LIBPQ_FUNCTIONS(PERFGATE_LIBPQ_MEMBER)
#undef PERFGATE_LIBPQ_MEMBER
};

// Loads the library on first use. Throws InputError naming `location` when it cannot be loaded.
const LibpqLibrary& libpq_library(const std::string& location);

}  // namespace perfgate::history
