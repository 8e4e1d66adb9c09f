#pragma once
// Opcode documentation for the listing panes: rich-text tooltips built from the opcode reference
// table (core/parse/opcodes.h, resources/opcodes.json), and an event filter that shows them when the
// mouse rests on an opcode in the SASS table or on an instruction in the PTX editor.

#include "core/model.h"

#include <QObject>
#include <QPointer>
#include <QString>

class QAbstractItemView;
class QsciScintilla;

namespace lowerscope {

// Rich text for a SASS opcode with modifiers ("LDG.E.128.CONSTANT"): mnemonic, category, memory
// space, the one-line description and one line per known modifier. Unknown opcodes say so.
QString sassOpcodeTooltip(const QString& opcode);

// Rich text for a PTX instruction ("ld.global.nc.f32"): the longest documented dotted prefix and
// its description. "" when nothing in the table matches.
QString ptxInstructionTooltip(const QString& opcode);

// Rich text explaining one instruction's control bits (stall, yield, barriers, wait mask, reuse).
QString controlTooltip(const Control& control);

// The instruction opcode of one PTX text line ("@%p1 bra.uni $L__BB0_2;" → "bra.uni"), with the
// column range [begin, end) it occupies; "" for directives, labels, comments and blank lines.
QString ptxOpcodeOfLine(const QString& line, int* begin = nullptr, int* end = nullptr);

// Shows opcode tooltips. Install on a SASS table view (its viewport receives the events; the
// column given as `opcodeColumn` gets sassOpcodeTooltip, `controlColumn` (when >= 0)
// controlTooltip of the row's instruction, other cells keep the model's ToolTipRole) or on a
// QsciScintilla PTX editor (the hovered line's opcode). The filter deletes itself with its target.
class OpcodeTooltipFilter : public QObject {
    Q_OBJECT
public:
    static OpcodeTooltipFilter* installOnSassView(QAbstractItemView* view, int opcodeColumn, int controlColumn);
    static OpcodeTooltipFilter* installOnPtxEditor(QsciScintilla* editor);

    // The tooltip text the filter would show at `pos` (viewport coordinates); "" for none. For tests.
    QString tooltipAt(const QPoint& pos) const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    explicit OpcodeTooltipFilter(QObject* parent) : QObject(parent) {}
    QPointer<QAbstractItemView> m_view;
    QPointer<QsciScintilla> m_editor;
    int m_opcodeColumn = -1;
    int m_controlColumn = -1;
};

// The SassInstruction behind an index of a SassModel or of any chain of proxies over one; nullptr
// when the chain does not end in a SassModel or the row is out of range.
const SassInstruction* sassInstructionAt(const QModelIndex& index);

} // namespace lowerscope
