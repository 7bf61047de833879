// test_sass.cpp: the SASS reader's line information and loop marks (sim/sass.hpp) on nvdisasm -g
// text written by hand in the form nvdisasm 13.0 prints (no GPU, no toolkit needed).
#include <doctest/doctest.h>

#include "sim/sass.hpp"

using namespace bankscope;

TEST_CASE("sass: nvdisasm -g line comments give each shared instruction its source line") {
  const std::string text =
      "\t.section\t.text._Z1kPf,\"ax\",@progbits\n"
      ".text._Z1kPf:\n"
      "\t//## File \"/tmp/k.cu\", line 13\n"
      "        /*0010*/                   STS [R10], R9 ;\n"
      ".L_x_0:\n"
      "\t//## File \"/tmp/k.cu\", line 18 inlined at \"/tmp/k.cu\", line 30\n"
      "        /*0020*/                   LDS.128 R12, [R3] ;\n"
      "        /*0030*/                   LDS R17, [R4+0x80] ;\n"
      "\t//## File \"/tmp/k.cu\", line 12\n"
      "        /*0040*/              @P0 BRA `(.L_x_0) ;\n"
      "\t//## File \"/tmp/k.cu\", line 22\n"
      "        /*0050*/                   STS.64 [R1], R4 ;\n"
      "        /*0060*/                   EXIT ;\n";
  auto fns = parse_sass(text);
  REQUIRE(fns);
  REQUIRE(fns->size() == 1);
  const SassFunction& f = fns->front();
  CHECK(f.name == "_Z1kPf");
  REQUIRE(f.shared.size() == 4);
  // address, opcode, width, source line, in a loop (0x20..0x40 lies between .L_x_0 and its BRA)
  struct Row {
    uint64_t address;
    const char* opcode;
    int width, src_line;
    bool in_loop;
  };
  const Row rows[] = {{0x10, "STS", 4, 13, false},
                      {0x20, "LDS.128", 16, 18, true},
                      {0x30, "LDS", 4, 18, true},
                      {0x50, "STS.64", 8, 22, false}};
  for (size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(f.shared[i].address == rows[i].address);
    CHECK(f.shared[i].opcode == rows[i].opcode);
    CHECK(f.shared[i].width == rows[i].width);
    CHECK(f.shared[i].src_line == rows[i].src_line);
    CHECK(f.shared[i].src_file == "/tmp/k.cu");
    CHECK(f.shared[i].in_loop == rows[i].in_loop);
  }
}

TEST_CASE("sass: cuobjdump text without line comments has source line 0") {
  auto fns = parse_sass(
      "\tFunction : _Z1kv\n"
      "        /*0000*/                   LDS R0, [R1] ;\n");
  REQUIRE(fns);
  REQUIRE(fns->front().shared.size() == 1);
  CHECK(fns->front().shared[0].src_line == 0);
  CHECK(fns->front().shared[0].src_file.empty());
  CHECK_FALSE(fns->front().shared[0].in_loop);
}
