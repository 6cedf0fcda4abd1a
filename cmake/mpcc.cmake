# mpcc.cmake - compile TFLite models to C at build time, for CMake projects (plain apps, Zephyr,
# ESP-IDF, the Pico SDK: anything that builds C with CMake).
#
#   include(path/to/mpcc/cmake/mpcc.cmake)        # from a source tree, or:
#   find_package(mpcc REQUIRED CONFIG)            # after `make install` (CMAKE_PREFIX_PATH=PREFIX)
#
#   mpcc_add_model(<target> MODEL <file.tflite> [PREFIX <name>] [OPTIONS <mpcc options>...])
#   target_link_libraries(my_app PRIVATE <target>)
#
# mpcc_add_model runs `mpcc [OPTIONS] MODEL -o <binary dir>/mpcc/<target>/<name>.c --name <name>`
# when the target is built, and again whenever the model file or the mpcc executable changes, and
# makes <target> a static library of the generated code whose include directory holds <name>.h
# (PREFIX defaults to <target>). It links mpcc_runtime, a static library of mpcc's runtime
# (runtime/*.c, runtime/kernels/*.c; C99; libm), built once per project. With `--weights file`
# in OPTIONS the weights blob is written next to the code: <target>'s property MPCC_WEIGHTS_FILE
# names it. Flags for the generated code and the runtime come from the project (CMAKE_C_FLAGS,
# the toolchain file): e.g. -O3 -march=native on a PC, the board's flags on a microcontroller.
#
# Variables (set before including, or as cache entries):
#   MPCC_EXECUTABLE   the mpcc compiler (default: <install prefix>/bin/mpcc next to this file,
#                     else <source tree>/build/mpcc, else mpcc on PATH)
#   MPCC_RUNTIME_DIR  mpcc's runtime sources (default: ../runtime next to this file: the source
#                     tree's runtime/, or PREFIX/share/mpcc/runtime once installed)
cmake_minimum_required(VERSION 3.13)

get_filename_component(_mpcc_here "${CMAKE_CURRENT_LIST_DIR}" ABSOLUTE)
if(NOT MPCC_RUNTIME_DIR)
  get_filename_component(MPCC_RUNTIME_DIR "${_mpcc_here}/../runtime" ABSOLUTE)
endif()
if(NOT EXISTS "${MPCC_RUNTIME_DIR}/mpcc_rt.h")
  message(FATAL_ERROR "mpcc: no runtime in MPCC_RUNTIME_DIR=${MPCC_RUNTIME_DIR} (mpcc_rt.h missing)")
endif()
if(NOT MPCC_EXECUTABLE)
  foreach(_mpcc_try "${_mpcc_here}/../../../bin/mpcc" "${_mpcc_here}/../build/mpcc")
    get_filename_component(_mpcc_try "${_mpcc_try}" ABSOLUTE)
    if(EXISTS "${_mpcc_try}" AND NOT IS_DIRECTORY "${_mpcc_try}")
      set(MPCC_EXECUTABLE "${_mpcc_try}")
      break()
    endif()
  endforeach()
  if(NOT MPCC_EXECUTABLE)
    find_program(MPCC_EXECUTABLE mpcc)
  endif()
  if(NOT MPCC_EXECUTABLE)
    message(FATAL_ERROR "mpcc: the mpcc compiler was not found: set MPCC_EXECUTABLE "
                        "(in a source tree, `make build/mpcc` builds it)")
  endif()
endif()

if(NOT TARGET mpcc_runtime)
  file(GLOB _mpcc_rt_src "${MPCC_RUNTIME_DIR}/*.c" "${MPCC_RUNTIME_DIR}/kernels/*.c")
  add_library(mpcc_runtime STATIC ${_mpcc_rt_src})
  target_include_directories(mpcc_runtime PUBLIC "${MPCC_RUNTIME_DIR}")
  set_target_properties(mpcc_runtime PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
  find_library(_mpcc_libm m)
  if(_mpcc_libm)
    target_link_libraries(mpcc_runtime PUBLIC "${_mpcc_libm}")
  endif()
endif()

function(mpcc_add_model target)
  cmake_parse_arguments(ARG "" "MODEL;PREFIX" "OPTIONS" ${ARGN})
  if(NOT ARG_MODEL)
    message(FATAL_ERROR "mpcc_add_model(${target}): MODEL <file.tflite> is required")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "mpcc_add_model(${target}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_PREFIX)
    set(ARG_PREFIX "${target}")
  endif()
  get_filename_component(_model "${ARG_MODEL}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  set(_dir "${CMAKE_CURRENT_BINARY_DIR}/mpcc/${target}")
  set(_outputs "${_dir}/${ARG_PREFIX}.c" "${_dir}/${ARG_PREFIX}.h")
  list(FIND ARG_OPTIONS "file" _file_at)
  if(NOT _file_at EQUAL -1)
    list(APPEND _outputs "${_dir}/${ARG_PREFIX}.weights.bin")
  endif()
  add_custom_command(
    OUTPUT ${_outputs}
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${_dir}"
    COMMAND "${MPCC_EXECUTABLE}" ${ARG_OPTIONS} "${_model}" -o "${_dir}/${ARG_PREFIX}.c" --name "${ARG_PREFIX}"
    DEPENDS "${_model}" "${MPCC_EXECUTABLE}"
    COMMENT "mpcc: compiling ${ARG_MODEL} to ${ARG_PREFIX}.c"
    VERBATIM)
  add_library(${target} STATIC "${_dir}/${ARG_PREFIX}.c" "${_dir}/${ARG_PREFIX}.h")
  target_include_directories(${target} PUBLIC "${_dir}")
  target_link_libraries(${target} PUBLIC mpcc_runtime)
  set_target_properties(${target} PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
  if(NOT _file_at EQUAL -1)
    set_target_properties(${target} PROPERTIES MPCC_WEIGHTS_FILE "${_dir}/${ARG_PREFIX}.weights.bin")
  endif()
endfunction()
