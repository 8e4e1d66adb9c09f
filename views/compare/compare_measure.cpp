#include "views/compare/compare_measure.h"

#include "core/analysis/diff.h"
#include "views/compare/compare_panel.h"
#include "views/compare/diff_model.h"
#include "views/compare/diff_view.h"
#include "views/measure/measure_pane.h"
#include "views/common/dialogs.h"
#include "views/common/workspace.h"

#include <QAction>
#include <QChartView>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPixmap>
#include <QSettings>
#include <QTableWidget>
#include <QTextStream>

namespace lowerscope {

using nlohmann::json;

ExperimentController::ExperimentController(Workspace* sessionA, ComparePanel* compare, MeasurePane* measure,
                                           ExperimentCardEditor* card, QWidget* dialogParent, QObject* parent)
    : QObject(parent), m_a(sessionA), m_compare(compare), m_measure(measure), m_card(card), m_dialogParent(dialogParent) {
    m_prompt = [this](const QString& path, const QStringList& items) {
        return askTrustWithMessageBox(m_dialogParent, path, items);
    };
    m_report = [this](const QString& text) { showProblem(m_dialogParent, tr("Lowerscope"), text); };
    m_load = [this](const QString& path, const QString& text) {
        if (m_a) m_a->setDocument(path, text);
    };
    if (m_a) {
        connect(m_a, &Workspace::snapshotChanged, this, [this] {
            // An opened session names its kernel; pick it once the build knows the kernels.
            if (m_pendingKernelA.isEmpty() || !m_a->snapshot() || !m_a->snapshot()->ok()) return;
            const auto& kernels = m_a->snapshot()->model.kernels;
            for (size_t i = 0; i < kernels.size(); ++i) {
                const QString name = QString::fromStdString(kernels[i].name);
                if (name == m_pendingKernelA || QString::fromStdString(kernels[i].mangled) == m_pendingKernelA) {
                    m_a->setKernelIndex(int(i));
                    break;
                }
            }
            m_pendingKernelA.clear();
        });
    }
    if (m_measure && m_card) {
        connect(m_measure, &MeasurePane::measurementReady, this, [this] {
            if (m_measure && m_card) m_card->appendMeasurement(m_measure->verdict());
        });
    }
}

void ExperimentController::report(const QString& text) const {
    if (m_report) m_report(text);
}

bool ExperimentController::trusted(const QString& fingerprint) const {
    if (m_trusted.contains(fingerprint)) return true;
    if (!m_useSettings) return false;
    return QSettings().value(QStringLiteral("trust/sessions")).toStringList().contains(fingerprint);
}

void ExperimentController::remember(const QString& fingerprint) {
    m_trusted.insert(fingerprint);
    if (!m_useSettings) return;
    QSettings settings;
    QStringList list = settings.value(QStringLiteral("trust/sessions")).toStringList();
    if (!list.contains(fingerprint)) list << fingerprint;
    settings.setValue(QStringLiteral("trust/sessions"), list);
}

namespace {
// The session's top-level key of the parameter series (a lowerscope.series/1 document).
const char* const kSessionSeriesKey = "series";
} // namespace

ExperimentData ExperimentController::gather() const {
    ExperimentData d;
    d.extra = m_unknownKeys;
    if (m_card) {
        d.title = m_card->title();
        d.card = m_card->card();
    }
    if (m_a) {
        d.sourceName = m_a->sourcePath().isEmpty() ? m_a->displayName() : m_a->sourcePath();
        d.sourceText = m_a->text();
        d.a.options = m_a->options();
        if (const KernelModel* k = m_a->kernel()) d.a.kernel = QString::fromStdString(k->name);
    }
    if (m_compare) {
        Workspace* b = m_compare->sessionB();
        d.hasB = true;
        d.b.options = b->options();
        if (const KernelModel* k = b->kernel()) d.b.kernel = QString::fromStdString(k->name);
        if (!m_compare->followsA()) {
            d.b.ownSource = true;
            d.b.sourceName = b->sourcePath().isEmpty() ? b->displayName() : b->sourcePath();
            d.b.sourceText = b->text();
        }
    }
    if (m_measure) {
        d.launch = m_measure->launch();
        d.measurements = m_measure->documents();
    }
    if (m_currentSeries)
        if (nlohmann::json series = m_currentSeries(); !series.is_null()) d.extra[kSessionSeriesKey] = std::move(series);
    if (m_currentAdvice) d.advice = m_currentAdvice();
    return d;
}

bool ExperimentController::apply(const ExperimentData& opened, const QString& path) {
    // Shell syntax in a setting is never built, and source names stay in the user's folders: both
    // are refused before anything is shown or asked.
    if (const QString refused = refusedSetting(opened); !refused.isEmpty()) {
        report(tr("Could not open the session %1: %2\nThe current session is unchanged.").arg(path, refused));
        return false;
    }
    ExperimentData data = opened;
    if (QString error; !resolveExperimentPaths(data, path, error)) {
        report(tr("Could not open the session %1: %2\nThe current session is unchanged.").arg(path, error));
        return false;
    }
    // Ask before anything is built (or even shown: the source pane would auto-build).
    const QStringList items = untrustedItems(data);
    if (!items.isEmpty()) {
        const QString fp = trustFingerprint(data);
        if (!trusted(fp)) {
            if (!m_prompt || !m_prompt(path, items)) return false;
            remember(fp);
        }
    }
    m_path = path;
    m_unknownKeys = data.extra;
    m_unknownKeys.erase(kSessionSeriesKey); // the Series pane's, gathered from it
    if (m_card) {
        m_card->setTitle(data.title);
        m_card->setCard(data.card);
    }
    if (m_compare) {
        m_compare->setOptionsB(data.b.options);
        if (data.b.ownSource) m_compare->setSourceB(data.b.sourceName, data.b.sourceText);
        else m_compare->setFollowA(true);
        // A session whose B differs from A is a comparison: show it as one.
        if (data.hasB && (data.b.ownSource || data.b.options != data.a.options)) m_compare->setActive(true);
    }
    if (m_a) {
        m_a->setOptions(data.a.options);
        m_pendingKernelA = data.a.kernel;
        if (m_load) m_load(data.sourceName, data.sourceText);
    }
    if (m_measure) {
        // The session's recorded launch (when it has one) is what it reruns; without one the
        // Measure pane follows the build as for any file.
        if (!data.launch.args.empty() || data.launch.grid != LaunchText{}.grid || data.launch.block != LaunchText{}.block)
            m_measure->setRecordedLaunch(data.launch, tr("the session %1").arg(QFileInfo(path).fileName()));
        else
            m_measure->setLaunch(data.launch);
        m_measure->setDocuments(data.measurements);
    }
    if (m_showSeries) {
        // A session without a series clears the one shown: it belonged to the previous session.
        const auto it = data.extra.find(kSessionSeriesKey);
        m_showSeries(it != data.extra.end() ? *it : nlohmann::json());
    }
    if (m_showAdvice) m_showAdvice(data.advice);
    if (m_a) m_a->build();
    if (m_compare && data.b.ownSource) m_compare->buildB();
    emit sessionOpened(path);
    return true;
}

bool ExperimentController::openSession(const QString& path) {
    ExperimentData data;
    QString error;
    if (!loadExperiment(path, data, error)) {
        report(tr("Could not open the session: %1\nThe current session is unchanged.").arg(error));
        return false;
    }
    return apply(data, path);
}

bool ExperimentController::saveSession(const QString& path) {
    ExperimentData data = gather();
    QString error;
    if (!saveExperiment(data, path, error)) {
        report(tr("Could not save the session: %1").arg(error));
        return false;
    }
    // The user's own flags need no question when they reopen their own file.
    if (!untrustedItems(data).isEmpty()) remember(trustFingerprint(data));
    m_path = path;
    emit sessionSaved(path);
    return true;
}

bool ExperimentController::openMeasurement(const QString& path) {
    if (!m_measure) return false;
    QString error;
    if (!m_measure->openMeasurementFile(path, &error)) {
        report(tr("Could not open the measurement: %1").arg(error));
        return false;
    }
    return true;
}

namespace {

QString optionsLine(const BuildOptions& o) {
    std::vector<std::string> argv{"nvcc"};
    for (auto& a : toNvccArgs(o)) argv.push_back(a);
    return QString::fromStdString(shellQuote(argv));
}

QString mdEscape(QString s) { return s.replace(QLatin1Char('|'), QStringLiteral("\\|")); }

bool grabChart(QChartView* view, const QString& path) {
    if (!view) return false;
    // A chart behind another tab may never have been laid out: give it a readable size first.
    if (view->width() < 400 || view->height() < 250) view->resize(900, 480);
    QPixmap pm = view->grab();
    return !pm.isNull() && pm.save(path, "PNG");
}

} // namespace

QString ExperimentController::reportMarkdown(const QString& chartPrefix) const {
    const ExperimentData d = gather();
    QString md;
    QTextStream out(&md);
    out << "# " << (d.title.isEmpty() ? tr("Experiment: %1").arg(QFileInfo(d.sourceName).fileName()) : d.title) << "\n\n";
    auto section = [&](const QString& name, const QString& text) {
        out << "## " << name << "\n\n" << (text.trimmed().isEmpty() ? tr("_(not written)_") : text.trimmed()) << "\n\n";
    };
    section(tr("Hypothesis"), d.card.hypothesis);
    section(tr("Implementation"), d.card.implementation);
    out << tr("Source: `%1`").arg(d.sourceName) << "\n\n";
    out << "- A" << (d.a.kernel.isEmpty() ? QString() : QStringLiteral(" (`%1`)").arg(d.a.kernel)) << ": `"
        << optionsLine(d.a.options) << "`\n";
    if (d.hasB)
        out << "- B" << (d.b.kernel.isEmpty() ? QString() : QStringLiteral(" (`%1`)").arg(d.b.kernel)) << ": `"
            << optionsLine(d.b.options) << "`" << (d.b.ownSource ? tr(" on `%1`").arg(d.b.sourceName) : QString()) << "\n";
    out << "\n";
    section(tr("Measurement"), d.card.measurement);
    if (m_measure && m_measure->measurement()) {
        const Measurement& m = *m_measure->measurement();
        out << "**" << m_measure->verdict() << "**\n\n";
        if (!m.device.name.empty()) out << tr("Device: %1").arg(QString::fromStdString(m.device.name)) << "\n\n";
        out << "| " << tr("statistic");
        for (const auto& v : m.variants) out << " | " << QString::fromStdString(v.label);
        out << " |\n|---";
        for (size_t i = 0; i < m.variants.size(); ++i) out << "|---:";
        out << "|\n";
        if (QTableWidget* t = m_measure->statsTable()) {
            for (int r = 0; r < t->rowCount(); ++r) {
                out << "| " << (t->item(r, 0) ? mdEscape(t->item(r, 0)->text()) : QString());
                for (int c = 1; c < t->columnCount(); ++c) out << " | " << (t->item(r, c) ? mdEscape(t->item(r, c)->text()) : QString());
                out << " |\n";
            }
        }
        out << "\n" << m_measure->costText() << "\n\n";
        out << "![distribution](" << chartPrefix << "distribution.png)\n\n";
        out << "![samples](" << chartPrefix << "samples.png)\n\n";
        if (m.ratio) out << "![speedup](" << chartPrefix << "speedup.png)\n\n";
        out << "![throughput](" << chartPrefix << "throughput.png)\n\n";
    }
    if (m_compare) {
        DiffView* dv = m_compare->diffView();
        const SassDiffModel* model = dv->diffModel();
        if (model->rowCount() > 0) {
            out << "## " << tr("What changed in the machine code") << "\n\n" << dv->summaryLabel()->text() << "\n\n";
            const ResourceDeltaModel* res = dv->resourceModel();
            if (res->rowCount() > 0) {
                out << "| " << tr("resource") << " | A | B | Δ |\n|---|---:|---:|---:|\n";
                for (int r = 0; r < res->rowCount(); ++r) {
                    out << "|";
                    for (int c = 0; c < ResourceDeltaModel::ColumnCount; ++c) out << " " << res->index(r, c).data().toString() << " |";
                    out << "\n";
                }
                out << "\n";
            }
            const std::string excerpt = formatDiffExcerpt(model->diff(), model->functionA(), model->functionB(), 3, 2, 48);
            if (!excerpt.empty()) out << "```\n" << QString::fromStdString(excerpt) << "```\n\n";
            out << "![instruction mix](" << chartPrefix << "mix.png)\n\n";
        }
    }
    section(tr("Result"), d.card.result);
    section(tr("Interpretation"), d.card.interpretation);
    return md;
}

bool ExperimentController::exportReport(const QString& markdownPath, QString* error) {
    const QFileInfo info(markdownPath);
    const QString stem = info.completeBaseName();
    const QDir dir = info.absoluteDir();
    const QString prefix = stem + QLatin1Char('-');
    if (m_measure && m_measure->measurement()) {
        grabChart(m_measure->distributionChart(), dir.filePath(prefix + QStringLiteral("distribution.png")));
        grabChart(m_measure->samplesChart(), dir.filePath(prefix + QStringLiteral("samples.png")));
        if (m_measure->measurement()->ratio) grabChart(m_measure->speedupChart(), dir.filePath(prefix + QStringLiteral("speedup.png")));
        grabChart(m_measure->throughputChart(), dir.filePath(prefix + QStringLiteral("throughput.png")));
    }
    if (m_compare && m_compare->diffView()->diffModel()->rowCount() > 0)
        grabChart(m_compare->diffView()->mixChart(), dir.filePath(prefix + QStringLiteral("mix.png")));
    QFile file(markdownPath);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        if (error) *error = tr("Cannot write %1: %2").arg(markdownPath, file.errorString());
        return false;
    }
    file.write(reportMarkdown(prefix).toUtf8());
    return true;
}

void ExperimentController::addFileActions(QWidget* owner, QMenu* file) {
    auto add = [&](const QString& text, auto slot) {
        auto* a = new QAction(text, file);
        connect(a, &QAction::triggered, this, slot);
        file->addAction(a);
        return a;
    };
    file->addSeparator();
    add(tr("Open &session…"), [this, owner] {
        const QString path = QFileDialog::getOpenFileName(owner, tr("Open session"), QString(),
                                                          tr("Lowerscope sessions (*.lowerscope);;All files (*)"));
        if (!path.isEmpty()) openSession(path);
    });
    add(tr("Save s&ession"), [this, owner] {
        QString path = m_path;
        if (path.isEmpty())
            path = QFileDialog::getSaveFileName(owner, tr("Save session"), QStringLiteral("experiment.lowerscope"),
                                                tr("Lowerscope sessions (*.lowerscope)"));
        if (!path.isEmpty()) saveSession(path);
    });
    add(tr("Save session as…"), [this, owner] {
        const QString path = QFileDialog::getSaveFileName(owner, tr("Save session"), QStringLiteral("experiment.lowerscope"),
                                                          tr("Lowerscope sessions (*.lowerscope)"));
        if (!path.isEmpty()) saveSession(path);
    });
    add(tr("Open &measurement…"), [this, owner] {
        const QString path = QFileDialog::getOpenFileName(owner, tr("Open measurement (lowerscope-cli run/compare --json)"),
                                                          QString(), tr("JSON (*.json);;All files (*)"));
        if (!path.isEmpty()) openMeasurement(path);
    });
    add(tr("Export &report…"), [this, owner] {
        const QString path = QFileDialog::getSaveFileName(owner, tr("Export Markdown report"), QStringLiteral("report.md"),
                                                          tr("Markdown (*.md)"));
        QString error;
        if (!path.isEmpty() && !exportReport(path, &error)) report(error);
    });
}

} // namespace lowerscope
