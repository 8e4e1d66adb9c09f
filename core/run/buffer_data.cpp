// Buffer contents for runs: generators, poison checks, digests and comparisons.
#include "core/run/buffer_data.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <system_error>
#include <thread>
#include <limits>

namespace lowerscope {

uint16_t floatToHalf(float v) {
    uint32_t x = std::bit_cast<uint32_t>(v);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) {  // inf or NaN
        return static_cast<uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u));
    }
    if (absx >= 0x477ff000u) {  // rounds to >= 65520: overflow to inf
        return static_cast<uint16_t>(sign | 0x7c00u);
    }
    if (absx < 0x38800000u) {   // below the smallest normal half: subnormal or zero
        if (absx < 0x33000000u) {
            return static_cast<uint16_t>(sign);
        }
        uint32_t mant = (absx & 0x007fffffu) | 0x00800000u;
        int shift = 126 - static_cast<int>(absx >> 23);  // 14..24
        uint32_t rounded = mant >> (shift);
        uint32_t rem = mant & ((1u << shift) - 1u);
        uint32_t half = 1u << (shift - 1);
        if (rem > half || (rem == half && (rounded & 1u))) {
            ++rounded;
        }
        return static_cast<uint16_t>(sign | rounded);
    }
    uint32_t exp = (absx >> 23) - 112;  // rebias 127 → 15
    uint32_t mant = absx & 0x007fffffu;
    uint32_t h = (exp << 10) | (mant >> 13);
    uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) {
        ++h;  // may carry into the exponent, which is the right result
    }
    return static_cast<uint16_t>(sign | h);
}

float halfToFloat(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0) {
        float f = std::ldexp(static_cast<float>(mant), -24);
        return sign ? -f : f;
    }
    if (exp == 31) {
        return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
    }
    return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t floatToBfloat16(float v) {
    uint32_t x = std::bit_cast<uint32_t>(v);
    if ((x & 0x7fffffffu) > 0x7f800000u) {
        return static_cast<uint16_t>((x >> 16) | 0x40u);
    }
    uint32_t lsb = (x >> 16) & 1u;
    x += 0x7fffu + lsb;
    return static_cast<uint16_t>(x >> 16);
}

float bfloat16ToFloat(uint16_t h) { return std::bit_cast<float>(static_cast<uint32_t>(h) << 16); }

namespace {

// SplitMix64 finaliser: a good 64-bit mix, so element i's value depends only on (seed, i).
inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

template <typename T>
void put(std::vector<uint8_t>& out, int64_t i, T v) {
    std::memcpy(out.data() + i * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
}

void storeValue(std::vector<uint8_t>& out, ElemType type, int64_t i, double v, uint64_t bits) {
    switch (type) {
    case ElemType::F16: put<uint16_t>(out, i, floatToHalf(static_cast<float>(v))); break;
    case ElemType::BF16: put<uint16_t>(out, i, floatToBfloat16(static_cast<float>(v))); break;
    case ElemType::F32: put<float>(out, i, static_cast<float>(v)); break;
    case ElemType::F64: put<double>(out, i, v); break;
    case ElemType::I8: put<int8_t>(out, i, static_cast<int8_t>(static_cast<int64_t>(v))); break;
    case ElemType::U8: put<uint8_t>(out, i, static_cast<uint8_t>(static_cast<int64_t>(v))); break;
    case ElemType::I32: put<int32_t>(out, i, static_cast<int32_t>(static_cast<int64_t>(v))); break;
    case ElemType::U32: put<uint32_t>(out, i, static_cast<uint32_t>(static_cast<int64_t>(v))); break;
    case ElemType::I64: put<int64_t>(out, i, static_cast<int64_t>(v)); break;
    case ElemType::U64: put<uint64_t>(out, i, bits ? bits : static_cast<uint64_t>(static_cast<int64_t>(v))); break;
    }
}

} // namespace

std::vector<uint8_t> makeBufferData(ElemType type, int64_t count, const BufferInit& init) {
    const int size = elemSize(type);
    std::vector<uint8_t> out(static_cast<size_t>(std::max<int64_t>(count, 0)) * size, 0);
    if (init.kind == InitKind::Zeros || count <= 0) {
        return out;
    }
    const uint64_t key = mix64(init.seed + 0x9e3779b97f4a7c15ULL);
    // Element i depends only on (init, i): large buffers are filled by several threads (a runner
    // makes 2 × 16 M random floats in about 20 ms instead of 150 ms), with the same bytes.
    auto fill = [&](int64_t from, int64_t to) {
        for (int64_t i = from; i < to; ++i) {
            double v = 0;
            switch (init.kind) {
            case InitKind::Zeros: break;
            case InitKind::Ones: v = 1; break;
            case InitKind::Iota: v = static_cast<double>(i); break;
            case InitKind::Const: v = init.value; break;
            case InitKind::Random: {
                const uint64_t draw = static_cast<uint64_t>(init.run > 1 ? i / init.run : i); // runs share a value
                uint64_t r = mix64(key ^ (draw * 0xd1b54a32d192ed03ULL));
                if (isFloatType(type)) {
                    // 24 (f32 and narrower) or 53 (f64) random bits: exactly representable, in [-1, 1).
                    v = type == ElemType::F64 ? std::ldexp(static_cast<double>(r >> 11), -52) - 1.0
                                              : std::ldexp(static_cast<double>(r >> 40), -23) - 1.0;
                } else if (type == ElemType::I8 || type == ElemType::I32 || type == ElemType::I64) {
                    v = static_cast<double>(static_cast<int64_t>(r >> 56) - 128);
                } else {
                    v = static_cast<double>(r >> 56);
                }
                break;
            }
            }
            storeValue(out, type, i, v, 0);
        }
    };
    constexpr int64_t kPerThread = int64_t(1) << 20;
    const int64_t threads = std::clamp<int64_t>(count / kPerThread, 1, std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, 16));
    if (threads == 1) {
        fill(0, count);
        return out;
    }
    std::vector<std::thread> workers;
    const int64_t chunk = (count + threads - 1) / threads;
    try {
        for (int64_t t = 1; t < threads; ++t)
            workers.emplace_back(fill, std::min(count, t * chunk), std::min(count, (t + 1) * chunk));
    } catch (const std::system_error&) { // no more threads: this one does the rest
        for (int64_t t = static_cast<int64_t>(workers.size()) + 1; t < threads; ++t)
            fill(std::min(count, t * chunk), std::min(count, (t + 1) * chunk));
    }
    fill(0, std::min(count, chunk));
    for (std::thread& w : workers) w.join();
    return out;
}

double elementAsDouble(ElemType type, const uint8_t* data, int64_t i) {
    auto get = [&](auto tag) {
        using T = decltype(tag);
        T v;
        std::memcpy(&v, data + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
        return v;
    };
    switch (type) {
    case ElemType::F16: return halfToFloat(get(uint16_t{}));
    case ElemType::BF16: return bfloat16ToFloat(get(uint16_t{}));
    case ElemType::F32: return get(float{});
    case ElemType::F64: return get(double{});
    case ElemType::I8: return get(int8_t{});
    case ElemType::U8: return get(uint8_t{});
    case ElemType::I32: return get(int32_t{});
    case ElemType::U32: return get(uint32_t{});
    case ElemType::I64: return static_cast<double>(get(int64_t{}));
    case ElemType::U64: return static_cast<double>(get(uint64_t{}));
    }
    return 0;
}

int64_t countPoisoned(const std::vector<uint8_t>& data, int elemBytes, uint8_t pattern,
                      std::vector<bool>* stillPoisoned) {
    if (elemBytes <= 0) {
        return 0;
    }
    const int64_t n = static_cast<int64_t>(data.size()) / elemBytes;
    const bool combine = stillPoisoned && static_cast<int64_t>(stillPoisoned->size()) == n;
    if (stillPoisoned && !combine) {
        stillPoisoned->assign(static_cast<size_t>(n), true);
    }
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i) {
        const uint8_t* p = data.data() + i * elemBytes;
        bool poisoned = true;
        for (int b = 0; b < elemBytes; ++b) {
            if (p[b] != pattern) {
                poisoned = false;
                break;
            }
        }
        if (stillPoisoned) {
            bool v = (*stillPoisoned)[static_cast<size_t>(i)] && poisoned;
            (*stillPoisoned)[static_cast<size_t>(i)] = v;
            poisoned = v;
        }
        count += poisoned ? 1 : 0;
    }
    return count;
}

std::string digestHex(const void* data, size_t bytes) {
    uint64_t h = XXH3_64bits(data, bytes);
    static const char* digits = "0123456789abcdef";
    std::string s(16, '0');
    for (int i = 15; i >= 0; --i) {
        s[static_cast<size_t>(i)] = digits[h & 0xf];
        h >>= 4;
    }
    return s;
}

BufferComparison compareBuffers(ElemType type, const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
                                double atol, double rtol) {
    BufferComparison r;
    const int size = elemSize(type);
    if (a.size() != b.size() || a.size() % size != 0) {
        r.sizeMismatch = true;
        return r;
    }
    r.count = static_cast<int64_t>(a.size()) / size;
    for (int64_t i = 0; i < r.count; ++i) {
        double x = elementAsDouble(type, a.data(), i);
        double y = elementAsDouble(type, b.data(), i);
        bool mismatch = false;
        if (std::isnan(x) || std::isnan(y)) {
            mismatch = std::isnan(x) != std::isnan(y);
        } else if (std::isinf(x) || std::isinf(y)) {
            mismatch = x != y;
        } else {
            double abs = std::fabs(x - y);
            double scale = std::max(std::fabs(x), std::fabs(y));
            r.maxAbsError = std::max(r.maxAbsError, abs);
            if (scale > 0) {
                r.maxRelError = std::max(r.maxRelError, abs / scale);
            }
            mismatch = abs > atol + rtol * std::fabs(x);
        }
        if (mismatch) {
            if (r.firstMismatch < 0) {
                r.firstMismatch = i;
            }
            ++r.mismatches;
        }
    }
    return r;
}

} // namespace lowerscope
