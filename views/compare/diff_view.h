#pragma once
// The compare view: two builds of a kernel side by side. An aligned SASS diff (core/analysis/diff.h) with
// its modes (by opcode / full instruction, register-renaming-insensitive), a difference heat strip
// beside it, next/previous-difference navigation, and below: per-source-line deltas, resource
// deltas (registers, spills, shared, occupancy) and an instruction-mix chart (A vs B bars).
//
// The view holds copies of what it shows (CompareSide), so snapshots may go away under it.

#include "core/build/build.h"
#include "core/model.h"
#include "core/run/profile_document.h"

#include <QString>
#include <QWidget>

#include <memory>
#include <vector>

class QAction;
class QChartView;
class QCheckBox;
class QComboBox;
class QLabel;
class QTableView;
class QTabWidget;
class QToolButton;

namespace lowerscope {

class SassDiffModel;
class LineDeltaModel;
class ResourceDeltaModel;
struct BuildSnapshot;
struct LineDelta;

// One side of the comparison, copied out of a build.
struct CompareSide {
    bool valid = false;
    QString label = QStringLiteral("A");
    QString kernel;          // display name
    QString arch;            // "sm_90"
    SassFunction sass;
    std::string mangled;      // the kernel's symbol
    std::string cubinDigest;  // XXH3-64 hex of the build's cubin (profiles are checked against it)
    Resources resources;
    std::vector<LineAggregate> lines; // per source line (call-site attribution)
    LineAggregate total;
    // Copies kernel `kernelIndex` (clamped; -1 = first) of a successful snapshot; invalid otherwise.
    static CompareSide fromSnapshot(const BuildSnapshot* snapshot, int kernelIndex, const QString& label);
};

// A thin vertical strip: difference density along the diff, click to jump there.
class DiffHeatStrip : public QWidget {
    Q_OBJECT
public:
    explicit DiffHeatStrip(QWidget* parent = nullptr);
    void setRows(int rowCount, std::vector<double> heat);
    void setVisibleRows(int first, int last); // the table's viewport, drawn as a frame
    const std::vector<double>& heat() const { return m_heat; }
    QSize sizeHint() const override { return {18, 200}; }
    QSize minimumSizeHint() const override { return {12, 40}; }

signals:
    void rowRequested(int row);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    int rowAt(int y) const;
    int m_rows = 0;
    std::vector<double> m_heat;
    int m_firstVisible = -1, m_lastVisible = -1;
};

class DiffView : public QWidget {
    Q_OBJECT
public:
    explicit DiffView(QWidget* parent = nullptr);
    ~DiffView() override;

    // Shows A vs B; recomputes the diff, the deltas and the charts. Either side invalid: the view
    // says what is missing.
    void setSides(CompareSide a, CompareSide b);
    // The launch used for occupancy rows in the resource table (0 threads: no occupancy rows).
    void setLaunch(int blockThreads, int dynamicSharedBytes);

    // Diff settings (also in the toolbar).
    void setOpcodeMode(bool byOpcode);
    void setIgnoreRegisterNames(bool ignore);
    void setAlignBySource(bool on);

    // Marks what is shown as out of date ("B is rebuilding…"): a banner above the diff says why.
    // An empty reason removes the mark.
    void setStaleReason(const QString& reason);
    QString staleReason() const { return m_staleReason; }
    bool isStale() const { return !m_staleReason.isEmpty(); }
    QLabel* staleBanner() const { return m_staleBanner; }

    // Navigation: selects and scrolls to the next / previous difference; returns the row or -1.
    int nextDifference();
    int previousDifference();
    int currentRow() const;
    void selectRow(int row);

    const CompareSide& sideA() const { return m_a; }
    const CompareSide& sideB() const { return m_b; }
    SassDiffModel* diffModel() const { return m_diffModel; }
    LineDeltaModel* lineModel() const { return m_lineModel; }
    ResourceDeltaModel* resourceModel() const { return m_resourceModel; }
    QTableView* diffTable() const { return m_table; }
    DiffHeatStrip* heatStrip() const { return m_heat; }
    QChartView* mixChart() const { return m_mixChart; }
    QTabWidget* detailTabs() const { return m_tabs; }
    QLabel* summaryLabel() const { return m_summary; }
    QComboBox* modeCombo() const { return m_mode; }
    QAction* nextDifferenceAction() const { return m_nextAction; }     // Alt+Down
    QAction* previousDifferenceAction() const { return m_prevAction; } // Alt+Up
    QCheckBox* renamingCheck() const { return m_renaming; }
    // Profiles of A and B (either may be null): shown as per-row executed/sample columns of the
    // aligned diff while each fits its side's build (profileDocumentMismatch); otherwise hidden,
    // and profileNote() says why.
    void setProfiles(std::shared_ptr<const ProfileDocument> a, std::shared_ptr<const ProfileDocument> b);
    const QString& profileNote() const { return m_profileNote; }
    // Per-source-line deltas for the Source pane margin (data; the pane draws it).
    const std::vector<LineDelta>& lineDeltas() const;
    // "+2 ins, +5 stall" for a line of the main file, "" when unchanged or without code.
    QString marginTextForLine(int line) const;

signals:
    void diffChanged();             // the diff, deltas and charts were recomputed
    void sourceLineActivated(int line); // a row / line delta was clicked

private:
    void recompute();
    void updateMixChart();
    void updateResources();
    void updateVisibleRange();
    void applyProfiles();

    CompareSide m_a, m_b;
    std::shared_ptr<const ProfileDocument> m_profileA, m_profileB;
    QString m_profileNote;
    int m_blockThreads = 0, m_dynamicShared = 0;
    SassDiffModel* m_diffModel;
    LineDeltaModel* m_lineModel;
    ResourceDeltaModel* m_resourceModel;
    QComboBox* m_mode;
    QCheckBox* m_renaming;
    QCheckBox* m_bySource;
    QToolButton* m_prev;
    QToolButton* m_next;
    QAction* m_nextAction;
    QAction* m_prevAction;
    QLabel* m_summary;
    QLabel* m_staleBanner;
    QString m_staleReason;
    QTableView* m_table;
    DiffHeatStrip* m_heat;
    QTabWidget* m_tabs;
    QTableView* m_lineTable;
    QTableView* m_resourceTable;
    QChartView* m_mixChart;
};

} // namespace lowerscope
