// The hashes Cloud Storage reports of an object, as its JSON API writes
// them: md5Hash, the base64 of the MD5 digest, and crc32c, the base64 of
// the big-endian CRC-32C (Castagnoli). gcloud compares both with the file
// it uploaded. Used by the storage upload route (storage_routes.h). Pure
// functions; thread-safe.
#ifndef HPTUNE_SRC_REST_OBJECT_HASHES_H_
#define HPTUNE_SRC_REST_OBJECT_HASHES_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace hptune::rest {

// CRC-32C (iSCSI, RFC 3720): reflected polynomial 0x82F63B78, initial and
// final XOR 0xFFFFFFFF. "123456789" gives 0xE3069283.
uint32_t Crc32c(std::string_view data);

std::string Md5Base64(std::string_view data);
std::string Crc32cBase64(std::string_view data);

}  // namespace hptune::rest

#endif  // HPTUNE_SRC_REST_OBJECT_HASHES_H_
