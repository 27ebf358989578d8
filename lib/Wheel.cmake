# Included from lib/CMakeLists.txt after every library is defined.
# The wheel's libSinterCAPI.so (`make wheel`, docs/Wheel.md): the same C API
# with MLIR, LLVM, zlib, zstd and libstdc++ linked in statically from
# Debian's archives, exporting only the sinter_* symbols, so that it loads on
# a machine without LLVM or MLIR (it needs libc and libm only) and its LLVM
# cannot clash with another one in the process (torch's Triton has its own).
# It is linked by hand rather than through the imported MLIR targets, whose
# link interfaces name the shared libLLVM. Built into lib/wheel/ on demand.
find_library(SINTER_STATIC_ZSTD NAMES libzstd.a)
find_library(SINTER_STATIC_Z NAMES libz.a)
find_program(SINTER_LLD NAMES ld.lld ld.lld-22)
# Not in sanitizer builds: Sinter's archives are instrumented there.
if(SINTER_STATIC_ZSTD AND SINTER_STATIC_Z AND NOT SINTER_SANITIZE)
  file(GLOB SINTER_MLIR_ARCHIVES ${LLVM_LIBRARY_DIR}/libMLIR*.a)
  file(GLOB SINTER_LLVM_ARCHIVES ${LLVM_LIBRARY_DIR}/libLLVM*.a)
  get_property(sinter_libs GLOBAL PROPERTY SINTER_EXPORTS)
  set(sinter_archives)
  foreach(lib ${sinter_libs})
    get_target_property(type ${lib} TYPE)
    if(type STREQUAL "STATIC_LIBRARY")
      list(APPEND sinter_archives $<TARGET_FILE:${lib}>)
    endif()
  endforeach()
  set(SINTER_WHEEL_LIB ${SINTER_BINARY_DIR}/lib/wheel/libSinterCAPI.so)
  set(exports ${CMAKE_CURRENT_SOURCE_DIR}/CAPI/exports.map)
  set(fuse_ld)
  if(SINTER_LLD)
    set(fuse_ld -fuse-ld=lld) # ~2 s here, where GNU ld takes ~7 s
  endif()
  add_custom_command(OUTPUT ${SINTER_WHEEL_LIB}
    WORKING_DIRECTORY ${SINTER_BINARY_DIR}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${SINTER_BINARY_DIR}/lib/wheel
    COMMAND ${CMAKE_CXX_COMPILER} -shared ${fuse_ld} -o ${SINTER_WHEEL_LIB}
      $<TARGET_OBJECTS:SinterCAPI>
      -Wl,--start-group ${sinter_archives} ${SINTER_MLIR_ARCHIVES}
      ${SINTER_LLVM_ARCHIVES} -Wl,--end-group
      ${SINTER_STATIC_ZSTD} ${SINTER_STATIC_Z}
      -static-libstdc++ -static-libgcc -Wl,--version-script=${exports}
      -Wl,--gc-sections -Wl,--no-undefined -Wl,-s -lpthread -ldl -lm
    DEPENDS SinterCAPI ${sinter_libs} ${exports}
    COMMENT "Linking the wheel's libSinterCAPI.so (MLIR and LLVM inside)"
    COMMAND_EXPAND_LISTS
    VERBATIM)
  add_custom_target(sinter-wheel-lib DEPENDS ${SINTER_WHEEL_LIB})
endif()
