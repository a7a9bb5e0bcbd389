# GroupNorm: one op over the group_loop family (cuop/kernels/groupnorm/); the registry
# (../registry.cmake) adds it.
set(CUOP_OP_SOURCES describe.cpp emit.cpp groupnorm_op.cpp source.cpp trial.cpp)
