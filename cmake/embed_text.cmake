# Usage: cmake -DIN=file -DOUT=file.cpp -DSYMBOL=name -P embed_text.cmake
# Writes `namespace lowerscope { extern const char SYMBOL[] = R"...(<contents>)..."; }`.
file(READ "${IN}" _content)
set(_delim "LSEMBED")
file(WRITE "${OUT}" "// Generated from ${IN}; do not edit.\nnamespace lowerscope {\nextern const char ${SYMBOL}[];\nconst char ${SYMBOL}[] = R\"${_delim}(${_content})${_delim}\";\n}\n")
