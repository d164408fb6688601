# retrylab_add_module(NAME Policy SOURCES ... LIBRARIES RetryLab::Http Qt6::Network [PCH core|gui])
#
# One module = one folder = one library, retrylab_<name> with the alias
# RetryLab::<Name>. LIBRARIES are linked PUBLIC (a module's headers expose its
# dependencies' types); they are the module's allowed dependencies, and a suite
# that links only this module fails to link if the module reaches past them.
# Headers are included with their folder from the source root:
# #include "core/policy/backoffpolicy.h".
# The libraries are static, except where RETRYLAB_LIBRARY_TYPE says SHARED: the
# asan preset, whose two hundred suites would otherwise each carry an instrumented
# copy of the libraries they link (a hundred to three hundred megabytes a suite,
# seventeen gigabytes in all, and as many minutes of linking).
set(RETRYLAB_LIBRARY_TYPE STATIC CACHE STRING "STATIC or SHARED: how the modules are built")
set_property(CACHE RETRYLAB_LIBRARY_TYPE PROPERTY STRINGS STATIC SHARED)
# The asan preset builds the libraries as unity batches, which parse Qt's headers
# once per sixteen files: a precompiled header there costs more than it saves.
# The suites, one file each, keep theirs (retrylab_share_test_pch()).
option(RETRYLAB_LIBRARY_PCH "Precompiled headers for the libraries and programs" ON)

function(retrylab_add_module)
    cmake_parse_arguments(ARG "" "NAME;PCH" "SOURCES;LIBRARIES" ${ARGN})
    string(TOLOWER "${ARG_NAME}" lower)
    set(target retrylab_${lower})
    qt_add_library(${target} ${RETRYLAB_LIBRARY_TYPE} ${ARG_SOURCES})
    add_library(RetryLab::${ARG_NAME} ALIAS ${target})
    target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR})
    target_link_libraries(${target} PUBLIC ${ARG_LIBRARIES} PRIVATE RetryLab::CompileOptions)
    if(ARG_PCH)
        retrylab_reuse_pch(${target} ${ARG_PCH})
    endif()
    # For tests/structure: which folder is this module, and what may it include.
    file(RELATIVE_PATH folder ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
    set_target_properties(${target} PROPERTIES RETRYLAB_FOLDER "${folder}" RETRYLAB_DEPENDS "${ARG_LIBRARIES}")
    set_property(GLOBAL APPEND PROPERTY RETRYLAB_MODULES ${target})
endfunction()

# Writes one line per module to `file`: its folder, then the folders of every
# module it may include (its LIBRARIES, followed transitively).
function(retrylab_write_module_graph file)
    get_property(modules GLOBAL PROPERTY RETRYLAB_MODULES)
    set(text "")
    foreach(module ${modules})
        set(pending ${module})
        set(seen "")
        while(pending)
            list(POP_FRONT pending current)
            get_target_property(depends ${current} RETRYLAB_DEPENDS)
            foreach(dependency ${depends})
                if(dependency MATCHES "^RetryLab::")
                    get_target_property(real ${dependency} ALIASED_TARGET)
                    if(NOT real IN_LIST seen)
                        list(APPEND seen ${real})
                        list(APPEND pending ${real})
                    endif()
                endif()
            endforeach()
        endwhile()
        get_target_property(folder ${module} RETRYLAB_FOLDER)
        set(line "${folder}")
        foreach(dependency ${seen})
            get_target_property(dependencyFolder ${dependency} RETRYLAB_FOLDER)
            string(APPEND line " ${dependencyFolder}")
        endforeach()
        string(APPEND text "${line}\n")
    endforeach()
    file(GENERATE OUTPUT ${file} CONTENT "${text}")
endfunction()

# Parsing Qt's headers is most of what compiling a file costs. The libraries that
# link the same Qt modules share one precompiled header of them, made once by a
# small donor target with exactly their compile flags (GCC ignores a header made
# with other macros; -Winvalid-pch turns that into an error).
#   core: Qt Core + Network (the core modules, the session and the CLI)
#   gui:  Qt Core + Network + Gui + Widgets + Charts (the widgets and the app)
function(retrylab_reuse_pch target kind)
    if(CMAKE_DISABLE_PRECOMPILE_HEADERS OR NOT RETRYLAB_LIBRARY_PCH)
        return()
    endif()
    set(donor retrylab_pch_${kind})
    if(NOT TARGET ${donor})
        add_library(${donor} OBJECT ${PROJECT_SOURCE_DIR}/cmake/pch.cpp)
        target_link_libraries(${donor} PRIVATE RetryLab::CompileOptions)
        if(kind STREQUAL "core")
            target_link_libraries(${donor} PRIVATE Qt6::Core Qt6::Network)
            target_precompile_headers(${donor} PRIVATE <QtCore> <QtNetwork>)
        elseif(kind STREQUAL "gui")
            target_link_libraries(${donor} PRIVATE Qt6::Core Qt6::Network Qt6::Widgets Qt6::Charts)
            target_precompile_headers(${donor} PRIVATE <QtCore> <QtNetwork> <QtGui> <QtWidgets>)
        else()
            message(FATAL_ERROR "retrylab_reuse_pch: unknown kind ${kind}")
        endif()
    endif()
    target_precompile_headers(${target} REUSE_FROM ${donor})
endfunction()
