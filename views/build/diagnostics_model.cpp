#include "views/build/diagnostics_model.h"

#include "views/common/theme.h"

#include <QFileInfo>

namespace lowerscope {

DiagnosticsModel::DiagnosticsModel(QObject* parent) : QAbstractTableModel(parent) {}

void DiagnosticsModel::setDiagnostics(std::vector<Diagnostic> diagnostics) {
    beginResetModel();
    m_diagnostics = std::move(diagnostics);
    endResetModel();
}

QString DiagnosticsModel::severityName(Severity severity) {
    switch (severity) {
    case Severity::Error: return tr("error");
    case Severity::Warning: return tr("warning");
    case Severity::Remark: return tr("remark");
    case Severity::Note: return tr("note");
    }
    return {};
}

int DiagnosticsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_diagnostics.size()); }
int DiagnosticsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DiagnosticsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const Diagnostic& d = m_diagnostics[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case SeverityColumn: return severityName(d.severity);
        case LocationColumn: {
            QString loc = d.file.empty() ? QString::fromStdString(d.tool) : QFileInfo(QString::fromStdString(d.file)).fileName();
            if (d.line > 0) loc += QStringLiteral(":%1").arg(d.line);
            if (d.column > 0) loc += QStringLiteral(":%1").arg(d.column);
            return loc;
        }
        case MessageColumn: return QString::fromStdString(d.message);
        }
        return {};
    case Qt::ForegroundRole:
        if (index.column() != SeverityColumn) return {};
        if (d.severity == Severity::Error) return Theme::isDark() ? QColor(255, 110, 110) : QColor(200, 0, 0);
        if (d.severity == Severity::Warning) return Theme::isDark() ? QColor(240, 200, 90) : QColor(160, 110, 0);
        return {};
    case Qt::ToolTipRole: return QString::fromStdString(d.file);
    case LineRole: return d.line;
    case ColumnRole: return d.column;
    case SeverityRole: return int(d.severity);
    case FileRole: return QString::fromStdString(d.file);
    }
    return {};
}

QVariant DiagnosticsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case SeverityColumn: return tr("Severity");
    case LocationColumn: return tr("Location");
    case MessageColumn: return tr("Message");
    }
    return {};
}

} // namespace lowerscope
