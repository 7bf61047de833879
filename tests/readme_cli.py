#!/usr/bin/env python3
"""readme_cli.py: the README's CLI examples are the binary's real output.

A block is marked by an HTML comment naming the command, followed by a fenced block that holds
"$ build/bin/bankscope-cli ARGS" and then exactly what the command prints on stdout:

    <!-- cli: bankscope-cli compare --stride 34 -->
    ```
    $ build/bin/bankscope-cli compare --stride 34
    ...
    ```

Usage: readme_cli.py CLI SOURCE_DIR [--update]
  check (default): run each marked command in SOURCE_DIR, diff with its block, exit 1 on any drift
  --update:        rewrite the blocks from the binary (README.md replaced atomically)
"""
import difflib
import os
import re
import shlex
import subprocess
import sys

MARK = re.compile(r"^<!-- cli: bankscope-cli (.*?) -->\s*$")


def expected_block(cli, src, args):
    run = subprocess.run([cli] + shlex.split(args), cwd=src, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, timeout=120)
    if run.returncode not in (0,):
        raise RuntimeError(f"bankscope-cli {args}: exit {run.returncode}: {run.stderr.strip()}")
    out = run.stdout if run.stdout.endswith("\n") else run.stdout + "\n"
    return f"$ build/bin/bankscope-cli {args}\n" + out


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cli, src = os.path.abspath(sys.argv[1]), sys.argv[2]
    update = "--update" in sys.argv[3:]
    path = os.path.join(src, "README.md")
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out, i, marked, drifted = [], 0, 0, 0
    while i < len(lines):
        m = MARK.match(lines[i])
        out.append(lines[i])
        i += 1
        if not m:
            continue
        marked += 1
        where = f"README.md:{i}"
        if i >= len(lines) or not lines[i].startswith("```"):
            print(f"{where}: a cli marker must be followed by a ``` block", file=sys.stderr)
            return 1
        fence = lines[i]
        j = i + 1
        while j < len(lines) and lines[j] != "```":
            j += 1
        if j >= len(lines):
            print(f"{where}: the ``` block after the cli marker is not closed", file=sys.stderr)
            return 1
        have = "\n".join(lines[i + 1:j]) + "\n"
        try:
            want = expected_block(cli, src, m.group(1))
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            print(f"{where}: {e}", file=sys.stderr)
            return 1
        if have != want:
            drifted += 1
            if not update:
                print(f"{where}: the block differs from `bankscope-cli {m.group(1)}` "
                      "(tests/readme_cli.py CLI . --update regenerates it):")
                sys.stdout.writelines(difflib.unified_diff(
                    have.splitlines(True), want.splitlines(True), "README.md", "bankscope-cli"))
        out.append(fence)
        out.extend((want if update else have).rstrip("\n").split("\n"))
        out.append("```")
        i = j + 1
    if marked == 0:
        print("README.md: no <!-- cli: ... --> block found", file=sys.stderr)
        return 1
    if update:
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write("\n".join(out))
        os.replace(tmp, path)
        print(f"README.md: {marked} block(s), {drifted} regenerated")
        return 0
    if drifted:
        print(f"README.md: {drifted} of {marked} CLI block(s) drifted from the binary")
        return 1
    print(f"README.md: {marked} CLI block(s) match the binary")
    return 0


if __name__ == "__main__":
    sys.exit(main())
