// A self-signed P-256 certificate for "localhost" and its private key, in
// PEM, for tests of TLS (the serve command's file check, the dashboard's
// HTTPS). Thread-safe.
#ifndef HPTUNE_TESTS_TESTING_SELF_SIGNED_H_
#define HPTUNE_TESTS_TESTING_SELF_SIGNED_H_

#include <string>

namespace hptune_testing {

struct PemPair {
  std::string cert_pem;
  std::string key_pem;
};

// Valid from `from_days` to `to_days` days from now.
PemPair SelfSignedPair(long from_days = 0, long to_days = 1);

}  // namespace hptune_testing

#endif  // HPTUNE_TESTS_TESTING_SELF_SIGNED_H_
