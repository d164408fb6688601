#pragma once

// HAR files as browsers save them, cut down to a few entries but with each
// browser's own habits kept: Chrome's lower-case HTTP/2 header names and
// pseudo-headers, `_initiator`, `_priority`, `_resourceType`, `_transferSize`,
// `"httpVersion": "h2"` and "h3", `_error` on blocked requests, data: and wss:
// entries; Firefox's "HTTP/2", a Host header, `TE: trailers`, cookies both in
// the Cookie header and in `cookies`, a multipart body as text, page titles.

#include <QByteArray>

namespace HarFixtures {

inline QByteArray chrome()
{
    return QByteArray(R"HAR({
  "log": {
    "version": "1.2",
    "creator": {"name": "WebInspector", "version": "537.36"},
    "pages": [
      {"startedDateTime": "2025-05-06T09:14:03.120Z", "id": "page_1", "title": "https://shop.example.com/",
       "pageTimings": {"onContentLoad": 412.8, "onLoad": 903.1}}
    ],
    "entries": [
      {
        "_initiator": {"type": "other"},
        "_priority": "VeryHigh",
        "_resourceType": "document",
        "cache": {},
        "connection": "388412",
        "pageref": "page_1",
        "request": {
          "method": "GET",
          "url": "https://shop.example.com/?utm_source=mail",
          "httpVersion": "h2",
          "headers": [
            {"name": ":authority", "value": "shop.example.com"},
            {"name": ":method", "value": "GET"},
            {"name": ":path", "value": "/?utm_source=mail"},
            {"name": ":scheme", "value": "https"},
            {"name": "accept", "value": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"},
            {"name": "accept-encoding", "value": "gzip, deflate, br, zstd"},
            {"name": "accept-language", "value": "de-DE,de;q=0.9,en;q=0.8"},
            {"name": "cookie", "value": "sid=7f3a9c; consent=yes"},
            {"name": "sec-ch-ua", "value": "\"Chromium\";v=\"124\", \"Not-A.Brand\";v=\"99\""},
            {"name": "user-agent", "value": "Mozilla/5.0 (X11; Linux x86_64) Chrome/124.0.0.0 Safari/537.36"}
          ],
          "queryString": [{"name": "utm_source", "value": "mail"}],
          "cookies": [
            {"name": "sid", "value": "7f3a9c", "path": "/", "domain": "shop.example.com", "expires": "2025-06-06T09:14:03.000Z", "httpOnly": true, "secure": true},
            {"name": "consent", "value": "yes", "path": "/", "domain": ".example.com", "expires": "2026-05-06T09:14:03.000Z", "httpOnly": false, "secure": false}
          ],
          "headersSize": -1,
          "bodySize": 0
        },
        "response": {
          "status": 200, "statusText": "", "httpVersion": "h2",
          "headers": [{"name": "content-type", "value": "text/html; charset=utf-8"}],
          "cookies": [],
          "content": {"size": 18231, "mimeType": "text/html", "compression": 12911},
          "redirectURL": "", "headersSize": -1, "bodySize": 5320,
          "_transferSize": 5611, "_error": null
        },
        "serverIPAddress": "203.0.113.10",
        "startedDateTime": "2025-05-06T09:14:03.118Z",
        "time": 187.512,
        "timings": {"blocked": 3.1, "dns": 12.0, "ssl": 21.4, "connect": 44.2, "send": 0.3, "wait": 120.8, "receive": 19.1,
                    "_blocked_queueing": 2.1, "_workerStart": -1, "_workerReady": -1}
      },
      {
        "_initiator": {"type": "script", "stack": {"callFrames": [{"functionName": "addToCart", "scriptId": "41",
                        "url": "https://shop.example.com/static/app.js", "lineNumber": 211, "columnNumber": 17}]}},
        "_priority": "High",
        "_resourceType": "fetch",
        "cache": {},
        "connection": "388412",
        "pageref": "page_1",
        "request": {
          "method": "POST",
          "url": "https://api.shop.example.com/v2/cart/items",
          "httpVersion": "h2",
          "headers": [
            {"name": ":authority", "value": "api.shop.example.com"},
            {"name": ":method", "value": "POST"},
            {"name": ":path", "value": "/v2/cart/items"},
            {"name": ":scheme", "value": "https"},
            {"name": "accept", "value": "application/json"},
            {"name": "authorization", "value": "Bearer eyJhbGciOiJIUzI1NiJ9.c2hvcA.sig"},
            {"name": "content-length", "value": "22"},
            {"name": "content-type", "value": "application/json"},
            {"name": "idempotency-key", "value": "0d6c2c1e-5a54-4c39-a0a1-5f2d7b0e9a11"},
            {"name": "origin", "value": "https://shop.example.com"}
          ],
          "queryString": [],
          "cookies": [],
          "headersSize": -1,
          "bodySize": 22,
          "postData": {"mimeType": "application/json", "text": "{\"sku\":\"A-1\",\"qty\":2}"}
        },
        "response": {
          "status": 201, "statusText": "", "httpVersion": "h2",
          "headers": [{"name": "content-type", "value": "application/json"}],
          "cookies": [],
          "content": {"size": 61, "mimeType": "application/json"},
          "redirectURL": "", "headersSize": -1, "bodySize": 61, "_transferSize": 240, "_error": null
        },
        "serverIPAddress": "203.0.113.11",
        "startedDateTime": "2025-05-06T09:14:05.001Z",
        "time": 84.25,
        "timings": {"blocked": 0.9, "dns": -1, "ssl": -1, "connect": -1, "send": 0.2, "wait": 80.1, "receive": 3.05,
                    "_blocked_queueing": 0.5}
      },
      {
        "_initiator": {"type": "parser", "url": "https://shop.example.com/", "lineNumber": 40},
        "_priority": "Low",
        "_resourceType": "image",
        "cache": {},
        "pageref": "page_1",
        "request": {
          "method": "GET",
          "url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
          "httpVersion": "http/1.1", "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0
        },
        "response": {
          "status": 200, "statusText": "OK", "httpVersion": "http/1.1",
          "headers": [{"name": "Content-Type", "value": "image/png"}], "cookies": [],
          "content": {"size": 68, "mimeType": "image/png"}, "redirectURL": "", "headersSize": -1, "bodySize": 0,
          "_transferSize": 0, "_error": null
        },
        "startedDateTime": "2025-05-06T09:14:03.400Z",
        "time": 0.11,
        "timings": {"blocked": -1, "dns": -1, "ssl": -1, "connect": -1, "send": 0, "wait": 0.05, "receive": 0.06}
      },
      {
        "_initiator": {"type": "script"},
        "_resourceType": "websocket",
        "_webSocketMessages": [{"type": "send", "time": 1714986845.5, "opcode": 1, "data": "{\"sub\":\"cart\"}"}],
        "cache": {},
        "pageref": "page_1",
        "request": {
          "method": "GET",
          "url": "wss://api.shop.example.com/live",
          "httpVersion": "HTTP/1.1",
          "headers": [{"name": "Upgrade", "value": "websocket"}, {"name": "Connection", "value": "Upgrade"}],
          "queryString": [], "cookies": [], "headersSize": 412, "bodySize": 0
        },
        "response": {
          "status": 101, "statusText": "Switching Protocols", "httpVersion": "HTTP/1.1",
          "headers": [], "cookies": [], "content": {"size": 0, "mimeType": "x-unknown"},
          "redirectURL": "", "headersSize": 180, "bodySize": 0, "_transferSize": 180, "_error": null
        },
        "startedDateTime": "2025-05-06T09:14:04.000Z",
        "time": 31.2,
        "timings": {"blocked": 1, "dns": -1, "ssl": -1, "connect": -1, "send": 0, "wait": 30, "receive": 0.2}
      },
      {
        "_initiator": {"type": "parser", "url": "https://shop.example.com/login"},
        "_priority": "VeryHigh",
        "_resourceType": "document",
        "cache": {},
        "pageref": "page_1",
        "request": {
          "method": "POST",
          "url": "http://legacy.shop.example.com:8080/login",
          "httpVersion": "HTTP/1.1",
          "headers": [
            {"name": "Host", "value": "legacy.shop.example.com:8080"},
            {"name": "Connection", "value": "keep-alive"},
            {"name": "Content-Length", "value": "36"},
            {"name": "Origin", "value": "https://shop.example.com"},
            {"name": "Content-Type", "value": "application/x-www-form-urlencoded"}
          ],
          "queryString": [],
          "cookies": [{"name": "sid", "value": "7f3a9c"}, {"name": "lang", "value": "de"}],
          "headersSize": 402,
          "bodySize": 36,
          "postData": {"mimeType": "application/x-www-form-urlencoded",
                       "params": [{"name": "user", "value": "ana maría"}, {"name": "next", "value": "/cart?x=1&y=2"}]}
        },
        "response": {
          "status": 302, "statusText": "Found", "httpVersion": "HTTP/1.1",
          "headers": [{"name": "Location", "value": "/cart"}], "cookies": [],
          "content": {"size": 0, "mimeType": "x-unknown"}, "redirectURL": "/cart", "headersSize": 210, "bodySize": 0,
          "_transferSize": 210, "_error": null
        },
        "startedDateTime": "2025-05-06T09:14:06.500Z",
        "time": 1250.75,
        "timings": {"blocked": 0.4, "dns": -1, "ssl": -1, "connect": -1, "send": 0.1, "wait": 1248.0, "receive": 2.25}
      },
      {
        "_initiator": {"type": "parser", "url": "https://shop.example.com/"},
        "_priority": "Low",
        "_resourceType": "script",
        "cache": {},
        "pageref": "page_1",
        "request": {
          "method": "GET", "url": "https://ads.tracker.example/pixel.js", "httpVersion": "",
          "headers": [{"name": "Referer", "value": "https://shop.example.com/"}],
          "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0
        },
        "response": {
          "status": 0, "statusText": "", "httpVersion": "", "headers": [], "cookies": [],
          "content": {"size": 0, "mimeType": "x-unknown"}, "redirectURL": "", "headersSize": -1, "bodySize": -1,
          "_transferSize": 0, "_error": "net::ERR_BLOCKED_BY_CLIENT"
        },
        "startedDateTime": "2025-05-06T09:14:03.300Z",
        "time": 0.528,
        "timings": {"blocked": -1, "dns": -1, "ssl": -1, "connect": -1, "send": 0, "wait": 0, "receive": 0.528}
      },
      {
        "_initiator": {"type": "parser"},
        "_priority": "VeryHigh",
        "_resourceType": "font",
        "cache": {},
        "pageref": "page_1",
        "request": {
          "method": "GET", "url": "https://fonts.example.org/inter.woff2", "httpVersion": "h3",
          "headers": [{"name": ":authority", "value": "fonts.example.org"}, {"name": "accept", "value": "*/*"}],
          "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0
        },
        "response": {
          "status": 200, "statusText": "", "httpVersion": "h3", "headers": [], "cookies": [],
          "content": {"size": 98012, "mimeType": "font/woff2"}, "redirectURL": "", "headersSize": -1, "bodySize": 98012
        },
        "startedDateTime": "2025-05-06T09:14:03.500Z",
        "time": 65,
        "timings": {"blocked": 1, "dns": -1, "ssl": -1, "connect": -1, "send": 0, "wait": 60, "receive": 4}
      }
    ]
  }
})HAR");
}

inline QByteArray firefox()
{
    return QByteArray(R"HAR({
  "log": {
    "version": "1.2",
    "creator": {"name": "Firefox", "version": "126.0"},
    "browser": {"name": "Firefox", "version": "126.0"},
    "pages": [
      {"startedDateTime": "2025-05-06T11:02:10.004+02:00", "id": "page_1", "title": "Example Domain",
       "pageTimings": {"onContentLoad": 310, "onLoad": 402}}
    ],
    "entries": [
      {
        "pageref": "page_1",
        "startedDateTime": "2025-05-06T11:02:10.004+02:00",
        "request": {
          "bodySize": 0,
          "method": "GET",
          "url": "https://www.example.org/",
          "httpVersion": "HTTP/2",
          "headers": [
            {"name": "Host", "value": "www.example.org"},
            {"name": "User-Agent", "value": "Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0"},
            {"name": "Accept", "value": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"},
            {"name": "Accept-Language", "value": "en-US,en;q=0.5"},
            {"name": "Accept-Encoding", "value": "gzip, deflate, br, zstd"},
            {"name": "Connection", "value": "keep-alive"},
            {"name": "Cookie", "value": "theme=dark"},
            {"name": "Upgrade-Insecure-Requests", "value": "1"},
            {"name": "TE", "value": "trailers"}
          ],
          "cookies": [{"name": "theme", "value": "dark"}],
          "queryString": [],
          "headersSize": 402
        },
        "response": {
          "status": 200, "statusText": "OK", "httpVersion": "HTTP/2",
          "headers": [{"name": "content-type", "value": "text/html; charset=UTF-8"}],
          "cookies": [],
          "content": {"mimeType": "text/html; charset=UTF-8", "size": 1256, "text": "<!doctype html>..."},
          "redirectURL": "", "headersSize": 331, "bodySize": 1587
        },
        "cache": {},
        "timings": {"blocked": 0, "dns": 14, "connect": 30, "ssl": 18, "send": 0, "wait": 96, "receive": 2},
        "time": 160,
        "_securityState": "secure",
        "serverIPAddress": "93.184.215.14",
        "connection": "443"
      },
      {
        "pageref": "page_1",
        "startedDateTime": "2025-05-06T11:02:12.250+02:00",
        "request": {
          "bodySize": 143,
          "method": "POST",
          "url": "https://www.example.org/api/upload?draft=1",
          "httpVersion": "HTTP/2",
          "headers": [
            {"name": "Host", "value": "www.example.org"},
            {"name": "Content-Type", "value": "multipart/form-data; boundary=---------------------------41184676334"},
            {"name": "Content-Length", "value": "143"},
            {"name": "Origin", "value": "https://www.example.org"}
          ],
          "cookies": [],
          "queryString": [{"name": "draft", "value": "1"}],
          "headersSize": 512,
          "postData": {
            "mimeType": "multipart/form-data; boundary=---------------------------41184676334",
            "params": [],
            "text": "-----------------------------41184676334\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHallo Köln\r\n-----------------------------41184676334--\r\n"
          }
        },
        "response": {
          "status": 503, "statusText": "Service Unavailable", "httpVersion": "HTTP/2",
          "headers": [{"name": "retry-after", "value": "2"}], "cookies": [],
          "content": {"mimeType": "text/plain", "size": 19}, "redirectURL": "", "headersSize": 120, "bodySize": 139
        },
        "cache": {},
        "timings": {"blocked": 0, "dns": 0, "connect": 0, "ssl": 0, "send": 0, "wait": 41, "receive": 0},
        "time": 41,
        "_securityState": "secure",
        "serverIPAddress": "93.184.215.14",
        "connection": "443"
      },
      {
        "startedDateTime": "2025-05-06T11:02:13.000+02:00",
        "request": {
          "bodySize": 6,
          "method": "PUT",
          "url": "http://10.0.0.5:8080/blob/7",
          "httpVersion": "HTTP/1.1",
          "headers": [
            {"name": "Host", "value": "storage.internal"},
            {"name": "Content-Type", "value": "application/octet-stream"}
          ],
          "cookies": [],
          "queryString": [],
          "headersSize": 160,
          "postData": {"mimeType": "application/octet-stream", "params": [], "text": "AAH/gAp/", "encoding": "base64"}
        },
        "response": {
          "status": 204, "statusText": "No Content", "httpVersion": "HTTP/1.1", "headers": [], "cookies": [],
          "content": {"mimeType": "", "size": 0}, "redirectURL": "", "headersSize": 90, "bodySize": 90
        },
        "cache": {},
        "timings": {"blocked": 0, "dns": 0, "connect": 1, "ssl": -1, "send": 0, "wait": 3, "receive": 0},
        "time": 4,
        "serverIPAddress": "10.0.0.5",
        "connection": "8080"
      }
    ]
  }
})HAR");
}

} // namespace HarFixtures
