#include "ui/mainwindow.h"

#include "ui/openedrun.h"
#include "ui/run/timelineview.h"
#include "ui/session/runreplay.h"
#include "ui/session/runsession.h"
#include "ui/widgets/fieldmessage.h"
#include "ui/widgets/messagebar.h"
#include "ui/widgets/pictureexport.h"

#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QScrollArea>
#include <QTabWidget>

// Presentation mode, replays and pictures of the tabs: for showing retries to people.

namespace RetryLab::Ui {

namespace {

constexpr double presentationFontScale = 1.5;

} // namespace

void MainWindow::addPresentationActions(QMenu *view)
{
    m_presentationAction = view->addAction(tr("&Presentation"));
    m_presentationAction->setObjectName(QStringLiteral("presentation"));
    m_presentationAction->setCheckable(true);
    m_presentationAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    m_presentationAction->setToolTip(tr("A larger font, thicker bars and the timeline alone, full screen"));
    connect(m_presentationAction, &QAction::toggled, this, &MainWindow::setPresentation);

    m_replayAction = view->addAction(tr("&Replay the Run"));
    m_replayAction->setObjectName(QStringLiteral("replayRun"));
    m_replayAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    m_replayAction->setToolTip(
        tr("Play the finished run (or the opened one) again at 0.1\u00d7 to 10\u00d7; the views follow the playhead"));
    connect(m_replayAction, &QAction::triggered, this, &MainWindow::replayRun);
}

void MainWindow::addPictureAction(QMenu *file)
{
    QAction *picture
        = file->addAction(tr("Export pic&ture of the tab\u2026"), this, qOverload<>(&MainWindow::exportPicture));
    picture->setObjectName(QStringLiteral("exportPicture"));
    picture->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    picture->setToolTip(tr("The tab on top as a PNG picture or an SVG drawing, for slides (Ctrl+Shift+E)"));
}

void MainWindow::exportPicture()
{
    const QString png = tr("PNG picture (*.png)");
    const QString svg = tr("SVG drawing, sharp at any size (*.svg)");
    QString filter = png;
    const QString name = m_tabs->tabText(m_tabs->currentIndex())
                             .remove(QLatin1Char('&'))
                             .toLower()
                             .replace(QLatin1Char(' '), QLatin1Char('-'));
    QString path = m_exports->chooseFile(QFileDialog::AcceptSave, tr("Export picture of the tab"),
        name + QStringLiteral(".png"), png + QStringLiteral(";;") + svg, &filter);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += filter == svg ? QStringLiteral(".svg") : QStringLiteral(".png");
    exportPicture(path);
}

Core::Result<void> MainWindow::exportPicture(const QString &path)
{
    // The timeline's picture is what its viewport shows (axis, lanes, legend); a
    // scrolled page is drawn whole.
    QWidget *shown = m_tabs->currentWidget();
    if (shown == m_timeline)
        shown = m_timeline->viewport();
    else if (auto *area = qobject_cast<QScrollArea *>(shown); area && area->widget())
        shown = area->widget();
    const auto written = PictureExport::write(shown, path, windowTitle());
    if (written)
        m_messages->showMessage(FieldMessage::Kind::Success, tr("Wrote %1.").arg(QDir::toNativeSeparators(path)));
    else
        m_messages->showMessage(FieldMessage::Kind::Error, written.error());
    return written;
}

void MainWindow::replayRun()
{
    if (m_openedRun->isOpen()) {
        m_openedRun->replay()->seek(0.0);
        m_openedRun->replay()->play();
        return;
    }
    if (m_session->hasActivity()) {
        m_messages->showMessage(
            FieldMessage::Kind::Note, tr("The run is still going: replay it once it has finished (or after Stop)."));
        return;
    }
    if (m_session->laneCount() == 0) {
        m_messages->showMessage(FieldMessage::Kind::Note, tr("Nothing to replay yet: send a request first."));
        return;
    }
    showTab(Tab::Timeline);
    m_openedRun->replayRecord(m_session->runRecord());
}

void MainWindow::setPresentation(bool on)
{
    if (on == m_presentation)
        return;
    m_presentation = on;
    if (m_presentationAction && m_presentationAction->isChecked() != on)
        m_presentationAction->setChecked(on);
    if (on) {
        m_statePresented = saveState();
        m_fontPresented = font();
        m_wasMaximized = isMaximized();
        QFont larger = font();
        larger.setPointSizeF(larger.pointSizeF() * presentationFontScale);
        setFont(larger);
        for (QDockWidget *dock : {m_policyDock, m_requestDock, m_collectionsDock, m_inspectorDock})
            dock->hide();
        showTab(Tab::Timeline);
        m_timeline->setPresentation(true);
        showFullScreen();
    } else {
        setFont(m_fontPresented);
        m_timeline->setPresentation(false);
        restoreState(m_statePresented);
        if (m_wasMaximized)
            showMaximized();
        else
            showNormal();
    }
}

} // namespace RetryLab::Ui
