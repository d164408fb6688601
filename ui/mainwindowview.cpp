#include "ui/mainwindow.h"

#include "ui/exportcontroller.h"
#include "ui/run/timelineview.h"
#include "ui/session/runsession.h"
#include "ui/session/settings.h"
#include "ui/widgets/messagebar.h"
#include "ui/widgets/pictureexport.h"

#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QStandardPaths>
#include <QTabWidget>

// The View menu's presentation mode and picture export, for showing retries to people.

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
    QAction *picture = view->addAction(tr("Export &picture\u2026"), this, &MainWindow::exportPictureWithDialog);
    picture->setObjectName(QStringLiteral("exportPicture"));
    picture->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G));
    picture->setToolTip(tr("The timeline or the current tab's charts as PNG or SVG, for slides"));
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

QWidget *MainWindow::pictureWidget() const
{
    if (currentTab() == Tab::Timeline)
        return m_timeline->viewport();
    return m_tabs->currentWidget();
}

Core::Result<void> MainWindow::exportPicture(const QString &path)
{
    return PictureExport::save(pictureWidget(), path, m_tabs->tabText(m_tabs->currentIndex()));
}

void MainWindow::exportPictureWithDialog()
{
    QString directory = m_settings->exportDirectory();
    if (directory.isEmpty())
        directory = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
    const QString name = m_tabs->tabText(m_tabs->currentIndex())
                             .remove(QLatin1Char('&'))
                             .toLower()
                             .replace(QLatin1Char(' '), QLatin1Char('-'));
    QString path = m_exports->chooseFile(QFileDialog::AcceptSave, tr("Export a picture"),
        QDir(directory).filePath(name + QStringLiteral(".svg")), tr("SVG (*.svg);;PNG (*.png)"));
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".svg");
    const auto written = exportPicture(path);
    if (!written) {
        m_messages->showMessage(FieldMessage::Kind::Error, tr("Could not export the picture: %1").arg(written.error()));
        return;
    }
    m_messages->showMessage(FieldMessage::Kind::Success, tr("Exported %1.").arg(QDir::toNativeSeparators(path)));
}

} // namespace RetryLab::Ui
