// zerofill_check.cpp: per LDGSTS PC of a trace with sources, R9 (sim/ldgsts.hpp) and R9 with the
// lanes whose source is 0 compared on the destination side only (a lead, not adopted: cp.async's
// zero-fill form reads no global memory, and this tracer records its null source as 0). Built
// against the sim library at commit 527965b:
//   g++ -O2 -std=c++17 -Isim zerofill_check.cpp build/sim/libbankscope_sim.a -o zerofill_check
//   ./zerofill_check cublas_sgemm.bstrace   (the traces of this run, not committed: 27 and 9 MB)
// Output for this run's traces: zerofill_check.txt beside it; the H200's per-PC counts: log.txt.
#include "trace.hpp"
#include "ldgsts.hpp"
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
using namespace bankscope;
// .ca with zero-fill lanes (source address 0: nothing read) compared on the destination side only.
static int ca_zf(const WarpAccess& a, const LdgstsSources& src) {
  uint32_t phase_mask[32]; const int n = rules::phases(a, BankConfig{}, phase_mask); int total = 0;
  for (int p = 0; p < n; ++p) {
    int lanes[32]; int k = 0; for (int l = 0; l < 32; ++l) if ((phase_mask[p] >> l) & 1u) lanes[k++] = l;
    int slot[32] = {0}; int last = 0;
    for (int i = 0; i < k; ++i) { const int l = lanes[i];
      const bool zl = src[l] == 0;
      const uint32_t sb = zl ? 0 : ldgsts_detail::bank_bits(src[l], a.width), db = ldgsts_detail::bank_bits(a.addr[l], a.width);
      int count = 0, after = 0;
      for (int j = 0; j < i; ++j) { const int m = lanes[j]; const bool zm = src[m] == 0;
        if ((sb & (zm ? 0u : ldgsts_detail::bank_bits(src[m], a.width))) || (db & ldgsts_detail::bank_bits(a.addr[m], a.width))) { ++count; after = std::max(after, slot[m] + 1); } }
      slot[l] = std::max(count, after); last = std::max(last, slot[l]); }
    total += last + 1; }
  return total;
}
struct S : TraceSink {
  uint64_t launch = 0;
  std::map<std::pair<uint64_t,uint64_t>, std::array<uint64_t,3>> per;  // (launch, pc) -> R9, zf, execs
  void on_launch(const TraceLaunch& l) override { launch = l.launch; }
  void on_warp(const TraceWarp& w, const TracePc& pc) override {
    if (pc.kind != TraceOpKind::kLdgsts || w.mask == 0) return;
    WarpAccess a; a.op = Op::kLdgsts; a.width = pc.width; a.mask = w.mask; a.bypass_l1 = pc.opcode.find("BYPASS") != std::string::npos;
    for (int l=0;l<32;++l) a.addr[l]=w.addr[l];
    LdgstsSources src; for (int l=0;l<32;++l) src[l]= (w.mask >> l & 1) ? w.src[l] : 1;
    auto& e = per[{launch, pc.pc}];
    const int r9 = ldgsts_cost(a, src).wavefronts;
    e[0] += r9; e[1] += a.bypass_l1 ? r9 : ca_zf(a, src); e[2] += 1;
  }
};
int main(int argc, char** argv) {
  std::ifstream in(argv[1], std::ios::binary); std::vector<uint8_t> b((std::istreambuf_iterator<char>(in)), {});
  S s; auto r = read_trace(b.data(), b.size(), s); if (!r) printf("%s\n", r.error().message.c_str());
  for (auto& [k, v] : s.per) printf("launch %llu pc 0x%llx execs %llu R9 %llu zerofill-rule %llu\n", (unsigned long long)k.first, (unsigned long long)k.second, (unsigned long long)v[2], (unsigned long long)v[0], (unsigned long long)v[1]);
}
