#pragma once
// The capture room (issue 29): kernels inside real programs. It owns the Capture pane
// (CaptureView: a capture document's kernel table and notes) and File → Profile a program…
// (ProfileProgramDialog). A captured kernel opens like any cubin — the module the injection saved
// beside the document, found as `lowerscope-cli inspect CAPTURE --kernel NAME` finds it
// (capture::captureKernelCubin: a HASH.cubin inside the document's folder whose content matches
// the recorded hash) — through the window's own open function, and the kernel is shown once it is
// built; the pane's banner says when the panes are SASS only (no line info, or its source is not
// here). Launches profiled on their replay (capture --metrics, or the dialog's metrics) are listed
// in the pane's notes, and when their kernel is shown its profile (STEM.launches/ID/profile.json)
// is opened through the profile opener the window gives (MainWindow::openProfile: the Profile
// pane and the SASS rows; the profile's cubin digest is the captured cubin's, which is the build
// shown), or the banner names the document.

#include "views/capture/capture_model.h"
#include "views/common/room_host.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>

namespace lowerscope {

class CaptureView;
class ProfileProgramDialog;

class CaptureRoom : public QObject, public Room {
    Q_OBJECT
public:
    // `openInput`: the window's File → Open of a path (a cubin here); false when it failed.
    CaptureRoom(RoomHost& host, std::function<bool(const QString&)> openInput);
    // How a launch's profile document is shown (the window's openProfile: false with *error when
    // it cannot be read; true with *error set when it is kept but not shown). Without one the
    // pane's banner names the document instead.
    using ProfileOpener = std::function<bool(const QString& path, QString* error)>;
    void setProfileOpener(ProfileOpener open) { m_openProfile = std::move(open); }

    // A launch of the shown capture with a profile document beside its saved memory.
    struct LaunchProfile {
        QString launch; // PID-CORR
        QString kernel; // mangled
        QString path;   // STEM.launches/ID/profile.json (absolute)
    };
    const QList<LaunchProfile>& launchProfiles() const { return m_profiles; }
    // The profile document last opened for a shown kernel ("" when none).
    QString openedProfile() const { return m_openedProfile; }

    void addActions(RoomHost& host) override;
    void applyTheme() override;

    CaptureView* view() const { return m_view; }
    // Whether a capture document is shown (the window's layout brings the pane forward then).
    bool hasDocument() const;
    // The dialog of File → Profile a program… (created on first use).
    ProfileProgramDialog* profileDialog();
    void showProfileDialog();

    // Shows the capture document at `path` in the Capture pane and opens a kernel: the one
    // `kernel` names (mangled, demangled, or a unique plain name), else the one with the largest
    // total whose cubin was saved. False with `error` when the document cannot be read or the named
    // kernel cannot be opened; a document with no kernel to open is shown (true).
    bool openCapture(const QString& path, const QString& kernel = {}, QString* error = nullptr);
    // Opens kernel `kernelIndex` of the shown document (its index in the document's kernels).
    bool openKernel(int kernelIndex, QString* error = nullptr);
    // The kernel being opened or shown from the capture ("" when none).
    QString openedKernel() const { return m_pendingKernel.isEmpty() ? m_shownKernel : m_pendingKernel; }

signals:
    // A captured kernel is shown in the code panes; `sourceShown` false: SASS only.
    void kernelShown(const QString& mangled, bool sourceShown);

private:
    void onBuildDone();
    // Finds the launch profiles of the shown document and lists them in the pane's notes.
    void findLaunchProfiles();
    // For the kernel just shown: opens its launch's profile; the sentence the banner adds.
    QString showLaunchProfile(const QString& mangled, bool& problem);

    RoomHost& m_host;
    std::function<bool(const QString&)> m_openInput;
    CaptureView* m_view = nullptr;
    QPointer<ProfileProgramDialog> m_dialog;
    QString m_cubin;         // the cubin of the kernel being opened
    QString m_pendingKernel; // mangled; waiting for its build
    QString m_shownKernel;
    ProfileOpener m_openProfile;
    QList<LaunchProfile> m_profiles;
    QString m_openedProfile;
};

} // namespace lowerscope
