# Compiler warnings for every target of the project (not the dependencies, which are found, not
# built): -Wall -Wextra -Wpedantic for host code; for nvcc, -Wall -Wextra on the host compiler's
# half and nvcc's own warnings. CUOP_WARNINGS_AS_ERRORS turns them into errors: CI sets it (the
# `ci` preset), a user's build does not, so a newer compiler's new warnings never break it.
option(CUOP_WARNINGS_AS_ERRORS "Treat compiler warnings as errors (CI)" OFF)

add_compile_options(
  "$<$<COMPILE_LANGUAGE:CXX>:-Wall;-Wextra;-Wpedantic>"
  "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>")
# Aggregates are filled in part on purpose (the members left out have default initializers), so
# -Wextra's missing-field-initializers is off.
add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-Wno-missing-field-initializers>"
                    "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wno-missing-field-initializers>")
# GCC 12 and 13 report -Wrestrict inside libstdc++'s own string concatenation when optimizing
# (GCC bug 105329, a false positive on `std::string + "..."`): off for those compilers only.
# nvcc's host compiler is taken to be the C++ compiler (CMake's default).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 14)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>" "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wno-restrict>")
endif()
if(CUOP_WARNINGS_AS_ERRORS)
  add_compile_options(
    "$<$<COMPILE_LANGUAGE:CXX>:-Werror>"
    "$<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings;-Xcompiler=-Werror>")
endif()
