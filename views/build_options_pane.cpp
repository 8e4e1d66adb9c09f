#include "views/build_options_pane.h"

#include "views/workspace.h"

#include "core/build/json_io.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFontDatabase>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>

namespace lowerscope {

namespace {
QComboBox* triState(QWidget* parent) {
    auto* c = new QComboBox(parent);
    c->addItem(QObject::tr("default"), -1);
    c->addItem(QStringLiteral("true"), 1);
    c->addItem(QStringLiteral("false"), 0);
    return c;
}
QComboBox* optLevel(QWidget* parent) {
    auto* c = new QComboBox(parent);
    for (int i = 0; i <= 3; ++i) c->addItem(QStringLiteral("-O%1").arg(i), i);
    return c;
}
void setData(QComboBox* c, int value) {
    const int i = c->findData(value);
    if (i >= 0) c->setCurrentIndex(i);
}
// Whitespace-separated list; double quotes group words containing spaces.
std::vector<std::string> splitList(const QString& text) {
    std::vector<std::string> out;
    static const QRegularExpression re(QStringLiteral("\"([^\"]*)\"|(\\S+)"));
    for (auto it = re.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        out.push_back((m.captured(1).isNull() ? m.captured(2) : m.captured(1)).toStdString());
    }
    return out;
}
QString joinList(const std::vector<std::string>& items) {
    QStringList parts;
    for (const auto& s : items) {
        const QString q = QString::fromStdString(s);
        parts << (q.contains(QLatin1Char(' ')) ? QStringLiteral("\"%1\"").arg(q) : q);
    }
    return parts.join(QLatin1Char(' '));
}
} // namespace

BuildOptionsPane::BuildOptionsPane(Workspace* session, QWidget* parent) : QWidget(parent), m_session(session) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);
    auto* grid = new QGridLayout;
    grid->setHorizontalSpacing(10);
    grid->setVerticalSpacing(3);
    outer->addLayout(grid);

    m_arch = new QComboBox(this);
    m_arch->setObjectName(QStringLiteral("archCombo"));
    m_arch->setEditable(true);
    m_arch->setInsertPolicy(QComboBox::NoInsert);
    // Empty: the input's own (a PTX's .target, a binary's first cubin); a comma list builds each.
    m_arch->lineEdit()->setPlaceholderText(tr("from the input"));
    m_arch->setToolTip(tr("sm_XX; a list (sm_80,sm_90) builds each, the Input box switches between them"));
    m_arch->addItems({QStringLiteral("sm_80"), QStringLiteral("sm_86"), QStringLiteral("sm_89"), QStringLiteral("sm_90"),
                      QStringLiteral("sm_90a"), QStringLiteral("sm_100"), QStringLiteral("sm_120")});
    m_hostOpt = optLevel(this);
    m_ptxasOpt = optLevel(this);
    m_lineinfo = new QCheckBox(tr("-lineinfo"), this);
    m_debug = new QCheckBox(tr("-G (device debug)"), this);
    m_fastMath = new QCheckBox(tr("--use_fast_math"), this);
    m_edv = new QCheckBox(tr("--extra-device-vectorization"), this);
    m_ftz = triState(this);
    m_precDiv = triState(this);
    m_precSqrt = triState(this);
    m_fmad = triState(this);
    m_maxReg = new QSpinBox(this);
    m_maxReg->setRange(0, 255);
    m_maxReg->setSpecialValueText(tr("unlimited"));
    m_std = new QComboBox(this);
    m_std->addItem(tr("default"), QString());
    for (const char* s : {"c++14", "c++17", "c++20"}) m_std->addItem(QString::fromLatin1(s), QString::fromLatin1(s));
    m_defines = new QLineEdit(this);
    m_defines->setPlaceholderText(tr("N=1024 USE_FAST"));
    m_includes = new QLineEdit(this);
    m_includes->setPlaceholderText(tr("include dirs"));
    m_nvccFlags = new QLineEdit(this);
    m_nvccFlags->setPlaceholderText(tr("extra nvcc flags, verbatim"));
    m_ptxasFlags = new QLineEdit(this);
    m_ptxasFlags->setPlaceholderText(tr("-v --warn-on-spills"));

    auto label = [this](const QString& t) { return new QLabel(t, this); };
    // Labels of project-settable options, by their BuildOptions JSON key.
    auto keyLabel = [&](const QString& key, const QString& t) {
        QLabel* l = label(t);
        m_keyLabels.insert(key, l);
        m_labelTexts.insert(key, t);
        return l;
    };
    m_keyButtons = {{QStringLiteral("lineinfo"), m_lineinfo},
                    {QStringLiteral("device_debug"), m_debug},
                    {QStringLiteral("fast_math"), m_fastMath},
                    {QStringLiteral("extra_device_vectorization"), m_edv}};
    for (auto it = m_keyButtons.begin(); it != m_keyButtons.end(); ++it) m_labelTexts.insert(it.key(), (*it)->text());
    int r = 0;
    m_inputLabel = new QLabel(this);
    m_inputLabel->setObjectName(QStringLiteral("inputLabel"));
    m_inputLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_variant = new QComboBox(this);
    m_variant->setObjectName(QStringLiteral("variantCombo"));
    m_variant->setToolTip(tr("Which build the panes show: one of several architectures, an embedded cubin or PTX "
                             "of a binary, or a kernel of a Triton cache"));
    grid->addWidget(label(tr("Input")), r, 0);
    grid->addWidget(m_inputLabel, r, 1);
    grid->addWidget(m_variant, r++, 2, 1, 2);
    grid->addWidget(keyLabel(QStringLiteral("arch"), tr("Architecture")), r, 0);
    grid->addWidget(m_arch, r, 1);
    grid->addWidget(keyLabel(QStringLiteral("host_opt"), tr("Host / ptxas opt")), r, 2);
    auto* opts = new QHBoxLayout;
    opts->addWidget(m_hostOpt);
    opts->addWidget(m_ptxasOpt);
    grid->addLayout(opts, r++, 3);
    grid->addWidget(m_lineinfo, r, 0, 1, 2);
    grid->addWidget(m_debug, r++, 2, 1, 2);
    grid->addWidget(m_fastMath, r, 0, 1, 2);
    grid->addWidget(m_edv, r++, 2, 1, 2);
    grid->addWidget(keyLabel(QStringLiteral("ftz"), tr("-ftz")), r, 0);
    grid->addWidget(m_ftz, r, 1);
    grid->addWidget(keyLabel(QStringLiteral("prec_div"), tr("-prec-div")), r, 2);
    grid->addWidget(m_precDiv, r++, 3);
    grid->addWidget(keyLabel(QStringLiteral("prec_sqrt"), tr("-prec-sqrt")), r, 0);
    grid->addWidget(m_precSqrt, r, 1);
    grid->addWidget(keyLabel(QStringLiteral("fmad"), tr("-fmad")), r, 2);
    grid->addWidget(m_fmad, r++, 3);
    grid->addWidget(keyLabel(QStringLiteral("max_reg_count"), tr("-maxrregcount")), r, 0);
    grid->addWidget(m_maxReg, r, 1);
    grid->addWidget(keyLabel(QStringLiteral("std"), tr("-std")), r, 2);
    grid->addWidget(m_std, r++, 3);
    grid->addWidget(keyLabel(QStringLiteral("defines"), tr("Defines")), r, 0);
    grid->addWidget(m_defines, r++, 1, 1, 3);
    grid->addWidget(keyLabel(QStringLiteral("include_dirs"), tr("Include dirs")), r, 0);
    grid->addWidget(m_includes, r++, 1, 1, 3);
    grid->addWidget(keyLabel(QStringLiteral("extra_nvcc_flags"), tr("nvcc flags")), r, 0);
    grid->addWidget(m_nvccFlags, r++, 1, 1, 3);
    grid->addWidget(keyLabel(QStringLiteral("extra_ptxas_flags"), tr("ptxas flags")), r, 0);
    grid->addWidget(m_ptxasFlags, r++, 1, 1, 3);
    grid->setColumnStretch(1, 1);
    grid->setColumnStretch(3, 1);

    m_preview = new QPlainTextEdit(this);
    m_preview->setObjectName(QStringLiteral("nvccPreview"));
    m_preview->setReadOnly(true);
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    mono.setPointSize(9);
    m_preview->setFont(mono);
    m_preview->setMinimumHeight(40);
    m_preview->setToolTip(tr("The nvcc command the next build runs (then ptxas output is parsed and nvdisasm/cuobjdump run on the cubin)"));
    outer->addWidget(m_preview, 1);

    fromOptions(session->options());
    for (QComboBox* c : {m_hostOpt, m_ptxasOpt, m_ftz, m_precDiv, m_precSqrt, m_fmad, m_std})
        connect(c, &QComboBox::currentIndexChanged, this, &BuildOptionsPane::toSession);
    connect(m_arch, &QComboBox::currentTextChanged, this, &BuildOptionsPane::toSession);
    for (QCheckBox* c : {m_lineinfo, m_debug, m_fastMath, m_edv}) connect(c, &QCheckBox::toggled, this, &BuildOptionsPane::toSession);
    connect(m_maxReg, &QSpinBox::valueChanged, this, &BuildOptionsPane::toSession);
    for (QLineEdit* e : {m_defines, m_includes, m_nvccFlags, m_ptxasFlags})
        connect(e, &QLineEdit::textChanged, this, &BuildOptionsPane::toSession);
    connect(session, &Workspace::optionsChanged, this, [this] {
        if (m_session) fromOptions(m_session->options());
    });
    connect(session, &Workspace::documentChanged, this, &BuildOptionsPane::updatePreview);
    connect(session, &Workspace::documentChanged, this, &BuildOptionsPane::updateInput);
    connect(session, &Workspace::projectChanged, this, &BuildOptionsPane::updateInput);
    connect(session, &Workspace::projectChanged, this, &BuildOptionsPane::updateOrigins);
    connect(session, &Workspace::optionsChanged, this, &BuildOptionsPane::updateOrigins);
    connect(session, &Workspace::buildFinished, this, &BuildOptionsPane::updateInput);
    connect(m_variant, &QComboBox::activated, this, [this](int index) {
        if (m_session && index >= 0) m_session->setVariant(m_variant->itemData(index).toString());
    });
    updateInput();
}

QString BuildOptionsPane::originOf(const QString& key) const { return m_origins.value(key); }

void BuildOptionsPane::updateOrigins() {
    m_origins.clear();
    if (m_session && m_session->project()) {
        const auto& p = *m_session->project();
        const nlohmann::json now = m_session->options(), fromProject = p.options;
        for (const auto& key : p.fromProject) {
            const QString k = QString::fromStdString(key);
            // host_opt and ptxas_opt share one label.
            const bool same = now.value(key, nlohmann::json()) == fromProject.value(key, nlohmann::json());
            if (m_origins.value(k) != QLatin1String("changed")) m_origins.insert(k, same ? QStringLiteral("project") : QStringLiteral("changed"));
        }
        if (m_origins.contains(QStringLiteral("ptxas_opt")) && !m_origins.contains(QStringLiteral("host_opt")))
            m_origins.insert(QStringLiteral("host_opt"), m_origins.value(QStringLiteral("ptxas_opt")));
    }
    auto decorate = [this](const QString& key, const QString& plain) {
        const QString origin = m_origins.value(key);
        if (origin.isEmpty()) return std::pair{plain, QString()};
        const bool changed = origin == QLatin1String("changed");
        return std::pair{plain + (changed ? tr(" · changed") : tr(" · project")),
                         changed ? tr("Set by the project's compile database, changed here")
                                 : tr("From the project's compile database")};
    };
    for (auto it = m_keyLabels.begin(); it != m_keyLabels.end(); ++it) {
        const auto [text, tip] = decorate(it.key(), m_labelTexts.value(it.key()));
        (*it)->setText(text);
        (*it)->setToolTip(tip);
    }
    for (auto it = m_keyButtons.begin(); it != m_keyButtons.end(); ++it) {
        const auto [text, tip] = decorate(it.key(), m_labelTexts.value(it.key()));
        (*it)->setText(text);
        (*it)->setToolTip(tip);
    }
}

void BuildOptionsPane::updateInput() {
    if (!m_session) return;
    QString what;
    const SnapshotPtr snap = m_session->lastAttempt();
    if (m_session->isInputMode()) {
        const QString kind = snap ? QString::fromStdString(snap->result.inputKind) : QString();
        what = QStringLiteral("%1%2").arg(QFileInfo(m_session->inputPath()).fileName(),
                                          kind.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(kind));
    } else {
        what = m_session->displayName();
    }
    if (m_session->project())
        what += tr(" · project %1").arg(QFileInfo(QString::fromStdString(m_session->project()->database)).fileName());
    m_inputLabel->setText(what);
    m_inputLabel->setToolTip(m_session->project() ? QString::fromStdString(m_session->project()->database) : QString());
    m_variant->clear();
    if (snap) {
        for (const QString& v : snap->variants) {
            QString label = v;
            for (const auto& e : snap->result.embedded)
                if (QString::fromStdString(e.name) == v) {
                    QStringList kernels;
                    for (const auto& k : e.kernels) kernels << QString::fromStdString(k);
                    label = QStringLiteral("%1 — %2").arg(v, kernels.isEmpty() ? tr("no kernels") : kernels.join(QStringLiteral(", ")));
                }
            m_variant->addItem(label, v);
        }
        const int i = m_variant->findData(snap->variant);
        if (i >= 0) m_variant->setCurrentIndex(i);
    }
    m_variant->setVisible(m_variant->count() > 1);
}

void BuildOptionsPane::setArchitectures(const QStringList& archs) {
    if (archs.isEmpty()) return;
    m_updating = true;
    const QString current = m_arch->currentText();
    m_arch->clear();
    m_arch->addItems(archs);
    if (m_arch->findText(current) < 0) m_arch->addItem(current);
    m_arch->setCurrentText(current);
    m_updating = false;
}

void BuildOptionsPane::fromOptions(const BuildOptions& o) {
    m_updating = true;
    if (m_arch->findText(QString::fromStdString(o.arch)) < 0) m_arch->addItem(QString::fromStdString(o.arch));
    m_arch->setCurrentText(QString::fromStdString(o.arch));
    setData(m_hostOpt, o.hostOpt);
    setData(m_ptxasOpt, o.ptxasOpt);
    m_lineinfo->setChecked(o.lineinfo);
    m_debug->setChecked(o.deviceDebug);
    m_fastMath->setChecked(o.fastMath);
    m_edv->setChecked(o.extraDeviceVectorization);
    setData(m_ftz, o.ftz);
    setData(m_precDiv, o.precDiv);
    setData(m_precSqrt, o.precSqrt);
    setData(m_fmad, o.fmad);
    m_maxReg->setValue(o.maxRegCount);
    const int si = m_std->findData(QString::fromStdString(o.cppStd));
    if (si >= 0) m_std->setCurrentIndex(si);
    // Line edits are only rewritten when the parsed content differs, so typing is not disturbed.
    auto sync = [](QLineEdit* e, const std::vector<std::string>& v) {
        if (splitList(e->text()) != v) e->setText(joinList(v));
    };
    sync(m_defines, o.defines);
    sync(m_includes, o.includeDirs);
    sync(m_nvccFlags, o.extraNvccFlags);
    sync(m_ptxasFlags, o.extraPtxasFlags);
    m_updating = false;
    updatePreview();
}

void BuildOptionsPane::toSession() {
    if (m_updating || !m_session) return;
    BuildOptions o = m_session->options();
    o.arch = m_arch->currentText().trimmed().toStdString();
    o.hostOpt = m_hostOpt->currentData().toInt();
    o.ptxasOpt = m_ptxasOpt->currentData().toInt();
    o.lineinfo = m_lineinfo->isChecked();
    o.deviceDebug = m_debug->isChecked();
    o.fastMath = m_fastMath->isChecked();
    o.extraDeviceVectorization = m_edv->isChecked();
    o.ftz = m_ftz->currentData().toInt();
    o.precDiv = m_precDiv->currentData().toInt();
    o.precSqrt = m_precSqrt->currentData().toInt();
    o.fmad = m_fmad->currentData().toInt();
    o.maxRegCount = m_maxReg->value();
    o.cppStd = m_std->currentData().toString().toStdString();
    o.defines = splitList(m_defines->text());
    o.includeDirs = splitList(m_includes->text());
    o.extraNvccFlags = splitList(m_nvccFlags->text());
    o.extraPtxasFlags = splitList(m_ptxasFlags->text());
    m_session->setOptions(o);
    updatePreview();
}

void BuildOptionsPane::updatePreview() {
    if (!m_session) return;
    QString text = QString::fromStdString(shellQuote(m_session->previewCommand()));
    // The build refuses invalid options (shell syntax included); say so where they are typed.
    if (const std::string bad = checkBuildOptions(m_session->options()); !bad.empty())
        text += tr("\n\nNot built: %1").arg(QString::fromStdString(bad));
    m_preview->setPlainText(text);
}

} // namespace lowerscope
