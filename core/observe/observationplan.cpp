#include "core/observe/observationplan.h"

#include "core/util/boundedfile.h"
#include "core/util/coretr.h"
#include "core/util/jsonreader.h"
#include "core/util/randomsource.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

namespace RetryLab::Core {

namespace {

FaultInstruction step(const QString &text)
{
    return *FaultInstruction::parse(text);
}

ObservationPlan preset(const char *id, const QString &name, const QString &description, const QStringList &steps,
    const QString &then = QStringLiteral("return-200"))
{
    ObservationPlan plan;
    plan.id = QString::fromLatin1(id);
    plan.name = name;
    plan.description = description;
    plan.steps = *FaultInstruction::parseList(steps);
    plan.then = step(then);
    return plan;
}

} // namespace

FaultInstruction ObservationPlan::stepFor(int attemptIndex, RandomSource &random) const
{
    if (probability > 0.0)
        return random.uniform(0.0, 1.0) < probability ? randomStep : then;
    if (attemptIndex >= 1 && attemptIndex <= steps.size())
        return steps.at(attemptIndex - 1);
    return then;
}

QJsonObject ObservationPlan::toJson() const
{
    QJsonObject o{
        {QStringLiteral("id"), id},
        {QStringLiteral("name"), name},
        {QStringLiteral("then"), then.toString()},
    };
    if (!description.isEmpty())
        o.insert(QStringLiteral("description"), description);
    if (probability > 0.0) {
        o.insert(QStringLiteral("probability"), probability);
        o.insert(QStringLiteral("randomStep"), randomStep.toString());
    } else {
        QStringList texts;
        for (const FaultInstruction &s : steps)
            texts.append(s.toString());
        o.insert(QStringLiteral("steps"), QJsonArray::fromStringList(texts));
    }
    return o;
}

Result<ObservationPlan> ObservationPlan::fromJson(const QJsonObject &object)
{
    JsonReader reader(object);
    ObservationPlan plan;
    plan.id = reader.string(QStringLiteral("id")).value_or(QString());
    plan.name = reader.string(QStringLiteral("name")).value_or(plan.id);
    plan.description = reader.string(QStringLiteral("description")).value_or(QString());
    const auto readStep = [&reader](const QString &field, FaultInstruction &into) {
        if (const auto text = reader.string(field)) {
            const auto parsed = FaultInstruction::parse(*text);
            if (parsed)
                into = *parsed;
            else
                reader.fail(field, parsed.errorDetail());
        }
    };
    readStep(QStringLiteral("then"), plan.then);
    readStep(QStringLiteral("randomStep"), plan.randomStep);
    plan.probability = reader.number(QStringLiteral("probability"), 0.0, 1.0).value_or(0.0);
    if (const auto texts = reader.strings(QStringLiteral("steps"))) {
        const auto parsed = FaultInstruction::parseList(*texts);
        if (parsed)
            plan.steps = *parsed;
        else
            reader.fail(QStringLiteral("steps"), parsed.errorDetail());
    }
    if (!reader.failed() && plan.steps.isEmpty() && plan.probability <= 0.0 && !object.contains(QStringLiteral("then")))
        reader.failHere(
            Tr::tr("a plan needs \"steps\", a \"probability\" with a \"randomStep\", or at least \"then\""));
    if (plan.name.isEmpty())
        plan.name = Tr::tr("custom plan");
    return reader.result(plan);
}

Result<ObservationPlan> ObservationPlan::load(const QString &idOrFile)
{
    for (const ObservationPlan &p : presets()) {
        if (p.id.compare(idOrFile, Qt::CaseInsensitive) == 0)
            return p;
    }
    if (!QFileInfo::exists(idOrFile)) {
        QStringList ids;
        for (const ObservationPlan &p : presets())
            ids.append(p.id);
        return Result<ObservationPlan>::failure(Tr::tr("\"%1\" is neither an observation plan (%2) nor a file")
                                                    .arg(idOrFile, ids.join(QStringLiteral(", "))));
    }
    const auto bytes = BoundedFile::read(idOrFile, {1024 * 1024, Tr::tr("a plan file")});
    if (!bytes)
        return Result<ObservationPlan>::failure(idOrFile, bytes.error());
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(*bytes, &error);
    if (error.error != QJsonParseError::NoError)
        return Result<ObservationPlan>::failure(
            idOrFile, Tr::tr("not JSON: %1 at byte %2").arg(error.errorString()).arg(error.offset));
    if (!document.isObject())
        return Result<ObservationPlan>::failure(idOrFile, Tr::tr("a plan file holds one JSON object"));
    auto plan = fromJson(document.object());
    if (!plan)
        return Result<ObservationPlan>::failure(idOrFile, plan.error());
    ObservationPlan value = *plan;
    if (value.id.isEmpty())
        value.id = QFileInfo(idOrFile).completeBaseName();
    return value;
}

const QList<ObservationPlan> &ObservationPlan::presets()
{
    static const QList<ObservationPlan> all = [] {
        QList<ObservationPlan> list{
            preset("503x3", Tr::tr("503 three times, then 200"),
                Tr::tr("Every logical request fails three times with 503 Service Unavailable, then succeeds: "
                       "shows the delays between retries and their growth."),
                {QStringLiteral("return-503*3")}),
            preset("always-503", Tr::tr("503 every time"),
                Tr::tr("Every attempt gets 503: shows where the client stops (its attempt limit or deadline)."), {},
                QStringLiteral("return-503")),
            preset("429-retry-after-2", Tr::tr("429 with Retry-After: 2, then 200"),
                Tr::tr("The first attempt is throttled with Retry-After: 2: does the client wait two seconds?"),
                {QStringLiteral("return-429-after-2s")}),
            preset("503-retry-after-1", Tr::tr("503 with Retry-After: 1 twice, then 200"),
                Tr::tr("Two 503s asking for one second each: does the client wait at least that long?"),
                {QStringLiteral("return-503-after-1s*2")}),
            preset("reset-then-200", Tr::tr("connection reset, then 200"),
                Tr::tr("The first attempt's connection is reset (RST) before any answer: does the client retry?"),
                {QStringLiteral("reset")}),
            preset("empty-then-200", Tr::tr("empty reply, then 200"),
                Tr::tr("The first attempt's connection closes without an answer: does the client retry?"),
                {QStringLiteral("empty")}),
            preset("stall-once", Tr::tr("stall once, then 200"),
                Tr::tr("The first attempt is never answered: how long does the client wait, and does it retry?"),
                {QStringLiteral("stall")}),
            preset("404-then-200", Tr::tr("404 once, then 200"),
                Tr::tr("A permanent error first: a careful client does not retry it."), {QStringLiteral("return-404")}),
            preset("pass", Tr::tr("no faults"), Tr::tr("Every attempt gets 200."), {}),
        };
        ObservationPlan random;
        random.id = QStringLiteral("503-30pct");
        random.name = Tr::tr("30 % 503");
        random.description = Tr::tr("Each attempt independently gets 503 with probability 0.3, else 200.");
        random.probability = 0.3;
        random.randomStep = step(QStringLiteral("return-503"));
        list.insert(7, random);
        return list;
    }();
    return all;
}

const ObservationPlan &ObservationPlan::defaultPlan()
{
    return presets().constFirst();
}

} // namespace RetryLab::Core
