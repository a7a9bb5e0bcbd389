# Third-party dependencies, all from Debian packages (scripts/install-deps.sh). A GPU host without
# the SQLite / muparser headers can point CMAKE_PREFIX_PATH (and SQLite3_INCLUDE_DIR /
# SQLite3_LIBRARY) at the packages unpacked with dpkg -x (docs/ARCHITECTURE.md).
find_package(CUDAToolkit 12.8 REQUIRED)
find_package(Threads REQUIRED)
if(NOT CUOP_BUILD_TUNER)  # the library alone: the toolkit is all it needs
  return()
endif()
find_package(yaml-cpp REQUIRED)
find_package(SQLite3 REQUIRED)
# CMake 3.25 names the target SQLite::SQLite3; newer releases deprecate that for SQLite3::SQLite3.
if(TARGET SQLite3::SQLite3)
  set(CUOP_SQLITE_TARGET SQLite3::SQLite3)
else()
  set(CUOP_SQLITE_TARGET SQLite::SQLite3)
endif()
find_package(CLI11 CONFIG REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(fmt REQUIRED)

# yaml-cpp 0.7 exports `yaml-cpp`, 0.8 exports `yaml-cpp::yaml-cpp`.
if(TARGET yaml-cpp::yaml-cpp)
  set(CUOP_YAML_TARGET yaml-cpp::yaml-cpp)
else()
  set(CUOP_YAML_TARGET yaml-cpp)
endif()

# muparser ships a CMake config in newer releases and a pkg-config file in all of them.
find_package(muparser CONFIG QUIET)
if(TARGET muparser::muparser)
  set(CUOP_MUPARSER_TARGET muparser::muparser)
else()
  find_path(MUPARSER_INCLUDE_DIR muParser.h REQUIRED)
  find_library(MUPARSER_LIBRARY muparser REQUIRED)
  add_library(cuop_muparser INTERFACE)
  target_include_directories(cuop_muparser SYSTEM INTERFACE "${MUPARSER_INCLUDE_DIR}")
  target_link_libraries(cuop_muparser INTERFACE "${MUPARSER_LIBRARY}")
  set(CUOP_MUPARSER_TARGET cuop_muparser)
endif()

if(CUOP_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(CUOP_BUILD_EXAMPLES)
  find_package(benchmark QUIET)
endif()
