#include "views/common/stale_banner.h"

#include "views/common/workspace.h"
#include "views/common/theme.h"

#include <QLabel>

namespace lowerscope {

QString staleBannerText(const Workspace& session) {
    if (!session.snapshot()) return {};
    const SnapshotPtr last = session.lastAttempt();
    if (last && !last->ok())
        return QObject::tr("Build failed: showing the last good listing (stale). Fix the errors and rebuild.");
    if (session.isStale())
        return QObject::tr("Source edited since the last build: correlation dimmed. Ctrl+B rebuilds.");
    return {};
}

QLabel* createStaleBanner(QWidget* parent) {
    auto* banner = new QLabel(parent);
    banner->setObjectName(QStringLiteral("staleBanner"));
    banner->setWordWrap(true);
    banner->setContentsMargins(6, 3, 6, 3);
    styleStaleBanner(banner);
    banner->hide();
    return banner;
}

void styleStaleBanner(QLabel* banner) {
    banner->setStyleSheet(QStringLiteral("QLabel#staleBanner { background: %1; color: %2; }")
                              .arg(Theme::warningPaper().name(), Theme::editorText().name()));
}

bool refreshStaleBanner(QLabel* banner, const Workspace& session) {
    const QString text = staleBannerText(session);
    banner->setText(text);
    banner->setVisible(!text.isEmpty());
    return !text.isEmpty();
}

} // namespace lowerscope
