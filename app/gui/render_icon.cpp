// lowerscope-render-icon: a build-time tool (never installed) that renders the application's SVG
// icon to PNG files of the sizes desktops look up in the hicolor theme, so the PNGs are made from
// the one SVG at build time instead of being kept in the tree beside it.
//   lowerscope-render-icon IN.svg SIZE OUT.png [SIZE OUT.png ...]
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
    if (argc < 4 || (argc - 2) % 2 != 0) {
        std::fputs("usage: lowerscope-render-icon IN.svg SIZE OUT.png [SIZE OUT.png ...]\n", stderr);
        return 2;
    }
    QSvgRenderer svg{QString::fromLocal8Bit(argv[1])};
    if (!svg.isValid()) {
        std::fprintf(stderr, "lowerscope-render-icon: %s is not a readable SVG\n", argv[1]);
        return 1;
    }
    for (int i = 2; i + 1 < argc; i += 2) {
        char* end = nullptr;
        const long size = std::strtol(argv[i], &end, 10);
        if (!end || *end || size < 8 || size > 1024) {
            std::fprintf(stderr, "lowerscope-render-icon: size '%s' is not 8..1024\n", argv[i]);
            return 2;
        }
        const int px = static_cast<int>(size);
        QImage image(px, px, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        svg.render(&painter);
        painter.end();
        if (!image.save(QString::fromLocal8Bit(argv[i + 1]), "PNG")) {
            std::fprintf(stderr, "lowerscope-render-icon: cannot write %s\n", argv[i + 1]);
            return 1;
        }
    }
    return 0;
}
