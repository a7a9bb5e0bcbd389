# cuop_resolve_cuda_architectures(OUT): CMAKE_CUDA_ARCHITECTURES as the explicit list cuop's
# kernels are compiled for and its dispatch tables emitted for (docs/packaging.md,
# "Architectures"): `native` becomes the GPUs CMake found here, `all` and `all-major` the
# architectures this nvcc builds (all-major: those of a major version, X.0), the newest with its
# PTX. One list for both, so what a table names is what the device runs.
function(cuop_resolve_cuda_architectures out)
  set(archs "${CMAKE_CUDA_ARCHITECTURES}")
  if(archs STREQUAL "native")
    set(archs "${CMAKE_CUDA_ARCHITECTURES_NATIVE}")
    if(NOT archs)
      message(FATAL_ERROR "cuop: CMAKE_CUDA_ARCHITECTURES=native, but CMake found no GPU here: "
                          "name the architectures (e.g. 80;90a)")
    endif()
  elseif(archs STREQUAL "all" OR archs STREQUAL "all-major")
    execute_process(COMMAND "${CMAKE_CUDA_COMPILER}" --list-gpu-code OUTPUT_VARIABLE codes
                    RESULT_VARIABLE rc ERROR_QUIET)
    string(REGEX MATCHALL "sm_[0-9]+" codes "${codes}")
    if(NOT rc EQUAL 0 OR NOT codes)
      message(FATAL_ERROR "cuop: CMAKE_CUDA_ARCHITECTURES=${archs}: `nvcc --list-gpu-code` failed")
    endif()
    list(TRANSFORM codes REPLACE "^sm_" "")
    if(archs STREQUAL "all-major")
      list(FILTER codes INCLUDE REGEX "0$")
    endif()
    list(SORT codes COMPARE NATURAL)
    list(POP_BACK codes newest)
    list(TRANSFORM codes APPEND "-real")
    set(archs ${codes} ${newest})
  elseif(NOT archs OR archs STREQUAL "OFF")
    message(FATAL_ERROR "cuop: CMAKE_CUDA_ARCHITECTURES is empty or OFF: name the architectures "
                        "(e.g. 80;90a;100a), since the dispatch tables are emitted per architecture")
  endif()
  set(${out} "${archs}" PARENT_SCOPE)
endfunction()
