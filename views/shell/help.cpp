#include "views/shell/help.h"

#include "core/build/build.h"
#include "core/build/toolchain.h"
#include "core/run/runner_client.h"

#include <Qsci/qsciglobal.h>
#include <QAction>
#include <QApplication>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFile>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QScrollBar>
#include <QSet>
#include <QShortcut>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace lowerscope {

namespace {

QString cleanText(QString text) {
    text.remove(QLatin1Char('&'));
    if (text.endsWith(QChar(0x2026))) text.chop(1);
    if (text.endsWith(QStringLiteral("..."))) text.chop(3);
    return text.trimmed();
}

QString keysText(const QList<QKeySequence>& sequences) {
    QStringList parts;
    for (const QKeySequence& k : sequences)
        if (!k.isEmpty()) parts << k.toString(QKeySequence::PortableText);
    return parts.join(QStringLiteral(", "));
}

void walkMenu(const QMenu* menu, const QString& path, std::vector<ShortcutEntry>& out, QSet<const QAction*>& seen) {
    for (QAction* a : menu->actions()) {
        if (a->isSeparator()) continue;
        if (QMenu* sub = a->menu()) {
            walkMenu(sub, path + QStringLiteral(" › ") + cleanText(a->text()), out, seen);
            continue;
        }
        seen.insert(a);
        const QString keys = keysText(a->shortcuts());
        if (!keys.isEmpty()) out.push_back({path, cleanText(a->text()), keys});
    }
}

// The dock a widget sits in, as its title ("SASS"); the window otherwise.
QString placeOf(const QObject* object) {
    for (const QObject* o = object; o; o = o->parent())
        if (const auto* dock = qobject_cast<const QDockWidget*>(o)) return dock->windowTitle();
    return QObject::tr("Window");
}

} // namespace

std::vector<ShortcutEntry> collectShortcuts(const QMainWindow* window) {
    std::vector<ShortcutEntry> out;
    QSet<const QAction*> seen;
    if (!window) return out;
    for (QAction* top : window->menuBar()->actions())
        if (QMenu* menu = top->menu()) walkMenu(menu, cleanText(top->text()), out, seen);
    // Pane actions no menu holds (context menus, keys that work while a pane has focus).
    std::vector<ShortcutEntry> panes;
    for (const QAction* a : window->findChildren<QAction*>()) {
        if (seen.contains(a) || a->isSeparator()) continue;
        const QString keys = keysText(a->shortcuts());
        if (keys.isEmpty()) continue;
        seen.insert(a);
        panes.push_back({placeOf(a->parent()), cleanText(a->text()), keys});
    }
    for (const QShortcut* s : window->findChildren<QShortcut*>()) {
        const QString keys = keysText(s->keys());
        if (keys.isEmpty() || !s->isEnabled()) continue;
        const QString what = s->whatsThis().isEmpty() ? QObject::tr("(undocumented)") : s->whatsThis();
        panes.push_back({placeOf(s->parent()), what, keys});
    }
    std::stable_sort(panes.begin(), panes.end(), [](const ShortcutEntry& a, const ShortcutEntry& b) { return a.where < b.where; });
    out.insert(out.end(), panes.begin(), panes.end());
    return out;
}

QString shortcutSheetHtml(const std::vector<ShortcutEntry>& entries) {
    QString html = QStringLiteral("<h2>%1</h2><p>%2</p><table cellspacing='0' cellpadding='3'>")
                       .arg(QObject::tr("Keyboard shortcuts"),
                            QObject::tr("Generated from the actions of this window as it is now."));
    QString where;
    for (const ShortcutEntry& e : entries) {
        if (e.where != where) {
            where = e.where;
            html += QStringLiteral("<tr><td colspan='2'><b>%1</b></td></tr>").arg(where.toHtmlEscaped());
        }
        html += QStringLiteral("<tr><td style='padding-right:18px'><code>%1</code></td><td>%2</td></tr>")
                    .arg(e.keys.toHtmlEscaped(), e.what.toHtmlEscaped());
    }
    return html + QStringLiteral("</table>");
}

QString panesHelpUrl() { return QStringLiteral("qrc:/help/panes.html"); }

bool panesHelpHasSection(const QString& paneId) {
    static const QString page = [] {
        QFile f(QStringLiteral(":/help/panes.html"));
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
    }();
    return !paneId.isEmpty() && page.contains(QStringLiteral("name=\"%1\"").arg(paneId));
}

QString aboutHtml(const Toolchain& toolchain) {
    QString html = QStringLiteral("<h2>Lowerscope %1</h2><p><i>%2</i></p><p>%3</p><table cellpadding='2'>")
                       .arg(QApplication::applicationVersion().toHtmlEscaped(),
                            QObject::tr("What did my CUDA kernel become, and what did that cost?"),
                            QObject::tr("A CUDA kernel's source, PTX and SASS in linked panes, with control codes, "
                                        "register dependencies, live registers and the control-flow graph; kernels "
                                        "timed in a separate runner process with confidence intervals; two builds "
                                        "compared instruction by instruction. Everything shown here is also "
                                        "available as JSON from <tt>lowerscope-cli</tt>. Help → Keyboard shortcuts "
                                        "lists the keys."));
    auto row = [&html](const QString& name, const QString& value) {
        html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(name.toHtmlEscaped(), value);
    };
    row(QStringLiteral("Qt"), QObject::tr("%1 (built with %2)").arg(QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR)));
    row(QStringLiteral("QScintilla"), QStringLiteral(QSCINTILLA_VERSION_STR));
    for (const ToolInfo* t : {&toolchain.nvcc, &toolchain.ptxas, &toolchain.nvdisasm, &toolchain.cuobjdump}) {
        const QString name = QString::fromStdString(t->name);
        if (!t->found()) {
            row(name, QObject::tr("<i>not found</i>%1").arg(t->note.empty() ? QString()
                                                                     : QStringLiteral(": ") + QString::fromStdString(t->note).toHtmlEscaped()));
            continue;
        }
        const QString version = t->version.empty() ? QObject::tr("version unknown") : QString::fromStdString(t->version);
        row(name, QStringLiteral("%1 <small>%2</small>").arg(version.toHtmlEscaped(), QString::fromStdString(t->path).toHtmlEscaped()));
    }
    QStringList archs;
    for (const std::string& a : toolchain.gpuArchs) archs << QString::fromStdString(a);
    row(QObject::tr("GPU architectures"), archs.isEmpty() ? QObject::tr("<i>unknown (nvcc not found)</i>")
                                                          : archs.join(QStringLiteral(" ")).toHtmlEscaped());
    std::string runnerError;
    const std::vector<std::string> runner = defaultRunnerCommand(&runnerError);
    row(QObject::tr("Runner"), runner.empty() ? QObject::tr("<i>not found</i>: %1").arg(QString::fromStdString(runnerError).toHtmlEscaped())
                                              : QString::fromStdString(runner.front()).toHtmlEscaped());
    row(QObject::tr("Build cache"), QString::fromStdString(cacheDirectory()).toHtmlEscaped());
    return html + QStringLiteral("</table>");
}

HelpWindow::HelpWindow(QWidget* parent) : QDialog(parent) {
    setObjectName(QStringLiteral("helpWindow"));
    setWindowTitle(tr("Lowerscope help"));
    setModal(false);
    resize(720, 640);
    m_browser = new QTextBrowser(this);
    m_browser->setObjectName(QStringLiteral("helpBrowser"));
    m_browser->setOpenExternalLinks(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::hide);
    auto* lay = new QVBoxLayout(this);
    lay->addWidget(m_browser, 1);
    lay->addWidget(buttons);
}

void HelpWindow::showPanes(const QString& section) {
    setWindowTitle(tr("How to read the panes"));
    m_section = panesHelpHasSection(section) ? section : QString();
    m_browser->setSource(QUrl(panesHelpUrl()));
    if (!m_section.isEmpty()) m_browser->scrollToAnchor(m_section);
    else m_browser->verticalScrollBar()->setValue(0);
    show();
    raise();
}

void HelpWindow::showHtml(const QString& title, const QString& html) {
    setWindowTitle(title);
    m_section.clear();
    m_browser->setHtml(html);
    show();
    raise();
}

} // namespace lowerscope
