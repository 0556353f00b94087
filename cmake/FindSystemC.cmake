# SystemC ships only a pkg-config file on Debian; wrap it into an imported
# target whose headers are SYSTEM includes (so they do not trip -Werror).
find_package(PkgConfig REQUIRED)
pkg_check_modules(PC_SYSTEMC QUIET IMPORTED_TARGET systemc)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(SystemC REQUIRED_VARS PC_SYSTEMC_FOUND VERSION_VAR PC_SYSTEMC_VERSION)
if(SystemC_FOUND AND NOT TARGET SystemC::systemc)
  add_library(SystemC::systemc INTERFACE IMPORTED)
  target_link_libraries(SystemC::systemc INTERFACE PkgConfig::PC_SYSTEMC)
  get_target_property(_sc_inc PkgConfig::PC_SYSTEMC INTERFACE_INCLUDE_DIRECTORIES)
  if(_sc_inc)
    set_target_properties(SystemC::systemc PROPERTIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${_sc_inc}")
  endif()
endif()
