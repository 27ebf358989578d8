# Thin wrappers over MLIR's CMake functions: Sinter's libraries are installed
# and exported in SinterTargets (consumed through find_package(Sinter)), not
# in MLIR's export set.
#
# Every Sinter library compiles with the one precompiled header of
# lib/PrecompiledHeaders.h (SINTER_PRECOMPILED_HEADERS, on by default), built
# by the SinterPrecompiledHeaders target of lib/CMakeLists.txt with the same
# flags. Upstream MLIR's headers are most of a source's compile time.

function(sinter_reuse_precompiled_headers name)
  if(NOT SINTER_PRECOMPILED_HEADERS)
    return()
  endif()
  # add_mlir_library compiles the sources in an object library, obj.<name>.
  set(target ${name})
  if(TARGET obj.${name})
    set(target obj.${name})
  endif()
  target_precompile_headers(${target} REUSE_FROM SinterPrecompiledHeaders)
endfunction()

# NO_PRECOMPILED_HEADERS: a library that must not see MLIR (SinterArtifact,
# which the runtime links without it).
function(add_sinter_library name)
  set(args ${ARGN})
  list(FIND args NO_PRECOMPILED_HEADERS without)
  list(REMOVE_ITEM args NO_PRECOMPILED_HEADERS)
  add_mlir_library(${name} DISABLE_INSTALL ${args})
  set_property(GLOBAL APPEND PROPERTY SINTER_EXPORTS ${name})
  if(without EQUAL -1)
    sinter_reuse_precompiled_headers(${name})
  endif()
endfunction()

function(add_sinter_dialect_library name)
  add_mlir_dialect_library(${name} DISABLE_INSTALL ${ARGN})
  set_property(GLOBAL APPEND PROPERTY SINTER_EXPORTS ${name})
  sinter_reuse_precompiled_headers(${name})
endfunction()
