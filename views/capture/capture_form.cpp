#include "views/capture/capture_form.h"

#include "core/capture/launch_filter.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

namespace lowerscope {

namespace {

// A whole number >= 0 from a field; nullopt when it is not one.
std::optional<uint64_t> wholeNumber(const QString& text) {
    static const QRegularExpression digits(QStringLiteral("^[0-9]{1,18}$"));
    const QString t = text.trimmed();
    if (!digits.match(t).hasMatch()) return std::nullopt;
    return t.toULongLong();
}

} // namespace

QString countOf(quint64 n, const QString& one, const QString& many) {
    return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? one : many);
}

bool captureSpecHasMetrics() { return true; }

std::vector<ProfileCollection> captureMetrics(const CaptureFormFields& f) {
    std::vector<ProfileCollection> out;
    if (f.metricsKernel) out.push_back(ProfileCollection::Kernel);
    if (f.metricsInstructions) out.push_back(ProfileCollection::Instructions);
    if (f.metricsSamples) out.push_back(ProfileCollection::Samples);
    return out;
}

QString captureMetricsList(const CaptureFormFields& f) {
    QStringList names;
    for (ProfileCollection c : captureMetrics(f)) names << QString::fromStdString(profileCollectionName(c));
    return names.join(QLatin1Char(','));
}

bool splitShellWords(const QString& line, QStringList& words, QString& error) {
    words.clear();
    QString word;
    bool inWord = false;
    enum class Quote { None, Single, Double } quote = Quote::None;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (quote == Quote::Single) {
            if (c == QLatin1Char('\'')) quote = Quote::None;
            else word += c;
            continue;
        }
        if (quote == Quote::Double) {
            if (c == QLatin1Char('"')) {
                quote = Quote::None;
            } else if (c == QLatin1Char('\\') && i + 1 < line.size() &&
                       QStringLiteral("\"\\$`").contains(line[i + 1])) {
                word += line[++i];
            } else {
                word += c;
            }
            continue;
        }
        if (c == QLatin1Char(' ') || c == QLatin1Char('\t') || c == QLatin1Char('\n') || c == QLatin1Char('\r')) {
            if (inWord) words << word;
            word.clear();
            inWord = false;
            continue;
        }
        inWord = true;
        if (c == QLatin1Char('\'')) {
            quote = Quote::Single;
        } else if (c == QLatin1Char('"')) {
            quote = Quote::Double;
        } else if (c == QLatin1Char('\\')) {
            if (i + 1 >= line.size()) {
                error = QObject::tr("the arguments end with a backslash that escapes nothing");
                return false;
            }
            word += line[++i];
        } else {
            word += c;
        }
    }
    if (quote != Quote::None) {
        error = quote == Quote::Single ? QObject::tr("the arguments have a ' without its closing '")
                                       : QObject::tr("the arguments have a \" without its closing \"");
        return false;
    }
    if (inWord) words << word;
    return true;
}

QString joinShellWords(const QStringList& words) {
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_@%+=:,./-]+$"));
    QStringList out;
    for (const QString& w : words) {
        if (plain.match(w).hasMatch()) out << w;
        else out << QLatin1Char('\'') + QString(w).replace(QLatin1String("'"), QLatin1String("'\\''")) + QLatin1Char('\'');
    }
    return out.join(QLatin1Char(' '));
}

bool captureSpecFromFields(const CaptureFormFields& f, capture::CaptureSpec& spec, QString& error) {
    spec = capture::CaptureSpec{};
    const QString program = f.program.trimmed();
    if (program.isEmpty()) {
        error = QObject::tr("Program: give the program to run (a path, or a name on PATH)");
        return false;
    }
    QStringList args;
    if (QString why; !splitShellWords(f.arguments, args, why)) {
        error = QObject::tr("Arguments: %1").arg(why);
        return false;
    }
    spec.argv.push_back(program.toStdString());
    for (const QString& a : args) spec.argv.push_back(a.toStdString());

    const QString dir = f.workingDir.trimmed();
    if (!dir.isEmpty() && !QFileInfo(dir).isDir()) {
        error = QObject::tr("Working folder: %1 is not a folder").arg(dir);
        return false;
    }
    spec.workingDir = dir.toStdString();

    static const QRegularExpression name(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    const QStringList lines = f.environment.split(QLatin1Char('\n'));
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const QString line = lines[i].trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1Char('#'))) continue;
        const qsizetype eq = line.indexOf(QLatin1Char('='));
        const QString key = eq < 0 ? line : line.left(eq);
        if (eq < 0 || !name.match(key).hasMatch()) {
            error = QObject::tr("Environment, line %1: expected NAME=VALUE, not \"%2\"").arg(i + 1).arg(line.left(80));
            return false;
        }
        if (key == QLatin1String("CUDA_INJECTION64_PATH") || key.startsWith(QLatin1String("LOWERSCOPE_CAPTURE_"))) {
            error = QObject::tr("Environment, line %1: %2 is set by the capture itself").arg(i + 1).arg(key);
            return false;
        }
        spec.env[key.toStdString()] = line.mid(eq + 1).toStdString();
    }

    spec.filter.kernelRegex = f.kernelRegex.trimmed().toStdString();
    try {
        capture::LaunchFilter check(spec.filter);
    } catch (const std::exception& e) {
        error = QObject::tr("Kernel filter: %1").arg(QString::fromStdString(e.what()));
        return false;
    }
    if (!f.launchSkip.trimmed().isEmpty()) {
        const auto skip = wholeNumber(f.launchSkip);
        if (!skip) {
            error = QObject::tr("Launch skip: \"%1\" is not a whole number").arg(f.launchSkip.trimmed().left(40));
            return false;
        }
        spec.filter.skip = *skip;
    }
    if (!f.launchCount.trimmed().isEmpty()) {
        const auto count = wholeNumber(f.launchCount);
        if (!count || *count == 0) {
            error = QObject::tr("Launch count: \"%1\" is not a whole number above 0 (leave it empty for all)")
                        .arg(f.launchCount.trimmed().left(40));
            return false;
        }
        spec.filter.count = *count;
    }
    spec.serializeKernels = f.serializeKernels;
    // Metrics are taken on the selected launches replayed from what the capture saves of them.
    if (!captureMetrics(f).empty()) {
        spec.saveLaunches = true;
        if (!spec.filter.count) spec.filter.count = 1; // as `capture --metrics` without --launch-count
    }

    const QString out = f.output.trimmed();
    if (out.isEmpty()) {
        error = QObject::tr("Output: give the path of the capture document to write");
        return false;
    }
    if (QFileInfo(out).isDir()) {
        error = QObject::tr("Output: %1 is a folder; give a file name such as app.capture.json").arg(out);
        return false;
    }
    // A relative output is relative to the working folder, where a user typing it would expect it.
    spec.outputPath = (QFileInfo(out).isRelative() && !dir.isEmpty() ? QDir(dir).absoluteFilePath(out)
                                                                       : QFileInfo(out).absoluteFilePath())
                          .toStdString();

    if (!f.injectionLibrary.isEmpty()) {
        spec.injectionLibrary = f.injectionLibrary.toStdString();
    } else {
        std::string why;
        spec.injectionLibrary = capture::findInjectionLibrary(why);
        if (spec.injectionLibrary.empty()) {
            error = QObject::tr("No injection library: %1").arg(QString::fromStdString(why));
            return false;
        }
    }
    if (!QFileInfo(QString::fromStdString(spec.injectionLibrary)).isFile()) {
        error = QObject::tr("No injection library: %1 is not a file").arg(QString::fromStdString(spec.injectionLibrary));
        return false;
    }
    return true;
}

CaptureEventsCounter::CaptureEventsCounter(const QString& documentPath, qint64 notBeforeMs)
    : m_folder(QFileInfo(documentPath).absolutePath()), m_notBefore(notBeforeMs) {}

quint64 CaptureEventsCounter::poll() {
    static const QByteArray kernelEvent("\"e\":\"kernel\"");
    const QDir dir(m_folder);
    const auto staging = dir.entryInfoList({QStringLiteral(".lowerscope-events-*")},
                                           QDir::Dirs | QDir::Hidden | QDir::NoDotAndDotDot);
    for (const QFileInfo& s : staging) {
        // A folder left by an earlier capture that was killed is not this run's.
        if (s.birthTime().isValid() ? s.birthTime().toMSecsSinceEpoch() < m_notBefore - 2000
                                    : s.lastModified().toMSecsSinceEpoch() < m_notBefore - 2000)
            continue;
        const auto files = QDir(s.absoluteFilePath()).entryInfoList({QStringLiteral("events-*")}, QDir::Files);
        for (const QFileInfo& fi : files) {
            const QString key = fi.absoluteFilePath();
            qint64& offset = m_offsets[key];
            if (fi.size() <= offset) continue;
            QFile file(key);
            if (!file.open(QIODevice::ReadOnly) || !file.seek(offset)) continue;
            // At most 16 MiB a poll: a huge capture is counted over several polls.
            const QByteArray chunk = file.read(std::min<qint64>(fi.size() - offset, qint64(16) << 20));
            const qsizetype lastNewline = chunk.lastIndexOf('\n');
            if (lastNewline < 0) continue;
            const QByteArray complete = chunk.left(lastNewline + 1);
            m_launches += quint64(complete.count(kernelEvent));
            offset += complete.size();
        }
    }
    return m_launches;
}

} // namespace lowerscope
