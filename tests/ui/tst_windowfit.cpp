#include "tests/ui/offscreenscreen.h"
#include "tests/ui/windowparts.h"
#include "ui/mainwindow.h"
#include "ui/request/requestcomposer.h"
#include "ui/run/attemptinspector.h"
#include "ui/session/run/runsession.h"
#include "ui/session/settings/settings.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QLineEdit>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <memory>

// The window on a small screen: a projector's 1024×640 (the suite's offscreen screen).

using namespace RetryLab;
using Ui::MainWindow;

namespace {

constexpr QSize projector(1024, 640);

QString sizeText(QSize size)
{
    return QStringLiteral("%1x%2").arg(size.width()).arg(size.height());
}

QSize minimumOf(const QWidget &window)
{
    return window.minimumSizeHint().expandedTo(window.minimumSize());
}

} // namespace

class TestWindowFit final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void inspector_at1024x640_keepsTheWindowOnTheScreen();
    void urlField_isTheWidestInputOfTheRequestRow();
    void inspector_onAScreenTooNarrowForTheDocks_isInFront();
    void everyTab_isInSightOnTheTabBar();
    void layoutTheScreenCannotHold_isNotSaved_theLastGoodOneStays();
    void storedLayoutTooLargeForTheScreen_givesWayToTheDefault();

private:
    std::unique_ptr<MainWindow> makeWindow();
    static QRect available() { return QGuiApplication::primaryScreen()->availableGeometry(); }
};

void TestWindowFit::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_windowfit"));
    QVERIFY(QSettings().fileName().contains(QLatin1String("qttest")));
    QCOMPARE(available().size(), projector);
}

void TestWindowFit::init()
{
    QSettings settings;
    settings.clear();
    settings.sync();
}

std::unique_ptr<MainWindow> TestWindowFit::makeWindow()
{
    auto window = std::make_unique<MainWindow>();
    window->show();
    if (!QTest::qWaitForWindowExposed(window.get()))
        return nullptr;
    return window;
}

void TestWindowFit::inspector_at1024x640_keepsTheWindowOnTheScreen()
{
    auto window = makeWindow();
    QVERIFY(window);
    window->resize(projector);
    QTRY_COMPARE(window->size(), projector);
    composerOf(*window)->sendAction()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(sessionOf(*window)->resultCount() >= 1, 15'000);
    sessionOf(*window)->flush();

    // A click on an attempt opens the inspector beside the tabs.
    window->inspectAttempt(sessionOf(*window)->finishedRow(0));
    QDockWidget *dock = inspectorDockOf(*window);
    QTRY_VERIFY(dock->isVisible());
    QTest::qWait(50);
    const QSize minimum = minimumOf(*window);
    const auto culprits = [&window] {
        QString lines;
        for (QDockWidget *d : window->findChildren<QDockWidget *>())
            lines += QStringLiteral("\n%1 %2 min %3")
                         .arg(d->objectName())
                         .arg(d->isVisible())
                         .arg(sizeText(d->minimumSizeHint()));
        for (QWidget *w : window->findChildren<QWidget *>()) {
            if (w->isVisible() && w->minimumSizeHint().width() > 250)
                lines += QStringLiteral("\n%1 %2 min %3")
                             .arg(QString::fromLatin1(w->metaObject()->className()), w->objectName(),
                                 sizeText(w->minimumSizeHint()));
        }
        return lines;
    };
    QVERIFY2(minimum.width() <= projector.width() && minimum.height() <= projector.height(),
        qPrintable(
            QStringLiteral("minimum %1, inspector dock's %2").arg(sizeText(minimum), sizeText(dock->minimumSizeHint()))
            + culprits()));
    QCOMPARE(window->size(), projector);
    // Send and the inspector are in the window, not beyond the screen's edge.
    QList<QWidget *> mustShow{dock};
    for (QToolButton *button : composerOf(*window)->findChildren<QToolButton *>()) {
        if (button->defaultAction() == composerOf(*window)->sendAction())
            mustShow.append(button);
    }
    QCOMPARE(mustShow.size(), 2);
    for (QWidget *widget : std::as_const(mustShow)) {
        const QRect inWindow(widget->mapTo(window.get(), QPoint(0, 0)), widget->size());
        QVERIFY2(window->rect().contains(inWindow), qPrintable(widget->objectName()));
    }
    // Closing it gives the width back to the tabs.
    dock->hide();
    QTRY_VERIFY(minimumOf(*window).width() <= projector.width());
}

void TestWindowFit::inspector_onAScreenTooNarrowForTheDocks_isInFront()
{
    // 1366x768 at 1.5x: 910x512 of the window's own units, too narrow for the docks side by side.
    MainWindow::Options options;
    options.screenSize = QSize(910, 512);
    MainWindow window(options);
    collectionsDockOf(window)->hide(); // closed, as a user may have left it
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    composerOf(window)->sendAction()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(sessionOf(window)->resultCount() >= 1, 15'000);
    sessionOf(window)->flush();
    // The Collections dock opened again, and an attempt clicked before the docks were fitted.
    collectionsDockOf(window)->show();
    window.inspectAttempt(sessionOf(window)->finishedRow(0));
    QTest::qWait(100); // the docks are fitted to the screen after the layout took them in
    QVERIFY(inspectorDockOf(window)->isVisible());
    QVERIFY(!inspectorDockOf(window)->visibleRegion().isEmpty());
    QVERIFY(minimumOf(window).width() <= 910);
}

void TestWindowFit::urlField_isTheWidestInputOfTheRequestRow()
{
    auto window = makeWindow();
    QVERIFY(window);
    window->resize(projector);
    QTRY_COMPARE(window->size(), projector);
    auto *composer = composerOf(*window);
    auto *url = composer->findChild<QComboBox *>(QStringLiteral("url"));
    auto *method = composer->findChild<QComboBox *>(QStringLiteral("method"));
    QVERIFY(url && method);
    // With the Collections dock closed the request has the most width: the buttons could just
    // about stand beside a URL field of a dozen characters.
    for (bool collections : {true, false}) {
        collectionsDockOf(*window)->setVisible(collections);
        window->resizeDocks({policyDockOf(*window)}, {projector.width() / 3}, Qt::Horizontal);
        QTest::qWait(50);
        // Room for a URL of the embedded server with a path and a query: forty characters at least,
        // and no narrower than what is left of its row.
        const int forty = url->fontMetrics().averageCharWidth() * 40;
        QVERIFY2(url->lineEdit()->width() >= forty,
            qPrintable(QStringLiteral("URL %1 px, method %2 px, composer %3 px")
                           .arg(url->width())
                           .arg(method->width())
                           .arg(composer->width())));
        QVERIFY(url->width() > method->width() * 3);
    }
}

void TestWindowFit::everyTab_isInSightOnTheTabBar()
{
    auto window = makeWindow();
    QVERIFY(window);
    window->resize(projector);
    QTRY_COMPARE(window->size(), projector);
    QTabBar *bar = tabsOf(*window)->tabBar();
    QVERIFY(bar->count() >= 9);
    for (int i = 0; i < bar->count(); ++i) {
        QVERIFY2(bar->rect().contains(bar->tabRect(i)),
            qPrintable(QStringLiteral("%1 at %2..%3 of %4 px")
                           .arg(tabsOf(*window)->tabText(i))
                           .arg(bar->tabRect(i).left())
                           .arg(bar->tabRect(i).right())
                           .arg(bar->width())));
        // Shortened to fit, the title is whole in its tooltip.
        QVERIFY(tabsOf(*window)->tabToolTip(i).startsWith(tabsOf(*window)->tabText(i)));
    }
    QVERIFY(minimumOf(*window).width() <= projector.width());
}

void TestWindowFit::layoutTheScreenCannotHold_isNotSaved_theLastGoodOneStays()
{
    QByteArray goodState;
    {
        auto window = makeWindow();
        QVERIFY(window);
        window->resize(projector);
        QTRY_COMPARE(window->size(), projector);
        QVERIFY(window->close());
        goodState = Ui::Settings().windowState();
        QVERIFY(!goodState.isEmpty());
    }
    {
        auto window = makeWindow();
        QVERIFY(window);
        // Something in a dock that needs more than the screen has.
        inspectorDockOf(*window)->show();
        inspectorOf(*window)->setMinimumWidth(available().width() + 200);
        QTRY_VERIFY(minimumOf(*window).width() > available().width());
        QVERIFY(window->close());
    }
    QCOMPARE(Ui::Settings().windowState(), goodState);
}

void TestWindowFit::storedLayoutTooLargeForTheScreen_givesWayToTheDefault()
{
    {
        // A layout saved on a larger screen: the window 1800 wide, three docks beside the tabs.
        auto window = makeWindow();
        QVERIFY(window);
        inspectorDockOf(*window)->show();
        window->resize(1800, 1000);
        QTRY_COMPARE(window->size(), QSize(1800, 1000));
        window->resizeDocks({inspectorDockOf(*window), policyDockOf(*window)}, {700, 700}, Qt::Horizontal);
        QCoreApplication::processEvents();
        Ui::Settings settings;
        settings.setWindowGeometry(window->saveGeometry());
        settings.setWindowState(window->saveState(Ui::Settings::windowStateVersion));
        QVERIFY(settings.sync());
        window->hide();
    }
    auto window = makeWindow();
    QVERIFY(window);
    QVERIFY2(window->width() <= available().width() && window->height() <= available().height(),
        qPrintable(sizeText(window->size())));
    QVERIFY2(minimumOf(*window).width() <= available().width(), qPrintable(sizeText(minimumOf(*window))));
}

RETRYLAB_TEST_MAIN_WITH_SCREEN(TestWindowFit, projector)

#include "tst_windowfit.moc"
