# `hptune serve` over the wire: real server processes on 127.0.0.1.
# Included from tests/integration/CMakeLists.txt.
add_subdirectory(testdata)
foreach(name serve_study_test serve_auth_test serve_trust_test serve_limits_test
             serve_job_test serve_crash_test serve_zombie_test serve_quota_test)
  hptune_test(${name} SOURCES ${name}.cc
    DEPS hptune_serve_fixture hptune_store hptune_testing
    LABELS integration TIMEOUT 180)
endforeach()
# Several users on one root server: setpriv'd clients of its Unix socket.
hptune_test(multi_user_test SOURCES multi_user_test.cc
  DEPS hptune_serve_fixture hptune_testing nlohmann_json::nlohmann_json
  LABELS integration TIMEOUT 180 FIXTURES container_image)
target_compile_definitions(serve_study_test PRIVATE
  ASK_TELL_CLIENT="$<TARGET_FILE:ask_tell_client>")
add_dependencies(serve_study_test ask_tell_client)
# The CLI refuses a fake server of another user before it sends a token.
hptune_test(client_peer_check_test SOURCES client_peer_check_test.cc
  DEPS hptune_serve_fixture hptune_testing absl::strings
  LABELS integration TIMEOUT 120)
