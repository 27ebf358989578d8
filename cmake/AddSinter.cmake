# Thin wrappers over MLIR's CMake functions: Sinter's libraries are installed
# and exported in SinterTargets (consumed through find_package(Sinter)), not
# in MLIR's export set.

function(add_sinter_library name)
  add_mlir_library(${name} DISABLE_INSTALL ${ARGN})
  set_property(GLOBAL APPEND PROPERTY SINTER_EXPORTS ${name})
endfunction()

function(add_sinter_dialect_library name)
  add_mlir_dialect_library(${name} DISABLE_INSTALL ${ARGN})
  set_property(GLOBAL APPEND PROPERTY SINTER_EXPORTS ${name})
endfunction()
