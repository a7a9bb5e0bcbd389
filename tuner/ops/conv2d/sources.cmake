# The conv2d op's sources (conv2d_op.hpp); the registry (../registry.cmake) adds them.
set(CUOP_OP_SOURCES conv2d_op.cpp emit.cpp library.cpp trial.cpp)
