#pragma once
// The SASS pane: a table of the current kernel's instructions (SassModel), with a slot on the left
// of the table for a gutter widget (dependency arrows, issue 6) and a stale banner above it.

#include <QPointer>
#include <QWidget>

class QLabel;
class QTableView;
class QHBoxLayout;

namespace lowerscope {

class Workspace;
class SassModel;

class SassPane : public QWidget {
    Q_OBJECT
public:
    explicit SassPane(Workspace* session, QWidget* parent = nullptr);
    QTableView* view() const { return m_view; }
    SassModel* model() const { return m_model; }
    QLabel* banner() const { return m_banner; }
    void applyTheme(); // recolours the stale banner (rows repaint from Theme by themselves)
    // Installs a widget left of the table (e.g. an arrows gutter that follows view()'s scrolling).
    // The pane takes ownership; a previous gutter is deleted.
    void setGutter(QWidget* gutter);
    QWidget* gutter() const { return m_gutter; }
    // Moves the current row to the next (+1) / previous (-1) run of consecutive highlighted rows.
    // Returns false when there is none.
    bool jumpToRun(int direction);

signals:
    void currentRowChanged(int row);

private:
    void reload();
    void onSelectionChanged();
    void onStale();

    QPointer<Workspace> m_session;
    QLabel* m_banner;
    QHBoxLayout* m_body;
    QWidget* m_gutter = nullptr;
    QTableView* m_view;
    SassModel* m_model;
    bool m_updating = false;
};

} // namespace lowerscope
