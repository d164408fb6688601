#include "ui/mainwindow.h"

#include "ui/run/timelineview.h"
#include "ui/session/runsession.h"

#include <QAction>
#include <QDockWidget>
#include <QMenu>
#include <QTabWidget>

// The View menu's presentation mode, for showing retries to people.

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
