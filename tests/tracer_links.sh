#!/usr/bin/env bash
# tracer_links.sh LIB: the injection library resolves every symbol it uses. A missing one makes the
# CUDA driver skip CUDA_INJECTION64_PATH without a word, and every trace comes out empty (it
# happened: trace.cpp began calling cost_path() from bank_model.cpp, which the library did not
# compile in; the H200 traced nothing, 2026-12-01, run 6). No GPU needed: ldd -r resolves the
# relocations here.
set -u
lib=${1:?usage: tracer_links.sh LIB}
[[ -f $lib ]] || { echo "tracer_links: $lib: no such file"; exit 1; }
out=$(ldd -r "$lib" 2>&1)
if grep -q "not found" <<<"$out"; then
  # A library the loader cannot find here (e.g. libsanitizer-public.so outside its RPATH) is not
  # what this test checks; the symbols of the library's own code are.
  echo "tracer_links: note: $(grep 'not found' <<<"$out" | head -3 | tr '\n' ' ')"
fi
bad=$(grep "undefined symbol" <<<"$out" | grep -v "libsanitizer\|sanitizer" || true)
if [[ -n $bad ]]; then
  echo "tracer_links: $lib has unresolved symbols (the driver would not load it):"
  echo "$bad" | head -10
  exit 1
fi
echo "tracer_links: $lib: every symbol resolves"
