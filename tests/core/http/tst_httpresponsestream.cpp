#include "core/http/httpresponsestream.h"

#include <QTest>

using namespace RetryLab::Core;

namespace {

struct Read
{
    HttpResponseStream::Status status = HttpResponseStream::Status::NeedMore;
    int responseStatus = 0;
    HttpResponseStream::Framing framing = HttpResponseStream::Framing::None;
    QByteArray head;
    QByteArray body;
    QString error;
};

/// Feeds `wire` in pieces of `step` bytes (0: all at once) and collects what comes out.
Read readAll(const QByteArray &wire, qsizetype step, const QByteArray &method = "GET", bool close = false)
{
    HttpResponseStream stream;
    stream.setRequestMethod(method);
    Read r;
    const qsizetype piece = step > 0 ? step : std::max<qsizetype>(1, wire.size());
    for (qsizetype at = 0; at < wire.size() && r.status == HttpResponseStream::Status::NeedMore; at += piece) {
        r.status = stream.feed(QByteArrayView(wire).sliced(at, std::min(piece, wire.size() - at)));
        r.body += stream.body();
    }
    if (close && r.status == HttpResponseStream::Status::NeedMore) {
        r.status = stream.finish();
        r.body += stream.body();
    }
    r.responseStatus = stream.head().status;
    r.framing = stream.framing();
    r.head = stream.head().raw;
    r.error = stream.errorString();
    return r;
}

} // namespace

class TestHttpResponseStream : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void framings_data()
    {
        QTest::addColumn<QByteArray>("head");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<int>("framing");
        QTest::addColumn<bool>("close");
        QTest::addRow("content-length") << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n")
                                        << QByteArray("hello world") << QByteArray("GET")
                                        << int(HttpResponseStream::Framing::Length) << false;
        QTest::addRow("empty length") << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") << QByteArray()
                                      << QByteArray("GET") << int(HttpResponseStream::Framing::Length) << false;
        QTest::addRow("chunked") << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                                 << QByteArray("5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Sum: 1\r\n\r\n")
                                 << QByteArray("GET") << int(HttpResponseStream::Framing::Chunked) << false;
        QTest::addRow("until close") << QByteArray("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n")
                                     << QByteArray("streamed until the end") << QByteArray("GET")
                                     << int(HttpResponseStream::Framing::UntilClose) << true;
        QTest::addRow("head request") << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n") << QByteArray()
                                      << QByteArray("HEAD") << int(HttpResponseStream::Framing::None) << false;
        QTest::addRow("204") << QByteArray("HTTP/1.1 204 No Content\r\n\r\n") << QByteArray() << QByteArray("DELETE")
                             << int(HttpResponseStream::Framing::None) << false;
        QTest::addRow("304") << QByteArray("HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n") << QByteArray()
                             << QByteArray("GET") << int(HttpResponseStream::Framing::None) << false;
        QTest::addRow("bare line feeds") << QByteArray("HTTP/1.1 503 Service Unavailable\nContent-Length: 2\n\n")
                                         << QByteArray("{}") << QByteArray("GET")
                                         << int(HttpResponseStream::Framing::Length) << false;
    }

    void framings()
    {
        QFETCH(QByteArray, head);
        QFETCH(QByteArray, body);
        QFETCH(QByteArray, method);
        QFETCH(int, framing);
        QFETCH(bool, close);
        // Every split point: the body passes through unchanged, the head is found whole.
        for (qsizetype step : {qsizetype(0), qsizetype(1), qsizetype(2), qsizetype(3), qsizetype(7)}) {
            const Read r = readAll(head + body, step, method, close);
            QCOMPARE(r.status, HttpResponseStream::Status::Complete);
            QCOMPARE(int(r.framing), framing);
            QCOMPARE(r.head, head);
            QCOMPARE(r.body, body);
        }
    }

    void headersAreRead()
    {
        HttpResponseStream stream;
        QCOMPARE(
            stream.feed("HTTP/1.1 429 Too Many Requests\r\nRetry-After:  2 \r\nX-A: b\r\nContent-Length: 0\r\n\r\n"),
            HttpResponseStream::Status::Complete);
        QCOMPARE(stream.head().status, 429);
        QCOMPARE(stream.head().reason, QByteArray("Too Many Requests"));
        QCOMPARE(headerValue(stream.head().headers, "retry-after").value_or(QByteArray()), QByteArray("2"));
        QCOMPARE(stream.head().headers.size(), 3);
        QCOMPARE(stream.contentLength(), 0);
    }

    void pipelinedAndInterimResponses()
    {
        HttpResponseStream stream;
        const QByteArray wire
            = "HTTP/1.1 100 Continue\r\n\r\n"
              "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"
              "HTTP/1.1 503 Service Unavailable\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nno\r\n0\r\n\r\n";
        QCOMPARE(stream.feed(wire), HttpResponseStream::Status::Complete);
        QCOMPARE(stream.head().status, 100);
        QCOMPARE(stream.next(), HttpResponseStream::Status::Complete);
        QCOMPARE(stream.head().status, 200);
        QCOMPARE(stream.body(), QByteArray("abc"));
        QCOMPARE(stream.next(), HttpResponseStream::Status::Complete);
        QCOMPARE(stream.head().status, 503);
        QCOMPARE(stream.body(), QByteArray("2\r\nno\r\n0\r\n\r\n"));
        QCOMPARE(stream.bufferedBytes(), 0);
        QCOMPARE(stream.next(), HttpResponseStream::Status::NeedMore);
    }

    void aLargeBodyIsNotKept()
    {
        HttpResponseStream stream;
        QCOMPARE(
            stream.feed("HTTP/1.1 200 OK\r\nContent-Length: 10000000\r\n\r\n"), HttpResponseStream::Status::NeedMore);
        const QByteArray piece(64 * 1024, 'x');
        qint64 passed = 0;
        HttpResponseStream::Status status = HttpResponseStream::Status::NeedMore;
        while (status == HttpResponseStream::Status::NeedMore) {
            status = stream.feed(piece.left(int(std::min<qint64>(piece.size(), 10'000'000 - passed))));
            passed += stream.body().size();
            QVERIFY(stream.bufferedBytes() <= piece.size());
        }
        QCOMPARE(status, HttpResponseStream::Status::Complete);
        QCOMPARE(passed, 10'000'000);
        QCOMPARE(stream.bodyBytes(), 10'000'000);
    }

    void truncatedBodiesAreErrors_data()
    {
        QTest::addColumn<QByteArray>("wire");
        QTest::addRow("length") << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
        QTest::addRow("chunked") << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab");
        QTest::addRow("head") << QByteArray("HTTP/1.1 200 OK\r\nContent-Le");
    }

    void truncatedBodiesAreErrors()
    {
        QFETCH(QByteArray, wire);
        HttpResponseStream stream;
        QCOMPARE(stream.feed(wire), HttpResponseStream::Status::NeedMore);
        QCOMPARE(stream.finish(), HttpResponseStream::Status::Error);
        QVERIFY(stream.isTruncated());
        QVERIFY(stream.errorString().contains(QStringLiteral("closed the connection")));
    }

    void closingBetweenMessagesIsNotAnError()
    {
        HttpResponseStream stream;
        QCOMPARE(stream.finish(), HttpResponseStream::Status::NeedMore);
        QVERIFY(!stream.isTruncated());
    }

    void garbageIsRefused_data()
    {
        QTest::addColumn<QByteArray>("wire");
        QTest::addColumn<QString>("expected");
        QTest::addRow("not http") << QByteArray("SSH-2.0-OpenSSH\r\n\r\n") << "not HTTP/1.x";
        QTest::addRow("http 2") << QByteArray("HTTP/2 200\r\n\r\n") << "not HTTP/1.x";
        QTest::addRow("bad code") << QByteArray("HTTP/1.1 2x0 OK\r\n\r\n") << "three digits";
        QTest::addRow("folded") << QByteArray("HTTP/1.1 200 OK\r\nA: b\r\n  c\r\n\r\n") << "folded";
        QTest::addRow("no name") << QByteArray("HTTP/1.1 200 OK\r\n: b\r\n\r\n") << "without a name";
        QTest::addRow("both framings") << QByteArray(
            "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n")
                                       << "both Content-Length and Transfer-Encoding";
        QTest::addRow("two lengths") << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n")
                                     << "two different";
        QTest::addRow("bad length") << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n") << "not a number";
        QTest::addRow("bad chunk") << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
                                   << "bad chunk size";
        QTest::addRow("chunk overrun") << QByteArray(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n")
                                       << "did not end";
        QTest::addRow("huge head") << QByteArray("HTTP/1.1 200 OK\r\nX: ") + QByteArray(70'000, 'a') << "longer than";
    }

    void garbageIsRefused()
    {
        QFETCH(QByteArray, wire);
        QFETCH(QString, expected);
        HttpResponseStream stream;
        QCOMPARE(stream.feed(wire), HttpResponseStream::Status::Error);
        QVERIFY2(stream.errorString().contains(expected), qPrintable(stream.errorString()));
        // The error stays: the connection is out of sync.
        QCOMPARE(stream.feed("HTTP/1.1 200 OK\r\n\r\n"), HttpResponseStream::Status::Error);
        stream.reset();
        QCOMPARE(stream.feed("HTTP/1.1 204 No Content\r\n\r\n"), HttpResponseStream::Status::Complete);
    }
};

QTEST_GUILESS_MAIN(TestHttpResponseStream)
#include "tst_httpresponsestream.moc"
