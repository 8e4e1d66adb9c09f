#include "views/build_options_pane.h"

#include "views/workspace.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFontDatabase>
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
    int r = 0;
    grid->addWidget(label(tr("Architecture")), r, 0);
    grid->addWidget(m_arch, r, 1);
    grid->addWidget(label(tr("Host / ptxas opt")), r, 2);
    auto* opts = new QHBoxLayout;
    opts->addWidget(m_hostOpt);
    opts->addWidget(m_ptxasOpt);
    grid->addLayout(opts, r++, 3);
    grid->addWidget(m_lineinfo, r, 0, 1, 2);
    grid->addWidget(m_debug, r++, 2, 1, 2);
    grid->addWidget(m_fastMath, r, 0, 1, 2);
    grid->addWidget(m_edv, r++, 2, 1, 2);
    grid->addWidget(label(tr("-ftz")), r, 0);
    grid->addWidget(m_ftz, r, 1);
    grid->addWidget(label(tr("-prec-div")), r, 2);
    grid->addWidget(m_precDiv, r++, 3);
    grid->addWidget(label(tr("-prec-sqrt")), r, 0);
    grid->addWidget(m_precSqrt, r, 1);
    grid->addWidget(label(tr("-fmad")), r, 2);
    grid->addWidget(m_fmad, r++, 3);
    grid->addWidget(label(tr("-maxrregcount")), r, 0);
    grid->addWidget(m_maxReg, r, 1);
    grid->addWidget(label(tr("-std")), r, 2);
    grid->addWidget(m_std, r++, 3);
    grid->addWidget(label(tr("Defines")), r, 0);
    grid->addWidget(m_defines, r++, 1, 1, 3);
    grid->addWidget(label(tr("Include dirs")), r, 0);
    grid->addWidget(m_includes, r++, 1, 1, 3);
    grid->addWidget(label(tr("nvcc flags")), r, 0);
    grid->addWidget(m_nvccFlags, r++, 1, 1, 3);
    grid->addWidget(label(tr("ptxas flags")), r, 0);
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
