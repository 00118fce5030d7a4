// The dashboard's static files: the pages of src/dashboard/web and the plot
// library (ECharts), embedded in the binary at build time, so a dashboard
// needs no network and no files beside the binary. Used by DashboardServer.
// Thread-safe: the files are immutable.
#ifndef HPTUNE_SRC_DASHBOARD_ASSETS_H_
#define HPTUNE_SRC_DASHBOARD_ASSETS_H_

#include <string_view>
#include <vector>

namespace hptune::dashboard {

struct Asset {
  std::string_view name;          // "app.js", served at /static/app.js.
  std::string_view content_type;  // From the name's extension.
  std::string_view bytes;
};

// The embedded file called `name`; nullptr when there is none.
const Asset* FindAsset(std::string_view name);

namespace internal {
struct EmbeddedFile {
  std::string_view name;
  std::string_view bytes;
};
// Generated (embedded_assets.cc.in).
const std::vector<EmbeddedFile>& EmbeddedFiles();
}  // namespace internal

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_ASSETS_H_
