#pragma once
// Find and filter in a SASS listing: a QSortFilterProxyModel over the SASS model (regex over
// predicate + opcode + operands, and a set of opcode categories), a small filter bar, a pane that
// shows the matching rows, and the instruction-mix summary per kernel and per source line.

#include "core/model.h"

#include <QPointer>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace lowerscope {

class SassModel;
class Workspace;

// Filters the rows of a SassModel (or a proxy over one). Columns and roles pass through; the
// opcode column's ToolTipRole is the opcode documentation (opcode_tooltip.h).
class SassFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit SassFilterProxy(QObject* parent = nullptr);

    // Case-insensitive regular expression matched against "predicate opcode operands" (e.g.
    // "@P0 LDG.E.128 R4, desc[UR6][R2.64]"). Empty = everything. Returns false (and keeps the old
    // pattern) when the expression is invalid; errorString() says why.
    bool setPattern(const QString& pattern);
    QString pattern() const { return m_re.pattern(); }
    QString errorString() const { return m_error; }
    // Bit n set = InstrCategory n shown; 0 = every category.
    void setCategoryMask(quint32 mask);
    quint32 categoryMask() const { return m_mask; }
    bool isActive() const { return m_mask != 0 || !m_re.pattern().isEmpty(); }

    // The text the pattern is matched against, for one instruction.
    static QString searchText(const SassInstruction& instruction);

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    QRegularExpression m_re;
    QString m_error;
    quint32 m_mask = 0;
};

// Instruction mix as one line: "42 instructions: FP32 12 (29%), Memory 8 (19%), …" (largest first).
QString instructionMixText(const LineAggregate& aggregate);
// Same for the instructions at `rows` of `function` (e.g. the filtered rows).
LineAggregate aggregateRows(const SassFunction& function, const std::vector<int>& rows);

// A filter bar (regex field, category menu, match count, "fade others") and the filtered table,
// plus the mix of the kernel and of the selected source line. Double-clicking (or Enter on) a row
// emits addressActivated for the main listing to jump to it. While a filter is active and "fade
// others" is on, the SASS table itself draws the rows that do not match faded
// (SassModel::setFilterMatches), so the matches stand out in their context.
class SassFilterPane : public QWidget {
    Q_OBJECT
public:
    explicit SassFilterPane(QWidget* parent = nullptr);
    // The filter pane of `workspace` (observed, not owned): the mix follows its kernel and
    // selected source line, and an activated row selects that instruction there.
    explicit SassFilterPane(Workspace* workspace, QWidget* parent = nullptr);
    // The SASS model to filter (shared with the SASS pane; not owned).
    void setSourceModel(SassModel* model);
    SassFilterProxy* proxy() const { return m_proxy; }
    QLineEdit* patternEdit() const { return m_edit; }
    QComboBox* categoryCombo() const { return m_category; }
    QTableView* view() const { return m_view; }
    QLabel* mixLabel() const { return m_mix; }
    QCheckBox* fadeOthersBox() const { return m_fadeOthers; }
    // Mix of the whole kernel and (when non-null) of the selected source line `line`.
    void setMix(const LineAggregate* kernel, const LineAggregate* line);
    // Empties the pattern and the category choice (the fading ends with them).
    void clearFilter();

signals:
    void addressActivated(quint32 address);

private:
    void showKernelMix();    // a new listing: the kernel's mix
    void showSelectionMix(); // plus the selected source line's
    void applyFilter();
    void updateCount();
    void updateMatches(); // the source model's faded rows
    QPointer<Workspace> m_workspace;
    SassFilterProxy* m_proxy;
    QPointer<SassModel> m_model;
    QCheckBox* m_fadeOthers;
    QLineEdit* m_edit;
    QComboBox* m_category;
    QLabel* m_count;
    QTableView* m_view;
    QLabel* m_mix;
    bool m_applying = false;
};

} // namespace lowerscope
