#include "views/code/ptx_lexer.h"

#include "views/common/theme.h"

#include <Qsci/qsciscintilla.h>

#include <algorithm>
#include <cctype>

namespace lowerscope {

PtxLexer::PtxLexer(QObject* parent) : QsciLexerCustom(parent) { applyTheme(); }

QString PtxLexer::description(int style) const {
    switch (style) {
    case Default: return QStringLiteral("Default");
    case Comment: return QStringLiteral("Comment");
    case Directive: return QStringLiteral("Directive");
    case Opcode: return QStringLiteral("Opcode");
    case Register: return QStringLiteral("Register");
    case Number: return QStringLiteral("Number");
    case Label: return QStringLiteral("Label");
    case Predicate: return QStringLiteral("Predicate");
    case String: return QStringLiteral("String");
    }
    return {};
}

void PtxLexer::applyTheme() {
    Theme::styleLexerBase(*this);
    const bool d = Theme::isDark();
    setColor(Theme::editorText(), Default);
    setColor(Theme::commentText(), Comment);
    setColor(Theme::directiveText(), Directive);
    setColor(Theme::keywordText(), Opcode);
    setColor(Theme::typeText(), Register);
    setColor(Theme::numberText(), Number);
    setColor(Theme::labelText(), Label);
    setColor(d ? QColor(255, 130, 130) : QColor(180, 0, 0), Predicate);
    setColor(Theme::stringText(), String);
}

// Styles whole lines: PTX has no multi-line constructs except /* */ comments, which are rare in
// compiler output and styled per line here.
void PtxLexer::styleText(int start, int end) {
    QsciScintilla* ed = editor();
    if (!ed) return;
    const int firstLine = int(ed->SendScintilla(QsciScintilla::SCI_LINEFROMPOSITION, (unsigned long)start));
    start = int(ed->SendScintilla(QsciScintilla::SCI_POSITIONFROMLINE, (unsigned long)firstLine));
    const QByteArray text = ed->bytes(start, end);
    startStyling(start);
    // QsciScintilla::bytes() appends a terminating NUL: style exactly end - start bytes.
    const int n = std::min<int>(int(text.size()), end - start);
    int i = 0;
    bool lineStart = true;     // no token yet on this line
    bool opcodeSeen = false;
    auto emit_ = [&](int len, int style) {
        if (len > 0) setStyling(len, style);
    };
    while (i < n) {
        const char c = text[i];
        if (c == '\n' || c == '\r') {
            emit_(1, Default);
            ++i;
            lineStart = true;
            opcodeSeen = false;
            continue;
        }
        if (c == '/' && i + 1 < n && text[i + 1] == '/') {
            int j = i;
            while (j < n && text[j] != '\n') ++j;
            emit_(j - i, Comment);
            i = j;
            continue;
        }
        if (c == '"') {
            int j = i + 1;
            while (j < n && text[j] != '"' && text[j] != '\n') ++j;
            if (j < n && text[j] == '"') ++j;
            emit_(j - i, String);
            i = j;
            continue;
        }
        if (c == '@') {
            int j = i + 1;
            while (j < n && (std::isalnum((unsigned char)text[j]) || text[j] == '%' || text[j] == '!' || text[j] == '_')) ++j;
            emit_(j - i, Predicate);
            i = j;
            continue;
        }
        if (c == '%') {
            int j = i + 1;
            while (j < n && (std::isalnum((unsigned char)text[j]) || text[j] == '_' || text[j] == '.')) ++j;
            emit_(j - i, Register);
            i = j;
            lineStart = false;
            continue;
        }
        if (std::isdigit((unsigned char)c) || (c == '-' && i + 1 < n && std::isdigit((unsigned char)text[i + 1]))) {
            int j = i + 1;
            while (j < n && (std::isalnum((unsigned char)text[j]) || text[j] == '.')) ++j;
            emit_(j - i, Number);
            i = j;
            lineStart = false;
            continue;
        }
        if (c == '.' || c == '$' || c == '_' || std::isalpha((unsigned char)c)) {
            int j = i + 1;
            while (j < n && (std::isalnum((unsigned char)text[j]) || text[j] == '_' || text[j] == '.' || text[j] == '$')) ++j;
            int style = Default;
            if (j < n && text[j] == ':' && lineStart)
                style = Label;
            else if (c == '.' && lineStart)
                style = Directive;
            else if (c == '.')
                style = Directive;
            else if (!opcodeSeen && lineStart) {
                style = Opcode;
                opcodeSeen = true;
            } else if (c == '$')
                style = Label;
            emit_(j - i, style);
            i = j;
            lineStart = false;
            continue;
        }
        emit_(1, Default);
        ++i;
    }
}

} // namespace lowerscope
