# Installs the public headers, the libraries and a CMake package so that a
# scheduler can `find_package(hptune CONFIG)` and link `hptune::engine`, the
# hptune binary, and the .proto files of the gRPC API.
include(CMakePackageConfigHelpers)

get_property(hptune_libraries GLOBAL PROPERTY HPTUNE_INSTALLED_LIBRARIES)
install(TARGETS ${hptune_libraries} EXPORT hptuneTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/hptune DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS hptune RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Shared (HPTUNE_SHARED_LIBS): the binary's own libraries, which a static
# build links into it, go beside the others, and each file finds the
# libraries it needs there.
if(HPTUNE_SHARED_LIBS)
  set(binary_libraries hptune_proto hptune_jobs hptune_api hptune_server
      hptune_dashboard hptune_rest hptune_cli hptune_cli_serve
      hptune_cli_dashboard)
  install(TARGETS ${binary_libraries} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  set_target_properties(${hptune_libraries} ${binary_libraries}
                        PROPERTIES INSTALL_RPATH "$ORIGIN")
  set_target_properties(hptune PROPERTIES
    INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
endif()
# The wire contract, for clients in other languages (python/setup.py looks
# for it under <prefix>/share/hptune/proto).
install(DIRECTORY proto/hptune DESTINATION ${CMAKE_INSTALL_DATADIR}/hptune/proto
        FILES_MATCHING PATTERN "*.proto")

set(hptune_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/hptune)
install(EXPORT hptuneTargets NAMESPACE hptune:: DESTINATION ${hptune_cmake_dir})
configure_package_config_file(cmake/hptuneConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/hptuneConfig.cmake
  INSTALL_DESTINATION ${hptune_cmake_dir})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/hptuneConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/hptuneConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/hptuneConfigVersion.cmake
        DESTINATION ${hptune_cmake_dir})
