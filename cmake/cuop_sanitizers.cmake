# CUOP_SANITIZE: AddressSanitizer and UndefinedBehaviorSanitizer on the host code (the `asan`
# preset; CI runs the CPU tests in such a build). nvcc's host halves are built the same way, so
# a finding in a .cu file's host code is reported too; device code is not instrumented.
option(CUOP_SANITIZE "Build host code with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)

if(CUOP_SANITIZE)
  # One sanitizer a flag: nvcc splits an -Xcompiler value at its commas.
  set(cuop_sanitize_flags -fsanitize=address -fsanitize=undefined -fno-sanitize-recover=undefined
      -fno-omit-frame-pointer)
  string(REPLACE ";" "," cuop_sanitize_host "${cuop_sanitize_flags}")
  add_compile_options(
    "$<$<COMPILE_LANGUAGE:CXX>:${cuop_sanitize_flags}>"
    "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${cuop_sanitize_host}>")
  # --as-needed again after the sanitizer runtimes: without it the CUDA driver stub that CMake puts
  # on every link line becomes a dependency, and no binary starts on a machine without a driver.
  add_link_options(-fsanitize=address,undefined -Wl,--as-needed)
endif()
