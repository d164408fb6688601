# retrylab_add_test(NAME tst_foo SOURCES tst_foo.cpp LIBRARIES RetryLab::Core [GUI])
# One executable per test file. GUI tests run on the offscreen platform so that
# they need no display; every test runs with isolated settings.
function(retrylab_add_test)
    cmake_parse_arguments(ARG "GUI" "NAME;TIMEOUT" "SOURCES;LIBRARIES;LABELS" ${ARGN})
    qt_add_executable(${ARG_NAME} ${ARG_SOURCES})
    set_target_properties(${ARG_NAME} PROPERTIES MACOSX_BUNDLE OFF WIN32_EXECUTABLE OFF)
    target_link_libraries(${ARG_NAME} PRIVATE Qt6::Test RetryLab::Settings ${ARG_LIBRARIES})
    add_test(NAME ${ARG_NAME} COMMAND ${ARG_NAME})
    set(env "QT_LOGGING_RULES=retrylab.*.debug=false")
    if(ARG_GUI)
        list(APPEND env "QT_QPA_PLATFORM=offscreen")
    endif()
    if(NOT ARG_TIMEOUT)
        set(ARG_TIMEOUT 300)
    endif()
    set_tests_properties(${ARG_NAME} PROPERTIES
        ENVIRONMENT "${env}"
        TIMEOUT ${ARG_TIMEOUT}
        LABELS "${ARG_LABELS}")
endfunction()
