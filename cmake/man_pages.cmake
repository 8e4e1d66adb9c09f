# Writes the man pages of the installed programs from their own --help (cmake -P, at build time):
# lowerscope-cli.1, one lowerscope-cli-COMMAND.1 per subcommand that `lowerscope-cli --help` lists,
# lowerscope-runner.1 and, when GUI is given, lowerscope.1. Nothing is written twice: the pages are
# whatever the programs say of themselves. Then touches STAMP.
#   cmake -DHELP2MAN=... -DCLI=... -DRUNNER=... [-DGUI=...] -DVERSION=0.1.0 -DOUT=dir -DSTAMP=file -P man_pages.cmake
foreach(_v HELP2MAN CLI RUNNER VERSION OUT STAMP)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "man_pages.cmake: ${_v} is not set")
  endif()
endforeach()
set(ENV{QT_QPA_PLATFORM} offscreen) # the GUI prints its help without a display
file(MAKE_DIRECTORY "${OUT}")
file(GLOB _old "${OUT}/*.1")
if(_old)
  file(REMOVE ${_old})
endif()

# help2man with the version given (subcommands and the runner's --version say nothing else), the
# info page reference left out (there is none), and a man page NAME/title fixed up for subcommands.
function(_page prog help_option name section_title out)
  execute_process(
    COMMAND "${HELP2MAN}" --no-info --no-discard-stderr "--version-string=${VERSION}"
            "--help-option=${help_option}" "--name=${name}" --section=1 --output=${out} "${prog}"
    RESULT_VARIABLE _rc ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "help2man failed for ${prog} ${help_option}: ${_err}")
  endif()
  if(section_title)
    file(READ "${out}" _text)
    get_filename_component(_base "${prog}" NAME)
    string(TOUPPER "${_base}" _upper)
    string(TOUPPER "${section_title}" _title)
    string(REPLACE ".TH ${_upper} " ".TH ${_title} " _text "${_text}")
    string(REPLACE "\n${_base} \\- " "\n${section_title} \\- " _text "${_text}")
    file(WRITE "${out}" "${_text}")
  endif()
endfunction()

execute_process(COMMAND "${CLI}" --help OUTPUT_VARIABLE _help RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${CLI} --help failed (${_rc})")
endif()
# "Subcommands:" then two-space-indented "NAME   description" lines (CLI11's layout).
string(FIND "${_help}" "Subcommands:" _at)
if(_at LESS 0)
  message(FATAL_ERROR "${CLI} --help lists no subcommands")
endif()
string(SUBSTRING "${_help}" ${_at} -1 _subs)
string(REPLACE "\n" ";" _lines "${_subs}")
set(_commands "")
set(_see_also "")
foreach(_line IN LISTS _lines)
  if(_line MATCHES "^  ([a-z][a-z0-9-]*)  +(.*)$")
    set(_cmd "${CMAKE_MATCH_1}")
    # The description's first sentence is the page's NAME line.
    string(REGEX REPLACE "[.;:].*$" "" _what "${CMAKE_MATCH_2}")
    _page("${CLI}" "${_cmd} --help" "${_what}" "lowerscope-cli-${_cmd}" "${OUT}/lowerscope-cli-${_cmd}.1")
    list(APPEND _commands "${_cmd}")
  endif()
endforeach()
if(NOT _commands)
  message(FATAL_ERROR "no subcommand found in ${CLI} --help")
endif()
_page("${CLI}" "--help" "CUDA kernel explorer, command line: build, inspect, time and compare kernels" ""
      "${OUT}/lowerscope-cli.1")
_page("${RUNNER}" "--help" "the Lowerscope process that launches and times kernels on the GPU" ""
      "${OUT}/lowerscope-runner.1")
if(GUI)
  _page("${GUI}" "--help" "CUDA kernel explorer: source, PTX and SASS in linked panes" "" "${OUT}/lowerscope.1")
endif()
list(LENGTH _commands _n)
file(WRITE "${STAMP}" "${_n} subcommand pages: ${_commands}\n")
