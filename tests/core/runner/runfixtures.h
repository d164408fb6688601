#pragma once

// Small collections of each format `retrylab run` reads, for the reader's tests.
// Kept out of the test's .cpp: moc's tokenizer loses its way in some of these
// raw strings and would miss the test class.

#include "core/collections/collectionjson.h"

#include <QByteArray>

namespace RunFixtures {

inline const QByteArray postmanSchema = R"j({"info": {"name": "P",
  "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
  "item": [{"name": "a", "request": "http://127.0.0.1:1/a"}]})j";

// An export without a schema: Postman's id alone says what it is.
inline const QByteArray postmanId = R"j({"info": {"name": "P", "_postman_id": "0b1c"},
  "item": [{"name": "a", "request": "http://127.0.0.1:1/a"}]})j";

inline const QByteArray postmanV1 = R"j({"id": "x", "name": "Old", "order": [], "requests": []})j";

inline const QByteArray postmanNoUrl = R"j({"info": {"name": "P", "_postman_id": "0b1c"},
  "item": [{"name": "f", "item": [{"name": "a", "request": {"method": "GET"}}]}]})j";

inline QByteArray entry(const QByteArray &request)
{
    return R"j({"startedDateTime": "2025-05-06T09:14:03.120Z", "time": 12, "request": )j" + request + R"j(,
      "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [], "cookies": [],
                   "content": {"size": 0, "mimeType": "text/plain"}, "redirectURL": "", "headersSize": -1,
                   "bodySize": 0},
      "cache": {}, "timings": {"send": 1, "wait": 10, "receive": 1}})j";
}

// Three requests in order (one with a body, one with a hop-by-hop header) and
// a data: URL that cannot be sent.
inline QByteArray har()
{
    const QByteArray get = entry(R"j({"method": "GET", "url": "http://127.0.0.1:1/items?page=2",
        "httpVersion": "HTTP/1.1", "headers": [{"name": "Accept", "value": "application/json"},
        {"name": "Connection", "value": "keep-alive"}], "queryString": [], "cookies": [], "headersSize": -1,
        "bodySize": 0})j");
    const QByteArray data = entry(R"j({"method": "GET", "url": "data:text/plain,hi", "httpVersion": "HTTP/1.1",
        "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0})j");
    const QByteArray post = entry(R"j({"method": "POST", "url": "http://127.0.0.1:1/items", "httpVersion": "HTTP/1.1",
        "headers": [{"name": "Content-Type", "value": "application/json"}], "queryString": [], "cookies": [],
        "postData": {"mimeType": "application/json", "text": "{\"name\": \"a\"}"}, "headersSize": -1,
        "bodySize": 13})j");
    const QByteArray remove = entry(R"j({"method": "DELETE", "url": "http://127.0.0.1:1/items/7",
        "httpVersion": "HTTP/1.1", "headers": [], "queryString": [], "cookies": [], "headersSize": -1,
        "bodySize": 0})j");
    return R"j({"log": {"version": "1.2", "creator": {"name": "Firefox", "version": "125.0"}, "entries": [)j" + get
        + "," + data + "," + post + "," + remove + "]}}";
}

inline QByteArray retryLab()
{
    RetryLab::Core::Collection collection;
    collection.name = QStringLiteral("R");
    RetryLab::Core::RequestDraft draft;
    draft.urlTemplate = QStringLiteral("{{base}}/x");
    collection.items.append(
        RetryLab::Core::CollectionItem::makeRequest(QStringLiteral("x"), draft, RetryLab::Core::SavedPolicy{}));
    return RetryLab::Core::CollectionJson::toJson(collection);
}

} // namespace RunFixtures
