# Installing Lowerscope (`cmake --install BUILD [--prefix P]`) and packaging it (`cpack -G DEB`):
#   bin/                          lowerscope (GUI), lowerscope-cli, lowerscope-runner
#   share/lowerscope/             the opcode reference table, the panes' help, the example kernels
#                                 with their launch sidecars
#   share/applications/           the desktop entry
#   share/metainfo/               the AppStream metainfo (validated by the install test)
#   share/icons/hicolor/          the icon: scalable SVG and PNGs rendered from it at build time
#   share/man/man1/               man pages made from the programs' own --help (help2man)
# The installed programs find nothing through build-folder paths: tools come from the environment,
# the toolkit and PATH (core/build/toolchain.cpp), the runner from next to the program.
include(GNUInstallDirs)

set(LOWERSCOPE_APP_ID io.github.lowerscope.Lowerscope)
set(_res ${PROJECT_SOURCE_DIR}/resources)

install(TARGETS lowerscope-cli lowerscope-runner RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The injection library of `lowerscope-cli capture`, found by the CLI in ../lib/lowerscope.
install(TARGETS lowerscope_inject LIBRARY DESTINATION lib/lowerscope)
install(FILES ${_res}/opcodes.json DESTINATION ${CMAKE_INSTALL_DATADIR}/lowerscope)
install(DIRECTORY ${_res}/help DESTINATION ${CMAKE_INSTALL_DATADIR}/lowerscope)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/kernels/ DESTINATION ${CMAKE_INSTALL_DATADIR}/lowerscope/kernels
        FILES_MATCHING PATTERN "*.cu" PATTERN "*.cuh" PATTERN "*.json")

if(TARGET lowerscope)
  install(TARGETS lowerscope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(FILES ${_res}/${LOWERSCOPE_APP_ID}.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${_res}/${LOWERSCOPE_APP_ID}.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
  install(FILES ${_res}/icons/lowerscope.svg DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
  # PNG sizes from the SVG, rendered by a small Qt tool at build time (not installed).
  set(_icon_sizes 16 24 32 48 64 128 256)
  set(_icon_args "")
  set(_icon_pngs "")
  foreach(_s ${_icon_sizes})
    set(_png ${CMAKE_BINARY_DIR}/icons/hicolor/${_s}x${_s}/apps/lowerscope.png)
    file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/icons/hicolor/${_s}x${_s}/apps)
    list(APPEND _icon_args ${_s} ${_png})
    list(APPEND _icon_pngs ${_png})
  endforeach()
  add_custom_command(OUTPUT ${_icon_pngs}
    COMMAND lowerscope-render-icon ${_res}/icons/lowerscope.svg ${_icon_args}
    DEPENDS lowerscope-render-icon ${_res}/icons/lowerscope.svg
    COMMENT "Rendering the icon to PNG (${_icon_sizes})")
  add_custom_target(lowerscope_icons ALL DEPENDS ${_icon_pngs})
  install(DIRECTORY ${CMAKE_BINARY_DIR}/icons/hicolor DESTINATION ${CMAKE_INSTALL_DATADIR}/icons)
endif()

# Man pages from --help (cmake/man_pages.cmake); left out, with a note, without help2man.
find_program(HELP2MAN_EXECUTABLE help2man)
if(HELP2MAN_EXECUTABLE)
  set(_man_dir ${CMAKE_BINARY_DIR}/man/man1)
  set(_man_stamp ${CMAKE_BINARY_DIR}/man/pages.stamp)
  set(_man_gui "")
  set(_man_deps lowerscope-cli lowerscope-runner)
  if(TARGET lowerscope)
    set(_man_gui -DGUI=$<TARGET_FILE:lowerscope>)
    list(APPEND _man_deps lowerscope)
  endif()
  add_custom_command(OUTPUT ${_man_stamp}
    COMMAND ${CMAKE_COMMAND} -DHELP2MAN=${HELP2MAN_EXECUTABLE} -DCLI=$<TARGET_FILE:lowerscope-cli>
            -DRUNNER=$<TARGET_FILE:lowerscope-runner> ${_man_gui} -DVERSION=${PROJECT_VERSION}
            -DOUT=${_man_dir} -DSTAMP=${_man_stamp} -P ${PROJECT_SOURCE_DIR}/cmake/man_pages.cmake
    DEPENDS ${_man_deps} ${PROJECT_SOURCE_DIR}/cmake/man_pages.cmake
    COMMENT "Writing the man pages from the programs' --help (help2man)")
  add_custom_target(lowerscope_man ALL DEPENDS ${_man_stamp})
  install(DIRECTORY ${_man_dir} DESTINATION ${CMAKE_INSTALL_MANDIR} FILES_MATCHING PATTERN "*.1")
else()
  message(STATUS "help2man not found: no man pages (Debian package help2man)")
endif()

# ---------------------------------------------------------------- CPack: a Debian package
set(CPACK_PACKAGE_NAME lowerscope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "Lowerscope")
set(CPACK_PACKAGE_CONTACT "Lowerscope maintainers <lowerscope@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "CUDA kernel explorer: what did my kernel become, and what did that cost?")
set(CPACK_PACKAGE_DESCRIPTION
    "Open a .cu file and see its source, PTX and SASS in linked panes, with control codes, dependencies, \
live registers and the control-flow graph; time kernels in a fault-isolated runner and compare builds. \
The CUDA toolkit (nvcc, ptxas, nvdisasm, cuobjdump) is found at run time; timing needs an NVIDIA driver.")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# Run-time libraries (Qt 6, QScintilla, Graphviz, libstdc++ ...) by Debian package name, from the
# binaries themselves (dpkg-shlibdeps). The CUDA toolkit and driver are not package dependencies:
# they are found (toolkit) or loaded (libcuda, CUPTI) at run time, from wherever NVIDIA installed them.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "nvidia-cuda-toolkit")
if(TARGET lowerscope)
  # The platform plugin and the SVG icon engine are loaded at run time, so shlibdeps cannot see them.
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins, libqt6svg6")
endif()
include(CPack)
