#include "hptune/store/open_store.h"

#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hptune/core/status.h"
#include "src/store/memory_store.h"
#include "src/store/postgres_store.h"
#include "src/store/sqlite_store.h"

namespace hptune::store {
namespace {

constexpr char kKnownSchemes[] =
    "known: sqlite:PATH (or a plain PATH), memory:, postgresql://...";

// The scheme `url` begins with (RFC 3986's form), or "" when it is a path.
std::string_view SchemeOf(std::string_view url) {
  const size_t colon = url.find(':');
  if (colon == std::string_view::npos || colon == 0) return {};
  if (!absl::ascii_isalpha(url[0])) return {};
  for (const char c : url.substr(0, colon)) {
    if (!absl::ascii_isalnum(c) && c != '+' && c != '-' && c != '.') return {};
  }
  return url.substr(0, colon);
}

// `url` for a message: a password ("user:secret@host", "password=secret")
// left out, then cut to 200 characters (after: a cut could hide the "@"
// that ends a long password).
std::string Printable(std::string_view url) {
  std::string out(url);
  const size_t authority = out.find("://");
  const size_t at = out.find('@');
  if (authority != std::string::npos && at != std::string::npos &&
      at > authority) {
    out = absl::StrCat(out.substr(0, authority + 3), "...", out.substr(at));
  }
  const std::string lower = absl::AsciiStrToLower(out);
  const size_t password = lower.find("password=");
  if (password != std::string::npos) {
    const size_t end = out.find('&', password);
    out = absl::StrCat(out.substr(0, password + 9), "...",
                       end == std::string::npos ? "" : out.substr(end));
  }
  return out.substr(0, 200);
}

constexpr int64_t kMaxBusyTimeoutMs = 3'600'000;

// Reads the options after "?" of a sqlite: URL into `url`: each NAME=VALUE,
// joined by "&". Only busy_timeout_ms is known.
absl::Status ReadSqliteOptions(const std::string& text, std::string_view whole,
                               StoreUrl& url) {
  for (const std::string& option :
       std::vector<std::string>(absl::StrSplit(text, '&'))) {
    const size_t equals = option.find('=');
    const std::string name = option.substr(0, equals);
    const std::string value =
        equals == std::string::npos ? "" : option.substr(equals + 1);
    int64_t ms = 0;
    if (name != "busy_timeout_ms") {
      return absl::InvalidArgumentError(absl::StrCat(
          "store URL \"", Printable(whole), "\": unknown option \"", name,
          "\" (known: busy_timeout_ms)"));
    }
    if (!absl::SimpleAtoi(value, &ms) || ms < 0 || ms > kMaxBusyTimeoutMs) {
      return absl::InvalidArgumentError(absl::StrCat(
          "store URL \"", Printable(whole), "\": busy_timeout_ms \"", value,
          "\" is not a whole number of milliseconds from 0 to ",
          kMaxBusyTimeoutMs));
    }
    url.busy_deadline = std::chrono::milliseconds(ms);
  }
  return absl::OkStatus();
}

// "sqlite:PATH[?OPTIONS]", the scheme already taken off.
absl::StatusOr<StoreUrl> ReadSqliteUrl(std::string_view rest,
                                       std::string_view whole) {
  const size_t question = rest.find('?');
  StoreUrl url{.scheme = StoreUrl::Scheme::kSqlite,
               .path = std::string(rest.substr(0, question))};
  if (question == std::string_view::npos) return url;
  HPTUNE_RETURN_IF_ERROR(
      ReadSqliteOptions(std::string(rest.substr(question + 1)), whole, url));
  return url;
}

constexpr int kMaxPoolSize = 64;

// A postgresql:// URL: libpq reads it, less hptune's own option "pool=N"
// (the connections PostgresStore keeps, 1 to 64), taken out here.
absl::StatusOr<StoreUrl> ReadPostgresUrl(std::string_view whole) {
  StoreUrl url{.scheme = StoreUrl::Scheme::kPostgres};
  const size_t question = whole.find('?');
  url.path = std::string(whole.substr(0, question));
  if (question == std::string_view::npos) return url;
  std::vector<std::string> kept;
  for (const std::string& option : std::vector<std::string>(
           absl::StrSplit(std::string(whole.substr(question + 1)), '&'))) {
    if (!absl::StartsWith(option, "pool=")) {
      kept.push_back(option);
      continue;
    }
    int size = 0;
    if (!absl::SimpleAtoi(option.substr(5), &size) || size < 1 ||
        size > kMaxPoolSize) {
      return absl::InvalidArgumentError(absl::StrCat(
          "store URL \"", Printable(whole), "\": pool \"", option.substr(5),
          "\" is not a number of connections from 1 to ", kMaxPoolSize));
    }
    url.pool_size = size;
  }
  if (!kept.empty()) absl::StrAppend(&url.path, "?", absl::StrJoin(kept, "&"));
  return url;
}

}  // namespace

std::string PrintableStoreUrl(std::string_view url) { return Printable(url); }

absl::StatusOr<std::unique_ptr<Store>> OpenSqliteStore(
    const std::string& path, Clock& clock, SqliteStoreOptions options) {
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<SqliteStore> store,
                          SqliteStore::Open(path, clock, options));
  return std::unique_ptr<Store>(std::move(store));
}

std::unique_ptr<Store> NewMemoryStore(Clock& clock) {
  return std::make_unique<MemoryStore>(clock);
}

absl::StatusOr<StoreUrl> ParseStoreUrl(const std::string& url) {
  const std::string_view scheme = SchemeOf(url);
  if (scheme.empty()) {
    if (url.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("store URL is empty (", kKnownSchemes, ")"));
    }
    return StoreUrl{.scheme = StoreUrl::Scheme::kSqlite, .path = url};
  }
  const std::string_view rest = std::string_view(url).substr(scheme.size() + 1);
  const std::string lower = absl::AsciiStrToLower(std::string(scheme));
  if (lower == "sqlite" && !rest.empty() && rest[0] != '?') {
    return ReadSqliteUrl(rest, url);
  }
  if (lower == "memory" && rest.empty()) {
    return StoreUrl{.scheme = StoreUrl::Scheme::kMemory, .path = ""};
  }
  if ((lower == "postgresql" || lower == "postgres") &&
      rest.substr(0, 2) == "//") {
    return ReadPostgresUrl(url);
  }
  if (lower == "sqlite" || lower == "memory" || lower == "postgresql" ||
      lower == "postgres") {
    return absl::InvalidArgumentError(absl::StrCat(
        "store URL \"", Printable(url), "\": ",
        lower == "sqlite" ? "sqlite: needs a file path, as in sqlite:hptune.db"
        : lower == "memory" ? "memory: takes nothing after the colon"
                            : "postgresql: is a URL, as in "
                              "postgresql://user@host/database",
        " (", kKnownSchemes, ")"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("store URL \"", Printable(url), "\": unknown scheme \"",
                   std::string(scheme), ":\" (", kKnownSchemes,
                   "; a file whose name has a colon: ./", Printable(url), ")"));
}

absl::StatusOr<std::unique_ptr<Store>> OpenStore(const std::string& url,
                                                 Clock& clock,
                                                 SqliteStoreOptions sqlite) {
  HPTUNE_ASSIGN_OR_RETURN(StoreUrl parsed, ParseStoreUrl(url));
  if (parsed.scheme == StoreUrl::Scheme::kMemory) return NewMemoryStore(clock);
  if (parsed.scheme == StoreUrl::Scheme::kPostgres) {
    HPTUNE_ASSIGN_OR_RETURN(
        std::unique_ptr<PostgresStore> store,
        PostgresStore::Open(
            parsed.path, Printable(url),
            parsed.pool_size.value_or(PostgresStore::kDefaultPoolSize), clock));
    return std::unique_ptr<Store>(std::move(store));
  }
  if (parsed.busy_deadline) sqlite.busy_deadline = *parsed.busy_deadline;
  return OpenSqliteStore(parsed.path, clock, sqlite);
}

}  // namespace hptune::store
