#pragma once
// A small PTX lexer: directives, opcodes, registers, predicates, labels, numbers, comments.

#include <Qsci/qscilexercustom.h>

namespace lowerscope {

class PtxLexer : public QsciLexerCustom {
    Q_OBJECT
public:
    enum Style { Default, Comment, Directive, Opcode, Register, Number, Label, Predicate, String, StyleCount };
    explicit PtxLexer(QObject* parent = nullptr);
    const char* language() const override { return "PTX"; }
    QString description(int style) const override;
    void styleText(int start, int end) override;
    void applyTheme();
};

} // namespace lowerscope
