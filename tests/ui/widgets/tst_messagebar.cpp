#include "ui/widgets/messagebar.h"

#include <QTest>
#include <QToolButton>

using namespace RetryLab::Ui;

class TestMessageBar : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void startsHidden_showsWithTheFirstMessage();
    void emptyText_isIgnored();
    void moreThanTheLimit_dropsTheOldest();
    void closeButton_removesItsMessage_andHidesTheLastOne();
    void clear_removesEverything();
};

void TestMessageBar::startsHidden_showsWithTheFirstMessage()
{
    QWidget window;
    auto *bar = new MessageBar(&window);
    window.show();
    QVERIFY(!bar->isVisible());
    bar->showMessage(FieldMessage::Kind::Warning, QStringLiteral("settings damaged"));
    QVERIFY(bar->isVisible());
    QCOMPARE(bar->messages(), QStringList{QStringLiteral("settings damaged")});
}

void TestMessageBar::emptyText_isIgnored()
{
    MessageBar bar;
    bar.showMessage(FieldMessage::Kind::Error, QString());
    QVERIFY(bar.messages().isEmpty());
    QVERIFY(bar.isHidden());
}

void TestMessageBar::moreThanTheLimit_dropsTheOldest()
{
    MessageBar bar;
    for (int i = 1; i <= MessageBar::maxMessages() + 2; ++i)
        bar.showMessage(FieldMessage::Kind::Note, QStringLiteral("message %1").arg(i));
    QStringList expected;
    for (int i = 3; i <= MessageBar::maxMessages() + 2; ++i)
        expected.append(QStringLiteral("message %1").arg(i));
    QCOMPARE(bar.messages(), expected);
}

void TestMessageBar::closeButton_removesItsMessage_andHidesTheLastOne()
{
    QWidget window;
    auto *bar = new MessageBar(&window);
    window.show();
    bar->showMessage(FieldMessage::Kind::Success, QStringLiteral("first"));
    bar->showMessage(FieldMessage::Kind::Error, QStringLiteral("second"));
    const QList<QToolButton *> closers = bar->findChildren<QToolButton *>();
    QCOMPARE(closers.size(), 2);
    QCOMPARE(closers.first()->toolTip(), QStringLiteral("Dismiss"));
    closers.first()->click();
    QTRY_COMPARE(bar->messages(), QStringList{QStringLiteral("second")});
    QVERIFY(bar->isVisible());
    closers.last()->click();
    QTRY_VERIFY(bar->messages().isEmpty());
    QVERIFY(!bar->isVisible());
}

void TestMessageBar::clear_removesEverything()
{
    MessageBar bar;
    bar.showMessage(FieldMessage::Kind::Note, QStringLiteral("a"));
    bar.showMessage(FieldMessage::Kind::Note, QStringLiteral("b"));
    bar.clear();
    QVERIFY(bar.messages().isEmpty());
    QVERIFY(bar.isHidden());
    QVERIFY(bar.findChildren<FieldMessage *>().isEmpty());
}

QTEST_MAIN(TestMessageBar)
#include "tst_messagebar.moc"
