#pragma once
// The SASS pane's table model: one row per instruction of one kernel. Correlation comes from the
// core (each instruction's source location, PTX line); the view only looks rows up.

#include "core/model.h"
#include "core/run/profile_join.h"

#include <QAbstractTableModel>
#include <QColor>

#include <memory>
#include <optional>
#include <vector>

namespace lowerscope {

class SassModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { AddressColumn, SourceLineColumn, PredicateColumn, OpcodeColumn, OperandsColumn,
                   ControlColumn, LiveColumn, ExecutedColumn, StallsColumn, DivergenceColumn, SectorsColumn,
                   ColumnCount };
    enum Roles {
        AddressRole = Qt::UserRole + 1, // uint32 address
        SourceLineRole,     // int, attributed source line in the open document, 0 = none
        PtxLineRole,        // int
        CategoryRole,       // int(InstrCategory)
        HighlightedRole,    // bool: part of the current selection
        CurrentRole,        // bool: the focused row of the selection
        BandColorRole,      // QColor of the source line's band (invalid when none)
        LiveGprRole,        // int, -1 unknown
        MaxLiveGprRole,     // int, the kernel's maximum (for the bar's scale)
        InlineChainRole,    // QString "file:line ← file:line …"
        StallRole,          // int control stall cycles, -1 when no encoding
        FilterMatchRole,    // bool: matches the SASS filter (true when no filter is active)
        ExecutedRole,       // qulonglong warp-level instructions executed (profile), -1 (int) when none
        StallSamplesRole,   // QVariantList of [reason, samples] pairs, most first (profile; "_not_issued"
                            // subsets left out)
        MaxRowSamplesRole,  // qulonglong: the most samples any row has (the bar's scale)
        DivergenceRole,     // double 0..1: lanes idle per executed warp instruction, -1 when unknown
        SectorsPerRequestRole, // double: global sectors per global load/store request, -1 when none
    };

    explicit SassModel(QObject* parent = nullptr);

    // Shows `function` (the model keeps `owner` alive while it refers into it). `sourceLines[i]`
    // is the attributed source line of instruction i in the open document (0 = none).
    void setFunction(std::shared_ptr<const void> owner, const SassFunction* function, std::vector<int> sourceLines);
    void clear();
    void setSourceLines(std::vector<int> sourceLines); // after an attribution change
    // Per row, the "file:line" the Line column shows for a row whose line is in another file than
    // the open document (a header; Workspace::sassSourceLabels), "" otherwise. Reset by setFunction.
    void setSourceLabels(std::vector<QString> labels);
    void setHighlighted(const std::vector<uint32_t>& addresses, std::optional<uint32_t> current);
    void setStale(bool stale);
    // Hardware evidence on the rows (issue 14): one ProfileTotals per instruction, in row order
    // (profile_join.h), and the kernel's sample total; the Executed and Stalls columns show them.
    // A size other than rowCount() clears it. setFunction() clears it too.
    void setProfile(std::vector<ProfileTotals> rows, uint64_t kernelSamples);
    void clearProfile() { setProfile({}, 0); }
    bool hasProfile() const { return !m_profile.empty(); }
    bool isStale() const { return m_stale; }
    // Rows that match the SASS filter (one flag per row); the others are drawn faded. Empty = no
    // filter: every row as usual. A size other than rowCount() counts as empty. `description`
    // names the filter for the bar that says why rows are faded ("LDG|STG, Memory").
    void setFilterMatches(std::vector<char> matches, const QString& description = {});
    bool isFiltered() const { return !m_filterMatches.empty(); }
    QString filterDescription() const { return m_filterDescription; }
    int filterMatchCount() const;

signals:
    // setFilterMatches switched fading on, off, or to other rows (a model reset drops the fading
    // without this signal: modelReset says it).
    void filterChanged();

public:

    const SassFunction* function() const { return m_function; }
    const SassInstruction* instruction(int row) const;

    // Lookups in both directions.
    QModelIndex indexForAddress(uint32_t address, int column = AddressColumn) const;
    QModelIndex indexForSourceLine(int line) const;        // the first row of that line
    QModelIndexList indexesForSourceLine(int line) const;  // every row of that line (column 0)
    int sourceLineForIndex(const QModelIndex& index) const;
    std::vector<int> highlightedRows() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const void> m_owner;
    const SassFunction* m_function = nullptr;
    std::vector<int> m_sourceLines;
    std::vector<QString> m_sourceLabels; // empty, or one per row
    std::vector<uint8_t> m_categories;
    std::vector<char> m_highlighted;
    int m_currentRow = -1;
    int m_maxLive = 0;
    bool m_stale = false;
    std::vector<char> m_filterMatches;
    std::vector<ProfileTotals> m_profile;
    uint64_t m_kernelSamples = 0;
    uint64_t m_maxRowSamples = 0;
    QString m_filterDescription;
    bool fadedRow(size_t row) const { return !m_filterMatches.empty() && !m_filterMatches[row]; }
};

} // namespace lowerscope
