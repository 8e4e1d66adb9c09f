#include "views/code/pressure_strip.h"

#include <QAbstractItemView>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>

#include <algorithm>
#include <map>

namespace lowerscope {

std::vector<int> maxPool(const std::vector<int>& values, int buckets) {
    std::vector<int> out;
    const size_t n = values.size();
    if (buckets <= 0 || n == 0) return out;
    out.assign(size_t(buckets), -1);
    for (size_t b = 0; b < size_t(buckets); ++b) {
        size_t lo = b * n / size_t(buckets);
        size_t hi = (b + 1) * n / size_t(buckets);
        if (hi <= lo) hi = std::min(n, lo + 1); // more pixels than values: repeat the value
        if (lo >= n) lo = n - 1;
        int m = -1;
        for (size_t i = lo; i < hi; ++i) m = std::max(m, values[i]);
        out[b] = m;
    }
    return out;
}

int argMax(const std::vector<int>& values) {
    int best = -1;
    for (size_t i = 0; i < values.size(); ++i)
        if (values[i] >= 0 && (best < 0 || values[i] > values[size_t(best)])) best = int(i);
    return best;
}

std::vector<int> findPeaks(const std::vector<int>& raw, int minProminence) {
    const int n = int(raw.size());
    std::vector<int> peaks;
    if (n == 0) return peaks;
    std::vector<int> v(raw);
    for (int& x : v) x = std::max(x, 0);
    // Nearest strictly greater value on each side (monotonic stacks), and the minimum of the
    // values between it and each element (leftMin[i] over (prevGreater, i], rightMin[i] over
    // [i, nextGreater)): the elements an index pops cover exactly that range, so their own
    // minima combine into it. O(n); a 100k-row listing loads without a sparse table.
    std::vector<int> prevGreater(size_t(n), -1), nextGreater(size_t(n), n);
    std::vector<int> leftMin(size_t(n), 0), rightMin(size_t(n), 0);
    std::vector<int> stack;
    for (int i = 0; i < n; ++i) {
        int m = v[size_t(i)];
        while (!stack.empty() && v[size_t(stack.back())] <= v[size_t(i)]) {
            m = std::min(m, leftMin[size_t(stack.back())]);
            stack.pop_back();
        }
        prevGreater[size_t(i)] = stack.empty() ? -1 : stack.back();
        leftMin[size_t(i)] = m;
        stack.push_back(i);
    }
    stack.clear();
    for (int i = n - 1; i >= 0; --i) {
        int m = v[size_t(i)];
        while (!stack.empty() && v[size_t(stack.back())] <= v[size_t(i)]) {
            m = std::min(m, rightMin[size_t(stack.back())]);
            stack.pop_back();
        }
        nextGreater[size_t(i)] = stack.empty() ? n : stack.back();
        rightMin[size_t(i)] = m;
        stack.push_back(i);
    }
    for (int p = 0; p < n;) {
        int q = p;
        while (q + 1 < n && v[size_t(q + 1)] == v[size_t(p)]) ++q;
        const bool leftLower = p == 0 || v[size_t(p - 1)] < v[size_t(p)];
        const bool rightLower = q == n - 1 || v[size_t(q + 1)] < v[size_t(p)];
        if (leftLower && rightLower) {
            const int height = v[size_t(p)];
            // Outside the listing counts as 0 live registers: a side that never meets a higher
            // value drops to 0, so the highest peak's prominence is its height.
            const int leftBase = prevGreater[size_t(p)] < 0 ? 0 : leftMin[size_t(p)];
            const int rightBase = nextGreater[size_t(q)] >= n ? 0 : rightMin[size_t(q)];
            if (height - std::max(leftBase, rightBase) >= minProminence) peaks.push_back(p);
        }
        p = q + 1;
    }
    return peaks;
}

int adjacentPeak(const std::vector<int>& peaks, int current, int direction) {
    if (direction > 0) {
        auto it = std::upper_bound(peaks.begin(), peaks.end(), current);
        return it == peaks.end() ? -1 : *it;
    }
    auto it = std::lower_bound(peaks.begin(), peaks.end(), current);
    return it == peaks.begin() ? -1 : *(it - 1);
}

std::vector<std::pair<int, QString>> lineMarginTexts(const std::vector<LineAggregate>& lines,
                                                     const std::function<bool(const std::string&)>& isMainFile) {
    std::map<int, std::pair<int, int>> byLine; // line → (max live, stall sum)
    for (const LineAggregate& a : lines) {
        if (a.line <= 0 || (isMainFile && !isMainFile(a.file))) continue;
        auto [it, fresh] = byLine.try_emplace(a.line, a.maxLiveGpr, a.stallCycles);
        if (!fresh) {
            it->second.first = std::max(it->second.first, a.maxLiveGpr);
            it->second.second += a.stallCycles;
        }
    }
    std::vector<std::pair<int, QString>> out;
    out.reserve(byLine.size());
    for (const auto& [line, v] : byLine)
        out.emplace_back(line, QStringLiteral("R%1 S%2").arg(v.first, 3).arg(v.second, 3));
    return out;
}

QColor pressureColor(double f) {
    f = std::clamp(f, 0.0, 1.0);
    // Three stops keep low pressure quiet and make the top stand out.
    const QColor a(70, 110, 190), b(240, 200, 60), c(215, 40, 40);
    auto mix = [](const QColor& x, const QColor& y, double t) {
        return QColor::fromRgbF(float(x.redF() + (y.redF() - x.redF()) * t), float(x.greenF() + (y.greenF() - x.greenF()) * t),
                                float(x.blueF() + (y.blueF() - x.blueF()) * t));
    };
    return f < 0.5 ? mix(a, b, f * 2) : mix(b, c, (f - 0.5) * 2);
}

PressureStrip::PressureStrip(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Expanding);
    setCursor(Qt::PointingHandCursor);
    setToolTip(tr("Register pressure (live GPRs): click to jump"));
}

void PressureStrip::setValues(std::vector<int> live, int scaleMax, const QString& unit) {
    m_values = std::move(live);
    m_unit = unit;
    setToolTip(tr("Register pressure (live %1): click to jump").arg(m_unit));
    const int top = argMax(m_values);
    m_scaleMax = scaleMax > 0 ? scaleMax : (top >= 0 ? m_values[size_t(top)] : 0);
    // A peak must rise a few registers above its surroundings to be worth a keystroke.
    m_peaks = findPeaks(m_values, std::max(2, m_scaleMax / 16));
    repool();
    update();
}

void PressureStrip::setView(QAbstractItemView* view) {
    if (m_view) disconnect(m_view->verticalScrollBar(), nullptr, this, nullptr);
    m_view = view;
    if (view) {
        connect(view->verticalScrollBar(), &QScrollBar::valueChanged, this, qOverload<>(&QWidget::update));
        connect(view->verticalScrollBar(), &QScrollBar::rangeChanged, this, qOverload<>(&QWidget::update));
    }
    update();
}

void PressureStrip::setCurrentRow(int row) { m_current = row; }

void PressureStrip::repool() { m_pooled = maxPool(m_values, std::max(1, height() - 2)); }

void PressureStrip::resizeEvent(QResizeEvent*) { repool(); }

int PressureStrip::rowAtY(int y) const {
    const int n = int(m_values.size());
    const int h = std::max(1, height() - 2);
    if (n == 0) return -1;
    const int b = std::clamp(y - 1, 0, h - 1);
    int lo = int(int64_t(b) * n / h), hi = int(int64_t(b + 1) * n / h);
    if (hi <= lo) hi = std::min(n, lo + 1);
    lo = std::min(lo, n - 1);
    int best = lo;
    for (int i = lo; i < hi; ++i)
        if (m_values[size_t(i)] > m_values[size_t(best)]) best = i;
    return best;
}

void PressureStrip::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base).darker(104));
    const int h = int(m_pooled.size());
    const double scale = m_scaleMax > 0 ? m_scaleMax : 1;
    for (int y = 0; y < h; ++y) {
        const int v = m_pooled[size_t(y)];
        if (v < 0) continue;
        p.setPen(pressureColor(v / scale));
        p.drawLine(1, y + 1, width() - 2, y + 1);
    }
    const int n = int(m_values.size());
    if (n > 0 && h > 0) {
        // The maximum gets a tick so "jump to max" has a visible target.
        const int top = argMax(m_values);
        const int ty = 1 + int(int64_t(top) * h / n);
        p.setPen(QPen(palette().color(QPalette::Text), 1));
        p.drawLine(0, ty, 3, ty);
        p.drawLine(width() - 4, ty, width() - 1, ty);
        if (m_view && m_view->model() && m_view->model()->rowCount() > 0) {
            const int rows = m_view->model()->rowCount();
            const int first = std::max(0, m_view->indexAt(QPoint(1, 0)).row());
            int last = m_view->indexAt(QPoint(1, m_view->viewport()->height() - 1)).row();
            if (last < 0) last = rows - 1;
            const int y0 = 1 + int(int64_t(first) * h / rows);
            const int y1 = 1 + int(int64_t(last + 1) * h / rows);
            QColor frame = palette().color(QPalette::Text);
            frame.setAlpha(150);
            p.setPen(frame);
            p.setBrush(Qt::NoBrush);
            p.drawRect(QRect(0, y0, width() - 1, std::max(2, y1 - y0)));
        }
    }
}

void PressureStrip::mousePressEvent(QMouseEvent* event) {
    const int row = rowAtY(int(event->position().y()));
    if (row >= 0) {
        m_current = row;
        emit rowRequested(row);
    }
}

bool PressureStrip::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int row = rowAtY(help->pos().y());
        if (row >= 0 && m_values[size_t(row)] >= 0) {
            QToolTip::showText(help->globalPos(),
                               tr("instruction %1: %2 live %3 (max %4) \u2014 click to jump")
                                   .arg(row).arg(m_values[size_t(row)]).arg(m_unit).arg(m_scaleMax), this);
            return true;
        }
    }
    return QWidget::event(event);
}

void PressureStrip::jumpToMax() {
    const int top = argMax(m_values);
    if (top < 0) return;
    m_current = top;
    emit rowRequested(top);
}

void PressureStrip::jumpToNextPeak() {
    const int p = adjacentPeak(m_peaks, m_current, +1);
    if (p < 0) return;
    m_current = p;
    emit rowRequested(p);
}

void PressureStrip::jumpToPreviousPeak() {
    const int p = adjacentPeak(m_peaks, m_current, -1);
    if (p < 0) return;
    m_current = p;
    emit rowRequested(p);
}

} // namespace lowerscope
