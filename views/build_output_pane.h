#pragma once
// The Build output pane: the exact commands each build ran, their output and timings, and a
// clickable list of diagnostics (click → the source pane shows the location).

#include "views/build_job.h"

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

private:
    void onBuildFinished(quint64 job, SnapshotPtr snapshot);

    QPointer<Workspace> m_session;
    QPlainTextEdit* m_log;
    QTableView* m_diagView;
    DiagnosticsModel* m_diagnostics;
};

} // namespace lowerscope
