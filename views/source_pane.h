#pragma once
// The Source pane: the CUDA editor. Edits go to the session; the session's selection, listing and
// diagnostics come back as highlight, colour bands, markers and annotations, and each line's
// SASS cost as "R<max live> S<stall sum>" text in a margin (issue 6) and, with a compare build B,
// each line's B − A deltas in another (issue 7).

#include "views/build_job.h"

#include <QPointer>
#include <QWidget>

namespace lowerscope {

class Workspace;
class CodeEditor;
class CudaLexer;
class FindBar;

class SourcePane : public QWidget {
    Q_OBJECT
public:
    // Editor margin holding the per-line "R<max live> S<stall sum>" text.
    static constexpr int kLineCostMargin = 3;

    explicit SourcePane(Workspace* session, QWidget* parent = nullptr);
    CodeEditor* editor() const { return m_editor; }
    FindBar* findBar() const { return m_find; }
    // Lines (1-based) that carry a diagnostic annotation.
    std::vector<int> annotatedLines() const;
    void applyTheme();

private:
    void onDocumentChanged();
    void onListingChanged();
    void updateLineCosts();
    void updateCompareDeltas();
    void onSelectionChanged();
    void onBuildFinished(quint64 job, SnapshotPtr snapshot);
    void onCursorMoved(int line);

    QPointer<Workspace> m_session;
    CodeEditor* m_editor;
    CudaLexer* m_lexer;
    FindBar* m_find;
    bool m_updating = false;
    int m_hoverLine = 0;
    std::vector<int> m_annotated;
    int m_deltaMargin = -1; // the margin of the compare deltas (B − A per line)
};

} // namespace lowerscope
