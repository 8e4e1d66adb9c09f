#include "views/build/build_output_pane.h"

#include "views/build/diagnostics_model.h"
#include "views/common/workspace.h"

#include <QDir>
#include <QFontDatabase>
#include <QHeaderView>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>
#include <QTextBlock>
#include <QTime>
#include <QVBoxLayout>

#include <algorithm>

namespace lowerscope {

BuildOutputPane::BuildOutputPane(Workspace* session, QWidget* parent) : QWidget(parent), m_session(session) {
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    auto* split = new QSplitter(Qt::Vertical, this);
    m_diagnostics = new DiagnosticsModel(this);
    m_diagView = new QTableView(split);
    m_diagView->setObjectName(QStringLiteral("diagnosticsView"));
    m_diagView->setModel(m_diagnostics);
    m_diagView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_diagView->verticalHeader()->hide();
    m_diagView->horizontalHeader()->setStretchLastSection(true);
    m_diagView->setShowGrid(false);
    m_diagView->setWordWrap(false);
    m_log = new QPlainTextEdit(split);
    m_log->setObjectName(QStringLiteral("buildLog"));
    m_log->setReadOnly(true);
    m_log->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_log->setMaximumBlockCount(20000);
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    mono.setPointSize(9);
    m_log->setFont(mono);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    // The diagnostics list only takes room when there is something in it.
    m_diagView->hide();
    lay->addWidget(split);

    connect(m_diagView, &QTableView::activated, this, [this](const QModelIndex& idx) {
        if (m_session) m_session->revealSource(idx.data(DiagnosticsModel::LineRole).toInt(),
                                               idx.data(DiagnosticsModel::ColumnRole).toInt());
    });
    connect(m_diagView, &QTableView::clicked, m_diagView, &QTableView::activated);
    connect(session, &Workspace::buildStarted, this, [this](quint64 job) {
        m_log->appendPlainText(tr("── build #%1 started %2 ──").arg(job).arg(QTime::currentTime().toString()));
        m_newestBuildLine = m_log->document()->lastBlock().blockNumber();
        showNewestBuild();
    });
    connect(session, &Workspace::buildCancelled, this, [this](quint64 job) {
        m_log->appendPlainText(tr("build #%1 cancelled: its tools were killed").arg(job));
    });
    connect(session, &Workspace::buildFinished, this, &BuildOutputPane::onBuildFinished);
}

static QString trimmedOutput(const std::string& text) {
    QString s = QString::fromStdString(text).trimmed();
    constexpr int kMax = 20000; // full listings are shown in their own panes
    if (s.size() > kMax) s = s.left(kMax) + QObject::tr("\n… (%1 more characters)").arg(s.size() - kMax);
    return s;
}

// Shell forms that still run when pasted from the same place; the log stays readable and does
// not spell out where the tools live.
std::string displayCommand(const std::vector<std::string>& argv) {
    auto under = [](const std::string& a, const QString& dir, std::string& rest) {
        if (dir.isEmpty() || dir == QLatin1String("/")) return false;
        const std::string prefix = dir.toStdString() + "/";
        if (a.size() <= prefix.size() || a.compare(0, prefix.size(), prefix) != 0) return false;
        rest = a.substr(prefix.size());
        return true;
    };
    const QString cwd = QDir::currentPath();
    const QString home = QDir::homePath();
    std::string out, rest;
    for (const std::string& a : argv) {
        if (!out.empty()) out.push_back(' ');
        if (under(a, cwd, rest)) out += shellQuote({"./" + rest});
        else if (under(a, home, rest)) out += "~/" + shellQuote({rest}); // the tilde stays unquoted
        else out += shellQuote({a});
    }
    return out;
}

void BuildOutputPane::onBuildFinished(quint64 job, SnapshotPtr snap) {
    m_diagnostics->setDiagnostics(snap->result.diagnostics);
    m_diagView->setVisible(!snap->result.diagnostics.empty());
    if (!snap->result.diagnostics.empty()) m_diagView->resizeColumnToContents(DiagnosticsModel::LocationColumn);
    QString out;
    for (const CommandRecord& c : snap->result.commands) {
        out += QStringLiteral("$ %1\n").arg(QString::fromStdString(displayCommand(c.argv)));
        const bool listing = c.stage == "sass" || c.stage == "sass-ptx-lines";
        if (!listing && !c.stdoutText.empty()) out += trimmedOutput(c.stdoutText) + QLatin1Char('\n');
        if (!c.stderrText.empty()) out += trimmedOutput(c.stderrText) + QLatin1Char('\n');
        out += tr("  [%1: exit %2, %3 ms]\n").arg(QString::fromStdString(c.stage)).arg(c.exitCode).arg(c.wallMs, 0, 'f', 1);
    }
    if (!snap->error.isEmpty()) out += tr("error: %1\n").arg(snap->error);
    QString summary;
    if (snap->ok())
        summary = tr("build #%1 ok%2: %3 kernel(s), %4 ms").arg(job)
                      .arg(snap->result.cacheHit ? tr(" (cached)") : QString())
                      .arg(snap->model.kernels.size())
                      .arg(snap->result.timingsMs.count("total") ? snap->result.timingsMs.at("total") : 0.0, 0, 'f', 0);
    else
        summary = tr("build #%1 failed: %2 diagnostic(s)").arg(job).arg(snap->result.diagnostics.size());
    m_log->appendPlainText(out + summary);
    showNewestBuild();
}

void BuildOutputPane::showNewestBuild() {
    // QPlainTextEdit follows appended text only while it is scrolled to the end, which a pane
    // behind a tab or a reader scrolled up is not. Put the newest build's header at the top
    // (its whole output when it fits); with more output than fits, its end stays reachable below.
    // Blocks are lines here (no wrapping), and the vertical scroll bar counts blocks.
    QScrollBar* bar = m_log->verticalScrollBar();
    const int first = std::max(0, m_newestBuildLine - m_log->document()->firstBlock().blockNumber());
    bar->setValue(std::min(first, bar->maximum()));
}

int BuildOutputPane::firstVisibleLine() const { return m_log->verticalScrollBar()->value(); }

} // namespace lowerscope
