//===- PrecompiledHeaders.cpp - the precompiled header's own target -------===//
//
// The target that compiles lib/PrecompiledHeaders.h once; every Sinter
// library reuses its precompiled header (cmake/AddSinter.cmake).
//
//===----------------------------------------------------------------------===//
