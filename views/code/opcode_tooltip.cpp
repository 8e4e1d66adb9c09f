#include "views/code/opcode_tooltip.h"

#include "core/parse/control.h"
#include "core/parse/opcodes.h"
#include "views/code/sass_model.h"

#include <QAbstractItemView>
#include <QAbstractProxyModel>
#include <QHelpEvent>
#include <QRegularExpression>
#include <QToolTip>

#include <Qsci/qsciscintilla.h>

namespace lowerscope {

QString sassOpcodeTooltip(const QString& opcode) {
    const QStringList parts = opcode.split(QLatin1Char('.'), Qt::SkipEmptyParts);
    if (parts.isEmpty()) return {};
    const QString mnemonic = parts.front();
    const std::string m = mnemonic.toStdString();
    const OpcodeInfo* info = lookupSassOpcode(m);
    QString html = QStringLiteral("<b>%1</b>").arg(opcode.toHtmlEscaped());
    if (!info) {
        html += QStringLiteral("<br><i>No description of %1 in the opcode table.</i>").arg(mnemonic.toHtmlEscaped());
        return html;
    }
    html += QStringLiteral(" &mdash; %1").arg(QLatin1String(categoryLabel(info->category)));
    if (!info->space.empty()) html += QStringLiteral(" (%1)").arg(QString::fromStdString(info->space).toHtmlEscaped());
    html += QStringLiteral("<br>%1").arg(QString::fromStdString(info->description).toHtmlEscaped());
    QString mods;
    for (int i = 1; i < parts.size(); ++i) {
        const std::string text = explainModifier(m, parts[i].toStdString());
        mods += QStringLiteral("<tr><td><tt>.%1</tt></td><td>%2</td></tr>")
                    .arg(parts[i].toHtmlEscaped(),
                         text.empty() ? QStringLiteral("<i>not documented</i>") : QString::fromStdString(text).toHtmlEscaped());
    }
    if (!mods.isEmpty()) html += QStringLiteral("<table cellspacing=\"2\">%1</table>").arg(mods);
    return html;
}

QString ptxInstructionTooltip(const QString& opcode) {
    if (opcode.isEmpty()) return {};
    const std::string op = opcode.toStdString();
    const std::string* text = lookupPtxInstruction(op);
    if (!text) return {};
    // Say which prefix was documented, so ".nc.f32" reads as covered by "ld.global".
    QStringList parts = opcode.split(QLatin1Char('.'), Qt::SkipEmptyParts);
    QString matched = opcode;
    while (parts.size() > 1) {
        const QString candidate = parts.join(QLatin1Char('.'));
        if (lookupPtxInstruction(candidate.toStdString()) == text) matched = candidate;
        parts.removeLast();
    }
    if (lookupPtxInstruction(parts.join(QLatin1Char('.')).toStdString()) == text) matched = parts.join(QLatin1Char('.'));
    QString html = QStringLiteral("<b>%1</b>").arg(opcode.toHtmlEscaped());
    if (matched != opcode) html += QStringLiteral(" <small>(as <tt>%1</tt>)</small>").arg(matched.toHtmlEscaped());
    html += QStringLiteral("<br>%1").arg(QString::fromStdString(*text).toHtmlEscaped());
    return html;
}

QString controlTooltip(const Control& c) {
    QString html = QStringLiteral("<b><tt>%1</tt></b>").arg(QString::fromStdString(controlText(c)).toHtmlEscaped());
    html += QStringLiteral("<br>stall: %1 cycle%2 before the next instruction of this warp may issue")
                .arg(c.stall).arg(c.stall == 1 ? "" : "s");
    // The text form prints Y exactly when yieldHint is set (see core/parse/control.h).
    html += c.yieldHint ? QStringLiteral("<br>yield: hint to switch to another warp")
                        : QStringLiteral("<br>yield: keep issuing from this warp if possible");
    QStringList waits;
    for (int n = 0; n < 6; ++n)
        if (c.waitMask & (1u << n)) waits << QStringLiteral("SB%1").arg(n);
    html += waits.isEmpty() ? QStringLiteral("<br>waits on: no scoreboard")
                            : QStringLiteral("<br>waits on: %1").arg(waits.join(QStringLiteral(", ")));
    html += c.writeBarrier >= 0 ? QStringLiteral("<br>write barrier: sets SB%1 until the result is written").arg(c.writeBarrier)
                                : QStringLiteral("<br>write barrier: none");
    html += c.readBarrier >= 0 ? QStringLiteral("<br>read barrier: sets SB%1 until the sources are read").arg(c.readBarrier)
                               : QStringLiteral("<br>read barrier: none");
    QStringList reuse;
    for (int n = 0; n < 4; ++n)
        if (c.reuse & (1u << n)) reuse << QString(QChar('a' + n));
    html += reuse.isEmpty() ? QStringLiteral("<br>reuse cache: not used")
                            : QStringLiteral("<br>reuse cache: operand slot %1").arg(reuse.join(QStringLiteral(", ")));
    return html;
}

QString ptxOpcodeOfLine(const QString& line, int* begin, int* end) {
    // An instruction line: optional label `L:`, optional guard `@%p1`/`@!%p1`, then the opcode
    // (letters, digits, '.', '_'), which starts with a lower-case letter (directives start with '.').
    static const QRegularExpression re(
        QStringLiteral("^\\s*(?:[$%\\w]+:\\s*)?(?:@!?%?\\w+\\s+)?([a-z][a-z0-9_]*(?:\\.[a-zA-Z0-9_:]+)*)(?=[\\s;{]|$)"));
    const QRegularExpressionMatch m = re.match(line);
    if (!m.hasMatch()) return {};
    if (begin) *begin = int(m.capturedStart(1));
    if (end) *end = int(m.capturedEnd(1));
    return m.captured(1);
}

const SassInstruction* sassInstructionAt(const QModelIndex& index) {
    QModelIndex idx = index;
    while (idx.isValid()) {
        if (const auto* sass = qobject_cast<const SassModel*>(idx.model())) return sass->instruction(idx.row());
        const auto* proxy = qobject_cast<const QAbstractProxyModel*>(idx.model());
        if (!proxy) return nullptr;
        idx = proxy->mapToSource(idx);
    }
    return nullptr;
}

OpcodeTooltipFilter* OpcodeTooltipFilter::installOnSassView(QAbstractItemView* view, int opcodeColumn, int controlColumn) {
    auto* f = new OpcodeTooltipFilter(view);
    f->m_view = view;
    f->m_opcodeColumn = opcodeColumn;
    f->m_controlColumn = controlColumn;
    view->viewport()->installEventFilter(f);
    return f;
}

OpcodeTooltipFilter* OpcodeTooltipFilter::installOnPtxEditor(QsciScintilla* editor) {
    auto* f = new OpcodeTooltipFilter(editor);
    f->m_editor = editor;
    editor->viewport()->installEventFilter(f);
    return f;
}

QString OpcodeTooltipFilter::tooltipAt(const QPoint& pos) const {
    if (m_view) {
        const QModelIndex index = m_view->indexAt(pos);
        if (!index.isValid()) return {};
        const SassInstruction* ins = sassInstructionAt(index);
        if (!ins) return {};
        if (index.column() == m_opcodeColumn) return sassOpcodeTooltip(QString::fromStdString(ins->opcode));
        if (index.column() == m_controlColumn && ins->hasEncoding) return controlTooltip(ins->control);
        return {};
    }
    if (m_editor) {
        const long position = m_editor->SendScintilla(QsciScintillaBase::SCI_POSITIONFROMPOINTCLOSE,
                                                      static_cast<unsigned long>(pos.x()), static_cast<long>(pos.y()));
        if (position < 0) return {};
        int line = 0, column = 0;
        m_editor->lineIndexFromPosition(int(position), &line, &column);
        int b = 0, e = 0;
        const QString op = ptxOpcodeOfLine(m_editor->text(line), &b, &e);
        // Only over the opcode itself (column is a byte index; PTX is ASCII).
        if (op.isEmpty() || column < b || column > e) return {};
        return ptxInstructionTooltip(op);
    }
    return {};
}

bool OpcodeTooltipFilter::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = tooltipAt(help->pos());
        if (!text.isEmpty()) {
            QToolTip::showText(help->globalPos(), text, qobject_cast<QWidget*>(watched));
            return true;
        }
    }
    return QObject::eventFilter(watched, event);
}

} // namespace lowerscope
