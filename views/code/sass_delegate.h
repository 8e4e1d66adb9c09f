#pragma once
// Paints the SASS table's special cells: the live-register bar (LiveColumn), the stall-sample bar
// stacked by reason (StallsColumn) and the category colour of the opcode. Everything else is the
// styled default.

#include <QStyledItemDelegate>

namespace lowerscope {

class SassDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;

private:
    // The cell's background (band, highlight, selection) without its text; returns the text.
    QString paintBackground(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const;
};

} // namespace lowerscope
