#include "core/util/variablesubstitution.h"

#include <QTest>

using namespace RetryLab::Core;
namespace VS = RetryLab::Core::VariableSubstitution;

Q_DECLARE_METATYPE(RetryLab::Core::VariableSubstitution::Rules)

namespace {

using Values = QHash<QString, QString>;

constexpr VS::Rules retryLab{VS::Names::Strict, VS::Nesting::None};
constexpr VS::Rules postman{VS::Names::Loose, VS::Nesting::OneLevel};

} // namespace

class TestVariableSubstitution : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void substitute_followsItsRules_data();
    void substitute_followsItsRules();
    void substitute_withoutUnresolvedList_stillSubstitutes();
    void referencedNames_inOrderEachOnce();
    void isValidName_data();
    void isValidName();
};

void TestVariableSubstitution::substitute_followsItsRules_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<Values>("values");
    QTest::addColumn<VS::Rules>("rules");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<QStringList>("unresolved");

    const Values base{{QStringLiteral("base"), QStringLiteral("https://api.test")}};
    QTest::addRow("no braces: as it is") << QStringLiteral("{server}/x?key={id}") << base << retryLab
                                         << QStringLiteral("{server}/x?key={id}") << QStringList{};
    QTest::addRow("a name") << QStringLiteral("{{base}}/v1") << base << retryLab
                            << QStringLiteral("https://api.test/v1") << QStringList{};
    QTest::addRow("spaces inside the braces") << QStringLiteral("{{ base }}/v1") << base << retryLab
                                              << QStringLiteral("https://api.test/v1") << QStringList{};
    QTest::addRow("undefined: kept and named once")
        << QStringLiteral("{{token}} {{base}} {{token}} {{other}}") << base << retryLab
        << QStringLiteral("{{token}} https://api.test {{token}} {{other}}")
        << QStringList{QStringLiteral("token"), QStringLiteral("other")};
    QTest::addRow("strict: not a name, not a reference")
        << QStringLiteral("{{$guid}} {{a b}} {{1x}}") << Values{} << retryLab
        << QStringLiteral("{{$guid}} {{a b}} {{1x}}") << QStringList{};
    QTest::addRow("strict: a value is inserted as it is")
        << QStringLiteral("{{a}}")
        << Values{{QStringLiteral("a"), QStringLiteral("{{b}}/{server}")}, {QStringLiteral("b"), QStringLiteral("x")}}
        << retryLab << QStringLiteral("{{b}}/{server}") << QStringList{};
    QTest::addRow("loose: anything between the braces")
        << QStringLiteral("{{$guid}} {{ c }}") << Values{{QStringLiteral("c"), QStringLiteral("x")}} << postman
        << QStringLiteral("{{$guid}} {{ c }}") << QStringList{QStringLiteral("$guid"), QStringLiteral(" c ")};
    QTest::addRow("loose: a name with a space")
        << QStringLiteral("{{base url}}/x") << Values{{QStringLiteral("base url"), QStringLiteral("https://h")}}
        << postman << QStringLiteral("https://h/x") << QStringList{};
    // b's {{a}} and {{c2}} resolve; c2's own {{a}} would be a second level.
    QTest::addRow("one level: a value's references once more")
        << QStringLiteral("{{b}}")
        << Values{{QStringLiteral("a"), QStringLiteral("A")}, {QStringLiteral("b"), QStringLiteral("{{a}}+{{c2}}")},
               {QStringLiteral("c2"), QStringLiteral("{{a}}")}}
        << postman << QStringLiteral("A+{{a}}") << QStringList{QStringLiteral("a")};
    QTest::addRow("one level: undefined inside a value")
        << QStringLiteral("{{b}}") << Values{{QStringLiteral("b"), QStringLiteral("{{nowhere}}")}} << postman
        << QStringLiteral("{{nowhere}}") << QStringList{QStringLiteral("nowhere")};
    QTest::addRow("strict names, one level")
        << QStringLiteral("{{a}}")
        << Values{{QStringLiteral("a"), QStringLiteral("{{ b }}")}, {QStringLiteral("b"), QStringLiteral("x")}}
        << VS::Rules{VS::Names::Strict, VS::Nesting::OneLevel} << QStringLiteral("x") << QStringList{};
    QTest::addRow("unbalanced braces stay") << QStringLiteral("{{base} {base}} {{{base}}}") << base << retryLab
                                            << QStringLiteral("{{base} {base}} {https://api.test}") << QStringList{};
}

void TestVariableSubstitution::substitute_followsItsRules()
{
    QFETCH(QString, text);
    QFETCH(Values, values);
    QFETCH(VS::Rules, rules);
    QFETCH(QString, expected);
    QFETCH(QStringList, unresolved);
    QStringList left;
    QCOMPARE(VS::substitute(text, values, &left, rules), expected);
    QCOMPARE(left, unresolved);
}

void TestVariableSubstitution::substitute_withoutUnresolvedList_stillSubstitutes()
{
    const Values values{{QStringLiteral("a"), QStringLiteral("1")}};
    QCOMPARE(VS::substitute(QStringLiteral("{{a}}-{{b}}"), values), QStringLiteral("1-{{b}}"));
    QCOMPARE(VS::substitute(QStringLiteral("{{a}}-{{$b}}"), values, nullptr, postman), QStringLiteral("1-{{$b}}"));
}

void TestVariableSubstitution::referencedNames_inOrderEachOnce()
{
    const QString text = QStringLiteral("{{b}} {{ a }} {{b}} {{$guid}} {{a}}");
    QCOMPARE(VS::referencedNames(text), (QStringList{QStringLiteral("b"), QStringLiteral("a")}));
    QCOMPARE(VS::referencedNames(text, VS::Names::Loose),
        (QStringList{QStringLiteral("b"), QStringLiteral(" a "), QStringLiteral("$guid"), QStringLiteral("a")}));
    QCOMPARE(VS::referencedNames(QStringLiteral("no references")), QStringList{});
}

void TestVariableSubstitution::isValidName_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("valid");
    QTest::addRow("word") << QStringLiteral("token") << true;
    QTest::addRow("dots, dashes, digits") << QStringLiteral("_api.key-2") << true;
    QTest::addRow("200 characters") << QString(200, QLatin1Char('a')) << true;
    QTest::addRow("201 characters") << QString(201, QLatin1Char('a')) << false;
    QTest::addRow("empty") << QString() << false;
    QTest::addRow("starts with a digit") << QStringLiteral("1a") << false;
    QTest::addRow("a space") << QStringLiteral("a b") << false;
    QTest::addRow("Postman's dynamic variable") << QStringLiteral("$guid") << false;
}

void TestVariableSubstitution::isValidName()
{
    QFETCH(QString, name);
    QFETCH(bool, valid);
    QCOMPARE(VS::isValidName(name), valid);
}

QTEST_GUILESS_MAIN(TestVariableSubstitution)
#include "tst_variablesubstitution.moc"
