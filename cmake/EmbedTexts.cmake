# lockstep_embed_texts(OUT_VAR DIR file=function ...): for each pair, a generated C++ file defining
# `const char* function()` that returns the text of DIR/file (cmake/embed_text.cmake); the list of
# generated files goes to OUT_VAR, for add_library/add_executable.
function(lockstep_embed_texts out_var dir)
  set(generated)
  foreach(pair ${ARGN})
    string(REPLACE "=" ";" parts ${pair})
    list(GET parts 0 file)
    list(GET parts 1 function)
    set(output ${CMAKE_CURRENT_BINARY_DIR}/${function}.cpp)
    add_custom_command(
      OUTPUT ${output}
      COMMAND ${CMAKE_COMMAND} -DINPUT=${dir}/${file} -DOUTPUT=${output} -DFUNCTION=${function}
              -P ${PROJECT_SOURCE_DIR}/cmake/embed_text.cmake
      DEPENDS ${dir}/${file} ${PROJECT_SOURCE_DIR}/cmake/embed_text.cmake
      COMMENT "Embedding ${file}")
    list(APPEND generated ${output})
  endforeach()
  set(${out_var} ${generated} PARENT_SCOPE)
endfunction()
