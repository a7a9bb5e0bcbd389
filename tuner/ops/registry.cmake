# The op registry: each name is a folder under tuner/ops/ that lists its sources in its
# sources.cmake (CUOP_OP_SOURCES) and defines `const cuop::ops::op& <name>_op()` in
# <name>/<name>_op.hpp (docs/ARCHITECTURE.md, Ops). Adding an op is adding its folder and its name
# here; nothing else in the tuner names an op.
set(CUOP_OPS softmax gemm conv2d)
set(CUOP_OPS_DIR "${CMAKE_CURRENT_LIST_DIR}")

# cuop_op_registry(SOURCES_VAR INCLUDE_DIR_VAR): every op's sources (absolute paths), and the
# folder that holds the generated table tuner/ops/registry_table.inc that registry.cpp includes.
# Called by the tuner's build and by the fuzzers' (tests/fuzz), which compile the ops themselves.
function(cuop_op_registry sources_var include_dir_var)
  set(sources "")
  set(registry_includes "")
  set(registry_entries "")
  foreach(op IN LISTS CUOP_OPS)
    set(CUOP_OP_SOURCES "")
    include("${CUOP_OPS_DIR}/${op}/sources.cmake")
    foreach(source IN LISTS CUOP_OP_SOURCES)
      list(APPEND sources "${CUOP_OPS_DIR}/${op}/${source}")
    endforeach()
    string(APPEND registry_includes "#include \"tuner/ops/${op}/${op}_op.hpp\"\n")
    string(APPEND registry_entries "&${op}_op(), ")
  endforeach()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/ops-registry")
  configure_file("${CUOP_OPS_DIR}/registry_table.inc.in" "${dir}/tuner/ops/registry_table.inc" @ONLY)
  set(${sources_var} "${sources}" PARENT_SCOPE)
  set(${include_dir_var} "${dir}" PARENT_SCOPE)
endfunction()
