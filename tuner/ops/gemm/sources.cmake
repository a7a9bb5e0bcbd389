# The gemm op's sources (gemm_op.hpp); the registry (../registry.cmake) adds them.
set(CUOP_OP_SOURCES emit.cpp gemm_op.cpp library.cpp trial.cpp)
