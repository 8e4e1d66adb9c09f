// The advisor's findings panel (findings_panel.h).
#include "views/advise/findings_panel.h"

#include "core/bounded_json.h"
#include "core/build/build_options.h"
#include "core/run/argspec.h"
#include "core/run/measure_job.h"
#include "core/run/profile_document.h"
#include "views/common/job_tracker.h"
#include "views/common/theme.h"
#include "views/common/workspace.h"
#include "views/measure/measure_pane.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFrame>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QTableWidget>
#include <QVBoxLayout>

#include <filesystem>
#include <optional>

namespace lowerscope {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

QString ruleTitle(const std::string& rule) {
    static const std::map<std::string, const char*> titles = {
        {"occupancy", "Occupancy"},
        {"uncoalesced", "Uncoalesced memory access"},
        {"bank_conflicts", "Shared-memory bank conflicts"},
        {"latency", "Memory latency not hidden"},
        {"divergence", "Divergence"},
        {"spills", "Register spills"},
        {"launch_overhead", "Launch overhead"},
        {"tail", "Tail effect"},
        {"math_precision", "Precise math"},
    };
    const auto it = titles.find(rule);
    if (it != titles.end()) return QString::fromLatin1(it->second);
    // A rule added since: its name in words ("few_warps" → "Few warps").
    QString words = q(rule).replace(QLatin1Char('_'), QLatin1Char(' '));
    if (!words.isEmpty()) words[0] = words[0].toUpper();
    return words;
}

QString verdictColour(const QString& verdict) {
    const bool dark = Theme::isDark();
    if (verdict == QLatin1String("held")) return dark ? QStringLiteral("#7fd48a") : QStringLiteral("#1e7b34");
    if (verdict == QLatin1String("failed")) return dark ? QStringLiteral("#ff8a80") : QStringLiteral("#b3261e");
    return dark ? QStringLiteral("#f2c661") : QStringLiteral("#8a5a00");
}

// A plain number of a launch field ("256"), else 0.
uint32_t plainNumber(const std::string& text) {
    bool ok = false;
    const uint v = QString::fromStdString(text).trimmed().toUInt(&ok);
    return ok ? v : 0;
}

QLabel* wrapped(const QString& text, QWidget* parent) {
    auto* l = new QLabel(text, parent);
    l->setWordWrap(true);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return l;
}

} // namespace

FindingsPanel::FindingsPanel(Workspace* session, MeasurePane* measure, QWidget* parent)
    : QWidget(parent), m_session(session), m_measure(measure), m_backend(runSuggestionJob) {
    m_jobs = session && session->jobs() ? session->jobs() : std::make_shared<JobTracker>();
    setObjectName(QStringLiteral("findingsPanel"));
    auto* top = new QVBoxLayout(this);
    top->setContentsMargins(2, 0, 2, 0);
    auto* head = new QHBoxLayout;
    auto* title = new QLabel(tr("<b>Findings</b>"), this);
    m_status = wrapped(QString(), this);
    m_cancel = new QPushButton(tr("Cancel test"), this);
    m_cancel->setEnabled(false);
    m_cancel->setVisible(false);
    head->addWidget(title);
    head->addWidget(m_status, 1);
    head->addWidget(m_cancel);
    top->addLayout(head);
    m_error = wrapped(QString(), this);
    m_error->setVisible(false);
    m_error->setStyleSheet(QStringLiteral("QLabel { background: #fbd5d7; color: #5c0b10; border: 1px solid #c0392b; "
                                          "border-radius: 3px; padding: 4px; }"));
    top->addWidget(m_error);
    m_scroll = new QScrollArea(this);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    top->addWidget(m_scroll, 1);
    setMinimumWidth(320);
    connect(m_cancel, &QPushButton::clicked, this, &FindingsPanel::cancel);
    if (session) {
        // Resources and the build's options are part of the evidence: a new build rereads them.
        connect(session, &Workspace::snapshotChanged, this, &FindingsPanel::rebuild);
        connect(session, &Workspace::kernelChanged, this, &FindingsPanel::rebuild);
    }
    if (measure) {
        // Without a profile the launch is the evidence: a new grid or block rereads it.
        connect(measure, &MeasurePane::launchChanged, this, [this] {
            if (!m_document) rebuild();
        });
    }
    rebuild();
}

FindingsPanel::~FindingsPanel() {
    if (m_jobs) m_jobs->cancelOwnedBy(this, true);
}

void FindingsPanel::setProfile(std::shared_ptr<const nlohmann::json> document) {
    if (document && document == m_document) return;
    m_document = std::move(document);
    rebuild();
}

void FindingsPanel::rebuild() {
    m_findings.clear();
    m_variants.clear();
    m_problem.clear();
    m_kernel.clear();
    const SnapshotPtr snap = m_session ? m_session->snapshot() : nullptr;
    const KernelModel* k = m_session ? m_session->kernel() : nullptr;
    if (!snap || !k) {
        m_problem = m_document ? tr("Build the kernel the profile was taken on.")
                               : tr("No profile shown on this build: press Profile, or File → Open profile…");
    } else {
        try {
            AdviseEvidence e;
            if (m_document) {
                e = evidenceFromProfileDocument(*m_document);
            } else {
                // No profile: the rules that need only the build and the launch (as `advise
                // --static`): SASS rows without counts, the SM count of an H100 SXM or H200.
                e = staticEvidence(k->mangled, &k->sass, kStaticSmCount, "assumed");
            }
            for (const auto& ka : snap->result.kernels)
                if (ka.mangled == k->mangled) e.resources = ka.resources;
            if (k->ptxFunction >= 0 && k->ptxFunction < int(snap->model.ptx.functions.size()))
                e.bounds = snap->model.ptx.functions[size_t(k->ptxFunction)].launchBounds;
            if (e.arch.empty()) e.arch = snap->result.arch;
            e.maxRegCount = snap->options.maxRegCount;
            e.fastMath = snap->options.fastMath;
            if (m_measure) {
                // The launch the Measure pane holds when the document does not say: resolved against
                // the kernel's parameters (expressions such as ceil(n/256)), else plain numbers only.
                const LaunchText l = m_measure->launch();
                std::optional<ResolvedLaunch> resolved;
                if (k->ptxFunction >= 0 && k->ptxFunction < int(snap->model.ptx.functions.size())) {
                    try {
                        LaunchSpec spec;
                        spec.kernel = k->mangled;
                        applyLaunchText(l, spec);
                        resolved = resolveLaunch(spec, snap->model.ptx.functions[size_t(k->ptxFunction)].params, k->name);
                    } catch (const std::exception&) {
                        // A launch that does not resolve (yet): the plain numbers below.
                    }
                }
                auto dims = [](const std::vector<std::string>& t, std::array<uint32_t, 3>& d) {
                    std::array<uint32_t, 3> v{1, 1, 1};
                    for (size_t i = 0; i < t.size() && i < 3; ++i)
                        if (!(v[i] = plainNumber(t[i]))) return;
                    d = v;
                };
                if (resolved) {
                    e.dynamicSharedBytes = int(resolved->sharedBytes);
                    if (e.block[0] == 0) e.block = resolved->block;
                    if (e.grid[0] == 0) e.grid = resolved->grid;
                } else {
                    e.dynamicSharedBytes = int(plainNumber(l.sharedBytes));
                    if (e.block[0] == 0) dims(l.block, e.block);
                    if (e.grid[0] == 0) dims(l.grid, e.grid);
                }
            }
            std::vector<Tunable> tunables;
            const QString path = m_session->sourcePath();
            if (!path.isEmpty() && !path.startsWith(QLatin1Char(':'))) {
                const std::string sidecar = sidecarPathFor(path.toStdString());
                std::string error;
                if (std::filesystem::exists(sidecar))
                    if (auto j = readJsonFileBounded(sidecar, error)) {
                        const std::string plain = k->name.substr(0, k->name.find('('));
                        try {
                            tunables = tunablesFromSidecar(*j, plain);
                        } catch (const std::invalid_argument& err) {
                            m_problem = tr("%1: %2 (no tunable variants)").arg(q(sidecar), q(err.what()));
                        }
                    }
            }
            m_kernel = k->mangled;
            m_findings = adviseFindings(e);
            m_variants = proposeVariants(m_findings, e, tunables, snap->options);
        } catch (const std::exception& err) {
            m_problem = tr("The profile's evidence cannot be read: %1").arg(q(err.what()));
        }
    }
    fill();
}

void FindingsPanel::fill() {
    m_evidence.assign(m_findings.size(), nullptr);
    m_testButtons.assign(m_variants.size(), nullptr);
    m_verdicts.assign(m_variants.size(), nullptr);
    auto* cards = new QWidget;
    auto* layout = new QVBoxLayout(cards);
    layout->setContentsMargins(0, 0, 4, 0);
    layout->setSpacing(6);
    size_t testable = 0;
    for (const Variant& v : m_variants) testable += v.notTestable.empty() ? 1 : 0;
    if (!m_kernel.empty() && m_problem.isEmpty() && m_document)
        m_status->setText(m_findings.empty()
                              ? tr("No rule's evidence points at a limiter in this profile.")
                              : tr("%n finding(s) from the profile; ", nullptr, int(m_findings.size())) +
                                    tr("%n variant(s) Lowerscope can build and test.", nullptr, int(testable)));
    else if (!m_kernel.empty() && m_problem.isEmpty())
        m_status->setText(
            (m_findings.empty() ? tr("No profile: the build and the launch alone show no limiter. ")
                                : tr("No profile: %n finding(s) from the build and the launch alone (%1 SMs assumed); ",
                                     nullptr, int(m_findings.size()))
                                          .arg(kStaticSmCount) +
                                      tr("%n variant(s) Lowerscope can build and test. ", nullptr, int(testable))) +
            tr("Press Profile for the findings measured evidence adds."));
    else
        m_status->setText(m_problem);

    const QString grey = Theme::isDark() ? QStringLiteral("#a8a8a8") : QStringLiteral("#5a5a5a");
    const std::string mainFile = m_session ? m_session->mainRecordedFile() : std::string();
    for (size_t fi = 0; fi < m_findings.size(); ++fi) {
        const Finding& f = m_findings[fi];
        auto* card = new QFrame(cards);
        card->setFrameShape(QFrame::StyledPanel);
        card->setObjectName(QStringLiteral("finding_%1").arg(q(f.id)));
        auto* c = new QVBoxLayout(card);
        c->setContentsMargins(6, 4, 6, 6);
        c->setSpacing(3);
        auto* header = new QLabel(card);
        header->setText(tr("<b>%1</b> <span style='color:%2'>%3</span> — predicted B/A <b>%4</b>, confidence %5")
                            .arg(ruleTitle(f.rule).toHtmlEscaped(), grey, q(f.id).toHtmlEscaped(),
                                 q(ratioText(f.prediction.ratio)), q(confidenceName(f.prediction.confidence))));
        header->setWordWrap(true);
        c->addWidget(header);
        c->addWidget(wrapped(q(f.limiter), card));
        if (!f.facts.empty()) {
            QStringList facts;
            for (const auto& x : f.facts) facts << q(x).toHtmlEscaped();
            auto* l = wrapped(QStringLiteral("<span style='color:%1'>%2</span>").arg(grey, facts.join(QStringLiteral(" · "))), card);
            c->addWidget(l);
        }
        auto* formula = wrapped(tr("Predicted: %1").arg(q(f.prediction.formula)), card);
        formula->setTextFormat(Qt::PlainText);
        c->addWidget(formula);
        auto* conf = wrapped(tr("Confidence %1: %2").arg(q(confidenceName(f.prediction.confidence)),
                                                         q(f.prediction.confidenceReason)), card);
        conf->setTextFormat(Qt::PlainText);
        c->addWidget(conf);

        if (!f.rows.empty()) {
            auto* t = new QTableWidget(int(f.rows.size()), 4, card);
            t->setObjectName(QStringLiteral("evidence"));
            t->setHorizontalHeaderLabels({tr("SASS"), tr("Opcode"), tr("Line"), tr("What it shows")});
            t->verticalHeader()->setVisible(false);
            t->verticalHeader()->setDefaultSectionSize(20);
            t->setEditTriggers(QAbstractItemView::NoEditTriggers);
            t->setSelectionBehavior(QAbstractItemView::SelectRows);
            t->setSelectionMode(QAbstractItemView::SingleSelection);
            t->setWordWrap(false);
            t->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
            t->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
            t->setToolTip(tr("The rows that show this finding: click one to select its SASS instruction (and its "
                             "source and PTX lines) in the code panes"));
            for (size_t r = 0; r < f.rows.size(); ++r) {
                const EvidenceRow& e = f.rows[r];
                auto* addr = new QTableWidgetItem(QStringLiteral("0x%1").arg(e.address, 4, 16, QLatin1Char('0')));
                addr->setData(Qt::UserRole, uint(e.address));
                t->setItem(int(r), 0, addr);
                t->setItem(int(r), 1, new QTableWidgetItem(q(e.opcode)));
                QString line;
                if (e.line > 0)
                    // The document records the file as the profiled build named it: the open
                    // document's lines go without a file name, as in the hot lines.
                    line = (e.file.empty() || QFileInfo(q(e.file)).fileName() == QFileInfo(q(mainFile)).fileName()
                                ? QString()
                                : QFileInfo(q(e.file)).fileName() + QLatin1Char(':')) +
                           QString::number(e.line);
                auto* li = new QTableWidgetItem(line);
                li->setToolTip(q(e.file));
                t->setItem(int(r), 2, li);
                auto* d = new QTableWidgetItem(q(e.detail));
                d->setToolTip(q(e.detail));
                t->setItem(int(r), 3, d);
            }
            t->resizeColumnsToContents();
            t->horizontalHeader()->setStretchLastSection(true);
            const int h = t->horizontalHeader()->height() + 20 * int(f.rows.size()) + 2 * t->frameWidth() + 2;
            t->setFixedHeight(h);
            connect(t, &QTableWidget::cellClicked, this, [this, t](int row, int) {
                const QTableWidgetItem* item = t->item(row, 0);
                if (!item || !m_session) return;
                m_session->selectSassAddress(item->data(Qt::UserRole).toUInt());
            });
            m_evidence[fi] = t;
            c->addWidget(t);
        }

        for (size_t vi = 0; vi < m_variants.size(); ++vi) {
            const Variant& v = m_variants[vi];
            if (v.findingId != f.id) continue;
            auto* row = new QHBoxLayout;
            auto* text = wrapped(tr("<b>Variant</b>: %1 — predicted B/A %2 (%3)")
                                     .arg(q(v.change).toHtmlEscaped(), q(ratioText(v.prediction.ratio)),
                                          q(confidenceName(v.prediction.confidence))),
                                 card);
            text->setToolTip(q(v.prediction.formula));
            auto* button = new QPushButton(tr("Test this"), card);
            button->setObjectName(QStringLiteral("testThis"));
            if (!v.notTestable.empty()) {
                button->setEnabled(false);
                button->setToolTip(tr("Not testable as an A/B of one launch: %1").arg(q(v.notTestable)));
            } else {
                button->setToolTip(tr("Build this variant as B and measure A and B interleaved on the same buffers "
                                      "(outputs compared); the result is judged against the prediction and kept as "
                                      "an experiment entry of the session"));
            }
            connect(button, &QPushButton::clicked, this, [this, vi] { test(vi); });
            row->addWidget(text, 1);
            row->addWidget(button, 0, Qt::AlignTop);
            c->addLayout(row);
            auto* verdict = wrapped(QString(), card);
            verdict->setVisible(false);
            c->addWidget(verdict);
            m_testButtons[vi] = button;
            m_verdicts[vi] = verdict;
        }
        layout->addWidget(card);
    }
    layout->addStretch(1);
    m_scroll->setWidget(cards); // deletes the previous cards
    m_cards = cards;
    showVerdicts();
}

void FindingsPanel::showVerdicts() {
    for (size_t i = 0; i < m_variants.size(); ++i) {
        QLabel* l = m_verdicts[i];
        QPushButton* b = m_testButtons[i];
        if (!l || !b) continue;
        const bool running = m_running && i == m_runningIndex;
        b->setText(running ? tr("Testing…") : tr("Test this"));
        if (m_variants[i].notTestable.empty()) b->setEnabled(!m_running);
        const AdviceEntry* last = nullptr;
        for (const AdviceEntry& e : m_entries)
            if (e.variant == q(m_variants[i].id) && e.kernel == q(m_kernel)) last = &e;
        if (running) continue;
        if (!last) {
            l->setVisible(false);
            continue;
        }
        QString measured;
        if (last->test.is_object() && last->test.value("measured", false)) {
            const double r = last->test.value("ratio", 0.0), lo = last->test.value("ci_low", 0.0),
                         hi = last->test.value("ci_high", 0.0);
            measured = tr("measured B/A %1 (95 % CI %2–%3); ").arg(r, 0, 'f', 3).arg(lo, 0, 'f', 3).arg(hi, 0, 'f', 3);
        }
        l->setText(QStringLiteral("<b style='color:%1'>%2</b>: %3%4")
                       .arg(verdictColour(last->verdict), last->verdict.toHtmlEscaped(), measured.toHtmlEscaped(),
                            last->reason.toHtmlEscaped()));
        l->setVisible(true);
    }
}

void FindingsPanel::showError(const QString& text) {
    m_error->setText(text);
    m_error->setVisible(!text.isEmpty());
}

QString FindingsPanel::errorText() const { return m_error->isHidden() ? QString() : m_error->text(); }

QTableWidget* FindingsPanel::evidenceTable(size_t finding) const {
    return finding < m_evidence.size() ? m_evidence[finding] : nullptr;
}
QPushButton* FindingsPanel::testButton(size_t variant) const {
    return variant < m_testButtons.size() ? m_testButtons[variant] : nullptr;
}
QLabel* FindingsPanel::verdictLabel(size_t variant) const {
    return variant < m_verdicts.size() ? m_verdicts[variant] : nullptr;
}

bool FindingsPanel::requestFor(const Variant& v, SuggestionJobRequest& r, QString& why) {
    if (!MeasurePane::sideFromSession(m_session, QStringLiteral("A"), r.a, why)) return false;
    const SnapshotPtr snap = m_session->snapshot();
    std::string error;
    if (!applyVariantFlags(snap->options, v.optionFlags, r.optionsB, error)) {
        why = tr("B's options: %1").arg(q(error));
        return false;
    }
    // B builds the editor's text as it is now, next to nothing else: the original's folder joins
    // the include path so its headers are found (as the series does).
    if (!m_sources.isValid()) {
        why = tr("No folder for B's source.");
        return false;
    }
    QString name = QFileInfo(m_session->displayName()).fileName();
    if (name.isEmpty()) name = QStringLiteral("kernel.cu");
    const QString path = QDir(m_sources.path()).filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(m_session->text().toUtf8()) < 0) {
        why = tr("Cannot write B's source to %1.").arg(path);
        return false;
    }
    file.close();
    r.sourcePath = path.toStdString();
    const QString original = m_session->sourcePath();
    if (!original.isEmpty() && !original.startsWith(QLatin1Char(':')) && QFileInfo::exists(original))
        r.optionsB.includeDirs.push_back(QFileInfo(original).absolutePath().toStdString());
    const KernelModel* k = m_session->kernel();
    r.launchA = m_measure ? m_measure->launch()
                          : defaultLaunch(original.toStdString(), k ? k->name : std::string(), r.a.params);
    r.launchB = r.launchA;
    if (v.block) r.launchB.block = dimensionText(*v.block);
    if (v.grid) r.launchB.grid = dimensionText(*v.grid);
    if (m_measure) {
        r.deadlineS = m_measure->deadlineSeconds();
        r.runnerCommand = m_measure->runnerCommand();
    }
    return true;
}

quint64 FindingsPanel::test(size_t index) {
    showError(QString());
    if (index >= m_variants.size()) return 0;
    const Variant v = m_variants[index];
    if (!v.notTestable.empty()) {
        showError(tr("%1 cannot be tested as an A/B of one launch: %2").arg(q(v.change), q(v.notTestable)));
        return 0;
    }
    if (m_running) {
        showError(tr("A test is running: wait for it or cancel it first."));
        return 0;
    }
    if (m_measure && m_measure->deviceState() == MeasurePane::DeviceState::Unavailable) {
        showError(tr("Test this needs a GPU where the runner runs. %1 Set a remote runner host in the Measure pane.")
                      .arg(m_measure->deviceText()));
        return 0;
    }
    SuggestionJobRequest request;
    QString why;
    if (!requestFor(v, request, why)) {
        showError(tr("Cannot test %1: %2").arg(q(v.change), why));
        return 0;
    }
    const Finding* fp = nullptr;
    for (const Finding& f : m_findings)
        if (f.id == v.findingId) fp = &f;
    const Finding finding = fp ? *fp : Finding{};
    const std::string kernel = m_kernel;
    const QString fileName = QFileInfo(m_session->displayName()).fileName();
    QPointer<FindingsPanel> self(this);
    auto backend = m_backend;
    const quint64 id = m_jobs->start<SuggestionJobOutcome>(
        this, QStringLiteral("advise"), tr("Test %1").arg(q(v.id)),
        [backend, request, self](quint64 jobId, std::atomic<bool>* cancel) {
            SuggestionStageFn stage = [self, jobId](const std::string& s) {
                QMetaObject::invokeMethod(
                    self.data(),
                    [self, jobId, s] {
                        if (self && self->m_running == jobId) self->m_status->setText(self->tr("Testing: %1…").arg(q(s)));
                    },
                    Qt::QueuedConnection);
            };
            try {
                return backend(request, cancel, stage);
            } catch (const std::exception& e) {
                SuggestionJobOutcome out;
                out.test.error = e.what();
                return out;
            }
        },
        [this, v, finding, kernel, fileName, optionsB = request.optionsB](quint64 jobId, SuggestionJobOutcome outcome,
                                                                           bool) {
            if (jobId != m_running) return;
            m_running = 0;
            m_cancel->setEnabled(false);
            m_cancel->setVisible(false);
            if (outcome.cancelled) {
                m_status->setText(tr("Test of %1 cancelled; nothing recorded.").arg(q(v.change)));
                showVerdicts();
                emit testFinished(jobId, false);
                return;
            }
            const Judgement j = judgeSuggestion(v.prediction, outcome.test);
            const ExperimentCard card = suggestionCard(finding, v, outcome.test, j);
            AdviceEntry e;
            e.title = tr("advise %1: %2").arg(fileName, q(v.id));
            e.kernel = q(kernel);
            e.finding = q(v.findingId);
            e.variant = q(v.id);
            e.verdict = q(verdictName(j.verdict));
            e.reason = q(j.reason);
            e.optionsB = q(shellQuote(toNvccArgs(optionsB)));
            e.card = ExperimentCardText{q(card.hypothesis), q(card.implementation), q(card.measurement), q(card.result),
                                        q(card.interpretation)};
            if (v.block || v.grid) {
                auto dims = [this](const std::optional<std::array<uint32_t, 3>>& d) {
                    return d ? QStringLiteral("%1,%2,%3").arg((*d)[0]).arg((*d)[1]).arg((*d)[2]) : tr("as A");
                };
                e.card.implementation += tr(" B's launch: grid %1, block %2 (A's as in the Measure pane).")
                                             .arg(dims(v.grid), dims(v.block));
            }
            e.test = suggestionTestJson(v, outcome.test, j);
            e.measurement = outcome.measurement;
            m_entries.push_back(e);
            if (!outcome.test.measured)
                showError(tr("The test of %1 was not measured: %2. Recorded as failed.")
                              .arg(q(v.change), q(outcome.test.error)));
            m_status->setText(tr("Tested %1: %2. Recorded as an experiment entry of the session (%n test(s)).", nullptr,
                                 int(m_entries.size()))
                                  .arg(q(v.change), e.verdict));
            showVerdicts();
            emit entryRecorded(e);
            emit testFinished(jobId, outcome.test.measured);
        });
    m_running = id;
    m_runningIndex = index;
    m_cancel->setEnabled(true);
    m_cancel->setVisible(true);
    m_status->setText(tr("Testing %1: building B…").arg(q(v.change)));
    showVerdicts();
    return id;
}

void FindingsPanel::cancel() {
    if (m_running) {
        m_jobs->cancel(m_running);
        m_status->setText(tr("Cancelling: stopping the runner…"));
    }
}

void FindingsPanel::setEntries(const std::vector<AdviceEntry>& entries) {
    m_entries = entries;
    showVerdicts();
}

} // namespace lowerscope
