#pragma once
// Register pressure: a heat strip of live registers per instruction (core/analysis/liveness.h: GPRs,
// predicates or uniform GPRs, one class at a time), drawn
// beside the SASS table's scrollbar, max-pooled to the strip's pixel height; click to jump.
// Plus the pure helpers behind it (pooling, peak finding) and the per-source-line margin text
// ("which lines cost registers / stall cycles?").

#include "core/model.h"

#include <QPointer>
#include <QString>
#include <QWidget>

#include <functional>
#include <utility>
#include <vector>

class QAbstractItemView;

namespace lowerscope {

// Max of `values` over `buckets` equal slices of the index range (bucket b covers
// [b*n/buckets, (b+1)*n/buckets), at least one value each when n >= buckets). Unknown values
// (< 0) are ignored; a bucket with only unknown values is -1. Empty when buckets <= 0 or n == 0.
std::vector<int> maxPool(const std::vector<int>& values, int buckets);

// Index of the first maximum of `values` (ignoring < 0); -1 when none is known.
int argMax(const std::vector<int>& values);

// Peaks of a series: the first index of every plateau that is strictly higher than its nearest
// differing neighbours (the ends count as lower), whose topographic prominence is >=
// minProminence. Prominence: height above the higher of the two lowest points reached on each
// side before a strictly higher value; a side that reaches the end of the series without one
// counts as dropping to 0 (so the highest peak's prominence is its height). Unknown values (< 0)
// count as 0. Ascending. O(n log n).
std::vector<int> findPeaks(const std::vector<int>& values, int minProminence = 1);

// The peak after (direction > 0) or before (direction < 0) index `current`; -1 when none.
int adjacentPeak(const std::vector<int>& peaks, int current, int direction);

// Margin text per source line for the Source pane: "R<max live GPR> S<stall sum>" for each line
// of `lines` whose file `isMainFile` accepts. Pairs (1-based line, text), ascending by line; a
// line that appears under several file spellings keeps the maximum / the sum.
std::vector<std::pair<int, QString>> lineMarginTexts(const std::vector<LineAggregate>& lines,
                                                     const std::function<bool(const std::string&)>& isMainFile);

// The heat strip. Rows are instruction indices (the SASS table's rows when unfiltered).
class PressureStrip : public QWidget {
    Q_OBJECT
public:
    explicit PressureStrip(QWidget* parent = nullptr);

    // Live registers per instruction (-1 unknown), the scale's top (e.g. the registers allocated;
    // 0 = the maximum of the values) and what is counted, for tooltips ("GPRs", "predicates").
    void setValues(std::vector<int> live, int scaleMax = 0, const QString& unit = QStringLiteral("GPRs"));
    const QString& unit() const { return m_unit; }
    int scaleMax() const { return m_scaleMax; }
    const std::vector<int>& values() const { return m_values; }
    const std::vector<int>& peaks() const { return m_peaks; }
    // Follows this view's scrolling to draw the visible range.
    void setView(QAbstractItemView* view);
    // The row a click at strip y would jump to (the hottest instruction under that pixel); -1 none.
    int rowAtY(int y) const;
    // Instruction index of the current position (for next/previous peak); set by the owner.
    void setCurrentRow(int row);
    int currentRow() const { return m_current; }

    QSize sizeHint() const override { return {14, 100}; }
    QSize minimumSizeHint() const override { return {10, 20}; }

public slots:
    void jumpToMax();
    void jumpToNextPeak();
    void jumpToPreviousPeak();

signals:
    void rowRequested(int row); // jump the listing to this instruction

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    bool event(QEvent* event) override;

private:
    void repool();
    QPointer<QAbstractItemView> m_view;
    std::vector<int> m_values;
    std::vector<int> m_peaks;
    std::vector<int> m_pooled;
    int m_scaleMax = 0;
    QString m_unit = QStringLiteral("GPRs");
    int m_current = -1;
};

// Heat colour of a pressure fraction 0..1 (cool blue → yellow → red).
QColor pressureColor(double fraction);

} // namespace lowerscope
