// Profile heat onto the Source and PTX editors (profile_heat.h).
#include "views/measure/profile_heat.h"

#include "views/code/code_editor.h"
#include "views/code/ptx_pane.h"
#include "views/code/source_pane.h"
#include "views/common/workspace.h"

#include <QComboBox>
#include <QTimer>

namespace lowerscope {

ProfileHeat::ProfileHeat(Workspace* session, SourcePane* source, PtxPane* ptx, QObject* parent)
    : QObject(parent), m_session(session), m_source(source), m_ptx(ptx) {
    // The panes reload their editors on these; queued so the reload has happened first.
    auto later = [this] { QTimer::singleShot(0, this, &ProfileHeat::refresh); };
    if (source) connect(source->fileSelector(), &QComboBox::currentIndexChanged, this, later);
    if (session) connect(session, &Workspace::snapshotChanged, this, later);
}

void ProfileHeat::setHeat(const std::map<std::string, std::vector<std::pair<int, double>>>& source,
                          const std::vector<std::pair<int, double>>& ptx) {
    m_sourceHeat = source;
    m_ptxHeat = ptx;
    refresh();
}

void ProfileHeat::refresh() {
    static const std::vector<std::pair<int, double>> kNone;
    auto heatOf = [this](const std::string& file) -> const std::vector<std::pair<int, double>>& {
        auto it = m_sourceHeat.find(file);
        return it != m_sourceHeat.end() ? it->second : kNone;
    };
    if (m_source && m_session) {
        m_source->editor()->setHeat(heatOf(m_session->mainRecordedFile()));
        if (m_source->headerEditor()) {
            const std::string& shown = m_source->shownFile();
            m_source->headerEditor()->setHeat(shown.empty() ? kNone : heatOf(shown));
        }
    }
    if (m_ptx) m_ptx->editor()->setHeat(m_ptxHeat);
}

} // namespace lowerscope
