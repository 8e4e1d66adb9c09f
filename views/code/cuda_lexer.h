#pragma once
// C++ lexer extended with CUDA keywords, built-in variables, types and intrinsics.

#include <Qsci/qscilexercpp.h>

namespace lowerscope {

class CudaLexer : public QsciLexerCPP {
    Q_OBJECT
public:
    explicit CudaLexer(QObject* parent = nullptr);
    const char* language() const override { return "CUDA"; }
    // Set 1: C++ + CUDA keywords; set 2: CUDA built-ins and intrinsics; set 4: vector types.
    const char* keywords(int set) const override;
    void applyTheme();
};

} // namespace lowerscope
