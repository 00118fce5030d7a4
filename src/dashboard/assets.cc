#include "src/dashboard/assets.h"

#include <map>
#include <string>

namespace hptune::dashboard {
namespace {

std::string_view ContentType(std::string_view name) {
  static const std::map<std::string_view, std::string_view> kTypes = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".txt", "text/plain; charset=utf-8"},
  };
  const size_t dot = name.rfind('.');
  if (dot != std::string_view::npos) {
    auto it = kTypes.find(name.substr(dot));
    if (it != kTypes.end()) return it->second;
  }
  return "application/octet-stream";
}

std::map<std::string_view, Asset> IndexAssets() {
  std::map<std::string_view, Asset> assets;
  for (const internal::EmbeddedFile& file : internal::EmbeddedFiles()) {
    assets[file.name] = Asset{.name = file.name,
                              .content_type = ContentType(file.name),
                              .bytes = file.bytes};
  }
  return assets;
}

}  // namespace

const Asset* FindAsset(std::string_view name) {
  static const std::map<std::string_view, Asset> assets = IndexAssets();
  auto it = assets.find(name);
  return it == assets.end() ? nullptr : &it->second;
}

}  // namespace hptune::dashboard
