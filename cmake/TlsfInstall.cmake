# install() rules and an exported CMake package: find_package(tlsf) then link tlsf::tlsf
# and tlsf::cpp.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(tlsf_cpp PROPERTIES EXPORT_NAME cpp)
install(TARGETS tlsf tlsf_cpp EXPORT tlsfTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/include/ ${PROJECT_SOURCE_DIR}/cpp/include/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT tlsfTargets NAMESPACE tlsf:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tlsf)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tlsfConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/tlsfConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tlsf)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tlsfConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tlsfConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/tlsfConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tlsf)
