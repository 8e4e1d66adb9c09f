#pragma once
// The Source pane: the CUDA editor. Edits go to the session; the session's selection, listing and
// diagnostics come back as highlight, colour bands, markers and annotations, and each line's
// SASS cost as "R<max live> S<stall sum>" text in a margin (issue 6). While A/B is compared the
// same margin carries one compact B − A delta per line ("+2i"), coloured by its sign: Scintilla
// shares margin text between all text margins, so a second margin would repeat (and clip) it.
//
// Kernels defined in headers (issue 12): a file selector above the editor offers every file of
// the user's that the build's line info names (Workspace::sourceFiles). A header is shown
// in a second editor (the user's headers editable, saved before each build; the toolkit's
// read-only) with its own bands, line costs, highlight and diagnostics; a PTX
// or SASS click whose line is in a header opens it at that line, and a click in the header selects
// its code. The open document keeps its own editor (and its undo history) meanwhile. Ctrl+click
// on an #include line opens the header it names (Workspace::openInclude), in the same selector.

#include "views/common/build_job.h"

#include <QPointer>
#include <QWidget>

#include <map>
#include <string>

class QComboBox;
class QStackedWidget;

namespace lowerscope {

struct LineDelta;

// One compact B − A delta for the Source pane's margin: instructions ("+2i") when they differ,
// else the stall sum ("-4s"), else max live GPRs ("+3r"); "" when the line is unchanged.
QString compactLineDeltaText(const LineDelta& delta);

class Workspace;
struct ShownSourceFile;
class CodeEditor;
class CudaLexer;
class FindBar;

class SourcePane : public QWidget {
    Q_OBJECT
public:
    // Editor margin holding the per-line "R<max live> S<stall sum>" text.
    static constexpr int kLineCostMargin = 3;

    explicit SourcePane(Workspace* session, QWidget* parent = nullptr);
    // What the R/S margin says, for its hover (issue 35 item 11).
    static QString lineCostMarginHelp();
    bool eventFilter(QObject* watched, QEvent* event) override;
    CodeEditor* editor() const { return m_editor; }
    // The read-only editor of the header shown (when shownFile() is not "").
    CodeEditor* headerEditor() const { return m_header; }
    // The file selector (hidden while the build names no other file of the user's).
    QComboBox* fileSelector() const { return m_files; }
    // The recorded path of the header shown, "" while the open document is shown.
    const std::string& shownFile() const { return m_shownFile; }
    // Shows a file of Workspace::sourceFiles() by its recorded path ("" or the document's own
    // path: the document). Returns false when the file is not offered.
    bool showFile(const std::string& recordedPath);
    FindBar* findBar() const { return m_find; }
    // Lines (1-based) that carry a diagnostic annotation.
    std::vector<int> annotatedLines() const;
    void applyTheme();
    // The compact B − A delta shown per line of the open document ("+2i", "-4s"; see
    // compactLineDeltaText), from the workspace's compareLineDeltas(); empty without B.
    const std::map<int, QString>& compareDeltas() const { return m_compareDeltas; }
    // The margin text of `line` (1-based) as the editor holds it ("" when none).
    QString lineMarginText(int line) const;
    // The same for the header shown (headerEditor()).
    QString headerMarginText(int line) const;
    // Ctrl+click on line `line` (1-based) of the file shown: an include line opens the header it
    // names (Workspace::openInclude) in the file selector. False, with lastIncludeError(), when
    // it does not.
    bool openIncludeAt(int line);
    // The selector's text for a file: its label, "(toolkit, read-only)", or " •" while edited.
    QString fileLabel(const ShownSourceFile& f) const;
    const QString& lastIncludeError() const { return m_includeError; }

private:
    void onDocumentChanged();
    void onListingChanged();
    void updateLineCosts();
    void updateCompareDeltas();
    void onSelectionChanged();
    void onBuildFinished(quint64 job, SnapshotPtr snapshot);
    void onCursorMoved(int line);
    void setUpEditor(CodeEditor* editor);
    void refreshFiles();
    void updateFileLabels();
    void updateHeaderMarks();
    void annotate(CodeEditor* editor, const QString& fileName, std::vector<int>* lines);

    QPointer<Workspace> m_session;
    CodeEditor* m_editor;
    CudaLexer* m_lexer;
    CodeEditor* m_header;
    CudaLexer* m_headerLexer;
    QComboBox* m_files;
    QStackedWidget* m_stack;
    std::string m_shownFile;      // recorded path of the header in m_header ("" = the document)
    QString m_headerPath;         // the file m_header's text was read from
    bool m_rereadHeader = false;  // read it again when next shown (a new build)
    SnapshotPtr m_diagnostics;    // the last finished build, for the header's annotations
    FindBar* m_find;
    bool m_updating = false;
    bool m_userClick = false; // a mouse press in the editor's text, until the caret reports it
    int m_hoverLine = 0;
    std::vector<int> m_annotated;
    std::map<int, QString> m_compareDeltas;
    QString m_includeError;
};

} // namespace lowerscope
