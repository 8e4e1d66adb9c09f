#pragma once
// The Build output pane's list of diagnostics (compiler errors/warnings with their location).

#include "core/build/build.h"

#include <QAbstractTableModel>

#include <vector>

namespace lowerscope {

class DiagnosticsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { SeverityColumn, LocationColumn, MessageColumn, ColumnCount };
    enum Roles { LineRole = Qt::UserRole + 1, ColumnRole, SeverityRole, FileRole };

    explicit DiagnosticsModel(QObject* parent = nullptr);
    void setDiagnostics(std::vector<Diagnostic> diagnostics);
    const std::vector<Diagnostic>& diagnostics() const { return m_diagnostics; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    static QString severityName(Severity severity);

private:
    std::vector<Diagnostic> m_diagnostics;
};

} // namespace lowerscope
