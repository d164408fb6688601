#include "core/observe/observationreport.h"

#include "core/observe/observer.h"
#include "core/util/coretr.h"
#include "core/util/jsonreader.h"

#include <QJsonArray>
#include <QXmlStreamWriter>

namespace RetryLab::Core {

namespace {

QJsonObject attemptJson(const ObservedAttempt &a)
{
    QJsonObject o{
        {QStringLiteral("sequence"), static_cast<qint64>(a.sequence)},
        {QStringLiteral("time"), a.time.toString(Qt::ISODateWithMs)},
        {QStringLiteral("arrivalMs"), a.arrivalMs},
        {QStringLiteral("attempt"), a.attemptIndex},
        {QStringLiteral("method"), QString::fromLatin1(a.method)},
        {QStringLiteral("target"), a.target},
        {QStringLiteral("rule"), GroupingRules::name(a.rule)},
        {QStringLiteral("ruleDetail"), a.ruleDetail},
        {QStringLiteral("complete"), a.complete},
    };
    if (a.complete) {
        o.insert(QStringLiteral("endMs"), a.endMs);
        o.insert(QStringLiteral("action"), a.action);
        o.insert(QStringLiteral("served"), a.served());
    }
    if (a.status)
        o.insert(QStringLiteral("status"), *a.status);
    if (a.retryAfterMs)
        o.insert(QStringLiteral("retryAfterMs"), *a.retryAfterMs);
    if (a.delayMs)
        o.insert(QStringLiteral("delayMs"), *a.delayMs);
    if (!a.planStep.isEmpty())
        o.insert(QStringLiteral("planStep"), a.planStep);
    if (!a.retryKey.isEmpty())
        o.insert(QStringLiteral("retryKey"), QString::fromLatin1(a.retryKey));
    if (a.sdkAttempt)
        o.insert(QStringLiteral("sdkAttempt"), *a.sdkAttempt);
    if (a.sdkMaxAttempts)
        o.insert(QStringLiteral("sdkMaxAttempts"), *a.sdkMaxAttempts);
    if (!a.bodyDigest.isEmpty())
        o.insert(QStringLiteral("bodyDigest"), QString::fromLatin1(a.bodyDigest));
    return o;
}

ObservedAttempt readAttempt(JsonReader &r, const ObservedClient &client, quint64 logicalId)
{
    ObservedAttempt a;
    a.clientId = client.id;
    a.address = client.address;
    a.userAgent = client.userAgent;
    a.logicalId = logicalId;
    a.sequence = static_cast<quint64>(r.integer(QStringLiteral("sequence"), 0).value_or(0));
    a.time = QDateTime::fromString(r.string(QStringLiteral("time")).value_or(QString()), Qt::ISODateWithMs);
    a.arrivalMs = r.number(QStringLiteral("arrivalMs"), 0.0, 1e12, Presence::Required).value_or(0.0);
    a.attemptIndex
        = static_cast<int>(r.integer(QStringLiteral("attempt"), 1, 1'000'000, Presence::Required).value_or(1));
    a.method = r.string(QStringLiteral("method")).value_or(QString()).toLatin1();
    a.target = r.string(QStringLiteral("target")).value_or(QString());
    if (const auto rule = r.named(QStringLiteral("rule"),
            QList<GroupingRule>{GroupingRule::AwsInvocationId, GroupingRule::GoogleInvocationId,
                GroupingRule::RetryRequestId, GroupingRule::IdempotencyKey, GroupingRule::GrpcPreviousAttempts,
                GroupingRule::SameRequest, GroupingRule::NewRequest},
            &GroupingRules::name))
        a.rule = *rule;
    a.ruleDetail = r.string(QStringLiteral("ruleDetail")).value_or(QString());
    a.complete = r.boolean(QStringLiteral("complete")).value_or(true);
    a.endMs = r.number(QStringLiteral("endMs"), 0.0, 1e12).value_or(a.arrivalMs);
    a.action = r.string(QStringLiteral("action")).value_or(QString());
    if (const auto status = r.integer(QStringLiteral("status"), 100, 599))
        a.status = static_cast<int>(*status);
    if (const auto ms = r.number(QStringLiteral("retryAfterMs"), 0.0, 1e12))
        a.retryAfterMs = *ms;
    if (const auto ms = r.number(QStringLiteral("delayMs"), 0.0, 1e12))
        a.delayMs = *ms;
    a.planStep = r.string(QStringLiteral("planStep")).value_or(QString());
    a.retryKey = r.string(QStringLiteral("retryKey")).value_or(QString()).toLatin1();
    if (const auto n = r.integer(QStringLiteral("sdkAttempt"), 0, 1'000'000))
        a.sdkAttempt = static_cast<int>(*n);
    if (const auto n = r.integer(QStringLiteral("sdkMaxAttempts"), 0, 1'000'000))
        a.sdkMaxAttempts = static_cast<int>(*n);
    a.bodyDigest = r.string(QStringLiteral("bodyDigest")).value_or(QString()).toLatin1();
    return a;
}

ObservationReport::Client judged(ObservedClient client, QList<LogicalRequest> requests)
{
    ObservationReport::Client c;
    c.client = std::move(client);
    c.requests = std::move(requests);
    c.policy = PolicyInference::infer(c.requests);
    c.verdicts = Judge::judge(c.requests, c.policy);
    c.closestPreset = Judge::closestPreset(c.policy);
    return c;
}

QString outcomeWord(Verdict::Outcome outcome)
{
    switch (outcome) {
    case Verdict::Outcome::Pass:
        return QStringLiteral("PASS");
    case Verdict::Outcome::Fail:
        return QStringLiteral("FAIL");
    case Verdict::Outcome::NotObserved:
        return QStringLiteral("n/a ");
    }
    return {};
}

} // namespace

ObservationReport ObservationReport::from(const Observer &observer)
{
    ObservationReport report;
    report.plan = observer.plan();
    report.gapWindowMs = observer.groupingSettings().gapWindowMs;
    report.droppedLogicalRequests = observer.droppedLogicalRequests();
    report.droppedClients = observer.droppedClients();
    const QList<LogicalRequest> all = observer.allLogicalRequests();
    QHash<QString, QList<LogicalRequest>> byClient;
    for (const LogicalRequest &r : all)
        byClient[r.clientId].append(r);
    for (const ObservedClient &client : observer.clients())
        report.clients.append(judged(client, byClient.value(client.id)));
    return report;
}

bool ObservationReport::allPass() const
{
    for (const Client &c : clients) {
        if (!Judge::allPass(c.verdicts))
            return false;
    }
    return true;
}

QJsonObject ObservationReport::toJson() const
{
    QJsonArray clientArray;
    for (const Client &c : clients) {
        QJsonArray requestArray;
        for (const LogicalRequest &r : c.requests) {
            QJsonArray attempts;
            for (const ObservedAttempt &a : r.attempts)
                attempts.append(attemptJson(a));
            QJsonObject request{
                {QStringLiteral("id"), static_cast<qint64>(r.id)},
                {QStringLiteral("rule"), GroupingRules::name(r.rule)},
                {QStringLiteral("method"), QString::fromLatin1(r.method)},
                {QStringLiteral("target"), r.target},
                {QStringLiteral("succeeded"), r.succeeded()},
                {QStringLiteral("attempts"), attempts},
            };
            if (!r.closedBy.isEmpty())
                request.insert(QStringLiteral("closedBy"), r.closedBy);
            requestArray.append(request);
        }
        QJsonArray verdicts;
        for (const Verdict &v : c.verdicts)
            verdicts.append(v.toJson());
        QJsonObject client{
            {QStringLiteral("id"), c.client.id},
            {QStringLiteral("name"), c.client.name},
            {QStringLiteral("userAgent"), c.client.userAgent},
            {QStringLiteral("address"), c.client.address},
            {QStringLiteral("droppedLogicalRequests"), c.client.droppedLogicalRequests},
            {QStringLiteral("rejectedRequests"), c.client.rejectedRequests},
            {QStringLiteral("logicalRequests"), requestArray},
            {QStringLiteral("policy"), c.policy.toJson()},
            {QStringLiteral("summary"), c.policy.summary()},
            {QStringLiteral("verdicts"), verdicts},
            {QStringLiteral("pass"), Judge::allPass(c.verdicts)},
        };
        if (!c.client.lastRejection.isEmpty())
            client.insert(QStringLiteral("lastRejection"), c.client.lastRejection);
        if (c.closestPreset) {
            QJsonArray rows;
            for (const PresetComparison::Row &row : c.closestPreset->rows) {
                rows.append(
                    QJsonObject{{QStringLiteral("field"), row.field}, {QStringLiteral("observed"), row.observed},
                        {QStringLiteral("preset"), row.preset}, {QStringLiteral("matches"), row.matches}});
            }
            client.insert(QStringLiteral("closestPreset"),
                QJsonObject{{QStringLiteral("id"), c.closestPreset->presetId},
                    {QStringLiteral("distance"), c.closestPreset->distance}, {QStringLiteral("rows"), rows}});
        }
        clientArray.append(client);
    }
    QJsonObject o{
        {QStringLiteral("format"), format},
        {QStringLiteral("version"), version},
        {QStringLiteral("plan"), plan.toJson()},
        {QStringLiteral("gapWindowMs"), gapWindowMs},
        {QStringLiteral("droppedLogicalRequests"), droppedLogicalRequests},
        {QStringLiteral("droppedClients"), droppedClients},
        {QStringLiteral("pass"), allPass()},
        {QStringLiteral("clients"), clientArray},
    };
    if (started.isValid())
        o.insert(QStringLiteral("started"), started.toString(Qt::ISODateWithMs));
    if (finished.isValid())
        o.insert(QStringLiteral("finished"), finished.toString(Qt::ISODateWithMs));
    if (!serverUrl.isEmpty())
        o.insert(QStringLiteral("server"), serverUrl);
    return o;
}

Result<ObservationReport> ObservationReport::fromJson(const QJsonObject &object)
{
    JsonReader r(object);
    const auto formatName = r.string(QStringLiteral("format"), Presence::Required);
    if (formatName && *formatName != format) {
        r.fail(
            QStringLiteral("format"), Tr::tr("\"%1\" is not an observation report (\"%2\")").arg(*formatName, format));
        return Result<ObservationReport>(r.firstError());
    }
    const auto versionNumber = r.integer(QStringLiteral("version"), 1, 1000, Presence::Required);
    if (versionNumber && *versionNumber > version) {
        r.fail(QStringLiteral("version"),
            Tr::tr("version %1 is newer than this RetryLab reads (%2)").arg(*versionNumber).arg(version));
    }
    ObservationReport report;
    report.started = QDateTime::fromString(r.string(QStringLiteral("started")).value_or(QString()), Qt::ISODateWithMs);
    report.finished
        = QDateTime::fromString(r.string(QStringLiteral("finished")).value_or(QString()), Qt::ISODateWithMs);
    report.serverUrl = r.string(QStringLiteral("server")).value_or(QString());
    report.gapWindowMs = r.number(QStringLiteral("gapWindowMs"), 0.0, 1e12).value_or(0.0);
    report.droppedLogicalRequests
        = static_cast<int>(r.integer(QStringLiteral("droppedLogicalRequests"), 0, 1'000'000'000).value_or(0));
    report.droppedClients = static_cast<int>(r.integer(QStringLiteral("droppedClients"), 0, 1'000'000'000).value_or(0));
    if (auto planReader = r.object(QStringLiteral("plan"))) {
        const auto plan = ObservationPlan::fromJson(planReader->object());
        if (plan)
            report.plan = *plan;
        else
            r.fail(QStringLiteral("plan"), plan.errorDetail());
    }
    auto clientsReader = r.array(QStringLiteral("clients"), Presence::Required);
    for (qsizetype i = 0; clientsReader && i < clientsReader->size() && !r.failed(); ++i) {
        auto c = clientsReader->object(i, Presence::Required);
        if (!c)
            break;
        ObservedClient client;
        client.id = c->string(QStringLiteral("id"), Presence::Required).value_or(QString());
        client.name = c->string(QStringLiteral("name")).value_or(client.id);
        client.userAgent = c->string(QStringLiteral("userAgent")).value_or(QString());
        client.address = c->string(QStringLiteral("address")).value_or(QString());
        client.droppedLogicalRequests
            = static_cast<int>(c->integer(QStringLiteral("droppedLogicalRequests"), 0, 1'000'000'000).value_or(0));
        client.rejectedRequests
            = static_cast<int>(c->integer(QStringLiteral("rejectedRequests"), 0, 1'000'000'000).value_or(0));
        client.lastRejection = c->string(QStringLiteral("lastRejection")).value_or(QString());
        QList<LogicalRequest> requests;
        auto requestsReader = c->array(QStringLiteral("logicalRequests"), Presence::Required);
        for (qsizetype k = 0; requestsReader && k < requestsReader->size() && !r.failed(); ++k) {
            auto lr = requestsReader->object(k, Presence::Required);
            if (!lr)
                break;
            LogicalRequest request;
            request.id = static_cast<quint64>(lr->integer(QStringLiteral("id"), 0).value_or(0));
            request.clientId = client.id;
            if (const auto rule = GroupingRules::fromName(lr->string(QStringLiteral("rule")).value_or(QString())))
                request.rule = *rule;
            request.method = lr->string(QStringLiteral("method")).value_or(QString()).toLatin1();
            request.target = lr->string(QStringLiteral("target")).value_or(QString());
            request.closedBy = lr->string(QStringLiteral("closedBy")).value_or(QString());
            auto attempts = lr->array(QStringLiteral("attempts"), Presence::Required);
            for (qsizetype n = 0; attempts && n < attempts->size() && !r.failed(); ++n) {
                if (auto a = attempts->object(n, Presence::Required))
                    request.attempts.append(readAttempt(*a, client, request.id));
            }
            requests.append(request);
        }
        client.logicalRequests = static_cast<int>(requests.size());
        for (const LogicalRequest &request : requests)
            client.attempts += static_cast<int>(request.attempts.size());
        report.clients.append(judged(client, requests));
    }
    return r.result(report);
}

QByteArray ObservationReport::toJunitXml() const
{
    QByteArray xml;
    QXmlStreamWriter w(&xml);
    w.setAutoFormatting(true);
    w.writeStartDocument();
    w.writeStartElement(QStringLiteral("testsuites"));
    w.writeAttribute(QStringLiteral("name"), QStringLiteral("retrylab observe"));
    for (const Client &c : clients) {
        int failures = 0;
        int skipped = 0;
        for (const Verdict &v : c.verdicts) {
            failures += v.outcome == Verdict::Outcome::Fail ? 1 : 0;
            skipped += v.outcome == Verdict::Outcome::NotObserved ? 1 : 0;
        }
        w.writeStartElement(QStringLiteral("testsuite"));
        w.writeAttribute(QStringLiteral("name"), c.client.name);
        w.writeAttribute(QStringLiteral("tests"), QString::number(c.verdicts.size()));
        w.writeAttribute(QStringLiteral("failures"), QString::number(failures));
        w.writeAttribute(QStringLiteral("skipped"), QString::number(skipped));
        for (const Verdict &v : c.verdicts) {
            w.writeStartElement(QStringLiteral("testcase"));
            w.writeAttribute(QStringLiteral("classname"), c.client.name);
            w.writeAttribute(QStringLiteral("name"), v.rule);
            if (v.outcome == Verdict::Outcome::Fail) {
                w.writeStartElement(QStringLiteral("failure"));
                w.writeAttribute(QStringLiteral("message"), v.title);
                w.writeCharacters(v.evidence);
                w.writeEndElement();
            } else if (v.outcome == Verdict::Outcome::NotObserved) {
                w.writeStartElement(QStringLiteral("skipped"));
                w.writeAttribute(QStringLiteral("message"), v.evidence);
                w.writeEndElement();
            } else {
                w.writeTextElement(QStringLiteral("system-out"), v.evidence);
            }
            w.writeEndElement();
        }
        w.writeEndElement();
    }
    w.writeEndElement();
    w.writeEndDocument();
    return xml;
}

QString ObservationReport::toText() const
{
    QString text;
    if (clients.isEmpty())
        return Tr::tr("No client sent a request.\n");
    for (const Client &c : clients) {
        int attempts = 0;
        for (const LogicalRequest &r : c.requests)
            attempts += static_cast<int>(r.attempts.size());
        text += Tr::tr("Client %1: %2 logical requests, %3 attempts")
                    .arg(c.client.name)
                    .arg(c.requests.size())
                    .arg(attempts);
        if (c.client.droppedLogicalRequests > 0)
            text += Tr::tr(" (%1 older ones dropped)").arg(c.client.droppedLogicalRequests);
        if (c.client.rejectedRequests > 0)
            text += Tr::tr(", %1 malformed requests refused").arg(c.client.rejectedRequests);
        text += QLatin1Char('\n');
        const QString summary = c.policy.summary();
        if (!summary.isEmpty())
            text += QStringLiteral("  ") + summary + QLatin1Char('\n');
        if (c.closestPreset)
            text += Tr::tr("  closest preset: %1\n").arg(c.closestPreset->presetId);
        for (const Verdict &v : c.verdicts)
            text += QStringLiteral("  %1  %2: %3\n").arg(outcomeWord(v.outcome), v.title, v.evidence);
    }
    return text;
}

} // namespace RetryLab::Core
