#include "app/screenshotcollections.h"

#include "core/collections/collectionstore.h"
#include "core/policy/presets.h"

namespace RetryLab::App::ScreenshotCollections {

namespace {

Core::CollectionItem request(const QString &name, const QString &method, const QString &url, const QString &preset)
{
    Core::RequestDraft draft;
    draft.method = method;
    draft.urlTemplate = url;
    draft.headers = {{QStringLiteral("Authorization"), QStringLiteral("Bearer {{token}}"), true}};
    if (method == QLatin1String("POST") || method == QLatin1String("PUT")) {
        draft.headers.append({QStringLiteral("Content-Type"), QStringLiteral("application/json"), true});
        draft.body = QStringLiteral("{\n  \"customer\": \"{{customer}}\",\n  \"items\": [{\"sku\": \"A-1\", "
                                    "\"qty\": 2}],\n  \"request\": \"{id}\"\n}\n");
    }
    if (method != QLatin1String("GET"))
        draft.headers.append({QStringLiteral("Idempotency-Key"), QStringLiteral("{id}"), true});
    Core::SavedPolicy policy;
    if (const auto found = Core::Presets::find(preset))
        policy = Core::SavedPolicy::from(*found);
    return Core::CollectionItem::makeRequest(name, draft, policy);
}

} // namespace

QString write(const QString &dataDirectory)
{
    const Core::CollectionStore store(dataDirectory);
    Core::Collection shop;
    shop.name = QStringLiteral("Shop API");
    Core::CollectionItem orders = Core::CollectionItem::makeFolder(QStringLiteral("Orders"));
    orders.items = {
        request(QStringLiteral("List orders"), QStringLiteral("GET"), QStringLiteral("{{base}}/fail/2?key={id}"),
            QStringLiteral("aws-standard")),
        request(QStringLiteral("Create order"), QStringLiteral("POST"), QStringLiteral("{{base}}/status/422"),
            QStringLiteral("google-cloud-storage")),
        request(QStringLiteral("Cancel order"), QStringLiteral("DELETE"), QStringLiteral("{{base}}/status/200"),
            QStringLiteral("grpc-retry-policy")),
    };
    Core::CollectionItem payments = Core::CollectionItem::makeFolder(QStringLiteral("Payments"));
    payments.items = {
        request(QStringLiteral("Capture payment"), QStringLiteral("POST"), QStringLiteral("{{base}}/fail/2?key={id}"),
            QStringLiteral("polly-default")),
        request(QStringLiteral("Refund"), QStringLiteral("PUT"), QStringLiteral("{{base}}/status/429"),
            QStringLiteral("polly-default")),
    };
    // What a collection run checks of each answer (the Collection run dock's picture).
    const auto status = [](const QString &text) {
        Core::Assertion assertion;
        assertion.kind = text.endsWith(QLatin1String("xx")) ? Core::Assertion::Kind::StatusClass
                                                            : Core::Assertion::Kind::StatusEquals;
        assertion.statusText = text;
        const int first = text.left(1).toInt() * 100;
        if (assertion.kind == Core::Assertion::Kind::StatusClass) {
            for (int code = first; code < first + 100; ++code)
                assertion.statuses.insert(code);
        } else {
            assertion.statuses = {text.toInt()};
        }
        return assertion;
    };
    orders.items[0].assertions = {status(QStringLiteral("200"))};
    orders.items[1].assertions = {status(QStringLiteral("2xx"))};
    payments.items[0].assertions = {status(QStringLiteral("200"))};
    shop.items = {orders, payments,
        request(QStringLiteral("Health"), QStringLiteral("GET"), QStringLiteral("{{base}}/status/200"), QString())};
    Core::Collection checks;
    checks.name = QStringLiteral("Smoke checks");
    checks.items = {request(QStringLiteral("Flaky upstream"), QStringLiteral("GET"),
        QStringLiteral("{{base}}/fail/5?p=0.3&key={id}"), QStringLiteral("aws-standard"))};
    for (Core::Collection *collection : {&shop, &checks}) {
        if (const auto saved = store.save(collection); !saved)
            return saved.error();
    }
    const QList<Core::Environment> environments{
        {QStringLiteral("Local"),
            {{QStringLiteral("base"), QStringLiteral("{server}"), false},
                {QStringLiteral("token"), QStringLiteral("demo-token-123"), true},
                {QStringLiteral("customer"), QStringLiteral("c-1042"), false}},
            true},
        {QStringLiteral("Staging"), {{QStringLiteral("base"), QStringLiteral("https://staging.example"), false}},
            false},
    };
    if (const auto saved = store.saveEnvironments(environments, QStringLiteral("Local")); !saved)
        return saved.error();
    return {};
}

} // namespace RetryLab::App::ScreenshotCollections
