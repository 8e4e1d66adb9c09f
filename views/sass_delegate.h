#pragma once
// Paints the SASS table's special cells: the live-register bar (LiveColumn) and the category
// colour of the opcode. Everything else is the styled default.

#include <QStyledItemDelegate>

namespace lowerscope {

class SassDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

} // namespace lowerscope
