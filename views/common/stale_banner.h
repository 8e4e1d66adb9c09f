#pragma once
// The banner above the PTX and SASS listings that says the correlation is stale (source edited
// since the last build) or that the last build failed and an older listing is shown.

#include <QString>

class QLabel;
class QWidget;

namespace lowerscope {

class Workspace;

// Text of the banner; "" when the listing is current.
QString staleBannerText(const Workspace& session);

// A hidden, word-wrapped banner label (object name "staleBanner"), coloured for the current theme.
QLabel* createStaleBanner(QWidget* parent);

// Recolours the banner for the current Theme (call after a theme switch).
void styleStaleBanner(QLabel* banner);

// Shows staleBannerText(session) in the banner, hidden when empty. Returns true when shown.
bool refreshStaleBanner(QLabel* banner, const Workspace& session);

} // namespace lowerscope
