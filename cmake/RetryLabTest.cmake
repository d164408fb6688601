# retrylab_add_test(NAME tst_foo SOURCES policy/tst_foo.cpp LIBRARIES RetryLab::Policy [GUI] [TIMEOUT s] [LABELS ...])
# One executable per test file, linking the module it tests (and, where the
# suite needs a real peer, the module that provides it, such as the fault
# server). GUI suites run on the offscreen platform so that they need no
# display; every suite runs with isolated settings.
set(RETRYLAB_TEST_TIMEOUT 300 CACHE STRING
    "Seconds a suite may run before CTest stops it (the sanitizer preset raises it)")

function(retrylab_add_test)
    cmake_parse_arguments(ARG "GUI" "NAME;TIMEOUT" "SOURCES;LIBRARIES;LABELS" ${ARGN})
    qt_add_executable(${ARG_NAME} ${ARG_SOURCES})
    # A suite is one file: a unity build would gain nothing, and GCC would take its
    # test class for one defined in a header (-Wsubobject-linkage).
    set_target_properties(${ARG_NAME} PROPERTIES MACOSX_BUNDLE OFF WIN32_EXECUTABLE OFF UNITY_BUILD OFF)
    # Qt Network for every suite: loopback peers, and one precompiled header per folder.
    target_link_libraries(${ARG_NAME} PRIVATE Qt6::Test Qt6::Network RetryLab::CompileOptions ${ARG_LIBRARIES})
    add_test(NAME ${ARG_NAME} COMMAND ${ARG_NAME})
    set(env "QT_LOGGING_RULES=retrylab.*.debug=false")
    if(ARG_GUI)
        list(APPEND env "QT_QPA_PLATFORM=offscreen")
    endif()
    if(NOT ARG_TIMEOUT)
        set(ARG_TIMEOUT ${RETRYLAB_TEST_TIMEOUT})
    endif()
    set_tests_properties(${ARG_NAME} PROPERTIES
        ENVIRONMENT "${env}"
        TIMEOUT ${ARG_TIMEOUT}
        LABELS "${ARG_LABELS}")
    if(ARG_GUI)
        retrylab_share_test_pch(${ARG_NAME} gui)
    elseif(NOT "${ARG_LIBRARIES}" MATCHES "Qt6::Gui")
        retrylab_share_test_pch(${ARG_NAME} core)
    endif()
endfunction()

# Parsing Qt's headers is most of what compiling a suite costs, and every suite is
# one file: the suites registered in one CMakeLists.txt that link the same Qt
# modules share one precompiled header, made once by a small donor target with
# exactly their compile flags (GCC refuses a header made with others, and
# QtTest's headers read the QT_TESTCASE_* macros, which name the folder of the
# CMakeLists.txt). -Winvalid-pch makes a mismatch an error.
function(retrylab_share_test_pch target kind)
    if(CMAKE_DISABLE_PRECOMPILE_HEADERS)
        return()
    endif()
    file(RELATIVE_PATH folder ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
    string(MAKE_C_IDENTIFIER "${folder}" folder)
    set(donor retrylab_pch_${folder}_${kind})
    if(NOT TARGET ${donor})
        add_library(${donor} OBJECT ${PROJECT_SOURCE_DIR}/cmake/pch.cpp)
        target_link_libraries(${donor} PRIVATE Qt6::Test Qt6::Network RetryLab::CompileOptions)
        set(headers <QtCore> <QtNetwork> <QtTest>)
        if(kind STREQUAL "gui")
            target_link_libraries(${donor} PRIVATE Qt6::Widgets Qt6::Charts)
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
