#include "core/collections/dynamicvariables.h"

#include "core/util/clock.h"

#include <QDateTime>
#include <QRegularExpression>

namespace RetryLab::Core {

namespace {

// Group 1 is the name with its '$'. Spaces inside the braces as {{ name }} allows.
const QRegularExpression &dynamicReference()
{
    static const QRegularExpression reference(QStringLiteral("\\{\\{\\s*(\\$[A-Za-z][A-Za-z0-9]*)\\s*\\}\\}"));
    return reference;
}

QStringList dynWords(const char *spaceSeparated)
{
    return QString::fromLatin1(spaceSeparated).split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

// Small plain lists: enough variety for test data, nothing anyone could mistake for real people.
const QStringList &dynFirstNames()
{
    static const QStringList list = dynWords("Alice Bob Carol David Emma Frank Grace Henry Isla Jack Karen Liam Mia "
                                             "Noah Olivia Peter Quinn Rose Sam Tara Victor Wendy");
    return list;
}

const QStringList &dynLastNames()
{
    static const QStringList list = dynWords("Smith Jones Brown Taylor Wilson Clark Hall Lewis Walker Young King "
                                             "Wright Green Baker Adams Hill Scott Moore Carter Evans Turner Parker");
    return list;
}

const QStringList &dynCities()
{
    static const QStringList list = dynWords("Springfield Riverton Lakeside Fairview Greenville Kingston Milford "
                                             "Ashford Bridgeport Clayton Dover Easton Franklin Georgetown");
    return list;
}

const QStringList &dynCountries()
{
    static const QStringList list{QStringLiteral("Australia"), QStringLiteral("Brazil"), QStringLiteral("Canada"),
        QStringLiteral("Denmark"), QStringLiteral("Egypt"), QStringLiteral("France"), QStringLiteral("Germany"),
        QStringLiteral("India"), QStringLiteral("Japan"), QStringLiteral("Kenya"), QStringLiteral("Mexico"),
        QStringLiteral("Norway"), QStringLiteral("Portugal"), QStringLiteral("Spain"), QStringLiteral("Sweden"),
        QStringLiteral("New Zealand"), QStringLiteral("United Kingdom"), QStringLiteral("United States")};
    return list;
}

const QStringList &dynStreets()
{
    static const QStringList list = dynWords("Oak Maple Pine Cedar Elm Birch Willow Church Mill Park Station Hill");
    return list;
}

const QStringList &dynStreetKinds()
{
    static const QStringList list = dynWords("Street Avenue Road Lane Drive Way Court");
    return list;
}

const QStringList &dynCompanySuffixes()
{
    static const QStringList list = dynWords("Group Inc LLC Partners Labs Systems Holdings");
    return list;
}

const QStringList &dynProducts()
{
    static const QStringList list = dynWords("Chair Table Lamp Shirt Shoes Keyboard Mouse Bottle Backpack Clock "
                                             "Gloves Hat Towel Pillow Bicycle Computer");
    return list;
}

const QStringList &dynAdjectives()
{
    static const QStringList list = dynWords("Small Large Sleek Rustic Handmade Practical Modern Elegant Sturdy Soft");
    return list;
}

const QStringList &dynMaterials()
{
    static const QStringList list = dynWords("Wooden Steel Cotton Plastic Leather Granite Rubber Glass");
    return list;
}

const QStringList &dynColors()
{
    static const QStringList list = dynWords("red green blue yellow orange purple black white grey pink brown "
                                             "teal navy olive maroon silver");
    return list;
}

const QStringList &dynWordList()
{
    static const QStringList list = dynWords("apple river cloud stone garden window bridge forest candle harbor "
                                             "meadow pencil rocket signal thunder valley anchor basket copper "
                                             "lantern");
    return list;
}

const QStringList &dynLorem()
{
    static const QStringList list = dynWords("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod "
                                             "tempor incididunt ut labore et dolore magna aliqua enim minim veniam");
    return list;
}

const QStringList &dynJobLevels()
{
    static const QStringList list = dynWords("Senior Junior Lead Principal Chief Associate");
    return list;
}

const QStringList &dynJobAreas()
{
    static const QStringList list = dynWords("Data Product Security Marketing Finance Operations Research Support");
    return list;
}

const QStringList &dynJobKinds()
{
    static const QStringList list = dynWords("Engineer Analyst Manager Designer Consultant Architect Specialist");
    return list;
}

const QStringList &dynCurrencies()
{
    static const QStringList list = dynWords("USD EUR GBP JPY CHF CAD AUD NZD SEK NOK DKK CNY INR BRL MXN ZAR");
    return list;
}

const QStringList &dynTopLevelDomains()
{
    static const QStringList list = dynWords("com net org io info");
    return list;
}

const QStringList &dynNames()
{
    static const QStringList list = dynWords(
        "$guid $randomUUID $timestamp $isoTimestamp $randomInt $randomBoolean $randomFirstName $randomLastName "
        "$randomFullName $randomEmail $randomUserName $randomPhoneNumber $randomCity $randomCountry "
        "$randomStreetAddress $randomCompanyName $randomProduct $randomProductName $randomPrice $randomColor "
        "$randomWord $randomWords $randomLoremSentence $randomAlphaNumeric $randomHexColor $randomIP $randomUrl "
        "$randomDateFuture $randomDatePast $randomJobTitle $randomCurrencyCode");
    return list;
}

constexpr qint64 dynSecondsPerYear = 365LL * 24 * 3600;

} // namespace

DynamicVariables::DynamicVariables(quint64 seed, const Clock *clock)
    : m_random(seed), m_clock(clock ? clock : &SteadyClock::instance())
{ }

QStringList DynamicVariables::names()
{
    return dynNames();
}

bool DynamicVariables::isKnown(const QString &name)
{
    return dynNames().contains(name);
}

bool DynamicVariables::mentions(const QString &text)
{
    return text.contains(QLatin1String("{{")) && dynamicReference().match(text).hasMatch();
}

QString DynamicVariables::pick(const QStringList &list)
{
    return list.at(m_random.uniformInt(0, list.size() - 1));
}

QString DynamicVariables::uuid()
{
    // A version 4 UUID (RFC 9562): 122 random bits, the version and variant fixed.
    quint64 high = m_random.engine()();
    quint64 low = m_random.engine()();
    high = (high & ~0xF000ULL) | 0x4000ULL;
    low = (low & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;
    const QString hex = QStringLiteral("%1%2").arg(high, 16, 16, QLatin1Char('0')).arg(low, 16, 16, QLatin1Char('0'));
    return QStringList{hex.mid(0, 8), hex.mid(8, 4), hex.mid(12, 4), hex.mid(16, 4), hex.mid(20)}.join(
        QLatin1Char('-'));
}

std::optional<QString> DynamicVariables::value(const QString &name)
{
    const auto now = [this] { return m_clock->wallTime().toUTC(); };
    const auto digits = [this](int count) {
        QString out;
        for (int i = 0; i < count; ++i)
            out += QChar(char16_t(u'0' + m_random.uniformInt(0, 9)));
        return out;
    };
    if (name == QLatin1String("$guid") || name == QLatin1String("$randomUUID"))
        return uuid();
    if (name == QLatin1String("$timestamp"))
        return QString::number(now().toSecsSinceEpoch());
    if (name == QLatin1String("$isoTimestamp"))
        return now().toString(Qt::ISODateWithMs);
    if (name == QLatin1String("$randomInt"))
        return QString::number(m_random.uniformInt(0, 1000));
    if (name == QLatin1String("$randomBoolean"))
        return m_random.chance(0.5) ? QStringLiteral("true") : QStringLiteral("false");
    if (name == QLatin1String("$randomFirstName"))
        return pick(dynFirstNames());
    if (name == QLatin1String("$randomLastName"))
        return pick(dynLastNames());
    if (name == QLatin1String("$randomFullName")) {
        const QString first = pick(dynFirstNames());
        return first + QLatin1Char(' ') + pick(dynLastNames());
    }
    if (name == QLatin1String("$randomEmail")) {
        const QString first = pick(dynFirstNames()).toLower();
        const QString last = pick(dynLastNames()).toLower();
        const QString number = digits(2);
        // example.com/.org/.net are reserved for examples (RFC 2606): no mail reaches anyone.
        const QString domain = pick(dynWords("com org net"));
        return QString(first + QLatin1Char('.') + last + number + QStringLiteral("@example.") + domain);
    }
    if (name == QLatin1String("$randomUserName")) {
        const QString first = pick(dynFirstNames());
        const QString last = pick(dynLastNames());
        return QString(first + QLatin1Char('.') + last + digits(2));
    }
    if (name == QLatin1String("$randomPhoneNumber")) {
        const QString area = QString::number(m_random.uniformInt(200, 999));
        const QString exchange = digits(3);
        return QString(area + QLatin1Char('-') + exchange + QLatin1Char('-') + digits(4));
    }
    if (name == QLatin1String("$randomCity"))
        return pick(dynCities());
    if (name == QLatin1String("$randomCountry"))
        return pick(dynCountries());
    if (name == QLatin1String("$randomStreetAddress")) {
        const QString number = QString::number(m_random.uniformInt(1, 9999));
        const QString street = pick(dynStreets());
        return number + QLatin1Char(' ') + street + QLatin1Char(' ') + pick(dynStreetKinds());
    }
    if (name == QLatin1String("$randomCompanyName")) {
        const QString last = pick(dynLastNames());
        return last + QLatin1Char(' ') + pick(dynCompanySuffixes());
    }
    if (name == QLatin1String("$randomProduct"))
        return pick(dynProducts());
    if (name == QLatin1String("$randomProductName")) {
        const QString adjective = pick(dynAdjectives());
        const QString material = pick(dynMaterials());
        return adjective + QLatin1Char(' ') + material + QLatin1Char(' ') + pick(dynProducts());
    }
    if (name == QLatin1String("$randomPrice")) {
        const qint64 cents = m_random.uniformInt(100, 100000);
        return QStringLiteral("%1.%2").arg(cents / 100).arg(cents % 100, 2, 10, QLatin1Char('0'));
    }
    if (name == QLatin1String("$randomColor"))
        return pick(dynColors());
    if (name == QLatin1String("$randomWord"))
        return pick(dynWordList());
    if (name == QLatin1String("$randomWords")) {
        QStringList words;
        for (qint64 n = m_random.uniformInt(2, 4); n > 0; --n)
            words.append(pick(dynWordList()));
        return words.join(QLatin1Char(' '));
    }
    if (name == QLatin1String("$randomLoremSentence")) {
        QStringList words;
        for (qint64 n = m_random.uniformInt(4, 10); n > 0; --n)
            words.append(pick(dynLorem()));
        QString sentence = words.join(QLatin1Char(' ')) + QLatin1Char('.');
        sentence[0] = sentence.at(0).toUpper();
        return sentence;
    }
    if (name == QLatin1String("$randomAlphaNumeric")) {
        static const QString characters = QStringLiteral("abcdefghijklmnopqrstuvwxyz0123456789");
        return QString(characters.at(m_random.uniformInt(0, characters.size() - 1)));
    }
    if (name == QLatin1String("$randomHexColor"))
        return QStringLiteral("#%1").arg(m_random.uniformInt(0, 0xFFFFFF), 6, 16, QLatin1Char('0'));
    if (name == QLatin1String("$randomIP")) {
        QStringList octets;
        for (int i = 0; i < 4; ++i)
            octets.append(QString::number(m_random.uniformInt(i == 0 ? 1 : 0, 255)));
        return octets.join(QLatin1Char('.'));
    }
    if (name == QLatin1String("$randomUrl")) {
        const QString word = pick(dynWordList());
        return QStringLiteral("https://") + word + QLatin1Char('.') + pick(dynTopLevelDomains());
    }
    // Within a year of the clock's time, to the second, written as $isoTimestamp is.
    if (name == QLatin1String("$randomDateFuture"))
        return now().addSecs(m_random.uniformInt(60, dynSecondsPerYear)).toString(Qt::ISODateWithMs);
    if (name == QLatin1String("$randomDatePast"))
        return now().addSecs(-m_random.uniformInt(60, dynSecondsPerYear)).toString(Qt::ISODateWithMs);
    if (name == QLatin1String("$randomJobTitle")) {
        const QString level = pick(dynJobLevels());
        const QString area = pick(dynJobAreas());
        return level + QLatin1Char(' ') + area + QLatin1Char(' ') + pick(dynJobKinds());
    }
    if (name == QLatin1String("$randomCurrencyCode"))
        return pick(dynCurrencies());
    return std::nullopt;
}

QString DynamicVariables::expand(const QString &text, QStringList *unknown)
{
    if (!text.contains(QLatin1String("{{")))
        return text;
    QString out;
    qsizetype last = 0;
    for (auto it = dynamicReference().globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        out += QStringView(text).sliced(last, match.capturedStart() - last);
        const QString name = match.captured(1);
        if (const auto value = this->value(name)) {
            out += *value;
        } else {
            out += match.captured(0);
            if (unknown && !unknown->contains(name))
                unknown->append(name);
        }
        last = match.capturedEnd();
    }
    out += QStringView(text).sliced(last);
    return out;
}

} // namespace RetryLab::Core
