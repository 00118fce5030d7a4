// Cloud Storage's object hashes (object_hashes.h).
#include "src/rest/object_hashes.h"

#include <openssl/evp.h>

#include <array>

#include "absl/strings/escaping.h"

namespace hptune::rest {
namespace {

std::array<uint32_t, 256> Crc32cTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
    }
    table[i] = crc;
  }
  return table;
}

}  // namespace

uint32_t Crc32c(std::string_view data) {
  static const std::array<uint32_t, 256> kTable = Crc32cTable();
  uint32_t crc = 0xFFFFFFFFu;
  for (char c : data) {
    crc = kTable[(crc ^ static_cast<unsigned char>(c)) & 0xFF] ^ (crc >> 8);
  }
  return crc ^ 0xFFFFFFFFu;
}

std::string Md5Base64(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(data.data(), data.size(), digest, &size, EVP_md5(), nullptr);
  return absl::Base64Escape(
      std::string(reinterpret_cast<const char*>(digest), size));
}

std::string Crc32cBase64(std::string_view data) {
  const uint32_t crc = Crc32c(data);
  const char bytes[4] = {static_cast<char>(crc >> 24),
                         static_cast<char>(crc >> 16),
                         static_cast<char>(crc >> 8), static_cast<char>(crc)};
  return absl::Base64Escape(std::string(bytes, 4));
}

}  // namespace hptune::rest
