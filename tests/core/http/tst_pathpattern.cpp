#include "core/http/pathpattern.h"

#include <QTest>

using namespace RetryLab::Core;

class TestPathPattern : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void matches_data();
    void matches();
    void bytesAndText_agree();
    void longPath_isLinear();
};

void TestPathPattern::matches_data()
{
    QTest::addColumn<QString>("pattern");
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("expected");

    // Cloud Storage's upload and download paths (JSON API).
    const QString upload = QStringLiteral("/upload/storage/v1/b/my-bucket/o");
    const QString download = QStringLiteral("/download/storage/v1/b/my-bucket/o/photos%2Fcat.jpg");
    QTest::addRow("star stays in its segment") << "/upload/*" << upload << false;
    QTest::addRow("star, one segment below") << "/upload/*"
                                             << "/upload/a" << true;
    QTest::addRow("globstar crosses segments") << "/upload/**" << upload << true;
    QTest::addRow("globstar matches the folder itself") << "/upload/**"
                                                        << "/upload" << true;
    QTest::addRow("globstar, folder with slash") << "/upload/**"
                                                 << "/upload/" << true;
    QTest::addRow("globstar, not a prefix of a name") << "/upload/**"
                                                      << "/uploads/a" << false;
    QTest::addRow("globstar in the middle") << "/storage/**/o"
                                            << "/storage/v1/b/B/o" << true;
    QTest::addRow("globstar in the middle, none") << "/a/**/z"
                                                  << "/a/z" << true;
    QTest::addRow("globstar in the middle, wrong end") << "/a/**/z"
                                                       << "/a/b/y" << false;
    QTest::addRow("two globstars") << "/**/b/**/o" << upload << true;
    QTest::addRow("download object, encoded slash in a segment") << "/download/storage/v1/b/*/o/*" << download << true;
    QTest::addRow("encoded slash is no separator") << "/download/storage/v1/b/*/o/*/*" << download << false;
    QTest::addRow("encoded character equals the literal") << "/a b/*"
                                                          << "/a%20b/c" << true;
    QTest::addRow("pattern may use percent-encoding") << "/a%20b/*"
                                                      << "/a b/c" << true;
    QTest::addRow("encoded star in the pattern is literal") << "/a%2A"
                                                            << "/ab" << false;
    QTest::addRow("encoded star matches a literal star") << "/a%2A"
                                                         << "/a*" << true;
    QTest::addRow("query is not part of the path")
        << "/upload/**" << upload + QStringLiteral("?uploadType=resumable") << true;
    QTest::addRow("query with a slash") << "/fail/*"
                                        << "/fail/3?next=/a/b" << true;
    QTest::addRow("fragment is not part of the path") << "/a"
                                                      << "/a#x/y" << true;
    QTest::addRow("question mark, one character") << "/fail/?"
                                                  << "/fail/3" << true;
    QTest::addRow("question mark is not a slash") << "/a?b"
                                                  << "/a/b" << false;
    QTest::addRow("question mark needs a character") << "/fail/?"
                                                     << "/fail/" << false;
    QTest::addRow("star within a name") << "/v1/*.json"
                                        << "/v1/items.json" << true;
    QTest::addRow("star within a name, deeper") << "/v1/*.json"
                                                << "/v1/a/items.json" << false;
    QTest::addRow("trailing slash of the path") << "/status/503"
                                                << "/status/503/" << true;
    QTest::addRow("trailing slash of the pattern") << "/status/503/"
                                                   << "/status/503" << true;
    QTest::addRow("exact") << "/status/503"
                           << "/status/503" << true;
    QTest::addRow("exact, other") << "/status/503"
                                  << "/status/500" << false;
    QTest::addRow("case-sensitive") << "/Upload/**" << upload << false;
    QTest::addRow("root pattern, root") << "/"
                                        << "/" << true;
    QTest::addRow("root pattern, empty path") << "/"
                                              << "" << true;
    QTest::addRow("root pattern, other") << "/"
                                         << "/a" << false;
    QTest::addRow("star alone matches every path") << "*" << upload << true;
    QTest::addRow("star alone matches the root") << "*"
                                                 << "/" << true;
    QTest::addRow("globstar alone") << "**"
                                    << "/a/b" << true;
    QTest::addRow("slash globstar") << "/**"
                                    << "/a/b/c" << true;
    QTest::addRow("name only: last segment") << "*.jpg"
                                             << "/a/b/c.jpg" << true;
    QTest::addRow("name only: not the last segment") << "b"
                                                     << "/a/b/c.jpg" << false;
    QTest::addRow("empty pattern matches all") << ""
                                               << "/anything/at/all" << true;
    QTest::addRow("star does not match two segments") << "/*"
                                                      << "/a/b" << false;
    QTest::addRow("star matches an empty name") << "/a*"
                                                << "/a" << true;
    QTest::addRow("double star inside a name is one star") << "/a**b"
                                                           << "/axyb" << true;
    QTest::addRow("double star inside a name stays in its segment") << "/a**b"
                                                                    << "/ax/yb" << false;
    QTest::addRow("empty segment is a segment") << "/a//b"
                                                << "/a//b" << true;
    QTest::addRow("non-ASCII, question mark is one character") << "/caf?"
                                                               << "/caf%C3%A9" << true;
    QTest::addRow("non-ASCII literal") << "/café/*"
                                       << "/caf%C3%A9/x" << true;
}

void TestPathPattern::matches()
{
    QFETCH(QString, pattern);
    QFETCH(QString, path);
    QFETCH(bool, expected);
    QCOMPARE(PathPattern(pattern).matches(QStringView(path)), expected);
}

void TestPathPattern::bytesAndText_agree()
{
    const PathPattern p(u"/upload/**");
    QVERIFY(p.matches(QByteArrayView("/upload/storage/v1/b/B/o")));
    QVERIFY(p.matches(QStringView(u"/upload/storage/v1/b/B/o")));
    QVERIFY(!p.matches(QByteArrayView("/download/x")));
    QCOMPARE(p.pattern(), QStringLiteral("/upload/**"));
    QVERIFY(PathPattern().isEmpty());
    QVERIFY(PathPattern().matches(QByteArrayView("/x")));
}

void TestPathPattern::longPath_isLinear()
{
    // A hostile path against a pattern that backtracks: 20,000 segments and a
    // long name of 'a's must not take quadratic time per segment. Counted, not
    // timed: the answer is right and comes (a quadratic walk would take minutes).
    QByteArray path;
    for (int i = 0; i < 20'000; ++i)
        path += "/a";
    QVERIFY(!PathPattern(u"/**/b").matches(QByteArrayView(path)));
    QVERIFY(PathPattern(u"/**/a").matches(QByteArrayView(path)));
    const QByteArray name = "/" + QByteArray(100'000, 'a');
    QVERIFY(!PathPattern(u"/*b*c").matches(QByteArrayView(name)));
}

QTEST_APPLESS_MAIN(TestPathPattern)
#include "tst_pathpattern.moc"
