#pragma once
// The PTX pane's model: one row per line of the module PTX. The pane renders the text in a
// QScintilla editor; this model is its data (source line per PTX line, highlight state) and the
// single place correlation lookups for the pane happen.

#include "core/model.h"

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace lowerscope {

class PtxModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { LineColumn, SourceLineColumn, TextColumn, ColumnCount };
    enum Roles {
        PtxLineRole = Qt::UserRole + 1, // int, 1-based
        SourceLineRole,                 // int, attributed source line in the open document, 0 = none
        IsInstructionRole,              // bool
        HighlightedRole,                // bool
        BandColorRole,                  // QColor
    };

    explicit PtxModel(QObject* parent = nullptr);

    // `sourceLines[i]` is the attributed source line of PTX line i+1 (0 = none).
    void setListing(std::shared_ptr<const void> owner, const PtxListing* listing, std::vector<int> sourceLines);
    void clear();
    void setSourceLines(std::vector<int> sourceLines);
    void setHighlighted(const std::vector<int>& ptxLines);
    void setStale(bool stale);

    const PtxListing* listing() const { return m_listing; }
    QString text() const; // the whole listing, one PTX line per text line

    QModelIndex indexForPtxLine(int line, int column = LineColumn) const;
    QModelIndex indexForSourceLine(int line) const;
    QModelIndexList indexesForSourceLine(int line) const;
    int sourceLineForIndex(const QModelIndex& index) const;
    int sourceLineForPtxLine(int line) const;
    std::vector<int> highlightedLines() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const void> m_owner;
    const PtxListing* m_listing = nullptr;
    std::vector<int> m_sourceLines;
    std::vector<char> m_highlighted;
    bool m_stale = false;
};

} // namespace lowerscope
