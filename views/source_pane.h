#pragma once
// The Source pane: the CUDA editor. Edits go to the session; the session's selection, listing and
// diagnostics come back as highlight, colour bands, markers and annotations, and each line's
// SASS cost as "R<max live> S<stall sum>" text in a margin (issue 6). While A/B is compared the
// same margin carries one compact B − A delta per line ("+2i"), coloured by its sign: Scintilla
// shares margin text between all text margins, so a second margin would repeat (and clip) it.

#include "views/build_job.h"

#include <QPointer>
#include <QWidget>

#include <map>

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
    // The compact B − A delta shown per line of the open document ("+2i", "-4s"; see
    // LineDeltaModel::compactText), from the workspace's compareLineDeltas(); empty without B.
    const std::map<int, QString>& compareDeltas() const { return m_compareDeltas; }
    // The margin text of `line` (1-based) as the editor holds it ("" when none).
    QString lineMarginText(int line) const;

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
    std::map<int, QString> m_compareDeltas;
};

} // namespace lowerscope
