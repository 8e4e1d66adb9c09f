#include "views/code/sass_delegate.h"

#include "views/code/sass_model.h"
#include "views/common/theme.h"

#include <QApplication>
#include <QPainter>

#include <algorithm>

namespace lowerscope {

namespace {

// A stable colour per stall reason: the few that matter most get fixed hues, the rest a hash.
QColor reasonColor(const QString& reason) {
    static const std::pair<const char*, QColor> fixed[] = {
        {"long_scoreboard", QColor(214, 96, 77)},  {"wait", QColor(240, 170, 60)},
        {"selected", QColor(90, 170, 110)},        {"short_scoreboard", QColor(200, 120, 190)},
        {"mio_throttle", QColor(110, 140, 220)},   {"barrier", QColor(150, 110, 200)},
        {"branch_resolving", QColor(120, 190, 200)}, {"no_instructions", QColor(160, 160, 160)},
        {"math_pipe_throttle", QColor(230, 130, 40)}, {"lg_throttle", QColor(70, 110, 170)}};
    for (const auto& [name, c] : fixed)
        if (reason == QLatin1String(name)) return c;
    return QColor::fromHsv(int(qHash(reason) % 360), 110, 200);
}

} // namespace

QString SassDelegate::elideSourceLabel(const QString& label, const QFontMetrics& fm, int width) {
    if (fm.horizontalAdvance(label) <= width) return label;
    const qsizetype colon = label.lastIndexOf(QLatin1Char(':'));
    if (colon <= 0) return fm.elidedText(label, Qt::ElideMiddle, width);
    const QString line = label.mid(colon);
    return fm.elidedText(label.left(colon), Qt::ElideMiddle, std::max(0, width - fm.horizontalAdvance(line))) + line;
}

void SassDelegate::initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const {
    QStyledItemDelegate::initStyleOption(option, index);
    if (index.column() != SassModel::SourceLineColumn || option->text.isEmpty()) return;
    // The styled item's text margin (QCommonStyle: focus-frame margin + 1 on each side).
    const QStyle* style = option->widget ? option->widget->style() : QApplication::style();
    const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, option->widget) + 1;
    option->text = elideSourceLabel(option->text, option->fontMetrics, option->rect.width() - 2 * margin);
}

QString SassDelegate::shownText(const QStyleOptionViewItem& option, const QModelIndex& index) const {
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    return opt.text;
}

QString SassDelegate::paintBackground(QPainter* painter, const QStyleOptionViewItem& option,
                                      const QModelIndex& index) const {
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QString text = opt.text;
    opt.text.clear();
    QStyledItemDelegate::paint(painter, opt, QModelIndex());
    const QVariant bg = index.data(Qt::BackgroundRole);
    if (bg.isValid() && !(option.state & QStyle::State_Selected)) painter->fillRect(option.rect, bg.value<QColor>());
    return text;
}

void SassDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const {
    if (index.column() == SassModel::StallsColumn) {
        const QString text = paintBackground(painter, option, index);
        // One bar per row, as long as its share of the busiest row's samples, split by reason.
        const double maxRow = double(std::max<qulonglong>(1, index.data(SassModel::MaxRowSamplesRole).toULongLong()));
        // The share and the top reason on the left (room for "100.0% long_scoreboard"), the bar in
        // what is left of the cell.
        const int textWidth = option.fontMetrics.horizontalAdvance(QStringLiteral("100.0% long_scoreboard "));
        const QRect area(option.rect.left() + textWidth, option.rect.top() + 3,
                         std::max(0, option.rect.width() - textWidth - 3), option.rect.height() - 6);
        int x = area.left();
        for (const QVariant& v : index.data(SassModel::StallSamplesRole).toList()) {
            const QVariantList pair = v.toList();
            const int w = int(area.width() * double(pair.value(1).toULongLong()) / maxRow + 0.5);
            if (w <= 0) continue;
            QColor c = reasonColor(pair.value(0).toString());
            c.setAlpha(170);
            painter->fillRect(QRect(x, area.top(), w, area.height()), c);
            x += w;
        }
        painter->setPen(option.palette.color(option.state & QStyle::State_Selected ? QPalette::HighlightedText : QPalette::Text));
        painter->drawText(option.rect.adjusted(4, 0, -4, 0), Qt::AlignLeft | Qt::AlignVCenter, text);
        return;
    }
    if (index.column() != SassModel::LiveColumn) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    // Background (band/highlight/selection) first, then the bar, then the number over it.
    const QString text = paintBackground(painter, option, index);
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
