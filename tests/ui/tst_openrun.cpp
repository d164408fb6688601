#include <QTest>
class TestOpenRun : public QObject { Q_OBJECT };
QTEST_MAIN(TestOpenRun)
#include "tst_openrun.moc"
