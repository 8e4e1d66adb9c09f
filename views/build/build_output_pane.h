#pragma once
// The Build output pane: the exact commands each build ran, their output and timings, and a
// clickable list of diagnostics (click → the source pane shows the location).

#include "views/common/build_job.h"

#include <QPointer>
#include <QWidget>

#include <string>
#include <vector>

class QPlainTextEdit;
class QTableView;

namespace lowerscope {

class Workspace;
class DiagnosticsModel;

// A command line as the pane shows it: shell-quoted, with paths under the working directory
// written `./…` and under the home folder `~/…`.
std::string displayCommand(const std::vector<std::string>& argv);

class BuildOutputPane : public QWidget {
    Q_OBJECT
public:
    explicit BuildOutputPane(Workspace* session, QWidget* parent = nullptr);
    QPlainTextEdit* log() const { return m_log; }
    QTableView* diagnosticsView() const { return m_diagView; }
    DiagnosticsModel* diagnostics() const { return m_diagnostics; }

    // The log line (block) of the newest build's header, and the first line in view.
    int newestBuildLine() const { return m_newestBuildLine; }
    int firstVisibleLine() const;

private:
    void onBuildFinished(quint64 job, SnapshotPtr snapshot);
    void showNewestBuild();
    int m_newestBuildLine = 0;

    QPointer<Workspace> m_session;
    QPlainTextEdit* m_log;
    QTableView* m_diagView;
    DiagnosticsModel* m_diagnostics;
};

} // namespace lowerscope
