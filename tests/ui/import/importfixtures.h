#pragma once

// Files to import, as other tools write them, for the import dialogs' suites
// (in a header: moc does not read raw strings with URLs in them well).

#include <QByteArray>

namespace ImportFixtures {

/// Three entries as a browser saves them: a page, a POST with credentials, a request that got no answer.
inline QByteArray threeEntries()
{
    return QByteArray(R"HAR({"log": {"version": "1.2", "creator": {"name": "Firefox", "version": "126.0"},
  "pages": [{"id": "p1", "title": "Shop", "startedDateTime": "2025-05-06T09:14:03.120Z", "pageTimings": {}}],
  "entries": [
    {"pageref": "p1", "startedDateTime": "2025-05-06T09:14:03.120Z", "time": 84.4,
     "request": {"method": "GET", "url": "https://shop.example.com/", "httpVersion": "HTTP/1.1",
                 "headers": [{"name": "Accept", "value": "text/html"}], "queryString": [], "cookies": [],
                 "headersSize": -1, "bodySize": 0},
     "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [], "cookies": [],
                  "content": {"size": 0, "mimeType": "text/html"}, "redirectURL": "", "headersSize": -1, "bodySize": 0},
     "cache": {}, "timings": {"send": 0, "wait": 80, "receive": 4.4}},
    {"pageref": "p1", "startedDateTime": "2025-05-06T09:14:03.400Z", "time": 1203,
     "request": {"method": "POST", "url": "https://api.example.com/orders?api_key=k3y",
                 "httpVersion": "HTTP/1.1",
                 "headers": [{"name": "Authorization", "value": "Bearer s3cr3t"},
                             {"name": "Content-Type", "value": "application/json"}],
                 "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 9,
                 "postData": {"mimeType": "application/json", "text": "{\"qty\":2}"}},
     "response": {"status": 503, "statusText": "Service Unavailable", "httpVersion": "HTTP/1.1", "headers": [],
                  "cookies": [], "content": {"size": 0, "mimeType": "application/json"}, "redirectURL": "",
                  "headersSize": -1, "bodySize": 0},
     "cache": {}, "timings": {"send": 0, "wait": 1200, "receive": 3}},
    {"startedDateTime": "2025-05-06T09:14:04.000Z", "time": -1,
     "request": {"method": "DELETE", "url": "https://api.example.com/orders/7", "httpVersion": "HTTP/1.1",
                 "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
     "response": {"status": 0, "statusText": "", "httpVersion": "", "headers": [], "cookies": [],
                  "content": {"size": 0, "mimeType": ""}, "redirectURL": "", "headersSize": -1, "bodySize": 0,
                  "_error": "net::ERR_CONNECTION_REFUSED"},
     "cache": {}, "timings": {"send": 0, "wait": 0, "receive": 0}}
  ]}})HAR");
}

/// A Postman collection v2.1: a request at the top, a folder with a request and a folder in it;
/// {{baseUrl}} resolves through {{host}}, {{page}} and {{token}} only with the environment.
inline QByteArray collection()
{
    return QByteArray(R"PM({
  "info": {"name": "Orders API", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
  "variable": [{"key": "baseUrl", "value": "https://{{host}}/v1"}, {"key": "host", "value": "api.example.com"}],
  "item": [
    {"name": "Health", "request": {"method": "GET", "header": [], "url": "{{baseUrl}}/health"}},
    {"name": "Orders", "item": [
      {"name": "List orders", "request": {"method": "GET", "header": [{"key": "Accept", "value": "application/json"}],
                                          "url": "{{baseUrl}}/orders?page={{page}}"}},
      {"name": "Admin", "item": [
        {"name": "Delete order", "request": {"method": "DELETE",
                                             "header": [{"key": "Authorization", "value": "Bearer {{token}}"}],
                                             "url": "{{baseUrl}}/orders/7"}}
      ]}
    ]}
  ]
})PM");
}

inline QByteArray environment()
{
    return QByteArray(R"PM({"name": "Staging", "values": [
  {"key": "host", "value": "staging.example.com", "enabled": true},
  {"key": "page", "value": "2", "enabled": true},
  {"key": "token", "value": "t0k", "enabled": true}
], "_postman_variable_scope": "environment"})PM");
}

} // namespace ImportFixtures
