// trace_annotate.hpp: gives a trace's instructions their SASS opcode and source line, read from the
// compiled kernel itself. The Compute Sanitizer API reports an instruction's kind and width but no
// opcode and no line; `bankscope-gpu trace` keeps each traced kernel's cubin, disassembles it with
// `nvdisasm -g` (which prints `//## File "k.cu", line 18` for -lineinfo builds) and calls this.
//
//   (launch, pc offset in the function) -> SASS instruction at that offset -> opcode, file, line
//
// Pure: bytes in, bytes out. An instruction whose offset the SASS does not list keeps what it had.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "sass.hpp"
#include "status.hpp"

namespace bankscope {

struct AnnotateSummary {
  uint64_t instructions = 0;  // 'P' records read
  uint64_t with_opcode = 0;   // found in the SASS: opcode set
  uint64_t with_line = 0;     // ... with a source line
};

// `functions` maps a launch index to the SASS of the function it ran (launches absent from the map
// are copied unchanged). Returns the new file's bytes; a trace the reader refuses gives its error.
Result<std::vector<uint8_t>> annotate_trace(const std::vector<uint8_t>& trace,
                                            const std::map<uint64_t, const SassFunction*>& functions,
                                            AnnotateSummary* summary = nullptr);

}  // namespace bankscope
