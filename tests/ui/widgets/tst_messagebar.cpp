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
    void aNewMessage_replacesTheShownOne_historyKeepsBoth();
    void history_keepsTheLatest();
    void closeButton_hidesTheMessage();
    void goesByItself_afterItsTime_errorsStayLonger();
    void longText_showsItsFirstSentence_detailsHoldTheWhole();
    void details_givenApart_areBehindTheButton_andStopTheTimer();
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
    QCOMPARE(bar->shownText(), QStringLiteral("settings damaged"));
    QCOMPARE(bar->messages(), QStringList{QStringLiteral("settings damaged")});
    QVERIFY(bar->findChild<QToolButton *>(QStringLiteral("messageDetails"))->isHidden());
}

void TestMessageBar::emptyText_isIgnored()
{
    MessageBar bar;
    bar.showMessage(FieldMessage::Kind::Error, QString());
    bar.showMessage(FieldMessage::Kind::Error, QStringLiteral("  "));
    QVERIFY(bar.messages().isEmpty());
    QVERIFY(bar.isHidden());
}

void TestMessageBar::aNewMessage_replacesTheShownOne_historyKeepsBoth()
{
    QWidget window;
    auto *bar = new MessageBar(&window);
    window.show();
    bar->showMessage(FieldMessage::Kind::Success, QStringLiteral("first"));
    bar->showMessage(FieldMessage::Kind::Error, QStringLiteral("second"));
    QCOMPARE(bar->findChildren<FieldMessage *>().size(), 1); // one banner, never a stack
    QCOMPARE(bar->shownText(), QStringLiteral("second"));
    QCOMPARE(bar->findChild<FieldMessage *>()->kind(), FieldMessage::Kind::Error);
    QCOMPARE(bar->messages(), (QStringList{QStringLiteral("first"), QStringLiteral("second")}));
}

void TestMessageBar::history_keepsTheLatest()
{
    MessageBar bar;
    for (int i = 1; i <= MessageBar::historyLimit() + 2; ++i)
        bar.showMessage(FieldMessage::Kind::Note, QStringLiteral("message %1").arg(i));
    QCOMPARE(bar.messages().size(), MessageBar::historyLimit());
    QCOMPARE(bar.messages().constFirst(), QStringLiteral("message 3"));
    QCOMPARE(bar.messages().constLast(), QStringLiteral("message %1").arg(MessageBar::historyLimit() + 2));
}

void TestMessageBar::closeButton_hidesTheMessage()
{
    QWidget window;
    auto *bar = new MessageBar(&window);
    window.show();
    bar->showMessage(FieldMessage::Kind::Error, QStringLiteral("export refused"));
    auto *close = bar->findChild<QToolButton *>(QStringLiteral("messageClose"));
    QCOMPARE(close->toolTip(), QStringLiteral("Dismiss"));
    close->click();
    QVERIFY(!bar->isVisible());
    QVERIFY(bar->shownText().isEmpty());
    QCOMPARE(bar->messages(), QStringList{QStringLiteral("export refused")});
}

void TestMessageBar::goesByItself_afterItsTime_errorsStayLonger()
{
    MessageBar defaults;
    QVERIFY(defaults.displayTimeMs(FieldMessage::Kind::Success) > 0);
    QVERIFY(defaults.displayTimeMs(FieldMessage::Kind::Error) > defaults.displayTimeMs(FieldMessage::Kind::Warning));
    QVERIFY(defaults.displayTimeMs(FieldMessage::Kind::Warning) > defaults.displayTimeMs(FieldMessage::Kind::Success));

    QWidget window;
    auto *bar = new MessageBar(&window);
    window.show();
    bar->setDisplayTimeMs(FieldMessage::Kind::Success, 50);
    bar->setDisplayTimeMs(FieldMessage::Kind::Error, 0); // until closed
    bar->showMessage(FieldMessage::Kind::Success, QStringLiteral("copied"));
    QVERIFY(bar->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(!bar->isVisible(), 5000);

    bar->showMessage(FieldMessage::Kind::Error, QStringLiteral("not written"));
    QTest::qWait(150);
    QVERIFY(bar->isVisible());
}

void TestMessageBar::longText_showsItsFirstSentence_detailsHoldTheWhole()
{
    QWidget window;
    auto *bar = new MessageBar(&window);
    window.show();
    const QString text = QStringLiteral("Copied a curl command to the clipboard. ")
        + QStringLiteral("The server scenario is not part of it, because it needs an X-Retry-Test-Id of its own; ")
        + QStringLiteral("a read-modify-write request is a GET, a change and a PUT with If-Match.");
    QVERIFY(text.size() > MessageBar::shortLength());
    bar->showMessage(FieldMessage::Kind::Success, text);
    QCOMPARE(bar->shownText(), QStringLiteral("Copied a curl command to the clipboard."));
    QCOMPARE(bar->shownDetails(), text.trimmed());
    QCOMPARE(bar->findChild<FieldMessage *>()->toolTip(), text.trimmed());
    auto *details = bar->findChild<QToolButton *>(QStringLiteral("messageDetails"));
    QVERIFY(details->isVisible());
    QCOMPARE(bar->messages().constLast(), text.trimmed());

    // No sentence in reach: words, then an ellipsis; never a cut word.
    const QString words = QString(QStringLiteral("word ")).repeated(60);
    const QString cut = MessageBar::shortText(words);
    QVERIFY(cut.endsWith(QChar(0x2026)));
    QVERIFY(cut.size() <= MessageBar::shortLength() + 1);
    QVERIFY(cut.chopped(1).endsWith(QLatin1String("word")));
    QCOMPARE(MessageBar::shortText(QStringLiteral("  short  ")), QStringLiteral("short"));
}

void TestMessageBar::details_givenApart_areBehindTheButton_andStopTheTimer()
{
    QWidget window;
    auto *bar = new MessageBar(&window);
    window.show();
    bar->setDisplayTimeMs(FieldMessage::Kind::Success, 100);
    bar->showMessage(FieldMessage::Kind::Success, QStringLiteral("Copied a curl command."),
        QStringLiteral("Line breaks in header X were replaced by spaces."));
    auto *details = bar->findChild<QToolButton *>(QStringLiteral("messageDetails"));
    QVERIFY(details->isVisible());
    details->click();
    QCOMPARE(bar->shownText(), QStringLiteral("Line breaks in header X were replaced by spaces."));
    QTest::qWait(300);
    QVERIFY(bar->isVisible()); // being read: it stays
    details->click();
    QCOMPARE(bar->shownText(), QStringLiteral("Copied a curl command."));
    QCOMPARE(bar->messages().constLast(),
        QStringLiteral("Copied a curl command.\nLine breaks in header X were replaced by spaces."));
}

void TestMessageBar::clear_removesEverything()
{
    MessageBar bar;
    bar.showMessage(FieldMessage::Kind::Note, QStringLiteral("a"));
    bar.showMessage(FieldMessage::Kind::Note, QStringLiteral("b"));
    bar.clear();
    QVERIFY(bar.messages().isEmpty());
    QVERIFY(bar.isHidden());
    QVERIFY(bar.shownText().isEmpty());
}

QTEST_MAIN(TestMessageBar)
#include "tst_messagebar.moc"
