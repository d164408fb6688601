#pragma once

// A Postman collection v2.1 as Postman exports it: folders inside folders,
// collection variables (one nested in another, one disabled, a number),
// authorization at the collection (bearer), folder (API key in a header, API
// key in the query, basic) and item level (bearer, noauth, oauth2), scripts,
// every body mode, a request that is only a URL string, path variables, a
// disabled header, query parameter and form field; and an environment.

#include <QByteArray>

namespace PostmanFixtures {

inline QByteArray collection()
{
    return QByteArray(R"PM({
  "info": {
    "_postman_id": "5d1c0b6e-8f3c-4f63-9f3a-2c1e7d0b9a44",
    "name": "Shop API",
    "description": "Everything the shop's front end calls.",
    "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json",
    "_exporter_id": "18227391"
  },
  "item": [
    {
      "name": "Health",
      "protocolProfileBehavior": {"followRedirects": false},
      "request": "https://status.example.com/health",
      "response": []
    },
    {
      "name": "Products",
      "description": "Catalogue",
      "item": [
        {
          "name": "List products",
          "request": {
            "method": "GET",
            "header": [
              {"key": "Accept", "value": "application/json", "type": "text"},
              {"key": "X-Debug", "value": "1", "type": "text", "disabled": true}
            ],
            "url": {
              "raw": "{{baseUrl}}/products?page={{page}}&sort=price&limit",
              "host": ["{{baseUrl}}"],
              "path": ["products"],
              "query": [
                {"key": "page", "value": "{{page}}"},
                {"key": "sort", "value": "price"},
                {"key": "debug", "value": "true", "disabled": true},
                {"key": "limit", "value": null}
              ]
            }
          },
          "response": [
            {"name": "200 page", "originalRequest": {"method": "GET", "header": [], "url": {"raw": "{{baseUrl}}/products"}},
             "status": "OK", "code": 200, "_postman_previewlanguage": "json", "header": [], "cookie": [], "body": "[]"}
          ]
        },
        {
          "name": "Get product",
          "request": {
            "auth": {"type": "noauth"},
            "method": "GET",
            "header": [],
            "url": {
              "raw": "{{baseUrl}}/products/:id",
              "host": ["{{baseUrl}}"],
              "path": ["products", ":id"],
              "variable": [{"key": "id", "value": "{{productId}}", "description": "the product's id"}]
            }
          },
          "response": []
        },
        {
          "name": "Search",
          "auth": {
            "type": "apikey",
            "apikey": [
              {"key": "value", "value": "{{apiKey}}", "type": "string"},
              {"key": "key", "value": "api_key", "type": "string"},
              {"key": "in", "value": "query", "type": "string"}
            ]
          },
          "item": [
            {
              "name": "Search products",
              "request": {
                "method": "GET",
                "header": [],
                "url": {
                  "raw": "{{baseUrl}}/search?q=red shoes#top",
                  "host": ["{{baseUrl}}"],
                  "path": ["search"],
                  "query": [{"key": "q", "value": "red shoes"}],
                  "hash": "top"
                }
              },
              "response": []
            }
          ]
        }
      ],
      "auth": {
        "type": "apikey",
        "apikey": [
          {"key": "value", "value": "{{apiKey}}", "type": "string"},
          {"key": "key", "value": "X-API-Key", "type": "string"}
        ]
      }
    },
    {
      "name": "Orders",
      "auth": {
        "type": "basic",
        "basic": [
          {"key": "password", "value": "{{password}}", "type": "string"},
          {"key": "username", "value": "ana", "type": "string"}
        ]
      },
      "event": [
        {"listen": "prerequest", "script": {"type": "text/javascript", "exec": ["pm.variables.set('ts', Date.now());"]}},
        {"listen": "test", "script": {"type": "text/javascript", "exec": [""]}}
      ],
      "item": [
        {
          "name": "Create order",
          "request": {
            "method": "POST",
            "header": [
              {"key": "Content-Type", "value": "application/json"},
              {"key": "Idempotency-Key", "value": "{{$guid}}"}
            ],
            "body": {"mode": "raw", "raw": "{\"sku\": \"{{sku}}\", \"qty\": 2}", "options": {"raw": {"language": "json"}}},
            "url": "{{baseUrl}}/orders"
          },
          "response": []
        },
        {
          "name": "Pay",
          "request": {
            "auth": {"type": "bearer", "bearer": [{"key": "token", "value": "item-token", "type": "string"}]},
            "method": "POST",
            "header": [],
            "body": {
              "mode": "urlencoded",
              "urlencoded": [
                {"key": "amount", "value": "12.50", "type": "text"},
                {"key": "note", "value": "für Köln & co", "type": "text"},
                {"key": "coupon", "value": "X", "type": "text", "disabled": true}
              ]
            },
            "url": {"raw": "https://pay.example.com/charge", "protocol": "https", "host": ["pay", "example", "com"], "path": ["charge"]}
          },
          "response": []
        },
        {
          "name": "Upload receipt",
          "event": [
            {"listen": "test", "script": {"type": "text/javascript", "exec": ["pm.test('created', () => pm.response.to.have.status(201));"]}}
          ],
          "request": {
            "method": "POST",
            "header": [],
            "body": {
              "mode": "formdata",
              "formdata": [
                {"key": "orderId", "value": "{{orderId}}", "type": "text"},
                {"key": "receipt", "type": "file", "src": "/home/ana/receipt.pdf"},
                {"key": "draft", "value": "1", "type": "text", "disabled": true}
              ]
            },
            "url": {"raw": "{{baseUrl}}/receipts", "host": ["{{baseUrl}}"], "path": ["receipts"]}
          },
          "response": []
        },
        {
          "name": "Order total (GraphQL)",
          "request": {
            "auth": {"type": "oauth2", "oauth2": [{"key": "grant_type", "value": "client_credentials", "type": "string"},
                                                   {"key": "tokenRequestParams", "value": [], "type": "any"}]},
            "method": "POST",
            "header": [],
            "body": {
              "mode": "graphql",
              "graphql": {"query": "query($id: ID!) { order(id: $id) { total } }", "variables": "{\"id\": \"{{orderId}}\"}"}
            },
            "url": {"raw": "{{baseUrl}}/graphql", "host": ["{{baseUrl}}"], "path": ["graphql"]}
          },
          "response": []
        }
      ]
    },
    {
      "name": "Deep variable",
      "request": {"method": "GET", "header": [], "url": {"raw": "{{deep}}", "host": ["{{deep}}"]}},
      "response": []
    }
  ],
  "auth": {"type": "bearer", "bearer": [{"key": "token", "value": "{{token}}", "type": "string"}]},
  "event": [
    {"listen": "prerequest", "script": {"type": "text/javascript", "exec": [""]}},
    {"listen": "test", "script": {"type": "text/javascript", "exec": [""]}}
  ],
  "variable": [
    {"key": "baseUrl", "value": "https://{{host}}/v2", "type": "string"},
    {"key": "host", "value": "api.shop.example.com", "type": "string"},
    {"key": "token", "value": "collection-token", "type": "string"},
    {"key": "page", "value": 2, "type": "number"},
    {"key": "sku", "value": "OLD", "type": "string", "disabled": true},
    {"key": "deep", "value": "{{baseUrl}}/deep", "type": "string"}
  ]
})PM");
}

inline QByteArray environment()
{
    return QByteArray(R"PM({
  "id": "0b6a1f3e-4c2d-4e8f-9a7b-1c2d3e4f5a6b",
  "name": "Staging",
  "values": [
    {"key": "host", "value": "staging.shop.example.com", "type": "default", "enabled": true},
    {"key": "apiKey", "value": "env-api-key", "type": "secret", "enabled": true},
    {"key": "productId", "value": "42", "type": "default", "enabled": true},
    {"key": "orderId", "value": "o-7", "type": "default", "enabled": true},
    {"key": "token", "value": "disabled-token", "type": "secret", "enabled": false},
    {"key": "password", "value": "s3cret", "type": "secret", "enabled": true}
  ],
  "_postman_variable_scope": "environment",
  "_postman_exported_at": "2025-05-06T10:11:12.345Z",
  "_postman_exported_using": "Postman/11.1.0"
})PM");
}

} // namespace PostmanFixtures
