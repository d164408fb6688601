#include "ui/widgets/focusringstyle.h"

#include <QApplication>
#include <QComboBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStyleFactory>
#include <QTest>
#include <QToolButton>
#include <QVBoxLayout>

using namespace RetryLab::Ui;

namespace {

// The share of the widget's second row of pixels (away from the corners) drawn in the
// highlight colour: the ring covers the two outermost rows; no plain frame does.
double ringShare(QWidget *widget)
{
    const QImage image = widget->grab().toImage();
    const QColor highlight = widget->palette().color(QPalette::Active, QPalette::Highlight);
    int matching = 0;
    int total = 0;
    for (int x = 6; x < image.width() - 6; ++x) {
        ++total;
        matching += image.pixelColor(x, 1) == highlight ? 1 : 0;
    }
    return total > 0 ? double(matching) / total : 0.0;
}

} // namespace

class TestFocusRing : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void install_wrapsTheApplicationStyleOnce();
    void keyboardFocus_drawsTheRing_clickDoesNot();
};

void TestFocusRing::initTestCase()
{
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    FocusRingStyle::install();
}

void TestFocusRing::install_wrapsTheApplicationStyleOnce()
{
    auto *style = qobject_cast<FocusRingStyle *>(QApplication::style());
    QVERIFY(style);
    QCOMPARE(style->baseStyle()->name().toLower(), QStringLiteral("fusion"));
    FocusRingStyle::install();
    QCOMPARE(QApplication::style(), style);
}

void TestFocusRing::keyboardFocus_drawsTheRing_clickDoesNot()
{
    QWidget window;
    auto *layout = new QVBoxLayout(&window);
    auto *first = new QLineEdit(&window);
    auto *line = new QLineEdit(&window);
    auto *spin = new QSpinBox(&window);
    auto *combo = new QComboBox(&window);
    combo->addItems({QStringLiteral("full jitter"), QStringLiteral("no jitter")});
    auto *button = new QPushButton(QStringLiteral("Send"), &window);
    auto *tool = new QToolButton(&window);
    tool->setText(QStringLiteral("Fit"));
    tool->setFocusPolicy(Qt::StrongFocus);
    const QWidgetList fields{line, spin, combo, button, tool};
    layout->addWidget(first);
    for (QWidget *field : fields)
        layout->addWidget(field);
    window.resize(260, 260);
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    first->setFocus(Qt::OtherFocusReason);

    for (QWidget *field : fields) {
        const QByteArray name = field->metaObject()->className();
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        QTRY_COMPARE(QApplication::focusWidget() == field || field->isAncestorOf(QApplication::focusWidget()), true);
        QVERIFY2(window.testAttribute(Qt::WA_KeyboardFocusChange), name.constData());
        QVERIFY2(ringShare(field) > 0.9,
            QByteArray(name + " after Tab: " + QByteArray::number(ringShare(field))).constData());
        // Whatever does not have the focus shows no ring.
        QVERIFY2(ringShare(first) < 0.5, name.constData());
    }

    // Clicked into: focused, but no ring (the click shows where the focus went).
    QTest::mouseClick(line, Qt::LeftButton);
    QTRY_VERIFY(line->hasFocus());
    QVERIFY(!window.testAttribute(Qt::WA_KeyboardFocusChange));
    QVERIFY2(ringShare(line) < 0.5, QByteArray::number(ringShare(line)).constData());
}

QTEST_MAIN(TestFocusRing)
#include "tst_focusring.moc"
