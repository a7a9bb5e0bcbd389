# CUOP_SANITIZE: AddressSanitizer and UndefinedBehaviorSanitizer on the host code (the `asan`
# preset; CI runs the CPU tests in such a build). nvcc's host halves are built the same way, so
# a finding in a .cu file's host code is reported too; device code is not instrumented.
option(CUOP_SANITIZE "Build host code with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)

if(CUOP_SANITIZE)
  set(cuop_sanitize_flags -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  string(REPLACE ";" "," cuop_sanitize_host "${cuop_sanitize_flags}")
  add_compile_options(
    "$<$<COMPILE_LANGUAGE:CXX>:${cuop_sanitize_flags}>"
    "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${cuop_sanitize_host}>")
  add_link_options(-fsanitize=address,undefined)
endif()
