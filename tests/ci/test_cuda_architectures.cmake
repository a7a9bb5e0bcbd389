# ci.cuda_architectures: cmake/cuop_architectures.cmake turns CMAKE_CUDA_ARCHITECTURES into the
# explicit list the kernels and tables are built for. Run as
#   cmake -DCUOP_SOURCE_DIR=... -DCMAKE_CUDA_COMPILER=.../nvcc -P test_cuda_architectures.cmake
include("${CUOP_SOURCE_DIR}/cmake/cuop_architectures.cmake")

function(expect value want)
  set(CMAKE_CUDA_ARCHITECTURES "${value}")
  cuop_resolve_cuda_architectures(got)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "CMAKE_CUDA_ARCHITECTURES=${value}: got \"${got}\", expected \"${want}\"")
  endif()
  message(STATUS "${value} -> ${got}")
endfunction()

expect("80;90a;100a" "80;90a;100a")
expect("86-real;120" "86-real;120")
set(CMAKE_CUDA_ARCHITECTURES_NATIVE "90-real;86-real")  # what CMake found on a host with two GPUs
expect("native" "90-real;86-real")
# nvcc 13 builds 7.5 and up: all of them, or those of a major version (X.0), in order, the newest
# with its PTX (no -real). The lists grow with nvcc's releases.
foreach(value all all-major)
  set(CMAKE_CUDA_ARCHITECTURES "${value}")
  cuop_resolve_cuda_architectures(got)
  list(GET got 0 oldest)
  list(GET got -1 newest)
  list(REMOVE_AT got -1)
  set(want_oldest 75-real)
  set(each "^[0-9]+-real$")
  if(value STREQUAL "all-major")
    set(want_oldest 80-real)
    set(each "^[0-9]+0-real$")
  endif()
  list(FILTER got EXCLUDE REGEX "${each}")
  if(NOT oldest STREQUAL want_oldest OR NOT newest MATCHES "^[0-9]+$" OR got)
    message(FATAL_ERROR "CMAKE_CUDA_ARCHITECTURES=${value}: oldest ${oldest}, newest ${newest}, odd: ${got}")
  endif()
  message(STATUS "${value}: ${oldest} .. ${newest}")
endforeach()
