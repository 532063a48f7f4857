# Writes OUTPUT, a C++ file defining `const char* FUNCTION()` that returns the text of INPUT.
file(READ "${INPUT}" content)
set(delimiter "lockstep_embed")
file(WRITE "${OUTPUT}" "// Generated from ${INPUT}; do not edit.\nnamespace lockstep {\nconst char* ${FUNCTION}() {\n  return R\"${delimiter}(${content})${delimiter}\";\n}\n}  // namespace lockstep\n")
