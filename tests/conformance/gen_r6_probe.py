#!/usr/bin/env python3
"""gen_r6_probe.py: a probe of rule R6's merge of wide-load phases, written when the atomics probe's
trace (kernels/probes/atom_cast.cu, assets/results/h200/2026-12-01x) had two 8-byte loads where
Nsight Compute's instruction-level counter disagreed with R6: lanes (l, l^2) on one address, every
(l, l^1) pair on two words of one bank ([0, 128, 0, 128, ...]: R6 says one merged phase, 2
wavefronts; the counter said 4), and a partial mask where only (l, l^1) pairs are active, each pair
on two words of one bank. Measured here on the hardware counter (2026-12-01y), R6 holds on all 375:
the difference is the instruction-level counter's, rule R11 (sim/RULES.md). Deterministic (seed 8061).

Families (id prefix r6p_<family>_), 8- and 16-byte loads:
  quad   every quad of lanes (a, b, a, b) (l^2 symmetric) or (a, a, b, b) (l^1), where b is chosen
         against a: the same word, the next word, another word of the same bank, any word; all
         quads alike or mixed; halves alike or not
  vac    partial masks with at most one lane of each (l, l^1) or (l, l^2) pair active, the active
         lanes' words conflicting or not
  mixed  l^2 symmetric warps where some quads conflict inside and some do not
  ctl    the two found patterns, and R6's own evidence patterns rebuilt (xs2, bc_mod2)

    python3 gen_r6_probe.py [--check]     (writes r6_probe.jsonl beside this file)
"""
import json
import os
import random
import sys

rng = random.Random(8061)
out = []


def emit(family, width, mask, offs, tag=""):
    out.append({"id": f"r6p_{family}_{len(out):03d}_w{width}{('_' + tag) if tag else ''}", "family": f"r6p_{family}",
                "op": "ld", "width": width, "mask": f"0x{mask:08x}", "offsets": offs})


def partner_of(width, a, rel):
    """A word chosen against a: 'same', 'next' (the adjacent word), 'bank' (same bank, another row),
    'any' (a random word)."""
    if rel == "same":
        return a
    if rel == "next":
        return a + width if (a // width) % 2 == 0 else a - width
    if rel == "bank":
        return (a + 128 * rng.randrange(1, 24)) % 8192
    return rng.randrange(0, 8192 // width) * width


RELS = ("same", "next", "bank", "any")

for width in (8, 16):
    for sym in (1, 2):
        for rel in RELS:
            for halves in ("alike", "differ"):
                for spread in ("rows", "banks", "one_bank"):
                    for _ in range(2):
                        offs = [0] * 32
                        quads = []
                        for q in range(8):
                            if halves == "alike" and q >= 4:
                                quads.append(quads[q - 4])
                                continue
                            if spread == "rows":
                                a = rng.randrange(0, 8192 // width) * width
                            elif spread == "banks":
                                a = (q * 2 * width + 128 * rng.randrange(0, 8)) % 8192
                            else:
                                a = 128 * rng.randrange(0, 24)
                            quads.append((a, partner_of(width, a, rel)))
                        for q, (a, b) in enumerate(quads):
                            lanes = [4 * q + i for i in range(4)]
                            vals = (a, b, a, b) if sym == 2 else (a, a, b, b)
                            for lane, v in zip(lanes, vals):
                                offs[lane] = v
                        mask = 0xFFFFFFFF if rng.random() < 0.7 else rng.choice(
                            [0x0000FFFF, 0xFFFF0000, 0x00FF00FF, rng.getrandbits(32) | 1])
                        emit("quad", width, mask, offs, f"x{sym}_{rel}_{halves}_{spread}")

    # Partial masks: at most one lane of each pair active.
    for pair in (1, 2, 3):
        for conflict in ("conf", "free"):
            for _ in range(10):
                lanes = [l for l in range(32) if rng.random() < 0.6]
                keep = []
                for l in lanes:
                    if (l ^ pair) not in keep:
                        keep.append(l)
                # pair 3: one lane of each quad at most
                if pair == 3:
                    keep = [l for l in keep if not any((l // 4) == (k // 4) for k in keep if k < l)]
                mask = 0
                for l in keep:
                    mask |= 1 << l
                offs = [0] * 32
                for l in range(32):
                    if conflict == "conf":
                        offs[l] = (128 * rng.randrange(0, 48) + width * rng.randrange(0, 2)) % 8192
                    else:
                        offs[l] = (width * (l % (128 // width)) + 128 * rng.randrange(0, 48)) % 8192
                emit("vac", width, mask | (1 if not mask else 0), offs, f"p{pair}_{conflict}")

    # l^2 symmetric warps, a chosen number of quads conflicting inside.
    for nconf in range(0, 9):
        for _ in range(3):
            offs = [0] * 32
            conf = set(rng.sample(range(8), nconf))
            for q in range(8):
                a = (128 * rng.randrange(0, 32) + 2 * width * q) % 8192
                b = (a + 128 * rng.randrange(1, 16)) % 8192 if q in conf else (a + width) % 8192
                for i, v in enumerate((a, b, a, b)):
                    offs[4 * q + i] = v
            emit("mixed", width, 0xFFFFFFFF, offs, f"n{nconf}")

# Controls: the two patterns found, and R6's evidence rebuilt.
emit("ctl", 8, 0xFFFFFFFF, [128 * (l % 2) for l in range(32)], "alt_0_128")
emit("ctl", 8, 0xC0C0C0C0, [128 * (l % 8) + 8 * (l // 8) for l in range(32)], "grp4_exec6")
emit("ctl", 8, 0x80808080, [128 * (l % 8) + 8 * (l // 8) for l in range(32)], "grp4_exec7")
emit("ctl", 8, 0xFFFFFFFF, [8 * (l % 2) for l in range(32)], "bc_mod2")
emit("ctl", 8, 0xFFFFFFFF, [8 * (l % 2) + 32 * (l // 4) for l in range(32)], "xs2")
emit("ctl", 8, 0xFFFFFFFF, [128 * ((l // 2) % 2) for l in range(32)], "pairs_0_128")
emit("ctl", 8, 0xFFFFFFFF, [128 * (l % 2) + 8 * (l // 16) for l in range(32)], "alt_halves_shifted")
emit("ctl", 16, 0xFFFFFFFF, [128 * (l % 2) for l in range(32)], "alt_0_128")
emit("ctl", 16, 0xFFFFFFFF, [16 * (l % 2) for l in range(32)], "bc_mod2")

text = "".join(json.dumps(p) + "\n" for p in out)
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "r6_probe.jsonl")
if "--check" in sys.argv:
    if open(path).read() != text:
        sys.exit(f"gen_r6_probe.py: {path} is not what this generator writes")
    print(f"gen_r6_probe.py: {path} matches ({len(out)} patterns)")
else:
    open(path, "w").write(text)
    print(f"gen_r6_probe.py: wrote {len(out)} patterns to {path}")
