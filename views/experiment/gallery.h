#pragma once
// The examples gallery (File → Examples, issue 15): the manifest docs/examples/gallery.json
// ("lowerscope.gallery/1"), bundled with the files it names under :/examples/ (views/CMakeLists.txt
// generates the resource list from it at configure time). Entries:
//   {"id", "title", "kind": "session" | "series" | "graph" | "report",
//    "session": "x.lowerscope", "series": "x.series.json", "graph": "x.graph.json",
//    "writeup": "x.md", "images": ["x.svg"],
//    "source": "x.cu", "sidecar": "x.json", "defines": ["CHAINS=8"], "args": ["N=M"]}
// File names are paths relative to docs/examples; here only their file names are kept and looked up
// in the bundle, so nothing in the manifest (or in the documents it names) opens a file elsewhere.

#include <QList>
#include <QString>
#include <QStringList>

namespace lowerscope {

struct GalleryEntry {
    QString id, title, kind; // kind: "session", "series", "graph" or "report"
    QString session;         // file names in the bundle ("" = none)
    QString series;
    QString graph; // graph: the recorded graph break-even document
    QString writeup;
    QStringList images;
    QString source, sidecar; // series, graph: what a rerun builds and launches
    QStringList defines;     // series: "NAME" or "NAME=value", added to every point's build
    QStringList args;        // series: launch arguments "NAME=spec" over the sidecar's (at most 16)
    // Every file the entry uses.
    QStringList files() const;
};

// Reads a manifest. Entries with an unknown kind, an id or title that is not a short line, a define
// that is not NAME[=plain value], a launch argument that is not one line NAME=spec, or without the files their kind needs are skipped with a line in
// `problems`; false with `error` when the text is not a gallery manifest at all. At most 200 entries.
bool readGalleryManifest(const QByteArray& text, QList<GalleryEntry>& out, QString& error,
                         QStringList* problems = nullptr);
// The bundled manifest (:/examples/gallery.json). Empty with `error` when it cannot be read.
QList<GalleryEntry> bundledGallery(QString* error = nullptr);
// ":/examples/<name>" for a file name of an entry.
QString galleryResource(const QString& fileName);
// The bundled file's bytes (at most `maxBytes`); false when it is not in the bundle or larger.
bool readGalleryFile(const QString& fileName, QByteArray& out, qint64 maxBytes = qint64(8) << 20);

} // namespace lowerscope
