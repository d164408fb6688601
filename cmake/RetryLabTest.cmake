# retrylab_add_test(NAME tst_foo SOURCES tst_foo.cpp LIBRARIES RetryLab::Core [GUI])
# One executable per test file. GUI tests run on the offscreen platform so that
# they need no display; every test runs with isolated settings.
function(retrylab_add_test)
    cmake_parse_arguments(ARG "GUI" "NAME;TIMEOUT" "SOURCES;LIBRARIES;LABELS" ${ARGN})
    qt_add_executable(${ARG_NAME} ${ARG_SOURCES})
    set_target_properties(${ARG_NAME} PROPERTIES MACOSX_BUNDLE OFF WIN32_EXECUTABLE OFF)
    target_link_libraries(${ARG_NAME} PRIVATE Qt6::Test RetryLab::Settings ${ARG_LIBRARIES})
    retrylab_share_test_pch(${ARG_NAME} "${ARG_LIBRARIES}")
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

# Parsing Qt's headers is most of what compiling a suite costs, and every suite is
# one file: suites of one folder that link the same libraries share one
# precompiled header of the Qt modules they use, made once by a small donor
# target with exactly their compile flags (GCC refuses a header made with others,
# and QtTest's headers read the folder-specific QT_TESTCASE_* macros).
function(retrylab_share_test_pch target libraries)
    if(CMAKE_DISABLE_PRECOMPILE_HEADERS OR NOT "${libraries}" MATCHES "RetryLab::(Core|Ui)")
        return()
    endif()
    string(MAKE_C_IDENTIFIER "${libraries}" key)
    file(RELATIVE_PATH folder ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
    string(MAKE_C_IDENTIFIER "${folder}" folder)
    set(donor retrylab_pch_${folder}_${key})
    if(NOT TARGET ${donor})
        add_library(${donor} OBJECT ${PROJECT_SOURCE_DIR}/cmake/pch.cpp)
        target_link_libraries(${donor} PRIVATE Qt6::Test RetryLab::Settings ${libraries})
        set(headers <QtCore> <QtNetwork> <QtTest>)
        if("${libraries}" MATCHES "RetryLab::Ui")
            list(APPEND headers <QtGui> <QtWidgets>)
        endif()
        target_precompile_headers(${donor} PRIVATE ${headers})
    endif()
    target_precompile_headers(${target} REUSE_FROM ${donor})
    # A suite includes its own .moc, so AUTOMOC's file is all but empty; loading the
    # precompiled header would cost it more than it saves.
    set_source_files_properties(${CMAKE_CURRENT_BINARY_DIR}/${target}_autogen/mocs_compilation.cpp
        PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
endfunction()
