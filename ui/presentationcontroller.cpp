#include "ui/presentationcontroller.h"

#include "ui/exportcontroller.h"
#include "ui/openedrun.h"
#include "ui/run/timelineview.h"
#include "ui/session/run/runreplay.h"
#include "ui/session/run/runsession.h"
#include "ui/widgets/fieldmessage.h"
#include "ui/widgets/messagebar.h"
#include "ui/widgets/pictureexport.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QScrollArea>
#include <QScrollBar>
#include <QTabWidget>

#include <algorithm>

namespace RetryLab::Ui {

namespace {

constexpr double presentationFontScale = 1.5;

} // namespace

PresentationController::PresentationController(const Parts &parts, QObject *parent) : QObject(parent), m_parts(parts)
{ }

void PresentationController::addViewActions(QMenu *view)
{
    m_presentationAction = view->addAction(tr("&Presentation"));
    m_presentationAction->setObjectName(QStringLiteral("presentation"));
    m_presentationAction->setCheckable(true);
    m_presentationAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    m_presentationAction->setToolTip(tr("A larger font, thicker bars and the timeline alone, full screen"));
    connect(m_presentationAction, &QAction::toggled, this, &PresentationController::setPresentation);

    QAction *replay = view->addAction(tr("&Replay the Run"));
    m_replayAction = replay;
    replay->setObjectName(QStringLiteral("replayRun"));
    replay->setIconText(tr("Replay"));
    replay->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    replay->setToolTip(
        tr("Play the finished run (or the opened one) again at 0.1\u00d7 to 10\u00d7; the views follow the playhead"));
    connect(replay, &QAction::triggered, this, &PresentationController::replayRun);
}

void PresentationController::addPictureAction(QMenu *file)
{
    QAction *picture = file->addAction(
        tr("Export pic&ture of the tab\u2026"), this, qOverload<>(&PresentationController::exportPicture));
    picture->setObjectName(QStringLiteral("exportPicture"));
    picture->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    picture->setToolTip(tr("The tab on top as a PNG picture or an SVG drawing, for slides (Ctrl+Shift+E)"));
}

void PresentationController::addLayoutAction(QMenu *view)
{
    QAction *reset = view->addAction(tr("&Reset layout"), this, &PresentationController::resetLayout);
    reset->setObjectName(QStringLiteral("resetLayout"));
}

void PresentationController::keepDefaultLayout(int version)
{
    m_stateVersion = version;
    m_defaultState = m_parts.window->saveState(version);
}

void PresentationController::resetLayout()
{
    if (m_presentation) {
        if (m_presentationAction)
            m_presentationAction->setChecked(false); // toggles setPresentation(false)
        else
            setPresentation(false);
    }
    for (QDockWidget *dock : std::as_const(m_parts.docks))
        dock->setFloating(false);
    m_parts.window->restoreState(m_defaultState, m_stateVersion);
}

void PresentationController::exportPicture()
{
    QTabWidget *tabs = m_parts.tabs;
    // The timeline's picture is the whole run, or the part of it the view shows: the filter says which.
    const bool timeline = tabs->currentWidget() == m_parts.timeline;
    const QString png = timeline ? tr("PNG picture of the whole run (*.png)") : tr("PNG picture (*.png)");
    const QString svg
        = timeline ? tr("SVG drawing of the whole run (*.svg)") : tr("SVG drawing, sharp at any size (*.svg)");
    const QString pngShown = tr("PNG picture of the time and lanes in view (*.png)");
    const QString svgShown = tr("SVG drawing of the time and lanes in view (*.svg)");
    QString filter = png;
    const QString name = tabs->tabText(tabs->currentIndex())
                             .remove(QLatin1Char('&'))
                             .toLower()
                             .replace(QLatin1Char(' '), QLatin1Char('-'));
    // In the export folder, as the run's exports: slides and reports usually go together.
    QString path = m_parts.exports->chooseFile(QFileDialog::AcceptSave, tr("Export picture of the tab"),
        QDir(m_parts.exports->exportFolder()).filePath(name + QStringLiteral(".png")),
        QStringList(timeline ? QStringList{png, svg, pngShown, svgShown} : QStringList{png, svg})
            .join(QStringLiteral(";;")),
        &filter);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += filter == svg || filter == svgShown ? QStringLiteral(".svg") : QStringLiteral(".png");
    m_parts.exports->rememberExportFolder(path);
    exportPicture(path, filter == pngShown || filter == svgShown ? TimelinePart::Shown : TimelinePart::WholeRun);
}

Core::Result<void> PresentationController::exportPicture(const QString &path, TimelinePart part)
{
    // The timeline's picture is drawn apart (exportTimelinePicture()); a scrolled page is
    // drawn whole.
    QWidget *shown = m_parts.tabs->currentWidget();
    if (shown == m_parts.timeline)
        return exportTimelinePicture(path, part);
    if (auto *area = qobject_cast<QScrollArea *>(shown); area && area->widget())
        shown = area->widget();
    const auto written = PictureExport::write(shown, path, m_parts.window->windowTitle());
    if (written)
        m_parts.messages->showMessage(FieldMessage::Kind::Success, tr("Wrote %1.").arg(QDir::toNativeSeparators(path)));
    else
        m_parts.messages->showMessage(FieldMessage::Kind::Error, written.error());
    return written;
}

Core::Result<void> PresentationController::exportTimelinePicture(const QString &path, TimelinePart part)
{
    // Drawn on a view of its own that is never on screen, a PNG at print resolution: every lane
    // (up to maxPictureLanes) over the whole session, or the lanes and the time the view shows.
    TimelineView *live = m_parts.timeline;
    RunSession *session = live->session();
    const qsizetype laneCount = session ? session->laneCount() : 0;
    const bool whole = part == TimelinePart::WholeRun || laneCount == 0;
    const qsizetype first = whole ? 0 : std::min<qsizetype>(live->firstVisibleLane(), laneCount);
    const qsizetype inView
        = live->laneHeight() > 0 ? (live->laneArea().height() + live->laneHeight() - 1) / live->laneHeight() : 0;
    const qsizetype lanes = std::min<qsizetype>(laneCount - first, whole ? maxPictureLanes : inView);
    TimelineView picture;
    picture.setAttribute(Qt::WA_DontShowOnScreen);
    picture.setFont(live->font());
    picture.setPalette(live->palette());
    picture.setPresentation(live->isPresentation());
    picture.setSession(session);
    const int width = std::max(1200, live->width());
    picture.resize(width, 400);
    picture.show();
    const int extra = int(lanes) * picture.laneHeight() - picture.laneArea().height();
    // The part shown gets exactly its lanes' height: a taller picture would hold more lanes
    // than are left below the first, and scroll back to show them.
    picture.resize(width, whole ? std::max(400, 400 + extra) : 400 + extra);
    if (!whole) {
        picture.setVisibleRange(live->timeScale().startMs, live->timeScale().endMs);
        picture.verticalScrollBar()->setValue(int(first) * picture.laneHeight());
    }
    const auto written = PictureExport::write(picture.viewport(), path, m_parts.window->windowTitle(),
        PictureExport::kindOf(path) == PictureExport::Kind::Png ? PictureExport::printScale : 0.0);
    if (!written) {
        m_parts.messages->showMessage(FieldMessage::Kind::Error, written.error());
        return written;
    }
    QString text;
    if (whole) {
        text = tr("Wrote %1: the whole run, %n request(s)", nullptr, int(lanes)).arg(QDir::toNativeSeparators(path));
        if (laneCount > lanes)
            text += tr(" (the first %1 of %2)").arg(lanes).arg(laneCount);
    } else {
        const double stepMs = std::max(1.0, live->timeScale().spanMs() / 100.0);
        text = tr("Wrote %1: requests %2 to %3 of %4, from %5 to %6")
                   .arg(QDir::toNativeSeparators(path))
                   .arg(first + 1)
                   .arg(first + lanes)
                   .arg(laneCount)
                   .arg(TimeScale::label(live->timeScale().startMs, stepMs),
                       TimeScale::label(live->timeScale().endMs, stepMs));
    }
    if (PictureExport::kindOf(path) == PictureExport::Kind::Png)
        text += tr(", at print resolution");
    m_parts.messages->showMessage(FieldMessage::Kind::Success, text + QLatin1Char('.'));
    return written;
}

void PresentationController::replayRun()
{
    OpenedRun *opened = m_parts.openedRun;
    if (opened->isOpen()) {
        opened->replay()->seek(0.0);
        opened->replay()->play();
        return;
    }
    if (m_parts.session->hasActivity()) {
        m_parts.messages->showMessage(
            FieldMessage::Kind::Note, tr("The run is still going: replay it once it has finished (or after Stop)."));
        return;
    }
    if (m_parts.session->laneCount() == 0) {
        m_parts.messages->showMessage(FieldMessage::Kind::Note, tr("Nothing to replay yet: send a request first."));
        return;
    }
    m_parts.tabs->setCurrentWidget(m_parts.timeline);
    opened->replayRecord(m_parts.session->runRecord());
}

void PresentationController::setPresentation(bool on)
{
    if (on == m_presentation)
        return;
    m_presentation = on;
    if (m_presentationAction && m_presentationAction->isChecked() != on)
        m_presentationAction->setChecked(on);
    QMainWindow *window = m_parts.window;
    if (on) {
        m_statePresented = window->saveState();
        m_fontPresented = QApplication::font();
        m_wasMaximized = window->isMaximized();
        QFont larger = QApplication::font();
        larger.setPointSizeF(larger.pointSizeF() * presentationFontScale);
        // The application's font, not the window's: menus and dialogs are windows of their
        // own, which a window's font does not reach.
        QApplication::setFont(larger);
        // Delivered now, not at the next turn of the loop: the timeline measures its lanes below.
        QCoreApplication::sendPostedEvents(nullptr, QEvent::ApplicationFontChange);
        for (QDockWidget *dock : std::as_const(m_parts.docks))
            dock->hide();
        m_parts.tabs->setCurrentWidget(m_parts.timeline);
        m_parts.timeline->setPresentation(true);
        window->showFullScreen();
    } else {
        QApplication::setFont(m_fontPresented);
        QCoreApplication::sendPostedEvents(nullptr, QEvent::ApplicationFontChange);
        m_parts.timeline->setPresentation(false);
        window->restoreState(m_statePresented);
        if (m_wasMaximized)
            window->showMaximized();
        else
            window->showNormal();
    }
}

} // namespace RetryLab::Ui
