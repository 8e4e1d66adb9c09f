#pragma once
// Paints the SASS table's special cells: the live-register bar (LiveColumn), the stall-sample bar
// stacked by reason (StallsColumn) and the category colour of the opcode; a header's "file:line"
// too long for the Line column loses the middle of its file name, never its line. Everything else
// is the styled default.

#include <QStyledItemDelegate>

namespace lowerscope {

class SassDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    // The text the cell at `index` shows in `option.rect` (the Line column's label elided).
    QString shownText(const QStyleOptionViewItem& option, const QModelIndex& index) const;
    // "file:line" in `width` pixels: the line whole, the file name elided in the middle.
    static QString elideSourceLabel(const QString& label, const QFontMetrics& fm, int width);

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override;

private:
    // The cell's background (band, highlight, selection) without its text; returns the text.
    QString paintBackground(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const;
};

} // namespace lowerscope
