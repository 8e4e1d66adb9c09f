#include "views/common/dialogs.h"

#include <QMessageBox>

#include <atomic>
#include <cstdio>

namespace lowerscope {

namespace {
std::atomic<bool>& allowedFlag() {
    static std::atomic<bool> allowed{!qEnvironmentVariableIsSet("LOWERSCOPE_NONINTERACTIVE") ||
                                     qEnvironmentVariable("LOWERSCOPE_NONINTERACTIVE") == QLatin1String("0")};
    return allowed;
}
} // namespace

bool dialogsAllowed() { return allowedFlag().load(); }

void setDialogsAllowed(bool allowed) { allowedFlag().store(allowed); }

void showProblem(QWidget* parent, const QString& title, const QString& text) {
    if (dialogsAllowed()) {
        QMessageBox::warning(parent, title, text);
        return;
    }
    std::fprintf(stderr, "lowerscope: %s: %s\n", title.toUtf8().constData(), text.toUtf8().constData());
}

} // namespace lowerscope
