// Measures the run views at a million attempts: ingesting into RunSession, appending to
// AttemptLogModel in live batches, filtering and sorting with the model's own index
// against QSortFilterProxyModel (stock and tuned), the memory a row costs, and
// painting the timeline with ten thousand lanes. Numbers go to a file.
//
// Usage: bench_views [--rows N] [--out FILE] [--json FILE] [--no-proxies]
//        (runs on any QPA platform; offscreen is fine)

#include "bench/processmemory.h"
#include "tests/ui/session/sessionfixtures.h"
#include "ui/run/attemptlogmodel.h"
#include "ui/run/errorlogview.h"
#include "ui/run/timelineview.h"
#include "ui/session/run/runsession.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTextStream>

#include <functional>

Q_LOGGING_CATEGORY(lcBench, "retrylab.bench.views", QtInfoMsg)

using namespace RetryLab;
using Ui::AttemptLogModel;
using Ui::RunSession;

namespace {

double timeMs(const std::function<void()> &work)
{
    QElapsedTimer timer;
    timer.start();
    work();
    return double(timer.nsecsElapsed()) / 1e6;
}

qint64 residentBytes()
{
    const qint64 kib = RetryLab::Bench::residentKiB();
    return kib < 0 ? -1 : kib * 1024;
}

// The filter the model applies, written as a proxy over the unfiltered model: the
// outcome from a role, the text searched in the displayed strings of five columns.
class TunedProxy final : public QSortFilterProxyModel
{
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

    void setFilters(int outcomeMask, const QString &text)
    {
        m_mask = outcomeMask;
        m_text = text;
        invalidateRowsFilter();
    }

protected:
    bool filterAcceptsRow(int row, const QModelIndex &parent) const override
    {
        const QAbstractItemModel *m = sourceModel();
        const int outcome = m->data(m->index(row, 0, parent), AttemptLogModel::OutcomeRole).toInt();
        if (!(m_mask & (1 << outcome)))
            return false;
        if (m_text.isEmpty())
            return true;
        for (int column :
            {AttemptLogModel::Request, AttemptLogModel::Status, AttemptLogModel::Cause, AttemptLogModel::Reason}) {
            if (m->data(m->index(row, column, parent)).toString().contains(m_text, Qt::CaseInsensitive))
                return true;
        }
        return false;
    }

private:
    int m_mask = AttemptLogModel::ShowAll;
    QString m_text;
};

struct Report
{
    QStringList lines;
    QJsonObject figures; ///< the headline numbers, by key, for --json
    void add(const QString &what, double value, const QString &unit, const QString &key = {})
    {
        if (!key.isEmpty())
            figures.insert(key, value);
        lines.append(QStringLiteral("%1: %2 %3").arg(what, -58).arg(value, 0, 'f', 1).arg(unit));
        qCInfo(lcBench).noquote() << lines.constLast();
    }
    void note(const QString &text)
    {
        lines.append(text);
        qCInfo(lcBench).noquote() << text;
    }
};

qint64 fill(RunSession &session, qint64 rows, bool flushInBatches)
{
    qint64 id = 1;
    while (session.finishedCount() < rows) {
        Fixtures::syntheticRun(session, 10'000, quint64(id), 2.0, id);
        id += 10'000;
        if (flushInBatches)
            session.flush();
    }
    session.flush();
    return session.finishedCount();
}

} // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({QStringLiteral("rows"), QStringLiteral("Attempt rows (default 1000000)."), QStringLiteral("n"),
        QStringLiteral("1000000")});
    parser.addOption({QStringLiteral("out"), QStringLiteral("Result file (default bench-views.txt)."),
        QStringLiteral("file"), QStringLiteral("bench-views.txt")});
    parser.addOption(
        {QStringLiteral("json"), QStringLiteral("Also write the headline numbers as JSON."), QStringLiteral("file")});
    parser.addOption({QStringLiteral("no-proxies"),
        QStringLiteral("Skip the QSortFilterProxyModel comparison (about a minute at a million rows).")});
    parser.process(app);
    const qint64 wanted = parser.value(QStringLiteral("rows")).toLongLong();
    Report report;
    report.note(QStringLiteral("RetryLab view benchmark, Qt %1, platform %2")
                    .arg(QString::fromLatin1(qVersion()), QGuiApplication::platformName()));

    // 1. Ingest alone, and the memory it takes.
    {
        const qint64 before = residentBytes();
        RunSession session;
        session.setRetainedRecordLimit(0); // rows only: what a row itself costs
        qint64 rows = 0;
        const double ms = timeMs([&] { rows = fill(session, wanted, false); });
        const qint64 after = residentBytes();
        report.note(QStringLiteral("rows: %1, lanes: %2, interned strings: %3")
                        .arg(rows)
                        .arg(session.laneCount())
                        .arg(session.strings().size()));
        report.add(QStringLiteral("session ingest, records per second"), double(rows) / ms * 1000.0, QString());
        report.add(QStringLiteral("session ingest, total"), ms, QStringLiteral("ms"), QStringLiteral("ingest_ms"));
        report.add(QStringLiteral("compact row (sizeof AttemptRow)"), double(sizeof(RunSession::AttemptRow)),
            QStringLiteral("bytes"));
        report.add(QStringLiteral("lane per request (sizeof Lane)"), double(sizeof(RunSession::Lane)),
            QStringLiteral("bytes"));
        report.add(QStringLiteral("resident memory per attempt row, everything"), double(after - before) / double(rows),
            QStringLiteral("bytes"), QStringLiteral("resident_bytes_per_row"));
        report.figures.insert(QStringLiteral("rows"), double(rows));
    }

    const qint64 residentBeforeModel = residentBytes();
    RunSession session;
    AttemptLogModel model;
    model.setSession(&session);

    // 2. Live appends in batches (one beginInsertRows per flush), as a run delivers them.
    {
        int batches = 0;
        QObject::connect(&model, &QAbstractItemModel::rowsInserted, &model, [&batches] { ++batches; });
        const double ms = timeMs([&] { fill(session, wanted, true); });
        report.add(QStringLiteral("append to session + model, total (%1 batches)").arg(batches), ms,
            QStringLiteral("ms"), QStringLiteral("append_ms"));
        report.figures.insert(QStringLiteral("append_ns_per_row"), ms * 1e6 / double(session.finishedCount()));
        report.add(QStringLiteral("append, per batch of ~16500 rows"), ms / std::max(1, batches), QStringLiteral("ms"));
    }
    const qint64 rows = session.finishedCount();

    // 3. The model's own filter and sort index.
    report.add(QStringLiteral("model filter: outcome = final failure"),
        timeMs([&] { model.setOutcomeFilter(AttemptLogModel::ShowFailed); }), QStringLiteral("ms"),
        QStringLiteral("filter_outcome_ms"));
    report.note(QStringLiteral("  rows shown: %1").arg(model.rowCount()));
    report.add(QStringLiteral("model filter: outcome = all"),
        timeMs([&] { model.setOutcomeFilter(AttemptLogModel::ShowAll); }), QStringLiteral("ms"));
    report.add(QStringLiteral("model filter: text \"refused\""),
        timeMs([&] { model.setTextFilter(QStringLiteral("refused")); }), QStringLiteral("ms"),
        QStringLiteral("filter_text_ms"));
    report.note(QStringLiteral("  rows shown: %1").arg(model.rowCount()));
    report.add(QStringLiteral("model filter: text \"#4242\""),
        timeMs([&] { model.setTextFilter(QStringLiteral("#4242")); }), QStringLiteral("ms"));
    report.add(QStringLiteral("model filter: text \"no such text\""),
        timeMs([&] { model.setTextFilter(QStringLiteral("no such text")); }), QStringLiteral("ms"),
        QStringLiteral("filter_no_match_ms"));
    report.add(
        QStringLiteral("model filter: cleared"), timeMs([&] { model.setTextFilter(QString()); }), QStringLiteral("ms"));
    report.add(QStringLiteral("resident memory per row, session + model after filtering"),
        double(residentBytes() - residentBeforeModel) / double(rows), QStringLiteral("bytes"),
        QStringLiteral("resident_bytes_per_row_with_model"));
    report.add(QStringLiteral("model sort: duration descending"),
        timeMs([&] { model.sort(AttemptLogModel::Duration, Qt::DescendingOrder); }), QStringLiteral("ms"),
        QStringLiteral("sort_duration_ms"));
    report.add(
        QStringLiteral("model sort: cause"), timeMs([&] { model.sort(AttemptLogModel::Cause); }), QStringLiteral("ms"));
    {
        const qint64 next = 10'000'000;
        const double ms = timeMs([&] {
            for (int b = 0; b < 10; ++b) {
                Fixtures::syntheticRun(session, 500, quint64(b), 2.0, next + b * 500);
                session.flush();
            }
        });
        report.add(QStringLiteral("model sorted by cause: 10 live batches of 500 requests, each"), ms / 10.0,
            QStringLiteral("ms"));
    }
    report.add(
        QStringLiteral("model sort: back to finish order"), timeMs([&] { model.sort(-1); }), QStringLiteral("ms"));

    // 4. The same with QSortFilterProxyModel over the unfiltered model. The proxy maps
    // lazily, so every step is timed up to rowCount(), when the mapping exists.
    if (!parser.isSet(QStringLiteral("no-proxies"))) {
        QSortFilterProxyModel stock;
        report.add(QStringLiteral("stock proxy: attach + map every row"), timeMs([&] {
            stock.setSourceModel(&model);
            (void)stock.rowCount();
        }),
            QStringLiteral("ms"));
        stock.setFilterCaseSensitivity(Qt::CaseInsensitive);
        stock.setFilterKeyColumn(-1);
        report.add(QStringLiteral("stock proxy: fixed string \"refused\", all columns"), timeMs([&] {
            stock.setFilterFixedString(QStringLiteral("refused"));
            (void)stock.rowCount();
        }),
            QStringLiteral("ms"));
        report.note(QStringLiteral("  rows shown: %1").arg(stock.rowCount()));
        // Rows coming back in ~130,000 separate runs: the proxy inserts run by run.
        report.add(QStringLiteral("stock proxy: filter cleared"), timeMs([&] {
            stock.setFilterFixedString(QString());
            (void)stock.rowCount();
        }),
            QStringLiteral("ms"));
        stock.setSortRole(AttemptLogModel::SortRole);
        report.add(QStringLiteral("stock proxy: sort duration descending (SortRole)"), timeMs([&] {
            stock.sort(AttemptLogModel::Duration, Qt::DescendingOrder);
            (void)stock.rowCount();
        }),
            QStringLiteral("ms"));
    }
    if (!parser.isSet(QStringLiteral("no-proxies"))) {
        TunedProxy tuned;
        tuned.setDynamicSortFilter(false);
        tuned.setSourceModel(&model);
        (void)tuned.rowCount();
        report.add(QStringLiteral("tuned proxy: outcome = final failure (role)"), timeMs([&] {
            tuned.setFilters(AttemptLogModel::ShowFailed, QString());
            (void)tuned.rowCount();
        }),
            QStringLiteral("ms"));
        report.note(QStringLiteral("  rows shown: %1").arg(tuned.rowCount()));
        report.add(QStringLiteral("tuned proxy: text \"refused\" in 4 columns"), timeMs([&] {
            tuned.setFilters(AttemptLogModel::ShowAll, QStringLiteral("refused"));
            (void)tuned.rowCount();
        }),
            QStringLiteral("ms"));
        report.note(QStringLiteral("  rows shown: %1").arg(tuned.rowCount()));
        const double appendMs = timeMs([&] {
            Fixtures::syntheticRun(session, 500, 99, 2.0, 20'000'000);
            session.flush();
            (void)tuned.rowCount();
        });
        report.add(
            QStringLiteral("tuned proxy attached: one live batch of 500 requests"), appendMs, QStringLiteral("ms"));
    }

    // What one cell costs to show, per column (a repaint asks for a few hundred).
    for (int column = 0; column < AttemptLogModel::ColumnCount; ++column) {
        const int cells = 20'000;
        const double ms = timeMs([&] {
            for (int row = 0; row < cells; ++row)
                (void)model.index(row * 37 % model.rowCount(), column).data();
        });
        report.add(QStringLiteral("model data(), column %1, per cell")
                       .arg(model.headerData(column, Qt::Horizontal).toString()),
            ms * 1000.0 / cells, QStringLiteral("us"));
    }

    // 5. The error log view on a million rows: a filter typed into it, and a repaint.
    {
        Ui::ErrorLogView view;
        view.resize(1400, 800);
        view.show();
        const double attach = timeMs([&] {
            view.setSession(&session);
            QCoreApplication::processEvents();
        });
        report.add(
            QStringLiteral("error log view: attach to %1 rows and show").arg(rows), attach, QStringLiteral("ms"));
        QTableView *table = view.tableView();
        const double scroll = timeMs([&] {
            for (int i = 0; i < 50; ++i) {
                table->verticalScrollBar()->setValue(table->verticalScrollBar()->maximum() / 50 * i);
                table->viewport()->repaint();
            }
        });
        report.add(QStringLiteral("error log view: scroll + repaint, each of 50"), scroll / 50.0, QStringLiteral("ms"));
        const double still = timeMs([&] {
            for (int i = 0; i < 50; ++i)
                table->viewport()->repaint();
        });
        report.add(QStringLiteral("error log view: repaint in place, each of 50"), still / 50.0, QStringLiteral("ms"));
        report.note(QStringLiteral("  (%1 rows x %2 columns in sight)")
                        .arg(table->rowAt(table->viewport()->height() - 1) - table->rowAt(0) + 1)
                        .arg(int(AttemptLogModel::ColumnCount)));
        const double filter = timeMs([&] {
            view.model()->setTextFilter(QStringLiteral("503"));
            table->viewport()->repaint();
        });
        report.add(QStringLiteral("error log view: filter \"503\" + repaint"), filter, QStringLiteral("ms"));
    }

    // 6. The timeline: 10,000 lanes, then every lane of the million-row session.
    {
        RunSession small;
        Fixtures::syntheticRun(small, 10'000, 5, 20.0);
        small.flush();
        Ui::TimelineView timeline;
        timeline.resize(1400, 800);
        timeline.show();
        timeline.setSession(&small);
        QCoreApplication::processEvents();
        const auto paintMs = [&timeline](int times) {
            return timeMs([&] {
                for (int i = 0; i < times; ++i) {
                    QScrollBar *bar = timeline.verticalScrollBar();
                    bar->setValue(int(qint64(bar->maximum()) * i / times));
                    timeline.viewport()->repaint();
                }
            }) / times;
        };
        report.add(
            QStringLiteral("timeline, 10000 lanes, whole run in view: paint"), paintMs(100), QStringLiteral("ms"));
        timeline.setVisibleRange(100'000, 110'000);
        report.add(QStringLiteral("timeline, 10000 lanes, 10 s in view: paint"), paintMs(100), QStringLiteral("ms"));
        timeline.setSession(&session);
        QCoreApplication::processEvents();
        report.add(QStringLiteral("timeline, %1 lanes (%2 attempts): paint").arg(session.laneCount()).arg(rows),
            paintMs(100), QStringLiteral("ms"));
    }

    const QString out = parser.value(QStringLiteral("out"));
    QFile file(out);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        qCCritical(lcBench).noquote() << "cannot write" << out << ":" << file.errorString();
        return 1;
    }
    QTextStream(&file) << report.lines.join(QLatin1Char('\n')) << '\n';
    if (parser.isSet(QStringLiteral("json"))) {
        QFile json(parser.value(QStringLiteral("json")));
        if (!json.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            qCCritical(lcBench).noquote() << "cannot write" << json.fileName() << ":" << json.errorString();
            return 1;
        }
        json.write(QJsonDocument(report.figures).toJson());
    }
    qCInfo(lcBench).noquote() << "written to" << out;
    return 0;
}
