# cmake -DLUPDATE=... -DSOURCES=LIST_FILE -DOPTIONS=... -DINCLUDE=DIR -DOUTPUT=SCRATCH.ts -P lupdatecheck.cmake
# Runs lupdate as translations/ does, into a scratch file (the committed .ts stays as it is),
# and fails when it prints anything: with -silent, lupdate prints its warnings only.
foreach(variable LUPDATE SOURCES INCLUDE OUTPUT)
    if(NOT ${variable})
        message(FATAL_ERROR "lupdatecheck.cmake: ${variable} is not set")
    endif()
endforeach()
file(REMOVE ${OUTPUT})
execute_process(
    COMMAND ${LUPDATE} -silent ${OPTIONS} -I ${INCLUDE} @${SOURCES} -ts ${OUTPUT}
    RESULT_VARIABLE result
    OUTPUT_VARIABLE out
    ERROR_VARIABLE err)
string(STRIP "${out}${err}" said)
if(NOT result EQUAL 0 OR NOT said STREQUAL "")
    message(FATAL_ERROR "lupdate (exit ${result}) warns, so some tr() has a context lupdate cannot tell; "
        "use the module's Tr struct (Tr::tr) or a Q_OBJECT class's tr():\n${said}")
endif()
file(STRINGS ${OUTPUT} messages REGEX "<source>")
list(LENGTH messages count)
if(count LESS 1000)
    message(FATAL_ERROR "lupdate found only ${count} strings in ${SOURCES}: the list of sources is wrong")
endif()
message(STATUS "lupdate: ${count} strings, no warning")
