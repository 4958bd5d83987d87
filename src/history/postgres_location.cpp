// PostgreSQL connection strings: what is one, the checks before libpq, the description, and the
// secrets taken out of messages. libpq's grammar: "postgresql://[user[:password]@][host][:port]
// [,...][/dbname][?key=value&...]" (every part percent-encoded), or "key=value key='quoted value'"
// (a backslash escapes the next character).
#include "history/postgres_location.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "common/errors.h"
#include "history/history.h"

namespace perfgate::history {
namespace {

constexpr std::string_view kNotPrinted = "(not printed: it may hold a password)";

[[noreturn]] void malformed(std::string_view kind, std::string_view problem) {
  throw ConfigError(fmt::format("a malformed PostgreSQL {} {}: {}", kind, kNotPrinted, problem));
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}

// The scheme of "scheme:...", lower case; "" when there is none.
std::string scheme_of(const std::string& location) {
  std::size_t colon = location.find(':');
  if (colon == std::string::npos || colon == 0) return "";
  std::string_view scheme(location.data(), colon);
  bool word = std::all_of(scheme.begin(), scheme.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
  });
  return word ? lower(scheme) : "";
}

// "key = value ...": a word, then '=' (libpq's test for a keyword/value string is a '=').
bool is_keyword_value(const std::string& location) {
  std::size_t i = 0;
  while (i < location.size() && is_space(location[i])) ++i;
  std::size_t word = i;
  while (i < location.size() && (std::isalnum(static_cast<unsigned char>(location[i])) || location[i] == '_'))
    ++i;
  if (i == word) return false;
  while (i < location.size() && is_space(location[i])) ++i;
  return i < location.size() && location[i] == '=';
}

// Percent-decoded text; throws (ConfigError) on a '%' without two hex digits, and on %00, which
// libpq refuses.
std::string percent_decoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    auto hex = [&](std::size_t at) {
      return at < text.size() && std::isxdigit(static_cast<unsigned char>(text[at]));
    };
    if (!hex(i + 1) || !hex(i + 2))
      malformed("URI", "a '%' that does not begin a percent-encoded byte (%XX); write a '%' as %25");
    char byte = static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
    if (byte == '\0') malformed("URI", "%00 (a NUL byte) is not allowed");
    out += byte;
    i += 2;
  }
  return out;
}

// Each host[:port] of a comma-separated list: a bracketed IPv6 address, or a name; a port of digits.
void check_hosts(std::string_view hosts) {
  while (true) {
    std::string_view host = hosts.substr(0, hosts.find(','));
    std::string_view port;
    if (host.starts_with('[')) {
      std::size_t close = host.find(']');
      if (close == std::string_view::npos || close == 1)
        malformed("URI", "an IPv6 host without its closing ']', or an empty one");
      std::string_view after = host.substr(close + 1);
      if (!after.empty() && !after.starts_with(':')) malformed("URI", "a character after an IPv6 host's ']'");
      port = after.empty() ? after : after.substr(1);
    } else if (std::size_t colon = host.find(':'); colon != std::string_view::npos) {
      port = host.substr(colon + 1);
    }
    if (!std::all_of(port.begin(), port.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      malformed("URI", "a port that is not a number");
    if (host.size() == hosts.size()) return;
    hosts.remove_prefix(host.size() + 1);
  }
}

// The query's key=value pairs, each with one '='; a password among them is a secret.
void check_parameters(std::string_view query, PostgresLocation& location) {
  while (!query.empty()) {
    std::string_view pair = query.substr(0, query.find('&'));
    std::size_t equals = pair.find('=');
    if (equals == 0 || equals == std::string_view::npos ||
        pair.find('=', equals + 1) != std::string_view::npos)
      malformed("URI", "a parameter that is not one KEY=VALUE (write '=' and '&' in a value as %3D and %26)");
    if (percent_decoded(pair.substr(0, equals)) == "password") {
      location.add_secret(std::string(pair.substr(equals + 1)));
      location.add_secret(percent_decoded(pair.substr(equals + 1)));
    }
    percent_decoded(pair);
    if (pair.size() == query.size()) return;
    query.remove_prefix(pair.size() + 1);
  }
}

PostgresLocation parse_uri(const std::string& uri, const std::string& scheme) {
  if (scheme != "postgresql" && scheme != "postgres")
    malformed("URI", "its scheme is not postgresql:// or postgres://");
  std::string_view rest = std::string_view(uri).substr(scheme.size() + 1);
  if (!rest.starts_with("//")) malformed("URI", fmt::format("it must begin {}:// (two slashes)", scheme));
  rest.remove_prefix(2);
  PostgresLocation location;
  location.add_secret(uri);
  // One '@' at most, and before any '/' or '?': else libpq and a reader would split it apart differently.
  std::size_t at = rest.find('@');
  if (at != std::string_view::npos &&
      (rest.find('@', at + 1) != std::string_view::npos || rest.find_first_of("/?") < at))
    malformed("URI",
              "an '@', '/' or '?' inside the user name or password, or an '@' after the host; percent-encode "
              "them there (%40, %2F, %3F)");
  std::string_view userinfo = at == std::string_view::npos ? "" : rest.substr(0, at);
  std::string_view user = userinfo.substr(0, userinfo.find(':'));
  if (user.size() < userinfo.size()) {
    std::string_view password = userinfo.substr(user.size() + 1);
    location.add_secret(std::string(password));
    location.add_secret(std::string(userinfo));
    location.add_secret(percent_decoded(password));
  }
  percent_decoded(user);
  std::string_view after = at == std::string_view::npos ? rest : rest.substr(at + 1);
  std::string_view hosts = after.substr(0, after.find_first_of("/?"));
  std::string_view path = after.substr(hosts.size());
  std::string_view query = path.substr(std::min(path.size(), path.find('?')));
  path = path.substr(0, path.size() - query.size());
  check_hosts(hosts);
  percent_decoded(path);
  check_parameters(query.empty() ? query : query.substr(1), location);
  location.conninfo = scheme + "://" + std::string(rest);
  location.description =
      fmt::format("{}://{}{}{}{}", scheme, user, at == std::string_view::npos ? "" : "@", hosts, path);
  return location;
}

// One value of a keyword/value string from `i`: 'quoted' or up to a space, '\' escaping the next
// character. Returns the value; `i` ends after it.
std::string keyword_value(const std::string& text, std::size_t& i) {
  std::string value;
  bool quoted = i < text.size() && text[i] == '\'';
  if (quoted) ++i;
  while (i < text.size() && (quoted ? text[i] != '\'' : !is_space(text[i]))) {
    if (text[i] == '\\' && i + 1 < text.size()) ++i;
    value += text[i++];
  }
  if (quoted) {
    if (i == text.size()) malformed("connection string", "a quoted value without its closing quote");
    ++i;
  }
  return value;
}

PostgresLocation parse_keyword_value(const std::string& text) {
  PostgresLocation location;
  location.conninfo = text;
  location.add_secret(text);
  std::vector<std::string> described;
  std::size_t i = 0;
  while (true) {
    while (i < text.size() && is_space(text[i])) ++i;
    if (i == text.size()) break;
    std::size_t start = i;
    while (i < text.size() && text[i] != '=' && !is_space(text[i])) ++i;
    std::string key = text.substr(start, i - start);
    while (i < text.size() && is_space(text[i])) ++i;
    if (key.empty() || i == text.size() || text[i] != '=')
      malformed("connection string", "a word that is not KEY=VALUE (quote a value with spaces: KEY='a b')");
    ++i;
    while (i < text.size() && is_space(text[i])) ++i;
    std::size_t value_start = i;
    std::string value = keyword_value(text, i);
    if (key == "password") {
      location.add_secret(text.substr(value_start, i - value_start));
      location.add_secret(value);
    } else if (key == "host" || key == "hostaddr" || key == "port" || key == "dbname" || key == "user" ||
               key == "service") {
      described.push_back(key + "=" + value);
    }
  }
  location.description = described.empty() ? "PostgreSQL" : fmt::format("{}", fmt::join(described, " "));
  return location;
}

}  // namespace

void PostgresLocation::add_secret(std::string secret) {
  if (secret.empty() || std::find(secrets.begin(), secrets.end(), secret) != secrets.end()) return;
  secrets.push_back(std::move(secret));
  // The longest first: a password inside the whole string is replaced with it.
  std::sort(secrets.begin(), secrets.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
}

std::string PostgresLocation::scrubbed(std::string text) const {
  for (const std::string& secret : secrets)
    for (std::size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at + 3))
      text.replace(at, secret.size(), "***");
  return text;
}

PostgresLocation parse_postgres_location(const std::string& location) {
  if (is_keyword_value(location)) return parse_keyword_value(location);
  return parse_uri(location, scheme_of(location));
}

}  // namespace perfgate::history

namespace perfgate {

bool is_postgres_location(const std::string& location) {
  std::string scheme = history::scheme_of(location);
  return scheme == "postgresql" || scheme == "postgres" || history::is_keyword_value(location);
}

std::string describe_history_location(const std::string& location) {
  if (!is_postgres_location(location)) return location;
  try {
    return history::parse_postgres_location(location).description;
  } catch (const ConfigError&) {
    return "a malformed PostgreSQL connection string";
  }
}

}  // namespace perfgate
