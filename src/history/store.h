// The history store over a SqlConnection, for open_history and for tests that open a store with
// their own list of migrations.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "history/history.h"
#include "history/schema.h"
#include "history/sql_connection.h"

namespace perfgate::history {

// The store on the database. Record: migrated to the last of `migrations` first. Read: as it is
// (refused when newer than the last of `migrations`; without runs when it has no tables).
std::unique_ptr<HistoryStore> open_store(std::unique_ptr<SqlConnection> db,
                                         const std::vector<Migration>& migrations, std::string description,
                                         HistoryAccess access);

// The runs.gpu_names column: the distinct GPU names, sorted, joined by ", " ("" without a GPU).
std::string gpu_key(const std::vector<std::string>& sorted_names);

}  // namespace perfgate::history
