#include "views/code/control_delegate.h"

#include "core/parse/control.h"
#include "views/code/opcode_tooltip.h"

#include <QApplication>
#include <QPainter>

namespace lowerscope {

namespace {
// One colour per scoreboard, the same in every row, so a W2 and the later B--2 wait match by eye.
QColor scoreboardColor(int n) {
    static const QColor colors[6] = {QColor(66, 133, 244), QColor(219, 68, 55), QColor(15, 157, 88),
                                     QColor(171, 71, 188), QColor(244, 160, 0), QColor(0, 172, 193)};
    return colors[n % 6];
}
} // namespace

int ControlDelegate::graphicWidth(int rowHeight) {
    const int box = std::max(5, rowHeight - 8);
    return 6 * (box + 2) + 6 + 32 + 4 + 4 * 3 + 6;
}

void ControlDelegate::paintGraphic(QPainter* p, const QRect& r, const Control& c, const QPalette& pal) {
    p->save();
    p->setRenderHint(QPainter::Antialiasing, false);
    const int box = std::max(5, r.height() - 8);
    const int top = r.top() + (r.height() - box) / 2;
    int x = r.left() + 2;
    const QColor frame = pal.color(QPalette::Text).lighter(160);
    for (int n = 0; n < 6; ++n) {
        const QRect b(x, top, box, box);
        const QColor col = scoreboardColor(n);
        if (c.waitMask & (1u << n)) p->fillRect(b, col);
        p->setPen(c.writeBarrier == n || c.readBarrier == n ? col.darker(130) : frame);
        p->drawRect(b.adjusted(0, 0, -1, -1));
        // W: a bar over the box; R: a bar under it (the instruction sets that scoreboard).
        if (c.writeBarrier == n) p->fillRect(QRect(b.left(), b.top() - 2, box, 2), col);
        if (c.readBarrier == n) p->fillRect(QRect(b.left(), b.bottom() + 1, box, 2), col);
        x += box + 2;
    }
    x += 4;
    // Stall bar, 0..15 cycles over 32 px, with tick marks every 4 cycles.
    const QRect bar(x, top, 32, box);
    p->setPen(frame);
    p->drawRect(bar.adjusted(0, 0, -1, -1));
    const int w = c.stall * 30 / 15;
    QColor stallColor = c.stall >= 8 ? QColor(215, 60, 40) : c.stall >= 4 ? QColor(230, 160, 30) : QColor(90, 160, 90);
    if (w > 0) p->fillRect(QRect(bar.left() + 1, bar.top() + 1, w, box - 2), stallColor);
    x += 32 + 4;
    // Yield dot: drawn when the text form says Y (Control::yieldHint).
    if (c.yieldHint) {
        p->setRenderHint(QPainter::Antialiasing, true);
        p->setPen(Qt::NoPen);
        p->setBrush(pal.color(QPalette::Text));
        p->drawEllipse(QRectF(x, top + box / 2.0 - 2, 4, 4));
    }
    x += 6;
    for (int n = 0; n < 4; ++n) {
        if (c.reuse & (1u << n)) p->fillRect(QRect(x, top + 1, 2, box - 2), QColor(120, 120, 200));
        x += 3;
    }
    p->restore();
}

void ControlDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const {
    const SassInstruction* ins = sassInstructionAt(index);
    if (!ins || !ins->hasEncoding) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    QStyleOptionViewItem opt(option);
    initStyleOption(&opt, index);
    const QString text = opt.text;
    opt.text.clear();
    const QWidget* widget = option.widget;
    QStyle* style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget); // background + selection
    const int gw = graphicWidth(option.rect.height());
    paintGraphic(painter, QRect(option.rect.left(), option.rect.top(), gw, option.rect.height()), ins->control, option.palette);
    painter->save();
    painter->setFont(opt.font);
    painter->setPen(opt.palette.color(opt.state & QStyle::State_Selected ? QPalette::HighlightedText : QPalette::Text));
    painter->drawText(option.rect.adjusted(gw + 2, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, text);
    painter->restore();
}

QSize ControlDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const {
    QSize s = QStyledItemDelegate::sizeHint(option, index);
    s.setWidth(s.width() + graphicWidth(s.height()));
    return s;
}

} // namespace lowerscope
