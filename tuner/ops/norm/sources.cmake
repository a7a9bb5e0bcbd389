# The row normalizations' folder: two ops (layernorm_op.hpp, rmsnorm_op.hpp) over one kernel
# family (cuop/kernels/norm/), their parts shared; the registry (../registry.cmake) adds them.
set(CUOP_OP_NAMES layernorm rmsnorm)
set(CUOP_OP_SOURCES describe.cpp emit.cpp layernorm_op.cpp rmsnorm_op.cpp source.cpp trial.cpp)
