#include "incidentfixtures.h"
#include "ui/monitor/incidentfilter.h"
#include "ui/monitor/incidentlistmodel.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QSignalSpy>
#include <QTest>

using namespace RetryLab;
using Ui::IncidentFilter;
using Ui::IncidentListModel;

namespace {

const qint64 dayStart = QDateTime(QDate(2026, 11, 1), QTime(0, 0), QTimeZone::utc()).toMSecsSinceEpoch();

QStringList column(const QAbstractItemModel &model, int column)
{
    QStringList values;
    for (int row = 0; row < model.rowCount(); ++row)
        values.append(model.index(row, column).data().toString());
    return values;
}

} // namespace

class TestIncidentListModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void rows_showEveryColumnInWords();
    void acknowledge_byCheckbox_emitsKeyAndState_setAcknowledgedEmitsNothing();
    void csv_quotesCommasQuotesAndLineBreaks_andDefusesFormulas();
    void csv_ofNothing_isTheHeaderRow();
    void filter_textMonitorHiddenAndUnacknowledged();
    void filter_unacknowledgedOnly_dropsARowWhenItIsAcknowledged();
    void sort_byStartAndDuration_asNumbers_ongoingLongest();

private:
    IncidentListModel *m_model = nullptr;
    QAbstractItemModelTester *m_tester = nullptr;
};

void TestIncidentListModel::init()
{
    m_model = new IncidentListModel;
    m_tester = new QAbstractItemModelTester(m_model, QAbstractItemModelTester::FailureReportingMode::QtTest, m_model);
    m_model->setTimeZone(QTimeZone::utc());
    m_model->setIncidents(Fixtures::threeIncidents(dayStart));
}

void TestIncidentListModel::cleanup()
{
    delete m_model;
    m_model = nullptr;
}

void TestIncidentListModel::rows_showEveryColumnInWords()
{
    QCOMPARE(m_model->rowCount(), 3);
    QCOMPARE(m_model->columnCount(), int(IncidentListModel::ColumnCount));
    QCOMPARE(column(*m_model, IncidentListModel::MonitorColumn),
        (QStringList{QStringLiteral("api"), QStringLiteral("api"), QStringLiteral("billing")}));
    QCOMPARE(
        m_model->index(0, IncidentListModel::StartColumn).data().toString(), QStringLiteral("2026-11-01 10:00:00"));
    QCOMPARE(m_model->index(0, IncidentListModel::DurationColumn).data().toString(), QStringLiteral("5 min"));
    QCOMPARE(m_model->index(2, IncidentListModel::DurationColumn).data().toString(), QStringLiteral("ongoing"));
    QVERIFY(m_model->index(2, IncidentListModel::DurationColumn)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QLatin1String("3 min")));
    QCOMPARE(m_model->index(1, IncidentListModel::AttemptsColumn).data().toString(), QStringLiteral("20 / 8"));
    QCOMPARE(column(*m_model, IncidentListModel::KindColumn),
        (QStringList{QStringLiteral("seen"), QStringLiteral("hidden"), QStringLiteral("seen")}));
    QCOMPARE(m_model->index(0, IncidentListModel::FirstErrorColumn).data().toString(), QStringLiteral("HTTP 503"));
    QCOMPARE(
        m_model->index(0, IncidentListModel::LastErrorColumn).data().toString(), QStringLiteral("connection refused"));
    QCOMPARE(
        m_model->index(0, IncidentListModel::AcknowledgedColumn).data(Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
    QVERIFY(m_model->flags(m_model->index(0, IncidentListModel::AcknowledgedColumn)) & Qt::ItemIsUserCheckable);
    QVERIFY(!(m_model->flags(m_model->index(0, IncidentListModel::MonitorColumn)) & Qt::ItemIsUserCheckable));
    QCOMPARE(m_model->headerData(IncidentListModel::KindColumn, Qt::Horizontal).toString(),
        QStringLiteral("Hidden or seen"));
    QCOMPARE(
        IncidentListModel::key(m_model->incidents().at(0)), QStringLiteral("api|a1|%1").arg(dayStart + 600 * 60'000));
}

void TestIncidentListModel::acknowledge_byCheckbox_emitsKeyAndState_setAcknowledgedEmitsNothing()
{
    QSignalSpy changed(m_model, &IncidentListModel::acknowledgementChanged);
    const QModelIndex cell = m_model->index(1, IncidentListModel::AcknowledgedColumn);
    QVERIFY(m_model->setData(cell, Qt::Checked, Qt::CheckStateRole));
    QCOMPARE(changed.size(), 1);
    const QString key = IncidentListModel::key(m_model->incidents().at(1));
    QCOMPARE(changed.first().at(0).toString(), key);
    QCOMPARE(changed.first().at(1).toBool(), true);
    QCOMPARE(cell.data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
    QCOMPARE(cell.data().toString(), QStringLiteral("yes"));
    QVERIFY(m_model->acknowledged().contains(key));
    QVERIFY(m_model->setData(cell, Qt::Unchecked, Qt::CheckStateRole));
    QCOMPARE(changed.size(), 2);
    QCOMPARE(changed.last().at(1).toBool(), false);
    QVERIFY(!m_model->setData(m_model->index(1, IncidentListModel::MonitorColumn), Qt::Checked, Qt::CheckStateRole));

    m_model->setAcknowledged({IncidentListModel::key(m_model->incidents().at(0))});
    QCOMPARE(changed.size(), 2);
    QCOMPARE(
        m_model->index(0, IncidentListModel::AcknowledgedColumn).data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
}

void TestIncidentListModel::csv_quotesCommasQuotesAndLineBreaks_andDefusesFormulas()
{
    const QList<Core::Incident> incidents = Fixtures::threeIncidents(dayStart);
    const QByteArray csv = IncidentListModel::toCsv(incidents, {IncidentListModel::key(incidents.at(1))});
    const QList<QByteArray> lines = csv.split('\n');
    QCOMPARE(lines.first(),
        QByteArrayLiteral("monitor,agent,start_utc,end_utc,duration_ms,ongoing,checks,attempts,"
                          "failed_attempts,kind,first_error,last_error,acknowledged\r"));
    QVERIFY(csv.endsWith("\r\n"));
    QVERIFY2(csv.contains("api,a1,2026-11-01T10:00:00.000Z,2026-11-01T10:05:00.000Z,300000,false,30,90,90,seen,"
                          "HTTP 503,connection refused,false\r\n"),
        csv.constData());
    QVERIFY2(csv.contains("api,a2,2026-11-01T09:00:00.000Z,2026-11-01T09:02:00.000Z,120000,false,12,20,8,hidden,"
                          "\"timeout, after 5 s\",\"said \"\"no\"\"\",true\r\n"),
        csv.constData());
    QVERIFY2(csv.contains("billing,a1,2026-11-01T11:00:00.000Z,,180000,true,18,54,54,seen,'=cmd|' /C calc'!A0,"
                          "\"line one\nline two\",false\r\n"),
        csv.constData());
}

void TestIncidentListModel::csv_ofNothing_isTheHeaderRow()
{
    const QByteArray csv = IncidentListModel::toCsv({}, {});
    QCOMPARE(csv.count('\n'), 1);
    QVERIFY(csv.startsWith("monitor,agent,"));
}

void TestIncidentListModel::filter_textMonitorHiddenAndUnacknowledged()
{
    IncidentFilter filter;
    QAbstractItemModelTester tester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
    filter.setSourceModel(m_model);
    QCOMPARE(filter.rowCount(), 3);
    filter.setText(QStringLiteral("REFUSED"));
    QCOMPARE(column(filter, IncidentListModel::LastErrorColumn), QStringList{QStringLiteral("connection refused")});
    filter.setText(QStringLiteral("a2"));
    QCOMPARE(filter.rowCount(), 1);
    filter.setText({});
    filter.setMonitor(QStringLiteral("billing"));
    QCOMPARE(column(filter, IncidentListModel::MonitorColumn), QStringList{QStringLiteral("billing")});
    filter.setMonitor({});
    filter.setHiddenOnly(true);
    QCOMPARE(column(filter, IncidentListModel::KindColumn), QStringList{QStringLiteral("hidden")});
    filter.setHiddenOnly(false);
    m_model->setAcknowledged({IncidentListModel::key(m_model->incidents().at(0))});
    filter.setUnacknowledgedOnly(true);
    QCOMPARE(filter.rowCount(), 2);
    filter.setMonitor(QStringLiteral("api"));
    QCOMPARE(column(filter, IncidentListModel::AgentColumn), QStringList{QStringLiteral("a2")});
}

void TestIncidentListModel::filter_unacknowledgedOnly_dropsARowWhenItIsAcknowledged()
{
    IncidentFilter filter;
    QAbstractItemModelTester tester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
    filter.setSourceModel(m_model);
    filter.setUnacknowledgedOnly(true);
    QCOMPARE(filter.rowCount(), 3);
    QVERIFY(
        m_model->setData(m_model->index(2, IncidentListModel::AcknowledgedColumn), Qt::Checked, Qt::CheckStateRole));
    QCOMPARE(filter.rowCount(), 2);
    QVERIFY(!column(filter, IncidentListModel::MonitorColumn).contains(QStringLiteral("billing")));
}

void TestIncidentListModel::sort_byStartAndDuration_asNumbers_ongoingLongest()
{
    IncidentFilter filter;
    QAbstractItemModelTester tester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
    filter.setSourceModel(m_model);
    filter.sort(IncidentListModel::StartColumn, Qt::AscendingOrder);
    QCOMPARE(column(filter, IncidentListModel::AgentColumn),
        (QStringList{QStringLiteral("a2"), QStringLiteral("a1"), QStringLiteral("a1")}));
    QCOMPARE(filter.index(2, IncidentListModel::MonitorColumn).data().toString(), QStringLiteral("billing"));
    filter.sort(IncidentListModel::DurationColumn, Qt::DescendingOrder);
    QCOMPARE(column(filter, IncidentListModel::DurationColumn),
        (QStringList{QStringLiteral("ongoing"), QStringLiteral("5 min"), QStringLiteral("2 min")}));
}

QTEST_MAIN(TestIncidentListModel)
#include "tst_incidentlistmodel.moc"
