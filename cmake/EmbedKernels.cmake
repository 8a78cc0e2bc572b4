# clcg_embed_kernels(<output.cpp> <kernel.cl>...)
# Turns each OpenCL C file into a byte array plus a name -> source table, compiled into the
# library, so nothing is looked up on disk at run time. Byte arrays, not string literals,
# because MSVC caps string literals at 16380 characters. Regenerated when a .cl changes.
set(CLCG_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_kernels_script.cmake)

function(clcg_embed_kernels output)
  set(sources ${ARGN})
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${output} "-DSOURCES=${sources}" -P ${CLCG_EMBED_SCRIPT}
    DEPENDS ${sources} ${CLCG_EMBED_SCRIPT}
    COMMENT "Embedding OpenCL kernels"
    VERBATIM)
endfunction()
