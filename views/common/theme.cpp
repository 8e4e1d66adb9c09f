#include "views/common/theme.h"

#include <QApplication>
#include <QFontDatabase>
#include <QPainter>
#include <QPixmap>
#include <Qsci/qscilexer.h>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

#include <algorithm>
#include <cmath>

void lowerscopeInitResources() {
    static bool done = false;
    if (!done) {
        // Resources compiled into a static library are not registered automatically.
        Q_INIT_RESOURCE(lowerscope);
        Q_INIT_RESOURCE(gallery); // docs/examples/gallery.json and its files (views/CMakeLists.txt)
        done = true;
    }
}

namespace lowerscope {

namespace {
ThemeKind g_kind = ThemeKind::Light;

// Hues ordered so that consecutive lines get far-apart hues.
// No yellows/oranges (35°–70°): those are the selection highlight.
constexpr int kHues[12] = {210, 120, 300, 180, 350, 260, 150, 330, 90, 240, 10, 280};
} // namespace

void Theme::apply(ThemeKind kind) {
    g_kind = kind;
    QApplication::setStyle(QStyleFactory::create("Fusion"));
    QPalette p;
    if (kind == ThemeKind::Dark) {
        const QColor window(45, 45, 48), base(30, 30, 32), text(220, 220, 220), button(55, 55, 58);
        p.setColor(QPalette::Window, window);
        p.setColor(QPalette::WindowText, text);
        p.setColor(QPalette::Base, base);
        p.setColor(QPalette::AlternateBase, QColor(38, 38, 41));
        p.setColor(QPalette::ToolTipBase, QColor(60, 60, 64));
        p.setColor(QPalette::ToolTipText, text);
        p.setColor(QPalette::PlaceholderText, QColor(140, 140, 140));
        p.setColor(QPalette::Text, text);
        p.setColor(QPalette::Button, button);
        p.setColor(QPalette::ButtonText, text);
        p.setColor(QPalette::BrightText, Qt::red);
        p.setColor(QPalette::Link, QColor(90, 160, 255));
        p.setColor(QPalette::Highlight, QColor(38, 79, 120));
        p.setColor(QPalette::HighlightedText, Qt::white);
        p.setColor(QPalette::Disabled, QPalette::Text, QColor(120, 120, 120));
        p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(120, 120, 120));
        p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(120, 120, 120));
    } else {
        p = QApplication::style()->standardPalette();
        p.setColor(QPalette::Highlight, QColor(173, 205, 245));
        p.setColor(QPalette::HighlightedText, Qt::black);
    }
    QApplication::setPalette(p);
}

ThemeKind Theme::current() { return g_kind; }

QColor Theme::bandByIndex(int index, bool dimmed) {
    const int hue = kHues[((index % 12) + 12) % 12];
    QColor c;
    if (isDark())
        c = QColor::fromHsv(hue, dimmed ? 40 : 120, dimmed ? 60 : 78);
    else
        c = QColor::fromHsv(hue, dimmed ? 12 : 48, 255);
    return c;
}

QColor Theme::band(int sourceLine, bool dimmed) { return bandByIndex(sourceLine, dimmed); }

QColor Theme::highlight() { return isDark() ? QColor(130, 105, 0) : QColor(255, 214, 64); }
QColor Theme::current_() { return isDark() ? QColor(175, 120, 0) : QColor(255, 170, 30); }

QColor Theme::categoryColor(InstrCategory category) {
    const bool d = isDark();
    switch (category) {
    case InstrCategory::Memory: return d ? QColor(110, 180, 255) : QColor(0, 85, 190);
    case InstrCategory::FP32: return d ? QColor(120, 220, 120) : QColor(0, 130, 40);
    case InstrCategory::FP64: return d ? QColor(80, 200, 170) : QColor(0, 120, 100);
    case InstrCategory::FP16: return d ? QColor(170, 230, 90) : QColor(80, 130, 0);
    case InstrCategory::Integer: return d ? QColor(230, 190, 110) : QColor(150, 90, 0);
    case InstrCategory::Tensor: return d ? QColor(255, 120, 200) : QColor(190, 0, 120);
    case InstrCategory::Control: return d ? QColor(255, 110, 110) : QColor(200, 20, 20);
    case InstrCategory::Conversion: return d ? QColor(200, 160, 255) : QColor(110, 50, 180);
    case InstrCategory::SpecialFunction: return d ? QColor(255, 160, 80) : QColor(200, 90, 0);
    case InstrCategory::Uniform: return d ? QColor(160, 160, 220) : QColor(80, 80, 150);
    case InstrCategory::Synchronisation: return d ? QColor(255, 90, 160) : QColor(170, 0, 70);
    case InstrCategory::Move: return d ? QColor(180, 180, 180) : QColor(90, 90, 90);
    case InstrCategory::Predicate: return d ? QColor(130, 210, 230) : QColor(0, 110, 140);
    case InstrCategory::Misc: return d ? QColor(200, 200, 200) : QColor(60, 60, 60);
    }
    return d ? QColor(220, 220, 220) : QColor(0, 0, 0);
}

QColor Theme::editorPaper() { return isDark() ? QColor(30, 30, 32) : QColor(255, 255, 255); }
QColor Theme::editorText() { return isDark() ? QColor(220, 220, 220) : QColor(20, 20, 20); }
QColor Theme::marginPaper() { return isDark() ? QColor(40, 40, 43) : QColor(240, 240, 240); }
QColor Theme::commentText() { return isDark() ? QColor(120, 160, 110) : QColor(0, 128, 0); }
QColor Theme::keywordText() { return isDark() ? QColor(100, 160, 255) : QColor(0, 0, 190); }
QColor Theme::numberText() { return isDark() ? QColor(180, 205, 160) : QColor(150, 60, 0); }
QColor Theme::stringText() { return isDark() ? QColor(215, 155, 120) : QColor(160, 30, 30); }
QColor Theme::typeText() { return isDark() ? QColor(80, 200, 180) : QColor(0, 110, 120); }
QColor Theme::directiveText() { return isDark() ? QColor(200, 140, 90) : QColor(120, 80, 0); }
QColor Theme::labelText() { return isDark() ? QColor(230, 150, 230) : QColor(140, 0, 140); }
QColor Theme::errorPaper() { return isDark() ? QColor(90, 30, 30) : QColor(255, 215, 215); }
QColor Theme::warningPaper() { return isDark() ? QColor(85, 70, 20) : QColor(255, 240, 190); }

double Theme::fadedTextAlpha() { return isDark() ? 0.55 : 0.5; }

double Theme::contrast(const QColor& a, const QColor& b) {
    auto luminance = [](const QColor& c) {
        auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
        return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
    };
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QIcon Theme::icon(Icon which) {
    QIcon icon;
    for (int size : {16, 22, 24, 32, 48}) {
        QPixmap pm(size, size);
        pm.fill(Qt::transparent);
        QPainter p(&pm);
        p.setRenderHint(QPainter::Antialiasing);
        const double m = size * 0.14;
        const QRectF box(m, m, size - 2 * m, size - 2 * m);
        // Bright fills with a contrasting rim read on either toolbar colour.
        if (which == Icon::Build) {
            const QColor fill = isDark() ? QColor(95, 205, 110) : QColor(30, 140, 55);
            QPolygonF triangle;
            triangle << box.topLeft() << QPointF(box.right(), box.center().y()) << box.bottomLeft();
            p.setPen(QPen(isDark() ? QColor(200, 255, 205) : QColor(10, 80, 25), std::max(1.0, size / 16.0)));
            p.setBrush(fill);
            p.drawPolygon(triangle);
        } else {
            const QColor fill = isDark() ? QColor(240, 110, 100) : QColor(200, 40, 35);
            p.setPen(QPen(isDark() ? QColor(255, 210, 205) : QColor(120, 15, 10), std::max(1.0, size / 16.0)));
            p.setBrush(fill);
            p.drawRoundedRect(box.adjusted(size * 0.06, size * 0.06, -size * 0.06, -size * 0.06), size * 0.08, size * 0.08);
        }
        p.end();
        icon.addPixmap(pm, QIcon::Normal);
        // Disabled: the same shape in the palette's disabled text colour, so it reads as off.
        QPixmap off(pm.size());
        off.fill(Qt::transparent);
        QPainter q(&off);
        q.drawPixmap(0, 0, pm);
        q.setCompositionMode(QPainter::CompositionMode_SourceIn);
        q.fillRect(off.rect(), isDark() ? QColor(110, 110, 110) : QColor(170, 170, 170));
        q.end();
        icon.addPixmap(off, QIcon::Disabled);
    }
    return icon;
}

void Theme::styleLexerBase(QsciLexer& lexer) {
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    mono.setPointSize(10);
    lexer.setDefaultFont(mono);
    lexer.setFont(mono, -1);
    lexer.setDefaultPaper(editorPaper());
    lexer.setPaper(editorPaper(), -1);
    lexer.setDefaultColor(editorText());
    lexer.setColor(editorText(), -1);
}

} // namespace lowerscope
