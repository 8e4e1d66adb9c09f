#pragma once
// The SASS pane: a table of the current kernel's instructions (SassModel) and the features that
// belong to it, all built and kept up to date by the pane itself (issue 6):
//  - the dependency-arrow gutter left of the table (toggle: all edges in view); clicking a
//    register operand highlights its defs and uses;
//  - the control-code graphic in the Control column, opcode/control tooltips;
//  - the register-pressure strip right of the table (click to jump; F7 / Shift+F7 next / previous
//    peak, Ctrl+F7 maximum; GPRs, predicates or uniform GPRs from the context menu);
//  - a stale banner above it, and a bar saying why rows are faded while a SASS filter is active
//    (with a button that ends the filter), wherever the filter pane is.
// Everything follows the workspace facade; the pane calls no other pane.

#include "core/run/profile_document.h"
#include "views/common/workspace.h"

#include <memory>

#include <QPointer>
#include <QWidget>

class QAction;
class QActionGroup;
class QLabel;
class QTableView;
class QHBoxLayout;

namespace lowerscope {

class SassModel;
class ArrowGutter;
class PressureStrip;

class SassPane : public QWidget {
    Q_OBJECT
public:
    explicit SassPane(Workspace* session, QWidget* parent = nullptr);
    QTableView* view() const { return m_view; }
    SassModel* model() const { return m_model; }
    QLabel* banner() const { return m_banner; }
    QWidget* filterBar() const { return m_filterBar; }
    QLabel* filterBarLabel() const { return m_filterLabel; }
    ArrowGutter* gutter() const { return m_gutter; }
    PressureStrip* pressureStrip() const { return m_strip; }
    // The pane's actions (also in its context menu, with their shortcuts while it has focus).
    QAction* allEdgesAction() const { return m_allEdges; }
    // The gutter's filter actions: one per DepKind (in enum order), and "only the highlighted register".
    const QList<QAction*>& arrowKindActions() const { return m_arrowKinds; }
    QAction* onlyRegisterAction() const { return m_onlyRegister; }
    QAction* maxPressureAction() const { return m_maxPressure; }
    QAction* nextPeakAction() const { return m_nextPeak; }
    QAction* previousPeakAction() const { return m_previousPeak; }
    // Which live-register class the pressure strip shows (exclusive; GPRs by default).
    QAction* pressureGprAction() const { return m_pressureGpr; }
    QAction* pressurePredAction() const { return m_pressurePred; }
    QAction* pressureUgprAction() const { return m_pressureUgpr; }
    void applyTheme(); // recolours the stale banner (rows repaint from Theme by themselves)
    // Hardware evidence from a lowerscope.profile/1 document (issue 14): shown in the Executed and
    // Stalls columns while the shown build is the one it was taken on (cubin digest and kernel);
    // after a rebuild into another cubin the columns hide again and profileNote() says why.
    // Returns "" when shown, else the reason it is not. nullptr removes it.
    QString setProfile(std::shared_ptr<const ProfileDocument> profile);
    const QString& profileNote() const { return m_profileNote; }
    // Moves the current row to the next (+1) / previous (-1) run of consecutive highlighted rows.
    // Returns false when there is none.
    bool jumpToRun(int direction);

signals:
    void currentRowChanged(int row);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void createGutter();
    void createControlColumn();
    // Gives the Operands column what the other shown columns leave of the table's width (at least
    // its minimum), until the user sizes it by hand.
    void fitOperandsColumn();
    void createPressureStrip();
    void reload();
    void showPressure();
    void onSelectionChanged();
    void onStale();
    void updateFilterBar();
    void applyProfile(); // shows m_profile on the current rows if it fits (sets m_profileNote)

    QPointer<Workspace> m_session;
    std::shared_ptr<const ProfileDocument> m_profile;
    QString m_profileNote;
    QLabel* m_banner;
    QWidget* m_filterBar;
    QLabel* m_filterLabel;
    QHBoxLayout* m_body;
    QTableView* m_view;
    SassModel* m_model;
    ArrowGutter* m_gutter = nullptr;
    PressureStrip* m_strip = nullptr;
    QAction* m_allEdges = nullptr;
    QList<QAction*> m_arrowKinds;
    QAction* m_onlyRegister = nullptr;
    QAction* m_maxPressure = nullptr;
    QAction* m_nextPeak = nullptr;
    QAction* m_previousPeak = nullptr;
    QActionGroup* m_pressureClasses = nullptr;
    QAction* m_pressureGpr = nullptr;
    QAction* m_pressurePred = nullptr;
    QAction* m_pressureUgpr = nullptr;
    bool m_updating = false;
    bool m_fittingOperands = false; // fitOperandsColumn is resizing
    bool m_operandsByHand = false;  // the user sized the Operands column
    ListingKey m_shown; // what reload() last showed
};

} // namespace lowerscope
