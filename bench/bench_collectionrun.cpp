// A collection of 1,000 requests run by `retrylab run` and, as the like-for-like
// anchor, by newman 6, against the same fault server in a child process: wall
// time, CPU and peak memory of each runner's process, and their ratios.
//
// Every request has a pre-request script and a test script with two pm.tests
// (the status, and a property of the JSON body), in ten folders: what a large
// real collection does per request. Both runners must pass every test, or the
// figures are not written.
//
// Usage: bench_collectionrun --cli PATH [--newman PATH] [--requests N] [--rounds R] [--out FILE]
//        bench_collectionrun --serve      (the child: prints "PORT <n>", serves until killed)

#include "bench/serverprocess.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTextStream>

#include <algorithm>
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <vector>

extern char **environ;

using namespace RetryLab::Bench;

namespace {

struct ProcessFigures
{
    int exitCode = -1;
    double wallMs = 0.0;
    double cpuSeconds = 0.0;
    qint64 maxRssKiB = 0;
};

/// Runs `program` with `arguments`, its output to /dev/null, and waits for it
/// with wait4(), whose rusage has the child's own peak resident set and CPU.
ProcessFigures measure(const QString &program, const QStringList &arguments)
{
    std::vector<QByteArray> storage;
    storage.push_back(program.toLocal8Bit());
    for (const QString &argument : arguments)
        storage.push_back(argument.toLocal8Bit());
    std::vector<char *> argv;
    for (QByteArray &word : storage)
        argv.push_back(word.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    QElapsedTimer timer;
    timer.start();
    pid_t pid = 0;
    ProcessFigures figures;
    const int spawned = posix_spawn(&pid, argv.front(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0)
        return figures;
    int status = 0;
    struct rusage usage = {};
    // The fault server runs in another child: wait for this one only, and keep
    // the event loop out of it (the server is a process of its own).
    if (wait4(pid, &status, 0, &usage) != pid)
        return figures;
    figures.wallMs = double(timer.nsecsElapsed()) / 1e6;
    figures.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    figures.cpuSeconds = double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    figures.maxRssKiB = usage.ru_maxrss;
    return figures;
}

QJsonObject script(const char *listen, const QStringList &lines)
{
    return QJsonObject{{QStringLiteral("listen"), QString::fromLatin1(listen)},
        {QStringLiteral("script"), QJsonObject{{QStringLiteral("exec"), QJsonArray::fromStringList(lines)}}}};
}

QByteArray bigCollection(int requests)
{
    constexpr int folders = 10;
    QList<QJsonArray> items(folders);
    for (int i = 0; i < requests; ++i) {
        const QJsonObject request{{QStringLiteral("name"), QStringLiteral("request %1").arg(i)},
            {QStringLiteral("request"),
                QJsonObject{{QStringLiteral("method"), QStringLiteral("GET")},
                    {QStringLiteral("url"), QStringLiteral("{{base}}/occ/bench-%1?step={{step}}").arg(i % 50)},
                    {QStringLiteral("header"),
                        QJsonArray{QJsonObject{{QStringLiteral("key"), QStringLiteral("X-Bench")},
                            {QStringLiteral("value"), QStringLiteral("{{step}}")}}}}}},
            {QStringLiteral("event"),
                QJsonArray{script("prerequest", {QStringLiteral("pm.variables.set('step', %1);").arg(i)}),
                    script("test",
                        {QStringLiteral("pm.test('status is 200', function () { pm.response.to.have.status(200); });"),
                            QStringLiteral("pm.test('has a value', function () {"),
                            QStringLiteral("    pm.expect(pm.response.json()).to.have.property('value');"),
                            QStringLiteral("});")})}}};
        items[i % folders].append(request);
    }
    QJsonArray top;
    for (int f = 0; f < folders; ++f) {
        top.append(QJsonObject{
            {QStringLiteral("name"), QStringLiteral("folder %1").arg(f)}, {QStringLiteral("item"), items.at(f)}});
    }
    const QJsonObject info{{QStringLiteral("name"), QStringLiteral("Bench")},
        {QStringLiteral("schema"),
            QStringLiteral("https://schema.getpostman.com/json/collection/v2.1.0/collection.json")}};
    return QJsonDocument(QJsonObject{{QStringLiteral("info"), info}, {QStringLiteral("item"), top}}).toJson();
}

QByteArray environment(const QUrl &base)
{
    return QJsonDocument(QJsonObject{{QStringLiteral("name"), QStringLiteral("bench")},
                             {QStringLiteral("values"),
                                 QJsonArray{QJsonObject{{QStringLiteral("key"), QStringLiteral("base")},
                                     {QStringLiteral("value"), base.toString()}, {QStringLiteral("enabled"), true}}}}})
        .toJson();
}

bool write(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

/// The median round of a runner (by wall time), so that one slow round on a
/// shared machine does not decide the figure.
ProcessFigures median(QList<ProcessFigures> rounds)
{
    std::sort(rounds.begin(), rounds.end(),
        [](const ProcessFigures &a, const ProcessFigures &b) { return a.wallMs < b.wallMs; });
    return rounds.at(rounds.size() / 2);
}

QJsonObject toJson(const ProcessFigures &figures, int requests)
{
    return QJsonObject{{QStringLiteral("wallMs"), figures.wallMs},
        {QStringLiteral("msPerRequest"), figures.wallMs / requests}, {QStringLiteral("cpuSeconds"), figures.cpuSeconds},
        {QStringLiteral("maxRssKiB"), figures.maxRssKiB}};
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    const QCommandLineOption serveOption(QStringLiteral("serve"));
    const QCommandLineOption cliOption(QStringLiteral("cli"), QStringLiteral("retrylab-cli"), QStringLiteral("PATH"));
    const QCommandLineOption newmanOption(QStringLiteral("newman"), QStringLiteral("newman"), QStringLiteral("PATH"));
    const QCommandLineOption requestsOption(
        QStringLiteral("requests"), QStringLiteral("requests"), QStringLiteral("N"), QStringLiteral("1000"));
    const QCommandLineOption roundsOption(
        QStringLiteral("rounds"), QStringLiteral("rounds"), QStringLiteral("R"), QStringLiteral("3"));
    const QCommandLineOption outOption(QStringLiteral("out"), QStringLiteral("output"), QStringLiteral("FILE"));
    parser.addOptions({serveOption, cliOption, newmanOption, requestsOption, roundsOption, outOption});
    parser.process(app);
    if (parser.isSet(serveOption))
        return serveFaults();

    QTextStream out(stdout);
    QTextStream err(stderr);
    const int requests = parser.value(requestsOption).toInt();
    const int rounds = parser.value(roundsOption).toInt();
    if (!parser.isSet(cliOption) || requests <= 0 || rounds <= 0) {
        err << "bench_collectionrun: --cli PATH is needed; --requests and --rounds must be positive" << Qt::endl;
        return 2;
    }
    ServerProcess server;
    if (!server.start()) {
        err << "bench_collectionrun: the fault server did not start" << Qt::endl;
        return 1;
    }
    QTemporaryDir dir;
    const QString collection = dir.filePath(QStringLiteral("bench.postman_collection.json"));
    const QString env = dir.filePath(QStringLiteral("bench.postman_environment.json"));
    if (!dir.isValid() || !write(collection, bigCollection(requests)) || !write(env, environment(server.url({})))) {
        err << "bench_collectionrun: cannot write the collection" << Qt::endl;
        return 1;
    }

    QJsonObject results{{QStringLiteral("requests"), requests}, {QStringLiteral("testsPerRequest"), 2},
        {QStringLiteral("rounds"), rounds}};
    const auto runRounds
        = [&](const char *name, const QString &program, const QStringList &arguments, ProcessFigures *kept) {
              QList<ProcessFigures> figures;
              for (int round = 0; round < rounds; ++round) {
                  figures.append(measure(program, arguments));
                  if (figures.constLast().exitCode != 0) {
                      err << "bench_collectionrun: " << name << " exited with " << figures.constLast().exitCode
                          << "; every test must pass" << Qt::endl;
                      return false;
                  }
              }
              *kept = median(figures);
              out << QStringLiteral("%1: %2 requests in %3 ms (%4 ms each), CPU %5 s, peak RSS %6 MiB")
                         .arg(QLatin1String(name))
                         .arg(requests)
                         .arg(kept->wallMs, 0, 'f', 0)
                         .arg(kept->wallMs / requests, 0, 'f', 2)
                         .arg(kept->cpuSeconds, 0, 'f', 2)
                         .arg(double(kept->maxRssKiB) / 1024.0, 0, 'f', 1)
                  << Qt::endl;
              return true;
          };

    ProcessFigures retrylab;
    if (!runRounds("retrylab run", parser.value(cliOption),
            {QStringLiteral("run"), collection, QStringLiteral("--env"), env, QStringLiteral("-q"),
                QStringLiteral("--seed"), QStringLiteral("1")},
            &retrylab))
        return 1;
    results.insert(QStringLiteral("retrylab"), toJson(retrylab, requests));
    ProcessFigures withReports;
    if (!runRounds("retrylab run --report --junit", parser.value(cliOption),
            {QStringLiteral("run"), collection, QStringLiteral("--env"), env, QStringLiteral("-q"),
                QStringLiteral("--seed"), QStringLiteral("1"), QStringLiteral("--report"),
                dir.filePath(QStringLiteral("report.json")), QStringLiteral("--junit"),
                dir.filePath(QStringLiteral("junit.xml"))},
            &withReports))
        return 1;
    results.insert(QStringLiteral("retrylabWithReports"), toJson(withReports, requests));

    if (parser.isSet(newmanOption)) {
        ProcessFigures newman;
        if (!runRounds("newman run", parser.value(newmanOption),
                {QStringLiteral("run"), collection, QStringLiteral("--environment"), env, QStringLiteral("--reporters"),
                    QStringLiteral("json"), QStringLiteral("--reporter-json-export"),
                    dir.filePath(QStringLiteral("newman.json"))},
                &newman))
            return 1;
        results.insert(QStringLiteral("newman"), toJson(newman, requests));
        results.insert(QStringLiteral("wallRatio"), retrylab.wallMs / newman.wallMs);
        results.insert(QStringLiteral("rssRatio"), double(retrylab.maxRssKiB) / double(newman.maxRssKiB));
        out << QStringLiteral("retrylab run / newman: time %1, peak memory %2")
                   .arg(retrylab.wallMs / newman.wallMs, 0, 'f', 2)
                   .arg(double(retrylab.maxRssKiB) / double(newman.maxRssKiB), 0, 'f', 2)
            << Qt::endl;
    }

    if (parser.isSet(outOption)) {
        QFile file(parser.value(outOption));
        if (!file.open(QIODevice::WriteOnly)) {
            err << "bench_collectionrun: cannot write " << parser.value(outOption) << Qt::endl;
            return 1;
        }
        file.write(QJsonDocument(results).toJson());
    }
    return 0;
}
