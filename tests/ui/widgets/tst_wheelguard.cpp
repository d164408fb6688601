#include "ui/widgets/unitspinbox.h"
#include "ui/widgets/wheelguard.h"

#include <QApplication>
#include <QComboBox>
#include <QDateTimeEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSlider>
#include <QSpinBox>
#include <QTest>
#include <QVBoxLayout>
#include <QWheelEvent>

using namespace RetryLab::Ui;

namespace {

// One notch of a mouse wheel turned towards the user (scrolls down).
void turnWheel(QWidget *widget)
{
    const QPointF local(widget->width() / 2.0, widget->height() / 2.0);
    QWheelEvent wheel(local, widget->mapToGlobal(local), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
        Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(widget, &wheel);
}

// A form taller than its scroll area, a field of every guarded kind in the middle.
struct Form
{
    Form()
    {
        auto *content = new QWidget;
        auto *layout = new QVBoxLayout(content);
        layout->addSpacing(400);
        spin = new QSpinBox;
        spin->setRange(0, 1000);
        spin->setValue(200);
        unit = new UnitSpinBox(1.0, QStringLiteral("ms"), 0);
        unit->setRange(0.0, 1e6);
        unit->setValue(2000.0);
        combo = new QComboBox;
        combo->addItems({QStringLiteral("full"), QStringLiteral("equal"), QStringLiteral("none")});
        slider = new QSlider(Qt::Horizontal);
        slider->setRange(0, 100);
        slider->setValue(50);
        date = new QDateTimeEdit(QDateTime(QDate(2026, 1, 1), QTime(12, 0)));
        for (QWidget *field : {static_cast<QWidget *>(spin), static_cast<QWidget *>(unit),
                 static_cast<QWidget *>(combo), static_cast<QWidget *>(slider), static_cast<QWidget *>(date)})
            layout->addWidget(field);
        layout->addSpacing(1200);
        area.setWidget(content);
        area.setWidgetResizable(true);
        area.resize(300, 300);
        area.verticalScrollBar()->setValue(200);
    }

    QWidgetList fields() const { return {spin, unit, combo, slider, date}; }

    QScrollArea area;
    QSpinBox *spin;
    UnitSpinBox *unit;
    QComboBox *combo;
    QSlider *slider;
    QDateTimeEdit *date;
};

} // namespace

class TestWheelGuard : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void unfocused_keepsItsValue_andTheFormScrolls();
    void focused_takesTheWheel();
    void focusPolicy_isStrong_soTheWheelGivesNoFocus();
    void scrollBarsAndPlainWidgets_areLeftAlone();
    void install_twice_installsOnce();
};

void TestWheelGuard::initTestCase()
{
    WheelGuard::install();
}

void TestWheelGuard::unfocused_keepsItsValue_andTheFormScrolls()
{
    Form form;
    form.area.show();
    QVERIFY(QTest::qWaitForWindowExposed(&form.area));
    const QDateTime date = form.date->dateTime();
    if (QWidget *focused = QApplication::focusWidget())
        focused->clearFocus();
    for (QWidget *field : form.fields()) {
        QVERIFY2(!field->hasFocus(), field->metaObject()->className());
        const int before = form.area.verticalScrollBar()->value();
        turnWheel(field);
        QVERIFY2(form.area.verticalScrollBar()->value() > before, field->metaObject()->className());
    }
    QCOMPARE(form.spin->value(), 200);
    QCOMPARE(form.unit->value(), 2000.0);
    QCOMPARE(form.combo->currentIndex(), 0);
    QCOMPARE(form.slider->value(), 50);
    QCOMPARE(form.date->dateTime(), date);
}

void TestWheelGuard::focused_takesTheWheel()
{
    Form form;
    form.area.show();
    form.area.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&form.area));
    form.spin->setFocus();
    QTRY_VERIFY(form.spin->hasFocus());
    const int scrolled = form.area.verticalScrollBar()->value();
    turnWheel(form.spin);
    QCOMPARE(form.spin->value(), 199);
    QCOMPARE(form.area.verticalScrollBar()->value(), scrolled);

    form.combo->setFocus();
    QTRY_VERIFY(form.combo->hasFocus());
    turnWheel(form.combo);
    QCOMPARE(form.combo->currentIndex(), 1);
    QCOMPARE(form.spin->value(), 199);
}

void TestWheelGuard::focusPolicy_isStrong_soTheWheelGivesNoFocus()
{
    Form form;
    form.area.show();
    QVERIFY(QTest::qWaitForWindowExposed(&form.area));
    for (QWidget *field : form.fields())
        QCOMPARE(field->focusPolicy(), Qt::StrongFocus);
}

void TestWheelGuard::scrollBarsAndPlainWidgets_areLeftAlone()
{
    QScrollBar bar(Qt::Vertical);
    QWidget plain;
    QSlider slider;
    QVERIFY(!WheelGuard::guards(&bar));
    QVERIFY(!WheelGuard::guards(&plain));
    QVERIFY(!WheelGuard::guards(nullptr));
    QVERIFY(WheelGuard::guards(&slider));

    // An unfocused scroll bar still scrolls under the wheel.
    bar.setRange(0, 100);
    bar.resize(20, 200);
    bar.show();
    QVERIFY(QTest::qWaitForWindowExposed(&bar));
    turnWheel(&bar);
    QVERIFY(bar.value() > 0);
}

void TestWheelGuard::install_twice_installsOnce()
{
    WheelGuard::install();
    WheelGuard::install();
    QCOMPARE(QCoreApplication::instance()->findChildren<WheelGuard *>(QString(), Qt::FindDirectChildrenOnly).size(), 1);
}

QTEST_MAIN(TestWheelGuard)
#include "tst_wheelguard.moc"
