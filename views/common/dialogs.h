#pragma once
// Whether the GUI may ask its user with modal dialogs. A scripted run (--screenshot, --dump-state,
// --quit-after-build, or LOWERSCOPE_NONINTERACTIVE=1) has nobody to answer: there every question
// takes its safe answer (nothing is replaced, lost or trusted) and every problem is one line on
// stderr and in the status bar, so an offscreen run never blocks on a dialog.

#include <QString>

class QWidget;

namespace lowerscope {

bool dialogsAllowed();
void setDialogsAllowed(bool allowed);

// A problem for the user: a modal warning box when dialogs are allowed, else "lowerscope: TITLE:
// TEXT" on stderr.
void showProblem(QWidget* parent, const QString& title, const QString& text);

} // namespace lowerscope
