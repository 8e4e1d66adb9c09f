#include "views/experiment/experiment_record.h"

#include "core/experiment/experiment_session.h"
#include "core/experiment/series.h"
#include "core/untrusted.h"
#include "views/common/dialogs.h"

#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace lowerscope {

using nlohmann::json;

namespace {

std::string s(const QString& q) { return q.toStdString(); }
QString q(const std::string& s) { return QString::fromStdString(s); }

// The GUI keeps a launch detail core's SessionLaunch has no field for (the measuring mode);
// they travel in an extra top-level key, which core preserves on every round trip.
constexpr const char* kGuiKey = "gui_launch";
// The advisor's tested suggestions (AdviceEntry), one object each.
constexpr const char* kAdviceKey = "advice";

json cardJson(const ExperimentCardText& c) {
    return json{{"hypothesis", s(c.hypothesis)}, {"implementation", s(c.implementation)}, {"measurement", s(c.measurement)},
                {"result", s(c.result)}, {"interpretation", s(c.interpretation)}};
}

BuildConfig toCore(const ExperimentSide& side) {
    BuildConfig c;
    c.label = s(side.label);
    c.kernel = s(side.kernel);
    c.options = side.options;
    c.ownSource = side.ownSource;
    c.source = SourceFile{s(side.sourceName), s(side.sourceText)};
    return c;
}

ExperimentSide fromCore(const BuildConfig& c) {
    ExperimentSide side;
    side.label = q(c.label);
    side.kernel = q(c.kernel);
    side.options = c.options;
    side.ownSource = c.ownSource;
    side.sourceName = q(c.source.name);
    side.sourceText = q(c.source.text);
    return side;
}

ExperimentSession toCore(const ExperimentData& d) {
    ExperimentSession session;
    session.title = s(d.title);
    session.source = SourceFile{s(d.sourceName), s(d.sourceText)};
    session.a = toCore(d.a);
    session.hasB = d.hasB;
    session.b = toCore(d.b);
    session.launch.grid = d.launch.grid;
    session.launch.block = d.launch.block;
    session.launch.sharedBytes = d.launch.sharedBytes;
    session.launch.args = d.launch.args;
    session.launch.outputs = d.launch.outputs;
    session.launch.bytes = d.launch.bytes;
    session.launch.flops = d.launch.flops;
    session.measurements = d.measurements;
    session.card = ExperimentCard{s(d.card.hypothesis), s(d.card.implementation), s(d.card.measurement),
                                  s(d.card.result), s(d.card.interpretation)};
    session.extra = d.extra.is_object() ? d.extra : json::object();
    session.extra[kGuiKey] = json{{"mode", s(d.mode)}};
    if (!d.advice.empty()) {
        json advice = json::array();
        for (const AdviceEntry& e : d.advice) advice.push_back(adviceEntryToJson(e));
        session.extra[kAdviceKey] = std::move(advice);
    } else {
        session.extra.erase(kAdviceKey);
    }
    return session;
}

ExperimentData fromCore(const ExperimentSession& session) {
    ExperimentData d;
    d.title = q(session.title);
    d.sourceName = q(session.source.name);
    d.sourceText = q(session.source.text);
    d.a = fromCore(session.a);
    d.hasB = session.hasB;
    d.b = fromCore(session.b);
    d.launch.grid = session.launch.grid;
    d.launch.block = session.launch.block;
    d.launch.sharedBytes = session.launch.sharedBytes;
    d.launch.args = session.launch.args;
    d.launch.outputs = session.launch.outputs;
    d.launch.bytes = session.launch.bytes;
    d.launch.flops = session.launch.flops;
    d.measurements = session.measurements;
    d.card = ExperimentCardText{q(session.card.hypothesis), q(session.card.implementation), q(session.card.measurement),
                                q(session.card.result), q(session.card.interpretation)};
    d.extra = session.extra;
    if (auto it = d.extra.find(kGuiKey); it != d.extra.end()) {
        const json& g = *it;
        // Written by this GUI, but a hand-edited file may hold anything: take only what fits.
        if (g.is_object()) {
            if (g.contains("mode") && g["mode"].is_string()) d.mode = q(g["mode"].get<std::string>());
        }
        d.extra.erase(kGuiKey);
    }
    if (auto it = d.extra.find(kAdviceKey); it != d.extra.end()) {
        if (it->is_array()) {
            for (const json& j : *it) {
                AdviceEntry e;
                if (adviceEntryFromJson(j, e)) d.advice.push_back(std::move(e));
            }
        }
        d.extra.erase(kAdviceKey);
    }
    return d;
}

} // namespace

json adviceEntryToJson(const AdviceEntry& e) {
    return json{{"title", s(e.title)},         {"kernel", s(e.kernel)},   {"finding", s(e.finding)},
                {"variant", s(e.variant)},     {"verdict", s(e.verdict)}, {"reason", s(e.reason)},
                {"options_b", s(e.optionsB)},  {"card", cardJson(e.card)}, {"test", e.test},
                {"measurement", e.measurement}};
}

bool adviceEntryFromJson(const json& j, AdviceEntry& out) {
    if (!j.is_object()) return false;
    auto text = [&](const char* key) {
        const auto it = j.find(key);
        return it != j.end() && it->is_string() ? q(it->get<std::string>()) : QString();
    };
    AdviceEntry e;
    e.title = text("title");
    e.kernel = text("kernel");
    e.finding = text("finding");
    e.variant = text("variant");
    e.verdict = text("verdict");
    e.reason = text("reason");
    e.optionsB = text("options_b");
    if (e.variant.isEmpty() || e.verdict.isEmpty()) return false;
    if (const auto c = j.find("card"); c != j.end() && c->is_object()) {
        auto field = [&](const char* key) {
            const auto it = c->find(key);
            return it != c->end() && it->is_string() ? q(it->get<std::string>()) : QString();
        };
        e.card = ExperimentCardText{field("hypothesis"), field("implementation"), field("measurement"), field("result"),
                                    field("interpretation")};
    }
    if (const auto t = j.find("test"); t != j.end() && t->is_object()) e.test = *t;
    if (const auto m = j.find("measurement"); m != j.end() && m->is_object()) e.measurement = *m;
    out = std::move(e);
    return true;
}

bool loadExperiment(const QString& path, ExperimentData& out, QString& error) {
    ExperimentSession session;
    std::string message;
    if (!loadSession(path.toStdString(), session, message)) {
        error = q(message);
        return false;
    }
    out = fromCore(session);
    return true;
}

bool saveExperiment(const ExperimentData& data, const QString& path, QString& error) {
    try {
        saveSession(toCore(data), path.toStdString());
    } catch (const std::exception& e) {
        error = QString::fromUtf8(e.what());
        return false;
    }
    return true;
}

json experimentToJson(const ExperimentData& data) { return sessionToJson(toCore(data)); }

QStringList untrustedItems(const ExperimentData& data) {
    QStringList items;
    for (const TrustItem& t : untrustedSettings(toCore(data)))
        items << QStringLiteral("%1: %2 %3").arg(q(t.side), q(t.setting), q(t.value));
    return items;
}

QString trustFingerprint(const ExperimentData& data) { return q(trustFingerprint(toCore(data))); }

QString refusedSetting(const ExperimentData& data) { return q(refusedSetting(toCore(data))); }

bool resolveExperimentPaths(ExperimentData& data, const QString& sessionPath, QString& error) {
    ExperimentSession session = toCore(data);
    std::vector<std::string> roots{"."};
    if (!sessionPath.isEmpty()) roots.push_back(QFileInfo(sessionPath).absolutePath().toStdString());
    try {
        resolveSessionPaths(session, roots);
    } catch (const SessionError& e) {
        error = q(e.what());
        return false;
    }
    data.sourceName = q(session.source.name);
    if (data.a.ownSource) data.a.sourceName = q(session.a.source.name);
    if (data.hasB && data.b.ownSource) data.b.sourceName = q(session.b.source.name);
    return true;
}

bool askTrustWithMessageBox(QWidget* parent, const QString& sessionPath, const QStringList& items) {
    if (!dialogsAllowed()) {
        // Nobody to ask (a scripted run): an untrusted session's flags are never built.
        showProblem(parent, QObject::tr("Untrusted session"),
                    QObject::tr("%1 carries custom compiler settings (%2); not opened without a person's consent")
                        .arg(sessionPath, items.join(QStringLiteral("; "))));
        return false;
    }
    QMessageBox box(parent);
    box.setIcon(QMessageBox::Warning);
    box.setWindowTitle(QObject::tr("Build an untrusted session?"));
    box.setText(QObject::tr("The session %1 carries custom compiler settings. Compiler flags can run programs "
                            "or write files. Build only if you trust where it came from.")
                    .arg(sessionPath));
    box.setDetailedText(items.join(QLatin1Char('\n')));
    box.setInformativeText(items.mid(0, 6).join(QLatin1Char('\n')) + (items.size() > 6 ? QStringLiteral("\n…") : QString()));
    QPushButton* build = box.addButton(QObject::tr("Open and build"), QMessageBox::AcceptRole);
    box.addButton(QObject::tr("Don't open"), QMessageBox::RejectRole);
    QPushButton* refuse = box.buttons().isEmpty() ? nullptr : qobject_cast<QPushButton*>(box.buttons().last());
    if (refuse) box.setDefaultButton(refuse);
    box.exec();
    return box.clickedButton() == static_cast<QAbstractButton*>(build);
}

// ------------------------------------------------------------------------ ExperimentCardEditor

ExperimentCardEditor::ExperimentCardEditor(QWidget* parent) : QWidget(parent) {
    m_title = new QLineEdit(this);
    m_title->setPlaceholderText(tr("Experiment title"));
    static const char* labels[5] = {"Hypothesis", "Implementation", "Measurement", "Result", "Interpretation"};
    static const char* hints[5] = {
        "What do you expect, and why? (e.g. fast-math turns the division into MUFU.RCP + FMUL)",
        "What changed between A and B (options, code)?",
        "How was it measured (device, mode, launch)? Runs are appended here.",
        "The numbers: speedup with its interval, outputs agreement.",
        "What it means; what to try next."};
    auto* form = new QFormLayout;
    form->addRow(tr("Title"), m_title);
    for (int i = 0; i < 5; ++i) {
        m_fields[i] = new QPlainTextEdit(this);
        m_fields[i]->setPlaceholderText(tr(hints[i]));
        m_fields[i]->setTabChangesFocus(true);
        m_fields[i]->setMinimumHeight(48);
        form->addRow(tr(labels[i]), m_fields[i]);
        connect(m_fields[i], &QPlainTextEdit::textChanged, this, &ExperimentCardEditor::edited);
    }
    connect(m_title, &QLineEdit::textEdited, this, &ExperimentCardEditor::edited);
    // A parameter series (issue 15): the same spec as `lowerscope-cli experiment --vary`.
    m_vary = new QLineEdit(this);
    m_vary->setObjectName(QStringLiteral("varyEdit"));
    m_vary->setPlaceholderText(tr("-D CHAINS=1,2,4,8   --maxrregcount=32,64   --arg iters=1024,4096   --block=32;64"));
    m_vary->setToolTip(tr("Vary one parameter over a list: a define, a build option, a launch argument or a "
                          "dimension. Every point is built and all are measured in one interleaved run."));
    m_runSeries = new QPushButton(tr("Run series"), this);
    m_runSeries->setObjectName(QStringLiteral("runSeriesButton"));
    m_runSeries->setEnabled(false);
    m_varyError = new QLabel(this);
    m_varyError->setObjectName(QStringLiteral("varyError"));
    m_varyError->setWordWrap(true);
    m_varyError->setStyleSheet(QStringLiteral("color: #c0392b"));
    m_varyError->hide();
    auto* varyRow = new QHBoxLayout;
    varyRow->addWidget(m_vary, 1);
    varyRow->addWidget(m_runSeries);
    form->addRow(tr("Vary"), varyRow);
    form->addRow(QString(), m_varyError);
    connect(m_vary, &QLineEdit::textChanged, this, [this] { validateVary(); });
    connect(m_vary, &QLineEdit::returnPressed, this, [this] {
        if (m_runSeries->isEnabled()) emit runSeriesRequested(m_vary->text());
    });
    connect(m_runSeries, &QPushButton::clicked, this, [this] { emit runSeriesRequested(m_vary->text()); });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(form);
}

bool ExperimentCardEditor::validateVary() {
    const QString text = m_vary->text().trimmed();
    QString error;
    if (!text.isEmpty()) {
        try {
            parseSeriesSpec(text.toStdString());
        } catch (const std::invalid_argument& e) {
            error = QString::fromStdString(e.what());
        }
    }
    m_varyError->setText(error);
    m_varyError->setVisible(!error.isEmpty());
    m_runSeries->setEnabled(!text.isEmpty() && error.isEmpty());
    return !text.isEmpty() && error.isEmpty();
}

QString ExperimentCardEditor::varySpec() const { return m_vary->text(); }
void ExperimentCardEditor::setVarySpec(const QString& spec) { m_vary->setText(spec); }

ExperimentCardText ExperimentCardEditor::card() const {
    auto text = [this](int i) { return m_whole[i].isNull() ? m_fields[i]->toPlainText() : m_whole[i]; };
    return {text(0), text(1), text(2), text(3), text(4)};
}

void ExperimentCardEditor::setCard(const ExperimentCardText& c) {
    const QString* values[5] = {&c.hypothesis, &c.implementation, &c.measurement, &c.result, &c.interpretation};
    for (int i = 0; i < 5; ++i) {
        // A field longer than an editor lays out quickly (a session from anyone may hold megabytes
        // on one line, which kept the GUI busy for minutes) is shown cut and read-only; the whole
        // text is kept and saved back unchanged.
        const QByteArray utf8 = values[i]->toUtf8();
        m_whole[i] = QString();
        if (size_t(utf8.size()) > kShownFieldBytes) {
            m_whole[i] = *values[i];
            m_fields[i]->setPlainText(QString::fromStdString(boundedText(utf8.toStdString(), kShownFieldBytes)));
            m_fields[i]->setReadOnly(true);
            m_fields[i]->setToolTip(tr("This field holds %1 bytes: shown cut and read-only here; the session keeps "
                                       "it whole.").arg(utf8.size()));
        } else {
            m_fields[i]->setPlainText(*values[i]);
            m_fields[i]->setReadOnly(false);
            m_fields[i]->setToolTip(QString());
        }
    }
}

QString ExperimentCardEditor::title() const { return m_title->text(); }
void ExperimentCardEditor::setTitle(const QString& title) { m_title->setText(title); }

void ExperimentCardEditor::appendMeasurement(const QString& line) {
    if (!m_whole[2].isNull()) m_whole[2] += QLatin1Char('\n') + line;
    m_fields[2]->appendPlainText(line);
}

} // namespace lowerscope
