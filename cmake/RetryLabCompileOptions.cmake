# Every target links retrylab_compile_options: the language level, warnings and
# the Qt strictness macros live here once instead of in global variables.
add_library(retrylab_compile_options INTERFACE)
add_library(RetryLab::CompileOptions ALIAS retrylab_compile_options)

target_compile_features(retrylab_compile_options INTERFACE cxx_std_20)

target_compile_definitions(retrylab_compile_options INTERFACE
    QT_NO_CAST_FROM_ASCII
    QT_NO_CAST_TO_ASCII
    QT_NO_CAST_FROM_BYTEARRAY
    QT_NO_NARROWING_CONVERSIONS_IN_CONNECT
    QT_NO_URL_CAST_FROM_STRING
    QT_USE_QSTRINGBUILDER
    # Q_SIGNALS, Q_SLOTS and Q_EMIT only: no macro named like a word.
    QT_NO_KEYWORDS)

if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(retrylab_compile_options INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
        # A precompiled header made with other flags is silently ignored; this
        # makes a broken REUSE_FROM (see RetryLabModule.cmake) an error in CI.
        $<$<CXX_COMPILER_ID:GNU>:-Winvalid-pch>)
    if(RETRYLAB_WERROR)
        target_compile_options(retrylab_compile_options INTERFACE -Werror)
    endif()
    # gold links the hundred-odd suites three times faster than the default ld.bfd,
    # most of what a rebuild after an edit waits for (binutils ships it with gcc).
    if(RETRYLAB_FAST_LINKER AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
        include(CheckLinkerFlag)
        check_linker_flag(CXX -fuse-ld=gold RETRYLAB_HAVE_GOLD)
        if(RETRYLAB_HAVE_GOLD)
            target_link_options(retrylab_compile_options INTERFACE -fuse-ld=gold)
        endif()
    endif()
    if(RETRYLAB_SANITIZE)
        target_compile_options(retrylab_compile_options INTERFACE
            -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
        target_link_options(retrylab_compile_options INTERFACE -fsanitize=address,undefined)
    endif()
endif()

# Fuzzing: every library is built with libFuzzer's coverage hooks and with
# AddressSanitizer + UndefinedBehaviorSanitizer, so that the fuzz targets in
# fuzz/ find memory errors and undefined behaviour, not only crashes.
if(RETRYLAB_FUZZ)
    if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
        message(FATAL_ERROR "RETRYLAB_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++")
    endif()
    target_compile_options(retrylab_compile_options INTERFACE
        -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g)
    target_link_options(retrylab_compile_options INTERFACE -fsanitize=address,undefined)
endif()
