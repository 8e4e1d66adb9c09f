// The examples gallery's manifest (gallery.h).
#include "views/experiment/gallery.h"

#include "core/bounded_json.h"
#include "core/untrusted.h"
#include "views/common/theme.h"

#include <QFile>
#include <QRegularExpression>
#include <nlohmann/json.hpp>

namespace lowerscope {

namespace {

using nlohmann::json;

QString text(const json& o, const char* key) {
    const auto it = o.find(key);
    return it != o.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
}

// The manifest's path reduced to a file name of the bundle: "../../kernels/sgemm_tiled.cu" →
// "sgemm_tiled.cu". What is left must be a plain file name (safeBaseName would keep it as it is).
QString bundleName(const QString& path) {
    const QString name = path.section(QLatin1Char('/'), -1);
    if (name.isEmpty() || QString::fromStdString(safeBaseName(name.toStdString())) != name) return {};
    return name;
}

bool shortLine(const QString& s, int max) {
    return !s.isEmpty() && s.size() <= max &&
           !s.contains(QRegularExpression(QStringLiteral("[\\x00-\\x1f\\x7f]")));
}

} // namespace

QStringList GalleryEntry::files() const {
    QStringList out;
    for (const QString& f : {session, series, graph, writeup, source, sidecar})
        if (!f.isEmpty()) out << f;
    out << images;
    return out;
}

bool readGalleryManifest(const QByteArray& bytes, QList<GalleryEntry>& out, QString& error,
                         QStringList* problems) {
    std::string why;
    JsonLimits limits;
    limits.maxBytes = size_t(1) << 20;
    limits.maxDepth = 8;
    const std::optional<json> d =
        parseJsonBounded(std::string_view(bytes.constData(), size_t(bytes.size())), why, limits);
    if (!d) {
        error = QString::fromStdString(why);
        return false;
    }
    if (!d->is_object() || d->value("schema", json()) != json("lowerscope.gallery/1") ||
        !d->contains("entries") || !(*d)["entries"].is_array()) {
        error =
            QObject::tr("not a gallery manifest (schema lowerscope.gallery/1 with an entries list expected)");
        return false;
    }
    auto problem = [&](const QString& p) {
        if (problems) *problems << p;
    };
    static const QRegularExpression idPattern(QStringLiteral("^[A-Za-z0-9_.-]{1,64}$"));
    static const QRegularExpression definePattern(
        QStringLiteral("^[A-Za-z_][A-Za-z0-9_]{0,63}(=[A-Za-z0-9._+:-]{1,64})?$"));
    QList<GalleryEntry> entries;
    for (const json& e : (*d)["entries"]) {
        if (entries.size() >= 200) {
            problem(QObject::tr("more than 200 entries: the rest are left out"));
            break;
        }
        if (!e.is_object()) {
            problem(QObject::tr("an entry that is not an object"));
            continue;
        }
        GalleryEntry g;
        g.id = text(e, "id");
        g.title = text(e, "title");
        g.kind = text(e, "kind");
        if (!idPattern.match(g.id).hasMatch() || !shortLine(g.title, 200)) {
            problem(QObject::tr("an entry without a plain id and a one-line title"));
            continue;
        }
        bool bad = false;
        auto file = [&](const char* key) {
            const QString raw = text(e, key);
            if (raw.isEmpty()) return QString();
            const QString name = bundleName(raw);
            if (name.isEmpty()) bad = true;
            return name;
        };
        g.session = file("session");
        g.series = file("series");
        g.graph = file("graph");
        g.writeup = file("writeup");
        g.source = file("source");
        g.sidecar = file("sidecar");
        if (const auto im = e.find("images"); im != e.end() && im->is_array())
            for (const auto& x : *im)
                if (x.is_string()) {
                    const QString name = bundleName(QString::fromStdString(x.get<std::string>()));
                    if (name.isEmpty())
                        bad = true;
                    else
                        g.images << name;
                }
        if (const auto df = e.find("defines"); df != e.end() && df->is_array())
            for (const auto& x : *df) {
                const QString v = x.is_string() ? QString::fromStdString(x.get<std::string>()) : QString();
                if (!definePattern.match(v).hasMatch())
                    bad = true;
                else
                    g.defines << v;
            }
        static const QRegularExpression argPattern(
            QStringLiteral("^[A-Za-z_][A-Za-z0-9_]{0,63}=[^\\x00-\\x1f\\x7f]{1,200}$"));
        if (const auto ar = e.find("args"); ar != e.end() && ar->is_array())
            for (const auto& x : *ar) {
                // Launch arguments go to the runner's argument parser only (never to nvcc), which
                // checks them again; here: one short line each, at most 16.
                const QString v = x.is_string() ? QString::fromStdString(x.get<std::string>()) : QString();
                if (!argPattern.match(v).hasMatch() || g.args.size() >= 16)
                    bad = true;
                else
                    g.args << v;
            }
        const bool complete = (g.kind == QLatin1String("session") && !g.session.isEmpty()) ||
                              (g.kind == QLatin1String("series") && !g.series.isEmpty()) ||
                              (g.kind == QLatin1String("graph") && !g.graph.isEmpty()) ||
                              (g.kind == QLatin1String("report") && !g.writeup.isEmpty());
        if (bad || !complete) {
            problem(QObject::tr("entry %1: %2")
                        .arg(g.id, bad ? QObject::tr("a file name, define or argument that is not plain")
                                       : QObject::tr("kind %1 without its file").arg(g.kind)));
            continue;
        }
        entries << g;
    }
    out = entries;
    return true;
}

QString galleryResource(const QString& fileName) {
    return QStringLiteral(":/examples/") + fileName;
}

bool readGalleryFile(const QString& fileName, QByteArray& out, qint64 maxBytes) {
    lowerscopeInitResources();
    if (bundleName(fileName) != fileName) return false;
    QFile f(galleryResource(fileName));
    if (!f.open(QIODevice::ReadOnly) || f.size() > maxBytes) return false;
    out = f.readAll();
    return true;
}

QList<GalleryEntry> bundledGallery(QString* error) {
    QByteArray bytes;
    QList<GalleryEntry> entries;
    QString why;
    if (!readGalleryFile(QStringLiteral("gallery.json"), bytes))
        why = QObject::tr("the gallery manifest is not bundled");
    else
        readGalleryManifest(bytes, entries, why);
    if (error) *error = why;
    return entries;
}

} // namespace lowerscope
