#pragma once
// Item models of the compare (A vs B) view, all over data computed by core/analysis/diff.h:
//   * SassDiffModel   — the aligned SASS diff, one row per DiffRow (A column | B column);
//   * LineDeltaModel  — per-source-line deltas (instruction count, stall sum, max live GPRs);
//   * ResourceDeltaModel — registers, spills, shared, local, occupancy of A and B.
// The views only look rows up: alignment, deltas and occupancy come from the core.

#include "core/analysis/diff.h"
#include "core/run/profile_collect.h"

#include <QAbstractTableModel>
#include <QColor>
#include <QString>

#include <memory>
#include <vector>

namespace lowerscope {

// Background colours of the diff statuses (readable under normal text in the current theme).
QColor diffStatusColor(DiffStatus status);

class SassDiffModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { StatusColumn, SourceLineColumn, AddressAColumn, InstructionAColumn, AddressBColumn,
                   InstructionBColumn, ExecutedColumn, SamplesColumn, ColumnCount };
    enum Roles {
        StatusRole = Qt::UserRole + 1, // int(DiffStatus)
        SourceLineRole,                // int, 0 = no line info
        IndexARole,                    // int, instruction index in A, -1 when the row is B only
        IndexBRole,                    // int, instruction index in B, -1 when the row is A only
        ExecutedDeltaRole,             // qlonglong, B − A warp instructions executed (profiles)
        SamplesDeltaRole,              // qlonglong, B − A stall samples (profiles)
    };

    explicit SassDiffModel(QObject* parent = nullptr);

    // Shows `diff` of `a` and `b` (copied; the model owns its data).
    void setDiff(SassDiff diff, SassFunction a, SassFunction b);
    void clear();
    void setLabels(const QString& a, const QString& b);
    // Hardware evidence of both sides on the rows of the current diff (issue 14): executed counts
    // and stall samples per row, A → B (core profileRowDeltas over this diff). Empty = none.
    void setProfileRows(std::vector<ProfileRowDelta> rows);
    bool hasProfiles() const { return m_hasProfiles; }

    const SassDiff& diff() const { return m_diff; }
    const SassFunction& functionA() const { return m_a; }
    const SassFunction& functionB() const { return m_b; }

    // First row of a source line, or an invalid index.
    QModelIndex indexForSourceLine(int line) const;
    int sourceLineForIndex(const QModelIndex& index) const;
    // The row showing instruction `index` of A / B, -1 when out of range.
    int rowForA(int index) const;
    int rowForB(int index) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    SassDiff m_diff;
    SassFunction m_a, m_b;
    QString m_labelA = QStringLiteral("A"), m_labelB = QStringLiteral("B");
    std::vector<int> m_profileOfRow; // row → index into m_profileRows, -1 = nothing executed
    std::vector<ProfileRowDelta> m_profileRows;
    bool m_hasProfiles = false;
};

class LineDeltaModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { LineColumn, InstructionsAColumn, InstructionsBColumn, InstructionsDeltaColumn,
                   StallAColumn, StallBColumn, StallDeltaColumn, LiveAColumn, LiveBColumn, LiveDeltaColumn,
                   ColumnCount };
    enum Roles { SourceLineRole = Qt::UserRole + 1, DeltaRole /* int: the delta of a delta column */ };

    explicit LineDeltaModel(QObject* parent = nullptr);
    void setDeltas(std::vector<LineDelta> deltas);
    const std::vector<LineDelta>& deltas() const { return m_deltas; }
    // The delta of `line` in the main file ("" file matches any), nullptr when the line has no code.
    const LineDelta* deltaForLine(int line) const;
    // Compact margin text for a line: "+2 ins, +5 stall, +3 live", "" when nothing changed.
    static QString marginText(const LineDelta& delta);
    // One compact delta for the Source pane's margin: instructions ("+2i") when they differ,
    // else the stall sum ("-4s"), else max live GPRs ("+3r"); "" when the line is unchanged.
    static QString compactText(const LineDelta& delta);
    QModelIndex indexForSourceLine(int line) const;
    int sourceLineForIndex(const QModelIndex& index) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<LineDelta> m_deltas;
};

class ResourceDeltaModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { NameColumn, AColumn, BColumn, DeltaColumn, ColumnCount };
    enum Roles { DeltaValueRole = Qt::UserRole + 1 /* double, 0 when unknown */ };

    explicit ResourceDeltaModel(QObject* parent = nullptr);
    void setRows(std::vector<ResourceDelta> rows);
    const std::vector<ResourceDelta>& rows() const { return m_rows; }
    void setLabels(const QString& a, const QString& b);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<ResourceDelta> m_rows;
    QString m_labelA = QStringLiteral("A"), m_labelB = QStringLiteral("B");
};

} // namespace lowerscope
