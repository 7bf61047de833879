# glad.cmake: generates the OpenGL 3.3 core loader with glad2 at configure time (never committed).
#
#   bankscope_add_glad(<target>)  -> defines a static library <target> exposing <glad/gl.h>, or
#                                    leaves BANKSCOPE_GLAD_ERROR set to why it could not.
#
# The generator is the PyPI package `glad2`, installed into ${CMAKE_SOURCE_DIR}/.venv by
# ./scripts/run.sh and ./scripts/test.sh. `--reproducible` makes glad use the Khronos XML it ships
# with instead of downloading the newest one, so configuring works offline and is repeatable.
set(BANKSCOPE_GLAD_PYTHON "${CMAKE_SOURCE_DIR}/.venv/bin/python3"
    CACHE FILEPATH "Python interpreter that has the glad2 package (pip install glad2)")

function(bankscope_add_glad target)
  set(BANKSCOPE_GLAD_ERROR "" PARENT_SCOPE)
  set(out_dir "${CMAKE_BINARY_DIR}/glad")
  set(stamp "${out_dir}/api.txt")
  set(api "gl:core=3.3")

  if(NOT EXISTS "${out_dir}/src/gl.c" OR NOT EXISTS "${stamp}")
    if(NOT EXISTS "${BANKSCOPE_GLAD_PYTHON}")
      set(BANKSCOPE_GLAD_ERROR
          "no Python at BANKSCOPE_GLAD_PYTHON=${BANKSCOPE_GLAD_PYTHON} (python3 -m venv .venv && .venv/bin/pip install glad2)"
          PARENT_SCOPE)
      return()
    endif()
    execute_process(
      COMMAND "${BANKSCOPE_GLAD_PYTHON}" -m glad --quiet --reproducible --api ${api}
              --extensions "" --out-path "${out_dir}" c
      RESULT_VARIABLE rc
      OUTPUT_VARIABLE out
      ERROR_VARIABLE err)
    if(NOT rc EQUAL 0 OR NOT EXISTS "${out_dir}/src/gl.c")
      string(STRIP "${err}" err)
      string(REGEX REPLACE "\n.*" "" first_line "${err}")
      set(BANKSCOPE_GLAD_ERROR
          "glad2 failed (exit ${rc}) with ${BANKSCOPE_GLAD_PYTHON}: ${first_line} (pip install glad2 into .venv)"
          PARENT_SCOPE)
      return()
    endif()
    file(WRITE "${stamp}" "${api}\n")
  endif()

  # The caller has run enable_language(C): CMake allows it only at directory scope.
  add_library(${target} STATIC "${out_dir}/src/gl.c")
  target_include_directories(${target} SYSTEM PUBLIC "${out_dir}/include")
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()
