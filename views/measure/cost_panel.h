#pragma once
// The cost line of a measurement or a series (issue 15): the user's price per GPU-hour and a
// workload described by launches of this kernel per request, and for each variant (A, B, or the
// points of a series) GPU-seconds and cost per million launches, GPU time per request, cost per
// million requests, and the change against the first. The arithmetic is core's costLine /
// costChange (core/run/measurement_data.h), the same as the Markdown reports' cost section.

#include <QString>
#include <QWidget>
#include <utility>
#include <vector>

class QDoubleSpinBox;
class QLabel;

namespace lowerscope {

class CostPanel : public QWidget {
    Q_OBJECT
public:
    explicit CostPanel(QWidget* parent = nullptr);

    // (label, median ms) per variant; non-positive medians are left out.
    void setVariants(const std::vector<std::pair<QString, double>>& variants);
    void setPricePerGpuHour(double price);
    double pricePerGpuHour() const;
    void setLaunchesPerRequest(double launches);
    double launchesPerRequest() const;
    // Reads the price (default 2.50) and launches per request (default 1) from QSettings now and
    // writes them back on every change (keys measure/pricePerGpuHour, measure/launchesPerRequest,
    // shared by every cost line of the application).
    void setPersistent(bool on);
    QString text() const;
    QDoubleSpinBox* priceBox() const { return m_price; }
    QDoubleSpinBox* launchesBox() const { return m_launches; }

signals:
    void changed();

private:
    void refresh();

    std::vector<std::pair<QString, double>> m_variants;
    QDoubleSpinBox* m_price;
    QDoubleSpinBox* m_launches;
    QLabel* m_text;
    bool m_persistent = false;
};

} // namespace lowerscope
