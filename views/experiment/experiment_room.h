#pragma once
// The experiment room in the window: the Experiment card, the Series pane (a parameter series
// from the card's Vary field or File → Open series), and the bundled examples (File → Examples):
// their write-ups, the gallery's series and graph windows and their reruns on the user's GPU.

#include "views/common/room_host.h"

#include <QList>
#include <QObject>
#include <QPair>

#include <functional>

namespace lowerscope {

class MeasureRoom;
class ExperimentCardEditor;
class SeriesView;
class GraphBreakEvenView;
struct GalleryEntry;

class ExperimentRoom : public QObject, public Room {
    Q_OBJECT
public:
    ExperimentRoom(RoomHost& host, MeasureRoom& measure);
    void addActions(RoomHost& host) override;

    ExperimentCardEditor* card() const { return m_card; }
    SeriesView* seriesPane() const { return m_seriesPane; }
    // How a bundled session example is opened (the compare room's experiment controller).
    void setSessionOpener(std::function<bool(const QString& path)> open) { m_openSession = std::move(open); }

    // See MainWindow: the bundled examples, opening and rerunning them, series.
    static QList<QPair<QString, QString>> bundledExperiments();
    bool openBundledExperiment(const QString& id);
    QWidget* writeUpWindow() const { return m_writeUp; }
    SeriesView* galleryView() const { return m_galleryView; }
    bool rerunBundledSeries(const QString& id, QString* error = nullptr);
    GraphBreakEvenView* graphView() const { return m_graphView; }
    bool rerunBundledGraph(const QString& id, QString* error = nullptr);
    bool runSeries(const QString& spec, QString* error = nullptr);
    bool openSeries(const QString& path, QString* error = nullptr);

private:
    // Disables the rerun buttons of the example windows, with the reason, when there is no GPU.
    void gateRerunButtons();
    bool openGraphExample(const GalleryEntry& entry, const QByteArray& writeUp);

    RoomHost& m_host;
    MeasureRoom& m_measure;
    ExperimentCardEditor* m_card;
    SeriesView* m_seriesPane;
    std::function<bool(const QString&)> m_openSession;
    QWidget* m_writeUp = nullptr;
    SeriesView* m_galleryView = nullptr;
    QString m_galleryId; // the series example the gallery window shows
    GraphBreakEvenView* m_graphView = nullptr;
    QString m_graphId; // the graph example the graph window shows
    bool m_seriesOnCluster = false; // the series pane's backend is the Slurm one
};

} // namespace lowerscope
