# xtc_add_kernel: compile .xt kernels with xtc at build time and add their host stubs to a library.
#
#   xtc_add_kernel(<target>
#                  SOURCES k.xt [more.xt ...]
#                  [TARGET_DEVICE pvc|dg2|generic]      # default generic
#                  [STUB name]                          # default: each source's base name
#                  [RUNTIMES OPENCL LEVEL_ZERO]         # default OPENCL
#                  [EMULATE_XE]                         # xtc compile --emulate-xe
#                  [OPTIONS extra xtc compile arguments ...])
#
# For each source, runs `xtc compile SRC -o <dir>/NAME.spv --target DEVICE --stub NAME` (re-run when
# the source or xtc changes) and adds <dir>/NAME.c to <target>, a static library created here unless
# it exists already. <target> gets the folder of NAME.h as a PUBLIC include directory and links the
# chosen runtimes (OpenCL::OpenCL, the Level Zero loader) and Threads::Threads; a runtime left out is
# compiled out of the stub with XTC_STUB_NO_OPENCL / XTC_STUB_NO_LEVEL_ZERO (PUBLIC, so the header
# matches the library). The xtc program is the target xtc::xtc: imported by find_package(xtc), or
# the in-tree executable when this file is included from xtc's own build. See docs/stubs.md.
include_guard(GLOBAL)

function(xtc_add_kernel target)
  cmake_parse_arguments(PARSE_ARGV 1 XK "EMULATE_XE" "TARGET_DEVICE;STUB" "SOURCES;RUNTIMES;OPTIONS")
  if(XK_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "xtc_add_kernel(${target}): unknown arguments: ${XK_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT XK_SOURCES)
    message(FATAL_ERROR "xtc_add_kernel(${target}): SOURCES is required")
  endif()
  if(NOT XK_TARGET_DEVICE)
    set(XK_TARGET_DEVICE generic)
  endif()
  if(NOT XK_TARGET_DEVICE MATCHES "^(pvc|dg2|generic)$")
    message(FATAL_ERROR "xtc_add_kernel(${target}): TARGET_DEVICE must be pvc, dg2 or generic, not '${XK_TARGET_DEVICE}'")
  endif()
  if(NOT XK_RUNTIMES)
    set(XK_RUNTIMES OPENCL)
  endif()
  foreach(rt IN LISTS XK_RUNTIMES)
    if(NOT rt MATCHES "^(OPENCL|LEVEL_ZERO)$")
      message(FATAL_ERROR "xtc_add_kernel(${target}): RUNTIMES takes OPENCL and/or LEVEL_ZERO, not '${rt}'")
    endif()
  endforeach()
  list(LENGTH XK_SOURCES nsources)
  if(XK_STUB AND nsources GREATER 1)
    message(FATAL_ERROR "xtc_add_kernel(${target}): STUB names one stub; use one call per source to name several")
  endif()
  if(NOT TARGET xtc::xtc)
    message(FATAL_ERROR "xtc_add_kernel(${target}): no xtc::xtc target (call find_package(xtc) first)")
  endif()

  set(outdir ${CMAKE_CURRENT_BINARY_DIR}/xtc_kernels/${target})
  set(extra)
  if(XK_EMULATE_XE)
    list(APPEND extra --emulate-xe)
  endif()
  list(APPEND extra ${XK_OPTIONS})
  set(generated)
  foreach(src IN LISTS XK_SOURCES)
    get_filename_component(abs "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(XK_STUB)
      set(name ${XK_STUB})
    else()
      get_filename_component(name "${src}" NAME_WE)
    endif()
    if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
      message(FATAL_ERROR "xtc_add_kernel(${target}): stub name '${name}' (from ${src}) is not a C identifier; pass STUB")
    endif()
    add_custom_command(
      OUTPUT ${outdir}/${name}.spv ${outdir}/${name}.h ${outdir}/${name}.c
      COMMAND ${CMAKE_COMMAND} -E make_directory ${outdir}
      COMMAND xtc::xtc compile ${abs} -o ${outdir}/${name}.spv --target ${XK_TARGET_DEVICE} --stub ${name} ${extra}
      DEPENDS ${abs} xtc::xtc
      COMMENT "xtc: ${src} -> ${name}.spv + stub ${name}.h/.c (${XK_TARGET_DEVICE})"
      VERBATIM)
    list(APPEND generated ${outdir}/${name}.c ${outdir}/${name}.h)
  endforeach()

  if(NOT TARGET ${target})
    add_library(${target} STATIC)
  endif()
  target_sources(${target} PRIVATE ${generated})
  target_include_directories(${target} PUBLIC ${outdir})
  find_package(Threads REQUIRED)
  target_link_libraries(${target} PUBLIC Threads::Threads)
  if("OPENCL" IN_LIST XK_RUNTIMES)
    find_package(OpenCL REQUIRED)
    target_link_libraries(${target} PUBLIC OpenCL::OpenCL)
  else()
    target_compile_definitions(${target} PUBLIC XTC_STUB_NO_OPENCL)
  endif()
  if("LEVEL_ZERO" IN_LIST XK_RUNTIMES)
    find_library(XTC_ZE_LOADER_LIBRARY ze_loader REQUIRED)
    find_path(XTC_ZE_INCLUDE_DIR level_zero/ze_api.h REQUIRED)
    target_include_directories(${target} PUBLIC ${XTC_ZE_INCLUDE_DIR})
    target_link_libraries(${target} PUBLIC ${XTC_ZE_LOADER_LIBRARY})
  else()
    target_compile_definitions(${target} PUBLIC XTC_STUB_NO_LEVEL_ZERO)
  endif()
endfunction()
