#include "io/json_handler.h"

#include <boost/json/error.hpp>

#include <utility>

namespace perfgate {

bool JsonHandler::fail(error_code& ec, std::string message) {
  if (error_.empty()) error_ = std::move(message);
  ec = boost::json::error::syntax;
  return false;
}

}  // namespace perfgate
