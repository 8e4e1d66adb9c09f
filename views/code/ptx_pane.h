#pragma once
// The PTX pane: the module PTX, read-only, with colour bands per source line and the highlight of
// the current selection. Its data lives in a PtxModel.

#include "views/common/stale_banner.h"

#include <QPointer>
#include <QWidget>

class QLabel;

namespace lowerscope {

class Workspace;
class CodeEditor;
class PtxLexer;
class PtxModel;
class FindBar;

class PtxPane : public QWidget {
    Q_OBJECT
public:
    explicit PtxPane(Workspace* session, QWidget* parent = nullptr);
    CodeEditor* editor() const { return m_editor; }
    PtxModel* model() const { return m_model; }
    QLabel* banner() const { return m_banner; }
    void applyTheme();

private:
    void onSnapshot();
    void onSourceLines();
    void onKernel();
    void onSelectionChanged();
    void onStale();

    QPointer<Workspace> m_session;
    QLabel* m_banner;
    CodeEditor* m_editor;
    PtxLexer* m_lexer;
    PtxModel* m_model;
    FindBar* m_find;
    bool m_updating = false;
};

} // namespace lowerscope
