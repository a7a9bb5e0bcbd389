# The softmax op's sources (softmax_op.hpp); the registry (../registry.cmake) adds them.
set(CUOP_OP_SOURCES custom.cpp emit.cpp softmax_op.cpp source.cpp trial.cpp)
