// The cost line (cost_panel.h).
#include "views/measure/cost_panel.h"

#include "core/run/measurement.h"
#include "core/run/measurement_data.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSettings>
#include <cmath>

namespace lowerscope {

namespace {

const QString kPriceKey = QStringLiteral("measure/pricePerGpuHour");
const QString kLaunchesKey = QStringLiteral("measure/launchesPerRequest");

QString money(double v) {
    return QStringLiteral("$%1").arg(v, 0, 'f', v < 1 ? 4 : 2);
}

} // namespace

CostPanel::CostPanel(QWidget* parent) : QWidget(parent) {
    m_price = new QDoubleSpinBox(this);
    m_price->setObjectName(QStringLiteral("costPrice"));
    m_price->setRange(0, 1000);
    m_price->setDecimals(2);
    m_price->setValue(2.50);
    m_price->setPrefix(QStringLiteral("$"));
    m_price->setSuffix(tr(" / GPU-hour"));
    m_price->setToolTip(tr("What one GPU-hour costs you (any currency)"));
    m_launches = new QDoubleSpinBox(this);
    m_launches->setObjectName(QStringLiteral("costLaunches"));
    m_launches->setRange(0.001, 1e9);
    m_launches->setDecimals(3);
    m_launches->setValue(1);
    m_launches->setSuffix(tr(" launches / request"));
    m_launches->setToolTip(tr("Your workload: how many launches of this kernel one request makes"));
    m_text = new QLabel(this);
    m_text->setObjectName(QStringLiteral("costText"));
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(new QLabel(tr("Cost at"), this));
    row->addWidget(m_price);
    row->addWidget(m_launches);
    row->addWidget(m_text, 1);
    auto changedFn = [this] {
        if (m_persistent) {
            QSettings s;
            s.setValue(kPriceKey, m_price->value());
            s.setValue(kLaunchesKey, m_launches->value());
        }
        refresh();
        emit changed();
    };
    connect(m_price, &QDoubleSpinBox::valueChanged, this, changedFn);
    connect(m_launches, &QDoubleSpinBox::valueChanged, this, changedFn);
}

void CostPanel::setVariants(const std::vector<std::pair<QString, double>>& variants) {
    m_variants.clear();
    for (const auto& v : variants)
        if (v.second > 0 && std::isfinite(v.second)) m_variants.push_back(v);
    refresh();
}

void CostPanel::setPricePerGpuHour(double price) {
    m_price->setValue(price);
}
double CostPanel::pricePerGpuHour() const {
    return m_price->value();
}
void CostPanel::setLaunchesPerRequest(double launches) {
    m_launches->setValue(launches);
}
double CostPanel::launchesPerRequest() const {
    return m_launches->value();
}

void CostPanel::setPersistent(bool on) {
    m_persistent = false; // not while reading
    if (on) {
        QSettings s;
        m_price->setValue(s.value(kPriceKey, 2.50).toDouble());
        m_launches->setValue(s.value(kLaunchesKey, 1.0).toDouble());
    }
    m_persistent = on;
}

QString CostPanel::text() const {
    return m_text->text();
}

void CostPanel::refresh() {
    if (m_variants.empty()) {
        m_text->clear();
        return;
    }
    const double price = m_price->value(), launches = m_launches->value();
    const CostLine first = costLine(m_variants.front().second, price, launches);
    QStringList parts;
    for (size_t i = 0; i < m_variants.size(); ++i) {
        const auto& [label, median] = m_variants[i];
        const CostLine c = costLine(median, price, launches);
        QString part = tr("%1: %2 GPU-s per million launches = %3; %4 GPU time and %5 per million requests")
                           .arg(label.isEmpty() ? tr("kernel") : label)
                           .arg(c.gpuSecondsPerMillion, 0, 'f', c.gpuSecondsPerMillion < 10 ? 2 : 1)
                           .arg(money(c.costPerMillion))
                           .arg(QString::fromStdString(formatDuration(c.gpuMsPerRequest)))
                           .arg(money(c.costPerMillionRequests));
        if (i > 0) {
            const double change = 100 * costChange(first, c);
            part += tr(" (%1%2 % vs %3)")
                        .arg(change >= 0 ? QStringLiteral("+") : QString())
                        .arg(change, 0, 'f', 1)
                        .arg(m_variants.front().first);
        }
        parts << part;
    }
    // A and B fit on a line; the points of a series read better one per line.
    m_text->setText(parts.join(parts.size() > 2 ? QStringLiteral("\n") : QStringLiteral(" · ")));
}

} // namespace lowerscope
