# SPDX-License-Identifier: MIT
# firmware-app/app.cmake - whole-program Cortex-M4 images (included at the end of
# bench/cortex-m4/CMakeLists.txt, after the harness's prerequisites were found):
#
#   demo-nano, demo-full   C library and C++ on one TLSF heap (tlsf_newlib.cpp), with
#                          exceptions, newlib-nano / full newlib, _sbrk a trap;
#   chess-newlib-nano      perft(3) of bench/chess with std::allocator over newlib-nano's
#   chess-newlib-full      malloc / full newlib's malloc (_sbrk serves the arena), and over
#   chess-tlsf             TLSF (tlsf_newlib.cpp: global new/delete and malloc replaced);
#   chess-tlsf-lean        the same with the core's lean configuration (TLSF_STATS=0,
#                          TLSF_CHECKS=0: no statistics, no free-time checks);
#   chess-freertos         FreeRTOS's heap_4 (when FREERTOS_KERNEL_PATH has a kernel);
#   chess-tlsf-cache       TLSF with its front cache (TLSF_M4_APP_CACHE=ON, once the core
#                          has TLSF_CACHE);
#   age-*                  the heap-age run (app_age.cpp) over the same heaps;
#
# Every heap is the same 8 MiB region (app.ld). The perft depth and table mode are
# chosen by the host at run time (app_request, app_report.h).
#
# the host runner tlsf_m4_app (host/m4app.c), the target tlsf_m4_app_report and, with the
# tests, the ctests of test/m4/firmware_app.cmake. See firmware-app/README.md.
get_filename_component(_m4_bin_dir ${TLSF_M4_CC} DIRECTORY)
find_program(TLSF_M4_CXX arm-none-eabi-g++ HINTS ${_m4_bin_dir})
if(NOT TLSF_M4_CXX)
  message(STATUS "Cortex-M4 application images: skipped (arm-none-eabi-g++ not found)")
else()
  set(_app ${CMAKE_CURRENT_SOURCE_DIR}/firmware-app)
  set(_app_out ${CMAKE_CURRENT_BINARY_DIR}/app)
  file(GLOB _app_cpp_headers CONFIGURE_DEPENDS ${TLSF_ROOT}/cpp/include/tlsf/*.hpp
       ${TLSF_ROOT}/bench/chess/include/chess/*.hpp)
  set(_app_werror "")
  if(TLSF_WERROR)
    set(_app_werror -Werror)
  endif()
  set(_app_arch -mcpu=cortex-m4 -mthumb -mfloat-abi=soft -O2 -ffunction-sections
      -fdata-sections -Wall -Wextra -Wpedantic -Wshadow ${_app_werror}
      -DBENCH_TARGET -I${_fw} -I${_app} -I${TLSF_ROOT}/core/include)
  # The TLSF default heap: the region between two linker symbols (app.ld), locked by
  # masking interrupts (inline). demo-full uses the program's own lock hooks instead
  # (TLSF_LOCK_USER, the RTOS shape), so that both kinds of lock are exercised.
  set(_app_region -DTLSF_DEFAULT_HEAP_START=__heap_start -DTLSF_DEFAULT_HEAP_END=__heap_end)
  set(_app_heap ${_app_region} -DTLSF_DEFAULT_HEAP_LOCK=TLSF_LOCK_INTERRUPTS)
  set(_app_heap_user_lock ${_app_region} -DTLSF_DEFAULT_HEAP_LOCK=TLSF_LOCK_USER)
  set(_app_cxx ${_app_arch} -std=gnu++17 -I${TLSF_ROOT}/cpp/include)
  set(_app_link -nostartfiles -L${_fw} -T${_app}/app.ld -Wl,--gc-sections)
  set(_app_deps ${_app}/app.ld ${_fw}/m4.ld ${_app}/app_report.h ${_fw}/bench_api.h
      ${_app_cpp_headers} ${_core_headers})

  # The C parts, each compiled once into a relocatable object (-r): the startup code and
  # the system calls (_sbrk serving the arena or trapping), and the TLSF core.
  set(_app_objects "")
  foreach(serves 0 1)
    set(obj ${_app_out}/platform-sbrk${serves}.o)
    add_custom_command(OUTPUT ${obj}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${_app_out}
      COMMAND ${TLSF_M4_CC} ${_app_arch} -std=c99 -ffreestanding -Wconversion
              -DBENCH_SBRK_SERVES=${serves} -r -nostdlib ${_fw}/startup.c ${_fw}/bench_asm.S
              ${_fw}/syscalls.c ${_app}/app_syscalls.c -o ${obj}
      DEPENDS ${_fw}/startup.c ${_fw}/bench_asm.S ${_fw}/syscalls.c ${_app}/app_syscalls.c
              ${_app_deps}
      COMMENT "Cortex-M4 application platform (sbrk ${serves})" VERBATIM)
    list(APPEND _app_objects ${obj})
  endforeach()
  # The core in the default configuration and in the lean one, each also with the front
  # cache (TLSF_CACHE, TLSF_CACHE_BYTES). A program's translation units must share the
  # core's configuration (the symbols carry it), so each image passes the same switches to
  # its C++ sources.
  option(TLSF_M4_APP_CACHE "Build the chess-tlsf-cache images (core with TLSF_CACHE=1)" ON)
  set(TLSF_M4_APP_CACHE_BYTES 2048 CACHE STRING "TLSF_CACHE_BYTES of chess-tlsf-cache")
  set(_app_lean -DTLSF_STATS=0 -DTLSF_CHECKS=0)
  set(_app_cache -DTLSF_CACHE=1 -DTLSF_CACHE_BYTES=${TLSF_M4_APP_CACHE_BYTES})
  set(_app_core ${_app_out}/tlsf_core.o)
  set(_app_core_lean ${_app_out}/tlsf_core_lean.o)
  set(_app_core_cache ${_app_out}/tlsf_core_cache.o)
  set(_app_core_leancache ${_app_out}/tlsf_core_leancache.o)
  # tlsf_m4_app_core(<object> <definitions>...): the core as one relocatable object.
  function(tlsf_m4_app_core obj)
    add_custom_command(OUTPUT ${obj}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${_app_out}
      COMMAND ${TLSF_M4_CC} ${_app_arch} ${ARGN} -std=c99 -ffreestanding -Wconversion -r
              -nostdlib ${_core_sources} -o ${obj}
      DEPENDS ${_core_sources} ${_core_headers}
      COMMENT "Cortex-M4 application TLSF core ${ARGN}" VERBATIM)
    set(_app_objects ${_app_objects} ${obj} PARENT_SCOPE)
  endfunction()
  tlsf_m4_app_core(${_app_core})
  tlsf_m4_app_core(${_app_core_lean} ${_app_lean})
  if(TLSF_M4_APP_CACHE)
    tlsf_m4_app_core(${_app_core_cache} ${_app_cache})
    tlsf_m4_app_core(${_app_core_leancache} ${_app_cache} ${_app_lean})
  endif()

  # FreeRTOS's heap_4, unmodified from the kernel (FREERTOS_KERNEL_PATH, set in
  # ../CMakeLists.txt), with the benchmark's configuration and kernel stand-ins.
  set(_app_freertos "")
  if(TLSF_M4_FREERTOS)
    set(_app_freertos ${_app_out}/freertos_heap4.o)
    add_custom_command(OUTPUT ${_app_freertos}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${_app_out}
      COMMAND ${TLSF_M4_CC} ${_app_arch} ${TLSF_M4_FREERTOS_INCLUDES} -std=c99 -ffreestanding
              -Wconversion -r -nostdlib ${TLSF_M4_FREERTOS_SOURCES} -o ${_app_freertos}
      DEPENDS ${TLSF_M4_FREERTOS_SOURCES} ${_fw}/freertos/FreeRTOSConfig.h
      COMMENT "Cortex-M4 application FreeRTOS heap_4" VERBATIM)
  endif()

  set(_app_elves "")
  # tlsf_m4_app_image(<name> SOURCES <files> OBJECTS <objs> FLAGS <flags> LIBS <libs>)
  function(tlsf_m4_app_image name)
    cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;OBJECTS;FLAGS;LIBS")
    set(elf ${_app_out}/${name}.elf)
    add_custom_command(OUTPUT ${elf}
      COMMAND ${TLSF_M4_CXX} ${_app_cxx} ${arg_FLAGS} ${arg_SOURCES} ${arg_OBJECTS}
              ${_app_link} ${arg_LIBS} -o ${elf} -Wl,-Map=${_app_out}/${name}.map
      DEPENDS ${arg_SOURCES} ${arg_OBJECTS} ${_app_deps}
      COMMENT "Cortex-M4 application image ${name}" VERBATIM)
    set(_app_elves ${_app_elves} ${elf} PARENT_SCOPE)
  endfunction()

  set(_trap ${_app_out}/platform-sbrk0.o ${_app_core})
  set(_serve ${_app_out}/platform-sbrk1.o)
  # The demo, with exceptions. Debian's libstdc++_nano is built without unwind tables (a
  # throw cannot get through __cxa_throw), so the nano image links newlib-nano's libc with
  # the full libstdc++.
  tlsf_m4_app_image(demo-nano SOURCES ${_app}/app_demo.cpp ${_app}/tlsf_newlib.cpp
    OBJECTS ${_trap} FLAGS ${_app_heap} -DTLSF_NEWLIB_COUNTERS --specs=nano.specs -nodefaultlibs
    LIBS -Wl,--start-group -l:libstdc++.a -lc_nano -lgcc -Wl,--end-group)
  # The same with a direct _sbrk call at the end: must stop in bench_panic (a ctest).
  tlsf_m4_app_image(demo-sbrk-probe SOURCES ${_app}/app_demo.cpp ${_app}/tlsf_newlib.cpp
    OBJECTS ${_trap} FLAGS ${_app_heap} -DTLSF_NEWLIB_COUNTERS -DAPP_PROBE_SBRK)
  tlsf_m4_app_image(demo-full SOURCES ${_app}/app_demo.cpp ${_app}/tlsf_newlib.cpp
    OBJECTS ${_trap} FLAGS ${_app_heap_user_lock} -DTLSF_NEWLIB_COUNTERS)
  # perft(3): the same program over three heaps (TLSF in two configurations).
  set(_chess -fno-exceptions -fno-rtti -I${TLSF_ROOT}/bench/chess/include)
  tlsf_m4_app_image(chess-newlib-nano SOURCES ${_app}/app_chess.cpp OBJECTS ${_serve}
    FLAGS ${_chess} --specs=nano.specs)
  tlsf_m4_app_image(chess-newlib-full SOURCES ${_app}/app_chess.cpp OBJECTS ${_serve}
    FLAGS ${_chess})
  tlsf_m4_app_image(chess-tlsf SOURCES ${_app}/app_chess.cpp ${_app}/tlsf_newlib.cpp
    OBJECTS ${_trap} FLAGS ${_chess} ${_app_heap} -DAPP_TLSF --specs=nano.specs)
  tlsf_m4_app_image(chess-tlsf-lean SOURCES ${_app}/app_chess.cpp ${_app}/tlsf_newlib.cpp
    OBJECTS ${_app_out}/platform-sbrk0.o ${_app_core_lean}
    FLAGS ${_chess} ${_app_heap} ${_app_lean} -DAPP_TLSF --specs=nano.specs)
  set(TLSF_M4_APP_PERFT nano=${_app_out}/chess-newlib-nano.elf
      full=${_app_out}/chess-newlib-full.elf tlsf=${_app_out}/chess-tlsf.elf
      tlsf-lean=${_app_out}/chess-tlsf-lean.elf)
  if(TLSF_M4_APP_CACHE)
    tlsf_m4_app_image(chess-tlsf-cache SOURCES ${_app}/app_chess.cpp ${_app}/tlsf_newlib.cpp
      OBJECTS ${_app_out}/platform-sbrk0.o ${_app_core_cache}
      FLAGS ${_chess} ${_app_heap} ${_app_cache} -DAPP_TLSF --specs=nano.specs)
    tlsf_m4_app_image(chess-tlsf-leancache SOURCES ${_app}/app_chess.cpp
      ${_app}/tlsf_newlib.cpp OBJECTS ${_app_out}/platform-sbrk0.o ${_app_core_leancache}
      FLAGS ${_chess} ${_app_heap} ${_app_cache} ${_app_lean} -DAPP_TLSF --specs=nano.specs)
    list(APPEND TLSF_M4_APP_PERFT tlsf-cache=${_app_out}/chess-tlsf-cache.elf
         tlsf-leancache=${_app_out}/chess-tlsf-leancache.elf)
  endif()
  # Heap age: the same heaps, one run each.
  tlsf_m4_app_image(age-newlib-nano SOURCES ${_app}/app_age.cpp OBJECTS ${_serve}
    FLAGS ${_chess} -DAPP_NEWLIB_NANO --specs=nano.specs)
  tlsf_m4_app_image(age-newlib-full SOURCES ${_app}/app_age.cpp OBJECTS ${_serve}
    FLAGS ${_chess})
  tlsf_m4_app_image(age-tlsf SOURCES ${_app}/app_age.cpp ${_app}/tlsf_newlib.cpp
    OBJECTS ${_trap} FLAGS ${_chess} ${_app_heap} -DAPP_TLSF --specs=nano.specs)
  set(TLSF_M4_APP_AGE nano=${_app_out}/age-newlib-nano.elf full=${_app_out}/age-newlib-full.elf
      tlsf=${_app_out}/age-tlsf.elf)
  if(TLSF_M4_FREERTOS)
    set(_freertos_flags ${TLSF_M4_FREERTOS_INCLUDES} -DAPP_FREERTOS --specs=nano.specs
        -Wl,--defsym=ucHeap=__heap_start)
    tlsf_m4_app_image(chess-freertos SOURCES ${_app}/app_chess.cpp ${_app}/freertos_new.cpp
      OBJECTS ${_app_out}/platform-sbrk0.o ${_app_freertos} FLAGS ${_chess} ${_freertos_flags})
    tlsf_m4_app_image(age-freertos SOURCES ${_app}/app_age.cpp ${_app}/freertos_new.cpp
      OBJECTS ${_app_out}/platform-sbrk0.o ${_app_freertos} FLAGS ${_chess} ${_freertos_flags})
    list(APPEND TLSF_M4_APP_PERFT heap4=${_app_out}/chess-freertos.elf)
    list(APPEND TLSF_M4_APP_AGE heap4=${_app_out}/age-freertos.elf)
  endif()
  add_custom_target(tlsf_m4_app_images ALL DEPENDS ${_app_elves})

  add_executable(tlsf_m4_app host/m4app.c host/elf32.c)
  set_target_properties(tlsf_m4_app PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON
                                               C_EXTENSIONS OFF)
  target_include_directories(tlsf_m4_app PRIVATE host ${_app} ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(tlsf_m4_app PRIVATE PkgConfig::UNICORN)
  tlsf_warnings(tlsf_m4_app)
  add_dependencies(tlsf_m4_app tlsf_m4_app_images)

  set(TLSF_M4_APP_DEMOS ${_app_out}/demo-nano.elf ${_app_out}/demo-full.elf)
  # The pictures of the report (per-call CCDF of both table modes, heap age), when gnuplot
  # is there: build-m4/app/m4-calls-{bounded,everything}.png and m4-age.png.
  find_program(TLSF_GNUPLOT gnuplot)
  set(_app_plots "")
  if(TLSF_GNUPLOT)
    foreach(mode bounded everything)
      list(APPEND _app_plots COMMAND ${TLSF_GNUPLOT} -e "dir='${_app_out}'" -e "mode='${mode}'"
           ${TLSF_ROOT}/scripts/plot_m4_calls.gp)
    endforeach()
    list(APPEND _app_plots COMMAND ${TLSF_GNUPLOT} -e "dir='${_app_out}'"
         ${TLSF_ROOT}/scripts/plot_m4_age.gp)
  endif()
  add_custom_target(tlsf_m4_app_report
    COMMAND tlsf_m4_app --demo ${_app_out}/demo-nano.elf
    COMMAND tlsf_m4_app --demo ${_app_out}/demo-full.elf
    COMMAND tlsf_m4_app --perft --profile ${TLSF_M4_APP_PERFT}
    COMMAND tlsf_m4_app --perft --depths 1-4 --data ${_app_out} ${TLSF_M4_APP_PERFT}
    COMMAND tlsf_m4_app --perft --depths 1-4 --tt-mode everything --data ${_app_out}
            ${TLSF_M4_APP_PERFT}
    COMMAND tlsf_m4_app --age --data ${_app_out} ${TLSF_M4_APP_AGE}
    ${_app_plots}
    DEPENDS tlsf_m4_app tlsf_m4_app_images USES_TERMINAL VERBATIM)

  if(TLSF_M4_TESTS)
    include(${TLSF_ROOT}/test/m4/firmware_app.cmake)
  endif()
endif()
