// The register model (core/analysis/defuse + liveness) against nvdisasm -lrm narrow, register by
// register: on every row of the register-model corpus (tests/data/regmodel, written by
// scripts/gen-regmodel from tests/data/regmodel/src/*.cu for sm_80, sm_90a, sm_100a and sm_120a),
// for each register class (GPR, PRED, UGPR, UPRED), the registers nvdisasm marks as read (`v`,
// `x`), written (`^`, `x`) and live (any mark) must equal the ones the core reads, writes and
// counts, except for the differences listed in core/analysis/liveness.h, each of which has a
// classifier here. Any other difference fails the test. A kernel nvdisasm refused (a `.refused`
// file instead of `.narrow.sass`) is skipped and reported.
#include "analysis_util.h"
#include "core/analysis/cfg.h"
#include "core/analysis/deps.h"
#include "core/analysis/liveness.h"
#include "core/parse/listing_json.h"
#include "core/parse/opcodes.h"

#include <gtest/gtest.h>

#include <array>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

using namespace lowerscope;
using namespace lowerscope::testutil;

namespace {

std::filesystem::path corpusDir() { return dataDir() / "regmodel"; }

enum Cls { kGpr, kPred, kUgpr, kUpred, kClasses };
const char* const kClassName[kClasses] = {"GPR", "PRED", "UGPR", "UPRED"};

// One row of the oracle: per class, register index → mark (' ' none, ':', 'v', '^', 'x').
struct OracleRow {
    std::array<std::map<int, char>, kClasses> marks;
};

struct OracleFunction {
    std::map<uint32_t, OracleRow> rows;
};

std::vector<std::string_view> cellsOf(std::string_view line) {
    std::vector<std::string_view> cells;
    const size_t c = line.find("// |");
    if (c == std::string_view::npos) return cells;
    std::string_view t = line.substr(c + 4);
    while (true) {
        const size_t bar = t.find('|');
        if (bar == std::string_view::npos) break;
        cells.push_back(t.substr(0, bar));
        t.remove_prefix(bar + 1);
    }
    return cells;
}

// Parses `nvdisasm -c -lrm narrow`: for each function (`.text.<name>` section), the header names
// the class of each cell and the register index under each character position.
std::map<std::string, OracleFunction> parseNarrow(const std::string& text) {
    std::map<std::string, OracleFunction> out;
    std::string fn;
    std::vector<int> cellClass;
    std::vector<std::vector<std::string>> digitRows; // per cell, the header rows of digits
    std::vector<std::vector<int>> indexAt;           // per cell, register index per offset (-1)
    bool inHeader = false;
    int borders = 0; // `// +---` lines seen in this function: the header lies between the first two
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const size_t sec = line.find("//--------------------- .text.");
        if (sec != std::string::npos) {
            fn = line.substr(sec + 30);
            fn = fn.substr(0, fn.find(' '));
            out[fn];
            borders = 0;
            continue;
        }
        const std::vector<std::string_view> cells = cellsOf(line);
        if (cells.empty()) {
            if (line.find("// +-") == std::string::npos) continue;
            ++borders;
            if (borders == 2) {
                // End of a header: build the index maps from the digit rows.
                indexAt.assign(cellClass.size(), {});
                for (size_t k = 0; k < cellClass.size(); ++k) {
                    if (digitRows.size() <= k || digitRows[k].empty()) continue;
                    const std::string& last = digitRows[k].back();
                    indexAt[k].assign(last.size(), -1);
                    for (size_t o = 0; o < last.size(); ++o) {
                        if (last[o] < '0' || last[o] > '9') continue;
                        int v = 0;
                        for (const auto& row : digitRows[k])
                            if (o < row.size() && row[o] >= '0' && row[o] <= '9') v = v * 10 + (row[o] - '0');
                        indexAt[k][o] = v;
                    }
                }
                inHeader = false;
            } else if (borders == 1) {
                inHeader = true;
                cellClass.clear();
                digitRows.clear();
            }
            continue;
        }
        if (inHeader) {
            if (cellClass.empty()) {
                for (auto c : cells) {
                    std::string t(c);
                    t.erase(0, t.find_first_not_of(' '));
                    t.erase(t.find_last_not_of(' ') + 1);
                    cellClass.push_back(t == "GPR" ? kGpr : t == "PRED" ? kPred : t == "UGPR" ? kUgpr : t == "UPRED" ? kUpred : -1);
                }
                digitRows.assign(cells.size(), {});
            } else {
                for (size_t k = 0; k < cells.size() && k < digitRows.size(); ++k)
                    if (cells[k].find_first_of("0123456789") != std::string_view::npos) digitRows[k].emplace_back(cells[k]);
            }
            continue;
        }
        const size_t a = line.find("/*");
        if (a == std::string::npos || a > 20 || line.find("*/") == std::string::npos) continue;
        const uint32_t address = static_cast<uint32_t>(std::stoul(line.substr(a + 2, line.find("*/") - a - 2), nullptr, 16));
        OracleRow row;
        for (size_t k = 0; k < cells.size() && k < cellClass.size() && k < indexAt.size(); ++k) {
            if (cellClass[k] < 0) continue;
            for (size_t o = 0; o < cells[k].size() && o < indexAt[k].size(); ++o) {
                if (indexAt[k][o] < 0) continue;
                const char m = cells[k][o];
                if (m != ' ') row.marks[static_cast<size_t>(cellClass[k])][indexAt[k][o]] = m;
            }
        }
        out[fn].rows[address] = row;
    }
    return out;
}

template <size_t N> std::set<int> bitsOf(const std::bitset<N>& b) {
    std::set<int> s;
    for (size_t i = 0; i < N; ++i)
        if (b.test(i)) s.insert(static_cast<int>(i));
    return s;
}

std::set<int> ofClass(const LiveSet& l, int c) {
    switch (c) {
    case kGpr: return bitsOf(l.gpr);
    case kPred: return bitsOf(l.pred);
    case kUgpr: return bitsOf(l.ugpr);
    default: return bitsOf(l.upred);
    }
}

std::string listOf(const std::set<int>& s) {
    std::string t;
    for (int x : s) t += (t.empty() ? "" : ",") + std::to_string(x);
    return "{" + t + "}";
}

struct Corpus {
    std::string arch, kernel;
};

std::vector<Corpus> corpus() {
    std::vector<Corpus> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(corpusDir(), ec)) {
        if (!e.is_directory() || e.path().filename().string().rfind("sm_", 0) != 0) continue;
        for (const auto& f : std::filesystem::directory_iterator(e.path())) {
            const std::string n = f.path().filename().string();
            if (n.size() > 5 && n.ends_with(".sass") && !n.ends_with(".narrow.sass"))
                out.push_back({e.path().filename().string(), n.substr(0, n.size() - 5)});
        }
    }
    std::sort(out.begin(), out.end(), [](const Corpus& a, const Corpus& b) { return std::tie(a.arch, a.kernel) < std::tie(b.arch, b.kernel); });
    return out;
}

SassListing loadCorpus(const Corpus& c) {
    SassListing l = parseSass(readFile(corpusDir() / c.arch / (c.kernel + ".sass")));
    for (auto& f : l.functions) analyseDefUse(f);
    return l;
}

// What differs on one row of one class.
struct Difference {
    int cls = kGpr;
    std::string what; // "read", "written", "live"
    std::set<int> onlyMine, onlyTheirs;
};

// The reason (one of the known differences listed in core/analysis/liveness.h) for a difference,
// or "" when it is none of them. Each classifier checks the exact shape of its difference.
std::string reasonFor(const SassInstruction& ins, const Difference& d) {
    // LDGSTS's zero-fill predicate: nvdisasm marks it written too; here it is only read.
    if (ins.mnemonic == "LDGSTS" && d.cls == kPred && d.what == "written" && d.onlyMine.empty()) {
        std::set<int> operandPredicates;
        for (const auto& o : ins.operands)
            if (o.kind == OperandKind::Predicate)
                for (const auto& r : o.regs)
                    for (int k = 0; k < r.count; ++k) operandPredicates.insert(r.first + k);
        if (!operandPredicates.empty() && d.onlyTheirs == operandPredicates) return "LDGSTS zero-fill predicate written (nvdisasm)";
    }
    return "";
}

// Compares one function's rows with the oracle's: counts rows and listed differences by reason
// into `rows` and `reasons`, returns a description of every unlisted difference.
std::vector<std::string> compareFunction(const SassFunction& fn, const OracleFunction& oracle, const RegisterLimits& limits,
                                         int& rows, std::map<std::string, int>& reasons) {
    std::vector<std::string> unexplained;
    const Cfg cfg = buildCfg(fn);
    const auto mineRows = registerRows(fn, cfg, limits);
    for (const auto& [address, orow] : oracle.rows) {
        const int at = fn.indexOf(address);
        if (at < 0) {
            unexplained.push_back("no instruction at " + std::to_string(address));
            continue;
        }
        const SassInstruction& ins = fn.instructions[static_cast<size_t>(at)];
        const RegisterRow& mine = mineRows[static_cast<size_t>(at)];
        ++rows;
        for (int c = 0; c < kClasses; ++c) {
            std::set<int> read, written, live;
            for (const auto& [r, m] : orow.marks[static_cast<size_t>(c)]) {
                live.insert(r);
                if (m == 'v' || m == 'x') read.insert(r);
                if (m == '^' || m == 'x') written.insert(r);
            }
            const std::pair<const char*, std::pair<std::set<int>, std::set<int>>> checks[] = {
                {"read", {ofClass(mine.read, c), read}},
                {"written", {ofClass(mine.written, c), written}},
                {"live", {ofClass(mine.live, c), live}},
            };
            for (const auto& [what, sets] : checks) {
                if (sets.first == sets.second) continue;
                std::set<int> onlyMine, onlyTheirs;
                std::set_difference(sets.first.begin(), sets.first.end(), sets.second.begin(), sets.second.end(),
                                    std::inserter(onlyMine, onlyMine.end()));
                std::set_difference(sets.second.begin(), sets.second.end(), sets.first.begin(), sets.first.end(),
                                    std::inserter(onlyTheirs, onlyTheirs.end()));
                const std::string why = reasonFor(ins, Difference{c, what, onlyMine, onlyTheirs});
                if (!why.empty()) {
                    ++reasons[why];
                    continue;
                }
                std::ostringstream m;
                m << std::hex << address << std::dec << " " << ins.text << ": " << kClassName[c] << " " << what
                  << " only here " << listOf(onlyMine) << ", only nvdisasm " << listOf(onlyTheirs);
                unexplained.push_back(m.str());
            }
        }
    }
    return unexplained;
}

} // namespace

TEST(RegisterOracle, EqualsNvdisasmNarrowOnTheCorpus) {
    const auto kernels = corpus();
    ASSERT_GE(kernels.size(), 13u) << "tests/data/regmodel is missing (scripts/gen-regmodel)";
    // Figures per architecture: rows compared, and differences by reason.
    std::map<std::string, int> rowsPerArch;
    std::map<std::string, std::map<std::string, int>> reasons;
    int unexplained = 0;
    for (const auto& k : kernels) {
        SCOPED_TRACE(k.arch + "/" + k.kernel);
        const auto narrowPath = corpusDir() / k.arch / (k.kernel + ".narrow.sass");
        if (!std::filesystem::exists(narrowPath)) {
            const auto refused = corpusDir() / k.arch / (k.kernel + ".refused");
            ASSERT_TRUE(std::filesystem::exists(refused)) << "neither .narrow.sass nor .refused";
            std::cout << "SKIPPED " << k.arch << "/" << k.kernel << ": nvdisasm refused -lrm: " << readFile(refused);
            continue;
        }
        const std::string narrowText = readFile(narrowPath);
        const auto oracle = parseNarrow(narrowText);
        // Every instruction row of the oracle is parsed (none lost to a misread header).
        size_t instructionRows = 0, parsedRows = 0;
        {
            std::istringstream in(narrowText);
            std::string line;
            while (std::getline(in, line)) {
                const size_t a = line.find("/*");
                if (a != std::string::npos && a < 20 && line.find("*/") != std::string::npos && line.find("// |") != std::string::npos)
                    ++instructionRows;
            }
            for (const auto& [name, f] : oracle) parsedRows += f.rows.size();
        }
        EXPECT_EQ(parsedRows, instructionRows);
        const SassListing listing = loadCorpus(k);
        RegisterLimits limits;
        for (const auto& f : listing.functions) limits = mergeLimits(limits, registerLimits(f));
        ASSERT_FALSE(listing.functions.empty());
        for (const auto& fn : listing.functions) {
            SCOPED_TRACE(fn.name);
            const auto of = oracle.find(fn.name);
            ASSERT_NE(of, oracle.end());
            ASSERT_FALSE(of->second.rows.empty());
            for (const auto& failure : compareFunction(fn, of->second, limits, rowsPerArch[k.arch], reasons[k.arch])) {
                ++unexplained;
                ADD_FAILURE() << failure;
            }
        }
    }
    for (const auto& [arch, n] : rowsPerArch) {
        std::cout << arch << ": " << n << " rows compared";
        for (const auto& [why, count] : reasons[arch]) std::cout << ", " << why << ": " << count;
        std::cout << "\n";
    }
    std::cout << "unexplained differences: " << unexplained << "\n";
    EXPECT_EQ(unexplained, 0);
}

// The arrows the oracle implies: inside each block, a row that nvdisasm marks as reading a
// register depends on the nearest row above it in the block that nvdisasm marks as writing it.
// Every such pair must be a dependency edge (core/analysis/deps.h), except where the oracle's
// write is one of the listed differences (LDGSTS's zero-fill predicate) or the read is a CALL's
// conventional read of R0/R1 (nvdisasm's calling convention, which the liveness follows): arrows
// into a CALL come from what its callee actually reads before writing (core/analysis/deps.h), so
// a callee that never reads R0 (the tcgen05 guardrail traps) gets no arrow for it; those are
// counted in `convention`. Returns the missing ones.
std::vector<std::string> missingArrows(const SassFunction& fn, const OracleFunction& oracle, int& implied, int& convention) {
    std::vector<std::string> missing;
    const Cfg cfg = buildCfg(fn);
    const auto deps = computeDependencies(fn, cfg);
    std::set<std::tuple<uint32_t, uint32_t, std::string>> have;
    for (const auto& e : deps) have.insert({e.from, e.to, e.resource});
    static const RegClass kRegClass[kClasses] = {RegClass::R, RegClass::P, RegClass::UR, RegClass::UP};
    for (const auto& blk : cfg.blocks) {
        // Per class and register: the address of the last oracle write seen in this block.
        std::array<std::map<int, uint32_t>, kClasses> lastWrite;
        for (int i = blk.firstIndex; i <= blk.lastIndex; ++i) {
            const SassInstruction& ins = fn.instructions[static_cast<size_t>(i)];
            const auto row = oracle.rows.find(ins.address);
            if (row == oracle.rows.end()) continue;
            for (int c = 0; c < kClasses; ++c)
                for (const auto& [r, m] : row->second.marks[static_cast<size_t>(c)]) {
                    if (m != 'v' && m != 'x') continue;
                    const auto w = lastWrite[static_cast<size_t>(c)].find(r);
                    if (w == lastWrite[static_cast<size_t>(c)].end()) continue;
                    ++implied;
                    const std::string name = registerName(kRegClass[c], r);
                    if (have.count({w->second, ins.address, name})) continue;
                    if (ins.mnemonic == "CALL" && c == kGpr && (r == 0 || r == 1)) {
                        ++convention;
                        continue;
                    }
                    std::ostringstream msg;
                    msg << std::hex << w->second << " -> " << ins.address << std::dec << " " << name << " (" << ins.text << ")";
                    missing.push_back(msg.str());
                }
            for (int c = 0; c < kClasses; ++c)
                for (const auto& [r, m] : row->second.marks[static_cast<size_t>(c)]) {
                    if (m != '^' && m != 'x') continue;
                    // LDGSTS's zero-fill predicate: written for nvdisasm, only read here (listed).
                    if (ins.mnemonic == "LDGSTS" && c == kPred && m == 'x') continue;
                    lastWrite[static_cast<size_t>(c)][r] = ins.address;
                }
        }
    }
    return missing;
}

TEST(RegisterOracle, EverySameBlockDependencyIsAnArrow) {
    std::map<std::string, int> impliedPerArch, conventionPerArch;
    int missing = 0;
    for (const auto& k : corpus()) {
        SCOPED_TRACE(k.arch + "/" + k.kernel);
        const auto narrowPath = corpusDir() / k.arch / (k.kernel + ".narrow.sass");
        if (!std::filesystem::exists(narrowPath)) continue; // reported by EqualsNvdisasmNarrowOnTheCorpus
        const auto oracle = parseNarrow(readFile(narrowPath));
        const SassListing listing = loadCorpus(k);
        for (const auto& fn : listing.functions) {
            const auto of = oracle.find(fn.name);
            ASSERT_NE(of, oracle.end());
            for (const auto& m : missingArrows(fn, of->second, impliedPerArch[k.arch], conventionPerArch[k.arch])) {
                ++missing;
                ADD_FAILURE() << "no arrow " << m;
            }
        }
    }
    int total = 0;
    for (const auto& [arch, n] : impliedPerArch) {
        std::cout << arch << ": " << n << " same-block dependencies implied by the oracle, " << conventionPerArch[arch]
                  << " of them a CALL's conventional read of R0/R1 that its callee does not make\n";
        total += n;
    }
    EXPECT_GT(total, 1000);
    std::cout << "missing arrows: " << missing << "\n";
    EXPECT_EQ(missing, 0);
}

// The comparison can fail: a model that forgets one definition, or treats every guarded
// definition as a full one, differs from the oracle on rows the listed reasons do not cover.
TEST(RegisterOracle, DetectsAWrongModel) {
    const Corpus k{"sm_120a", "blockscaled_mma"};
    const auto oracle = parseNarrow(readFile(corpusDir() / k.arch / (k.kernel + ".narrow.sass")));
    SassListing listing = loadCorpus(k);
    ASSERT_EQ(listing.functions.size(), 1u);
    const RegisterLimits limits = registerLimits(listing.functions[0]);
    const auto& of = oracle.at(listing.functions[0].name);
    int rows = 0;
    std::map<std::string, int> reasons;
    EXPECT_TRUE(compareFunction(listing.functions[0], of, limits, rows, reasons).empty());

    SassFunction forgetful = listing.functions[0];
    for (auto& i : forgetful.instructions)
        if (i.mnemonic == "QMMA" && !i.defs.empty()) {
            i.defs.clear();
            break;
        }
    EXPECT_FALSE(compareFunction(forgetful, of, limits, rows, reasons).empty());

    SassFunction guardBlind = listing.functions[0];
    for (auto& i : guardBlind.instructions)
        if (i.predicate.rfind("@!P", 0) == 0 || i.predicate.rfind("@P", 0) == 0) i.predicate.clear();
    EXPECT_FALSE(compareFunction(guardBlind, of, limits, rows, reasons).empty());

    // The arrow check fails too when a definition is forgotten.
    int implied = 0, convention = 0;
    EXPECT_TRUE(missingArrows(listing.functions[0], of, implied, convention).empty());
    EXPECT_GT(implied, 0);
    SassFunction noUniformDefs = listing.functions[0]; // forgets every write of a uniform register
    for (auto& i : noUniformDefs.instructions)
        std::erase_if(i.defs, [](const RegRange& r) { return r.cls == RegClass::UR; });
    EXPECT_FALSE(missingArrows(noUniformDefs, of, implied, convention).empty());
}

// An opcode of the operand-width table in a form the table does not list keeps the default
// reading and says so in the JSON (`width_guessed: true`); a listed form does not.
TEST(RegisterOracle, UnlistedFormsAreFlaggedAsGuessed) {
    const std::string text = "//--------------------- .text.k --------------------------\n"
                             "\t.section\t.text.k,\"ax\",@progbits\n"
                             "k:\n"
                             "        /*0000*/                   UTMALDG.2D [UR8], [UR4] ;\n"
                             "        /*0010*/                   UTMALDG.9D [UR8], [UR4] ;\n"
                             "        /*0020*/                   IADD3 R0, R1, R2, RZ ;\n"
                             "        /*0030*/                   EXIT ;\n";
    SassListing l = parseSass(text);
    ASSERT_EQ(l.functions.size(), 1u);
    SassFunction& f = l.functions[0];
    analyseDefUse(f);
    ASSERT_EQ(f.instructions.size(), 4u);
    const SassInstruction& listed = f.instructions[0];
    EXPECT_FALSE(listed.widthGuessed);
    std::set<std::string> uses;
    for (const auto& r : listed.uses)
        for (int k = 0; k < r.count; ++k) uses.insert(registerName(r.cls, r.first + k));
    EXPECT_EQ(uses, (std::set<std::string>{"UR4", "UR5", "UR8", "UR9", "UR10", "UR11"}));
    EXPECT_TRUE(f.instructions[1].widthGuessed);
    EXPECT_FALSE(f.instructions[2].widthGuessed); // not a table opcode
    EXPECT_TRUE(operandWidthsListed("UTMALDG"));
    EXPECT_FALSE(operandWidthsListed("IADD3"));

    nlohmann::json j0 = listed, j1 = f.instructions[1];
    EXPECT_FALSE(j0.contains("width_guessed"));
    ASSERT_TRUE(j1.contains("width_guessed"));
    EXPECT_EQ(j1["width_guessed"], true);
}
