#pragma once
// Autosave of unsaved editor text, and recovery after a crash. Each running window owns one
// entry (<dir>/<pid>-<n>.cu + .json with the original path); a clean save or close removes it.
// Entries whose process is gone are orphans: the next start offers them for recovery.

#include <QDateTime>
#include <QObject>
#include <QPointer>
#include <QTimer>

namespace lowerscope {

class Workspace;

class Autosave : public QObject {
    Q_OBJECT
public:
    struct Entry {
        QString textFile;     // the autosaved text
        QString metaFile;     // its .json
        QString originalPath; // "" for an untitled buffer
        QDateTime saved;
        qint64 pid = 0;
    };

    explicit Autosave(Workspace* session, QObject* parent = nullptr);
    ~Autosave() override;

    // $LOWERSCOPE_AUTOSAVE_DIR, else <AppLocalDataLocation>/autosave.
    static QString directory();
    // Entries left by processes that no longer run.
    static QList<Entry> orphans();
    static QString readText(const Entry& entry);
    static void remove(const Entry& entry);

    void setDelay(int ms) { m_timer.setInterval(ms); }
    void saveNow();       // writes the entry (no-op when the text is unchanged since the last save)
    void discard();       // the document is saved / closed: drop the entry
    QString textFile() const { return m_textFile; }

private:
    QPointer<Workspace> m_session;
    QTimer m_timer;
    QString m_textFile;
    QString m_metaFile;
    QString m_lastSaved;
};

} // namespace lowerscope
