#pragma once

#include "core/util/result.h"

#include <QByteArray>
#include <QFont>
#include <QList>
#include <QObject>
#include <QString>

class QAction;
class QDockWidget;
class QMainWindow;
class QMenu;
class QTabWidget;

namespace RetryLab::Ui {

class ExportController;
class MessageBar;
class OpenedRun;
class RunSession;
class TimelineView;

/// The window's ways of showing retries to people: View > Presentation (a larger
/// font, thicker bars, the timeline alone and full screen; off again restores the
/// layout), View > Replay the Run (the finished or the opened run played back),
/// File > Export picture of the tab (PNG or SVG, for slides), and View > Reset layout
/// (the docks back where a new window has them).
class PresentationController final : public QObject
{
    Q_OBJECT

public:
    struct Parts
    {
        QMainWindow *window = nullptr;
        QTabWidget *tabs = nullptr;
        /// One of the tabs: the one presentation and replays show.
        TimelineView *timeline = nullptr;
        /// Hidden in presentation mode.
        QList<QDockWidget *> docks;
        RunSession *session = nullptr;
        OpenedRun *openedRun = nullptr;
        /// Asks for file names (ExportController::chooseFile, which tests answer).
        ExportController *exports = nullptr;
        MessageBar *messages = nullptr;
    };

    /// None of the parts is owned; each must outlive this.
    explicit PresentationController(const Parts &parts, QObject *parent = nullptr);

    /// Adds View > Presentation (Ctrl+Shift+P) and View > Replay the Run (Ctrl+Shift+R).
    void addViewActions(QMenu *view);
    /// Adds File > Export picture of the tab (Ctrl+Shift+E).
    void addPictureAction(QMenu *file);
    /// Adds View > Reset layout.
    void addLayoutAction(QMenu *view);
    /// Takes the window's dock layout now as the one Reset layout goes back to.
    void keepDefaultLayout(int version);

    /// What a picture of the timeline holds: the whole run, every lane; or the stretch of
    /// time and the lanes the view shows (zoomed and scrolled to the part chosen).
    enum class TimelinePart { WholeRun, Shown };

    bool isPresentation() const { return m_presentation; }
    /// View > Replay the Run, made by addViewActions() (null before).
    QAction *replayAction() const { return m_replayAction; }

public Q_SLOTS:
    void setPresentation(bool on);
    /// Leaves presentation mode, docks every dock again and restores the layout kept by
    /// keepDefaultLayout(), closed docks shown again as a new window has them.
    void resetLayout();
    /// The finished run (or the opened one) played back (see OpenedRun); says
    /// why not while the run goes on or before anything was sent.
    void replayRun();
    /// Asks for a file, PNG or SVG by the filter chosen, and writes the tab on top.
    void exportPicture();
    /// Writes the tab on top to `path`, PNG or SVG by its suffix, and says so above the
    /// tabs. The timeline gives `part` of the run, a PNG at print resolution.
    Core::Result<void> exportPicture(const QString &path, TimelinePart part = TimelinePart::WholeRun);

private:
    /// The most lanes a picture of the timeline holds (a taller picture no slide or page takes).
    static constexpr qsizetype maxPictureLanes = 400;
    Core::Result<void> exportTimelinePicture(const QString &path, TimelinePart part);

    Parts m_parts;
    bool m_presentation = false;
    QAction *m_presentationAction = nullptr;
    QAction *m_replayAction = nullptr;
    QByteArray m_statePresented; ///< the dock layout to restore after presentation mode
    QFont m_fontPresented;
    bool m_wasMaximized = false;
    QByteArray m_defaultState; ///< keepDefaultLayout()'s
    int m_stateVersion = 0;
};

} // namespace RetryLab::Ui
