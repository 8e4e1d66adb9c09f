#include "views/build/build_options_pane.h"

#include "views/common/workspace.h"

#include "core/build/json_io.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QResizeEvent>
#include <QScrollArea>
#include <QSpinBox>
#include <QStyle>
#include <QVBoxLayout>

#include <algorithm>

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

// The command preview: breaks lines only between arguments. Qt's line breaker may break after a
// hyphen ("-" | "std=c++17"), so the shown text has a word joiner (U+2060, zero width) between the
// characters of each argument; copying removes them, so a pasted command runs as shown.
class CommandPreview : public QPlainTextEdit {
public:
    using QPlainTextEdit::QPlainTextEdit;
    static QString glue(const QString& command) {
        QString out;
        out.reserve(command.size() * 2);
        for (qsizetype i = 0; i < command.size(); ++i) {
            out += command[i];
            if (i + 1 < command.size() && command[i] != QLatin1Char(' ') && command[i + 1] != QLatin1Char(' '))
                out += QChar(0x2060);
        }
        return out;
    }
    static QString unglue(QString text) { return text.remove(QChar(0x2060)); }

protected:
    QMimeData* createMimeDataFromSelection() const override {
        auto* data = new QMimeData;
        data->setText(unglue(textCursor().selectedText()));
        return data;
    }
};

BuildOptionsPane::BuildOptionsPane(Workspace* session, QWidget* parent) : QWidget(parent), m_session(session) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->setSpacing(2);
    m_form = new QWidget;
    m_form->setObjectName(QStringLiteral("buildOptionsForm"));
    auto* formLayout = new QVBoxLayout(m_form);
    formLayout->setContentsMargins(0, 0, 0, 0);
    formLayout->setSpacing(0);
    m_grid = new QGridLayout;
    m_grid->setContentsMargins(4, 4, 4, 4);
    m_grid->setHorizontalSpacing(10);
    m_grid->setVerticalSpacing(3);
    m_scroll = new QScrollArea(this);
    m_scroll->setObjectName(QStringLiteral("buildOptionsScroll"));
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setWidget(m_form);
    outer->addWidget(m_scroll, 1);

    m_arch = new QComboBox(m_form);
    m_arch->setObjectName(QStringLiteral("archCombo"));
    m_arch->setEditable(true);
    m_arch->setInsertPolicy(QComboBox::NoInsert);
    // Empty: the input's own (a PTX's .target, a binary's first cubin); a comma list builds each.
    m_arch->lineEdit()->setPlaceholderText(tr("from the input"));
    m_arch->addItems({QStringLiteral("sm_80"), QStringLiteral("sm_86"), QStringLiteral("sm_89"), QStringLiteral("sm_90"),
                      QStringLiteral("sm_90a"), QStringLiteral("sm_100"), QStringLiteral("sm_120")});
    m_hostOpt = optLevel(m_form);
    m_ptxasOpt = optLevel(m_form);
    m_lineinfo = new QCheckBox(tr("-lineinfo"), m_form);
    m_debug = new QCheckBox(tr("-G (device debug)"), m_form);
    m_fastMath = new QCheckBox(tr("--use_fast_math"), m_form);
    m_edv = new QCheckBox(tr("--extra-device-vectorization"), m_form);
    m_ftz = triState(m_form);
    m_precDiv = triState(m_form);
    m_precSqrt = triState(m_form);
    m_fmad = triState(m_form);
    m_maxReg = new QSpinBox(m_form);
    m_maxReg->setRange(0, 255);
    m_maxReg->setSpecialValueText(tr("unlimited"));
    m_std = new QComboBox(m_form);
    m_std->addItem(tr("default"), QString());
    for (const char* s : {"c++14", "c++17", "c++20"}) m_std->addItem(QString::fromLatin1(s), QString::fromLatin1(s));
    m_defines = new QLineEdit(m_form);
    m_defines->setPlaceholderText(tr("N=1024 USE_FAST"));
    m_includes = new QLineEdit(m_form);
    m_includes->setPlaceholderText(tr("include dirs"));
    m_nvccFlags = new QLineEdit(m_form);
    m_nvccFlags->setPlaceholderText(tr("extra nvcc flags, verbatim"));
    m_ptxasFlags = new QLineEdit(m_form);
    m_ptxasFlags->setPlaceholderText(tr("-v --warn-on-spills"));

    // One sentence per control on what its flag does; the label carries the same text.
    m_arch->setToolTip(tr("-arch=sm_XX: the GPU generation to compile for; the SASS shown is that GPU's machine code "
                          "(sm_90 = H100/H200, sm_100 = B200, sm_89 = L40/RTX 40, sm_80 = A100). A list (sm_80,sm_90) "
                          "builds each and the Input box switches between them; empty = the input's own (a PTX's "
                          ".target, a binary's first cubin)."));
    m_hostOpt->setToolTip(tr("-O<n>: optimisation level of the host (CPU) code nvcc compiles; it does not change the "
                             "kernel's SASS."));
    m_ptxasOpt->setToolTip(tr("-Xptxas -O<n>: optimisation level of ptxas, which turns PTX into SASS; -O3 is the "
                              "default, -O0 shows nearly unscheduled code."));
    m_lineinfo->setToolTip(tr("-lineinfo: records which source line each instruction came from, without changing the "
                              "code; the links between the panes need it."));
    m_debug->setToolTip(tr("-G: device debug information; turns most device optimisations off, so the SASS is much "
                           "slower than a release build's."));
    m_fastMath->setToolTip(tr("--use_fast_math: approximate division, square root and transcendentals, and flush "
                              "denormals to zero (implies -ftz=true -prec-div=false -prec-sqrt=false -fmad=true)."));
    m_edv->setToolTip(tr("--extra-device-vectorization: lets the compiler vectorise memory accesses more "
                         "aggressively (wider loads and stores)."));
    m_ftz->setToolTip(tr("-ftz: flush single-precision denormals to zero (faster on some paths, loses tiny values); "
                         "default = the compiler's choice (false unless --use_fast_math)."));
    m_precDiv->setToolTip(tr("-prec-div: IEEE round-to-nearest single-precision division (true) or a faster "
                             "approximation (false); default = true unless --use_fast_math."));
    m_precSqrt->setToolTip(tr("-prec-sqrt: IEEE round-to-nearest single-precision square root (true) or a faster "
                              "approximation (false); default = true unless --use_fast_math."));
    m_fmad->setToolTip(tr("-fmad: contract multiplies and adds into fused multiply-adds (FFMA; one rounding "
                          "instead of two); default = true."));
    m_maxReg->setToolTip(tr("-maxrregcount=N: at most N registers per thread; more threads fit on an SM, but values "
                            "that do not fit spill to local memory."));
    m_std->setToolTip(tr("-std: the C++ dialect the source is compiled as; default = nvcc's own (C++17)."));
    m_defines->setToolTip(tr("-D: preprocessor macros, separated by spaces (NAME or NAME=VALUE)."));
    m_includes->setToolTip(tr("-I: folders searched for #include files, separated by spaces (quote a folder with "
                              "spaces)."));
    m_nvccFlags->setToolTip(tr("Further nvcc flags, passed as written, one argument per word (quote to group)."));
    m_ptxasFlags->setToolTip(tr("Flags for ptxas, each passed as -Xptxas <flag> (e.g. --warn-on-spills)."));

    // Labels of project-settable options, by their BuildOptions JSON key; a label carries its
    // control's tooltip, and updateOrigins() adds where a project-set value came from.
    auto label = [this](const QString& key, const QString& text, QWidget* buddy) {
        auto* l = new QLabel(text, m_form);
        l->setBuddy(buddy);
        l->setToolTip(buddy->toolTip());
        m_keyLabels.insert(key, l);
        m_labelTexts.insert(key, text);
        m_baseTips.insert(key, buddy->toolTip());
        return l;
    };
    m_keyButtons = {{QStringLiteral("lineinfo"), m_lineinfo},
                    {QStringLiteral("device_debug"), m_debug},
                    {QStringLiteral("fast_math"), m_fastMath},
                    {QStringLiteral("extra_device_vectorization"), m_edv}};
    for (auto it = m_keyButtons.begin(); it != m_keyButtons.end(); ++it) {
        m_labelTexts.insert(it.key(), (*it)->text());
        m_baseTips.insert(it.key(), (*it)->toolTip());
    }
    m_fields = {
        {label(QStringLiteral("arch"), tr("Architecture"), m_arch), m_arch, false},
        {label(QStringLiteral("ptxas_opt"), tr("ptxas -O"), m_ptxasOpt), m_ptxasOpt, false},
        {label(QStringLiteral("host_opt"), tr("Host -O"), m_hostOpt), m_hostOpt, false},
        {label(QStringLiteral("max_reg_count"), tr("-maxrregcount"), m_maxReg), m_maxReg, false},
        {nullptr, m_lineinfo, false},
        {nullptr, m_debug, false},
        {nullptr, m_fastMath, false},
        {nullptr, m_edv, false},
        {label(QStringLiteral("ftz"), tr("-ftz"), m_ftz), m_ftz, false},
        {label(QStringLiteral("prec_div"), tr("-prec-div"), m_precDiv), m_precDiv, false},
        {label(QStringLiteral("prec_sqrt"), tr("-prec-sqrt"), m_precSqrt), m_precSqrt, false},
        {label(QStringLiteral("fmad"), tr("-fmad"), m_fmad), m_fmad, false},
        {label(QStringLiteral("std"), tr("-std"), m_std), m_std, false},
        {label(QStringLiteral("defines"), tr("Defines"), m_defines), m_defines, true},
        {label(QStringLiteral("include_dirs"), tr("Include dirs"), m_includes), m_includes, true},
        {label(QStringLiteral("extra_nvcc_flags"), tr("nvcc flags"), m_nvccFlags), m_nvccFlags, true},
        {label(QStringLiteral("extra_ptxas_flags"), tr("ptxas flags"), m_ptxasFlags), m_ptxasFlags, true},
    };
    // What is open, and (for several builds of one input) which one the panes show.
    m_inputLabel = new QLabel(m_form);
    m_inputLabel->setObjectName(QStringLiteral("inputLabel"));
    m_inputLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_variant = new QComboBox(m_form);
    m_variant->setObjectName(QStringLiteral("variantCombo"));
    m_variant->setToolTip(tr("Which build the panes show: one of several architectures, an embedded cubin or PTX "
                             "of a binary, or a kernel of a Triton cache"));
    m_inputRow = new QHBoxLayout;
    m_inputRow->setContentsMargins(4, 4, 4, 0);
    m_inputRow->setSpacing(8); // the parent form's zero spacing ran the label into the file name
    m_inputRow->addWidget(new QLabel(tr("Input:"), m_form));
    m_inputRow->addWidget(m_inputLabel, 1);
    m_inputRow->addWidget(m_variant, 1);
    layoutFields(2);
    formLayout->addLayout(m_inputRow);
    formLayout->addLayout(m_grid, 1);

    m_preview = new CommandPreview(this);
    m_preview->setObjectName(QStringLiteral("nvccPreview"));
    m_preview->setReadOnly(true);
    m_preview->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    mono.setPointSize(9);
    m_preview->setFont(mono);
    // About three lines: the command stays in view while the fields above scroll.
    const int line = QFontMetrics(mono).lineSpacing();
    m_preview->setMinimumHeight(2 * line + 10);
    m_preview->setMaximumHeight(4 * line + 10);
    m_preview->setToolTip(tr("The nvcc command the next build runs (then ptxas output is parsed and nvdisasm/cuobjdump run on the cubin)"));
    outer->addWidget(m_preview);

    fromOptions(session->options());
    for (QComboBox* c : {m_hostOpt, m_ptxasOpt, m_ftz, m_precDiv, m_precSqrt, m_fmad, m_std})
        connect(c, &QComboBox::currentIndexChanged, this, &BuildOptionsPane::toSession);
    connect(m_arch, &QComboBox::currentTextChanged, this, &BuildOptionsPane::toSession);
    for (QCheckBox* c : {m_lineinfo, m_debug, m_fastMath, m_edv}) connect(c, &QCheckBox::toggled, this, &BuildOptionsPane::toSession);
    connect(m_maxReg, &QSpinBox::valueChanged, this, &BuildOptionsPane::toSession);
    for (QLineEdit* e : {m_defines, m_includes, m_nvccFlags, m_ptxasFlags}) {
        connect(e, &QLineEdit::textChanged, this, &BuildOptionsPane::toSession);
        // Enter builds now (also after a failed build, e.g. once the missing -I is typed).
        connect(e, &QLineEdit::returnPressed, this, [this] {
            if (m_session) m_session->build();
        });
    }
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
            const bool same = now.value(key, nlohmann::json()) == fromProject.value(key, nlohmann::json());
            if (m_origins.value(k) != QLatin1String("changed")) m_origins.insert(k, same ? QStringLiteral("project") : QStringLiteral("changed"));
        }
    }
    // The flag's own explanation stays; where the value came from is added to it.
    auto decorate = [this](const QString& key, const QString& plain) {
        const QString origin = m_origins.value(key);
        const QString base = m_baseTips.value(key);
        if (origin.isEmpty()) return std::pair{plain, base};
        const bool changed = origin == QLatin1String("changed");
        const QString note = changed ? tr("Set by the project's compile database, changed here")
                                     : tr("From the project's compile database");
        return std::pair{plain + (changed ? tr(" · changed") : tr(" · project")),
                         base.isEmpty() ? note : base + QStringLiteral("\n") + note};
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

QList<QWidget*> BuildOptionsPane::inputControls() const {
    QList<QWidget*> out;
    for (const Field& f : m_fields) out << f.field;
    return out;
}

int BuildOptionsPane::wideWidth() const {
    int labelW = 0, fieldW = 0, checkW = 0;
    for (const Field& f : m_fields) {
        if (f.fullWidth) continue;
        if (f.label) {
            labelW = std::max(labelW, f.label->sizeHint().width());
            fieldW = std::max(fieldW, f.field->minimumSizeHint().width());
        } else {
            checkW = std::max(checkW, f.field->sizeHint().width());
        }
    }
    const QMargins m = m_grid->contentsMargins();
    const int pair = std::max(labelW + m_grid->horizontalSpacing() + fieldW, checkW);
    return 2 * pair + m_grid->horizontalSpacing() + m.left() + m.right();
}

void BuildOptionsPane::layoutFields(int pairs) {
    if (pairs == m_pairs) return;
    m_pairs = pairs;
    while (m_grid->count() > 0) delete m_grid->takeAt(0); // the widgets stay; only their places go
    const int columns = 2 * pairs;
    int row = 0, column = 0;
    for (const Field& f : m_fields) {
        if (f.fullWidth) {
            if (column != 0) ++row, column = 0;
            m_grid->addWidget(f.label, row, 0);
            m_grid->addWidget(f.field, row++, 1, 1, columns - 1);
            continue;
        }
        if (f.label) {
            m_grid->addWidget(f.label, row, column);
            m_grid->addWidget(f.field, row, column + 1);
        } else {
            m_grid->addWidget(f.field, row, column, 1, 2);
        }
        column += 2;
        if (column >= columns) ++row, column = 0;
    }
    for (int c = 0; c < 4; ++c) m_grid->setColumnStretch(c, c % 2 == 1 && c < columns ? 1 : 0);
    for (int r = 0; r < m_grid->rowCount(); ++r) m_grid->setRowStretch(r, 0);
    m_grid->setRowStretch(row + 1, 1); // extra height below the fields, not between them
}

void BuildOptionsPane::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    // Decided on the pane's own width (the scroll area's), not the form's: the form is never
    // narrower than its current layout's minimum, so it could not tell that one column would fit.
    // A vertical scroll bar may take its width at any time: leave room for it, so the choice does
    // not flip back and forth as it comes and goes.
    const int usable = width() - style()->pixelMetric(QStyle::PM_ScrollBarExtent);
    layoutFields(usable >= wideWidth() ? 2 : 1);
}

QString BuildOptionsPane::previewText() const { return CommandPreview::unglue(m_preview->toPlainText()); }

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
    QString text = CommandPreview::glue(QString::fromStdString(shellQuote(m_session->previewCommand())));
    // The build refuses invalid options (shell syntax included); say so where they are typed.
    // An input opened as it is (a cubin, binary, PTX) has no arch until one is typed: it is built
    // for its own, which is no error.
    BuildOptions checked = m_session->options();
    if (m_session->isInputMode() && checked.arch.empty()) checked.arch = BuildOptions{}.arch;
    if (const std::string bad = checkBuildOptions(checked); !bad.empty())
        text += tr("\n\nNot built: %1").arg(QString::fromStdString(bad));
    m_preview->setPlainText(text);
}

} // namespace lowerscope
