#include "views/shell/autosave.h"

#include "views/common/workspace.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStandardPaths>

#include <cerrno>
#include <csignal>

namespace lowerscope {

namespace {
bool processRunning(qint64 pid) {
    if (pid <= 0) return false;
    // kill(pid, 0) checks existence without sending anything; EPERM means it exists.
    return ::kill(pid_t(pid), 0) == 0 || errno == EPERM;
}
int g_counter = 0;
} // namespace

QString Autosave::directory() {
    const QByteArray env = qgetenv("LOWERSCOPE_AUTOSAVE_DIR");
    if (!env.isEmpty()) return QString::fromLocal8Bit(env);
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation)).filePath(QStringLiteral("autosave"));
}

Autosave::Autosave(Workspace* session, QObject* parent) : QObject(parent), m_session(session) {
    const QString base = QDir(directory()).filePath(
        QStringLiteral("%1-%2").arg(QCoreApplication::applicationPid()).arg(++g_counter));
    m_textFile = base + QStringLiteral(".cu");
    m_metaFile = base + QStringLiteral(".json");
    m_timer.setSingleShot(true);
    m_timer.setInterval(3000);
    connect(&m_timer, &QTimer::timeout, this, &Autosave::saveNow);
    connect(session, &Workspace::editorTextChanged, this, [this] { m_timer.start(); });
}

Autosave::~Autosave() = default;

void Autosave::saveNow() {
    if (!m_session || m_session->text() == m_lastSaved) return;
    QDir().mkpath(directory());
    QSaveFile text(m_textFile);
    if (!text.open(QIODevice::WriteOnly)) return;
    text.write(m_session->text().toUtf8());
    if (!text.commit()) return;
    QJsonObject meta{{QStringLiteral("path"), m_session->sourcePath()},
                     {QStringLiteral("pid"), QCoreApplication::applicationPid()},
                     {QStringLiteral("saved"), QDateTime::currentDateTime().toString(Qt::ISODate)}};
    QSaveFile mf(m_metaFile);
    if (!mf.open(QIODevice::WriteOnly)) return;
    mf.write(QJsonDocument(meta).toJson());
    if (mf.commit()) m_lastSaved = m_session->text();
}

void Autosave::discard() {
    m_timer.stop();
    QFile::remove(m_textFile);
    QFile::remove(m_metaFile);
    m_lastSaved = m_session ? m_session->text() : QString();
}

QList<Autosave::Entry> Autosave::orphans() {
    QList<Entry> out;
    QDir dir(directory());
    for (const QString& name : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Time)) {
        QFile f(dir.filePath(name));
        if (!f.open(QIODevice::ReadOnly)) continue;
        const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
        Entry e;
        e.metaFile = dir.filePath(name);
        e.textFile = dir.filePath(name.chopped(5) + QStringLiteral(".cu"));
        e.originalPath = o.value(QStringLiteral("path")).toString();
        e.pid = o.value(QStringLiteral("pid")).toInteger();
        e.saved = QDateTime::fromString(o.value(QStringLiteral("saved")).toString(), Qt::ISODate);
        if (processRunning(e.pid) && e.pid != QCoreApplication::applicationPid()) continue; // another live window
        if (e.pid == QCoreApplication::applicationPid()) continue;
        if (!QFile::exists(e.textFile)) continue;
        out.push_back(e);
    }
    return out;
}

QString Autosave::readText(const Entry& entry) {
    QFile f(entry.textFile);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

void Autosave::remove(const Entry& entry) {
    QFile::remove(entry.textFile);
    QFile::remove(entry.metaFile);
}

} // namespace lowerscope
