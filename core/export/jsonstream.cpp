#include "core/export/jsonstream.h"

#include <QBuffer>
#include <QIODevice>
#include <QJsonDocument>

#include <algorithm>

namespace RetryLab::Core::JsonStream {

namespace {

// Where an empty array at `path` sits in the indented text of the skeleton:
// the offset of its "[" and of the "]" that closes it.
struct Slot
{
    qsizetype open = -1;
    qsizetype close = -1;
    const StreamedArray *array = nullptr;
    int depth = 0;
};

Slot find(const QByteArray &text, const StreamedArray &array)
{
    // Qt writes a member at depth d with 4 * d spaces and an empty array as "[\n" + its indent + "]".
    Slot slot;
    slot.array = &array;
    slot.depth = int(array.path.size());
    qsizetype from = 0;
    for (int level = 1; level <= slot.depth; ++level) {
        const QByteArray indent(4 * level, ' ');
        const QByteArray key = '\n' + indent + '"' + array.path.at(level - 1).toUtf8() + "\": ";
        const qsizetype at = text.indexOf(key, from);
        if (at < 0)
            return {};
        from = at + key.size();
    }
    const QByteArray empty = "[\n" + QByteArray(4 * slot.depth, ' ') + ']';
    if (text.mid(from, empty.size()) != empty)
        return {};
    slot.open = from;
    slot.close = from + empty.size() - 1;
    return slot;
}

bool writeAll(QIODevice &device, QByteArrayView bytes)
{
    return device.write(bytes.data(), bytes.size()) == bytes.size();
}

} // namespace

bool write(QIODevice &device, const QJsonObject &skeleton, const QList<StreamedArray> &arrays)
{
    const QByteArray text = QJsonDocument(skeleton).toJson(QJsonDocument::Indented);
    QList<Slot> slots;
    for (const StreamedArray &array : arrays) {
        const Slot slot = find(text, array);
        if (slot.open < 0)
            return false; // not in the skeleton as an empty array: a programming error
        slots.append(slot);
    }
    std::sort(slots.begin(), slots.end(), [](const Slot &a, const Slot &b) { return a.open < b.open; });

    qsizetype done = 0;
    for (const Slot &slot : std::as_const(slots)) {
        if (!writeAll(device, QByteArrayView(text).sliced(done, slot.open + 1 - done))) // through "["
            return false;
        const QByteArray indent(4 * (slot.depth + 1), ' ');
        bool first = true;
        const bool produced = slot.array->produce([&](const QJsonObject &element) {
            QByteArray json = QJsonDocument(element).toJson(QJsonDocument::Indented);
            json.chop(1); // the document's final line feed
            QByteArray out = first ? QByteArray("\n") : QByteArray(",\n");
            out.reserve(json.size() + json.count('\n') * indent.size() + indent.size() + 2);
            out += indent;
            for (const char c : std::as_const(json)) {
                out += c;
                if (c == '\n')
                    out += indent;
            }
            first = false;
            return writeAll(device, out);
        });
        if (!produced)
            return false;
        // "\n" + the array's indent + "]", as for the empty array (whose "[\n" is already written).
        const QByteArray closing = (first ? QByteArray() : QByteArray("\n")) + QByteArray(4 * slot.depth, ' ') + ']';
        if (!writeAll(device, first ? QByteArray("\n") + closing : closing))
            return false;
        done = slot.close + 1;
    }
    return writeAll(device, QByteArrayView(text).sliced(done));
}

QByteArray toJson(const QJsonObject &skeleton, const QList<StreamedArray> &arrays)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!write(buffer, skeleton, arrays))
        return {};
    return bytes;
}

} // namespace RetryLab::Core::JsonStream
