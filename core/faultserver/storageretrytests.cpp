#include "core/faultserver/storageretrytests.h"

#include "core/faultserver/requesttarget.h"
#include "core/util/coretr.h"

#include <QJsonArray>
#include <QMutexLocker>
#include <QUuid>

#include <algorithm>

namespace RetryLab::Core {

namespace {
// Replay keys remembered per test: a client's own ids, bounded.
constexpr qsizetype maxServedKeys = 10'000;
constexpr qsizetype maxStorageReplayKeyLength = 256;
} // namespace

QStringList StorageOperations::served()
{
    return {QStringLiteral("storage.buckets.get"), QStringLiteral("storage.objects.delete"),
        QStringLiteral("storage.objects.get"), QStringLiteral("storage.objects.insert"),
        QStringLiteral("storage.objects.list")};
}

void StorageRetryTests::setMaxTests(int maxTests)
{
    QMutexLocker lock(&m_mutex);
    m_maxTests = std::max(1, maxTests);
}

Result<QJsonObject> StorageRetryTests::create(const QJsonObject &body)
{
    const auto fail
        = [](const QString &path, const QString &message) { return Result<QJsonObject>::failure(path, message); };
    for (auto it = body.begin(); it != body.end(); ++it) {
        if (it.key() != QLatin1String("instructions") && it.key() != QLatin1String("transport"))
            return fail(RequestTarget::shortened(it.key()), Tr::tr("unknown field (known: instructions, transport)"));
    }
    if (body.contains(QLatin1String("transport"))) {
        const QJsonValue transport = body.value(QLatin1String("transport"));
        if (!transport.isString() || transport.toString().toUpper() != QLatin1String("HTTP"))
            return fail(
                QStringLiteral("transport"), Tr::tr("only \"HTTP\" is served here (the testbench's gRPC is not)"));
    }
    const QJsonValue instructions = body.value(QLatin1String("instructions"));
    if (!instructions.isObject() || instructions.toObject().isEmpty())
        return fail(QStringLiteral("instructions"),
            Tr::tr("instructions is not defined: give an object of operation names to lists of instructions"));

    Test test;
    const QStringList served = StorageOperations::served();
    const QJsonObject byOperation = instructions.toObject();
    for (auto it = byOperation.begin(); it != byOperation.end(); ++it) {
        const QString path = QStringLiteral("instructions.") + RequestTarget::shortened(it.key());
        if (!served.contains(it.key()))
            return fail(path,
                Tr::tr("%1 is not an operation this server serves (it serves %2)")
                    .arg(RequestTarget::shortened(it.key()), served.join(QStringLiteral(", "))));
        if (!it.value().isArray())
            return fail(path, Tr::tr("expected a list of instructions"));
        const QJsonArray list = it.value().toArray();
        if (list.size() > maxInstructionsPerTest)
            return fail(path, Tr::tr("at most %1 instructions per test").arg(maxInstructionsPerTest));
        QList<StorageInstruction> queue;
        for (qsizetype i = 0; i < list.size(); ++i) {
            const QString at = path + QStringLiteral("[%1]").arg(i);
            if (!list[i].isString())
                return fail(at, Tr::tr("an instruction is a string"));
            auto parsed = StorageInstruction::parse(list[i].toString(), it.key());
            if (!parsed)
                return fail(at, parsed.error());
            queue.append(std::move(parsed).value());
        }
        test.left += queue.size();
        if (test.left > maxInstructionsPerTest)
            return fail(
                QStringLiteral("instructions"), Tr::tr("at most %1 instructions per test").arg(maxInstructionsPerTest));
        test.queues.append({it.key(), queue});
    }

    QMutexLocker lock(&m_mutex);
    if (m_tests.size() >= m_maxTests)
        return fail(QString(),
            Tr::tr("the server holds %1 retry tests, its limit: delete some (DELETE /retry_test/{id})")
                .arg(m_tests.size()));
    if (m_totalInstructions + test.left > maxTotalInstructions)
        return fail(QString(),
            Tr::tr("the retry tests would hold more than %1 instructions in all: delete some")
                .arg(maxTotalInstructions));
    test.id = QUuid::createUuid().toString(QUuid::Id128);
    m_totalInstructions += test.left;
    const QJsonObject shown = toJson(test);
    m_tests.insert(test.id, std::move(test));
    return shown;
}

QJsonObject StorageRetryTests::toJson(const Test &test)
{
    QJsonObject instructions;
    for (const auto &[operation, queue] : test.queues) {
        QJsonArray left;
        for (const StorageInstruction &i : queue)
            left.append(i.text);
        instructions.insert(operation, left);
    }
    return QJsonObject{
        {QStringLiteral("id"), test.id},
        {QStringLiteral("instructions"), instructions},
        {QStringLiteral("completed"), test.left == 0},
        {QStringLiteral("transport"), QStringLiteral("HTTP")},
    };
}

bool StorageRetryTests::contains(const QString &id) const
{
    QMutexLocker lock(&m_mutex);
    return m_tests.contains(id);
}

std::optional<QJsonObject> StorageRetryTests::describe(const QString &id) const
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_tests.constFind(id);
    if (it == m_tests.cend())
        return std::nullopt;
    return toJson(*it);
}

QList<QJsonObject> StorageRetryTests::describeAll() const
{
    QMutexLocker lock(&m_mutex);
    QList<QJsonObject> all;
    for (const Test &test : m_tests)
        all.append(toJson(test));
    return all;
}

bool StorageRetryTests::remove(const QString &id)
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_tests.constFind(id);
    if (it == m_tests.cend())
        return false;
    m_totalInstructions -= it->left;
    m_tests.erase(it);
    return true;
}

void StorageRetryTests::clear()
{
    QMutexLocker lock(&m_mutex);
    m_tests.clear();
    m_totalInstructions = 0;
}

int StorageRetryTests::count() const
{
    QMutexLocker lock(&m_mutex);
    return int(m_tests.size());
}

std::optional<StorageInstruction> StorageRetryTests::next(
    const QString &id, const QString &operation, const QString &replayKey) const
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_tests.constFind(id);
    if (it == m_tests.cend())
        return std::nullopt;
    if (!replayKey.isEmpty()) {
        if (const auto served = it->served.constFind(replayKey); served != it->served.cend())
            return *served;
    }
    for (const auto &[name, queue] : it->queues) {
        if (name == operation)
            return queue.isEmpty() ? std::nullopt : std::optional(queue.first());
    }
    return std::nullopt;
}

void StorageRetryTests::consume(const QString &id, const QString &operation, const QString &replayKey)
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_tests.find(id);
    if (it == m_tests.end())
        return;
    if (!replayKey.isEmpty() && it->served.contains(replayKey))
        return; // a resend of an attempt already served: nothing more is used
    for (auto &[name, queue] : it->queues) {
        if (name != operation || queue.isEmpty())
            continue;
        const StorageInstruction used = queue.takeFirst();
        --it->left;
        --m_totalInstructions;
        if (!replayKey.isEmpty() && replayKey.size() <= maxStorageReplayKeyLength && it->served.size() < maxServedKeys)
            it->served.insert(replayKey, used);
        return;
    }
}

} // namespace RetryLab::Core
