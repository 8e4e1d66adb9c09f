#include "views/sass_delegate.h"

#include "views/sass_model.h"
#include "views/theme.h"

#include <QPainter>

namespace lowerscope {

void SassDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const {
    if (index.column() != SassModel::LiveColumn) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    // Background (band/highlight/selection) first, then the bar, then the number over it.
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QString text = opt.text;
    opt.text.clear();
    QStyledItemDelegate::paint(painter, opt, QModelIndex());
    const QVariant bg = index.data(Qt::BackgroundRole);
    if (bg.isValid() && !(option.state & QStyle::State_Selected)) painter->fillRect(option.rect, bg.value<QColor>());
    const int live = index.data(SassModel::LiveGprRole).toInt();
    const int maxLive = std::max(1, index.data(SassModel::MaxLiveGprRole).toInt());
    if (live >= 0) {
        QRect r = option.rect.adjusted(2, 3, -2, -3);
        r.setWidth(std::max(1, int(r.width() * double(live) / maxLive)));
        QColor c = Theme::isDark() ? QColor(90, 140, 220) : QColor(80, 130, 210);
        // The kernel's peak stands out: that is where the register count is decided.
        if (live == maxLive) c = Theme::isDark() ? QColor(220, 100, 90) : QColor(215, 80, 60);
        c.setAlpha(150);
        painter->fillRect(r, c);
    }
    painter->setPen(option.palette.color(option.state & QStyle::State_Selected ? QPalette::HighlightedText : QPalette::Text));
    painter->drawText(option.rect.adjusted(4, 0, -4, 0), Qt::AlignRight | Qt::AlignVCenter, text);
}

} // namespace lowerscope
