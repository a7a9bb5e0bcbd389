# The op registry: each name is a folder under tuner/ops/ that lists its sources in its
# sources.cmake (CUOP_OP_SOURCES) and defines `const cuop::ops::op& <name>_op()` in
# <folder>/<name>_op.hpp for each op it holds (CUOP_OP_NAMES; by default the one op named as the
# folder: ops over one kernel family, such as norm/'s layernorm and rmsnorm, share a folder).
# Adding an op is adding its folder and its name here (docs/ARCHITECTURE.md, Ops); nothing else
# in the tuner names an op.
set(CUOP_OPS softmax gemm conv2d norm groupnorm)
set(CUOP_OPS_DIR "${CMAKE_CURRENT_LIST_DIR}")

# cuop_op_registry(SOURCES_VAR INCLUDE_DIR_VAR): every op's sources (absolute paths), and the
# folder that holds the generated table tuner/ops/registry_table.inc that registry.cpp includes.
# Called by the tuner's build and by the fuzzers' (tests/fuzz), which compile the ops themselves.
function(cuop_op_registry sources_var include_dir_var)
  set(sources "")
  set(registry_includes "")
  set(registry_entries "")
  foreach(folder IN LISTS CUOP_OPS)
    set(CUOP_OP_SOURCES "")
    set(CUOP_OP_NAMES "${folder}")
    include("${CUOP_OPS_DIR}/${folder}/sources.cmake")
    foreach(source IN LISTS CUOP_OP_SOURCES)
      list(APPEND sources "${CUOP_OPS_DIR}/${folder}/${source}")
    endforeach()
    foreach(op IN LISTS CUOP_OP_NAMES)
      string(APPEND registry_includes "#include \"tuner/ops/${folder}/${op}_op.hpp\"\n")
      string(APPEND registry_entries "&${op}_op(), ")
    endforeach()
  endforeach()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/ops-registry")
  configure_file("${CUOP_OPS_DIR}/registry_table.inc.in" "${dir}/tuner/ops/registry_table.inc" @ONLY)
  set(${sources_var} "${sources}" PARENT_SCOPE)
  set(${include_dir_var} "${dir}" PARENT_SCOPE)
endfunction()
