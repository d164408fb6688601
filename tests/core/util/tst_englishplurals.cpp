#include "core/util/englishplurals.h"

#include <QCoreApplication>
#include <QTest>

using namespace RetryLab::Core;

class TestEnglishPlurals : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void countedText_takesTheEnglishForm_data();
    void countedText_takesTheEnglishForm();
    void textWithoutCount_isLeftAlone();
    void install_twice_installsOnce();
};

void TestEnglishPlurals::initTestCase()
{
    // Before installing, Qt prints the "(s)" as written: the reason for the translator.
    QCOMPARE(QCoreApplication::translate("t", "%n attempt(s)", nullptr, 1), QStringLiteral("1 attempt(s)"));
    EnglishPlurals::install();
}

void TestEnglishPlurals::countedText_takesTheEnglishForm_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<QString>("expected");
    QTest::addRow("zero") << 0 << QStringLiteral("gave up after 0 attempts; 0 requests never sent");
    QTest::addRow("one") << 1 << QStringLiteral("gave up after 1 attempt; 1 request never sent");
    QTest::addRow("two") << 2 << QStringLiteral("gave up after 2 attempts; 2 requests never sent");
    QTest::addRow("many") << 1001 << QStringLiteral("gave up after 1001 attempts; 1001 requests never sent");
}

void TestEnglishPlurals::countedText_takesTheEnglishForm()
{
    QFETCH(int, n);
    QFETCH(QString, expected);
    QCOMPARE(QCoreApplication::translate(
                 "RetryLab::Core", "gave up after %n attempt(s); %n request(s) never sent", nullptr, n),
        expected);
}

void TestEnglishPlurals::textWithoutCount_isLeftAlone()
{
    // No count given: nothing to choose, the text stays as written.
    QCOMPARE(QCoreApplication::translate("t", "attempt(s) in flight"), QStringLiteral("attempt(s) in flight"));
    QCOMPARE(QCoreApplication::translate("t", "%n ms", nullptr, 3), QStringLiteral("3 ms"));
    QCOMPARE(EnglishPlurals::resolve(QStringLiteral("%n step(s) of %n"), 1), QStringLiteral("%n step of %n"));
}

void TestEnglishPlurals::install_twice_installsOnce()
{
    EnglishPlurals::install();
    QCOMPARE(QCoreApplication::instance()->findChildren<EnglishPlurals *>().size(), 1);
}

QTEST_GUILESS_MAIN(TestEnglishPlurals)
#include "tst_englishplurals.moc"
