# Finds libdeflate (Debian: libdeflate-dev), which ships no CMake package before 1.15, and
# defines Libdeflate::Libdeflate. The static archive is preferred: carried binaries then need no
# libdeflate0 where they run, and Debian's archive is position-independent, so shared builds
# (the Python module) can link it too.
find_path(Libdeflate_INCLUDE_DIR libdeflate.h)
find_library(Libdeflate_LIBRARY NAMES libdeflate.a deflate)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Libdeflate REQUIRED_VARS Libdeflate_LIBRARY Libdeflate_INCLUDE_DIR)
if(Libdeflate_FOUND AND NOT TARGET Libdeflate::Libdeflate)
  add_library(Libdeflate::Libdeflate UNKNOWN IMPORTED)
  set_target_properties(Libdeflate::Libdeflate PROPERTIES IMPORTED_LOCATION "${Libdeflate_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${Libdeflate_INCLUDE_DIR}")
endif()
mark_as_advanced(Libdeflate_INCLUDE_DIR Libdeflate_LIBRARY)
