#pragma once
// Routes the Profile pane's heat (per recorded source file and per PTX line) to the heat strips of
// the Source pane's editors (the open document, or the header it shows) and of the PTX pane, and
// re-applies it when those editors reload their text (another header chosen, a new listing).

#include <QObject>
#include <QPointer>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace lowerscope {

class PtxPane;
class SourcePane;
class Workspace;

class ProfileHeat : public QObject {
    Q_OBJECT
public:
    ProfileHeat(Workspace* session, SourcePane* source, PtxPane* ptx, QObject* parent = nullptr);
    void setHeat(const std::map<std::string, std::vector<std::pair<int, double>>>& source,
                 const std::vector<std::pair<int, double>>& ptx);
    // Re-applies the current heat to the editors.
    void refresh();

private:
    QPointer<Workspace> m_session;
    QPointer<SourcePane> m_source;
    QPointer<PtxPane> m_ptx;
    std::map<std::string, std::vector<std::pair<int, double>>> m_sourceHeat;
    std::vector<std::pair<int, double>> m_ptxHeat;
};

} // namespace lowerscope
