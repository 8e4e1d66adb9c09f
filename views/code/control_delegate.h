#pragma once
// Paints the SASS table's control-code column: a compact graphic (one box per scoreboard 0..5:
// filled when the instruction waits on it, W/R marks where it sets a write/read barrier; a stall
// bar of 0..15 cycles; a yield dot; four reuse ticks) followed by the text form
// `B0-----:R-:W2:Y:S01` (core/parse/control.h). Works on a SassModel or any proxy chain over one.

#include "core/model.h"

#include <QStyledItemDelegate>

namespace lowerscope {

class ControlDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

    // Width of the graphic part in pixels for a row height (the text starts after it).
    static int graphicWidth(int rowHeight);
    // Paints only the graphic of `control` into `rect` (also used by the screenshot tool).
    static void paintGraphic(QPainter* painter, const QRect& rect, const Control& control, const QPalette& palette);
};

} // namespace lowerscope
