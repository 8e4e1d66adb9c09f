#include "views/experiment/experiment_room.h"

#include "core/bounded_json.h"
#include "core/experiment/graph_break_even_job.h"
#include "core/experiment/series.h"
#include "core/experiment/series_job.h"
#include "core/run/measure_job.h"
#include "views/common/workspace.h"
#include "views/experiment/experiment_record.h"
#include "views/experiment/gallery.h"
#include "views/experiment/graph_break_even_view.h"
#include "views/experiment/series_view.h"
#include "views/measure/cost_panel.h"
#include "views/measure/measure_pane.h"
#include "views/measure/measure_room.h"

#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QPushButton>
#include <QSaveFile>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTimer>

namespace lowerscope {

ExperimentRoom::ExperimentRoom(RoomHost& host, MeasureRoom& measure)
    : QObject(host.hostWindow()), m_host(host), m_measure(measure) {
    m_card = new ExperimentCardEditor(host.hostWindow());
    host.registerPane(QStringLiteral("experiment"), tr("Experiment card"), m_card, Qt::BottomDockWidgetArea);
    // Issue 15: parameter series from the card's Vary field, on the window's job tracker.
    m_seriesPane = new SeriesView(host.hostWindow(), host.session()->jobs());
    m_seriesPane->costPanel()->setPersistent(host.persistent());
    host.registerPane(QStringLiteral("series"), tr("Series"), m_seriesPane, Qt::BottomDockWidgetArea);
    connect(m_card, &ExperimentCardEditor::runSeriesRequested, this, [this](const QString& spec) {
        QString error;
        if (!runSeries(spec, &error)) {
            m_card->varyError()->setText(error);
            m_card->varyError()->show();
        }
    });
    // "Rerun on my GPU" needs one: disabled with the Measure pane's reason without (issue 35 item 6).
    connect(measure.measure(), &MeasurePane::deviceProbed, this, [this] { gateRerunButtons(); });
}

void ExperimentRoom::gateRerunButtons() {
    const bool noGpu = m_measure.measure()->deviceState() == MeasurePane::DeviceState::Unavailable;
    const QString why = noGpu ? tr("No GPU to rerun on: %1").arg(m_measure.measure()->deviceText()) : QString();
    if (!noGpu) return;
    for (QPushButton* rerun : {m_galleryView ? m_galleryView->rerunButton() : nullptr,
                               m_graphView ? m_graphView->rerunButton() : nullptr})
        if (rerun) {
            rerun->setEnabled(false);
            rerun->setToolTip(why);
        }
}

void ExperimentRoom::addActions(RoomHost& host) {
    QMenu* examples = host.menu(RoomHost::Menu::File)->addMenu(tr("E&xamples"));
    for (const auto& [id, title] : bundledExperiments()) {
        examples->addAction(title, this, [this, id = id] {
            if (m_host.maybeSave()) openBundledExperiment(id);
        });
    }
}

QList<QPair<QString, QString>> ExperimentRoom::bundledExperiments() {
    QList<QPair<QString, QString>> out;
    for (const GalleryEntry& g : bundledGallery()) out.append({g.id, g.title});
    return out;
}

namespace {

std::optional<GalleryEntry> galleryEntry(const QString& id) {
    for (const GalleryEntry& g : bundledGallery())
        if (g.id == id) return g;
    return std::nullopt;
}

// A folder of this process for unpacked examples and the sources a series builds.
QTemporaryDir& scratchDir() {
    static QTemporaryDir dir;
    return dir;
}

// Writes `bytes` as scratchDir()/<sub>/<name>; "" when it cannot.
QString unpack(const QString& sub, const QString& name, const QByteArray& bytes) {
    QDir dir(scratchDir().path());
    if (!scratchDir().isValid() || !dir.mkpath(sub)) return {};
    const QString path = dir.filePath(sub + QLatin1Char('/') + name);
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit()) return {};
    return path;
}

// Unpacks an example's kernel source as scratchDir()/<sub>/<source> with its sidecar beside it
// under the source's stem (where the launch is looked up); the source's path, "" when it cannot.
QString unpackSource(const GalleryEntry& entry, const QString& sub, QByteArray* sourceText = nullptr) {
    QByteArray source, sidecar;
    if (entry.source.isEmpty() || !readGalleryFile(entry.source, source)) return {};
    const QString path = unpack(sub, entry.source, source);
    if (!entry.sidecar.isEmpty() && readGalleryFile(entry.sidecar, sidecar))
        unpack(sub, QFileInfo(entry.source).completeBaseName() + QStringLiteral(".json"), sidecar);
    if (sourceText) *sourceText = source;
    return path;
}

// A link in an example's write-up to another example's write-up ("HYPOTHESES.md",
// "ffma_chains.md") opens that example; other links are not followed (the write-ups are documents
// of the bundle, their links lead nowhere else from here).
void followGalleryLinks(QTextBrowser* browser, ExperimentRoom* room, RoomHost& host) {
    QObject::connect(browser, &QTextBrowser::anchorClicked, room, [room, &host](const QUrl& url) {
        const QString name = url.isRelative() ? url.path().section(QLatin1Char('/'), -1) : QString();
        for (const GalleryEntry& g : bundledGallery()) {
            if (name.isEmpty() || g.writeup != name) continue;
            // Later: the browser that was clicked may be the one the example replaces the text of.
            QTimer::singleShot(0, room, [room, id = g.id] { room->openBundledExperiment(id); });
            return;
        }
        host.showStatus(QObject::tr("%1 is not one of the bundled examples").arg(url.toString()), 5000);
    });
}

} // namespace

bool ExperimentRoom::openBundledExperiment(const QString& id) {
    const std::optional<GalleryEntry> entry = galleryEntry(id);
    if (!entry) return false;
    QByteArray writeUp;
    if (!entry->writeup.isEmpty()) readGalleryFile(entry->writeup, writeUp);
    auto showWriteUp = [&](const QString& title) {
        auto* browser = qobject_cast<QTextBrowser*>(m_writeUp);
        if (!browser) {
            browser = new QTextBrowser(m_host.hostWindow());
            browser->setWindowFlag(Qt::Window);
            browser->setOpenLinks(false); // a write-up's links lead only to other examples
            followGalleryLinks(browser, this, m_host);
            browser->resize(900, 800);
            m_writeUp = browser;
        }
        // Images (charts) are looked up in the bundle only.
        browser->setSearchPaths({QStringLiteral(":/examples")});
        browser->setWindowTitle(title);
        browser->setMarkdown(QString::fromUtf8(writeUp));
        browser->show();
        browser->raise();
    };
    if (entry->kind == QLatin1String("report")) {
        showWriteUp(tr("Example: %1").arg(entry->title));
        return true;
    }
    if (entry->kind == QLatin1String("graph")) return openGraphExample(*entry, writeUp);
    if (entry->kind == QLatin1String("series")) {
        QByteArray bytes;
        QString error;
        if (!m_galleryView) {
            m_galleryView = new SeriesView(m_host.hostWindow(), m_host.session()->jobs());
            m_galleryView->setObjectName(QStringLiteral("gallerySeriesWindow"));
            m_galleryView->setWindowFlag(Qt::Window);
            m_galleryView->costPanel()->setPersistent(m_host.persistent());
            m_galleryView->resize(1400, 900);
            followGalleryLinks(m_galleryView->writeUp(), this, m_host);
            m_galleryView->setRerunHandler([this] {
                QString why;
                if (!rerunBundledSeries(m_galleryId, &why)) m_galleryView->statusLabel()->setText(why);
            });
        }
        std::string why;
        std::optional<nlohmann::json> doc;
        if (!readGalleryFile(entry->series, bytes, qint64(kMaxSeriesDocumentBytes)))
            error = tr("%1 is not in the bundle").arg(entry->series);
        else if (!(doc = parseJsonBounded(bytes.toStdString(), why)))
            error = QString::fromStdString(why);
        if (!doc || !m_galleryView->setDocument(*doc, &error)) {
            m_host.showStatus(tr("Cannot show the example %1: %2").arg(entry->title, error), 10000);
            return false;
        }
        m_galleryId = id;
        m_galleryView->setWriteUp(QString::fromUtf8(writeUp), {QStringLiteral(":/examples")});
        m_galleryView->setWindowTitle(tr("Example: %1 (recorded; Rerun on my GPU measures it here)").arg(entry->title));
        m_galleryView->rerunButton()->setEnabled(!entry->source.isEmpty());
        gateRerunButtons();
        m_galleryView->show();
        m_galleryView->raise();
        return true;
    }
    // A copy outside the bundle: the session can be rerun, edited and saved like any other.
    QByteArray session;
    const QString path = readGalleryFile(entry->session, session) ? unpack(QStringLiteral("sessions"), entry->session, session)
                                                                   : QString();
    if (path.isEmpty()) {
        m_host.showStatus(tr("Cannot unpack the example %1").arg(id), 10000);
        return false;
    }
    QFile(path).setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    if (!m_openSession || !m_openSession(path)) return false;
    if (!writeUp.isEmpty())
        showWriteUp(tr("Example: %1 (recorded on an H200; rerun it with Measure to see your GPU's numbers)").arg(entry->title));
    m_host.showStatus(tr("Example %1 opened: the recorded results are in Measure and Compare A/B; Run A/B "
                                "measures them on this machine's GPU").arg(entry->title),
                             10000);
    return true;
}

bool ExperimentRoom::openGraphExample(const GalleryEntry& entry, const QByteArray& writeUp) {
    auto fail = [&](const QString& why) {
        m_host.showStatus(tr("Cannot show the example %1: %2").arg(entry.title, why), 10000);
        return false;
    };
    if (!m_graphView) {
        m_graphView = new GraphBreakEvenView(m_host.hostWindow(), m_host.session()->jobs());
        m_graphView->setObjectName(QStringLiteral("galleryGraphWindow"));
        m_graphView->setWindowFlag(Qt::Window);
        m_graphView->resize(1400, 950);
        followGalleryLinks(m_graphView->writeUp(), this, m_host);
        m_graphView->setRerunHandler([this] {
            QString why;
            if (!rerunBundledGraph(m_graphId, &why)) m_graphView->statusLabel()->setText(why);
        });
    }
    // The recorded document first: a hostile one opens nothing (what is shown stays).
    QByteArray bytes;
    QString error;
    if (!readGalleryFile(entry.graph, bytes, qint64(kMaxGraphBreakEvenDocumentBytes)))
        return fail(tr("%1 is not in the bundle or larger than %2 MiB")
                        .arg(entry.graph)
                        .arg(kMaxGraphBreakEvenDocumentBytes >> 20));
    if (!m_graphView->setRecordedBytes(bytes, &error)) return fail(tr("%1: %2").arg(entry.graph, error));
    // The kernel in the editor, built like any file, from a copy outside the bundle with its
    // sidecar beside it (the Measure pane's launch).
    QByteArray source;
    const QString path = unpackSource(entry, QStringLiteral("graph-") + entry.id, &source);
    if (path.isEmpty()) return fail(tr("cannot unpack %1").arg(entry.source));
    m_host.loadText(path, QString::fromUtf8(source));
    m_graphId = entry.id;
    m_graphView->setWriteUp(QString::fromUtf8(writeUp), {QStringLiteral(":/examples")});
    m_graphView->setWindowTitle(
        tr("Example: %1 (recorded; Rerun on my GPU measures it here)").arg(entry.title));
    m_graphView->rerunButton()->setEnabled(!m_graphView->isRunning());
    gateRerunButtons();
    m_graphView->show();
    m_graphView->raise();
    m_host.showStatus(
        tr("Example %1 opened: its kernel is in the editor; Rerun on my GPU (in the example's "
           "window) measures the graph path here")
            .arg(entry.title),
        10000);
    return true;
}

bool ExperimentRoom::rerunBundledGraph(const QString& id, QString* error) {
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    const std::optional<GalleryEntry> entry = galleryEntry(id);
    if (!entry || entry->kind != QLatin1String("graph") || entry->source.isEmpty())
        return fail(tr("%1 is not a graph example with a kernel source").arg(id));
    if (!m_graphView || m_graphId != id) {
        if (!openBundledExperiment(id)) return fail(m_host.statusText());
    }
    LocalGraphBreakEvenRequest r;
    // What the shown recorded document was measured with, checked against the runner's limits
    // when it was read (readGraphBreakEvenDocument); its kernel name only picks among the built
    // kernels.
    r.graphPath = m_graphView->recordedOptions();
    r.kernel = m_graphView->recordedKernel();
    // A copy of its own, so that edits in the editor do not change what the example measures.
    r.sourcePath = unpackSource(*entry, QStringLiteral("graph-run-") + id).toStdString();
    if (r.sourcePath.empty()) return fail(tr("Cannot unpack %1").arg(entry->source));
    r.fileName = entry->source.toStdString();
    // Default options on this GPU's architecture (A's).
    r.options.arch = m_host.session()->options().arch.empty() ? BuildOptions{}.arch : m_host.session()->options().arch;
    r.launch = defaultLaunch(r.sourcePath, r.kernel, {});
    r.runnerCommand = m_measure.measure()->runnerCommand();
    r.deadlineS = m_measure.measure()->deadlineSeconds();
    m_graphView->run(r);
    return true;
}

bool ExperimentRoom::rerunBundledSeries(const QString& id, QString* error) {
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    const std::optional<GalleryEntry> entry = galleryEntry(id);
    if (!entry || entry->kind != QLatin1String("series") || entry->source.isEmpty())
        return fail(tr("%1 is not a series example with a kernel source").arg(id));
    if (!m_galleryView || m_galleryId != id) openBundledExperiment(id);
    const nlohmann::json& doc = m_galleryView->document();
    LocalSeriesRequest r;
    try {
        // The spec and the kernel name come from the document: the spec is checked by its parser (no
        // value reaches nvcc unless it is a plain token) and the name only picks among the built kernels.
        r.spec = parseSeriesSpec(doc.value("vary", std::string()));
    } catch (const std::invalid_argument& e) {
        return fail(tr("The example's series cannot be rerun: %1").arg(QString::fromStdString(e.what())));
    }
    // The sidecar carries the launch; it must sit next to the source under the source's stem.
    r.sourcePath = unpackSource(*entry, QStringLiteral("series-") + id).toStdString();
    if (r.sourcePath.empty()) return fail(tr("Cannot unpack %1").arg(entry->source));
    r.fileName = entry->source.toStdString();
    // The recorded options of the example, on this GPU's architecture (A's).
    r.base.arch = m_host.session()->options().arch;
    for (const QString& d : entry->defines) r.base.defines.push_back(d.toStdString());
    r.kernel = doc.value("kernel", std::string());
    r.launch = defaultLaunch(r.sourcePath, r.kernel, {});
    for (const QString& a : entry->args) setLaunchArg(r.launch, a.toStdString());
    r.runnerCommand = m_measure.measure()->runnerCommand();
    r.deadlineS = m_measure.measure()->deadlineSeconds();
    m_galleryView->run(r, SeriesView::Target::Mine);
    return true;
}

bool ExperimentRoom::runSeries(const QString& specText, QString* error) {
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    LocalSeriesRequest r;
    try {
        r.spec = parseSeriesSpec(specText.toStdString());
    } catch (const std::invalid_argument& e) {
        return fail(QString::fromStdString(e.what()));
    }
    SnapshotPtr snap = m_host.session()->snapshot();
    const KernelModel* k = m_host.session()->kernel();
    if (!snap || !snap->ok() || !k) return fail(tr("Build A first: the series varies A's source and options."));
    // The editor's text as it is now (saved or not), next to nothing else: the source's folder is
    // added to the include path so its headers are found.
    const QString name = QFileInfo(m_host.session()->displayName()).fileName();
    const QString path = unpack(QStringLiteral("series-run"), name.isEmpty() ? QStringLiteral("kernel.cu") : name,
                                m_host.session()->text().toUtf8());
    if (path.isEmpty()) return fail(tr("Cannot write the source for the series."));
    r.sourcePath = path.toStdString();
    r.fileName = name.toStdString();
    r.base = snap->options;
    const QFileInfo original(m_host.session()->sourcePath());
    if (!m_host.session()->sourcePath().isEmpty() && !m_host.session()->sourcePath().startsWith(QLatin1Char(':')) && original.exists())
        r.base.includeDirs.push_back(original.absolutePath().toStdString());
    r.kernel = k->mangled;
    r.launch = m_measure.measure()->launch();
    r.runnerCommand = m_measure.measure()->runnerCommand();
    r.deadlineS = m_measure.measure()->deadlineSeconds();
    // The Measure pane's target (issue 32): on a Slurm cluster the series is one task there. A
    // backend installed by a test stays unless the cluster was chosen.
    if (m_measure.measure()->usesCluster()) {
        m_seriesPane->setBackend(m_measure.measure()->seriesBackend());
        m_seriesOnCluster = true;
    } else if (m_seriesOnCluster) {
        m_seriesPane->setBackend(runLocalSeriesJob);
        m_seriesOnCluster = false;
    }
    m_seriesPane->run(r, SeriesView::Target::Shown);
    if (QDockWidget* d = m_host.pane(QStringLiteral("series"))) {
        d->show();
        d->raise();
    }
    return true;
}

bool ExperimentRoom::openSeries(const QString& path, QString* error) {
    if (!m_seriesPane->openFile(path, error)) return false;
    if (QDockWidget* d = m_host.pane(QStringLiteral("series"))) {
        d->show();
        d->raise();
    }
    return true;
}

} // namespace lowerscope
