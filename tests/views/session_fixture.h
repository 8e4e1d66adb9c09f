#pragma once
// The session-opening tests' set-up, in one place: the user's own document ("mine.cu") in a
// workspace and an ExperimentController on it that keeps no settings and collects the errors it
// reports instead of showing them.

#include "views/common/build_job.h"
#include "views/common/workspace.h"
#include "views/compare/compare_measure.h"

#include <QStringList>

#include <memory>

namespace lowerscope::testutil {

struct SessionFixture {
    static QString mineText() { return QStringLiteral("// mine\n"); }

    // `backend`, when given, builds the workspace's document (set before anything else).
    explicit SessionFixture(BuildBackend backend = {}) {
        if (backend) a.setBackend(std::move(backend));
        a.setDocument(QStringLiteral("mine.cu"), mineText());
        controller = std::make_unique<ExperimentController>(&a, nullptr, nullptr, nullptr, nullptr);
        controller->setUseSettings(false);
        controller->setErrorReporter([this](const QString& t) { reported << t; });
    }

    Workspace a;
    std::unique_ptr<ExperimentController> controller;
    QStringList reported; // every error the controller reported, in order
};

} // namespace lowerscope::testutil
