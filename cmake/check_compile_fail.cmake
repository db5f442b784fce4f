# Compiles SRC alone. Passes when it fails with a diagnostic matching EXPECT (or, with
# EXPECT_SUCCESS, when it compiles).
execute_process(
  COMMAND ${CXX} -std=c++20 -fsyntax-only -I${INCLUDE} ${SRC}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(EXPECT_SUCCESS)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "expected ${SRC} to compile, it failed:\n${err}")
  endif()
  return()
endif()
if(rc EQUAL 0)
  message(FATAL_ERROR "expected ${SRC} to fail to compile, but it compiled")
endif()
if(NOT err MATCHES "${EXPECT}")
  message(FATAL_ERROR "${SRC} failed to compile, but without the expected diagnostic '${EXPECT}':\n${err}")
endif()
message(STATUS "failed to compile as expected: ${EXPECT}")
