// Fuzzes the fault server's HTTP/1.1 request parser. Beyond "no crash", it checks
// that the bytes give the same requests (and the same error) whether they arrive
// at once or in pieces cut where the input says, as they do on a real socket.

#include "core/http/httprequestparser.h"
#include "fuzz/fuzzcheck.h"

#include <QByteArray>
#include <QList>

#include <cstddef>
#include <cstdint>

using namespace RetryLab::Core;
using Status = HttpRequestParser::Status;

namespace {

struct Seen
{
    QList<HttpRequest> requests;
    Status last = Status::NeedMore;
    int errorStatus = 0;
};

bool sameRequest(const HttpRequest &a, const HttpRequest &b)
{
    return a.method == b.method && a.target == b.target && a.path == b.path && a.query == b.query
        && a.minorVersion == b.minorVersion && a.headers == b.headers && a.body == b.body && a.chunked == b.chunked
        && a.keepAlive == b.keepAlive && a.headerBytes == b.headerBytes;
}

// Takes every complete request the parser holds, as the server does (next() after each).
void drain(HttpRequestParser &parser, Status status, Seen &seen)
{
    while (status == Status::Complete) {
        const HttpRequest &r = parser.request();
        FUZZ_CHECK(!r.method.isEmpty());
        FUZZ_CHECK(r.path.startsWith('/') || r.path == "*");
        FUZZ_CHECK(r.body.size() <= parser.limits().maxBodyBytes);
        FUZZ_CHECK(r.headers.size() <= parser.limits().maxHeaderFields);
        seen.requests.append(parser.takeRequest());
        status = parser.next();
    }
    FUZZ_CHECK(parser.bufferedBytes() >= 0);
    seen.last = status;
    seen.errorStatus = parser.errorStatus();
    if (status == Status::Error) {
        FUZZ_CHECK(seen.errorStatus >= 400 && seen.errorStatus <= 505);
        FUZZ_CHECK(!parser.errorString().isEmpty());
        FUZZ_CHECK(!parser.isPartial());
    } else {
        FUZZ_CHECK(seen.errorStatus == 0);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    // The first byte picks small limits (so that every limit is reached) and
    // the second how the input is cut into pieces.
    const uint8_t mode = data[0];
    const uint8_t cutSeed = data[1];
    const QByteArrayView input(reinterpret_cast<const char *>(data + 2), static_cast<qsizetype>(size - 2));

    HttpRequestParser::Limits limits;
    if (mode & 1) {
        limits.maxHeaderBytes = 64 + (mode >> 1);
        limits.maxRequestLineBytes = 16 + (mode >> 2);
        limits.maxBodyBytes = mode >> 3;
        limits.maxHeaderFields = 1 + (mode >> 5);
    }

    Seen whole;
    {
        HttpRequestParser parser(limits);
        drain(parser, parser.feed(input), whole);
    }

    Seen pieces;
    {
        HttpRequestParser parser(limits);
        qsizetype from = 0;
        qsizetype step = 1 + cutSeed % 7;
        Status status = Status::NeedMore;
        while (from < input.size() && status != Status::Error) {
            const qsizetype n = std::min<qsizetype>(step, input.size() - from);
            status = parser.feed(input.sliced(from, n));
            from += n;
            step = 1 + (step * 5 + cutSeed) % 13;
            Seen part;
            drain(parser, status, part);
            pieces.requests += part.requests;
            status = part.last;
            pieces.last = part.last;
            pieces.errorStatus = part.errorStatus;
        }
    }

    FUZZ_CHECK(whole.last == pieces.last);
    FUZZ_CHECK(whole.errorStatus == pieces.errorStatus);
    FUZZ_CHECK(whole.requests.size() == pieces.requests.size());
    for (qsizetype i = 0; i < whole.requests.size(); ++i)
        FUZZ_CHECK(sameRequest(whole.requests[i], pieces.requests[i]));
    return 0;
}
