# Finds SuiteSparse's AMD ordering (Debian: libsuitesparse-dev), which ships no CMake package in
# SuiteSparse 5, and defines SuiteSparse::AMD (AMD and the SuiteSparse_config it calls). The
# shared libraries: Debian's libsuitesparseconfig.a is not position-independent, so the Python
# module could not link it.
find_path(SuiteSparseAmd_INCLUDE_DIR amd.h PATH_SUFFIXES suitesparse)
find_library(SuiteSparseAmd_LIBRARY NAMES amd)
find_library(SuiteSparseAmd_CONFIG_LIBRARY NAMES suitesparseconfig)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(SuiteSparseAmd
  REQUIRED_VARS SuiteSparseAmd_LIBRARY SuiteSparseAmd_CONFIG_LIBRARY SuiteSparseAmd_INCLUDE_DIR)
if(SuiteSparseAmd_FOUND AND NOT TARGET SuiteSparse::AMD)
  add_library(SuiteSparse::Config UNKNOWN IMPORTED)
  set_target_properties(SuiteSparse::Config PROPERTIES IMPORTED_LOCATION "${SuiteSparseAmd_CONFIG_LIBRARY}")
  add_library(SuiteSparse::AMD UNKNOWN IMPORTED)
  set_target_properties(SuiteSparse::AMD PROPERTIES IMPORTED_LOCATION "${SuiteSparseAmd_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${SuiteSparseAmd_INCLUDE_DIR}"
                        INTERFACE_LINK_LIBRARIES SuiteSparse::Config)
endif()
mark_as_advanced(SuiteSparseAmd_INCLUDE_DIR SuiteSparseAmd_LIBRARY SuiteSparseAmd_CONFIG_LIBRARY)
