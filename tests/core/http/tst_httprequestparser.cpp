#include "core/http/httprequestparser.h"

#include <QTest>

using namespace RetryLab::Core;
using Status = HttpRequestParser::Status;

namespace {

struct Outcome
{
    Status status = Status::NeedMore;
    int errorStatus = 0;
    HttpRequest request;
};

Outcome parseWhole(const QByteArray &input, const HttpRequestParser::Limits &limits = {})
{
    HttpRequestParser parser(limits);
    Outcome o;
    o.status = parser.feed(input);
    o.errorStatus = parser.errorStatus();
    if (o.status == Status::Complete)
        o.request = parser.takeRequest();
    return o;
}

// Feeds the bytes in pieces cut at `cuts`; stops at the first non-NeedMore.
Outcome parseInPieces(const QByteArray &input, const QList<qsizetype> &cuts)
{
    HttpRequestParser parser;
    Outcome o;
    qsizetype from = 0;
    QList<qsizetype> ends = cuts;
    ends.append(input.size());
    for (qsizetype end : std::as_const(ends)) {
        o.status = parser.feed(QByteArrayView(input).sliced(from, end - from));
        from = end;
        if (o.status != Status::NeedMore)
            break;
    }
    o.errorStatus = parser.errorStatus();
    if (o.status == Status::Complete)
        o.request = parser.takeRequest();
    return o;
}

QByteArray repeated(char c, qsizetype n)
{
    return QByteArray(n, c);
}

using Headers = QList<QPair<QByteArray, QByteArray>>;

} // namespace

class TestHttpRequestParser : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void goodRequests_parseAtEverySplit_data();
    void goodRequests_parseAtEverySplit();
    void badRequests_failAtEverySplit_data();
    void badRequests_failAtEverySplit();
    void pipelinedRequests_comeOutOneByOne();
    void pipelinedRequests_byteByByte();
    void error_isStickyUntilReset();
    void expectContinue_isReportedBeforeTheBody();
    void limits_areConfigurable();
    void isPartial_tracksUnfinishedRequests();
    void header_lookupIsCaseInsensitive();
    void connect_takesAnAuthorityAndLeavesTheTunnelBytes();
};

void TestHttpRequestParser::goodRequests_parseAtEverySplit_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("query");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<bool>("keepAlive");
    QTest::addColumn<int>("minorVersion");
    QTest::addColumn<Headers>("headers");

    QTest::addRow("simple GET") << QByteArray("GET / HTTP/1.1\r\nHost: a\r\n\r\n") << QByteArray("GET")
                                << QByteArray("/") << QByteArray() << QByteArray() << true << 1
                                << Headers{{"Host", "a"}};
    QTest::addRow("path and query") << QByteArray("GET /status/503?retry_after=5&x=%20 HTTP/1.1\r\nHost: h:1\r\n\r\n")
                                    << QByteArray("GET") << QByteArray("/status/503")
                                    << QByteArray("retry_after=5&x=%20") << QByteArray() << true << 1
                                    << Headers{{"Host", "h:1"}};
    QTest::addRow("content-length body") << QByteArray(
        "PUT /occ/a HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\n{\"value\":1}")
                                         << QByteArray("PUT") << QByteArray("/occ/a") << QByteArray()
                                         << QByteArray("{\"value\":1}") << true << 1
                                         << Headers{{"Host", "a"}, {"Content-Length", "11"}};
    QTest::addRow("zero content-length") << QByteArray("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n")
                                         << QByteArray("POST") << QByteArray("/x") << QByteArray() << QByteArray()
                                         << true << 1 << Headers{{"Host", "a"}, {"Content-Length", "0"}};
    QTest::addRow("repeated equal content-length")
        << QByteArray("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 3, 3\r\n\r\nabc") << QByteArray("POST")
        << QByteArray("/x") << QByteArray() << QByteArray("abc") << true << 1
        << Headers{{"Host", "a"}, {"Content-Length", "3, 3"}};
    QTest::addRow("chunked with extension and trailer")
        << QByteArray("POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                      "5;name=value\r\nhello\r\nA \r\n, world!!!\r\n0\r\nX-Checksum: 1\r\n\r\n")
        << QByteArray("POST") << QByteArray("/c") << QByteArray() << QByteArray("hello, world!!!") << true << 1
        << Headers{{"Host", "a"}, {"Transfer-Encoding", "chunked"}};
    QTest::addRow("chunked, empty body") << QByteArray(
        "POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n0\r\n\r\n")
                                         << QByteArray("POST") << QByteArray("/c") << QByteArray() << QByteArray()
                                         << true << 1 << Headers{{"Host", "a"}, {"Transfer-Encoding", "Chunked"}};
    QTest::addRow("HTTP/1.0 closes by default")
        << QByteArray("GET /a HTTP/1.0\r\n\r\n") << QByteArray("GET") << QByteArray("/a") << QByteArray()
        << QByteArray() << false << 0 << Headers{};
    QTest::addRow("HTTP/1.0 keep-alive") << QByteArray("GET /a HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")
                                         << QByteArray("GET") << QByteArray("/a") << QByteArray() << QByteArray()
                                         << true << 0 << Headers{{"Connection", "Keep-Alive"}};
    QTest::addRow("HTTP/1.1 connection close")
        << QByteArray("GET /a HTTP/1.1\r\nHost: a\r\nConnection: TE, close\r\n\r\n") << QByteArray("GET")
        << QByteArray("/a") << QByteArray() << QByteArray() << false << 1
        << Headers{{"Host", "a"}, {"Connection", "TE, close"}};
    QTest::addRow("bare LF line endings")
        << QByteArray("GET /lf HTTP/1.1\nHost: a\n\n") << QByteArray("GET") << QByteArray("/lf") << QByteArray()
        << QByteArray() << true << 1 << Headers{{"Host", "a"}};
    QTest::addRow("empty lines before the request line")
        << QByteArray("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n") << QByteArray("GET") << QByteArray("/")
        << QByteArray() << QByteArray() << true << 1 << Headers{{"Host", "a"}};
    QTest::addRow("absolute-form target")
        << QByteArray("GET http://127.0.0.1:8/delay/5?x=1 HTTP/1.1\r\nHost: a\r\n\r\n") << QByteArray("GET")
        << QByteArray("/delay/5") << QByteArray("x=1") << QByteArray() << true << 1 << Headers{{"Host", "a"}};
    QTest::addRow("absolute-form without path")
        << QByteArray("GET http://h HTTP/1.1\r\nHost: h\r\n\r\n") << QByteArray("GET") << QByteArray("/")
        << QByteArray() << QByteArray() << true << 1 << Headers{{"Host", "h"}};
    QTest::addRow("OPTIONS asterisk") << QByteArray("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n") << QByteArray("OPTIONS")
                                      << QByteArray("*") << QByteArray() << QByteArray() << true << 1
                                      << Headers{{"Host", "a"}};
    QTest::addRow("value whitespace trimmed, obs-text kept")
        << QByteArray("GET / HTTP/1.1\r\nHost:a\r\nX-Name: \t caf\xc3\xa9 au lait \t\r\nX-Empty:\r\n\r\n")
        << QByteArray("GET") << QByteArray("/") << QByteArray() << QByteArray() << true << 1
        << Headers{{"Host", "a"}, {"X-Name", "caf\xc3\xa9 au lait"}, {"X-Empty", ""}};
    QTest::addRow("HTTP/1.2 is read as 1.1")
        << QByteArray("GET / HTTP/1.2\r\nHost: a\r\n\r\n") << QByteArray("GET") << QByteArray("/") << QByteArray()
        << QByteArray() << true << 1 << Headers{{"Host", "a"}};
    QTest::addRow("custom method") << QByteArray("PURGE /x HTTP/1.1\r\nHost: a\r\n\r\n") << QByteArray("PURGE")
                                   << QByteArray("/x") << QByteArray() << QByteArray() << true << 1
                                   << Headers{{"Host", "a"}};
    const QByteArray bigValue = repeated('v', 60 * 1024);
    QTest::addRow("header section just under 64 KiB")
        << QByteArray(QByteArray("GET / HTTP/1.1\r\nHost: a\r\nX-Big: ") + bigValue + "\r\n\r\n") << QByteArray("GET")
        << QByteArray("/") << QByteArray() << QByteArray() << true << 1 << Headers{{"Host", "a"}, {"X-Big", bigValue}};
}

void TestHttpRequestParser::goodRequests_parseAtEverySplit()
{
    QFETCH(QByteArray, input);
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, query);
    QFETCH(QByteArray, body);
    QFETCH(bool, keepAlive);
    QFETCH(int, minorVersion);
    QFETCH(Headers, headers);

    const auto check = [&](const Outcome &o, const QByteArray &how) {
        QVERIFY2(o.status == Status::Complete, how.constData());
        QCOMPARE(o.request.method, method);
        QCOMPARE(o.request.path, path);
        QCOMPARE(o.request.query, query);
        QCOMPARE(o.request.body, body);
        QCOMPARE(o.request.keepAlive, keepAlive);
        QCOMPARE(o.request.minorVersion, minorVersion);
        QCOMPARE(o.request.headers, headers);
    };

    check(parseWhole(input), "whole");
    if (QTest::currentTestFailed())
        return;

    // Every split into two pieces (sampled for the large inputs).
    const qsizetype step = input.size() > 4096 ? input.size() / 64 : 1;
    for (qsizetype cut = 0; cut <= input.size(); cut += step) {
        check(parseInPieces(input, {cut}), "split at " + QByteArray::number(cut));
        if (QTest::currentTestFailed())
            return;
    }

    // Byte by byte: every strict prefix is incomplete, the whole is complete.
    if (input.size() <= 4096) {
        HttpRequestParser parser;
        for (qsizetype i = 0; i + 1 < input.size(); ++i)
            QCOMPARE(parser.feed(input.sliced(i, 1)), Status::NeedMore);
        QCOMPARE(parser.feed(input.sliced(input.size() - 1)), Status::Complete);
        check({Status::Complete, 0, parser.request()}, "byte by byte");
    }
}

void TestHttpRequestParser::badRequests_failAtEverySplit_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<int>("errorStatus");

    QTest::addRow("not HTTP") << QByteArray("GARBAGE\r\n\r\n") << 400;
    QTest::addRow("binary") << QByteArray("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n", 13) << 400;
    QTest::addRow("HTTP/0.9 request line") << QByteArray("GET /\r\n\r\n") << 400;
    QTest::addRow("HTTP/2 request line") << QByteArray("GET / HTTP/2.0\r\nHost: a\r\n\r\n") << 505;
    QTest::addRow("unknown protocol") << QByteArray("GET / FOO/1.1\r\nHost: a\r\n\r\n") << 400;
    QTest::addRow("lower-case version") << QByteArray("GET / http/1.1\r\nHost: a\r\n\r\n") << 400;
    QTest::addRow("invalid method") << QByteArray("G(T / HTTP/1.1\r\nHost: a\r\n\r\n") << 400;
    QTest::addRow("space in target") << QByteArray("GET /a b HTTP/1.1\r\nHost: a\r\n\r\n") << 400;
    QTest::addRow("double space") << QByteArray("GET  / HTTP/1.1\r\nHost: a\r\n\r\n") << 400;
    QTest::addRow("control character in target") << QByteArray("GET /a\x01 HTTP/1.1\r\nHost: a\r\n\r\n") << 400;
    QTest::addRow("fragment in target") << QByteArray("GET /a#b HTTP/1.1\r\nHost: a\r\n\r\n") << 400;
    QTest::addRow("target neither path nor URL") << QByteArray("GET x HTTP/1.1\r\nHost: a\r\n\r\n") << 400;
    QTest::addRow("asterisk with GET") << QByteArray("GET * HTTP/1.1\r\nHost: a\r\n\r\n") << 400;
    QTest::addRow("missing Host") << QByteArray("GET / HTTP/1.1\r\n\r\n") << 400;
    QTest::addRow("two Hosts") << QByteArray("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") << 400;
    QTest::addRow("header without colon") << QByteArray("GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n") << 400;
    QTest::addRow("space before colon") << QByteArray("GET / HTTP/1.1\r\nHost : a\r\n\r\n") << 400;
    QTest::addRow("empty header name") << QByteArray("GET / HTTP/1.1\r\nHost: a\r\n: x\r\n\r\n") << 400;
    QTest::addRow("obsolete line folding") << QByteArray("GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n 2\r\n\r\n") << 400;
    QTest::addRow("NUL in value") << QByteArray(QByteArray("GET / HTTP/1.1\r\nHost: a\r\nX: a") + QByteArray(1, '\0')
        + "b\r\n\r\n") << 400;
    QTest::addRow("bare CR in value") << QByteArray("GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n") << 400;
    QTest::addRow("Content-Length not a number")
        << QByteArray("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n") << 400;
    QTest::addRow("negative Content-Length")
        << QByteArray("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n") << 400;
    QTest::addRow("conflicting Content-Length")
        << QByteArray("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!") << 400;
    QTest::addRow("huge Content-Length") << QByteArray(
        "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999\r\n\r\n")
                                         << 413;
    QTest::addRow("Content-Length over the body limit")
        << QByteArray("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 8388609\r\n\r\n") << 413;
    QTest::addRow("Content-Length and Transfer-Encoding")
        << QByteArray("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        << 400;
    QTest::addRow("gzip transfer coding")
        << QByteArray("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n") << 501;
    QTest::addRow("chunked not last") << QByteArray(
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n")
                                      << 501;
    QTest::addRow("chunked twice") << QByteArray(
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n")
                                   << 400;
    QTest::addRow("Transfer-Encoding in HTTP/1.0")
        << QByteArray("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n") << 400;
    QTest::addRow("invalid chunk size") << QByteArray(
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
                                        << 400;
    QTest::addRow("negative chunk size") << QByteArray(
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\n")
                                         << 400;
    QTest::addRow("chunk longer than announced")
        << QByteArray("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhello\r\n0\r\n\r\n") << 400;
    QTest::addRow("chunk size overflow") << QByteArray(
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\n")
                                         << 413;
    QTest::addRow("chunks over the body limit")
        << QByteArray("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n800001\r\n") << 413;
    QTest::addRow("header section over 64 KiB")
        << QByteArray(QByteArray("GET / HTTP/1.1\r\nHost: a\r\nX-Big: ") + repeated('v', 64 * 1024) + "\r\n\r\n")
        << 431;
    QTest::addRow("header section over 64 KiB without line ends")
        << QByteArray(QByteArray("GET / HTTP/1.1\r\nHost: a\r\nX-Big: ") + repeated('v', 70 * 1024)) << 431;
    QByteArray manyHeaders("GET / HTTP/1.1\r\nHost: a\r\n");
    for (int i = 0; i < 250; ++i)
        manyHeaders += "X-" + QByteArray::number(i) + ": 1\r\n";
    QTest::addRow("too many header fields") << (manyHeaders + "\r\n") << 431;
    QTest::addRow("request line over 8 KiB")
        << QByteArray(QByteArray("GET /") + repeated('a', 9000) + " HTTP/1.1\r\n\r\n") << 414;
    QTest::addRow("trailers over 64 KiB")
        << QByteArray(QByteArray("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                                 "0\r\nX-T: ")
               + repeated('t', 65 * 1024) + "\r\n\r\n")
        << 431;
    QTest::addRow("malformed trailer") << QByteArray(
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nbad trailer\r\n\r\n")
                                       << 400;
}

void TestHttpRequestParser::badRequests_failAtEverySplit()
{
    QFETCH(QByteArray, input);
    QFETCH(int, errorStatus);

    const Outcome whole = parseWhole(input);
    QCOMPARE(whole.status, Status::Error);
    QCOMPARE(whole.errorStatus, errorStatus);

    const qsizetype step = input.size() > 4096 ? input.size() / 64 : 1;
    for (qsizetype cut = 0; cut <= input.size(); cut += step) {
        const Outcome o = parseInPieces(input, {cut});
        QVERIFY2(o.status == Status::Error, qPrintable(QStringLiteral("split at %1").arg(cut)));
        QCOMPARE(o.errorStatus, errorStatus);
    }

    if (input.size() <= 4096) {
        HttpRequestParser parser;
        Status last = Status::NeedMore;
        for (qsizetype i = 0; i < input.size() && last == Status::NeedMore; ++i)
            last = parser.feed(input.sliced(i, 1));
        QCOMPARE(last, Status::Error);
        QCOMPARE(parser.errorStatus(), errorStatus);
        QVERIFY(!parser.errorString().isEmpty());
    }
}

void TestHttpRequestParser::pipelinedRequests_comeOutOneByOne()
{
    const QByteArray input("GET /one HTTP/1.1\r\nHost: a\r\n\r\n"
                           "POST /two HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc"
                           "PUT /three HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nz\r\n0\r\n\r\n"
                           "GET /fou");
    HttpRequestParser parser;
    QCOMPARE(parser.feed(input), Status::Complete);
    QCOMPARE(parser.request().path, QByteArray("/one"));
    QCOMPARE(parser.next(), Status::Complete);
    QCOMPARE(parser.request().path, QByteArray("/two"));
    QCOMPARE(parser.request().body, QByteArray("abc"));
    QCOMPARE(parser.next(), Status::Complete);
    QCOMPARE(parser.request().path, QByteArray("/three"));
    QCOMPARE(parser.request().body, QByteArray("z"));
    QCOMPARE(parser.next(), Status::NeedMore);
    QVERIFY(parser.isPartial());
    QCOMPARE(parser.feed("r HTTP/1.1\r\nHost: a\r\n\r\n"), Status::Complete);
    QCOMPARE(parser.request().path, QByteArray("/four"));
    QCOMPARE(parser.next(), Status::NeedMore);
    QVERIFY(!parser.isPartial());
    QCOMPARE(parser.bufferedBytes(), 0);
}

void TestHttpRequestParser::pipelinedRequests_byteByByte()
{
    QByteArray input;
    for (int i = 0; i < 20; ++i) {
        input += "POST /r" + QByteArray::number(i) + " HTTP/1.1\r\nHost: a\r\nContent-Length: " + QByteArray::number(i)
            + "\r\n\r\n" + QByteArray(i, 'x');
    }
    HttpRequestParser parser;
    QList<QByteArray> paths;
    for (char c : std::as_const(input)) {
        Status s = parser.feed(QByteArrayView(&c, 1));
        while (s == Status::Complete) {
            QCOMPARE(parser.request().body, QByteArray(parser.request().path.mid(2).toInt(), 'x'));
            paths.append(parser.request().path);
            s = parser.next();
        }
        QCOMPARE(s, Status::NeedMore);
    }
    QCOMPARE(paths.size(), 20);
    QCOMPARE(paths.last(), QByteArray("/r19"));
}

void TestHttpRequestParser::error_isStickyUntilReset()
{
    HttpRequestParser parser;
    QCOMPARE(parser.feed("BAD\r\n"), Status::Error);
    QCOMPARE(parser.errorStatus(), 400);
    QCOMPARE(parser.feed("GET / HTTP/1.1\r\nHost: a\r\n\r\n"), Status::Error);
    QCOMPARE(parser.next(), Status::Error);
    parser.reset();
    QCOMPARE(parser.errorStatus(), 0);
    QCOMPARE(parser.feed("GET / HTTP/1.1\r\nHost: a\r\n\r\n"), Status::Complete);
}

void TestHttpRequestParser::expectContinue_isReportedBeforeTheBody()
{
    HttpRequestParser parser;
    QCOMPARE(parser.feed("PUT /x HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n"),
        Status::NeedMore);
    QVERIFY(parser.expectsContinue());
    parser.acknowledgeContinue();
    QVERIFY(!parser.expectsContinue());
    QCOMPARE(parser.feed("data"), Status::Complete);
    QCOMPARE(parser.request().body, QByteArray("data"));

    // Without a body there is nothing to continue with.
    QCOMPARE(parser.feed("GET /x HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n\r\n"), Status::Complete);
    QVERIFY(!parser.expectsContinue());
}

void TestHttpRequestParser::limits_areConfigurable()
{
    HttpRequestParser::Limits limits;
    limits.maxBodyBytes = 10;
    limits.maxHeaderBytes = 64;
    QCOMPARE(parseWhole("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\n", limits).errorStatus, 413);
    QCOMPARE(parseWhole("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n0123456789", limits).status,
        Status::Complete);
    QCOMPARE(parseWhole("GET / HTTP/1.1\r\nHost: a\r\nX: " + repeated('x', 64) + "\r\n\r\n", limits).errorStatus, 431);
}

void TestHttpRequestParser::isPartial_tracksUnfinishedRequests()
{
    HttpRequestParser parser;
    QVERIFY(!parser.isPartial());
    parser.feed("GET / HT");
    QVERIFY(parser.isPartial());
    parser.feed("TP/1.1\r\nHost: a\r\n\r\n");
    QVERIFY(!parser.isPartial());
    parser.feed("\r\n"); // a stray line ending between requests is not a request
    QVERIFY(!parser.isPartial());
}

void TestHttpRequestParser::header_lookupIsCaseInsensitive()
{
    const Outcome o = parseWhole("GET / HTTP/1.1\r\nhost: a\r\nX-Retry-Test-Id: t1\r\nx-list: a\r\nX-List: b\r\n\r\n");
    QCOMPARE(o.status, Status::Complete);
    QCOMPARE(o.request.header("x-retry-test-id"), std::optional<QByteArray>("t1"));
    QCOMPARE(o.request.header("missing"), std::nullopt);
    QCOMPARE(o.request.combinedHeader("X-LIST"), QByteArray("a, b"));
}

// A forward proxy's tunnel request: authority-form, and what follows it is the tunnel's.
void TestHttpRequestParser::connect_takesAnAuthorityAndLeavesTheTunnelBytes()
{
    HttpRequestParser::Limits proxy;
    proxy.acceptConnect = true;
    HttpRequestParser parser(proxy);
    QCOMPARE(parser.feed("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n\x16\x03\x01hello"),
        Status::Complete);
    const HttpRequest request = parser.takeRequest();
    QCOMPARE(request.method, QByteArray("CONNECT"));
    QCOMPARE(request.target, QByteArray("example.com:443"));
    QCOMPARE(parser.takeBuffered(), QByteArray("\x16\x03\x01hello"));
    QCOMPARE(parser.takeBuffered(), QByteArray());
    for (const char *bad : {"CONNECT example.com HTTP/1.1\r\n\r\n", "CONNECT example.com:0 HTTP/1.1\r\n\r\n",
             "CONNECT http://example.com:443/ HTTP/1.1\r\n\r\n", "CONNECT u@example.com:443 HTTP/1.1\r\n\r\n"}) {
        HttpRequestParser refusing(proxy);
        QCOMPARE(refusing.feed(bad), Status::Error);
        QCOMPARE(refusing.errorStatus(), 400);
        QVERIFY2(refusing.errorString().startsWith(QStringLiteral("CONNECT needs host:port")), bad);
    }
    // A server that opens no tunnels (the fault server, a reverse proxy) refuses CONNECT.
    HttpRequestParser server;
    QCOMPARE(server.feed("CONNECT example.com:443 HTTP/1.1\r\n\r\n"), Status::Error);
    QCOMPARE(server.errorStatus(), 405);
}

QTEST_GUILESS_MAIN(TestHttpRequestParser)
#include "tst_httprequestparser.moc"
