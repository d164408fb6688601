#pragma once

#include <QtGlobal>

#include <memory>
#include <vector>

namespace RetryLab::Ui {

/// An append-only array in fixed chunks of 2^ChunkBits elements. Growing it never
/// moves what is stored, so a live run of a million rows has no pause in which
/// tens of megabytes are copied, and never needs twice its size while growing.
template<typename T, int ChunkBits = 16>
class ChunkedVector final
{
public:
    static constexpr qsizetype chunkSize = qsizetype(1) << ChunkBits;

    qsizetype size() const { return m_size; }
    bool isEmpty() const { return m_size == 0; }

    const T &operator[](qsizetype i) const
    {
        return m_chunks[std::size_t(i >> ChunkBits)][std::size_t(i & (chunkSize - 1))];
    }
    T &operator[](qsizetype i) { return m_chunks[std::size_t(i >> ChunkBits)][std::size_t(i & (chunkSize - 1))]; }

    T &append(const T &value)
    {
        if ((m_size & (chunkSize - 1)) == 0 && (m_size >> ChunkBits) == qsizetype(m_chunks.size()))
            m_chunks.push_back(std::make_unique<T[]>(std::size_t(chunkSize)));
        T &slot = (*this)[m_size];
        slot = value;
        ++m_size;
        return slot;
    }

    void clear()
    {
        m_chunks.clear();
        m_size = 0;
    }

    /// Bytes held, including the unused tail of the last chunk.
    qsizetype capacityBytes() const { return qsizetype(m_chunks.size()) * chunkSize * qsizetype(sizeof(T)); }

private:
    std::vector<std::unique_ptr<T[]>> m_chunks;
    qsizetype m_size = 0;
};

} // namespace RetryLab::Ui
